/* paper_facts.h: facts about the paper domains that several tests check: breadth-first counts and the worked example. */
#ifndef paper_facts_h
#define paper_facts_h

#include "saspu.h"
#include "sp_builtin.h"

/* ------------------------------------------------------------------ */
/* Counts over every (s0, s*) pair                                    */
/* ------------------------------------------------------------------ */

/* One paper domain as the exhaustive tests check it. */
typedef struct PaperCount {
  const char *test;                     /* the name of its cmocka test */
  SpBuiltSpec *(*build)(SpAllocator a); /* its builder */
  long states;                          /* states of the domain */
  long solvable;                        /* (s0, s*) pairs BFS can solve */
} PaperCount;

#define PAPER_COUNT_N 4

/* Horse Breeder (SSCI, IJCAI), Citizen, Acquisition Machine. */
extern const PaperCount paper_counts[PAPER_COUNT_N];

/* A cmocka test entry for paper_counts[i]: runs f with the entry as its
 * *state, under the entry's name. Expands to a braced initializer, so it
 * needs <cmocka.h> only where it is used. */
#define PAPER_COUNT_TEST(i, f)                                                 \
  { paper_counts[i].test, f, NULL, NULL, (void *)&paper_counts[i] }

/* ------------------------------------------------------------------ */
/* The worked example                                                 */
/* ------------------------------------------------------------------ */

/* Horse Breeder (SSCI table), holding the hay <1,0,0> to FeedHorses
 * <2,0,2>: the seven actions of a sigma-3 chain on haystack. */
#define PAPER_SIGMA3_LENGTH 7
extern const SpValue paper_sigma3_start[3];
extern const SpValue paper_sigma3_goal[3];
/* The plan's action names, then NULL. */
extern const char *const paper_sigma3_plan[PAPER_SIGMA3_LENGTH + 1];

#endif
