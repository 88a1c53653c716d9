/* classify_checks.h: helpers of the class-analysis tests (test_classify*.c): compile with asserts, explanations, shared domains, path checks, a reference classifier. */
#ifndef classify_checks_h
#define classify_checks_h

#include <stddef.h>

#include "saspu.h"
#include "sp_builtin.h"

extern const char *const bool_names[]; /* "false", "true" */
extern const char *const bit_names[];  /* "0", "1" */

/* Compiles or fails the test (allow_outside as given). */
SpDomain *compile_or_fail(const SpDomainSpec *spec, int allow_outside);
/* Compiles a builtin (inside the classes) and frees the spec. */
SpDomain *compile_builtin(SpBuiltSpec *b);
/* The explanation, in a heap buffer the caller frees. */
char *explain(const SpDomain *d);

/* A compiled domain and its explanation, for the tests that read both. */
typedef struct Explained {
  SpDomain *d;
  char *text;
} Explained;

/* Takes d, asserts its class is `want` and reads its explanation. */
Explained explained(SpDomain *d, SpClass want);
void explained_free(Explained *e);
/* Compiles spec without allow_outside, expecting the class error and no
 * domain; returns the record, whose message the caller reads. */
SpError refused(const SpDomainSpec *spec);
void expect_text(const char *text, const char *part);
void expect_no_text(const char *text, const char *part);
/* `part` occurs and starts within the first `limit` characters. */
void expect_text_before(const char *text, const char *part, size_t limit);

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
void gray_build(Gray *g, int n);

/* The farm hand (two cycles on one variable); `feed` adds the action
 * that takes the domain outside the classes. */
void farm_spec(int feed, SpDomainSpec *spec);

/* The action / variable named by name[0..len-1]; fails the test if none. */
int action_named(const SpDomain *d, const char *name, size_t len);
int variable_named(const SpDomain *d, const char *name, size_t len);
/* The next 'quoted' name at *p: returns its start, sets *len, moves *p past it. */
const char *quoted(const char **p, size_t *len);

/* Checks the "path:" lines of an outside explanation against the domain. */
void check_paths(const SpDomain *d, const char *text);
/* The class straight from the definitions, by brute force. */
SpClass reference_class(const SpDomainSpec *s);

#endif
