/* test_validate.c: every validation error of sp_domain_compile, with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "test_alloc.h"

static const SpAllocator plain = {NULL, NULL};

static const char *haystack_values[] = {"stored", "in_hands", "in_feeder"};
static const char *bucket_values[] = {"on_floor", "in_hands"};

/* A small valid domain that each test breaks in one place. */
typedef struct Fixture {
  SpVariableSpec vars[2];
  SpCondition prevails[2];
  SpActionSpec actions[3];
  SpDomainSpec spec;
} Fixture;

static void fixture_init(Fixture *f) {
  f->vars[0] = (SpVariableSpec){"haystack", 3, haystack_values};
  f->vars[1] = (SpVariableSpec){"bucket", 2, bucket_values};
  f->prevails[0] = (SpCondition){1, 0};
  f->prevails[1] = (SpCondition){0, 0};
  f->actions[0] = (SpActionSpec){"take_haystack", 0, 0, 1, 1, &f->prevails[0]};
  f->actions[1] = (SpActionSpec){"fill_feeder", 0, 1, 2, 0, NULL};
  f->actions[2] = (SpActionSpec){"pick_up_bucket", 1, 0, 1, 1, &f->prevails[1]};
  f->spec = (SpDomainSpec){"horse", 2, f->vars, 3, f->actions};
}

/* Compiles, expects `status`/`code`, the message to contain `text`, and
 * the action index (or -1) the record names. */
static SpError expect_error(const Fixture *f, SpStatus status, SpErrorCode code,
                            const char *text, int action) {
  SpDomain *d = (SpDomain *)1;
  SpError err;
  assert_int_equal(sp_domain_compile(&f->spec, NULL, plain, &d, &err), status);
  assert_null(d);
  assert_int_equal(err.status, status);
  assert_int_equal(err.code, code);
  if (strstr(err.message, text) == NULL)
    fail_msg("message '%s' lacks '%s'", err.message, text);
  assert_int_equal(err.action, action);
  return err;
}

static void test_valid_fixture_compiles(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  SpDomain *d;
  SpError err;
  assert_int_equal(sp_domain_compile(&f.spec, NULL, plain, &d, &err), SP_OK);
  assert_string_equal(sp_domain_name(d), "horse");
  assert_int_equal(sp_domain_action_count(d), 3);
  assert_int_equal(sp_domain_setter(d, 0, 0), -1); /* stored: a ghost */
  assert_int_equal(sp_domain_setter(d, 0, 2), 1);
  assert_true(sp_action_is_requestable(d, 2) == 0);
  sp_domain_free(d);
}

static void test_unknown_variable(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.actions[1].variable = 7;
  SpError e =
      expect_error(&f, SP_ERR_INVALID, SP_E_UNKNOWN_VARIABLE,
                   "actions[2] 'fill_feeder': variable 7 does not exist", 1);
  assert_int_equal(e.field, SP_FIELD_VAR);
}

static void test_prevail_unknown_variable(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.prevails[0].variable = -1;
  SpError e = expect_error(
      &f, SP_ERR_INVALID, SP_E_UNKNOWN_VARIABLE,
      "actions[1] 'take_haystack': prevail 1 names variable -1", 0);
  assert_int_equal(e.field, SP_FIELD_PREVAIL);
  assert_int_equal(e.index, 0);
}

static void test_value_out_of_range(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.actions[1].post = 3;
  SpError e =
      expect_error(&f, SP_ERR_INVALID, SP_E_VALUE_RANGE,
                   "actions[2] 'fill_feeder': post 3 is out of range for "
                   "'haystack' (3 values)",
                   1);
  assert_int_equal(e.field, SP_FIELD_POST);
  assert_int_equal(e.value, 3);
  fixture_init(&f);
  f.actions[0].pre = -2;
  e = expect_error(&f, SP_ERR_INVALID, SP_E_VALUE_RANGE, "pre -2", 0);
  assert_int_equal(e.field, SP_FIELD_PRE);
  fixture_init(&f);
  f.prevails[1].value = 9;
  e = expect_error(
      &f, SP_ERR_INVALID, SP_E_VALUE_RANGE,
      "'pick_up_bucket': prevail value 9 is out of range for 'haystack'", 2);
  assert_int_equal(e.field, SP_FIELD_PREVAIL);
  assert_int_equal(e.variable, 0);
}

static void test_pre_equals_post(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.actions[1].pre = 2;
  SpError e =
      expect_error(&f, SP_ERR_INVALID, SP_E_PRE_EQUALS_POST,
                   "'fill_feeder': pre and post are both 'in_feeder'", 1);
  assert_int_equal(e.value, 2);
}

static void test_prevail_on_own_variable(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.prevails[0] = (SpCondition){0, 2};
  SpError e = expect_error(
      &f, SP_ERR_INVALID, SP_E_PREVAIL_OWN_VAR,
      "'take_haystack': prevail on its own variable 'haystack'", 0);
  assert_int_equal(e.field, SP_FIELD_PREVAIL);
}

static void test_two_prevails_on_one_variable(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  SpCondition twice[2] = {{1, 0}, {1, 1}};
  f.actions[0].prevail_count = 2;
  f.actions[0].prevails = twice;
  expect_error(&f, SP_ERR_INVALID, SP_E_PREVAIL_TWICE,
               "'take_haystack': two prevails on variable 'bucket'", 0);
}

static void test_post_uniqueness_names_both(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.actions[1].pre = 2;  /* fill_feeder now in_feeder -> in_hands: */
  f.actions[1].post = 1; /* in_hands is take_haystack's post already */
  SpError e =
      expect_error(&f, SP_ERR_INVALID, SP_E_POST_NOT_UNIQUE,
                   "actions[2] 'fill_feeder': post 'in_hands' of 'haystack' is "
                   "already set by actions[1] 'take_haystack'",
                   1);
  assert_int_equal(e.other_action, 0);
}

static void test_duplicate_names(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.actions[2].name = "take_haystack";
  SpError e = expect_error(
      &f, SP_ERR_INVALID, SP_E_DUPLICATE_ACTION,
      "actions[3]: name 'take_haystack' is already used by actions[1]", 2);
  assert_int_equal(e.other_action, 0);
  fixture_init(&f);
  f.vars[1].name = "haystack";
  e = expect_error(
      &f, SP_ERR_INVALID, SP_E_DUPLICATE_VARIABLE,
      "variables[2]: name 'haystack' is already used by variables[1]", -1);
  assert_int_equal(e.variable, 1);
  fixture_init(&f);
  static const char *twice[] = {"on_floor", "on_floor"};
  f.vars[1].value_names = twice;
  expect_error(&f, SP_ERR_INVALID, SP_E_DUPLICATE_VALUE,
               "variables[2] 'bucket': value 'on_floor' is listed twice", -1);
}

static void test_empty_names_and_values(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.actions[1].name = "";
  expect_error(&f, SP_ERR_INVALID, SP_E_EMPTY_NAME,
               "actions[2]: missing or empty name", 1);
  fixture_init(&f);
  f.vars[0].name = NULL;
  expect_error(&f, SP_ERR_INVALID, SP_E_EMPTY_NAME,
               "variables[1]: missing or empty name", -1);
  fixture_init(&f);
  f.vars[1].value_count = 0;
  expect_error(&f, SP_ERR_INVALID, SP_E_NO_VALUES,
               "variables[2] 'bucket': 0 values, expected at least 2", -1);
  fixture_init(&f);
  f.vars[1].value_count =
      1; /* as the header and the Lua binding say: never a variable */
  expect_error(&f, SP_ERR_INVALID, SP_E_NO_VALUES,
               "variables[2] 'bucket': 1 value, expected at least 2", -1);
  fixture_init(&f);
  static const char *unnamed[] = {"on_floor", ""};
  f.vars[1].value_names = unnamed;
  expect_error(&f, SP_ERR_INVALID, SP_E_EMPTY_NAME,
               "'bucket': value 2 has no name", -1);
  fixture_init(&f);
  f.spec.variable_count = 0;
  expect_error(&f, SP_ERR_INVALID, SP_E_NO_VALUES,
               "the domain has no variables", -1);
}

static void test_limits(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  f.vars[0].value_count = SP_MAX_VALUES + 1;
  expect_error(
      &f, SP_ERR_INVALID, SP_E_LIMIT,
      "256 values, the limit is 255 (the byte 255 is kept for SP_ANY in goals)",
      -1);
  fixture_init(&f);
  f.spec.variable_count = SP_MAX_VARIABLES + 1;
  expect_error(&f, SP_ERR_INVALID, SP_E_LIMIT, "the limit is 4096", -1);
  fixture_init(&f);
  f.spec.action_count = SP_MAX_ACTIONS + 1;
  expect_error(&f, SP_ERR_INVALID, SP_E_LIMIT, "the limit is 65535", -1);
  fixture_init(&f);
  char long_name[SP_MAX_NAME + 2];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  f.actions[0].name = long_name;
  expect_error(&f, SP_ERR_INVALID, SP_E_LIMIT,
               "name longer than 255 characters", 0);
}

/* ---- allocation failures ----------------------------------------------- */

/* Failing each allocation of a compile in turn leaks nothing and reports
 * out of memory; the last run succeeds. */
static void test_compile_survives_every_allocation_failure(void **state) {
  (void)state;
  Fixture f;
  fixture_init(&f);
  for (long k = 1;; k++) {
    TestAlloc c;
    test_alloc_init(&c, k);
    SpAllocator a = test_alloc_hook(&c);
    SpDomain *d;
    SpError err;
    SpStatus st = sp_domain_compile(&f.spec, NULL, a, &d, &err);
    if (st == SP_OK) {
      sp_domain_free(d);
      assert_int_equal(c.bytes, 0);
      assert_true(k > 1);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_int_equal(err.code, SP_E_MEMORY);
    assert_null(d);
    assert_int_equal(c.bytes, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_fixture_compiles),
      cmocka_unit_test(test_unknown_variable),
      cmocka_unit_test(test_prevail_unknown_variable),
      cmocka_unit_test(test_value_out_of_range),
      cmocka_unit_test(test_pre_equals_post),
      cmocka_unit_test(test_prevail_on_own_variable),
      cmocka_unit_test(test_two_prevails_on_one_variable),
      cmocka_unit_test(test_post_uniqueness_names_both),
      cmocka_unit_test(test_duplicate_names),
      cmocka_unit_test(test_empty_names_and_values),
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_compile_survives_every_allocation_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
