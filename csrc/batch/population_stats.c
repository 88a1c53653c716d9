/* population_stats.c: what a population holds and has done: NPCs by result, cache use, bytes. */
#include <string.h>

#include "sp_population.h"

void sp_population_stats(const SpPopulation *pop, SpPopulationStats *out) {
  memset(out, 0, sizeof *out);
  out->npcs = pop->n;
  out->dirty = atomic_load(&pop->dirty_count);
  for (size_t i = 0; i < pop->n; i++) {
    switch (pop->status[i] & ST_KIND_MASK) {
    case ST_SLOT: out->planned++; break;
    case ST_CACHE:
      out->planned++;
      out->in_cache++;
      break;
    case ST_NO_PLAN: out->no_plan++; break;
    default: out->unplanned++; break;
    }
  }
  out->cache_hits = pop->hits;
  out->cache_misses = pop->misses;
  out->cache_capacity = pop->cache_capacity;
  out->workers = pop->worker_count;
  size_t workers = pop->worker_raw_bytes, table_resident = 0;
  if (pop->table != NULL) {
    workers += pop->table->bytes;
    table_resident = sp__mem_resident(pop->table->cells,
                                      pop->table->bytes - sizeof *pop->table);
  }
  for (int k = 0; k < pop->worker_count; k++) {
    const Worker *w = pop->workers[k];
    workers += sp_workspace_size_bytes(w->ws) + w->scratch_bytes;
    if (w->cache != NULL) {
      out->cache_entries += w->cache->count;
      out->cache_rejected += w->cache->rejected;
      workers += sp__plan_cache_size_bytes(w->cache);
    }
  }
  out->bytes_per_npc =
      2u * (size_t)pop->m + 1u + sizeof(uint32_t) + pop->slot_bytes;
  out->bytes_npcs = pop->block_bytes;
  out->bytes_workers = workers;
  out->bytes_total = sizeof *pop + pop->block_bytes + workers;
  out->bytes_resident = out->bytes_total - pop->block_bytes +
                        sp__mem_resident(pop->block, pop->block_bytes);
  if (pop->table != NULL)
    out->bytes_resident -=
        pop->table->bytes - sizeof *pop->table - table_resident;
}
