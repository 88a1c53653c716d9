/* sp_save.h: the saved-world format shared by save.c and load.c: layout, byte order, checksum, fingerprints. */
#ifndef sp_save_h
#define sp_save_h

#include <stdint.h>
#include <string.h>

#include "saspu_save.h"
#include "sp_agents.h"
#include "sp_due.h"

/* A save: a 32-byte header, then the payload it checksums.
 *   header:  "SASPUSAV", u32 version, u32 0, u64 payload bytes,
 *            u64 FNV-1a 64 of the payload
 *   names:   (format 6 on; format 5 starts at `world`) what a load under
 *            migration maps by (save_names.c): u32 places, per place a
 *            name; u32 facts, per fact a name, u8 values, their names;
 *            u32 crowds, per crowd its domain's name, u64 agents, u32
 *            variables, per variable a name, u8 values, their names;
 *            u32 actions, per action a name and u64 its signature
 *            (sp__save_action_sig); u32 goals, per goal (index order) a
 *            name. A name: u8 length 1..SAVE_NAME_MAX, that many bytes,
 *            no NUL; (format 9) a longer name, whole: u8 255, u32 length
 *            (255 or more), its bytes (format 6 to 8 cut it at 255).
 *   world:   u64 grid print (0: no grid), u64 places print, u32 places,
 *            per place u32 reserved; u64 field clock, u32 fields, per
 *            field u32 key, u64 last use (which fields were cached:
 *            their contents are recomputed on load); u32 facts, per
 *            fact u8 value (names and values are in the places print)
 *   crowds:  u32 count, then per crowd: u64 domain print, u64 setup
 *            print, u64 agents, f64 clock, u8 selector, u32 goals, per
 *            goal (sorted) i32 priority, u32 index, m condition bytes,
 *            m `when` bytes; 6 u64 counters; u32 refusal words; then
 *            per agent SAVE_AGENT_BYTES (sp_save_agent; byte 56, the
 *            phase, has SAVE_PHASE_TOLD in format 10), the refusal
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
 *            u16 y; (format 8) u32 own priorities, sorted by agent then
 *            goal, per one u32 agent slot, u32 goal (add index), i32
 *            priority.
 *   queue:   (format 8) u32 waiters, oldest first, per waiter u32 crowd
 *            (1-based position in the save), u32 agent slot, u32 key (a
 *            place, or 0x80000000 | a kind), u16 the step's action
 *   extra:   u32 bytes, then the caller's own bytes (the Lua side's)
 * Every number is little-endian. */
#define SAVE_MAGIC        "SASPUSAV"
#define SAVE_HEADER_BYTES 32u
#define SAVE_AGENT_BYTES                                                       \
  64u /* the record, time, phase, flags, generation,
                               back-off */
/* Bit 7 of a record's phase byte (format 10): the game heard of the
 * agent's move (SP_EV_MOVE) and of no end of it yet, so the update that
 * ends its step says SP_EV_MOVE_CANCELLED. Before format 10 a load takes
 * it from the phase alone (moving), which misses a step the caller
 * failed, or a higher goal dropped, while the game moved the agent. */
#define SAVE_PHASE_TOLD 0x80u

/* Whether agent i's record is saved with SAVE_PHASE_TOLD: the game heard
 * of its move and its step runs still (a despawned slot's flag waits for
 * its next spawn to clear it; a step a loaded save said was moving, that
 * ended as an acting one, leaves no word to keep). */
static inline int sp_agent_told(const SpCrowd *c, size_t i) {
  return c->announced != NULL && c->announced[i] &&
         c->agents[i].phase != SP_PHASE_FREE && c->agents[i].step != STEP_NONE;
}
#define SAVE_COUNTERS  6
#define SAVE_OLDEST    5u   /* the oldest format a load reads (no names) */
#define SAVE_NAME_MAX  254u /* with a u8 length (format 9) */
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

uint64_t sp__save_fnv(uint64_t h, const void *p, size_t n);
/* What a save depends on but does not carry: the grid's size and cells,
 * the place kinds and places, a crowd's compiled domain, and its action
 * behaviours and options (set by the game code that builds the world). */
uint64_t sp__save_grid_print(const SpGrid *g);
uint64_t sp__save_places_print(const SpWorld *w);
uint64_t sp__save_domain_print(const SpDomain *d);
/* The setup print as format `version` wrote it (format 9 on: with the
 * crowd's movement). */
uint64_t sp__save_setup_print(const SpCrowd *c, uint32_t version);
/* Adds each bound agent of the crowds to held[its place]. */
void sp__save_count_held(const SpCrowd *const *crowds, size_t count,
                         uint32_t *held);

/* A growing output buffer (save.c): room() is NULL once the allocator
 * failed, and every later put is a no-op, so a writer checks oom once. */
typedef struct SpSaveOut {
  SpAllocator alloc;
  uint8_t *p;
  size_t len, cap;
  int oom;
} SpSaveOut;
uint8_t *sp__save_room(SpSaveOut *o, size_t n);
void sp__save_out(SpSaveOut *o, uint64_t v, int bytes);
void sp__save_out_bytes(SpSaveOut *o, const void *src, size_t n);
/* Seals o as a save of `version`: the header's length and checksum, and
 * the buffer shrunk to its length (*out, *len). SP_ERR_MEMORY frees it. */
SpStatus sp__save_seal(SpSaveOut *o, uint32_t version, void **out, size_t *len,
                       SpError *err);

/* ------------------------------------------------------------------ */
/* Names (save_names.c)                                               */
/* ------------------------------------------------------------------ */
/* A name inside the save's bytes (not NUL-terminated). */
typedef struct SaveStr {
  const uint8_t *p;
  size_t len;
} SaveStr;
/* A variable or fact and its values: str[at[v]] is v's name, its values
 * str[at[v] + 1 .. at[v + 1]). */
typedef struct SaveVars {
  uint32_t count;
  const SaveStr *str;
  const uint32_t *at; /* count + 1 */
} SaveVars;
typedef struct SaveCrowdNames {
  SaveStr name;
  uint64_t agents;
  SaveVars vars;
  uint32_t actions, goals;
  const SaveStr *act; /* actions, and their signatures */
  const uint64_t *sig;
  const SaveStr *goal; /* goals, by index */
} SaveCrowdNames;
typedef struct SaveNames {
  SpAllocator alloc;
  uint32_t places, crowds;
  const SaveStr *place;
  SaveVars facts;
  SaveCrowdNames *crowd;
  size_t end; /* the payload offset past the block */
  void *mem;  /* one allocation holding the arrays */
  size_t mem_bytes;
} SaveNames;
int sp__save_vars_find(const SaveVars *v, const char *name);
int sp__save_values_find(const SaveVars *v, int var, const char *name);
static inline uint32_t sp_save_value_count(const SaveVars *v, int var) {
  return v->at[var + 1] - v->at[var] - 1;
}
/* The names block of a format-6 (or later: `version`) payload p[0..len)
 * (after the header):
 * checks every count and name against the bytes (bounded, no NUL), then,
 * when out is not NULL, fills *out (free with sp__save_names_free).
 * NULL when sound, else what is wrong (written to buf). */
const char *sp__save_names_read(const uint8_t *p, size_t len, uint32_t version,
                                SpAllocator alloc, SaveNames *out, char *buf,
                                size_t size);
void sp__save_names_free(SaveNames *n);
extern const char sp__save_no_memory[]; /* what the read returns then */
/* Where the world's part of a sound save starts (32 before format 6;
 * after the names block from 6 on); 0 when the names are malformed. */
size_t sp__save_body_at(const uint8_t *save, size_t len);
/* Writes the names block of w and crowds (names: see SpSaveNames; agents
 * per crowd, or NULL: the crowds' own counts). */
void sp__save_put_names(SpSaveOut *o, const SpWorld *w,
                        const SpCrowd *const *crowds, size_t count,
                        const SpSaveNames *names, const uint64_t *agents);
/* What a load under migration compares an action by: its name, its
 * variable, pre, post and prevails by name, and its behaviour (durations,
 * binding with the place's or kind's name, flags). */
uint64_t sp__save_action_sig(const SpCrowd *c, int action,
                             const SpSaveNames *names);
/* Place p's name: the caller's, or "<kind>#<p + 1>" written to buf. */
const char *sp__save_place_name(const SpWorld *w, size_t p,
                                const SpSaveNames *names, char *buf,
                                size_t size);
int sp__save_str_is(SaveStr s, const char *name);

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
 *      walking: not negative; acting: at most the running step's
 *      max_duration or, when that is shorter, the clock's range
 *      (SP_CROWD_CLOCK_MAX: the game may have shortened the action's
 *      durations since the time was drawn); blocked: at most the longest
 *      wait a block draws
 *      (retry * SP_BACKOFF_CAP or the cooldown), both as seconds left
 *      (sp__save_time_max); a chase's progress (load_chase_queue.c)
 *      under one cell.
 *   R12 the world's queue of waiters: each entry names a slot, an action
 *      and a place or kind that exist, each slot at most once; an agent
 *      is marked queued exactly when an entry of its slot generation
 *      names it (check.c, sp__crowd_check).
 *   R13 the agents' own priorities: sorted by agent then goal, each
 *      once, naming a live agent and a goal of the crowd.
 *   R14 a move the game heard of (SAVE_PHASE_TOLD): a live agent with a
 *      step, in a crowd the game moves.
 *   P1 walking: a step, F_HAS_PLAN, and F_BIND or a target cell.
 *   P2 acting: a step and F_HAS_PLAN.
 *   P3 script: a step and F_HAS_PLAN, or (a selector crowd waiting for
 *      the caller's goal) no step and no plan.
 *   P4 blocked: no step, F_HAS_PLAN.
 *   P5 thinking: no step; F_HAS_PLAN or F_PLANNING.
 *   P6 idle: no step, no F_HAS_PLAN.
 *   P7 F_BIND: walking.
 *   P8 moving: a step, F_HAS_PLAN and a target cell; only in a crowd
 *      the engine moves (a crowd saspu moves never waits for arrived()).
 */
typedef struct SpAgentView {
  const Agent *a;
  const FailDetail *d; /* its last no_plan's detail */
  uint8_t phase, flags;
  uint32_t time_bits; /* the float's bits */
  int planned;        /* the population holds a plan */
  int len;            /* its length, or -1 */
  int act;            /* the running step's action, or -1 */
  int told;           /* the game heard of its move (SAVE_PHASE_TOLD) */
} SpAgentView;
/* The crowd a view belongs to, as saved: its goals and selector. */
typedef struct SpCrowdView {
  const SpCrowd *c; /* domain, world, action count */
  int goals;
  int selector;
  double clock; /* its clock (a wait rounds to the float of a time) */
} SpCrowdView;
/* The most seconds left a wait of `phase` (acting action `act`, or
 * blocked) can hold in crowd c at `clock`, rounding included; -1 for a
 * phase without a timed wait. */
double sp__save_time_max(const SpCrowd *c, uint8_t phase, int act,
                         double clock);
/* NULL when the agent satisfies R1..R11 and P1..P8 (the per-place counts
 * of R10 are the caller's); else what is wrong, naming the field, written
 * to buf. */
const char *sp__save_check_agent(const SpCrowdView *cv, const SpAgentView *v,
                                 char *buf, size_t size);
/* Every agent of a live crowd and the places' reservations (R10): SP_OK,
 * or SP_ERR_STATE naming the agent and the field. Tests call it after
 * every update. */
SpStatus sp__crowd_check(const SpCrowd *c, SpError *err);

#endif
