/* model_check.c — does the model, not the noise, set a fit's error
 * (cf_pipeline_model_check; docs/confidence.md item 10)?
 *
 * A fit's intervals say how far the markers' noise and the held
 * assumptions move it.  When the recorded cloth does what the model cannot
 * (an inextensible sheet that stretches or shears), the fit still finds
 * parameters, effective values that absorb the difference, with intervals
 * as narrow as on the model's own recordings.  The chord test of
 * cf_fit_stretch says so from the markers alone; then the other cloth
 * models are fitted as `clothfit compare` fits them, from the fit's
 * optimum, and the one that tests best, if it tests better than the fit,
 * is named.  The fit is then not identifiable, and why says both. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_internal.h"

/* Models whose testing errors are within this factor of the best are
 * named with it: 5 %, about the spread of a fit's testing error over the
 * solver's tolerance (docs/confidence.md item 10). */
#define CF_MODEL_TIE 1.05

/* The chord test of the model of in: stretching for the models whose
 * edges keep their length, shearing too for the inextensible one. */
static int limited(const cf_fit_input *in, const cf_stretch *s) {
  int m = in->base.model;
  if (!s->checked) return 0;
  if (m == CF_CLOTH_INEXTENSIBLE) return s->stretches || s->shears;
  return m == CF_CLOTH_QUASI && s->stretches;
}

/* The other models fitted on the fit's windows from its optimum; the best
 * testing one into c (better_model "" when none tests below the fit). */
static int better_model(const cf_fit_input *in, const cf_res_fit *f, int workers, const cf_fit_journal *kept,
                        cf_res_conf *c, cf_error *err) {
  int models[CF_CLOTH_MODELS], n = 0, T = in->tg.T;
  for (int m = 0; m < CF_CLOTH_MODELS; m++)
    if (m != in->base.model) models[n++] = m;
  int t0 = (int)lround(f->train_t0_s / in->tg.dt);
  int t1 = f->train_t1_s > 0 ? (int)lround(f->train_t1_s / in->tg.dt) : T;
  c->better_model[0] = 0, c->better_e_test = NAN;
  if (T - t1 < 2) return CF_OK; /* no testing window: nothing to compare on */
  cf_compare_options o = {t0, t1, t1, T, 0, f->x[0], f->x[1], in->search};
  cf_compare_row rows[CF_CLOTH_MODELS];
  memset(rows, 0, sizeof rows);
  cf_error e = {0, ""};
  cf_fit_point fixed = in->fixed; /* kappa and beta as the fit had them (fitted or held) */
  fixed.kappa = f->model.kappa, fixed.beta = f->model.beta;
  int rc = cf_fit_compare(&in->tg, &in->base, &fixed, n, models, &o, workers, kept, NULL, rows, &e);
  if (rc) return cf_error_set(err, rc, "%s: comparing the cloth models: %s", in->path, e.msg);
  double best = f->e_test;
  for (int k = 0; k < n; k++)
    if (rows[k].status == CF_OK && rows[k].e_test_cm < best) best = rows[k].e_test_cm;
  if (!(best < f->e_test)) return CF_OK;
  c->better_e_test = best;
  /* every model within CF_MODEL_TIE of the best, best first: a shear-
   * compliant cloth is the quasi-inextensible model and the elastic one with
   * a large k_stretch alike (docs/confidence.md item 10 measures a tie) */
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < n; k++) {
      double e = rows[k].e_test_cm;
      if (rows[k].status != CF_OK || !(e < f->e_test) || e > CF_MODEL_TIE * best || (e == best) != !pass) continue;
      size_t l = strlen(c->better_model);
      snprintf(c->better_model + l, sizeof c->better_model - l, "%s%s", l ? ", " : "",
               cf_cloth_model_name(rows[k].model));
    }
  return CF_OK;
}

/* why (200 characters): what the chord test found and what that makes of
 * the fit. */
static void say_why(cf_res_conf *c, const cf_res_fit *f) {
  int edges = c->stretch_edges > CF_STRETCH_MAX;
  char better[120] = "no other cloth model tests better";
  if (c->better_model[0])
    snprintf(better, sizeof better, "%s test%s better (%.3f cm against %.3f)", c->better_model,
             strchr(c->better_model, ',') ? "" : "s", c->better_e_test, f->e_test);
  snprintf(c->why, sizeof c->why, "the model does not fit this cloth (it %s: %s %.1f %% longer than on the flat "
           "sheet): effective values; %s", edges ? "stretches" : "shears", edges ? "lattice edges" : "cell diagonals",
           100 * (edges ? c->stretch_edges : c->stretch_diagonals), better);
}

int cf_pipeline_model_check(const cf_fit_input *const *in, int n, int workers, const cf_fit_journal *kept,
                            const cf_pipeline_progress *pr, cf_res_rec *const *recs, cf_error *err) {
  for (int i = 0; i < n; i++) {
    cf_res_fit *f = &recs[i]->fit;
    if (!recs[i]->has_fit || !f->conf.done) continue;
    cf_stretch s;
    if (cf_fit_stretch(&in[i]->tg, &s)) return cf_error_set(err, CF_ENOMEM, "%s: out of memory", in[i]->path);
    cf_res_conf *c = &f->conf;
    c->stretch_edges = s.edges, c->stretch_diagonals = s.diagonals;
    c->model_limited = limited(in[i], &s);
    if (!c->model_limited) continue;
    cf_pl_note(pr, "%s: the recorded cloth %s: fitting the other cloth models", in[i]->path,
               s.stretches ? "stretches" : "shears");
    int rc = better_model(in[i], f, workers, kept, c, err);
    if (rc) return rc;
    c->identifiable = 0;
    say_why(c, f);
  }
  return CF_OK;
}
