/* builtin_domains.c: owned copies of domain specs with named states, and lookups in them. */
#include "sp_builtin.h"
#include "sp_alloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Layout of the single block                                         */
/* ------------------------------------------------------------------ */

#define ALIGNMENT _Alignof(max_align_t)

/* A bump cursor: in counting mode (base == NULL) it only adds sizes. */
typedef struct Cursor {
  char *base;
  size_t used;
  int overflow;
} Cursor;

static void *cursor_take(Cursor *c, size_t count, size_t elem) {
  size_t start, size;
  if (elem != 0 && count > ((size_t)-1 / 2) / elem) {
    c->overflow = 1;
    return NULL;
  }
  size = count * elem;
  start = (c->used + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  if (start > (size_t)-1 / 2 - size) {
    c->overflow = 1;
    return NULL;
  }
  c->used = start + size;
  return c->base != NULL ? c->base + start : NULL;
}

/* Copies a string into the block (or counts it); NULL stays NULL. */
static const char *cursor_string(Cursor *c, const char *s) {
  size_t n;
  char *dst;
  if (s == NULL) return NULL;
  n = strlen(s) + 1;
  dst = cursor_take(c, n, 1);
  if (dst != NULL) memcpy(dst, s, n);
  return dst;
}

/* Rejects descriptions the copy could not walk safely. */
static int spec_walkable(const SpDomainSpec *spec, int start_count,
                         const SpNamedState *starts, int goal_count,
                         const SpNamedState *goals) {
  int i;
  if (spec == NULL) return 0;
  if (spec->variable_count < 0 || spec->action_count < 0) return 0;
  if (spec->variable_count > 0 && spec->variables == NULL) return 0;
  if (spec->action_count > 0 && spec->actions == NULL) return 0;
  for (i = 0; i < spec->variable_count; i++) {
    const SpVariableSpec *v = &spec->variables[i];
    if (v->value_count < 0) return 0;
  }
  for (i = 0; i < spec->action_count; i++) {
    const SpActionSpec *act = &spec->actions[i];
    if (act->prevail_count < 0) return 0;
    if (act->prevail_count > 0 && act->prevails == NULL) return 0;
  }
  if (start_count < 0 || goal_count < 0) return 0;
  if (start_count > 0 && starts == NULL) return 0;
  if (goal_count > 0 && goals == NULL) return 0;
  for (i = 0; i < start_count; i++)
    if (spec->variable_count > 0 && starts[i].values == NULL) return 0;
  for (i = 0; i < goal_count; i++)
    if (spec->variable_count > 0 && goals[i].values == NULL) return 0;
  return 1;
}

/* Copies one list of named states; `dst` is NULL in counting mode. */
static void copy_states(Cursor *c, SpNamedState *dst, const SpNamedState *src,
                        int count, int nvars) {
  int i;
  for (i = 0; i < count; i++) {
    SpValue *values = cursor_take(c, (size_t)nvars, sizeof(SpValue));
    uint8_t *keep = NULL;
    const char *name = cursor_string(c, src[i].name);
    if (src[i].keep != NULL) keep = cursor_take(c, (size_t)nvars, 1);
    if (dst == NULL) continue;
    if (nvars > 0) memcpy(values, src[i].values, (size_t)nvars);
    if (keep != NULL) memcpy(keep, src[i].keep, (size_t)nvars);
    dst[i].name = name;
    dst[i].values = values;
    dst[i].keep = keep;
  }
}

/* Lays the whole copy out in c (counting when c->base is NULL). Returns
 * the SpBuiltSpec at the start of the block (NULL when counting). */
static SpBuiltSpec *lay_out(Cursor *c, const SpDomainSpec *spec,
                            int start_count, const SpNamedState *starts,
                            int goal_count, const SpNamedState *goals) {
  int i, j, nv = spec->variable_count, na = spec->action_count;
  SpBuiltSpec *b = cursor_take(c, 1, sizeof(SpBuiltSpec));
  SpVariableSpec *vars = cursor_take(c, (size_t)nv, sizeof(SpVariableSpec));
  SpActionSpec *acts = cursor_take(c, (size_t)na, sizeof(SpActionSpec));
  SpNamedState *st = cursor_take(c, (size_t)start_count, sizeof(SpNamedState));
  SpNamedState *gl = cursor_take(c, (size_t)goal_count, sizeof(SpNamedState));
  const char *name = cursor_string(c, spec->name);

  for (i = 0; i < nv; i++) {
    const SpVariableSpec *sv = &spec->variables[i];
    const char **vn = NULL;
    const char *vname = cursor_string(c, sv->name);
    if (sv->value_names != NULL)
      vn = cursor_take(c, (size_t)sv->value_count, sizeof(const char *));
    for (j = 0; sv->value_names != NULL && j < sv->value_count; j++) {
      const char *s = cursor_string(c, sv->value_names[j]);
      if (vn != NULL) vn[j] = s;
    }
    if (vars != NULL) {
      vars[i].name = vname;
      vars[i].value_count = sv->value_count;
      vars[i].value_names = vn;
    }
  }
  for (i = 0; i < na; i++) {
    const SpActionSpec *sa = &spec->actions[i];
    SpCondition *prv =
        cursor_take(c, (size_t)sa->prevail_count, sizeof(SpCondition));
    const char *aname = cursor_string(c, sa->name);
    if (acts == NULL) continue;
    acts[i] = *sa;
    acts[i].name = aname;
    if (sa->prevail_count > 0)
      memcpy(prv, sa->prevails,
             (size_t)sa->prevail_count * sizeof(SpCondition));
    acts[i].prevails = sa->prevail_count > 0 ? prv : NULL;
  }
  copy_states(c, st, starts, start_count, nv);
  copy_states(c, gl, goals, goal_count, nv);
  if (b == NULL) return NULL;
  b->spec.name = name;
  b->spec.variable_count = nv;
  b->spec.variables = nv > 0 ? vars : NULL;
  b->spec.action_count = na;
  b->spec.actions = na > 0 ? acts : NULL;
  b->start_count = start_count;
  b->starts = start_count > 0 ? st : NULL;
  b->goal_count = goal_count;
  b->goals = goal_count > 0 ? gl : NULL;
  b->needs_allow_outside = 0;
  return b;
}

/* Two passes over the same layout code: count, allocate once, fill. */
SpBuiltSpec *sp_builtin_copy(SpAllocator a, const SpDomainSpec *spec,
                             int start_count, const SpNamedState *starts,
                             int goal_count, const SpNamedState *goals) {
  Cursor c = {NULL, 0, 0};
  SpBuiltSpec *b;
  if (!spec_walkable(spec, start_count, starts, goal_count, goals)) return NULL;
  lay_out(&c, spec, start_count, starts, goal_count, goals);
  if (c.overflow) return NULL;
  c.base = sp__mem_alloc(a, c.used);
  if (c.base == NULL) return NULL;
  memset(c.base, 0, c.used);
  {
    size_t size = c.used;
    c.used = 0;
    b = lay_out(&c, spec, start_count, starts, goal_count, goals);
    b->alloc_ = a;
    b->size_ = size;
  }
  return b;
}

void sp_builtin_free(SpBuiltSpec *b) {
  if (b == NULL) return;
  sp__mem_free(b->alloc_, b, b->size_);
}

/* ------------------------------------------------------------------ */
/* Lookups                                                            */
/* ------------------------------------------------------------------ */

static const SpNamedState *find_state(const SpNamedState *list, int count,
                                      const char *name) {
  int i;
  if (name == NULL) return NULL;
  for (i = 0; i < count; i++)
    if (list[i].name != NULL && strcmp(list[i].name, name) == 0)
      return &list[i];
  return NULL;
}

const SpNamedState *sp_builtin_start(const SpBuiltSpec *b, const char *name) {
  return b != NULL ? find_state(b->starts, b->start_count, name) : NULL;
}

const SpNamedState *sp_builtin_goal(const SpBuiltSpec *b, const char *name) {
  return b != NULL ? find_state(b->goals, b->goal_count, name) : NULL;
}

int sp_builtin_action(const SpBuiltSpec *b, const char *name) {
  int i;
  if (b == NULL || name == NULL) return -1;
  for (i = 0; i < b->spec.action_count; i++) {
    const char *n = b->spec.actions[i].name;
    if (n != NULL && strcmp(n, name) == 0) return i;
  }
  return -1;
}

void sp_builtin_resolve_goal(const SpBuiltSpec *b, const SpNamedState *goal,
                             const SpValue *s0, SpValue *out) {
  int i;
  for (i = 0; i < b->spec.variable_count; i++)
    out[i] = (goal->keep != NULL && goal->keep[i]) ? s0[i] : goal->values[i];
}
