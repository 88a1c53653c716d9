/* load_chase_queue.c: a saved world's chases (agents walking to another agent) and queue of waiters, checked then restored (load.c's two passes). */
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "sp_chase.h"
#include "sp_due.h"
#include "sp_places.h"
#include "sp_error.h"
#include "sp_internal.h"

static int cell_ok(const SpGrid *g, unsigned x, unsigned y) {
  return x < (unsigned)sp_grid_width(g) && y < (unsigned)sp_grid_height(g);
}

/* One chase: its fields against the saved agent and the crowds (see
 * sp_save.h); the path's cells on the grid, each next to the one before. */
static int check_chase(Load *x, Rd *r, const uint8_t *p, size_t n) {
  uint32_t i = (uint32_t)sp_save_get(p, 4),
           tc = (uint32_t)sp_save_get(p + 4, 4);
  uint32_t slot = (uint32_t)sp_save_get(p + 8, 4);
  unsigned reach = (unsigned)sp_save_get(p + 16, 2), steps = p[18], at = p[19];
  unsigned gx = (unsigned)sp_save_get(p + 20, 2),
           gy = (unsigned)sp_save_get(p + 22, 2);
  const SpGrid *g = x->w->grid;
  if (i >= n || !(x->freed[i] & 4))
    return sp__ld_bad(r, "chase of agent %u: not an agent walking to a target",
                      i + 1);
  if (x->freed[i] & 8)
    return sp__ld_bad(r,
                      "chase of agent %u: the agent walks to a place (field "
                      "'target'), not to another agent",
                      i + 1);
  if (tc != UINT32_MAX && (tc >= x->count || slot >= x->crowds[tc]->capacity))
    return sp__ld_bad(
        r, "chase of agent %u: target crowd %u slot %u does not exist", i + 1,
        tc + 1, slot + 1);
  float progress;
  memcpy(&progress, &x->progress[i], sizeof progress);
  if (!(progress >= 0.0f && progress < 1.0f))
    return sp__ld_bad(r,
                      "chase of agent %u: field 'time': progress %g is not a "
                      "part of a cell (0 to 1)",
                      i + 1, (double)progress);
  if (reach > 65534)
    return sp__ld_bad(r, "chase of agent %u: reach %u", i + 1, reach);
  if (steps > SP_CHASE_PATH + 1 || at > steps || (g == NULL && steps > 0))
    return sp__ld_bad(r, "chase of agent %u: path of %u cells, next %u", i + 1,
                      steps, at);
  if (g != NULL && !(gx == 0xFFFF && gy == 0xFFFF) && !cell_ok(g, gx, gy))
    return sp__ld_bad(r, "chase of agent %u: cell (%u, %u) is off the grid",
                      i + 1, gx, gy);
  for (unsigned q = 0; q < steps; q++) {
    unsigned px = (unsigned)sp_save_get(p + 24 + 4 * q, 2);
    unsigned py = (unsigned)sp_save_get(p + 26 + 4 * q, 2);
    unsigned ox = q > 0 ? (unsigned)sp_save_get(p + 20 + 4 * q, 2) : px;
    unsigned oy = q > 0 ? (unsigned)sp_save_get(p + 22 + 4 * q, 2) : py;
    if (!cell_ok(g, px, py) || px + 1 < ox || ox + 1 < px || py + 1 < oy ||
        oy + 1 < py)
      return sp__ld_bad(
          r,
          "chase of agent %u: path cell %u is off the grid or not "
          "next to the one before",
          i + 1, q + 1);
  }
  x->freed[i] &= (uint8_t)~4; /* listed once */
  return 1;
}

/* The crowd's chases, after its agents: checked, then set again (the
 * chases of before the load end). */
int sp__ld_read_chases(Load *x, Rd *r, SpCrowd *c, size_t n) {
  uint32_t k =
      x->version >= 7 ? (uint32_t)sp__ld_get(r, 4) : 0; /* before 7: none */
  if (r->failed) return 0;
  if (k > n) return sp__ld_bad(r, "%u chases of %zu agents", k, n);
  if (x->apply && c->chase != NULL)
    for (size_t i = 0; i < c->capacity; i++) c->chase[i].on = 0;
  if (k > 0 && !x->apply && !sp__crowd_chase_ready(c)) {
    r->failed = 1; /* invisible: no chase is on until loaded */
    sp__error_memory(r->err);
    return 0;
  }
  for (uint32_t j = 0; j < k; j++) {
    const uint8_t *p = sp__ld_take(r, 24);
    if (p == NULL) return 0;
    if (sp__ld_take(r, 4u * p[18]) == NULL) return 0;
    if (!x->apply) {
      if (!check_chase(x, r, p, n)) return 0;
      continue;
    }
    Chase ch;
    memset(&ch, 0, sizeof ch);
    uint32_t tc = (uint32_t)sp_save_get(p + 4, 4);
    ch.agent = (uint32_t)sp_save_get(p + 8, 4);
    ch.gen = (uint32_t)sp_save_get(p + 12, 4);
    ch.reach = (uint16_t)sp_save_get(p + 16, 2);
    ch.steps = p[18], ch.at = p[19];
    ch.gx = (uint16_t)sp_save_get(p + 20, 2),
    ch.gy = (uint16_t)sp_save_get(p + 22, 2);
    for (int q = 0; q < ch.steps; q++) {
      ch.path[q].x = (int)sp_save_get(p + 24 + 4 * q, 2);
      ch.path[q].y = (int)sp_save_get(p + 26 + 4 * q, 2);
    }
    sp__chase_restore(c, (size_t)sp_save_get(p, 4),
                      tc == UINT32_MAX ? NULL : x->crowds[tc], &ch);
  }
  return 1;
}

static int by_agent(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The queue of waiters (sp_save.h). The first pass checks each entry and
 * builds the new queue (with the waiters of crowds not loaded after
 * them); the second installs it and marks the waiting agents. A stale
 * entry (an agent no longer waiting) is dropped when first read, as in
 * a running world. */
int sp__ld_read_queue(Load *x, Rd *r) {
  SpWorld *w = x->w;
  uint32_t n =
      x->version >= 8 ? (uint32_t)sp__ld_get(r, 4) : 0; /* before 8: none */
  if (r->failed) return 0;
  if (n > (r->len - r->at) / 14u)
    return sp__ld_take(r, 14u * (size_t)n) != NULL;
  if (!x->apply) {
    x->queue_cap = (size_t)n + w->queue_len;
    x->queue = sp__mem_alloc(w->alloc, (x->queue_cap + 1) * sizeof(Waiter));
    uint64_t *seen =
        sp__mem_alloc(w->alloc, ((size_t)n + 1) * sizeof(uint64_t));
    if (x->queue == NULL || seen == NULL) {
      if (seen != NULL)
        sp__mem_free(w->alloc, seen, ((size_t)n + 1) * sizeof(uint64_t));
      r->failed = 1;
      sp__error_memory(r->err);
      return 0;
    }
    for (uint32_t k = 0; k < n; k++) {
      uint32_t crowd = (uint32_t)sp__ld_get(r, 4),
               agent = (uint32_t)sp__ld_get(r, 4);
      uint32_t key = (uint32_t)sp__ld_get(r, 4),
               act = (uint32_t)sp__ld_get(r, 2);
      if (r->failed) break;
      if (crowd < 1 || crowd > x->count) {
        sp__ld_bad(r, "waiter %u: crowd %u is not one of the %zu saved", k + 1,
                   crowd, x->count);
        break;
      }
      const SpCrowd *c = x->crowds[crowd - 1];
      if (agent >= x->ref[crowd - 1].n || act >= (uint32_t)c->action_count) {
        sp__ld_bad(r, "waiter %u: agent %u or action %u is out of range", k + 1,
                   agent + 1, act);
        break;
      }
      int kind = (key & SP_QUEUE_KIND) != 0;
      uint32_t id = key & ~SP_QUEUE_KIND;
      if (kind ? id >= (uint32_t)w->kind_count : id >= w->place_count) {
        sp__ld_bad(r, "waiter %u: %s %u does not exist", k + 1,
                   kind ? "place kind" : "place", id);
        break;
      }
      seen[k] = (uint64_t)crowd << 32 | agent;
      Waiter e = {x->crowds[crowd - 1], agent, 0, key, (int16_t)act, 0};
      x->queue[x->queue_len++] = e;
    }
    if (!r->failed) {
      qsort(seen, n, sizeof *seen, by_agent);
      for (uint32_t k = 1; k < n; k++)
        if (seen[k] == seen[k - 1]) {
          sp__ld_bad(r, "crowd %u agent %u waits twice",
                     (uint32_t)(seen[k] >> 32), (uint32_t)seen[k] + 1);
          break;
        }
    }
    sp__mem_free(w->alloc, seen, ((size_t)n + 1) * sizeof(uint64_t));
    if (r->failed) return 0;
    for (size_t k = 0; k < w->queue_len; k++) { /* crowds not loaded */
      if (w->queue[k].crowd == NULL) continue;  /* a hole (queue.c) */
      size_t c = 0;
      while (c < x->count && x->crowds[c] != w->queue[k].crowd) c++;
      if (c == x->count) x->queue[x->queue_len++] = w->queue[k];
    }
    return 1;
  }
  sp__ld_take(r, 14u * n); /* checked by the first pass */
  for (size_t k = 0; k < x->count; k++)
    for (size_t i = 0; i < x->crowds[k]->n; i++)
      x->crowds[k]->agents[i].queued = 0;
  for (size_t k = 0; k < x->queue_len; k++) {
    Waiter *e = &x->queue[k];
    e->gen = k < n ? sp_crowd_generation(e->crowd, e->agent) : e->gen;
    if (k < n) e->crowd->agents[e->agent].queued = 1;
  }
  sp__queue_free(w);
  w->queue = x->queue;
  w->queue_len = x->queue_len;
  w->queue_cap = x->queue_cap + 1;
  x->queue = NULL; /* the world owns it now */
  return 1;
}
