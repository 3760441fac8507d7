/* test_blas_kernels.c — a fit's simulations do not depend on the BLAS
 * kernels of the machine that runs them (results must not depend on who
 * ran a task, on a cluster whose nodes differ; docs/cluster.md).
 *
 * Debian's OpenBLAS picks its kernels by CPU at run time (OPENBLAS_CORETYPE
 * overrides the choice), and its kernels round differently: through
 * CHOLMOD's factorization the error of one driven simulation of an A2
 * recording was 3.5597, 3.5627 and 3.5447 cm with the Cooperlake, Haswell
 * and Sandybridge kernels (build/bench/bench_driven, full study,
 * before src/sim/snfactor.c).  The fitting meshes' projections are now
 * factorized and solved by snfactor.c and kernels.c, whose SSE2 and AVX2
 * builds give the same bits.  Asserted: on two bundled recordings (A2: the
 * 7 x 9 mesh, A3: 5 x 7) `clothfit fit REC.h5 --start 0.2,0.5 --max-evals 1
 * --train 0:1 --json` prints the same error and std, to the 9 digits of its JSON,
 * with every OpenBLAS core type this CPU can run among Prescott (SSE3),
 * Nehalem, Sandybridge (AVX) and Haswell (AVX2), and with OpenBLAS's own
 * choice.  Skipped (77) off x86-64.
 * usage: test_blas_kernels CLOTHFIT_EXE SOURCE_ROOT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_json.h"
#include "testutil.h"

static char dir[] = "/tmp/cf_blas.XXXXXX";

static const char *const names[] = {"polyester-A2-shake-fast-I", "wool-A3-twist-slow-I"};

/* The core types to try: NULL is OpenBLAS's own choice. */
static int core_types(const char **types) {
  int n = 0;
  types[n++] = NULL;
#if defined(__x86_64__)
  types[n++] = "Prescott";
  types[n++] = "Nehalem";
  if (__builtin_cpu_supports("avx")) types[n++] = "Sandybridge";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) types[n++] = "Haswell";
#endif
  return n;
}

/* `clothfit ingest motive` of the bundled recording into dir/NAME.h5. */
static int ingest(const char *exe, const char *root, const char *name, char *h5, size_t size) {
  char csv[600], meta[600], map[600];
  snprintf(csv, sizeof csv, "%s/datasets/aero-mini/recordings/%s.csv", root, name);
  snprintf(meta, sizeof meta, "%s/datasets/aero-mini/recordings/%s.meta.ini", root, name);
  snprintf(map, sizeof map, "%s/datasets/aero-mini/recordings/%s.map", root, name);
  snprintf(h5, size, "%s/%s.h5", dir, name);
  char *a[] = {(char *)exe, "ingest", "motive", csv, "--meta", meta, "--map", map, "-o", h5, NULL};
  char *out = NULL, *err = NULL;
  int st = cf_test_run(a, dir, &out, &err);
  CHECK(st == 0, "ingest %s: status %d: %s", name, st, err ? err : "");
  free(out);
  free(err);
  return st;
}

/* The training error and its standard deviation of one evaluation at
 * (0.2, 0.5) with the core type (NULL: unset), as printed (%.9g). */
static int evaluate(const char *exe, const char *h5, const char *type, double e[2]) {
  char env[64];
  snprintf(env, sizeof env, "OPENBLAS_CORETYPE=%s", type ? type : "");
  char *a[20];
  int n = 0;
  a[n++] = "/usr/bin/env";
  if (type) {
    a[n++] = env;
  } else {
    a[n++] = "-u";
    a[n++] = "OPENBLAS_CORETYPE";
  }
  char *rest[] = {(char *)exe, "fit", (char *)h5, "--start", "0.2,0.5", "--max-evals", "1", "--train", "0:1",
                  "--no-confidence", "--json", NULL};
  for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++) a[n++] = rest[k];
  char *out = NULL, *err = NULL;
  int st = cf_test_run(a, dir, &out, &err);
  CHECK(st == 0, "fit %s (core type %s): status %d: %s", h5, type ? type : "default", st, err ? err : "");
  const char *line = out ? cf_test_last_line(out) : "";
  e[0] = cf_test_json_num(line, "train_error_cm");
  e[1] = cf_test_json_num(line, "train_std_cm");
  CHECK(e[0] > 0 && e[1] > 0, "fit %s: no train_error_cm / train_std_cm in %s", h5, line);
  free(out);
  free(err);
  return st || !(e[0] > 0 && e[1] > 0);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CLOTHFIT_EXE SOURCE_ROOT\n", argv[0]);
    return 2;
  }
#if !defined(__x86_64__)
  fprintf(stderr, "test_blas_kernels: OpenBLAS core types are an x86-64 matter: skipped\n");
  return 77;
#endif
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  const char *types[8];
  int nt = core_types(types);
  for (size_t r = 0; r < sizeof names / sizeof names[0]; r++) {
    char h5[600];
    double first[2] = {0, 0}, e[2];
    int have = 0;
    if (ingest(argv[1], argv[2], names[r], h5, sizeof h5)) continue;
    for (int t = 0; t < nt; t++) {
      if (evaluate(argv[1], h5, types[t], e)) continue;
      printf("%s, core type %s: training error %.9g cm, std %.9g cm\n", names[r], types[t] ? types[t] : "default",
             e[0], e[1]);
      if (!have) {
        first[0] = e[0], first[1] = e[1], have = 1;
      } else {
        CHECK(e[0] == first[0] && e[1] == first[1],
              "%s: core type %s gives %.9g / %.9g cm, OpenBLAS's own choice %.9g / %.9g cm", names[r],
              types[t] ? types[t] : "default", e[0], e[1], first[0], first[1]);
      }
    }
  }
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return cf_test_done("test_blas_kernels");
}
