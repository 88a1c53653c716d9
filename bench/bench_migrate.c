/* bench_migrate.c: a migration of a save with many places (131072 by default) whose names were chosen to collide in an FNV-1a hash table of them, against random names of the same count: ms and the ratio. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "saspu_agents.h"
#include "saspu_grid.h"
#include "saspu_save.h"

#define FNV_START 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define NAME_LEN  10 /* 8 prefix bytes, 2 chosen */

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++) h = (h ^ (uint8_t)s[k]) * FNV_PRIME;
  return h;
}

/* The inverse of the prime modulo 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t a) {
  uint64_t x = a;
  for (int k = 0; k < 6; k++) x *= 2 - a * x;
  return x;
}

/* An 8-byte prefix from counter k (letters and digits). */
static void prefix(char *out, uint64_t k) {
  static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int j = 0; j < 8; j++, k /= 36) out[j] = set[k % 36];
}

/* n distinct names whose FNV-1a 64 (from the offset basis, as a save's
 * reader hashes them) agree in their low `bits` bits: per prefix, the
 * last two bytes are solved for backward (the low bits of a product
 * depend only on the low bits of its factors). */
static char *colliding_names(size_t n, int bits) {
  char *names = malloc(n * (NAME_LEN + 1));
  uint64_t mask = (1ull << bits) - 1, inv = inverse(FNV_PRIME);
  uint64_t target = 0x5A5A5 & mask, u = (target * inv) & mask;
  size_t made = 0;
  for (uint64_t k = 0; made < n; k++) {
    char *s = names + made * (NAME_LEN + 1);
    prefix(s, k);
    uint64_t h = fnv(FNV_START, s, 8) & mask;
    for (int b2 = 'A'; b2 <= 'Z' && made < n; b2++) {
      uint64_t w = ((u ^ (uint64_t)b2) * inv) & mask; /* h ^ b1 must be w */
      if (((h ^ w) & ~0xFFull) != 0) continue;
      int b1 = (int)((h ^ w) & 0xFF);
      if (b1 == 0) continue;
      s[8] = (char)b1, s[9] = (char)b2, s[10] = '\0';
      if ((fnv(FNV_START, s, NAME_LEN) & mask) != target) abort();
      made++;
      break; /* one name per prefix: all distinct */
    }
  }
  return names;
}

static char *random_names(size_t n, uint64_t seed) {
  char *names = malloc(n * (NAME_LEN + 1));
  for (size_t k = 0; k < n; k++) {
    char *s = names + k * (NAME_LEN + 1);
    prefix(s, k);
    for (int j = 8; j < NAME_LEN; j++)
      s[j] = (char)('a' + bu_rng_below(&seed, 26));
    s[NAME_LEN] = '\0';
  }
  return names;
}

/* ms of one migration of a world of n places called `names` into itself. */
static double migrate_ms(SpWorld *w, const char *names, size_t n) {
  const char **list = malloc(n * sizeof *list);
  for (size_t k = 0; k < n; k++) list[k] = names + k * (NAME_LEN + 1);
  SpSaveNames sn = {list, NULL};
  void *buf = NULL;
  size_t len = 0;
  SpError err;
  if (sp_world_save_named(w, NULL, 0, &sn, NULL, 0, &buf, &len, &err) !=
      SP_OK) {
    fprintf(stderr, "bench_migrate: save: %s\n", err.message);
    exit(1);
  }
  SpMigration m;
  double t0 = bu_cpu_ns(); /* the machine is shared: CPU time */
  if (sp_world_migrate(w, NULL, 0, &sn, NULL, 0, buf, len, &m, &err) != SP_OK) {
    fprintf(stderr, "bench_migrate: migrate: %s\n", err.message);
    exit(1);
  }
  double ms = (bu_cpu_ns() - t0) / 1e6;
  if (m.report_len != 0) { /* the same names: nothing to say */
    fprintf(stderr, "bench_migrate: report: %.200s\n", m.report);
    exit(1);
  }
  sp_migration_free(w, &m);
  sp_world_save_free(w, buf, len);
  free(list);
  return ms;
}

/* bench_migrate [places] [repeats] */
int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 131072;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (reps < 1 || reps > 32) reps = 3;
  char model[128];
  bu_cpu_model(model, sizeof model);
  double load[3];
  bu_load_average(load);
  printf("bench_migrate: %s, %d online cores, load average %.2f\n", model,
         bu_core_count(), load[0]);
  SpAllocator plain = {NULL, NULL};
  SpGrid *g = NULL;
  SpWorld *w = NULL;
  if (sp_grid_new(512, 512, 1.0, plain, &g, NULL) != SP_OK ||
      sp_world_new(g, plain, &w, NULL) != SP_OK ||
      sp_world_kind(w, "spot", NULL, NULL) != SP_OK)
    return 1;
  for (size_t k = 0; k < n; k++)
    if (sp_world_add_place(w, 0, (int)(k % 512), (int)(k / 512 % 512), 0, NULL,
                           NULL) != SP_OK)
      return 1;
  /* a table of the old names has the power of two above 2 n + 1 slots */
  int bits = 1;
  while ((1ull << bits) < 2 * (uint64_t)n + 2) bits++;
  char *bad = colliding_names(n, bits), *fair = random_names(n, 7);
  double tb[32], tf[32];
  for (int r = 0; r < reps; r++) {
    tf[r] = migrate_ms(w, fair, n);
    tb[r] = migrate_ms(w, bad, n);
  }
  BuStats sf = bu_stats(tf, (size_t)reps), sb = bu_stats(tb, (size_t)reps);
  printf("%zu places, names of %d bytes, CPU ms, median of %d:\n", n, NAME_LEN,
         reps);
  printf("  random names      %9.2f ms\n", sf.median);
  printf("  colliding names   %9.2f ms  (%.2fx the random ones; they share "
         "their low %d hash bits)\n",
         sb.median, sb.median / sf.median, bits);
  free(bad);
  free(fair);
  sp_world_free(w);
  sp_grid_free(g);
  return 0;
}
