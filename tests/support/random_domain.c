/* random_domain.c: seeded random SAS-PU domains, steered towards each class. */
#include "random_domain.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* PRNG                                                               */
/* ------------------------------------------------------------------ */

void rd_seed(RdRng *r, uint64_t seed) { r->state = seed; }

/* splitmix64: one add and a 64-bit finaliser per draw. */
uint64_t rd_next(RdRng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int rd_below(RdRng *r, int n) { return (int)(rd_next(r) % (uint64_t)n); }

int rd_chance(RdRng *r, int percent) { return rd_below(r, 100) < percent; }

const char *rd_flavor_name(RdFlavor f) {
  static const char *const names[] = {"c0", "cs2", "cstar2", "outside", "any"};
  return f >= 0 && f < RD_FLAVOR_COUNT ? names[f] : "?";
}

/* ------------------------------------------------------------------ */
/* Value graphs                                                       */
/* ------------------------------------------------------------------ */

static const char *const value_names[RD_MAX_VALUES] = {"0", "1", "2", "3", "4"};

/* The shape of one variable: pre[p] is the pre value of the action that
 * sets p (-1: no setter, a ghost); cycle[p] is 1 or 2 when p is set by an
 * action of the first or second cycle, 0 otherwise. */
typedef struct Shape {
  int n;
  int pre[RD_MAX_VALUES];
  int cycle[RD_MAX_VALUES];
  int cycles;
} Shape;

/* Draws a random functional graph on n values. `cycle_pct` is the chance
 * of a cycle, `long_pct` the chance that a cycle is longer than 2 (when
 * n > 2). Each value gets at most one setter, so the result is always
 * post-unique; trees hang off the cycle or off a ghost root. */
static void draw_shape(RdRng *r, Shape *s, int n, int cycle_pct, int long_pct) {
  int order[RD_MAX_VALUES], i, k, placed = 0;
  s->n = n;
  s->cycles = 0;
  for (i = 0; i < n; i++) {
    order[i] = i;
    s->pre[i] = -1;
    s->cycle[i] = 0;
  }
  for (i = n - 1; i > 0; i--) {
    int j = rd_below(r, i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  if (rd_chance(r, cycle_pct)) {
    int len = 2;
    if (n > 2 && rd_chance(r, long_pct)) len = 3 + rd_below(r, n - 2);
    for (i = 0; i < len; i++) {
      s->pre[order[i]] = order[(i + len - 1) % len];
      s->cycle[order[i]] = 1;
    }
    placed = len;
    s->cycles = 1;
    /* Rarely a second, separate 2-cycle: G(v) is then disconnected. */
    if (n - placed >= 2 && rd_chance(r, 6)) {
      s->pre[order[placed]] = order[placed + 1];
      s->pre[order[placed + 1]] = order[placed];
      s->cycle[order[placed]] = s->cycle[order[placed + 1]] = 2;
      placed += 2;
      s->cycles = 2;
    }
  } else {
    placed = 1; /* order[0] is the ghost root */
  }
  for (k = placed; k < n; k++) s->pre[order[k]] = order[rd_below(r, k)];
  /* Extra ghosts: cut a tree value loose now and then. */
  for (k = placed; k < n; k++)
    if (rd_chance(r, 8)) s->pre[order[k]] = -1;
}

/* ------------------------------------------------------------------ */
/* Prevail values per flavour                                         */
/* ------------------------------------------------------------------ */

typedef struct Plan {
  RdFlavor flavor;
  int nv;
  Shape shape[RD_MAX_VARIABLES];
  int chosen[RD_MAX_VARIABLES];  /* the one cycle value CS2 may request */
  int chosen2[RD_MAX_VARIABLES]; /* same for a second cycle */
  int sw, plus, minus;           /* C*2: switch variable and its values */
  int group[RD_MAX_VARIABLES];   /* C*2: 0 or 1 */
} Plan;

/* Picks the value an action may require of variable w, or -1 to leave w
 * alone. */
static int pick_value(RdRng *r, const Plan *pl, int w) {
  const Shape *s = &pl->shape[w];
  int cand[RD_MAX_VALUES], nc = 0, p;
  switch (pl->flavor) {
  case RD_FLAVOR_C0:
    for (p = 0; p < s->n; p++)
      if (!s->cycle[p]) cand[nc++] = p;
    break;
  case RD_FLAVOR_CS2:
  case RD_FLAVOR_CSTAR2:
    for (p = 0; p < s->n; p++)
      if (!s->cycle[p] || p == pl->chosen[w] || p == pl->chosen2[w])
        cand[nc++] = p;
    break;
  default:
    for (p = 0; p < s->n; p++) cand[nc++] = p;
    break;
  }
  if (nc == 0) return -1;
  return cand[rd_below(r, nc)];
}

/* May an action on variable v carry a prevail on w? Under C*2 steering
 * the two groups never look at each other. */
static int may_require(const Plan *pl, int v, int w) {
  if (v == w) return 0;
  if (pl->flavor != RD_FLAVOR_CSTAR2 || pl->sw < 0) return 1;
  if (v == pl->sw || w == pl->sw) return 1;
  return pl->group[v] == pl->group[w];
}

/* The cycle value of variable v that a flavour lets be requested. */
static int pick_cycle_value(RdRng *r, const Shape *s, int which) {
  int cand[RD_MAX_VALUES], nc = 0, p;
  for (p = 0; p < s->n; p++)
    if (s->cycle[p] == which) cand[nc++] = p;
  return nc > 0 ? cand[rd_below(r, nc)] : -1;
}

/* C*2 steering: make sure each side of the switch has a requester (an
 * action of that side's group with room for one more prevail), so the
 * switch cycle is requested on both values. */
static void ask_for_both_sides(RdRng *r, RandomDomain *rd, const Plan *pl,
                               int na) {
  int side, a;
  for (side = 0; side < 2; side++) {
    int value = side ? pl->minus : pl->plus, cand[RD_MAX_ACTIONS], nc = 0;
    for (a = 0; a < na; a++) {
      const SpActionSpec *act = &rd->actions[a];
      int k, has = 0;
      for (k = 0; k < act->prevail_count; k++)
        has |= act->prevails[k].variable == pl->sw &&
               act->prevails[k].value == value;
      if (has) break;
      if (act->variable != pl->sw && pl->group[act->variable] == side) {
        int free_slot = act->prevail_count < RD_MAX_PREVAILS;
        for (k = 0; k < act->prevail_count; k++)
          free_slot &= act->prevails[k].variable != pl->sw;
        if (free_slot) cand[nc++] = a;
      }
    }
    if (a < na || nc == 0) continue;
    a = cand[rd_below(r, nc)];
    rd->prevails[a][rd->actions[a].prevail_count].variable = pl->sw;
    rd->prevails[a][rd->actions[a].prevail_count].value = value;
    rd->actions[a].prevails = rd->prevails[a];
    rd->actions[a].prevail_count++;
  }
}

/* ------------------------------------------------------------------ */
/* The generator                                                      */
/* ------------------------------------------------------------------ */

/* Weighted size draws: small domains are the common case so that most
 * state spaces stay under a few hundred states. */
static int draw_value_count(RdRng *r) {
  int x = rd_below(r, 100);
  if (x < 40) return 2;
  if (x < 72) return 3;
  if (x < 90) return 4;
  return 5;
}

static int draw_prevail_count(RdRng *r) {
  int x = rd_below(r, 100);
  if (x < 30) return 0;
  if (x < 65) return 1;
  if (x < 88) return 2;
  return 3;
}

void random_domain_generate(RandomDomain *rd, uint64_t seed, RdFlavor flavor) {
  RdRng r;
  Plan pl;
  int v, p, na = 0;
  int cycle_pct = 55, long_pct = 30;

  memset(rd, 0, sizeof(*rd));
  memset(&pl, 0, sizeof(pl));
  rd_seed(&r, seed);
  rd->seed = seed;
  rd->flavor = flavor;
  pl.flavor = flavor;
  pl.sw = -1;
  pl.nv = 2 + rd_below(&r, RD_MAX_VARIABLES - 1);
  switch (flavor) {
  case RD_FLAVOR_C0:
    cycle_pct = 50;
    long_pct = 40;
    break;
  case RD_FLAVOR_CS2:
    cycle_pct = 70;
    long_pct = 10;
    break;
  case RD_FLAVOR_CSTAR2:
    cycle_pct = 70;
    long_pct = 5;
    break;
  case RD_FLAVOR_OUTSIDE:
    cycle_pct = 75;
    long_pct = 60;
    break;
  default: break;
  }
  for (v = 0; v < pl.nv; v++) {
    draw_shape(&r, &pl.shape[v], draw_value_count(&r), cycle_pct, long_pct);
    pl.chosen[v] = pick_cycle_value(&r, &pl.shape[v], 1);
    pl.chosen2[v] = pick_cycle_value(&r, &pl.shape[v], 2);
    if (pl.shape[v].cycles == 2) rd->multi_cycle = 1;
  }
  if (flavor == RD_FLAVOR_CSTAR2) {
    /* The switch: a variable whose first cycle has exactly 2 actions. */
    for (v = 0; v < pl.nv && pl.sw < 0; v++) {
      int len = 0;
      for (p = 0; p < pl.shape[v].n; p++) len += pl.shape[v].cycle[p] == 1;
      if (len == 2) pl.sw = v;
    }
    if (pl.sw >= 0) {
      int got = 0;
      for (p = 0; p < pl.shape[pl.sw].n; p++)
        if (pl.shape[pl.sw].cycle[p] == 1) {
          if (got++ == 0)
            pl.plus = p;
          else
            pl.minus = p;
        }
      for (v = 0; v < pl.nv; v++) pl.group[v] = rd_below(&r, 2);
      /* Two sides need a variable each (the switch aside). */
      if (pl.nv >= 3) {
        int first = pl.sw == 0 ? 1 : 0, second;
        do second = rd_below(&r, pl.nv);
        while (second == pl.sw || second == first);
        pl.group[first] = 0;
        pl.group[second] = 1;
      }
    }
  }

  for (v = 0; v < pl.nv; v++) {
    SpVariableSpec *var = &rd->variables[v];
    snprintf(rd->variable_names[v], sizeof(rd->variable_names[v]), "v%d", v);
    var->name = rd->variable_names[v];
    var->value_count = pl.shape[v].n;
    var->value_names = value_names;
  }

  for (v = 0; v < pl.nv; v++) {
    for (p = 0; p < pl.shape[v].n; p++) {
      SpActionSpec *act;
      int want, k, w, tries, used[RD_MAX_VARIABLES] = {0};
      if (pl.shape[v].pre[p] < 0) continue;
      act = &rd->actions[na];
      snprintf(rd->action_names[na], sizeof(rd->action_names[na]), "a%d_v%d", p,
               v);
      act->name = rd->action_names[na];
      act->variable = v;
      act->pre = pl.shape[v].pre[p];
      act->post = p;
      act->prevails = rd->prevails[na];
      want = draw_prevail_count(&r);
      if (want > pl.nv - 1) want = pl.nv - 1;
      k = 0;
      /* C*2 steering: most actions outside the switch ask for their
       * group's switch value. */
      if (pl.sw >= 0 && v != pl.sw && want > 0 && rd_chance(&r, 60)) {
        rd->prevails[na][k].variable = pl.sw;
        rd->prevails[na][k].value = pl.group[v] ? pl.minus : pl.plus;
        used[pl.sw] = 1;
        k++;
      }
      for (tries = 0; k < want && tries < 12; tries++) {
        int value;
        w = rd_below(&r, pl.nv);
        if (used[w] || !may_require(&pl, v, w)) continue;
        if (w == pl.sw && v != pl.sw) continue; /* only the group's value */
        value = pick_value(&r, &pl, w);
        if (value < 0) continue;
        rd->prevails[na][k].variable = w;
        rd->prevails[na][k].value = value;
        used[w] = 1;
        k++;
      }
      act->prevail_count = k;
      if (k == 0) act->prevails = NULL;
      na++;
    }
  }
  if (pl.sw >= 0) ask_for_both_sides(&r, rd, &pl, na);
  snprintf(rd->name, sizeof(rd->name), "random_%s_%llu", rd_flavor_name(flavor),
           (unsigned long long)seed);
  rd->spec.name = rd->name;
  rd->spec.variable_count = pl.nv;
  rd->spec.variables = rd->variables;
  rd->spec.action_count = na;
  rd->spec.actions = rd->actions;
}
