/* Regression recovery: a synthetic study whose
 * per-recording (delta, alpha) come from known coefficients (Table 4.6,
 * repetition I) through (4.6), with S, V and rho varying across 8
 * recordings (A2/A3, four densities, different shakes).  As `clothfit
 * experiment aero` does it: every recording is fitted by Nelder-Mead (from
 * a start 10 % off, like a grid optimum), least squares on those optima
 * starts the Nelder-Mead fit of R (4.7), which must end within 5 % of R at
 * the true coefficients, and never above its start.
 *
 * The model is the well-conditioned one of test_recovery (kappa = 1e-3
 * fixed, fitted with tol 1e-5; with kappa = 0 and tol 1e-3 the error
 * surface has a ~0.25 cm floor and R stalls near 0.5 cm).  The recordings
 * are made with a 10x tighter projection tolerance (1e-6) than the fits
 * use, plus 0.1 mm marker noise: if they were made with the fitter's own
 * settings, the true coefficients would reproduce them bit for bit (R = the
 * noise, 0.017 cm) and any other coefficients, however close, would pay the
 * solver's trajectory jitter at tol 1e-5 (~0.008 cm, +11 %), which makes
 * "within 5 %" a test of bitwise identity rather than of the optimizer.
 * With the tighter recordings the true coefficients are merely very good
 * for the fitting solver, and the fitted ones must be at least as good
 * (R* <= 1.05 R(true); in practice R* < R(true)).
 *
 * The coefficients are asserted too.  Every recording's own Nelder-Mead
 * optimum must be within 5 % of its true (delta, alpha) (docs/design.md §12), and
 * each fitted coefficient must be within 3 sigma of the true one, where
 * sigma is what the noise of the per-recording optima makes of it through
 * the design: a coefficient of a least-squares fit on the optima is
 * c_k = sum_i P_ki p_i (P = (X'X)^-1 X', X the 8 x 4 design of (1, S, V,
 * rho)), so independent errors of spread s_p in the p_i give c_k a spread
 * s_p * |P_k|_2.  s_p is measured in the run: the RMS over the recordings
 * of (optimum - truth), separately for delta and alpha; it comes from the
 * 0.1 mm marker noise and the tol 1e-5 / 1e-6 mismatch, and the 5 % check
 * above caps it.  |P_k|_2 is computed with cf_regress_lsq on unit vectors.
 * R* is not least squares, but it minimizes the same simulated errors whose
 * per-recording minima are the optima, so its coefficients scatter in the
 * same way (R* starts from the least-squares coefficients).  The design
 * pins the speed and density terms weakly (V spans only 0.06-0.17 m^2/s^2
 * here, rho 0.08-0.30): when this was written s_p was 0.0005 (delta) and
 * 0.008 (alpha), |P_k|_2 = 1.4, 0.8, 18.9, 6.3 for (1, S, V, rho), so the
 * limits were 0.002, 0.001, 0.028, 0.009 for d0..d3 and 0.032, 0.018,
 * 0.44, 0.15 for a0..a3 (deviations 0.0003, 0.0001, 0.009, 0.005 and 0.007,
 * 0.001, 0.15, 0.08); a study with a wider spread of V would pin d2, a2
 * better.  The test prints each deviation beside its limit.
 *
 * Both searches of cf_regress_fit run: the reference (Nelder-Mead on R, 80
 * evaluations of 8 simulations) must pass the checks above; the model
 * search (regress_model.c) must pass them too, end within 1 % of the
 * reference's R* (or below it) with at most a quarter of its simulations,
 * and journal every simulation under its own task id: run again with the
 * same journal (a file of records appended by the workers), it simulates
 * nothing and gives the same coefficients bit for bit.  The test prints
 * both R*, E*, coefficients, simulations and wall times, and where each
 * formula puts the recordings relative to their optima (the model
 * search's design width follows those offsets). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { N = 8, T = 301 };
static const double KAPPA = 1e-3, TOL = 1e-5, SYNTH_TOL = 1e-6, NOISE = 1e-4;

typedef struct {
  double w, h, rho, amp, freq;
  int rows, cols;
} rec_def;

static const rec_def defs[N] = {
    {0.42, 0.594, 0.1042, 0.075, 0.6, 5, 4}, {0.297, 0.42, 0.1042, 0.05, 0.8, 4, 3},
    {0.42, 0.594, 0.1804, 0.05, 0.9, 5, 4},  {0.297, 0.42, 0.1804, 0.075, 0.5, 4, 3},
    {0.42, 0.594, 0.3046, 0.10, 0.5, 5, 4},  {0.297, 0.42, 0.3046, 0.04, 1.0, 4, 3},
    {0.42, 0.594, 0.1764, 0.06, 0.7, 5, 4},  {0.297, 0.42, 0.0802, 0.09, 0.6, 4, 3},
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Each fitted coefficient within 3 sigma of the true one (see above). */
static void check_coefficients(const cf_formula *f, const cf_formula *truth, double sd, double sa, const double pn[4]) {
  const char *term[4] = {"1", "S", "V", "rho"};
  for (int k = 0; k < 4; k++) {
    double lim_d = 3 * sd * sqrt(pn[k]), lim_a = 3 * sa * sqrt(pn[k]);
    double dev_d = f->d[k] - truth->d[k], dev_a = f->a[k] - truth->a[k];
    printf("  %-3s |P|_2 %6.2f  d%d %+.4f (true %+.4f, %+.4f, limit %.4f)   a%d %+.4f (true %+.4f, %+.4f, limit %.4f)\n",
           term[k], sqrt(pn[k]), k, f->d[k], truth->d[k], dev_d, lim_d, k, f->a[k], truth->a[k], dev_a, lim_a);
    CHECK(fabs(dev_d) <= lim_d, "d%d %+.5f off the true %+.4f by more than %.5f", k, f->d[k], truth->d[k], lim_d);
    CHECK(fabs(dev_a) <= lim_a, "a%d %+.5f off the true %+.4f by more than %.5f", k, f->a[k], truth->a[k], lim_a);
  }
}

/* The per-recording errors at the fitted formula are the terms of R*. */
static void check_terms(const cf_regress_result *res, const char *what) {
  double se = 0;
  for (int i = 0; res->e_item && i < N; i++) se += res->e_item[i];
  CHECK(res->e_item && fabs(se / N - res->R) <= 1e-12 * fmax(1, res->R), "%s: mean of e_item %.17g != R* %.17g", what,
        se / N, res->R);
}

static void print_coefficients(const char *what, const cf_formula *f) {
  printf("  %-10s d %+.4f %+.4f %+.4f %+.4f   a %+.4f %+.4f %+.4f %+.4f\n", what, f->d[0], f->d[1], f->d[2], f->d[3],
         f->a[0], f->a[1], f->a[2], f->a[3]);
}

/* Where the formula f puts each recording relative to its optimum (the
 * model search's design spans +-30 %): the largest and RMS offsets. */
static void print_offsets(const cf_study_item *it, const char *what, const cf_formula *f) {
  double md = 0, ma = 0, rd = 0, ra = 0;
  for (int i = 0; i < N; i++) {
    double d, a;
    cf_formula_predict(f, it[i].S, it[i].V, it[i].tg->rho, &d, &a);
    double od = d / it[i].delta - 1, oa = a / it[i].alpha - 1;
    md = fmax(md, fabs(od)), ma = fmax(ma, fabs(oa)), rd += od * od / N, ra += oa * oa / N;
  }
  printf("  formula vs optima, %-22s delta max %5.1f %% rms %5.1f %%, alpha max %5.1f %% rms %5.1f %%\n", what,
         100 * md, 100 * sqrt(rd), 100 * ma, 100 * sqrt(ra));
}

/* A journal in a file of fixed records (id, kind, the record's double),
 * appended by the worker that finished the simulation (one write each). */
typedef struct {
  const char *path;
  int hits; /* loads that found their task (in the calling process) */
} file_journal;
typedef struct {
  unsigned long long id;
  char kind[8];
  double e;
} fj_rec;

static int fj_load(void *ctx, unsigned long long id, const char *kind, void *rec, size_t size) {
  file_journal *j = ctx;
  FILE *f = fopen(j->path, "rb");
  fj_rec r;
  int found = 0;
  while (f && !found && size == sizeof r.e && fread(&r, sizeof r, 1, f) == 1)
    if (r.id == id && !strncmp(r.kind, kind, sizeof r.kind)) memcpy(rec, &r.e, size), found = 1;
  if (f) fclose(f);
  j->hits += found;
  return found;
}

static int fj_save(void *ctx, unsigned long long id, const char *kind, const void *rec, size_t size, cf_error *err) {
  const file_journal *j = ctx;
  fj_rec r = {id, "", 0};
  strncpy(r.kind, kind, sizeof r.kind - 1);
  if (size != sizeof r.e) return cf_error_set(err, CF_EINVAL, "journal: a record of %zu bytes", size);
  memcpy(&r.e, rec, size);
  int fd = open(j->path, O_WRONLY | O_APPEND);
  int ok = fd >= 0 && write(fd, &r, sizeof r) == (ssize_t)sizeof r;
  if (fd >= 0) close(fd);
  return ok ? CF_OK : cf_error_set(err, CF_EIO, "journal: cannot append to %s", j->path);
}

/* Records in the journal; *distinct (may be NULL): distinct task ids. */
static int fj_records(const char *path, int *distinct) {
  size_t len = 0;
  char *t = cf_test_slurp(path, &len);
  int n = t ? (int)(len / sizeof(fj_rec)) : 0, d = 0;
  for (int k = 0; t && k < n; k++) {
    fj_rec a, b;
    memcpy(&a, t + k * sizeof a, sizeof a);
    int dup = 0;
    for (int q = 0; q < k && !dup; q++) memcpy(&b, t + q * sizeof b, sizeof b), dup = a.id == b.id;
    d += !dup;
  }
  free(t);
  if (distinct) *distinct = d;
  return n;
}

int main(void) {
  cf_runtime_init();
  const cf_formula *truth = &cf_formula_thesis_rep1;
  cf_fit_target tg[N];
  cf_study_item it[N];
  double *rec[N];
  for (int i = 0; i < N; i++) {
    const rec_def *d = &defs[i];
    double S = cf_size_measure(d->w, d->h), V = 0.1, delta = 0, alpha = 0;
    /* V depends on the motion made with (delta, alpha): iterate to a fixed point */
    rec[i] = NULL;
    for (int pass = 0; pass < 3; pass++) {
      cf_formula_predict(truth, S, V, d->rho, &delta, &alpha);
      free(rec[i]);
      cf_test_rec_spec sp = {d->rows, d->cols, T,     d->w, d->h, d->rho, delta, alpha, d->amp, d->freq, 0.01, NOISE,
                             (unsigned long long)(11 + i), KAPPA, SYNTH_TOL, 0, 0, 0, 0, {0, 0, 0}, 0, 0, 0, 0, 0};
      rec[i] = cf_test_shaken_recording(&sp);
      if (pass < 2) V = cf_speed_measure(T, d->rows * d->cols, 0.01, rec[i]);
    }
    tg[i] = (cf_fit_target){d->rows, d->cols, T, 0.01, rec[i], NULL, 0, NULL, d->rho, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                            0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
    it[i] = (cf_study_item){&tg[i], S, V, delta, alpha, NAN, 0, 0};
    printf("recording %d: S %.2f V %.4f rho %.4f -> delta %.4f alpha %.4f\n", i, S, V, d->rho, delta, alpha);
  }
  cf_params base;
  cf_params_default(&base);
  base.kappa = KAPPA; /* held fixed in every simulation of R */
  base.tol = TOL;
  cf_error err;
  /* per-recording optima */
  const cf_fit_target *tgp[N];
  cf_nm_options o[N];
  cf_nm_result nr[N];
  cf_fit_point fixed = {.kappa = KAPPA};
  for (int i = 0; i < N; i++) {
    double sign = i % 2 ? 1 : -1;
    tgp[i] = &tg[i];
    cf_nm_options_default(&o[i], tg[i].rho, it[i].delta * (1 + 0.1 * sign), it[i].alpha * (1 - 0.1 * sign));
  }
  CHECK(cf_fit_nelder_mead_batch(N, tgp, &base, &fixed, o, 2, NULL, NULL, nr, &err) == CF_OK, "%s", err.msg);
  double td[N], ta[N], sd = 0, sa = 0; /* the true (delta, alpha); RMS of the optima's errors */
  for (int i = 0; i < N; i++) {
    td[i] = it[i].delta, ta[i] = it[i].alpha;
    CHECK(fabs(nr[i].best[0] / td[i] - 1) < 0.05 && fabs(nr[i].best[1] / ta[i] - 1) < 0.05,
          "recording %d: optimum (%.5f, %.5f) not within 5 %% of (%.5f, %.5f)", i, nr[i].best[0], nr[i].best[1], td[i],
          ta[i]);
    sd += (nr[i].best[0] - td[i]) * (nr[i].best[0] - td[i]) / N;
    sa += (nr[i].best[1] - ta[i]) * (nr[i].best[1] - ta[i]) / N;
    printf("recording %d: fitted delta %.5f (%+.2f %%) alpha %.5f (%+.2f %%), e %.4f cm, %d evaluations\n", i,
           nr[i].best[0], 100 * (nr[i].best[0] / it[i].delta - 1), nr[i].best[1], 100 * (nr[i].best[1] / it[i].alpha - 1),
           nr[i].f_best, nr[i].evaluations);
    it[i].delta = nr[i].best[0];
    it[i].alpha = nr[i].best[1];
    it[i].e_opt = nr[i].f_best;
    cf_nm_result_free(&nr[i]);
  }
  sd = sqrt(sd), sa = sqrt(sa);
  /* |P_k|_2: the least-squares coefficients of the unit responses e_i are
   * the columns P_.i of the pseudo-inverse */
  double pn[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++) {
    cf_study_item u[N];
    for (int j = 0; j < N; j++) u[j] = it[j], u[j].delta = u[j].alpha = i == j;
    cf_formula pc;
    CHECK(cf_regress_lsq(u, N, &pc, &err) == CF_OK, "%s", err.msg);
    for (int k = 0; k < 4; k++) pn[k] += pc.d[k] * pc.d[k];
  }
  double R_true;
  CHECK(cf_regress_objective(it, N, &base, truth, 2, &R_true, &err) == CF_OK, "%s", err.msg);
  /* the reference: Nelder-Mead on R, every evaluation simulating all 8 */
  cf_regress_result res;
  double t0 = now_s();
  cf_regress_options ref_o = {CF_REGRESS_NM, 80, 2, NULL, NULL};
  CHECK(cf_regress_fit(it, N, &base, NULL, &ref_o, &res, &err) == CF_OK, "%s", err.msg);
  double ref_wall = now_s() - t0;
  printf("R(true) %.4f cm, R(start) %.4f cm, R* %.4f cm after %d evaluations\n", R_true, res.R_start, res.R,
         res.evaluations);
  printf("optima vs truth: RMS %.5f (delta), %.5f (alpha); limits 3 x that x |P_k|_2\n", sd, sa);
  check_coefficients(&res.f, truth, sd, sa, pn);
  CHECK(res.R <= res.R_start, "R* %.4f above the start %.4f", res.R, res.R_start);
  CHECK(res.R <= 1.05 * R_true, "R* %.4f not within 5 %% of R(true) %.4f", res.R, R_true);
  CHECK(R_true < 0.1, "R at the true coefficients %.4f: the study is not reproduced closely", R_true);
  check_terms(&res, "nelder-mead");
  /* the model search, twice with one journal: the second run resumes it all */
  char jpath[] = "/tmp/test_regress_journal_XXXXXX";
  int fd = mkstemp(jpath);
  CHECK(fd >= 0, "mkstemp %s", jpath);
  if (fd >= 0) close(fd);
  file_journal fj = {jpath, 0};
  cf_fit_journal kept = {fj_load, fj_save, &fj};
  cf_regress_options mod_o = {CF_REGRESS_MODEL, 80, 2, &kept, NULL};
  cf_regress_result mod[2];
  double wall[2];
  int saved[2];
  for (int k = 0; k < 2; k++) {
    int before = fj_records(jpath, NULL);
    fj.hits = 0;
    t0 = now_s();
    CHECK(cf_regress_fit(it, N, &base, NULL, &mod_o, &mod[k], &err) == CF_OK, "%s", err.msg);
    wall[k] = now_s() - t0;
    saved[k] = fj_records(jpath, NULL) - before;
    printf("model search run %d: R* %.4f cm (start %.4f) after %d real evaluations, %d rounds, %ld simulations "
           "(%d run and journaled, %d resumed), %.1f s\n", k + 1, mod[k].R, mod[k].R_start, mod[k].evaluations,
           mod[k].iterations, mod[k].simulations, saved[k], fj.hits, wall[k]);
  }
  int distinct = 0, records = fj_records(jpath, &distinct);
  unlink(jpath);
  const cf_regress_result *m = &mod[0];
  printf("reference (nelder-mead): R* %.5f cm, E* %.4f cm, %ld simulations, %.1f s\n", res.R, res.E, res.simulations,
         ref_wall);
  printf("model search:            R* %.5f cm, E* %.4f cm, %ld simulations, %.1f s\n", m->R, m->E, m->simulations,
         wall[0]);
  print_coefficients("reference", &res.f);
  print_coefficients("model", &m->f);
  print_coefficients("truth", truth);
  print_offsets(it, "least squares (start)", &res.f_start);
  print_offsets(it, "reference R*", &res.f);
  print_offsets(it, "model R*", &m->f);
  check_coefficients(&m->f, truth, sd, sa, pn);
  check_terms(m, "model");
  /* Within 5 %, not closer: below the last percent R is rough, not a bowl
   * (src/fit/regress_model.c's header: single recordings' errors double or
   * triple for changes of alpha of 0.1-0.3 %), and the whole gain the
   * reference finds over the start is 6 % here; which of such points a
   * search lands on moves with the BLAS kernel set (the reference's own R*
   * differs by 1.2 % between OPENBLAS_CORETYPE=Prescott and the default). */
  CHECK(m->R <= 1.05 * res.R, "model search R* %.5f not within 5 %% of the reference's %.5f", m->R, res.R);
  CHECK(4 * m->simulations <= res.simulations, "model search: %ld simulations, more than 1/4 of the reference's %ld",
        m->simulations, res.simulations);
  CHECK(m->R <= m->R_start, "model search R* %.4f above the start %.4f", m->R, m->R_start);
  CHECK(m->evaluations <= 1 + CF_REGRESS_ROUNDS && m->iterations <= CF_REGRESS_ROUNDS,
        "model search: %d evaluations, %d rounds", m->evaluations, m->iterations);
  /* the journal: every simulation has its own task id, and the second run
   * simulated nothing and gave the first's result bit for bit */
  CHECK(records == m->simulations && distinct == records, "journal: %d records, %d distinct ids, %ld simulations",
        records, distinct, m->simulations);
  CHECK(saved[1] == 0 && fj.hits == mod[1].simulations, "second run: %d simulated, %d of %ld resumed", saved[1],
        fj.hits, mod[1].simulations);
  CHECK(!memcmp(&mod[0].f, &mod[1].f, sizeof mod[0].f) && mod[0].R == mod[1].R,
        "second run: other coefficients (R %.17g, %.17g)", mod[0].R, mod[1].R);
  free(mod[0].e_item), free(mod[1].e_item);
  free(res.e_item);
  for (int i = 0; i < N; i++) free(rec[i]);
  return cf_test_done("test_regress");
}
