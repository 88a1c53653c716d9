/* sp_agents.h: private layout of worlds and crowds shared by the agents stage files (sp_due.h adds the due-time helpers). Each module of csrc/agents/ declares its functions in a header of its own, used downward only; low to high: sp_slots.h (slots.c, script.c), sp_detail.h, sp_goals.h (goal_sets.c, recheck.c, priority.c), sp_facts.h, sp_space.h (index.c, near.c, sense.c), sp_places.h (queue.c, queue_index.c; world.c's own functions are below), sp_walk.h, sp_wheel.h (wheel.c, sweep.c), sp_release.h, then the frame loop sp_chase.h, sp_loop.h, sp_step.h (chase.c, bind.c, step.c: the one circle), used by lifecycle.c, crowd.c, stats.c (sp_stats.h), chunk_visit.c (sp_visit.h) and update.c on top. */
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
#include "sp_claims.h"
#include "sp_population.h"

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

/* One agent's record, 56 bytes: its phase, flags and due time with the
 * rest, so a visit (a timer's end, a goal's choice) reads one record,
 * not one line of each of four arrays; the frame finds the agents with
 * work due by its awake bits and chunk lists, never by reading every
 * agent's phase. The detail of its last no_plan lives apart
 * (FailDetail, c->detail). */
typedef struct Agent {
  float time;      /* acting/blocked: due tick; walking: due tick of its next
                    cell (a chase: progress); a failure: its detail */
  uint8_t phase;   /* SpPhase */
  uint8_t flags;   /* F_* */
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
                      not saved: read only in the call that set it */
} Agent;
_Static_assert(sizeof(Agent) == 56, "the agent record stays 56 bytes");

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

/* How a goal row (a condition or a `when`) is tested against a state: a
 * step end tests a few goals' rows. A row testing at most GOAL_TESTS
 * values lists them; one testing more is compared in masked words when
 * it holds 4 to GOAL_WORD_BYTES values (windows of 8 bytes at 0, 8, ...
 * and m - 8, or of 4 bytes at 0 and m - 4 below 8: they overlap, so
 * nothing past the row is read), else value by value. */
#define GOAL_TESTS      4
#define GOAL_WORD_BYTES 16
enum { GOAL_LIST = 0, GOAL_WORDS, GOAL_BYTES };
typedef struct GoalTest {
  uint8_t how; /* GOAL_LIST, GOAL_WORDS or GOAL_BYTES */
  uint8_t n;   /* GOAL_LIST: values tested (0: the row holds always) */
  union {
    struct { /* GOAL_LIST */
      SpValue val[GOAL_TESTS];
      uint16_t var[GOAL_TESTS];
    } list;
    struct { /* GOAL_WORDS: window k holds where (x & mask) == want */
      uint64_t mask[GOAL_WORD_BYTES / 8], want[GOAL_WORD_BYTES / 8];
    } words;
  } u;
} GoalTest;

typedef struct Goal {
  SpValue *cond; /* m values, SP_ANY */
  SpValue *when; /* m values, SP_ANY everywhere when always */
  GoalTest cond_test, when_test;
  int priority;
  int index; /* order of sp_crowd_add_goal */
} Goal;

/* The byte offset of window k of a row of m values (GOAL_WORDS). */
static inline size_t sp_goal_window(int m, int k) {
  size_t w = m >= 8 ? 8 : 4, at = (size_t)k * w;
  return at + w > (size_t)m ? (size_t)m - w : at;
}

/* The windows of a row of m values (GOAL_WORDS). */
static inline int sp_goal_windows(int m) { return m >= 8 ? (m + 7) / 8 : 2; }

/* The test of a row of m values. */
static inline GoalTest sp_goal_test_of(const SpValue *row, int m) {
  GoalTest t;
  memset(&t, 0, sizeof t);
  int tested = 0;
  for (int v = 0; v < m; v++) tested += row[v] != SP_ANY;
  if (tested <= GOAL_TESTS) {
    t.how = GOAL_LIST;
    for (int v = 0; v < m; v++)
      if (row[v] != SP_ANY) {
        t.u.list.var[t.n] = (uint16_t)v;
        t.u.list.val[t.n++] = row[v];
      }
    return t;
  }
  if (m < 4 || m > GOAL_WORD_BYTES) {
    t.how = GOAL_BYTES;
    return t;
  }
  t.how = GOAL_WORDS;
  size_t w = m >= 8 ? 8 : 4;
  for (int k = 0; k < sp_goal_windows(m); k++) {
    uint8_t mb[8] = {0}, wb[8] = {0};
    size_t at = sp_goal_window(m, k);
    for (size_t b = 0; b < w; b++)
      if (row[at + b] != SP_ANY) mb[b] = 0xFF, wb[b] = row[at + b];
    memcpy(&t.u.words.mask[k], mb, 8);
    memcpy(&t.u.words.want[k], wb, 8);
  }
  return t;
}

/* Sets g's tests from its m values of `cond` and `when` (once they are
 * written: an added, loaded or changed goal). */
static inline void sp_goal_note(Goal *g, int m) {
  g->cond_test = sp_goal_test_of(g->cond, m);
  g->when_test = sp_goal_test_of(g->when, m);
}

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
  size_t run_end; /* the end of the chunks the worker claimed (update.c) */
  uint64_t bits;
} Ahead;

/* The events a crowd counts, by kind (SpEventKind): each counted as it
 * is written (sp_step.h, step_say), in the writer's own counters, one
 * per kind, so a count is one add (merge.c sums them into the crowd's). */
#define SP_KINDS SP_EV_COUNT

/* Where a writer's events go: its buffer and its counts by kind, next to
 * each other, so an event is written and counted through one pointer
 * (sp_step.h). A worker's, and the frame's (the calling thread's): both
 * records hold these fields twice over, as `out` and by name. */
#define SP_EVENT_OUT_FIELDS                                                    \
  SpAgentEvent *ev;                                                            \
  size_t ev_count, ev_cap;                                                     \
  uint64_t kinds[SP_KINDS]
typedef struct EventOut {
  SP_EVENT_OUT_FIELDS;
} EventOut;

/* One worker's scratch and event buffer, on lines of its own (workers
 * update theirs all through a pass). */
typedef struct CrowdWorker {
  _Alignas(SP_LINE) SpWorkspace *ws;
  SpValue *state; /* m + 8 bytes */
  uint16_t *plan; /* action_count + 1 */
  void *blocker;  /* sp_blocker_scratch_size bytes */
  union {         /* the pass's events (counted by kind: see below) */
    EventOut out;
    struct {
      SP_EVENT_OUT_FIELDS;
    };
  };
  size_t ev_peak; /* most events one pass of this frame left here */
  EvTrim ev_trim;
  size_t planned;
  struct Wheel *wheel; /* the timers this worker started (wheel.c) */
  uint32_t *freed;     /* places whose slot this pass gave up (release.c) */
  size_t freed_count, freed_cap;
  Ahead ahead;
  struct BindHint *hint; /* this frame's binding answers (bind.c) */
  size_t hint_count, hint_cap;
  EvTrim hint_trim; /* the hint buffer follows the frames too (stats.c) */
  uint32_t *later;  /* agents to wake after the advance pass (wheel.c) */
  size_t later_count, later_cap;
  /* counted here, added up by the calling thread after the pass
   * (update.c): this pass's events by kind, as written (`kinds`, in
   * `out`); the agents this frame's advance pass visited; the agents
   * this pass marked for the planner */
  size_t visited, marked;
  size_t fast_takes, fast_ends; /* fast.c's visits, ever (tests) */
  uint32_t base_rel; /* what a timer it starts counts from (sp_due.h) */
  double inline_plan_ms, inline_take_ms; /* planning inline (update.c) */
} CrowdWorker;

/* Agents a chunk's record lists as possibly needing a goal or waiting
 * for a plan: a frame of a large crowd has a few such agents per chunk,
 * which the choose and take passes then visit without reading the
 * chunk's flags. */
#define SP_CHUNK_LIST 24

typedef struct ChunkRec { /* a line of its own: workers write theirs */
  _Alignas(SP_LINE) uint32_t worker, start, count;
  uint32_t dest; /* where a merge puts its events in the frame's buffer */
  /* a choose pass that plans inline on several workers: the events of the
   * chunk's take, a second run of its worker's buffer, merged after every
   * chunk's own (update.c, merge.c) */
  uint32_t take_start, take_count, take_dest;
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
  /* under goal_budget: its agents that may choose this frame; some were
   * left to choose at a later frame (asleep, found by their flags) */
  uint32_t allow, deferred;
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
  Agent *agents; /* capacity + 1 */
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
  /* a sorted goal's byte in events (its index), GOAL_NONE for none (-1
   * cast too) and past goal_count: set by sp__crowd_goals_changed */
  uint8_t goal_event[256];
  SpValue *goal_block; /* the goals' values */
  size_t goal_block_bytes;
  SpCrowdOptions opt;
  SpThreadPool *own_pool, *pool;
  int workers; /* 1 or more, fixed: only cw[0..workers-1] are ever used,
                  and the frame's loops over the workers stop there */
  CrowdWorker cw[SP_THREAD_POOL_MAX];
  atomic_size_t lost; /* events this frame whose buffer could not grow */
  size_t chunk_count;
  ChunkRec *chunks;
  union { /* this frame's events; `kinds`: those the calling thread wrote */
    EventOut out;
    struct {
      SP_EVENT_OUT_FIELDS;
    };
  };
  EvTrim ev_trim;
  double clock;
  /* the pass running now */
  int pass;
  int in_pass;     /* takes part in the pass of sp_crowds_update */
  int serial_pass; /* the pass runs on the calling thread: events go to ev */
  size_t ev_mark;  /* ev_count when the pass began */
  float dt;
  /* the pass's chunks, shared among its workers (sp_claims.h): each
   * worker starts on the same range every pass */
  SpClaims claims;
  CrowdIndex index;
  /* due times (wheel.c): the time slot of an acting or blocked agent
   * holds the tick (SP_TICKS_PER_S a second, from `epoch`) its wait ends
   * at, an exact integer; the agents asleep on a timer wait in the wheel,
   * and an update visits the awake ones; each worker files the timers it
   * starts in a wheel of its own (CrowdWorker) */
  uint64_t *awake; /* bit per agent: visit at the next advance */
  /* bit per agent (awake_words words): an entry of its in the wheel came
   * due this frame; the advance pass reads its record then, and visits
   * it when its wait is over (wheel.c, update.c) */
  uint64_t *due_marks;
  size_t awake_words;
  int wheels;         /* workers cw[0..wheels) may hold a wheel */
  int64_t wheel_tick; /* the first tick not wholly drained */
  /* with drain_in_pass, the frame's due ticks [drain_from, drain_to] are
   * drained at the choose pass's start by whichever of its workers come,
   * a wheel each (sp__wheel_drain_share): drain_wheels of them, the next
   * to claim and those done */
  int drain_in_pass, drain_wheels;
  int64_t drain_from, drain_to;
  atomic_int drain_next, drain_done;
  int64_t epoch;     /* ticks */
  uint32_t now_rel;  /* this frame's clock in ticks, less epoch */
  int sweeping;      /* a long frame: every agent awake, no wheel */
  int start_in_take; /* this frame's take pass starts steps (update.c) */
  /* this frame's choose pass, on the calling thread alone, plans and
   * takes a few chunks at a time as it goes: the first planning round is
   * done when it ends (update.c) */
  int plan_in_choose, first_round_done, inline_workers;
  double ms_taking_inline; /* the take's time in it (planning's: ms_planning) */
  int take_starts_off;     /* tests: the advance pass starts every step */
  int fast_off;         /* tests: the general visits only, none of fast.c's */
  int plans_inline_off; /* tests: the planning rounds plan every agent */
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
  size_t visited;         /* by the last advance pass (update.c) */
  uint64_t workers_woken; /* threads the last update woke (update.c) */
  double ms_update, ms_planning, ms_binding;
  /* the last update's parts, the call's (SpCrowdStats) */
  double ms_waking, ms_choosing, ms_taking, ms_advancing;
  double ms_workers_late; /* the call's passes short of a worker (update.c) */
};

/* Requests agent j's record ahead of its use: both of its ends, as a
 * 56-byte record often straddles two cache lines. */
#if defined(__GNUC__)
#define sp_prefetch(p) __builtin_prefetch(p)
#else
#define sp_prefetch(p) ((void)(p))
#endif
/* Always inlined: GCC takes a function that only prefetches for a pure
 * one, and drops the calls it does not inline. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
sp_agent_prefetch(const SpCrowd *c, size_t j) {
  const char *r = (const char *)&c->agents[j];
  sp_prefetch(r);
  sp_prefetch(r + sizeof(Agent) - 1);
}

/* Requests the lines a visit of agent j reads: its record and its
 * population rows (the advance pass's look-ahead, and
 * sp_crowd_set_var_many over a script's list). */
static inline void sp_agent_request(const SpCrowd *c, size_t j) {
  sp_agent_prefetch(c, j);
  sp_population_request_at(c->pop, j);
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

/* An agent whose state the facts or the sensors changed: the frame loop
 * says how it reacts (sp__agent_changed, step.c). */
typedef void (*SpChanged)(SpCrowd *c, size_t i);

/* Where events go: a worker's buffer (parallel passes) or, with worker
 * -1, the frame buffer (serial passes). */
typedef struct Sink {
  SpCrowd *c;
  int worker;
} Sink;

#endif
