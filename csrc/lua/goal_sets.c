/* goal_sets.c: goals of dom:plan whose variables take sets of values ({ "lame", "unshod" }: any of) or saspu.NOT(...) (any but), read into one goal per combination for sp_plan_any. */
#include <string.h>

#include "binding.h"

#define WHERE "saspu.Domain:plan: goal"

/* 1 when the value at idx is a saspu.NOT marker (its metatable's
 * __name, set by lua/saspu/names.lua). */
static int is_not_marker(lua_State *L, int idx)
{
  int is = 0;
  if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
    is = lua_type(L, -1) == LUA_TSTRING &&
         strcmp(lua_tostring(L, -1), "saspu.NOT") == 0;
    lua_pop(L, 1);
  }
  return is;
}

int goal_has_sets(lua_State *L, int arg)
{
  int found = 0;
  lua_pushnil(L);
  while (!found && lua_next(L, arg)) {
    found = lua_type(L, -1) == LUA_TTABLE;
    lua_pop(L, 1);
  }
  if (found) lua_pop(L, 1); /* the key lua_next left */
  return found;
}

/* The members of variable v given by the table at idx (a set, or NOT's
 * complement) into in[0..values), 1 for a member; returns how many. */
static int read_members(lua_State *L, const Names *n, int v, int idx,
                        int values, uint8_t *in)
{
  int len = (int)lua_rawlen(L, idx), negate = is_not_marker(L, idx), count = 0;
  if (len == 0)
    return raise_error(L, WHERE, "'%s': an empty set of values",
                       var_name(L, n, v));
  memset(in, 0, (size_t)values);
  for (int k = 1; k <= len; k++) {
    lua_rawgeti(L, idx, k);
    in[read_value(L, n, v, lua_gettop(L), WHERE, "")] = 1;
    lua_pop(L, 1);
  }
  for (int x = 0; x < values; x++) {
    if (negate) in[x] = !in[x];
    count += in[x];
  }
  if (count == 0)
    return raise_error(L, WHERE, "'%s': saspu.NOT leaves no value",
                       var_name(L, n, v));
  return count;
}

int read_goal_choices(lua_State *L, LDomain *d, const Names *n, int arg,
                      int keep)
{
  int nv = d->nvars, count = 1;
  const SpDomain *dom = live_domain(L, d);
  /* per variable: 256 member flags, then the member count (0: free) */
  uint8_t *in = lua_newuserdatauv(L, (size_t)nv * 256u, 0);
  int *members = lua_newuserdatauv(L, (size_t)nv * sizeof(int), 0);
  int scratch = lua_gettop(L) - 1;
  memset(members, 0, (size_t)nv * sizeof(int));
  for (int v = 0; v < nv && keep; v++) { /* left out: the start value */
    memset(in + (size_t)v * 256u, 0, 256u);
    in[(size_t)v * 256u + d->s0[v]] = 1;
    members[v] = 1;
  }
  lua_pushnil(L);
  while (lua_next(L, arg)) {
    int key = lua_gettop(L) - 1;
    int v = read_var(L, n, key, WHERE, "");
    int values = sp_variable_value_count(dom, v);
    uint8_t *row = in + (size_t)v * 256u;
    if (is_keep_marker(L, key + 1)) {
      memset(row, 0, 256u);
      row[d->s0[v]] = 1;
      members[v] = 1;
    } else if (lua_type(L, key + 1) == LUA_TTABLE) {
      members[v] = read_members(L, n, v, key + 1, values, row);
    } else {
      memset(row, 0, 256u);
      row[read_value(L, n, v, key + 1, WHERE, "")] = 1;
      members[v] = 1;
    }
    lua_pop(L, 1);
  }
  /* declaration order: the same combinations on every run */
  for (int v = 0; v < nv; v++) {
    if (members[v] == 0) continue;
    count *= members[v];
    if (count > SP_GOAL_CHOICES_MAX)
      return raise_error(L, WHERE,
                         "'%s': the sets make more than %d "
                         "combinations",
                         var_name(L, n, v), SP_GOAL_CHOICES_MAX);
  }
  SpValue *goals = lua_newuserdatauv(L, (size_t)count * (size_t)nv, 0);
  for (int c = 0; c < count; c++) {
    int rest = c;
    SpValue *g = goals + (size_t)c * (size_t)nv;
    for (int v = nv - 1; v >= 0; v--) {
      const uint8_t *row = in + (size_t)v * 256u;
      if (members[v] == 0) {
        g[v] = SP_ANY;
        continue;
      }
      int pick = rest % members[v], x = 0;
      rest /= members[v];
      for (;; x++)
        if (row[x] && pick-- == 0) break;
      g[v] = (SpValue)x;
    }
  }
  lua_replace(L, scratch); /* the goals stay, the scratch goes */
  lua_pop(L, 1);
  return count;
}
