/* bench_report.c — the time of `clothfit report` on a 32-recording study
 * (target: under 30 s on 2 cores, the study itself excluded;
 * docs/report.md, "Speed").
 *
 *   bench_report CLOTHFIT_EXE [--recordings N] [--frames T] [--markers 0|1] [--repeat R] [--workers W]
 *                [--keep DIR]
 *
 * The results file is made here with the library's writer
 * (tests/resultsgen.c, no simulation): N recordings (default 32: 4 fabrics
 * x A2, A3 x shake, twist x slow, fast, as datasets/aero-mini) each with a
 * 15 x 16 sweep (the default grid of `clothfit sweep`), a refined fit, a
 * per-frame series of T frames (default 1501: 15 s at dt 0.01, as the
 * thesis' recordings) with the recorded and simulated markers behind it
 * (the lattices of datasets/aero-mini, A2 5 x 4 and A3 4 x 3; --markers 0:
 * none, as files written before they were stored), a 9 x 9 sensitivity
 * map, and a regression; so every figure the report draws is there (5 per
 * recording: surface, series, sensitivity, snapshots, animation; 4 of the
 * study).  Then `clothfit report FILE -o DIR` runs R times (default 3)
 * and the wall time of each run, the best and the verdict against 30 s
 * are printed.  The report's files and gnuplot runs are its own business:
 * the time includes them all (W gnuplot runs at once: clothfit report
 * --workers W, default 0 = one per core).  The load average before and after
 * is printed too: the machine may be shared; so is the CPU time of each run
 * (clothfit and its gnuplot runs, getrusage RUSAGE_CHILDREN), which the
 * machine's other work does not change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "resultsgen.h"
#include "testutil.h"

/* CPU seconds (user + system) of the waited-for children and their own
 * children (clothfit and its gnuplot runs): what the report costs,
 * whatever else the machine does. */
static double children_cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The load averages (/proc/loadavg), the machine may be shared. */
static void print_load(const char *when) {
  char buf[128] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f && !fgets(buf, sizeof buf, f)) snprintf(buf, sizeof buf, "?\n");
  if (f) fclose(f);
  printf("load average %s: %s", when, buf);
}

static int arg_int(int argc, char **argv, const char *name, int def) {
  for (int i = 2; i + 1 < argc; i++)
    if (!strcmp(argv[i], name)) return atoi(argv[i + 1]);
  return def;
}

static const char *arg_str(int argc, char **argv, const char *name) {
  for (int i = 2; i + 1 < argc; i++)
    if (!strcmp(argv[i], name)) return argv[i + 1];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: bench_report CLOTHFIT_EXE [--recordings N] [--frames T] [--markers 0|1] [--repeat R] "
            "[--workers W] [--keep DIR]\n");
    return 2;
  }
  int n = arg_int(argc, argv, "--recordings", 32), T = arg_int(argc, argv, "--frames", 1501);
  int repeat = arg_int(argc, argv, "--repeat", 3), workers = arg_int(argc, argv, "--workers", 0);
  int markers = arg_int(argc, argv, "--markers", 1);
  const char *keep = arg_str(argc, argv, "--keep");
  if (n < 1 || T < 2 || repeat < 1 || workers < 0)
    return fprintf(stderr, "bench_report: invalid --recordings, --frames, --repeat or --workers\n"), 2;
  char nw[16];
  snprintf(nw, sizeof nw, "%d", workers);
  char tmp[] = "/tmp/cf_bench_report.XXXXXX", res[600], out[600];
  if (!mkdtemp(tmp)) return perror("mkdtemp"), 2;
  snprintf(res, sizeof res, "%s/study.h5", tmp);
  snprintf(out, sizeof out, "%s", keep ? keep : tmp);
  if (!keep) strcat(out, "/report");
  if (cf_test_results_study(res, n, T, 15, 16, 1, markers)) return 1;
  printf("results file: %d recordings, 15 x 16 sweep, %d frames%s, 9 x 9 sensitivity map each, a regression\n", n, T,
         markers ? " with the markers" : "");
  print_load("before");
  double best = 1e30;
  int failed = 0;
  for (int r = 0; r < repeat; r++) {
    char *so = NULL, *se = NULL, *cmd[] = {argv[1], "report", res, "-o", out, "--workers", nw, "--json", NULL};
    double t0 = now(), c0 = children_cpu();
    int st = cf_test_run(cmd, tmp, &so, &se);
    double t = now() - t0, cpu = children_cpu() - c0;
    const char *json = so ? strrchr(so, '{') : NULL;
    printf("run %d: %.2f s wall, %.2f s CPU (clothfit and gnuplot)  exit %d  %s", r + 1, t, cpu, st,
           json ? json : "(no --json line)\n");
    if (st) fprintf(stderr, "%s", se ? se : ""), failed = 1;
    if (t < best) best = t;
    free(so), free(se);
  }
  print_load("after");
  printf("clothfit report --workers %d, %d recordings: best of %d: %.2f s (target < 30 s): %s\n", workers, n, repeat, best,
         !failed && best < 30 ? "PASS" : "FAIL");
  char rm[700];
  snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
  if (system(rm)) fprintf(stderr, "could not remove %s\n", tmp);
  return !failed && best < 30 ? 0 : 1;
}
