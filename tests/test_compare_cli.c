/* test_compare_cli.c — `clothfit compare` and `fit --model` on a small
 * recording made by the elastic model (an A2 sheet of 5 x 4 markers shaken
 * for 1.5 s, soft: k_stretch 10, k_shear 0.5 N/m):
 *   - compare of the inextensible and elastic models from a given start
 *     with a small budget: the table, the elastic model's lower testing
 *     error, its fitted stiffnesses in the JSON, the results file and its
 *     `inspect` (text and JSON), every model's row;
 *   - the same compare killed (SIGKILL) once its journal holds the first
 *     model's row: the rerun takes that row from RESULTS.h5.journal
 *     (tasks_resumed 1), computes the other, gives the same testing errors
 *     as the uninterrupted run, and removes the journal;
 *   - fit --model elastic: the stiffnesses fitted and stored (cloth_model,
 *     stiffness_fitted, k_stretch, k_shear);
 *   - synth [cloth] model = mass-spring: the recording and its truth (model,
 *     stiffnesses); a model without contacts for a tablecloth refused;
 *   - --rest flat on a recording whose first frame is bent (synth's 1 %
 *     slack, made on the fitting mesh without noise): the inextensible
 *     model's testing error at least halved against the first frame's
 *     rest metric (docs/models.md measured 0.195 -> 0.012 cm on 6 s);
 *   - one-line errors: an unknown or repeated model, --model given to
 *     compare, a testing window left empty, a bad --model or stiffness for
 *     fit and sweep.
 * args: CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cf_sim.h"
#include "cli_json.h"
#include "synthrec.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_compare_cli.XXXXXX";

#define run(out, err, ...) cf_test_run_args(exe, dir, out, err, __VA_ARGS__)

static void make_rec(const char *path) {
  cf_test_rec_spec sp = {.rows = 5, .cols = 4, .T = 150, .width = 0.42, .height = 0.594, .rho = 0.1042,
                         .delta = 0.04, .alpha = 0.25, .amplitude = 0.08, .frequency = 0.9, .dt = 0.01,
                         .noise = 1e-4, .seed = 7, .kappa = 1e-3, .tol = 1e-4, .model = CF_CLOTH_ELASTIC,
                         .k_stretch = 10, .k_shear = 0.5, .axis = {0.6, 0.8, 0}};
  double *pos = cf_test_shaken_recording(&sp);
  CHECK(cf_test_write_recording_h5(path, &sp, pos, CF_TEST_REC_LATTICE) == 0, "writing %s", path);
  free(pos);
}

#define COMPARE_ARGS "--models", "inextensible,elastic", "--start", "0.03,0.3", "--max-evals", "60"

/* Records of kind "compare" in the journal at path (0 if none). */
static int journal_rows(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, f)) n += strstr(line, " compare ") != NULL;
  fclose(f);
  return n;
}

/* The compare of compare() into dir/killed.h5 on one worker, killed as
 * soon as its journal holds a model's row; then rerun: the row resumed,
 * the testing errors those of the uninterrupted run (ref: its JSON). */
static void resumed(const char *rec, const char *ref) {
  char res[600], jr[700];
  snprintf(res, sizeof res, "%s/killed.h5", dir);
  snprintf(jr, sizeof jr, "%s.journal", res);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execl(exe, exe, "compare", rec, COMPARE_ARGS, "--workers", "1", "-o", res, (char *)NULL);
    _exit(127);
  }
  struct timespec ts = {0, 2000000L}; /* 2 ms */
  int rows = 0, st = 0, reaped = 0;
  for (int k = 0; k < 60000 && !(rows = journal_rows(jr)) && !reaped; k++) {
    reaped = waitpid(pid, &st, WNOHANG) == pid;
    nanosleep(&ts, NULL);
  }
  if (!reaped) kill(pid, SIGKILL), waitpid(pid, &st, 0);
  CHECK(!reaped && rows == 1, "the compare to kill %s; its journal held %d model rows (expected 1)",
        reaped ? "ended by itself" : "was killed", rows);
  char *out = NULL, *err = NULL;
  st = run(&out, &err, "compare", rec, COMPARE_ARGS, "--workers", "1", "-o", res, "--json", NULL);
  CHECK(st == 0, "compare after the kill: exit %d: %s", st, err ? err : "");
  const char *j = out ? cf_test_last_line(out) : "";
  CHECK(cf_test_json_num(j, "tasks_resumed") == 1, "tasks_resumed after the kill: %s", j);
  const char *models[2] = {"models.model=inextensible.test_error_cm", "models.model=elastic.test_error_cm"};
  for (int m = 0; m < 2; m++) {
    double ea = cf_test_json_num(j, models[m]), eb = cf_test_json_num(ref, models[m]);
    CHECK(isfinite(ea) && ea == eb, "%s: %.17g after the kill, %.17g uninterrupted", models[m], ea, eb);
  }
  CHECK(access(jr, F_OK) != 0, "the journal outlives the finished compare");
  free(out), free(err);
}

static void compare(const char *rec) {
  char res[600], *out = NULL, *err = NULL;
  snprintf(res, sizeof res, "%s/cmp.h5", dir);
  int st = run(&out, &err, "compare", rec, COMPARE_ARGS, "--workers", "2", "-o", res, "--json", NULL);
  CHECK(st == 0, "compare exit %d: %s", st, err ? err : "");
  const char *j = out ? cf_test_last_line(out) : "";
  CHECK(out && strstr(out, "lowest testing error: elastic") && strstr(out, "k_stretch"), "table:\n%s", out ? out : "");
  CHECK(cf_test_json_has_str(j, "best", "elastic") && cf_test_json_has_str(j, "models.0.model", "inextensible") &&
            cf_test_json_has_str(j, "models.model=elastic.fitted", "delta alpha k_stretch k_shear"),
        "json: %s", j);
  double ks = cf_test_json_num(j, "models.model=elastic.k_stretch");
  double e_el = cf_test_json_num(j, "models.model=elastic.test_error_cm");
  double e_in = cf_test_json_num(j, "models.model=inextensible.test_error_cm");
  CHECK(ks > 1 && ks < 100 && e_el < e_in / 3, "elastic k_stretch %g (truth 10), testing errors %g (elastic) %g", ks,
        e_el, e_in);
  resumed(rec, j);
  free(out), free(err);
  st = run(&out, &err, "inspect", res, NULL);
  CHECK(st == 0 && out && strstr(out, "compare") && strstr(out, "lowest testing error: elastic"), "inspect:\n%s",
        out ? out : "");
  free(out), free(err);
  st = run(&out, &err, "inspect", res, "--json", NULL);
  const char *ij = cf_test_last_line(out);
  CHECK(st == 0 && cf_test_json_num(ij, "recordings.0.compare.models_compared") == 2 &&
            cf_test_json_has_str(ij, "recordings.0.compare.best", "elastic"),
        "inspect --json: %s", ij);
  free(out), free(err);
}

static void fit_model(const char *rec) {
  char *out = NULL, *err = NULL;
  int st = run(&out, &err, "fit", rec, "--model", "elastic", "--start", "0.03,0.3", "--max-evals", "80",
               "--no-confidence", "--json", NULL);
  CHECK(st == 0, "fit --model elastic exit %d: %s", st, err ? err : "");
  const char *j = out ? cf_test_last_line(out) : "";
  CHECK(cf_test_json_has_str(j, "cloth_model", "elastic") &&
            cf_test_json_has_str(j, "stiffness_fitted", "k_stretch k_shear") &&
            cf_test_json_num(j, "k_stretch") > 1 && isnan(cf_test_json_num(j, "k_bend")),
        "fit --json: %s", j);
  CHECK(out && strstr(out, "cloth model       elastic: k_stretch"), "fit text:\n%s", out ? out : "");
  free(out), free(err);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f && fputs(text, f) >= 0, "writing %s", path);
  if (f) fclose(f);
}

static void error_case(const char *needle, const char *a0, ...);

static void synth_model(void) {
  char ini[600], csv[600], truth[600], *out = NULL, *err = NULL;
  snprintf(ini, sizeof ini, "%s/ms.ini", dir);
  snprintf(csv, sizeof csv, "%s/ms.csv", dir);
  snprintf(truth, sizeof truth, "%s/ms.truth.ini", dir);
  write_file(ini, "[recording]\nsize = A3\nduration = 2\n[cloth]\nmodel = mass-spring\nk_stretch = 20\n"
                  "k_shear = 0.8\nrefine = 2\n");
  int st = run(&out, &err, "synth", ini, "-o", csv, NULL);
  CHECK(st == 0, "synth of a mass-spring cloth: exit %d: %s", st, err ? err : "");
  free(out), free(err);
  char *t = cf_test_slurp(truth, NULL);
  CHECK(t && strstr(t, "model = mass-spring\nk_stretch = 20\nk_shear = 0.8\n"), "truth:\n%s", t ? t : "(none)");
  free(t);
  write_file(ini, "[recording]\nmotion = tablecloth\n[cloth]\nmodel = elastic\n");
  error_case("has no contacts", "synth", ini, "-o", csv, NULL);
  write_file(ini, "[cloth]\nmodel = cloth\n");
  error_case("[cloth] model = 'cloth'", "synth", ini, "-o", csv, NULL);
}

/* compare's inextensible testing error on h5 with the rest metric rest */
static double inext_test_error(const char *h5, const char *rest) {
  char *out = NULL, *err = NULL;
  int st = run(&out, &err, "compare", h5, "--models", "inextensible", "--start", "0.033,0.142", "--max-evals", "40",
               "--rest", rest, "--json", NULL);
  CHECK(st == 0, "compare --rest %s: exit %d: %s", rest, st, err ? err : "");
  double e = out ? cf_test_json_num(cf_test_last_line(out), "models.0.test_error_cm") : NAN;
  free(out), free(err);
  return e;
}

static void flat_rest(const char *root) {
  char src[600], h5[600];
  snprintf(src, sizeof src, "%s/datasets/aero-mini/configs/polyester-A3-shake-slow-I.ini", root);
  if (cf_test_synth_ingest(exe, dir, src, "[recording]\nduration = 3\n[cloth]\nrefine = 2\nkappa = 1e-3\n"
                           "beta = 0\n[sim]\ndt = 0.01\ntol = 1e-4\n[markers]\nnoise = 0\n", "bent", h5, sizeof h5))
    return;
  double first = inext_test_error(h5, "first-frame"), flat = inext_test_error(h5, "flat");
  printf("bent first frame: inextensible testing error %.4f cm (first-frame rest), %.4f cm (flat)\n", first, flat);
  CHECK(flat < 0.5 * first, "--rest flat: testing error %.4f cm, first-frame %.4f cm (expected at most half)", flat,
        first);
  error_case("invalid --rest 'round'", "fit", h5, "--rest", "round", NULL);
}

static void error_case(const char *needle, const char *a0, ...) {
  char *out = NULL, *err = NULL;
  va_list ap;
  va_start(ap, a0);
  int st = cf_test_run_va(exe, dir, &out, &err, a0, ap);
  va_end(ap);
  CHECK(st == 1 && err && strstr(err, needle) && strchr(err, '\n') == err + strlen(err) - 1,
        "%s ...: exit %d, stderr '%s' (expected one line with '%s')", a0, st, err ? err : "", needle);
  free(out), free(err);
}

int main(int argc, char **argv) {
  const char *root;
  int st = cf_test_cli_begin(argc, argv, &exe, &root, dir);
  if (st) return st;
  char rec[600];
  snprintf(rec, sizeof rec, "%s/elastic.h5", dir);
  make_rec(rec);
  compare(rec);
  fit_model(rec);
  synth_model();
  flat_rest(root);
  error_case("'springs' is not a model", "compare", rec, "--models", "elastic,springs", NULL);
  error_case("given twice", "compare", rec, "--models", "elastic,elastic", NULL);
  error_case("give --models LIST", "compare", rec, "--model", "elastic", NULL);
  error_case("invalid --train", "compare", rec, "--train", "0:1", NULL);
  error_case("invalid --model 'cloth'", "fit", rec, "--model", "cloth", NULL);
  error_case("invalid --k-stretch", "sweep", rec, "--k-stretch", "-3", NULL);
  return cf_test_cli_end(dir, "test_compare_cli");
}
