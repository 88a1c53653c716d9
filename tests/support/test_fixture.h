/* test_fixture.h: a built-in domain compiled with its workspace, and states for it, for cmocka tests. */
#ifndef test_fixture_h
#define test_fixture_h

#include "random_domain.h" /* RdRng */
#include "saspu.h"
#include "saspu_agents.h"
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

/* Spawns an agent of crowd c (of f's domain) in f's start state `start`
 * at cell (x, y), 0-based, without a home; returns its index. A start
 * that f's spec lacks, or a refused spawn, fails the running cmocka test
 * with the core's message. */
size_t test_spawn(const TestFixture *f, SpCrowd *c, const char *start, int x,
                  int y);

/* The index of f's variable `name`; a name f lacks fails the running
 * cmocka test. */
int test_var(const TestFixture *f, const char *name);

/* Draws every value of s uniformly from its variable's range. */
void test_random_state(const SpDomain *d, RdRng *rng, SpValue *s);

/* Writes state number k of d in mixed radix (v0 varies fastest) into s;
 * returns 0 when k is past the last state (s is then k modulo the count). */
int test_decode_state(const SpDomain *d, long k, SpValue *s);

#endif
