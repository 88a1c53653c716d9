/* builtin_synthetic.c: the CNIA 2022 synthetic families MultiPrv_n_Cycle, MultiPrv_2_Cycle, OnePrv_5. */
#include "sp_builtin.h"
#include "sp_alloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for any generated name: "a%d_v%d" with two ints and its NUL. */
#define NAME_SLOT 32

/* Scratch arrays that describe one synthetic domain before it is copied
 * into its owned block. Shared pieces keep the scratch O(n + m) plus the
 * action list: every variable uses the same value-name list, and all the
 * actions of v_i share one tail of a single prevail array. */
typedef struct Scratch {
  SpAllocator a;
  int m, n, action_count;
  SpVariableSpec *variables;
  const char **value_names;
  SpActionSpec *actions;
  SpCondition *prevails;
  SpValue *start, *goal;
  char *names;
  size_t names_size;
} Scratch;

static void scratch_free(Scratch *s) {
  SpAllocator a = s->a;
  sp__mem_free(a, s->variables, (size_t)s->m * sizeof(SpVariableSpec));
  sp__mem_free(a, s->value_names, (size_t)s->n * sizeof(const char *));
  sp__mem_free(a, s->actions, (size_t)s->action_count * sizeof(SpActionSpec));
  sp__mem_free(a, s->prevails, (size_t)s->m * sizeof(SpCondition));
  sp__mem_free(a, s->start, (size_t)s->m);
  sp__mem_free(a, s->goal, (size_t)s->m);
  sp__mem_free(a, s->names, s->names_size);
}

/* Allocates the scratch for m variables of n values with n-1 or n actions
 * each (`per_var`). Returns 0 on allocation failure (s is then freed). */
static int scratch_init(Scratch *s, SpAllocator a, int m, int n, int per_var) {
  size_t slots = (size_t)m + (size_t)n + (size_t)m * (size_t)per_var;
  memset(s, 0, sizeof(*s));
  s->a = a;
  s->m = m;
  s->n = n;
  s->action_count = m * per_var;
  s->names_size = slots * NAME_SLOT;
  s->variables = sp__mem_alloc(a, (size_t)m * sizeof(SpVariableSpec));
  s->value_names = sp__mem_alloc(a, (size_t)n * sizeof(const char *));
  s->actions = sp__mem_alloc(a, (size_t)s->action_count * sizeof(SpActionSpec));
  s->prevails = sp__mem_alloc(a, (size_t)m * sizeof(SpCondition));
  s->start = sp__mem_alloc(a, (size_t)m);
  s->goal = sp__mem_alloc(a, (size_t)m);
  s->names = sp__mem_alloc(a, s->names_size);
  if (s->variables == NULL || s->value_names == NULL || s->actions == NULL ||
      s->prevails == NULL || s->start == NULL || s->goal == NULL ||
      s->names == NULL) {
    scratch_free(s);
    return 0;
  }
  return 1;
}

/* The k-th fixed-size name slot of the scratch. */
static char *slot(Scratch *s, size_t k) { return s->names + k * NAME_SLOT; }

/* Variables v0..v(m-1), all sharing the value names "0".."n-1". */
static void name_variables(Scratch *s) {
  int i;
  for (i = 0; i < s->n; i++) {
    char *p = slot(s, (size_t)i);
    snprintf(p, NAME_SLOT, "%d", i);
    s->value_names[i] = p;
  }
  for (i = 0; i < s->m; i++) {
    char *p = slot(s, (size_t)s->n + (size_t)i);
    snprintf(p, NAME_SLOT, "v%d", i);
    s->variables[i].name = p;
    s->variables[i].value_count = s->n;
    s->variables[i].value_names = s->value_names;
  }
}

/* Sets action k to a^post_{v_var}: pre -> post, with the given prevails. */
static void set_action(Scratch *s, int k, int var, int pre, int post,
                       int prevail_count, const SpCondition *prevails) {
  char *p = slot(s, (size_t)s->n + (size_t)s->m + (size_t)k);
  SpActionSpec *act = &s->actions[k];
  snprintf(p, NAME_SLOT, "a%d_v%d", post, var);
  act->name = p;
  act->variable = var;
  act->pre = pre;
  act->post = post;
  act->prevail_count = prevail_count;
  act->prevails = prevail_count > 0 ? prevails : NULL;
}

/* Copies the scratch into its owned block with start/goal "cnia". */
static SpBuiltSpec *finish(Scratch *s, const char *name) {
  SpDomainSpec spec;
  SpNamedState start = {"cnia", NULL, NULL}, goal = {"cnia", NULL, NULL};
  SpBuiltSpec *b;
  spec.name = name;
  spec.variable_count = s->m;
  spec.variables = s->variables;
  spec.action_count = s->action_count;
  spec.actions = s->actions;
  start.values = s->start;
  goal.values = s->goal;
  b = sp_builtin_copy(s->a, &spec, 1, &start, 1, &goal);
  scratch_free(s);
  return b;
}

/* Rejects sizes whose counts would not fit the spec's int fields. */
static int sizes_ok(int m, int n) {
  if (m < 1 || n < 2 || n > SP_MAX_VALUES) return 0;
  return (size_t)m * (size_t)n <= (size_t)INT_MAX / NAME_SLOT;
}

/* ------------------------------------------------------------------ */
/* MultiPrv_n_Cycle and MultiPrv_2_Cycle                              */
/* ------------------------------------------------------------------ */

/* CNIA 2022 section 3: pre(a^p_vi) = p-1, post = p for p > 0; a^0_vi goes
 * n-1 -> 0; prv(a^p_vi)[v_j] = floor(n/2) for i < j < m, undefined for
 * j < i. The extracted text writes the prevail value as "[n/2]"; the
 * OnePrv_5 paragraph spells the same bracket out as (n=5)/2 = 2, i.e. the
 * floor, which we use. prevails[j] holds (v_j, floor(n/2)), so the
 * actions of v_i point at the tail prevails[i+1..m-1]. */
SpBuiltSpec *sp_builtin_multiprv_n_cycle(SpAllocator a, int m, int n) {
  Scratch s;
  char name[64];
  int i, p, k = 0;
  SpBuiltSpec *b;
  if (!sizes_ok(m, n)) return NULL;
  if (!scratch_init(&s, a, m, n, n)) return NULL;
  name_variables(&s);
  for (i = 0; i < m; i++) {
    s.prevails[i].variable = i;
    s.prevails[i].value = n / 2;
    s.start[i] = 0;
    s.goal[i] = 0;
  }
  s.goal[0] = (SpValue)(n - 1);
  for (i = 0; i < m; i++) {
    int count = m - 1 - i;
    const SpCondition *tail = count > 0 ? &s.prevails[i + 1] : NULL;
    for (p = 1; p < n; p++) set_action(&s, k++, i, p - 1, p, count, tail);
    set_action(&s, k++, i, n - 1, 0, count, tail);
  }
  if (n == 2)
    snprintf(name, sizeof(name), "multiprv_2_cycle_m%d", m);
  else
    snprintf(name, sizeof(name), "multiprv_%d_cycle_m%d", n, m);
  b = finish(&s, name);
  /* An n-cycle with a requestable action breaks C2 when n >= 3 (and for
   * m == 1 nothing is requested, so the domain stays inside). */
  if (b != NULL) b->needs_allow_outside = (n >= 3 && m >= 2);
  return b;
}

SpBuiltSpec *sp_builtin_multiprv_2_cycle(SpAllocator a, int m) {
  return sp_builtin_multiprv_n_cycle(a, m, 2);
}

/* ------------------------------------------------------------------ */
/* OnePrv_5                                                           */
/* ------------------------------------------------------------------ */

/* CNIA 2022 section 3, as we read the garbled extraction: "O(m) orders
 * between 4m actions with 0 < p < n = 5": pre(a^p_vi) = p-1, post = p for
 * p = 1..4 (a chain, value 0 has a ghost); prv(a^p_vi)[v_(i+1)] =
 * floor(5/2) = 2 for every v_i but the last, undefined elsewhere. The goal
 * is printed as "s*[v_i] = 5", which is out of range for values 0..4; we
 * read it as the last value, 4. Every action on v_i then needs v_(i+1)
 * parked halfway (value 2), which gives each action one prevail order and
 * one threat order: O(m) orders in all. Plan: v_(m-1) to 2, ..., v_0 to 4,
 * then each v_i from 2 to 4 in increasing i: 4m actions. */
SpBuiltSpec *sp_builtin_oneprv_5(SpAllocator a, int m) {
  enum { N = 5 };
  Scratch s;
  char name[64];
  int i, p, k = 0;
  if (!sizes_ok(m, N)) return NULL;
  if (!scratch_init(&s, a, m, N, N - 1)) return NULL;
  name_variables(&s);
  for (i = 0; i < m; i++) {
    s.prevails[i].variable = i;
    s.prevails[i].value = N / 2;
    s.start[i] = 0;
    s.goal[i] = N - 1;
  }
  for (i = 0; i < m; i++) {
    int count = i + 1 < m ? 1 : 0;
    const SpCondition *next = count > 0 ? &s.prevails[i + 1] : NULL;
    for (p = 1; p < N; p++) set_action(&s, k++, i, p - 1, p, count, next);
  }
  snprintf(name, sizeof(name), "oneprv_5_m%d", m);
  return finish(&s, name);
}
