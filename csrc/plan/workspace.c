/* workspace.c: the planner's workspace: one allocation carved into per-action and per-variable scratch, reused by every plan. */
#include <string.h>

#include "sp_error.h"
#include "sp_workspace.h"

typedef struct Carve {
  char *base;
  size_t off;
} Carve;

static void *carve(Carve *c, size_t bytes) {
  void *p = c->base ? c->base + c->off : NULL;
  c->off += (bytes + 7u) & ~(size_t)7u;
  return p;
}

/* Lays out every array; with base NULL only measures. Stored orders: two
 * per prevail while ordering, one more per prevail while scheduling. */
static size_t workspace_layout(SpWorkspace *ws, const SpDomain *d, char *base) {
  size_t na = (size_t)d->action_count + 1;
  size_t nm = (size_t)d->variable_count + 1, np = (size_t)d->prevail_count + 1;
  Carve c = {base, (sizeof(SpWorkspace) + 7u) & ~(size_t)7u};
  SpWorkspace tmp;
  if (ws == NULL) ws = &tmp;
  ws->act = carve(&c, na * sizeof(ActScratch));
  ws->var = carve(&c, nm * sizeof(VarScratch));
  ws->visit_stamp = carve(&c, na * sizeof(uint32_t));
  ws->decided = carve(&c, np * sizeof(uint32_t));
  ws->value_max = carve(&c, nm + 8); /* room for 8-byte reads */
  for (int k = 0; k < SP_GOAL_SCRATCH; k++)
    ws->goal_scratch[k] = carve(&c, nm + 8);
  ws->touched = carve(&c, nm * sizeof(uint16_t));
  ws->chosen = carve(&c, na * sizeof(uint16_t));
  ws->held = carve(&c, nm * sizeof(Held));
  ws->stack = carve(&c, na * sizeof(uint16_t));
  ws->edge = carve(&c, 3u * np * sizeof(Edge));
  return c.off;
}

void sp__workspace_clear_stamps(SpWorkspace *ws) {
  const SpDomain *d = ws->domain;
  memset(ws->act, 0, (size_t)d->action_count * sizeof(ActScratch));
  memset(ws->var, 0, (size_t)d->variable_count * sizeof(VarScratch));
  memset(ws->visit_stamp, 0, (size_t)d->action_count * sizeof(uint32_t));
  memset(ws->decided, 0, (size_t)d->prevail_count * sizeof(uint32_t));
  ws->gen = 0;
  ws->visit_gen = 0;
}

SpStatus sp_workspace_new(const SpDomain *d, SpAllocator alloc,
                          SpWorkspace **out, SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  size_t size = workspace_layout(NULL, d, NULL);
  char *base = sp__mem_alloc(alloc, size);
  if (base == NULL) return sp__error_memory(err);
  memset(base, 0, size);
  SpWorkspace *ws = (SpWorkspace *)base;
  workspace_layout(ws, d, base);
  ws->alloc = alloc;
  ws->size = size;
  ws->domain = d;
  ws->small_values = 1;
  for (int v = 0; v < d->variable_count; v++) { /* 2..255 values */
    ws->value_max[v] = (uint8_t)(sp_vars(d)[v].value_count - 1);
    if (ws->value_max[v] >= 128) ws->small_values = 0;
  }
  sp__workspace_clear_stamps(ws);
  *out = ws;
  return SP_OK;
}

void sp_workspace_free(SpWorkspace *ws) {
  if (ws == NULL) return;
  sp__mem_free(ws->alloc, ws, ws->size);
}

size_t sp_workspace_size_bytes(const SpWorkspace *ws) { return ws->size; }

SpValue *sp__workspace_goal_scratch(SpWorkspace *ws, int k) {
  return ws->goal_scratch[k];
}

int sp_workspace_order_count(const SpWorkspace *ws) {
  return ws->link_count + ws->edge_count;
}

/* The timeline orders come first, variable by variable in the order the
 * timelines were made; they are not stored, so finding one walks them
 * (this is for debugging: linear in the size of the plan). */
SpOrder sp_workspace_order(const SpWorkspace *ws, int i) {
  SpOrder o = {0, 0, SP_ORDER_PRE};
  if (i >= ws->link_count) {
    const Edge *e = &ws->edge[i - ws->link_count];
    o.from = e->from;
    o.to = e->to;
    o.kind = (uint8_t)e->kind;
    return o;
  }
  for (int t = 0; t < ws->touched_count; t++) {
    uint16_t a = ws->var[ws->touched[t]].first;
    for (uint16_t b = ws->act[a].next; b != SP_NONE16;
         a = b, b = ws->act[a].next)
      if (i-- == 0) {
        o.from = a;
        o.to = b;
        return o;
      }
  }
  return o;
}
