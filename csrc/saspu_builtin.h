/* saspu_builtin.h: public C API: the paper domains, the Western cast and synthetic benchmark families as ready-made specs. */
#ifndef saspu_builtin_h
#define saspu_builtin_h

#include "saspu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A named start or goal state. `values` has one entry per variable of the
 * domain. A goal written by a scripter may leave variables out; those
 * entries have keep[i] != 0 and mean "the start value s0[v_i]" (the papers
 * write s0[v_i] in such goals). `keep` is NULL when every entry is given;
 * starts always have keep == NULL. */
typedef struct SpNamedState {
  const char *name;
  const SpValue *values;
  const uint8_t *keep;
} SpNamedState;

/* A domain description that owns all of its storage (one block obtained
 * from `alloc`). `spec` can be passed to sp_domain_compile as is. */
typedef struct SpBuiltSpec {
  SpDomainSpec spec;
  int start_count;
  const SpNamedState *starts;
  int goal_count;
  const SpNamedState *goals;
  /* 1 when the domain is outside SAS-PUC0/CS2/C*2, so it compiles only
   * with SpCompileOptions.allow_outside set. */
  int needs_allow_outside;
  /* private: how the block was obtained */
  SpAllocator alloc_;
  size_t size_;
} SpBuiltSpec;

/* Which Horse Breeder table to build. */
enum {
  SP_HORSE_SSCI =
      0, /* SSCI 2022 Table I: fill_feeder needs bucket = on_floor */
  SP_HORSE_IJCAI =
      1 /* IJCAI 2023 / CNIA 2022 tables: fill_feeder has no prevail */
};

/* Every builder returns NULL when the allocator fails or an argument is
 * out of range, and otherwise a spec to release with sp_builtin_free.
 * Variable, value and action names and the action order follow the
 * tables of the SSCI 2022, IJCAI 2023 and CNIA 2022 papers. */

/* Horse Breeder (RDR-2). Starts: "morning" <0,0,0>, "holding_haystack"
 * <1,0,0>. Goals: "feed_horses" <2,0,2>, "fill_feeder" <2,0,s0>,
 * "fill_trough" <s0,0,2>. Class SAS-PUC*2 in both variants. */
SP_API SpBuiltSpec *sp_builtin_horse_breeder(SpAllocator a, int variant);

/* Citizen (ACO). Start "start_of_day" <0,0,0,0,0,1,0>. Goals "work",
 * "buy_supplies", "eat_and_debate_while_wandering". Class SAS-PUCS2. */
SP_API SpBuiltSpec *sp_builtin_citizen(SpAllocator a);

/* Acquisition Machine (HZD). Starts "under_attack" <1,1,1,1,0,0,1> and
 * "ready_to_work" <0,0,0,1,1,0,0>. Goal "harvest" <1,1,3,1,1,0,0>.
 * Class SAS-PUC0. */
SP_API SpBuiltSpec *sp_builtin_acquisition_machine(SpAllocator a);

/* MultiPrv_n_Cycle (CNIA 2022), m >= 1 variables v0..v(m-1), each with
 * values 0..n-1 on one n-cycle, n >= 2. Actions per variable in cycle
 * order a1 (0->1), ..., a(n-1) (n-2 -> n-1), a0 (n-1 -> 0); every action on
 * v_i requires v_j = floor(n/2) for all j > i. Start and goal "cnia":
 * all 0, and all 0 except v0 = n-1. For n >= 3 the domain is outside the
 * tractable classes (needs_allow_outside is set). */
SP_API SpBuiltSpec *sp_builtin_multiprv_n_cycle(SpAllocator a, int m, int n);

/* MultiPrv_2_Cycle: the n = 2 case (the tunnel lights), inside SAS-PUCS2. */
SP_API SpBuiltSpec *sp_builtin_multiprv_2_cycle(SpAllocator a, int m);

/* OnePrv_5, m >= 1: chains 0->1->2->3->4 on every variable; each action
 * on v_i (i < m-1) requires v_(i+1) = 2. Start "cnia" all 0, goal "cnia"
 * all 4. Class SAS-PUC0. */
SP_API SpBuiltSpec *sp_builtin_oneprv_5(SpAllocator a, int m);

/* The Western town's cast (Red Dead Redemption 2), the seven classes of
 * domains/<class>.lua in the papers' order. csrc/builtin/western_cast.c is
 * generated from those files by tools/gen_builtin.lua (never edit it):
 * same names, actions, starts and goals; starts and goals sorted by name.
 * A goal variable the file leaves out is SP_ANY (free, saspu's default
 * reading), a KEEP one has keep[i] = 1. */
enum {
  SP_WESTERN_HORSE_BREEDER = 0,
  SP_WESTERN_FARRIER,
  SP_WESTERN_NATIVE_HUNTER,
  SP_WESTERN_BANDIT,
  SP_WESTERN_INNKEEPER,
  SP_WESTERN_DANCER,
  SP_WESTERN_DRUNK_CITIZEN,
  SP_WESTERN_COUNT
};

/* One class of the cast, which in 0 .. SP_WESTERN_COUNT-1. */
SP_API SpBuiltSpec *sp_builtin_western(SpAllocator a, int which);

/* Its domain name ("farrier"), or NULL when `which` is out of range. */
SP_API const char *sp_builtin_western_name(int which);

/* Deep copy of a domain description and named states into one owned
 * block (names, arrays, everything). The builders use it; callers may use
 * it to keep a spec alive independently of where it came from. Returns
 * NULL on allocation failure or when a count is negative or an array
 * that a positive count needs is NULL. */
SP_API SpBuiltSpec *sp_builtin_copy(SpAllocator a, const SpDomainSpec *spec,
                                    int start_count, const SpNamedState *starts,
                                    int goal_count, const SpNamedState *goals);

/* Releases a spec from any builder; NULL is ignored. */
SP_API void sp_builtin_free(SpBuiltSpec *b);

/* Lookups by name; NULL / -1 when absent. */
SP_API const SpNamedState *sp_builtin_start(const SpBuiltSpec *b,
                                            const char *name);
SP_API const SpNamedState *sp_builtin_goal(const SpBuiltSpec *b,
                                           const char *name);
SP_API int sp_builtin_action(const SpBuiltSpec *b, const char *name);

/* Writes the total goal state for start s0: out[i] = s0[i] where the goal
 * keeps the start value, goal->values[i] otherwise. */
SP_API void sp_builtin_resolve_goal(const SpBuiltSpec *b,
                                    const SpNamedState *goal, const SpValue *s0,
                                    SpValue *out);

#ifdef __cplusplus
}
#endif

#endif
