/* fuzz_population.c: libFuzzer harness: a population driven by a random sequence of calls, every plan checked against sp_plan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "random_domain.h"
#include "saspu_population.h"
#include "test_alloc.h"

enum { MAX_NPCS = 80 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Byte 0-1: the domain's seed; byte 2: NPC count; then one call per
 * three bytes (op, argument, argument). After each plan call every NPC
 * that is planned and clean must hold exactly sp_plan's answer on its
 * (state, goal), whatever the threads, cache and budget were. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static RandomDomain rd;
  SpDomain *d = NULL;
  SpWorkspace *ws = NULL;
  SpPopulation *pop = NULL;
  SpError err;
  TestAlloc ta;
  SpValue s[RD_MAX_VARIABLES], goal[RD_MAX_VARIABLES];
  uint16_t want[RD_MAX_ACTIONS], got[RD_MAX_ACTIONS];
  size_t n, i, at;
  int nv;
  if (size < 3) return 0;
  random_domain_generate(&rd, (uint64_t)data[0] << 8 | data[1], RD_FLAVOR_ANY);
  test_alloc_init(&ta, 0);
  if (sp_domain_compile(&rd.spec, NULL, test_alloc_hook(&ta), &d, &err) !=
      SP_OK)
    return 0; /* outside the tractable classes */
  nv = sp_domain_variable_count(d);
  n = data[2] % MAX_NPCS;
  if (sp_workspace_new(d, test_alloc_hook(&ta), &ws, &err) != SP_OK ||
      sp_population_new(d, n, test_alloc_hook(&ta), &pop, &err) != SP_OK)
    abort();
  for (at = 3; at + 3 <= size; at += 3) {
    int op = data[at] % 7, x = data[at + 1], y = data[at + 2], v;
    size_t npc = n ? (size_t)x % n : 0;
    SpPlanOptions o;
    SpPlanReport r;
    memset(&o, 0, sizeof o);
    switch (op) {
    case 0: /* set: values from the bytes, some out of range on purpose */
      for (v = 0; v < nv; v++)
        s[v] = (SpValue)((y + v * x) %
                         (sp_variable_value_count(d, v) + (y == 255)));
      for (v = 0; v < nv; v++)
        goal[v] = (SpValue)((x + v * y) % sp_variable_value_count(d, v));
      sp_population_set(pop, npc, s, (y & 1) ? goal : NULL, &err);
      break;
    case 1:
      sp_population_mark_dirty(pop, npc, (size_t)y % (n + 2), &err);
      break;
    case 2:
    case 3:
      o.threads = 1 + y % 3;
      o.no_cache = x & 1;
      o.budget_ns = (x & 2) ? 1 : 0;
      if (sp_population_plan(pop, &o, &r, &err) != SP_OK) abort();
      for (i = 0; i < n; i++) {
        int len = 0, wlen = 0, dirty = 0;
        SpFailure f;
        SpNpcStatus st = sp_population_status_of(pop, i, NULL, &dirty);
        SpStatus ps;
        if (st == SP_NPC_UNPLANNED || dirty) continue;
        ps = sp_plan(d, ws, sp_population_state(pop, i),
                     sp_population_goal(pop, i), want, &wlen, &f);
        if ((ps == SP_OK) != (st == SP_NPC_PLANNED)) abort();
        if (ps == SP_OK &&
            (sp_population_plan_of(pop, i, got, &len) != SP_OK || len != wlen ||
             memcmp(got, want, (size_t)len * sizeof *got) != 0))
          abort();
      }
      break;
    case 4: sp_population_cache_clear(pop); break;
    case 5:
      sp_population_set_cache_capacity(pop, (uint32_t)(y % 5), &err);
      break;
    default:
      for (v = 0; v < nv; v++)
        goal[v] = (SpValue)(y % sp_variable_value_count(d, v));
      sp_population_set_goal_all(pop, goal, &err);
      break;
    }
  }
  sp_population_free(pop);
  sp_workspace_free(ws);
  sp_domain_free(d);
  if (ta.live != 0) abort();
  return 0;
}
