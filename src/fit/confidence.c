/* confidence.c — how sure a fit of (delta, alpha) is (docs/confidence.md).
 *
 * Around the fitted point the mean error is evaluated on a 3 x 3 stencil
 * (delta and alpha at -30 %, 0, +30 %) and a quadratic is fitted to it by
 * least squares (GSL multifit); its stationary point is where the data put
 * the optimum.  The spread of that point is estimated by the jackknife over
 * time: the window is cut into CF_CONF_BLOCKS consecutive blocks, and the
 * stationary point is found again with each block left out.  The per-frame
 * errors of a recording are correlated over many frames (the cloth's motion
 * is smooth), so counting frames as independent observations would give far
 * too narrow intervals; blocks of 1/8 of the window are long against that
 * correlation, and the jackknife over them needs no noise model.
 *
 *   interval = x^ +- t se,  se^2 from the blocks' jackknife pseudo-values
 *   with their lag-1 autocovariance (block_variance)
 *
 * with t = 2.365, Student's 97.5 % quantile for B - 1 = 7 degrees of freedom
 * (a 95 % interval), centred on the fit.  A left-out
 * block's point is one Newton step from the fit with that block's gradient
 * and the whole window's curvature.  A fit is flagged not identifiable when
 * the surface is not a bowl (the quadratic's Hessian is not positive
 * definite: flat in some direction, or a saddle), when its minimum lies more
 * than two stencil steps (60 %) from the fit, or when an interval's
 * half-width exceeds half the estimate, or when the fit moves by more
 * than HELD_MAX_SHIFT with the held kappa tripled, with a large held beta
 * or with the other rest metric (held_checks: model assumptions the data do
 * not separate from delta and alpha).  The stencil's 9 simulations run on
 * the worker processes of parallel.c, 9 per recording for a batch of
 * recordings, then the refits with 3 kappa, with a large beta and with the
 * other rest metric (at most 40 simulations each), one recording per
 * worker. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "parallel.h"
#include "quadfit.h"

enum { B = CF_CONF_BLOCKS, NS = 9 };
/* STEP: the stencil's half-width relative to the fit.  Measured on 20
 * model-made recordings with known truth (tests/test_confidence.c's other
 * seed set): intervals held the truth in 8, 15, 20 of 20 at 0.05, 0.15,
 * 0.3 — a narrow stencil measures the objective's numerical roughness (the
 * projection's tolerance moves the error by more than the data's noise
 * does over a few per cent), not the noise of the data. */
static const double STEP = 0.3, T_QUANTILE = 2.365, MAX_REL = 0.5;
/* The held bending stiffness: Nelder-Mead from the fit with KAPPA_FACTOR x
 * kappa (at most HELD_EVALS evaluations, no restarts), and a fit that
 * moves by more than HELD_MAX_SHIFT of its delta or alpha is not
 * identifiable (the recording does not tell the aerodynamic parameters from
 * the bending the fit assumed).  Measured on the bundled study (refits with
 * --kappa 3e-3 and 3e-4 from the fits at 1e-3, docs/confidence.md): shakes
 * moved by 1-13 %, twists by 1-96 %.  A first version estimated the move
 * from a second 3 x 3 stencil at 3 kappa (one Newton step with the fit's
 * curvature): it saw 4-17 % where the refits moved 54-96 % (the valleys of
 * twist fits are long and curved) and flagged 3 of the study's 8 fits that
 * are more than 50 % off. */
static const double KAPPA_FACTOR = 3, HELD_MAX_SHIFT = CF_CONF_HELD_MAX_SHIFT;
enum { HELD_EVALS = 40 };
/* The held Rayleigh damping on K (beta, default 0).  beta / kappa is the
 * time in which overdamped bending modes relax, so the check sets it to
 * BETA_TIME window lengths: bending damped so strongly that it relaxes no
 * faster than the window lasts, the far end from the fit's undamped
 * bending.  A fit that moves by more than HELD_MAX_SHIFT then has its
 * alpha standing in for bending dissipation the model was told is absent.
 * Measured on the bundled study (refits from the fits at kappa 1e-3,
 * docs/confidence.md): with beta 6e-3 (kappa x 6 s, the windows' length)
 * the 16 shakes moved by at most 12 %, denim-A3-twist-slow-I alpha -46 %
 * and stiff-cotton-A3-twist-slow-I delta +68 %, alpha -44 % (alpha +134 %
 * and +115 % off the truth, stable under kappa x 3); with 1e-2 the same
 * (at most 13 %; -49 %, +67 %).  No scale of beta that the recording
 * gives: the window's length is the longest relaxation it can show. */
static const double BETA_TIME = 1;
/* The held rest metric (cf_fit_target.rest): the lengths the cloth keeps,
 * those of the recording's first frame (docs/design.md §4) or of a flat
 * lattice of the recorded marker spacings (not checked for a rest of the
 * cloth's measured size, held_rest).  A sheet that
 * starts bent (the top corners held closer than the cloth is wide) has
 * first-frame chords shorter than its material, which the inextensible model
 * then holds; a fit whose delta or alpha moves by more than HELD_MAX_SHIFT
 * when refitted with the other metric has them standing in for lengths the
 * recording does not give.  Measured on the bundled study (refits from the
 * fits with --rest flat, docs/confidence.md): the 16 shakes moved by at most
 * 21 % (stiff-cotton-A3-shake-slow-I's alpha), the twists by up to 98 %;
 * denim-A2-twist-slow-I, alpha +58 % off the truth and moved by at most 14 %
 * with 3 kappa or the large beta, moved delta +34 %, alpha +29 %. */

typedef struct {
  double sum[B]; /* sum of e_i over the frames of each block */
  int n[B];      /* frames with markers in each block */
  int status;
  char reason[160];
} stencil_rec;

typedef struct {
  const cf_fit_target *const *tg;
  const cf_params *base;
  const cf_fit_point *at;
  const int *t0, *t1;
} conf_ctx;

/* Blocks of [t0, t1): frame t belongs to block (t - t0) * B / (t1 - t0). */
static void block_sums(const cf_frame_error *fe, int t0, int t1, stencil_rec *r) {
  for (int t = t0; t < t1; t++) {
    int b = (int)((long)(t - t0) * B / (t1 - t0));
    if (fe[t].n > 0 && isfinite(fe[t].e_cm)) r->sum[b] += fe[t].e_cm, r->n[b]++;
  }
}

static cf_fit_point stencil_point(const cf_fit_point *at, int k) {
  cf_fit_point p = *at;
  p.delta *= 1 + STEP * (k / 3 - 1);
  p.alpha *= 1 + STEP * (k % 3 - 1);
  return p;
}

static int conf_item(int i, void *arg, void *out, cf_error *err) {
  const conf_ctx *c = arg;
  stencil_rec *r = out;
  int j = i / NS, k = i % NS;
  const cf_fit_target *tg = c->tg[j];
  cf_fit_run *run = cf_fit_run_alloc(tg, c->base, err);
  cf_frame_error *fe = calloc((size_t)tg->T + 1, sizeof *fe);
  if (!run || !fe) {
    cf_fit_run_free(run);
    free(fe);
    return err && err->code ? err->code : CF_ENOMEM;
  }
  cf_fit_point p = stencil_point(&c->at[j], k); /* with the fit's held (or fitted) kappa, beta ... */
  cf_fit_result res;
  int t0 = c->t0 ? c->t0[j] : 0, t1 = c->t1 && c->t1[j] > 0 ? c->t1[j] : tg->T;
  int rc = cf_fit_run_eval(run, &p, t0, t1, 0, fe, &res);
  if (!rc) {
    r->status = res.status;
    snprintf(r->reason, sizeof r->reason, "%.159s", res.reason);
    if (res.status == CF_OK) block_sums(fe, t0, t1, r);
  }
  free(fe);
  cf_fit_run_free(run);
  return rc;
}

/* Least-squares quadratic c0 + c1 x + c2 y + c3 x^2 + c4 x y + c5 y^2 through
 * the stencil values f[9] at x, y in {-1, 0, 1} into c[6]; 0, or 1 if GSL
 * fails. */
static int quadratic(const double f[NS], double c[6]) {
  double u[2 * NS];
  for (int k = 0; k < NS; k++) u[2 * k] = k / 3 - 1, u[2 * k + 1] = k % 3 - 1;
  return cf_quad_fit(2, NS, u, f, c, NULL);
}

/* The stationary point of the quadratic with gradient (g1, g2) at 0 and
 * Hessian [[a, b], [b, d]]. */
static void newton(double g1, double g2, double a, double b, double d, double *x, double *y) {
  double det = a * d - b * b;
  *x = (-g1 * d + g2 * b) / det, *y = (-a * g2 + b * g1) / det;
}

/* The stencil's mean errors with block `skip` left out (-1: none). */
static int surface(const stencil_rec *r, int skip, double f[NS]) {
  for (int k = 0; k < NS; k++) {
    double s = 0;
    int n = 0;
    for (int b = 0; b < B; b++)
      if (b != skip) s += r[k].sum[b], n += r[k].n[b];
    if (n == 0) return 1;
    f[k] = s / n;
  }
  return 0;
}

/* The variance of the estimate x from the left-out estimates xb[B]: the
 * jackknife's pseudo-values p_b = B x - (B - 1) xb_b have the variance
 * gamma0 / (B - 1) of their mean when the blocks are independent; adjacent
 * blocks of a recording are not (the cloth's slow motion spans them), so
 * the lag-1 autocovariance is added with the Bartlett weight 1/2 of a
 * Newey-West estimate: (gamma0 + 2 * gamma1 / 2) / (B - 1), never below 0. */
static double block_variance(double x, const double xb[B]) {
  double p[B], m = 0, g0 = 0, g1 = 0;
  for (int k = 0; k < B; k++) p[k] = B * x - (B - 1) * xb[k], m += p[k] / B;
  for (int k = 0; k < B; k++) g0 += (p[k] - m) * (p[k] - m) / B;
  for (int k = 1; k < B; k++) g1 += (p[k] - m) * (p[k - 1] - m) / B;
  double v = (g0 + g1) / (B - 1);
  return v > 0 ? v : 0;
}

/* The jackknife: each left-out block's stationary point uses its own
 * gradient and the whole window's curvature (a one-step estimate: a
 * block's own curvature is too noisy to trust on a 3 x 3 stencil). */
static void judge(const cf_fit_point *at, const stencil_rec *r, cf_confidence *out) {
  memset(out, 0, sizeof *out);
  out->center[0] = at->delta, out->center[1] = at->alpha;
  for (int q = 0; q < 2; q++) out->interval[q][0] = out->interval[q][1] = out->se[q] = NAN;
  out->kappa_shift[0] = out->kappa_shift[1] = out->beta_shift[0] = out->beta_shift[1] = NAN;
  out->beta_checked = NAN;
  out->rest_shift[0] = out->rest_shift[1] = NAN;
  out->mesh_shift[0] = out->mesh_shift[1] = NAN;
  for (int k = 0; k < NS; k++)
    if (r[k].status != CF_OK) {
      out->identifiable = -1;
      snprintf(out->why, sizeof out->why, "a simulation of the stencil failed: %.120s", r[k].reason);
      return;
    }
  double f[NS], c[6], x, y, xb[B], yb[B];
  if (surface(r, -1, f) || quadratic(f, c)) {
    out->identifiable = -1;
    snprintf(out->why, sizeof out->why, "no error surface (frames without markers)");
    return;
  }
  double a = 2 * c[3], b = c[4], d = 2 * c[5];
  if (!(a > 0 && a * d - b * b > 0)) {
    snprintf(out->why, sizeof out->why, "the error surface is not a bowl around the fit (flat or a saddle)");
    return;
  }
  newton(c[1], c[2], a, b, d, &x, &y);
  for (int k = 0; k < B; k++) {
    double ck[6];
    if (surface(r, k, f) || quadratic(f, ck)) {
      out->identifiable = -1;
      snprintf(out->why, sizeof out->why, "no error surface without block %d", k + 1);
      return;
    }
    newton(ck[1], ck[2], a, b, d, &xb[k], &yb[k]);
  }
  double vx = block_variance(x, xb), vy = block_variance(y, yb);
  /* stencil units (STEP of the fitted value) to parameter units; centred on
   * the fit itself: the error surface is skewed over the stencil, so the
   * quadratic's own minimum is biased (towards larger alpha; measured with
   * a +-15 % stencil: 9 of 20 intervals around it held the truth, against
   * 15 around the fit) */
  double sd = STEP * at->delta, sa = STEP * at->alpha;
  out->se[0] = sqrt(vx) * sd;
  out->se[1] = sqrt(vy) * sa;
  for (int q = 0; q < 2; q++) {
    double h = T_QUANTILE * out->se[q];
    out->interval[q][0] = out->center[q] - h, out->interval[q][1] = out->center[q] + h;
  }
  double rd = T_QUANTILE * out->se[0] / fabs(out->center[0]), ra = T_QUANTILE * out->se[1] / fabs(out->center[1]);
  out->identifiable = rd <= MAX_REL && ra <= MAX_REL && fabs(x) <= 2 && fabs(y) <= 2;
  if (fabs(x) > 2 || fabs(y) > 2)
    snprintf(out->why, sizeof out->why, "the error surface's minimum lies %.0f %% / %.0f %% away from the fit",
             100 * x * STEP, 100 * y * STEP);
  else if (!out->identifiable)
    snprintf(out->why, sizeof out->why, "the 95 %% intervals are delta +-%.0f %%, alpha +-%.0f %% (more than %.0f %%)",
             100 * rd, 100 * ra, 100 * MAX_REL);
}

/* The held assumptions checked by refits, and the context they share. */
enum held_kind { HELD_KAPPA, HELD_BETA, HELD_REST, HELD_MESH };
typedef struct {
  const cf_fit_target *const *tg;
  const cf_params *base;
  const cf_fit_point *at;
  const unsigned *fitted;
  const int *t0, *t1;
  int workers, search; /* search: the refits' (cf_nm_options.search) */
  const cf_fit_journal *kept;
  cf_confidence *out;
} held_ctx;

/* One held assumption's check: Nelder-Mead refits (at most HELD_EVALS
 * evaluations, no restarts) of the fits still identifiable among idx[m],
 * from each fit with the held point fk, on the targets alt (NULL: the
 * fits' own), one recording per worker process (their journal task ids
 * differ from the fits' by the held point or target, start, budget and
 * restarts); each one's move into the shift of its confidence that which
 * names, and a move beyond HELD_MAX_SHIFT flags it, naming what. */
static int held_refits(const held_ctx *h, const int *idx, int m, const cf_fit_point *fk,
                       const cf_fit_target *const *alt, enum held_kind which, const char *what, cf_error *err) {
  const cf_fit_target **tgs = malloc(sizeof *tgs * ((size_t)m + 1));
  cf_nm_options *o = calloc((size_t)m + 1, sizeof *o);
  cf_nm_result *nr = calloc((size_t)m + 1, sizeof *nr);
  int n = 0, *at_idx = malloc(sizeof(int) * ((size_t)m + 1));
  int rc = tgs && o && nr && at_idx ? CF_OK : cf_error_set(err, CF_ENOMEM, "confidence: out of memory");
  for (int q = 0; !rc && q < m; q++) {
    int j = idx[q];
    if (h->out[j].identifiable != 1) continue;
    cf_nm_options_default(&o[n], h->tg[j]->rho, h->at[j].delta, h->at[j].alpha);
    o[n].t0 = h->t0 ? h->t0[j] : 0, o[n].t1 = h->t1 ? h->t1[j] : 0;
    o[n].max_evals = HELD_EVALS, o[n].restarts = 0, o[n].search = h->search;
    tgs[n] = alt ? alt[j] : h->tg[j], at_idx[n++] = j;
  }
  if (!rc && n) rc = cf_fit_nelder_mead_batch(n, tgs, h->base, fk, o, h->workers, h->kept, NULL, nr, err);
  for (int q = 0; !rc && q < n; q++) {
    cf_confidence *c = &h->out[at_idx[q]];
    c->simulations += nr[q].evaluations;
    if (nr[q].start_failed || !isfinite(nr[q].f_best)) continue;
    double *sh = which == HELD_BETA ? c->beta_shift : which == HELD_REST ? c->rest_shift
                 : which == HELD_MESH ? c->mesh_shift : c->kappa_shift;
    if (which == HELD_BETA) c->beta_checked = fk->beta;
    sh[0] = nr[q].best[0] / h->at[at_idx[q]].delta - 1;
    sh[1] = nr[q].best[1] / h->at[at_idx[q]].alpha - 1;
    if (fmax(fabs(sh[0]), fabs(sh[1])) <= HELD_MAX_SHIFT) continue;
    c->identifiable = 0;
    snprintf(c->why, sizeof c->why, "the fit depends on the %s it moves delta %+.0f %%, alpha %+.0f %% (more than %.0f %%)",
             what, 100 * sh[0], 100 * sh[1], 100 * HELD_MAX_SHIFT);
  }
  for (int q = 0; nr && q < n; q++) cf_nm_result_free(&nr[q]);
  free(tgs), free(o), free(nr), free(at_idx);
  return rc;
}

/* The training window's length (s), to 0.1 s (at least 0.1 s): the
 * recordings of a batch whose windows differ by less share one held beta,
 * so that their refits run together on the workers. */
static double window_length(const held_ctx *h, int j) {
  int t0 = h->t0 ? h->t0[j] : 0, t1 = h->t1 ? h->t1[j] : 0;
  if (t1 <= 0 || t1 > h->tg[j]->T) t1 = h->tg[j]->T;
  return fmax(1, round(10 * (t1 - t0) * h->tg[j]->dt)) / 10;
}

/* The held point of fit j's check `which` into *fk: the fit's point (its
 * held or fitted kappa, beta, mu and stiffnesses) with kappa x KAPPA_FACTOR
 * or beta = kappa x BETA_TIME x the window's length, or as it is (the rest
 * metric's check changes the target).  0: not checked: kappa 0 (no scale
 * for either), or the parameter fitted with delta and alpha (its value is
 * the data's, not an assumption the data may contradict), or the held
 * beta already that large. */
static int held_point(const held_ctx *h, int j, enum held_kind which, cf_fit_point *fk) {
  unsigned fitted = h->fitted ? h->fitted[j] : 0;
  *fk = h->at[j];
  if (which == HELD_REST || which == HELD_MESH) return 1;
  if (!(fk->kappa > 0)) return 0;
  if (which == HELD_KAPPA) return fk->kappa *= KAPPA_FACTOR, !(fitted & CF_STIFF_BIT(CF_STIFF_KAPPA));
  fk->beta = fk->kappa * BETA_TIME * window_length(h, j);
  return fk->beta > h->at[j].beta && !(fitted & CF_STIFF_BIT(CF_STIFF_BETA));
}

/* The parameters a refit holds are the same (delta and alpha are refitted). */
static int same_held(const cf_fit_point *a, const cf_fit_point *b) {
  return a->kappa == b->kappa && a->beta == b->beta && a->mu == b->mu && a->k_stretch == b->k_stretch &&
         a->k_shear == b->k_shear && a->k_bend == b->k_bend;
}

/* One held assumption checked (see KAPPA_FACTOR, BETA_TIME and the rest
 * metric above) for every fit still identifiable, by held_refits on the
 * targets alt (NULL: the fits' own), one batch per held point: the fits of
 * a batch share it (the commands give a study one kappa and beta, so one
 * batch, or one per window length for beta). */
static int held_check(const held_ctx *h, int n, enum held_kind which, const cf_fit_target *const *alt,
                      cf_error *err) {
  int *idx = calloc((size_t)n + 1, sizeof(int)), *done = calloc((size_t)n + 1, sizeof(int));
  int rc = idx && done ? CF_OK : cf_error_set(err, CF_ENOMEM, "confidence: out of memory");
  cf_fit_point fj, fk;
  for (int j = 0; !rc && j < n; j++) {
    if (done[j] || h->out[j].identifiable != 1 || !held_point(h, j, which, &fj)) continue;
    int m = 0;
    for (int k = j; k < n; k++)
      if (!done[k] && h->out[k].identifiable == 1 && held_point(h, k, which, &fk) && same_held(&fj, &fk))
        idx[m++] = k, done[k] = 1;
    char what[96];
    if (which == HELD_KAPPA)
      snprintf(what, sizeof what, "bending stiffness held fixed: with kappa x%g", KAPPA_FACTOR);
    else if (which == HELD_BETA)
      snprintf(what, sizeof what, "damping held fixed: with beta %.3g (kappa x %.3g s, the window)", fj.beta,
               fj.beta / (fj.kappa > 0 ? fj.kappa : 1));
    else if (which == HELD_MESH) /* likewise one mesh */
      snprintf(what, sizeof what, "mesh (not converged): with every lattice cell split %d x %d",
               cf_fit_target_split(alt[j]), cf_fit_target_split_cols(alt[j]));
    else /* the commands give a batch one rest metric; named by the first's */
      snprintf(what, sizeof what, "rest metric held fixed: with the %s lengths",
               h->tg[j]->rest != CF_REST_FIRST_FRAME ? "first frame's" : "flat lattice's");
    rc = held_refits(h, idx, m, &fj, alt, which, what, err);
  }
  free(idx), free(done);
  return rc;
}

/* held_check of `which` on every fit's target altered as that check asks:
 * HELD_REST the other rest metric (flat for first-frame, first-frame for
 * flat), HELD_MESH the mesh one split finer. */
static int held_altered(const held_ctx *h, int n, enum held_kind which, cf_error *err) {
  cf_fit_target *alt = malloc(sizeof *alt * ((size_t)n + 1));
  const cf_fit_target **ap = malloc(sizeof *ap * ((size_t)n + 1));
  int rc = alt && ap ? CF_OK : cf_error_set(err, CF_ENOMEM, "confidence: out of memory");
  for (int j = 0; !rc && j < n; j++) {
    alt[j] = *h->tg[j];
    if (which == HELD_REST) alt[j].rest = alt[j].rest == CF_REST_FIRST_FRAME ? CF_REST_FLAT : CF_REST_FIRST_FRAME;
    else alt[j].split = cf_fit_target_split(&alt[j]) + 1, alt[j].split_cols = cf_fit_target_split_cols(h->tg[j]) + 1;
    ap[j] = &alt[j];
  }
  if (!rc) rc = held_check(h, n, which, ap, err);
  free(alt), free(ap);
  return rc;
}

/* The held rest metric (see the measurement above): every fit still
 * identifiable refitted on its target with the other rest metric.  Not for
 * a rest of the cloth's measured size: that is no assumption but the cloth
 * the researcher cut. */
static int held_rest(const held_ctx *h, int n, cf_error *err) {
  return n > 0 && h->tg[0]->rest != CF_REST_SIZE ? held_altered(h, n, HELD_REST, err) : CF_OK;
}

/* The convergence of the discretisation: every fit still identifiable
 * refitted on the mesh one split finer (split + 1 down and across: A2 7 x
 * 9 nodes -> 10 x 13).  The fitting mesh is coarser than a cloth's (docs/notes/fit-causes.md:
 * the bundled recordings' 4 x 4 split moves their trajectories by 0.6 cm
 * against the default 2 x 2, and their twists' fits by up to 50 %), so a
 * fit that moves by more than HELD_MAX_SHIFT one level finer is an
 * effective value of that mesh and flagged, naming the split.  Nothing
 * at CF_LATTICE_SPLIT_MAX. */
static int held_mesh(const held_ctx *h, int n, cf_error *err) {
  int finer = n > 0 && cf_fit_target_split(h->tg[0]) < CF_LATTICE_SPLIT_MAX &&
              cf_fit_target_split_cols(h->tg[0]) < CF_LATTICE_SPLIT_MAX;
  return finer ? held_altered(h, n, HELD_MESH, err) : CF_OK;
}

/* The intervals widened by what the fit's held assumptions move it: the
 * moves of the checks made (3 kappa, a large beta, the other rest metric,
 * one split finer), each as a systematic half-width, added in quadrature
 * to the jackknife's (noise) half-width.  The jackknife alone sees only the
 * markers' noise and the time blocks' scatter, while the bundled study's
 * fits (the model's own recordings on a finer mesh and step) miss their
 * truth by more: their noise intervals held it on 10 of 32, these on 18 of
 * 32, every shake among them (docs/confidence.md item 10). */
static void widen(cf_confidence *c) {
  const double *shift[4] = {c->kappa_shift, c->beta_shift, c->rest_shift, c->mesh_shift};
  for (int q = 0; q < 2; q++) {
    double s2 = 0;
    for (int k = 0; k < 4; k++)
      if (isfinite(shift[k][q])) s2 += shift[k][q] * shift[k][q];
    c->sys[q] = sqrt(s2) * fabs(c->center[q]);
    if (!isfinite(c->se[q])) continue;
    double h = hypot(T_QUANTILE * c->se[q], c->sys[q]);
    c->interval[q][0] = c->center[q] - h, c->interval[q][1] = c->center[q] + h;
  }
}

/* A stencil simulation's task id: its point (with what it holds: a
 * fitted kappa or beta is no setting of the command), window and
 * recording. */
static unsigned long long conf_id(int i, const void *arg) {
  const conf_ctx *c = arg;
  int j = i / NS;
  const cf_fit_point *p = &c->at[j];
  double x[12 + CF_FIT_TARGET_KEY] = {p->delta, p->alpha, c->t0 ? c->t0[j] : 0, c->t1 ? c->t1[j] : 0, c->tg[j]->T,
                                      c->tg[j]->rho, p->kappa, p->beta, p->mu, p->k_stretch, p->k_shear, p->k_bend};
  cf_fit_target_key(c->tg[j], x + 12);
  return cf_task_id("conf", i, x, 12 + CF_FIT_TARGET_KEY);
}

int cf_fit_confidence_batch(int n, const cf_fit_target *const *tg, const cf_params *base, const cf_fit_point *at,
                            const unsigned *fitted, const int *t0, const int *t1, int workers, int search,
                            const cf_fit_journal *kept, cf_confidence *out, cf_error *err) {
  stencil_rec *r = calloc((size_t)n * NS + 1, sizeof *r);
  if (!r) return cf_error_set(err, CF_ENOMEM, "confidence: out of memory");
  conf_ctx c = {tg, base, at, t0, t1};
  int rc = cf_parallel_run_kept(n * NS, workers, sizeof *r, NULL, conf_item, &c, r, NULL, kept, "conf", conf_id, err);
  for (int j = 0; !rc && j < n; j++) {
    judge(&at[j], r + (size_t)j * NS, &out[j]);
    out[j].simulations = NS;
    unsigned f = fitted ? fitted[j] : 0;
    out[j].kappa_fitted = (f & CF_STIFF_BIT(CF_STIFF_KAPPA)) != 0;
    out[j].beta_fitted = (f & CF_STIFF_BIT(CF_STIFF_BETA)) != 0;
  }
  held_ctx h = {tg, base, at, fitted, t0, t1, workers, search, kept, out};
  if (!rc) rc = held_check(&h, n, HELD_KAPPA, NULL, err); /* first kappa, then beta for those still identifiable */
  if (!rc) rc = held_check(&h, n, HELD_BETA, NULL, err);
  if (!rc) rc = held_rest(&h, n, err);
  if (!rc) rc = held_mesh(&h, n, err);
  for (int j = 0; !rc && j < n; j++) widen(&out[j]);
  free(r);
  return rc;
}
