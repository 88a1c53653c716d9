/* lua_oom_host.c: every Lua entry point of tests/lua/oom_ops.lua under an allocator that fails at the Nth allocation, for every N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_host.h"

/* Counts live bytes and allocations; from the fail_at-th call on (only
 * that one unless `sticky`), a request to grow fails. Shrinking never
 * fails, as Lua 5.1 assumes. */
typedef struct Budget {
  size_t live;
  long calls, fail_at;
  int sticky, failed;
} Budget;

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  Budget *b = ud;
  size_t old = ptr == NULL ? 0 : osize;
  if (nsize == 0) {
    free(ptr);
    b->live -= old;
    return NULL;
  }
  if (nsize > old) {
    b->calls++;
    if (b->fail_at > 0 &&
        (b->calls == b->fail_at || (b->sticky && b->calls > b->fail_at))) {
      b->failed = 1;
      return NULL;
    }
  }
  void *p = realloc(ptr, nsize);
  if (p == NULL) return NULL;
  b->live = b->live - old + nsize;
  return p;
}

static int failures;

static void fail(const char *op, long n, int sticky, const char *what) {
  fprintf(stderr, "lua_oom_host: %s, allocation %ld%s: %s\n", op, n,
          sticky ? " and after" : "", what);
  failures++;
}

/* A state with the standard libraries, package.path at the sources and
 * saspu.core preloaded; the ops table on top. NULL when it cannot be set
 * up (never expected: no failure is armed yet). */
static lua_State *open_state(Budget *b) {
  lua_State *L = lua_newstate(budget_alloc, b);
  if (L == NULL) return NULL;
  lua_host_prepare(L);
  if (luaL_dofile(L, SASPU_SOURCE_DIR "/tests/lua/oom_ops.lua") != 0) {
    fprintf(stderr, "lua_oom_host: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return NULL;
  }
  return L;
}

/* Runs op k on fresh objects with the N-th allocation failing, then
 * again without; returns 1 once the op ran without reaching N. */
static int run_once(int k, long n, int sticky, char *name) {
  Budget b = {0, 0, 0, 0, 0};
  lua_State *L = open_state(&b);
  if (L == NULL) {
    fail("setup", n, sticky, "cannot open the state");
    return 1;
  }
  int t = lua_gettop(L);
  lua_getfield(L, t, "ops");
  lua_rawgeti(L, -1, k);
  lua_rawgeti(L, -1, 1);
  snprintf(name, 64, "%s", lua_tostring(L, -1)); /* outlives the state */
  lua_rawgeti(L, -2, 2);                         /* t ops op name fn */
  lua_getfield(L, t, "setup");
  if (lua_pcall(L, 0, 1, 0) != 0) {
    fail(name, n, sticky, lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  int objects = lua_gettop(L), fn = objects - 1;
  b.fail_at = b.calls + n;
  b.sticky = sticky;
  lua_pushvalue(L, fn);
  lua_pushvalue(L, objects);
  int rc = lua_pcall(L, 1, 0, 0);
  int reached = b.failed;
  b.fail_at = 0;
  if (rc != 0) {
    const char *msg = lua_tostring(L, -1);
    if (!reached)
      fail(name, n, sticky, "an error without a failed allocation");
    else if (msg == NULL || (!strstr(msg, "not enough memory") &&
                             !strstr(msg, "out of memory")))
      fail(name, n, sticky, msg ? msg : "(a non-string error)");
    lua_pop(L, 1);
  }
  /* the same objects work once memory is back */
  lua_pushvalue(L, fn);
  lua_pushvalue(L, objects);
  if (lua_pcall(L, 1, 0, 0) != 0) fail(name, n, sticky, lua_tostring(L, -1));
  lua_close(L);
  if (b.live != 0) {
    char what[64];
    snprintf(what, sizeof what, "%zu bytes live after lua_close", b.live);
    fail(name, n, sticky, what);
  }
  return !reached;
}

int main(void) {
  Budget b = {0, 0, 0, 0, 0};
  lua_State *L = open_state(&b);
  if (L == NULL) return 1;
  lua_getfield(L, -1, "ops");
  int ops = (int)lua_rawlen(L, -1);
  lua_close(L);
  long total = 0;
  for (int sticky = 0; sticky < 2; sticky++) {
    for (int k = 1; k <= ops; k++) {
      char name[64] = "?";
      long n = 1;
      while (!run_once(k, n, sticky, name) && n < 100000) n++;
      printf("%-18s %s: %ld allocation points\n", name,
             sticky ? "fails from N on" : "fails at N     ", n - 1);
      total += n;
      if (failures > 20) break;
    }
  }
  printf("%ld runs, %d problems\n", total, failures);
  return failures == 0 ? 0 : 1;
}
