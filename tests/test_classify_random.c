/* test_classify_random.c: cmocka property tests: the class analysis agrees with a reference classifier on random domains, and its cut lists fix every outside one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "sp_builtin.h"
#include "sp_classify.h"
#include "classify_checks.h"
#include "oracle.h"
#include "random_domain.h"

/* ------------------------------------------------------------------ */
/* Property: agrees with a naive classifier on random domains         */
/* ------------------------------------------------------------------ */

static void test_random_domains_match_reference(void **state) {
  (void)state;
  static RandomDomain rd;
  int seen[4] = {0, 0, 0, 0}, multi = 0;
  for (int f = 0; f < RD_FLAVOR_COUNT; f++) {
    for (uint64_t seed = 1; seed <= 600; seed++) {
      random_domain_generate(&rd, seed * 7919u + (uint64_t)f, (RdFlavor)f);
      multi += rd.multi_cycle;
      SpDomain *d = compile_or_fail(&rd.spec, 1);
      SpClass want = reference_class(&rd.spec);
      if (sp_domain_class(d) != want) {
        char *t = explain(d);
        fail_msg("%s: class %s, reference %s\n%s", rd.name,
                 sp_class_name(sp_domain_class(d)), sp_class_name(want), t);
      }
      char *t = explain(d);
      check_paths(d, t);
      free(t);
      seen[want]++;
      sp_domain_free(d);
    }
  }
  print_message("random domains: C0 %d, CS2 %d, C*2 %d, outside %d (%d with a "
                "variable of several cycles)\n",
                seen[0], seen[1], seen[2], seen[3], multi);
  if (multi < 20)
    fail_msg("only %d random domains with several cycles on a variable", multi);
  for (int c = 0; c < 4; c++) {
    if (seen[c] < 50)
      fail_msg("only %d random domains in %s", seen[c],
               sp_class_name((SpClass)c));
  }
}

/* Drops from rd every prevail named in "cut all N paths (drop the prevail
 * 'v' = x of 'a', the prevail ... and the prevail ...)"; 0 when the text
 * has no such fix. */
static int drop_named_cuts(RandomDomain *rd, const SpDomain *d,
                           const char *text) {
  const char *p = strstr(text, "paths (drop the prevail ");
  if (p == NULL) return 0;
  p += strlen("paths (drop the prevail ");
  for (;;) {
    size_t len;
    const char *name = quoted(&p, &len);
    int v = variable_named(d, name, len);
    assert_true(strncmp(p, " = ", 3) == 0);
    int x = (int)strtol(p + 3, (char **)&p, 10);
    assert_true(strncmp(p, " of ", 4) == 0);
    p += 4;
    name = quoted(&p, &len);
    int a = action_named(d, name, len), found = 0;
    SpActionSpec *act = &rd->actions[a];
    for (int i = 0; i < act->prevail_count; i++) {
      if (!found && rd->prevails[a][i].variable == v &&
          rd->prevails[a][i].value == x)
        found = 1;
      else
        rd->prevails[a][i - found] = rd->prevails[a][i];
    }
    assert_true(found);
    act->prevail_count--;
    if (strncmp(p, ", the prevail ", 14) == 0)
      p += 14;
    else if (strncmp(p, " and the prevail ", 17) == 0)
      p += 17;
    else
      break;
  }
  assert_true(*p == ')');
  return 1;
}

/* Every class problem in one round: when the only problem of a random
 * domain is a 2-cycle tied by several paths, dropping every prevail its
 * fix names puts the domain in a class (by the reference definitions). */
static void test_random_cut_lists_are_complete(void **state) {
  (void)state;
  static RandomDomain rd;
  int checked = 0;
  for (int f = 0; f < RD_FLAVOR_COUNT; f++) {
    for (uint64_t seed = 1; seed <= 600; seed++) {
      random_domain_generate(&rd, seed * 7919u + (uint64_t)f, (RdFlavor)f);
      SpDomain *d = compile_or_fail(&rd.spec, 1);
      SpProblem pr[2];
      if (sp_domain_problems(d, pr, 2) == 1 && pr[0].connected) {
        char *t = explain(d);
        if (drop_named_cuts(&rd, d, t)) {
          checked++;
          if (reference_class(&rd.spec) == SP_CLASS_OUTSIDE)
            fail_msg(
                "%s: still outside once the named prevails are dropped:\n%s",
                rd.name, t);
        }
        free(t);
      }
      sp_domain_free(d);
    }
  }
  print_message("random domains fixed by dropping every named prevail: %d\n",
                checked);
  if (checked < 10)
    fail_msg("only %d random domains needed several cuts", checked);
}

/* sp_domain_problems and sp_domain_problem_path agree with the text. */

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_domains_match_reference),
      cmocka_unit_test(test_random_cut_lists_are_complete),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
