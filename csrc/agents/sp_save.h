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
 *            their contents are recomputed on load); u32 facts, per
 *            fact u8 value (names and values are in the places print)
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
 *            of its last agent with phase SP_PHASE_FREE and flags 0;
 *            u8 fact ties, per tie u8 the value it applied last (the
 *            ties are in the setup print); u8 sensors, per sensor f64
 *            the crowd clock of its next reading; u32 chases (walking
 *            agents going to another agent), per chase u32 agent, u32
 *            its target's crowd (index in this save, UINT32_MAX: gone),
 *            u32 target slot, u32 its generation, u16 reach, u8 path
 *            cells, u8 next cell, u16 x, u16 y the target's cell when
 *            the path was found (0xFFFF: none), and per path cell u16 x,
 *            u16 y.
 *   extra:   u32 bytes, then the caller's own bytes (the Lua side's)
 * Every number is little-endian. */
#define SAVE_MAGIC "SASPUSAV"
#define SAVE_HEADER_BYTES 32u
#define SAVE_AGENT_BYTES 64u /* the record, time, phase, flags, generation,
                               back-off */
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

/* ------------------------------------------------------------------ */
/* What the update relies on (check.c)                                */
/* ------------------------------------------------------------------ */
/* Between two updates every agent i < n of a crowd satisfies these; the
 * update (step.c, walk.c, update.c) and the readers (inspect, why, plan,
 * events) index tables with these fields without checking them again.
 * A load checks every saved agent against them before anything changes,
 * and the random tests check every live agent after every update, so the
 * update and the loader cannot drift apart. With F_NEED_GOAL the next
 * update starts the agent over (goal pass first): the phase invariants
 * (P*) do not apply then, the others do.
 *   R1 phase: idle, walking, acting, script, blocked, thinking or moving;
 *      or free (a despawned slot: flags 0, nothing else checked).
 *   R2 goal, pursued: a goal of the crowd, or none.
 *   R3 why, reason: a reason; fcode: a failure code; fail_action,
 *      faction, fother: an action or -1, except fail_action after a
 *      no_plan (-2 - a goal's index) and fother of a no_setter or
 *      unreachable failure (-1, or two values of fvar: the blocker's);
 *      fvar: a variable or -1; fvalue: none, or a value of fvar; a repeat
 *      or order failure names faction.
 *   R4 target, home, cool_place: a place or none; cool_until finite;
 *      shun: a goal's add index or none; with one, cool_place none.
 *   R5 (x, y) a cell of the grid; (tx, ty) both none or a cell; a target
 *      place with a target cell: the place's cell.
 *   R6 F_HAS_PLAN: the population holds a plan, goal is not none, cursor
 *      <= its length and done marks no position past its end.
 *   R7 step (not none): the population holds a plan with that position,
 *      cursor <= step < cursor + DONE_WINDOW, and step is not done.
 *   R8 F_PLANNING: goal is not none, no step, no F_HAS_PLAN, thinking.
 *   R9 F_FINISH or F_FAIL (not both): script or moving, with a step.
 *   R10 F_RESERVED: a step, a target place, the target cell its cell;
 *      per place the reservations are the agents holding one, at most
 *      its capacity.
 *   R11 time finite, unless F_FAIL (then it holds the failure's detail);
 *      walking: not negative.
 *   P1 walking: a step, F_HAS_PLAN, and F_BIND or a target cell.
 *   P2 acting: a step and F_HAS_PLAN.
 *   P3 script: a step and F_HAS_PLAN, or (a selector crowd waiting for
 *      the caller's goal) no step and no plan.
 *   P4 blocked: no step, F_HAS_PLAN.
 *   P5 thinking: no step; F_HAS_PLAN or F_PLANNING.
 *   P6 idle: no step, no F_HAS_PLAN.
 *   P7 F_BIND: walking.
 *   P8 moving: a step, F_HAS_PLAN and a target cell.
 */
typedef struct SpAgentView {
  const Agent *a;
  uint8_t phase, flags;
  uint32_t time_bits;    /* the float's bits */
  int planned;           /* the population holds a plan */
  int len;               /* its length, or -1 */
} SpAgentView;
/* The crowd a view belongs to, as saved: its goals and selector. */
typedef struct SpCrowdView {
  const SpCrowd *c;      /* domain, world, action count */
  int goals;
  int selector;
} SpCrowdView;
/* NULL when the agent satisfies R1..R11 and P1..P8 (the per-place counts
 * of R10 are the caller's); else what is wrong, naming the field, written
 * to buf. */
const char *sp_save_check_agent(const SpCrowdView *cv, const SpAgentView *v,
                                char *buf, size_t size);
/* Every agent of a live crowd and the places' reservations (R10): SP_OK,
 * or SP_ERR_STATE naming the agent and the field. Tests call it after
 * every update. */
SpStatus sp_crowd_check(const SpCrowd *c, SpError *err);

#endif
