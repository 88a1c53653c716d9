/* world.c: worlds: place kinds, places with capacity, and the distance-field cache. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_facts.h"
#include "sp_places.h"
#include "sp_error.h"
#include "sp_internal.h"

/* Grows an array of `elem`-byte items to hold at least `need`. */
static int grow(SpAllocator a, void **arr, size_t *cap, size_t need,
                size_t elem) {
  if (need <= *cap) return 1;
  size_t nc = *cap < 8 ? 8 : *cap * 2;
  while (nc < need) nc *= 2;
  void *p = sp__mem_realloc(a, *arr, *cap * elem, nc * elem);
  if (p == NULL) return 0;
  *arr = p;
  *cap = nc;
  return 1;
}

SpStatus sp_world_new(SpGrid *grid, SpAllocator alloc, SpWorld **out,
                      SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  SpWorld *w = sp__mem_alloc(alloc, sizeof *w);
  if (w == NULL) return sp__error_memory(err);
  memset(w, 0, sizeof *w);
  w->alloc = alloc;
  w->grid = grid;
  pthread_mutex_init(&w->alloc_lock, NULL);
  w->field_budget = SP_WORLD_FIELD_BUDGET;
  if (grid != NULL) {
    w->grid_version = sp_grid_version(grid);
    w->field_cells = sp_grid_field_cells(grid);
    /* floats, way bytes, then (aligned) hop counts and skips */
    w->hops_offset = (w->field_cells * (sizeof(float) + 1) + 1u) & ~(size_t)1u;
    w->skip_offset =
        (w->hops_offset + w->field_cells * sizeof(uint16_t) + 3u) & ~(size_t)3u;
    w->field_size = w->skip_offset + w->field_cells * sizeof(uint32_t);
    for (int d = 0; d < 8; d++)
      w->way_offset[d] = sp_grid_field_offset(grid, d);
    /* a cell's coordinates from its index: rows of way_offset[S] cells,
     * east one index on */
    w->index_origin = (ptrdiff_t)sp_grid_field_index(grid, 0, 0);
    w->index_row = w->way_offset[2];
    w->skips_ok = w->way_offset[0] == 1 && w->index_row > sp_grid_width(grid) &&
                  w->field_cells <= UINT32_MAX;
    w->scratch_bytes = sp_grid_field_scratch_bytes(grid);
    w->scratch = sp__mem_alloc(alloc, w->scratch_bytes);
    if (w->scratch == NULL) {
      pthread_mutex_destroy(&w->alloc_lock);
      sp__mem_free(alloc, w, sizeof *w);
      return sp__error_memory(err);
    }
  }
  *out = w;
  return SP_OK;
}

void sp_world_free(SpWorld *w) {
  if (w == NULL) return;
  for (size_t k = 0; k < w->field_count; k++)
    sp__mem_free(w->alloc, w->fields[k].dist, w->field_size);
  if (w->fields != NULL)
    sp__mem_free(w->alloc, w->fields, w->field_cap * sizeof(Field));
  for (int k = 0; k < w->kind_count; k++)
    sp__mem_free(w->alloc, w->kinds[k], w->kind_bytes[k]);
  if (w->kinds != NULL) {
    sp__mem_free(w->alloc, w->kinds, (size_t)w->kind_cap * sizeof(char *));
    sp__mem_free(w->alloc, w->kind_bytes, (size_t)w->kind_cap * sizeof(size_t));
  }
  if (w->places != NULL)
    sp__mem_free(w->alloc, w->places, w->place_cap * sizeof(Place));
  if (w->chains != NULL)
    sp__mem_free(w->alloc, w->chains, w->chain_cap * sizeof(KindChain));
  if (w->scratch != NULL) sp__mem_free(w->alloc, w->scratch, w->scratch_bytes);
  sp__world_facts_free(w);
  sp__queue_free(w);
  pthread_mutex_destroy(&w->alloc_lock);
  sp__mem_free(w->alloc, w, sizeof *w);
}

SpGrid *sp_world_grid(const SpWorld *w) { return w->grid; }

int sp_world_find_kind(const SpWorld *w, const char *name) {
  for (int k = 0; k < w->kind_count; k++)
    if (strcmp(w->kinds[k], name) == 0) return k;
  return -1;
}

SpStatus sp_world_kind(SpWorld *w, const char *name, int *kind, SpError *err) {
  sp__error_clear(err);
  if (name == NULL || name[0] == '\0')
    return sp__error_set(err, SP_ERR_INVALID, SP_E_EMPTY_NAME, SP_FIELD_NAME,
                         "world: a place kind needs a name");
  int k = sp_world_find_kind(w, name);
  if (k < 0) {
    if (w->kind_count == w->kind_cap) {
      int nc = w->kind_cap < 8 ? 8 : w->kind_cap * 2;
      char **names = sp__mem_alloc(w->alloc, (size_t)nc * sizeof(char *));
      size_t *bytes = sp__mem_alloc(w->alloc, (size_t)nc * sizeof(size_t));
      if (names == NULL || bytes == NULL) {
        if (names != NULL)
          sp__mem_free(w->alloc, names, (size_t)nc * sizeof(char *));
        if (bytes != NULL)
          sp__mem_free(w->alloc, bytes, (size_t)nc * sizeof(size_t));
        return sp__error_memory(err);
      }
      if (w->kind_count > 0) {
        memcpy(names, w->kinds, (size_t)w->kind_count * sizeof(char *));
        memcpy(bytes, w->kind_bytes, (size_t)w->kind_count * sizeof(size_t));
        sp__mem_free(w->alloc, w->kinds, (size_t)w->kind_cap * sizeof(char *));
        sp__mem_free(w->alloc, w->kind_bytes,
                     (size_t)w->kind_cap * sizeof(size_t));
      }
      w->kinds = names;
      w->kind_bytes = bytes;
      w->kind_cap = nc;
    }
    size_t len = strlen(name) + 1;
    char *copy = sp__mem_alloc(w->alloc, len);
    if (copy == NULL) return sp__error_memory(err);
    memcpy(copy, name, len);
    k = w->kind_count++;
    w->kinds[k] = copy;
    w->kind_bytes[k] = len;
  }
  if (kind != NULL) *kind = k;
  return SP_OK;
}

const char *sp_world_kind_name(const SpWorld *w, int kind) {
  return kind >= 0 && kind < w->kind_count ? w->kinds[kind] : NULL;
}

int sp_world_kind_count(const SpWorld *w) { return w->kind_count; }

SpStatus sp_world_add_place(SpWorld *w, int kind, int x, int y, int capacity,
                            uint32_t *id, SpError *err) {
  sp__error_clear(err);
  if (kind < 0 || kind >= w->kind_count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: place kind %d does not exist (%d kinds)", kind,
                         w->kind_count);
  if (capacity < 0)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: place capacity %d is negative", capacity);
  if (w->grid != NULL ? !sp_grid_contains(w->grid, x, y) ||
                            sp_grid_is_blocked(w->grid, x, y)
                      : (x < 0 || y < 0 || x > 65534 || y > 65534))
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: place (%d, %d) is outside the grid or blocked",
                         x, y);
  if (w->place_count >= SP_NO_PLACE - 1u)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "world: too many places");
  void *arr = w->places;
  if (!grow(w->alloc, &arr, &w->place_cap, w->place_count + 1, sizeof(Place)))
    return sp__error_memory(err);
  w->places = arr;
  size_t chains = w->chain_cap;
  arr = w->chains;
  if (!grow(w->alloc, &arr, &w->chain_cap, (size_t)kind + 1, sizeof(KindChain)))
    return sp__error_memory(err);
  w->chains = arr;
  for (size_t k = chains; k < w->chain_cap; k++) {
    w->chains[k].first = w->chains[k].last = SP_NO_PLACE;
    w->chains[k].limited = 0;
  }
  uint32_t pid = (uint32_t)w->place_count;
  Place *p = &w->places[pid];
  p->kind = kind;
  p->x = x;
  p->y = y;
  p->capacity = capacity;
  atomic_init(&p->reserved, 0);
  p->next_of_kind = SP_NO_PLACE;
  p->field_slot = 0;
  KindChain *ch = &w->chains[kind];
  if (ch->last == SP_NO_PLACE)
    ch->first = pid;
  else
    w->places[ch->last].next_of_kind = pid;
  ch->last = pid;
  if (capacity > 0) ch->limited = 1;
  if (id != NULL) *id = (uint32_t)w->place_count;
  w->place_count++;
  return SP_OK;
}

size_t sp_world_place_count(const SpWorld *w) { return w->place_count; }

SpStatus sp_world_place(const SpWorld *w, uint32_t id, SpPlaceInfo *out) {
  if (id >= w->place_count) return SP_ERR_STATE;
  const Place *p = &w->places[id];
  out->kind = p->kind;
  out->x = p->x;
  out->y = p->y;
  out->capacity = p->capacity;
  out->reserved = atomic_load(&((Place *)p)->reserved);
  return SP_OK;
}

void sp_world_set_field_budget(SpWorld *w, size_t bytes) {
  w->field_budget = bytes == 0 ? SP_WORLD_FIELD_BUDGET : bytes;
}

void sp_world_stats(const SpWorld *w, SpWorldStats *out) {
  memset(out, 0, sizeof *out);
  out->places = w->place_count;
  out->fields = w->field_count;
  out->field_bytes = w->field_bytes;
  out->fields_computed = w->computed;
  out->fields_evicted = w->evicted;
  out->ms_fields = w->ms_fields;
  out->waiters = w->queue_len - w->queue_holes;
  out->queue_bytes = w->queue_cap * sizeof(Waiter) +
                     w->lines_cap * sizeof(QueueLine) +
                     w->who_cap * sizeof(uint32_t);
}

/* ------------------------------------------------------------------ */
/* Distance fields                                                    */
/* ------------------------------------------------------------------ */

/* The slot holding the field to `key`, or NULL: a place's field through
 * the place, a cell's by search (few). */
static Field *find_field(const SpWorld *w, uint32_t key) {
  if (key < w->place_count) {
    uint32_t s = w->places[key].field_slot;
    return s > 0 ? &w->fields[s - 1] : NULL;
  }
  for (size_t k = 0; k < w->field_count; k++)
    if (w->fields[k].key == key) return &w->fields[k];
  return NULL;
}

/* Empties a slot: its key, and its place's link to it. */
static void forget_field(SpWorld *w, Field *slot) {
  if (slot->key < w->place_count) w->places[slot->key].field_slot = 0;
  if (slot->key != UINT32_MAX) w->fields_dropped++; /* walkers look */
  slot->key = UINT32_MAX;
}

const float *sp__world_field_peek(const SpWorld *w, uint32_t key) {
  const Field *f = find_field(w, key);
  return f != NULL ? f->dist : NULL;
}

void sp__world_forget_fields(SpWorld *w) {
  /* keep the buffers, forget the keys: they are refilled on demand */
  for (size_t k = 0; k < w->field_count; k++) forget_field(w, &w->fields[k]);
}

void sp__world_check_grid(SpWorld *w) {
  if (w->grid == NULL || sp_grid_version(w->grid) == w->grid_version) return;
  w->grid_version = sp_grid_version(w->grid);
  sp__world_forget_fields(w);
}

static double ms_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
         (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Each open cell's way down the field: the first direction whose
 * neighbour (reachable without cutting a corner) is strictly nearer than
 * the best so far, as a walker comparing the neighbours would choose. */
static void fill_ways(const SpWorld *w, float *dist) {
  const SpGrid *g = w->grid;
  uint8_t *way = (uint8_t *)(dist + w->field_cells);
  memset(way, FIELD_NO_WAY, w->field_cells);
  int width = sp_grid_width(g), height = sp_grid_height(g);
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      size_t cur = sp_grid_field_index(g, x, y);
      float best = dist[cur];
      uint8_t bd = FIELD_NO_WAY;
      for (int d = 0; d < 8; d++) {
        if (!sp_grid_field_step(g, 0, cur, d)) continue;
        float nd = dist[(size_t)((ptrdiff_t)cur + w->way_offset[d])];
        if (nd < best) best = nd, bd = (uint8_t)d;
      }
      way[cur] = bd;
    }
  }
}

/* Each cell's count of way steps to the target (FIELD_HOPS_FAR when its
 * ways end elsewhere, or when there are that many or more): a walker with
 * as many cells to go this frame arrives without stepping. A cell's ways
 * are followed to a cell already counted, then the cells passed are
 * numbered back, so each cell is followed once. Uses the world's scratch
 * (free between distance fields) as the stack. */
#define HOPS_UNSET 0xFFFFu
static void fill_hops(const SpWorld *w, float *dist, size_t target) {
  const uint8_t *way = sp_world_field_ways(w, dist);
  uint16_t *hops = (uint16_t *)((char *)dist + w->hops_offset);
  uint32_t *stack = w->scratch;
  size_t cells = w->field_cells;
  for (size_t k = 0; k < cells; k++) hops[k] = HOPS_UNSET;
  hops[target] = 0;
  for (size_t k = 0; k < cells; k++) {
    size_t n = 0, cur = k;
    while (hops[cur] == HOPS_UNSET) {
      if (way[cur] == FIELD_NO_WAY) {
        hops[cur] = FIELD_HOPS_FAR;
        break;
      }
      stack[n++] = (uint32_t)cur;
      cur = (size_t)((ptrdiff_t)cur + w->way_offset[way[cur]]);
    }
    unsigned h = hops[cur];
    while (n > 0) {
      h = h >= FIELD_HOPS_FAR - 1u ? FIELD_HOPS_FAR : h + 1u;
      hops[stack[--n]] = (uint16_t)h;
    }
  }
}

/* Each cell's index FIELD_SKIP way steps on (composing one step with
 * itself: 1, 2, 4, 8, 16), for walkers with far to go; meaningful where
 * the ways lead on that far (hop count past FIELD_SKIP, not
 * FIELD_HOPS_FAR). A cell without a way maps to itself. */
static void fill_skips(const SpWorld *w, float *dist) {
  if (!w->skips_ok) return;
  const uint8_t *way = sp_world_field_ways(w, dist);
  uint32_t *skip = (uint32_t *)((char *)dist + w->skip_offset);
  uint32_t *tmp = w->scratch;
  size_t cells = w->field_cells;
  for (size_t k = 0; k < cells; k++)
    skip[k] = (uint32_t)(way[k] == FIELD_NO_WAY
                             ? (ptrdiff_t)k
                             : (ptrdiff_t)k + w->way_offset[way[k]]);
  for (int twice = 0; twice < 2; twice++) {
    for (size_t k = 0; k < cells; k++) tmp[k] = skip[skip[k]];
    for (size_t k = 0; k < cells; k++) skip[k] = tmp[tmp[k]];
  }
}

/* Finds or computes the field. A new field takes a free buffer (one whose
 * key was dropped), a new buffer while the budget allows, or the least
 * recently used buffer. */
const float *sp__world_field_get(SpWorld *w, uint32_t key, int x, int y) {
  w->clock++;
  Field *found = find_field(w, key);
  if (found != NULL) {
    found->used = w->clock;
    return found->dist;
  }
  if (w->grid == NULL) return NULL;
  Field *slot = NULL;
  for (size_t k = 0; k < w->field_count && slot == NULL; k++)
    if (w->fields[k].key == UINT32_MAX) slot = &w->fields[k];
  if (slot == NULL && (w->field_count == 0 ||
                       w->field_bytes + w->field_size <= w->field_budget)) {
    void *arr = w->fields;
    if (grow(w->alloc, &arr, &w->field_cap, w->field_count + 1,
             sizeof(Field))) {
      w->fields = arr;
      float *dist = sp__mem_alloc(w->alloc, w->field_size);
      if (dist != NULL) {
        slot = &w->fields[w->field_count++];
        slot->dist = dist;
        slot->key = UINT32_MAX;
        slot->used = 0;
        w->field_bytes += w->field_size;
      }
    }
  }
  if (slot == NULL) {
    if (w->field_count == 0) return NULL;
    slot = &w->fields[0];
    for (size_t k = 1; k < w->field_count; k++)
      if (w->fields[k].used < slot->used) slot = &w->fields[k];
    w->evicted++;
  }
  forget_field(w, slot);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  SpGridPoint t = {x, y};
  SpGridError gerr;
  SpStatus st =
      sp_grid_distance_field(w->grid, t, NULL, slot->dist, w->scratch, &gerr);
  w->ms_fields += ms_since(&t0);
  if (st != SP_OK) return NULL;
  fill_ways(w, slot->dist);
  fill_hops(w, slot->dist, sp_grid_field_index(w->grid, x, y));
  fill_skips(w, slot->dist);
  w->computed++;
  slot->key = key;
  if (key < w->place_count)
    w->places[key].field_slot = (uint32_t)(slot - w->fields) + 1;
  slot->used = w->clock;
  return slot->dist;
}

/* A new field has room without forgetting one: a buffer whose key was
 * dropped, or the budget allows another. */
static int field_room(const SpWorld *w) {
  for (size_t k = 0; k < w->field_count; k++)
    if (w->fields[k].key == UINT32_MAX) return 1;
  return w->field_count == 0 ||
         w->field_bytes + w->field_size <= w->field_budget;
}

size_t sp_world_warm_fields(SpWorld *w, double ms, size_t *built) {
  size_t made = 0, left = 0;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (w->grid != NULL) sp__world_check_grid(w);
  for (uint32_t p = 0; w->grid != NULL && p < w->place_count; p++) {
    if (w->places[p].field_slot != 0) continue;
    if ((ms > 0 && ms_since(&t0) >= ms) || !field_room(w)) {
      left++;
      continue;
    }
    if (sp__world_field_get(w, p, w->places[p].x, w->places[p].y) != NULL)
      made++;
    else
      left++;
  }
  if (built != NULL) *built = made;
  return left;
}
