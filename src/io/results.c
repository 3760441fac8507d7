/* results.c — the results of sweeps, fits, sensitivity maps and
 * regressions in memory (cf_io.h "results files"): lifetime, lookup by
 * recording, filling from the src/fit result types, provenance.  The HDF5
 * side is results_h5.c (write) and results_read.c (read). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cf_io.h"
#include "clothfit_version.h"

static void sweep_free(cf_res_sweep *s) {
  free(s->delta), free(s->alpha), free(s->e), free(s->s), free(s->status), free(s->pruned);
  cf_strings_free(s->reason, s->nd * s->na);
  memset(s, 0, sizeof *s);
}

static void sens_free(cf_res_sens *s) {
  free(s->delta), free(s->alpha), free(s->e), free(s->s), free(s->status);
  memset(s, 0, sizeof *s);
}

static void series_free(cf_res_series *s) {
  free(s->e), free(s->s), free(s->d);
  memset(s, 0, sizeof *s);
}

void cf_res_rec_clear(cf_res_rec *r) {
  sweep_free(&r->sweep);
  sens_free(&r->sens);
  series_free(&r->series);
  free(r->fit.path);
  r->fit.path = NULL, r->fit.n_path = 0;
  r->has_sweep = r->has_fit = r->has_series = r->has_sens = 0;
}

void cf_res_regression_clear(cf_res_regression *g) {
  cf_strings_free(g->used, g->n_used);
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
  cf_params p;
  cf_params_default(&p);
  cf_res_model m = {p.kappa, p.beta, p.tol};
  return m;
}

cf_res_model cf_res_model_of(const cf_fit_input *in) {
  cf_res_model m = {in->fixed.kappa, in->fixed.beta, in->base.tol};
  return m;
}

int cf_res_model_equal(const cf_res_model *a, const cf_res_model *b) {
  return a->kappa == b->kappa && a->beta == b->beta && a->tol == b->tol;
}

static void rec_init(cf_res_rec *rec, const char *name) {
  memset(rec, 0, sizeof *rec);
  snprintf(rec->name, sizeof rec->name, "%s", name);
  rec->meta.width_m = rec->meta.height_m = rec->meta.density = NAN;
  rec->rho = rec->S = rec->V = rec->dt = rec->duration = NAN;
  rec->truth_delta = rec->truth_alpha = NAN;
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

void cf_res_rec_describe(cf_res_rec *rec, const cf_fit_input *in) {
  snprintf(rec->recording, sizeof rec->recording, "%s", in->path);
  rec->meta = in->meta;
  rec->rho = in->tg.rho;
  rec->S = in->S;
  rec->V = in->V;
  rec->dt = in->tg.dt;
  rec->duration = in->duration;
  rec->frames = in->tg.T;
}

static void *dup_mem(const void *src, size_t n) {
  void *p = malloc(n ? n : 1);
  if (p && n) memcpy(p, src, n);
  return p;
}

/* Axes and e, s, status of a grid result into the given fields. */
static int copy_grid(const cf_sweep_options *o, const cf_sweep_result *sr, double **d, double **a, double **e,
                     double **s, int **st) {
  size_t n = (size_t)o->nd * o->na;
  *d = dup_mem(o->delta, sizeof(double) * o->nd);
  *a = dup_mem(o->alpha, sizeof(double) * o->na);
  *e = dup_mem(sr->e, sizeof(double) * n);
  *s = dup_mem(sr->s, sizeof(double) * n);
  *st = dup_mem(sr->status, sizeof(int) * n);
  return *d && *a && *e && *s && *st ? CF_OK : CF_ENOMEM;
}

int cf_res_set_sweep(cf_res_rec *rec, const cf_sweep_options *o, const cf_sweep_result *sr, double dt) {
  cf_res_sweep *w = &rec->sweep;
  sweep_free(w);
  rec->has_sweep = 1;
  w->nd = o->nd, w->na = o->na, w->best = sr->best, w->wall_s = sr->wall_s;
  w->workers = o->threads, w->prune = o->prune;
  w->t0_s = o->t0 * dt, w->t1_s = o->t1 > 0 ? o->t1 * dt : 0;
  size_t n = (size_t)o->nd * o->na;
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
  sens_free(m);
  rec->has_sens = 1;
  snprintf(m->kind, sizeof m->kind, "%s", kind);
  m->at_delta = at_delta, m->at_alpha = at_alpha, m->nd = o->nd, m->na = o->na;
  return copy_grid(o, sr, &m->delta, &m->alpha, &m->e, &m->s, &m->status);
}

int cf_res_set_series(cf_res_rec *rec, const cf_frame_error *fe, int T, double dt, double delta, double alpha) {
  cf_res_series *s = &rec->series;
  series_free(s);
  rec->has_series = 1;
  s->T = T, s->dt = dt, s->delta = delta, s->alpha = alpha;
  s->e = malloc(sizeof(double) * (T + 1));
  s->s = malloc(sizeof(double) * (T + 1));
  s->d = malloc(sizeof(double) * (T + 1));
  if (!s->e || !s->s || !s->d) return CF_ENOMEM;
  for (int i = 0; i < T; i++) s->e[i] = fe[i].e_cm, s->s[i] = fe[i].s_cm, s->d[i] = fe[i].d_cm;
  return CF_OK;
}

int cf_res_optimum(const cf_res_rec *rec, double *delta, double *alpha, double *e, double *s) {
  if (rec->has_fit) {
    *delta = rec->fit.x[0], *alpha = rec->fit.x[1], *e = rec->fit.e_all, *s = rec->fit.s_all;
    return 1;
  }
  const cf_res_sweep *w = &rec->sweep;
  if (!rec->has_sweep || w->best < 0) return 0;
  *delta = w->delta[w->best / w->na], *alpha = w->alpha[w->best % w->na];
  *e = w->e[w->best], *s = w->s[w->best];
  return 1;
}

const cf_res_model *cf_res_optimum_model(const cf_res_rec *rec) {
  return rec->has_fit ? &rec->fit.model : &rec->sweep.model;
}

/* The previous run (if any) moves to the history. */
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
  if (config_text) {
    free(p->config_text);
    p->config_text = strdup(config_text);
  }
}
