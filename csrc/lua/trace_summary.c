/* trace_summary.c: the binding of streamed trace reads and sums: core.trace_read_file(path, opts), saspu.Trace:summary and :density. */
#include <string.h>

#include "binding.h"
#include "saspu_record.h"

/* A scratch array of n items of `size`, owned by a userdata left on the
 * stack (freed by the GC, whatever raises). */
static void *scratch(lua_State *L, size_t n, size_t size)
{
  return lua_newuserdatauv(L, (n ? n : 1) * size, 0);
}

static lua_Integer opt_int(lua_State *L, int t, const char *k, lua_Integer d)
{
  lua_getfield(L, t, k);
  lua_Integer v = lua_isnil(L, -1) ? d : luaL_checkinteger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Fills o from the options table at index `t` (absent: defaults); the
 * arrays it points to live in userdata pushed on the stack. */
static void read_options(lua_State *L, int t, SpTraceReadOptions *o)
{
  memset(o, 0, sizeof *o);
  if (lua_isnoneornil(L, t)) return;
  luaL_checktype(L, t, LUA_TTABLE);
  lua_getfield(L, t, "stream");
  o->stream = lua_toboolean(L, -1);
  lua_getfield(L, t, "summary");
  o->summary = lua_toboolean(L, -1);
  lua_pop(L, 2);
  lua_Integer twice = opt_int(L, t, "twice_above", 0);
  luaL_argcheck(L, twice >= 0, t, "twice_above: bytes from 0");
  o->twice_above = (size_t)twice;
  lua_Integer top = opt_int(L, t, "top", 0);
  luaL_argcheck(L, top >= 0 && top <= 1000, t, "top: 0 to 1000");
  o->top = (uint32_t)top;
  lua_getfield(L, t, "period");
  o->period = lua_isnil(L, -1) ? 0 : luaL_checknumber(L, -1);
  lua_pop(L, 1);
  luaL_argcheck(L, o->period >= 0, t, "period: seconds above 0");
  lua_getfield(L, t, "keep");
  if (!lua_isnil(L, -1)) {
    luaL_checktype(L, -1, LUA_TTABLE);
    int keep = lua_gettop(L);
    size_t n = (size_t)lua_rawlen(L, keep);
    SpTraceKeep *k = scratch(L, n, sizeof *k);
    for (size_t j = 0; j < n; j++) {
      lua_rawgeti(L, keep, (lua_Integer)j + 1);
      luaL_argcheck(L, lua_istable(L, -1), t, "keep: a list of {crowd, agent}");
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      lua_Integer c = luaL_checkinteger(L, -2), a = luaL_checkinteger(L, -1);
      luaL_argcheck(L, c >= 1 && c <= 0xFFFF && a >= 1 && a <= UINT32_MAX, t,
                    "keep: crowd and agent from 1");
      k[j].crowd = (uint32_t)c - 1;
      k[j].agent = (uint32_t)a - 1;
      lua_pop(L, 3);
    }
    o->keep = k;
    o->nkeep = n;
  }
  lua_getfield(L, t, "keyframes");
  if (!lua_isnil(L, -1)) {
    luaL_checktype(L, -1, LUA_TTABLE);
    int kf = lua_gettop(L);
    size_t n = (size_t)lua_rawlen(L, kf);
    uint32_t *f = scratch(L, n, sizeof *f);
    for (size_t j = 0; j < n; j++) {
      lua_rawgeti(L, kf, (lua_Integer)j + 1);
      lua_Integer v = luaL_checkinteger(L, -1);
      luaL_argcheck(L, v >= 1 && v <= UINT32_MAX, t,
                    "keyframes: frames from 1");
      f[j] = (uint32_t)v - 1;
      lua_pop(L, 1);
    }
    o->keyframes = f;
    o->nkeyframes = n;
    lua_Integer bin = opt_int(L, t, "bin", 1), bw = opt_int(L, t, "bw", 0),
                bh = opt_int(L, t, "bh", 0);
    luaL_argcheck(L,
                  bin >= 1 && bin <= 0xFFFF && bw >= 1 && bw <= 0xFFFF &&
                      bh >= 1 && bh <= 0xFFFF,
                  t, "bin, bw, bh: 1 to 65535");
    o->bin = (uint32_t)bin;
    o->bw = (uint32_t)bw;
    o->bh = (uint32_t)bh;
  }
}

/* core.trace_read_file(path [, opts]) -> saspu.Trace: the file read a
 * chunk at a time; opts { stream, keep = {{crowd, agent}}, summary, top,
 * period, keyframes = {frame...}, bin, bw, bh, twice_above } (1-based). */
static int l_trace_read_file(lua_State *L)
{
  const char *path = luaL_checkstring(L, 1);
  SpTraceReadOptions o;
  read_options(L, 2, &o);
  SpTrace **slot = trace_push(L);
  SpAllocator a;
  a.fn = (SpAllocFn)lua_getallocf(L, &a.ud);
  SpError err;
  SpTrace *t;
  if (sp_trace_read_file(path, &o, a, &t, &err) != SP_OK)
    return luaL_error(L, "%s", err.message);
  *slot = t;
  return 1;
}

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}
static void set_num(lua_State *L, const char *k, double v)
{
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}
static void set_str(lua_State *L, const char *k, const char *v)
{
  if (v == NULL) return;
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static const char *text_of(const SpTraceSummary *s, uint32_t text)
{
  return text < s->ntexts ? s->texts[text] : NULL;
}

/* One class's sums as a table (names, 1-based agents). */
static void push_class(lua_State *L, const SpTrace *t, const SpTraceSummary *s,
                       uint32_t k)
{
  const SpTraceClassSummary *c = &s->classes[k];
  const SpTraceCrowd *cr = &t->crowds[k];
  lua_createtable(L, 0, 16);
  set_str(L, "class", cr->name);
  set_int(L, "crowd", (lua_Integer)k + 1);
  const struct {
    const char *k;
    uint64_t v;
  } n[] = {{"agents", c->agents},   {"goals", c->goals},
           {"reached", c->reached}, {"failed", c->failed},
           {"gave_up", c->gave_up}, {"dropped", c->dropped},
           {"never", c->never},     {"step_failures", c->step_failures}};
  for (size_t j = 0; j < sizeof n / sizeof n[0]; j++)
    set_int(L, n[j].k, (lua_Integer)n[j].v);
  lua_createtable(L, (int)c->nreasons, 0);
  for (uint32_t j = 0; j < c->nreasons; j++) {
    const SpTraceReason *r = &c->reasons[j];
    lua_createtable(L, 0, 7);
    set_str(L, "kind", t->kinds[r->kind]);
    set_str(L, "reason", text_of(s, r->text));
    if (r->action >= 0) set_str(L, "action", cr->actions[r->action]);
    if (r->place >= 0) set_str(L, "place", t->places[r->place].name);
    set_int(L, "count", (lua_Integer)r->count);
    set_num(L, "first", r->first);
    set_num(L, "last", r->last);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  lua_setfield(L, -2, "reasons");
  lua_createtable(L, (int)c->nstuck, 0);
  for (uint32_t j = 0; j < c->nstuck; j++) {
    const SpTraceStuck *st = &c->stuck[j];
    lua_createtable(L, 0, 5);
    set_int(L, "agent", (lua_Integer)st->agent + 1);
    set_num(L, "seconds", st->to - st->from);
    set_num(L, "from", st->from);
    set_num(L, "to", st->to);
    const char *why = text_of(s, st->text);
    set_str(L, "reason", why != NULL ? why : t->kinds[st->kind]);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  lua_setfield(L, -2, "stuck");
  lua_createtable(L, (int)c->nnever, 0);
  for (uint32_t j = 0; j < c->nnever; j++) {
    lua_pushinteger(L, (lua_Integer)c->never_agents[j] + 1);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  lua_setfield(L, -2, "never_agents");
  lua_createtable(L, (int)c->nreachers, 0);
  for (uint32_t j = 0; j < c->nreachers; j++) {
    lua_pushinteger(L, (lua_Integer)c->reachers[j] + 1);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  lua_setfield(L, -2, "reachers");
}

/* t:summary([{top =, period =}]) -> { start, finish, period, cells_w,
 * cells_h, classes = { per recorded crowd }, periods = {index...}, counts
 * = { { [kind] = n } per period } }. A trace read whole is summed up
 * here; a streamed one was as it was read (and only so). */
static int l_trace_summary(lua_State *L)
{
  SpTrace *t = trace_check(L);
  SpTraceReadOptions o;
  lua_settop(L, 2);
  read_options(L, 2, &o);
  t = trace_check(L);
  SpTraceSummary *s = t->summary;
  int asked = o.top != 0 || o.period != 0;
  if (s != NULL && asked &&
      ((o.top != 0 && o.top != s->top) ||
       (o.period != 0 && o.period != s->period))) {
    if (t->all_events != t->nevents)
      return luaL_error(L,
                        "saspu.Trace:summary: a streamed trace was summed up "
                        "as it was read (top %d, period %g)",
                        (int)s->top, s->period);
    s = NULL;
  }
  if (s == NULL) {
    if (t->all_events != t->nevents)
      return luaL_error(L, "saspu.Trace:summary: this trace was streamed "
                           "without a summary (read it with summary = true)");
    SpError err;
    SpTraceSummary *n;
    if (sp_trace_summarize(t, &o, &n, &err) != SP_OK)
      return luaL_error(L, "%s", err.message);
    sp_trace_summary_free(t->summary); /* the trace owns the one it has */
    t->summary = s = n;
  }
  lua_createtable(L, 0, 10);
  set_num(L, "start", s->start);
  set_num(L, "finish", s->finish);
  set_num(L, "period", s->period);
  set_int(L, "top", s->top);
  set_int(L, "cells_w", s->cells_w);
  set_int(L, "cells_h", s->cells_h);
  lua_createtable(L, 0, 0);
  lua_Integer n = 0;
  for (uint32_t k = 0; k < s->ncrowds; k++) {
    t = trace_check(L);
    if (!t->summary->classes[k].recorded) continue;
    push_class(L, t, t->summary, k);
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "classes");
  t = trace_check(L);
  s = t->summary;
  lua_createtable(L, (int)s->nperiods, 0);
  for (size_t p = 0; p < s->nperiods; p++) {
    lua_pushinteger(L, (lua_Integer)s->periods[p]);
    lua_rawseti(L, -2, (lua_Integer)p + 1);
  }
  lua_setfield(L, -2, "periods");
  lua_createtable(L, (int)s->nperiods, 0);
  for (size_t p = 0; p < s->nperiods; p++) {
    t = trace_check(L);
    s = t->summary;
    lua_createtable(L, 0, 4);
    for (uint32_t k = 0; k < s->nkinds; k++)
      if (s->counts[p * s->nkinds + k] > 0)
        set_int(L, t->kinds[k], (lua_Integer)s->counts[p * s->nkinds + k]);
    lua_rawseti(L, -2, (lua_Integer)p + 1);
  }
  lua_setfield(L, -2, "counts");
  return 1;
}

/* t:density() -> { [keyframe] = { [j] = { bin, count, bin, count, ... } } }
 * for the j-th recorded crowd (bins 0-based, by * bw + bx, ascending),
 * as the streamed read with keyframes counted; nil: none asked. */
static int l_trace_density(lua_State *L)
{
  SpTrace *t = trace_check(L);
  if (t->summary == NULL || t->summary->nkeyframes == 0) return 0;
  size_t nk = t->summary->nkeyframes;
  lua_createtable(L, (int)nk, 0);
  for (size_t f = 0; f < nk; f++) {
    lua_createtable(L, 4, 0);
    lua_Integer j = 0;
    for (uint32_t k = 0; k < t->ncrowds; k++) {
      t = trace_check(L);
      const SpTraceSummary *s = t->summary;
      if (!s->classes[k].recorded) continue;
      size_t grid = (size_t)s->bw * s->bh;
      lua_createtable(L, 16, 0);
      lua_Integer m = 0;
      for (size_t b = 0; b < grid; b++) {
        uint32_t count = t->summary->density[(f * s->ncrowds + k) * grid + b];
        if (count == 0) continue;
        lua_pushinteger(L, (lua_Integer)b);
        lua_rawseti(L, -2, ++m);
        lua_pushinteger(L, count);
        lua_rawseti(L, -2, ++m);
        t = trace_check(L);
        s = t->summary;
      }
      lua_rawseti(L, -2, ++j);
    }
    lua_rawseti(L, -2, (lua_Integer)f + 1);
  }
  return 1;
}

void open_trace_summary(lua_State *L)
{
  const luaL_Reg fns[] = {
      {"summary", l_trace_summary}, {"density", l_trace_density}, {NULL, NULL}};
  luaL_getmetatable(L, TRACE_MT);
  luaL_setfuncs(L, fns, 0);
  lua_pop(L, 1);
  lua_pushcfunction(L, l_trace_read_file);
  lua_setfield(L, -2, "trace_read_file");
}
