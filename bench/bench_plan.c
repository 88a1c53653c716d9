/* bench_plan.c: one-core planning benchmark, the driver: saspu against a GOAP A* baseline on the paper domains, the synthetic families, the Western cast and a Western-size random domain, and memory (tables in bench/plan/). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_plan.h"

/* ------------------------------------------------------------------ */
/* Driver                                                             */
/* ------------------------------------------------------------------ */

static void usage(void) {
  printf("usage: bench_plan [--out DIR] [--no-plot] [--quick]\n"
         "  --out DIR   where the CSV files and PNG plots go (default: "
         "bench/out next to\n"
         "              this source file)\n"
         "  --no-plot   do not run gnuplot\n"
         "  --quick     smaller curves and Western samples (a smoke run, a few "
         "seconds)\n");
}

/* The directory of this source file, from __FILE__ (absolute in CMake
 * builds), so the defaults work from any working directory. */
static void source_dir(char *buf, size_t size) {
  const char *slash = strrchr(__FILE__, '/');
  if (slash == NULL)
    snprintf(buf, size, ".");
  else
    snprintf(buf, size, "%.*s", (int)(slash - __FILE__), __FILE__);
}

static void run_plots(const char *dir, const char *src) {
  char cmd[8192];
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    printf("\ngnuplot not found: no PNG plots (apt-get install gnuplot-nox, "
           "then rerun)\n");
    return;
  }
  snprintf(cmd, sizeof cmd, "gnuplot -e \"dir='%s'\" '%s/plot_plan.gp'", dir,
           src);
  if (system(cmd) != 0)
    printf("\ngnuplot failed: %s\n", cmd);
  else
    printf("\nplots: %s/cold.png %s/curves.png %s/curves_vs_astar.png\n", dir,
           dir, dir);
}

int main(int argc, char **argv) {
  static const int n_sizes_full[] = {2,  4,  8,   16,  24,  32,  48,
                                     64, 96, 128, 160, 192, 224, 255};
  static const int m2_sizes_full[] = {2,  4,  6,  8,  10, 12, 14,  16,  18, 20,
                                      22, 24, 32, 48, 64, 96, 128, 192, 256};
  static const int m5_sizes_full[] = {2,  4,  6,  8,  10,  12,  16,  20,  24,
                                      32, 48, 64, 96, 128, 192, 256, 384, 512};
  static const int n_sizes_quick[] = {2, 4, 8, 16, 32};
  static const int m2_sizes_quick[] = {2, 4, 8, 12, 16};
  static const int m5_sizes_quick[] = {2, 4, 8, 20, 64};
  char src[2048], dir[4096], model[256], stamp[64];
  const char *out_dir = NULL;
  int plot = 1, quick = 0, i;
  Out out;
  KindRow rows[6], west[2];
  time_t now = time(NULL);
  double t_start = bu_now_ns(), load0[3], load1[3];

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
      out_dir = argv[++i];
    else if (strcmp(argv[i], "--no-plot") == 0)
      plot = 0;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else {
      usage();
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  source_dir(src, sizeof src);
  if (out_dir == NULL)
    snprintf(dir, sizeof dir, "%s/out", src);
  else
    snprintf(dir, sizeof dir, "%s", out_dir);

  memset(&out, 0, sizeof out);
  out.dir = dir;
  out.cold = bu_csv_open(
      dir, "cold.csv",
      "domain,pairs,planner,count,median_ns,p99_ns,stream_ns,plans_per_s,"
      "mean_len,expanded_median,capped,mismatches");
  out.quantiles =
      bu_csv_open(dir, "cold_quantiles.csv", "domain,pairs,planner,percent,ns");
  out.curves =
      bu_csv_open(dir, "curves.csv",
                  "family,x,m,actions,plan_len,saspu_ns,astar_status,astar_ns,"
                  "astar_expanded,astar_len,ratio");
  out.western = bu_csv_open(
      dir, "western.csv",
      "domain,pairs,planner,count,median_ns,p99_ns,stream_ns,plans_per_s,"
      "mean_len,expanded_median,capped,mismatches");
  out.memory =
      bu_csv_open(dir, "memory.csv",
                  "domain,variables,actions,class,domain_bytes,workspace_bytes,"
                  "astar_bytes,astar_cap");

  bu_cpu_model(model, sizeof model);
  strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", localtime(&now));
  clock_ns = bu_clock_overhead_ns();
  printf("saspu planning benchmark (%s)\n", stamp);
  bu_load_average(load0);
  printf("cpu: %s, %d cores online; one core used\n", model, bu_core_count());
  printf("load average at start: %.2f %.2f %.2f%s\n", load0[0], load0[1],
         load0[2],
         load0[0] > 0.5 * bu_core_count()
             ? " (other jobs are running: expect noise)"
             : "");
  printf("compiler: %s%s; clock read %.1f ns\n", __VERSION__,
#if defined(__OPTIMIZE__)
         ", optimised",
#else
         ", NOT optimised (numbers are meaningless)",
#endif
         clock_ns);
  {
    FILE *m = bu_csv_open(dir, "machine.csv", "cpu,cores,date,clock_ns,load1");
    if (m != NULL) {
      fprintf(m, "\"%s\",%d,%s,%.1f,%.2f\n", model, bu_core_count(), stamp,
              clock_ns, load0[0]);
      fclose(m);
    }
  }

  bench_paper_domain("horse_breeder_ssci",
                     sp_builtin_horse_breeder(plain, SP_HORSE_SSCI), &out,
                     rows + 0);
  bench_paper_domain("citizen", sp_builtin_citizen(plain), &out, rows + 2);
  bench_paper_domain("acquisition_machine",
                     sp_builtin_acquisition_machine(plain), &out, rows + 4);
  print_cold_tables(rows, 6);
  bench_partial_domain("horse_breeder_ssci",
                       sp_builtin_horse_breeder(plain, SP_HORSE_SSCI),
                       rows + 0);
  bench_partial_domain("citizen", sp_builtin_citizen(plain), rows + 2);
  bench_partial_domain("acquisition_machine",
                       sp_builtin_acquisition_machine(plain), rows + 4);
  print_partial_table(rows, 6);

  printf("\n(3) Complexity curves: one instance per size (the CNIA start and "
         "goal), saspu vs A*;\n");
  printf("    ratio = A* / saspu; A* stops at %ld stored states and is skipped "
         "above that size\n",
         (long)GOAP_DEFAULT_NODE_CAP);
  if (quick) {
    bench_curve(MULTIPRV_N, "multiprv_n_cycle", "n", 4, n_sizes_quick, 5, 0,
                GOAP_DEFAULT_NODE_CAP, &out);
    bench_curve(MULTIPRV_2, "multiprv_2_cycle", "m", 0, m2_sizes_quick, 5, 0,
                GOAP_DEFAULT_NODE_CAP, &out);
    bench_curve(ONEPRV_5, "oneprv_5", "m", 0, m5_sizes_quick, 5, 20,
                GOAP_DEFAULT_NODE_CAP, &out);
  } else {
    bench_curve(MULTIPRV_N, "multiprv_n_cycle", "n", 4, n_sizes_full,
                (int)(sizeof n_sizes_full / sizeof *n_sizes_full), 0,
                GOAP_DEFAULT_NODE_CAP, &out);
    bench_curve(MULTIPRV_2, "multiprv_2_cycle", "m", 0, m2_sizes_full,
                (int)(sizeof m2_sizes_full / sizeof *m2_sizes_full), 0,
                GOAP_DEFAULT_NODE_CAP, &out);
    bench_curve(ONEPRV_5, "oneprv_5", "m", 0, m5_sizes_full,
                (int)(sizeof m5_sizes_full / sizeof *m5_sizes_full), 20,
                GOAP_DEFAULT_NODE_CAP, &out);
  }

  bench_cast(&out, quick ? 100 : 1000);
  bench_western(&out, 1L << 16, west, quick ? 200 : 2000, quick ? 5 : 50);
  bench_memory(&out);

  if (out.cold) fclose(out.cold);
  if (out.quantiles) fclose(out.quantiles);
  if (out.curves) fclose(out.curves);
  if (out.western) fclose(out.western);
  if (out.memory) fclose(out.memory);
  printf("\nCSV: %s/{machine,cold,cold_quantiles,curves,western,memory}.csv\n",
         dir);
  if (plot) run_plots(dir, src);
  bu_load_average(load1);
  printf("load average at the end: %.2f %.2f %.2f\n", load1[0], load1[1],
         load1[2]);
  printf("total benchmark time: %.1f s\n", (bu_now_ns() - t_start) / 1e9);
  return 0;
}
