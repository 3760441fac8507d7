/* inputs.c — grids, model settings, recordings, results files and the
 * counts of failed simulations (cf_pipeline.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

/* ------------------------------------------------------------------- grids */
cf_pipeline_grid cf_pipeline_grid_default(char axis) {
  cf_pipeline_grid d = {0.05, axis == 'd' ? 1.0 : 4.0, axis == 'd' ? 15 : 16, 1};
  return d;
}

double *cf_pipeline_axis(const cf_pipeline_grid *g, double rho) {
  double *x = malloc(sizeof(double) * g->n), k = g->per_rho ? rho : 1;
  for (int i = 0; x && i < g->n; i++) x[i] = k * (g->n > 1 ? g->lo + (g->hi - g->lo) * i / (g->n - 1) : g->lo);
  return x;
}

/* ---------------------------------------------------------- model settings */
void cf_pipeline_model_default(cf_pipeline_model *m) {
  memset(m, 0, sizeof *m);
  cf_params p;
  cf_params_default(&p);
  m->kappa = CF_PIPELINE_KAPPA, m->beta = p.beta, m->tol = CF_PIPELINE_TOL, m->max_iter = p.max_iter;
  m->cloth = p;
  m->split = 0; /* the recording's own (cf_fit_input_from_recording) */
  m->rest = CF_PIPELINE_REST_AUTO;
  m->substeps = 1;
  m->start = CF_START_REST;
}

int cf_pipeline_model_apply(const cf_pipeline_model *m, cf_fit_input *in, int n, cf_error *err) {
  for (int i = 0; m->mu_given && i < n; i++)
    if (!cf_fit_target_has_table(&in[i].tg))
      return cf_error_set(err, CF_EINVAL, "%s: --mu needs a table in the recording (/table: ingest with "
                          "--table-height and --table-extent): mu is the cloth's friction on it", in[i].path);
  for (int i = 0; i < n; i++)
    if (m->cloth.model >= CF_CLOTH_ELASTIC && cf_fit_target_has_obstacles(&in[i].tg))
      return cf_error_set(err, CF_EINVAL, "%s: --model %s has no contacts (the recording has a %s): use the "
                          "inextensible or quasi-inextensible model", in[i].path, cf_cloth_model_name(m->cloth.model),
                          in[i].tg.stick ? "stick" : "table");
  for (int i = 0; i < n; i++) {
    in[i].fixed.kappa = m->kappa, in[i].fixed.beta = m->beta, in[i].base.tol = m->tol,
    in[i].base.max_iter = m->max_iter, in[i].fixed.mu = m->mu;
    in[i].base.model = m->cloth.model, in[i].base.k_stretch = m->cloth.k_stretch;
    in[i].base.k_shear = m->cloth.k_shear, in[i].base.k_bend = m->cloth.k_bend;
    int sized = in[i].meta.width_m > 0 && in[i].meta.height_m > 0;
    if (sized) in[i].tg.size[0] = in[i].meta.width_m, in[i].tg.size[1] = in[i].meta.height_m;
    if (m->rest == CF_REST_SIZE && !sized)
      return cf_error_set(err, CF_EINVAL, "%s: --rest size needs the cloth's width and height (meta width_m, "
                          "height_m: ingest with --size or --meta), or give --rest first-frame", in[i].path);
    in[i].tg.rest = m->rest != CF_PIPELINE_REST_AUTO ? m->rest : sized ? CF_REST_SIZE : CF_REST_FIRST_FRAME;
    if (m->split) in[i].tg.split = m->split, in[i].tg.split_cols = m->split_cols;
    in[i].tg.substeps = m->substeps;
    in[i].tg.start = m->start;
  }
  return CF_OK;
}

/* -------------------------------------------------------------- recordings */
void cf_pipeline_inputs_free(cf_fit_input *in, int n) {
  for (int i = 0; in && i < n; i++) cf_fit_input_free(&in[i]);
  free(in);
}

int cf_pipeline_inputs_load(const char *const *paths, int n, const cf_pipeline_model *m, cf_fit_input **in,
                            cf_error *err) {
  cf_pipeline_model dm;
  if (!m) cf_pipeline_model_default(&dm), m = &dm;
  *in = calloc((size_t)n + 1, sizeof **in);
  if (!*in) return cf_error_set(err, CF_ENOMEM, "out of memory");
  int rc = CF_OK;
  for (int i = 0; !rc && i < n; i++) {
    rc = cf_fit_input_load(paths[i], &(*in)[i], err);
    for (int j = 0; !rc && j < i; j++)
      if (!strcmp((*in)[j].name, (*in)[i].name))
        rc = cf_error_set(err, CF_EINVAL, "%s and %s have the same file name '%s' (results are stored by it)",
                          paths[j], paths[i], (*in)[i].name);
  }
  if (!rc) rc = cf_pipeline_model_apply(m, *in, n, err);
  if (rc) cf_pipeline_inputs_free(*in, n), *in = NULL;
  return rc;
}

void cf_pipeline_window_frames(const cf_fit_input *in, double a, double b, int *t0, int *t1) {
  double T = in->tg.T, dt = in->tg.dt;
  *t0 = (int)fmin(T, floor(a / dt + 0.5));
  *t1 = isinf(b) ? in->tg.T : (int)fmin(T, floor(b / dt + 0.5));
}

/* ----------------------------------------------------------------- results */
int cf_pipeline_results_open(const char *out, cf_results *r, int argc, char **argv, int workers, const char *config,
                             cf_error *err) {
  cf_results_init(r);
  int rc = out ? cf_results_read_or_new(out, r, err) : CF_OK;
  if (!rc) cf_pipeline_results_stamp(r, argc, argv, workers, config);
  return rc;
}

void cf_pipeline_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config) {
  cf_results_stamp(r, argc, argv, workers, config);
  r->prov.ranks = cf_dist_size(); /* stamp's hosts is this host; under mpirun, every rank's */
  cf_dist_hosts(r->prov.hosts, sizeof r->prov.hosts);
}

int cf_pipeline_results_write(const char *out, cf_results *r, cf_error *err) {
  return out && cf_dist_rank() == 0 ? cf_results_write(out, r, err) : CF_OK;
}

/* ------------------------------------------------------ failed simulations */
cf_pipeline_failures cf_pipeline_failures_of(const cf_res_rec *rec) {
  cf_pipeline_failures f = {0, 0, 0, 0};
  const cf_res_sweep *w = &rec->sweep;
  int n = rec->has_sweep ? cf_res_sweep_points(w) : 0;
  for (int k = 0; k < n; k++) /* points left to other shards are not this run's */
    f.points += w->status[k] != CF_ENOTRUN, f.failed += cf_pipeline_point_failed(w->status[k]);
  if (rec->has_fit) f.nm_failed = rec->fit.failed_evaluations, f.nm_evals = rec->fit.evaluations;
  return f;
}

int cf_pipeline_optimum_borders_failed(const cf_res_rec *rec, int *failed, int *neighbours) {
  const cf_res_sweep *w = &rec->sweep;
  int nf = 0, nn = 0;
  if (!rec->has_sweep || w->best < 0) return -1;
  int nda = w->nd * w->na, im = w->best / nda, id = w->best % nda / w->na, ia = w->best % w->na;
  int nm = w->nm > 0 ? w->nm : 1; /* with a mu axis: the neighbours in it too */
  for (int m = im - 1; m <= im + 1; m++)
    for (int i = id - 1; i <= id + 1; i++)
      for (int j = ia - 1; j <= ia + 1; j++) {
        if (m < 0 || m >= nm || i < 0 || i >= w->nd || j < 0 || j >= w->na || (m == im && i == id && j == ia))
          continue;
        int st = w->status[(m * w->nd + i) * w->na + j];
        nn += st != CF_ENOTRUN, nf += cf_pipeline_point_failed(st);
      }
  if (failed) *failed = nf;
  if (neighbours) *neighbours = nn;
  return nf > 0;
}

int cf_pipeline_finite_optimum(const cf_res_rec *rec) {
  double d, a, e, s;
  return cf_res_optimum(rec, &d, &a, &e, &s) && isfinite(e);
}

int cf_pipeline_n_valid(const cf_results *r) {
  int m = 0;
  for (int i = 0; i < r->n; i++) m += cf_pipeline_finite_optimum(&r->recs[i]);
  return m;
}
