/* test_fit_kappa.c — `fit --params delta,alpha,kappa[,beta]` (docs/confidence.md,
 * "Fitting kappa and beta"): the bending stiffness kappa and the Rayleigh
 * damping on K beta fitted as log10 with delta and alpha.
 *   - the options (cf_nm_options_log_params): kappa and beta start at the
 *     held values (beta 0: kappa x 0.01 s), step a factor 3, bounds
 *     [1e-7, 0.1] and [1e-8, 0.1]; a model without K (mass-spring), a start
 *     outside the bounds and more than CF_NM_MAXK / CF_NM_MAXP parameters
 *     refused; the Nelder-Mead journal task ids of fits of different
 *     parameter sets differ;
 *   - recovery: recordings made by the fitting model on the fitting mesh
 *     (an A2 sheet of 5 x 4 markers shaken across its plane at 0.8 Hz for
 *     2 s, 0.1 mm marker noise, kappa known), fitted from a start 10 % off
 *     in delta and alpha with kappa held at 10 x or 1/10 of the truth as its
 *     start: kappa within 30 %, delta and alpha within 10 %, and the fit
 *     with kappa held at that start leaves a training error at least 3
 *     times as large.  Measured when written (the runs in docs/confidence.md):
 *     truth 1e-4 from 1e-3 (noise seed 1): kappa 9.36e-5 (-6.4 %), delta
 *     -0.7 %, alpha -3.3 %, 0.076 cm against 0.765 cm held; with the noise
 *     seeds 1, 2, 3 these fits agree to three digits, and truth 1e-3 from
 *     1e-4 gave kappa -1.1, -0.2, +0.6 %, delta and alpha within 0.6 %,
 *     0.027-0.030 cm against 0.596 cm held.  A twist
 *     (corners turned +-0.3 rad about the vertical) was tried first, being
 *     more sensitive to bending, but its error surface is rough at these
 *     settings (delta 5 % off the truth: 0.85 cm; Nelder-Mead stopped at
 *     0.49 and 0.90 cm with kappa -23 % and -96 %), so the shake is used;
 *   - the second recovery (truth 1e-3 from 1e-4, noise seed 2) through the
 *     grid start (a 3 x 3 grid, swept at the held kappa: 2-D) with the
 *     confidence checks and -o (when written: kappa -0.8 %, delta +0.2 %,
 *     alpha +0.5 %, 0.028 cm, identifiable): the JSON's
 *     kappa, start_kappa and fitted list, the kappa x3 check skipped
 *     (kappa_check_skipped, kappa_shift null), the results file's flags
 *     (inspect --json);
 *   - beta fitted too from its derived start (a short fit: the mechanism);
 *   - one-line errors of bad --params: unknown and repeated names, delta or
 *     alpha missing, kappa or beta with the mass-spring model, a held kappa
 *     or beta outside the fitted range.
 * args: CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "cli_json.h"
#include "synthrec.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_fit_kappa.XXXXXX";
enum { ROWS = 5, COLS = 4, T = 200 };
static const double RHO = 0.1042, DELTA = 0.04, ALPHA = 0.25;
#define START "0.044,0.225" /* delta +10 %, alpha -10 % */

static cf_test_rec_spec spec(double kappa, unsigned long long seed, int frames) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = frames, .width = 0.42, .height = 0.594, .rho = RHO,
                         .delta = DELTA, .alpha = ALPHA, .amplitude = 0.08, .frequency = 0.8, .dt = 0.01,
                         .noise = 1e-4, .seed = seed, .kappa = kappa, .tol = 1e-4};
  return sp;
}

static void make_rec(const char *path, double kappa, unsigned long long seed) {
  cf_test_rec_spec sp = spec(kappa, seed, T);
  double *pos = cf_test_shaken_recording(&sp);
  CHECK(cf_test_write_recording_h5(path, &sp, pos, CF_TEST_REC_LATTICE) == 0, "writing %s", path);
  free(pos);
}

/* ------------------------------------------------------------- options */
static void options(void) {
  cf_params base;
  cf_params_default(&base);
  cf_fit_point held = {.kappa = 1e-3};
  cf_nm_options o;
  cf_error err = {0, ""};
  cf_nm_options_default(&o, RHO, DELTA, ALPHA);
  unsigned kb = CF_STIFF_BIT(CF_STIFF_KAPPA) | CF_STIFF_BIT(CF_STIFF_BETA);
  CHECK(cf_nm_options_log_params(&o, &base, &held, kb, &err) == CF_OK && o.nk == 2, "kappa, beta: %s", err.msg);
  CHECK(o.kpar[0] == CF_STIFF_KAPPA && o.kpar[1] == CF_STIFF_BETA, "order %d %d", o.kpar[0], o.kpar[1]);
  CHECK(fabs(o.start[2] + 3) < 1e-12 && fabs(o.start[3] + 5) < 1e-12, "starts 10^%g, 10^%g: expected 1e-3 and "
        "1e-3 x 0.01 s", o.start[2], o.start[3]);
  CHECK(fabs(o.step[2] - log10(3)) < 1e-12 && fabs(o.step[3] - log10(3)) < 1e-12, "steps %g %g", o.step[2], o.step[3]);
  CHECK(fabs(o.lo[2] + 7) < 1e-12 && fabs(o.hi[2] + 1) < 1e-12 && fabs(o.lo[3] + 8) < 1e-12 &&
        fabs(o.hi[3] + 1) < 1e-12, "bounds [%g, %g], [%g, %g]", o.lo[2], o.hi[2], o.lo[3], o.hi[3]);
  cf_fit_point pt = held;
  double x[4] = {0.05, 0.3, -4, -6};
  cf_fit_point_set_all(&pt, &o, x);
  CHECK(fabs(pt.kappa / 1e-4 - 1) < 1e-12 && fabs(pt.beta / 1e-6 - 1) < 1e-12 && pt.delta == 0.05,
        "point kappa %g beta %g", pt.kappa, pt.beta);
  /* the most a fit holds: mu, the elastic model's two stiffnesses, kappa, beta = CF_NM_MAXP */
  base.model = CF_CLOTH_ELASTIC;
  cf_nm_options_default(&o, RHO, DELTA, ALPHA);
  o.n = 3;
  CHECK(cf_nm_options_log_params(&o, &base, &held, cf_fit_model_stiffness_mask(base.model) | kb, &err) == CF_OK &&
        o.n + o.nk == CF_NM_MAXP, "elastic + mu + kappa + beta: %d + %d (%s)", o.n, o.nk, err.msg);
  CHECK(cf_nm_options_log_params(&o, &base, &held, CF_STIFF_BIT(CF_STIFF_BEND), &err) == CF_EINVAL &&
        strstr(err.msg, "at most") && o.nk == 4, "one more: %s", err.msg);
  base.model = CF_CLOTH_MASS_SPRING;
  cf_nm_options_default(&o, RHO, DELTA, ALPHA);
  CHECK(cf_nm_options_log_params(&o, &base, &held, CF_STIFF_BIT(CF_STIFF_KAPPA), &err) == CF_EINVAL &&
        strstr(err.msg, "mass-spring model has no kappa") && o.nk == 0, "mass-spring kappa: %s", err.msg);
  base.model = CF_CLOTH_INEXTENSIBLE;
  held.kappa = 0;
  CHECK(cf_nm_options_log_params(&o, &base, &held, CF_STIFF_BIT(CF_STIFF_KAPPA), &err) == CF_EINVAL &&
        strstr(err.msg, "outside its fitted range"), "kappa 0: %s", err.msg);
  /* beta alone with kappa 0 held: its derived start is held in the bounds */
  CHECK(cf_nm_options_log_params(&o, &base, &held, CF_STIFF_BIT(CF_STIFF_BETA), &err) == CF_OK &&
        fabs(o.start[2] + 8) < 1e-12, "beta from kappa 0: start 10^%g (%s)", o.start[2], err.msg);
}

/* A journal that keeps nothing and records the ids it is given. */
typedef struct {
  unsigned long long id[4];
  int n;
} ids;
static int ids_load(void *ctx, unsigned long long id, const char *kind, void *rec, size_t size) {
  (void)ctx, (void)id, (void)kind, (void)rec, (void)size;
  return 0;
}
static int ids_save(void *ctx, unsigned long long id, const char *kind, const void *rec, size_t size, cf_error *err) {
  (void)kind, (void)rec, (void)size, (void)err;
  ids *s = ctx;
  if (s->n < 4) s->id[s->n++] = id;
  return CF_OK;
}

/* The task ids of one-evaluation fits of delta, alpha with nothing, kappa,
 * beta, kappa and beta fitted besides: all different. */
static void task_ids(void) {
  cf_test_rec_spec sp = spec(1e-3, 1, 20);
  double *pos = cf_test_shaken_recording(&sp);
  cf_fit_target tg = {ROWS, COLS, 20, 0.01, pos, NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                      0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
  cf_params base;
  cf_params_default(&base);
  base.tol = 1e-4;
  cf_fit_point held = {.kappa = 1e-3};
  ids s = {{0}, 0};
  cf_fit_journal j = {ids_load, ids_save, &s};
  cf_error err = {0, ""};
  cf_fit_run *run = cf_fit_run_alloc(&tg, &base, &err);
  CHECK(run != NULL, "%s", err.msg);
  const unsigned mask[4] = {0, CF_STIFF_BIT(CF_STIFF_KAPPA), CF_STIFF_BIT(CF_STIFF_BETA),
                            CF_STIFF_BIT(CF_STIFF_KAPPA) | CF_STIFF_BIT(CF_STIFF_BETA)};
  for (int k = 0; run && k < 4; k++) {
    cf_nm_options o;
    cf_nm_result r;
    cf_nm_options_default(&o, RHO, DELTA, ALPHA);
    o.max_evals = 1;
    CHECK(cf_nm_options_log_params(&o, &base, &held, mask[k], &err) == CF_OK, "%s", err.msg);
    CHECK(cf_fit_nelder_mead_kept(run, &tg, &held, &o, &j, &r, &err) == CF_OK, "%s", err.msg);
    cf_nm_result_free(&r);
  }
  int distinct = s.n == 4;
  for (int a = 0; a < s.n; a++)
    for (int b = a + 1; b < s.n; b++) distinct &= s.id[a] != s.id[b];
  CHECK(distinct, "%d fits kept, their task ids not all different", s.n);
  cf_fit_run_free(run);
  free(pos);
}

/* ---------------------------------------------------------- the commands */
#define run(out, err, ...) cf_test_run_args(exe, dir, out, err, __VA_ARGS__)

/* fit's JSON (the last line) of a run that must succeed, NULL otherwise. */
static char *fit_json(const char *what, char *out, char *err, int st) {
  CHECK(st == 0, "%s: exit %d: %s", what, st, err ? err : "");
  char *j = st == 0 && out ? strdup(cf_test_last_line(out)) : NULL;
  free(out), free(err);
  return j;
}

/* kappa free against kappa held at its start, on rec made with kappa truth. */
static void recovery(const char *rec, double truth, const char *kstart) {
  char *out = NULL, *err = NULL;
  int st = run(&out, &err, "fit", rec, "--params", "alpha,kappa,delta", "--start", START, "--train", "0:1", "--kappa",
               kstart, "--no-confidence", "--workers", "1", "--json", NULL);
  char *j = fit_json("fit --params alpha,kappa,delta", out, err, st);
  st = run(&out, &err, "fit", rec, "--start", START, "--train", "0:1", "--kappa", kstart, "--no-confidence",
           "--workers", "1", "--json", NULL);
  char *h = fit_json("fit, kappa held", out, err, st);
  if (!j || !h) return free(j), free(h);
  double k = cf_test_json_num(j, "kappa"), d = cf_test_json_num(j, "delta"), a = cf_test_json_num(j, "alpha");
  double e = cf_test_json_num(j, "train_error_cm"), eh = cf_test_json_num(h, "train_error_cm");
  printf("truth kappa %g, start %s: kappa %.4g (%+.1f %%), delta %+.1f %%, alpha %+.1f %%, training error %.4f cm, "
         "%d evaluations; kappa held at %s: %.4f cm\n", truth, kstart, k, 100 * (k / truth - 1),
         100 * (d / DELTA - 1), 100 * (a / ALPHA - 1), e, cf_test_json_int(j, "evaluations"), kstart, eh);
  CHECK(fabs(k / truth - 1) <= 0.3, "kappa %g, truth %g: off by more than 30 %%", k, truth);
  CHECK(fabs(d / DELTA - 1) <= 0.1 && fabs(a / ALPHA - 1) <= 0.1, "delta %g, alpha %g: off by more than 10 %%", d, a);
  CHECK(eh >= 3 * e, "training error %g cm with kappa held at %s, %g cm fitted: not 3 times as large", eh, kstart, e);
  CHECK(cf_test_json_is(j, "fitted", "[\"delta\",\"alpha\",\"kappa\"]") && cf_test_json_num(j, "start_kappa") ==
        atof(kstart) && cf_test_json_is(j, "start_beta", "null") && cf_test_json_is(h, "start_kappa", "null") &&
        cf_test_json_is(h, "fitted", "[\"delta\",\"alpha\"]"), "fitted lists or starts: %s", j);
  free(j), free(h);
}

/* The grid start, the confidence checks and the results file. */
static void grid_and_confidence(const char *rec, double truth, const char *kstart) {
  char res[600], *out = NULL, *err = NULL;
  snprintf(res, sizeof res, "%s/res.h5", dir);
  int st = run(&out, &err, "fit", rec, "--params", "delta,alpha,kappa", "--delta-grid", "0.25:0.55:3*rho",
               "--alpha-grid", "1.5:3:3*rho", "--train", "0:1", "--kappa", kstart, "--workers", "1", "-o", res,
               "--json", NULL);
  int text_ok = out && strstr(out, "kappa fitted: no kappa x3 check") && strstr(out, "(fitted)");
  char *j = fit_json("fit --params delta,alpha,kappa from the grid", out, err, st);
  if (!j) return;
  double k = cf_test_json_num(j, "kappa");
  printf("grid start, truth kappa %g, start %s: kappa %.4g (%+.1f %%), delta %.5f, alpha %.5f, training error "
         "%.4f cm; %s\n", truth, kstart, k, 100 * (k / truth - 1), cf_test_json_num(j, "delta"),
         cf_test_json_num(j, "alpha"), cf_test_json_num(j, "train_error_cm"),
         cf_test_json_is(j, "identifiable", "true") ? "identifiable" : "not identifiable");
  CHECK(fabs(k / truth - 1) <= 0.3, "grid start: kappa %g, truth %g", k, truth);
  CHECK(cf_test_json_int(j, "grid_points") == 9, "grid points %d: the grid start is 2-D",
        cf_test_json_int(j, "grid_points"));
  CHECK(cf_test_json_is(j, "kappa_check_skipped", "true") && cf_test_json_is(j, "kappa_shift", "null") &&
        cf_test_json_is(j, "beta_check_skipped", "false"), "confidence of a fitted kappa: %s", j);
  CHECK(text_ok, "the text says the kappa check is skipped and kappa fitted");
  free(j);
  st = run(&out, &err, "inspect", res, "--json", NULL);
  j = fit_json("inspect", out, err, st);
  if (!j) return;
  CHECK(cf_test_json_is(j, "recordings.0.fit.kappa_fitted", "true") &&
        cf_test_json_is(j, "recordings.0.fit.beta_fitted", "false") &&
        cf_test_json_num(j, "recordings.0.fit.start_kappa") == atof(kstart) &&
        cf_test_json_num(j, "recordings.0.fit.kappa") == k &&
        cf_test_json_num(j, "recordings.0.sweep.kappa") == atof(kstart), "results file: %s", j);
  free(j);
}

/* beta fitted too, from kappa x 0.01 s: a short fit. */
static void with_beta(const char *rec) {
  char *out = NULL, *err = NULL;
  int st = run(&out, &err, "fit", rec, "--params", "delta,alpha,kappa,beta", "--start", START, "--max-evals", "40",
               "--no-confidence", "--workers", "1", "--json", NULL);
  char *j = fit_json("fit --params delta,alpha,kappa,beta", out, err, st);
  if (!j) return;
  double b = cf_test_json_num(j, "beta");
  printf("kappa and beta fitted, 40 evaluations: kappa %.4g, beta %.4g from %.4g, training error %.4f cm\n",
         cf_test_json_num(j, "kappa"), b, cf_test_json_num(j, "start_beta"), cf_test_json_num(j, "train_error_cm"));
  CHECK(fabs(cf_test_json_num(j, "start_beta") / 1e-5 - 1) < 1e-9 && b >= 1e-8 && b <= 0.1 &&
        cf_test_json_is(j, "fitted", "[\"delta\",\"alpha\",\"kappa\",\"beta\"]"), "beta: %s", j);
  free(j);
}

static void refused(const char *rec, const char *want, const char *a0, ...) {
  char *argv[32] = {(char *)exe, "fit", (char *)rec}, *out = NULL, *err = NULL;
  va_list ap;
  va_start(ap, a0);
  int n = 3;
  for (const char *a = a0; a && n < 30; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
  va_end(ap);
  argv[n] = NULL;
  int st = cf_test_run(argv, dir, &out, &err);
  CHECK(st == 1 && err && strstr(err, want) && !strchr(strchr(err, '\n') ? strchr(err, '\n') + 1 : "", '\n'),
        "want exit 1 and one line with '%s', got %d: %s", want, st, err ? err : "");
  free(out), free(err);
}

static void bad_params(const char *rec) {
  refused(rec, "clothfit fit: invalid --params 'delta,alpha,gamma': unknown parameter 'gamma'", "--params",
          "delta,alpha,gamma", NULL);
  refused(rec, "invalid --params 'delta,alpha,kappa,kappa': kappa given twice", "--params", "delta,alpha,kappa,kappa",
          NULL);
  refused(rec, "invalid --params 'delta,kappa': delta and alpha are always fitted", "--params", "delta,kappa", NULL);
  refused(rec, "invalid --params 'delta,alpha,': unknown parameter ''", "--params", "delta,alpha,", NULL);
  refused(rec, "invalid --params 'delta,alpha,kappa': the mass-spring model has no kappa to fit", "--params",
          "delta,alpha,kappa", "--model", "mass-spring", NULL);
  refused(rec, "invalid --params 'delta,alpha,beta': the mass-spring model has no beta to fit", "--params",
          "delta,alpha,beta", "--model", "mass-spring", NULL);
  refused(rec, "kappa starts from its held value 0, outside its fitted range [1e-07, 0.1] (--kappa and --beta are "
          "the starts)", "--params", "delta,alpha,kappa", "--kappa", "0", NULL);
  refused(rec, "beta starts from its held value 0.5, outside its fitted range", "--params", "beta,delta,alpha",
          "--beta", "0.5", NULL);
}

/* usage: test_fit_kappa CLOTHFIT_EXE SOURCE_ROOT [recovery]: the options
 * and the refused --params (suite fast, also under the sanitizers), or with
 * "recovery" the fits (test_fit_kappa_recovery, suite physics: a few
 * CPU-minutes under the sanitizers). */
int main(int argc, char **argv) {
  const char *root;
  int fits = argc > 3 && !strcmp(argv[3], "recovery");
  if (cf_test_cli_begin(argc, argv, &exe, &root, dir)) return 2;
  char soft[600], stiff[600];
  snprintf(soft, sizeof soft, "%s/soft.h5", dir);
  snprintf(stiff, sizeof stiff, "%s/stiff.h5", dir);
  make_rec(stiff, 1e-3, 2);
  if (!fits) {
    options();
    task_ids();
    bad_params(stiff);
    return cf_test_cli_end(dir, "test_fit_kappa");
  }
  make_rec(soft, 1e-4, 1);
  recovery(soft, 1e-4, "1e-3");
  grid_and_confidence(stiff, 1e-3, "1e-4");
  with_beta(stiff);
  return cf_test_cli_end(dir, "test_fit_kappa recovery");
}
