/* sp_detail.h: private to csrc/agents/: the detail of no_plans (detail.c). */
#ifndef sp_detail_h
#define sp_detail_h

#include "sp_agents.h"

/* Agent i's detail: FAIL_DETAIL_NONE when the crowd keeps none. */
FailDetail sp__detail_get(const SpCrowd *c, size_t i);

/* Records agent i's detail (worker wk, or -1 serial), making the crowd's
 * array at its first use; without memory for it the detail is not kept
 * (explanations then name no failure) and it returns 0. */
int sp__detail_put(SpCrowd *c, int wk, size_t i, FailDetail d);

/* Serial: 1 when the crowd has its array (made now if needed). */
int sp__detail_ready(SpCrowd *c);

/* Serial (a spawn): slot i keeps no detail. */
void sp__detail_clear(SpCrowd *c, size_t i);

void sp__detail_free(SpCrowd *c);

/* The array's bytes in memory (0 while there is none). */
size_t sp__detail_bytes(const SpCrowd *c);

#endif
