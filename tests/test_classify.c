/* test_classify.c: cmocka tests of the class analysis and its explanations. */
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
#include "oracle.h"
#include "random_domain.h"
#include "test_alloc.h"

static const SpAllocator plain = {NULL, NULL};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

static SpDomain *compile_or_fail(const SpDomainSpec *spec, int allow_outside) {
  SpCompileOptions opts = {allow_outside};
  SpDomain *d = NULL;
  SpError err;
  SpStatus st = sp_domain_compile(spec, &opts, plain, &d, &err);
  if (st != SP_OK) print_error("compile: %s\n", err.message);
  assert_int_equal(st, SP_OK);
  assert_non_null(d);
  return d;
}

static SpDomain *compile_builtin(SpBuiltSpec *b) {
  assert_non_null(b);
  SpDomain *d = compile_or_fail(&b->spec, 0);
  sp_builtin_free(b);
  return d;
}

/* The explanation, in a heap buffer the caller frees. */
static char *explain(const SpDomain *d) {
  size_t n = sp_domain_explain(d, NULL, 0);
  char *buf = malloc(n + 1);
  assert_non_null(buf);
  assert_int_equal(sp_domain_explain(d, buf, n + 1), n);
  assert_int_equal(strlen(buf), n);
  return buf;
}

/* A compiled domain and its explanation, for the tests that read both. */
typedef struct Explained {
  SpDomain *d;
  char *text;
} Explained;

/* Takes d, asserts its class is `want` and reads its explanation. */
static Explained explained(SpDomain *d, SpClass want) {
  Explained e;
  e.d = d;
  assert_int_equal(sp_domain_class(d), want);
  e.text = explain(d);
  return e;
}

static void explained_free(Explained *e) {
  free(e->text);
  sp_domain_free(e->d);
}

/* Compiles spec without allow_outside, expecting the class error and no
 * domain; returns the record, whose message the caller reads. */
static SpError refused(const SpDomainSpec *spec) {
  SpDomain *d = NULL;
  SpError err;
  assert_int_equal(sp_domain_compile(spec, NULL, plain, &d, &err), SP_ERR_CLASS);
  assert_null(d);
  assert_int_equal(err.code, SP_E_OUTSIDE_CLASS);
  return err;
}

static void expect_text(const char *text, const char *part) {
  if (strstr(text, part) == NULL)
    fail_msg("missing \"%s\" in:\n%s", part, text);
}

static void expect_no_text(const char *text, const char *part) {
  if (strstr(text, part) != NULL)
    fail_msg("unexpected \"%s\" in:\n%s", part, text);
}

/* `part` occurs and starts within the first `limit` characters. */
static void expect_text_before(const char *text, const char *part, size_t limit) {
  const char *at = strstr(text, part);
  if (at == NULL) fail_msg("missing \"%s\" in:\n%s", part, text);
  if ((size_t)(at - text) + strlen(part) > limit)
    fail_msg("\"%s\" ends after %zu characters in:\n%s", part, limit, text);
}

/* Checks the "path:" lines of an outside explanation (defined below). */
static void check_paths(const SpDomain *d, const char *text);
/* The class straight from the definitions (defined below). */
static SpClass reference_class(const SpDomainSpec *s);

static const char *const bool_names[] = {"false", "true"};
static const char *const bit_names[] = {"0", "1"};

/* ------------------------------------------------------------------ */
/* The paper domains                                                  */
/* ------------------------------------------------------------------ */

static void check_horse(int variant) {
  Explained e =
      explained(compile_builtin(sp_builtin_horse_breeder(plain, variant)), SP_CLASS_CSTAR2);
  expect_text(e.text, "is SAS-PUC*2: every cycle with a requestable action has 2 actions");
  expect_text(e.text, "(so not SAS-PUCS2)");
  expect_text(e.text, "'bucket': the requesters of 'drop_bucket' ('take_haystack'");
  expect_text(e.text, "and of 'pick_up_bucket' ('fill_bucket', 'fill_trough') lie in "
                      "separate parts of G minus G('bucket')");
  expect_text(e.text, "Guarantee: every solvable instance has a minimal plan in which "
                      "no action occurs twice");
  expect_text(e.text, "cycles (2):\n"
                      "  'haystack': 'drop_haystack' -> 'take_haystack' -> 'drop_haystack'; "
                      "requestable: 'drop_haystack'\n"
                      "  'bucket': 'drop_bucket' -> 'pick_up_bucket' -> 'drop_bucket'; "
                      "requestable: 'drop_bucket', 'pick_up_bucket'\n");
  expect_text(e.text, "requestable actions (3):\n"
                      "  'drop_haystack' ('haystack' = stored) requested by 'pick_up_bucket'\n");
  expect_text(e.text, "  'pick_up_bucket' ('bucket' = in_hands) requested by "
                      "'fill_bucket', 'fill_trough'\n");
  if (variant == SP_HORSE_SSCI)
    expect_text(e.text, "'drop_bucket' ('bucket' = on_floor) requested by "
                        "'take_haystack', 'fill_feeder'\n");
  else
    expect_text(e.text, "'drop_bucket' ('bucket' = on_floor) requested by 'take_haystack'\n");
  expect_no_text(e.text, "outside");
  explained_free(&e);
}

static void test_horse_breeder_ssci_is_cstar2(void **state) {
  (void)state;
  check_horse(SP_HORSE_SSCI);
}

static void test_horse_breeder_ijcai_is_cstar2(void **state) {
  (void)state;
  check_horse(SP_HORSE_IJCAI);
}

static void test_citizen_is_cs2(void **state) {
  (void)state;
  Explained e = explained(compile_builtin(sp_builtin_citizen(plain)), SP_CLASS_CS2);
  expect_text(e.text, "is SAS-PUCS2: every cycle with a requestable action has 2 actions "
                      "and only one of them is requestable (not SAS-PUC0: 'take' on the "
                      "cycle of 'has_item'");
  expect_text(e.text, "'end_work' on the cycle of 'working' are requested)");
  expect_text(e.text, "Guarantee: every solvable instance");
  expect_text(e.text, "cycles (4):\n");
  expect_text(e.text, "  'working': 'end_work' -> 'work' -> 'end_work'; requestable: 'end_work'\n");
  expect_text(e.text, "requestable actions (6):\n");
  expect_text(e.text, "  'stop_wandering' ('wandering' = false) requested by 'store', "
                      "'take', 'rest', 'work'\n");
  explained_free(&e);
}

static void test_acquisition_machine_is_c0(void **state) {
  (void)state;
  Explained e = explained(compile_builtin(sp_builtin_acquisition_machine(plain)), SP_CLASS_C0);
  expect_text(e.text, "'acquisition_machine' is SAS-PUC0: the domain has no cycle");
  expect_text(e.text, "Guarantee: every solvable instance");
  expect_text(e.text, "cycles: none.\n");
  expect_text(e.text, "requestable actions (5):\n");
  expect_text(e.text, "  'attack' ('threatened' = false) requested by 'scan_ore_deposit', "
                      "'share_ore_pos', 'harvest_ore', 'refine_ore', 'store_refined_ore', "
                      "'rest', 'repair', 'scan_disturbance'\n");
  explained_free(&e);
}

/* ------------------------------------------------------------------ */
/* Small inline domains                                               */
/* ------------------------------------------------------------------ */

/* A chain a -> b on one variable and nothing else: no cycle. */
static void test_no_cycle_is_c0(void **state) {
  (void)state;
  static const char *const stage[] = {"raw", "cut", "done"};
  static const SpVariableSpec vars[] = {{"wood", 3, stage}, {"axe", 2, bool_names}};
  static const SpCondition need_axe[] = {{1, 1}};
  static const SpActionSpec acts[] = {
      {"cut", 0, 0, 1, 1, need_axe},
      {"polish", 0, 1, 2, 0, NULL},
      {"get_axe", 1, 0, 1, 0, NULL},
  };
  static const SpDomainSpec spec = {"carpenter", 2, vars, 3, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_C0);
  expect_text(e.text, "'carpenter' is SAS-PUC0: the domain has no cycle, so no cycle "
                      "contains a requestable action.\n");
  expect_text(e.text, "cycles: none.\nrequestable actions (1):\n"
                      "  'get_axe' ('axe' = true) requested by 'cut'\n");
  explained_free(&e);
}

/* A 2-cycle whose actions nobody requests: still C0. */
static void test_unrequested_cycle_is_c0(void **state) {
  (void)state;
  static const SpVariableSpec vars[] = {{"door", 2, bool_names}};
  static const SpActionSpec acts[] = {
      {"open", 0, 0, 1, 0, NULL},
      {"close", 0, 1, 0, 0, NULL},
  };
  static const SpDomainSpec spec = {"door", 1, vars, 2, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_C0);
  expect_text(e.text, "is SAS-PUC0: no cycle contains a requestable action.\n");
  expect_text(e.text,
              "cycles (1):\n  'door': 'open' -> 'close' -> 'open'; no requestable action\n");
  expect_text(e.text, "requestable actions: none.\n");
  explained_free(&e);
}

/* Bäckström's Gray-code family on n bits: flipping bit i (either way)
 * needs bit i-1 = 1 and bits below i-1 = 0. With n = 3 only bit 0 has
 * both of its actions requested, and the requesters (the flips of bits 1
 * and 2) are joined by flip1_on -> flip2_* prevail edges. */
typedef struct Gray {
  SpVariableSpec vars[8];
  SpActionSpec acts[16];
  SpCondition prv[16][8];
  char names[16][16];
  char var_names[8][8];
  SpDomainSpec spec;
} Gray;

static void gray_build(Gray *g, int n) {
  for (int i = 0; i < n; i++) {
    snprintf(g->var_names[i], sizeof g->var_names[i], "bit%d", i);
    g->vars[i].name = g->var_names[i];
    g->vars[i].value_count = 2;
    g->vars[i].value_names = bit_names;
    for (int up = 1; up >= 0; up--) {
      int k = 2 * i + (1 - up);
      snprintf(g->names[k], sizeof g->names[k], "%s%d", up ? "set" : "reset", i);
      int np = 0;
      if (i >= 1) g->prv[k][np++] = (SpCondition){i - 1, 1};
      for (int j = 0; j + 1 < i; j++) g->prv[k][np++] = (SpCondition){j, 0};
      g->acts[k] = (SpActionSpec){g->names[k], i, up ? 0 : 1, up ? 1 : 0, np, g->prv[k]};
    }
  }
  g->spec = (SpDomainSpec){"gray", n, g->vars, 2 * n, g->acts};
}

static void test_gray_code_is_outside(void **state) {
  (void)state;
  Gray g;
  gray_build(&g, 3);

  /* Without allow_outside: SP_ERR_CLASS and the key sentence up front. */
  SpError err = refused(&g.spec);
  expect_text_before(err.message,
                     "1. the cycle of 'bit0' has both actions requested, and 'set1' "
                     "(requests 'set0') is connected to 'set2' (requests 'reset0') in "
                     "G minus G('bit0')", 400);

  Explained e = explained(compile_or_fail(&g.spec, 1), SP_CLASS_OUTSIDE);
  expect_text(e.text, "'gray' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (1 problem):\n");
  expect_text(e.text, "a plan could need 'set0' or 'reset0' twice.\n");
  expect_text(e.text, "   path: 'set1' -prevail-> 'set2'\n");
  expect_text(e.text,
              "     'set1' -prevail-> 'set2': 'set1' sets 'bit1' = 1, a prevail of 'set2'\n");
  expect_text(e.text, "   'set0' ('bit0' = 1) requested by 'set1', 'reset1'\n");
  expect_text(e.text, "   'reset0' ('bit0' = 0) requested by 'set2', 'reset2'\n");
  /* One round: both prevails that tie the requesters are named at once. */
  expect_text(e.text, "fix: make the two groups of requesters independent: cut all 2 paths "
                      "(drop the prevail 'bit1' = 1 of 'set2' and the prevail 'bit1' = 1 of "
                      "'reset2'), drop the prevails on 'bit0' of one side, or split 'bit0' "
                      "into two variables");
  expect_text(e.text, "   path 2 (left once the prevails before are dropped): "
                      "'set1' -prevail-> 'reset2'\n");
  expect_text(e.text, "Plans are not guaranteed");
  expect_no_text(e.text, "Guarantee:");
  check_paths(e.d, e.text);
  explained_free(&e);

  /* Four bits: bit1 is now requested both ways too. */
  gray_build(&g, 4);
  e = explained(compile_or_fail(&g.spec, 1), SP_CLASS_OUTSIDE);
  expect_text(e.text, "(2 problems):\n1. the cycle of 'bit0'");
  expect_text(e.text, "\n2. the cycle of 'bit1' has both actions requested, and 'set2' "
                      "(requests 'set1') is connected to 'set3' (requests 'reset1')");
  check_paths(e.d, e.text);
  explained_free(&e);
}

/* A traffic light on a 3-cycle; driving needs it green. */
static void test_long_cycle_is_outside(void **state) {
  (void)state;
  static const char *const colours[] = {"red", "green", "yellow"};
  static const char *const motion[] = {"stopped", "moving"};
  static const SpVariableSpec vars[] = {{"light", 3, colours}, {"car", 2, motion}};
  static const SpCondition green[] = {{0, 1}};
  static const SpActionSpec acts[] = {
      {"go_green", 0, 0, 1, 0, NULL},
      {"go_yellow", 0, 1, 2, 0, NULL},
      {"go_red", 0, 2, 0, 0, NULL},
      {"drive", 1, 0, 1, 1, green},
      {"brake", 1, 1, 0, 0, NULL},
  };
  static const SpDomainSpec spec = {"crossing", 2, vars, 5, acts};

  SpError err = refused(&spec);
  expect_text_before(err.message,
                     "the cycle of 'light' has 3 actions ('go_green' -> 'go_yellow' "
                     "-> 'go_red' -> 'go_green') and holds a requested action", 400);
  expect_text_before(err.message, "a plan could need an action twice", 400);

  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text(e.text, "'crossing' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (1 problem):\n");
  expect_text(e.text, "   'go_green' ('light' = green) requested by 'drive'\n");
  expect_no_text(e.text, "   'go_yellow' (");
  expect_text(e.text, "fix: shorten the cycle of 'light' to 2 actions");
  expect_text(e.text, "  'light': 'go_green' -> 'go_yellow' -> 'go_red' -> 'go_green'; "
                      "requestable: 'go_green'\n");
  expect_text(e.text, "  'car': 'drive' -> 'brake' -> 'drive'; no requestable action\n");
  explained_free(&e);
}

/* A switch {off, on, broken} whose 2-cycle is requested both ways by
 * set_x (sw = on) and set_y (sw = off). The only joins between set_x and
 * set_y go through actions on sw: through the cycle (set_y feeds
 * turn_on, which feeds set_x) and through break_sw, off the cycle but in
 * G(sw). `link` adds a path outside G(sw):
 * set_x -prevail-> z_up -pre-> z_top <-prevail- set_y. */
static void switch_spec(int link, SpDomainSpec *spec, SpActionSpec *acts) {
  static const char *const sw_values[] = {"off", "on", "broken"};
  static const char *const z_values[] = {"low", "mid", "high"};
  static const SpVariableSpec vars[] = {
      {"sw", 3, sw_values}, {"x", 2, bool_names}, {"y", 2, bool_names}, {"z", 3, z_values}};
  static const SpCondition y_true[] = {{2, 1}};
  static const SpCondition x_and_y[] = {{1, 1}, {2, 1}};
  static const SpCondition sw_on[] = {{0, 1}};
  static const SpCondition sw_off[] = {{0, 0}};
  static const SpCondition x_true[] = {{1, 1}};
  const SpActionSpec all[] = {
      {"turn_on", 0, 0, 1, 1, y_true},
      {"turn_off", 0, 1, 0, 0, NULL},
      {"break_sw", 0, 1, 2, 2, x_and_y},
      {"set_x", 1, 0, 1, 1, sw_on},
      {"set_y", 2, 0, 1, 1, sw_off},
      {"z_up", 3, 0, 1, link ? 1 : 0, link ? x_true : NULL},
      {"z_top", 3, 1, 2, link ? 1 : 0, link ? y_true : NULL},
  };
  memcpy(acts, all, sizeof all);
  *spec = (SpDomainSpec){"switch", 4, vars, 7, acts};
}

static void test_connected_only_through_gv_is_cstar2(void **state) {
  (void)state;
  SpActionSpec acts[7];
  SpDomainSpec spec;
  switch_spec(0, &spec, acts);
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CSTAR2);
  expect_text(e.text, "'sw': the requesters of 'turn_on' ('set_x') and of 'turn_off' "
                      "('set_y') lie in separate parts of G minus G('sw').\n");
  explained_free(&e);
}

static void test_connected_outside_gv_is_outside(void **state) {
  (void)state;
  SpActionSpec acts[7];
  SpDomainSpec spec;
  switch_spec(1, &spec, acts);
  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text_before(e.text, "1. the cycle of 'sw' has both actions requested, and 'set_x' "
                             "(requests 'turn_on') is connected to 'set_y' (requests "
                             "'turn_off') in G minus G('sw')", 400);
  expect_text(e.text, "   path: 'set_x' -prevail-> 'z_up' -pre-> 'z_top' <-prevail- 'set_y'\n");
  expect_text(e.text,
              "   edges of the path:\n"
              "     'set_x' -prevail-> 'z_up': 'set_x' sets 'x' = true, a prevail of 'z_up'\n"
              "     'z_up' -pre-> 'z_top': 'z_up' sets 'z' = mid, the pre of 'z_top'\n"
              "     'z_top' <-prevail- 'set_y': 'set_y' sets 'y' = true, a prevail of 'z_top'\n");
  expect_text(e.text, "cut the path (e.g. drop the prevail 'x' = true of 'z_up')");
  check_paths(e.d, e.text);
  explained_free(&e);
}

/* Requesters tied only through a value that no action sets: disarm needs
 * guard = here (start-only) and power = on; leave needs power = off and
 * takes the guard away. From power off to power on with the guard gone
 * and the alarm quiet, every plan switches the power on twice. Def. 7
 * read literally calls this C*2; with ghost values as nodes of G the
 * requesters are connected and the domain is outside. */
static void test_ghost_value_ties_requesters(void **state) {
  (void)state;
  static const char *const power[] = {"off", "on"};
  static const char *const guard[] = {"away", "here"};
  static const char *const alarm[] = {"quiet", "armed"};
  static const SpVariableSpec vars[] = {
      {"power", 2, power}, {"guard", 2, guard}, {"alarm", 2, alarm}};
  static const SpCondition leave_needs[] = {{0, 0}};
  static const SpCondition disarm_needs[] = {{0, 1}, {1, 1}};
  static const SpActionSpec acts[] = {
      {"switch_on", 0, 0, 1, 0, NULL},
      {"switch_off", 0, 1, 0, 0, NULL},
      {"leave", 1, 1, 0, 1, leave_needs},
      {"disarm", 2, 1, 0, 2, disarm_needs},
  };
  static const SpDomainSpec spec = {"ghost_tie", 3, vars, 4, acts};
  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text_before(e.text, "1. the cycle of 'power' has both actions requested, and "
                             "'disarm' (requests 'switch_on') is connected to 'leave' "
                             "(requests 'switch_off')", 400);
  expect_text(e.text,
              "   path: 'disarm' <-prevail- (no action sets 'guard' = here) -pre-> 'leave'\n");
  expect_text(e.text, "     'disarm' <-prevail- (no action sets 'guard' = here): no action sets "
                      "'guard' = here (only a start state can hold it), a prevail of 'disarm'\n");
  expect_text(e.text, "the pre of 'leave'\n");
  expect_text(e.text, "cut the path (e.g. drop the prevail 'guard' = here of 'disarm')");
  check_paths(e.d, e.text);
  explained_free(&e);
}

/* ------------------------------------------------------------------ */
/* Variables with several cycles                                      */
/* ------------------------------------------------------------------ */

/* A farm hand's position has two separate cycles: home <-> shop, and the
 * round field -> barn -> mill -> field. Selling needs the shop (the
 * 2-cycle: fine for SAS-PUCS2); with `feed`, feeding needs the barn, a
 * requested action on the 3-cycle, which no class allows. */
static void farm_spec(int feed, SpDomainSpec *spec) {
  static const char *const places[] = {"home", "shop", "field", "barn", "mill"};
  static const SpVariableSpec vars[] = {
      {"pos", 5, places}, {"sold", 2, bool_names}, {"fed", 2, bool_names}};
  static const SpCondition at_shop[] = {{0, 1}};
  static const SpCondition at_barn[] = {{0, 3}};
  static const SpActionSpec acts[] = {
      {"go_shop", 0, 0, 1, 0, NULL},  {"go_home", 0, 1, 0, 0, NULL},
      {"go_barn", 0, 2, 3, 0, NULL},  {"go_mill", 0, 3, 4, 0, NULL},
      {"go_field", 0, 4, 2, 0, NULL}, {"sell", 1, 0, 1, 1, at_shop},
      {"feed", 2, 0, 1, 1, at_barn},
  };
  *spec = (SpDomainSpec){"farm", 3, vars, feed ? 7 : 6, acts};
}

static void test_second_cycle_long_is_outside(void **state) {
  (void)state;
  SpDomainSpec spec;
  farm_spec(1, &spec);
  SpError err = refused(&spec);
  expect_text_before(err.message,
                     "1. the cycle 'go_barn' -> 'go_mill' -> 'go_field' -> 'go_barn' "
                     "(one of the 2 cycles of 'pos') has 3 actions and holds a "
                     "requested action", 400);
  expect_text_before(err.message, "a plan could need an action twice", 400);

  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  assert_int_equal(sp_variable_cycle_count(e.d, 0), 2);
  expect_text(e.text, "'farm' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (1 problem):\n");
  expect_text(e.text, "fix: shorten that cycle of 'pos' to 2 actions");
  expect_text(e.text, "   'go_barn' ('pos' = barn) requested by 'feed'\n");
  expect_no_text(e.text, "   'go_shop' ('pos' = shop)"); /* the 2-cycle is no problem */
  expect_text(e.text, "cycles (2):\n"
                      "  'pos' (1 of 2): 'go_shop' -> 'go_home' -> 'go_shop'; requestable: "
                      "'go_shop'\n"
                      "  'pos' (2 of 2): 'go_barn' -> 'go_mill' -> 'go_field' -> 'go_barn'; "
                      "requestable: 'go_barn'\n");
  explained_free(&e);

  /* Without feeding, only the 2-cycle is requested: SAS-PUCS2. */
  farm_spec(0, &spec);
  e = explained(compile_or_fail(&spec, 0), SP_CLASS_CS2);
  expect_text(e.text, "(not SAS-PUC0: 'go_shop' on the cycle 'go_shop' -> 'go_home' -> "
                      "'go_shop' (one of the 2 cycles of 'pos') is requested).\n");
  expect_text(e.text, "  'pos' (2 of 2): 'go_barn' -> 'go_mill' -> 'go_field' -> 'go_barn'; "
                      "no requestable action\n");
  explained_free(&e);
}

/* The case found with the random domains: v has 0 <-> 1 and
 * 2 -> 3 -> 4 -> 2, and w's action needs v = 3 (on the 3-cycle). The
 * unrequested 2-cycle must not hide the 3-cycle: outside, as the
 * brute-force classifier says. */
static void test_reported_two_cycles_is_outside(void **state) {
  (void)state;
  static const char *const five[] = {"0", "1", "2", "3", "4"};
  static const SpVariableSpec vars[] = {{"v", 5, five}, {"w", 2, bit_names}};
  static const SpCondition v3[] = {{0, 3}};
  static const SpActionSpec acts[] = {
      {"a1_v0", 0, 0, 1, 0, NULL}, {"a0_v0", 0, 1, 0, 0, NULL},
      {"a3_v0", 0, 2, 3, 0, NULL}, {"a4_v0", 0, 3, 4, 0, NULL},
      {"a2_v0", 0, 4, 2, 0, NULL}, {"a1_v1", 1, 0, 1, 1, v3},
  };
  static const SpDomainSpec spec = {"reported", 2, vars, 6, acts};
  assert_int_equal(oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, NULL, 0),
                   SP_CLASS_OUTSIDE);
  assert_int_equal(reference_class(&spec), SP_CLASS_OUTSIDE);
  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text(e.text, "(1 problem):\n1. the cycle 'a3_v0' -> 'a4_v0' -> 'a2_v0' -> 'a3_v0' "
                      "(one of the 2 cycles of 'v') has 3 actions and holds a requested "
                      "action");
  expect_text(e.text, "  'v' (1 of 2): 'a1_v0' -> 'a0_v0' -> 'a1_v0'; no requestable action\n");
  explained_free(&e);
}

/* v has two 2-cycles, on <-> off ({0,1}) and up <-> down ({2,3}), each
 * requested both ways by its own pair of variables: SAS-PUC*2. The
 * requesters of the first cycle (set_p, set_q) meet only through v's
 * other cycle (set_p -> up -> down <- set_q), which lies in G(v) and so
 * does not count. With `tie`, set_r and set_s (the second cycle's
 * requesters) also share the prevail t = 1: that cycle goes outside. */
static void two_switches_spec(int tie, SpDomainSpec *spec, SpActionSpec *acts) {
  static const char *const levels[] = {"off", "on", "down", "up"};
  static const SpVariableSpec vars[] = {
      {"v", 4, levels},      {"p", 2, bit_names}, {"q", 2, bit_names},
      {"r", 2, bit_names},   {"s", 2, bit_names}, {"t", 2, bit_names}};
  static const SpCondition p1[] = {{1, 1}}, q1[] = {{2, 1}};
  static const SpCondition v_on[] = {{0, 1}}, v_off[] = {{0, 0}};
  static const SpCondition v_up[] = {{0, 3}, {5, 1}}, v_down[] = {{0, 2}, {5, 1}};
  const SpActionSpec all[] = {
      {"turn_on", 0, 0, 1, 0, NULL}, {"turn_off", 0, 1, 0, 0, NULL},
      {"go_up", 0, 2, 3, 1, p1},     {"go_down", 0, 3, 2, 1, q1},
      {"set_p", 1, 0, 1, 1, v_on},   {"set_q", 2, 0, 1, 1, v_off},
      {"set_r", 3, 0, 1, tie ? 2 : 1, v_up},
      {"set_s", 4, 0, 1, tie ? 2 : 1, v_down},
      {"set_t", 5, 0, 1, 0, NULL},
  };
  memcpy(acts, all, sizeof all);
  *spec = (SpDomainSpec){"two_switches", 6, vars, 9, acts};
}

static void test_two_double_cycles_is_cstar2(void **state) {
  (void)state;
  SpActionSpec acts[9];
  SpDomainSpec spec;
  two_switches_spec(0, &spec, acts);
  assert_int_equal(oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, NULL, 0),
                   SP_CLASS_CSTAR2);
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CSTAR2);
  expect_text(e.text, "  'v': the requesters of 'turn_on' ('set_p') and of 'turn_off' "
                      "('set_q') lie in separate parts of G minus G('v').\n"
                      "  'v': the requesters of 'go_up' ('set_r') and of 'go_down' "
                      "('set_s') lie in separate parts of G minus G('v').\n");
  expect_text(e.text, "cycles (2):\n"
                      "  'v' (1 of 2): 'turn_on' -> 'turn_off' -> 'turn_on'; requestable: "
                      "'turn_on', 'turn_off'\n"
                      "  'v' (2 of 2): 'go_up' -> 'go_down' -> 'go_up'; requestable: "
                      "'go_up', 'go_down'\n");
  explained_free(&e);

  two_switches_spec(1, &spec, acts);
  assert_int_equal(oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, NULL, 0),
                   SP_CLASS_OUTSIDE);
  e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text_before(e.text, "(1 problem):\n1. the cycle 'go_up' -> 'go_down' -> 'go_up' "
                             "(one of the 2 cycles of 'v') has both actions requested, and "
                             "'set_r' (requests 'go_up') is connected to 'set_s' (requests "
                             "'go_down') in G minus G('v')", 400);
  expect_text(e.text, "   path: 'set_r' <-prevail- 'set_t' -prevail-> 'set_s'\n");
  check_paths(e.d, e.text);
  explained_free(&e);
}

/* Two 2-cycles on one variable, each with one requested action: every
 * cycle holds at most one, so SAS-PUCS2. */
static void test_two_single_cycles_is_cs2(void **state) {
  (void)state;
  static const char *const four[] = {"0", "1", "2", "3"};
  static const SpVariableSpec vars[] = {
      {"v", 4, four}, {"p", 2, bit_names}, {"q", 2, bit_names}};
  static const SpCondition v1[] = {{0, 1}}, v3[] = {{0, 3}};
  static const SpActionSpec acts[] = {
      {"v1", 0, 0, 1, 0, NULL},  {"v0", 0, 1, 0, 0, NULL},
      {"v3", 0, 2, 3, 0, NULL},  {"v2", 0, 3, 2, 0, NULL},
      {"p1", 1, 0, 1, 1, v1},    {"q1", 2, 0, 1, 1, v3},
  };
  static const SpDomainSpec spec = {"two_cycles", 3, vars, 6, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CS2);
  expect_text(e.text, "(not SAS-PUC0: 'v1' on the cycle 'v1' -> 'v0' -> 'v1' (one of the 2 "
                      "cycles of 'v'), 'v3' on the cycle 'v3' -> 'v2' -> 'v3' (one of the 2 "
                      "cycles of 'v') are requested).\n");
  explained_free(&e);
}

/* ------------------------------------------------------------------ */
/* Output contract and memory                                         */
/* ------------------------------------------------------------------ */

static void test_snprintf_semantics(void **state) {
  (void)state;
  SpDomain *d = compile_builtin(sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  SpClass cls = SP_CLASS_OUTSIDE;
  size_t full = 0;
  assert_int_equal(sp_classify(d, plain, &cls, NULL, 0, &full), SP_OK);
  assert_int_equal(cls, SP_CLASS_CSTAR2);
  assert_true(full > 100);
  assert_int_equal(sp_domain_explain(d, NULL, 0), full);

  char *whole = explain(d);
  char small[40];
  memset(small, 'x', sizeof small);
  size_t needed = 0;
  assert_int_equal(sp_classify(d, plain, &cls, small, sizeof small, &needed), SP_OK);
  assert_int_equal(needed, full);
  assert_int_equal(strlen(small), sizeof small - 1);
  assert_memory_equal(small, whole, sizeof small - 1);

  /* Class only: no buffer, no length. */
  cls = SP_CLASS_OUTSIDE;
  assert_int_equal(sp_classify(d, plain, &cls, NULL, 0, NULL), SP_OK);
  assert_int_equal(cls, SP_CLASS_CSTAR2);
  free(whole);
  sp_domain_free(d);
}

/* The class alone (what sp_domain_compile asks first) formats nothing
 * and needs memory only for the C*2 search: with an allocator that fails
 * its first request it still answers, asking for nothing, except for a
 * doubly requested 2-cycle. */
static void test_class_only_is_cheap(void **state) {
  (void)state;
  TestAlloc c;
  SpAllocator failing = test_alloc_hook(&c);
  SpDomainSpec farm;
  farm_spec(1, &farm);
  SpDomain *ds[] = {compile_builtin(sp_builtin_acquisition_machine(plain)),
                    compile_builtin(sp_builtin_citizen(plain)), compile_or_fail(&farm, 1),
                    compile_builtin(sp_builtin_horse_breeder(plain, SP_HORSE_SSCI))};
  const SpClass want[] = {SP_CLASS_C0, SP_CLASS_CS2, SP_CLASS_OUTSIDE, SP_CLASS_CSTAR2};
  for (int i = 0; i < 4; i++) {
    SpClass cls = want[i] == SP_CLASS_C0 ? SP_CLASS_OUTSIDE : SP_CLASS_C0;
    test_alloc_init(&c, 1);
    SpStatus st = sp_classify(ds[i], failing, &cls, NULL, 0, NULL);
    if (want[i] == SP_CLASS_CSTAR2) {
      assert_int_equal(st, SP_ERR_MEMORY);
      assert_int_equal(cls, SP_CLASS_C0); /* untouched */
      assert_int_equal(c.calls, 1);
    } else {
      assert_int_equal(st, SP_OK);
      assert_int_equal(cls, want[i]);
      assert_int_equal(c.calls, 0);
    }
    assert_int_equal(c.live, 0);
    /* Asking for the length is asking for the text: G is built. */
    size_t needed = 7;
    test_alloc_init(&c, 1);
    assert_int_equal(sp_classify(ds[i], failing, &cls, NULL, 0, &needed), SP_ERR_MEMORY);
    assert_int_equal(needed, 0);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.live, 0);
  }

  /* With memory, the C*2 search takes one block and gives it back. */
  test_alloc_init(&c, 0);
  SpClass cls = SP_CLASS_C0;
  assert_int_equal(sp_classify(ds[3], failing, &cls, NULL, 0, NULL), SP_OK);
  assert_int_equal(cls, SP_CLASS_CSTAR2);
  assert_int_equal(c.calls, 1);
  assert_int_equal(c.live, 0);
  for (int i = 0; i < 4; i++) sp_domain_free(ds[i]);
}

static void test_memory_failure(void **state) {
  (void)state;
  Gray g;
  gray_build(&g, 4);
  SpDomain *d = compile_or_fail(&g.spec, 1);

  TestAlloc c;
  test_alloc_init(&c, 1); /* the first request fails */
  SpAllocator failing = test_alloc_hook(&c);
  SpClass cls = SP_CLASS_C0;
  char buf[64];
  memset(buf, 'x', sizeof buf);
  size_t needed = 123;
  assert_int_equal(sp_classify(d, failing, &cls, buf, sizeof buf, &needed), SP_ERR_MEMORY);
  assert_int_equal(cls, SP_CLASS_C0);
  assert_string_equal(buf, "");
  assert_int_equal(needed, 0);
  assert_int_equal(c.live, 0);

  /* With memory, everything taken is given back. */
  test_alloc_init(&c, 0);
  SpAllocator counting = test_alloc_hook(&c);
  assert_int_equal(sp_classify(d, counting, &cls, buf, sizeof buf, &needed), SP_OK);
  assert_int_equal(cls, SP_CLASS_OUTSIDE);
  assert_true(c.calls >= 1);
  assert_int_equal(c.live, 0);
  assert_int_equal(c.bytes, 0);
  sp_domain_free(d);

  /* Compiling through a failing allocator, failing at each allocation in
   * turn (the last ones are the class analysis), leaks nothing. */
  SpCompileOptions opts = {1};
  for (long k = 0;; k++) {
    test_alloc_init(&c, k + 1); /* k requests succeed, then one fails */
    SpError err;
    d = NULL;
    SpStatus st = sp_domain_compile(&g.spec, &opts, counting, &d, &err);
    if (st == SP_OK) {
      assert_true(k >= 2);
      assert_int_equal(sp_domain_class(d), SP_CLASS_OUTSIDE);
      sp_domain_free(d);
      assert_int_equal(c.live, 0);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_null(d);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.bytes, 0);
    assert_true(k < 100);
  }
}

/* Many switches, each a 2-cycle requested both ways, with all "on"
 * requesters chained together and all "off" requesters chained apart:
 * C*2, with one search per switch over a large component. */
static void test_many_cycles(void **state) {
  (void)state;
  enum { M = 1300 }; /* 3900 variables, under SP_MAX_VARIABLES */
  /* variables: sw_i {off,on}, a_i {0,1}, b_i {0,1} */
  SpVariableSpec *vars = calloc(3 * M, sizeof *vars);
  SpActionSpec *acts = calloc(4 * M, sizeof *acts);
  SpCondition *prv = calloc(8 * M, sizeof *prv);
  char *names = calloc((size_t)7 * M, 24);
  assert_true(vars && acts && prv && names);
  char *np = names;
#define NAME(...) (snprintf(np, 24, __VA_ARGS__), np += 24, np - 24)
  for (int i = 0; i < M; i++) {
    vars[3 * i] = (SpVariableSpec){NAME("sw%d", i), 2, bool_names};
    vars[3 * i + 1] = (SpVariableSpec){NAME("a%d", i), 2, bit_names};
    vars[3 * i + 2] = (SpVariableSpec){NAME("b%d", i), 2, bit_names};
    SpCondition *p = prv + 8 * i;
    p[0] = (SpCondition){3 * i, 1}; /* set_a_i needs sw_i on */
    int n_a = 1;
    if (i > 0) p[n_a++] = (SpCondition){3 * (i - 1) + 1, 1}; /* and a_(i-1) = 1 */
    p[4] = (SpCondition){3 * i, 0}; /* set_b_i needs sw_i off */
    acts[4 * i] = (SpActionSpec){NAME("on%d", i), 3 * i, 0, 1, 0, NULL};
    acts[4 * i + 1] = (SpActionSpec){NAME("off%d", i), 3 * i, 1, 0, 0, NULL};
    acts[4 * i + 2] = (SpActionSpec){NAME("set_a%d", i), 3 * i + 1, 0, 1, n_a, p};
    acts[4 * i + 3] = (SpActionSpec){NAME("set_b%d", i), 3 * i + 2, 0, 1, 1, p + 4};
  }
#undef NAME
  SpDomainSpec spec = {"switches", 3 * M, vars, 4 * M, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CSTAR2);
  expect_text(e.text, "  ... and more\n");
  expect_text(e.text, "requestable actions (3899):\n");
  explained_free(&e);

  /* Chain one off-requester to the on-chain: that switch goes outside. */
  prv[8 * 700 + 5] = (SpCondition){3 * 699 + 1, 1};
  acts[4 * 700 + 3].prevail_count = 2;
  e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text(e.text, "(1 problem):\n1. the cycle of 'sw700' has both actions requested");
  expect_text(e.text, "   path: 'set_a700' <-prevail- 'set_a699' -prevail-> 'set_b700'\n");
  check_paths(e.d, e.text);
  explained_free(&e);
  free(vars);
  free(acts);
  free(prv);
  free(names);
}

/* ------------------------------------------------------------------ */
/* Property: agrees with a naive classifier on random domains         */
/* ------------------------------------------------------------------ */

/* Union-find over action ids, for the reference classifier only. */
static int uf_find(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

static int setter_of(const SpDomainSpec *s, int var, int value) {
  for (int a = 0; a < s->action_count; a++)
    if (s->actions[a].variable == var && s->actions[a].post == value) return a;
  return -1;
}

/* The cycle through action a (walking back from its pre through
 * setters), stored in cyc[] (room for |D(v)|) in walk order; 0 when a is
 * on no cycle. A cycle has at most |D(v)| actions, so a walk that
 * collects more without coming back to a has entered another cycle. */
static int cycle_through(const SpDomainSpec *s, int a, int *cyc) {
  int v = s->actions[a].variable, x = s->actions[a].pre, len = 0;
  cyc[len++] = a;
  for (;;) {
    int b = setter_of(s, v, x);
    if (b < 0) return 0;
    if (b == a) return len;
    if (len == s->variables[v].value_count) return 0;
    cyc[len++] = b;
    x = s->actions[b].pre;
  }
}

static int is_requested(const SpDomainSpec *s, int a) {
  for (int b = 0; b < s->action_count; b++)
    for (int i = 0; i < s->actions[b].prevail_count; i++)
      if (s->actions[b].prevails[i].variable == s->actions[a].variable &&
          s->actions[b].prevails[i].value == s->actions[a].post)
        return 1;
  return 0;
}

/* Requesters of p and of m joined in G minus G(v)? Plain union-find over
 * the actions and one node per value that no action sets (a ghost, id
 * action_count + the value's global index), as the analysis reads Def. 7. */
static int requesters_joined(const SpDomainSpec *s, int v, int p, int m) {
  int parent[RD_MAX_ACTIONS + RD_MAX_VARIABLES * RD_MAX_VALUES], base[RD_MAX_VARIABLES];
  int nodes = s->action_count;
  for (int w = 0; w < s->variable_count; w++) {
    base[w] = nodes - s->action_count;
    nodes += s->variables[w].value_count;
  }
  for (int a = 0; a < nodes; a++) parent[a] = a;
  for (int b = 0; b < s->action_count; b++) {
    const SpActionSpec *act = &s->actions[b];
    if (act->variable == v) continue;
    SpCondition needs_of[1 + RD_MAX_PREVAILS];
    int k = 0;
    needs_of[k++] = (SpCondition){act->variable, act->pre};
    for (int i = 0; i < act->prevail_count; i++) needs_of[k++] = act->prevails[i];
    for (int i = 0; i < k; i++) {
      SpCondition c = needs_of[i];
      if (c.variable == v) continue; /* G(v), ghosts of v included */
      int from = setter_of(s, c.variable, c.value);
      if (from < 0) from = s->action_count + base[c.variable] + c.value;
      parent[uf_find(parent, from)] = uf_find(parent, b);
    }
  }
  const SpActionSpec *ap = &s->actions[p], *am = &s->actions[m];
  for (int x = 0; x < s->action_count; x++)
    for (int y = 0; y < s->action_count; y++) {
      int rx = 0, ry = 0;
      for (int i = 0; i < s->actions[x].prevail_count; i++) {
        SpCondition c = s->actions[x].prevails[i];
        rx |= c.variable == v && c.value == ap->post;
      }
      for (int i = 0; i < s->actions[y].prevail_count; i++) {
        SpCondition c = s->actions[y].prevails[i];
        ry |= c.variable == v && c.value == am->post;
      }
      if (rx && ry && uf_find(parent, x) == uf_find(parent, y)) return 1;
    }
  return 0;
}

/* The class straight from the definitions, every cycle of every
 * variable judged on its own (a variable may have several). */
static SpClass reference_class(const SpDomainSpec *s) {
  int any = 0, twice = 0, joined = 0;
  for (int a = 0; a < s->action_count; a++) {
    int cyc[RD_MAX_VALUES], len = cycle_through(s, a, cyc), req = 0, lowest = 1;
    for (int i = 0; i < len; i++) {
      req += is_requested(s, cyc[i]);
      lowest &= cyc[i] >= a;
    }
    if (len == 0 || !lowest || req == 0) continue; /* each cycle once */
    if (len > 2) return SP_CLASS_OUTSIDE;
    any = 1;
    if (req == 2) {
      twice = 1;
      /* walk order from a is a, then a's predecessor: plus is a */
      joined |= requesters_joined(s, s->actions[a].variable, cyc[0], cyc[1]);
    }
  }
  if (joined) return SP_CLASS_OUTSIDE;
  return twice ? SP_CLASS_CSTAR2 : any ? SP_CLASS_CS2 : SP_CLASS_C0;
}

static int action_named(const SpDomain *d, const char *name, size_t len) {
  for (int a = 0; a < sp_domain_action_count(d); a++)
    if (strlen(sp_action_name(d, a)) == len && memcmp(sp_action_name(d, a), name, len) == 0)
      return a;
  fail_msg("no action '%.*s'", (int)len, name);
  return -1;
}

static int variable_named(const SpDomain *d, const char *name, size_t len) {
  for (int v = 0; v < sp_domain_variable_count(d); v++)
    if (strlen(sp_variable_name(d, v)) == len && memcmp(sp_variable_name(d, v), name, len) == 0)
      return v;
  fail_msg("no variable '%.*s'", (int)len, name);
  return -1;
}

static int needs(const SpDomain *d, int b, int var, int value) {
  for (int i = 0; i < sp_action_prevail_count(d, b); i++) {
    SpCondition c = sp_action_prevail(d, b, i);
    if (c.variable == var && c.value == value) return 1;
  }
  return 0;
}

/* Reads a quoted name at *p, leaves *p after it. */
static const char *quoted(const char **p, size_t *len) {
  assert_true(**p == '\'');
  const char *start = *p + 1, *end = strchr(start, '\'');
  assert_non_null(end);
  *len = (size_t)(end - start);
  *p = end + 1;
  return start;
}

/* A node of a printed path: an action, or a value no action sets. */
typedef struct PathNode {
  int action; /* -1 for a ghost */
  int variable, value; /* the value the node sets */
} PathNode;

static PathNode path_node(const SpDomain *d, const char **p) {
  PathNode n;
  size_t len;
  static const char ghost[] = "(no action sets ";
  if (strncmp(*p, ghost, strlen(ghost)) == 0) {
    *p += strlen(ghost);
    const char *name = quoted(p, &len);
    n.action = -1;
    n.variable = variable_named(d, name, len);
    assert_true(strncmp(*p, " = ", 3) == 0);
    *p += 3;
    const char *close = strchr(*p, ')');
    assert_non_null(close);
    n.value = -1;
    for (int x = 0; x < sp_variable_value_count(d, n.variable); x++) {
      const char *vn = sp_value_name(d, n.variable, x);
      if (strlen(vn) == (size_t)(close - *p) && memcmp(vn, *p, strlen(vn)) == 0) n.value = x;
    }
    assert_true(n.value >= 0);
    assert_int_equal(sp_domain_setter(d, n.variable, n.value), -1);
    *p = close + 1;
    return n;
  }
  const char *name = quoted(p, &len);
  n.action = action_named(d, name, len);
  n.variable = sp_action_variable(d, n.action);
  n.value = sp_action_post(d, n.action);
  return n;
}

/* Every "path:" line of an explanation is a real path of G minus G(v)
 * (ghost values as nodes) from a requester of the cycle's first action
 * to one of its second. The cycle is "the cycle of 'v'" (v's only one)
 * or "the cycle 'a' -> 'b' -> 'a' (one of the N cycles of 'v')". */
static void check_paths(const SpDomain *d, const char *text) {
  for (const char *at = strstr(text, "has both actions requested"); at != NULL;
       at = strstr(at + 1, "has both actions requested")) {
    const char *line = at;
    while (line > text && line[-1] != '\n') line--;
    const char *p = strstr(line, "the cycle ") + strlen("the cycle ");
    size_t len;
    int v, plus, minus;
    if (strncmp(p, "of ", 3) == 0) {
      p += 3;
      const char *name = quoted(&p, &len);
      v = variable_named(d, name, len);
      assert_int_equal(sp_variable_cycle_count(d, v), 1);
      plus = sp_variable_cycle_action(d, v, 0, 0);
      minus = sp_variable_cycle_action(d, v, 0, 1);
    } else {
      const char *name = quoted(&p, &len);
      plus = action_named(d, name, len);
      assert_true(strncmp(p, " -> ", 4) == 0);
      p += 4;
      name = quoted(&p, &len);
      minus = action_named(d, name, len);
      p = strstr(p, "cycles of ") + strlen("cycles of ");
      name = quoted(&p, &len);
      v = variable_named(d, name, len);
      int found = 0;
      for (int c = 0; c < sp_variable_cycle_count(d, v); c++)
        found |= sp_variable_cycle_length(d, v, c) == 2 &&
                 sp_variable_cycle_action(d, v, c, 0) == plus &&
                 sp_variable_cycle_action(d, v, c, 1) == minus;
      assert_true(found && sp_variable_cycle_count(d, v) > 1);
    }
    p = strstr(at, "\n   path: ") + strlen("\n   path: ");
    PathNode x = path_node(d, &p);
    assert_true(x.action >= 0 && needs(d, x.action, v, sp_action_post(d, plus)));
    while (*p == ' ') {
      int pre = strncmp(p, " -pre-> ", 8) == 0 || strncmp(p, " <-pre- ", 8) == 0;
      int forward = p[2] != '-';
      p = strchr(p + 1, ' ') + 1;
      PathNode y = path_node(d, &p);
      PathNode from = forward ? x : y, to = forward ? y : x;
      assert_int_not_equal(y.variable, v);
      assert_true(to.action >= 0);
      if (pre) {
        assert_int_equal(from.variable, to.variable);
        assert_int_equal(from.value, sp_action_pre(d, to.action));
      } else {
        assert_true(needs(d, to.action, from.variable, from.value));
      }
      x = y;
    }
    assert_true(x.action >= 0 && needs(d, x.action, v, sp_action_post(d, minus)));
  }
}

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
                "variable of several cycles)\n", seen[0], seen[1], seen[2], seen[3], multi);
  if (multi < 20) fail_msg("only %d random domains with several cycles on a variable", multi);
  for (int c = 0; c < 4; c++) {
    if (seen[c] < 50) fail_msg("only %d random domains in %s", seen[c], sp_class_name((SpClass)c));
  }
}

/* Drops from rd every prevail named in "cut all N paths (drop the prevail
 * 'v' = x of 'a', the prevail ... and the prevail ...)"; 0 when the text
 * has no such fix. */
static int drop_named_cuts(RandomDomain *rd, const SpDomain *d, const char *text) {
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
      if (!found && rd->prevails[a][i].variable == v && rd->prevails[a][i].value == x) found = 1;
      else rd->prevails[a][i - found] = rd->prevails[a][i];
    }
    assert_true(found);
    act->prevail_count--;
    if (strncmp(p, ", the prevail ", 14) == 0) p += 14;
    else if (strncmp(p, " and the prevail ", 17) == 0) p += 17;
    else break;
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
            fail_msg("%s: still outside once the named prevails are dropped:\n%s", rd.name, t);
        }
        free(t);
      }
      sp_domain_free(d);
    }
  }
  print_message("random domains fixed by dropping every named prevail: %d\n", checked);
  if (checked < 10) fail_msg("only %d random domains needed several cuts", checked);
}

/* sp_domain_problems and sp_domain_problem_path agree with the text. */
static void test_problem_accessors(void **state) {
  (void)state;
  Gray g;
  gray_build(&g, 4);
  SpDomain *d = compile_or_fail(&g.spec, 1);
  SpProblem pr[4];
  assert_int_equal(sp_domain_problems(d, pr, 4), 2);
  assert_int_equal(pr[0].variable, 0);
  assert_int_equal(pr[1].variable, 1);
  assert_true(pr[0].connected && pr[1].connected);
  SpPathNode path[8];
  assert_int_equal(sp_domain_problem_path(d, 0, path, 8), 2); /* 'set1' -prevail-> 'set2' */
  assert_string_equal(sp_action_name(d, path[0].action), "set1");
  assert_string_equal(sp_action_name(d, path[1].action), "set2");
  assert_true(path[1].prevail && path[1].forward);
  assert_int_equal(sp_domain_problem_path(d, 5, path, 8), 0);
  sp_domain_free(d);
  d = compile_builtin(sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  assert_int_equal(sp_domain_problems(d, pr, 4), 0);
  sp_domain_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_horse_breeder_ssci_is_cstar2),
      cmocka_unit_test(test_horse_breeder_ijcai_is_cstar2),
      cmocka_unit_test(test_citizen_is_cs2),
      cmocka_unit_test(test_acquisition_machine_is_c0),
      cmocka_unit_test(test_no_cycle_is_c0),
      cmocka_unit_test(test_unrequested_cycle_is_c0),
      cmocka_unit_test(test_gray_code_is_outside),
      cmocka_unit_test(test_long_cycle_is_outside),
      cmocka_unit_test(test_connected_only_through_gv_is_cstar2),
      cmocka_unit_test(test_connected_outside_gv_is_outside),
      cmocka_unit_test(test_ghost_value_ties_requesters),
      cmocka_unit_test(test_second_cycle_long_is_outside),
      cmocka_unit_test(test_reported_two_cycles_is_outside),
      cmocka_unit_test(test_two_double_cycles_is_cstar2),
      cmocka_unit_test(test_two_single_cycles_is_cs2),
      cmocka_unit_test(test_snprintf_semantics),
      cmocka_unit_test(test_class_only_is_cheap),
      cmocka_unit_test(test_memory_failure),
      cmocka_unit_test(test_many_cycles),
      cmocka_unit_test(test_random_domains_match_reference),
      cmocka_unit_test(test_random_cut_lists_are_complete),
      cmocka_unit_test(test_problem_accessors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
