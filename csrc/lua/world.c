/* world.c: saspu.World: places with kinds and capacities on an optional grid, shared by the crowds that live in it. */
#include <string.h>

#include "binding.h"

/* The user values of a saspu.World. */
enum {
  UV_WORLD_GRID = 1, /* the saspu.Grid (or false): keeps it alive */
  UV_WORLD_BATCH,    /* update_crowds' list of SpCrowd pointers (or nil) */
  UV_WORLD_RETURN,   /* a release.c token, dropped on close (nil after) */
  UV_WORLD_COUNT = UV_WORLD_RETURN
};

/* The saspu.World at `idx`, open or closed. */
static LWorld *to_world(lua_State *L, int idx)
{
  return luaL_checkudata(L, idx, WORLD_MT);
}

/* The open world at `idx`, with an open grid if it has one. */
/* 1 when the open world at idx has no grid or an open one: a closed grid
 * is freed, and the world's pointer to it must not be followed. */
static int world_grid_open(lua_State *L, int idx, const LWorld *w)
{
  if (!sp_world_grid(w->w)) return 1;
  lua_getiuservalue(L, idx, UV_WORLD_GRID);
  int open = grid_of(L, -1) != NULL;
  lua_pop(L, 1);
  return open;
}

LWorld *check_world(lua_State *L, int idx)
{
  LWorld *w = to_world(L, idx);
  /* luaL_error, not an argument error: the message names the caller's
   * line and no internal method */
  if (!w->w || w->closed) luaL_error(L, "saspu.World: closed");
  if (!world_grid_open(L, idx, w))
    luaL_error(L, "saspu.World: its grid is closed");
  return w;
}

/* w:is_open() -> true while the world (and its grid, if any) is open. */
static int l_world_is_open(lua_State *L)
{
  LWorld *w = to_world(L, 1);
  lua_pushboolean(L, w->w && !w->closed && world_grid_open(L, 1, w));
  return 1;
}

static int world_error(lua_State *L, const char *fname, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY)
    return luaL_error(L, "saspu.World:%s: not enough memory", fname);
  return luaL_error(L, "saspu.World:%s: %s", fname, err->message);
}

/* Frees the C world and its pool (no crowd uses them any more), and
 * gives the free pages back: its crowds were freed before it. */
static void world_free(LWorld *w)
{
  sp_world_free(w->w);
  w->w = NULL;
  sp_thread_pool_free(w->pool);
  w->pool = NULL;
  return_free_memory();
}

/* saspu.core.world([grid [, threads [, wake_ahead]]]) -> saspu.World.
 * With threads (0: every core) the world owns a pool of that many
 * workers, which its crowds share unless their options name threads;
 * wake_ahead (ms, 0: off) is the pool's sp_thread_pool_wake_ahead. */
static int l_world(lua_State *L)
{
  SpGrid *grid = NULL;
  SpError err;
  lua_Integer threads = -1;
  if (!lua_isnoneornil(L, 2)) {
    threads = luaL_checkinteger(L, 2);
    if (threads < 0 || threads > SP_THREAD_POOL_MAX)
      luaL_argerror(L, 2,
                    lua_pushfstring(L, "threads must be 0 (every core) to %d",
                                    SP_THREAD_POOL_MAX));
  }
  double ahead = -1.0; /* the pool's default */
  if (!lua_isnoneornil(L, 3)) {
    ahead = luaL_checknumber(L, 3);
    luaL_argcheck(L, ahead >= 0.0 && ahead <= 1000.0, 3,
                  "wake_ahead must be 0 (off) to 1000 ms");
  }
  if (!lua_isnoneornil(L, 1)) {
    grid = grid_of(L, 1);
    luaL_argcheck(L, grid != NULL, 1, "saspu.Grid is closed");
  }
  LWorld *w = lua_newuserdatauv(L, sizeof *w, UV_WORLD_COUNT);
  memset(w, 0, sizeof *w);
  luaL_setmetatable(L, WORLD_MT);
  if (grid)
    lua_pushvalue(L, 1);
  else
    lua_pushboolean(L, 0);
  lua_setiuservalue(L, -2, UV_WORLD_GRID);
  push_memory_return(L);
  lua_setiuservalue(L, -2, UV_WORLD_RETURN);
  SpWorld *sw = NULL;
  if (grid) { /* the userdata above was a Lua point: the grid may be closed */
    grid = grid_of(L, 1);
    if (!grid) closed_during_call(L, GRID_MT);
  }
  if (sp_world_new(grid, core_allocator(L), &sw, &err) != SP_OK)
    return world_error(L, "new", &err);
  w->w = sw;
  if (threads >= 0 && sp_thread_pool_new((int)threads, core_allocator(L),
                                         &w->pool, &err) != SP_OK) {
    world_free(w);
    return world_error(L, "new", &err);
  }
  if (w->pool != NULL && ahead >= 0.0)
    sp_thread_pool_wake_ahead(w->pool, ahead);
  return 1;
}

/* A crowd lets go of its world: the last one frees a closed world. */
void world_release(LWorld *w)
{
  if (--w->users == 0 && w->closed) world_free(w);
}

/* __gc, __close and w:close(): closes its crowds, then frees the world
 * (once the last crowd that another one sensed is freed, at the latest
 * when their userdata are). Idempotent. */
static int l_world_close(lua_State *L)
{
  LWorld *w = to_world(L, 1);
  if (w->w && !w->closed) {
    while (w->crowds) w->close_crowd(w->crowds); /* each unlinks itself */
    w->closed = 1;
    if (w->users == 0) world_free(w);
    /* the token becomes garbage: the collection that frees what the
     * script dropped with the world runs its finalizer */
    lua_pushnil(L);
    lua_setiuservalue(L, 1, UV_WORLD_RETURN);
  }
  return 0;
}

static int l_world_tostring(lua_State *L)
{
  LWorld *w = to_world(L, 1);
  if (!w->w || w->closed) {
    lua_pushliteral(L, "saspu.World (closed)");
    return 1;
  }
  if (!world_grid_open(L, 1, w)) {
    lua_pushliteral(L, "saspu.World (its grid is closed)");
    return 1;
  }
  const SpGrid *g = sp_world_grid(w->w);
  if (g)
    lua_pushfstring(L, "saspu.World %dx%d (%d places, %d kinds, %d crowds)",
                    sp_grid_width(g), sp_grid_height(g),
                    (int)sp_world_place_count(w->w), sp_world_kind_count(w->w),
                    w->users);
  else
    lua_pushfstring(
        L, "saspu.World without grid (%d places, %d kinds, %d crowds)",
        (int)sp_world_place_count(w->w), sp_world_kind_count(w->w), w->users);
  return 1;
}

/* w:add_place(kind, x, y, capacity) -> place id (1-based). Cells are
 * 1-based like the grid's; capacity 0 is unlimited. */
static int l_world_add_place(lua_State *L)
{
  const char *kind = luaL_checkstring(L, 2); /* a Lua point: before the world */
  LWorld *w = check_world(L, 1);
  lua_Integer x = luaL_checkinteger(L, 3), y = luaL_checkinteger(L, 4);
  lua_Integer cap = luaL_optinteger(L, 5, 0);
  SpError err;
  int k;
  uint32_t id;
  luaL_argcheck(L, cap >= 0 && cap <= INT32_MAX, 5,
                "capacity must be 0 (unlimited) or more");
  luaL_argcheck(L, x >= 1 && x <= INT32_MAX, 3, "x must be 1 or more");
  luaL_argcheck(L, y >= 1 && y <= INT32_MAX, 4, "y must be 1 or more");
  if (sp_world_kind(w->w, kind, &k, &err) != SP_OK ||
      sp_world_add_place(w->w, k, (int)x - 1, (int)y - 1, (int)cap, &id,
                         &err) != SP_OK)
    return world_error(L, "place", &err);
  lua_pushinteger(L, (lua_Integer)id + 1);
  return 1;
}

/* w:place_info(id) -> kind, x, y, capacity, reserved. */
static int l_world_place_info(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  lua_Integer id = luaL_checkinteger(L, 2);
  SpPlaceInfo p;
  luaL_argcheck(L, id >= 1 && (lua_Unsigned)id <= sp_world_place_count(w->w), 2,
                "no such place");
  sp_world_place(w->w, (uint32_t)(id - 1), &p);
  lua_pushstring(L, sp_world_kind_name(w->w, p.kind));
  lua_pushinteger(L, p.x + 1);
  lua_pushinteger(L, p.y + 1);
  lua_pushinteger(L, p.capacity);
  lua_pushinteger(L, p.reserved);
  return 5;
}

/* w:place_count() -> the number of places. */
static int l_world_place_count(lua_State *L)
{
  lua_pushinteger(L, (lua_Integer)sp_world_place_count(check_world(L, 1)->w));
  return 1;
}

/* w:has_kind(name) -> whether some place is of kind `name`. */
static int l_world_has_kind(lua_State *L)
{
  const char *kind = luaL_checkstring(L, 2); /* a Lua point: before the world */
  LWorld *w = check_world(L, 1);
  lua_pushboolean(L, sp_world_find_kind(w->w, kind) >= 0);
  return 1;
}

/* w:grid() -> the world's saspu.Grid, or nil. */
static int l_world_grid(lua_State *L)
{
  check_world(L, 1);
  lua_getiuservalue(L, 1, UV_WORLD_GRID);
  if (!lua_toboolean(L, -1)) lua_pushnil(L);
  return 1;
}

/* w:field_budget(bytes): memory the distance fields may use. */
static int l_world_field_budget(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  lua_Integer b = luaL_checkinteger(L, 2);
  luaL_argcheck(L, b >= 0, 2, "bytes must be 0 (the default) or more");
  sp_world_set_field_budget(w->w, (size_t)b);
  return 0;
}

/* w:warm([ms]) -> fields built, places still without one: builds the
 * places' distance fields ahead (all the budget holds; with ms > 0, none
 * started after ms milliseconds), and sets up the planners of the
 * crowds made so far. */
static int l_world_warm(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  lua_Number ms = luaL_optnumber(L, 2, 0);
  luaL_argcheck(L, ms >= 0, 2, "ms must be 0 (no limit) or more");
  size_t built = 0;
  SpError err;
  if (sp_world_warm_planners(w->w, &err) != SP_OK)
    return luaL_error(L, "saspu.World:warm: %s", err.message);
  size_t left = sp_world_warm_fields(w->w, (double)ms, &built);
  lua_pushinteger(L, (lua_Integer)built);
  lua_pushinteger(L, (lua_Integer)left);
  return 2;
}

/* w:stats([out]) -> { places, fields, field_bytes, fields_computed,
 * fields_evicted, ms_fields, waiters, queue_bytes }. */
static int l_world_stats(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  SpWorldStats s;
  sp_world_stats(w->w, &s);
  if (lua_istable(L, 2))
    lua_settop(L, 2);
  else {
    lua_settop(L, 1);
    lua_createtable(L, 0, 8);
  }
  set_int_field(L, 2, "places", s.places);
  set_int_field(L, 2, "fields", s.fields);
  set_int_field(L, 2, "field_bytes", s.field_bytes);
  set_int_field(L, 2, "fields_computed", (size_t)s.fields_computed);
  set_int_field(L, 2, "fields_evicted", (size_t)s.fields_evicted);
  set_int_field(L, 2, "waiters", s.waiters);
  set_int_field(L, 2, "queue_bytes", s.queue_bytes);
  lua_pushnumber(L, s.ms_fields);
  lua_setfield(L, 2, "ms_fields");
  return 1;
}

/* w:threads() -> the workers of the world's pool, or nil without one. */
static int l_world_threads(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  if (w->pool)
    lua_pushinteger(L, sp_thread_pool_size(w->pool));
  else
    lua_pushnil(L);
  return 1;
}

/* Room for n crowd pointers in the world's batch buffer (a Lua point:
 * may allocate; grows only, so warm frames allocate nothing). */
static SpCrowd **batch_buffer(lua_State *L, size_t n)
{
  SpCrowd **buf = NULL;
  lua_getiuservalue(L, 1, UV_WORLD_BATCH);
  if (lua_type(L, -1) == LUA_TUSERDATA && lua_rawlen(L, -1) >= n * sizeof *buf)
    buf = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (buf == NULL) {
    buf = lua_newuserdatauv(L, (n ? n : 1) * sizeof *buf, 0);
    lua_setiuservalue(L, 1, UV_WORLD_BATCH);
  }
  return buf;
}

/* w:update_crowds(dt, list): one frame of the open crowds in `list` (an
 * array of this world's crowds): those made without their own threads
 * together in one sp_crowds_update (each pass of all of them runs as one
 * job on the world's pool, or on the calling thread in a world without
 * one: the same events either way), then the others one by one, in list
 * order. */
static int l_world_update_crowds(lua_State *L)
{
  check_world(L, 1);
  float dt = check_dt(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  size_t n = (size_t)lua_rawlen(L, 3);
  SpCrowd **batch = batch_buffer(L, n);
  LWorld *w = check_world(L, 1); /* again: the buffer was a Lua point */
  size_t nb = 0;
  SpError err;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 1; k <= n; k++) {
      lua_rawgeti(L, 3, (lua_Integer)k);
      /* an open crowd of w: its world's grid is w's, checked open above */
      LCrowd *c = luaL_testudata(L, -1, CROWD_MT);
      if (!c || !c->c || c->world != w)
        return luaL_error(L,
                          "saspu.World:update_crowds: list[%d] is not an "
                          "open crowd of this world",
                          (int)k);
      lua_pop(L, 1);
      if (pass == 0 && c->on_world_pool) batch[nb++] = c->c;
      if (pass == 1 && !c->on_world_pool &&
          sp_crowd_update(c->c, dt, &err) != SP_OK)
        return world_error(L, "update_crowds", &err);
    }
    if (pass == 0 && sp_crowds_update(batch, nb, dt, &err) != SP_OK)
      return world_error(L, "update_crowds", &err);
  }
  return 0;
}

/* w:add_fact(name, values, value) -> fact id (1-based): values an array
 * of names, value the 1-based index of the one it holds now. */
static int l_world_add_fact(lua_State *L)
{
  check_world(L, 1); /* closed: said before the other arguments */
  const char *name = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_Integer value = luaL_checkinteger(L, 4);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 3);
  luaL_argcheck(L, n >= 2 && n <= 255, 3, "2 to 255 value names");
  /* the names stay on the stack (anchored) while C copies them */
  const char **names = lua_newuserdatauv(L, (size_t)n * sizeof(char *), 0);
  for (lua_Integer k = 1; k <= n; k++) {
    lua_rawgeti(L, 3, k);
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_argerror(L, 3, "value names must be strings");
    names[k - 1] = lua_tostring(L, -1);
  }
  LWorld *w = check_world(L, 1); /* the userdata was a Lua point */
  luaL_argcheck(L, value >= 1 && value <= n, 4, "value index out of range");
  SpError err;
  int id;
  if (sp_world_add_fact(w->w, name, names, (int)n, (int)value - 1, &id, &err) !=
      SP_OK)
    return world_error(L, "add_fact", &err);
  lua_pushinteger(L, id + 1);
  return 1;
}

/* The fact id (1-based) at `arg`, returned 0-based. */
static int check_fact(lua_State *L, const LWorld *w, int arg)
{
  lua_Integer id = luaL_checkinteger(L, arg);
  luaL_argcheck(L, id >= 1 && id <= sp_world_fact_count(w->w), arg,
                "no such fact");
  return (int)id - 1;
}

/* w:fact_value(id [, value]) -> the fact's value (1-based index); with
 * value, sets it first (seen by the crowds at the next update). */
static int l_world_fact_value(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  int f = check_fact(L, w, 2);
  if (!lua_isnoneornil(L, 3)) {
    lua_Integer v = luaL_checkinteger(L, 3);
    SpError err;
    luaL_argcheck(L, v >= 1 && v <= sp_world_fact_value_count(w->w, f), 3,
                  "value index out of range");
    if (sp_world_set_fact(w->w, f, (int)v - 1, &err) != SP_OK)
      return world_error(L, "set", &err);
  }
  lua_pushinteger(L, sp_world_get_fact(w->w, f) + 1);
  return 1;
}

static const luaL_Reg world_meta[] = {{"__gc", l_world_close},
                                      {"__close", l_world_close},
                                      {"__tostring", l_world_tostring},
                                      {NULL, NULL}};

static const luaL_Reg world_methods[] = {
    {"add_place", l_world_add_place},
    {"place_info", l_world_place_info},
    {"place_count", l_world_place_count},
    {"has_kind", l_world_has_kind},
    {"grid", l_world_grid},
    {"field_budget", l_world_field_budget},
    {"warm", l_world_warm},
    {"stats", l_world_stats},
    {"threads", l_world_threads},
    {"update_crowds", l_world_update_crowds},
    {"add_fact", l_world_add_fact},
    {"fact_value", l_world_fact_value},
    {"close", l_world_close},
    {"is_open", l_world_is_open},
    {NULL, NULL}};

/* Registers saspu.World: core.world and core.World (the methods table,
 * which lua/saspu/world.lua extends). */
void open_world(lua_State *L)
{
  luaL_newmetatable(L, WORLD_MT); /* module mt */
  luaL_setfuncs(L, world_meta, 0);
  luaL_newlib(L, world_methods); /* module mt methods */
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  lua_setfield(L, -3, "World"); /* module mt */
  lua_pop(L, 1);
  lua_pushcfunction(L, l_world);
  lua_setfield(L, -2, "world");
}
