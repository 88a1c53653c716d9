/* slots.c: agent slots: their generations, the free list, and whether an index names a live agent. */
#include <string.h>

#include "sp_agents.h"
#include "sp_slots.h"
#include "sp_error.h"
#include "sp_internal.h"

/* ------------------------------------------------------------------ */
/* Slots                                                              */
/* ------------------------------------------------------------------ */

static size_t slot_bytes(const SpCrowd *c) {
  return 2u * (c->capacity + 1) * sizeof(uint32_t);
}

int sp__crowd_slots_ready(SpCrowd *c) {
  if (c->gens != NULL) return 1;
  uint32_t *block = sp__mem_alloc(c->alloc, slot_bytes(c));
  if (block == NULL) return 0;
  memset(block, 0, slot_bytes(c));
  c->gens = block;
  c->free_slots = block + c->capacity + 1;
  c->free_count = 0;
  return 1;
}

void sp__crowd_slots_free(SpCrowd *c) {
  if (c->gens != NULL) sp__mem_free(c->alloc, c->gens, slot_bytes(c));
  c->gens = c->free_slots = NULL;
  c->free_count = 0;
}

int sp_crowd_alive(const SpCrowd *c, size_t agent) {
  return agent < c->n && c->agents[agent].phase != SP_PHASE_FREE;
}

uint32_t sp_crowd_generation(const SpCrowd *c, size_t agent) {
  return c->gens != NULL && agent < c->capacity ? c->gens[agent] : 0;
}

SpStatus sp__agent_check(const SpCrowd *c, size_t i, SpError *err) {
  if (i < c->n && c->agents[i].phase != SP_PHASE_FREE) return SP_OK;
  if (i < c->n)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu was despawned", i);
  return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                       "crowd: agent %zu does not exist (%zu slots)", i, c->n);
}
