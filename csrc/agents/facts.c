/* facts.c: world facts stated once and the crowds' variables tied to them: who hears of a change, without a sweep of every agent. */
#include <string.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_facts.h"
#include "sp_goals.h"
#include "sp_error.h"
#include "sp_internal.h"

/* ------------------------------------------------------------------ */
/* The world's facts                                                  */
/* ------------------------------------------------------------------ */

static char *copy_name(SpAllocator a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = sp__mem_alloc(a, n);
  if (p != NULL) memcpy(p, s, n);
  return p;
}

static void free_name(SpAllocator a, char *s) {
  if (s != NULL) sp__mem_free(a, s, strlen(s) + 1);
}

static void fact_free(SpAllocator a, Fact *f) {
  free_name(a, f->name);
  if (f->values != NULL) {
    for (int v = 0; v < f->value_count; v++) free_name(a, f->values[v]);
    sp__mem_free(a, f->values, (size_t)f->value_count * sizeof(char *));
  }
}

void sp__world_facts_free(SpWorld *w) {
  for (int k = 0; k < w->fact_count; k++) fact_free(w->alloc, &w->facts[k]);
  if (w->facts != NULL)
    sp__mem_free(w->alloc, w->facts, (size_t)w->fact_cap * sizeof(Fact));
}

int sp_world_fact_count(const SpWorld *w) { return w->fact_count; }

int sp_world_find_fact(const SpWorld *w, const char *name) {
  for (int k = 0; k < w->fact_count; k++)
    if (strcmp(w->facts[k].name, name) == 0) return k;
  return -1;
}

static int fact_ok(const SpWorld *w, int fact) {
  return fact >= 0 && fact < w->fact_count;
}

const char *sp_world_fact_name(const SpWorld *w, int fact) {
  return fact_ok(w, fact) ? w->facts[fact].name : NULL;
}

int sp_world_fact_value_count(const SpWorld *w, int fact) {
  return fact_ok(w, fact) ? w->facts[fact].value_count : 0;
}

const char *sp_world_fact_value_name(const SpWorld *w, int fact, int value) {
  if (!fact_ok(w, fact) || value < 0 || value >= w->facts[fact].value_count)
    return NULL;
  return w->facts[fact].values[value];
}

int sp_world_get_fact(const SpWorld *w, int fact) {
  return fact_ok(w, fact) ? w->facts[fact].value : -1;
}

SpStatus sp_world_set_fact(SpWorld *w, int fact, int value, SpError *err) {
  sp__error_clear(err);
  if (!fact_ok(w, fact))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: fact %d does not exist (%d facts)", fact,
                         w->fact_count);
  const Fact *f = &w->facts[fact];
  if (value < 0 || value >= f->value_count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: fact '%s': value %d is out of range (%d "
                         "values)",
                         f->name, value, f->value_count);
  w->facts[fact].value = value;
  return SP_OK;
}

static SpStatus check_fact(const SpWorld *w, const char *name,
                           const char *const *values, int count, int value,
                           SpError *err) {
  if (name == NULL || name[0] == '\0')
    return sp__error_set(err, SP_ERR_INVALID, SP_E_EMPTY_NAME, SP_FIELD_NAME,
                         "world: a fact needs a name");
  if (sp_world_find_fact(w, name) >= 0)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NAME,
                         "world: fact '%s' exists already", name);
  if (count < 2 || count > 255)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: fact '%s': %d values (2 to 255)", name, count);
  for (int v = 0; v < count; v++) {
    if (values[v] == NULL || values[v][0] == '\0')
      return sp__error_set(err, SP_ERR_INVALID, SP_E_EMPTY_NAME, SP_FIELD_NONE,
                           "world: fact '%s': value %d has no name", name,
                           v + 1);
    for (int u = 0; u < v; u++)
      if (strcmp(values[u], values[v]) == 0)
        return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                             "world: fact '%s': value '%s' is named twice",
                             name, values[v]);
  }
  if (value < 0 || value >= count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: fact '%s': value %d is out of range (%d "
                         "values)",
                         name, value, count);
  return SP_OK;
}

SpStatus sp_world_add_fact(SpWorld *w, const char *name,
                           const char *const *values, int count, int value,
                           int *id, SpError *err) {
  sp__error_clear(err);
  SpStatus st = check_fact(w, name, values, count, value, err);
  if (st != SP_OK) return st;
  if (w->fact_count == w->fact_cap) {
    int cap = w->fact_cap < 4 ? 4 : w->fact_cap * 2;
    void *p =
        sp__mem_realloc(w->alloc, w->facts, (size_t)w->fact_cap * sizeof(Fact),
                        (size_t)cap * sizeof(Fact));
    if (p == NULL) return sp__error_memory(err);
    w->facts = p;
    w->fact_cap = cap;
  }
  Fact f = {copy_name(w->alloc, name), NULL, count, value};
  f.values = sp__mem_alloc(w->alloc, (size_t)count * sizeof(char *));
  int ok = f.name != NULL && f.values != NULL;
  if (f.values != NULL) memset(f.values, 0, (size_t)count * sizeof(char *));
  for (int v = 0; ok && v < count; v++)
    ok = (f.values[v] = copy_name(w->alloc, values[v])) != NULL;
  if (!ok) {
    fact_free(w->alloc, &f); /* the names made so far; NULL ones are skipped */
    return sp__error_memory(err);
  }
  w->facts[w->fact_count] = f;
  if (id != NULL) *id = w->fact_count;
  w->fact_count++;
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* Ties                                                               */
/* ------------------------------------------------------------------ */

void sp__facts_free(SpCrowd *c) {
  if (c->reads != NULL) sp__mem_free(c->alloc, c->reads, c->capacity + 1);
  if (c->chunk_reads != NULL)
    sp__mem_free(c->alloc, c->chunk_reads,
                 (c->chunk_count + 1) * sizeof(uint32_t));
  if (c->act_reads != NULL)
    sp__mem_free(c->alloc, c->act_reads, (size_t)c->action_count + 1);
  c->reads = c->act_reads = NULL;
  c->chunk_reads = NULL;
}

int sp__facts_tie_of(const SpCrowd *c, int var) {
  for (int k = 0; k < c->tie_count; k++)
    if (c->ties[k].var == var) return k;
  return -1;
}

static SpStatus tie_error(SpError *err, const char *fact, const char *var,
                          const char *what) {
  return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                       "crowd: fact '%s' tied to variable '%s': %s", fact, var,
                       what);
}

/* The variable's values are the fact's, by name and order; no action
 * changes it. */
static SpStatus check_tie(const SpCrowd *c, int fact, int var, SpError *err) {
  const SpWorld *w = c->world;
  const SpDomain *d = c->domain;
  const char *fname = w->facts[fact].name, *vname = sp_variable_name(d, var);
  int nv = sp_variable_value_count(d, var),
      same = nv == w->facts[fact].value_count;
  for (int x = 0; same && x < nv; x++)
    same = strcmp(sp_value_name(d, var, x), w->facts[fact].values[x]) == 0;
  if (!same)
    return tie_error(err, fname, vname,
                     "its values differ from the fact's (name and order)");
  for (int a = 0; a < c->action_count; a++)
    if (sp_action_variable(d, a) == var) {
      sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                    "crowd: fact '%s' tied to variable '%s': action '%s' "
                    "changes it (only the world sets a fact)",
                    fname, vname, sp_action_name(d, a));
      return SP_ERR_INVALID;
    }
  if (c->n > 0)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: fact '%s': tie it before the first spawn",
                         fname);
  if (c->tie_count >= SP_CROWD_MAX_FACTS)
    return tie_error(err, fname, vname, "too many ties (SP_CROWD_MAX_FACTS)");
  for (int k = 0; k < c->tie_count; k++)
    if (c->ties[k].fact == fact || c->ties[k].var == var)
      return tie_error(err, fname, vname,
                       "the fact or the variable is tied already");
  return SP_OK;
}

SpStatus sp_crowd_tie_fact(SpCrowd *c, int fact, int var, SpError *err) {
  sp__error_clear(err);
  if (!fact_ok(c->world, fact))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: fact %d does not exist (%d facts)", fact,
                         c->world->fact_count);
  if (var < 0 || var >= c->m)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: variable %d does not exist (%d variables)",
                         var, c->m);
  SpStatus st = check_tie(c, fact, var, err);
  if (st != SP_OK) return st;
  if (c->reads == NULL) {
    c->reads = sp__mem_alloc(c->alloc, c->capacity + 1);
    c->chunk_reads =
        sp__mem_alloc(c->alloc, (c->chunk_count + 1) * sizeof(uint32_t));
    c->act_reads = sp__mem_alloc(c->alloc, (size_t)c->action_count + 1);
    if (c->reads == NULL || c->chunk_reads == NULL || c->act_reads == NULL) {
      sp__facts_free(c);
      return sp__error_memory(err);
    }
    memset(c->reads, 0, c->capacity + 1);
    memset(c->chunk_reads, 0, (c->chunk_count + 1) * sizeof(uint32_t));
    memset(c->act_reads, 0, (size_t)c->action_count + 1);
  }
  int k = c->tie_count++;
  c->ties[k].fact = fact;
  c->ties[k].var = var;
  c->ties[k].value = (uint8_t)c->world->facts[fact].value;
  for (int a = 0; a < c->action_count; a++) {
    int np = sp_action_prevail_count(c->domain, a);
    for (int j = 0; j < np; j++)
      if (sp_action_prevail(c->domain, a, j).variable == var)
        c->act_reads[a] |= (uint8_t)(1u << k);
  }
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* Who reads a tie                                                    */
/* ------------------------------------------------------------------ */

/* The ties the agent's plan reads, kept per agent with a count per
 * chunk. A worker calls this for agents of its own chunks only. */
static void set_reads(SpCrowd *c, size_t i, uint8_t mask) {
  uint8_t old = c->reads[i];
  if (old == mask) return;
  uint32_t *count = &c->chunk_reads[i / SP_CROWD_CHUNK];
  if (old == 0)
    (*count)++;
  else if (mask == 0)
    (*count)--;
  c->reads[i] = mask;
}

static uint8_t plan_reads(SpCrowd *c, size_t i, uint16_t *buf) {
  if (!(c->agents[i].flags & F_HAS_PLAN) || c->agents[i].phase == SP_PHASE_FREE)
    return 0;
  int len = 0;
  if (sp_population_plan_of(c->pop, i, buf, &len) != SP_OK) return 0;
  uint8_t mask = 0;
  for (int k = 0; k < len; k++) mask |= c->act_reads[buf[k]];
  return mask;
}

void sp__facts_plan_taken(SpCrowd *c, size_t i, uint16_t *buf) {
  if (c->reads == NULL) return;
  set_reads(c, i, plan_reads(c, i, buf));
}

/* 1 when some goal's condition or `when` reads variable var. */
static int goals_read(const SpCrowd *c, int var) {
  for (int g = 0; g < c->goal_count; g++)
    if (sp__goal_reads_var(c, g, var) || c->goals[g].when[var] != SP_ANY)
      return 1;
  return 0;
}

/* One tie's change: the agents whose plan reads it (found through the
 * chunk counts), then the idle ones when a goal reads it. */
static void apply_tie(SpCrowd *c, int k, SpChanged changed) {
  uint8_t bit = (uint8_t)(1u << k);
  uint16_t *buf = c->cw[0].plan;
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  for (size_t t = 0; t < chunks; t++) {
    if (c->chunk_reads[t] == 0) continue;
    size_t lo = t * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
    if (hi > c->n) hi = c->n;
    for (size_t i = lo; i < hi; i++) {
      if (!(c->reads[i] & bit)) continue;
      set_reads(c, i, plan_reads(c, i, buf)); /* a plan dropped since */
      if (!(c->reads[i] & bit)) continue;
      sp_facts_sync(c, i);
      changed(c, i);
    }
  }
  if (!goals_read(c, c->ties[k].var)) return;
  for (size_t i = 0; i < c->n; i++) {
    if (c->agents[i].phase != SP_PHASE_IDLE) continue;
    sp_facts_sync(c, i);
    changed(c, i);
  }
}

void sp__facts_apply(SpCrowd *c, SpChanged changed) {
  for (int k = 0; k < c->tie_count; k++) {
    int v = c->world->facts[c->ties[k].fact].value;
    if (v == c->ties[k].value) continue;
    c->ties[k].value = (uint8_t)v;
    apply_tie(c, k, changed);
  }
}

void sp__facts_reload(SpCrowd *c) {
  if (c->reads == NULL) return;
  memset(c->reads, 0, c->capacity + 1);
  memset(c->chunk_reads, 0, (c->chunk_count + 1) * sizeof(uint32_t));
  for (size_t i = 0; i < c->n; i++) sp__facts_plan_taken(c, i, c->cw[0].plan);
}
