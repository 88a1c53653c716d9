/* validate.c: checks a domain description before it is compiled. */
#include <stdint.h>
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_validate.h"

typedef const char *(*NameAt)(const void *ctx, int i);

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a: short names, compile time only */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

/* Finds two equal names among n (via a scratch open-addressing table).
 * On a duplicate sets *first < *second; otherwise both -1. */
static SpStatus find_duplicate(SpAllocator alloc, const void *ctx, NameAt at,
                               int n, int *first, int *second) {
  *first = *second = -1;
  if (n < 2) return SP_OK;
  size_t cap = 4;
  while (cap < (size_t)n * 2) cap *= 2;
  int *slots = sp__mem_alloc(alloc, cap * sizeof *slots);
  if (slots == NULL) return SP_ERR_MEMORY;
  for (size_t k = 0; k < cap; k++) slots[k] = -1;
  for (int i = 0; i < n && *first < 0; i++) {
    const char *name = at(ctx, i);
    size_t k = name_hash(name) & (cap - 1);
    while (slots[k] >= 0) {
      if (strcmp(at(ctx, slots[k]), name) == 0) {
        *first = slots[k];
        *second = i;
        break;
      }
      k = (k + 1) & (cap - 1);
    }
    slots[k] = i;
  }
  sp__mem_free(alloc, slots, cap * sizeof *slots);
  return SP_OK;
}

static const char *variable_name_at(const void *ctx, int i) {
  return ((const SpDomainSpec *)ctx)->variables[i].name;
}
static const char *action_name_at(const void *ctx, int i) {
  return ((const SpDomainSpec *)ctx)->actions[i].name;
}
static const char *value_name_at(const void *ctx, int i) {
  return ((const SpVariableSpec *)ctx)->value_names[i];
}

static int bad_name(const char *s) { return s == NULL || s[0] == '\0'; }

static SpStatus check_variables(const SpDomainSpec *spec, SpAllocator alloc,
                                SpError *err) {
  for (int v = 0; v < spec->variable_count; v++) {
    const SpVariableSpec *var = &spec->variables[v];
    err->variable = v;
    if (bad_name(var->name))
      return sp__error_set(err, SP_ERR_INVALID, SP_E_EMPTY_NAME, SP_FIELD_NAME,
                           "variables[%d]: missing or empty name", v + 1);
    if (strlen(var->name) > SP_MAX_NAME)
      return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NAME,
                           "variables[%d]: name longer than %d characters",
                           v + 1, SP_MAX_NAME);
    /* one value could never change: the header, Lua and the core agree */
    if (var->value_count < 2 || var->value_names == NULL)
      return sp__error_set(
          err, SP_ERR_INVALID, SP_E_NO_VALUES, SP_FIELD_VALUES,
          "variables[%d] '%s': %d value%s, expected at least 2", v + 1,
          var->name, var->value_count, var->value_count == 1 ? "" : "s");
    if (var->value_count > SP_MAX_VALUES)
      return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_VALUES,
                           "variables[%d] '%s': %d values, the limit is %d "
                           "(the byte %d is kept for SP_ANY in goals)",
                           v + 1, var->name, var->value_count, SP_MAX_VALUES,
                           (int)SP_ANY);
    for (int k = 0; k < var->value_count; k++) {
      const char *vn = var->value_names[k];
      err->index = k;
      if (bad_name(vn))
        return sp__error_set(err, SP_ERR_INVALID, SP_E_EMPTY_NAME,
                             SP_FIELD_VALUES,
                             "variables[%d] '%s': value %d has no name", v + 1,
                             var->name, k + 1);
      if (strlen(vn) > SP_MAX_NAME)
        return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_VALUES,
                             "variables[%d] '%s': value %d name longer than %d "
                             "characters",
                             v + 1, var->name, k + 1, SP_MAX_NAME);
    }
    int a, b;
    if (find_duplicate(alloc, var, value_name_at, var->value_count, &a, &b))
      return sp__error_memory(err);
    if (a >= 0) {
      err->index = b;
      err->value = b;
      return sp__error_set(err, SP_ERR_INVALID, SP_E_DUPLICATE_VALUE,
                           SP_FIELD_VALUES,
                           "variables[%d] '%s': value '%s' is listed twice "
                           "(values %d and %d)",
                           v + 1, var->name, var->value_names[a], a + 1, b + 1);
    }
    err->index = -1;
  }
  err->variable = -1;
  int a, b;
  if (find_duplicate(alloc, spec, variable_name_at, spec->variable_count, &a,
                     &b))
    return sp__error_memory(err);
  if (a >= 0) {
    err->variable = b;
    return sp__error_set(err, SP_ERR_INVALID, SP_E_DUPLICATE_VARIABLE,
                         SP_FIELD_NAME,
                         "variables[%d]: name '%s' is already used by "
                         "variables[%d]",
                         b + 1, spec->variables[a].name, a + 1);
  }
  return SP_OK;
}

/* Checks one value index against its variable and reports it in `field`. */
static SpStatus check_value(const SpDomainSpec *spec, int i, int var, int value,
                            SpField field, const char *what, SpError *err) {
  const SpVariableSpec *vs = &spec->variables[var];
  if (value >= 0 && value < vs->value_count) return SP_OK;
  err->variable = var;
  err->value = value;
  return sp__error_set(err, SP_ERR_INVALID, SP_E_VALUE_RANGE, field,
                       "actions[%d] '%s': %s %d is out of range for '%s' "
                       "(%d values)",
                       i + 1, spec->actions[i].name, what, value, vs->name,
                       vs->value_count);
}

static SpStatus check_prevails(const SpDomainSpec *spec, int i,
                               unsigned char *seen, SpError *err) {
  const SpActionSpec *act = &spec->actions[i];
  if (act->prevail_count < 0 ||
      (act->prevail_count > 0 && act->prevails == NULL))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_PREVAIL,
                         "actions[%d] '%s': bad prevail count %d", i + 1,
                         act->name, act->prevail_count);
  SpStatus st = SP_OK;
  int k;
  for (k = 0; k < act->prevail_count && st == SP_OK; k++) {
    SpCondition c = act->prevails[k];
    err->index = k;
    if (c.variable < 0 || c.variable >= spec->variable_count) {
      err->variable = c.variable;
      st = sp__error_set(
          err, SP_ERR_INVALID, SP_E_UNKNOWN_VARIABLE, SP_FIELD_PREVAIL,
          "actions[%d] '%s': prevail %d names variable %d, "
          "there are %d",
          i + 1, act->name, k + 1, c.variable, spec->variable_count);
      break;
    }
    if (c.variable == act->variable) {
      err->variable = c.variable;
      err->value = c.value;
      st = sp__error_set(err, SP_ERR_INVALID, SP_E_PREVAIL_OWN_VAR,
                         SP_FIELD_PREVAIL,
                         "actions[%d] '%s': prevail on its own variable '%s' "
                         "(an action changes one variable and may only "
                         "require others)",
                         i + 1, act->name, spec->variables[c.variable].name);
      break;
    }
    st = check_value(spec, i, c.variable, c.value, SP_FIELD_PREVAIL,
                     "prevail value", err);
    if (st != SP_OK) break;
    if (seen[c.variable]) {
      err->variable = c.variable;
      st = sp__error_set(err, SP_ERR_INVALID, SP_E_PREVAIL_TWICE,
                         SP_FIELD_PREVAIL,
                         "actions[%d] '%s': two prevails on variable '%s'",
                         i + 1, act->name, spec->variables[c.variable].name);
      break;
    }
    seen[c.variable] = 1;
  }
  /* leave `seen` all zero for the next action */
  for (int j = 0; j < k && j < act->prevail_count; j++) {
    int v = act->prevails[j].variable;
    if (v >= 0 && v < spec->variable_count) seen[v] = 0;
  }
  if (st == SP_OK) err->index = -1;
  return st;
}

static SpStatus check_action(const SpDomainSpec *spec, int i,
                             unsigned char *seen, SpError *err) {
  const SpActionSpec *act = &spec->actions[i];
  err->action = i;
  if (bad_name(act->name))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_EMPTY_NAME, SP_FIELD_NAME,
                         "actions[%d]: missing or empty name", i + 1);
  if (strlen(act->name) > SP_MAX_NAME)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NAME,
                         "actions[%d]: name longer than %d characters", i + 1,
                         SP_MAX_NAME);
  if (act->variable < 0 || act->variable >= spec->variable_count) {
    err->variable = act->variable;
    return sp__error_set(err, SP_ERR_INVALID, SP_E_UNKNOWN_VARIABLE,
                         SP_FIELD_VAR,
                         "actions[%d] '%s': variable %d does not exist "
                         "(there are %d)",
                         i + 1, act->name, act->variable, spec->variable_count);
  }
  SpStatus st =
      check_value(spec, i, act->variable, act->pre, SP_FIELD_PRE, "pre", err);
  if (st == SP_OK)
    st = check_value(spec, i, act->variable, act->post, SP_FIELD_POST, "post",
                     err);
  if (st != SP_OK) return st;
  if (act->pre == act->post) {
    const SpVariableSpec *vs = &spec->variables[act->variable];
    err->variable = act->variable;
    err->value = act->post;
    return sp__error_set(
        err, SP_ERR_INVALID, SP_E_PRE_EQUALS_POST, SP_FIELD_POST,
        "actions[%d] '%s': pre and post are both '%s' (an "
        "action must change '%s')",
        i + 1, act->name, vs->value_names[act->post], vs->name);
  }
  return check_prevails(spec, i, seen, err);
}

/* Two actions setting one variable to one value break post-uniqueness:
 * the setter table (one slot per value) finds them in one pass. */
static SpStatus check_post_unique(const SpDomainSpec *spec, SpAllocator alloc,
                                  SpError *err) {
  size_t total = 0;
  for (int v = 0; v < spec->variable_count; v++)
    total += (size_t)spec->variables[v].value_count;
  size_t *base =
      sp__mem_alloc(alloc, (size_t)spec->variable_count * sizeof *base);
  int *setter = sp__mem_alloc(alloc, total * sizeof *setter);
  SpStatus st = SP_OK;
  if (base == NULL || setter == NULL) {
    st = sp__error_memory(err);
    goto done;
  }
  size_t acc = 0;
  for (int v = 0; v < spec->variable_count; v++) {
    base[v] = acc;
    acc += (size_t)spec->variables[v].value_count;
  }
  for (size_t k = 0; k < total; k++) setter[k] = -1;
  for (int i = 0; i < spec->action_count; i++) {
    const SpActionSpec *act = &spec->actions[i];
    size_t slot = base[act->variable] + (size_t)act->post;
    if (setter[slot] >= 0) {
      const SpVariableSpec *vs = &spec->variables[act->variable];
      int first = setter[slot];
      err->action = i;
      err->other_action = first;
      err->variable = act->variable;
      err->value = act->post;
      st = sp__error_set(err, SP_ERR_INVALID, SP_E_POST_NOT_UNIQUE,
                         SP_FIELD_POST,
                         "actions[%d] '%s': post '%s' of '%s' is already set "
                         "by actions[%d] '%s' (post-uniqueness: one action "
                         "per value)",
                         i + 1, act->name, vs->value_names[act->post], vs->name,
                         first + 1, spec->actions[first].name);
      goto done;
    }
    setter[slot] = i;
  }
done:
  sp__mem_free(alloc, setter, total * sizeof *setter);
  sp__mem_free(alloc, base, (size_t)spec->variable_count * sizeof *base);
  return st;
}

SpStatus sp__spec_validate(const SpDomainSpec *spec, SpAllocator alloc,
                           SpError *err) {
  if (spec->variable_count < 1 || spec->variables == NULL)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NO_VALUES, SP_FIELD_NONE,
                         "the domain has no variables");
  if (spec->variable_count > SP_MAX_VARIABLES)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "%d variables, the limit is %d", spec->variable_count,
                         SP_MAX_VARIABLES);
  if (spec->action_count < 0 || spec->action_count > SP_MAX_ACTIONS ||
      (spec->action_count > 0 && spec->actions == NULL))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "%d actions, the limit is %d", spec->action_count,
                         SP_MAX_ACTIONS);
  if (spec->name != NULL && strlen(spec->name) > SP_MAX_NAME)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NAME,
                         "domain name longer than %d characters", SP_MAX_NAME);
  SpStatus st = check_variables(spec, alloc, err);
  if (st != SP_OK) return st;

  unsigned char *seen = sp__mem_alloc(alloc, (size_t)spec->variable_count);
  if (seen == NULL) return sp__error_memory(err);
  memset(seen, 0, (size_t)spec->variable_count);
  long prevails = 0;
  for (int i = 0; i < spec->action_count && st == SP_OK; i++) {
    st = check_action(spec, i, seen, err);
    prevails += spec->actions[i].prevail_count;
  }
  sp__mem_free(alloc, seen, (size_t)spec->variable_count);
  if (st != SP_OK) return st;
  err->action = -1;
  if (prevails > SP_MAX_PREVAILS)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_PREVAIL,
                         "%ld prevail-conditions, the limit is %d", prevails,
                         SP_MAX_PREVAILS);
  int a, b;
  if (find_duplicate(alloc, spec, action_name_at, spec->action_count, &a, &b))
    return sp__error_memory(err);
  if (a >= 0) {
    err->action = b;
    err->other_action = a;
    return sp__error_set(err, SP_ERR_INVALID, SP_E_DUPLICATE_ACTION,
                         SP_FIELD_NAME,
                         "actions[%d]: name '%s' is already used by "
                         "actions[%d]",
                         b + 1, spec->actions[a].name, a + 1);
  }
  return check_post_unique(spec, alloc, err);
}
