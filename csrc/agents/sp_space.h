/* sp_space.h: private to csrc/agents/: the spatial index of a crowd (index.c, near.c) and the sensors that read it (sense.c). */
#ifndef sp_space_h
#define sp_space_h

#include "sp_agents.h"

/* After agent i's cell may have changed: keeps its key, marks its chunk
 * (a worker writes only its own chunk's record). Nothing without an
 * index. */
static inline void sp_index_note(SpCrowd *c, size_t i) {
  uint32_t *cell = c->index.cell;
  if (cell == NULL) return;
  uint32_t k = (uint32_t)c->agents[i].y << 16 | c->agents[i].x;
  if (cell[i] == k) return;
  cell[i] = k;
  c->chunks[i / SP_CROWD_CHUNK].moved = 1;
  c->chunks[i / SP_CROWD_CHUNK].traced = 1;
}

/* Agent i was despawned: out of the index at the next query. */
static inline void sp_index_drop(SpCrowd *c, size_t i) {
  if (c->index.cell == NULL) return;
  c->index.cell[i] = UINT32_MAX;
  c->chunks[i / SP_CROWD_CHUNK].moved = 1;
  c->chunks[i / SP_CROWD_CHUNK].traced = 1;
}

/* Makes the index's buckets current (creating it on first use).
 * SP_ERR_MEMORY leaves the crowd as it was. */
SpStatus sp__index_ready(SpCrowd *c, SpError *err);

/* The cell keys, made on first use from the records; SP_ERR_MEMORY
 * leaves none. */
SpStatus sp__index_keys(SpCrowd *c, SpError *err);

/* Takes in the chunks' moved marks: 1 when the buckets are current. */
int sp__index_fresh(SpCrowd *c);

/* The index's resident bytes that grow with the agents. */
size_t sp__index_bytes(const SpCrowd *c);

/* 1 when some live agent is within Chebyshev distance r of (x, y); the
 * index must be ready. */
int sp__index_any(const SpCrowd *c, int x, int y, int r);

void sp__index_free(SpCrowd *c);

/* Every agent's key again from its record (after a load). */
void sp__index_reset(SpCrowd *c);

/* Serial, before a frame: the readings due. SP_ERR_MEMORY (nothing
 * changed) when a sensed crowd's index cannot be made. */
SpStatus sp__sensors_ready(SpCrowd *c, SpError *err);

/* An agent whose reading changed goes to `changed`. */
void sp__sensors_read(SpCrowd *c, SpChanged changed);

/* 1 when variable var is a sensor's. */
int sp__sensor_of(const SpCrowd *c, int var);

/* 1 when a live agent other than `skip` is within r (index ready). */
int sp__index_any_but(const SpCrowd *c, int x, int y, int r, size_t skip);

#endif
