/* binding.h: private header of the Lua binding: userdata layouts, metatable names, shared helpers. Only csrc/lua/ includes Lua headers. */
#ifndef saspu_lua_binding_h
#define saspu_lua_binding_h

#include <stdint.h>
#include <stddef.h>

#include "compat.h" /* lua.h and lauxlib.h, plus the 5.4 API on 5.1-5.3 and LuaJIT */

#include "saspu.h"
#include "saspu_agents.h"
#include "saspu_grid.h"
#include "saspu_population.h"
#include "saspu_save.h"

#define SASPU_LUA_EXPORT __attribute__((visibility("default")))

#define DOMAIN_MT     "saspu.Domain"
#define GRID_MT       "saspu.Grid"
#define POPULATION_MT "saspu.Population"
#define POOL_MT       "saspu.ThreadPool"
#define WORLD_MT      "saspu.World"
#define CROWD_MT      "saspu.Crowd"
#define AGENT_MT      "saspu.Agent"

/* Error lists name at most this many choices ("(a, b, c, ...)"). */
#if !defined(SASPU_LUA_LIST_MAX)
#define SASPU_LUA_LIST_MAX 16
#endif

/* The C memory taken since the last full collection that makes the
 * binding run one (see accounting.c), at least; more when more is live. */
#if !defined(SASPU_LUA_GC_C_BYTES)
#define SASPU_LUA_GC_C_BYTES ((size_t)32 << 20)
#endif

/* A caller's string quoted in a message ('%s') is cut to its first and
 * last bytes past this length; see shown_name. */
#if !defined(SASPU_LUA_NAME_SHOWN)
#define SASPU_LUA_NAME_SHOWN 48
#endif

/* The user values of a saspu.Domain. The maps use C indices (0-based); the
 * arrays are Lua arrays, so entry c + 1 is about C index c. */
enum {
  UV_VAR_IDS = 1, /* variable name -> variable index */
  UV_VAR_NAMES,   /* array of variable names */
  UV_VALUE_IDS,   /* array of { value name -> value index }, one per variable */
  UV_VALUE_NAMES, /* array of arrays of value names */
  UV_ACTION_IDS,  /* action name -> action index */
  UV_ACTION_NAMES, /* array of action names */
  UV_PARAMS,       /* array of parameter-name arrays, one per action */
  UV_GOALS,        /* goal name -> packed goal (values, then GOAL_* marks) */
  UV_STARTS,       /* start name -> packed start (one byte per variable) */
  UV_SCRATCH,      /* userdata: the plan, s0 and goal buffers */
  UV_COUNT = UV_SCRATCH
};

/* The saspu.Domain userdata. Every pointer is NULL until it is owned, and
 * NULL again after close, so __gc may run at any point. Populations plan
 * with the compiled domain: while `users` of them are open, closing the
 * domain only moves it to `orphan`, and the last population frees it. */
typedef struct LDomain {
  SpDomain *domain;
  SpDomain *orphan; /* closed, but still used by populations */
  int users;        /* open populations and crowds of this domain */
  SpWorkspace *ws;
  uint16_t *plan;   /* action_count entries, inside the scratch user value */
  uint16_t *counts; /* variable_count entries, same: value counts */
  SpValue *s0;      /* variable_count entries, same */
  SpValue *goal;    /* variable_count entries, same */
  uint8_t *mask;    /* variable_count entries, same: the goal's GOAL_* marks */
  int nvars;
  int nactions;
  size_t held; /* C bytes reported to accounting.c */
} LDomain;

/* ---- Objects closed by code their own method runs -----------------
 * A method's object cannot be collected while the method runs (it is on
 * the method's stack), but it can be closed: a finalizer run by any
 * allocation, or a metamethod of a table the caller passed (`why`, `out`,
 * `report`), may call obj:close(), which frees the C memory at once.
 * The one rule, for every method of every type (Domain, Population,
 * Grid, and World, Crowd, Agent to come, hooks included):
 *
 *   A C pointer owned by the object (core object, workspace, path buffer)
 *   is valid only until the next "Lua point"; after one, fetch it again
 *   through the type's live_* function, which raises "saspu.X was closed
 *   during the call" when it is gone.
 *
 * Lua points are the API calls that may run Lua code: every call that
 * creates a collectable object (lua_createtable/newtable, lua_push*string,
 * lua_pushfstring, lua_concat, lua_newuserdatauv, lua_pushcclosure, luaL_Buffer
 * growth, luaL_tolstring, lua_tolstring on a number) runs a collector step
 * and so finalizers; lua_setfield/getfield/settable/gettable/next-less
 * access to a caller's table runs its metamethods; lua_call of course.
 * Raw access (lua_rawget*, lua_rawset*) and pushing numbers, booleans or
 * values already on the stack are not Lua points. Memory the object keeps
 * in Lua-owned userdata (the scratch buffers) stays valid after close.
 * So a method reads what it needs from the core into locals, then builds
 * its Lua results; a loop that allocates per element re-fetches each
 * iteration. Re-fetching costs a load and a compare; a busy counter would
 * need unwinding on errors, which the C API cannot do without pcall. */

/* Raises "<type> was closed during the call" (see above). */
int closed_during_call(lua_State *L, const char *type);

/* The compiled domain of `d`, or the error above. */
const SpDomain *live_domain(lua_State *L, const LDomain *d);

/* Stack slots a function of this file may use beyond its arguments: the
 * deepest path (a compile error inside a prevail) needs about 40. */
#define STACK_NEED 64

/* Where the name tables of a domain sit on the stack (absolute indices). */
typedef struct Names {
  int var_ids;
  int var_names;
  int value_ids;
  int value_names;
} Names;

/* A core formatter, snprintf-like (sp_domain_explain, sp_failure_format). */
typedef size_t (*Formatter)(const SpDomain *d, const void *arg, char *buf,
                            size_t size);

/* ---- names.c: errors, name lists, lookups, states, shared helpers */
int raise_error(lua_State *L, const char *where, const char *fmt, ...);
void push_value_name(lua_State *L, const Names *n, int var, int value);
int read_var(lua_State *L, const Names *n, int idx, const char *where,
             const char *field);
int read_value(lua_State *L, const Names *n, int var, int idx,
               const char *where, const char *label);
void push_key_list(lua_State *L, int tbl);
void read_state(lua_State *L, const Names *n, int tbl, int nv, SpValue *vals,
                uint8_t *mask, const char *where);
size_t fmt_explain(const SpDomain *d, const void *arg, char *buf, size_t size);
size_t fmt_failure(const SpDomain *d, const void *arg, char *buf, size_t size);
size_t fmt_blocker(const SpDomain *d, const void *arg, char *buf, size_t size);
size_t fmt_link(const SpDomain *d, const void *arg, char *buf, size_t size);
void push_formatted(lua_State *L, const SpDomain *const *d, const char *type,
                    Formatter f, const void *arg);
const char *var_name(lua_State *L, const Names *n, int var);
const char *shown_name(lua_State *L, int idx);
/* helpers the type files share */
int core_error(lua_State *L, const char *where, const SpError *err);
SpAllocator core_allocator(lua_State *L);
void push_uv(lua_State *L, int idx, int uv);
void push_names_at(lua_State *L, int dom, Names *n);
void push_names(lua_State *L, Names *n);
void clear_array(lua_State *L, int t, lua_Integer from, lua_Integer to);
void set_int_field(lua_State *L, int t, const char *k, size_t v);
/* Argument `arg`: a frame's dt in seconds, finite and 0 or more (a float
 * once converted: an infinite step would make the crowd's clock unsavable). */
float check_dt(lua_State *L, int arg);
/* saspu.KEEP (a light userdata) and its test; goals.c gives it its meaning */
void push_keep_marker(lua_State *L);
int is_keep_marker(lua_State *L, int idx);

/* ---- goal_sets.c: goals of sets in dom:plan */
/* 1 when the goal table at `arg` gives some variable a set of values or
 * saspu.NOT(...) (a table value other than saspu.KEEP). */
int goal_has_sets(lua_State *L, int arg);
/* Reads such a goal (start d->s0 for saspu.KEEP and, with keep, for the
 * variables left out): pushes a userdata of count * nvars bytes, one goal
 * per combination of members (the first variable varying slowest, members
 * in value order), and returns count; errors name the variable. */
int read_goal_choices(lua_State *L, LDomain *d, const Names *n, int arg,
                      int keep);

/* ---- goals.c: goals as conditions. A goal's variables are marked
 * set, free (left out: any end value) or kept (saspu.KEEP, or left out
 * with { keep = true }: the start value). */
enum { GOAL_FREE = 0, GOAL_SET = 1, GOAL_KEEP = 2 };
void resolve_goal(SpValue *goal, const uint8_t *mark, const SpValue *s0, int nv,
                  int keep_all);
int goal_needs_start(const uint8_t *mark, int nv, int keep_all);
void marks_of_goal(const SpValue *goal, uint8_t *mark, int nv);
void read_named_goal(const char *packed, int nv, SpValue *goal, uint8_t *mark);
int goal_options(lua_State *L, int arg);

/* ---- accounting.c: C memory the collector cannot see */
void open_accounting(lua_State *L);
void account_c_memory(lua_State *L, size_t *held, size_t bytes);
void release_c_memory(lua_State *L, size_t *held);
void *to_userdata_of_upvalue(lua_State *L, int idx, const char *type);

/* ---- domain_compile.c */
int l_domain(lua_State *L);

/* ---- domain.c */
LDomain *check_domain(lua_State *L, int idx);
void domain_release(LDomain *d);

/* ---- domain_plan.c */
const char *failure_code_name(SpFailureCode c);
void fill_why_at(lua_State *L, int dom, const SpDomain *const *domain,
                 const char *type, int why, const SpFailure *f);
void fill_blocker_at(lua_State *L, int dom, const SpDomain *const *domain,
                     const char *type, int why, const SpValue *s0,
                     const SpValue *goal, const SpFailure *f);
void open_domain_plan(lua_State *L);

/* ---- grid.c */
void open_grid(lua_State *L);
SpGrid *grid_of(lua_State *L, int idx);

/* ---- population.c, population_check.c, population_plan.c */
/* The user values of a saspu.Population. */
enum {
  UV_POP_DOMAIN = 1, /* the saspu.Domain: keeps it and its name tables alive */
  UV_POP_ACTIONS,    /* the domain's array of action names */
  UV_POP_COUNT = UV_POP_ACTIONS
};

/* The saspu.Population userdata; its scratch buffers follow it in the
 * same block. `pop` is NULL until it is owned and again after close;
 * `owner` is set exactly while the population counts among the users of
 * its domain, which keeps `domain` allocated (see l_close in domain.c). */
typedef struct LPopulation {
  SpPopulation *pop;
  const SpDomain *domain;
  LDomain *owner;
  size_t n;
  int nvars, nactions;
  uint16_t *plan; /* nactions entries (at least 1) */
  SpValue *s0;    /* nvars entries each */
  SpValue *goal;
  SpValue *row;
  uint8_t *mask; /* which variables a state argument gave */
  size_t held;   /* C bytes reported to accounting.c */
} LPopulation;

/* The thread pool every population of a Lua state plans on (upvalue 2 of
 * the population functions). Started by the first plan call that wants
 * more than one worker, replaced by a larger one when a call asks for
 * more, freed by __gc when the state closes. It is created before any
 * population, so at lua_close it is finalized after all of them; once
 * closed, populations fall back to their own pools. */
typedef struct LPool {
  SpThreadPool *pool;
  int closed;
  int cores; /* online cores, read once */
  int idle;  /* plan calls in a row that wanted no more than the cores */
} LPool;

void open_population(lua_State *L);
/* population_check.c: the checks every method shares. */
/* The saspu.Population at `idx`, open or closed (upvalue 1: its
 * metatable). */
LPopulation *to_population(lua_State *L, int idx);
/* The open population at `idx`, with stack room for any method. */
LPopulation *check_population(lua_State *L, int idx);
/* The population's core object after a Lua point, or raises. */
SpPopulation *live_pop(lua_State *L, const LPopulation *p);
/* Argument `arg`: an NPC index in 1..n; returns it 0-based. */
size_t check_npc(lua_State *L, const LPopulation *p, int arg);
/* Raises "saspu.Population:<fname>: <the core's sentence>". */
int pop_error(lua_State *L, const char *fname, const SpError *err);
/* Raises on a key of the options table at `arg` not in `allowed`. */
int pop_unknown_option(lua_State *L, int arg, const char *allowed);
/* The value on top of the stack for option `name`: an integer in lo..hi. */
lua_Integer pop_option_integer(lua_State *L, int arg, const char *name,
                               lua_Integer lo, lua_Integer hi);
/* population_plan.c: adds pop:plan and the result readers (status,
 * plan_of, steps, stats, ...) to the methods table below the metatable
 * and the pool, their upvalues 1 and 2, which it pops. */
void open_population_plan(lua_State *L);

/* ---- world.c, crowd.c, agent.c: worlds with places, crowds, agent handles */
/* The saspu.World userdata. `w` is NULL until owned and after it is
 * freed; close with crowds still open only marks it `closed`, and the
 * last crowd frees it (crowds must be freed before their world). */
typedef struct LWorld {
  SpWorld *w;
  SpThreadPool *pool; /* saspu.world{threads = n}: shared by its crowds */
  int closed;
  int users;             /* open crowds */
  struct LCrowd *crowds; /* the open ones, linked by next_open */
  /* crowd.c's close of one of them (set with the first crowd): world:close
   * closes each, and world.c calls no function of crowd.c by name */
  void (*close_crowd)(struct LCrowd *c);
} LWorld;

/* The saspu.Crowd userdata: `c` NULL until owned and after close. */
typedef struct LCrowd {
  SpCrowd *c;
  LWorld *world;  /* set while the crowd counts among the world's users */
  LDomain *owner; /* same, for the domain */
  const SpDomain *domain;
  int nvars, nactions;
  uint16_t *plan;    /* nactions entries (at least 1), after the struct */
  int on_world_pool; /* options without threads: updated in the world's
                        batch, on its pool or on none (world.c) */
  /* sensors of other crowds: the crowds this one senses (kept alive by
   * its UV_CROWD_SENSED table), how many open crowds sense this one, and
   * its core crowd while closed but still sensed (freed with the last) */
  struct LCrowd *senses[SP_CROWD_MAX_SENSORS];
  int sense_count, sensed_by;
  SpCrowd *held;
  struct LCrowd *next_open, *prev_open; /* in its world's list while open */
} LCrowd;

/* The saspu.Agent userdata: a slot of its crowd (user value 1) and the
 * slot's generation when the handle was made: a handle whose generation
 * is not the slot's any more is of a despawned agent. */
typedef struct LAgent {
  size_t index;
  uint32_t gen;
} LAgent;

/* The user values of a saspu.Crowd. */
enum {
  UV_CROWD_WORLD = 1, /* the saspu.World: keeps it alive */
  UV_CROWD_DOMAIN,    /* the saspu.Domain: same */
  UV_CROWD_HANDLES,   /* agent index -> its saspu.Agent (made on demand) */
  UV_CROWD_DATA,      /* agent index -> its script data table (same) */
  UV_CROWD_SENSED,    /* the crowds its sensors read: keeps them alive */
  UV_CROWD_COUNT = UV_CROWD_SENSED
};

LWorld *check_world(lua_State *L, int idx);
/* The saspu.Crowd at idx, open or closed (raises for anything else). */
LCrowd *to_crowd(lua_State *L, int idx);
/* Raises "saspu.Crowd:<fname>: <message>" for a core error. */
int crowd_error(lua_State *L, const char *fname, const SpError *err);
/* Argument `arg`: a live agent of the crowd, 1-based; returns it 0-based. */
size_t check_agent(lua_State *L, const LCrowd *c, int arg);
/* Argument `arg`: an id in 1..n (`what` names it in the error); 0-based. */
int check_id(lua_State *L, int arg, int n, const char *what);
/* Argument `arg`: a packed state of the crowd at index 1 (0xFF allowed
 * when `any`); checks the crowd again after the Lua point it may be. */
const SpValue *check_packed(lua_State *L, const LCrowd *c, int arg, int any);
/* Frees a closed crowd's core crowd and lets go of its domain and world. */
void crowd_release(LCrowd *c);
/* The open crowd at idx (its world's grid open too), or raises. */
LCrowd *check_crowd(lua_State *L, int idx);
/* The crowd at idx again after a Lua point: raises when it, or its
 * world's grid, was closed meanwhile. */
SpCrowd *live_crowd(lua_State *L, int idx);
/* crowd_events.c: adds the event readers to the methods table on top;
 * saspu.core.event_kinds(). */
void open_crowd_events(lua_State *L);
/* 1 when an event's detail is a place id: arrived, blocked, move, and a
 * step failed for its place (full, unreachable, cooling down). */
int event_detail_is_place(int kind, int reason);
/* crowd_agents.c: adds the methods that change agents (spawn, control,
 * chase, ...) to the methods table on top. */
void open_crowd_agents(lua_State *L);
/* The registry key of the function c:despawn calls (core.on_despawn). */
#define ON_DESPAWN_KEY "saspu.on_despawn"
/* Adds saspu.core.on_despawn to the module table on top. */
void open_on_despawn(lua_State *L);
/* crowd_engine.c: adds the methods of crowds the game moves (pending,
 * move_to, ...) to the methods table on top. */
void open_crowd_engine(lua_State *L);
/* crowd_inspect.c: adds the readers of agents (info, plan, blocker,
 * stats, ...) to the methods table on top. */
void open_crowd_inspect(lua_State *L);
/* crowd_sense.c: crowd:near and the crowd's sensors and facts. */
void open_crowd_sense(lua_State *L);
/* crowd_goals.c: agents' own goal priorities. */
void open_crowd_goals(lua_State *L);
int l_event_kinds(lua_State *L);
void world_release(LWorld *w);
void open_world(lua_State *L);
void open_world_save(lua_State *L);
/* world_record.c: core.record_start, core.trace_read */
void open_world_record(lua_State *L);
/* The metatable of saspu.Trace (world_record.c). */
#define TRACE_MT "saspu.Trace"
/* trace_summary.c: core.trace_read_file and the methods of saspu.Trace
 * that sum up (summary, density), added to the module table on top and
 * to TRACE_MT (open_world_record made it). */
void open_trace_summary(lua_State *L);
/* The trace at stack index 1 (raises "saspu.Trace: closed"). */
struct SpTrace *trace_check(lua_State *L);
/* A new saspu.Trace userdata on the stack, empty (its trace set later). */
struct SpTrace **trace_push(lua_State *L);
/* release.c: gives the C library's free pages back to the system
 * (malloc_trim on glibc); a token whose finalizer does the same. */
void return_free_memory(void);
void push_memory_return(lua_State *L);
void open_memory_return(lua_State *L);
void open_crowd(lua_State *L);
void push_agent(lua_State *L, int crowd, size_t index);
void push_agent_data(lua_State *L, int crowd, size_t index);
void open_agent(lua_State *L);

/* ---- registration (module.c calls these) */
void open_domain(lua_State *L);

#endif
