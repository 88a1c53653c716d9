/* walk.c: walkers follow the way bytes of their target's distance field, several walkers stepping in turn so their memory loads overlap; between cells they sleep until the tick their next cell is due. */
#include <limits.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_space.h"
#include "sp_walk.h"

/* ------------------------------------------------------------------ */
/* Due ticks of walkers                                               */
/* ------------------------------------------------------------------ */

/* A walker's cell per walk_ticks: an exact integer, so a walk's cells fall
 * due at its start plus whole multiples of it, whatever the frames
 * (rounded down: a walker is never slower than its speed). */
#define WALK_TICKS_MAX (1u << 30)

uint32_t sp__walk_ticks(float speed) {
  double p = floor(SP_TICKS_PER_S / (double)speed);
  return !(p >= 1.0) ? 1u : p >= WALK_TICKS_MAX ? WALK_TICKS_MAX : (uint32_t)p;
}

/* Cells walker i's progress covers now: none before its due tick, then
 * one more each walk_ticks. */
static uint32_t cells_due(const SpCrowd *c, size_t i) {
  uint32_t due = sp_due_get(c, i), now = c->now_rel;
  return due > now ? 0u : 1u + (now - due) / c->walk_ticks;
}

/* Walker i walked k cells: its next one is due k cells' time later. */
static void walked_cells(SpCrowd *c, size_t i, uint32_t k) {
  uint64_t d = (uint64_t)sp_due_get(c, i) + (uint64_t)k * c->walk_ticks;
  sp_due_put(c, i, d > UINT32_MAX ? UINT32_MAX : (uint32_t)d);
}

int sp__walk_sleeps(const SpCrowd *c, size_t i) {
  const Agent *a = &c->agents[i];
  return sp_walk_timed(c, i) && !(c->agents[i].flags & F_BIND) &&
         !sp_due_passed(c, i) && (a->x != a->tx || a->y != a->ty);
}

void sp__walk_check_fields(SpCrowd *c) {
  const SpWorld *w = c->world;
  if (c->fields_seen == w->fields_dropped) return;
  c->fields_seen = w->fields_dropped;
  if (w->grid == NULL) return;
  for (size_t i = 0; i < c->n; i++)
    if (c->agents[i].phase == SP_PHASE_WALKING &&
        !(c->agents[i].flags & F_BIND) &&
        sp__world_field_peek(w, sp__agent_field_key(c, &c->agents[i])) == NULL)
      sp_agent_wake(c, i);
}

void sp__walk_loaded(SpCrowd *c, size_t i) {
  double left = floor((1.0 - (double)c->agents[i].time) * c->walk_ticks + 0.5);
  double d = (double)c->now_rel + left;
  sp_due_put(c, i, d <= 0.0 ? 0u : d >= UINT32_MAX ? UINT32_MAX : (uint32_t)d);
}

/* ------------------------------------------------------------------ */
/* Walking                                                            */
/* ------------------------------------------------------------------ */

uint32_t sp__agent_field_key(const SpCrowd *c, const Agent *a) {
  if (a->target != SP_NO_PLACE) return a->target;
  return FIELD_CELL_KEY |
         (uint32_t)(a->ty * sp_grid_width(c->world->grid) + a->tx);
}

static const int DX[8] = {1, -1, 0, 0, 1, -1, 1, -1};
static const int DY[8] = {0, 0, 1, -1, 1, 1, -1, -1};

/* One walker on a grid: its cell (index and coordinates), the target's
 * index, the whole cells it may walk this frame and those walked. */
typedef struct Lane {
  const uint8_t *way;
  const ptrdiff_t *off;
  ptrdiff_t cur, goal;
  int x, y;
  int k, cells;
  size_t due; /* its index in the list walked */
} Lane;

enum { LANE_ON = 0, LANE_NO_WAY, LANE_ARRIVED, LANE_TIRED };

static int lane_end(SpCrowd *c, size_t i, const Lane *l, int how);

/* Sets up agent i's walk of this frame: WALK_ARRIVED or WALK_STAYED when
 * it is settled at once, WALK_NOT when the lane must step. */
static int lane_start(SpCrowd *c, size_t i, Lane *l) {
  Agent *a = &c->agents[i];
  if (a->x == a->tx && a->y == a->ty) return WALK_ARRIVED;
  const SpWorld *w = c->world;
  const float *f = sp__world_field_peek(w, sp__agent_field_key(c, a));
  if (f == NULL) {
    c->agents[i].flags |= F_BIND;
    return WALK_STAYED;
  }
  /* the cells due by now; a descent ends within as many cells as the
   * field has */
  size_t most = w->field_cells < INT_MAX ? w->field_cells : INT_MAX;
  uint32_t due = cells_due(c, i);
  int cells = due < most ? (int)due : (int)most;
  if (cells <= 0) return WALK_STAYED;
  size_t at = sp_grid_field_index(w->grid, a->x, a->y);
  size_t goal = sp_grid_field_index(w->grid, a->tx, a->ty);
  /* near enough to arrive this frame: the ways lead to the target cell
   * (the field's own: its count is 0), no need to step them */
  const uint16_t *hops = sp_world_field_hops(w, f);
  if (hops[at] <= (unsigned)cells && hops[goal] == 0) {
    a->x = a->tx, a->y = a->ty;
    sp_index_note(c, i);
    c->agents[i].time = 0.0f;
    return WALK_ARRIVED;
  }
  l->way = sp_world_field_ways(w, f);
  l->off = w->way_offset;
  l->x = a->x, l->y = a->y;
  l->cur = (ptrdiff_t)at;
  l->goal = (ptrdiff_t)goal;
  l->k = 0;
  l->cells = cells;
  /* far from the target on ways that lead there: FIELD_SKIP cells at a
   * time (it does not arrive this frame), then the cell's coordinates */
  if (hops[at] != FIELD_HOPS_FAR && hops[goal] == 0 && w->skips_ok &&
      cells >= FIELD_SKIP) {
    const uint32_t *skip = sp_world_field_skips(w, f);
    while (cells - l->k >= FIELD_SKIP) {
      l->cur = skip[l->cur];
      l->k += FIELD_SKIP;
    }
    ptrdiff_t rel = l->cur - w->index_origin;
    l->x = (int)(rel % w->index_row);
    l->y = (int)(rel / w->index_row);
    if (l->k == cells) {
      lane_end(c, i, l, LANE_TIRED);
      return WALK_STAYED;
    }
  }
  return WALK_NOT;
}

/* One cell down the field (the way byte of the cell), or why not. */
static inline int lane_step(Lane *l) {
  unsigned d = l->way[l->cur];
  if (d == FIELD_NO_WAY) return LANE_NO_WAY;
  l->cur += l->off[d];
  l->x += DX[d], l->y += DY[d];
  l->k++;
  if (l->cur == l->goal) return LANE_ARRIVED;
  return l->k == l->cells ? LANE_TIRED : LANE_ON;
}

/* Writes a finished lane back to agent i. */
static int lane_end(SpCrowd *c, size_t i, const Lane *l, int how) {
  Agent *a = &c->agents[i];
  a->x = (uint16_t)l->x, a->y = (uint16_t)l->y;
  sp_index_note(c, i);
  if (how == LANE_ARRIVED) {
    c->agents[i].time = 0.0f;
    return WALK_ARRIVED;
  }
  walked_cells(c, i, (uint32_t)l->k);
  if (how == LANE_NO_WAY)
    c->agents[i].flags |= F_BIND; /* the serial pass judges */
  return WALK_STAYED;
}

/* Without a grid: straight toward the target, a cell at a time. */
static int walk_open(SpCrowd *c, size_t i) {
  Agent *a = &c->agents[i];
  if (a->x == a->tx && a->y == a->ty) return 1;
  uint32_t cells = cells_due(c, i);
  for (uint32_t k = 0; k < cells; k++) {
    a->x = (uint16_t)(a->x + (a->tx > a->x) - (a->tx < a->x));
    a->y = (uint16_t)(a->y + (a->ty > a->y) - (a->ty < a->y));
    if (a->x == a->tx && a->y == a->ty) {
      sp_index_note(c, i);
      c->agents[i].time = 0.0f;
      return 1;
    }
  }
  sp_index_note(c, i);
  walked_cells(c, i, cells);
  return 0;
}

int sp__agent_walk(SpCrowd *c, size_t i) {
  if (c->world->grid == NULL) return walk_open(c, i);
  Lane l;
  int r = lane_start(c, i, &l);
  if (r != WALK_NOT) return r == WALK_ARRIVED;
  int how;
  do how = lane_step(&l);
  while (how == LANE_ON);
  return lane_end(c, i, &l, how) == WALK_ARRIVED;
}

/* Walkers step in turn, WALK_LANES at a time: each cell's way byte is a
 * load the next cell depends on, so a lone walker waits on memory at every
 * cell while several walkers' loads overlap. A walk reads only its own
 * agent and the (read-only) fields, so walking before the agents' turns
 * ends as walking in their turns would. */
#define WALK_LANES 8
/* Agents' records are requested this many agents before a lane takes
 * them (the turns of the agents read them next, from the cache). */
#define RECORD_AHEAD 8

void sp__agent_walk_many(SpCrowd *c, const uint32_t *due, size_t n,
                         uint8_t *walked) {
  memset(walked, WALK_NOT, n);
  if (c->world->grid == NULL) return;
  Lane lane[WALK_LANES];
  int active = 0;
  size_t next = 0;
  for (;;) {
    while (active < WALK_LANES && next < n) {
      size_t k = next++, i = due[k];
      if (k + RECORD_AHEAD < n) sp_agent_prefetch(c, due[k + RECORD_AHEAD]);
      if (c->agents[i].phase != SP_PHASE_WALKING ||
          (c->agents[i].flags & F_BIND))
        continue;
      int r = lane_start(c, i, &lane[active]);
      if (r != WALK_NOT) {
        walked[k] = (uint8_t)r;
        continue;
      }
      lane[active++].due = k;
    }
    if (active == 0) return;
    for (int j = 0; j < active;) {
      int how = lane_step(&lane[j]);
      if (how == LANE_ON) {
        j++;
        continue;
      }
      size_t k = lane[j].due;
      walked[k] = (uint8_t)lane_end(c, due[k], &lane[j], how);
      lane[j] = lane[--active];
    }
  }
}
