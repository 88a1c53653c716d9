/* bench_population.c: the papers' Figure 3 / Table IV: runtime per frame of whole populations (100k to 3.4M NPCs), cache off/on, one core/all cores. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "saspu.h"
#include "saspu_population.h"
#include "saspu_threads.h"
#include "sp_builtin.h"
#include "sp_population.h" /* sp__population_use_table: the baseline row */

#include "bench_population.h"

typedef struct Paper {
  const char *key;     /* short name in tables and CSV */
  const char *game;    /* the paper's benchmark name */
  double fit_a, fit_b; /* SSCI Table IV: a + b x ms */
} Paper;

static const Paper papers[] = {
    {"horse_breeder", "RDR-2", 0.0314, 2.46e-7},
    {"citizen", "ACO", 0.0157, 1.54e-7},
    {"acquisition_machine", "HZD", 0.0676, 3.76e-7},
};
enum { PAPER_COUNT = 3 };

/* The cold-gap rows (cold_gap.c) for each domain that runs: n NPCs. */
static void cold_gap_rows(const char *only, int fixed, size_t n, int frames) {
  printf(
      "cold frame against the single plan on the same pairs: %zu NPCs, one\n"
      "thread, cache off, thread CPU time, median of %d frames; `frame` =\n"
      "sp_population_plan per NPC, `stream` = sp_plan on the frame's NPCs in\n"
      "order, `repeated` = sp_plan on each pair 64 times in a row "
      "(bench_cold's\n"
      "figure), median over the pairs\n",
      n, frames);
  printf("   %-20s %8s %10s %10s %11s %10s %10s\n", "domain", "frame ns",
         "stream ns", "repeat ns", "frame/rep", "frame/str", "str/rep");
  for (int which = 0; which < PAPER_COUNT; which++) {
    if (only != NULL && strcmp(only, papers[which].key) != 0) continue;
    Workload w;
    workload_open(&w, which, fixed);
    cold_gap(&w, papers[which].key, n, frames);
    workload_close(&w);
    fflush(stdout);
  }
}

/* ------------------------------------------------------------------ */
/* Measurement                                                        */
/* ------------------------------------------------------------------ */

/* The rows of a table: cache off, the hash caches alone (the path before
 * the direct table), the direct table with mixed-radix ranks one NPC at a
 * time (the path before the bit-packed layout), and the cache as it runs
 * by default (the bit-packed table on small domains, with pext where the
 * CPU has a fast one; hash caches behind it). The older paths are kept
 * as baselines measured in the same process. */
/* `bytes` is the bit-packed table with ranks packed by the byte loop
 * instead of pext (the reference path; by default a CPU without a fast
 * pext runs `radix`). */
enum {
  MODE_OFF = 0,
  MODE_HASH,
  MODE_RADIX,
  MODE_BYTES,
  MODE_TABLE,
  MODE_COUNT
};
static const char *const mode_names[MODE_COUNT] = {"off", "hash", "radix",
                                                   "bytes", "on"};
static const int mode_table[MODE_COUNT] = {SP_TABLE_OFF, SP_TABLE_OFF,
                                           SP_TABLE_RADIX, SP_TABLE_PORTABLE,
                                           SP_TABLE_AUTO};

typedef struct Cell {
  double median_ms, min_ms, max_ms;
  double cpu_ms; /* median CPU time of the whole process (every thread) */
  uint64_t hits, misses;
  size_t failures;
} Cell;

static double process_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One warm-up frame (sets up workspaces, caches, threads; fills the
 * caches), then `frames` timed frames; the time is sp_population_plan's
 * own (elapsed_ns), which plans every NPC. The process CPU time over the
 * call is kept too: on a machine shared with other jobs the wall time
 * with several threads includes waiting for a descheduled worker, the
 * CPU time does not. */
static Cell measure(const Workload *w, SpPopulation *pop, SpValue *st,
                    SpValue *go, size_t n, int threads, int mode, int frames) {
  int no_cache = mode == MODE_OFF;
  sp__population_use_table(pop, mode_table[mode]);
  double ms[64], cpu[64];
  Cell c;
  memset(&c, 0, sizeof c);
  SpPlanOptions o = {threads, no_cache, 0, NULL};
  SpError err;
  for (int f = 0; f <= frames; f++) {
    load_frame(w, pop, st, go, n, f);
    SpPlanReport r;
    double cpu0 = process_cpu_ms();
    if (sp_population_plan(pop, &o, &r, &err) != SP_OK) die("plan", &err);
    double cpu1 = process_cpu_ms();
    if (r.planned != n || r.waiting != 0)
      die("plan: not every NPC planned", NULL);
    if (f == 0) continue;
    ms[f - 1] = (double)r.elapsed_ns / 1e6;
    cpu[f - 1] = cpu1 - cpu0;
    c.hits += r.cache_hits;
    c.misses += r.cache_misses;
    c.failures += r.failures;
  }
  BuStats s = bu_stats(ms, (size_t)frames);
  c.median_ms = s.median;
  c.min_ms = s.min;
  c.max_ms = s.max;
  c.cpu_ms = bu_stats(cpu, (size_t)frames).median;
  return c;
}

/* The streaming floor of a cached frame: the same bytes moved, nothing
 * planned. Each worker reads its slice's states and goals (m <= 8 bytes
 * each per NPC) and writes a status byte and a 4-byte handle per NPC, as a
 * frame served wholly from a cache at best does. The arrays are
 * rewritten between frames (not timed), as load_frame does. */
typedef struct Stream {
  const SpValue *st, *go;
  uint8_t *status;
  uint32_t *handle;
  size_t n, m;
  int workers;
} Stream;

static void stream_job(void *arg, int worker) {
  const Stream *j = arg;
  size_t lo = j->n * (size_t)worker / (size_t)j->workers;
  size_t hi = j->n * (size_t)(worker + 1) / (size_t)j->workers;
  uint64_t x = 0;
  for (size_t i = lo; i < hi; i++) {
    /* one 8-byte load covers a state of m <= 8 values (arrays padded) */
    uint64_t a, b;
    memcpy(&a, j->st + i * j->m, 8);
    memcpy(&b, j->go + i * j->m, 8);
    x ^= a ^ (b >> 3);
    j->status[i] = (uint8_t)x;
    j->handle[i] = (uint32_t)x;
  }
}

static double streaming_floor_ms(size_t n, size_t m, int threads, int frames) {
  SpValue *st = malloc(n * m + 8), *go = malloc(n * m + 8);
  uint8_t *status = malloc(n);
  uint32_t *handle = malloc(n * sizeof *handle);
  SpThreadPool *pool = NULL;
  if (st == NULL || go == NULL || status == NULL || handle == NULL ||
      sp_thread_pool_new(threads, plain, &pool, NULL) != SP_OK)
    die("memory for the streaming floor", NULL);
  Stream j = {st, go, status, handle, n, m, threads};
  double ms[64];
  for (int f = 0; f <= frames; f++) {
    for (size_t i = 0; i < n * m + 8; i++)
      st[i] = (SpValue)(i + (size_t)f), go[i] = (SpValue)(i * 3u);
    uint64_t t0 = bu_now_ns();
    sp_thread_pool_run(pool, threads, stream_job, &j);
    if (f > 0) ms[f - 1] = (double)(bu_now_ns() - t0) / 1e6;
  }
  sp_thread_pool_free(pool);
  free(st);
  free(go);
  free(status);
  free(handle);
  return bu_stats(ms, (size_t)frames).median;
}

static void source_dir(char *buf, size_t size) {
  const char *slash = strrchr(__FILE__, '/');
  if (slash == NULL)
    snprintf(buf, size, ".");
  else
    snprintf(buf, size, "%.*s", (int)(slash - __FILE__), __FILE__);
}

/* Most entries of --threads. */
enum { THREAD_OPTS_MAX = 8 };

/* Parses "hash,on" into a mask of modes; 0 when malformed. */
static unsigned parse_modes(const char *s) {
  unsigned mask = 0;
  while (*s) {
    size_t len = strcspn(s, ",");
    int found = 0;
    for (int k = 0; k < MODE_COUNT; k++) {
      if (strlen(mode_names[k]) == len && strncmp(s, mode_names[k], len) == 0) {
        mask |= 1u << k;
        found = 1;
      }
    }
    if (!found) return 0;
    s += len;
    if (*s == ',') s++;
  }
  return mask;
}

/* Parses "1,2,8" into opts; returns the count, or 0 when malformed. */
static int parse_thread_list(const char *s, int *opts) {
  int n = 0;
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > SP_THREAD_POOL_MAX || n == THREAD_OPTS_MAX)
      return 0;
    opts[n++] = (int)v;
    s = end;
    if (*s == ',')
      s++;
    else if (*s)
      return 0;
  }
  return n;
}

static void usage(void) {
  printf("usage: bench_population [--out DIR] [--quick] [--frames K] [--domain "
         "NAME]\n"
         "                       [--threads LIST] [--goals fixed] [--npcs N]\n"
         "  --out DIR   where the CSV files go (default: bench/out next to "
         "this source)\n"
         "  --quick     NPC counts 100k and 1M only, 3 frames\n"
         "  --frames K  timed frames per cell (default 7, at most 60); the "
         "median is reported\n"
         "  --domain NAME  only horse_breeder, citizen or acquisition_machine\n"
         "  --threads LIST worker counts to measure, comma-separated (default: "
         "1 and\n"
         "                 the online cores), e.g. 1,2,4,8,16; at most %d "
         "entries\n"
         "  --goals fixed  the paper goals as conditions (kept variables "
         "free), so NPCs\n"
         "                 share a few goals as in a game; default: kept "
         "variables take\n"
         "                 the start's values (a goal per start)\n"
         "  --npcs N    one population size only\n"
         "  --cache LIST   rows to measure, comma-separated among off, hash, "
         "radix,\n"
         "                 bytes, on\n"
         "                 (default: all)\n"
         "  --cold-gap     only the cold frame against the single plan on the "
         "same\n"
         "                 pairs (100k NPCs unless --npcs; printed after a "
         "full run too)\n",
         THREAD_OPTS_MAX);
}

int main(int argc, char **argv) {
  static const size_t counts_full[] = {100000, 500000, 1000000, 2000000,
                                       3400000};
  static const size_t counts_quick[] = {100000, 1000000};
  const size_t *counts = counts_full;
  size_t count_n = 5;
  int frames = 7;
  const char *out_dir = NULL, *only = NULL;
  int thread_opts[THREAD_OPTS_MAX];
  int thread_n = 0;
  int fixed = 0, gap_only = 0;
  unsigned modes = (1u << MODE_COUNT) - 1u;
  size_t one_count[1];
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = atoi(argv[++i]);
      if (frames < 1 || frames > 60) {
        usage();
        return 2;
      }
    } else if (strcmp(argv[i], "--domain") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      thread_n = parse_thread_list(argv[++i], thread_opts);
      if (thread_n == 0) {
        usage();
        return 2;
      }
    } else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
      modes = parse_modes(argv[++i]);
      if (modes == 0) {
        usage();
        return 2;
      }
    } else if (strcmp(argv[i], "--goals") == 0 && i + 1 < argc &&
               strcmp(argv[i + 1], "fixed") == 0) {
      fixed = 1;
      i++;
    } else if (strcmp(argv[i], "--npcs") == 0 && i + 1 < argc) {
      long v = atol(argv[++i]);
      if (v < 1 || v > 100000000) {
        usage();
        return 2;
      }
      one_count[0] = (size_t)v;
      counts = one_count;
      count_n = 1;
    } else if (strcmp(argv[i], "--cold-gap") == 0) {
      gap_only = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      counts = counts_quick;
      count_n = 2;
      frames = 3;
    } else {
      usage();
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  char src[2048], dir[4096], model[256];
  source_dir(src, sizeof src);
  if (out_dir == NULL)
    snprintf(dir, sizeof dir, "%s/out", src);
  else
    snprintf(dir, sizeof dir, "%s", out_dir);
  bu_cpu_model(model, sizeof model);
  int cores = sp_online_cores();
  double t_start = bu_now_ns();
  printf("saspu population benchmark (SSCI 2022 Figure 3 / Table IV)\n");
  double load0[3], load1[3];
  bu_load_average(load0);
  printf("cpu: %s\ncores online: %d\nload average at start: %.2f %.2f %.2f\n",
         model, cores, load0[0], load0[1], load0[2]);
  if (load0[0] > 0.5)
    printf(
        "warning: the machine is busy; timings with %d threads suffer most\n",
        cores);
  if (gap_only) {
    cold_gap_rows(only, fixed, count_n == 1 ? counts[0] : 100000, frames);
    bu_load_average(load1);
    printf("load average at end: %.2f %.2f %.2f\n", load1[0], load1[1],
           load1[2]);
    return 0;
  }
  printf(
      "every NPC replans at every frame; its (s0, s*) pair changes at every "
      "frame;\n"
      "time = sp_population_plan for the whole population, median of %d "
      "frames\n"
      "after one warm-up frame; chunk %d NPCs; cache %d entries per worker;\n"
      "cpu ms = CPU time of all threads over the call (median);\n"
      "cache hash = the per-worker hash caches alone, radix = the direct "
      "table\n"
      "with mixed-radix ranks one NPC at a time (the baselines), bytes = the\n"
      "bit-packed table with ranks packed by a byte loop, on = as by default\n"
      "(bit-packed table with pext where the CPU has a fast one: %s); goals: "
      "%s\n\n",
      frames, SP_POPULATION_CHUNK, SP_PLAN_CACHE_DEFAULT_CAPACITY,
      sp__population_fast_pext() ? "yes" : "no",
      fixed ? "fixed conditions (--goals fixed)"
            : "kept variables take the start's values");

  FILE *csv = bu_csv_open(
      dir, "population.csv",
      "domain,game,npcs,cache,threads,median_ms,min_ms,max_ms,"
      "cpu_ms,ns_per_npc,npcs_per_s,cache_hits,cache_misses,failures,"
      "bytes_per_npc,bytes_total");
  FILE *fits = bu_csv_open(dir, "population_fit.csv",
                           "domain,game,cache,threads,a_ms,b_ms_per_npc,r2,"
                           "paper_a_ms,paper_b_ms_per_npc");
  if (csv == NULL || fits == NULL) return 1;

  if (thread_n == 0) { /* default: one core and all of them */
    thread_opts[thread_n++] = 1;
    if (cores > 1) thread_opts[thread_n++] = cores;
  }
  size_t max_n = counts[count_n - 1];
  SpValue *st = malloc(max_n * 8), *go = malloc(max_n * 8);
  if (st == NULL || go == NULL) die("memory", NULL);
  double at_max[PAPER_COUNT][MODE_COUNT][THREAD_OPTS_MAX];
  memset(at_max, 0, sizeof at_max);

  int ran[PAPER_COUNT] = {0}, vars_of[PAPER_COUNT] = {0};
  for (int which = 0; which < PAPER_COUNT; which++) {
    if (only != NULL && strcmp(only, papers[which].key) != 0) continue;
    ran[which] = 1;
    Workload w;
    workload_open(&w, which, fixed);
    vars_of[which] = w.m;
    printf("== %s (%s): %d variables, %d actions, %s; %zu solvable pairs, "
           "plans of %.2f actions on average\n",
           papers[which].key, papers[which].game, w.m,
           sp_domain_action_count(w.d), sp_class_name(sp_domain_class(w.d)),
           w.pairs, w.avg_len);
    printf("%10s %6s %7s %10s %10s %10s %9s %10s %12s\n", "npcs", "cache",
           "threads", "median ms", "min ms", "max ms", "ns/npc", "cpu ms",
           "hit rate");
    double xs[MODE_COUNT][THREAD_OPTS_MAX][8],
        ys[MODE_COUNT][THREAD_OPTS_MAX][8];
    for (size_t ci = 0; ci < count_n; ci++) {
      size_t n = counts[ci];
      SpPopulation *pop = NULL;
      SpError err;
      if (sp_population_new(w.d, n, plain, &pop, &err) != SP_OK)
        die("population", &err);
      for (int cache = 0; cache < MODE_COUNT; cache++) {
        if (!(modes >> cache & 1u)) continue;
        for (int ti = 0; ti < thread_n; ti++) {
          int threads = thread_opts[ti];
          if (cache) sp_population_cache_clear(pop);
          Cell c = measure(&w, pop, st, go, n, threads, cache, frames);
          SpPopulationStats s;
          sp_population_stats(pop, &s);
          double ns_per = c.median_ms * 1e6 / (double)n;
          double hit = c.hits + c.misses
                           ? (double)c.hits / (double)(c.hits + c.misses)
                           : 0;
          printf("%10zu %6s %7d %10.3f %10.3f %10.3f %9.2f %10.3f %11.4f%%\n",
                 n, mode_names[cache], threads, c.median_ms, c.min_ms, c.max_ms,
                 ns_per, c.cpu_ms, 100.0 * hit);
          fprintf(csv,
                  "%s,%s,%zu,%s,%d,%.4f,%.4f,%.4f,%.4f,%.3f,%.0f,%llu,%llu,%zu,"
                  "%zu,%zu\n",
                  papers[which].key, papers[which].game, n, mode_names[cache],
                  threads, c.median_ms, c.min_ms, c.max_ms, c.cpu_ms, ns_per,
                  (double)n / (c.median_ms / 1e3), (unsigned long long)c.hits,
                  (unsigned long long)c.misses, c.failures, s.bytes_per_npc,
                  s.bytes_total);
          xs[cache][ti][ci] = (double)n;
          ys[cache][ti][ci] = c.median_ms;
          if (ci == count_n - 1) at_max[which][cache][ti] = c.median_ms;
          fflush(stdout);
        }
      }
      if (ci == 0) {
        SpPopulationStats s;
        sp_population_stats(pop, &s);
        printf(
            "   bytes per NPC: %zu (state %d + goal %d + status 1 + handle 4 + "
            "plan slot %d)\n",
            s.bytes_per_npc, w.m, w.m, sp_domain_action_count(w.d));
      }
      sp_population_free(pop);
    }
    if (count_n < 2) { /* one size: no fit */
      printf("\n");
      workload_close(&w);
      continue;
    }
    printf("   linear fits, runtime (ms) = a + b x for x NPCs:\n");
    printf("   %-28s a = %8.4f  b = %.3e  (%.3f ns per NPC)\n",
           "SSCI Table IV (8 cores)", papers[which].fit_a, papers[which].fit_b,
           papers[which].fit_b * 1e6);
    for (int cache = 0; cache < MODE_COUNT; cache++) {
      if (!(modes >> cache & 1u)) continue;
      for (int ti = 0; ti < thread_n; ti++) {
        double coef[2] = {0, 0};
        double r2 = bu_fit_poly(xs[cache][ti], ys[cache][ti], count_n, 1, coef);
        char label[64];
        snprintf(label, sizeof label, "saspu cache %s, %d thread%s",
                 mode_names[cache], thread_opts[ti],
                 thread_opts[ti] > 1 ? "s" : "");
        printf("   %-28s a = %8.4f  b = %.3e  (%.3f ns per NPC), R^2 %.4f\n",
               label, coef[0], coef[1], coef[1] * 1e6, r2);
        fprintf(fits, "%s,%s,%s,%d,%.6f,%.6e,%.5f,%.4f,%.3e\n",
                papers[which].key, papers[which].game, mode_names[cache],
                thread_opts[ti], coef[0], coef[1], r2, papers[which].fit_a,
                papers[which].fit_b);
      }
    }
    printf("\n");
    workload_close(&w);
  }

  printf("target: %zu NPCs replanning within 16.7 ms, cache on, %d threads:\n",
         max_n, thread_opts[thread_n - 1]);
  for (int which = 0; which < PAPER_COUNT; which++) {
    if (!ran[which]) continue;
    double on = at_max[which][MODE_TABLE][thread_n - 1];
    double hash = at_max[which][MODE_HASH][thread_n - 1];
    double radix = at_max[which][MODE_RADIX][thread_n - 1];
    double off = at_max[which][MODE_OFF][thread_n - 1];
    /* a row left out by --cache prints nothing, not a 0 ms figure */
    printf("   %-20s cache on %8.3f ms (%s)", papers[which].key, on,
           on <= 16.7 ? "met" : "missed");
    if (hash > 0 && on > 0)
      printf("; hash caches only %8.3f ms (on is %.2fx faster)", hash,
             hash / on);
    if (radix > 0 && on > 0)
      printf("; radix table %8.3f ms (on is %.2fx faster)", radix, radix / on);
    if (off > 0) printf("; cold (cache off) %8.3f ms", off);
    printf("\n");
  }
  printf("streaming floor at %zu NPCs, %d threads (read state + goal, write "
         "status +\n"
         "handle, nothing planned; the least a cached frame can cost here):\n",
         max_n, thread_opts[thread_n - 1]);
  for (int which = 0; which < PAPER_COUNT; which++) {
    if (!ran[which]) continue;
    double fl = streaming_floor_ms(max_n, (size_t)vars_of[which],
                                   thread_opts[thread_n - 1], frames);
    double on = at_max[which][MODE_TABLE][thread_n - 1];
    printf("   %-20s floor %8.3f ms (%.2f ns per NPC); cache on is %.2fx the "
           "floor\n",
           papers[which].key, fl, fl * 1e6 / (double)max_n,
           fl > 0 ? on / fl : 0);
  }
  printf("\n");
  cold_gap_rows(only, fixed, 100000, frames);
  printf("\nCSV: %s/population.csv, %s/population_fit.csv\n", dir, dir);
  bu_load_average(load1);
  printf("load average at end: %.2f %.2f %.2f\n", load1[0], load1[1], load1[2]);
  printf("total time %.1f s\n", (bu_now_ns() - t_start) / 1e9);
  fclose(csv);
  fclose(fits);
  free(st);
  free(go);
  return 0;
}
