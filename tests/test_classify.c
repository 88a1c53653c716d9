/* test_classify.c: cmocka tests of the class analysis and its explanations on the paper domains and small hand-built ones. */
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

static const SpAllocator plain = {NULL, NULL};

/* ------------------------------------------------------------------ */
/* The paper domains                                                  */
/* ------------------------------------------------------------------ */

static void check_horse(int variant) {
  Explained e =
      explained(compile_builtin(sp_builtin_horse_breeder(plain, variant)),
                SP_CLASS_CSTAR2);
  expect_text(
      e.text,
      "is SAS-PUC*2: every cycle with a requestable action has 2 actions");
  expect_text(e.text, "(so not SAS-PUCS2)");
  expect_text(e.text,
              "'bucket': the requesters of 'drop_bucket' ('take_haystack'");
  expect_text(e.text,
              "and of 'pick_up_bucket' ('fill_bucket', 'fill_trough') lie in "
              "separate parts of G minus G('bucket')");
  expect_text(e.text,
              "Guarantee: every solvable instance has a minimal plan in which "
              "no action occurs twice");
  expect_text(
      e.text,
      "cycles (2):\n"
      "  'haystack': 'drop_haystack' -> 'take_haystack' -> 'drop_haystack'; "
      "requestable: 'drop_haystack'\n"
      "  'bucket': 'drop_bucket' -> 'pick_up_bucket' -> 'drop_bucket'; "
      "requestable: 'drop_bucket', 'pick_up_bucket'\n");
  expect_text(e.text, "requestable actions (3):\n"
                      "  'drop_haystack' ('haystack' = stored) requested by "
                      "'pick_up_bucket'\n");
  expect_text(e.text, "  'pick_up_bucket' ('bucket' = in_hands) requested by "
                      "'fill_bucket', 'fill_trough'\n");
  if (variant == SP_HORSE_SSCI)
    expect_text(e.text, "'drop_bucket' ('bucket' = on_floor) requested by "
                        "'take_haystack', 'fill_feeder'\n");
  else
    expect_text(
        e.text,
        "'drop_bucket' ('bucket' = on_floor) requested by 'take_haystack'\n");
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
  Explained e =
      explained(compile_builtin(sp_builtin_citizen(plain)), SP_CLASS_CS2);
  expect_text(
      e.text,
      "is SAS-PUCS2: every cycle with a requestable action has 2 actions "
      "and only one of them is requestable (not SAS-PUC0: 'take' on the "
      "cycle of 'has_item'");
  expect_text(e.text, "'end_work' on the cycle of 'working' are requested)");
  expect_text(e.text, "Guarantee: every solvable instance");
  expect_text(e.text, "cycles (4):\n");
  expect_text(e.text, "  'working': 'end_work' -> 'work' -> 'end_work'; "
                      "requestable: 'end_work'\n");
  expect_text(e.text, "requestable actions (6):\n");
  expect_text(e.text,
              "  'stop_wandering' ('wandering' = false) requested by 'store', "
              "'take', 'rest', 'work'\n");
  explained_free(&e);
}

static void test_acquisition_machine_is_c0(void **state) {
  (void)state;
  Explained e = explained(
      compile_builtin(sp_builtin_acquisition_machine(plain)), SP_CLASS_C0);
  expect_text(e.text,
              "'acquisition_machine' is SAS-PUC0: the domain has no cycle");
  expect_text(e.text, "Guarantee: every solvable instance");
  expect_text(e.text, "cycles: none.\n");
  expect_text(e.text, "requestable actions (5):\n");
  expect_text(
      e.text,
      "  'attack' ('threatened' = false) requested by 'scan_ore_deposit', "
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
  static const SpVariableSpec vars[] = {{"wood", 3, stage},
                                        {"axe", 2, bool_names}};
  static const SpCondition need_axe[] = {{1, 1}};
  static const SpActionSpec acts[] = {
      {"cut", 0, 0, 1, 1, need_axe},
      {"polish", 0, 1, 2, 0, NULL},
      {"get_axe", 1, 0, 1, 0, NULL},
  };
  static const SpDomainSpec spec = {"carpenter", 2, vars, 3, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_C0);
  expect_text(e.text,
              "'carpenter' is SAS-PUC0: the domain has no cycle, so no cycle "
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
  expect_text(e.text, "cycles (1):\n  'door': 'open' -> 'close' -> 'open'; no "
                      "requestable action\n");
  expect_text(e.text, "requestable actions: none.\n");
  explained_free(&e);
}

static void test_gray_code_is_outside(void **state) {
  (void)state;
  Gray g;
  gray_build(&g, 3);

  /* Without allow_outside: SP_ERR_CLASS and the key sentence up front. */
  SpError err = refused(&g.spec);
  expect_text_before(
      err.message,
      "1. the cycle of 'bit0' has both actions requested, and 'set1' "
      "(requests 'set0') is connected to 'set2' (requests 'reset0') in "
      "G minus G('bit0')",
      400);

  Explained e = explained(compile_or_fail(&g.spec, 1), SP_CLASS_OUTSIDE);
  expect_text(
      e.text,
      "'gray' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (1 problem):\n");
  expect_text(e.text, "a plan could need 'set0' or 'reset0' twice.\n");
  expect_text(e.text, "   path: 'set1' -prevail-> 'set2'\n");
  expect_text(e.text, "     'set1' -prevail-> 'set2': 'set1' sets 'bit1' = 1, "
                      "a prevail of 'set2'\n");
  expect_text(e.text, "   'set0' ('bit0' = 1) requested by 'set1', 'reset1'\n");
  expect_text(e.text,
              "   'reset0' ('bit0' = 0) requested by 'set2', 'reset2'\n");
  /* One round: both prevails that tie the requesters are named at once. */
  expect_text(
      e.text,
      "fix: make the two groups of requesters independent: cut all 2 paths "
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
  expect_text(e.text,
              "\n2. the cycle of 'bit1' has both actions requested, and 'set2' "
              "(requests 'set1') is connected to 'set3' (requests 'reset1')");
  check_paths(e.d, e.text);
  explained_free(&e);
}

/* A traffic light on a 3-cycle; driving needs it green. */
static void test_long_cycle_is_outside(void **state) {
  (void)state;
  static const char *const colours[] = {"red", "green", "yellow"};
  static const char *const motion[] = {"stopped", "moving"};
  static const SpVariableSpec vars[] = {{"light", 3, colours},
                                        {"car", 2, motion}};
  static const SpCondition green[] = {{0, 1}};
  static const SpActionSpec acts[] = {
      {"go_green", 0, 0, 1, 0, NULL}, {"go_yellow", 0, 1, 2, 0, NULL},
      {"go_red", 0, 2, 0, 0, NULL},   {"drive", 1, 0, 1, 1, green},
      {"brake", 1, 1, 0, 0, NULL},
  };
  static const SpDomainSpec spec = {"crossing", 2, vars, 5, acts};

  SpError err = refused(&spec);
  expect_text_before(
      err.message,
      "the cycle of 'light' has 3 actions ('go_green' -> 'go_yellow' "
      "-> 'go_red' -> 'go_green') and holds a requested action",
      400);
  expect_text_before(err.message, "a plan could need an action twice", 400);

  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text(
      e.text,
      "'crossing' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (1 problem):\n");
  expect_text(e.text, "   'go_green' ('light' = green) requested by 'drive'\n");
  expect_no_text(e.text, "   'go_yellow' (");
  expect_text(e.text, "fix: shorten the cycle of 'light' to 2 actions");
  expect_text(e.text,
              "  'light': 'go_green' -> 'go_yellow' -> 'go_red' -> 'go_green'; "
              "requestable: 'go_green'\n");
  expect_text(
      e.text,
      "  'car': 'drive' -> 'brake' -> 'drive'; no requestable action\n");
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
  static const SpVariableSpec vars[] = {{"sw", 3, sw_values},
                                        {"x", 2, bool_names},
                                        {"y", 2, bool_names},
                                        {"z", 3, z_values}};
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
  expect_text(e.text,
              "'sw': the requesters of 'turn_on' ('set_x') and of 'turn_off' "
              "('set_y') lie in separate parts of G minus G('sw').\n");
  explained_free(&e);
}

static void test_connected_outside_gv_is_outside(void **state) {
  (void)state;
  SpActionSpec acts[7];
  SpDomainSpec spec;
  switch_spec(1, &spec, acts);
  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text_before(
      e.text,
      "1. the cycle of 'sw' has both actions requested, and 'set_x' "
      "(requests 'turn_on') is connected to 'set_y' (requests "
      "'turn_off') in G minus G('sw')",
      400);
  expect_text(
      e.text,
      "   path: 'set_x' -prevail-> 'z_up' -pre-> 'z_top' <-prevail- 'set_y'\n");
  expect_text(
      e.text,
      "   edges of the path:\n"
      "     'set_x' -prevail-> 'z_up': 'set_x' sets 'x' = true, a prevail of "
      "'z_up'\n"
      "     'z_up' -pre-> 'z_top': 'z_up' sets 'z' = mid, the pre of 'z_top'\n"
      "     'z_top' <-prevail- 'set_y': 'set_y' sets 'y' = true, a prevail of "
      "'z_top'\n");
  expect_text(e.text,
              "cut the path (e.g. drop the prevail 'x' = true of 'z_up')");
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
  expect_text_before(e.text,
                     "1. the cycle of 'power' has both actions requested, and "
                     "'disarm' (requests 'switch_on') is connected to 'leave' "
                     "(requests 'switch_off')",
                     400);
  expect_text(e.text, "   path: 'disarm' <-prevail- (no action sets 'guard' = "
                      "here) -pre-> 'leave'\n");
  expect_text(e.text, "     'disarm' <-prevail- (no action sets 'guard' = "
                      "here): no action sets "
                      "'guard' = here (only a start state can hold it), a "
                      "prevail of 'disarm'\n");
  expect_text(e.text, "the pre of 'leave'\n");
  expect_text(
      e.text,
      "cut the path (e.g. drop the prevail 'guard' = here of 'disarm')");
  check_paths(e.d, e.text);
  explained_free(&e);
}

/* ------------------------------------------------------------------ */
/* Variables with several cycles                                      */
/* ------------------------------------------------------------------ */

static void test_second_cycle_long_is_outside(void **state) {
  (void)state;
  SpDomainSpec spec;
  farm_spec(1, &spec);
  SpError err = refused(&spec);
  expect_text_before(
      err.message,
      "1. the cycle 'go_barn' -> 'go_mill' -> 'go_field' -> 'go_barn' "
      "(one of the 2 cycles of 'pos') has 3 actions and holds a "
      "requested action",
      400);
  expect_text_before(err.message, "a plan could need an action twice", 400);

  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  assert_int_equal(sp_variable_cycle_count(e.d, 0), 2);
  expect_text(
      e.text,
      "'farm' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (1 problem):\n");
  expect_text(e.text, "fix: shorten that cycle of 'pos' to 2 actions");
  expect_text(e.text, "   'go_barn' ('pos' = barn) requested by 'feed'\n");
  expect_no_text(e.text,
                 "   'go_shop' ('pos' = shop)"); /* the 2-cycle is no problem */
  expect_text(
      e.text,
      "cycles (2):\n"
      "  'pos' (1 of 2): 'go_shop' -> 'go_home' -> 'go_shop'; requestable: "
      "'go_shop'\n"
      "  'pos' (2 of 2): 'go_barn' -> 'go_mill' -> 'go_field' -> 'go_barn'; "
      "requestable: 'go_barn'\n");
  explained_free(&e);

  /* Without feeding, only the 2-cycle is requested: SAS-PUCS2. */
  farm_spec(0, &spec);
  e = explained(compile_or_fail(&spec, 0), SP_CLASS_CS2);
  expect_text(e.text,
              "(not SAS-PUC0: 'go_shop' on the cycle 'go_shop' -> 'go_home' -> "
              "'go_shop' (one of the 2 cycles of 'pos') is requested).\n");
  expect_text(
      e.text,
      "  'pos' (2 of 2): 'go_barn' -> 'go_mill' -> 'go_field' -> 'go_barn'; "
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
  assert_int_equal(
      oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, NULL, 0),
      SP_CLASS_OUTSIDE);
  assert_int_equal(reference_class(&spec), SP_CLASS_OUTSIDE);
  Explained e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text(
      e.text,
      "(1 problem):\n1. the cycle 'a3_v0' -> 'a4_v0' -> 'a2_v0' -> 'a3_v0' "
      "(one of the 2 cycles of 'v') has 3 actions and holds a requested "
      "action");
  expect_text(
      e.text,
      "  'v' (1 of 2): 'a1_v0' -> 'a0_v0' -> 'a1_v0'; no requestable action\n");
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
      {"v", 4, levels},    {"p", 2, bit_names}, {"q", 2, bit_names},
      {"r", 2, bit_names}, {"s", 2, bit_names}, {"t", 2, bit_names}};
  static const SpCondition p1[] = {{1, 1}}, q1[] = {{2, 1}};
  static const SpCondition v_on[] = {{0, 1}}, v_off[] = {{0, 0}};
  static const SpCondition v_up[] = {{0, 3}, {5, 1}},
                           v_down[] = {{0, 2}, {5, 1}};
  const SpActionSpec all[] = {
      {"turn_on", 0, 0, 1, 0, NULL},
      {"turn_off", 0, 1, 0, 0, NULL},
      {"go_up", 0, 2, 3, 1, p1},
      {"go_down", 0, 3, 2, 1, q1},
      {"set_p", 1, 0, 1, 1, v_on},
      {"set_q", 2, 0, 1, 1, v_off},
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
  assert_int_equal(
      oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, NULL, 0),
      SP_CLASS_CSTAR2);
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CSTAR2);
  expect_text(e.text,
              "  'v': the requesters of 'turn_on' ('set_p') and of 'turn_off' "
              "('set_q') lie in separate parts of G minus G('v').\n"
              "  'v': the requesters of 'go_up' ('set_r') and of 'go_down' "
              "('set_s') lie in separate parts of G minus G('v').\n");
  expect_text(
      e.text,
      "cycles (2):\n"
      "  'v' (1 of 2): 'turn_on' -> 'turn_off' -> 'turn_on'; requestable: "
      "'turn_on', 'turn_off'\n"
      "  'v' (2 of 2): 'go_up' -> 'go_down' -> 'go_up'; requestable: "
      "'go_up', 'go_down'\n");
  explained_free(&e);

  two_switches_spec(1, &spec, acts);
  assert_int_equal(
      oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, NULL, 0),
      SP_CLASS_OUTSIDE);
  e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text_before(
      e.text,
      "(1 problem):\n1. the cycle 'go_up' -> 'go_down' -> 'go_up' "
      "(one of the 2 cycles of 'v') has both actions requested, and "
      "'set_r' (requests 'go_up') is connected to 'set_s' (requests "
      "'go_down') in G minus G('v')",
      400);
  expect_text(e.text,
              "   path: 'set_r' <-prevail- 'set_t' -prevail-> 'set_s'\n");
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
      {"v1", 0, 0, 1, 0, NULL}, {"v0", 0, 1, 0, 0, NULL},
      {"v3", 0, 2, 3, 0, NULL}, {"v2", 0, 3, 2, 0, NULL},
      {"p1", 1, 0, 1, 1, v1},   {"q1", 2, 0, 1, 1, v3},
  };
  static const SpDomainSpec spec = {"two_cycles", 3, vars, 6, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CS2);
  expect_text(
      e.text,
      "(not SAS-PUC0: 'v1' on the cycle 'v1' -> 'v0' -> 'v1' (one of the 2 "
      "cycles of 'v'), 'v3' on the cycle 'v3' -> 'v2' -> 'v3' (one of the 2 "
      "cycles of 'v') are requested).\n");
  explained_free(&e);
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
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
