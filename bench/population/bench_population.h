/* bench_population.h: what the files of bench_population share: a paper domain's workload of (start, goal) pairs and the frames built from it. */
#ifndef bench_population_h
#define bench_population_h

#include <stddef.h>

#include "saspu.h"
#include "saspu_population.h"
#include "sp_builtin.h"

extern const SpAllocator plain; /* malloc/free */

/* The solvable (s0, s*) pairs a domain's NPCs rotate among. */
typedef struct Workload {
  SpBuiltSpec *b;
  SpDomain *d;
  int m;
  size_t pairs;
  SpValue *starts; /* pairs x m */
  SpValue *goals;
  double avg_len;
} Workload;

/* Prints "bench_population: what: message" and exits. */
void die(const char *what, const SpError *err);

/* Paper domain `which` (0 horse breeder, 1 citizen, 2 acquisition
 * machine) and its pool: every total start against every goal the paper
 * names; `fixed` keeps the goals as conditions (kept variables free). */
void workload_open(Workload *w, int which, int fixed);
void workload_close(Workload *w);

/* The pair NPC i takes at frame f (every NPC's pair changes each frame). */
size_t workload_pair(const Workload *w, size_t i, int frame);

/* Writes frame f's pairs into st and go (n x m each) and sets them on the
 * population, every NPC marked dirty. */
void load_frame(const Workload *w, SpPopulation *pop, SpValue *st, SpValue *go,
                size_t n, int frame);

/* The cold frame against the single plan on the same pairs (cold_gap.c):
 * n NPCs, `frames` timed frames, one thread, cache off. */
void cold_gap(const Workload *w, const char *key, size_t n, int frames);

#endif
