/* results_set.c — the fitter's results (src/fit: sweeps, sensitivity
 * grids, per-frame errors) and a recording's descriptors (cf_fit_input)
 * into the results records of src/io (cf_results), which know nothing of
 * the fitter.  cf_study.h "trajectories and results". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "cf_study.h"

cf_res_model cf_res_model_of(const cf_fit_input *in) {
  cf_res_model m = {in->fixed.kappa, in->fixed.beta, in->base.tol, in->base.max_iter,
                    cf_fit_target_has_table(&in->tg) ? in->fixed.mu : NAN, "", NAN, NAN, NAN, "",
                    cf_fit_target_split(&in->tg), 1, "rest", 0};
  int across = cf_fit_target_split_cols(&in->tg);
  m.split_cols = across != m.split ? across : 0; /* 0: uniform, as files written before */
  snprintf(m.rest, sizeof m.rest, "%s", cf_fit_rest_name(in->tg.rest));
  m.substeps = in->tg.substeps > 1 ? in->tg.substeps : 1;
  snprintf(m.start, sizeof m.start, "%s", in->tg.start == CF_START_MOVING ? "moving" : "rest");
  int model = in->base.model;
  snprintf(m.cloth, sizeof m.cloth, "%s", cf_cloth_model_name(model));
  const cf_fit_point *f = &in->fixed; /* a fit's stiffnesses; 0: base's */
  const double k[3] = {f->k_stretch > 0 ? f->k_stretch : in->base.k_stretch,
                       f->k_shear > 0 ? f->k_shear : in->base.k_shear, f->k_bend > 0 ? f->k_bend : in->base.k_bend};
  if (model == CF_CLOTH_ELASTIC || model == CF_CLOTH_MASS_SPRING) m.k_stretch = k[0];
  if (model != CF_CLOTH_INEXTENSIBLE) m.k_shear = k[1];
  if (model == CF_CLOTH_MASS_SPRING) m.k_bend = k[2];
  return m;
}

void cf_res_rec_describe(cf_res_rec *rec, const cf_fit_input *in) {
  snprintf(rec->recording, sizeof rec->recording, "%s", in->path);
  rec->meta = in->meta;
  rec->rho = in->tg.rho;
  rec->S = in->S;
  rec->V = in->V;
  rec->dt = in->tg.dt;
  rec->duration = in->duration;
  rec->frames = in->tg.T;
  cf_drive_fix f;
  if (cf_fit_input_drive_fix(in, &f, NULL, 0) == CF_OK)
    rec->drive = (cf_res_drive){f.start_mean_m, f.start_max_m, f.start_worst,   f.noise_m, f.smooth_max_m,
                                f.window,       f.frames,      f.worst_frame,   f.max_pull_m};
}

int cf_fit_input_drive_fix(const cf_fit_input *in, cf_drive_fix *fix, char *why, size_t size) {
  cf_error err = {0, ""};
  cf_fit_run *run = cf_fit_run_alloc(&in->tg, &in->base, &err);
  if (!run) return err.code ? err.code : CF_EINVAL;
  *fix = cf_fit_run_drive_fix(run);
  if (size) snprintf(why, size, "%s", cf_fit_run_refusal(run));
  cf_fit_run_free(run);
  return CF_OK;
}

static void *dup_mem(const void *src, size_t n) {
  void *p = malloc(n ? n : 1);
  if (p && n) memcpy(p, src, n);
  return p;
}

/* Axes and e, s, status of a grid result into the given fields. */
static int copy_grid(const cf_sweep_options *o, const cf_sweep_result *sr, double **d, double **a, double **e,
                     double **s, int **st) {
  size_t n = (size_t)cf_sweep_n_points(o->nm, o->nd, o->na);
  *d = dup_mem(o->delta, sizeof(double) * o->nd);
  *a = dup_mem(o->alpha, sizeof(double) * o->na);
  *e = dup_mem(sr->e, sizeof(double) * n);
  *s = dup_mem(sr->s, sizeof(double) * n);
  *st = dup_mem(sr->status, sizeof(int) * n);
  return *d && *a && *e && *s && *st ? CF_OK : CF_ENOMEM;
}

int cf_res_set_sweep(cf_res_rec *rec, const cf_sweep_options *o, const cf_sweep_result *sr, double dt) {
  cf_res_sweep *w = &rec->sweep;
  cf_res_sweep_clear(w);
  rec->has_sweep = 1;
  w->nm = o->nm, w->nd = o->nd, w->na = o->na, w->best = sr->best, w->wall_s = sr->wall_s;
  w->workers = o->threads, w->prune = o->prune;
  w->prune_margin = !o->prune ? 0 : o->prune_margin > 1 ? o->prune_margin : 1;
  w->t0_s = o->t0 * dt, w->t1_s = o->t1 > 0 ? o->t1 * dt : 0;
  size_t n = (size_t)cf_sweep_n_points(o->nm, o->nd, o->na);
  if (o->nm > 0 && !(w->mu = dup_mem(o->mu, sizeof(double) * o->nm))) return CF_ENOMEM;
  int rc = copy_grid(o, sr, &w->delta, &w->alpha, &w->e, &w->s, &w->status);
  w->pruned = dup_mem(sr->pruned, n);
  w->reason = calloc(n + 1, sizeof(char *));
  if (rc || !w->pruned || !w->reason) return CF_ENOMEM;
  for (size_t i = 0; i < n; i++)
    if (!(w->reason[i] = strdup(sr->reason[i]))) return CF_ENOMEM;
  return CF_OK;
}

int cf_res_set_sens(cf_res_rec *rec, const char *kind, double at_delta, double at_alpha, const cf_sweep_options *o,
                    const cf_sweep_result *sr) {
  cf_res_sens *m = &rec->sens;
  cf_res_sens_clear(m);
  rec->has_sens = 1;
  snprintf(m->kind, sizeof m->kind, "%s", kind);
  m->at_delta = at_delta, m->at_alpha = at_alpha, m->nd = o->nd, m->na = o->na, m->nm = o->nm;
  size_t n = (size_t)cf_sweep_n_points(o->nm, o->nd, o->na);
  if (o->nm > 0 && !(m->mu = dup_mem(o->mu, sizeof(double) * o->nm))) return CF_ENOMEM;
  int rc = copy_grid(o, sr, &m->delta, &m->alpha, &m->e, &m->s, &m->status);
  m->reason = calloc(n + 1, sizeof(char *));
  if (rc || !m->reason) return CF_ENOMEM;
  for (size_t i = 0; i < n; i++)
    if (!(m->reason[i] = strdup(sr->reason ? sr->reason[i] : ""))) return CF_ENOMEM;
  return CF_OK;
}

int cf_res_set_series(cf_res_rec *rec, const cf_frame_error *fe, const cf_fit_target *tg, const double *sim,
                      double delta, double alpha) {
  cf_res_series *s = &rec->series;
  cf_res_series_clear(s);
  rec->has_series = 1;
  int T = tg->T;
  s->T = T, s->dt = tg->dt, s->delta = delta, s->alpha = alpha;
  s->e = malloc(sizeof(double) * (T + 1));
  s->s = malloc(sizeof(double) * (T + 1));
  s->d = malloc(sizeof(double) * (T + 1));
  if (!s->e || !s->s || !s->d) return CF_ENOMEM;
  for (int i = 0; i < T; i++) s->e[i] = fe[i].e_cm, s->s[i] = fe[i].s_cm, s->d[i] = fe[i].d_cm;
  if (!sim) return CF_OK;
  size_t n = (size_t)T * tg->rows * tg->cols * 3;
  s->recorded = malloc(sizeof(double) * (n + 1));
  s->simulated = malloc(sizeof(double) * (n + 1));
  if (!s->recorded || !s->simulated) return CF_ENOMEM;
  memcpy(s->recorded, tg->pos, sizeof(double) * n);
  memcpy(s->simulated, sim, sizeof(double) * n);
  s->rows = tg->rows, s->cols = tg->cols;
  return CF_OK;
}

