/* sp_agents.h: private layout of worlds and crowds shared by the agents stage files. */
#ifndef sp_agents_h
#define sp_agents_h

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "saspu_agents.h"
#include "sp_alloc.h"

/* ------------------------------------------------------------------ */
/* World                                                              */
/* ------------------------------------------------------------------ */

typedef struct Place {
  int kind;
  int x, y;
  int capacity;          /* 0: unlimited */
  atomic_int reserved;   /* released by workers, taken in the serial pass */
  uint32_t next_of_kind; /* the next place of its kind (id order), or none */
  uint32_t field_slot;   /* 1 + its cached field's slot, 0: none */
} Place;

/* The first and last place of a kind: bindings by kind walk the kind's
 * places only, in id order. limited: some place of the kind has a
 * capacity, so binding one depends on the agents bound before. */
typedef struct KindChain {
  uint32_t first, last;
  int limited;
} KindChain;

/* A cached distance field: to a place, or to a bare cell (key with the
 * top bit set). */
#define FIELD_CELL_KEY 0x80000000u
typedef struct Field {
  uint32_t key;
  uint64_t used; /* the world's clock at the last lookup: LRU */
  float *dist;   /* sp_grid_field_cells floats, then as many way bytes */
} Field;

/* A cell's way byte: the direction (0..7, the grid's order) of its first
 * neighbour strictly nearer the target, or FIELD_NO_WAY. Walkers follow
 * these bytes instead of comparing the eight neighbours at every cell;
 * each cell's count of steps to the target follows (hop counts). */
#define FIELD_NO_WAY 0xFFu

/* A world fact (facts.c): a name, its value names and its value now. */
typedef struct Fact {
  char *name;
  char **values;
  int value_count;
  int value;
} Fact;

struct SpWorld {
  SpAllocator alloc;
  Fact *facts;
  int fact_count, fact_cap;
  SpGrid *grid;
  uint64_t grid_version;
  Place *places;
  size_t place_count, place_cap;
  char **kinds;
  size_t *kind_bytes;
  int kind_count, kind_cap;
  KindChain *chains; /* by kind; kinds at or past chain_cap have no place */
  size_t chain_cap;
  /* distance fields: a small table searched linearly (few targets) */
  Field *fields;
  size_t field_count, field_cap;
  size_t field_budget, field_bytes, field_size; /* size: floats + ways */
  size_t field_cells;
  ptrdiff_t way_offset[8];           /* field index step of each direction */
  size_t hops_offset;                /* bytes from a field to its hop counts */
  size_t skip_offset;                /* and to its skips */
  ptrdiff_t index_origin, index_row; /* cell (0, 0)'s index, a row's */
  int skips_ok;                      /* the grid's layout allows skips */
  void *scratch;                     /* Dijkstra's open list */
  size_t scratch_bytes;
  uint64_t clock;
  uint64_t computed, evicted;
  uint64_t fields_dropped; /* fields forgotten so far: walkers check theirs */
  /* the live crowds (linked through SpCrowd.next_in_world): a chase
   * checks its target's crowd is still one of them */
  SpCrowd *crowds;
  uint64_t crowd_serial;
  double ms_fields;
  /* agents waiting for full places, oldest first (queue.c); dropped
   * entries stay as holes (crowd NULL) until half the list is holes */
  struct Waiter *queue;
  size_t queue_len, queue_cap, queue_holes;
  /* queue_index.c: each key's line through the list and each waiter's
   * entry, rebuilt from the list when stale (a cache of it) */
  struct QueueLine *queue_lines;
  uint32_t *queue_who;
  size_t lines_cap, lines_used, who_cap;
  int queue_indexed;
  int queue_by_list;     /* tests: never the index (both must answer alike) */
  uint64_t queue_update; /* updates begun: a cut holds for one (queue.c) */
  /* Held by a worker growing an event buffer: the crowds of a world
   * update together and share one allocator, which need not be
   * thread-safe (Lua's is not), so one lock per world, not per crowd. */
  pthread_mutex_t alloc_lock;
};

/* The field to place/cell `key`, or NULL when none is cached. Read-only:
 * safe from workers while nothing computes. */
const float *sp__world_field_peek(const SpWorld *w, uint32_t key);
/* The field to `key` at cell (x, y), computed and cached if needed (the
 * serial pass only). NULL on memory or a blocked/outside target. */
const float *sp__world_field_get(SpWorld *w, uint32_t key, int x, int y);
/* The first place of `kind` (follow Place.next_of_kind), or SP_NO_PLACE. */
static inline uint32_t sp_world_first_of_kind(const SpWorld *w, int kind) {
  return kind >= 0 && (size_t)kind < w->chain_cap ? w->chains[kind].first
                                                  : SP_NO_PLACE;
}
/* 1 when some place of `kind` has a capacity. */
static inline int sp_world_kind_limited(const SpWorld *w, int kind) {
  return kind >= 0 && (size_t)kind < w->chain_cap && w->chains[kind].limited;
}
/* The way bytes of a field returned by peek or get. */
static inline const uint8_t *sp_world_field_ways(const SpWorld *w,
                                                 const float *field) {
  return (const uint8_t *)(field + w->field_cells);
}
/* Its hop counts: way steps from each cell to the target, or
 * FIELD_HOPS_FAR. */
#define FIELD_HOPS_FAR 0xFFFEu
static inline const uint16_t *sp_world_field_hops(const SpWorld *w,
                                                  const float *field) {
  return (const uint16_t *)((const char *)field + w->hops_offset);
}
/* Its skips (when w->skips_ok): each cell's index FIELD_SKIP way steps
 * on, where its hop count is past FIELD_SKIP and not FIELD_HOPS_FAR. */
#define FIELD_SKIP 16
static inline const uint32_t *sp_world_field_skips(const SpWorld *w,
                                                   const float *field) {
  return (const uint32_t *)((const char *)field + w->skip_offset);
}
/* Drops every field when the grid changed since they were computed. */
void sp__world_check_grid(SpWorld *w);
/* Drops every cached field's key (and its place's link to it). */
void sp__world_forget_fields(SpWorld *w);
/* The old name of sp__mem_realloc (base/sp_alloc.h), kept while branches
 * written before the one allocator helper still call it. */
#define sp_agents_realloc sp__mem_realloc

/* ------------------------------------------------------------------ */
/* Crowd                                                              */
/* ------------------------------------------------------------------ */

enum {
  F_NEED_GOAL = 0x01, /* choose a goal at the next update */
  F_PLANNING = 0x02,  /* goal written to the population, result pending */
  F_HAS_PLAN = 0x04,  /* the population holds the plan being executed */
  F_RESERVED = 0x08,  /* holds a slot of `target` */
  F_FINISH = 0x10,    /* the caller finished the scripted step */
  F_FAIL = 0x20,      /* the caller failed it */
  F_BIND = 0x40,      /* the serial pass must bind / find the field */
  F_STOP = 0x80       /* a world change stopped the running step */
};

#define STEP_NONE   0xFFFF
#define REFUSED_LOW 16 /* goals whose refusals live in the agent record */
#define GOAL_NONE   0xFF
#define DONE_WINDOW 32

/* One agent's cold record, 48 bytes. Its phase, flags and time live in
 * the crowd's arrays of those (c->phase[i], ...): the per-frame passes
 * read them for every agent, and this record only for agents with work
 * due, so a frame streams 6 bytes per agent rather than a whole record.
 * The detail of its last no_plan lives apart (FailDetail, c->detail). */
typedef struct Agent {
  uint32_t target; /* bound place or SP_NO_PLACE */
  uint32_t draws;  /* steps started: seeds the duration draw */
  uint32_t done;   /* bit k: plan position cursor + k is done */
  uint32_t home;
  uint32_t cool_place; /* the binding on cooldown */
  float cool_until;    /* crowd clock; also the end of a goal given up */
  uint16_t x, y;
  uint16_t tx, ty;     /* target cell (0xFFFF none) */
  uint16_t cursor;     /* first plan position not done */
  uint16_t step;       /* running plan position, STEP_NONE */
  uint16_t refused;    /* goals 0..15 (sorted) refused for no plan; later
                       goals in the crowd's refused_hi words */
  int16_t fail_action; /* the step that failed; after a no_plan (reason
                          SP_REASON_NO_PLAN) -2 - the goal's index */
  uint8_t goal;        /* sorted goal index, GOAL_NONE */
  uint8_t why;         /* SpReason for the pending goal choice */
  uint8_t reason;      /* last failure reason; in a run of failures that
                          back off (fails > 0), the first one's */
  uint8_t pursued;     /* the goal of the last plan, GOAL_NONE */
  uint8_t fails;       /* failures in a row of step fail_action (back-off) */
  uint8_t shun;        /* the goal given up (its add index) until cool_until,
                      GOAL_NONE; one cooldown at a time: a place's
                      (cool_place) ends it, and it clears cool_place */
  uint8_t queued;      /* in its world's queue of waiters (queue.c) */
  uint8_t last;        /* the reason of the failure being handled (step.c);
                      in the padding, so the record stays 48 bytes; not
                      saved: read only in the call that set it */
} Agent;
_Static_assert(sizeof(Agent) == 48, "the agent record stays 48 bytes");

/* The detail of an agent's last no_plan (detail.c): the code of the
 * planner's failure record and, when the failure names a missing link
 * (code NO_SETTER / UNREACHABLE), its blocker: fvar = its variable,
 * fvalue = the value needed, faction = the action needing it, fother =
 * current | link_to << 8 (else -1). Only explanations read it (why,
 * inspect, a save), and only agents that failed to plan have one, so a
 * crowd holds these records apart from Agent, in an array made at its
 * first no_plan: a crowd whose goals always have plans holds none. */
typedef struct FailDetail {
  int16_t faction, fother, fvar;
  uint8_t fcode;
  uint8_t fvalue; /* 0xFF: none */
} FailDetail;
#define FAIL_DETAIL_NONE ((FailDetail){-1, -1, -1, 0, 0xFF})
static inline int sp_detail_none(FailDetail d) {
  return d.faction == -1 && d.fother == -1 && d.fvar == -1 && d.fcode == 0 &&
         d.fvalue == 0xFF;
}

typedef struct Goal {
  SpValue *cond; /* m values, SP_ANY */
  SpValue *when; /* m values, SP_ANY everywhere when always */
  int priority;
  int index; /* order of sp_crowd_add_goal */
} Goal;

/* An event buffer's recent use: the most events of the frames since it
 * was last full enough, and how many frames in a row used under a
 * quarter of it (crowd.c shrinks it after EV_QUIET_FRAMES of them). */
typedef struct EvTrim {
  size_t most;
  int quiet;
} EvTrim;

/* A worker's look-ahead over the awake agents of the advance pass
 * (ahead.c): the bitmap word it reads, its bits not yet requested, the
 * agent it stops before, and the chunk it runs on into (SIZE_MAX: none). */
typedef struct Ahead {
  size_t word, end, chunk;
  uint64_t bits;
} Ahead;

/* One worker's scratch and event buffer. */
typedef struct CrowdWorker {
  SpWorkspace *ws;
  SpValue *state; /* m + 8 bytes */
  uint16_t *plan; /* action_count + 1 */
  void *blocker;  /* sp_blocker_scratch_size bytes */
  SpAgentEvent *ev;
  size_t ev_count, ev_cap;
  size_t ev_peak; /* most events one pass of this frame left here */
  EvTrim ev_trim;
  size_t planned;
  uint32_t *arm; /* agents whose timer this pass started (wheel.c) */
  size_t arm_count, arm_cap;
  uint32_t *freed; /* places whose slot this pass gave up (release.c) */
  size_t freed_count, freed_cap;
  Ahead ahead;
  struct BindHint *hint; /* this frame's binding answers (bind.c) */
  size_t hint_count, hint_cap;
  EvTrim hint_trim; /* the hint buffer follows the frames too (stats.c) */
} CrowdWorker;

/* Agents a chunk's record lists as possibly needing a goal or waiting
 * for a plan: a frame of a large crowd has a few such agents per chunk,
 * which the choose and take passes then visit without reading the
 * chunk's flags. */
#define SP_CHUNK_LIST 24

typedef struct ChunkRec {
  uint32_t worker, start, count;
  uint32_t flagged;  /* agents flagged for the next serial pass */
  uint32_t moved;    /* an agent changed cell since the index was built */
  uint32_t traced;   /* the same, since a recorder last read the chunk */
  uint32_t choosing; /* an agent may need a goal or wait for a plan: the
                        choose pass reads this chunk's flags */
  /* its binding answers: in worker hint_worker's list; `taken` of them
   * reserved by the serial pass, written to the agents after it */
  uint32_t hint_worker, hint_start, hint_count, taken;
  /* with list_ok, `list` holds every agent of the chunk flagged
   * F_NEED_GOAL or F_PLANNING (and maybe others, or some twice); zero,
   * as a new or loaded crowd has it, means the flags must be read */
  uint32_t list_ok, listed;
  /* agents marked since the list was last kept, repeats counted: how
   * many the choose pass visits, about, when the list overflowed */
  uint32_t marked;
  uint32_t list[SP_CHUNK_LIST];
} ChunkRec;

/* A crowd's spatial index (index.c, queries near.c): made by the first
 * query or sensor that needs it, then kept. An agent's cell key is
 * written when it changes cell (and its chunk marked moved). While the
 * keys moved since the buckets were built, a query reads every key in
 * one pass; the buckets (a counting sort of the keys) are rebuilt for a
 * sensor, or once a few queries found the keys unmoved since the last. */
/* Queries a stale index answers by a pass over the keys before one
 * rebuilds its buckets: a rebuild costs some 20 passes at a million
 * agents (bench/bench_near.c), and pays only when more queries come
 * before the agents move again. */
#if !defined(SP_INDEX_SCANS_PER_REBUILD)
#define SP_INDEX_SCANS_PER_REBUILD 16
#endif
typedef struct CrowdIndex {
  uint32_t *cell;  /* per agent y << 16 | x (capacity + 1); NULL: none */
  uint32_t *start; /* per bucket, its first entry of items; nb + 1 */
  uint32_t *items; /* live agents by bucket, in agent order within one
                      (capacity + 1); NULL until the first rebuild */
  size_t nb, start_cap;
  int shift, bw, bh; /* buckets of 2^shift cells a side, bw x bh */
  int stale;         /* the buckets are older than the keys */
  int scans;         /* passes over the keys since they last moved */
  uint64_t *found;   /* a query's candidates: distance << 32 | agent */
  size_t found_cap;
  uint32_t *out; /* sp_crowd_near's answer, grown to the largest */
  size_t out_cap;
} CrowdIndex;

struct SpCrowd {
  SpAllocator alloc;
  SpWorld *world;
  const SpDomain *domain;
  SpPopulation *pop;
  int m, action_count;
  size_t capacity, n;
  Agent *agents;
  /* hot per-agent fields, one array each (capacity + 1 entries) */
  float *time;     /* acting/blocked: due tick; walking: due tick of its next
                 cell (a chase: progress); a failure: its detail */
  uint8_t *phase;  /* SpPhase */
  uint8_t *flags;  /* F_* */
  void *hot_block; /* the three arrays above, one allocation */
  size_t hot_bytes;
  /* refusals of goals REFUSED_LOW.. (sorted), refused_words per agent;
   * NULL while the crowd has at most REFUSED_LOW goals */
  uint32_t *refused_hi;
  size_t refused_words;
  /* slots freed by sp_crowd_despawn: per slot its generation, and a
   * stack of free slots; both NULL until the crowd's first despawn
   * (capacity + 1 entries each, one allocation) */
  uint32_t *gens;
  uint32_t *free_slots;
  size_t free_count;
  /* the detail of each agent's last no_plan (detail.c): capacity + 1
   * records, NULL until the crowd's first no_plan; set by a worker under
   * the world's allocator lock, so it is read atomically */
  _Atomic(FailDetail *) detail;
  /* agents walking to another agent (sp_crowd_set_target_agent): one
   * record per slot, NULL until the crowd's first chase */
  struct Chase *chase;
  SpGridWorkspace *chase_ws;
  /* engine_moves: 1 per agent whose SP_EV_MOVE awaits an answer or an
   * SP_EV_MOVE_CANCELLED (capacity + 1 bytes; NULL in other crowds) */
  uint8_t *announced;
  int reannounce; /* a load: the next update repeats every pending move */
  SpCrowd *next_in_world;
  uint64_t serial; /* 0 until registered with its world */
  int retired;     /* sp_crowd_retire: out of its world for good */
  SpActionBehaviour *beh;
  int any_binding; /* some action binds a place */
  int any_interruptible;
  int selector; /* goals chosen by the caller (sp_crowd_set_selector) */
  Goal goals[SP_CROWD_MAX_GOALS];
  int goal_count;
  SpValue *goal_block; /* the goals' values */
  size_t goal_block_bytes;
  SpCrowdOptions opt;
  SpThreadPool *own_pool, *pool;
  int workers;
  CrowdWorker cw[SP_THREAD_POOL_MAX];
  atomic_size_t lost; /* events this frame whose buffer could not grow */
  size_t chunk_count;
  ChunkRec *chunks;
  SpAgentEvent *ev; /* this frame's events */
  size_t ev_count, ev_cap;
  EvTrim ev_trim;
  double clock;
  /* the pass running now */
  int pass;
  int in_pass;     /* takes part in the pass of sp_crowds_update */
  int serial_pass; /* the pass runs on the calling thread: events go to ev */
  size_t ev_mark;  /* ev_count when the pass began */
  float dt;
  atomic_size_t next_chunk;
  CrowdIndex index;
  /* due times (wheel.c): the time slot of an acting or blocked agent
   * holds the tick (SP_TICKS_PER_S a second, from `epoch`) its wait ends
   * at, an exact integer; the agents asleep on a timer wait in the wheel,
   * and an update visits the awake ones */
  uint64_t *awake; /* bit per agent: visit at the next advance */
  size_t awake_words;
  struct Wheel *wheel;  /* NULL until the first timer */
  int64_t wheel_tick;   /* the first tick not wholly drained */
  int64_t epoch;        /* ticks */
  uint32_t now_rel;     /* this frame's clock in ticks, less epoch */
  uint32_t base_rel;    /* what a timer started now counts from */
  int sweeping;         /* a long frame: every agent awake, no wheel */
  uint32_t walk_ticks;  /* ticks a walker takes per cell (walk.c) */
  uint64_t fields_seen; /* the world's fields_dropped at the last check */
  /* world facts tied to variables (facts.c): the value each tie last
   * applied, and who must hear of a change: per agent the ties its plan
   * reads (bit k: ties[k]), per chunk how many agents read any */
  struct {
    int fact, var;
    uint8_t value;
  } ties[SP_CROWD_MAX_FACTS];
  int tie_count;
  uint8_t *reads;        /* capacity + 1, NULL without ties */
  uint32_t *chunk_reads; /* chunk_count + 1 */
  uint8_t *act_reads;    /* per action: the ties its conditions read */
  uint8_t goal_reads;    /* the ties some goal or `when` reads */
  /* sensors (sense.c), each with the crowd clock of its next reading */
  SpSensor sensors[SP_CROWD_MAX_SENSORS];
  double sensor_due[SP_CROWD_MAX_SENSORS];
  int sensor_count;
  /* per goal add index: 1 + the add index of its group's first goal when
   * it is rechecked while it runs (recheck.c), else 0 */
  uint16_t recheck[SP_CROWD_MAX_GOALS];
  /* per goal add index: its choices, choice_count * m values, when a
   * goal of sets has several (goal_sets.c); else NULL and 0 */
  SpValue *choices[SP_CROWD_MAX_GOALS];
  uint8_t choice_count[SP_CROWD_MAX_GOALS];
  /* agents' own goal priorities (priority.c), sorted by agent, goal */
  struct OwnPriority *own;
  size_t own_count, own_cap;
  /* statistics */
  uint64_t plans, replans, no_plans, events, steps_finished, events_lost;
  atomic_size_t visited;  /* by the last advance pass */
  uint64_t workers_woken; /* threads the last update woke (update.c) */
  double ms_update, ms_planning, ms_binding;
};

/* Requests agent j's record ahead of its use: both of its ends, as a
 * 48-byte record often straddles two cache lines. */
#if defined(__GNUC__)
#define sp_prefetch(p) __builtin_prefetch(p)
#else
#define sp_prefetch(p) ((void)(p))
#endif
static inline void sp_agent_prefetch(const SpCrowd *c, size_t j) {
  const char *r = (const char *)&c->agents[j];
  sp_prefetch(r);
  sp_prefetch(r + sizeof(Agent) - 1);
}

/* Requests the lines a visit of agent j reads: phase, flags, time, the
 * record and the population rows (the advance pass's look-ahead, and
 * sp_crowd_set_var_many over a script's list). */
static inline void sp_agent_request(const SpCrowd *c, size_t j) {
  sp_prefetch(c->phase + j);
  sp_prefetch(c->flags + j);
  sp_prefetch(c->time + j);
  sp_agent_prefetch(c, j);
  sp_population_prefetch(c->pop, j);
}

/* ---- spatial index (index.c) ----------------------------------------- */

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
/* Agent i was just flagged F_NEED_GOAL or F_PLANNING: the next choose
 * pass reads its chunk (it passes over the others without reading their
 * flags; a worker writes only its own chunk's record). */
static inline void sp_agent_mark_choosing(SpCrowd *c, size_t i) {
  ChunkRec *r = &c->chunks[i / SP_CROWD_CHUNK];
  r->choosing = 1;
  r->marked++;
  if (r->listed < SP_CHUNK_LIST)
    r->list[r->listed++] = (uint32_t)i;
  else
    r->list_ok = 0;
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

/* Shrinks the event buffers that the last frames used less than a quarter
 * of (crowd.c; serial, before a frame's first event). */
void sp__crowd_trim_events(SpCrowd *c);
/* SP_OK when slot i holds a live agent, else SP_ERR_STATE naming it. */
SpStatus sp__agent_check(const SpCrowd *c, size_t i, SpError *err);
/* Allocates the slot bookkeeping (gens, free_slots) if not yet there;
 * 0 on memory. Invisible otherwise: every generation starts at 0. */
int sp__crowd_slots_ready(SpCrowd *c);
void sp__crowd_slots_free(SpCrowd *c);

/* A walk to another agent: who (crowd, serial, slot, generation), how
 * near is near enough, and the path being followed. */
typedef struct Chase {
  const SpCrowd *crowd;
  uint64_t serial;
  uint32_t agent, gen;
  uint16_t reach;
  uint8_t on, steps, at; /* chasing; cells of the path; next one */
  uint16_t gx, gy;       /* the target's cell when the path was found */
  SpGridPoint path[SP_CHASE_PATH + 1];
} Chase;

/* Ends agent i's chase, if any. */
static inline void sp_chase_end(SpCrowd *c, size_t i) {
  if (c->chase != NULL) c->chase[i].on = 0;
}
void sp__crowd_chase_free(SpCrowd *c);
/* Allocates the crowd's chase records (and, with a grid, its search
 * workspace) if it has none; 0 when out of memory. */
int sp__crowd_chase_ready(SpCrowd *c);
/* For save.c and load.c: agent i's chase is written (it chases and
 * walks); the index of its target's crowd among crowds[], or UINT32_MAX
 * when that crowd is freed or not given (gone: target_gone at the next
 * frame); a loaded chase set again, `target` NULL when gone. */
int sp__chase_saved(const SpCrowd *c, size_t i);
uint32_t sp__chase_target_index(const SpCrowd *c, size_t i,
                                const SpCrowd *const *crowds, size_t count);
void sp__chase_restore(SpCrowd *c, size_t i, const SpCrowd *target,
                       const Chase *saved);
void sp__world_register_crowd(SpWorld *w, SpCrowd *c);
void sp__world_unregister_crowd(SpWorld *w, SpCrowd *c);

/* ---- world facts (facts.c) ------------------------------------------- */

/* Writes the tied variables' values into agent i's state (an agent's
 * tied bytes are brought up to date when it is next looked at). */
static inline void sp_facts_sync(SpCrowd *c, size_t i) {
  if (c->tie_count == 0) return;
  SpValue *s = sp_population_state_write(c->pop, i);
  for (int k = 0; k < c->tie_count; k++) s[c->ties[k].var] = c->ties[k].value;
}
/* Agent i took a plan (or lost it): the ties it reads now. buf: a plan
 * buffer of the caller (action_count + 1 ids). */
void sp__facts_plan_taken(SpCrowd *c, size_t i, uint16_t *buf);
/* After a load: who reads which tie, from every agent's plan. */
void sp__facts_reload(SpCrowd *c);
/* An agent whose state the facts or the sensors changed: the frame loop
 * says how it reacts (sp__agent_changed, crowd.c). */
typedef void (*SpChanged)(SpCrowd *c, size_t i);
/* Serial, before a frame: the agents concerned by a fact that changed
 * since the last frame are handed to `changed`, as after a world change. */
void sp__facts_apply(SpCrowd *c, SpChanged changed);
void sp__facts_free(SpCrowd *c);
void sp__world_facts_free(SpWorld *w);
/* The tie of variable var, or -1. */
int sp__facts_tie_of(const SpCrowd *c, int var);
/* After a state change of agent i (crowd.c). */
void sp__agent_changed(SpCrowd *c, size_t i);

/* ---- sensors (sense.c) ------------------------------------------------ */

/* Serial, before a frame: the readings due. SP_ERR_MEMORY (nothing
 * changed) when a sensed crowd's index cannot be made. */
SpStatus sp__sensors_ready(SpCrowd *c, SpError *err);
/* An agent whose reading changed goes to `changed`. */
void sp__sensors_read(SpCrowd *c, SpChanged changed);
/* 1 when variable var is a sensor's. */
int sp__sensor_of(const SpCrowd *c, int var);
/* 1 when a live agent other than `skip` is within r (index ready). */
int sp__index_any_but(const SpCrowd *c, int x, int y, int r, size_t skip);

/* ---- waiting in turn (queue.c) --------------------------------------- */

/* A waiter: who, since which wait began (its place in the list), for
 * what (a place id, or SP_QUEUE_KIND | kind) and which step. */
#define SP_QUEUE_KIND 0x80000000u
typedef struct Waiter {
  SpCrowd *crowd; /* NULL: a hole left by a dropped entry */
  uint32_t agent, gen;
  uint32_t key;
  int16_t act;
  uint32_t next; /* the next entry of the same key (queue_index.c) */
} Waiter;
/* What agent a waits for when step act finds place p (SP_NO_PLACE for a
 * kind) full; SP_NO_PLACE when no place can be named. */
uint32_t sp__queue_key(const SpCrowd *c, const Agent *a, int act, uint32_t p);
/* 1 while the waiter still waits (live, same slot generation, its wait
 * for room on that step not over). */
int sp__queue_still_waits(const Waiter *e);
/* Serial: 1 when agent i may take a slot of key now: fewer agents wait
 * for it ahead of i than there are free slots. Drops stale entries. */
int sp__queue_may_enter(SpCrowd *c, size_t i, uint32_t key);
/* Serial: agent i waits for key on step act; fresh: a new wait (to the
 * back of the line), else a retry that keeps its turn. Without memory it
 * waits without a turn until a later retry joins. */
void sp__queue_join(SpCrowd *c, size_t i, uint32_t key, int act, int fresh);
/* Agent i got in, or its slot is given up: out of the line. */
void sp__queue_leave(SpCrowd *c, size_t i);
void sp__queue_forget_crowd(SpWorld *w, const SpCrowd *c);
void sp__queue_free(SpWorld *w);
/* An update begins: turns read in the last one are read again. */
void sp__queue_next_update(SpWorld *w);

/* queue_index.c: finding a key's waiters and an agent's entry without
 * reading the whole list. The index is a cache: any change it cannot
 * follow (no memory, a rewritten list) marks it stale, and the next
 * lookup rebuilds it; a rebuild without memory leaves callers to read
 * the list in order. */
#define SP_QUEUE_END UINT32_MAX
typedef struct QueueLine {
  uint32_t key; /* SP_NO_PLACE: an empty slot */
  uint32_t head, tail;
  uint32_t count; /* its entries (holes not counted, stale ones are) */
  /* The cut (queue.c): read once per update, the waiters within the room
   * (cut_valid of them, the last one cut_last), kept current as waiters
   * get in and join; cut_whole when it holds the whole line. */
  uint64_t cut_update; /* 0: none read */
  uint32_t cut_last, cut_valid;
  int32_t cut_room;
  int cut_whole;
} QueueLine;
/* 1 when the index is current (rebuilt now if it was stale). */
int sp__queue_index_ready(SpWorld *w);
/* Entry of agent i of crowd c, or SP_QUEUE_END (index ready). */
uint32_t sp__queue_index_find(const SpWorld *w, const SpCrowd *c, size_t i);
/* The line of key, or NULL when nobody waits for it (index ready). */
QueueLine *sp__queue_index_line(SpWorld *w, uint32_t key);
/* Entry k was appended / is being dropped (index ready or stale). */
void sp__queue_index_added(SpWorld *w, uint32_t k);
void sp__queue_index_removed(SpWorld *w, uint32_t k);
void sp__queue_index_free(SpWorld *w);

/* ---- an agent's own priorities (priority.c) --------------------------- */

typedef struct OwnPriority {
  uint32_t agent;
  uint16_t goal; /* the goal's add index */
  int32_t priority;
} OwnPriority;
/* Agent i's goals in the order it tries them (sorted indices into
 * c->goals, its own priorities first, the crowd's order among equals),
 * with their priorities for it in prio; NULL when it has no priority of
 * its own (the crowd's order then). order and prio: goal_count each. */
const uint8_t *sp__agent_goal_order(const SpCrowd *c, size_t i, uint8_t *order,
                                    int *prio);
/* Agent i's slot is freed: its own priorities go. */
void sp__priority_forget(SpCrowd *c, size_t i);
void sp__priority_free(SpCrowd *c);

/* ---- goals of sets (goal_sets.c) -------------------------------------- */

/* 1 when sorted goal g's condition holds in state: one of its choices
 * when it has several. */
int sp__goal_met(const SpCrowd *c, int g, const SpValue *state);
/* 1 when sorted goal g's condition reads variable var. */
int sp__goal_reads_var(const SpCrowd *c, int g, int var);
/* Writes the population goal of agent i, about to plan sorted goal g:
 * its condition, or, with several choices, the one with the shortest
 * plan from the agent's state (sp_plan_any, worker wk's scratch; the
 * first when none has a plan), so the population plans exactly
 * sp_plan_any's plan. */
void sp__goal_for_planning(SpCrowd *c, int wk, size_t i, int g);
/* What blocks sorted goal g from state (sp_plan_any_blocker over its
 * choices, worker wk's scratch); *failure gets the planner's reason for
 * the first choice. Returns the kind (SP_BLOCK_NONE: it has a plan). */
SpBlockerKind sp__goal_blocker(SpCrowd *c, int wk, int g, const SpValue *state,
                               void *scratch, SpBlocker *out,
                               SpFailure *failure);
/* A recorded blocker b of goal add index `index`: 1 when the goal has
 * several choices and b is the first choice's only (it blocks not every
 * choice; sp_plan_any_blocker records it then), else 0. */
int sp__goal_only_choice(const SpCrowd *c, int index, const SpBlocker *b);
/* Goal add index `index` is added again: it has one choice. */
void sp__goal_choices_drop(SpCrowd *c, int index);

/* ---- rechecked goals (recheck.c) -------------------------------------- */

/* 1 when sorted goal g is rechecked and no `when` of its group holds in
 * state: the agent pursuing it drops it. */
int sp__goal_lapsed(const SpCrowd *c, int g, const SpValue *state);
/* 1 when sorted goal g is rechecked at all (sp__goal_lapsed can say 1). */
static inline int sp_goal_rechecked(const SpCrowd *c, int g) {
  return g >= 0 && g < c->goal_count && c->recheck[c->goals[g].index] != 0;
}

/* ---- the detail of no_plans (detail.c) --------------------------------- */

/* Agent i's detail: FAIL_DETAIL_NONE when the crowd keeps none. */
FailDetail sp__detail_get(const SpCrowd *c, size_t i);
/* Records agent i's detail (worker wk, or -1 serial), making the crowd's
 * array at its first use; without memory for it the detail is not kept
 * (explanations then name no failure) and it returns 0. */
int sp__detail_put(SpCrowd *c, int wk, size_t i, FailDetail d);
/* Serial: 1 when the crowd has its array (made now if needed). */
int sp__detail_ready(SpCrowd *c);
/* Serial (a spawn): slot i keeps no detail. */
void sp__detail_clear(SpCrowd *c, size_t i);
void sp__detail_free(SpCrowd *c);
/* The array's bytes in memory (0 while there is none). */
size_t sp__detail_bytes(const SpCrowd *c);

/* Bytes of a crowd's refusal words (refused_hi) at `words` per agent:
 * one row per slot of its capacity and one more. */
static inline size_t sp_refused_bytes(const SpCrowd *c, size_t words) {
  return (c->capacity + 1) * words * sizeof(uint32_t);
}

#include "sp_due.h" /* due times (wheel.c): needs SpCrowd above */

/* ---- the advance pass's look-ahead (ahead.c) ------------------------- */

/* Agents whose step ends are scattered over the crowd's arrays, so each
 * visit would wait on several cache misses in turn (hot bytes, record,
 * population rows). Requested this many awake agents ahead, the misses
 * of several agents overlap instead. */
#if !defined(SP_AHEAD_AGENTS)
#define SP_AHEAD_AGENTS 8
#endif
/* At a frame's start: no worker's cursor runs on. */
void sp__ahead_reset(SpCrowd *c);
/* At the start of the advance over chunk `chunk`: the cursor runs on
 * when the worker is alone and visited the chunk before, else starts at
 * the chunk's first awake agent and requests the first few. Alone, it
 * reads the whole crowd's bits; else its chunk's only (the others' are
 * written by their workers). */
void sp__ahead_chunk(SpCrowd *c, Ahead *a, size_t chunk, int alone);
/* Once per awake agent the worker visits: requests one more, and returns
 * it (SIZE_MAX when none is left). Only a hint: what it requests never
 * changes what the pass does. */
size_t sp__ahead_next(const SpCrowd *c, Ahead *a);

/* ---- per-agent logic (step.c) ---------------------------------------- */

/* Where events go: a worker's buffer (parallel passes) or, with worker
 * -1, the frame buffer (serial passes). */
typedef struct Sink {
  SpCrowd *c;
  int worker;
} Sink;

void sp__agent_emit(Sink s, size_t agent, SpEventKind kind, SpReason reason,
                    int action, int goal, int32_t detail);
int sp__agent_goal_holds(const SpValue *cond, const SpValue *state, int m);
/* Pass 0: an agent flagged F_NEED_GOAL stops its step and picks its first
 * goal candidate; returns 1 when it now waits for a plan. */
int sp__agent_choose(SpCrowd *c, Sink s, size_t i);
/* The caller's detail of a failed step (sp_crowd_fail_step), while
 * F_FAIL is set. */
int32_t sp__agent_fail_detail(const SpCrowd *c, size_t i);
/* After planning: takes the result; returns 1 when the agent waits for
 * another plan (the next goal candidate). */
int sp__agent_take_plan(SpCrowd *c, Sink s, size_t i);
/* Pass 2: advances to the crowd clock (due times); returns 1 when the
 * agent needs the serial binding pass. walked: WALK_NOT, or how its walk
 * of this frame, done already by sp__agent_walk_many, ended. */
int sp__agent_advance(SpCrowd *c, Sink s, size_t i, int walked);
/* 1 when agent i runs an interruptible step, walking to it, waiting for
 * the engine's move or for a place, or acting. */
int sp__agent_interruptible_now(const SpCrowd *c, size_t i);
/* Interrupts that step when a strictly higher goal applies (reason
 * higher_goal) or its rechecked goal's `when` lapsed (when_lapsed): the
 * agent chooses again at the next update, which ends the step. 1 when it
 * did. */
int sp__agent_interrupt(SpCrowd *c, Sink s, size_t i);

/* ---- walking (walk.c) ------------------------------------------------ */

enum { WALK_NOT = 0, WALK_STAYED, WALK_ARRIVED };
/* The distance field a walker follows: its place, or its target cell. */
uint32_t sp__agent_field_key(const SpCrowd *c, const Agent *a);
/* Walks agent i toward its target cell the cells due by now (its due
 * tick, then one each walk_ticks); 1 on arrival, which on its target cell
 * is at once. Needs a field (with a grid): without one the agent asks the
 * serial pass (F_BIND). */
int sp__agent_walk(SpCrowd *c, size_t i);
/* Walks, as sp__agent_walk, those of the n agents listed that walk now
 * (walking, no F_BIND) on a grid; walked[k] gets WALK_NOT for the others,
 * else WALK_STAYED or WALK_ARRIVED. */
void sp__agent_walk_many(SpCrowd *c, const uint32_t *due, size_t n,
                         uint8_t *walked);
/* Ticks per cell at the crowd's speed (rounded down, at least 1). */
uint32_t sp__walk_ticks(float speed);
/* 1 when walker i sleeps until its due tick: nothing to do before (not on
 * its target, not binding). */
int sp__walk_sleeps(const SpCrowd *c, size_t i);
/* Serial, at a frame's start: wakes the walkers whose field the world
 * dropped since the last frame (evicted, or the grid changed): they ask
 * the serial pass for it, as a walker visited every frame would. */
void sp__walk_check_fields(SpCrowd *c);
/* After a load: walker i's saved progress back into a due tick. */
void sp__walk_loaded(SpCrowd *c, size_t i);
/* Ends the running step as failed for `why` (its place released) and
 * replans at the next update. */
void sp__agent_fail_now(SpCrowd *c, Sink s, size_t i, SpReason why);
/* Engine moves: SP_EV_MOVE for agent i's target cell (tx, ty), marked
 * SP_EVENT_REPEATED when `repeated`; the move now awaits an answer. */
void sp__agent_announce_move(SpCrowd *c, Sink s, size_t i, int act,
                             int repeated);
/* After a load: every pending move announced again (serial, at the start
 * of the first update). */
void sp__agent_announce_all(SpCrowd *c);
/* 1 while agent i's chase target is alive in a live crowd. */
int sp__chase_target_live(const SpCrowd *c, size_t i);
/* The running step's walk is over: SP_EV_ARRIVED, then it acts. */
void sp__agent_arrive(SpCrowd *c, Sink s, size_t i);
/* SP_OK when agent i waits in SP_PHASE_SCRIPT for the target of its
 * SP_BIND_SCRIPT step, else SP_ERR_STATE saying why. */
SpStatus sp__crowd_waiting_target(const SpCrowd *c, size_t agent, SpError *err);
/* Serial pass: one frame of agent i's chase (walk, re-path, arrive, or
 * fail when the target is gone or out of reach). */
void sp__agent_chase(SpCrowd *c, Sink s, size_t i);
/* Serial: binds the running step's place (reservation, field). */
void sp__agent_bind(SpCrowd *c, Sink s, size_t i);

/* A binding answered in the parallel advance pass from agent i's own
 * rows (bind_hint.c): the place it would take, the places it prefers to
 * that one (bits of their positions in the kind's list: each must be full
 * when the serial pass binds it), its cell in the fields (bind.c). */
typedef struct BindHint {
  uint32_t agent, place, cell;
  uint16_t kind;   /* the kind bound, or BIND_HINT_NO_KIND */
  uint8_t limited; /* a place looked at has a capacity: the queue decides */
  uint8_t taken;   /* reserved by the serial pass: sp__bind_hint_commit */
  uint64_t nearer;
} BindHint;
#define BIND_HINT_NO_KIND 0xffffu

/* In worker wk (-1: the calling thread alone, on worker 0's list), after
 * agent i's visit left it flagged F_BIND: appends its answer to the
 * worker's list when the serial pass can check it without the agent's
 * rows. */
void sp__bind_hint_add(SpCrowd *c, int wk, size_t i);

/* Serial: binds agent i by its answer when the answer still holds (the
 * same choice sp__agent_bind makes); 0 leaves it to sp__agent_bind. A place
 * taken is only reserved (h->taken): the agent's rows are written by
 * sp__bind_hint_commit after the pass. */
int sp__agent_bind_hinted(SpCrowd *c, Sink s, BindHint *h);
/* In a worker, after the serial pass: the rows of an agent whose place it
 * reserved (nothing in the serial pass reads them: the agent waits in no
 * queue), and its timer. */
void sp__bind_hint_commit(SpCrowd *c, int wk, const BindHint *h);
/* Requests the lines sp__agent_bind_hinted reads and writes. */
void sp__bind_hint_prefetch(const SpCrowd *c, const BindHint *h);
/* Simulates the rest of the plan from the agent's state: 1 when it still
 * reaches the goal. */
int sp__agent_plan_holds(SpCrowd *c, size_t i, SpValue *scratch);
/* Forgets the goals refused since the agent last chose. */
void sp__agent_clear_refused(SpCrowd *c, size_t i);
/* Doubles a full list of agents or places (wheel.c); 0 on memory.
 * `locked`: a worker grows it, under the world's allocator lock. */
int sp__list_grow(SpCrowd *c, uint32_t **e, size_t *cap, int locked);
/* Drops the running step's reservation (release.c), at once. */
void sp__agent_release(SpCrowd *c, size_t i);
/* The same for a pass on workers: the place's count is lowered when the
 * pass ends (sp__release_flush). */
void sp__agent_release_by(SpCrowd *c, Sink s, size_t i);
/* Lowers the counts of the places the workers' last pass gave up (serial). */
void sp__release_flush(SpCrowd *c);
/* Frees the workers' lists of places, and their resident bytes. */
void sp__release_free(SpCrowd *c);
size_t sp__release_bytes(const SpCrowd *c);

#endif
