/* test_blocker.c: the blocker named for every unsolvable pair of the paper domains and of random domains is a real one (judged by breadth-first search). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "paper_facts.h"
#include "random_domain.h"
#include "saspu.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

/* ---- a breadth-first search of its own over a description plus links ------ */

#define MAX_LINKS 16

/* The description's actions and up to MAX_LINKS added ones (no prevails). */
typedef struct Space {
  const SpDomainSpec *spec;
  int links;
  SpActionSpec link[MAX_LINKS];
  long states, stride[64];
  unsigned char *seen;
  long *queue;
} Space;

static int digit(const Space *s, long st, int v) {
  return (int)((st / s->stride[v]) % s->spec->variables[v].value_count);
}

static int applies(const Space *s, const SpActionSpec *a, long st) {
  if (digit(s, st, a->variable) != a->pre) return 0;
  for (int k = 0; k < a->prevail_count; k++)
    if (digit(s, st, a->prevails[k].variable) != a->prevails[k].value) return 0;
  return 1;
}

/* Marks every state reachable from s0 in s->seen. */
static void search(Space *s, const SpValue *s0) {
  const SpDomainSpec *p = s->spec;
  long start = 0, head = 0, tail = 0;
  for (int v = 0; v < p->variable_count; v++) start += s0[v] * s->stride[v];
  memset(s->seen, 0, (size_t)s->states);
  s->seen[start] = 1;
  s->queue[tail++] = start;
  while (head < tail) {
    long st = s->queue[head++];
    for (int k = 0; k < p->action_count + s->links; k++) {
      const SpActionSpec *a =
          k < p->action_count ? &p->actions[k] : &s->link[k - p->action_count];
      if (!applies(s, a, st)) continue;
      long next = st + (long)(a->post - a->pre) * s->stride[a->variable];
      if (!s->seen[next]) {
        s->seen[next] = 1;
        s->queue[tail++] = next;
      }
    }
  }
}

static void space_init(Space *s, const SpDomainSpec *spec) {
  memset(s, 0, sizeof *s);
  s->spec = spec;
  s->states = 1;
  for (int v = 0; v < spec->variable_count; v++) {
    s->stride[v] = s->states;
    s->states *= spec->variables[v].value_count;
  }
  s->seen = malloc((size_t)s->states);
  s->queue = malloc((size_t)s->states * sizeof(long));
  assert_non_null(s->seen);
  assert_non_null(s->queue);
}

static void space_free(Space *s) {
  free(s->seen);
  free(s->queue);
}

/* ---- the checks ------------------------------------------------------------- */

typedef struct Tally {
  long unsolvable, reachability, order, solved_by_links;
} Tally;

/* Reached sets from one s0: without links (base) and with one link each,
 * kept while s0 stays the same (the pairs of one start share them). */
#define CACHED 8
typedef struct Reach {
  long start;
  unsigned char *base;
  int count;
  SpActionSpec link[CACHED];
  unsigned char *with[CACHED];
} Reach;

static int reached_in(const Space *s, const unsigned char *seen,
                      const SpValue *goal) {
  for (long st = 0; st < s->states; st++) {
    if (!seen[st]) continue;
    int ok = 1;
    for (int v = 0; ok && v < s->spec->variable_count; v++)
      ok = goal[v] == SP_ANY || digit(s, st, v) == goal[v];
    if (ok) return 1;
  }
  return 0;
}

/* The states reachable from s0 with `link` added (NULL: none). */
static const unsigned char *reach(Space *s, Reach *r, const SpValue *s0,
                                  const SpActionSpec *link) {
  long start = 0;
  for (int v = 0; v < s->spec->variable_count; v++)
    start += s0[v] * s->stride[v];
  if (r->start != start) {
    r->start = start;
    r->count = 0;
    s->links = 0;
    search(s, s0);
    memcpy(r->base, s->seen, (size_t)s->states);
  }
  if (!link) return r->base;
  for (int k = 0; k < r->count; k++)
    if (r->link[k].variable == link->variable && r->link[k].pre == link->pre &&
        r->link[k].post == link->post)
      return r->with[k];
  int k = r->count < CACHED ? r->count++ : CACHED - 1;
  s->link[0] = *link;
  s->links = 1;
  search(s, s0);
  r->link[k] = *link;
  memcpy(r->with[k], s->seen, (size_t)s->states);
  return r->with[k];
}

/* A blocker of (s0, goal), which has no plan: of the kinds that name a
 * missing link, it is one (no state reachable from s0 has variable =
 * needed), it names a value the goal needs (the goal's own value, or the
 * prevail of the action named), and with its link added the way opens
 * (the value where the chain began is reached). */
static void check_blocker(const SpDomain *d, const SpDomainSpec *spec,
                          Space *sp, Reach *r, void *scratch, const SpValue *s0,
                          const SpValue *goal, const SpFailure *f, Tally *t) {
  SpBlocker b;
  t->unsolvable++;
  SpBlockerKind k = sp_plan_blocker(d, s0, goal, f, scratch, &b);
  assert_int_not_equal(k, SP_BLOCK_NONE);
  char text[1024];
  assert_true(sp_blocker_format(d, &b, text, sizeof text) > 0);
  if (k == SP_BLOCK_ORDER) {
    t->order++;
    return;
  }
  t->reachability++;
  assert_int_equal(b.current, s0[b.variable]);
  assert_int_not_equal(b.current, b.needed);
  if (b.action < 0) {
    assert_int_equal(goal[b.variable],
                     b.needed); /* never a value the goal leaves */
  } else {
    const SpActionSpec *a = &spec->actions[b.action];
    int found = 0;
    for (int p = 0; p < a->prevail_count; p++)
      found |= a->prevails[p].variable == b.variable &&
               a->prevails[p].value == b.needed;
    assert_true(found);
  }
  if (k == SP_BLOCK_NOTHING_SETS) assert_int_equal(b.link_to, b.needed);
  assert_int_equal(b.link_from, b.current);
  /* a real blocker: the needed value is out of reach */
  SpValue want[64];
  memset(want, SP_ANY, sizeof want);
  want[b.variable] = (SpValue)b.needed;
  assert_false(reached_in(sp, reach(sp, r, s0, NULL), want));
  /* its link opens the way: with it the value the link sets is reached */
  SpActionSpec link = {"link", b.variable, b.link_from, b.link_to, 0, NULL};
  const unsigned char *with = reach(sp, r, s0, &link);
  memset(want, SP_ANY, sizeof want);
  want[b.variable] = (SpValue)b.link_to;
  assert_true(reached_in(sp, with, want));
  if (reached_in(sp, with, goal)) t->solved_by_links++;
}

/* Every pair (every goal state, and every goal leaving one variable free)
 * of a compiled domain whose planner finds no plan. */
static void check_all_pairs(const SpDomainSpec *spec, const SpDomain *d,
                            Tally *t) {
  SpWorkspace *ws = NULL;
  SpError err;
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  Space sp;
  space_init(&sp, spec);
  void *scratch = malloc(sp_blocker_scratch_size(d));
  uint16_t *plan = malloc(sizeof(uint16_t) * (size_t)(spec->action_count + 1));
  int m = spec->variable_count;
  SpValue s0[64], goal[64];
  Reach r;
  memset(&r, 0, sizeof r);
  r.start = -1;
  r.base = malloc((size_t)sp.states);
  for (int k = 0; k < CACHED; k++) r.with[k] = malloc((size_t)sp.states);
  for (long a = 0; a < sp.states; a++) {
    for (int v = 0; v < m; v++) s0[v] = (SpValue)digit(&sp, a, v);
    for (long g = 0; g < sp.states; g++) {
      for (int free_var = -1; free_var < m; free_var++) {
        for (int v = 0; v < m; v++) goal[v] = (SpValue)digit(&sp, g, v);
        if (free_var >= 0) {
          if (goal[free_var] != 0) continue; /* each partial goal once */
          goal[free_var] = SP_ANY;
        }
        SpFailure f;
        int len = 0;
        if (sp_plan(d, ws, s0, goal, plan, &len, &f) == SP_OK) continue;
        check_blocker(d, spec, &sp, &r, scratch, s0, goal, &f, t);
      }
    }
  }
  free(r.base);
  for (int k = 0; k < CACHED; k++) free(r.with[k]);
  free(plan);
  free(scratch);
  space_free(&sp);
  sp_workspace_free(ws);
}

static void test_paper_domain(void **state) {
  const PaperCount *p = *state;
  SpBuiltSpec *b = p->build(plain);
  SpDomain *d = NULL;
  SpError err;
  assert_non_null(b);
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, &err), SP_OK);
  Tally t = {0, 0, 0, 0};
  check_all_pairs(&b->spec, d, &t);
  printf("%s: %ld unsolvable pairs, %ld with a missing link (%ld solved by it "
         "alone), "
         "%ld of order\n",
         b->spec.name, t.unsolvable, t.reachability, t.solved_by_links,
         t.order);
  assert_true(t.unsolvable > 0);
  sp_domain_free(d);
  sp_builtin_free(b);
}

static void test_random_domains(void **state) {
  (void)state;
  Tally t = {0, 0, 0, 0};
  int domains = 0;
  for (uint64_t seed = 1; domains < 2000; seed++) {
    RandomDomain rd;
    random_domain_generate(&rd, seed, (RdFlavor)(seed % RD_FLAVOR_COUNT));
    long states = 1;
    for (int v = 0; v < rd.spec.variable_count; v++)
      states *= rd.spec.variables[v].value_count;
    if (states > 48) continue; /* every pair: keep each space small */
    SpDomain *d = NULL;
    SpError err;
    if (sp_domain_compile(&rd.spec, NULL, plain, &d, &err) != SP_OK) continue;
    check_all_pairs(&rd.spec, d, &t);
    sp_domain_free(d);
    domains++;
  }
  printf("%d random domains: %ld unsolvable pairs, %ld with a missing link "
         "(%ld solved by "
         "it alone), %ld of order\n",
         domains, t.unsolvable, t.reachability, t.solved_by_links, t.order);
  assert_true(t.reachability > 0);
}

/* The sheriff of issue 22: the outlaw has escaped, a value no action
 * leaves; the goal wants him in a cell, which only `arrest` (from
 * at_large) gives. The blocker is `outlaw = escaped`, not at_large. */
static void test_sheriff(void **state) {
  (void)state;
  static const char *const outlaw_values[] = {"at_large", "in_cell", "escaped"};
  static const SpVariableSpec vars[] = {{"outlaw", 3, outlaw_values}};
  static const SpActionSpec acts[] = {{"arrest", 0, 0, 1, 0, NULL}};
  SpDomainSpec spec = {"sheriff", 1, vars, 1, acts};
  SpDomain *d = NULL;
  SpError err;
  SpWorkspace *ws = NULL;
  assert_int_equal(sp_domain_compile(&spec, NULL, plain, &d, &err), SP_OK);
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  SpValue s0[1] = {2}, goal[1] = {1};
  uint16_t plan[2];
  int len;
  SpFailure f;
  assert_int_equal(sp_plan(d, ws, s0, goal, plan, &len, &f), SP_NO_PLAN);
  void *scratch = malloc(sp_blocker_scratch_size(d));
  SpBlocker b;
  assert_int_equal(sp_plan_blocker(d, s0, goal, &f, scratch, &b),
                   SP_BLOCK_NO_WAY_OUT);
  assert_int_equal(b.current, 2);
  assert_int_equal(b.needed, 1);
  assert_int_equal(b.link_to, 0);
  char text[512];
  sp_blocker_format(d, &b, text, sizeof text);
  assert_string_equal(text,
                      "the goal needs outlaw = in_cell, but outlaw is escaped "
                      "and no action leaves "
                      "escaped (the way to in_cell begins at at_large, which "
                      "no action sets); missing: "
                      "an action setting outlaw from escaped to at_large");
  free(scratch);
  sp_workspace_free(ws);
  sp_domain_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sheriff),
      PAPER_COUNT_TEST(0, test_paper_domain),
      PAPER_COUNT_TEST(1, test_paper_domain),
      PAPER_COUNT_TEST(2, test_paper_domain),
      PAPER_COUNT_TEST(3, test_paper_domain),
      cmocka_unit_test(test_random_domains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
