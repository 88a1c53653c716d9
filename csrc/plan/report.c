/* report.c: readable failure reasons, and replaying a plan on a state. */
#include <stdio.h>

#include "sp_internal.h"

static const char *action_or_goal(const SpDomain *d, int a, char *buf,
                                  size_t size) {
  if (a < 0) return "the goal";
  snprintf(buf, size, "action '%s'", sp_action_name(d, a));
  return buf;
}

size_t sp_failure_format(const SpDomain *d, const SpFailure *f, char *buf,
                         size_t size) {
  char who[SP_MAX_NAME + 16], other[SP_MAX_NAME + 16];
  const char *var = f->variable >= 0 ? sp_variable_name(d, f->variable) : "?";
  const char *val = f->variable >= 0 && f->value >= 0
                        ? sp_value_name(d, f->variable, f->value)
                        : "?";
  int n = 0;
  switch (f->code) {
  case SP_FAIL_NONE: n = snprintf(buf, size, "no failure"); break;
  case SP_FAIL_NO_SETTER:
    n = snprintf(buf, size, "%s needs %s = %s, but no action sets %s to %s",
                 action_or_goal(d, f->action, who, sizeof who), var, val, var,
                 val);
    break;
  case SP_FAIL_UNREACHABLE:
    if (f->free_variable) /* no goal value of var to speak of */
      n = snprintf(buf, size,
                   "%s needs %s = %s, which cannot be reached from the start "
                   "value of %s along with the other values asked of it (the "
                   "goal leaves %s free)",
                   action_or_goal(d, f->action, who, sizeof who), var, val, var,
                   var);
    else
      n = snprintf(buf, size,
                   "%s needs %s = %s, which cannot be reached from the start "
                   "value on the way to the goal value of %s",
                   action_or_goal(d, f->action, who, sizeof who), var, val,
                   var);
    break;
  case SP_FAIL_REPEAT:
    n = snprintf(buf, size,
                 "action '%s' would be needed twice: %s needs %s = %s, which "
                 "only a second pass round the cycle of %s gives",
                 sp_action_name(d, f->action),
                 f->other_action >= 0
                     ? action_or_goal(d, f->other_action, other, sizeof other)
                     : "the goal",
                 var, val, var);
    break;
  case SP_FAIL_ORDER:
    if (f->action >= 0 && f->other_action >= 0 && f->value >= 0)
      n = snprintf(buf, size,
                   "no order works: action '%s' needs %s = %s both before "
                   "'%s' leaves it and after it is restored",
                   sp_action_name(d, f->action), var, val,
                   sp_action_name(d, f->other_action));
    else if (f->action >= 0 && f->other_action >= 0)
      n = snprintf(buf, size,
                   "no order works: actions '%s' and '%s' each need the other "
                   "to come first (through their prevail-conditions)",
                   sp_action_name(d, f->other_action),
                   sp_action_name(d, f->action));
    else
      n = snprintf(buf, size, "no order works: the plan's orders form a cycle");
    break;
  }
  /* other reasons about a free variable say so too (UNREACHABLE did) */
  if (n >= 0 && f->free_variable && f->variable >= 0 &&
      f->code != SP_FAIL_UNREACHABLE) {
    size_t at = (size_t)n < size ? (size_t)n : (size > 0 ? size - 1 : 0);
    int m = snprintf(size > 0 ? buf + at : buf, size > at ? size - at : 0,
                     " (the goal leaves %s free)", var);
    n = m < 0 ? m : n + m;
  }
  return n < 0 ? 0 : (size_t)n;
}

int sp_plan_replay(const SpDomain *d, SpValue *state, const uint16_t *plan,
                   int len) {
  const SpActionInfo *actions = sp_actions(d);
  const SpPrevail *prevails = sp_prevails(d);
  for (int i = 0; i < len; i++) {
    if (plan[i] >= d->action_count) return i;
    const SpActionInfo *a = &actions[plan[i]];
    if (state[a->variable] != a->pre) return i;
    for (uint32_t k = 0; k < a->prevail_count; k++) {
      const SpPrevail *c = &prevails[a->prevail_base + k];
      if (state[c->variable] != c->value) return i;
    }
    state[a->variable] = a->post;
  }
  return -1;
}
