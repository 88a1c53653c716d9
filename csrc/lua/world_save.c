/* world_save.c: saspu.core.world_save / world_load: a world and its crowds to a string and back (lua/saspu/world.lua adds the script side). */
#include <string.h>

#include "binding.h"

#define SAVE_BOX_MT "saspu.SaveScratch"

/* Scratch of one call, a userdata made before any C work: the crowd
 * pointers, and the save buffer until it is a Lua string (its __gc frees
 * the buffer when a Lua error comes first). */
typedef struct SaveBox {
  SpAllocator alloc;
  void *buf;
  size_t len;
  size_t count;
  size_t *agents; /* count entries each, after the crowds: the saved */
  int *goals;     /* agents and goals of each crowd */
  SpCrowd *crowds[1]; /* count entries */
} SaveBox;

static int l_box_gc(lua_State *L)
{
  SaveBox *b = luaL_checkudata(L, 1, SAVE_BOX_MT);
  if (b->buf && b->alloc.fn)
    b->alloc.fn(b->alloc.ud, b->buf, b->len, 0);
  b->buf = NULL;
  return 0;
}

/* The box for the crowds listed at `list` (a Lua point: it allocates). */
static SaveBox *new_box(lua_State *L, int list)
{
  size_t n = (size_t)lua_rawlen(L, list);
  size_t crowds = sizeof(SaveBox) + n * sizeof(SpCrowd *);
  crowds = (crowds + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t);
  SaveBox *b = lua_newuserdatauv(L, crowds + n * (sizeof(size_t) + sizeof(int)), 0);
  memset(b, 0, sizeof *b);
  b->alloc = core_allocator(L);
  b->count = n;
  b->agents = (size_t *)((char *)b + crowds);
  b->goals = (int *)(b->agents + n);
  luaL_setmetatable(L, SAVE_BOX_MT);
  return b;
}

/* Fills the box with the open crowds of the world at 1, read after the
 * last Lua point: every entry must be an open saspu.Crowd of that world. */
static SpWorld *gather(lua_State *L, int list, SaveBox *b, const char *fname)
{
  LWorld *w = check_world(L, 1);
  for (size_t k = 0; k < b->count; k++) {
    lua_rawgeti(L, list, (lua_Integer)k + 1);
    LCrowd *c = luaL_testudata(L, -1, CROWD_MT);
    lua_pop(L, 1);
    if (!c || !c->c)
      luaL_error(L, "saspu.World:%s: crowds[%d] is not an open saspu.Crowd", fname,
                 (int)k + 1);
    if (c->world != w)
      luaL_error(L, "saspu.World:%s: crowds[%d] lives in another world", fname, (int)k + 1);
    b->crowds[k] = c->c;
  }
  return w->w;
}

/* core.world_save(world, crowds, extra) -> string: every crowd of the
 * world in a fixed order, and the script side's bytes. */
static int l_world_save(lua_State *L)
{
  size_t extra_len;
  const char *extra = luaL_optlstring(L, 3, "", &extra_len);
  check_world(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  SaveBox *b = new_box(L, 2); /* the last Lua point before the core */
  SpWorld *w = gather(L, 2, b, "save");
  SpError err;
  if (sp_world_save(w, (const SpCrowd *const *)b->crowds, b->count, extra, extra_len,
                    &b->buf, &b->len, &err) != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.World:save: not enough memory");
    return luaL_error(L, "saspu.World:save: %s", err.message);
  }
  lua_pushlstring(L, b->buf, b->len);
  /* the string holds the bytes: let the buffer go at once */
  b->alloc.fn(b->alloc.ud, b->buf, b->len, 0);
  b->buf = NULL;
  return 1;
}

/* core.world_load(world, crowds, s [, check_only]) -> the script side's
 * bytes; with check_only also { saved agents per crowd }, { saved goals
 * per crowd }. Raises "saspu.World:load: saved world: ..." and changes
 * nothing when s does not fit this world; with check_only it changes
 * nothing either way. */
static int l_world_load(lua_State *L)
{
  size_t len;
  const char *s = luaL_checklstring(L, 3, &len);
  int check_only = lua_toboolean(L, 4);
  check_world(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  SaveBox *b = new_box(L, 2);
  SpWorld *w = gather(L, 2, b, "load");
  const void *extra = NULL;
  size_t extra_len = 0;
  SpError err;
  SpStatus st = check_only
                    ? sp_world_load_counts(w, (const SpCrowd *const *)b->crowds, b->count, s,
                                           len, &extra, &extra_len, b->agents, b->goals, &err)
                    : sp_world_load(w, b->crowds, b->count, s, len, &extra, &extra_len, &err);
  if (st != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.World:load: not enough memory");
    return luaL_error(L, "saspu.World:load: %s", err.message);
  }
  lua_pushlstring(L, extra, extra_len); /* inside s, which the stack holds */
  if (!check_only) return 1;
  lua_createtable(L, (int)b->count, 0);
  lua_createtable(L, (int)b->count, 0);
  for (size_t k = 0; k < b->count; k++) { /* b stays on the stack */
    lua_pushinteger(L, (lua_Integer)b->agents[k]);
    lua_rawseti(L, -3, (lua_Integer)k + 1);
    lua_pushinteger(L, b->goals[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 3;
}

/* Registers core.world_save and core.world_load (module on top). */
void open_world_save(lua_State *L)
{
  luaL_newmetatable(L, SAVE_BOX_MT);
  lua_pushcfunction(L, l_box_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_world_save);
  lua_setfield(L, -2, "world_save");
  lua_pushcfunction(L, l_world_load);
  lua_setfield(L, -2, "world_load");
}
