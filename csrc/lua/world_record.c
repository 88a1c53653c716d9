/* world_record.c: the binding of the recorder (saspu.Recorder: core.record_start) and of the trace reader (saspu.Trace: core.trace_read). */
#include <string.h>

#include "binding.h"
#include "saspu_record.h"

#define RECORDER_MT "saspu.Recorder"

typedef struct LRecorder {
  SpRecorder *r;
  size_t count;
} LRecorder;

typedef struct LTrace {
  SpTrace *t;
} LTrace;

/* The const char * array of the strings in the table at `idx` (n
 * entries, NULL where missing), in a userdata left on the stack; the
 * strings stay alive while the table is referenced from the stack. */
static const char **name_array(lua_State *L, int idx, size_t n)
{
  const char **v = lua_newuserdatauv(L, (n ? n : 1) * sizeof *v, 0);
  for (size_t k = 0; k < n; k++) {
    lua_rawgeti(L, idx, (lua_Integer)k + 1);
    v[k] = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1);
  }
  return v;
}

/* core.record_start(world, crowds, path, places, classes, goals, positions,
 * recorded) -> saspu.Recorder. crowds: array of saspu.Crowd (open);
 * places, classes: arrays of names; goals: array (per crowd) of arrays of
 * goal names; recorded: array of booleans per crowd (nil: all). */
static int l_record_start(lua_State *L)
{
  LWorld *lw = check_world(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const char *path = luaL_checkstring(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  luaL_checktype(L, 6, LUA_TTABLE);
  lua_Integer positions = luaL_optinteger(L, 7, 1);
  luaL_argcheck(L, positions >= 0 && positions <= 1000000, 7,
                "positions must be 0 or more");
  size_t count = (size_t)lua_rawlen(L, 2);
  LRecorder *ud = lua_newuserdatauv(L, sizeof *ud, 0); /* slot 9 */
  memset(ud, 0, sizeof *ud);
  luaL_setmetatable(L, RECORDER_MT);
  SpCrowd **crowds =
      lua_newuserdatauv(L, (count ? count : 1) * sizeof *crowds, 0);
  uint8_t *mask = lua_newuserdatauv(L, count ? count : 1, 0);
  for (size_t k = 0; k < count; k++) {
    lua_rawgeti(L, 2, (lua_Integer)k + 1);
    crowds[k] = check_crowd(L, -1)->c;
    lua_pop(L, 1);
    mask[k] = 1;
    if (lua_istable(L, 8)) {
      lua_rawgeti(L, 8, (lua_Integer)k + 1);
      mask[k] = (uint8_t)lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
  }
  const char **places = name_array(L, 4, sp_world_place_count(lw->w));
  const char **classes = name_array(L, 5, count);
  const char ***goals =
      lua_newuserdatauv(L, (count ? count : 1) * sizeof *goals, 0);
  for (size_t k = 0; k < count; k++) {
    lua_rawgeti(L, 6, (lua_Integer)k + 1);
    luaL_checkstack(L, 4, "too many crowds");
    if (lua_istable(L, -1)) {
      /* the array stays on the stack; the table is held by argument 6 */
      goals[k] =
          name_array(L, lua_gettop(L), (size_t)sp_crowd_goal_count(crowds[k]));
      lua_remove(L, -2);
    } else {
      goals[k] = NULL;
      lua_pop(L, 1);
    }
  }
  /* the crowds again: building the name arrays may have run finalizers */
  lw = check_world(L, 1);
  for (size_t k = 0; k < count; k++) {
    lua_rawgeti(L, 2, (lua_Integer)k + 1);
    crowds[k] = check_crowd(L, -1)->c;
    lua_pop(L, 1);
  }
  SpRecordNames names = {places, classes, (const char *const *const *)goals};
  SpRecordOptions opt = {(int)positions, mask};
  SpError err;
  SpRecorder *r;
  if (sp_world_record_start(lw->w, crowds, count, path, &names, &opt, &r,
                            &err) != SP_OK)
    return luaL_error(L, "saspu.World:record: %s", err.message);
  ud->r = r;
  ud->count = count;
  lua_pushvalue(L, 9);
  return 1;
}

static LRecorder *check_recorder(lua_State *L)
{
  LRecorder *ud = luaL_checkudata(L, 1, RECORDER_MT);
  if (ud->r == NULL) luaL_error(L, "saspu.Recorder: stopped");
  return ud;
}

/* rec:frame(crowds) -> records the frame just updated; crowds as at the
 * start (a closed one is left out). */
static int l_record_frame(lua_State *L)
{
  LRecorder *ud = check_recorder(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  size_t count = ud->count;
  SpCrowd *few[16];
  SpCrowd **crowds = few;
  if (count > 16) crowds = lua_newuserdatauv(L, count * sizeof *crowds, 0);
  for (size_t k = 0; k < count; k++) {
    lua_rawgeti(L, 2, (lua_Integer)k + 1);
    LCrowd *c = luaL_testudata(L, -1, CROWD_MT);
    crowds[k] = c != NULL ? c->c : NULL;
    lua_pop(L, 1);
  }
  ud = check_recorder(L); /* the userdata above may have run finalizers */
  SpError err;
  if (sp_world_record_frame(ud->r, crowds, count, &err) != SP_OK)
    return luaL_error(L, "saspu.World:record: %s", err.message);
  return 0;
}

/* rec:note(crowd, event, text): a text about event `event` (1-based) of
 * crowd `crowd` (1-based, as at the start) of the frame recorded next. */
static int l_record_note(lua_State *L)
{
  lua_Integer k = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
  const char *text = luaL_checkstring(L, 4);
  LRecorder *ud = check_recorder(L);
  luaL_argcheck(L, k >= 1 && (size_t)k <= ud->count, 2, "no such crowd");
  luaL_argcheck(L, e >= 1, 3, "no such event");
  SpError err;
  if (sp_world_record_note(ud->r, (size_t)k - 1, (size_t)e - 1, text, &err) !=
      SP_OK)
    return luaL_error(L, "saspu.World:record: %s", err.message);
  return 0;
}

/* rec:lua_event(crowd, agent, kind, action|nil, text|nil): an event made in
 * Lua for agent `agent` (1-based slot) of crowd `crowd` in the frame
 * recorded next, before the crowd's C events. */
static int l_record_lua_event(lua_State *L)
{
  lua_Integer k = luaL_checkinteger(L, 2), a = luaL_checkinteger(L, 3);
  const char *kind = luaL_checkstring(L, 4);
  lua_Integer action = luaL_optinteger(L, 5, 0);
  const char *text = luaL_optstring(L, 6, "");
  LRecorder *ud = check_recorder(L);
  luaL_argcheck(L, k >= 1 && (size_t)k <= ud->count, 2, "no such crowd");
  luaL_argcheck(L, a >= 1, 3, "no such agent");
  luaL_argcheck(L, action >= 0 && action <= 0xFFFF, 5, "no such action");
  SpError err;
  if (sp_world_record_lua_event(ud->r, (size_t)k - 1, (size_t)a - 1, kind,
                                (int)action - 1, text, &err) != SP_OK)
    return luaL_error(L, "saspu.World:record: %s", err.message);
  return 0;
}

static void push_stats(lua_State *L, const SpRecordStats *s)
{
  lua_createtable(L, 0, 10);
  const struct {
    const char *k;
    double v;
  } f[] = {{"frames", (double)s->frames},
           {"sensed", (double)s->sensed},
           {"events", (double)s->events},
           {"cells", (double)s->cells},
           {"facts", (double)s->facts},
           {"bytes", (double)s->bytes},
           {"event_bytes", (double)s->event_bytes},
           {"cell_bytes", (double)s->cell_bytes},
           {"ms_encode", s->ms_encode},
           {"ms_wait", s->ms_wait}};
  for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
    lua_pushnumber(L, f[k].v);
    lua_setfield(L, -2, f[k].k);
  }
}

/* rec:stats() -> { frames, events, cells, facts, bytes, event_bytes,
 * cell_bytes, ms_encode, ms_wait } */
static int l_record_stats(lua_State *L)
{
  SpRecordStats s;
  sp_world_record_stats(check_recorder(L)->r, &s);
  push_stats(L, &s);
  return 1;
}

/* rec:stop() -> the last stats; closes the file. Twice does nothing. */
static int l_record_stop(lua_State *L)
{
  LRecorder *ud = luaL_checkudata(L, 1, RECORDER_MT);
  if (ud->r == NULL) return 0;
  SpRecordStats s;
  SpError err;
  SpRecorder *r = ud->r;
  ud->r = NULL;
  SpStatus st = sp_world_record_flush(r, &err);
  sp_world_record_stats(r, &s); /* every chunk counted */
  if (st == SP_OK)
    st = sp_world_record_stop(r, &err);
  else
    sp_world_record_stop(r, NULL);
  if (st != SP_OK)
    return luaL_error(L, "saspu.World:stop_recording: %s", err.message);
  push_stats(L, &s);
  return 1;
}

static int l_record_gc(lua_State *L)
{
  LRecorder *ud = luaL_checkudata(L, 1, RECORDER_MT);
  if (ud->r != NULL) {
    SpError err;
    sp_world_record_stop(ud->r, &err);
    ud->r = NULL;
  }
  return 0;
}

/* ---- saspu.Trace ------------------------------------------------------- */

static SpAllocator lua_allocator(lua_State *L)
{
  SpAllocator a;
  a.fn = (SpAllocFn)lua_getallocf(L, &a.ud);
  return a;
}

/* core.trace_read(bytes) -> saspu.Trace, or raises what is wrong. */
static int l_trace_read(lua_State *L)
{
  size_t len;
  const char *data = luaL_checklstring(L, 1, &len);
  LTrace *ud = lua_newuserdatauv(L, sizeof *ud, 1);
  ud->t = NULL;
  luaL_setmetatable(L, TRACE_MT);
  lua_pushvalue(L, 1); /* the bytes stay alive with it */
  lua_setiuservalue(L, -2, 1);
  SpError err;
  SpTrace *t;
  if (sp_trace_read(data, len, lua_allocator(L), &t, &err) != SP_OK)
    return luaL_error(L, "%s", err.message);
  ud->t = t;
  return 1;
}

static SpTrace *check_trace(lua_State *L)
{
  LTrace *ud = luaL_checkudata(L, 1, TRACE_MT);
  if (ud->t == NULL) luaL_error(L, "saspu.Trace: closed");
  return ud->t;
}

SpTrace *trace_check(lua_State *L) { return check_trace(L); }

SpTrace **trace_push(lua_State *L)
{
  LTrace *ud = lua_newuserdatauv(L, sizeof *ud, 1);
  ud->t = NULL;
  luaL_setmetatable(L, TRACE_MT);
  return &ud->t;
}

static size_t check_index(lua_State *L, int arg, size_t n)
{
  lua_Integer k = luaL_checkinteger(L, arg);
  luaL_argcheck(L, k >= 1 && (lua_Unsigned)k <= n, arg, "out of range");
  return (size_t)k - 1;
}

static void push_strs(lua_State *L, char **v, uint32_t n)
{
  lua_createtable(L, (int)n, 0);
  for (uint32_t k = 0; k < n; k++) {
    lua_pushstring(L, v[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
}

/* t:header() -> { grid_w, grid_h, positions, start_clock, places = {{name,
 * x, y}}, kinds, reasons, facts = {{name, values, start}}, crowds =
 * {{class, recorded, actions, goals}}, counts... } (1-based cells) */
static int l_trace_header(lua_State *L)
{
  SpTrace *t = check_trace(L);
  lua_createtable(L, 0, 16);
  lua_pushinteger(L, t->grid_w);
  lua_setfield(L, -2, "grid_w");
  lua_pushinteger(L, t->grid_h);
  lua_setfield(L, -2, "grid_h");
  lua_pushinteger(L, t->positions);
  lua_setfield(L, -2, "positions");
  lua_pushnumber(L, t->start_clock);
  lua_setfield(L, -2, "start_clock");
  lua_createtable(L, (int)t->nplaces, 0);
  for (uint32_t p = 0; p < t->nplaces; p++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, t->places[p].name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, t->places[p].x + 1);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, t->places[p].y + 1);
    lua_setfield(L, -2, "y");
    lua_rawseti(L, -2, (lua_Integer)p + 1);
  }
  lua_setfield(L, -2, "places");
  push_strs(L, t->kinds, t->nkinds);
  lua_setfield(L, -2, "kinds");
  push_strs(L, t->reasons, t->nreasons);
  lua_setfield(L, -2, "reasons");
  lua_createtable(L, (int)t->nfacts, 0);
  for (uint32_t f = 0; f < t->nfacts; f++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, t->facts[f].name);
    lua_setfield(L, -2, "name");
    push_strs(L, t->facts[f].values, t->facts[f].nvalues);
    lua_setfield(L, -2, "values");
    lua_pushinteger(L, t->facts[f].start + 1);
    lua_setfield(L, -2, "start");
    lua_rawseti(L, -2, (lua_Integer)f + 1);
  }
  lua_setfield(L, -2, "facts");
  lua_createtable(L, (int)t->ncrowds, 0);
  for (uint32_t k = 0; k < t->ncrowds; k++) {
    lua_createtable(L, 0, 4);
    lua_pushstring(L, t->crowds[k].name);
    lua_setfield(L, -2, "class");
    lua_pushboolean(L, t->crowds[k].recorded);
    lua_setfield(L, -2, "recorded");
    lua_pushinteger(L, t->crowds[k].slots);
    lua_setfield(L, -2, "slots");
    push_strs(L, t->crowds[k].actions, t->crowds[k].nactions);
    lua_setfield(L, -2, "actions");
    push_strs(L, t->crowds[k].goals, t->crowds[k].ngoals);
    lua_setfield(L, -2, "goals");
    lua_createtable(L, (int)t->crowds[k].nvars, 0);
    for (uint32_t v = 0; v < t->crowds[k].nvars; v++) {
      const SpTraceFactInfo *var = &t->crowds[k].vars[v];
      lua_createtable(L, 0, 2);
      lua_pushstring(L, var->name);
      lua_setfield(L, -2, "name");
      push_strs(L, var->values, var->nvalues);
      lua_setfield(L, -2, "values");
      lua_rawseti(L, -2, (lua_Integer)v + 1);
    }
    lua_setfield(L, -2, "variables");
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "crowds");
  if (t->blocked != NULL) {
    /* one byte per cell, reading order: "\1" blocked */
    t = check_trace(L);
    lua_pushlstring(L, (const char *)t->blocked,
                    (size_t)t->grid_w * (size_t)t->grid_h);
    lua_setfield(L, -2, "blocked");
    t = check_trace(L);
  }
  const struct {
    const char *k;
    size_t v;
  } n[] = {{"frames", t->nframes},
           {"events", t->nevents},
           {"cells", t->ncells},
           {"fact_changes", t->nfact_changes},
           {"sensed", t->nsensed},
           {"snapshots", t->nsnapshots},
           {"chunks", t->chunks},
           {"chunks_skipped", t->chunks_skipped},
           {"all_events", (size_t)t->all_events},
           {"all_cells", (size_t)t->all_cells},
           {"all_sensed", (size_t)t->all_sensed}};
  for (size_t k = 0; k < sizeof n / sizeof n[0]; k++) {
    lua_pushinteger(L, (lua_Integer)n[k].v);
    lua_setfield(L, -2, n[k].k);
  }
  lua_pushstring(L, t->problems);
  lua_setfield(L, -2, "problems");
  return 1;
}

/* t:frame(k) -> clock, number */
static int l_trace_frame(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceFrame *f = &t->frames[check_index(L, 2, t->nframes)];
  lua_pushnumber(L, f->clock);
  lua_pushinteger(L, f->number);
  return 2;
}

/* t:event(k) -> frame, crowd, agent, kind, reason, goal|nil, action|nil,
 * detail (all 1-based; a place's detail 1-based, 0: none, as c:event) */
static int l_trace_event(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceEvent *e = &t->events[check_index(L, 2, t->nevents)];
  lua_pushinteger(L, (lua_Integer)e->frame + 1);
  lua_pushinteger(L, (lua_Integer)e->crowd + 1);
  lua_pushinteger(L, (lua_Integer)e->agent + 1);
  lua_pushinteger(L, (lua_Integer)e->kind + 1);
  lua_pushinteger(L, (lua_Integer)e->reason + 1);
  if (e->goal != 0xFF)
    lua_pushinteger(L, e->goal + 1);
  else
    lua_pushnil(L);
  if (e->action >= 0)
    lua_pushinteger(L, e->action + 1);
  else
    lua_pushnil(L);
  int place = event_detail_is_place(e->kind, e->reason);
  lua_pushinteger(L, place ? (e->detail < 0 ? 0 : (lua_Integer)e->detail + 1)
                           : e->detail);
  return 8;
}

/* t:cell(k) -> frame, crowd, agent, x|nil, y|nil (1-based; nil: gone) */
static int l_trace_cell(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceCell *c = &t->cells[check_index(L, 2, t->ncells)];
  lua_pushinteger(L, (lua_Integer)c->frame + 1);
  lua_pushinteger(L, (lua_Integer)c->crowd + 1);
  lua_pushinteger(L, (lua_Integer)c->agent + 1);
  if (c->x == 0xFFFF && c->y == 0xFFFF) return 3;
  lua_pushinteger(L, c->x + 1);
  lua_pushinteger(L, c->y + 1);
  return 5;
}

/* t:fact(k) -> frame, fact, value (1-based) */
static int l_trace_fact(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceFact *f = &t->fact_changes[check_index(L, 2, t->nfact_changes)];
  lua_pushinteger(L, (lua_Integer)f->frame + 1);
  lua_pushinteger(L, f->fact + 1);
  lua_pushinteger(L, f->value + 1);
  return 3;
}

/* t:sensed(i) -> frame, crowd, agent, variable, value (1-based) */
static int l_trace_sensed(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceSensed *v = &t->sensed[check_index(L, 2, t->nsensed)];
  lua_pushinteger(L, (lua_Integer)v->frame + 1);
  lua_pushinteger(L, (lua_Integer)v->crowd + 1);
  lua_pushinteger(L, (lua_Integer)v->agent + 1);
  lua_pushinteger(L, (lua_Integer)v->var + 1);
  lua_pushinteger(L, (lua_Integer)v->value + 1);
  return 5;
}

/* t:notes() -> { [event index] = text } */
static int l_trace_notes(lua_State *L)
{
  SpTrace *t = check_trace(L);
  lua_createtable(L, 0, (int)(t->nnotes < 1000000 ? t->nnotes : 1000000));
  for (size_t j = 0; j < t->nnotes; j++) {
    t = check_trace(L); /* a push may run a finalizer */
    lua_pushstring(L, t->notes[j].text);
    lua_rawseti(L, -2, (lua_Integer)t->notes[j].event + 1);
  }
  return 1;
}

/* t:snapshot(k) -> frame number (0-based: the frame it comes before),
 * crowd, agent count */
static int l_trace_snapshot(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceSnapshot *s = &t->snapshots[check_index(L, 2, t->nsnapshots)];
  lua_pushinteger(L, s->frame);
  lua_pushinteger(L, s->crowd + 1);
  lua_pushinteger(L, s->count);
  return 3;
}

/* t:snapshot_cell(k, agent) -> x, y (1-based), or nothing */
static int l_trace_snapshot_cell(lua_State *L)
{
  SpTrace *t = check_trace(L);
  const SpTraceSnapshot *s = &t->snapshots[check_index(L, 2, t->nsnapshots)];
  lua_Integer a = luaL_checkinteger(L, 3);
  if (a < 1 || (lua_Unsigned)a > s->count) return 0;
  uint32_t key;
  if (s->agents != NULL) { /* a streamed read's: the kept agents only */
    uint32_t lo = 0, hi = s->nkept;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (s->agents[mid] < (uint32_t)(a - 1))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == s->nkept || s->agents[lo] != (uint32_t)(a - 1)) return 0;
    key = s->cells[lo];
  } else {
    key = s->cells[a - 1];
  }
  if (key == UINT32_MAX) return 0;
  lua_pushinteger(L, (lua_Integer)(key & 0xFFFF) + 1);
  lua_pushinteger(L, (lua_Integer)(key >> 16) + 1);
  return 2;
}

/* t:agent_items(crowd, agent, "events"|"cells") -> array of the indices
 * of that agent's events (or cells), in order */
static int l_trace_agent_items(lua_State *L)
{
  SpTrace *t = check_trace(L);
  lua_Integer crowd = luaL_checkinteger(L, 2) - 1,
              agent = luaL_checkinteger(L, 3) - 1;
  static const char *const what[] = {"events", "cells", NULL};
  int cells = luaL_checkoption(L, 4, "events", what);
  lua_createtable(L, 16, 0);
  lua_Integer n = 0;
  size_t count = cells ? t->ncells : t->nevents;
  for (size_t k = 0; k < count; k++) {
    uint16_t c = cells ? t->cells[k].crowd : t->events[k].crowd;
    uint32_t a = cells ? t->cells[k].agent : t->events[k].agent;
    if (c != crowd || a != agent) continue;
    lua_pushinteger(L, (lua_Integer)k + 1);
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

static int l_trace_gc(lua_State *L)
{
  LTrace *ud = luaL_checkudata(L, 1, TRACE_MT);
  sp_trace_free(ud->t);
  ud->t = NULL;
  return 0;
}

void open_world_record(lua_State *L)
{
  const luaL_Reg rec[] = {
      {"frame", l_record_frame}, {"stats", l_record_stats},
      {"note", l_record_note},   {"lua_event", l_record_lua_event},
      {"stop", l_record_stop},   {"__gc", l_record_gc},
      {"__close", l_record_gc},  {NULL, NULL}};
  const luaL_Reg tr[] = {{"header", l_trace_header},
                         {"frame", l_trace_frame},
                         {"sensed", l_trace_sensed},
                         {"event", l_trace_event},
                         {"cell", l_trace_cell},
                         {"fact", l_trace_fact},
                         {"snapshot", l_trace_snapshot},
                         {"notes", l_trace_notes},
                         {"snapshot_cell", l_trace_snapshot_cell},
                         {"agent_items", l_trace_agent_items},
                         {"__gc", l_trace_gc},
                         {NULL, NULL}};
  const struct {
    const char *mt;
    const luaL_Reg *fns;
  } types[] = {{RECORDER_MT, rec}, {TRACE_MT, tr}};
  for (int k = 0; k < 2; k++) {
    luaL_newmetatable(L, types[k].mt);
    luaL_setfuncs(L, types[k].fns, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
  }
  lua_pushcfunction(L, l_record_start);
  lua_setfield(L, -2, "record_start");
  lua_pushcfunction(L, l_trace_read);
  lua_setfield(L, -2, "trace_read");
}
