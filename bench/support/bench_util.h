/* bench_util.h: timing, order statistics, least-squares fits, machine description and CSV output for the benchmarks. */
#ifndef bench_util_h
#define bench_util_h

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Clock                                                              */
/* ------------------------------------------------------------------ */

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). */
double bu_now_ns(void);

/* CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID):
 * time the thread was descheduled does not count, so long batches stay
 * honest on a machine shared with other jobs. A read costs far more than
 * bu_now_ns() (a system call on some kernels): use it around batches of a
 * millisecond or more. */
double bu_cpu_ns(void);

/* The 1, 5 and 15 minute load averages from /proc/loadavg (0 if absent). */
void bu_load_average(double out[3]);

/* Cost of one bu_now_ns() call in ns, measured once (median of many). */
double bu_clock_overhead_ns(void);

/* A value the compiler must assume is read, so timed work is kept. */
extern volatile uint64_t bu_sink;

/* ------------------------------------------------------------------ */
/* Statistics                                                         */
/* ------------------------------------------------------------------ */

typedef struct BuStats {
  size_t n;
  double min, median, p99, max, mean;
} BuStats;

/* Sorts v[0..n-1] in place and summarises it; all fields 0 when n == 0.
 * Quantiles use the nearest-rank rule on the sorted sample. */
BuStats bu_stats(double *v, size_t n);

/* Nearest-rank quantile q in [0, 1] of an already sorted sample. */
double bu_quantile_sorted(const double *sorted, size_t n, double q);

/* Least-squares polynomial fit y = c[0] + c[1] x + ... + c[degree] x^degree,
 * degree 1 or 2. Returns R^2, or -1 when the system is singular (fewer
 * distinct x than coefficients). */
double bu_fit_poly(const double *x, const double *y, size_t n, int degree,
                   double *c);

/* ------------------------------------------------------------------ */
/* Random numbers (splitmix64: fixed seeds give repeatable runs)      */
/* ------------------------------------------------------------------ */

uint64_t bu_rng_next(uint64_t *state);
/* Uniform in [0, n), n >= 1. */
int bu_rng_below(uint64_t *state, int n);

/* ------------------------------------------------------------------ */
/* Machine and output                                                 */
/* ------------------------------------------------------------------ */

/* The "model name" line of /proc/cpuinfo, or "unknown". */
void bu_cpu_model(char *buf, size_t size);
/* Online cores (sysconf), at least 1. */
int bu_core_count(void);

/* Creates `path` and its missing parents (like mkdir -p). 0 on success. */
int bu_mkdir_p(const char *path);

/* Opens dir/name for writing (creating dir) and writes `header` and a
 * newline. NULL (with a message on stderr) when that fails. */
FILE *bu_csv_open(const char *dir, const char *name, const char *header);

#endif
