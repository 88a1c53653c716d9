/* load.h: what load.c (header, world, crowds, agents) and load_chase_queue.c (chases, the queue of waiters) share while reading a save. */
#ifndef load_h
#define load_h

#include "sp_save.h"
#include "sp_goals.h"
#include "sp_places.h"

/* Every reader runs twice (load.c): apply 0 checks and allocates, apply 1
 * writes and can no longer fail. */

/* Reader: bounded; the first problem sets failed and the error, later
 * reads return NULL or 0. */
typedef struct Rd {
  const uint8_t *p;
  size_t len, at;
  SpError *err;
  int crowd;        /* 1-based while reading a crowd, else 0 */
  const char *name; /* its domain's name */
  size_t agent;     /* SP_NO_AGENT outside the agents */
  int failed;
} Rd;

const uint8_t *sp__ld_take(Rd *r, size_t n);
uint64_t sp__ld_get(Rd *r, int bytes);
/* Records the first problem: "saved world: <where>: <what>"; returns 0. */
int sp__ld_bad(Rd *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One load */
typedef struct Refusals {
  uint32_t *hi; /* the crowd's new refused_hi (NULL for none) */
  size_t words;
  size_t n;         /* its agents as saved */
  OwnPriority *own; /* first pass: its agents' own priorities */
  size_t own_n;
} Refusals;

typedef struct Load {
  SpWorld *w;
  SpCrowd *const *crowds;
  size_t count;
  int apply;
  uint32_t *saved, *held; /* per place: saved reservations, the agents' */
  size_t place_bytes;
  Refusals *ref; /* per crowd */
  const uint8_t *extra;
  size_t extra_len;
  int selector;   /* the crowd being read: as saved */
  double clock;   /* its clock, as saved */
  size_t *agents; /* per crowd: saved agents and goals, or NULL */
  int *goals;
  uint8_t *freed;     /* first pass, per saved slot of the crowd read: 1
                     despawned, 2 listed as free too, 4 may chase (until
                     its chase is read) */
  uint32_t *progress; /* first pass, per saved slot: its time's bits */
  size_t freed_bytes;
  Waiter *queue; /* first pass: the world's new queue */
  size_t queue_len, queue_cap;
  size_t body;      /* where the world's part starts */
  SaveNames names;  /* format 6: its names block (mem NULL: none) */
  uint32_t version; /* the save's format */
  /* sp_world_load_probe: told each despawned slot in the first pass */
  void (*despawned)(void *ud, size_t crowd, uint32_t slot);
  void *despawned_ud;
} Load;

/* A crowd's chases, after its agents: checked, then set again (the chases
 * of before the load end). 0 on a problem (first pass only). */
int sp__ld_read_chases(Load *x, Rd *r, SpCrowd *c, size_t n);
/* The world's queue of waiters, after the crowds (format 8). */
int sp__ld_read_queue(Load *x, Rd *r);

#endif
