/* crowd_events.c: saspu.Crowd methods reading the events of the last update: one by index, the next of some kinds, or a frame's worth in one call. */
#include "binding.h"

/* c:event_count() -> events of the last update. */
static int l_crowd_event_count(lua_State *L)
{
  lua_pushinteger(L, (lua_Integer)sp_crowd_event_count(check_crowd(L, 1)->c));
  return 1;
}

/* Pushes event e's agent (1-based), kind name and reason name (or nil). */
static void push_event_head(lua_State *L, const SpAgentEvent *e)
{
  lua_pushinteger(L, (lua_Integer)e->agent + 1);
  lua_pushstring(L, sp_event_kind_name((SpEventKind)e->kind));
  if (e->reason != SP_REASON_NONE)
    lua_pushstring(L, sp_reason_name((SpReason)e->reason));
  else
    lua_pushnil(L);
}

int event_detail_is_place(int kind, int reason)
{
  return kind == SP_EV_ARRIVED || kind == SP_EV_BLOCKED || kind == SP_EV_MOVE ||
         kind == SP_EV_MOVE_CANCELLED ||
         (kind == SP_EV_STEP_FAILED &&
          (reason == SP_REASON_FULL || reason == SP_REASON_UNREACHABLE ||
           reason == SP_REASON_COOLDOWN));
}

/* Event e's detail as Lua sees it: a place id 1-based (0: none), the
 * plan's length, or the number the core gave. */
static lua_Integer lua_detail(const SpAgentEvent *e)
{
  if (event_detail_is_place(e->kind, e->reason))
    return e->detail < 0 ? 0 : (lua_Integer)e->detail + 1;
  return e->detail;
}

/* 1 when event e's agent was despawned since (its slot empty, or
 * holding an agent spawned later): such events are skipped. */
static int event_stale(const SpCrowd *c, const SpAgentEvent *e)
{
  return !sp_crowd_alive(c, e->agent) ||
         (uint16_t)sp_crowd_generation(c, e->agent) != e->gen;
}

/* Pushes event e as c:event returns it (after the agent's index). */
static int push_event(lua_State *L, const SpAgentEvent *e)
{
  push_event_head(L, e);
  lua_pushboolean(L, e->flags & SP_EVENT_HOOK);
  if (e->goal != 0xFF)
    lua_pushinteger(L, e->goal + 1);
  else
    lua_pushnil(L);
  if (e->action >= 0)
    lua_pushinteger(L, e->action + 1);
  else
    lua_pushnil(L);
  lua_pushinteger(L, lua_detail(e));
  return 7;
}

/* c:event(k) -> agent, kind, reason|nil, hook, goal|nil, action|nil,
 * detail, live, repeated, first: event k (1-based) of the last update, ids
 * 1-based (a place in detail too: 0 for none); live is false when its agent
 * was despawned since (readers skip it); repeated is true for a move
 * announced again (the first update after a load); first is true for the
 * step_failed that starts a run of failures (the one gave_up names). Pushes
 * only interned names and numbers: nothing is allocated. */
static int l_crowd_event(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer k = luaL_checkinteger(L, 2);
  size_t n = sp_crowd_event_count(c->c);
  luaL_argcheck(L, k >= 1 && (lua_Unsigned)k <= n, 2, "no such event");
  /* a copy: pushing a name may run a finalizer that closes the crowd */
  SpAgentEvent e = sp_crowd_events(c->c)[k - 1];
  int stale = event_stale(c->c, &e);
  int pushed = push_event(L, &e);
  lua_pushboolean(L, !stale);
  lua_pushboolean(L, e.flags & SP_EVENT_REPEATED);
  lua_pushboolean(L, e.flags & SP_EVENT_FIRST);
  return pushed + 3;
}

/* The 0-based index of the first event >= k (1-based) whose kind is in the
 * bit mask `kinds` (and that carries SP_EVENT_HOOK when `hooked`), or n;
 * events of agents despawned since are skipped. */
static size_t scan_events(lua_State *L, const LCrowd *c, int hooked)
{
  lua_Integer k = luaL_checkinteger(L, 2);
  lua_Integer kinds = luaL_checkinteger(L, 3);
  size_t n = sp_crowd_event_count(c->c);
  const SpAgentEvent *ev = sp_crowd_events(c->c);
  size_t i = k < 1 ? 0 : (size_t)(k - 1);
  for (; i < n; i++)
    if ((!hooked || (ev[i].flags & SP_EVENT_HOOK)) &&
        ((kinds >> ev[i].kind) & 1) && !event_stale(c->c, &ev[i]))
      break;
  return i;
}

/* Copies to *e the first event >= k (argument 2) whose kind is in the
 * mask (argument 3), of an action with hooks when `hooked`, and pushes
 * its index; 0 (nothing pushed) when there is none. A copy: the pushes
 * that follow are Lua points. */
static int next_of(lua_State *L, int hooked, SpAgentEvent *e)
{
  LCrowd *c = check_crowd(L, 1);
  size_t i = scan_events(L, c, hooked);
  if (i >= sp_crowd_event_count(c->c)) return 0;
  *e = sp_crowd_events(c->c)[i];
  lua_pushinteger(L, (lua_Integer)i + 1);
  return 1;
}

/* c:next_event(k, kinds) -> k', then c:event(k')'s values: the first event
 * k' >= k whose kind is in `kinds` (next_hook's mask), or nothing. Lets a
 * script read only the kinds it reacts to; the others are skipped in C. */
static int l_crowd_next_event(lua_State *L)
{
  SpAgentEvent e;
  if (!next_of(L, 0, &e)) return 0;
  int pushed = push_event(L, &e);
  lua_pushboolean(L,
                  1); /* live: the scan skips the events of despawned agents */
  lua_pushboolean(L, e.flags & SP_EVENT_REPEATED);
  lua_pushboolean(L, e.flags & SP_EVENT_FIRST);
  return 1 + pushed + 3;
}

/* c:next_hook(k, kinds) -> k', agent, kind, reason|nil, action, detail:
 * the first event k' >= k (1-based) of an action with hooks whose kind is
 * in `kinds` (a bit mask over the event kinds: goal_chosen = bit 0, in the
 * order of saspu_agents.h), or nothing. The hook pass skips every other
 * event in C. */
static int l_crowd_next_hook(lua_State *L)
{
  SpAgentEvent e;
  if (!next_of(L, 1, &e)) return 0;
  push_event_head(L, &e);
  lua_pushinteger(L, e.action + 1);
  lua_pushinteger(L, e.detail);
  return 6;
}

/* Pushes an optional id (1-based), or false. */
static void push_id_or_false(lua_State *L, int id)
{
  if (id >= 0)
    lua_pushinteger(L, id + 1);
  else
    lua_pushboolean(L, 0);
}

/* The 0-based action ids listed (1-based) at `arg`, at most
 * EVENTS_ACTIONS; returns how many. */
#define EVENTS_ACTIONS 64
static int check_action_list(lua_State *L, int arg, const LCrowd *c, int *ids)
{
  luaL_checktype(L, arg, LUA_TTABLE);
  int n = (int)lua_rawlen(L, arg);
  luaL_argcheck(L, n <= EVENTS_ACTIONS, arg, "at most 64 actions");
  int actions = sp_domain_action_count(sp_crowd_domain(c->c));
  for (int k = 0; k < n; k++) {
    lua_rawgeti(L, arg, k + 1);
    lua_Integer a = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (a < 1 || a > actions)
      luaL_argerror(
          L, arg, lua_pushfstring(L, "actions[%d] is not an action id", k + 1));
    ids[k] = (int)a - 1;
  }
  return n;
}

/* Keeps the events of block[0..n) that have no action or one of ids. */
static size_t of_actions(SpAgentEvent *block, size_t n, const int *ids,
                         int count)
{
  size_t kept = 0;
  for (size_t k = 0; k < n; k++) {
    int in = block[k].action < 0;
    for (int j = 0; j < count && !in; j++) in = block[k].action == ids[j];
    if (in) block[kept++] = block[k];
  }
  return kept;
}

/* Keeps the events of block[0..n) whose agent was not despawned since. */
static size_t live_only(const SpCrowd *c, SpAgentEvent *block, size_t n)
{
  size_t kept = 0;
  for (size_t k = 0; k < n; k++)
    if (!event_stale(c, &block[k])) block[kept++] = block[k];
  return kept;
}

/* Appends block[0..n) to the table at index 3 as five entries each
 * (agent, kind, reason | false, goal | false, action | false) after
 * out[*out], advancing *out. Pushes are Lua points. */
static void push_five(lua_State *L, const SpAgentEvent *block, size_t n,
                      lua_Integer *out)
{
  for (size_t k = 0; k < n; k++) {
    const SpAgentEvent *e = &block[k];
    lua_pushinteger(L, (lua_Integer)e->agent + 1);
    lua_rawseti(L, 3, ++*out);
    lua_pushstring(L, sp_event_kind_name((SpEventKind)e->kind));
    lua_rawseti(L, 3, ++*out);
    if (e->reason != SP_REASON_NONE)
      lua_pushstring(L, sp_reason_name((SpReason)e->reason));
    else
      lua_pushboolean(L, 0);
    lua_rawseti(L, 3, ++*out);
    push_id_or_false(L, e->goal != 0xFF ? e->goal : -1);
    lua_rawseti(L, 3, ++*out);
    push_id_or_false(L, e->action);
    lua_rawseti(L, 3, ++*out);
  }
}

/* Which events push_picked keeps: those of agent `agent` (1-based) when
 * it is above 0, else those whose kind is in the mask `kinds` and, with
 * `filter`, of no action or one of ids[0..nids). */
typedef struct EventPick {
  lua_Integer agent, kinds;
  int filter, nids;
  const int *ids;
} EventPick;

/* Fills the table at index 3 with the picked events of the crowd at
 * index 1, five entries each, and pushes their number. Events are copied
 * a block at a time, the crowd fetched again after each block's pushes
 * (Lua points); those of agents despawned since are skipped. */
#define EVENTS_BLOCK 64
static int push_picked(lua_State *L, const EventPick *p)
{
  SpCrowd *sc = check_crowd(L, 1)->c;
  SpAgentEvent block[EVENTS_BLOCK];
  size_t next = 0;
  lua_Integer out = 0;
  for (;;) {
    size_t count = sp_crowd_event_count(sc), got = 0;
    const SpAgentEvent *ev = sp_crowd_events(sc);
    if (p->agent > 0) {
      for (; next < count && got < EVENTS_BLOCK; next++)
        if ((lua_Integer)ev[next].agent + 1 == p->agent)
          block[got++] = ev[next];
    } else {
      /* every event is copied, the count moves on the kind's bit: few of a
       * frame's events are asked for, and a branch on each would guess
       * wrong often */
      for (; next < count && got < EVENTS_BLOCK; next++) {
        block[got] = ev[next];
        got += (size_t)((p->kinds >> ev[next].kind) & 1);
      }
    }
    if (got == 0) break;
    if (p->filter) got = of_actions(block, got, p->ids, p->nids);
    got = live_only(sc, block, got);
    push_five(L, block, got, &out);
    sc = live_crowd(L, 1);
  }
  lua_pushinteger(L, out / 5);
  return 1;
}

/* c:events_of(kinds, out [, actions]) -> n: the events of the last
 * update whose kind is in `kinds` (next_event's mask), in order, five
 * entries each in out[1 .. 5n]: agent, kind, reason | false, goal |
 * false, action | false, as c:event gives them. With `actions` (a list
 * of at most 64 action ids) an event of an action passes only for those;
 * events without one pass by their kind. One call reads a frame's
 * events: a script reacting to thousands per frame pays no call per
 * event. */
static int l_crowd_events_of(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  int ids[EVENTS_ACTIONS];
  EventPick p = {0, luaL_checkinteger(L, 2), !lua_isnoneornil(L, 4), 0, ids};
  luaL_checktype(L, 3, LUA_TTABLE);
  if (p.filter) p.nids = check_action_list(L, 4, c, ids);
  return push_picked(L, &p);
}

/* c:agent_events(i, out) -> n: the events of the last update of agent i
 * (1-based; none for a slot with no live agent), in order, five entries
 * each in out[1 .. 5n] as events_of gives them. The frame's events are
 * scanned in C: the history of one inspected agent costs no Lua per event
 * of the others. */
static int l_crowd_agent_events(lua_State *L)
{
  check_crowd(L, 1);
  EventPick p = {luaL_checkinteger(L, 2), 0, 0, 0, NULL};
  luaL_checktype(L, 3, LUA_TTABLE);
  if (p.agent < 1) {
    lua_pushinteger(L, 0);
    return 1;
  }
  return push_picked(L, &p);
}

/* saspu.core.event_kinds() -> { kind name -> its bit in next_hook's mask }. */
int l_event_kinds(lua_State *L)
{
  lua_createtable(L, 0, SP_EV_COUNT);
  for (int k = 0; k < SP_EV_COUNT; k++) {
    lua_pushinteger(L, (lua_Integer)1 << k);
    lua_setfield(L, -2, sp_event_kind_name((SpEventKind)k));
  }
  return 1;
}

static const luaL_Reg event_methods[] = {{"event_count", l_crowd_event_count},
                                         {"event", l_crowd_event},
                                         {"next_hook", l_crowd_next_hook},
                                         {"next_event", l_crowd_next_event},
                                         {"events_of", l_crowd_events_of},
                                         {"agent_events", l_crowd_agent_events},
                                         {NULL, NULL}};

/* Adds the event readers to saspu.Crowd's methods table (on top). */
void open_crowd_events(lua_State *L) { luaL_setfuncs(L, event_methods, 0); }
