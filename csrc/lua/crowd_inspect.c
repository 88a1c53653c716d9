/* crowd_inspect.c: saspu.Crowd methods that read one agent or the whole crowd: info, position, state, plan, blocker, target cell and stats. */
#include "binding.h"

/* Returns the 1-based cell of 0-based (x, y), or nothing when x < 0. */
static int push_cell(lua_State *L, int x, int y)
{
  if (x < 0) return 0;
  lua_pushinteger(L, x + 1);
  lua_pushinteger(L, y + 1);
  return 2;
}

static void set_opt_id(lua_State *L, int t, const char *k, long v, long none)
{
  if (v == none)
    lua_pushnil(L);
  else
    lua_pushinteger(L, v + 1);
  lua_setfield(L, t, k);
}

/* c:info(agent, out) -> out with the agent's numbers (ids 1-based, nil
 * when none): phase, goal, plan_length, step, action, steps_done,
 * time_left, x, y, target, target_x, target_y, home, last_reason,
 * last_action. */
static int l_crowd_info(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpAgentInfo in;
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  sp_crowd_inspect(c->c, a, &in);
  lua_pushstring(L, sp_phase_name(in.phase));
  lua_setfield(L, 3, "phase");
  set_opt_id(L, 3, "goal", in.goal, -1);
  lua_pushinteger(L, in.plan_length);
  lua_setfield(L, 3, "plan_length");
  set_opt_id(L, 3, "step", in.step, -1);
  set_opt_id(L, 3, "action", in.action, -1);
  lua_pushinteger(L, in.steps_done);
  lua_setfield(L, 3, "steps_done");
  lua_pushnumber(L, in.time_left);
  lua_setfield(L, 3, "time_left");
  lua_pushinteger(L, in.x + 1);
  lua_setfield(L, 3, "x");
  lua_pushinteger(L, in.y + 1);
  lua_setfield(L, 3, "y");
  set_opt_id(L, 3, "target", in.target == SP_NO_PLACE ? -1 : (long)in.target,
             -1);
  set_opt_id(L, 3, "target_x", in.target_x, -1);
  set_opt_id(L, 3, "target_y", in.target_y, -1);
  set_opt_id(L, 3, "home", in.home == SP_NO_PLACE ? -1 : (long)in.home, -1);
  if (in.last_reason != SP_REASON_NONE)
    lua_pushstring(L, sp_reason_name(in.last_reason));
  else
    lua_pushnil(L);
  lua_setfield(L, 3, "last_reason");
  set_opt_id(L, 3, "last_action", in.last_action, -1);
  return 1;
}

/* c:position(agent) -> x, y: the agent's cell (1-based) without the table
 * that info fills, for scripts that read many agents per frame. */
static int l_crowd_position(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int x = 0, y = 0;
  sp_crowd_position(c->c, a, &x, &y);
  return push_cell(L, x, y);
}

/* c:state(agent) -> packed state. */
static int l_crowd_state(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  lua_pushlstring(L, (const char *)sp_crowd_state(c->c, a), (size_t)c->nvars);
  return 1;
}

/* c:plan(agent, out) -> count: out[1..count] = 1-based action ids,
 * out.done[k] = whether step k is done or skipped. */
static int l_crowd_plan(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int len = 0;
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  if (sp_crowd_plan(c->c, a, c->plan, &len) != SP_OK) len = 0;
  lua_createtable(L, len, 0);
  for (int k = 0; k < len; k++) {
    SpCrowd *sc = live_crowd(L, 1); /* the table growing is a Lua point */
    lua_pushboolean(L, sp_crowd_step_done(sc, a, k));
    lua_rawseti(L, 4, k + 1);
    lua_pushinteger(L, c->plan[k] + 1); /* Lua-owned: valid after close */
    lua_rawseti(L, 3, k + 1);
  }
  lua_setfield(L, 3, "done");
  lua_pushinteger(L, len);
  return 1;
}

static const char *blocker_kind_name(SpBlockerKind k)
{
  switch (k) {
  case SP_BLOCK_NOTHING_SETS: return "nothing_sets";
  case SP_BLOCK_NO_WAY_OUT: return "no_way_out";
  case SP_BLOCK_ORDER: return "order";
  default: return "none";
  }
}

/* Sets t[k] = v + 1 for an id v >= 0 (1-based ids), nothing otherwise. */
static void set_id(lua_State *L, int t, const char *k, int v)
{
  if (v < 0) return;
  lua_pushinteger(L, (lua_Integer)v + 1);
  lua_setfield(L, t, k);
}

/* c:blocker(agent [, at_no_plan]) -> nil when the agent's last failure
 * is no no_plan, else { kind, goal, variable, current, needed, action,
 * link_from, link_to (1-based ids; action nil: the goal itself), message,
 * link (the missing link as a phrase), planner (the planner's own
 * reason) }, judged from the agent's state now (kind "none": that goal
 * has a plan now), or with at_no_plan as recorded at the no_plan (what
 * its event says; no goal). world.lua names the ids (crowd:why). */
static int l_crowd_blocker(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpBlocker b;
  int goal = -1;
  SpStatus st;
  if (lua_toboolean(L, 3)) {
    st = sp_crowd_no_plan_blocker(c->c, a, &b);
  } else {
    void *scratch =
        lua_newuserdatauv(L, sp_crowd_blocker_scratch_size(c->c), 0);
    st = sp_crowd_last_blocker(live_crowd(L, 1), a, scratch, &b, &goal);
  }
  if (st != SP_OK) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 12);
  int t = lua_gettop(L);
  lua_pushstring(L, blocker_kind_name(b.kind));
  lua_setfield(L, t, "kind");
  set_id(L, t, "goal", goal);
  set_id(L, t, "variable", b.variable);
  set_id(L, t, "current", b.current);
  set_id(L, t, "needed", b.needed);
  set_id(L, t, "action", b.action);
  set_id(L, t, "link_from", b.link_from);
  set_id(L, t, "link_to", b.link_to);
  set_id(L, t, "choice", b.only_choice - 1);
  push_formatted(L, &c->domain, CROWD_MT, fmt_blocker, &b);
  lua_setfield(L, t, "message");
  if (b.link_to >= 0) {
    push_formatted(L, &c->domain, CROWD_MT, fmt_link, &b);
    lua_setfield(L, t, "link");
  }
  if (b.failure.code != SP_FAIL_NONE) {
    push_formatted(L, &c->domain, CROWD_MT, fmt_failure, &b.failure);
    lua_setfield(L, t, "planner");
  }
  return 1;
}

/* c:stats([out [, counters]]) -> { agents, idle, walking, acting, ...
 * (one per phase), plans, replans, no_plans, events, steps_finished, events_lost, visited, workers_woken, ms_update,
 * ms_planning, ms_binding, ms_waking, ms_choosing, ms_taking, ms_advancing, ms_workers_late,
 * clock, bytes_per_agent, bytes_total }. With counters
 * true, O(1): no phases and no bytes (left as they were in out). */
static int l_crowd_stats(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  SpCrowdStats s;
  int counters = lua_toboolean(L, 3);
  if (counters)
    sp_crowd_counters(c->c, &s);
  else
    sp_crowd_stats(c->c, &s);
  if (lua_istable(L, 2))
    lua_settop(L, 2);
  else {
    lua_settop(L, 1);
    lua_createtable(L, 0, 25);
  }
  set_int_field(L, 2, "agents", s.agents);
  for (int p = SP_PHASE_IDLE; p < SP_PHASE_COUNT && !counters; p++)
    set_int_field(L, 2, sp_phase_name((SpPhase)p), s.phase[p]);
  set_int_field(L, 2, "plans", (size_t)s.plans);
  set_int_field(L, 2, "replans", (size_t)s.replans);
  set_int_field(L, 2, "no_plans", (size_t)s.no_plans);
  set_int_field(L, 2, "events", (size_t)s.events);
  set_int_field(L, 2, "steps_finished", (size_t)s.steps_finished);
  set_int_field(L, 2, "events_lost", (size_t)s.events_lost);
  set_int_field(L, 2, "visited", (size_t)s.visited);
  set_int_field(L, 2, "workers_woken", (size_t)s.workers_woken);
  const struct {
    const char *name;
    double v;
  } numbers[] = {{"ms_update", s.ms_update},
                 {"ms_planning", s.ms_planning},
                 {"ms_binding", s.ms_binding},
                 {"ms_waking", s.ms_waking},
                 {"ms_choosing", s.ms_choosing},
                 {"ms_taking", s.ms_taking},
                 {"ms_advancing", s.ms_advancing},
                 {"ms_workers_late", s.ms_workers_late},
                 {"clock", s.clock}};
  for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++) {
    lua_pushnumber(L, numbers[k].v);
    lua_setfield(L, 2, numbers[k].name);
  }
  if (!counters) {
    set_int_field(L, 2, "bytes_per_agent", s.bytes_per_agent);
    set_int_field(L, 2, "bytes_total", s.bytes_total);
  }
  return 1;
}

/* c:target_cell(agent) -> x, y (1-based) of the agent's move or walk
 * target, or nothing. */
static int l_crowd_target_cell(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int x, y;
  sp_crowd_target_cell(c->c, a, &x, &y);
  return push_cell(L, x, y);
}

static const luaL_Reg inspect_methods[] = {
    {"info", l_crowd_info},       {"position", l_crowd_position},
    {"state", l_crowd_state},     {"plan", l_crowd_plan},
    {"blocker", l_crowd_blocker}, {"target_cell", l_crowd_target_cell},
    {"stats", l_crowd_stats},     {NULL, NULL}};

/* Adds these methods to saspu.Crowd's methods table (on top). */
void open_crowd_inspect(lua_State *L) { luaL_setfuncs(L, inspect_methods, 0); }
