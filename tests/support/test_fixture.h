/* test_fixture.h: a built-in domain compiled with its workspace, and states for it, for cmocka tests. */
#ifndef test_fixture_h
#define test_fixture_h

#include "random_domain.h" /* RdRng */
#include "saspu.h"
#include "sp_builtin.h"

typedef struct TestFixture {
  SpBuiltSpec *b;
  SpDomain *d;
  SpWorkspace *ws;
  int m; /* variables */
  int a; /* actions */
} TestFixture;

/* Takes b (which must not be NULL), compiles it with the allow_outside it
 * says it needs and makes a workspace, both with the C library's
 * allocator. Any failure fails the running cmocka test, naming the
 * domain and the compiler's message. */
void test_fixture_open(TestFixture *f, SpBuiltSpec *b);

/* Frees the workspace, the domain and the spec. */
void test_fixture_close(TestFixture *f);

/* Draws every value of s uniformly from its variable's range. */
void test_random_state(const SpDomain *d, RdRng *rng, SpValue *s);

/* Writes state number k of d in mixed radix (v0 varies fastest) into s;
 * returns 0 when k is past the last state (s is then k modulo the count). */
int test_decode_state(const SpDomain *d, long k, SpValue *s);

#endif
