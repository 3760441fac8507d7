/* results.c — the results of sweeps, fits, sensitivity maps and
 * regressions in memory (cf_io.h "results files"): lifetime, lookup by
 * recording, provenance.  Filling them from the fitter's result types is
 * src/study's (results_set.c).  The HDF5
 * side is results_h5.c (write) and results_read.c (read). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cf_io.h"
#include "clothfit_version.h"

void cf_strings_free(char **s, int n) {
  for (int i = 0; s && i < n; i++) free(s[i]);
  free(s);
}

void cf_res_sweep_clear(cf_res_sweep *s) {
  free(s->mu), free(s->delta), free(s->alpha), free(s->e), free(s->s), free(s->status), free(s->pruned);
  cf_strings_free(s->reason, cf_res_sweep_points(s));
  memset(s, 0, sizeof *s);
}

void cf_res_sens_clear(cf_res_sens *s) {
  free(s->delta), free(s->alpha), free(s->mu), free(s->e), free(s->s), free(s->status);
  cf_strings_free(s->reason, (s->nm > 0 ? s->nm : 1) * s->nd * s->na);
  memset(s, 0, sizeof *s);
}

void cf_res_series_clear(cf_res_series *s) {
  free(s->e), free(s->s), free(s->d), free(s->recorded), free(s->simulated), free(s->contacts);
  memset(s, 0, sizeof *s);
}

void cf_res_rec_clear(cf_res_rec *r) {
  cf_res_sweep_clear(&r->sweep);
  cf_res_sens_clear(&r->sens);
  cf_res_series_clear(&r->series);
  free(r->fit.path);
  r->fit.path = NULL, r->fit.n_path = 0;
  r->has_sweep = r->has_fit = r->has_series = r->has_sens = r->has_compare = r->has_remesh = 0;
}

void cf_res_regression_clear(cf_res_regression *g) {
  cf_strings_free(g->used, g->n_used);
  free(g->e_hat);
  memset(g, 0, sizeof *g);
}

void cf_results_init(cf_results *r) { memset(r, 0, sizeof *r); }

void cf_results_free(cf_results *r) {
  for (int i = 0; i < r->n; i++) cf_res_rec_clear(&r->recs[i]);
  free(r->recs);
  cf_res_regression_clear(&r->reg);
  free(r->prov.config_text);
  free(r->prov.history);
  cf_results_init(r);
}

cf_res_model cf_res_model_default(void) {
  cf_res_model m = {0, 0, 1e-3, 50, NAN, "inextensible", NAN, NAN, NAN, "first-frame", 2, 1, "rest", 0};
  return m;
}

int cf_res_compare_fitted(const cf_res_compare_row *r) {
  int n = 0;
  for (const char *p = r->fitted; *p; p++)
    if (*p != ' ' && (p == r->fitted || p[-1] == ' ')) n++;
  return n;
}

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

int cf_res_model_equal(const cf_res_model *a, const cf_res_model *b) {
  return a->kappa == b->kappa && a->beta == b->beta && a->tol == b->tol && a->max_iter == b->max_iter &&
         same(a->mu, b->mu) && !strcmp(a->cloth, b->cloth) && same(a->k_stretch, b->k_stretch) &&
         same(a->k_shear, b->k_shear) && same(a->k_bend, b->k_bend) && !strcmp(a->rest, b->rest) &&
         a->split == b->split && a->substeps == b->substeps && !strcmp(a->start, b->start) &&
         a->split_cols == b->split_cols;
}

int cf_res_remesh_reference(const cf_res_remesh *m) {
  for (int i = 0; i < m->n; i++)
    if (m->row[i].fit_reused) return i;
  return 0;
}

const char *cf_res_model_split_text(const cf_res_model *m, char *buf, size_t size) {
  if (m->split_cols > 0 && m->split_cols != m->split) snprintf(buf, size, "%dx%d", m->split, m->split_cols);
  else snprintf(buf, size, "%d", m->split);
  return buf;
}

static void rec_init(cf_res_rec *rec, const char *name) {
  memset(rec, 0, sizeof *rec);
  snprintf(rec->name, sizeof rec->name, "%s", name);
  rec->meta.width_m = rec->meta.height_m = rec->meta.density = NAN;
  rec->rho = rec->S = rec->V = rec->dt = rec->duration = NAN;
  rec->truth_delta = rec->truth_alpha = NAN;
  rec->drive.start_mean_m = rec->drive.start_max_m = rec->drive.noise_m = rec->drive.smooth_max_m = NAN;
  rec->drive.pull_max_m = NAN;
  rec->sweep.model = rec->fit.model = rec->sens.model = cf_res_model_default(); /* files without the settings */
}

cf_res_rec *cf_results_rec(cf_results *r, const char *name, int create) {
  for (int i = 0; i < r->n; i++)
    if (!strcmp(r->recs[i].name, name)) return &r->recs[i];
  if (!create) return NULL;
  cf_res_rec *p = realloc(r->recs, sizeof *p * (r->n + 1));
  if (!p) return NULL;
  r->recs = p;
  rec_init(&p[r->n], name);
  return &p[r->n++];
}

int cf_res_optimum(const cf_res_rec *rec, double *delta, double *alpha, double *e, double *s) {
  if (rec->has_fit) {
    *delta = rec->fit.x[0], *alpha = rec->fit.x[1], *e = rec->fit.e_all, *s = rec->fit.s_all;
    return 1;
  }
  const cf_res_sweep *w = &rec->sweep;
  if (!rec->has_sweep || w->best < 0) return 0;
  cf_res_sweep_at(w, w->best, delta, alpha, NULL);
  *e = w->e[w->best], *s = w->s[w->best];
  return 1;
}

cf_res_sweep cf_res_sweep_layer(const cf_res_sweep *w, int im) {
  cf_res_sweep v = *w;
  if (w->nm <= 0) return v;
  size_t nda = (size_t)w->nd * w->na;
  if (im < 0) im = w->best >= 0 ? (int)(w->best / nda) : 0;
  size_t off = (size_t)im * nda;
  v.nm = 0, v.mu = NULL, v.model.mu = w->mu[im];
  v.e += off, v.s += off, v.status += off, v.pruned += off, v.reason += off;
  v.best = -1;
  for (size_t k = 0; k < nda; k++) /* the layer's own best exact point */
    if (v.status[k] == CF_OK && !v.pruned[k] && (v.best < 0 || v.e[k] < v.e[v.best])) v.best = (int)k;
  return v;
}

double cf_res_optimum_mu(const cf_res_rec *rec) {
  if (rec->has_fit) return rec->fit.n_params > 2 ? rec->fit.x[2] : rec->fit.model.mu;
  double mu = NAN;
  if (rec->has_sweep && rec->sweep.best >= 0) cf_res_sweep_at(&rec->sweep, rec->sweep.best, NULL, NULL, &mu);
  return mu;
}

int cf_res_sweep_points(const cf_res_sweep *w) { return (w->nm > 0 ? w->nm : 1) * w->nd * w->na; }

void cf_res_sweep_at(const cf_res_sweep *w, int k, double *delta, double *alpha, double *mu) {
  int nda = w->nd * w->na;
  if (delta) *delta = w->delta[k % nda / w->na];
  if (alpha) *alpha = w->alpha[k % w->na];
  if (mu) *mu = w->nm > 0 ? w->mu[k / nda] : w->model.mu;
}

void cf_res_sweep_mu_of_best(cf_res_sweep *w) {
  if (w->nm > 0 && w->best >= 0) cf_res_sweep_at(w, w->best, NULL, NULL, &w->model.mu);
}

const char *cf_res_sweep_point_text(const cf_res_sweep *w, int k, char *buf, size_t size) {
  double d, a, mu;
  cf_res_sweep_at(w, k, &d, &a, &mu);
  int n = snprintf(buf, size, "delta %.6g alpha %.6g", d, a);
  if (w->nm > 0 && n > 0 && (size_t)n < size) snprintf(buf + n, size - (size_t)n, " mu %.6g", mu);
  return buf;
}

const cf_res_model *cf_res_optimum_model(const cf_res_rec *rec) {
  return rec->has_fit ? &rec->fit.model : &rec->sweep.model;
}

/* The previous run (if any) moves to the history. */
unsigned cf_res_sweep_edges(const cf_res_sweep *w, int index) {
  if (index < 0 || index >= cf_res_sweep_points(w)) return 0;
  int nda = w->nd * w->na, id = index % nda / w->na, ia = index % w->na, im = index / nda;
  unsigned e = 0;
  if (w->nm > 1) e |= (im == 0 ? CF_EDGE_MU_LO : 0) | (im == w->nm - 1 ? CF_EDGE_MU_HI : 0);
  if (w->nd > 1) e |= (id == 0 ? CF_EDGE_DELTA_LO : 0) | (id == w->nd - 1 ? CF_EDGE_DELTA_HI : 0);
  if (w->na > 1) e |= (ia == 0 ? CF_EDGE_ALPHA_LO : 0) | (ia == w->na - 1 ? CF_EDGE_ALPHA_HI : 0);
  return e;
}

static void push_history(cf_res_provenance *p) {
  if (!p->start_time[0]) return;
  size_t old = p->history ? strlen(p->history) : 0, add = strlen(p->start_time) + strlen(p->command) + 4;
  char *h = realloc(p->history, old + add);
  if (!h) return;
  snprintf(h + old, add, "%s %s\n", p->start_time, p->command);
  p->history = h;
}

void cf_iso_time_now(char *buf, size_t size) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void cf_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config_text) {
  cf_res_provenance *p = &r->prov;
  push_history(p);
  snprintf(p->tool_version, sizeof p->tool_version, "%s", CLOTHFIT_VERSION);
  snprintf(p->git_revision, sizeof p->git_revision, "%s", CLOTHFIT_GIT_REVISION);
  if (gethostname(p->hostname, sizeof p->hostname) != 0) snprintf(p->hostname, sizeof p->hostname, "unknown");
  p->hostname[sizeof p->hostname - 1] = 0;
  cf_iso_time_now(p->start_time, sizeof p->start_time);
  p->end_time[0] = 0;
  p->command[0] = 0;
  for (int i = 0; i < argc; i++) {
    size_t n = strlen(p->command);
    snprintf(p->command + n, sizeof p->command - n, "%s%s", i ? " " : "clothfit ", argv[i]);
  }
  p->workers = workers > 0 ? workers : (int)sysconf(_SC_NPROCESSORS_ONLN); /* 0: all cores */
  p->ranks = 1; /* the commands that run under mpirun set ranks and hosts */
  snprintf(p->hosts, sizeof p->hosts, "%s", p->hostname);
  p->shard[0] = p->task_key[0] = 0;
  if (config_text) {
    free(p->config_text);
    p->config_text = strdup(config_text);
  }
}

int cf_res_kb_fitted(const cf_res_rec *rec) {
  return rec->has_fit && (rec->fit.kappa_fitted || rec->fit.beta_fitted);
}
