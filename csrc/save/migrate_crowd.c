/* migrate_crowd.c: one crowd of an old save rewritten for the crowd as it is now: state and goal rows by variable and value names, plans kept or dropped, places and failures mapped. */
#include <stdio.h>
#include <string.h>

#include "migrate.h"
#include "sp_error.h"
#include "sp_internal.h"

/* The maps of one crowd, old save -> now. */
typedef struct Maps {
  const SpCrowd *c;
  const SaveCrowdNames *old;
  int m;             /* variables now */
  int *var_of_new;   /* m: the old variable, -1: new */
  int *new_of_var;   /* old vars: the new variable, -1: gone */
  int *val;          /* old values (old->vars.at order): new value, -1: gone */
  int *def;          /* m: the default value, -1: none */
  uint32_t *missing; /* old values: live agents holding a gone one */
  int *act;          /* old actions: the new id, -1: changed or gone */
  int changed;       /* anything differs from the save */
  uint8_t *rows;     /* 2 m: an agent's rows, rewritten */
  uint16_t *plan;    /* old actions: a plan, rewritten */
  size_t bytes;
  void *mem;
  uint8_t *walk;  /* per saved agent: WALKED, WALKS (see mig_chases) */
  size_t dropped; /* agents whose plan was dropped */
  size_t walk_bytes;
  size_t said; /* report lines before the crowd's */
} Maps;

/* An agent walking to a target (phase walking, F_BIND): in the save, and
 * still after its record was rewritten. */
enum { WALKED = 1, WALKS = 2 };

/* The default for variable vn (now) from the caller's list, or -1. */
static int default_of(Mig *g, const SpCrowd *c, int vn) {
  const SpDomain *d = c->domain;
  for (size_t k = 0; k < g->ndefs; k++) {
    if (strcmp(g->defs[k].variable, sp_variable_name(d, vn)) != 0) continue;
    for (int x = 0; x < sp_variable_value_count(d, vn); x++)
      if (strcmp(g->defs[k].value, sp_value_name(d, vn, x)) == 0) return x;
    sp__mig_fail(g, "defaults.%s: '%s' is no value of '%s'",
                 g->defs[k].variable, g->defs[k].value, g->defs[k].variable);
    return -1;
  }
  return -1;
}

/* Builds the maps and says what changed. */
static int build_maps(Mig *g, Maps *x, const SpCrowd *c,
                      const SaveCrowdNames *old) {
  const SpDomain *d = c->domain;
  const SaveVars *ov = &old->vars;
  size_t vals = ov->count > 0 ? ov->at[ov->count] : 0; /* names + values */
  x->c = c, x->old = old, x->m = c->m;
  x->bytes =
      sizeof(int) * ((size_t)c->m * 2 + ov->count + vals + old->actions + 1) +
      sizeof(uint32_t) * (vals + 1) + sizeof(uint16_t) * (old->actions + 1) +
      2u * (size_t)c->m + 1;
  x->mem = sp__mem_alloc(g->w->alloc, x->bytes);
  if (x->mem == NULL) {
    g->failed = 1;
    sp__error_memory(g->err);
    return 0;
  }
  memset(x->mem, 0, x->bytes);
  int *p = x->mem;
  x->var_of_new = p, p += c->m;
  x->def = p, p += c->m;
  x->new_of_var = p, p += ov->count;
  x->val = p, p += vals;
  x->act = p, p += old->actions;
  x->missing = (uint32_t *)(p + 1);
  x->plan = (uint16_t *)(x->missing + vals + 1);
  x->rows = (uint8_t *)(x->plan + old->actions + 1);
  for (uint32_t vo = 0; vo < ov->count; vo++) x->new_of_var[vo] = -1;
  for (int vn = 0; vn < c->m; vn++) {
    int vo = sp__save_vars_find(ov, sp_variable_name(d, vn));
    x->var_of_new[vn] = vo;
    x->def[vn] = default_of(g, c, vn);
    if (g->failed) return 0;
    if (vo < 0) {
      x->changed = 1;
      if (x->def[vn] < 0)
        return sp__mig_fail(
            g, "variable '%s' is new: defaults must give its value",
            sp_variable_name(d, vn));
      sp__mig_say(g, "variable '%s' is new: its agents take '%s' (defaults)",
                  sp_variable_name(d, vn), sp_value_name(d, vn, x->def[vn]));
      continue;
    }
    x->new_of_var[vo] = vn;
    if (vo != vn) x->changed = 1; /* reordered: mapped by name */
  }
  for (uint32_t vo = 0; vo < ov->count; vo++) {
    SaveStr name = ov->str[ov->at[vo]];
    uint32_t nv = sp_save_value_count(ov, (int)vo);
    int vn = x->new_of_var[vo];
    if (vn < 0) {
      x->changed = 1;
      sp__mig_say(g, "variable '%.*s' is gone", SAVE_STR_ARG(name));
    }
    for (uint32_t v = 0; v < nv; v++) {
      SaveStr vname = ov->str[ov->at[vo] + 1 + v];
      int to = -1;
      for (int y = 0; vn >= 0 && y < sp_variable_value_count(d, vn) && to < 0;
           y++)
        if (sp__save_str_is(vname, sp_value_name(d, vn, y))) to = y;
      x->val[ov->at[vo] + 1 + v] = to;
      if (vn >= 0 && to != (int)v) x->changed = 1;
    }
    for (int y = 0; vn >= 0 && y < sp_variable_value_count(d, vn); y++)
      if (sp__save_values_find(ov, (int)vo, sp_value_name(d, vn, y)) < 0) {
        x->changed = 1;
        sp__mig_say(g, "variable '%.*s': value '%s' is new", SAVE_STR_ARG(name),
                    sp_value_name(d, vn, y));
      }
  }
  int kept = 0, vars_kept = 0;
  for (int vn = 0; vn < c->m; vn++) vars_kept += x->var_of_new[vn] >= 0;
  for (uint32_t a = 0; a < old->actions; a++) {
    x->act[a] = -1;
    for (int b = 0; b < c->action_count && x->act[a] < 0; b++)
      if (sp__save_str_is(old->act[a], sp_action_name(d, b))) x->act[a] = b;
    if (x->act[a] < 0) {
      x->changed = 1;
      sp__mig_say(g, "action '%.*s' is gone: plans using it are dropped",
                  SAVE_STR_ARG(old->act[a]));
    } else if (sp__save_action_sig(c, x->act[a], g->names) != old->sig[a]) {
      x->changed = 1;
      sp__mig_say(g, "action '%.*s' changed: plans using it are dropped",
                  SAVE_STR_ARG(old->act[a]));
      x->act[a] = -1;
    } else {
      kept++;
      if (x->act[a] != (int)a) x->changed = 1;
    }
  }
  for (int b = 0; b < c->action_count; b++) {
    int found = 0;
    for (uint32_t a = 0; a < old->actions && !found; a++)
      found = sp__save_str_is(old->act[a], sp_action_name(d, b));
    if (!found) {
      x->changed = 1;
      sp__mig_say(g, "action '%s' is new", sp_action_name(d, b));
    }
  }
  if (x->changed)
    sp__mig_say(g, "mapped %d of %u variables and %d of %u actions by name",
                vars_kept, ov->count, kept, old->actions);
  return 1;
}

/* ------------------------------------------------------------------ */
/* Rows                                                               */
/* ------------------------------------------------------------------ */

/* The flat index of old variable vo's value v in the maps. */
static uint32_t slot(const Maps *x, int vo, int v) {
  return x->old->vars.at[vo] + 1u + (uint32_t)v;
}

/* An agent's state row: a value gone takes the default, else 0 (the
 * crowd is refused after its agents, with the count); *defaulted when
 * a live agent took one. */
static int map_state(Mig *g, Maps *x, const uint8_t *old, uint8_t *out,
                     int live, int *defaulted, size_t i) {
  const SaveVars *ov = &x->old->vars;
  for (uint32_t vo = 0; vo < ov->count; vo++)
    if (old[vo] >= sp_save_value_count(ov, (int)vo))
      return sp__mig_fail(g,
                          "agent %zu: state value %u of variable %u is out of "
                          "range",
                          i + 1, old[vo], vo + 1);
  for (int vn = 0; vn < x->m; vn++) {
    int vo = x->var_of_new[vn];
    int y = vo < 0 ? x->def[vn] : x->val[slot(x, vo, old[vo])];
    if (y < 0 && vo >= 0) {
      if (live) x->missing[slot(x, vo, old[vo])]++;
      y = x->def[vn];
      if (live && y >= 0) *defaulted = 1;
      if (y < 0) y = 0;
    }
    out[vn] = (uint8_t)y;
  }
  return 1;
}

/* A goal row (SP_ANY allowed): a variable new or free stays free. A value
 * gone takes the default; with none, a crowd's goal (strict) is refused
 * and an agent's row (used while it plans) becomes free, *lost set. */
static int map_goal_row(Mig *g, Maps *x, const uint8_t *old, uint8_t *out,
                        int strict, int *lost, const char *what, size_t i) {
  const SaveVars *ov = &x->old->vars;
  for (uint32_t vo = 0; vo < ov->count; vo++)
    if (old[vo] != SP_ANY && old[vo] >= sp_save_value_count(ov, (int)vo))
      return sp__mig_fail(
          g, "%s %zu: goal value %u of variable %u is out of range", what,
          i + 1, old[vo], vo + 1);
  for (int vn = 0; vn < x->m; vn++) {
    int vo = x->var_of_new[vn];
    int y = vo < 0 || old[vo] == SP_ANY ? SP_ANY : x->val[slot(x, vo, old[vo])];
    if (y < 0) y = x->def[vn];
    if (y < 0 && strict) {
      SaveStr vname = x->old->vars.str[x->old->vars.at[vo]];
      SaveStr val = x->old->vars.str[slot(x, vo, old[vo])];
      return sp__mig_fail(
          g,
          "%s %zu needs value '%.*s' of '%.*s', which no longer "
          "exists (give defaults = { %.*s = ... })",
          what, i + 1, SAVE_STR_ARG(val), SAVE_STR_ARG(vname),
          SAVE_STR_ARG(vname));
    }
    if (y < 0) *lost = 1, y = SP_ANY;
    out[vn] = (uint8_t)y;
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Agents                                                             */
/* ------------------------------------------------------------------ */

typedef struct Tally {
  size_t dropped, idle, homes;
} Tally;

static int16_t get16(const uint8_t *p) {
  return (int16_t)(uint16_t)sp_save_get(p, 2);
}
static void put16(uint8_t *p, int v) {
  sp_save_put(p, (uint16_t)(int16_t)v, 2);
}

/* An old place index mapped; 0 when out of range. */
static int map_place(Mig *g, uint8_t *field, const char *name, size_t i) {
  uint32_t p = (uint32_t)sp_save_get(field, 4);
  if (p == SP_NO_PLACE) return 1;
  if (p >= g->old.places)
    return sp__mig_fail(g, "agent %zu: field '%s': place %u does not exist",
                        i + 1, name, p);
  sp_save_put(field, g->place_map[p], 4);
  return 1;
}

/* The last failure's fields, mapped; cleared when one no longer maps. */
static void map_failure(const Maps *x, uint8_t *rec) {
  int reason = rec[40], fcode = rec[41];
  int fa = get16(rec + 42), act = get16(rec + 44), other = get16(rec + 46);
  int fvar = get16(rec + 48), fvalue = rec[50];
  int acts = (int)x->old->actions, ok = 1;
  int blocker = (fcode == SP_FAIL_NO_SETTER || fcode == SP_FAIL_UNREACHABLE) &&
                other != -1;
  int goal_named = reason == SP_REASON_NO_PLAN && fa <= -2;
  int *fields[3] = {goal_named ? NULL : &fa, &act, blocker ? NULL : &other};
  for (int k = 0; k < 3; k++) {
    if (fields[k] == NULL || *fields[k] == -1) continue;
    if (*fields[k] < 0 || *fields[k] >= acts)
      ok = 0;
    else
      *fields[k] = x->act[*fields[k]];
    if (*fields[k] < 0) ok = 0;
  }
  int nvar = -1;
  if (fvar != -1) {
    ok = ok && fvar >= 0 && (uint32_t)fvar < x->old->vars.count;
    if (ok) nvar = x->new_of_var[fvar];
    ok = ok && nvar >= 0;
  }
  uint32_t nv = ok && fvar >= 0 ? sp_save_value_count(&x->old->vars, fvar) : 0;
  int vals[3] = {fvalue == 0xFF ? -1 : fvalue, blocker ? (other & 0xFF) : -1,
                 blocker ? ((uint16_t)other >> 8) : -1};
  for (int k = 0; k < 3 && ok; k++) {
    if (vals[k] < 0) continue;
    if ((uint32_t)vals[k] >= nv || x->val[slot(x, fvar, vals[k])] < 0)
      ok = 0;
    else
      vals[k] = x->val[slot(x, fvar, vals[k])];
  }
  if (!ok) { /* the failure no longer names things that exist: forget it */
    rec[40] = SP_REASON_NONE, rec[41] = 0, rec[50] = 0xFF, rec[62] = 0;
    put16(rec + 42, -1), put16(rec + 44, -1), put16(rec + 46, -1),
        put16(rec + 48, -1);
    return;
  }
  put16(rec + 42, fa), put16(rec + 44, act), put16(rec + 48, nvar);
  put16(rec + 46, blocker ? vals[1] | vals[2] << 8 : other);
  rec[50] = vals[0] < 0 ? 0xFF : (uint8_t)vals[0];
}

/* The old plan of agent i: *keep when every step maps to an action that
 * did not change (ids rewritten in place). 0 when malformed. */
static int read_plan(Mig *g, Maps *x, uint16_t *plan, int *len, int *keep,
                     size_t i) {
  unsigned res = (unsigned)sp__mig_get(g, 1);
  *len = -1;
  if (g->failed) return 0;
  if ((res & 3u) != SP_NPC_PLANNED) return (int)(res | 0x100u);
  *len = (int)sp__mig_get(g, 2);
  int idb = x->old->actions <= 255 ? 1 : 2;
  if (!g->failed && (uint32_t)*len > x->old->actions)
    return sp__mig_fail(g, "agent %zu: plan of %d steps (%u actions)", i + 1,
                        *len, x->old->actions);
  const uint8_t *ids = sp__mig_take(g, (size_t)*len * (size_t)idb);
  if (ids == NULL) return 0;
  for (int k = 0; k < *len; k++) {
    uint32_t a = (uint32_t)sp_save_get(ids + (size_t)k * (size_t)idb, idb);
    if (a >= x->old->actions)
      return sp__mig_fail(g,
                          "agent %zu: plan step %d: action %u does not exist",
                          i + 1, k + 1, a);
    if (x->act[a] < 0) *keep = 0;
    plan[k] = (uint16_t)(x->act[a] < 0 ? 0 : x->act[a]);
  }
  return (int)(res | 0x100u);
}

/* Agent i: its record, refusal words, rows and plan, rewritten. */
static int mig_agent(Mig *g, Maps *x, size_t i, size_t words, Tally *t) {
  size_t mo = x->old->vars.count, m = (size_t)x->m;
  const uint8_t *p = sp__mig_take(g, SAVE_AGENT_BYTES + 4u * words + 2u * mo);
  if (p == NULL) return 0;
  uint8_t rec[SAVE_AGENT_BYTES], *rows = x->rows;
  uint16_t *plan = x->plan;
  memcpy(rec, p, SAVE_AGENT_BYTES);
  /* the game heard of its move (format 10; before, as a load takes it) */
  int told = g->version >= 10 ? (rec[56] & SAVE_PHASE_TOLD) != 0
                              : rec[56] == SP_PHASE_MOVING;
  if (g->version >= 10) rec[56] &= (uint8_t)~SAVE_PHASE_TOLD;
  const uint8_t *hi = p + SAVE_AGENT_BYTES, *old = hi + 4u * words;
  int live = rec[56] != SP_PHASE_FREE, defaulted = 0, lost = 0, keep = 1, len;
  if (!map_state(g, x, old, rows, live, &defaulted, i) ||
      !map_goal_row(g, x, old + mo, rows + m, 0, &lost, "agent", i))
    return 0;
  int res = read_plan(g, x, plan, &len, &keep, i);
  if (res == 0) return 0;
  if (!live) /* a despawned slot carries no plan into the new save */
    res = 0x100 | SP_NPC_UNPLANNED, len = -1;
  uint32_t old_target = (uint32_t)sp_save_get(rec, 4),
           old_home = (uint32_t)sp_save_get(rec + 12, 4);
  if (!map_place(g, rec, "target", i) || !map_place(g, rec + 12, "home", i) ||
      !map_place(g, rec + 16, "cool_place", i))
    return 0;
  uint32_t target = (uint32_t)sp_save_get(rec, 4);
  if (live && old_home != SP_NO_PLACE &&
      sp_save_get(rec + 12, 4) == SP_NO_PLACE)
    t->homes++;
  if (old_target != SP_NO_PLACE)
    g->gone_uses[old_target] += target == SP_NO_PLACE;
  if (old_home != SP_NO_PLACE)
    g->gone_uses[old_home] += live && sp_save_get(rec + 12, 4) == SP_NO_PLACE;
  int tx = (int)sp_save_get(rec + 28, 2), ty = (int)sp_save_get(rec + 30, 2);
  int moved = target != SP_NO_PLACE && tx != 0xFFFF &&
              (tx != g->w->places[target].x || ty != g->w->places[target].y);
  int lost_target = old_target != SP_NO_PLACE && target == SP_NO_PLACE;
  map_failure(x, rec);
  uint8_t flags = rec[57], phase = rec[56];
  /* on its way: walked by saspu to a place or agent, or moved by the game */
  int walked = live && ((phase == SP_PHASE_WALKING && (flags & F_BIND)) ||
                        phase == SP_PHASE_MOVING);
  int busy = (flags & (F_HAS_PLAN | F_PLANNING)) ||
             sp_save_get(rec + 34, 2) != STEP_NONE;
  /* waiting for an engine that no longer moves this crowd */
  int stranded = phase == SP_PHASE_MOVING && !x->c->opt.engine_moves;
  if (live && busy &&
      (!keep || moved || lost_target || defaulted || stranded ||
       (lost && (flags & F_PLANNING)))) {
    /* the plan no longer fits: start over at the next update */
    sp_save_put(rec, SP_NO_PLACE, 4);
    sp_save_put(rec + 8, 0, 4); /* done */
    sp_save_put(rec + 28, 0xFFFF, 2), sp_save_put(rec + 30, 0xFFFF, 2);
    sp_save_put(rec + 32, 0, 2), sp_save_put(rec + 34, STEP_NONE, 2);
    rec[39] = SP_REASON_MIGRATED;
    sp_save_put(rec + 52, 0, 4); /* time */
    rec[56] = SP_PHASE_THINKING, rec[57] = F_NEED_GOAL;
    res = 0x100 | SP_NPC_UNPLANNED;
    len = -1;
    t->dropped++;
    x->dropped++;
  } else if (live && x->changed && phase == SP_PHASE_IDLE &&
             !(flags & F_NEED_GOAL)) {
    rec[39] = SP_REASON_NONE; /* it looks again, as after a state change */
    rec[56] = SP_PHASE_THINKING, rec[57] = flags | F_NEED_GOAL;
    t->idle++;
  }
  if ((rec[57] & F_RESERVED) && target != SP_NO_PLACE) g->held[target]++;
  x->walk[i] = (uint8_t)((walked ? WALKED : 0) |
                         (walked && rec[56] == phase ? WALKS : 0));
  /* a step kept keeps the game's word of its move (a plan dropped here
   * ends its move unsaid, as before format 10) */
  if (told && live && x->c->opt.engine_moves && rec[56] == phase &&
      sp_save_get(rec + 34, 2) != STEP_NONE)
    rec[56] |= SAVE_PHASE_TOLD;
  sp__save_out_bytes(&g->o, rec, SAVE_AGENT_BYTES);
  sp__save_out_bytes(&g->o, hi, 4u * words);
  sp__save_out_bytes(&g->o, rows, 2u * m);
  sp__save_out(&g->o, (unsigned)res & 0xFFu, 1);
  if (len < 0) return 1;
  int idb = x->c->action_count <= 255 ? 1 : 2;
  sp__save_out(&g->o, (uint64_t)len, 2);
  for (int k = 0; k < len; k++) sp__save_out(&g->o, plan[k], idb);
  return 1;
}

/* ------------------------------------------------------------------ */
/* A crowd                                                            */
/* ------------------------------------------------------------------ */

/* Gone values some live agent held: refused naming the first with no
 * default, else reported. */
static int gone_values(Mig *g, Maps *x) {
  const SaveVars *ov = &x->old->vars;
  for (uint32_t vo = 0; vo < ov->count; vo++) {
    int vn = x->new_of_var[vo];
    SaveStr vname = ov->str[ov->at[vo]];
    if (vn < 0) continue; /* said: the variable is gone */
    for (uint32_t v = 0; v < sp_save_value_count(ov, (int)vo); v++) {
      uint32_t held = x->missing[slot(x, (int)vo, (int)v)];
      SaveStr val = ov->str[slot(x, (int)vo, (int)v)];
      if (x->val[slot(x, (int)vo, (int)v)] >= 0) continue;
      if (x->def[vn] < 0 && held > 0)
        return sp__mig_fail(
            g,
            "value '%.*s' of variable '%.*s' no longer exists and "
            "%u agent%s hold%s it (give defaults = { %.*s = ... })",
            SAVE_STR_ARG(val), SAVE_STR_ARG(vname), held, held == 1 ? "" : "s",
            held == 1 ? "s" : "", SAVE_STR_ARG(vname));
      if (held > 0)
        sp__mig_say(
            g,
            "variable '%.*s': value '%.*s' is gone: %u agent%s take%s '%s' "
            "(defaults)",
            SAVE_STR_ARG(vname), SAVE_STR_ARG(val), held, held == 1 ? "" : "s",
            held == 1 ? "s" : "", sp_value_name(x->c->domain, vn, x->def[vn]));
      else
        sp__mig_say(g,
                    "variable '%.*s': value '%.*s' is gone (no agent held it)",
                    SAVE_STR_ARG(vname), SAVE_STR_ARG(val));
    }
  }
  return 1;
}

/* The crowd's goals: conditions and `when` rows mapped (strict). */
static int mig_goals(Mig *g, Maps *x) {
  size_t mo = x->old->vars.count, m = (size_t)x->m;
  uint32_t n = (uint32_t)sp__mig_get(g, 4);
  if (g->failed) return 0;
  if (n > SP_CROWD_MAX_GOALS)
    return sp__mig_fail(g, "%u goals (at most %d)", n, SP_CROWD_MAX_GOALS);
  sp__save_out(&g->o, n, 4);
  for (uint32_t k = 0; k < n; k++) {
    const uint8_t *p = sp__mig_take(g, 8 + 2 * mo);
    int lost = 0;
    if (p == NULL || !map_goal_row(g, x, p + 8, x->rows, 1, &lost, "goal", k) ||
        !map_goal_row(g, x, p + 8 + mo, x->rows + m, 1, &lost, "goal", k))
      return 0;
    sp__save_out_bytes(&g->o, p, 8);
    sp__save_out_bytes(&g->o, x->rows, 2 * m);
  }
  return 1;
}

/* The chases (format 7): copied when the crowd did not change. When it
 * did, each chase is kept while its walker still walks to its target
 * after the rewrite: a migration keeps every agent's slot, generation
 * and crowd (the crowds' order cannot change), so the target it names is
 * the agent it chased at the save (one gone by then is found gone at the
 * first frame, as after a plain load). That holds for a crowd the game
 * moves too: its pending move keeps naming the target. A chase whose
 * walker's plan was dropped ends with it (the walker replans). Bounded
 * like the rest; the load checks what is kept. */
static int mig_chases(Mig *g, const Maps *x, size_t agents) {
  size_t from = g->at;
  uint32_t n = g->version >= 7 ? (uint32_t)sp__mig_get(g, 4) : 0;
  for (uint32_t k = 0; k < n && !g->failed; k++) {
    const uint8_t *p = sp__mig_take(g, 24);
    if (p == NULL || sp__mig_take(g, 4u * p[18]) == NULL) return 0;
  }
  if (g->failed) return 0;
  if (n == 0 || (!x->changed && x->dropped == 0)) {
    sp__mig_section(g, from, n, 0, "walk to another agent",
                    "walks to another agent", "");
    return 1;
  }
  size_t count_at = g->o.len;
  uint32_t kept = 0, ended = 0;
  sp__save_out(&g->o, 0, 4);
  for (const uint8_t *p = g->p + from + 4; p < g->p + g->at;) {
    size_t bytes = 24u + 4u * p[18];
    uint32_t i = (uint32_t)sp_save_get(p, 4);
    if (i < agents && x->walk[i] == WALKED) {
      ended++;
    } else {
      sp__save_out_bytes(&g->o, p, bytes);
      kept++;
    }
    p += bytes;
  }
  if (!g->o.oom) sp_save_put(g->o.p + count_at, kept, 4);
  if (kept > 0)
    sp__mig_say(g, "%u walk%s to another agent kept (the same target agent)",
                kept, kept == 1 ? "" : "s");
  if (ended > 0)
    sp__mig_say(g,
                "%u walk%s to another agent dropped: the walker's plan was "
                "dropped (it replans)",
                ended, ended == 1 ? "" : "s");
  return 1;
}

/* The agents' own goal priorities (format 8): copied when the crowd did
 * not change, else dropped (its goals may have moved). */
static int mig_own(Mig *g, const Maps *x) {
  size_t from = g->at;
  uint32_t n = g->version >= 8 ? (uint32_t)sp__mig_get(g, 4) : 0;
  if (g->failed || sp__mig_take(g, 12u * (size_t)n) == NULL) return 0;
  sp__mig_section(g, from, n, x->changed, "own goal priority",
                  "own goal priorities", "dropped");
  return 1;
}

/* The ties' and sensors' part: kept when this crowd has as many, else
 * this crowd's own (a tie's value past its fact's values takes the
 * fact's now). */
static int mig_ties(Mig *g, const SpCrowd *c) {
  unsigned n = (unsigned)sp__mig_get(g, 1);
  const uint8_t *v = sp__mig_take(g, n);
  if (v == NULL) return 0;
  sp__save_out(&g->o, (uint64_t)c->tie_count, 1);
  for (int k = 0; k < c->tie_count; k++) {
    int fact = c->ties[k].fact, old = (unsigned)k < n ? v[k] : -1;
    int ok = n == (unsigned)c->tie_count && old < g->w->facts[fact].value_count;
    sp__save_out(&g->o, ok ? (uint64_t)old : c->ties[k].value, 1);
  }
  n = (unsigned)sp__mig_get(g, 1);
  const uint8_t *due = sp__mig_take(g, 8u * n);
  if (due == NULL) return 0;
  sp__save_out(&g->o, (uint64_t)c->sensor_count, 1);
  for (int k = 0; k < c->sensor_count; k++) {
    uint64_t bits;
    memcpy(&bits, &c->sensor_due[k], sizeof bits);
    sp__save_out(
        &g->o,
        n == (unsigned)c->sensor_count ? sp_save_get(due + 8 * k, 8) : bits, 8);
  }
  return 1;
}

static int crowd_body(Mig *g, Maps *x, const SpCrowd *c) {
  uint64_t dom = sp__mig_get(g, 8), setup = sp__mig_get(g, 8),
           n = sp__mig_get(g, 8);
  const uint8_t *clock = sp__mig_take(g, 9); /* the clock, the selector */
  if (g->failed) return 0;
  if (n != x->old->agents)
    return sp__mig_fail(g, "%llu agents saved, its names say %llu",
                        (unsigned long long)n,
                        (unsigned long long)x->old->agents);
  if (n > c->capacity)
    return sp__mig_fail(g, "%llu agents saved, the capacity is %zu",
                        (unsigned long long)n, c->capacity);
  if (setup != sp__save_setup_print(c, g->version) ||
      dom != sp__save_domain_print(c->domain)) {
    if (!x->changed)
      sp__mig_say(g, "options (seed, speed, cooldown, retry, movement), ties "
                     "or sensors changed");
    x->changed = 1;
  }
  sp__save_out(&g->o, sp__save_domain_print(c->domain), 8);
  sp__save_out(&g->o, sp__save_setup_print(c, SP_SAVE_VERSION), 8);
  sp__save_out(&g->o, n, 8);
  sp__save_out_bytes(&g->o, clock, 9);
  if (!mig_goals(g, x)) return 0;
  const uint8_t *counters = sp__mig_take(g, 8 * SAVE_COUNTERS);
  uint32_t words = (uint32_t)sp__mig_get(g, 4);
  if (g->failed) return 0;
  if (words > (SP_CROWD_MAX_GOALS + 31) / 32)
    return sp__mig_fail(g, "%u refusal words", words);
  sp__save_out_bytes(&g->o, counters, 8 * SAVE_COUNTERS);
  sp__save_out(&g->o, words, 4);
  Tally t = {0, 0, 0};
  x->walk_bytes = (size_t)n + 1;
  x->walk = sp__mem_alloc(g->w->alloc, x->walk_bytes);
  if (x->walk == NULL) {
    g->failed = 1;
    sp__error_memory(g->err);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    if (!mig_agent(g, x, i, words, &t)) return 0;
  if (!gone_values(g, x)) return 0;
  if (t.dropped > 0)
    sp__mig_say(g, "%zu agent%s dropped %s plan and replan%s (migrated)",
                t.dropped, t.dropped == 1 ? "" : "s",
                t.dropped == 1 ? "its" : "their", t.dropped == 1 ? "s" : "");
  if (t.idle > 0)
    sp__mig_say(g, "%zu idle agent%s look%s for a goal again", t.idle,
                t.idle == 1 ? "" : "s", t.idle == 1 ? "s" : "");
  if (t.homes > 0)
    sp__mig_say(g, "%zu agent%s lost %s home (its place is gone)", t.homes,
                t.homes == 1 ? "" : "s", t.homes == 1 ? "its" : "their");
  /* one verdict: "unchanged" only when nothing was said of the crowd */
  if (!x->changed && g->said == x->said) sp__mig_say(g, "unchanged");
  if (x->changed || x->dropped > 0) g->changed = 1;
  uint32_t free = (uint32_t)sp__mig_get(g, 4);
  if (!g->failed && free > n)
    return sp__mig_fail(g, "%u despawned slots of %llu", free,
                        (unsigned long long)n);
  const uint8_t *slots = sp__mig_take(g, 4u * (size_t)free);
  if (slots == NULL) return 0;
  sp__save_out(&g->o, free, 4);
  sp__save_out_bytes(&g->o, slots, 4u * (size_t)free);
  return mig_ties(g, c) && mig_chases(g, x, (size_t)n) && mig_own(g, x);
}

int sp__mig_crowd(Mig *g, size_t k) {
  const SpCrowd *c = g->crowds[k];
  Maps x;
  memset(&x, 0, sizeof x);
  g->crowd = (int)k + 1;
  x.said = g->said;
  int ok = build_maps(g, &x, c, &g->old.crowd[k]) && crowd_body(g, &x, c);
  if (x.mem != NULL) sp__mem_free(g->w->alloc, x.mem, x.bytes);
  if (x.walk != NULL) sp__mem_free(g->w->alloc, x.walk, x.walk_bytes);
  g->crowd = 0;
  return ok;
}
