/* paper_names.h: the names of the paper domains as one text, checked against the C builtins (tests/test_paper_names.c) and the domain files (spec/paper_names_spec.lua). */
#ifndef paper_names_h
#define paper_names_h

/* One truth for the names: the C test compares sp_builtin_* with these texts,
 * the busted spec reads this file as text and compares the domain files with the
 * same strings. Lines: "domain NAME", "var NAME VALUES...", "act NAME VAR PRE
 * POST [PREVAIL_VAR=VALUE...]" (prevails in variable order), then starts and
 * goals sorted by name: "start NAME VAR=VALUE..." (every variable) and "goal
 * NAME VAR=VALUE..." (the variables the goal sets; the others are left out).
 * Names follow the SSCI 2022 Table I; the two tables differ on fill_feeder's
 * prevail only (IJCAI 2023 / CNIA 2022: none). fill_trough leaves the bucket on
 * the floor, as the worked example <0,0,0> -> <0,0,2> does (the SSCI text
 * writes <s0,1,2>, bucket in hands, which no other goal does). */

/* Each text is string literals and other PAPER_NAMES_ macros, nothing else
 * (the spec expands them). */
#define PAPER_NAMES_HORSE_VARIABLES                                            \
  "var haystack stored in_hands in_feeder\n"                                   \
  "var bucket on_floor in_hands\n"                                             \
  "var water in_source in_bucket in_trough\n"                                  \
  "act drop_haystack haystack in_hands stored\n"                               \
  "act take_haystack haystack stored in_hands bucket=on_floor\n"

#define PAPER_NAMES_HORSE_REST                                                 \
  "act drop_bucket bucket in_hands on_floor\n"                                 \
  "act pick_up_bucket bucket on_floor in_hands haystack=stored\n"              \
  "act fill_bucket water in_source in_bucket bucket=in_hands\n"                \
  "act fill_trough water in_bucket in_trough bucket=in_hands\n"                \
  "start holding_haystack haystack=in_hands bucket=on_floor water=in_source\n" \
  "start morning haystack=stored bucket=on_floor water=in_source\n"            \
  "goal feed_horses haystack=in_feeder bucket=on_floor water=in_trough\n"      \
  "goal fill_feeder haystack=in_feeder bucket=on_floor\n"                      \
  "goal fill_trough bucket=on_floor water=in_trough\n"

#define PAPER_NAMES_HORSE_BREEDER                                              \
  "domain horse_breeder\n" PAPER_NAMES_HORSE_VARIABLES                         \
  "act fill_feeder haystack in_hands in_feeder "                               \
  "bucket=on_floor\n" PAPER_NAMES_HORSE_REST

#define PAPER_NAMES_HORSE_BREEDER_IJCAI                                        \
  "domain horse_breeder_ijcai\n" PAPER_NAMES_HORSE_VARIABLES                   \
  "act fill_feeder haystack in_hands in_feeder\n" PAPER_NAMES_HORSE_REST

#endif
