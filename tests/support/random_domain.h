/* random_domain.h: seeded generator of small random SAS-PU domains for property tests. */
#ifndef random_domain_h
#define random_domain_h

#include <stdint.h>

#include "saspu.h"

#define RD_MAX_VARIABLES 6
#define RD_MAX_VALUES    5
#define RD_MAX_ACTIONS   (RD_MAX_VARIABLES * RD_MAX_VALUES)
#define RD_MAX_PREVAILS  3

/* A small deterministic PRNG (splitmix64), so runs repeat exactly. */
typedef struct RdRng {
  uint64_t state;
} RdRng;

void rd_seed(RdRng *r, uint64_t seed);
uint64_t rd_next(RdRng *r);
/* Uniform in [0, n), n >= 1. */
int rd_below(RdRng *r, int n);
/* 1 with probability percent / 100. */
int rd_chance(RdRng *r, int percent);

/* What a domain is steered towards. The steering only biases the
 * structure; the class a domain lands in is whatever the analysis says. */
typedef enum RdFlavor {
  RD_FLAVOR_C0 = 0,  /* requests avoid cycle values */
  RD_FLAVOR_CS2,     /* 2-cycles, one requested value per cycle */
  RD_FLAVOR_CSTAR2,  /* a switch variable whose two values are requested
                         by two separate groups of variables */
  RD_FLAVOR_OUTSIDE, /* long cycles and requests anywhere */
  RD_FLAVOR_ANY,     /* no steering */
  RD_FLAVOR_COUNT
} RdFlavor;

/* One generated domain; `spec` points into the struct itself, so do not
 * copy a RandomDomain by value once generated. */
typedef struct RandomDomain {
  SpDomainSpec spec;
  uint64_t seed;
  RdFlavor flavor;
  /* 1 when some variable got two separate cycles (a disconnected G(v)) */
  int multi_cycle;
  SpVariableSpec variables[RD_MAX_VARIABLES];
  SpActionSpec actions[RD_MAX_ACTIONS];
  SpCondition prevails[RD_MAX_ACTIONS][RD_MAX_PREVAILS];
  char variable_names[RD_MAX_VARIABLES][16];
  char action_names[RD_MAX_ACTIONS][32];
  char name[48];
} RandomDomain;

/* Fills `rd` from the seed: 2-6 variables of 2-5 values; per variable a
 * random functional value graph (each value set by at most one action:
 * trees, 2-cycles, longer cycles, extra ghosts); 0-3 prevails per action
 * on other variables. Names: variables v0.., values "0".."4", actions
 * a<post>_v<var>, listed by variable then value. Always a valid SAS-PU
 * description (post-unique, unary, pre != post, no prevail on its own
 * variable). */
void random_domain_generate(RandomDomain *rd, uint64_t seed, RdFlavor flavor);

const char *rd_flavor_name(RdFlavor f);

#endif
