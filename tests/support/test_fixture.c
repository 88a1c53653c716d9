/* test_fixture.c: a built-in domain compiled with its workspace, and states for it, for cmocka tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_fixture.h"

void test_fixture_open(TestFixture *f, SpBuiltSpec *b) {
  static const SpAllocator plain = {NULL, NULL};
  assert_non_null(b);
  f->b = b;
  f->d = NULL;
  f->ws = NULL;
  SpCompileOptions opts = {b->needs_allow_outside};
  SpError err;
  if (sp_domain_compile(&b->spec, &opts, plain, &f->d, &err) != SP_OK)
    fail_msg("%s does not compile: %s", b->spec.name, err.message);
  if (sp_workspace_new(f->d, plain, &f->ws, &err) != SP_OK)
    fail_msg("%s: no workspace: %s", b->spec.name, err.message);
  f->m = sp_domain_variable_count(f->d);
  f->a = sp_domain_action_count(f->d);
}

void test_fixture_close(TestFixture *f) {
  sp_workspace_free(f->ws);
  sp_domain_free(f->d);
  sp_builtin_free(f->b);
}

void test_random_state(const SpDomain *d, RdRng *rng, SpValue *s) {
  int m = sp_domain_variable_count(d);
  for (int v = 0; v < m; v++)
    s[v] = (SpValue)(rd_next(rng) % (uint64_t)sp_variable_value_count(d, v));
}

int test_decode_state(const SpDomain *d, long k, SpValue *s) {
  int m = sp_domain_variable_count(d);
  for (int v = 0; v < m; v++) {
    long r = sp_variable_value_count(d, v);
    s[v] = (SpValue)(k % r);
    k /= r;
  }
  return k == 0;
}

size_t test_spawn(const TestFixture *f, SpCrowd *c, const char *start, int x,
                  int y) {
  const SpNamedState *s = sp_builtin_start(f->b, start);
  if (s == NULL) fail_msg("no start state '%s'", start);
  size_t id = 0;
  SpError err;
  if (sp_crowd_spawn(c, s->values, x, y, SP_NO_PLACE, &id, &err) != SP_OK)
    fail_msg("spawn '%s' at (%d, %d): %s", start, x, y, err.message);
  return id;
}

int test_var(const TestFixture *f, const char *name) {
  for (int v = 0; v < f->m; v++)
    if (strcmp(sp_variable_name(f->d, v), name) == 0) return v;
  fail_msg("%s has no variable %s", sp_domain_name(f->d), name);
  return -1;
}
