/* bench_util.c: timing, order statistics, least-squares fits, machine description and CSV output for the benchmarks. */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t bu_sink;

/* ------------------------------------------------------------------ */
/* Clock                                                              */
/* ------------------------------------------------------------------ */

double bu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bu_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void bu_load_average(double out[3]) {
  FILE *f = fopen("/proc/loadavg", "r");
  out[0] = out[1] = out[2] = 0;
  if (f == NULL) return;
  if (fscanf(f, "%lf %lf %lf", &out[0], &out[1], &out[2]) != 3)
    out[0] = out[1] = out[2] = 0;
  fclose(f);
}

/* Median of 31 samples, each the mean over 1000 back-to-back reads. */
double bu_clock_overhead_ns(void) {
  enum { SAMPLES = 31, READS = 1000 };
  double v[SAMPLES];
  int i, k;
  for (i = 0; i < SAMPLES; i++) {
    double t0 = bu_now_ns(), acc = 0;
    for (k = 0; k < READS; k++) acc += bu_now_ns();
    bu_sink += (uint64_t)acc;
    v[i] = (bu_now_ns() - t0) / (READS + 1);
  }
  return bu_stats(v, SAMPLES).median;
}

/* ------------------------------------------------------------------ */
/* Statistics                                                         */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bu_quantile_sorted(const double *sorted, size_t n, double q) {
  size_t rank;
  if (n == 0) return 0;
  if (q <= 0) return sorted[0];
  if (q >= 1) return sorted[n - 1];
  /* nearest rank: the smallest value with at least q*n values <= it */
  rank = (size_t)ceil(q * (double)n);
  if (rank < 1) rank = 1;
  return sorted[rank - 1];
}

BuStats bu_stats(double *v, size_t n) {
  BuStats s;
  double sum = 0;
  size_t i;
  memset(&s, 0, sizeof s);
  if (n == 0) return s;
  qsort(v, n, sizeof *v, cmp_double);
  for (i = 0; i < n; i++) sum += v[i];
  s.n = n;
  s.min = v[0];
  s.max = v[n - 1];
  s.median = bu_quantile_sorted(v, n, 0.5);
  s.p99 = bu_quantile_sorted(v, n, 0.99);
  s.mean = sum / (double)n;
  return s;
}

/* Normal equations solved by Gaussian elimination with partial pivoting;
 * x is scaled by its largest magnitude first so x^4 sums stay well
 * conditioned for sizes in the thousands. */
double bu_fit_poly(const double *x, const double *y, size_t n, int degree,
                   double *c) {
  double a[3][4], scale = 0, ymean = 0, ss_tot = 0, ss_res = 0;
  int k = degree + 1, i, j, r;
  size_t p;
  if (degree < 1 || degree > 2 || n < (size_t)k) return -1;
  for (p = 0; p < n; p++) {
    if (fabs(x[p]) > scale) scale = fabs(x[p]);
    ymean += y[p];
  }
  if (scale == 0) return -1;
  ymean /= (double)n;
  memset(a, 0, sizeof a);
  for (p = 0; p < n; p++) {
    double pw[5], u = x[p] / scale;
    pw[0] = 1;
    for (i = 1; i < 5; i++) pw[i] = pw[i - 1] * u;
    for (i = 0; i < k; i++) {
      for (j = 0; j < k; j++) a[i][j] += pw[i + j];
      a[i][k] += pw[i] * y[p];
    }
  }
  for (i = 0; i < k; i++) {
    int best = i;
    for (r = i + 1; r < k; r++)
      if (fabs(a[r][i]) > fabs(a[best][i])) best = r;
    if (fabs(a[best][i]) < 1e-12) return -1;
    if (best != i) {
      for (j = 0; j <= k; j++) {
        double t = a[i][j];
        a[i][j] = a[best][j];
        a[best][j] = t;
      }
    }
    for (r = 0; r < k; r++) {
      double f;
      if (r == i) continue;
      f = a[r][i] / a[i][i];
      for (j = i; j <= k; j++) a[r][j] -= f * a[i][j];
    }
  }
  for (i = 0; i < k; i++) c[i] = a[i][k] / a[i][i] / pow(scale, i);
  for (p = 0; p < n; p++) {
    double f = c[0], d;
    for (i = 1; i < k; i++) f += c[i] * pow(x[p], i);
    d = y[p] - f;
    ss_res += d * d;
    ss_tot += (y[p] - ymean) * (y[p] - ymean);
  }
  return ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
}

/* ------------------------------------------------------------------ */
/* Random numbers                                                     */
/* ------------------------------------------------------------------ */

uint64_t bu_rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Multiply-shift maps 32 random bits onto [0, n) with negligible bias. */
int bu_rng_below(uint64_t *state, int n) {
  uint64_t r = bu_rng_next(state) >> 32;
  return (int)((r * (uint64_t)n) >> 32);
}

/* ------------------------------------------------------------------ */
/* Machine and output                                                 */
/* ------------------------------------------------------------------ */

void bu_cpu_model(char *buf, size_t size) {
  char line[512];
  FILE *f;
  if (size == 0) return;
  snprintf(buf, size, "unknown");
  f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL) {
    const char *p;
    if (strncmp(line, "model name", 10) != 0) continue;
    p = strchr(line, ':');
    if (p == NULL) continue;
    p++;
    while (*p == ' ' || *p == '\t') p++;
    snprintf(buf, size, "%s", p);
    buf[strcspn(buf, "\n")] = '\0';
    break;
  }
  fclose(f);
}

int bu_core_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

int bu_mkdir_p(const char *path) {
  char buf[4096];
  size_t i, len = strlen(path);
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, path, len + 1);
  /* create each prefix ending before a '/', then the whole path */
  for (i = 1; i <= len; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    buf[i] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    if (i < len) buf[i] = '/';
  }
  return 0;
}

FILE *bu_csv_open(const char *dir, const char *name, const char *header) {
  char path[4096];
  FILE *f;
  if (bu_mkdir_p(dir) != 0) {
    fprintf(stderr, "cannot create directory %s: %s\n", dir, strerror(errno));
    return NULL;
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return NULL;
  }
  fprintf(f, "%s\n", header);
  return f;
}
