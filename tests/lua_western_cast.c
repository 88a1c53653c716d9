/* lua_western_cast.c: each generated Western builtin (csrc/builtin/western_cast.c) compiles into the domain its file domains/<class>.lua gives in the Lua module: names, class, starts, goals and the plan of every state to every goal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lua_host.h"
#include "saspu.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

/* A growing text, the C side of the comparison. */
typedef struct Text {
  char *buf;
  size_t len, cap;
} Text;

static void put(Text *t, const char *fmt, ...) {
  va_list ap;
  int n;
  for (;;) {
    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    if ((size_t)n < t->cap - t->len) break;
    t->cap = 2 * t->cap + (size_t)n + 1;
    t->buf = realloc(t->buf, t->cap);
    assert_non_null(t->buf);
  }
  t->len += (size_t)n;
}

static const char *code_name(SpFailureCode c) {
  switch (c) {
  case SP_FAIL_NO_SETTER: return "no_setter";
  case SP_FAIL_UNREACHABLE: return "unreachable";
  case SP_FAIL_REPEAT: return "repeat";
  case SP_FAIL_ORDER: return "order";
  case SP_FAIL_NONE: break;
  }
  return "none";
}

/* A state or named goal as value names, "*" free, "KEEP" kept. */
static void put_state(Text *t, const SpVariableSpec *vars, int m,
                      const SpValue *v, const uint8_t *keep) {
  int i;
  for (i = 0; i < m; i++) {
    const char *w = keep != NULL && keep[i] ? "KEEP"
                    : v[i] == SP_ANY        ? "*"
                                            : vars[i].value_names[v[i]];
    put(t, i == 0 ? "%s" : " %s", w);
  }
}

/* The text tests/lua/western_plans.lua writes, from the C builtin. */
static void describe_builtin(SpBuiltSpec *b, Text *t) {
  const SpVariableSpec *vars = b->spec.variables;
  int m = b->spec.variable_count, i, k, g;
  SpDomain *d = NULL;
  SpWorkspace *ws = NULL;
  SpError err;
  SpValue s[SP_MAX_VARIABLES], goal[SP_MAX_VARIABLES];
  uint16_t *plan;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, &err), SP_OK);
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  plan = malloc((size_t)sp_domain_action_count(d) * sizeof *plan + 1);
  assert_non_null(plan);
  put(t, "domain %s %s\n", sp_domain_name(d),
      sp_class_name(sp_domain_class(d)));
  for (i = 0; i < m; i++) {
    put(t, "variable %s", vars[i].name);
    for (k = 0; k < vars[i].value_count; k++)
      put(t, " %s", vars[i].value_names[k]);
    put(t, "\n");
  }
  for (i = 0; i < sp_domain_action_count(d); i++) {
    int v = sp_action_variable(d, i);
    put(t, "action %s %s %s->%s ", sp_action_name(d, i), vars[v].name,
        vars[v].value_names[sp_action_pre(d, i)],
        vars[v].value_names[sp_action_post(d, i)]);
    for (k = 0; k < sp_action_prevail_count(d, i); k++) {
      SpCondition c = sp_action_prevail(d, i, k);
      put(t, "%s=%s ", vars[c.variable].name,
          vars[c.variable].value_names[c.value]);
    }
    put(t, "%s\n", sp_action_is_requestable(d, i) ? "requestable" : "-");
  }
  for (i = 0; i < b->start_count; i++) {
    put(t, "start %s = ", b->starts[i].name);
    put_state(t, vars, m, b->starts[i].values, NULL);
    put(t, "\n");
  }
  for (i = 0; i < b->goal_count; i++) {
    put(t, "goal %s = ", b->goals[i].name);
    put_state(t, vars, m, b->goals[i].values, b->goals[i].keep);
    put(t, "\n");
  }
  memset(s, 0, sizeof s);
  for (;;) {
    for (g = 0; g < b->goal_count; g++) {
      SpFailure why;
      int len = -1;
      SpStatus st;
      sp_builtin_resolve_goal(b, &b->goals[g], s, goal);
      st = sp_plan(d, ws, s, goal, plan, &len, &why);
      put(t, "plan ");
      put_state(t, vars, m, s, NULL);
      put(t, " -> %s:", b->goals[g].name);
      if (st == SP_OK) {
        for (k = 0; k < len; k++) put(t, " %s", sp_action_name(d, plan[k]));
      } else {
        assert_int_equal(st, SP_NO_PLAN);
        put(t, " none (%s)", code_name(why.code));
      }
      put(t, "\n");
    }
    for (i = 0; i < m && s[i] == vars[i].value_count - 1; i++) s[i] = 0;
    if (i == m) break;
    s[i]++;
  }
  free(plan);
  sp_workspace_free(ws);
  sp_domain_free(d);
}

/* The Lua module's text for domains/<class>.lua, in a fresh state whose
 * package.path points at the sources and that preloads saspu.core. */
static char *describe_lua(const char *class) {
  lua_State *L = luaL_newstate();
  char *copy;
  assert_non_null(L);
  lua_host_prepare(L);
  if (luaL_dofile(L, SASPU_SOURCE_DIR "/tests/lua/western_plans.lua") != 0 ||
      (lua_pushstring(L, class), lua_pushstring(L, SASPU_SOURCE_DIR),
       lua_pcall(L, 2, 1, 0)) != 0) {
    fprintf(stderr, "lua_western_cast: %s\n", lua_tostring(L, -1));
    fail();
  }
  copy = malloc(lua_rawlen(L, -1) + 1);
  assert_non_null(copy);
  memcpy(copy, lua_tostring(L, -1), lua_rawlen(L, -1) + 1);
  lua_close(L);
  return copy;
}

/* Fails on the first line where the two texts differ, printing both. */
static void assert_same_text(const char *c, const char *lua) {
  long line = 1;
  while (*c != '\0' && *c == *lua) {
    if (*c == '\n') line++;
    c++;
    lua++;
  }
  if (*c == '\0' && *lua == '\0') return;
  while (line > 1 && c[-1] != '\n') c--, lua--;
  print_error("line %ld differs:\n  C builtin: %.*s\n  Lua file:  %.*s\n", line,
              (int)strcspn(c, "\n"), c, (int)strcspn(lua, "\n"), lua);
  fail();
}

static void same_as_lua(void **state) {
  int which = (int)(intptr_t)*state;
  const char *class = sp_builtin_western_name(which);
  SpBuiltSpec *b = sp_builtin_western(plain, which);
  Text t = {NULL, 0, 0};
  char *lua;
  long plans = 0;
  const char *p;
  assert_non_null(class);
  assert_non_null(b);
  describe_builtin(b, &t);
  lua = describe_lua(class);
  assert_same_text(t.buf, lua);
  for (p = strstr(t.buf, "\nplan "); p != NULL; p = strstr(p + 1, "\nplan "))
    plans++;
  /* every state to every goal, at least the domain's own pairs */
  assert_true(plans >= (long)b->start_count * b->goal_count);
  print_message("%s: %ld plans agree\n", class, plans);
  free(lua);
  free(t.buf);
  sp_builtin_free(b);
}

/* Out of range: no spec, no name. */
static void out_of_range(void **state) {
  (void)state;
  assert_null(sp_builtin_western(plain, -1));
  assert_null(sp_builtin_western(plain, SP_WESTERN_COUNT));
  assert_null(sp_builtin_western_name(SP_WESTERN_COUNT));
  assert_string_equal(sp_builtin_western_name(SP_WESTERN_HORSE_BREEDER),
                      "horse_breeder");
}

/* One test per class, named after it. */
#define CAST_TEST(which, name)                                                 \
  { "same_as_lua_" name, same_as_lua, NULL, NULL, (void *)(intptr_t)(which) }

int main(void) {
  const struct CMUnitTest tests[] = {
      CAST_TEST(SP_WESTERN_HORSE_BREEDER, "horse_breeder"),
      CAST_TEST(SP_WESTERN_FARRIER, "farrier"),
      CAST_TEST(SP_WESTERN_NATIVE_HUNTER, "native_hunter"),
      CAST_TEST(SP_WESTERN_BANDIT, "bandit"),
      CAST_TEST(SP_WESTERN_INNKEEPER, "innkeeper"),
      CAST_TEST(SP_WESTERN_DANCER, "dancer"),
      CAST_TEST(SP_WESTERN_DRUNK_CITIZEN, "drunk_citizen"),
      cmocka_unit_test(out_of_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
