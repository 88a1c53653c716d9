/* saspu_agents.h: public C API of the executor: worlds with places, crowds of agents that choose goals, plan and carry their plans out. */
#ifndef saspu_agents_h
#define saspu_agents_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"
#include "saspu_grid.h"
#include "saspu_population.h"
#include "saspu_threads.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In goal and `when` conditions, SP_ANY (saspu.h): this variable does not
 * matter. */

/* Agents per unit of parallel work (events are kept per chunk, so their
 * order never depends on the thread count); a multiple of 64. */
#if !defined(SP_CROWD_CHUNK)
#define SP_CROWD_CHUNK 1024
#endif

/* The default of SpCrowdOptions.parallel_min: agents a worker thread
 * should have at least before a frame's pass or planning round is shared
 * with it (waking it costs about as much as visiting that many). */
#if !defined(SP_CROWD_PLAN_PARALLEL_MIN)
#define SP_CROWD_PLAN_PARALLEL_MIN 256
#endif

/* Most goals a crowd may list. */
#if !defined(SP_CROWD_MAX_GOALS)
#define SP_CROWD_MAX_GOALS 254
#endif

/* Most world facts one crowd may tie to its variables. */
#if !defined(SP_CROWD_MAX_FACTS)
#define SP_CROWD_MAX_FACTS 8
#endif

/* Distance fields a world keeps by default, in bytes (least recently used
 * fields go first when a new one does not fit). */
#if !defined(SP_WORLD_FIELD_BUDGET)
#define SP_WORLD_FIELD_BUDGET ((size_t)64 << 20)
#endif

#define SP_NO_PLACE UINT32_MAX
#define SP_NO_AGENT ((size_t)-1)

/* ------------------------------------------------------------------ */
/* World: an optional grid, places and their kinds                    */
/* ------------------------------------------------------------------ */
/* A world holds places (a kind, a cell, a capacity and the slots reserved
 * now) and, with a grid, distance fields to them. Crowds live in a world
 * and share its places. The world does not own the grid; the grid must
 * outlive it. Grid changes are noticed at the next update (through
 * sp_grid_version) and drop every field. Not thread safe: one thread at a
 * time calls the world and its crowds. Their workers never call an
 * allocator from two threads at once (one lock per world), so the
 * allocators given to a world and its crowds need not be thread-safe
 * (the Lua binding passes Lua's own). */
typedef struct SpWorld SpWorld;

/* grid may be NULL: agents then walk straight (8 neighbours, no walls). */
SP_API SpStatus sp_world_new(SpGrid *grid, SpAllocator alloc, SpWorld **out,
                             SpError *err);
/* Crowds must be freed first. NULL is ignored. */
SP_API void sp_world_free(SpWorld *w);
SP_API SpGrid *sp_world_grid(const SpWorld *w);

/* The id of the place kind `name`, created on first use (ids 0, 1, ... in
 * order of first use). */
SP_API SpStatus sp_world_kind(SpWorld *w, const char *name, int *kind,
                              SpError *err);
/* -1 when no kind has that name. */
SP_API int sp_world_find_kind(const SpWorld *w, const char *name);
SP_API const char *sp_world_kind_name(const SpWorld *w, int kind);
SP_API int sp_world_kind_count(const SpWorld *w);

/* Adds a place of `kind` at (x, y); capacity 0 means unlimited. With a
 * grid the cell must be inside it and open. *id (may be NULL) receives
 * the place id (0, 1, ... in order). */
SP_API SpStatus sp_world_add_place(SpWorld *w, int kind, int x, int y,
                                   int capacity, uint32_t *id, SpError *err);

typedef struct SpPlaceInfo {
  int kind, x, y;
  int capacity; /* 0: unlimited */
  int reserved; /* slots held by agents now */
} SpPlaceInfo;

SP_API size_t sp_world_place_count(const SpWorld *w);
SP_API SpStatus sp_world_place(const SpWorld *w, uint32_t id, SpPlaceInfo *out);

/* Memory the distance-field cache may use (0: SP_WORLD_FIELD_BUDGET). At
 * least one field is always kept. A field takes 11 bytes per cell of the
 * grid with its border (distance, way, step count to the target, cell 16
 * steps on). */
SP_API void sp_world_set_field_budget(SpWorld *w, size_t bytes);

/* Builds ahead the distance fields of the places that have none, in id
 * order, while the budget holds them without forgetting another; with
 * ms > 0, starts no field after ms milliseconds (a field of a 256x256
 * grid takes about 10 ms), so a game can spread the work over frames or
 * do it all behind a loading screen (ms = 0). A walker then finds its
 * field built, where the first walker to a place would otherwise build it
 * in its frame. Sets *built (may be NULL) to the fields built; returns the
 * places still without a field (0 once all are warm, or without a grid:
 * nothing to build). A field that cannot be allocated is left to be built
 * on demand. Not during an update. */
SP_API size_t sp_world_warm_fields(SpWorld *w, double ms, size_t *built);
/* Sets up the planners of the world's crowds made so far (their
 * workspaces, plan caches and tables: sp_population_warm), which their
 * first update with plans would otherwise do in its frame (some ms a
 * crowd). Plans nothing; events do not change. SP_ERR_MEMORY leaves the
 * crowds as they were (their first plans try again). Not during an
 * update. */
SP_API SpStatus sp_world_warm_planners(SpWorld *w, SpError *err);

/* ---- world facts ------------------------------------------------------
 * A fact is stated once for the world ("alarm" is "ringing") and seen by
 * every agent of every crowd that ties a domain variable to it
 * (sp_crowd_tie_fact). sp_world_set_fact takes effect at the next
 * update: then only the agents concerned react, as to a world change:
 * those whose running plan reads the variable (a condition of one of its
 * steps; they replan if the rest no longer works) and, when a goal or
 * `when` of the crowd reads it, the idle ones (they choose again; a
 * running plan meets a higher goal between steps). Finding them costs
 * what they cost (a count per chunk of 1024 agents of those whose plan
 * reads a fact), plus a pass over one byte per agent when a goal reads
 * it: a change that concerns 1 agent in a million costs about that one
 * agent. The other agents' copies of the value are brought up to date
 * when the update next looks at them (and by every reader: state,
 * inspect, save). */

/* Adds fact `name` with `count` value names (2..255, distinct) and the
 * value `value` (0-based); *id (may be NULL) receives its id (0, 1, ...
 * in order). SP_ERR_INVALID for a name used already, bad counts or
 * names; SP_ERR_MEMORY. Nothing changed on failure. */
SP_API SpStatus sp_world_add_fact(SpWorld *w, const char *name,
                                  const char *const *values, int count,
                                  int value, int *id, SpError *err);
SP_API int sp_world_fact_count(const SpWorld *w);
/* -1 when no fact has that name. */
SP_API int sp_world_find_fact(const SpWorld *w, const char *name);
SP_API const char *sp_world_fact_name(const SpWorld *w, int fact);
SP_API int sp_world_fact_value_count(const SpWorld *w, int fact);
SP_API const char *sp_world_fact_value_name(const SpWorld *w, int fact,
                                            int value);
/* The fact's value now (0-based); -1 for no such fact. */
SP_API int sp_world_get_fact(const SpWorld *w, int fact);
/* SP_ERR_INVALID for no such fact or a value out of range (nothing
 * changed). */
SP_API SpStatus sp_world_set_fact(SpWorld *w, int fact, int value,
                                  SpError *err);

typedef struct SpWorldStats {
  size_t places, fields, field_bytes;
  uint64_t fields_computed, fields_evicted;
  double ms_fields; /* spent computing fields */
  /* agents waiting in turn for full places, and the bytes their queue
   * and its index hold (the list shrinks as it empties) */
  size_t waiters, queue_bytes;
} SpWorldStats;
SP_API void sp_world_stats(const SpWorld *w, SpWorldStats *out);

/* ------------------------------------------------------------------ */
/* Crowd: the agents of one compiled domain                           */
/* ------------------------------------------------------------------ */
typedef struct SpCrowd SpCrowd;

typedef struct SpCrowdOptions {
  size_t capacity;    /* most agents (a population of that size) */
  uint64_t seed;      /* draws of ranged durations */
  int threads;        /* workers for update and planning; 0: online cores */
  SpThreadPool *pool; /* shared pool, or NULL for the crowd's own */
  float speed;        /* cells per second when walking (0: 4) */
  float cooldown;     /* seconds a failed binding is avoided (0: 5) */
  float retry;        /* seconds a blocked agent waits to retry (0: 1) */
  uint32_t cache_capacity; /* per-worker plan cache (0: default) */
  int engine_moves;        /* 1: the caller moves agents (movement "engine"):
                        a step bound to a target emits SP_EV_MOVE and waits
                        in SP_PHASE_MOVING for sp_crowd_arrived or
                        sp_crowd_move_failed; 0: saspu walks the grid */
  /* Agents per worker thread, at least, before an update shares a pass or
   * a planning round with more threads: a frame where few agents have
   * something due runs on the calling thread, and a larger one wakes one
   * worker per parallel_min agents (0: SP_CROWD_PLAN_PARALLEL_MIN, 256;
   * 1 shares any pass with work in two chunks). Events never depend on
   * it. */
  uint32_t parallel_min;
  /* Agents that may choose a goal in one update while they think with
   * nothing else pending (new agents, agents at the end of a plan), so a
   * first frame or a bulk spawn is spread over several frames: the
   * others wait, asleep, lowest index first, for the next updates (0:
   * any number). Agents with a plan pending, a place held or an answer
   * from the caller choose outside it. Events never depend on the thread
   * count. */
  uint32_t goal_budget;
  /* Its own pool's sp_thread_pool_wake_ahead, in ms (0: the pool's
   * default, off unless built with SP_POOL_AHEAD_NS; below 0: off). A
   * shared pool (`pool`) keeps its own. */
  double wake_ahead_ms;
} SpCrowdOptions;

/* Creates a crowd of up to opts->capacity agents of domain d in world w.
 * Both must outlive it. Every action starts as "instant, no place". On
 * failure *out is NULL and nothing is leaked. */
SP_API SpStatus sp_crowd_new(SpWorld *w, const SpDomain *d,
                             const SpCrowdOptions *opts, SpAllocator alloc,
                             SpCrowd **out, SpError *err);
SP_API void sp_crowd_free(SpCrowd *c);
/* Takes the crowd out of its world without freeing it (a game closed
 * it): every reservation it holds is given back (the places have room for
 * the other crowds at once), its agents leave the world's queue of
 * waiters, walks of other crowds' agents toward its agents fail at their
 * next frame (target_gone) and sensors that sense it read "not sensed"
 * (their off value) from their next reading. It must not be updated,
 * saved or loaded again; sp_crowd_free still frees it (and retires it
 * first when it was not). Idempotent; NULL is ignored. */
SP_API void sp_crowd_retire(SpCrowd *c);
/* 1 once sp_crowd_retire was called. */
SP_API int sp_crowd_retired(const SpCrowd *c);
SP_API const SpDomain *sp_crowd_domain(const SpCrowd *c);
SP_API SpPopulation *sp_crowd_population(SpCrowd *c);

/* ---- behaviour of actions ------------------------------------------- */

typedef enum SpBind {
  SP_BIND_NONE = 0, /* done where the agent stands */
  SP_BIND_PLACE,    /* at place `place` */
  SP_BIND_KIND,     /* at the nearest place of kind `kind` with room */
  SP_BIND_HOME,     /* at the agent's home place */
  SP_BIND_SCRIPT    /* the caller sets the target (sp_crowd_set_target) */
} SpBind;

typedef struct SpActionBehaviour {
  float min_duration, max_duration; /* seconds; drawn per agent and step */
  SpBind bind;
  uint32_t place;    /* SP_BIND_PLACE */
  int kind;          /* SP_BIND_KIND */
  int interruptible; /* a strictly higher goal may stop it mid-step */
  int scripted;      /* after arriving: waits in SP_PHASE_SCRIPT until
                     sp_crowd_finish_step / sp_crowd_fail_step */
  int has_hook;      /* events of this action carry SP_EVENT_HOOK */
  /* Back-off: the k-th failure in a row of this step (conditions,
   * script, unreachable) waits retry * 2^(k-2) seconds (capped at
   * SP_BACKOFF_CAP retries) before the agent replans; the max_failures-th
   * gives up the goal for give_up_for seconds (SP_EV_GAVE_UP; a goal
   * given up is passed over, and an agent idle meanwhile looks again at
   * its next wake-up). 0: the defaults 3 and 30 s; max_failures past
   * 0..255 or give_up_for not finite >= 0 is SP_ERR_INVALID. A finished
   * step starts the count over. */
  int max_failures;
  float give_up_for;
} SpActionBehaviour;
#define SP_BACKOFF_CAP 16.0f /* the longest back-off, in retries */

SP_API SpStatus sp_crowd_set_action(SpCrowd *c, int action,
                                    const SpActionBehaviour *b, SpError *err);

/* ---- goals ---------------------------------------------------------- */
/* A goal is a condition (m values, SP_ANY where a variable does not
 * matter), a priority, and `when` (m values or NULL: always). The planner
 * gets the condition itself: an agent's plan is a shortest one to ANY
 * state matching it (a variable the goal leaves free may change on the
 * way), and the goal counts as reached, or a world change as breaking
 * the plan, by the same condition. An agent
 * takes the goal of highest priority (earlier added first among equals)
 * whose `when` holds, that its state does not satisfy yet, and that has a
 * plan; a goal without a plan gives a no_plan event and the next one is
 * tried. A running plan yields only to a strictly higher goal (any of the
 * crowd's goals, however many) that was not refused since the agent last
 * chose: between steps, or mid-step when the step is interruptible. Past
 * 16 goals every agent keeps 4 more bytes per 32 goals for its refusals
 * (allocated here: SP_ERR_MEMORY leaves the crowd as it was). */
SP_API SpStatus sp_crowd_add_goal(SpCrowd *c, const SpValue *condition,
                                  int priority, const SpValue *when, int *index,
                                  SpError *err);
SP_API int sp_crowd_goal_count(const SpCrowd *c);
/* Goal `index` is reached by ANY of `count` conditions (`conds`: count *
 * m values, SP_ANY allowed; a goal whose variables take sets of values
 * is one condition per combination): it holds when one of them holds,
 * and an agent plans the shortest plan to any of them (sp_plan_any: the
 * earliest condition among equal lengths). The first condition becomes
 * the goal's own (what a save holds). count 1 gives it one condition
 * again. Allocates count * m bytes (SP_ERR_MEMORY: nothing changed);
 * SP_ERR_STATE for no such goal, a count outside
 * 1..SP_GOAL_CHOICES_MAX or a value out of range. Not during an update;
 * agents already pursuing it keep their plans. */
SP_API SpStatus sp_crowd_set_goal_choices(SpCrowd *c, int index,
                                          const SpValue *conds, int count,
                                          SpError *err);
/* Goal `index` (from sp_crowd_add_goal) takes `priority` at once: the
 * goals are sorted again (among equal priorities the earlier added
 * first), refusals are forgotten and idle agents look again; a running
 * plan yields to a goal now strictly higher as to any other. Not during
 * an update. SP_ERR_STATE for no such goal. Allocates nothing. */
SP_API SpStatus sp_crowd_set_priority(SpCrowd *c, int index, int priority,
                                      SpError *err);
/* Goal `index`'s priority now (0 for no such goal). */
SP_API int sp_crowd_priority(const SpCrowd *c, int index);
/* Agent `agent` gives goal `index` (from sp_crowd_add_goal) its own
 * `priority`: it chooses among its goals as if the goal had it (the
 * crowd's priority for the others and for every other agent). Its
 * refusals are forgotten and, idle, it looks again; a running plan yields
 * to a goal now strictly higher for it, as to any. The crowd keeps a
 * sorted list of such priorities (12 bytes each; an agent without one
 * costs nothing): SP_ERR_MEMORY when it cannot grow, nothing changed.
 * SP_ERR_STATE for a despawned agent or no such goal. A despawn drops
 * the agent's own priorities; a save keeps them. Not during an update. */
SP_API SpStatus sp_crowd_set_agent_priority(SpCrowd *c, size_t agent, int index,
                                            int priority, SpError *err);
/* Goal `index` is rechecked while it runs: between steps, and every frame
 * of an interruptible step, an agent pursuing it checks its `when`; when
 * no goal of its group (`group`: the add index of the group's first goal,
 * at most index; the goals one `when` with sets became) has a `when` that
 * holds, the agent drops the goal (SP_EV_GOAL_DROPPED, a running step
 * fails with SP_REASON_WHEN_LAPSED) and chooses again. SP_ERR_STATE for
 * no such goal or group. Not during an update. */
SP_API SpStatus sp_crowd_set_recheck(SpCrowd *c, int index, int group,
                                     SpError *err);
/* Drops the agent's own priority for goal `index` (the crowd's again). */
SP_API SpStatus sp_crowd_clear_agent_priority(SpCrowd *c, size_t agent,
                                              int index, SpError *err);
/* The priority goal `index` has for the agent: its own (*own = 1) or the
 * crowd's (*own = 0); 0 for a dead agent or no such goal. own may be
 * NULL. */
SP_API int sp_crowd_agent_priority(const SpCrowd *c, size_t agent, int index,
                                   int *own);

/* Goals chosen by the caller (on != 0): an agent that needs a goal no
 * longer takes one from the list by priority; it waits in SP_PHASE_SCRIPT
 * (no step) after an SP_EV_WAITING event with SP_REASON_SELECT (flagged
 * SP_EVENT_HOOK) until sp_crowd_select_goal. It needs one when it spawns,
 * reaches its goal, has no plan for the one chosen (after the no_plan
 * event), is idle and its state changes, or on sp_crowd_rethink; a world
 * change or failed step that breaks its plan replans the SAME goal. A
 * state change between sp_crowd_select_goal and the update that applies
 * it drops the answer (it was for the old state): that update asks again
 * (SP_EV_WAITING, SP_REASON_SELECT) instead of planning or idling. Only
 * the agents whose state changed are asked; the others cost nothing. A
 * running plan is never interrupted by a higher goal of the list. */
SP_API void sp_crowd_set_selector(SpCrowd *c, int on);
/* The goal (index from sp_crowd_add_goal, or -1: nothing to do) of an
 * agent waiting after SP_REASON_SELECT; applied at the next update: a
 * goal is planned (goal_chosen, planned), one that holds already or -1
 * leaves the agent idle (SP_EV_IDLE, all_satisfied / no_goal).
 * SP_ERR_STATE when the agent does not wait for a goal. */
SP_API SpStatus sp_crowd_select_goal(SpCrowd *c, size_t agent, int goal,
                                     SpError *err);

/* Ties variable `var` of the crowd's domain to the world's fact `fact`:
 * its values must be the fact's, by name and order, and no action of the
 * domain may change it (the world sets a fact). Before any agent is
 * spawned; at most SP_CROWD_MAX_FACTS ties, one per fact and variable.
 * Then spawns and sp_crowd_set_state take the fact's value for it,
 * sp_crowd_set_var refuses it, and sp_crowd_state shows the fact's
 * value. SP_ERR_INVALID / SP_ERR_STATE naming the fact and the variable;
 * SP_ERR_MEMORY. Nothing changed on failure. */
SP_API SpStatus sp_crowd_tie_fact(SpCrowd *c, int fact, int var, SpError *err);

/* ---- sensors ----------------------------------------------------------
 * A sensor keeps a two-valued variable equal to a spatial test, in C:
 * `on` when an agent of crowd `near` (another agent, for the crowd
 * itself) or a place of kind `kind` is within Chebyshev distance r of
 * the agent, `off` otherwise. Read at the first update and then every
 * `period` seconds (0: every update), before the goal choice; a value
 * that changes acts as sp_crowd_set_var would (only plans it breaks
 * replan; an idle agent chooses again). A reading visits every agent of
 * the crowd (a crowd sensed by `near` keeps a spatial index, as
 * sp_crowd_near does); a crowd without sensors pays nothing. */
#if !defined(SP_CROWD_MAX_SENSORS)
#define SP_CROWD_MAX_SENSORS 8
#endif
typedef struct SpSensor {
  int var;             /* a variable of the crowd's domain */
  int on, off;         /* its values when the test holds / does not */
  const SpCrowd *near; /* an agent of this crowd within r, or NULL */
  int kind;            /* or a place of this kind (-1: none) */
  int r;               /* cells, >= 0 */
  float period;        /* seconds between readings, >= 0 */
} SpSensor;

/* Adds a sensor. SP_ERR_INVALID (nothing changed) when the variable or
 * its values do not exist, it is tied to a fact or sensed already, an
 * action changes it (the sensor sets it), both or neither of near and
 * kind are given, near lives in another world, kind does not exist, r <
 * 0 or period is not a finite number >= 0; more than
 * SP_CROWD_MAX_SENSORS. The crowd sensed must outlive this one. */
SP_API SpStatus sp_crowd_add_sensor(SpCrowd *c, const SpSensor *s,
                                    SpError *err);

/* ---- agents ---------------------------------------------------------- */

typedef enum SpPhase {
  SP_PHASE_FREE = 0, /* no agent in this slot */
  SP_PHASE_IDLE,     /* nothing to do (an event said why) */
  SP_PHASE_WALKING,
  SP_PHASE_ACTING,
  SP_PHASE_SCRIPT,   /* waiting for the caller (scripted step or target) */
  SP_PHASE_BLOCKED,  /* waiting to retry (full or unreachable target) */
  SP_PHASE_THINKING, /* choosing a goal or planning (until next update) */
  SP_PHASE_MOVING,   /* the caller moves it (engine_moves): waits for
                        sp_crowd_arrived / sp_crowd_move_failed */
  SP_PHASE_COUNT
} SpPhase;

SP_API const char *sp_phase_name(SpPhase p);

/* Adds an agent in `state` at (x, y) with home place `home` (or
 * SP_NO_PLACE); it chooses a goal at the next update. */
SP_API SpStatus sp_crowd_spawn(SpCrowd *c, const SpValue *state, int x, int y,
                               uint32_t home, size_t *agent, SpError *err);
/* Live agents (spawned and not despawned). */
SP_API size_t sp_crowd_size(const SpCrowd *c);
/* Agent slots in use or freed: agent indices are below this; a freed
 * slot (sp_crowd_despawn) is reused by a later spawn, last freed first. */
SP_API size_t sp_crowd_slots(const SpCrowd *c);

/* Removes an agent, O(1): its reservation is released, it emits no more
 * events, its slot's generation goes up (so a caller's handle of
 * (index, generation) never reaches an agent spawned later in the slot)
 * and the per-frame passes skip the slot at the cost of one byte read.
 * The first despawn of a crowd allocates its slot bookkeeping (8 bytes
 * per agent of capacity): SP_ERR_MEMORY then, nothing changed.
 * SP_ERR_STATE (nothing changed) when there is no live agent `agent`. */
SP_API SpStatus sp_crowd_despawn(SpCrowd *c, size_t agent, SpError *err);
/* 1 when slot `agent` holds a live agent. */
SP_API int sp_crowd_alive(const SpCrowd *c, size_t agent);
/* The slot's generation: 0 until its first despawn, +1 per despawn. */
SP_API uint32_t sp_crowd_generation(const SpCrowd *c, size_t agent);

/* Puts the agent on cell (x, y) now (0-based; with a grid, inside it and
 * open, else SP_ERR_STATE and nothing changed). A walk goes on from the
 * new cell toward the same target (a place stays bound and reserved; a
 * target it cannot reach from there fails as unreachable when it walks);
 * other phases only change position. */
SP_API SpStatus sp_crowd_teleport(SpCrowd *c, size_t agent, int x, int y,
                                  SpError *err);

/* Crowds with engine_moves: the agent waiting in SP_PHASE_MOVING is at
 * its target. Applied at the next update (SP_EV_ARRIVED, the step acts;
 * a place's or a cell's target puts the agent on the target cell, an
 * agent target leaves it where it is). SP_ERR_STATE when no move is
 * pending (or one was answered already), and for an agent target when
 * the agent is farther than the reach from the target's cell now (the
 * message gives the distance). */
SP_API SpStatus sp_crowd_arrived(SpCrowd *c, size_t agent, SpError *err);
/* 1 when agent `agent` waits for the caller's answer to a move. */
SP_API int sp_crowd_move_pending(const SpCrowd *c, size_t agent);
/* The agent target of agent `agent`'s move or walk: its crowd, slot and
 * generation and the reach. 0 (nothing written) when it has none. */
SP_API int sp_crowd_move_target(const SpCrowd *c, size_t agent,
                                const SpCrowd **crowd, size_t *target,
                                uint32_t *gen, int *reach);
/* Sets every agent of `agents` (count of them) on cell (xs[k], ys[k]) as
 * sp_crowd_teleport would, in order; stops at the first agent or cell it
 * refuses (SP_ERR_STATE naming the entry k, 0-based, in *done; those
 * before it moved). */
SP_API SpStatus sp_crowd_move_many(SpCrowd *c, const uint32_t *agents,
                                   const int32_t *xs, const int32_t *ys,
                                   size_t count, size_t *done, SpError *err);
/* The pending move could not be done: at the next update the step fails
 * as an unreachable target would (SP_EV_STEP_FAILED with reason
 * SP_REASON_SCRIPT and `detail`, the place cools down, the agent
 * replans). SP_ERR_STATE as sp_crowd_arrived. */
SP_API SpStatus sp_crowd_move_failed(SpCrowd *c, size_t agent, int detail,
                                     SpError *err);
/* SP_BIND_SCRIPT steps: go to agent `target` of crowd `other` (of the
 * same world; it may be c itself), whose slot generation must still be
 * `gen`, and arrive within `reach` cells (Chebyshev distance; 0: its
 * cell). The target may move: on a grid the walker follows an A* path
 * to the target's cell, keeping its first SP_CHASE_PATH cells, and
 * searches again when it walked them or the target moved more than
 * SP_CHASE_SLACK cells from where that path led (no distance field: a
 * field per target cell would be dropped at every move of the target);
 * without a grid it steps straight toward the target's cell now. Each
 * frame it checks the target: despawned (also before this call), or its
 * crowd freed, fails the step with SP_REASON_TARGET_GONE at the next
 * update (the agent replans); a target it
 * cannot reach fails it as unreachable. Chasers cost the serial binding
 * pass each frame (A* on the calling thread); others cost nothing more.
 * With engine_moves the target's cell now becomes the move's target (one
 * SP_EV_MOVE; a despawned target is SP_ERR_STATE). Valid while the agent waits for a target, as
 * sp_crowd_set_target. The first chase of a crowd allocates its records
 * (and, with a grid, a search workspace): SP_ERR_MEMORY, nothing
 * changed. A save holds the chase (target, reach and the path being
 * followed): after a load the walk goes on as it would have. */
#if !defined(SP_CHASE_PATH)
#define SP_CHASE_PATH 16
#endif
#if !defined(SP_CHASE_SLACK)
#define SP_CHASE_SLACK 2
#endif
SP_API SpStatus sp_crowd_set_target_agent(SpCrowd *c, size_t agent,
                                          const SpCrowd *other, size_t target,
                                          uint32_t gen, int reach,
                                          SpError *err);

/* The target cell of the agent's move or walk (0-based), or -1, -1. */
SP_API SpStatus sp_crowd_target_cell(const SpCrowd *c, size_t agent, int *x,
                                     int *y);

/* World changes. A change that breaks the rest of the running plan
 * (simulated from the new state) makes the agent replan with reason
 * SP_REASON_WORLD_CHANGED at the next update; one that does not, does
 * not. The running step is judged like the rest: if its effect no longer
 * follows, it is stopped. */
SP_API SpStatus sp_crowd_set_var(SpCrowd *c, size_t agent, int var, int value,
                                 SpError *err);
SP_API SpStatus sp_crowd_set_var_many(SpCrowd *c, const size_t *agents,
                                      size_t count, int var, int value,
                                      SpError *err);
SP_API SpStatus sp_crowd_set_state(SpCrowd *c, size_t agent,
                                   const SpValue *state, SpError *err);
/* Re-evaluates the agent's goal at the next update (e.g. a `when` that a
 * script knows has changed). */
SP_API SpStatus sp_crowd_rethink(SpCrowd *c, size_t agent, SpError *err);

/* Scripted steps: the outcome is applied at the next update. */
SP_API SpStatus sp_crowd_finish_step(SpCrowd *c, size_t agent, SpError *err);
/* Fails the agent's running step, scripted or not (walking, acting, or
 * waiting for the caller), e.g. when a hook of the step raised. The step
 * waits in SP_PHASE_SCRIPT until the next update, which emits
 * SP_EV_STEP_FAILED (SP_REASON_SCRIPT, `detail`) and releases its place;
 * its effect is NOT applied, even if its duration would have run out in
 * that update. The agent then replans (SP_EV_REPLANNED with
 * SP_REASON_STEP_FAILED; backed off as SpActionBehaviour says): a walking or acting step is ended by the goal
 * pass of that update, which replans at once; a scripted step, as
 * before, by its advance pass, and the replan comes with the update
 * after. A step that a higher goal or a lapsed `when` has just dropped
 * (the agent thinks, SpAgentInfo.step still names it, and the next
 * update ends it) may be failed too: that update says the caller's
 * failure instead (and replans for the reason the plan was dropped).
 * SP_ERR_STATE when no step runs: a step of duration 0 starts and finishes (effect applied) in the
 * same update, so once the caller sees its SP_EV_STEP_STARTED it is over;
 * its effect stays, and only the caller can undo it (a world change).
 * sp_crowd_finish_step and sp_crowd_set_target refuse a failed step. */
SP_API SpStatus sp_crowd_fail_step(SpCrowd *c, size_t agent, int detail,
                                   SpError *err);
/* SP_BIND_SCRIPT steps: where to go (a place, or a cell with place =
 * SP_NO_PLACE). Valid while the agent waits in SP_PHASE_SCRIPT. */
SP_API SpStatus sp_crowd_set_target(SpCrowd *c, size_t agent, uint32_t place,
                                    int x, int y, SpError *err);

/* ---- update and events ------------------------------------------------ */

typedef enum SpEventKind {
  SP_EV_GOAL_CHOSEN = 0,
  SP_EV_PLANNED,
  SP_EV_REPLANNED, /* reason: why the old plan was dropped */
  SP_EV_STEP_STARTED,
  SP_EV_STEP_FINISHED,
  SP_EV_STEP_FAILED,  /* reason */
  SP_EV_STEP_SKIPPED, /* its effect already held */
  SP_EV_ARRIVED,
  SP_EV_GOAL_REACHED,
  SP_EV_NO_PLAN,        /* detail: SpFailureCode; sp_crowd_last_failure */
  SP_EV_BLOCKED,        /* reason: unreachable or full */
  SP_EV_IDLE,           /* reason: why there is nothing to do */
  SP_EV_WAITING,        /* a scripted step or target waits for the caller */
  SP_EV_MOVE,           /* engine_moves: move the agent to its target cell
                          (sp_crowd_target_cell); detail: the place or -1 */
  SP_EV_GAVE_UP,        /* max_failures in a row: the goal is set aside for
                          give_up_for seconds; reason: the first failure's
                          of the run (SP_EVENT_FIRST), action: the step's */
  SP_EV_GOAL_DROPPED,   /* a rechecked goal's `when` stopped holding while it
                          ran (sp_crowd_set_recheck): the agent chooses
                          again; reason SP_REASON_WHEN_LAPSED */
  SP_EV_MOVE_CANCELLED, /* engine_moves: the step whose SP_EV_MOVE was not
                          answered ended otherwise (failed, interrupted,
                          its goal dropped); reason: why */
  SP_EV_COUNT
} SpEventKind;

typedef enum SpReason {
  SP_REASON_NONE = 0,
  SP_REASON_WORLD_CHANGED,
  SP_REASON_STEP_FAILED,
  SP_REASON_HIGHER_GOAL,
  SP_REASON_CONDITIONS, /* pre or prevail did not hold at the start */
  SP_REASON_UNREACHABLE,
  SP_REASON_FULL,
  SP_REASON_SCRIPT, /* sp_crowd_fail_step; detail from the caller */
  SP_REASON_NO_PLAN,
  SP_REASON_ALL_SATISFIED, /* idle: every applicable goal holds */
  SP_REASON_NO_GOAL,       /* idle: no goal applies */
  SP_REASON_NO_PLAN_ANY,   /* idle: no applicable goal has a plan */
  SP_REASON_COOLDOWN,      /* blocked: the only target is cooling down */
  SP_REASON_SELECT,        /* waiting: the caller chooses the goal */
  SP_REASON_TARGET_GONE,   /* the agent a step went to was despawned or its
                             crowd freed */
  SP_REASON_MIGRATED,      /* a load under migration dropped its plan */
  SP_REASON_WHEN_LAPSED,   /* a rechecked goal's `when` stopped holding */
  SP_REASON_COUNT
} SpReason;

SP_API const char *sp_event_kind_name(SpEventKind k);
SP_API const char *sp_reason_name(SpReason r);

#define SP_EVENT_HOOK 0x01 /* the action has has_hook set */
#define SP_EVENT_REPEATED                                                      \
  0x02 /* SP_EV_MOVE: a move announced before (the
                                  first update after a load repeats every
                                  pending one) */
#define SP_EVENT_FIRST                                                         \
  0x04 /* SP_EV_STEP_FAILED: the first failure of a run of
                                  failures of the step, the one a later
                                  SP_EV_GAVE_UP names */

typedef struct SpAgentEvent {
  uint32_t agent;
  uint8_t kind;   /* SpEventKind */
  uint8_t reason; /* SpReason */
  uint8_t flags;  /* SP_EVENT_HOOK */
  uint8_t goal;   /* goal index (order of sp_crowd_add_goal), 0xFF none */
  int16_t action; /* -1 none */
  uint16_t gen;   /* low 16 bits of the agent's slot generation */
  int32_t detail; /* place id, failure code, or the caller's detail */
} SpAgentEvent;

/* Advances every agent by dt seconds on the workers. Per frame, in this
 * order, every pass visiting agents in chunks: agents that need a goal
 * choose one and are planned (through the population and its caches;
 * goals without a plan fall back down the list in rounds); then each
 * agent finishes, starts, walks and counts down its steps (a step bound
 * to unlimited places whose distance field is cached is bound there);
 * then a serial pass binds the other places in agent order (capacities,
 * new fields, failures). Events are ordered by
 * pass, then by chunk, then as they happened: the same for any thread
 * count. Allocates only while buffers grow to their working size (the
 * frame buffer holds one event per agent before anything moves). A dt
 * that is negative, infinite or NaN, or that takes the crowd's clock past
 * SP_CROWD_CLOCK_MAX seconds, is refused (SP_ERR_INVALID, nothing
 * changed). Otherwise fails only with SP_ERR_MEMORY: (a) when the frame buffer cannot be set up,
 * before any agent changed; (a') when the planning workers cannot be set
 * up, after the goal choices (their events are there; those agents wait
 * and are planned at the next update); (b) after the frame, when an
 * event buffer could not grow: every agent moved on, the events that fit
 * are there, and the message and sp_crowd_stats (events_lost) say how
 * many were lost. No event is ever dropped without this error. */
SP_API SpStatus sp_crowd_update(SpCrowd *c, float dt, SpError *err);

/* The latest a crowd's clock may read, in seconds (2^36, over two
 * thousand years): its due times count 1/65536 s ticks, exact in a
 * double up to there. A save whose clock is past it does not load. */
#define SP_CROWD_CLOCK_MAX 68719476736.0

/* sp_crowd_update of several crowds at once, as one frame: each pass
 * (goal choice, each planning round, advance) of every crowd runs in one
 * parallel job on their pool, so the workers are woken and joined a few
 * times a frame rather than a few times per crowd; then each crowd's
 * serial binding pass, in list order. Every crowd must run on the same
 * pool (SpCrowdOptions.pool, or all on none) and be listed once
 * (SP_ERR_INVALID, nothing changed). Each crowd's events are ordered as
 * by sp_crowd_update and do not depend on the thread count; they may
 * differ from updating the crowds one after another where crowds meet:
 * a crowd's advance pass here runs before the binding passes of the
 * crowds listed earlier (their reservations and new fields are seen at
 * the next frame). A pass or planning round with work for fewer
 * than two workers (SpCrowdOptions.parallel_min agents each) or in one
 * chunk runs on the calling thread. Fails as sp_crowd_update, every crowd
 * at the same point; ms_update and workers_woken of each crowd are the
 * whole call's. */
SP_API SpStatus sp_crowds_update(SpCrowd *const *crowds, size_t count, float dt,
                                 SpError *err);

/* This frame's events (valid until the next update). */
SP_API size_t sp_crowd_event_count(const SpCrowd *c);
SP_API const SpAgentEvent *sp_crowd_events(const SpCrowd *c);

/* ---- inspection -------------------------------------------------------- */

typedef struct SpAgentInfo {
  SpPhase phase;
  int goal;        /* goal index, -1 none */
  int plan_length; /* -1 without a plan */
  int step;        /* plan position of the running step, -1 none */
  int action;      /* its action, -1 none */
  int steps_done;  /* plan steps done or skipped */
  float time_left; /* acting/blocked: seconds; walking: cell progress */
  int x, y;
  uint32_t target;        /* bound place, SP_NO_PLACE */
  int target_x, target_y; /* bound cell, -1 none */
  uint32_t home;
  SpReason last_reason; /* of the last failure; of the first of a run of
                           failures of one step (also once it gave up) */
  int last_action;      /* the action that failed, -1 */
} SpAgentInfo;

SP_API SpStatus sp_crowd_inspect(const SpCrowd *c, size_t agent,
                                 SpAgentInfo *out);
/* The agent's cell (0-based), alone: a cheap read for scripts that look
 * at many agents per frame. SP_ERR_STATE when there is no such agent. */
SP_API SpStatus sp_crowd_position(const SpCrowd *c, size_t agent, int *x,
                                  int *y);
SP_API const SpValue *sp_crowd_state(const SpCrowd *c, size_t agent);

/* Perception. The live agents within Chebyshev distance r (max(|dx|,
 * |dy|) <= r: r steps of the 8-neighbour walk on open ground) of cell
 * (x, y), nearest first, agents at the same distance by index; at most
 * max of them (0: all). *agents points at *count indices in the crowd's
 * own buffer (NULL when *count is 0), valid until the next call that
 * changes the crowd. The crowd keeps a spatial index from the first
 * query on: the update then writes an agent's cell key only when it
 * changes cell. A query after some agent moved reads every key once
 * (4 bytes an agent, no sort); when a few queries come with nothing
 * moved since, the keys are sorted into buckets of 8x8 cells (4 bytes
 * more an agent) and later queries read only the buckets near (x, y).
 * A frame with no query costs nothing more. Allocates on the first
 * call, at the first sort, and when an answer or the bucket table
 * outgrows its buffer. SP_ERR_INVALID for r < 0; SP_ERR_MEMORY (no
 * answer, the crowd as it was). */
SP_API SpStatus sp_crowd_near(SpCrowd *c, int x, int y, int r, size_t max,
                              const uint32_t **agents, size_t *count,
                              SpError *err);
/* The agent's plan (action ids), as for sp_population_plan_of. */
SP_API SpStatus sp_crowd_plan(const SpCrowd *c, size_t agent, uint16_t *plan,
                              int *len);
/* 1 when plan position k is done or skipped. */
SP_API int sp_crowd_step_done(const SpCrowd *c, size_t agent, int k);
/* The planner's record of the agent's last no_plan (code SP_FAIL_NONE when
 * it never had one); format it with sp_failure_format. A crowd keeps
 * these records from its first no_plan on (8 bytes an agent slot); when
 * no memory was left for them then, the code is SP_FAIL_NONE (the
 * no_plan event still carries it). */
SP_API SpFailure sp_crowd_last_failure(const SpCrowd *c, size_t agent);

/* What blocked the goal of the agent's last no_plan at that no_plan (as
 * its event reports it): the blocker recorded then, or (kind
 * SP_BLOCK_ORDER) the planner's reason with the variable's value now.
 * SP_ERR_STATE when the agent never had a no_plan. */
SP_API SpStatus sp_crowd_no_plan_blocker(const SpCrowd *c, size_t agent,
                                         SpBlocker *out);
/* What blocks the goal of the agent's last no_plan, judged from its state
 * now (sp_plan_blocker; kind SP_BLOCK_NONE when that goal has a plan
 * now). *goal receives the goal's index. SP_ERR_STATE when the agent's
 * last failure is not a no_plan (or it has had a plan for that goal
 * since). `scratch` holds sp_crowd_blocker_scratch_size(c) bytes. Uses
 * the crowd's first planning workspace: not during an update. */
SP_API size_t sp_crowd_blocker_scratch_size(const SpCrowd *c);
SP_API SpStatus sp_crowd_last_blocker(SpCrowd *c, size_t agent, void *scratch,
                                      SpBlocker *out, int *goal);

typedef struct SpCrowdStats {
  size_t agents;
  size_t phase[SP_PHASE_COUNT];
  uint64_t plans, replans, no_plans, events, steps_finished;
  double ms_update;   /* last update, all passes */
  double ms_planning; /* last update, population planning */
  double ms_binding;  /* last update, the serial binding pass */
  /* What the crowd holds in memory (a large array counts its pages in
   * memory only, so these agree with the process's resident set): in
   * all, and per agent the part that grows with the agents (records,
   * the population's per-NPC arrays, the event buffers, which follow the
   * frames' events), rounded up; with no agent, the records an agent
   * will add. */
  size_t bytes_per_agent;
  size_t bytes_total;
  uint64_t events_lost; /* events an update could not store (memory) */
  /* Agents the last update's advance pass visited: those whose timed
   * step or wait ended, who reach a new cell (a walker sleeps between
   * cells), whom a call or a change woke, who chase or think (an agent
   * waiting on a timer costs a frame nothing); with them, those whose
   * plan's first step the take pass started (a crowd whose steps bind
   * nothing), a visit that stands for theirs. */
  uint64_t visited;
  /* Worker threads the last update woke, over its passes and planning
   * rounds (0: it ran on the calling thread alone; the threads sharing a
   * pass count once; an update of several crowds gives each the call's). */
  uint64_t workers_woken;
  /* Seconds the updates have added since the crowd was made (a load
   * sets it to the saved crowd's): at most SP_CROWD_CLOCK_MAX. */
  double clock;
  /* The rest of the last update's time, by part, in ms (the call's, as
   * ms_update, when it updated several crowds): the frame's start (the
   * timers that ran out marked, world facts and sensors read; with
   * threads the timers are marked by the goal choice's workers as it
   * starts, in ms_choosing), the goal choice, the passes that hand out the new plans (and start their
   * first steps where no step binds), the advance pass (the marked
   * agents' timers checked, steps ended and started, walks), each with
   * the merge of its events. With ms_planning and ms_binding they make
   * up about ms_update. The choose pass plans and hands out the first
   * plans as it goes: their time counts in ms_planning and ms_taking (on
   * several workers, the time of the worker that took longest), not in
   * ms_choosing, but for the plans the plan table holds, which an agent
   * takes from it as it chooses its goal (in ms_choosing). */
  double ms_waking, ms_choosing, ms_taking, ms_advancing;
  /* Of the last update's time, how long its parallel passes and planning
   * rounds ran short of a worker thread, in ms: for each, from its start
   * until its last worker began (a sleeping thread's wake, tens of
   * microseconds, hundreds seen in virtual machines), or until the
   * calling thread, done with its share, went on without a worker that
   * had not come. 0 on one thread. A large share of ms_update says the
   * workers sleep through the gaps between frames: see the pool's
   * wake_ahead (sp_thread_pool_wake_ahead, SpCrowdOptions.wake_ahead_ms). */
  double ms_workers_late;
} SpCrowdStats;

/* O(n) (counts phases). */
SP_API void sp_crowd_stats(const SpCrowd *c, SpCrowdStats *out);
/* O(1): agents, the counters and the timings; phases and bytes are 0
 * (for a per-frame read of a large crowd). */
SP_API void sp_crowd_counters(const SpCrowd *c, SpCrowdStats *out);

/* Saving, loading and migrating worlds and their crowds: saspu_save.h. */

#ifdef __cplusplus
}
#endif

#endif
