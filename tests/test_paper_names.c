/* test_paper_names.c: the built-in Horse Breeder tables carry exactly the names of tests/support/paper_names.h, which spec/paper_names_spec.lua checks against the domain files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "paper_names.h"
#include "saspu.h"
#include "sp_builtin.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

/* Appends to a fixed buffer; the test fails rather than truncating. */
typedef struct Text {
  char buf[4096];
  size_t len;
} Text;

static void put(Text *t, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
  va_end(ap);
  assert_true(n >= 0 && (size_t)n < sizeof t->buf - t->len);
  t->len += (size_t)n;
}

/* " var=value" for each variable the state sets (keep[v] == 0), in variable order. */
static void put_state(Text *t, const SpDomain *d, const SpValue *values,
                      const uint8_t *keep) {
  for (int v = 0; v < sp_domain_variable_count(d); v++)
    if (keep == NULL || !keep[v])
      put(t, " %s=%s", sp_variable_name(d, v), sp_value_name(d, v, values[v]));
}

/* The named states of `list` sorted by name (insertion sort: a handful). */
static void put_named(Text *t, const SpDomain *d, const char *kind,
                      const SpNamedState *list, int n) {
  const SpNamedState *order[16];
  assert_true(n <= 16);
  for (int i = 0; i < n; i++) {
    int j = i;
    while (j > 0 && strcmp(order[j - 1]->name, list[i].name) > 0) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = &list[i];
  }
  for (int i = 0; i < n; i++) {
    put(t, "%s %s", kind, order[i]->name);
    put_state(t, d, order[i]->values, order[i]->keep);
    put(t, "\n");
  }
}

/* The canonical text of a built-in domain, in the format of paper_names.h. */
static void dump(Text *t, const SpBuiltSpec *b, const SpDomain *d) {
  t->len = 0;
  t->buf[0] = '\0';
  put(t, "domain %s\n", sp_domain_name(d));
  for (int v = 0; v < sp_domain_variable_count(d); v++) {
    put(t, "var %s", sp_variable_name(d, v));
    for (int k = 0; k < sp_variable_value_count(d, v); k++)
      put(t, " %s", sp_value_name(d, v, k));
    put(t, "\n");
  }
  for (int a = 0; a < sp_domain_action_count(d); a++) {
    int v = sp_action_variable(d, a);
    put(t, "act %s %s %s %s", sp_action_name(d, a), sp_variable_name(d, v),
        sp_value_name(d, v, sp_action_pre(d, a)),
        sp_value_name(d, v, sp_action_post(d, a)));
    for (int w = 0; w < sp_domain_variable_count(d); w++)
      for (int i = 0; i < sp_action_prevail_count(d, a); i++) {
        SpCondition c = sp_action_prevail(d, a, i);
        if (c.variable == w)
          put(t, " %s=%s", sp_variable_name(d, w),
              sp_value_name(d, w, c.value));
      }
    put(t, "\n");
  }
  put_named(t, d, "start", b->starts, b->start_count);
  put_named(t, d, "goal", b->goals, b->goal_count);
}

static void expect_names(int variant, const char *expected) {
  TestFixture f;
  Text t;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, variant));
  dump(&t, f.b, f.d);
  assert_string_equal(t.buf, expected);
  test_fixture_close(&f);
}

static void test_horse_breeder_ssci_names(void **state) {
  (void)state;
  expect_names(SP_HORSE_SSCI, PAPER_NAMES_HORSE_BREEDER);
}

static void test_horse_breeder_ijcai_names(void **state) {
  (void)state;
  expect_names(SP_HORSE_IJCAI, PAPER_NAMES_HORSE_BREEDER_IJCAI);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_horse_breeder_ssci_names),
      cmocka_unit_test(test_horse_breeder_ijcai_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
