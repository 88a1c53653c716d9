/* compile.c: compiles a validated description into one contiguous block (layout, tables, cycles). */
#include <stdio.h>
#include <string.h>

#include "sp_classify.h"
#include "sp_error.h"
#include "sp_internal.h"
#include "sp_validate.h"

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

/* Byte sizes of every table, computed before the single allocation. */
typedef struct Layout {
  size_t vars, values, actions, prevails, requesters, cycles, names, total;
  int value_count, prevail_count;
} Layout;

static size_t name_bytes(const char *s) { return strlen(s) + 1; }

static void layout_compute(const SpDomainSpec *spec, Layout *L) {
  size_t names = name_bytes(spec->name ? spec->name : "");
  int values = 0, prevails = 0;
  for (int v = 0; v < spec->variable_count; v++) {
    const SpVariableSpec *vs = &spec->variables[v];
    names += name_bytes(vs->name);
    for (int k = 0; k < vs->value_count; k++)
      names += name_bytes(vs->value_names[k]);
    values += vs->value_count;
  }
  for (int i = 0; i < spec->action_count; i++) {
    names += name_bytes(spec->actions[i].name);
    prevails += spec->actions[i].prevail_count;
  }
  L->value_count = values;
  L->prevail_count = prevails;
  size_t off = align8(sizeof(SpDomain));
  L->vars = off;
  off += align8((size_t)spec->variable_count * sizeof(SpVarInfo));
  L->values = off;
  off += align8((size_t)values * sizeof(SpValueInfo));
  L->actions = off;
  off += align8((size_t)spec->action_count * sizeof(SpActionInfo));
  L->prevails = off;
  off += align8((size_t)prevails * sizeof(SpPrevail));
  L->requesters = off;
  off += align8((size_t)prevails * sizeof(uint16_t));
  L->cycles = off; /* at most one cycle action per action */
  off += align8((size_t)spec->action_count * sizeof(uint16_t));
  L->names = off;
  off += align8(names);
  L->total = off;
}

/* Appends a string to the name area and returns its offset. */
static uint32_t put_name(SpDomain *d, size_t *cursor, const char *s) {
  size_t n = name_bytes(s);
  uint32_t at = (uint32_t)*cursor;
  memcpy(SP_TABLE(d, char, off_names) + at, s, n);
  *cursor += n;
  return at;
}

static void fill_tables(SpDomain *d, const SpDomainSpec *spec) {
  SpVarInfo *vars = SP_TABLE(d, SpVarInfo, off_vars);
  SpValueInfo *values = SP_TABLE(d, SpValueInfo, off_values);
  SpActionInfo *actions = SP_TABLE(d, SpActionInfo, off_actions);
  SpPrevail *prevails = SP_TABLE(d, SpPrevail, off_prevails);
  uint16_t *requesters = SP_TABLE(d, uint16_t, off_requesters);
  size_t cursor = 0;

  d->name = put_name(d, &cursor, spec->name ? spec->name : "");
  uint32_t base = 0;
  for (int v = 0; v < spec->variable_count; v++) {
    const SpVariableSpec *vs = &spec->variables[v];
    vars[v].value_base = base;
    vars[v].value_count = (uint16_t)vs->value_count;
    vars[v].cycle_base = 0;
    vars[v].cycle_length = 0;
    vars[v].name = put_name(d, &cursor, vs->name);
    for (int k = 0; k < vs->value_count; k++) {
      SpValueInfo *vi = &values[base + (uint32_t)k];
      vi->name = put_name(d, &cursor, vs->value_names[k]);
      vi->setter = SP_NONE16;
      vi->cycle_pos = SP_NONE16;
      vi->cycle_first = SP_NONE16;
      vi->cycle_length = 0;
      vi->requester_base = 0;
      vi->requester_count = 0;
    }
    base += (uint32_t)vs->value_count;
  }

  uint32_t pbase = 0;
  for (int i = 0; i < spec->action_count; i++) {
    const SpActionSpec *as = &spec->actions[i];
    SpActionInfo *ai = &actions[i];
    ai->variable = (uint16_t)as->variable;
    ai->pre = (uint8_t)as->pre;
    ai->post = (uint8_t)as->post;
    ai->prevail_base = pbase;
    ai->prevail_count = (uint16_t)as->prevail_count;
    ai->requestable = 0;
    ai->pad = 0;
    ai->name = put_name(d, &cursor, as->name);
    values[vars[as->variable].value_base + (uint32_t)as->post].setter =
        (uint16_t)i;
    for (int k = 0; k < as->prevail_count; k++) {
      SpPrevail *p = &prevails[pbase + (uint32_t)k];
      p->variable = (uint16_t)as->prevails[k].variable;
      p->value = (uint8_t)as->prevails[k].value;
      p->pad = 0;
      p->value_index = vars[p->variable].value_base + p->value;
      values[p->value_index].requester_count++;
    }
    pbase += (uint32_t)as->prevail_count;
  }

  /* Requester lists per value, in action order (deterministic). */
  uint32_t acc = 0;
  for (int k = 0; k < d->value_count; k++) {
    values[k].requester_base = acc;
    acc += values[k].requester_count;
    values[k].requester_count = 0;
  }
  for (int i = 0; i < spec->action_count; i++) {
    const SpActionInfo *ai = &actions[i];
    for (uint32_t k = 0; k < ai->prevail_count; k++) {
      SpValueInfo *vi = &values[prevails[ai->prevail_base + k].value_index];
      requesters[vi->requester_base + vi->requester_count++] = (uint16_t)i;
      uint16_t setter = vi->setter;
      if (setter != SP_NONE16) actions[setter].requestable = 1;
    }
  }
}

/* Finds Cycle(v) for every variable. Each value has at most one setter,
 * so following value -> pre(setter(value)) is a functional graph with at
 * most one cycle per weakly connected part; `mark` holds the walk id
 * that first visited a value. */
static void find_cycles(SpDomain *d, uint32_t *mark) {
  SpVarInfo *vars = SP_TABLE(d, SpVarInfo, off_vars);
  SpValueInfo *values = SP_TABLE(d, SpValueInfo, off_values);
  const SpActionInfo *actions = sp_actions(d);
  uint16_t *cycles = SP_TABLE(d, uint16_t, off_cycles);
  uint32_t cycle_cursor = 0;

  for (int k = 0; k < d->value_count; k++) mark[k] = 0;
  uint32_t walk = 0;
  for (int v = 0; v < d->variable_count; v++) {
    SpVarInfo *var = &vars[v];
    var->cycle_base = cycle_cursor;
    for (uint32_t start = 0; start < var->value_count; start++) {
      uint32_t x = start;
      walk++;
      while (mark[var->value_base + x] == 0) {
        mark[var->value_base + x] = walk;
        uint16_t a = values[var->value_base + x].setter;
        if (a == SP_NONE16) break;
        x = actions[a].pre;
      }
      if (mark[var->value_base + x] != walk ||
          values[var->value_base + x].setter == SP_NONE16)
        continue; /* reached a ghost or an earlier walk: no new cycle */
      /* x is on a new cycle: collect its actions backwards, then lay
       * them out forwards starting from the lowest action id. */
      uint16_t back[SP_MAX_VALUES];
      int len = 0;
      uint32_t y = x;
      do {
        uint16_t a = values[var->value_base + y].setter;
        back[len++] = a;
        y = actions[a].pre;
      } while (y != x);
      int lowest = 0;
      for (int i = 1; i < len; i++)
        if (back[i] < back[lowest]) lowest = i;
      uint16_t first = var->cycle_length;
      for (int i = 0; i < len; i++) {
        /* forward order is the reverse of the backward walk */
        uint16_t a = back[((lowest - i) % len + len) % len];
        SpValueInfo *vi = &values[var->value_base + actions[a].post];
        cycles[cycle_cursor + (uint32_t)i] = a;
        vi->cycle_pos = (uint16_t)(first + i);
        vi->cycle_first = first;
        vi->cycle_length = (uint16_t)len;
      }
      var->cycle_length = (uint16_t)(var->cycle_length + len);
      var->cycle_count++;
      cycle_cursor += (uint32_t)len;
    }
  }
}

SpStatus sp_domain_compile(const SpDomainSpec *spec,
                           const SpCompileOptions *opts, SpAllocator alloc,
                           SpDomain **out, SpError *err) {
  SpError scratch;
  if (err == NULL) err = &scratch;
  sp__error_clear(err);
  *out = NULL;
  if (spec == NULL)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NO_VALUES, SP_FIELD_NONE,
                         "no domain description");
  SpStatus st = sp__spec_validate(spec, alloc, err);
  if (st != SP_OK) return st;

  Layout L;
  layout_compute(spec, &L);
  SpDomain *d = sp__mem_alloc(alloc, L.total);
  if (d == NULL) return sp__error_memory(err);
  memset(d, 0, L.total);
  d->alloc = alloc;
  d->size = L.total;
  d->variable_count = spec->variable_count;
  d->action_count = spec->action_count;
  d->value_count = L.value_count;
  d->prevail_count = L.prevail_count;
  d->off_vars = L.vars;
  d->off_values = L.values;
  d->off_actions = L.actions;
  d->off_prevails = L.prevails;
  d->off_requesters = L.requesters;
  d->off_cycles = L.cycles;
  d->off_names = L.names;
  fill_tables(d, spec);

  uint32_t *mark = sp__mem_alloc(alloc, (size_t)L.value_count * sizeof *mark);
  if (mark == NULL) {
    sp_domain_free(d);
    return sp__error_memory(err);
  }
  find_cycles(d, mark);
  sp__mem_free(alloc, mark, (size_t)L.value_count * sizeof *mark);

  SpClass cls;
  st = sp__classify(d, alloc, &cls, NULL, 0, NULL);
  if (st != SP_OK) {
    sp_domain_free(d);
    return sp__error_memory(err);
  }
  d->class_ = cls;
  if (cls == SP_CLASS_OUTSIDE && !(opts && opts->allow_outside)) {
    /* the explanation is built only when it is reported */
    char why[SP_ERROR_MESSAGE_SIZE];
    st = sp__classify(d, alloc, &cls, why, sizeof why, NULL);
    sp_domain_free(d);
    if (st != SP_OK) return sp__error_memory(err);
    return sp__error_set(err, SP_ERR_CLASS, SP_E_OUTSIDE_CLASS, SP_FIELD_NONE,
                         "%s", why);
  }
  *out = d;
  return SP_OK;
}

void sp_domain_free(SpDomain *d) {
  if (d == NULL) return;
  sp__mem_free(d->alloc, d, d->size);
}
