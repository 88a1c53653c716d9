/* fuzz_domain.c: libFuzzer harness: bytes -> a domain description -> compile -> classify -> plan, checked against BFS and replay. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "saspu.h"
#include "test_alloc.h"

/* Reads bytes one at a time; zeros once the input is spent. */
typedef struct Bytes {
  const uint8_t *p;
  size_t n;
} Bytes;

static int take(Bytes *b, int below) {
  int x = 0;
  if (b->n) {
    x = *b->p++;
    b->n--;
  }
  return below > 0 ? x % below : x;
}

enum { MAX_VARS = 5, MAX_VALUES = 4, MAX_ACTIONS = 16, MAX_PREVAILS = 3 };

static const char *const VALUE_NAMES[MAX_VALUES] = {"a", "b", "c", "d"};
static const char *const VAR_NAMES[MAX_VARS] = {"v0", "v1", "v2", "v3", "v4"};

/* Any description the bytes make, valid or not: value counts may be 1,
 * actions may break post-uniqueness or name values out of range, so the
 * validator is fuzzed too. A refused description must leak nothing; an
 * accepted one must plan exactly what BFS finds (for tractable classes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes b = {data, size};
  SpVariableSpec vars[MAX_VARS];
  SpActionSpec acts[MAX_ACTIONS];
  SpCondition conds[MAX_ACTIONS][MAX_PREVAILS];
  char names[MAX_ACTIONS][8];
  SpDomainSpec spec;
  SpCompileOptions opts = {0};
  SpDomain *d = NULL;
  SpError err;
  TestAlloc ta;
  int nv = 1 + take(&b, MAX_VARS), na, v, a, k;
  for (v = 0; v < nv; v++) {
    vars[v].name = VAR_NAMES[v];
    vars[v].value_count = 1 + take(&b, MAX_VALUES);
    vars[v].value_names = VALUE_NAMES;
  }
  na = take(&b, MAX_ACTIONS + 1);
  for (a = 0; a < na; a++) {
    int np = take(&b, MAX_PREVAILS + 1);
    names[a][0] = 'x';
    names[a][1] = (char)('a' + a);
    names[a][2] = '\0';
    acts[a].name = names[a];
    acts[a].variable = take(&b, nv);
    acts[a].pre = take(&b, MAX_VALUES);
    acts[a].post = take(&b, MAX_VALUES);
    for (k = 0; k < np; k++) {
      conds[a][k].variable = take(&b, nv);
      conds[a][k].value = take(&b, MAX_VALUES);
    }
    acts[a].prevail_count = np;
    acts[a].prevails = np ? conds[a] : NULL;
  }
  spec.name = "fuzz";
  spec.variable_count = nv;
  spec.variables = vars;
  spec.action_count = na;
  spec.actions = acts;
  opts.allow_outside = take(&b, 2);
  test_alloc_init(&ta, take(&b, 16) == 0 ? 1 + take(&b, 32) : 0);
  if (sp_domain_compile(&spec, &opts, test_alloc_hook(&ta), &d, &err) !=
      SP_OK) {
    if (d != NULL || ta.live != 0)
      abort(); /* a refusal leaves nothing behind */
    return 0;
  }
  if (sp_domain_class(d) != SP_CLASS_OUTSIDE &&
      oracle_count_states(d) <= 4096) {
    OracleSpace *o = oracle_space_new(d);
    SpWorkspace *ws = NULL;
    SpAllocator plain = test_alloc_hook(&ta);
    OracleTally t;
    SpValue s0[MAX_VARS];
    ta.fail_at = 0;
    if (o && sp_workspace_new(d, plain, &ws, &err) == SP_OK) {
      memset(&t, 0, sizeof t);
      oracle_set_report_limit(o, 1);
      for (k = 0; k < 3;
           k++) { /* a few starts the bytes choose: all their goals */
        oracle_state_decode(o, (long)take(&b, 0) * 256 % oracle_state_count(o),
                            s0);
        oracle_check_start(o, ws, s0, &t, stderr);
      }
      if (t.failures) abort();
    }
    sp_workspace_free(ws);
    oracle_space_free(o);
  }
  sp_domain_free(d);
  if (ta.live != 0) abort();
  return 0;
}
