/* access.c: read-only accessors of a compiled domain (names, actions, setters, cycles). */
#include "sp_internal.h"

const char *sp_domain_name(const SpDomain *d) { return sp_names(d) + d->name; }
int sp_domain_variable_count(const SpDomain *d) { return d->variable_count; }
int sp_domain_action_count(const SpDomain *d) { return d->action_count; }
size_t sp_domain_size_bytes(const SpDomain *d) { return d->size; }
SpClass sp_domain_class(const SpDomain *d) { return d->class_; }

const char *sp_variable_name(const SpDomain *d, int var) {
  return sp_names(d) + sp_vars(d)[var].name;
}
int sp_variable_value_count(const SpDomain *d, int var) {
  return sp_vars(d)[var].value_count;
}
const char *sp_value_name(const SpDomain *d, int var, int value) {
  return sp_names(d) +
         sp_values(d)[sp_vars(d)[var].value_base + (uint32_t)value].name;
}
const char *sp_action_name(const SpDomain *d, int action) {
  return sp_names(d) + sp_actions(d)[action].name;
}
int sp_action_variable(const SpDomain *d, int action) {
  return sp_actions(d)[action].variable;
}
int sp_action_pre(const SpDomain *d, int action) {
  return sp_actions(d)[action].pre;
}
int sp_action_post(const SpDomain *d, int action) {
  return sp_actions(d)[action].post;
}
int sp_action_prevail_count(const SpDomain *d, int action) {
  return sp_actions(d)[action].prevail_count;
}
SpCondition sp_action_prevail(const SpDomain *d, int action, int i) {
  const SpPrevail *p =
      &sp_prevails(d)[sp_actions(d)[action].prevail_base + (uint32_t)i];
  SpCondition c = {p->variable, p->value};
  return c;
}
int sp_domain_setter(const SpDomain *d, int var, int value) {
  uint16_t a =
      sp_values(d)[sp_vars(d)[var].value_base + (uint32_t)value].setter;
  return a == SP_NONE16 ? -1 : (int)a;
}
int sp_action_is_requestable(const SpDomain *d, int action) {
  return sp_actions(d)[action].requestable;
}
int sp_variable_cycle_count(const SpDomain *d, int var) {
  return sp_vars(d)[var].cycle_count;
}

/* Where cycle number `cycle` of var starts in its cycle table: cycles
 * lie one after the other, each value on one knows its cycle's length. */
static uint32_t cycle_start(const SpDomain *d, int var, int cycle) {
  const SpVarInfo *v = &sp_vars(d)[var];
  const uint16_t *cycles = sp_cycles(d) + v->cycle_base;
  uint32_t at = 0;
  for (int c = 0; c < cycle; c++) {
    const SpActionInfo *a = &sp_actions(d)[cycles[at]];
    at += sp_values(d)[v->value_base + a->post].cycle_length;
  }
  return at;
}

int sp_variable_cycle_length(const SpDomain *d, int var, int cycle) {
  if (cycle < 0 || cycle >= sp_vars(d)[var].cycle_count) return 0;
  const SpVarInfo *v = &sp_vars(d)[var];
  uint16_t a = sp_cycles(d)[v->cycle_base + cycle_start(d, var, cycle)];
  return sp_values(d)[v->value_base + sp_actions(d)[a].post].cycle_length;
}
int sp_variable_cycle_action(const SpDomain *d, int var, int cycle, int i) {
  return sp_cycles(
      d)[sp_vars(d)[var].cycle_base + cycle_start(d, var, cycle) + (uint32_t)i];
}
