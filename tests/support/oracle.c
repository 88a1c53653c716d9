/* oracle.c: breadth-first search over the full state space, the planner checker, and the brute-force class analysis. */
#include "oracle.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* State space                                                        */
/* ------------------------------------------------------------------ */

struct OracleSpace {
  const SpDomain *d;
  int nvars, nacts;
  int *radix;
  long *stride;
  long count;
  /* actions flattened for the search */
  int *act_var, *act_pre, *act_post,
      *act_prv_start; /* act_prv_start[nacts] ends */
  SpCondition *prv;
  /* search results */
  int32_t *dist;
  int32_t *queue;
  uint16_t *via; /* the action that first reached each state */
  long reachable;
  /* checker scratch and reporting */
  uint16_t *plan;
  uint8_t *seen;
  SpValue *state;
  int *digit; /* per variable, for walking the states a partial goal matches */
  int report_limit, reports, domain_printed;
  long failures;
  char label[256];
};

static void *xcalloc(size_t count, size_t size) {
  return calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);
}

long oracle_count_states(const SpDomain *d) {
  long count = 1;
  int i, n = sp_domain_variable_count(d);
  for (i = 0; i < n; i++) {
    long r = sp_variable_value_count(d, i);
    if (r <= 0 || count > ORACLE_MAX_STATES / r) return -1;
    count *= r;
  }
  return count;
}

void oracle_space_free(OracleSpace *o) {
  if (o == NULL) return;
  free(o->radix);
  free(o->stride);
  free(o->act_var);
  free(o->act_pre);
  free(o->act_post);
  free(o->act_prv_start);
  free(o->prv);
  free(o->dist);
  free(o->queue);
  free(o->via);
  free(o->plan);
  free(o->seen);
  free(o->state);
  free(o->digit);
  free(o);
}

OracleSpace *oracle_space_new(const SpDomain *d) {
  OracleSpace *o;
  int i, j, total = 0;
  long count = oracle_count_states(d);
  if (count < 0) return NULL;
  o = xcalloc(1, sizeof(*o));
  if (o == NULL) return NULL;
  o->d = d;
  o->nvars = sp_domain_variable_count(d);
  o->nacts = sp_domain_action_count(d);
  o->count = count;
  o->report_limit = 3;
  for (i = 0; i < o->nacts; i++) total += sp_action_prevail_count(d, i);
  o->radix = xcalloc((size_t)o->nvars, sizeof(int));
  o->stride = xcalloc((size_t)o->nvars, sizeof(long));
  o->act_var = xcalloc((size_t)o->nacts, sizeof(int));
  o->act_pre = xcalloc((size_t)o->nacts, sizeof(int));
  o->act_post = xcalloc((size_t)o->nacts, sizeof(int));
  o->act_prv_start = xcalloc((size_t)o->nacts + 1, sizeof(int));
  o->prv = xcalloc((size_t)total, sizeof(SpCondition));
  o->dist = xcalloc((size_t)count, sizeof(int32_t));
  o->queue = xcalloc((size_t)count, sizeof(int32_t));
  o->via = xcalloc((size_t)count, sizeof(uint16_t));
  o->plan = xcalloc((size_t)o->nacts, sizeof(uint16_t));
  o->seen = xcalloc((size_t)o->nacts, 1);
  o->state = xcalloc((size_t)o->nvars, sizeof(SpValue));
  o->digit = xcalloc((size_t)o->nvars, sizeof(int));
  if (!o->digit || !o->radix || !o->stride || !o->act_var || !o->act_pre ||
      !o->act_post || !o->act_prv_start || !o->prv || !o->dist || !o->queue ||
      !o->via || !o->plan || !o->seen || !o->state) {
    oracle_space_free(o);
    return NULL;
  }
  {
    long stride = 1;
    for (i = 0; i < o->nvars; i++) {
      o->radix[i] = sp_variable_value_count(d, i);
      o->stride[i] = stride;
      stride *= o->radix[i];
    }
  }
  total = 0;
  for (i = 0; i < o->nacts; i++) {
    int pc = sp_action_prevail_count(d, i);
    o->act_var[i] = sp_action_variable(d, i);
    o->act_pre[i] = sp_action_pre(d, i);
    o->act_post[i] = sp_action_post(d, i);
    o->act_prv_start[i] = total;
    for (j = 0; j < pc; j++) o->prv[total++] = sp_action_prevail(d, i, j);
  }
  o->act_prv_start[o->nacts] = total;
  for (i = 0; i < count; i++) o->dist[i] = -1;
  return o;
}

long oracle_state_count(const OracleSpace *o) { return o->count; }

long oracle_state_index(const OracleSpace *o, const SpValue *s) {
  long idx = 0;
  int i;
  for (i = 0; i < o->nvars; i++) idx += (long)s[i] * o->stride[i];
  return idx;
}

void oracle_state_decode(const OracleSpace *o, long index, SpValue *out) {
  int i;
  for (i = 0; i < o->nvars; i++) {
    out[i] = (SpValue)(index % o->radix[i]);
    index /= o->radix[i];
  }
}

/* Plain BFS: every action is tried on every dequeued state. A successor
 * index differs from its state only in the changed variable's digit. */
void oracle_bfs(OracleSpace *o, const SpValue *s0) {
  long head = 0, tail = 0, i;
  SpValue *vals = o->state;
  for (i = 0; i < o->count; i++) o->dist[i] = -1;
  i = oracle_state_index(o, s0);
  o->dist[i] = 0;
  o->queue[tail++] = (int32_t)i;
  while (head < tail) {
    long cur = o->queue[head++];
    int a;
    oracle_state_decode(o, cur, vals);
    for (a = 0; a < o->nacts; a++) {
      int k, ok = vals[o->act_var[a]] == o->act_pre[a];
      long next;
      for (k = o->act_prv_start[a]; ok && k < o->act_prv_start[a + 1]; k++)
        ok = vals[o->prv[k].variable] == o->prv[k].value;
      if (!ok) continue;
      next = cur +
             (long)(o->act_post[a] - o->act_pre[a]) * o->stride[o->act_var[a]];
      if (o->dist[next] >= 0) continue;
      o->dist[next] = o->dist[cur] + 1;
      o->via[next] = (uint16_t)a;
      o->queue[tail++] = (int32_t)next;
    }
  }
  o->reachable = tail;
}

int oracle_goal_is_partial(const OracleSpace *o, const SpValue *goal) {
  int i;
  for (i = 0; i < o->nvars; i++)
    if (goal[i] == SP_ANY) return 1;
  return 0;
}

/* The index of a nearest reachable state matching goal (SP_ANY: any
 * value), the lowest index among equals; -1 when none is reachable. Walks
 * every matching state, the free variables as an odometer. */
long oracle_nearest_match(const OracleSpace *o, const SpValue *goal) {
  long base = 0, best = -1;
  int i;
  for (i = 0; i < o->nvars; i++) {
    o->digit[i] = 0;
    if (goal[i] != SP_ANY) base += (long)goal[i] * o->stride[i];
  }
  for (;;) {
    long idx = base;
    for (i = 0; i < o->nvars; i++)
      if (goal[i] == SP_ANY) idx += (long)o->digit[i] * o->stride[i];
    if (o->dist[idx] >= 0 && (best < 0 || o->dist[idx] < o->dist[best]))
      best = idx;
    for (i = 0; i < o->nvars; i++) {
      if (goal[i] != SP_ANY) continue;
      if (++o->digit[i] < o->radix[i]) break;
      o->digit[i] = 0;
    }
    if (i == o->nvars) return best;
  }
}

int oracle_distance(const OracleSpace *o, const SpValue *goal) {
  long idx;
  if (!oracle_goal_is_partial(o, goal))
    return o->dist[oracle_state_index(o, goal)];
  idx = oracle_nearest_match(o, goal);
  return idx < 0 ? -1 : o->dist[idx];
}

int oracle_distance_at(const OracleSpace *o, long index) {
  return o->dist[index];
}

long oracle_reachable_count(const OracleSpace *o) { return o->reachable; }

int oracle_shortest_plan(const OracleSpace *o, const SpValue *goal,
                         uint16_t *plan) {
  long idx = oracle_goal_is_partial(o, goal) ? oracle_nearest_match(o, goal)
                                             : oracle_state_index(o, goal);
  int len = idx < 0 ? -1 : o->dist[idx], k;
  if (len < 0) return -1;
  /* Walk back from the goal: undoing the action that reached a state
   * gives its predecessor on a shortest path. */
  for (k = len - 1; k >= 0; k--) {
    int a = o->via[idx];
    plan[k] = (uint16_t)a;
    idx -= (long)(o->act_post[a] - o->act_pre[a]) * o->stride[o->act_var[a]];
  }
  return len;
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */
/* ------------------------------------------------------------------ */

void oracle_print_state(FILE *out, const SpDomain *d, const SpValue *s) {
  int i, n = sp_domain_variable_count(d);
  fputc('<', out);
  for (i = 0; i < n; i++) {
    const char *vn = s[i] == SP_ANY ? "*"
                     : s[i] < sp_variable_value_count(d, i)
                         ? sp_value_name(d, i, s[i])
                         : "?";
    fprintf(out, "%s%s=%s", i ? ", " : "", sp_variable_name(d, i), vn);
  }
  fputs("> = <", out);
  for (i = 0; i < n; i++) fprintf(out, "%s%d", i ? "," : "", s[i]);
  fputc('>', out);
}

void oracle_print_plan(FILE *out, const SpDomain *d, const uint16_t *plan,
                       int len) {
  int i, na = sp_domain_action_count(d);
  fprintf(out, "(%d actions)", len);
  for (i = 0; i < len; i++) {
    if (plan[i] < na)
      fprintf(out, "%s %s", i ? "," : "", sp_action_name(d, plan[i]));
    else
      fprintf(out, "%s #%d(out of range)", i ? "," : "", plan[i]);
  }
}

void oracle_print_domain(FILE *out, const SpDomain *d) {
  int i, j, nv = sp_domain_variable_count(d), na = sp_domain_action_count(d);
  size_t need;
  char *buf;
  fprintf(out, "domain '%s': %d variables, %d actions, compiler class %s\n",
          sp_domain_name(d), nv, na, sp_class_name(sp_domain_class(d)));
  for (i = 0; i < nv; i++) {
    fprintf(out, "  var %d '%s':", i, sp_variable_name(d, i));
    for (j = 0; j < sp_variable_value_count(d, i); j++)
      fprintf(out, " %d=%s", j, sp_value_name(d, i, j));
    fputc('\n', out);
  }
  for (i = 0; i < na; i++) {
    int v = sp_action_variable(d, i), pc = sp_action_prevail_count(d, i);
    fprintf(out, "  act %d '%s': v%d %d->%d", i, sp_action_name(d, i), v,
            sp_action_pre(d, i), sp_action_post(d, i));
    if (pc > 0) fputs(" prv", out);
    for (j = 0; j < pc; j++) {
      SpCondition c = sp_action_prevail(d, i, j);
      fprintf(out, " v%d=%d", c.variable, c.value);
    }
    fprintf(out, "   (%s: %s -> %s", sp_variable_name(d, v),
            sp_value_name(d, v, sp_action_pre(d, i)),
            sp_value_name(d, v, sp_action_post(d, i)));
    for (j = 0; j < pc; j++) {
      SpCondition c = sp_action_prevail(d, i, j);
      fprintf(out, "%s%s=%s", j ? ", " : "; ", sp_variable_name(d, c.variable),
              sp_value_name(d, c.variable, c.value));
    }
    fputs(")\n", out);
  }
  {
    char why[256];
    SpClass c = oracle_classify_domain(d, why, sizeof(why));
    fprintf(out, "  oracle class (IJCAI Def. 7 literally) %s: %s\n",
            sp_class_name(c), why);
    c = oracle_classify_domain_ex(d, ORACLE_CLASS_GHOST_NODES, why,
                                  sizeof(why));
    fprintf(out, "  oracle class (ghost values in G) %s: %s\n",
            sp_class_name(c), why);
  }
  need = sp_domain_explain(d, NULL, 0);
  buf = malloc(need + 1);
  if (buf != NULL) {
    sp_domain_explain(d, buf, need + 1);
    fprintf(out, "  compiler explains: %s\n", buf);
    free(buf);
  }
}

void oracle_print_spec(FILE *out, const SpDomainSpec *spec) {
  int i, j;
  char why[256];
  SpClass c = oracle_classify_spec(spec, why, sizeof(why));
  SpClass g = oracle_classify_spec_ex(spec, ORACLE_CLASS_GHOST_NODES, NULL, 0);
  fprintf(out, "spec '%s': %d variables, %d actions\n",
          spec->name ? spec->name : "?", spec->variable_count,
          spec->action_count);
  for (i = 0; i < spec->variable_count; i++)
    fprintf(out, "  var %d '%s': %d values\n", i,
            spec->variables[i].name ? spec->variables[i].name : "?",
            spec->variables[i].value_count);
  for (i = 0; i < spec->action_count; i++) {
    const SpActionSpec *a = &spec->actions[i];
    fprintf(out, "  act %d '%s': v%d %d->%d", i, a->name ? a->name : "?",
            a->variable, a->pre, a->post);
    if (a->prevail_count > 0) fputs(" prv", out);
    for (j = 0; j < a->prevail_count; j++)
      fprintf(out, " v%d=%d", a->prevails[j].variable, a->prevails[j].value);
    fputc('\n', out);
  }
  fprintf(out,
          "  oracle class (IJCAI Def. 7 literally) %s: %s; with ghost values "
          "in G %s\n",
          sp_class_name(c), why, sp_class_name(g));
}

/* ------------------------------------------------------------------ */
/* Checker                                                            */
/* ------------------------------------------------------------------ */

void oracle_set_report_limit(OracleSpace *o, int limit) {
  o->report_limit = limit;
}

void oracle_set_label(OracleSpace *o, const char *label) {
  snprintf(o->label, sizeof(o->label), "%s", label != NULL ? label : "");
}

long oracle_failure_count(const OracleSpace *o) { return o->failures; }

/* Prints one mismatch: the domain (once per space), then the pair. */
static void report(OracleSpace *o, OracleTally *t, FILE *out, const SpValue *s0,
                   const SpValue *goal, SpStatus st, const SpFailure *f,
                   int len, int dist, const char *fmt, ...) {
  va_list ap;
  o->failures++;
  t->failures++;
  if (out == NULL || o->reports >= o->report_limit) return;
  o->reports++;
  fprintf(out, "==== oracle mismatch%s%s ====\n", o->label[0] ? " in " : "",
          o->label);
  if (!o->domain_printed) {
    oracle_print_domain(out, o->d);
    o->domain_printed = 1;
  }
  fputs("  s0   ", out);
  oracle_print_state(out, o->d, s0);
  fputs("\n  goal ", out);
  oracle_print_state(out, o->d, goal);
  fprintf(out, "\n  BFS distance %d%s\n", dist,
          dist < 0 ? " (unreachable)" : "");
  if (dist >= 0) {
    uint16_t *witness = xcalloc((size_t)dist, sizeof(uint16_t));
    if (witness != NULL) {
      fputs("  BFS shortest plan ", out);
      oracle_print_plan(out, o->d, witness,
                        oracle_shortest_plan(o, goal, witness));
      fputc('\n', out);
      free(witness);
    }
  }
  fprintf(out, "  sp_plan: %s", sp_status_name(st));
  if (st == SP_OK) {
    fputs(", plan ", out);
    oracle_print_plan(out, o->d, o->plan, len);
  } else if (st == SP_NO_PLAN) {
    char buf[512];
    sp_failure_format(o->d, f, buf, sizeof(buf));
    fprintf(out, ": %s", buf);
  }
  fputs("\n  problem: ", out);
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
  fputc('\n', out);
  fflush(out);
}

int oracle_check_pair(OracleSpace *o, SpWorkspace *ws, const SpValue *s0,
                      const SpValue *goal, OracleTally *t, FILE *out) {
  SpFailure f;
  SpStatus st;
  int len = -1, i, dist = oracle_distance(o, goal), r;
  OracleTally scratch;
  if (t == NULL) t = &scratch;
  memset(&f, 0, sizeof(f));
  t->pairs++;
  if (dist >= 0) t->solvable++;
  st = sp_plan(o->d, ws, s0, goal, o->plan, &len, &f);
  if (st == SP_OK) t->planned++;
  if (dist < 0) {
    if (st == SP_NO_PLAN) return 1;
    report(o, t, out, s0, goal, st, &f, len, dist,
           "unreachable goal, expected SP_NO_PLAN");
    return 0;
  }
  if (st != SP_OK) {
    report(o, t, out, s0, goal, st, &f, len, dist,
           "reachable goal, expected SP_OK");
    return 0;
  }
  if (len < 0 || len > o->nacts) {
    report(o, t, out, s0, goal, st, &f, 0, dist, "plan length %d out of range",
           len);
    return 0;
  }
  memset(o->seen, 0, (size_t)o->nacts);
  for (i = 0; i < len; i++) {
    if (o->plan[i] >= o->nacts) {
      report(o, t, out, s0, goal, st, &f, len, dist,
             "action id %d out of range", o->plan[i]);
      return 0;
    }
    if (o->seen[o->plan[i]]) {
      report(o, t, out, s0, goal, st, &f, len, dist, "action '%s' repeats",
             sp_action_name(o->d, o->plan[i]));
      return 0;
    }
    o->seen[o->plan[i]] = 1;
  }
  memcpy(o->state, s0, (size_t)o->nvars);
  r = sp_plan_replay(o->d, o->state, o->plan, len);
  if (r >= 0) {
    report(o, t, out, s0, goal, st, &f, len, dist,
           "step %d ('%s') is not applicable", r,
           sp_action_name(o->d, o->plan[r]));
    return 0;
  }
  for (i = 0; i < o->nvars; i++)
    if (goal[i] != SP_ANY && o->state[i] != goal[i]) {
      report(o, t, out, s0, goal, st, &f, len, dist,
             "the plan does not end in the goal");
      return 0;
    }
  if (len != dist) {
    report(o, t, out, s0, goal, st, &f, len, dist,
           "plan length %d, BFS distance %d", len, dist);
    return 0;
  }
  return 1;
}

long oracle_check_start(OracleSpace *o, SpWorkspace *ws, const SpValue *s0,
                        OracleTally *t, FILE *out) {
  long g, bad = 0;
  SpValue *goal = xcalloc((size_t)o->nvars, sizeof(SpValue));
  SpValue *start = xcalloc((size_t)o->nvars, sizeof(SpValue));
  if (goal == NULL || start == NULL) {
    free(goal);
    free(start);
    return -1;
  }
  /* o->state is the search's scratch, so keep s0 in a copy of our own. */
  memcpy(start, s0, (size_t)o->nvars);
  oracle_bfs(o, start);
  for (g = 0; g < o->count; g++) {
    oracle_state_decode(o, g, goal);
    if (!oracle_check_pair(o, ws, start, goal, t, out)) bad++;
  }
  free(goal);
  free(start);
  return bad;
}

long oracle_check_start_partial(OracleSpace *o, SpWorkspace *ws,
                                const SpValue *s0, int keep, OracleTally *t,
                                FILE *out) {
  long bad = 0;
  int i;
  SpValue *goal = xcalloc((size_t)o->nvars, sizeof(SpValue));
  SpValue *start = xcalloc((size_t)o->nvars, sizeof(SpValue));
  int *digit = xcalloc((size_t)o->nvars, sizeof(int));
  if (goal == NULL || start == NULL || digit == NULL) {
    free(goal);
    free(start);
    free(digit);
    return -1;
  }
  memcpy(start, s0, (size_t)o->nvars);
  oracle_bfs(o, start);
  for (;;) { /* digit radix[i] stands for SP_ANY */
    for (i = 0; i < o->nvars; i++)
      goal[i] = digit[i] == o->radix[i] ? (keep ? start[i] : SP_ANY)
                                        : (SpValue)digit[i];
    if (!oracle_check_pair(o, ws, start, goal, t, out)) bad++;
    for (i = 0; i < o->nvars; i++) {
      if (++digit[i] <= o->radix[i]) break;
      digit[i] = 0;
    }
    if (i == o->nvars) break;
  }
  free(goal);
  free(start);
  free(digit);
  return bad;
}

long oracle_check_all_pairs(OracleSpace *o, SpWorkspace *ws, OracleTally *t,
                            FILE *out) {
  long s, bad = 0;
  SpValue *s0 = xcalloc((size_t)o->nvars, sizeof(SpValue));
  if (s0 == NULL) return -1;
  for (s = 0; s < o->count; s++) {
    long r;
    oracle_state_decode(o, s, s0);
    r = oracle_check_start(o, ws, s0, t, out);
    if (r < 0) {
      free(s0);
      return -1;
    }
    bad += r;
  }
  free(s0);
  return bad;
}

/* ------------------------------------------------------------------ */
/* Brute-force class analysis (IJCAI 2023, definitions 1-7)          */
/* ------------------------------------------------------------------ */

/* The plain facts the definitions talk about, read from a spec or from a
 * compiled domain's raw accessors (never from its class analysis). */
typedef struct View {
  int nv, na;
  int *nvalues;
  int *var, *pre, *post;
  int *prv_start; /* prv_start[na] ends */
  SpCondition *prv;
} View;

static void view_free(View *w) {
  free(w->nvalues);
  free(w->var);
  free(w->pre);
  free(w->post);
  free(w->prv_start);
  free(w->prv);
}

static int view_alloc(View *w, int nv, int na, int nprv) {
  w->nv = nv;
  w->na = na;
  w->nvalues = xcalloc((size_t)nv, sizeof(int));
  w->var = xcalloc((size_t)na, sizeof(int));
  w->pre = xcalloc((size_t)na, sizeof(int));
  w->post = xcalloc((size_t)na, sizeof(int));
  w->prv_start = xcalloc((size_t)na + 1, sizeof(int));
  w->prv = xcalloc((size_t)nprv, sizeof(SpCondition));
  return w->nvalues && w->var && w->pre && w->post && w->prv_start && w->prv;
}

static void say(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  if (why == NULL || size == 0) return;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
}

/* Union-find over actions, for "related in G minus G(v)". */
static int uf_find(int *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

static void uf_union(int *parent, int x, int y) {
  x = uf_find(parent, x);
  y = uf_find(parent, y);
  if (x != y) parent[x] = y;
}

/* Does action b have the prevail-condition var = value? */
static int view_requires(const View *w, int b, int var, int value) {
  int k;
  for (k = w->prv_start[b]; k < w->prv_start[b + 1]; k++)
    if (w->prv[k].variable == var && w->prv[k].value == value) return 1;
  return 0;
}

/* C*2 test for the 2-cycle {ap, am} on v: are the requesters of ap and
 * those of am in different weakly connected parts of G without A(v)?
 * `parent` has room for na + total values nodes. With `ghosts`, every
 * value without a setter is a node too (the ghost action of the papers'
 * tables), with the edges an action in its place would have. */
static int requesters_connected(const View *w, const int *setter,
                                const int *base, int ghosts, int v, int ap,
                                int am, int *parent, int *who_p, int *who_m) {
  int a, b, x, nodes = w->na + base[w->nv];
  for (a = 0; a < nodes; a++) parent[a] = a;
  for (a = 0; a < w->na; a++) {
    if (w->var[a] == v) continue;
    for (b = 0; b < w->na; b++) {
      if (b == a || w->var[b] == v) continue;
      /* E_pre: post(a) = pre(b) on one variable */
      if (w->var[a] == w->var[b] && w->post[a] == w->pre[b])
        uf_union(parent, a, b);
      /* E_prv: a's post is a prevail-condition of b */
      if (view_requires(w, b, w->var[a], w->post[a])) uf_union(parent, a, b);
    }
  }
  if (ghosts) {
    for (b = 0; b < w->na; b++) {
      int k;
      if (w->var[b] == v) continue;
      x = base[w->var[b]] + w->pre[b];
      if (setter[x] < 0) uf_union(parent, w->na + x, b);
      for (k = w->prv_start[b]; k < w->prv_start[b + 1]; k++) {
        SpCondition c = w->prv[k];
        x = base[c.variable] + c.value;
        if (c.variable != v && setter[x] < 0) uf_union(parent, w->na + x, b);
      }
    }
  }
  for (a = 0; a < w->na; a++) {
    if (!view_requires(w, a, v, w->post[ap])) continue;
    for (b = 0; b < w->na; b++) {
      if (!view_requires(w, b, v, w->post[am])) continue;
      if (uf_find(parent, a) == uf_find(parent, b)) {
        *who_p = a;
        *who_m = b;
        return 1;
      }
    }
  }
  return 0;
}

/* The classification proper. Cycles are found per action by following
 * the unique predecessor (the setter of its pre value, Lemma 1) until the
 * walk returns to the start or leaves the variable's actions. Several
 * cycles on one variable (a disconnected G(v)) are each judged alone. */
static SpClass view_classify(const View *w, int flags, char *why, size_t size) {
  int a, b, v;
  int *setter = NULL, *base = NULL, *pred = NULL, *on_cycle = NULL,
      *cyc_len = NULL;
  int *req = NULL, *parent = NULL;
  int total = 0;
  int req_cycle = 0, double_req = 0;
  SpClass result = SP_CLASS_C0;
  say(why, size, "no cycle contains a requestable action");

  base = xcalloc((size_t)w->nv + 1, sizeof(int));
  if (base == NULL) goto oom;
  for (v = 0; v < w->nv; v++) {
    base[v] = total;
    total += w->nvalues[v];
  }
  base[w->nv] = total;
  setter = xcalloc((size_t)total, sizeof(int));
  pred = xcalloc((size_t)w->na, sizeof(int));
  on_cycle = xcalloc((size_t)w->na, sizeof(int));
  cyc_len = xcalloc((size_t)w->na, sizeof(int));
  req = xcalloc((size_t)w->na, sizeof(int));
  parent = xcalloc((size_t)w->na + (size_t)total, sizeof(int));
  if (!setter || !pred || !on_cycle || !cyc_len || !req || !parent) goto oom;

  /* Basic rules, so the rest can index freely. */
  for (a = 0; a < total; a++) setter[a] = -1;
  for (a = 0; a < w->na; a++) {
    int k;
    v = w->var[a];
    if (v < 0 || v >= w->nv || w->pre[a] < 0 || w->pre[a] >= w->nvalues[v] ||
        w->post[a] < 0 || w->post[a] >= w->nvalues[v] ||
        w->pre[a] == w->post[a]) {
      say(why, size, "action %d breaks the model (variable or values)", a);
      result = SP_CLASS_OUTSIDE;
      goto done;
    }
    if (setter[base[v] + w->post[a]] >= 0) {
      say(why, size, "actions %d and %d set one value (not post-unique)",
          setter[base[v] + w->post[a]], a);
      result = SP_CLASS_OUTSIDE;
      goto done;
    }
    setter[base[v] + w->post[a]] = a;
    for (k = w->prv_start[a]; k < w->prv_start[a + 1]; k++) {
      SpCondition c = w->prv[k];
      if (c.variable < 0 || c.variable >= w->nv || c.variable == v ||
          c.value < 0 || c.value >= w->nvalues[c.variable]) {
        say(why, size, "action %d has a bad prevail-condition", a);
        result = SP_CLASS_OUTSIDE;
        goto done;
      }
    }
  }

  /* Definition 1: in G(v) the only edge into a comes from the setter of
   * pre(a). Definition 2: a is on Cycle(v) when that chain comes back. */
  for (a = 0; a < w->na; a++) pred[a] = setter[base[w->var[a]] + w->pre[a]];
  for (a = 0; a < w->na; a++) {
    int steps = 1;
    b = pred[a];
    while (b >= 0 && b != a && steps <= w->nvalues[w->var[a]]) {
      b = pred[b];
      steps++;
    }
    if (b == a) {
      on_cycle[a] = 1;
      cyc_len[a] = steps;
    }
  }

  /* Definition 3: requestable = its post is some action's prevail. */
  for (a = 0; a < w->na; a++)
    for (b = 0; b < w->na; b++)
      if (view_requires(w, b, w->var[a], w->post[a])) {
        req[a] = 1;
        break;
      }

  /* Definition 4 (Ck) and 5 (CS2): look at each cycle once, from its
   * smallest action. */
  for (a = 0; a < w->na; a++) {
    int count = 0, smallest = 1, len;
    if (!on_cycle[a]) continue;
    len = cyc_len[a];
    b = a;
    do {
      if (b < a) smallest = 0;
      count += req[b];
      b = pred[b];
    } while (b != a);
    if (!smallest || count == 0) continue;
    req_cycle = 1;
    if (len > 2) {
      say(why, size,
          "the cycle of %d actions on variable %d through action %d holds a "
          "requestable action (C2 broken)",
          len, w->var[a], a);
      result = SP_CLASS_OUTSIDE;
      goto done;
    }
    if (count == 2) double_req = 1;
  }
  if (!req_cycle) goto done;
  if (!double_req) {
    result = SP_CLASS_CS2;
    say(why, size,
        "every cycle with a requestable action has 2 actions and one "
        "requestable");
    goto done;
  }

  /* Definition 7 (C*2): for each 2-cycle {a+, a-} with both requestable,
   * no requester of a+ may be related to a requester of a- once G(v) is
   * removed from the action graph. */
  result = SP_CLASS_CSTAR2;
  say(why, size, "every doubly requested 2-cycle has unrelated requesters");
  for (a = 0; a < w->na; a++) {
    int m = pred[a], who_p = -1, who_m = -1;
    if (!on_cycle[a] || cyc_len[a] != 2 || m < a || !req[a] || !req[m])
      continue;
    v = w->var[a];
    if (requesters_connected(w, setter, base, flags & ORACLE_CLASS_GHOST_NODES,
                             v, a, m, parent, &who_p, &who_m)) {
      say(why, size,
          "on variable %d the requester %d of action %d and the requester %d "
          "of "
          "action %d are connected without G(v) (C*2 broken)",
          v, who_p, a, who_m, m);
      result = SP_CLASS_OUTSIDE;
      goto done;
    }
  }
  goto done;

oom:
  say(why, size, "out of memory");
  result = SP_CLASS_OUTSIDE;
done:
  free(base);
  free(setter);
  free(pred);
  free(on_cycle);
  free(cyc_len);
  free(req);
  free(parent);
  return result;
}

SpClass oracle_classify_spec(const SpDomainSpec *spec, char *why,
                             size_t why_size) {
  return oracle_classify_spec_ex(spec, 0, why, why_size);
}

SpClass oracle_classify_domain(const SpDomain *d, char *why, size_t why_size) {
  return oracle_classify_domain_ex(d, 0, why, why_size);
}

SpClass oracle_classify_spec_ex(const SpDomainSpec *spec, int flags, char *why,
                                size_t why_size) {
  View w;
  SpClass c;
  int i, j, total = 0;
  for (i = 0; i < spec->action_count; i++)
    total += spec->actions[i].prevail_count;
  memset(&w, 0, sizeof(w));
  if (!view_alloc(&w, spec->variable_count, spec->action_count, total)) {
    view_free(&w);
    say(why, why_size, "out of memory");
    return SP_CLASS_OUTSIDE;
  }
  for (i = 0; i < w.nv; i++) w.nvalues[i] = spec->variables[i].value_count;
  total = 0;
  for (i = 0; i < w.na; i++) {
    const SpActionSpec *a = &spec->actions[i];
    w.var[i] = a->variable;
    w.pre[i] = a->pre;
    w.post[i] = a->post;
    w.prv_start[i] = total;
    for (j = 0; j < a->prevail_count; j++) w.prv[total++] = a->prevails[j];
  }
  w.prv_start[w.na] = total;
  c = view_classify(&w, flags, why, why_size);
  view_free(&w);
  return c;
}

SpClass oracle_classify_domain_ex(const SpDomain *d, int flags, char *why,
                                  size_t why_size) {
  View w;
  SpClass c;
  int i, j, total = 0, na = sp_domain_action_count(d);
  for (i = 0; i < na; i++) total += sp_action_prevail_count(d, i);
  memset(&w, 0, sizeof(w));
  if (!view_alloc(&w, sp_domain_variable_count(d), na, total)) {
    view_free(&w);
    say(why, why_size, "out of memory");
    return SP_CLASS_OUTSIDE;
  }
  for (i = 0; i < w.nv; i++) w.nvalues[i] = sp_variable_value_count(d, i);
  total = 0;
  for (i = 0; i < na; i++) {
    int pc = sp_action_prevail_count(d, i);
    w.var[i] = sp_action_variable(d, i);
    w.pre[i] = sp_action_pre(d, i);
    w.post[i] = sp_action_post(d, i);
    w.prv_start[i] = total;
    for (j = 0; j < pc; j++) w.prv[total++] = sp_action_prevail(d, i, j);
  }
  w.prv_start[na] = total;
  c = view_classify(&w, flags, why, why_size);
  view_free(&w);
  return c;
}
