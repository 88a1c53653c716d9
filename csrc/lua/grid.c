/* grid.c: saspu.Grid: cost grids and A* and Dijkstra pathfinding from Lua (1-based cells). */
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* saspu.Grid: grid pathfinding                                       */
/* ================================================================== */

/* Lua coordinates are 1-based (x in 1..width, y in 1..height); the core's
 * are 0-based. Every conversion happens in check_cell and push_path. */

/* The saspu.Grid userdata. Every pointer is NULL until it is owned, and
 * NULL again after close, so __gc may run at any point. */
typedef struct LGrid {
  SpGrid *grid;
  SpGridWorkspace *ws; /* made by the first search, reused by every other */
  SpGridPoint *path;   /* the last path, through the Lua allocator */
  size_t path_cap;     /* entries allocated in `path` */
  SpGridResult last;   /* figures of the last search */
  SpGridAlgorithm last_algorithm;
  int searched; /* a search ran: `last` means something */
  int found;    /* and it found a path */
  int width, height;
  size_t held; /* C bytes reported to accounting.c */
} LGrid;

/* Smallest path buffer; it then doubles as longer paths come. */
#define GRID_PATH_MIN 64

/* The saspu.Grid at `idx` (closed or not). */
static LGrid *to_grid(lua_State *L, int idx)
{
  return luaL_checkudata(L, idx, GRID_MT);
}

/* The open grid at `idx`. */
static LGrid *check_grid(lua_State *L, int idx)
{
  LGrid *g = to_grid(L, idx);
  if (!g->grid) luaL_argerror(L, idx, "saspu.Grid is closed");
  return g;
}

/* The grid's core object after a Lua point (see binding.h), or the
 * error "saspu.Grid was closed during the call". */
static SpGrid *live_grid(lua_State *L, const LGrid *g)
{
  if (!g->grid) closed_during_call(L, GRID_MT);
  return g->grid;
}

/* The grid of the saspu.Grid at `idx`, NULL once it is closed (a world
 * checks it before every update). */
SpGrid *grid_of(lua_State *L, int idx) { return to_grid(L, idx)->grid; }

/* Argument `arg`, an integer in 1..limit, named `name` in the message;
 * returns it 0-based. */
static int check_cell(lua_State *L, int arg, const char *name, int limit)
{
  lua_Integer v = luaL_checkinteger(L, arg);
  if (v < 1 || v > limit)
    luaL_argerror(
        L, arg, lua_pushfstring(L, "%s = %I is outside 1..%d", name, v, limit));
  return (int)(v - 1);
}

/* Pushes the sentence for an invalid cost, "cost -1 is out of range: ...".
 * Costs go through %g, like the core's messages (lua_pushfstring's %f
 * would show 2 as 2.0). */
static const char *push_cost_error(lua_State *L, const char *prefix, double c)
{
  char buf[160];
  snprintf(buf, sizeof buf,
           "%scost %g is out of range: a cost is a number in [%g, %g]", prefix,
           c, SP_GRID_MIN_COST, SP_GRID_MAX_COST);
  lua_pushstring(L, buf);
  return lua_tostring(L, -1);
}

static int valid_cost(double c)
{
  return c >= SP_GRID_MIN_COST && c <= SP_GRID_MAX_COST; /* false for NaN */
}

/* Argument `arg`: a valid cost, or a default when `optional` and absent. */
static double check_cost(lua_State *L, int arg, int optional, double dflt)
{
  double c = optional ? (double)luaL_optnumber(L, arg, dflt)
                      : (double)luaL_checknumber(L, arg);
  if (!valid_cost(c)) luaL_argerror(L, arg, push_cost_error(L, "", c));
  return c;
}

/* Argument `arg`: a boolean (nil is refused: a missing flag is a bug). */
static int check_flag(lua_State *L, int arg)
{
  luaL_checktype(L, arg, LUA_TBOOLEAN);
  return lua_toboolean(L, arg);
}

typedef struct Rect {
  int x, y, w, h; /* 0-based corner, size */
} Rect;

/* Arguments arg..arg+3: x, y, w, h of a rectangle inside the grid. The
 * corner must be a cell even for an empty rectangle. */
static Rect check_rect(lua_State *L, const LGrid *g, int arg)
{
  Rect r;
  lua_Integer w, h;
  r.x = check_cell(L, arg, "x", g->width);
  r.y = check_cell(L, arg + 1, "y", g->height);
  w = luaL_checkinteger(L, arg + 2);
  h = luaL_checkinteger(L, arg + 3);
  if (w < 0 || w > g->width - r.x)
    luaL_argerror(
        L, arg + 2,
        lua_pushfstring(
            L, "w = %I does not fit: from x = %d the grid has room for 0..%d",
            w, r.x + 1, g->width - r.x));
  if (h < 0 || h > g->height - r.y)
    luaL_argerror(
        L, arg + 3,
        lua_pushfstring(
            L, "h = %I does not fit: from y = %d the grid has room for 0..%d",
            h, r.y + 1, g->height - r.y));
  r.w = (int)w;
  r.h = (int)h;
  return r;
}

/* Pushes the core's error sentence with 1-based cells. */
static const char *push_grid_error(lua_State *L, const SpGridError *err)
{
  char buf[SP_ERROR_MESSAGE_SIZE];
  if (err->code == SP_GRID_E_MEMORY)
    lua_pushliteral(L, "not enough memory");
  else {
    sp_grid_error_format(err, 1, buf, sizeof buf);
    lua_pushstring(L, buf);
  }
  return lua_tostring(L, -1);
}

/* Raises an error the binding's own checks should have caught first (or
 * a memory failure): "saspu.Grid:<fname>: <core sentence>". */
static int grid_error(lua_State *L, const char *fname, const SpGridError *err)
{
  push_grid_error(L, err);
  return luaL_error(L, "%s: %s", fname, lua_tostring(L, -1));
}

/* Creates an empty saspu.Grid on the stack: nothing it could leak yet. */
static LGrid *new_grid_userdata(lua_State *L)
{
  LGrid *g = lua_newuserdatauv(L, sizeof *g, 0);
  memset(g, 0, sizeof *g);
  luaL_setmetatable(L, GRID_MT);
  return g;
}

/* The grid at the top of the stack takes `grid` and reports its memory
 * to the collector (see account_c_memory). */
static void grid_owns(lua_State *L, LGrid *g, SpGrid *grid)
{
  g->grid = grid;
  g->width = sp_grid_width(grid);
  g->height = sp_grid_height(grid);
  account_c_memory(L, &g->held, sp_grid_size_bytes(grid));
}

/* saspu.grid(w, h [, cost]) -> saspu.Grid, every cell open with `cost`
 * (default 1). */
static int l_grid(lua_State *L)
{
  lua_Integer w = luaL_checkinteger(L, 1), h = luaL_checkinteger(L, 2);
  double cost = check_cost(L, 3, 1, 1.0);
  SpGridError err;
  SpGrid *grid = NULL;
  LGrid *g;
  luaL_argcheck(
      L, w >= 1 && w <= SP_GRID_MAX_SIDE, 1,
      lua_pushfstring(L, "w = %I is outside 1..%d", w, SP_GRID_MAX_SIDE));
  luaL_argcheck(
      L, h >= 1 && h <= SP_GRID_MAX_SIDE, 2,
      lua_pushfstring(L, "h = %I is outside 1..%d", h, SP_GRID_MAX_SIDE));
  luaL_argcheck(L, w * h <= SP_GRID_MAX_CELLS, 2,
                lua_pushfstring(L, "a %Ix%I grid has more than %d cells", w, h,
                                SP_GRID_MAX_CELLS));
  lua_settop(L, 3);
  g = new_grid_userdata(L);
  if (sp_grid_new((int)w, (int)h, cost, core_allocator(L), &grid, &err) !=
      SP_OK)
    return grid_error(L, "saspu.grid", &err);
  grid_owns(L, g, grid);
  return 1;
}

/* saspu.grid_from_ascii(text) -> saspu.Grid drawn by the picture. */
static int l_grid_from_ascii(lua_State *L)
{
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  SpGridError err;
  SpGrid *grid = NULL;
  LGrid *g;
  lua_settop(L, 1);
  g = new_grid_userdata(L);
  if (sp_grid_new_ascii(text, len, core_allocator(L), &grid, &err) != SP_OK) {
    if (err.code == SP_GRID_E_MEMORY)
      return grid_error(L, "saspu.grid_from_ascii", &err);
    return luaL_argerror(L, 1, push_grid_error(L, &err));
  }
  grid_owns(L, g, grid);
  return 1;
}

/* __gc and __close: frees the grid, its workspace and its path buffer;
 * safe to call any number of times and on a grid whose creation failed. */
static int l_grid_close(lua_State *L)
{
  LGrid *g = to_grid(L, 1);
  if (g->path) {
    SpAllocator a = core_allocator(L);
    a.fn(a.ud, g->path, g->path_cap * sizeof *g->path, 0);
    g->path = NULL;
    g->path_cap = 0;
  }
  if (g->ws) {
    sp_grid_workspace_free(g->ws);
    g->ws = NULL;
  }
  if (g->grid) {
    sp_grid_free(g->grid);
    g->grid = NULL;
  }
  release_c_memory(L, &g->held);
  return 0;
}

static int l_grid_tostring(lua_State *L)
{
  LGrid *g = to_grid(L, 1);
  if (!g->grid)
    lua_pushliteral(L, "saspu.Grid (closed)");
  else
    lua_pushfstring(L, "saspu.Grid %dx%d", g->width, g->height);
  return 1;
}

static int l_grid_width(lua_State *L)
{
  lua_pushinteger(L, check_grid(L, 1)->width);
  return 1;
}

static int l_grid_height(lua_State *L)
{
  lua_pushinteger(L, check_grid(L, 1)->height);
  return 1;
}

/* g:cost(x, y) -> the cell's cost (kept while it is blocked). */
static int l_grid_cost(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  lua_pushnumber(L, (lua_Number)sp_grid_cost(g->grid, x, y));
  return 1;
}

/* g:is_blocked(x, y) -> boolean */
static int l_grid_is_blocked(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  lua_pushboolean(L, sp_grid_is_blocked(g->grid, x, y));
  return 1;
}

/* g:set_cost(x, y, cost): the cell keeps its blocked flag. */
static int l_grid_set_cost(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  double cost = check_cost(L, 4, 0, 0);
  SpGridError err;
  if (sp_grid_set_cost(g->grid, x, y, cost, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:set_cost", &err);
  return 0;
}

/* g:set_blocked(x, y, blocked): unblocking restores the cell's cost. */
static int l_grid_set_blocked(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  int blocked = check_flag(L, 4);
  SpGridError err;
  if (sp_grid_set_blocked(g->grid, x, y, blocked, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:set_blocked", &err);
  return 0;
}

/* g:fill_cost(x, y, w, h, cost): the cells keep their blocked flags. */
static int l_grid_fill_cost(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  Rect r = check_rect(L, g, 2);
  double cost = check_cost(L, 6, 0, 0);
  SpGridError err;
  if (sp_grid_fill_cost(g->grid, r.x, r.y, r.w, r.h, cost, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:fill_cost", &err);
  return 0;
}

/* g:fill_blocked(x, y, w, h, blocked) */
static int l_grid_fill_blocked(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  Rect r = check_rect(L, g, 2);
  int blocked = check_flag(L, 6);
  SpGridError err;
  if (sp_grid_fill_blocked(g->grid, r.x, r.y, r.w, r.h, blocked, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:fill_blocked", &err);
  return 0;
}

/* g:set_costs(x, y, w, h, values): values is an array of exactly w*h
 * entries, row by row; a cost opens the cell with that cost, 0 or false
 * blocks it. Everything is checked before the grid changes. The numbers
 * are gathered in a Lua-owned buffer, so an error leaks nothing. */
static int l_grid_set_costs(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  Rect r = check_rect(L, g, 2);
  lua_Integer n = (lua_Integer)r.w * r.h, len, i;
  double *vals;
  SpGridError err;
  luaL_checktype(L, 6, LUA_TTABLE);
  lua_settop(L, 6);
  len = (lua_Integer)lua_rawlen(L, 6);
  if (len != n)
    luaL_argerror(
        L, 6,
        lua_pushfstring(L, "values has %I entries, expected w*h = %I", len, n));
  vals = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *vals, 0);
  for (i = 0; i < n; i++) {
    int t = lua_rawgeti(L, 6, i + 1), cx = r.x + (int)(i % r.w) + 1,
        cy = r.y + (int)(i / r.w) + 1;
    if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
      vals[i] = SP_GRID_BLOCKED;
    } else if (t == LUA_TNUMBER) {
      double c = (double)lua_tonumber(L, -1);
      if (c != SP_GRID_BLOCKED && !valid_cost(c)) {
        lua_pushfstring(L, "values[%I] (cell (%d, %d)): ", i + 1, cx, cy);
        luaL_argerror(L, 6, push_cost_error(L, lua_tostring(L, -1), c));
      }
      vals[i] = c;
    } else {
      luaL_argerror(
          L, 6,
          lua_pushfstring(
              L,
              "values[%I] (cell (%d, %d)): expected a cost, or 0 or false "
              "for blocked, got %s",
              i + 1, cx, cy,
              t == LUA_TBOOLEAN ? "true" : luaL_typename(L, -1)));
    }
    lua_pop(L, 1);
  }
  if (sp_grid_set_costs(live_grid(L, g), r.x, r.y, r.w, r.h, vals, &err) !=
      SP_OK)
    return grid_error(L, "saspu.Grid:set_costs", &err);
  return 0;
}

/* g:set_map(x, y, text): paints an ASCII picture (the legend of
 * saspu.grid_from_ascii) with its top-left cell at (x, y). */
static int l_grid_set_map(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  size_t len;
  const char *text = luaL_checklstring(L, 4, &len);
  SpGridError err;
  if (sp_grid_set_ascii(live_grid(L, g), x, y, text, len, &err) != SP_OK) {
    if (err.code == SP_GRID_E_MEMORY)
      return grid_error(L, "saspu.Grid:set_map", &err);
    return luaL_argerror(L, 4, push_grid_error(L, &err));
  }
  return 0;
}

/* Reads the search options at `arg` (nil or a table) into *q. Unknown
 * keys are refused, so a misspelt option does not pass silently. */
static void check_query(lua_State *L, int arg, SpGridQuery *q)
{
  q->algorithm = SP_GRID_ASTAR;
  q->allow_corner_cutting = 0;
  if (lua_isnoneornil(L, arg)) return;
  luaL_checktype(L, arg, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, arg)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (k && strcmp(k, "algorithm") == 0) {
      const char *a =
          lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      if (a && strcmp(a, "astar") == 0)
        q->algorithm = SP_GRID_ASTAR;
      else if (a && strcmp(a, "dijkstra") == 0)
        q->algorithm = SP_GRID_DIJKSTRA;
      else if (a)
        luaL_argerror(
            L, arg,
            lua_pushfstring(L,
                            "algorithm: expected 'astar' or 'dijkstra', got %s",
                            shown_name(L, -1)));
      else
        luaL_argerror(
            L, arg,
            lua_pushfstring(L,
                            "algorithm: expected 'astar' or 'dijkstra', got %s",
                            luaL_typename(L, -1)));
    } else if (k && strcmp(k, "corner_cutting") == 0) {
      if (!lua_isboolean(L, -1))
        luaL_argerror(
            L, arg,
            lua_pushfstring(L, "corner_cutting: expected a boolean, got %s",
                            luaL_typename(L, -1)));
      q->allow_corner_cutting = lua_toboolean(L, -1);
    } else {
      const char *shown = shown_name(L, -2);
      luaL_argerror(
          L, arg,
          lua_pushfstring(
              L, "unknown option %s (expected algorithm, corner_cutting)",
              shown));
    }
    lua_pop(L, 1);
  }
}

/* Grows the path buffer to hold `len` cells (doubling, so a script that
 * searches every frame stops allocating once warmed up). */
static void reserve_path(lua_State *L, LGrid *g, size_t len)
{
  size_t cap = g->path_cap ? g->path_cap : GRID_PATH_MIN;
  if (len <= g->path_cap) return;
  while (cap < len) cap *= 2;
  SpAllocator a = core_allocator(L);
  void *p =
      a.fn(a.ud, g->path, g->path_cap * sizeof *g->path, cap * sizeof *g->path);
  if (!p) /* the old buffer is still ours, and still in g */
    luaL_error(L, "saspu.Grid: not enough memory for a path of %d cells",
               (int)len);
  g->path = p;
  g->path_cap = cap;
}

/* Runs the search of g:path and g:path_into: the cells at arg..arg+3
 * (x0, y0, x1, y1) and the options at arg+4. Returns the path length
 * with the cells in g->path. When the search finds nothing in a way that
 * happens in play (a blocked endpoint, an unreachable target) it pushes
 * nil, the reason and its code ("blocked", "unreachable") and returns 0.
 * Out-of-range cells and bad options raise. */
static size_t grid_search(lua_State *L, LGrid *g, int arg, const char *fname)
{
  SpGridPoint from, to;
  SpGridQuery q;
  SpGridError err;
  SpStatus st;
  from.x = check_cell(L, arg, "x0", g->width);
  from.y = check_cell(L, arg + 1, "y0", g->height);
  to.x = check_cell(L, arg + 2, "x1", g->width);
  to.y = check_cell(L, arg + 3, "y1", g->height);
  check_query(L, arg + 4, &q);
  live_grid(L, g);
  if (!g->ws) {
    if (sp_grid_workspace_new(g->grid, NULL, core_allocator(L), &g->ws, &err) !=
        SP_OK) {
      g->ws = NULL;
      grid_error(L, fname, &err);
    }
    account_c_memory(L, &g->held, sp_grid_workspace_size_bytes(g->ws));
    live_grid(L, g); /* the collector step was a Lua point */
  }
  memset(&g->last, 0, sizeof g->last);
  st = sp_grid_find_path(g->grid, g->ws, from, to, &q, &g->last, &err);
  g->searched = 1;
  g->found = st == SP_OK;
  g->last_algorithm = q.algorithm;
  if (st == SP_OK) {
    reserve_path(L, g, g->last.length);
    sp_grid_workspace_path(g->ws, g->path, g->path_cap);
    return g->last.length;
  }
  if (err.code != SP_GRID_E_UNREACHABLE && err.code != SP_GRID_E_BLOCKED)
    grid_error(L, fname, &err);
  lua_pushnil(L);
  push_grid_error(L, &err);
  lua_pushstring(L, sp_grid_error_name(err.code));
  return 0;
}

/* g:path(x0, y0, x1, y1 [, opts]) -> { {x, y}, ... }, cost
 *                                   | nil, reason, "blocked"|"unreachable" */
static int l_grid_path(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  size_t len, i;
  lua_settop(L, 6);
  len = grid_search(L, g, 2, "saspu.Grid:path");
  if (len == 0) return 3;
  lua_createtable(L, (int)len, 0);
  for (i = 0; i < len; i++) {
    SpGridPoint c;
    live_grid(L, g); /* the tables are Lua points: g->path goes with close */
    c = g->path[i];
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, c.x + 1);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, c.y + 1);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_pushnumber(L, (lua_Number)g->last.cost);
  return 2;
}

/* g:path_into(out, x0, y0, x1, y1 [, opts]) -> count, cost
 *                                            | nil, reason, code
 * The per-frame form: out receives the count cells flat, x1, y1, x2, y2,
 * ..., and entries after 2*count are cleared (all of them on failure).
 * With the same out and opts tables every call, nothing is allocated
 * once out has grown to the longest path. */
static int l_grid_path_into(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  lua_Integer old, i;
  size_t len;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 7);
  old = (lua_Integer)lua_rawlen(L, 2);
  len = grid_search(L, g, 3, "saspu.Grid:path_into");
  if (len == 0) {
    clear_array(L, 2, 1, old);
    return 3;
  }
  for (i = 0; i < (lua_Integer)len; i++) {
    lua_pushinteger(L, g->path[i].x + 1);
    lua_rawseti(L, 2, 2 * i + 1);
    lua_pushinteger(L, g->path[i].y + 1);
    lua_rawseti(L, 2, 2 * i + 2);
  }
  clear_array(L, 2, 2 * (lua_Integer)len + 1, old);
  lua_pushinteger(L, (lua_Integer)len);
  lua_pushnumber(L, (lua_Number)g->last.cost);
  return 2;
}

/* g:last_stats([out]) -> { found, algorithm, expanded, pushed, heap_peak,
 * length, cost } of the last g:path or g:path_into on this grid. Filling
 * the caller's `out` allocates nothing. Before any search: found false,
 * algorithm nil, counts 0. */
static int l_grid_last_stats(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) {
    lua_createtable(L, 0, 7);
    lua_replace(L, 2);
  }
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushboolean(L, g->found);
  lua_setfield(L, 2, "found");
  if (g->searched)
    lua_pushstring(L, sp_grid_algorithm_name(g->last_algorithm));
  else
    lua_pushnil(L);
  lua_setfield(L, 2, "algorithm");
  set_int_field(L, 2, "expanded", g->last.expanded);
  set_int_field(L, 2, "pushed", g->last.pushed);
  set_int_field(L, 2, "heap_peak", g->last.heap_peak);
  set_int_field(L, 2, "length", g->last.length);
  if (g->found)
    lua_pushnumber(L, (lua_Number)g->last.cost);
  else
    lua_pushnil(L);
  lua_setfield(L, 2, "cost");
  return 1;
}

/* g:memory() -> bytes held by the grid and its search workspace. */
static int l_grid_memory(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  size_t bytes = sp_grid_size_bytes(g->grid) + g->path_cap * sizeof *g->path;
  if (g->ws) bytes += sp_grid_workspace_size_bytes(g->ws);
  lua_pushinteger(L, (lua_Integer)bytes);
  return 1;
}

static const luaL_Reg grid_meta[] = {{"__gc", l_grid_close},
                                     {"__close", l_grid_close},
                                     {"__tostring", l_grid_tostring},
                                     {NULL, NULL}};

static const luaL_Reg grid_methods[] = {{"width", l_grid_width},
                                        {"height", l_grid_height},
                                        {"cost", l_grid_cost},
                                        {"is_blocked", l_grid_is_blocked},
                                        {"set_cost", l_grid_set_cost},
                                        {"set_blocked", l_grid_set_blocked},
                                        {"fill_cost", l_grid_fill_cost},
                                        {"fill_blocked", l_grid_fill_blocked},
                                        {"set_costs", l_grid_set_costs},
                                        {"set_map", l_grid_set_map},
                                        {"path", l_grid_path},
                                        {"path_into", l_grid_path_into},
                                        {"last_stats", l_grid_last_stats},
                                        {"memory", l_grid_memory},
                                        {"close", l_grid_close},
                                        {NULL, NULL}};

static const luaL_Reg grid_module_fns[] = {
    {"grid", l_grid}, {"grid_from_ascii", l_grid_from_ascii}, {NULL, NULL}};

/* Registers the saspu.Grid metatable and adds the grid constructors to
 * the module table on top of the stack. */
void open_grid(lua_State *L)
{
  luaL_newmetatable(L, GRID_MT); /* module mt */
  luaL_setfuncs(L, grid_meta, 0);
  luaL_newlib(L, grid_methods); /* module mt methods */
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1); /* module */
  luaL_setfuncs(L, grid_module_fns, 0);
}
