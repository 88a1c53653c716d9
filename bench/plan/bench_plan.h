/* bench_plan.h: what the files of bench_plan share: a domain under test, timing, the saspu/A* cross-check, output files and table rows. */
#ifndef bench_plan_h
#define bench_plan_h

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_util.h"
#include "goap_astar.h"
#include "saspu.h"
#include "sp_builtin.h"

/* Per-pair timing repeats one pair until a batch lasts about this long,
 * so the two clock reads around it cost ~1% of the figure. */
#define PAIR_BATCH_NS 2000.0
/* Mixed-stream timing replays the shuffled pairs for at least this long. */
#define STREAM_NS 40e6
/* One timed point of a complexity curve: batches of about this long. */
#define CURVE_BATCH_NS 1e6
/* A* on a curve point is repeated only while one run is shorter. */
#define ASTAR_REPEAT_BELOW_NS 50e6
/* Room for A* plans (they may repeat actions outside the classes). */
#define PLAN_ROOM 65536

extern const SpAllocator plain; /* malloc/free */
extern double clock_ns; /* cost of one clock read, subtracted per batch */

/* ------------------------------------------------------------------ */
/* Types                                                              */
/* ------------------------------------------------------------------ */

typedef struct Target {
  const char *label;
  SpBuiltSpec *spec; /* NULL when the caller owns the description */
  SpDomain *d;
  SpWorkspace *ws;
  GoapPlanner *astar;
  long astar_cap;
  int m;
  uint16_t *plan;  /* sp_plan output: action_count entries */
  uint16_t *aplan; /* A* output: PLAN_ROOM entries */
} Target;

typedef enum Planner { SASPU = 0, ASTAR = 1 } Planner;

typedef struct Pair {
  const SpValue *s0, *goal;
} Pair;

typedef double (*Clock)(void);

/* One planner's figures over one set of pairs. */
typedef struct Figures {
  size_t n;
  BuStats pair;     /* ns per plan, one value per pair */
  double stream_ns; /* mean ns per plan over the shuffled stream */
  double plans_per_s;
  long reps;
  double q[101]; /* per-pair quantiles 0..100 % */
} Figures;

typedef struct Out {
  const char *dir;
  FILE *cold, *quantiles, *curves, *western, *memory;
} Out;

typedef struct Check {
  SpStatus status;
  int len;
  GoapResult ar;
  int alen;
  long expanded;
} Check;

typedef enum Family { MULTIPRV_N, MULTIPRV_2, ONEPRV_5 } Family;

/* What both tables print for one kind (solvable or unsolvable) of one
 * domain; gathered first, printed as two tables afterwards. */
typedef struct KindRow {
  const char *domain, *kind;
  Figures sp, as;
  double mean_len, expanded_median;
  long capped, mismatches;
} KindRow;

/* ------------------------------------------------------------------ */
/* measure.c                                                          */
/* ------------------------------------------------------------------ */

/* Compiles `spec` and builds the saspu workspace and the A* planner with
 * `cap` nodes (cap 0: none). Exits on failure. */
void target_open(Target *t, const char *label, const SpDomainSpec *spec,
                 int allow_outside, long cap);
/* Frees everything, t->spec included. */
void target_close(Target *t);
/* Plans pairs[0..n-1], each `reps` times; the ns `clock` saw elapse. */
double run_pairs(Target *t, Planner which, const Pair *pairs, size_t n,
                 long reps, Clock clock);
/* Per-pair medians and quantiles, and the shuffled stream; scratch: n doubles. */
Figures measure(Target *t, Planner which, const Pair *pairs, size_t n,
                double *scratch);
void shuffle_pairs(Pair *p, size_t n, uint64_t *rng);
void write_figures(FILE *csv, FILE *quantiles, const char *domain,
                   const char *kind, const char *planner, const Figures *f,
                   double mean_len, double expanded_median, long capped,
                   long mismatches);
/* Both planners once on the pair; 1 (printed up to *budget times) on a mismatch. */
int check_pair(Target *t, const SpValue *s0, const SpValue *goal, Check *c,
               int *budget);
void row_init(KindRow *row, const char *domain, const char *kind,
              long mismatches, double mean_len);
double median_long(long *v, size_t n, double *scratch);
/* The saspu columns of rows[0..n-1], with their header. */
void print_saspu_rows(const KindRow *rows, int n);

/* ------------------------------------------------------------------ */
/* One file per family of rows                                        */
/* ------------------------------------------------------------------ */

/* paper.c: tables 1 and 2 (every pair, both planners), 1b (partial goals) */
void bench_paper_domain(const char *label, SpBuiltSpec *b, Out *out,
                        KindRow rows[2]);
void print_cold_tables(const KindRow *rows, int n);
void bench_partial_domain(const char *label, SpBuiltSpec *b, KindRow rows[2]);
void print_partial_table(const KindRow *rows, int n);

/* curves.c: table 3, one family over `sizes` */
void bench_curve(Family fam, const char *name, const char *xname, int fixed_m,
                 const int *sizes, int n_sizes, int probe, long cap, Out *out);

/* western.c: table 4, the seven classes of the cast (`starts` random
 * starts per named goal), then the Western-size random domain */
void bench_cast(Out *out, size_t starts);
void bench_western(Out *out, long cap, KindRow rows[2], size_t want_solvable,
                   size_t want_unsolvable);
/* The first random Western-size domain (from the fixed seed) that passes
 * the class filter; free() it. `tries` (may be NULL) gets how many were
 * generated. Its spec lives inside it. */
typedef struct Western Western;
Western *western_random_new(long *tries);
const SpDomainSpec *western_random_spec(const Western *w);

/* memory.c: table 5 */
void bench_memory(Out *out);

#endif
