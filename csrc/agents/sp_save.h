/* sp_save.h: the saved-world format shared by save.c and load.c: layout, byte order, checksum, fingerprints. */
#ifndef sp_save_h
#define sp_save_h

#include <stdint.h>
#include <string.h>

#include "sp_agents.h"

/* A save: a 32-byte header, then the payload it checksums.
 *   header:  "SASPUSAV", u32 version, u32 0, u64 payload bytes,
 *            u64 FNV-1a 64 of the payload
 *   world:   u64 grid print (0: no grid), u64 places print, u32 places,
 *            per place u32 reserved; u64 field clock, u32 fields, per
 *            field u32 key, u64 last use (which fields were cached:
 *            their contents are recomputed on load)
 *   crowds:  u32 count, then per crowd: u64 domain print, u64 setup
 *            print, u64 agents, f64 clock, u8 selector, u32 goals, per
 *            goal (sorted) i32 priority, u32 index, m condition bytes,
 *            m `when` bytes; 6 u64 counters; u32 refusal words; then
 *            per agent SAVE_AGENT_BYTES (sp_save_agent), the refusal
 *            words, m state bytes, m goal bytes, u8 result (SpNpcStatus
 *            | failure code << 2 | dirty << 7) and, with a plan, u16
 *            length and its ids (1 byte each under 256 actions, else 2);
 *            then u32 free slots and their indices (the order spawns
 *            reuse them, last first). A despawned slot keeps the record
 *            of its last agent with phase SP_PHASE_FREE and flags 0. 
 *   extra:   u32 bytes, then the caller's own bytes (the Lua side's)
 * Every number is little-endian. */
#define SAVE_MAGIC "SASPUSAV"
#define SAVE_HEADER_BYTES 32u
#define SAVE_AGENT_BYTES 62u /* the record, time, phase, flags, generation */
#define SAVE_COUNTERS 6
#define SAVE_FNV_START 0xcbf29ce484222325ull

static inline void sp_save_put(uint8_t *p, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static inline uint64_t sp_save_get(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

static inline uint32_t sp_save_float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

uint64_t sp_save_fnv(uint64_t h, const void *p, size_t n);
/* What a save depends on but does not carry: the grid's size and cells,
 * the place kinds and places, a crowd's compiled domain, and its action
 * behaviours and options (set by the game code that builds the world). */
uint64_t sp_save_grid_print(const SpGrid *g);
uint64_t sp_save_places_print(const SpWorld *w);
uint64_t sp_save_domain_print(const SpDomain *d);
uint64_t sp_save_setup_print(const SpCrowd *c);
/* Adds each bound agent of the crowds to held[its place]. */
void sp_save_count_held(const SpCrowd *const *crowds, size_t count,
                        uint32_t *held);

#endif
