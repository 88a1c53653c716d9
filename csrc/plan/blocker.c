/* blocker.c: what blocks a goal without a plan, named in the domain's words (the variable, its value now, the value needed, the missing link). */
#include <stdio.h>
#include <string.h>

#include "sp_internal.h"

/* Scratch: per (variable, value) a queued mark and the action that needs
 * it (SP_NONE16: the goal), and a queue of global value indices. */
size_t sp_blocker_scratch_size(const SpDomain *d) {
  size_t n = (size_t)d->value_count;
  return n * (sizeof(uint32_t) + sizeof(uint16_t) + 1u) + 8u;
}

static int value_index(const SpDomain *d, int v, int x) {
  return (int)sp_vars(d)[v].value_base + x;
}

/* Follows the setter chain back from `needed` toward `current`: 1 when
 * it reaches `current` (each action on it then runs in every plan),
 * otherwise 0 with *end the value where it stops: one no action sets, or
 * `needed` itself when the chain loops without passing `current`. */
static int chain_reaches(const SpDomain *d, int v, int current, int needed,
                         int *end) {
  const SpValueInfo *vals = sp_values(d);
  const SpActionInfo *acts = sp_actions(d);
  int x = needed, steps = 0, count = sp_vars(d)[v].value_count;
  while (x != current) {
    uint16_t a = vals[value_index(d, v, x)].setter;
    if (a == SP_NONE16) {
      *end = x;
      return 0;
    }
    if (++steps > count) {
      *end = needed;
      return 0;
    }
    x = acts[a].pre;
  }
  return 1;
}

/* The variable of global value index k (binary search on value_base). */
static int variable_of(const SpDomain *d, int k) {
  const SpVarInfo *vars = sp_vars(d);
  int lo = 0, hi = d->variable_count - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if ((int)vars[mid].value_base <= k)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Queues (v, x) as needed by `by` (SP_NONE16: the goal) unless it is. */
static void need(const SpDomain *d, uint8_t *queued, uint16_t *needer,
                 uint32_t *queue, int *tail, int v, int x, uint16_t by) {
  int k = value_index(d, v, x);
  if (queued[k]) return;
  queued[k] = 1;
  needer[k] = by;
  queue[(*tail)++] = (uint32_t)k;
}

SpBlockerKind sp_plan_blocker(const SpDomain *d, const SpValue *s0,
                              const SpValue *goal, const SpFailure *failure,
                              void *scratch, SpBlocker *out) {
  const SpVarInfo *vars = sp_vars(d);
  const SpValueInfo *vals = sp_values(d);
  const SpActionInfo *acts = sp_actions(d);
  const SpPrevail *prevails = sp_prevails(d);
  size_t n = (size_t)d->value_count;
  uint32_t *queue = scratch;
  uint16_t *needer = (uint16_t *)(queue + n);
  uint8_t *queued = (uint8_t *)(needer + n);
  int head = 0, tail = 0;
  memset(queued, 0, n);
  memset(out, 0, sizeof *out);
  out->variable = out->current = out->needed = -1;
  out->action = out->link_from = out->link_to = -1;
  if (failure)
    out->failure = *failure;
  else
    out->failure.code = SP_FAIL_NONE;
  /* the goal's own values first, in declaration order, then the prevails
   * they call for in the order found: the first blocker is the nearest */
  for (int v = 0; v < d->variable_count; v++)
    if (goal[v] != SP_ANY && goal[v] < vars[v].value_count)
      need(d, queued, needer, queue, &tail, v, goal[v], SP_NONE16);
  while (head < tail) {
    int k = (int)queue[head++];
    int v = variable_of(d, k);
    int x = k - (int)vars[v].value_base, end;
    if (!chain_reaches(d, v, s0[v], x, &end)) {
      out->kind = end == x && vals[k].setter == SP_NONE16
                      ? SP_BLOCK_NOTHING_SETS
                      : SP_BLOCK_NO_WAY_OUT;
      out->variable = v;
      out->current = s0[v];
      out->needed = x;
      out->action = needer[k] == SP_NONE16 ? -1 : needer[k];
      out->link_from = s0[v];
      out->link_to = end;
      return out->kind;
    }
    /* every action on the chain runs in any plan: its prevails are needed */
    for (int y = x; y != s0[v];) {
      uint16_t a = vals[value_index(d, v, y)].setter;
      for (uint32_t p = 0; p < acts[a].prevail_count; p++) {
        const SpPrevail *c = &prevails[acts[a].prevail_base + p];
        need(d, queued, needer, queue, &tail, c->variable, c->value, a);
      }
      y = acts[a].pre;
    }
  }
  if (!failure || failure->code == SP_FAIL_NONE) return SP_BLOCK_NONE;
  /* each need is reachable alone: the planner's reason is the blocker */
  out->kind = SP_BLOCK_ORDER;
  out->variable = failure->variable;
  out->needed = failure->value;
  out->action = failure->action;
  if (failure->variable >= 0 && failure->variable < d->variable_count)
    out->current = s0[failure->variable];
  return out->kind;
}

/* ---- text -------------------------------------------------------------------- */

/* Counts what one snprintf wrote (or would have). */
static void add(size_t *at, int n) {
  if (n > 0) *at += (size_t)n;
}
#define ROOM(buf, size, at)                                                    \
  ((at) < (size) ? (buf) + (at) : NULL), ((at) < (size) ? (size) - (at) : 0)

size_t sp_blocker_link_format(const SpDomain *d, const SpBlocker *b, char *buf,
                              size_t size) {
  if (size > 0) buf[0] = '\0';
  if (b->link_from < 0 || b->link_to < 0 || b->variable < 0) return 0;
  int n = snprintf(buf, size, "an action setting %s from %s to %s",
                   sp_variable_name(d, b->variable),
                   sp_value_name(d, b->variable, b->link_from),
                   sp_value_name(d, b->variable, b->link_to));
  return n < 0 ? 0 : (size_t)n;
}

/* 1 when some action leaves value x of variable v. */
static int has_way_out(const SpDomain *d, int v, int x) {
  const SpActionInfo *acts = sp_actions(d);
  for (int a = 0; a < d->action_count; a++)
    if (acts[a].variable == v && acts[a].pre == x) return 1;
  return 0;
}

size_t sp_blocker_format(const SpDomain *d, const SpBlocker *b, char *buf,
                         size_t size) {
  size_t at = 0;
  if (size > 0) buf[0] = '\0';
  if (b->kind == SP_BLOCK_NONE) {
    add(&at, snprintf(buf, size, "a plan exists"));
    return at;
  }
  if (b->only_choice > 0) /* the goal's other choices have their own */
    add(&at,
        snprintf(buf, size, "no choice of the goal has a plan; choice %d: ",
                 b->only_choice));
  if (b->kind == SP_BLOCK_ORDER) {
    if (b->variable >= 0 && b->current >= 0)
      add(&at, snprintf(ROOM(buf, size, at), "%s is %s now; ",
                        sp_variable_name(d, b->variable),
                        sp_value_name(d, b->variable, b->current)));
    add(&at, (int)sp_failure_format(d, &b->failure, ROOM(buf, size, at)));
    return at;
  }
  const char *var = sp_variable_name(d, b->variable);
  const char *now = sp_value_name(d, b->variable, b->current);
  const char *want = sp_value_name(d, b->variable, b->needed);
  if (b->action < 0)
    add(&at,
        snprintf(ROOM(buf, size, at), "the goal needs %s = %s", var, want));
  else
    add(&at, snprintf(ROOM(buf, size, at),
                      "action '%s' (on the only way to the goal) needs %s = %s",
                      sp_action_name(d, b->action), var, want));
  if (b->kind == SP_BLOCK_NOTHING_SETS)
    add(&at, snprintf(ROOM(buf, size, at),
                      ", but %s is %s and no action sets %s to %s", var, now,
                      var, want));
  else if (!has_way_out(d, b->variable, b->current))
    add(&at, snprintf(ROOM(buf, size, at),
                      ", but %s is %s and no action leaves %s", var, now, now));
  else
    add(&at, snprintf(ROOM(buf, size, at),
                      ", but %s is %s and no way out of %s leads to %s", var,
                      now, now, want));
  if (b->link_to != b->needed)
    add(&at, snprintf(ROOM(buf, size, at),
                      " (the way to %s begins at %s, which no action sets)",
                      want, sp_value_name(d, b->variable, b->link_to)));
  char link[3 * SP_MAX_NAME + 40];
  sp_blocker_link_format(d, b, link, sizeof link);
  add(&at, snprintf(ROOM(buf, size, at), "; missing: %s", link));
  return at;
}
