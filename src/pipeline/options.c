/* options.c — the settings of a fit from their text (cf_pipeline.h
 * "options"): the words `clothfit` reads from its options (--kappa 1e-3,
 * --delta-grid 0:1:15*rho, --params delta,alpha,mu, ...) and the Python
 * module from its keyword arguments, read by one parser so that both
 * accept the same values and refuse the others with the same message.
 *
 * Computes: numbers, grids, windows, the model settings (cf_pipeline_model)
 * and a fit's options (cf_pipeline_fit_plan) from strings; checks them
 * against the recordings they are for.
 * Ownership: the strings are borrowed for the call; nothing is allocated.
 * Failure: CF_EINVAL with one line in err naming the option as the command
 * line spells it ("invalid --kappa '-1': expected a number with K >= 0"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

/* ------------------------------------------------------------------ values */
static int number(const char *s, size_t len, double *v) {
  char buf[64], *end;
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, s, len);
  buf[len] = 0;
  errno = 0;
  *v = strtod(buf, &end);
  return *end == 0 && errno == 0 && isfinite(*v);
}

int cf_pipeline_parse_number(const char *s, double *v) { return number(s, strlen(s), v); }

int cf_pipeline_parse_int(const char *s, int lo, int *v) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end == s || *end || errno || x < lo || x > 1000000) return 0;
  *v = (int)x;
  return 1;
}

int cf_pipeline_parse_grid(const char *spec, char axis, cf_pipeline_grid *g) {
  if (!spec) return *g = cf_pipeline_grid_default(axis), 1;
  const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2) return 0;
  char nbuf[32];
  size_t nl = strlen(c2 + 1);
  const char *star = strstr(c2 + 1, "*rho");
  g->per_rho = star && !strcmp(star, "*rho");
  if (g->per_rho) nl = (size_t)(star - (c2 + 1));
  if (nl == 0 || nl >= sizeof nbuf) return 0;
  memcpy(nbuf, c2 + 1, nl);
  nbuf[nl] = 0;
  return number(spec, (size_t)(c1 - spec), &g->lo) && number(c1 + 1, (size_t)(c2 - c1 - 1), &g->hi) &&
         cf_pipeline_parse_int(nbuf, 1, &g->n) && g->lo >= 0 && g->hi >= g->lo && (g->n > 1 || g->hi == g->lo) &&
         (g->n == 1 || g->hi > g->lo);
}

int cf_pipeline_parse_range(const char *s, double *a, double *b) {
  const char *c = strchr(s, ':');
  if (!c || !number(s, (size_t)(c - s), a)) return 0;
  if (!c[1]) *b = INFINITY;
  else if (!number(c + 1, strlen(c + 1), b)) return 0;
  return *a >= 0 && *b > *a;
}

int cf_pipeline_parse_pair(const char *s, double *a, double *b) {
  const char *c = strchr(s, ',');
  return c && number(s, (size_t)(c - s), a) && number(c + 1, strlen(c + 1), b) && *a >= 0 && *b >= 0;
}

int cf_pipeline_grids(const char *dspec, const char *aspec, cf_pipeline_grid *gd, cf_pipeline_grid *ga,
                      cf_error *err) {
  int bad_d = !cf_pipeline_parse_grid(dspec, 'd', gd), bad_a = !bad_d && !cf_pipeline_parse_grid(aspec, 'a', ga);
  if (!bad_d && !bad_a) return CF_OK;
  return cf_error_set(err, CF_EINVAL, "invalid --%s-grid '%s': expected A:B:N with 0 <= A < B and N >= 2 (or A:A:1), "
                      "optionally followed by *rho", bad_d ? "delta" : "alpha", bad_d ? dspec : aspec);
}

int cf_pipeline_mu_grid(const char *spec, const cf_fit_input *in, int n, cf_pipeline_grid *g, cf_error *err) {
  memset(g, 0, sizeof *g);
  if (!spec) return CF_OK;
  if (!cf_pipeline_parse_grid(spec, 'm', g) || g->per_rho)
    return cf_error_set(err, CF_EINVAL, "invalid --mu-grid '%s': expected A:B:N with 0 <= A < B and N >= 2 (or A:A:1)",
                        spec);
  for (int i = 0; i < n; i++)
    if (!cf_fit_target_has_table(&in[i].tg))
      return cf_error_set(err, CF_EINVAL, "%s: --mu-grid needs a table in the recording (/table: ingest with "
                          "--table-height and --table-extent): mu is the cloth's friction on it", in[i].path);
  return CF_OK;
}

int cf_pipeline_search(const char *value, cf_fit_input *in, int n, cf_error *err) {
  if (!value) return CF_OK;
  int search = cf_fit_search_parse(value);
  if (search < 0)
    return cf_error_set(err, CF_EINVAL, "invalid --search '%s': expected trust, nelder-mead or lm", value);
  for (int i = 0; i < n; i++) {
    if (search == CF_SEARCH_LM && in[i].fit_mu)
      return cf_error_set(err, CF_EINVAL, "%s: --search lm fits delta, alpha, kappa and beta; mu has no "
                          "sensitivities (use --search nelder-mead or trust)", in[i].path);
    in[i].search = search;
  }
  return CF_OK;
}

int cf_pipeline_prune(int flag, const char *margin, double *prune, cf_error *err) {
  *prune = flag || margin ? 1 : 0;
  if (margin && !(cf_pipeline_parse_number(margin, prune) && *prune >= 1))
    return cf_error_set(err, CF_EINVAL, "invalid --prune-margin '%s': expected a factor >= 1", margin);
  return CF_OK;
}

int cf_pipeline_regress_search(const char *opt, const char *value, int *search, cf_error *err) {
  *search = value ? cf_regress_search_parse(value) : CF_REGRESS_MODEL;
  if (*search < 0) return cf_error_set(err, CF_EINVAL, "invalid %s '%s': expected model or nelder-mead", opt, value);
  return CF_OK;
}

int cf_pipeline_workers(const char *s, int *workers, cf_error *err) {
  *workers = 0;
  if (s && !cf_pipeline_parse_int(s, 0, workers))
    return cf_error_set(err, CF_EINVAL, "invalid value '%s' for --workers (expected a count >= 0; 0 = all cores)", s);
  return CF_OK;
}

/* ---------------------------------------------------------- model settings */
/* --split N or RxC (each 1..CF_LATTICE_SPLIT_MAX) into *down and *across
 * (0 when it equals *down: a uniform mesh); 0 if malformed. */
static int parse_split(const char *s, int *down, int *across) {
  const char *x = strchr(s, 'x');
  char head[16];
  if (x && (size_t)(x - s) >= sizeof head) return 0;
  if (x) snprintf(head, sizeof head, "%.*s", (int)(x - s), s);
  *across = 0;
  if (!cf_pipeline_parse_int(x ? head : s, 1, down) || *down > CF_LATTICE_SPLIT_MAX) return 0;
  if (x && !(cf_pipeline_parse_int(x + 1, 1, across) && *across <= CF_LATTICE_SPLIT_MAX)) return 0;
  if (*across == *down) *across = 0;
  return 1;
}

int cf_pipeline_cloth_model(const cf_pipeline_model_text *m, cf_params *p, cf_error *err) {
  cf_params_default(p);
  if (m && m->model && (p->model = cf_cloth_model_find(m->model)) < 0)
    return cf_error_set(err, CF_EINVAL, "invalid --model '%s': expected inextensible, quasi-inextensible, elastic or "
                        "mass-spring", m->model);
  const char *s[3] = {m ? m->k_stretch : NULL, m ? m->k_shear : NULL, m ? m->k_bend : NULL};
  double *k[3] = {&p->k_stretch, &p->k_shear, &p->k_bend};
  static const char *const name[3] = {"k-stretch", "k-shear", "k-bend"};
  for (int j = 0; j < 3; j++)
    if (s[j] && !(number(s[j], strlen(s[j]), k[j]) && *k[j] > 0 && *k[j] < 1e9))
      return cf_error_set(err, CF_EINVAL, "invalid --%s '%s': expected a stiffness in N/m, 0 < K < 1e9", name[j], s[j]);
  return CF_OK;
}

int cf_pipeline_model_parse(const cf_pipeline_model_text *m, cf_pipeline_model *v, cf_error *err) {
  static const char *const name[3] = {"kappa", "beta", "tol"}, *const rule[3] = {"K >= 0", "B >= 0", "0 < T < 1"};
  const char *s[3] = {m ? m->kappa : NULL, m ? m->beta : NULL, m ? m->tol : NULL};
  cf_pipeline_model_default(v);
  double *x[3] = {&v->kappa, &v->beta, &v->tol};
  for (int k = 0; k < 3; k++)
    if (s[k] && (!number(s[k], strlen(s[k]), x[k]) || *x[k] < 0 || (k == 2 && !(*x[k] > 0 && *x[k] < 1))))
      return cf_error_set(err, CF_EINVAL, "invalid --%s '%s': expected a number with %s", name[k], s[k], rule[k]);
  if (m && m->max_iter && !cf_pipeline_parse_int(m->max_iter, 1, &v->max_iter))
    return cf_error_set(err, CF_EINVAL, "invalid --max-iter '%s': expected a count >= 1", m->max_iter);
  v->mu_given = m && m->mu;
  if (v->mu_given && !(number(m->mu, strlen(m->mu), &v->mu) && v->mu >= 0))
    return cf_error_set(err, CF_EINVAL, "invalid --mu '%s': expected a friction coefficient >= 0", m->mu);
  if (cf_pipeline_cloth_model(m, &v->cloth, err)) return CF_EINVAL;
  if (m && m->rest) {
    if (!strcmp(m->rest, "first-frame")) v->rest = CF_REST_FIRST_FRAME;
    else if (!strcmp(m->rest, "flat")) v->rest = CF_REST_FLAT;
    else if (!strcmp(m->rest, "size")) v->rest = CF_REST_SIZE;
    else return cf_error_set(err, CF_EINVAL, "invalid --rest '%s': expected size, flat or first-frame", m->rest);
  }
  if (m && m->substeps && !(cf_pipeline_parse_int(m->substeps, 1, &v->substeps) && v->substeps <= 64))
    return cf_error_set(err, CF_EINVAL, "invalid --substeps '%s': expected a count 1..64 (steps per recorded frame)",
                        m->substeps);
  if (m && m->initial && strcmp(m->initial, "rest") && strcmp(m->initial, "moving"))
    return cf_error_set(err, CF_EINVAL, "invalid --initial '%s': expected rest or moving", m->initial);
  v->start = m && m->initial && !strcmp(m->initial, "moving") ? CF_START_MOVING : CF_START_REST;
  if (m && m->split && !parse_split(m->split, &v->split, &v->split_cols))
    return cf_error_set(err, CF_EINVAL, "invalid --split '%s': expected a count 1..%d (lattice cells split N x N) or "
                        "RxC (split R times down, C times across, each 1..%d)", m->split, CF_LATTICE_SPLIT_MAX,
                        CF_LATTICE_SPLIT_MAX);
  return CF_OK;
}

/* --------------------------------------------------------------------- fit */
/* --params: delta and alpha, and any of mu, kappa, beta, in any order,
 * each once, into p->fit_mu and p->fit_log. */
static int parse_params(const char *params, cf_pipeline_fit_plan *p, cf_error *err) {
  static const char *const name[] = {"delta", "alpha", "mu", "kappa", "beta"};
  const char *s = params;
  int seen[5] = {0};
  if (!s) return CF_OK;
  for (;;) {
    size_t l = strcspn(s, ",");
    int k = 4;
    while (k >= 0 && !(strlen(name[k]) == l && !strncmp(s, name[k], l))) k--;
    if (k < 0)
      return cf_error_set(err, CF_EINVAL, "invalid --params '%s': unknown parameter '%.*s' (expected delta,alpha and "
                          "any of mu, kappa, beta)", params, (int)l, s);
    if (seen[k]++) return cf_error_set(err, CF_EINVAL, "invalid --params '%s': %s given twice", params, name[k]);
    if (!s[l]) break;
    s += l + 1;
  }
  if (!seen[0] || !seen[1])
    return cf_error_set(err, CF_EINVAL, "invalid --params '%s': delta and alpha are always fitted (expected "
                        "delta,alpha and any of mu, kappa, beta)", params);
  p->fit_mu = seen[2];
  p->fit_log = (seen[3] ? CF_STIFF_BIT(CF_STIFF_KAPPA) : 0) | (seen[4] ? CF_STIFF_BIT(CF_STIFF_BETA) : 0);
  return CF_OK;
}

int cf_pipeline_fit_plan_parse(const cf_pipeline_fit_text *t, cf_pipeline_fit_plan *p, cf_error *err) {
  memset(p, 0, sizeof *p);
  if (parse_params(t->params, p, err)) return CF_EINVAL;
  if (t->mgrid && !p->fit_mu)
    return cf_error_set(err, CF_EINVAL, "--mu-grid is the grid start's mu axis: it needs --params delta,alpha,mu");
  cf_pipeline_fit_opts *o = &p->o;
  cf_pipeline_fit_opts_default(o);
  if (cf_pipeline_grids(t->dgrid, t->agrid, &o->gd, &o->ga, err)) return CF_EINVAL;
  if (t->train && (!cf_pipeline_parse_range(t->train, &o->train0, &o->train1) || o->train1 > 1))
    return cf_error_set(err, CF_EINVAL, "invalid --train '%s': expected A:B, fractions with 0 <= A < B <= 1", t->train);
  if (t->max_evals && !cf_pipeline_parse_int(t->max_evals, 1, &o->max_evals))
    return cf_error_set(err, CF_EINVAL, "invalid --max-evals '%s': expected a count >= 1", t->max_evals);
  const char *s = t->start ? t->start : "grid";
  if (!strcmp(s, "grid") || !strcmp(s, "apriori")) snprintf(p->start_kind, sizeof p->start_kind, "%s", s);
  else if (cf_pipeline_parse_pair(s, &o->d0, &o->a0)) snprintf(p->start_kind, sizeof p->start_kind, "given");
  else
    return cf_error_set(err, CF_EINVAL, "invalid --start '%s': expected grid, apriori or D,A (two numbers >= 0)", s);
  o->start = p->start_kind, o->prune = t->prune, o->confidence = !t->no_confidence;
  if (t->polish && strcmp(t->polish, "quadratic") && strcmp(t->polish, "none"))
    return cf_error_set(err, CF_EINVAL, "invalid --polish '%s': expected quadratic or none", t->polish);
  return cf_pipeline_workers(t->workers, &o->workers, err);
}

int cf_pipeline_fit_plan_apply(const cf_pipeline_fit_text *t, cf_pipeline_fit_plan *p, int mu_given,
                               cf_fit_input *in, cf_error *err) {
  cf_error e = {0, ""};
  if (cf_fit_log_params_check(p->fit_mu ? 3 : 2, &in->base, &in->fixed,
                              cf_fit_model_stiffness_mask(in->base.model) | p->fit_log, &e))
    return cf_error_set(err, CF_EINVAL, "invalid --params '%s': %s%s", t->params, e.msg,
                        strstr(e.msg, "held value") ? " (--kappa and --beta are the starts)" : "");
  in->fit_log = p->fit_log;
  if (p->fit_mu && !cf_fit_target_has_table(&in->tg))
    return cf_error_set(err, CF_EINVAL, "%s: --params delta,alpha,mu needs a table in the recording (/table: ingest "
                        "with --table-height and --table-extent): mu is the cloth's friction on it", in->path);
  /* fitting mu: --mu is its start (default 0.5) */
  if (p->fit_mu) in->fit_mu = 1, in->fixed.mu = mu_given ? in->fixed.mu : 0.5;
  if (p->fit_mu && cf_pipeline_mu_grid(t->mgrid ? t->mgrid : CF_PIPELINE_MU_GRID, in, 1, &p->o.gm, err))
    return CF_EINVAL;
  if (t->polish) in->polish = !strcmp(t->polish, "quadratic"); /* the loader's default otherwise */
  return cf_pipeline_search(t->search, in, 1, err);
}
