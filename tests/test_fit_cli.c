/* test_fit_cli.c — the fitting commands on
 * synthetic recordings made by the model itself (synthrec.h):
 *   - the adapter HDF5 recording -> cf_fit_target (lattice markers, weights,
 *     controlled corners, rho, dt, S, V) and its one-line errors;
 *   - the results file: write -> read gives back every field;
 *   - with --grid (test_fit_cli_grid, the physics suite: the release build
 *     only, these fits take minutes under the sanitizers): `fit --json`
 *     recovers (delta, alpha) within 5 % on a 4 s recording, from the
 *     default grid start and from a start 20 % off, with the keys of docs/design.md §2, and stores the same
 *     optimum in -o, with 95 % intervals around it (narrower than +-50 %,
 *     identifiable) in the text, the JSON and the file;
 *   - `sweep`, `sensitivity`, `predict --optima` on one results file;
 *   - the model settings held fixed (--kappa, --beta, --tol): reported by
 *     `fit` (text and JSON) and stored with every part of the results file
 *     (files without them read as the defaults); `regress` refuses optima
 *     found with other settings;
 *   - `predict --S --V --rho` gives what cf_formula_predict gives, at Table 4.9's rows;
 *   - `inspect RESULTS.h5`: the text names the recordings and
 *     their best grid points, the JSON holds what the file holds (sweep
 *     grid, best point, failed/pruned counts, fit and its settings,
 *     regression, provenance), on the round trip's file and on files made
 *     by sweep, sensitivity and fit;
 *   - bad input: one line on stderr naming the problem, nothing on stdout,
 *     no output file left;
 *   - failed simulations are loud: on a 60-frame recording with
 *     --max-iter 2 about half of a 4 x 4 sweep fails; the warnings on stderr,
 *     the counts in --json and the failed-point map in -o agree; `fit` from a
 *     failed point falls back to the grid optimum and counts its failed
 *     Nelder-Mead evaluations (JSON and -o); with --tol 1e-9 --max-iter 1
 *     every start fails: status 1, one error line naming the recording and
 *     the starts tried, no output.
 * usage: test_fit_cli CLOTHFIT_EXE [--grid] */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "cf_study.h"
#include "cli_json.h"
#include "synthrec.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_fit_cli.XXXXXX";
static const double DELTA = 0.041, ALPHA = 0.307, RHO = 0.1042;

static cf_test_rec_spec spec(int T) {
  cf_test_rec_spec sp = {.rows = 5, .cols = 4, .T = T, .width = 0.42, .height = 0.594, .rho = RHO, .delta = DELTA,
                         .alpha = ALPHA, .amplitude = 0.075, .frequency = 0.6, .dt = 0.01, .noise = 1e-4,
                         .seed = 12345};
  return sp;
}

/* dir/name from a T-frame synthetic recording; returns its positions. */
static double *make_rec(const char *name, int T, int flags, char *path, size_t size) {
  cf_test_rec_spec sp = spec(T);
  double *pos = cf_test_shaken_recording(&sp);
  snprintf(path, size, "%s/%s", dir, name);
  CHECK(cf_test_write_recording_h5(path, &sp, pos, flags) == 0, "writing %s", path);
  return pos;
}

/* ---------------------------------------------------------------- adapter */
static void adapter_error(const char *name, int flags, const char *needle) {
  char path[512];
  free(make_rec(name, 20, flags, path, sizeof path));
  cf_fit_input in;
  cf_error err = {0, ""};
  CHECK(cf_fit_input_load(path, &in, &err) != CF_OK, "%s accepted", name);
  CHECK(strstr(err.msg, path) && strstr(err.msg, needle) && !strchr(err.msg, '\n'), "%s: '%s'", name, err.msg);
}

static void adapter(void) {
  char path[512];
  enum { T = 50, K = 20 };
  double *pos = make_rec("adapter.h5", T, CF_TEST_REC_LATTICE, path, sizeof path), w[K];
  cf_fit_input in;
  cf_error err = {0, ""};
  CHECK(cf_fit_input_load(path, &in, &err) == CF_OK, "%s", err.msg);
  const cf_fit_target *tg = &in.tg;
  CHECK(tg->rows == 5 && tg->cols == 4 && tg->T == T && tg->dt == 0.01 && tg->rho == RHO, "target shape");
  CHECK(memcmp(tg->pos, pos, sizeof(double) * 3 * T * K) == 0, "positions differ");
  cf_mesh_lattice_weights(5, 4, pos, w, NULL);
  CHECK(tg->weight && memcmp(tg->weight, w, sizeof w) == 0, "weights differ");
  CHECK(tg->n_ctrl == 2 && tg->ctrl[0] == 0 && tg->ctrl[1] == 3, "controlled markers");
  CHECK(fabs(in.S - 2) < 1e-12, "S = %.15g", in.S);
  CHECK(in.V == cf_speed_measure(T, K, 0.01, pos), "V = %g", in.V);
  CHECK(!strcmp(in.name, "adapter") && fabs(in.duration - 0.49) < 1e-12, "name '%s'", in.name);
  cf_fit_input_free(&in);
  free(pos);
  adapter_error("nolattice.h5", 0, "ingest with --lattice RxC");
  adapter_error("nodensity.h5", CF_TEST_REC_LATTICE | CF_TEST_REC_NO_DENSITY, "density");
  adapter_error("native.h5", CF_TEST_REC_LATTICE | CF_TEST_REC_NATIVE, "not uniform");
  snprintf(path, sizeof path, "%s/missing.h5", dir);
  CHECK(cf_fit_input_load(path, &in, &err) != CF_OK && strstr(err.msg, path), "missing file: '%s'", err.msg);
}

/* ----------------------------------------------------------- results file */
static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static int same_v(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++)
    if (!same(a[i], b[i])) return 0;
  return 1;
}

/* settings other than the defaults files without them read as (rest metric, substeps, start state too) */
static const cf_res_model MODEL = {1e-3, 0.02, 1e-4, 50, NAN, "inextensible", NAN, NAN, NAN, "size", 2, 4, "moving", 3};

static int same_model(const cf_res_model *a, const cf_res_model *b) {
  return a->kappa == b->kappa && a->beta == b->beta && a->tol == b->tol && a->max_iter == b->max_iter &&
         same(a->mu, b->mu) && a->split == b->split && !strcmp(a->rest, b->rest) && a->substeps == b->substeps &&
         !strcmp(a->start, b->start) && a->split_cols == b->split_cols;
}

static void fill_rec(cf_res_rec *r, int k) {
  cf_res_sweep *w = &r->sweep;
  r->has_sweep = r->has_fit = r->has_series = r->has_sens = 1;
  snprintf(r->recording, sizeof r->recording, "/data/rec%d.h5", k);
  snprintf(r->meta.material, sizeof r->meta.material, "wool");
  snprintf(r->meta.speed, sizeof r->meta.speed, "fast");
  r->meta.density = r->rho = 0.1804, r->S = 1, r->V = 0.25, r->dt = 0.01, r->frames = 4, r->truth_delta = 0.1;
  w->nd = 2, w->na = 3, w->best = 4, w->t0_s = 0.5, w->wall_s = 1.25, w->workers = 2, w->prune = 1;
  w->prune_margin = 1.5;
  w->delta = malloc(sizeof(double) * 2), w->alpha = malloc(sizeof(double) * 3);
  w->e = malloc(sizeof(double) * 6), w->s = malloc(sizeof(double) * 6);
  w->status = calloc(6, sizeof(int)), w->pruned = calloc(6, 1), w->reason = calloc(6, sizeof(char *));
  for (int i = 0; i < 6; i++) w->e[i] = 0.5 + i + k, w->s[i] = 0.25 * i, w->reason[i] = strdup("");
  for (int i = 0; i < 3; i++) w->alpha[i] = 0.1 * (i + 1);
  w->delta[0] = 0, w->delta[1] = 0.02;
  w->status[1] = CF_ENOCONV, w->e[1] = INFINITY, w->pruned[5] = 1;
  free(w->reason[1]), w->reason[1] = strdup("projection did not converge at step 12");
  cf_res_fit *f = &r->fit;
  snprintf(f->method, sizeof f->method, "nelder-mead"), snprintf(f->start_kind, sizeof f->start_kind, "grid");
  f->n_params = 2, f->x[0] = 0.021, f->x[1] = 0.33, f->x[2] = NAN, f->e_test = NAN, f->evaluations = 31;
  f->n_path = 3, f->path = malloc(sizeof(double) * 12);
  for (int i = 0; i < 12; i++) f->path[i] = i % 4 == 2 ? NAN : 0.01 * i;
  double fe_e[4] = {0, 0.1, NAN, 0.3};
  cf_frame_error fe[4];
  for (int i = 0; i < 4; i++) fe[i].e_cm = fe_e[i], fe[i].s_cm = 2 * fe_e[i], fe[i].d_cm = 5 * fe_e[i];
  double pos[4 * 6 * 3], sim[4 * 6 * 3]; /* a 2x3 lattice in 4 frames, a missing marker, a failure at frame 3 */
  for (int i = 0; i < 72; i++) pos[i] = 0.125 * i - 3, sim[i] = i >= 54 ? NAN : 0.1 * i + 1e-3 * k;
  pos[7] = NAN;
  cf_fit_target tg = {2, 3, 4, 0.01, pos, NULL, 0, NULL, 0.1804, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                      0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
  cf_res_set_series(r, fe, &tg, sim, 0.021, 0.33);
  if (k == 1) { /* a recording with a table: contacts per frame, NaN after the failure */
    r->series.contacts = malloc(sizeof(double) * 4);
    const double c[4] = {0, 3, 12, NAN};
    if (r->series.contacts) memcpy(r->series.contacts, c, sizeof c);
  }
  cf_sweep_options o = {2, 3, w->delta, w->alpha, 0, 0, 1, 0, NULL, 0, 0, 0, NULL, 0, 0, NULL};
  cf_sweep_result sr = {2, 3, w->e, w->s, NULL, w->status, w->pruned, NULL, 4, 0, 0, 0, 0};
  cf_res_set_sens(r, "map", 0.01, 0.2, &o, &sr);
  w->model = r->fit.model = r->sens.model = MODEL;
  w->model.kappa = k; /* each part its own */
  if (k == 1) w->model.mu = 0.25; /* a recording with a table: mu held in its sweep */
}

static void compare_rec(const cf_res_rec *a, const cf_res_rec *b) {
  CHECK(!strcmp(a->name, b->name) && !strcmp(a->recording, b->recording) && !strcmp(a->meta.material, b->meta.material)
        && !strcmp(a->meta.speed, b->meta.speed), "%s: names", a->name);
  CHECK(same(a->rho, b->rho) && same(a->S, b->S) && same(a->V, b->V) && same(a->truth_delta, b->truth_delta) &&
        same(a->truth_alpha, b->truth_alpha) && a->frames == b->frames, "%s: descriptors", a->name);
  CHECK(a->has_sweep == b->has_sweep && a->has_fit == b->has_fit && a->has_series == b->has_series &&
        a->has_sens == b->has_sens, "%s: parts", a->name);
  const cf_res_sweep *w = &a->sweep, *v = &b->sweep;
  int n = w->nd * w->na;
  CHECK(w->nd == v->nd && w->na == v->na && w->best == v->best && same(w->t0_s, v->t0_s) && w->prune == v->prune &&
            same(w->prune_margin, v->prune_margin),
        "%s: sweep shape", a->name);
  for (int i = 0; a->has_sweep && i < n && w->nd == v->nd && w->na == v->na; i++)
    CHECK(same(w->e[i], v->e[i]) && same(w->s[i], v->s[i]) && w->status[i] == v->status[i] &&
          w->pruned[i] == v->pruned[i] && !strcmp(w->reason[i], v->reason[i]), "%s: sweep point %d", a->name, i);
  const cf_res_fit *f = &a->fit, *g = &b->fit;
  CHECK(!strcmp(f->method, g->method) && !strcmp(f->start_kind, g->start_kind) && same_v(f->x, g->x, 3) &&
        same(f->e_test, g->e_test) && f->evaluations == g->evaluations && f->n_path == g->n_path &&
        (!f->n_path || same_v(f->path, g->path, 4 * f->n_path)), "%s: fit", a->name);
  CHECK(a->series.T == b->series.T && (!a->has_series || (same_v(a->series.e, b->series.e, a->series.T) &&
        same_v(a->series.d, b->series.d, a->series.T))), "%s: series", a->name);
  const cf_res_series *p = &a->series, *q = &b->series;
  CHECK(p->rows == q->rows && p->cols == q->cols && !p->recorded == !q->recorded && !p->simulated == !q->simulated,
        "%s: series markers %dx%d vs %dx%d", a->name, p->rows, p->cols, q->rows, q->cols);
  CHECK(!p->contacts == !q->contacts && (!p->contacts || same_v(p->contacts, q->contacts, p->T)), "%s: contacts",
        a->name);
  for (int i = 0; p->recorded && q->recorded && q->simulated && i < p->T * p->rows * p->cols * 3; i++)
    CHECK(same((float)p->recorded[i], q->recorded[i]) && same((float)p->simulated[i], q->simulated[i]),
          "%s: marker value %d (float32)", a->name, i);
  CHECK(!strcmp(a->sens.kind, b->sens.kind) && a->sens.nd == b->sens.nd &&
        (!a->has_sens || same_v(a->sens.e, b->sens.e, a->sens.nd * a->sens.na)), "%s: sensitivity", a->name);
  CHECK(same_model(&w->model, &v->model) && same_model(&f->model, &g->model) &&
        same_model(&a->sens.model, &b->sens.model), "%s: model settings", a->name);
}

static void compare(const cf_results *a, const cf_results *b) {
  CHECK(a->n == b->n, "%d vs %d recordings", a->n, b->n);
  for (int i = 0; i < a->n && i < b->n; i++) compare_rec(&a->recs[i], &b->recs[i]);
  const cf_res_regression *g = &a->reg, *h = &b->reg;
  CHECK(g->has == h->has && same_v(g->f.d, h->f.d, 4) && same_v(g->f.a, h->f.a, 4) && same(g->R, h->R) &&
        same(g->E, h->E) && g->n_used == h->n_used && same_model(&g->model, &h->model) &&
        g->simulations == h->simulations && !strcmp(g->search, h->search), "regression");
  for (int i = 0; i < g->n_used && i < h->n_used; i++) CHECK(!strcmp(g->used[i], h->used[i]), "used %d", i);
  CHECK(!strcmp(a->prov.command, b->prov.command) && !strcmp(a->prov.start_time, b->prov.start_time) &&
        !strcmp(a->prov.hostname, b->prov.hostname) && a->prov.workers == b->prov.workers &&
        a->prov.config_text && b->prov.config_text && !strcmp(a->prov.config_text, b->prov.config_text),
        "provenance");
}

/* A file written before the model settings were recorded: they read as
 * the defaults every run used then. */
static void settings_missing(const char *path) {
  const char *groups[2] = {"/recordings/zeta/sweep", "/regression"},
             *names[8] = {"kappa", "beta", "tol", "mesh_split", "rest_metric", "substeps", "start_state",
                          "mesh_split_cols"};
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  for (int g = 0; g < 2; g++)
    for (int k = 0; k < 8; k++) CHECK(H5Adelete_by_name(f, groups[g], names[k], H5P_DEFAULT) >= 0, "delete");
  for (int k = 0; k < 2; k++) /* the regression's search: all were Nelder-Mead on R then */
    CHECK(H5Adelete_by_name(f, "/regression", k ? "simulations" : "search", H5P_DEFAULT) >= 0, "delete");
  H5Fclose(f);
  cf_results r;
  cf_error err = {0, ""};
  cf_res_model def = cf_res_model_default();
  CHECK(def.kappa == 0 && def.beta == 0 && def.tol == 1e-3 && def.split == 2 && !strcmp(def.rest, "first-frame") &&
            def.substeps == 1 && !strcmp(def.start, "rest"),
        "defaults %g %g %g %d %s %d %s", def.kappa, def.beta, def.tol, def.split, def.rest, def.substeps, def.start);
  CHECK(cf_results_read(path, &r, &err) == CF_OK, "%s", err.msg);
  const cf_res_rec *z = cf_results_rec(&r, "zeta", 0);
  CHECK(z && same_model(&z->sweep.model, &def) && same_model(&z->fit.model, &MODEL), "sweep / fit settings");
  CHECK(same_model(&r.reg.model, &def), "regression settings");
  CHECK(!strcmp(r.reg.search, "nelder-mead") && r.reg.simulations == 0, "regression search '%s', %d simulations",
        r.reg.search, r.reg.simulations);
  cf_results_free(&r);
}

static void round_trip(void) {
  cf_results r, back, again;
  cf_results_init(&r);
  fill_rec(cf_results_rec(&r, "zeta", 1), 0);
  fill_rec(cf_results_rec(&r, "alpha_rec", 1), 1); /* order of writing, not of names */
  cf_res_rec *c = cf_results_rec(&r, "partial", 1);
  c->has_sweep = 1, c->sweep.nd = c->sweep.na = 1, c->sweep.best = -1;
  c->sweep.delta = calloc(1, sizeof(double)), c->sweep.alpha = calloc(1, sizeof(double));
  c->sweep.e = calloc(1, sizeof(double)), c->sweep.s = calloc(1, sizeof(double));
  c->sweep.status = calloc(1, sizeof(int)), c->sweep.pruned = calloc(1, 1), c->sweep.reason = calloc(1, sizeof(char *));
  c->sweep.reason[0] = strdup("");
  r.reg.has = 1, r.reg.f = cf_formula_thesis_rep1, r.reg.R = 0.578, r.reg.E = 0.516, r.reg.n_used = 2;
  r.reg.used = calloc(2, sizeof(char *)), r.reg.used[0] = strdup("zeta"), r.reg.used[1] = strdup("alpha_rec");
  r.reg.model = MODEL;
  r.reg.simulations = 112, snprintf(r.reg.search, sizeof r.reg.search, "model");
  char *argv[] = {"sweep", "a.h5", "--prune"};
  cf_results_stamp(&r, 3, argv, 2, "[recordings]\nfiles = a.h5\n");
  char p1[512], p2[512];
  snprintf(p1, sizeof p1, "%s/rt1.h5", dir), snprintf(p2, sizeof p2, "%s/sub/rt2.h5", dir);
  cf_error err = {0, ""};
  CHECK(cf_results_write(p1, &r, &err) == CF_OK, "%s", err.msg);
  CHECK(cf_results_read(p1, &back, &err) == CF_OK, "%s", err.msg);
  CHECK(!strcmp(r.prov.command, "clothfit sweep a.h5 --prune"), "command '%s'", r.prov.command);
  compare(&r, &back);
  CHECK(cf_results_write(p2, &back, &err) == CF_OK && cf_results_read(p2, &again, &err) == CF_OK, "%s", err.msg);
  compare(&r, &again);
  char rec[512];
  free(make_rec("notresults.h5", 5, 0, rec, sizeof rec));
  cf_results bad;
  CHECK(cf_results_read(rec, &bad, &err) == CF_EFORMAT && strstr(err.msg, "not a clothfit results file"), "%s",
        err.msg);
  cf_results_free(&r), cf_results_free(&back), cf_results_free(&again);
  settings_missing(p1);
}

/* ------------------------------------------------------------------- CLI */
/* Run exe with args (NULL-terminated); *out gets stdout (caller frees). */
static int run(char **out, char **err, const char *a0, ...) {
  char *argv[32] = {(char *)exe, (char *)a0};
  va_list ap;
  va_start(ap, a0);
  for (int i = 2; i < 31 && (argv[i] = va_arg(ap, char *)); i++) {
  }
  va_end(ap);
  return cf_test_run(argv, dir, out, err);
}

/* ------------------------------------------------- inspect of a results file */

static int count_status(const cf_res_sweep *w, int pruned) {
  int n = 0;
  for (int k = 0; k < w->nd * w->na; k++) n += pruned ? !w->status[k] && w->pruned[k] : w->status[k] != 0;
  return n;
}

/* 1 when the JSON object j carries m's rest metric, mesh split, substeps
 * and start state. */
static int json_model_is(const char *j, const cf_res_model *m) {
  return cf_test_json_has_str(j, "rest_metric", m->rest) && cf_test_json_num(j, "mesh_split") == m->split &&
         cf_test_json_num(j, "mesh_split_cols") == m->split_cols &&
         cf_test_json_num(j, "substeps") == m->substeps && cf_test_json_has_str(j, "start_state", m->start);
}

/* The sweep and fit members of recording c's object j equal the file's
 * (exactly: the JSON's numbers have 17 digits, they read back as the same
 * doubles). */
static void inspect_rec_json(const cf_res_rec *c, const char *j) {
  const cf_res_sweep *w = &c->sweep;
  char *sw = cf_test_json_part(j, "sweep"), *fit = cf_test_json_part(j, "fit");
  CHECK(sw && fit && c->has_sweep == (sw[0] == '{') && c->has_fit == (fit[0] == '{'), "%s: parts in %s", c->name, j);
  if (c->has_sweep && sw) {
    int b = w->best;
    CHECK(same(cf_test_json_num(sw, "delta_min"), w->delta[0]) &&
          same(cf_test_json_num(sw, "delta_max"), w->delta[w->nd - 1]) &&
          cf_test_json_num(sw, "n_delta") == w->nd && same(cf_test_json_num(sw, "alpha_min"), w->alpha[0]) &&
          same(cf_test_json_num(sw, "alpha_max"), w->alpha[w->na - 1]) && cf_test_json_num(sw, "n_alpha") == w->na,
          "%s: grid in %s", c->name, sw);
    CHECK(cf_test_json_num(sw, "best_index") == b &&
          same(cf_test_json_num(sw, "best_delta"), b >= 0 ? w->delta[b / w->na] : NAN) &&
          same(cf_test_json_num(sw, "best_alpha"), b >= 0 ? w->alpha[b % w->na] : NAN) &&
          same(cf_test_json_num(sw, "best_error_cm"), b >= 0 ? w->e[b] : NAN) &&
          same(cf_test_json_num(sw, "best_std_cm"), b >= 0 ? w->s[b] : NAN), "%s: best point in %s", c->name, sw);
    CHECK(cf_test_json_num(sw, "failed") == count_status(w, 0) &&
          cf_test_json_num(sw, "pruned") == count_status(w, 1) &&
          same(cf_test_json_num(sw, "window_t0_s"), w->t0_s) && same(cf_test_json_num(sw, "kappa"), w->model.kappa) &&
          same(cf_test_json_num(sw, "tol"), w->model.tol), "%s: counts, window, settings in %s", c->name, sw);
    CHECK(json_model_is(sw, &w->model), "%s: the mesh and start settings in %s", c->name, sw);
  }
  if (c->has_fit && fit) {
    const cf_res_fit *f = &c->fit;
    CHECK(cf_test_json_has_str(fit, "method", f->method) && cf_test_json_has_str(fit, "start", f->start_kind) &&
          same(cf_test_json_num(fit, "delta"), f->x[0]) && same(cf_test_json_num(fit, "alpha"), f->x[1]) &&
          same(cf_test_json_num(fit, "f_best_cm"), f->f_best) &&
          same(cf_test_json_num(fit, "error_all_cm"), f->e_all) &&
          same(cf_test_json_num(fit, "error_test_cm"), f->e_test) &&
          cf_test_json_num(fit, "evaluations") == f->evaluations &&
          same(cf_test_json_num(fit, "kappa"), f->model.kappa) &&
          same(cf_test_json_num(fit, "beta"), f->model.beta) && same(cf_test_json_num(fit, "tol"), f->model.tol) &&
          same(cf_test_json_num(fit, "train_t1_s"), f->train_t1_s), "%s: fit in %s", c->name, fit);
    CHECK(json_model_is(fit, &f->model), "%s: the mesh and start settings in %s", c->name, fit);
  }
  free(sw), free(fit);
}

static void inspect_regression_json(const cf_res_regression *g, const char *j) {
  char *p = cf_test_json_part(j, "regression");
  CHECK(p && (g->has ? p[0] == '{' : !strcmp(p, "null")), "regression member: %s", p ? p : j);
  if (!g->has || !p) return free(p);
  CHECK(cf_test_json_len(p, "delta_coefficients") == 4 && cf_test_json_len(p, "alpha_coefficients") == 4,
        "coefficients: %s", p);
  for (int k = 0; k < 4; k++) {
    char dk[64], ak[64];
    snprintf(dk, sizeof dk, "delta_coefficients.%d", k), snprintf(ak, sizeof ak, "alpha_coefficients.%d", k);
    CHECK(same(cf_test_json_num(p, dk), g->f.d[k]) && same(cf_test_json_num(p, ak), g->f.a[k]), "coefficient %d: %s",
          k, p);
  }
  int used = cf_test_json_len(p, "recordings") == g->n_used;
  for (int i = 0; i < g->n_used; i++) {
    char k[64];
    snprintf(k, sizeof k, "recordings.%d", i);
    used = used && cf_test_json_has_str(p, k, g->used[i]);
  }
  CHECK(used && same(cf_test_json_num(p, "R_cm"), g->R) && same(cf_test_json_num(p, "E_cm"), g->E) &&
        same(cf_test_json_num(p, "tol"), g->model.tol) && cf_test_json_has_str(p, "search", g->search) &&
        cf_test_json_num(p, "simulations") == g->simulations, "R*, E*, the %d recordings used: %s", g->n_used, p);
  free(p);
}

/* `inspect RESULTS.h5`: the text names every recording and its best grid
 * point; --json (last line) holds what cf_results_read reads from the file. */
static void inspect_results(const char *path) {
  cf_results r;
  cf_error err = {0, ""};
  char *o = NULL, *e = NULL, *jo = NULL, *je = NULL, want[512];
  CHECK(cf_results_read(path, &r, &err) == CF_OK, "%s", err.msg);
  int st = run(&o, &e, "inspect", path, NULL), sj = run(&jo, &je, "inspect", path, "--json", NULL);
  const char *j = cf_test_last_line(jo);
  CHECK(st == 0 && sj == 0 && o && j[0] == '{' && strstr(o, "results file"), "inspect %s: %d/%d '%s' '%s'", path,
        st, sj, o ? o : "", e ? e : "");
  CHECK(cf_test_json_has_str(j, "kind", "results") &&
        cf_test_json_has_str(j, "provenance.tool_version", r.prov.tool_version) &&
        cf_test_json_has_str(j, "provenance.git_revision", r.prov.git_revision) &&
        cf_test_json_has_str(j, "provenance.created", r.prov.end_time) &&
        cf_test_json_num(j, "n_recordings") == r.n, "provenance: %s", j);
  for (int i = 0; o && i < r.n; i++) {
    const cf_res_rec *c = &r.recs[i];
    const cf_res_sweep *w = &c->sweep;
    snprintf(want, sizeof want, "recording         %s (", c->name);
    CHECK(strstr(o, want), "text without '%s': %s", want, o);
    if (c->has_sweep && w->best >= 0) {
      snprintf(want, sizeof want, "best point      delta %.6g alpha %.6g: error %.4f cm", w->delta[w->best / w->na],
               w->alpha[w->best % w->na], w->e[w->best]);
      CHECK(strstr(o, want), "text without '%s': %s", want, o);
    }
    snprintf(want, sizeof want, "recordings.name=%s", c->name);
    char *rj = cf_test_json_part(j, want);
    CHECK(rj != NULL, "JSON without %s: %s", want, j);
    if (rj) inspect_rec_json(c, rj);
    free(rj);
  }
  inspect_regression_json(&r.reg, j);
  cf_results_free(&r);
  free(o), free(e), free(jo), free(je);
}

/* The round trip's file: three recordings (one without a fit or a best
 * point), a failed and a pruned grid point, a regression. */
static void inspect_written(void) {
  char p[512], *o = NULL, *e = NULL;
  snprintf(p, sizeof p, "%s/sub/rt2.h5", dir);
  inspect_results(p);
  int st = run(&o, &e, "inspect", p, NULL);
  CHECK(st == 0 && o && strstr(o, "recordings        3: zeta, alpha_rec, partial\n") &&
        strstr(o, "grid points     4 ok, 1 failed, 1 pruned") &&
        strstr(o, "first failure   projection did not converge at step 12") &&
        strstr(o, "best point      none") && strstr(o, "regression        2 recording(s) used: zeta, alpha_rec\n") &&
        strstr(o, "R* (cm)") && strstr(o, "model settings kappa 0.001, beta 0.02, tol 0.0001") &&
        strstr(o, ", size rest metric, mesh split 2x3, 4 substeps, moving start\n"),
        "inspect %s: %s %s", p, o ? o : "", e ? e : "");
  free(o), free(e);
}

/* Nothing named out* left in dir (no output, no temporary file). */
static int no_output(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int clean = 1;
  while (d && (e = readdir(d))) clean &= strncmp(e->d_name, "out", 3) != 0;
  if (d) closedir(d);
  return clean;
}

#define FAIL_CASE(needle, ...)                                                                  \
  do {                                                                                          \
    char *o = NULL, *e = NULL;                                                                  \
    int st = run(&o, &e, __VA_ARGS__, NULL);                                                    \
    const char *nl = e ? strchr(e, '\n') : NULL;                                                \
    CHECK(st > 0 && o && !o[0] && e && !strncmp(e, "clothfit ", 9) && strstr(e, needle) && nl && !nl[1] && \
          no_output(), "%s: status %d, stdout '%s', stderr '%s'", #__VA_ARGS__, st, o ? o : "", e ? e : ""); \
    free(o), free(e);                                                                           \
  } while (0)

static void cli_errors(const char *rec, const char *nolat) {
  char out[512];
  snprintf(out, sizeof out, "%s/out.h5", dir);
  FAIL_CASE("ingest with --lattice RxC", "fit", (char *)nolat, "-o", out);
  FAIL_CASE("missing.h5", "sweep", "missing.h5", "-o", out);
  FAIL_CASE("invalid --delta-grid '1:0:5'", "sweep", (char *)rec, "--delta-grid", "1:0:5", "-o", out);
  FAIL_CASE("invalid --alpha-grid 'abc'", "sweep", (char *)rec, "--alpha-grid", "abc", "-o", out);
  FAIL_CASE("invalid --window", "sweep", (char *)rec, "--window", "5:1", "-o", out);
  FAIL_CASE("sweep: invalid --prune-margin '0.5': expected a factor >= 1", "sweep", (char *)rec, "--prune-margin", "0.5",
            "-o", out);
  FAIL_CASE("invalid --start", "fit", (char *)rec, "--start", "0.1", "-o", out);
  FAIL_CASE("needs a table in the recording (/table", "fit", (char *)rec, "--params", "delta,alpha,mu", "-o", out);
  FAIL_CASE("--mu needs a table", "fit", (char *)rec, "--mu", "0.3", "-o", out);
  FAIL_CASE("invalid --mu '-1'", "fit", (char *)rec, "--mu", "-1", "-o", out);
  FAIL_CASE("invalid --params 'delta,mu'", "fit", (char *)rec, "--params", "delta,mu", "-o", out);
  FAIL_CASE("invalid --train", "fit", (char *)rec, "--train", "0.5:0.2", "-o", out);
  FAIL_CASE("invalid --polish 'cubic': expected quadratic or none", "fit", (char *)rec, "--polish", "cubic", "-o", out);
  FAIL_CASE("missing --at", "sensitivity", (char *)rec, "-o", out);
  FAIL_CASE("no such results file", "regress", (char *)rec, "--from", "none.h5", "-o", out);
  FAIL_CASE("not a clothfit results file", "predict", (char *)rec, "--formula", (char *)rec);
  FAIL_CASE("unknown option '--bogus'", "sweep", (char *)rec, "--bogus", "-o", out);
  FAIL_CASE("unknown experiment 'nope'", "experiment", "nope", "-o", out);
  FAIL_CASE("cannot open the dataset folder", "experiment", "aero", "--dataset", "/nonexistent", "-o", out);
  /* the model settings: checked before anything is read or written */
  FAIL_CASE("fit: invalid --tol '2': expected a number with 0 < T < 1", "fit", (char *)rec, "--tol", "2", "-o", out);
  FAIL_CASE("invalid --tol '0'", "sweep", (char *)rec, "--tol", "0", "-o", out);
  FAIL_CASE("invalid --kappa '-1': expected a number with K >= 0", "sweep", (char *)rec, "--kappa", "-1", "-o", out);
  FAIL_CASE("invalid --kappa 'inf'", "sensitivity", (char *)rec, "--at", "0.041,0.307", "--kappa", "inf", "-o", out);
  FAIL_CASE("invalid --beta '-0.5': expected a number with B >= 0", "fit", (char *)rec, "--beta=-0.5", "-o", out);
  FAIL_CASE("invalid --beta 'abc'", "regress", (char *)rec, "--from", "none.h5", "--beta", "abc", "-o", out);
  FAIL_CASE("invalid --kappa '1e-3x'", "predict", (char *)rec, "--kappa", "1e-3x");
  FAIL_CASE("invalid --tol '1'", "experiment", "aero", "--tol", "1", "-o", out);
  FAIL_CASE("invalid --split '0': expected a count 1..8", "fit", (char *)rec, "--split", "0", "-o", out);
  FAIL_CASE("invalid --split '9'", "compare", (char *)rec, "--split", "9", "-o", out);
  FAIL_CASE("invalid --split '1x9': expected a count 1..8 (lattice cells split N x N) or RxC", "fit", (char *)rec,
            "--split", "1x9", "-o", out);
  FAIL_CASE("invalid --split '2x'", "sweep", (char *)rec, "--split", "2x", "-o", out);
}

static const char *fit_keys[] = {"delta", "alpha", "mu", "mean_error_cm", "mean_std_cm", "method", "evaluations"};

/* `fit --json` recovers the truth within 5 %, with the keys of docs/design.md §2,
 * and -o holds the same optimum and its per-frame errors. */
static void fit_recovers(const char *rec, int T, const char *start) {
  char res[512], *o = NULL, *e = NULL;
  snprintf(res, sizeof res, "%s/fit_%s.h5", dir, start ? "given" : "grid");
  int st = start ? run(&o, &e, "fit", rec, "--start", start, "--json", "-o", res, NULL)
                 : run(&o, &e, "fit", rec, "--json", "-o", res, NULL);
  const char *j = cf_test_last_line(o);
  CHECK(st == 0 && j[0] == '{', "fit: status %d, stderr '%s'", st, e ? e : "");
  for (size_t k = 0; k < sizeof fit_keys / sizeof *fit_keys; k++)
    CHECK(cf_test_json_has(j, fit_keys[k]), "JSON without %s: %s", fit_keys[k], j);
  double d = cf_test_json_num(j, "delta"), a = cf_test_json_num(j, "alpha");
  printf("fit (start %s): delta %.5f alpha %.5f, error %.4f cm\n", start ? start : "grid", d, a,
         cf_test_json_num(j, "mean_error_cm"));
  CHECK(fabs(d / DELTA - 1) < 0.05 && fabs(a / ALPHA - 1) < 0.05, "not within 5 %%: %s", j);
  CHECK(cf_test_json_is(j, "mu", "null") && cf_test_json_has_str(j, "method", "nelder-mead") &&
            cf_test_json_num(j, "evaluations") > 0,
        "%s", j);
  /* the default grid holds the truth inside; a given start has no grid */
  CHECK(cf_test_json_is(j, "on_grid_edge", start ? "null" : "false"), "%s", j);
  /* the fitting defaults (cf_pipeline_model_default): kappa 1e-3, tol 1e-4 */
  CHECK(cf_test_json_num(j, "kappa") == 1e-3 && cf_test_json_num(j, "beta") == 0 && cf_test_json_num(j, "tol") == 1e-4 &&
            strstr(o, "model             kappa 0.001, beta 0, tol 0.0001, max_iter 50"),
        "default settings: %s", j);
  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(res, &r, &err) == CF_OK && r.n == 1, "%s", err.msg);
  if (r.n == 1) {
    const cf_res_rec *c = &r.recs[0];
    CHECK(c->has_fit && fabs(c->fit.x[0] - d) < 1e-8 && fabs(c->fit.x[1] - a) < 1e-8, "stored optimum differs");
    CHECK(c->has_series && c->series.T == T && c->has_sweep == !start, "series / sweep");
    CHECK(fabs(c->fit.e_all - cf_test_json_num(j, "mean_error_cm")) < 1e-8, "stored error differs");
    /* how sure (docs/confidence.md): an interval around the fit on each parameter, a
     * clean shake is identifiable, the file holds what the JSON says */
    const cf_res_conf *cf = &c->fit.conf;
    CHECK(cf->done && cf->identifiable == 1 && cf_test_json_is(j, "identifiable", "true") && strstr(o, "confidence "),
          "confidence: done %d identifiable %d (%s)", cf->done, cf->identifiable, cf->why);
    CHECK(cf->delta[0] < d && d < cf->delta[1] && cf->alpha[0] < a && a < cf->alpha[1] &&
              cf->delta[1] - cf->delta[0] < d && cf->alpha[1] - cf->alpha[0] < a,
          "intervals delta [%g, %g] alpha [%g, %g] around (%g, %g)", cf->delta[0], cf->delta[1], cf->alpha[0],
          cf->alpha[1], d, a);
    CHECK(fabs(cf_test_json_first(j, "delta_interval") - cf->delta[0]) <= 1e-8 * fabs(cf->delta[0]), "JSON interval: %s", j);
    /* the held kappa and beta checked (kappa 1e-3 > 0): moves in the file and the JSON alike */
    CHECK(isfinite(cf->kappa_shift[0]) && isfinite(cf->beta_shift[0]) &&
              fabs(cf_test_json_first(j, "beta_shift") - cf->beta_shift[0]) <= 1e-8 * fmax(fabs(cf->beta_shift[0]), 1e-12) &&
              strstr(o, "= kappa x the window"),
          "held checks: kappa_shift %g, beta_shift %g: %s", cf->kappa_shift[0], cf->beta_shift[0], j);
    /* the beta checked: kappa x the training window (the first half, to 0.1 s), in the file,
     * the JSON and the text */
    double window = 0.5 * T * 0.01, bc = cf_test_json_num(j, "beta_checked");
    char want[64];
    snprintf(want, sizeof want, "with beta %.3g = kappa x the window", cf->beta_checked);
    CHECK(fabs(cf->beta_checked - 1e-3 * window) <= 1e-3 * 0.1 && bc == cf->beta_checked && strstr(o, want),
          "beta checked %g (file), %g (JSON), window %g s: %s", cf->beta_checked, bc, window, o);
    /* the held rest metric: the move in the file, the JSON and the text alike, or
     * "not checked" in all three when the other metric's refit could not start (on
     * this recording the first frame does not project onto the flat lattice within
     * tol 1e-4: violation 5.4e-4 when written) */
    int rest_ok = isfinite(cf->rest_shift[0])
                      ? fabs(cf_test_json_first(j, "rest_shift") - cf->rest_shift[0]) <= 1e-8 * fmax(fabs(cf->rest_shift[0]), 1e-12) &&
                            strstr(o, "with the other rest metric delta")
                      : isnan(cf->rest_shift[1]) && cf_test_json_is(j, "rest_shift", "null") && strstr(o, "rest metric not checked");
    CHECK(rest_ok, "rest check: rest_shift %g, %g: %s", cf->rest_shift[0], cf->rest_shift[1], j);
  }
  cf_results_free(&r);
  free(o), free(e);
}

/* fit with the simulator's own settings --kappa 0 --tol 1e-3, not the
 * fitting defaults (a few evaluations at the truth): the settings in the
 * text, the JSON and every part of -o; regress refuses these optima
 * without the same settings. */
static void fit_model(const char *rec) {
  char res[512], *o = NULL, *e = NULL;
  snprintf(res, sizeof res, "%s/model.h5", dir);
  int st = run(&o, &e, "fit", rec, "--start", "0.041,0.307", "--max-evals", "2", "--kappa", "0", "--tol", "1e-3",
               "--json", "-o", res, NULL);
  const char *j = cf_test_last_line(o);
  CHECK(st == 0 && j[0] == '{', "fit: status %d, stderr '%s'", st, e ? e : "");
  CHECK(cf_test_json_num(j, "kappa") == 0 && cf_test_json_num(j, "beta") == 0 && cf_test_json_num(j, "tol") == 1e-3,
        "%s", j);
  CHECK(strstr(o, "model             kappa 0, beta 0, tol 0.001"), "no model line in '%s'", o);
  /* 2 evaluations cannot pay for GSL's first simplex (3 vertices): the
   * result is the start with its real error, and the budget holds (the
   * start's one evaluation; GSL's set used to add 3 more) */
  CHECK(cf_test_json_num(j, "delta") == 0.041 && cf_test_json_num(j, "alpha") == 0.307 &&
        cf_test_json_num(j, "iterations") == 0 && cf_test_json_num(j, "evaluations") == 1 &&
        cf_test_json_num(j, "train_error_cm") > 0.001, "%s", j);
  free(o), free(e);
  st = run(&o, &e, "sweep", rec, "--delta-grid", "0.041:0.041:1", "--alpha-grid", "0.307:0.307:1", "--kappa", "0",
           "--tol", "1e-3", "-o", res, NULL);
  CHECK(st == 0, "sweep: %s", e ? e : "");
  free(o), free(e);
  cf_results r;
  cf_error err = {0, ""};
  /* the recording gives its size (meta width_m, height_m): the rest metric is the cloth's size */
  cf_res_model want = {0, 0, 1e-3, 50, NAN, "inextensible", NAN, NAN, NAN, "size", 2, 1, "rest", 0};
  CHECK(cf_results_read(res, &r, &err) == CF_OK && r.n == 1, "%s", err.msg);
  if (r.n == 1)
    CHECK(r.recs[0].has_fit && r.recs[0].has_sweep && same_model(&r.recs[0].fit.model, &want) &&
          same_model(&r.recs[0].sweep.model, &want), "stored settings");
  cf_results_free(&r);
  st = run(&o, &e, "regress", rec, "--from", res, NULL);
  CHECK(st == 1 && e && strstr(e, "found with the inextensible model, kappa 0, beta 0, tol 0.001") &&
            strstr(e, "give the same --model, --kappa"),
        "regress: %d '%s'", st, e ? e : "");
  free(o), free(e);
  inspect_results(res); /* a fit and a sweep made by the commands */
  /* --split 3: the finer mesh in the text, the JSON and -o; regress with
   * the default mesh refuses that optimum, naming the split.  These runs
   * take the rest metric from the first frame (--rest first-frame): the
   * recording's own floating-point lengths, with which its own mesh
   * reproduces it exactly.  The cloth's size (the default) gives the same
   * lengths to round-off, which at kappa 0 and tol 1e-3 grows to a
   * training error at the truth of 0.196 cm instead of 0.017 cm (without
   * the noise: 2e-13 cm at frame 1, 4e-3 cm at frame 55, 0.3 cm at frame
   * 105), which would hide what is checked here, the mesh. */
  snprintf(res, sizeof res, "%s/split.h5", dir);
  st = run(&o, &e, "fit", rec, "--start", "0.041,0.307", "--max-evals", "2", "--split", "3", "--no-confidence",
           "--kappa", "0", "--tol", "1e-3", "--rest", "first-frame", "--json", "-o", res, NULL);
  j = cf_test_last_line(o);
  CHECK(st == 0 && cf_test_json_num(j, "mesh_split") == 3 && strstr(o, "mesh split 3"), "fit --split 3: %d '%s' '%s'",
        st, o ? o : "", e ? e : "");
  double e3 = cf_test_json_num(j, "train_error_cm");
  free(o), free(e);
  /* the recording was made on the default mesh (kappa 0, tol 1e-3): at the truth only that mesh
   * reproduces it, to its noise (0.1 mm per coordinate: a mean distance of 1.6 x 0.1 mm) */
  st = run(&o, &e, "fit", rec, "--start", "0.041,0.307", "--max-evals", "2", "--no-confidence", "--kappa", "0",
           "--tol", "1e-3", "--rest", "first-frame", "--json", NULL);
  double e2 = st == 0 ? cf_test_json_num(cf_test_last_line(o), "train_error_cm") : NAN;
  printf("at the truth: training error %.4f cm on the default mesh, %.4f cm on split 3\n", e2, e3);
  CHECK(e2 < 0.025 && e3 > 5 * e2, "training error at the truth %.4g cm (split 2) against %.4g cm (split 3)", e2, e3);
  free(o), free(e);
  /* predict puts the optimum's error beside its own only from the same settings */
  st = run(&o, &e, "predict", rec, "--optima", res, NULL);
  CHECK(st == 1 && e && strstr(e, "split 3") && !strchr(e, '\n')[1], "predict, another split: %d '%s'", st,
        e ? e : "");
  free(o), free(e);
  st = run(&o, &e, "predict", rec, "--optima", res, "--split", "3", "--kappa", "0", "--tol", "1e-3", "--rest",
           "first-frame", "--json", NULL);
  CHECK(st == 0 && cf_test_json_num(cf_test_last_line(o), "recordings.0.delta_opt") > 0, "predict --split 3: %d '%s'", st,
        e ? e : "");
  free(o), free(e);
  /* ... and from the same substeps and start state */
  st = run(&o, &e, "predict", rec, "--optima", res, "--split", "3", "--kappa", "0", "--tol", "1e-3", "--rest",
           "first-frame", "--substeps", "2", "--initial", "moving", NULL);
  CHECK(st == 1 && e && strstr(e, "substeps 1, start rest, this run") && strstr(e, "substeps 2, start moving (") &&
            strstr(e, "--substeps, --initial") && !strchr(e, '\n')[1],
        "predict, other substeps and start: %d '%s'", st, e ? e : "");
  free(o), free(e);
  CHECK(cf_results_read(res, &r, &err) == CF_OK && r.n == 1 && r.recs[0].fit.model.split == 3, "split stored: %s",
        err.msg);
  cf_results_free(&r);
  /* --split RxC: the cells split 2 down, 3 across, named so in the text, the
   * JSON and -o */
  char res23[700];
  snprintf(res23, sizeof res23, "%s/split23.h5", dir);
  st = run(&o, &e, "fit", rec, "--start", "0.041,0.307", "--max-evals", "2", "--split", "2x3", "--no-confidence",
           "--kappa", "0", "--tol", "1e-3", "--rest", "first-frame", "--json", "-o", res23, NULL);
  j = cf_test_last_line(o);
  CHECK(st == 0 && cf_test_json_num(j, "mesh_split") == 2 && cf_test_json_num(j, "mesh_split_cols") == 3 &&
            strstr(o, "mesh split 2x3"),
        "fit --split 2x3: %d '%s' '%s'", st, o ? o : "", e ? e : "");
  free(o), free(e);
  CHECK(cf_results_read(res23, &r, &err) == CF_OK && r.n == 1 && r.recs[0].fit.model.split == 2 &&
            r.recs[0].fit.model.split_cols == 3,
        "split 2x3 stored: %s", err.msg);
  cf_results_free(&r);
  st = run(&o, &e, "inspect", res, NULL);
  CHECK(st == 0 && o && strstr(o, "mesh split 3"), "inspect: %d '%s'", st, o ? o : "");
  free(o), free(e);
  st = run(&o, &e, "inspect", res, "--json", NULL);
  CHECK(st == 0 && cf_test_json_num(cf_test_last_line(o), "recordings.0.fit.mesh_split") == 3, "inspect --json: %d '%s'",
        st, o ? o : "");
  free(o), free(e);
  st = run(&o, &e, "regress", rec, "--from", res, NULL);
  CHECK(st == 1 && e && strstr(e, "split 3") && strstr(e, "--split"), "regress: %d '%s'", st, e ? e : "");
  free(o), free(e);
}

/* A grid whose lowest delta is the truth and whose alpha axis ends at it:
 * the optimum sits on two edges, and sweep says which way to widen each
 * grid (`fit` from its grid start is checked with the
 * default grid in fit_recovers, from a given start it has no grid). */
static void grid_edge(const char *rec) {
  char *o = NULL, *e = NULL;
  int st = run(&o, &e, "sweep", rec, "--delta-grid", "0.041:0.061:3", "--alpha-grid", "0.207:0.307:3", "--json", NULL);
  const char *j = cf_test_last_line(o);
  const char *want = "delta at its lowest grid value 0.041 (widen --delta-grid below it); alpha at its highest grid "
                     "value 0.307 (widen --alpha-grid above it)";
  CHECK(st == 0 && cf_test_json_num(j, "recordings.0.delta") == DELTA && cf_test_json_is(j, "recordings.0.on_grid_edge", "true") &&
            cf_test_json_has_str(j, "recordings.0.grid_edge", want),
        "sweep: %d %s", st, j);
  CHECK(e && strstr(e, "clothfit sweep: warning: rec: the grid optimum is on the edge of the grid: ") &&
        strstr(e, want), "sweep stderr '%s'", e ? e : "");
  free(o), free(e);
  /* no confidence: 9 + up to 120 simulations that this check does not read */
  st = run(&o, &e, "fit", rec, "--start", "0.041,0.307", "--max-evals", "4", "--no-confidence", "--json", NULL);
  j = cf_test_last_line(o);
  CHECK(st == 0 && cf_test_json_is(j, "on_grid_edge", "null"), "fit from a given start: %d %s", st, j);
  free(o), free(e);
}

/* x is the grid value v: the middle of a grid is lo + (hi - lo) / 2, which
 * rounds in the last bits (0.031:0.051:3 gives 0.040999999999999995, not
 * 0.041), and the JSON's 17 digits show it. */
static int grid_value(double x, double v) { return fabs(x - v) <= 1e-15 * fabs(v); }

/* sweep (3 x 3 around the truth), sensitivity and predict on one file. */
static void pipeline(const char *rec) {
  char res[512], *o = NULL, *e = NULL;
  snprintf(res, sizeof res, "%s/pipe.h5", dir);
  int st = run(&o, &e, "sweep", rec, "--delta-grid", "0.031:0.051:3", "--alpha-grid", "0.257:0.357:3", "-o", res,
               "--json", NULL);
  const char *j = cf_test_last_line(o);
  CHECK(st == 0 && grid_value(cf_test_json_num(j, "recordings.0.delta"), DELTA) &&
            grid_value(cf_test_json_num(j, "recordings.0.alpha"), ALPHA),
        "sweep %d: %s %s", st, j, e);
  CHECK(o && strstr(o, "global") && strstr(o, "polyester"), "no Table 4.5 in '%s'", o ? o : "");
  CHECK(cf_test_json_is(j, "recordings.0.on_grid_edge", "false") && e && !strstr(e, "edge"), "inside the grid: %s / %s",
        j, e ? e : "");
  free(o), free(e);
  grid_edge(rec);
  /* with the settings that made the recording (synthrec: kappa 0, tol 1e-3)
   * and its own rest lengths (--rest first-frame; the cloth's size gives
   * them to round-off, which these settings grow to 0.2 cm: fit_model) */
  st = run(&o, &e, "sensitivity", rec, "--at", "0.041,0.307", "-n", "3", "--kappa", "0", "--tol", "1e-3", "--rest",
           "first-frame", "-o", res, "--json", NULL);
  CHECK(st == 0, "sensitivity: %s", e ? e : "");
  free(o), free(e);
  st = run(&o, &e, "predict", rec, "--optima", res, "--json", NULL);
  j = cf_test_last_line(o);
  CHECK(st == 0 && grid_value(cf_test_json_num(j, "recordings.0.delta_opt"), DELTA) &&
            isfinite(cf_test_json_num(j, "recordings.0.error_hat_cm")),
        "predict: %s", j);
  free(o), free(e);
  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(res, &r, &err) == CF_OK && r.n == 1 && r.recs[0].has_sweep && r.recs[0].has_sens, "%s",
        err.msg);
  /* the map's centre is exactly the truth: only the 0.1 mm marker noise is left */
  if (r.n == 1 && r.recs[0].has_sens)
    CHECK(r.recs[0].sens.delta[1] == DELTA && r.recs[0].sens.e[4] < 0.025, "map centre %.17g at delta %.17g",
          r.recs[0].sens.e[4], r.recs[0].sens.delta[1]);
  CHECK(r.prov.history && strstr(r.prov.history, "clothfit sweep"), "history '%s'", r.prov.history);
  cf_results_free(&r);
  inspect_results(res); /* a sweep and a sensitivity map made by the commands */
  st = run(&o, &e, "inspect", res, NULL);
  CHECK(st == 0 && o && strstr(o, "recordings        1: rec\n") &&
        strstr(o, "best point      delta 0.041 alpha 0.307: error ") && strstr(o, "sensitivity     map, 3 x 3"),
        "inspect %s: %s", res, o ? o : "");
  free(o), free(e);
}

/* ------------------------------------------------------ failed simulations */
/* The sweep's file, JSON and stderr agree on its failed points. */
static void sweep_failures_agree(const cf_res_rec *c, const char *j, const char *e, const char *map) {
  const cf_res_sweep *w = &c->sweep;
  int n = 0, bad = 0, N = w->nd * w->na;
  for (int k = 0; k < N; k++) {
    n += w->status[k] != 0;
    bad += w->status[k] ? w->status[k] != CF_ENOCONV || !strstr(w->reason[k], "(t = ") ||
                          !strstr(w->reason[k], "no convergence in 2 iterations")
                        : w->reason[k][0] != 0;
  }
  CHECK(N == 16 && n > 0 && n < 16 && !bad, "the map: %d of %d failed, %d with a wrong status or reason", n, N, bad);
  CHECK(cf_test_json_num(j, "recordings.0.failed_points") == n && cf_test_json_num(j, "recordings.0.grid_points") == N &&
        same(cf_test_json_num(j, "recordings.0.failed_fraction"), (double)n / N) &&
        cf_test_json_num(j, "failed_points") == n && cf_test_json_num(j, "grid_points") == N, "JSON: %s", j);
  char want[1000];
  snprintf(want, sizeof want, "clothfit sweep: warning: tight: %d of 16 simulations of the grid failed (%.1f %%): at "
           "delta ", n, 100.0 * n / N);
  CHECK(e && strstr(e, want), "stderr without '%s': %s", want, e ? e : "");
  snprintf(want, sizeof want, "clothfit sweep: warning: in total %d of 16 grid simulations failed (%.1f %%), in 1 of 1 "
           "recording(s); the failed points are kept in %s (sweep/status, sweep/reason)\n", n, 100.0 * n / N, map);
  CHECK(e && strstr(e, want), "stderr without '%s': %s", want, e ? e : "");
  int nb = 0, id = w->best / w->na, ia = w->best % w->na; /* failed 8-neighbours of the optimum */
  for (int k = 0; w->best >= 0 && k < N; k++)
    nb += k != w->best && abs(k / w->na - id) <= 1 && abs(k % w->na - ia) <= 1 && w->status[k];
  CHECK(w->best >= 0 && cf_test_json_is(j, "recordings.0.optimum_borders_failed", nb ? "true" : "false") &&
        (!nb || strstr(e, "failed grid point(s) among its")), "borders (%d failed): %s", nb, j);
  CHECK(w->model.max_iter == 2, "max_iter %d stored", w->model.max_iter);
  printf("failures: %d of %d grid points failed (--max-iter 2), %d of them next to the optimum\n", n, N, nb);
}

/* A failed point of the map as `fit --start`: the grid optimum is used
 * instead, and the failed Nelder-Mead evaluations are counted. */
static void fit_falls_back(const char *rec, const cf_res_sweep *w) {
  int k = 0;
  while (k < w->nd * w->na - 1 && !w->status[k]) k++;
  char start[64], res[512], *o = NULL, *e = NULL;
  snprintf(start, sizeof start, "%.17g,%.17g", w->delta[k / w->na], w->alpha[k % w->na]);
  snprintf(res, sizeof res, "%s/fallback.h5", dir);
  int st = run(&o, &e, "fit", rec, "--start", start, "--train", "0:1", "--max-iter", "2", "--max-evals", "30",
               "--workers", "2", "--no-confidence", "--json", "-o", res, NULL);
  const char *j = cf_test_last_line(o);
  int fe = cf_test_json_int(j, "failed_evaluations"), ev = cf_test_json_int(j, "evaluations"); /* -1: no JSON */
  CHECK(st == 0 && cf_test_json_has_str(j, "start", "grid") && cf_test_json_is(j, "starts_tried", "[\"given\",\"grid\"]") &&
        isfinite(cf_test_json_num(j, "mean_error_cm")) && cf_test_json_num(j, "grid_points") == 240 && fe >= 1 &&
        fe < cf_test_json_num(j, "evaluations"), "fit from a failed start: %d %s %s", st, j, e ? e : "");
  CHECK(o && strstr(o, "starts tried      given grid (failed: given (delta ") &&
        strstr(o, " Nelder-Mead evaluations (first: step "), "text: %s", o ? o : "");
  char want[200];
  snprintf(want, sizeof want, "clothfit fit: warning: tight: %d of %d Nelder-Mead evaluations failed (first: step ", fe,
           ev);
  CHECK(e && strstr(e, want), "stderr without '%s': %s", want, e ? e : "");
  printf("failures: fit from a failed point: %s, %d of %g evaluations failed\n", start, fe,
         cf_test_json_num(j, "evaluations"));
  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(res, &r, &err) == CF_OK && r.n == 1, "%s", err.msg);
  const cf_res_fit *f = r.n == 1 ? &r.recs[0].fit : NULL;
  CHECK(f && r.recs[0].has_fit && f->failed_evaluations == fe && !strcmp(f->starts_tried, "given grid") &&
        strstr(f->failure, "no convergence in 2 iterations") && !f->optimum_failure[0] && f->model.max_iter == 2,
        "stored fit: %d failed, starts '%s', failure '%s'", f ? f->failed_evaluations : -1, f ? f->starts_tried : "",
        f ? f->failure : "");
  int fp = cf_test_json_int(j, "failed_points");
  CHECK(r.n == 1 && fp >= 0 && count_status(&r.recs[0].sweep, 0) == fp, "stored grid failures");
  cf_results_free(&r);
  free(o), free(e);
}

/* No start can be simulated: status 1, one error line, no output. */
static void fit_no_optimum(const char *rec) {
  char out[512], *o = NULL, *e = NULL;
  snprintf(out, sizeof out, "%s/out_none.h5", dir);
  int st = run(&o, &e, "fit", rec, "--start", "0.041,0.307", "--train", "0:1", "--tol", "1e-9", "--max-iter", "1",
               "--workers", "2", "--json", "-o", out, NULL);
  const char *last = cf_test_last_line(e);
  char want[1000];
  snprintf(want, sizeof want, "clothfit fit: %s: no finite optimum: the simulation fails at every start tried: given "
           "(delta 0.041 alpha 0.307): step ", rec);
  CHECK(st == 1 && o && !o[0] && !strncmp(last, want, strlen(want)) && strchr(last, '\n') &&
        !strchr(last, '\n')[1] && strstr(last, "; grid: every one of its 240 points failed, first: step ") &&
        strstr(last, "; apriori (delta ") && strstr(last, "; centre (delta 0.0521 alpha 0.2084): step ") &&
        no_output(), "no optimum: status %d, stdout '%s', stderr '%s'", st, o ? o : "", e ? e : "");
  CHECK(e && strstr(e, "clothfit fit: warning: tight: 240 of 240 simulations of the grid failed (100.0 %)"), "%s", e);
  free(o), free(e);
}

static void failures(void) {
  char rec[512], map[512], *o = NULL, *e = NULL;
  free(make_rec("tight.h5", 60, CF_TEST_REC_LATTICE, rec, sizeof rec));
  snprintf(map, sizeof map, "%s/map.h5", dir);
  int st = run(&o, &e, "sweep", rec, "--delta-grid", "0.01:0.1:4", "--alpha-grid", "0.05:1.2:4", "--max-iter", "2",
               "--workers", "2", "-o", map, "--json", NULL);
  CHECK(st == 0, "sweep: %d %s", st, e ? e : "");
  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(map, &r, &err) == CF_OK && r.n == 1 && r.recs[0].has_sweep, "%s", err.msg);
  if (r.n == 1 && r.recs[0].has_sweep) {
    sweep_failures_agree(&r.recs[0], cf_test_last_line(o), e, map);
    fit_falls_back(rec, &r.recs[0].sweep);
  }
  cf_results_free(&r);
  free(o), free(e);
  fit_no_optimum(rec);
}

/* `predict --S --V --rho` prints what cf_formula_predict gives with the
 * thesis coefficients (the same doubles: the JSON has 17 digits), at Table
 * 4.9's S = 2 and densities and the V that its delta-hat implies
 * (test_formula checks those rows against the thesis' digits). */
static void predict_table_4_9(void) {
  const char *rho[4] = {"0.1042", "0.1804", "0.3046", "0.3046"}, *V[4] = {"0.1406", "0.2611", "0.3145", "0.3845"};
  for (int i = 0; i < 4; i++) {
    char *o = NULL, *e = NULL;
    int st = run(&o, &e, "predict", "--S", "2", "--V", V[i], "--rho", rho[i], "--json", NULL);
    const char *j = cf_test_last_line(o);
    double d = cf_test_json_num(j, "delta_hat"), a = cf_test_json_num(j, "alpha_hat"), dr, ar;
    cf_formula_predict(&cf_formula_thesis_rep1, 2, atof(V[i]), atof(rho[i]), &dr, &ar);
    CHECK(st == 0 && d == dr && a == ar,
          "row %d: %s (library: delta-hat %.9g alpha-hat %.9g)", i, j, dr, ar);
    free(o), free(e);
  }
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 2) return fprintf(stderr, "usage: test_fit_cli CLOTHFIT_EXE [--grid]\n"), 2;
  exe = argv[1];
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  setenv("CLOTHFIT_PROGRESS", "0", 1);
  char rec[512], nolat[512];
  free(make_rec("rec.h5", 401, CF_TEST_REC_LATTICE, rec, sizeof rec));
  if (argc > 2 && !strcmp(argv[2], "--grid")) { /* test_fit_cli_grid (physics): the two recoveries */
    fit_recovers(rec, 401, NULL);
    fit_recovers(rec, 401, "0.05,0.36");
    return cf_test_cli_end(dir, "test_fit_cli --grid");
  }
  free(make_rec("nolat.h5", 20, 0, nolat, sizeof nolat));
  adapter();
  round_trip();
  inspect_written();
  cli_errors(rec, nolat);
  predict_table_4_9();
  fit_model(rec);
  pipeline(rec);
  failures();
  return cf_test_cli_end(dir, "test_fit_cli");
}
