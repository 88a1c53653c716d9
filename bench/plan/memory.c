/* memory.c: bench_plan table 5: bytes of compiled domains, planning workspaces and A* planners. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"

static void memory_row(Out *out, const char *label, const SpDomainSpec *spec,
                       int allow_outside, long cap) {
  Target t;
  target_open(&t, label, spec, allow_outside, cap);
  printf("%-24s %5d %7d %-10s %10zu %10zu %12zu\n", label, t.m,
         sp_domain_action_count(t.d), sp_class_name(sp_domain_class(t.d)),
         sp_domain_size_bytes(t.d), sp_workspace_size_bytes(t.ws),
         goap_planner_size_bytes(t.astar));
  if (out->memory != NULL)
    fprintf(out->memory, "%s,%d,%d,%s,%zu,%zu,%zu,%ld\n", label, t.m,
            sp_domain_action_count(t.d), sp_class_name(sp_domain_class(t.d)),
            sp_domain_size_bytes(t.d), sp_workspace_size_bytes(t.ws),
            goap_planner_size_bytes(t.astar), cap);
  target_close(&t);
}

static void memory_builtin(Out *out, SpBuiltSpec *b, long cap) {
  if (b == NULL) exit(1);
  memory_row(out, b->spec.name, &b->spec, b->needs_allow_outside, cap);
  sp_builtin_free(b);
}

void bench_memory(Out *out) {
  Western *w = western_random_new(NULL);
  int k;
  printf("\n(5) Memory: compiled domain and planning workspace (saspu), A* "
         "planner storage\n");
  printf("    (A* at the node cap the tables above use)\n\n");
  printf("%-24s %5s %7s %-10s %10s %10s %12s\n", "domain", "vars", "actions",
         "class", "domain B", "workspace B", "A* B");
  memory_builtin(out, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI), 18);
  memory_builtin(out, sp_builtin_horse_breeder(plain, SP_HORSE_IJCAI), 18);
  memory_builtin(out, sp_builtin_citizen(plain), 288);
  memory_builtin(out, sp_builtin_acquisition_machine(plain), 256);
  /* the cast after the horse breeder, whose row is the SSCI one above */
  for (k = SP_WESTERN_FARRIER; k < SP_WESTERN_COUNT; k++) {
    SpBuiltSpec *b = sp_builtin_western(plain, k);
    long states = 1;
    int v;
    if (b == NULL) exit(1);
    for (v = 0; v < b->spec.variable_count; v++)
      states *= b->spec.variables[v].value_count;
    memory_builtin(out, b, states); /* A* can store every state */
  }
  memory_row(out, "western_random", western_random_spec(w), 0, 1L << 16);
  memory_builtin(out, sp_builtin_multiprv_2_cycle(plain, 12),
                 GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_multiprv_2_cycle(plain, 128),
                 GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_oneprv_5(plain, 20), GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_oneprv_5(plain, 512), GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_multiprv_n_cycle(plain, 4, 64),
                 GOAP_DEFAULT_NODE_CAP);
  free(w);
}
