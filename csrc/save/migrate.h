/* migrate.h: what migrate.c (the world, the report) and migrate_crowd.c (a crowd's rows and agents) share while rewriting an old save. */
#ifndef migrate_h
#define migrate_h

#include "sp_save.h"

/* One rewrite: the old save read from p (bounded), the new one written to
 * o. The first problem sets failed and the error; later reads return
 * zeros, so the code checks `failed` where it matters. */
typedef struct Mig {
  const SpWorld *w;
  const SpCrowd *const *crowds;
  size_t count;
  const SpSaveNames *names;
  const SpMigrateDefault *defs;
  size_t ndefs;
  SaveNames old;
  const uint8_t *p;
  size_t len, at;
  SpSaveOut o;
  SpMigration *out;
  SpError *err;
  int failed;
  int crowd;           /* 1-based while in a crowd */
  uint32_t *place_map; /* old place -> new place, SP_NO_PLACE: gone */
  uint32_t *held;      /* new places: reservations of the agents kept */
  size_t place_bytes, held_bytes;
  uint32_t *gone_uses; /* old places: agents whose target or home it was */
  uint32_t version;    /* the input's format */
  int changed;         /* some crowd changed (its agents or goals moved) */
  size_t said;         /* report lines so far */
} Mig;

/* Reader (bounded; NULL or 0 once failed) */
const uint8_t *sp__mig_take(Mig *g, size_t n);
uint64_t sp__mig_get(Mig *g, int bytes);
/* "saved world: migrate: [crowd k 'name': ]what"; returns 0. */
int sp__mig_fail(Mig *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends one line to the report (crowd k's name first when in one). */
void sp__mig_say(Mig *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A counted section of the old save, read from `from` up to g->at, `n`
 * entries: copied as it is, or, when `drop` (and n > 0), replaced by a
 * count of 0 with the report line "<n> <one or many> <what>". */
void sp__mig_section(Mig *g, size_t from, uint32_t n, int drop, const char *one,
                     const char *many, const char *what);
/* Prints a saved name (not NUL-terminated) for a "%.*s". */
#define SAVE_STR_ARG(s) (int)(s).len, (const char *)(s).p

/* Crowd k (0-based) of the body: rewritten into g->o. */
int sp__mig_crowd(Mig *g, size_t k);

#endif
