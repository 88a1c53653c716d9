/* queue_index.c: each place's line of waiters and each waiter's entry, so a turn costs the waiters ahead, not the whole queue. */
#include <stdint.h>

#include "sp_agents.h"
#include "sp_places.h"
#include "sp_internal.h"

/* Two open-addressed tables over the world's list of waiters (queue.c):
 * lines, one per key, from its oldest entry to its newest through
 * Waiter.next; and who, an entry index per waiting agent. Both are
 * rebuilt from the list whenever it is rewritten (holes squeezed out, a
 * load, a crowd forgotten), so nothing but the list is the truth. */

enum { MIN_LINES = 16, MIN_WHO = 64 };

static size_t power_of_two_above(size_t n, size_t least) {
  size_t cap = least;
  while (cap < n) cap *= 2;
  return cap;
}

static size_t who_slot(const SpCrowd *c, uint32_t agent, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)c * 0x9E3779B97F4A7C15u;
  h ^= (uint64_t)agent * 0xC2B2AE3D27D4EB4Fu;
  h ^= h >> 31;
  return (size_t)h & (cap - 1);
}

static size_t line_slot(uint32_t key, size_t cap) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15u;
  return (size_t)(h >> 32) & (cap - 1);
}

static void who_put(SpWorld *w, uint32_t k) {
  const Waiter *e = &w->queue[k];
  size_t s = who_slot(e->crowd, e->agent, w->who_cap);
  while (w->queue_who[s] != SP_QUEUE_END) s = (s + 1) & (w->who_cap - 1);
  w->queue_who[s] = k;
}

/* The line of key, added empty when `add` (the table has room). */
static QueueLine *line_at(SpWorld *w, uint32_t key, int add) {
  size_t s = line_slot(key, w->lines_cap);
  for (;; s = (s + 1) & (w->lines_cap - 1)) {
    QueueLine *l = &w->queue_lines[s];
    if (l->key == key) return l;
    if (l->key != SP_NO_PLACE) continue;
    if (!add) return NULL;
    l->key = key;
    l->head = l->tail = SP_QUEUE_END;
    l->count = 0;
    l->cut_update = 0;
    w->lines_used++;
    return l;
  }
}

/* Doubles the lines' table; 0 without memory (the old one kept). */
static int grow_lines(SpWorld *w) {
  size_t cap = w->lines_cap * 2;
  QueueLine *t = sp__mem_alloc(w->alloc, cap * sizeof *t);
  if (t == NULL) return 0;
  QueueLine *old = w->queue_lines;
  size_t old_cap = w->lines_cap;
  for (size_t s = 0; s < cap; s++) t[s].key = SP_NO_PLACE;
  w->queue_lines = t;
  w->lines_cap = cap;
  w->lines_used = 0;
  for (size_t s = 0; s < old_cap; s++)
    if (old[s].key != SP_NO_PLACE) *line_at(w, old[s].key, 1) = old[s];
  sp__mem_free(w->alloc, old, old_cap * sizeof *old);
  return 1;
}

/* Appends entry k to its key's line and to who (who has room); 0 when
 * a new line finds no memory. */
static int link_entry(SpWorld *w, uint32_t k) {
  Waiter *e = &w->queue[k];
  QueueLine *l = line_at(w, e->key, 0);
  if (l == NULL) {
    if (2 * (w->lines_used + 1) > w->lines_cap && !grow_lines(w)) return 0;
    l = line_at(w, e->key, 1);
  }
  e->next = SP_QUEUE_END;
  if (l->head == SP_QUEUE_END)
    l->head = k;
  else
    w->queue[l->tail].next = k;
  l->tail = k;
  l->count++;
  /* a cut holding the whole line takes a newcomer while room is left */
  if (l->cut_update != 0 && l->cut_whole) {
    if ((int32_t)l->cut_valid < l->cut_room) {
      l->cut_valid++;
      l->cut_last = k;
    } else {
      l->cut_whole = 0;
    }
  }
  who_put(w, k);
  return 1;
}

void sp__queue_index_free(SpWorld *w) {
  if (w->queue_lines != NULL)
    sp__mem_free(w->alloc, w->queue_lines, w->lines_cap * sizeof(QueueLine));
  if (w->queue_who != NULL)
    sp__mem_free(w->alloc, w->queue_who, w->who_cap * sizeof(uint32_t));
  w->queue_lines = NULL;
  w->queue_who = NULL;
  w->lines_cap = w->lines_used = w->who_cap = 0;
  w->queue_indexed = 0;
}

/* Both tables from the list: who at most half full, lines growing as
 * keys come (they are few: places and kinds). */
static int rebuild(SpWorld *w) {
  sp__queue_index_free(w);
  size_t live = w->queue_len - w->queue_holes;
  w->who_cap = power_of_two_above(2 * live + 2, MIN_WHO);
  w->lines_cap = MIN_LINES;
  w->queue_who = sp__mem_alloc(w->alloc, w->who_cap * sizeof(uint32_t));
  w->queue_lines = sp__mem_alloc(w->alloc, w->lines_cap * sizeof(QueueLine));
  if (w->queue_lines == NULL || w->queue_who == NULL) goto no_memory;
  for (size_t s = 0; s < w->lines_cap; s++) w->queue_lines[s].key = SP_NO_PLACE;
  for (size_t s = 0; s < w->who_cap; s++) w->queue_who[s] = SP_QUEUE_END;
  for (size_t k = 0; k < w->queue_len; k++)
    if (w->queue[k].crowd != NULL && !link_entry(w, (uint32_t)k))
      goto no_memory;
  w->queue_indexed = 1;
  return 1;
no_memory:
  if (w->queue_who == NULL) w->who_cap = 0;
  if (w->queue_lines == NULL) w->lines_cap = 0;
  sp__queue_index_free(w);
  return 0;
}

void sp__queue_index_settle(SpWorld *w) {
  size_t live = w->queue_len - w->queue_holes;
  if (w->queue_indexed &&
      w->who_cap != power_of_two_above(2 * live + 2, MIN_WHO))
    w->queue_indexed = 0; /* rebuilt at the next lookup, as after a load */
}

int sp__queue_index_ready(SpWorld *w) {
  if (w->queue_by_list) return 0;
  return w->queue_indexed || rebuild(w);
}

uint32_t sp__queue_index_find(const SpWorld *w, const SpCrowd *c, size_t i) {
  size_t s = who_slot(c, (uint32_t)i, w->who_cap);
  for (;; s = (s + 1) & (w->who_cap - 1)) {
    uint32_t k = w->queue_who[s];
    if (k == SP_QUEUE_END) return SP_QUEUE_END;
    if (w->queue[k].crowd == c && w->queue[k].agent == i) return k;
  }
}

QueueLine *sp__queue_index_line(SpWorld *w, uint32_t key) {
  return line_at(w, key, 0);
}

void sp__queue_index_added(SpWorld *w, uint32_t k) {
  if (!w->queue_indexed) return;
  size_t live = w->queue_len - w->queue_holes;
  /* who at most half full: past that (or a new line without memory),
   * the next lookup rebuilds both */
  if (2 * (live + 1) > w->who_cap || !link_entry(w, k)) w->queue_indexed = 0;
}

/* Takes entry k out of who (moving back the entries its slot had pushed
 * along, so every lookup still finds them). Its line keeps it as a hole,
 * skipped and unlinked by the next reader of the line (queue.c). */
void sp__queue_index_removed(SpWorld *w, uint32_t k) {
  if (!w->queue_indexed) return;
  const Waiter *e = &w->queue[k];
  size_t mask = w->who_cap - 1, s = who_slot(e->crowd, e->agent, w->who_cap);
  while (w->queue_who[s] != k) s = (s + 1) & mask;
  for (size_t t = (s + 1) & mask;; t = (t + 1) & mask) {
    uint32_t m = w->queue_who[t];
    if (m == SP_QUEUE_END) break;
    size_t home = who_slot(w->queue[m].crowd, w->queue[m].agent, w->who_cap);
    /* m may fill the gap at s when its home is not between s and t */
    if (((t - home) & mask) >= ((t - s) & mask)) {
      w->queue_who[s] = m;
      s = t;
    }
  }
  w->queue_who[s] = SP_QUEUE_END;
  QueueLine *l = line_at(w, e->key, 0);
  l->count--;
  /* one within the cut left: taken for one who got in (one slot fewer);
   * when the room says otherwise, the next reader reads the cut again */
  if (l->cut_update != 0 && l->cut_valid > 0 && k <= l->cut_last) {
    l->cut_valid--;
    l->cut_room--;
  }
}
