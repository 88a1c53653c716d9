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
  size_t *agents;          /* count entries each, after the crowds: the saved */
  int *goals;              /* agents and goals of each crowd */
  uint32_t *dead;          /* the load check's despawned slots: (crowd, slot) */
  size_t dead_n, dead_cap; /* pairs held, room (in pairs) */
  int dead_oom;            /* a pair did not fit in memory */
  SpCrowd *crowds[1];      /* count entries */
} SaveBox;

static int l_box_gc(lua_State *L)
{
  SaveBox *b = luaL_checkudata(L, 1, SAVE_BOX_MT);
  if (b->buf && b->alloc.fn) b->alloc.fn(b->alloc.ud, b->buf, b->len, 0);
  b->buf = NULL;
  if (b->dead && b->alloc.fn)
    b->alloc.fn(b->alloc.ud, b->dead, b->dead_cap * 2 * sizeof(uint32_t), 0);
  b->dead = NULL;
  return 0;
}

/* sp_world_load_probe's callback: keeps (crowd, slot) in the box. */
static void note_despawned(void *ud, size_t crowd, uint32_t slot)
{
  SaveBox *b = ud;
  if (b->dead_oom) return;
  if (b->dead_n == b->dead_cap) {
    size_t cap = b->dead_cap ? 2 * b->dead_cap : 64;
    void *p =
        b->alloc.fn(b->alloc.ud, b->dead, b->dead_cap * 2 * sizeof(uint32_t),
                    cap * 2 * sizeof(uint32_t));
    if (p == NULL) {
      b->dead_oom = 1;
      return;
    }
    b->dead = p;
    b->dead_cap = cap;
  }
  b->dead[2 * b->dead_n] = (uint32_t)crowd;
  b->dead[2 * b->dead_n + 1] = slot;
  b->dead_n++;
}

/* The box for the crowds listed at `list` (a Lua point: it allocates). */
static SaveBox *new_box(lua_State *L, int list)
{
  size_t n = (size_t)lua_rawlen(L, list);
  size_t crowds = sizeof(SaveBox) + n * sizeof(SpCrowd *);
  crowds = (crowds + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t);
  SaveBox *b =
      lua_newuserdatauv(L, crowds + n * (sizeof(size_t) + sizeof(int)), 0);
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
      luaL_error(L, "saspu.World:%s: crowds[%d] is not an open saspu.Crowd",
                 fname, (int)k + 1);
    if (c->world != w)
      luaL_error(L, "saspu.World:%s: crowds[%d] lives in another world", fname,
                 (int)k + 1);
    b->crowds[k] = c->c;
  }
  return w->w;
}

/* The string at t[k], or NULL (the table keeps it alive). */
static const char *string_at(lua_State *L, int t, lua_Integer k)
{
  lua_rawgeti(L, t, k);
  const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  lua_pop(L, 1);
  return s;
}

/* The names of places and goals a save carries, as SpSaveNames: the core
 * reads one entry per place of the world and per goal of each crowd, so
 * every list is made that long (NULL past the script's names: the core's
 * default names) and its length kept, for names_cover to check once no
 * Lua code can run any more. */
typedef struct NamesBox {
  SpSaveNames names;
  size_t places;  /* entries of names.places */
  size_t crowds;  /* entries of goals */
  size_t goals[]; /* per crowd, entries of its goal list */
} NamesBox;

/* The goals crowds[k] has now (0 when it is not an open crowd: gather
 * refuses it later). */
static size_t goals_of(lua_State *L, int list, size_t k)
{
  lua_rawgeti(L, list, (lua_Integer)k + 1);
  LCrowd *c = luaL_testudata(L, -1, CROWD_MT);
  lua_pop(L, 1);
  return c && c->c ? (size_t)sp_crowd_goal_count(c->c) : 0;
}

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* Builds the names from the tables at `places` (by place id) and `goals`
 * (per crowd of the list at `list`, by goal index), either absent (nil),
 * for the world at 1, in a userdata left on the stack (a Lua point). */
static NamesBox *names_from(lua_State *L, int places, int goals, int list)
{
  size_t crowds = (size_t)lua_rawlen(L, list);
  size_t np = lua_istable(L, places) ? (size_t)lua_rawlen(L, places) : 0;
  size_t place_cap = max_size(np, sp_world_place_count(check_world(L, 1)->w));
  size_t ng = 0;
  for (size_t k = 0; k < crowds; k++) {
    size_t n = 0;
    if (lua_istable(L, goals)) {
      lua_rawgeti(L, goals, (lua_Integer)k + 1);
      n = lua_istable(L, -1) ? (size_t)lua_rawlen(L, -1) : 0;
      lua_pop(L, 1);
    }
    ng += max_size(n, goals_of(L, list, k));
  }
  size_t head = sizeof(NamesBox) + crowds * sizeof(size_t);
  head = (head + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *);
  NamesBox *nb = lua_newuserdatauv(
      L, head + (place_cap + ng + crowds + 1) * sizeof(void *), 0);
  const char **p = (const char **)((char *)nb + head);
  const char **g = p + place_cap;
  const char *const **gl = (const char *const **)(g + ng);
  nb->places = place_cap;
  nb->crowds = crowds;
  for (size_t k = 0; k < place_cap; k++)
    p[k] = k < np ? string_at(L, places, (lua_Integer)k + 1) : NULL;
  for (size_t k = 0; k < crowds; k++) {
    /* the counts again: the allocation above may have run finalizers */
    size_t n = 0;
    gl[k] = NULL, nb->goals[k] = 0;
    if (!lua_istable(L, goals)) continue;
    lua_rawgeti(L, goals, (lua_Integer)k + 1);
    if (lua_istable(L, -1)) n = (size_t)lua_rawlen(L, -1);
    size_t cap = max_size(n, goals_of(L, list, k));
    if (cap > ng) cap = ng; /* what is left: names_cover refuses the rest */
    for (size_t j = 0; j < cap; j++)
      g[j] = j < n ? string_at(L, lua_gettop(L), (lua_Integer)j + 1) : NULL;
    gl[k] = g, nb->goals[k] = cap;
    g += cap, ng -= cap;
    lua_pop(L, 1);
  }
  nb->names.places = np > 0 ? p : NULL;
  nb->names.goals = lua_istable(L, goals) ? gl : NULL;
  return nb;
}

/* Raises unless the names cover every place of w and every goal of the
 * crowds in b (after the last Lua point: a finalizer may have added
 * some). */
static void names_cover(lua_State *L, const NamesBox *nb, const SpWorld *w,
                        const SaveBox *b, const char *fname)
{
  if (nb->names.places != NULL && sp_world_place_count(w) > nb->places)
    luaL_error(L, "saspu.World:%s: places were added during the call", fname);
  for (size_t k = 0; nb->names.goals != NULL && k < b->count; k++)
    if (nb->names.goals[k] != NULL &&
        (size_t)sp_crowd_goal_count(b->crowds[k]) > nb->goals[k])
      luaL_error(L,
                 "saspu.World:%s: crowds[%d]'s goals changed during the call",
                 fname, (int)k + 1);
}

/* core.world_save(world, crowds, extra [, place names, goal names]) ->
 * string: every crowd of the world in a fixed order, and the script
 * side's bytes. */
static int l_world_save(lua_State *L)
{
  size_t extra_len;
  const char *extra = luaL_optlstring(L, 3, "", &extra_len);
  check_world(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const NamesBox *nb = names_from(L, 4, 5, 2);
  SaveBox *b = new_box(L, 2); /* the last Lua point before the core */
  SpWorld *w = gather(L, 2, b, "save");
  names_cover(L, nb, w, b, "save");
  SpError err;
  if (sp_world_save_named(w, (const SpCrowd *const *)b->crowds, b->count,
                          &nb->names, extra, extra_len, &b->buf, &b->len,
                          &err) != SP_OK) {
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
 * per crowd }, { per crowd: { despawned slot (1-based) -> true } }. Raises "saspu.World:load: saved world: ..." and changes
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
  SpStatus st =
      check_only
          ? sp_world_load_probe(w, (const SpCrowd *const *)b->crowds, b->count,
                                s, len, &extra, &extra_len, b->agents, b->goals,
                                note_despawned, b, &err)
          : sp_world_load(w, b->crowds, b->count, s, len, &extra, &extra_len,
                          &err);
  if (st != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.World:load: not enough memory");
    return luaL_error(L, "saspu.World:load: %s", err.message);
  }
  if (check_only && b->dead_oom)
    return luaL_error(L, "saspu.World:load: not enough memory");
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
  lua_createtable(L, (int)b->count, 0);
  for (size_t k = 0; k < b->count; k++) {
    lua_newtable(L);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  for (size_t j = 0; j < b->dead_n; j++) {
    lua_rawgeti(L, -1, (lua_Integer)b->dead[2 * j] + 1);
    lua_pushboolean(L, 1);
    lua_rawseti(L, -2, (lua_Integer)b->dead[2 * j + 1] + 1);
    lua_pop(L, 1);
  }
  return 4;
}

/* The result of a migration until its parts are Lua values: its __gc
 * frees them when a Lua error comes first. */
#define MIGRATION_MT "saspu.Migration"
typedef struct MigBox {
  const SpWorld *w;
  SpMigration m;
} MigBox;

static void mig_release(MigBox *b)
{
  if (b->w != NULL) sp_migration_free(b->w, &b->m);
  b->w = NULL;
}

static int l_mig_gc(lua_State *L)
{
  mig_release(luaL_checkudata(L, 1, MIGRATION_MT));
  return 0;
}

/* core.world_migrate(world, crowds, s, place names, goal names, defaults)
 * -> the save rewritten for this world, { report lines }, { per crowd:
 * { [saved action id] = new id or false } }. defaults: a list of names,
 * variable then value. Raises "saspu.World:load: saved world: migrate:
 * ..." and changes nothing when the save cannot be mapped. */
static int l_world_migrate(lua_State *L)
{
  size_t len;
  const char *s = luaL_checklstring(L, 3, &len);
  check_world(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 6, LUA_TTABLE);
  size_t nd = (size_t)lua_rawlen(L, 6) / 2;
  SpMigrateDefault *defs = lua_newuserdatauv(L, (nd + 1) * sizeof *defs, 0);
  for (size_t k = 0; k < nd; k++) {
    defs[k].variable = string_at(L, 6, (lua_Integer)(2 * k + 1));
    defs[k].value = string_at(L, 6, (lua_Integer)(2 * k + 2));
  }
  const NamesBox *nb = names_from(L, 4, 5, 2);
  MigBox *mb = lua_newuserdatauv(L, sizeof *mb, 0);
  memset(mb, 0, sizeof *mb);
  luaL_setmetatable(L, MIGRATION_MT);
  SaveBox *b = new_box(L, 2);
  SpWorld *w = gather(L, 2, b, "load"); /* the last Lua point before the core */
  names_cover(L, nb, w, b, "load");
  SpError err;
  if (sp_world_migrate(w, (const SpCrowd *const *)b->crowds, b->count,
                       &nb->names, defs, nd, s, len, &mb->m, &err) != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.World:load: not enough memory");
    return luaL_error(L, "saspu.World:load: %s", err.message);
  }
  mb->w = w;
  lua_pushlstring(L, mb->m.save, mb->m.save_len);
  lua_newtable(L);
  const char *line = mb->m.report, *end = line + mb->m.report_len;
  for (int k = 1; line != NULL && line < end; k++) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    lua_pushlstring(L, line, (size_t)(nl - line));
    lua_rawseti(L, -2, k);
    line = nl + 1;
  }
  lua_createtable(L, (int)mb->m.map_count, 0);
  for (size_t k = 0; k < mb->m.map_count; k++) {
    lua_newtable(L);
    for (size_t a = mb->m.map_at[k]; a < mb->m.map_at[k + 1]; a++) {
      int32_t to = mb->m.action_map[a];
      if (to >= 0)
        lua_pushinteger(L, to + 1);
      else
        lua_pushboolean(L, 0);
      lua_rawseti(L, -2, (lua_Integer)(a - mb->m.map_at[k]) + 1);
    }
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  mig_release(mb); /* the Lua values hold it all now */
  return 3;
}

/* core.save_info(s) -> { format, bytes, crowd_count, places, facts,
 * crowds = { { name, agents, variables, actions, goals }, ... } } (only
 * format, bytes and crowd_count before format 6, which names nothing).
 * Raises "saspu.save_info: saved world: ...". */
static int l_save_info(lua_State *L)
{
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  SpSaveInfo info;
  SpSaveCrowdInfo ci;
  SpError err;
  if (sp_save_info(s, len, 0, &info, NULL, &err) != SP_OK)
    return luaL_error(L, "saspu.save_info: %s", err.message);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, (lua_Integer)info.version);
  lua_setfield(L, -2, "format");
  lua_pushinteger(L, (lua_Integer)info.payload + 32);
  lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, (lua_Integer)info.crowds);
  lua_setfield(L, -2, "crowd_count");
  if (info.version < 6) return 1;
  lua_pushinteger(L, (lua_Integer)info.places);
  lua_setfield(L, -2, "places");
  lua_pushinteger(L, (lua_Integer)info.facts);
  lua_setfield(L, -2, "facts");
  lua_createtable(L, (int)(info.crowds < 1024 ? info.crowds : 1024), 0);
  for (uint32_t k = 0; k < info.crowds; k++) {
    sp_save_info(s, len, k, &info, &ci, &err); /* sound: checked above */
    lua_createtable(L, 0, 5);
    lua_pushlstring(L, ci.name, ci.name_len);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, (lua_Integer)ci.agents);
    lua_setfield(L, -2, "agents");
    lua_pushinteger(L, (lua_Integer)ci.variables);
    lua_setfield(L, -2, "variables");
    lua_pushinteger(L, (lua_Integer)ci.actions);
    lua_setfield(L, -2, "actions");
    lua_pushinteger(L, (lua_Integer)ci.goals);
    lua_setfield(L, -2, "goals");
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "crowds");
  return 1;
}

/* Registers core.world_save, world_load, world_migrate, save_info and
 * save_layout (module on top). */
void open_world_save(lua_State *L)
{
  const char *const boxes[2] = {SAVE_BOX_MT, MIGRATION_MT};
  const lua_CFunction gcs[2] = {l_box_gc, l_mig_gc};
  for (int k = 0; k < 2; k++) {
    luaL_newmetatable(L, boxes[k]);
    lua_pushcfunction(L, gcs[k]);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
  }
  const luaL_Reg fns[] = {{"world_save", l_world_save},
                          {"world_load", l_world_load},
                          {"world_migrate", l_world_migrate},
                          {"save_info", l_save_info},
                          {NULL, NULL}};
  for (const luaL_Reg *f = fns; f->name != NULL; f++) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  /* the layout constants, which tests/fuzz/save_driver.lua must match */
  SpSaveLayout sl;
  sp_save_layout(&sl);
  lua_createtable(L, 0, 6);
  const struct {
    const char *k;
    lua_Integer v;
  } layout[] = {
      {"version", sl.version},           {"oldest", sl.oldest},
      {"header_bytes", sl.header_bytes}, {"agent_bytes", sl.agent_bytes},
      {"counters", sl.counters},         {"name_max", sl.name_max}};
  for (size_t k = 0; k < sizeof layout / sizeof layout[0]; k++) {
    lua_pushinteger(L, layout[k].v);
    lua_setfield(L, -2, layout[k].k);
  }
  lua_setfield(L, -2, "save_layout");
}
