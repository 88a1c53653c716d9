/* queue.c: first come, first served at full places: the world's waiters in the order they began to wait. */
#include <string.h>

#include "sp_agents.h"
#include "sp_places.h"
#include "sp_internal.h"

/* One list for the whole world, oldest first: an agent's turn is its
 * rank among the waiters for the same key (a place, or a kind for steps
 * that bind the nearest place of a kind). An agent that got in, or was
 * despawned, leaves its line at once; one that stopped waiting otherwise
 * (replanned into other steps) drops out as the next update begins, so
 * the update needs no hook on every path that ends a wait. Until then it
 * keeps its turn, and a turn is a function of the list alone: the same
 * read through the index or from the list, in a loaded world or in the
 * world saved. */

uint32_t sp__queue_key(const SpCrowd *c, const Agent *a, int act, uint32_t p) {
  const SpActionBehaviour *b = &c->beh[act];
  if (b->bind == SP_BIND_KIND) return SP_QUEUE_KIND | (uint32_t)b->kind;
  if (p != SP_NO_PLACE) return p;
  if (b->bind == SP_BIND_PLACE) return b->place;
  if (b->bind == SP_BIND_HOME) return a->home;
  return SP_NO_PLACE;
}

int sp__queue_still_waits(const Waiter *e) {
  const SpCrowd *c = e->crowd;
  size_t i = e->agent;
  if (!sp_crowd_alive(c, i) || sp_crowd_generation(c, i) != e->gen) return 0;
  const Agent *a = &c->agents[i];
  if (!a->queued || a->reason != SP_REASON_FULL || a->fail_action != e->act ||
      (c->agents[i].flags & F_RESERVED))
    return 0;
  if (a->step != STEP_NONE &&
      sp_population_plan_step(c->pop, i, a->step) != e->act)
    return 0; /* it went on to another step */
  switch (c->agents[i].phase) {
  case SP_PHASE_BLOCKED:
  case SP_PHASE_THINKING:
  case SP_PHASE_WALKING: /* about to bind again */
  case SP_PHASE_SCRIPT: /* its caller gives the place again */ return 1;
  default: return 0;
  }
}

/* Drops entry k, clearing its agent's mark when the slot is still its:
 * a hole until squeeze() (indices into the list stay valid till then). */
static void drop(SpWorld *w, size_t k) {
  Waiter *e = &w->queue[k];
  SpCrowd *c = e->crowd;
  if (e->agent < c->n && sp_crowd_generation(c, e->agent) == e->gen)
    c->agents[e->agent].queued = 0;
  sp__queue_index_removed(w, (uint32_t)k);
  e->crowd = NULL;
  w->queue_holes++;
}

/* Squeezes the holes out, keeping the order. */
static void squeeze_now(SpWorld *w) {
  size_t out = 0;
  for (size_t k = 0; k < w->queue_len; k++)
    if (w->queue[k].crowd != NULL) w->queue[out++] = w->queue[k];
  w->queue_len = out;
  w->queue_holes = 0;
  w->queue_indexed = 0; /* every index moved */
  /* a line that emptied gives its memory back (kept when none is had) */
  size_t cap = w->queue_cap / 2;
  if (cap >= 64 && 4 * out < w->queue_cap) {
    Waiter *q = sp__mem_realloc(w->alloc, w->queue, w->queue_cap * sizeof *q,
                                cap * sizeof *q);
    if (q != NULL) w->queue = q, w->queue_cap = cap;
  }
}

/* Squeezes the holes out once they are half the list: each drop pays for
 * one move. */
static void squeeze(SpWorld *w) {
  if (w->queue_holes >= 32 && 2 * w->queue_holes >= w->queue_len)
    squeeze_now(w);
}

static size_t find(SpWorld *w, const SpCrowd *c, size_t i) {
  if (sp__queue_index_ready(w)) {
    uint32_t k = sp__queue_index_find(w, c, i);
    return k == SP_QUEUE_END ? SIZE_MAX : k;
  }
  for (size_t k = 0; k < w->queue_len; k++) /* no memory for the index */
    if (w->queue[k].crowd == c && w->queue[k].agent == i) return k;
  return SIZE_MAX;
}

/* Free slots for key: a place's room, or the room of a kind's limited
 * places; INT32_MAX where some place has no capacity. */
static int32_t room(const SpWorld *w, uint32_t key) {
  if (key & SP_QUEUE_KIND) {
    int32_t sum = 0;
    for (uint32_t k = sp_world_first_of_kind(w, (int)(key & ~SP_QUEUE_KIND));
         k != SP_NO_PLACE; k = w->places[k].next_of_kind) {
      const Place *pl = &w->places[k];
      if (pl->capacity <= 0) return INT32_MAX;
      int left = pl->capacity - atomic_load(&((Place *)pl)->reserved);
      if (left > 0) sum += left;
    }
    return sum;
  }
  if (key >= w->place_count) return INT32_MAX;
  const Place *pl = &w->places[key];
  if (pl->capacity <= 0) return INT32_MAX;
  int left = pl->capacity - atomic_load(&((Place *)pl)->reserved);
  return left > 0 ? left : 0;
}

/* Without memory for the index: the whole list in order. */
static int may_enter_by_list(SpCrowd *c, size_t i, uint32_t key, int32_t free) {
  SpWorld *w = c->world;
  uint32_t count = 0;
  for (size_t k = 0; k < w->queue_len; k++)
    count += w->queue[k].crowd != NULL && w->queue[k].key == key;
  if ((uint32_t)free > count) return 1; /* as may_enter_by_line */
  int32_t ahead = 0;
  for (size_t k = 0; k < w->queue_len; k++) {
    Waiter *e = &w->queue[k];
    if (e->crowd == NULL || e->key != key) continue;
    if (e->crowd == c && e->agent == i) return ahead < free;
    if (++ahead >= free) return 0;
  }
  return ahead < free;
}

/* Reads the cut of line l for `free` slots: its oldest waiters, up to
 * `free` of them, unlinking the holes it passes. */
static void read_cut(SpWorld *w, QueueLine *l, int32_t free) {
  uint32_t prev = SP_QUEUE_END, last = SP_QUEUE_END, valid = 0, k;
  for (k = l->head; k != SP_QUEUE_END;) {
    Waiter *e = &w->queue[k];
    uint32_t next = e->next;
    if (e->crowd == NULL) {
      if (prev == SP_QUEUE_END)
        l->head = next;
      else
        w->queue[prev].next = next;
      if (l->tail == k) l->tail = prev;
      k = next;
      continue;
    }
    if ((int32_t)valid == free) break;
    valid++;
    last = prev = k;
    k = next;
  }
  l->cut_update = w->queue_update;
  l->cut_last = last;
  l->cut_valid = valid;
  l->cut_room = free;
  l->cut_whole = k == SP_QUEUE_END;
}

/* Agent i's turn from key's cut: read once per update (and again when the
 * room changed otherwise than by those within it getting in), so a turn
 * costs O(1), not the waiters ahead. */
static int may_enter_by_line(SpCrowd *c, size_t i, uint32_t key, int32_t free) {
  SpWorld *w = c->world;
  QueueLine *l = sp__queue_index_line(w, key);
  if (l == NULL) return free > 0;
  /* more room than the line is long: whoever asks gets in, without reading
   * it (kinds: the room of all their places, often more than waits) */
  if ((uint32_t)free > l->count) return 1;
  if (l->cut_update != w->queue_update || l->cut_room != free)
    read_cut(w, l, free);
  uint32_t k =
      c->agents[i].queued ? sp__queue_index_find(w, c, i) : SP_QUEUE_END;
  if (k != SP_QUEUE_END && w->queue[k].key == key)
    return l->cut_valid > 0 && k <= l->cut_last;
  return l->cut_whole && (int32_t)l->cut_valid < free; /* not in line */
}

int sp__queue_may_enter(SpCrowd *c, size_t i, uint32_t key) {
  SpWorld *w = c->world;
  int32_t free = room(w, key);
  if (free == INT32_MAX) return 1;
  return sp__queue_index_ready(w) ? may_enter_by_line(c, i, key, free)
                                  : may_enter_by_list(c, i, key, free);
}

void sp__queue_join(SpCrowd *c, size_t i, uint32_t key, int act, int fresh) {
  SpWorld *w = c->world;
  Agent *a = &c->agents[i];
  if (a->queued) {
    size_t k = find(w, c, i);
    if (k != SIZE_MAX && !fresh && w->queue[k].key == key &&
        w->queue[k].act == act)
      return; /* still waiting: it keeps its turn */
    if (k != SIZE_MAX) drop(w, k);
  }
  squeeze(w);
  if (w->queue_len == w->queue_cap) {
    size_t nc = w->queue_cap < 16 ? 16 : w->queue_cap * 2;
    Waiter *q = sp__mem_realloc(w->alloc, w->queue, w->queue_cap * sizeof *q,
                                nc * sizeof *q);
    if (q == NULL)
      return; /* no memory: it waits without a turn, and
                              tries to join again at its next retry */
    w->queue = q;
    w->queue_cap = nc;
  }
  Waiter e = {c,   (uint32_t)i,  sp_crowd_generation(c, i),
              key, (int16_t)act, SP_QUEUE_END};
  w->queue[w->queue_len++] = e;
  sp__queue_index_added(w, (uint32_t)(w->queue_len - 1));
  a->queued = 1;
}

void sp__queue_leave(SpCrowd *c, size_t i) {
  if (!c->agents[i].queued) return;
  size_t k = find(c->world, c, i);
  if (k != SIZE_MAX) drop(c->world, k);
  c->agents[i].queued = 0;
  squeeze(c->world);
}

void sp__queue_forget_crowd(SpWorld *w, const SpCrowd *c) {
  size_t out = 0;
  for (size_t k = 0; k < w->queue_len; k++)
    if (w->queue[k].crowd != c && w->queue[k].crowd != NULL)
      w->queue[out++] = w->queue[k];
  w->queue_len = out;
  w->queue_holes = 0;
  w->queue_indexed = 0;
}

/* Entries of agents that stopped waiting drop out as the update begins,
 * and the list and its index are then as a load leaves them (no holes;
 * the index sized from the waiters alone, as its size decides when it is
 * rebuilt and its cuts read again), since holes and the index are not
 * saved. Idempotent within an update. */
void sp__queue_next_update(SpWorld *w) {
  w->queue_update++;
  for (size_t k = 0; k < w->queue_len; k++)
    if (w->queue[k].crowd != NULL && !sp__queue_still_waits(&w->queue[k]))
      drop(w, k);
  if (w->queue_holes > 0) squeeze_now(w);
  sp__queue_index_settle(w);
}

void sp__queue_free(SpWorld *w) {
  if (w->queue != NULL)
    sp__mem_free(w->alloc, w->queue, w->queue_cap * sizeof(Waiter));
  w->queue = NULL;
  w->queue_len = w->queue_cap = w->queue_holes = 0;
  sp__queue_index_free(w);
}
