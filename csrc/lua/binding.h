/* binding.h: private header of the Lua binding: userdata layouts, metatable names, shared helpers. Only csrc/lua/ includes Lua headers. */
#ifndef saspu_lua_binding_h
#define saspu_lua_binding_h

#include <stdint.h>
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "saspu.h"
#include "saspu_agents.h"
#include "saspu_grid.h"
#include "saspu_population.h"

#define SASPU_LUA_EXPORT __attribute__((visibility("default")))

#define DOMAIN_MT "saspu.Domain"
#define GRID_MT "saspu.Grid"
#define POPULATION_MT "saspu.Population"
#define POOL_MT "saspu.ThreadPool"
#define WORLD_MT "saspu.World"
#define CROWD_MT "saspu.Crowd"
#define AGENT_MT "saspu.Agent"

/* Error lists name at most this many choices ("(a, b, c, ...)"). */
#if !defined(SASPU_LUA_LIST_MAX)
#define SASPU_LUA_LIST_MAX 16
#endif

/* The user values of a saspu.Domain. The maps use C indices (0-based); the
 * arrays are Lua arrays, so entry c + 1 is about C index c. */
enum {
  UV_VAR_IDS = 1,  /* variable name -> variable index */
  UV_VAR_NAMES,    /* array of variable names */
  UV_VALUE_IDS,    /* array of { value name -> value index }, one per variable */
  UV_VALUE_NAMES,  /* array of arrays of value names */
  UV_ACTION_IDS,   /* action name -> action index */
  UV_ACTION_NAMES, /* array of action names */
  UV_PARAMS,       /* array of parameter-name arrays, one per action */
  UV_GOALS,        /* goal name -> packed goal (values, then a set/keep mask) */
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
  uint16_t *plan; /* action_count entries, inside the scratch user value */
  uint16_t *counts; /* variable_count entries, same: value counts */
  SpValue *s0;    /* variable_count entries, same */
  SpValue *goal;  /* variable_count entries, same */
  uint8_t *mask;  /* variable_count entries, same: which goal values were given */
  int nvars;
  int nactions;
} LDomain;

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
typedef size_t (*Formatter)(const SpDomain *d, const void *arg, char *buf, size_t size);

/* ---- names.c: errors, name lists, lookups, states */
int raise_error(lua_State *L, const char *where, const char *fmt, ...);
void push_value_name(lua_State *L, const Names *n, int var, int value);
int read_var(lua_State *L, const Names *n, int idx, const char *where,
             const char *field);
int read_value(lua_State *L, const Names *n, int var, int idx,
               const char *where, const char *label);
void push_key_list(lua_State *L, int tbl);
void read_state(lua_State *L, const Names *n, int tbl, int nv,
                SpValue *vals, uint8_t *mask, const char *where);
size_t fmt_explain(const SpDomain *d, const void *arg, char *buf, size_t size);
size_t fmt_failure(const SpDomain *d, const void *arg, char *buf, size_t size);
void push_formatted(lua_State *L, const SpDomain *d, Formatter f, const void *arg);
void *to_userdata_of_upvalue(lua_State *L, int idx, const char *type);

/* ---- domain_compile.c */
int core_error(lua_State *L, const char *where, const SpError *err);
int l_domain(lua_State *L);

/* ---- domain.c */
LDomain *check_domain(lua_State *L, int idx);
void domain_release(LDomain *d);
void push_uv(lua_State *L, int idx, int uv);
void push_names_at(lua_State *L, int dom, Names *n);
void push_names(lua_State *L, Names *n);

/* ---- domain_plan.c */
const char *failure_code_name(SpFailureCode c);
void fill_why_at(lua_State *L, int dom, const SpDomain *domain, int why,
                 const SpFailure *f);
int l_plan(lua_State *L);
int l_plan_ids(lua_State *L);
int l_encode(lua_State *L);
int l_decode(lua_State *L);

/* ---- grid.c */
SpAllocator core_allocator(lua_State *L);
void set_int_field(lua_State *L, int t, const char *k, size_t v);
void open_grid(lua_State *L);
SpGrid *grid_of(lua_State *L, int idx);

/* ---- population.c */
void open_population(lua_State *L);

/* ---- world.c, crowd.c, agent.c: worlds with places, crowds, agent handles */
/* The saspu.World userdata. `w` is NULL until owned and after it is
 * freed; close with crowds still open only marks it `closed`, and the
 * last crowd frees it (crowds must be freed before their world). */
typedef struct LWorld {
  SpWorld *w;
  int closed;
  int users; /* open crowds */
} LWorld;

/* The saspu.Crowd userdata: `c` NULL until owned and after close. */
typedef struct LCrowd {
  SpCrowd *c;
  LWorld *world;  /* set while the crowd counts among the world's users */
  LDomain *owner; /* same, for the domain */
  const SpDomain *domain;
  int nvars, nactions;
  uint16_t *plan; /* nactions entries (at least 1), after the struct */
} LCrowd;

LWorld *check_world(lua_State *L, int idx);
void world_release(LWorld *w);
void open_world(lua_State *L);
void open_crowd(lua_State *L);
void push_agent(lua_State *L, int crowd, size_t index);
void push_agent_data(lua_State *L, int crowd, size_t index);
void open_agent(lua_State *L);

/* ---- registration (module.c calls these) */
void open_domain(lua_State *L);

#endif
