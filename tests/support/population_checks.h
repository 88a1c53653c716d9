/* population_checks.h: helpers of the population tests (test_population*.c): paper domains, random pairs, populations checked against sp_plan, snapshots. */
#ifndef population_checks_h
#define population_checks_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"
#include "saspu_population.h"
#include "sp_builtin.h"
#include "test_fixture.h"

enum { PAPER_HORSE, PAPER_CITIZEN, PAPER_MACHINE, PAPER_COUNT };

SpBuiltSpec *paper_spec(int which);
/* n random pairs, packed: starts random; goals a third each random, a
 * named goal resolved for the start, or the start with a few changes. */
void random_pairs(const TestFixture *f, size_t n, uint64_t seed,
                  SpValue *starts, SpValue *goals);
/* A population of n NPCs of f's domain, all at (all 0, all 0). */
SpPopulation *population_for(const TestFixture *f, size_t n, SpAllocator a);
SpPopulation *population_with_pairs(const TestFixture *f, size_t n,
                                    uint64_t seed, SpAllocator a);
/* Every NPC's result equals sp_plan on its (state, goal): same status,
 * same failure code, same plan. Returns how many have no plan. */
size_t expect_matches_sp_plan(const TestFixture *f, const SpPopulation *pop);
/* Every NPC's result as a flat record: status, code, dirty, length, ids. */
uint16_t *snapshot(const SpPopulation *pop);
size_t snapshot_bytes(const SpPopulation *pop);
SpPlanReport plan_with(SpPopulation *pop, int threads, int no_cache,
                       uint64_t budget_ns);

#endif
