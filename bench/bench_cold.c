/* bench_cold.c: cold sp_plan per paper domain: median ns per plan over every solvable ordered pair of distinct total states (the figure of bench_plan's table 1), for profiling runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "saspu.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

static SpBuiltSpec *build(int which) {
  switch (which) {
  case 0: return sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  case 1: return sp_builtin_citizen(plain);
  default: return sp_builtin_acquisition_machine(plain);
  }
}

static const char *const names[3] = {"horse_breeder", "citizen",
                                     "acquisition_machine"};

/* State number k in mixed radix (variable 0 fastest). */
static void decode(const SpDomain *d, long k, SpValue *s) {
  for (int v = 0; v < sp_domain_variable_count(d); v++) {
    long c = sp_variable_value_count(d, v);
    s[v] = (SpValue)(k % c);
    k /= c;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Every solvable ordered pair of distinct states, each planned `reps`
 * times in a row and timed as a whole; prints the median and the
 * quartiles of ns per plan, and the total plans (for dividing an
 * instruction count by under callgrind). */
static void run(int which, int reps) {
  SpBuiltSpec *b = build(which);
  SpDomain *d = NULL;
  SpWorkspace *ws = NULL;
  SpError err;
  if (b == NULL ||
      sp_domain_compile(&b->spec, NULL, plain, &d, &err) != SP_OK ||
      sp_workspace_new(d, plain, &ws, &err) != SP_OK) {
    fprintf(stderr, "bench_cold: %s does not compile\n", names[which]);
    exit(1);
  }
  int m = sp_domain_variable_count(d);
  long states = 1;
  for (int v = 0; v < m; v++) states *= sp_variable_value_count(d, v);
  double *ns = malloc((size_t)(states * states) * sizeof(double));
  if (ns == NULL) exit(1);
  uint16_t plan[256];
  SpValue s0[16], goal[16];
  size_t pairs = 0;
  unsigned long long plans = 0;
  for (long a = 0; a < states; a++) {
    decode(d, a, s0);
    for (long g = 0; g < states; g++) {
      if (g == a) continue;
      decode(d, g, goal);
      int len;
      if (sp_plan(d, ws, s0, goal, plan, &len, NULL) != SP_OK) continue;
      double t0 = bu_now_ns();
      for (int r = 0; r < reps; r++) sp_plan(d, ws, s0, goal, plan, &len, NULL);
      ns[pairs++] = reps > 0 ? (bu_now_ns() - t0) / reps : 0;
      plans += (unsigned long long)reps + 1u;
    }
  }
  qsort(ns, pairs, sizeof *ns, cmp_double);
  printf("%-20s %6zu solvable pairs  median %6.1f ns  q1 %6.1f  q3 %6.1f  "
         "(%llu plans)\n",
         names[which], pairs, ns[pairs / 2], ns[pairs / 4], ns[3 * pairs / 4],
         plans);
  free(ns);
  sp_workspace_free(ws);
  sp_domain_free(d);
  sp_builtin_free(b);
}

int main(int argc, char **argv) {
  int reps = 64, only = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--domain") == 0 && i + 1 < argc) {
      only = atoi(argv[++i]);
    } else {
      printf(
          "usage: bench_cold [--reps K] [--domain 0|1|2]\n"
          "  K plans of each pair in a row, timed together (default 64; 0 "
          "only\n"
          "  finds the pairs: an instruction count with K minus one with 0,\n"
          "  divided by K x pairs, is the count per plan)\n"
          "  --domain  horse breeder, citizen or acquisition machine only\n");
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (reps < 0) reps = 0;
  double load[3];
  bu_load_average(load);
  printf("cold sp_plan, one core; load average %.2f (other jobs add noise)\n",
         load[0]);
  for (int which = 0; which < 3; which++)
    if (only < 0 || only == which) run(which, reps);
  return 0;
}
