/* inspect_results.c — `clothfit inspect RESULTS.h5 [--json]`: what a
 * results file (docs/design.md §6; written by sweep, fit, sensitivity, regress,
 * experiment) holds: provenance, the recordings, per recording the sweep
 * grid, its best point and failed/pruned points, the refined fit with its
 * settings, the series and sensitivity map; the regression. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

/* ------------------------------------------------------------ the numbers */
typedef struct {
  int ok, failed, pruned;
} point_counts;

static point_counts sweep_counts(const cf_res_sweep *w) {
  point_counts c = {0, 0, 0};
  for (int k = 0; k < cf_res_sweep_points(w); k++) {
    if (cf_pipeline_point_failed(w->status[k])) c.failed++;
    else if (w->pruned[k]) c.pruned++;
    else c.ok++;
  }
  return c;
}

static int history_runs(const char *h) {
  int n = 0;
  for (const char *p = h; p && *p; p++) n += *p == '\n' || (!p[1] && *p != '\n');
  return n;
}

static const char *or_dash(const char *s) { return s && s[0] ? s : "-"; }

/* A sweep with at least one grid point (the axes have values). */
static int has_grid(const cf_res_rec *c) { return c->has_sweep && c->sweep.nd > 0 && c->sweep.na > 0; }

/* ------------------------------------------------------------------- text */
static void prov_text(const char *path, const cf_results *r) {
  const cf_res_provenance *p = &r->prov;
  printf("results file      %s\n", path);
  printf("tool              clothfit %s, git revision %s\n", or_dash(p->tool_version), or_dash(p->git_revision));
  printf("created           %s (run started %s on %s, %d worker(s))\n", or_dash(p->end_time), or_dash(p->start_time),
         or_dash(p->hostname), p->workers);
  if (p->ranks > 1) printf("ranks             %d (mpirun) on %s\n", p->ranks, or_dash(p->hosts));
  if (p->shard[0]) printf("shard             %s of a sweep (task key %s; `clothfit merge` joins them)\n", p->shard,
                          or_dash(p->task_key));
  printf("command           %s\n", or_dash(p->command));
  if (p->history && p->history[0]) printf("earlier runs      %d (provenance/history)\n", history_runs(p->history));
  printf("recordings        %d", r->n);
  for (int i = 0; i < r->n; i++) printf("%s%s", i ? ", " : ": ", r->recs[i].name);
  printf("\n");
}

static void model_text(const char *indent, const cf_res_model *m) {
  printf("%smodel settings kappa %g, beta %g, tol %g, max_iter %d", indent, m->kappa, m->beta, m->tol, m->max_iter);
  if (isfinite(m->mu)) printf(", mu %g", m->mu);
  if (m->cloth[0] && strcmp(m->cloth, "inextensible")) printf(", %s model", m->cloth);
  cf_res_model def = cf_res_model_default();
  if (strcmp(m->rest, def.rest)) printf(", %s rest metric", m->rest);
  char split[32];
  if (m->split != def.split || m->split_cols) printf(", mesh split %s", cf_res_model_split_text(m, split, sizeof split));
  if (m->substeps != def.substeps) printf(", %d substeps", m->substeps);
  if (strcmp(m->start, def.start)) printf(", %s start", m->start);
  const double k[3] = {m->k_stretch, m->k_shear, m->k_bend};
  for (int j = 0; j < 3; j++)
    if (isfinite(k[j])) printf(", %s %g", cf_fit_stiffness_name(j), k[j]);
  printf("\n");
}

static void sweep_text(const cf_res_rec *c) {
  const cf_res_sweep *w = &c->sweep;
  point_counts n = sweep_counts(w);
  printf("  sweep grid      delta %.6g .. %.6g (%d) x alpha %.6g .. %.6g (%d)", w->delta[0], w->delta[w->nd - 1], w->nd,
         w->alpha[0], w->alpha[w->na - 1], w->na);
  if (w->nm > 0) printf(" x mu %.6g .. %.6g (%d)", w->mu[0], w->mu[w->nm - 1], w->nm);
  printf(" = %d points; window [%g, ", cf_res_sweep_points(w), w->t0_s);
  if (w->t1_s > 0) printf("%g) s", w->t1_s);
  else printf("end) s");
  if (w->prune && w->prune_margin > 1)
    printf("; %d worker(s), pruning beyond %g x the best, %.3g s\n", w->workers, w->prune_margin, w->wall_s);
  else printf("; %d worker(s), pruning %s, %.3g s\n", w->workers, w->prune ? "on" : "off", w->wall_s);
  model_text("                  ", &w->model);
  double bd, ba, bm;
  if (w->best >= 0) cf_res_sweep_at(w, w->best, &bd, &ba, &bm);
  if (w->best >= 0 && w->nm > 0)
    printf("  best point      delta %.6g alpha %.6g mu %.6g: error %.4f cm, std %.4f cm\n", bd, ba, bm, w->e[w->best],
           w->s[w->best]);
  else if (w->best >= 0)
    printf("  best point      delta %.6g alpha %.6g: error %.4f cm, std %.4f cm\n", bd, ba, w->e[w->best],
           w->s[w->best]);
  else printf("  best point      none: no grid point simulated\n");
  char edge[512];
  if (cf_pipeline_grid_edge(c, edge, sizeof edge) > 0) printf("  grid edge       %s\n", edge);
  printf("  grid points     %d ok, %d failed, %d pruned (error a lower bound)\n", n.ok, n.failed, n.pruned);
  if (n.failed) printf("  first failure   %s\n", cf_cli_first_failure(w));
}

static void fit_text(const cf_res_fit *f) {
  printf("  fit             %s from %s (delta %.6g alpha %.6g, training error %.4f cm): delta %.6g alpha %.6g, "
         "training error %.4f cm\n", f->method, f->start_kind, f->start[0], f->start[1], f->f_start, f->x[0], f->x[1],
         f->f_best);
  if (f->n_params > 2) printf("                  mu fitted: from %.6g to %.6g\n", f->start[2], f->x[2]);
  if (f->kappa_fitted) printf("                  kappa fitted: from %.6g to %.6g\n", f->start_kappa, f->model.kappa);
  if (f->beta_fitted) printf("                  beta fitted: from %.6g to %.6g\n", f->start_beta, f->model.beta);
  char polished[400];
  cf_cli_polish_text(f, polished, sizeof polished);
  if (polished[0]) printf("                  polish: %s\n", polished);
  printf("                  %d evaluations, %d iterations%s\n", f->evaluations, f->iterations,
         f->converged ? ", converged" : ", not converged");
  if (f->failed_evaluations)
    printf("                  %d evaluations failed, first: %s\n", f->failed_evaluations, f->failure);
  if (strchr(f->starts_tried, ' ')) printf("                  starts tried: %s (the last used)\n", f->starts_tried);
  if (f->optimum_failure[0])
    printf("                  whole recording at the optimum failed: %s\n", f->optimum_failure);
  printf("                  training [%g, %g) s: error %.4f cm, std %.4f cm\n", f->train_t0_s, f->train_t1_s,
         f->e_train, f->s_train);
  if (isfinite(f->e_test)) printf("                  testing: error %.4f cm, std %.4f cm\n", f->e_test, f->s_test);
  printf("                  whole recording: error %.4f cm, std %.4f cm\n", f->e_all, f->s_all);
  model_text("                  ", &f->model);
}

static void rec_text(const cf_res_rec *c) {
  printf("\nrecording         %s (%s): %d frames, dt %g s, rho %g kg/m^2, S %g, V %g\n", c->name, or_dash(c->recording),
         c->frames, c->dt, c->rho, c->S, c->V);
  printf("  cloth           material %s, size %s, motion %s, speed %s\n", or_dash(c->meta.material),
         or_dash(c->meta.size), or_dash(c->meta.motion), or_dash(c->meta.speed));
  if (isfinite(c->truth_delta) || isfinite(c->truth_alpha))
    printf("  ground truth    delta %.6g alpha %.6g\n", c->truth_delta, c->truth_alpha);
  if (has_grid(c)) sweep_text(c);
  else printf("  sweep grid      none\n");
  if (c->has_fit) fit_text(&c->fit);
  else printf("  fit             none\n");
  if (c->has_series) {
    printf("  series          %d frames at delta %.6g alpha %.6g", c->series.T, c->series.delta, c->series.alpha);
    if (c->series.simulated) printf(", markers of a %d x %d lattice (recorded, simulated)", c->series.rows,
                                    c->series.cols);
    printf("\n");
  }
  if (c->has_compare) cf_cli_compare_text(c);
  if (c->has_remesh) cf_cli_remesh_text(c);
  if (!c->has_sens) return;
  printf("  sensitivity     %s, %d x %d", c->sens.kind, c->sens.nd, c->sens.na);
  if (c->sens.nm > 0) printf(" x %d (mu %.6g .. %.6g)", c->sens.nm, c->sens.mu[0], c->sens.mu[c->sens.nm - 1]);
  printf(" points at delta %.6g alpha %.6g\n", c->sens.at_delta, c->sens.at_alpha);
}

static void reg_text(const cf_res_regression *g) {
  printf("\nregression        %d recording(s) used", g->n_used);
  for (int i = 0; i < g->n_used; i++) printf("%s%s", i ? ", " : ": ", g->used[i]);
  printf("\n");
  cf_cli_table_46(g);
  model_text("", &g->model);
}

/* ------------------------------------------------------------------- JSON */
static void json_model(json_t *o, const cf_res_model *m) {
  cf_cli_json_num(o, "kappa", m->kappa);
  cf_cli_json_num(o, "beta", m->beta);
  cf_cli_json_num(o, "tol", m->tol);
  cf_cli_json_num(o, "max_iter", m->max_iter);
  cf_cli_json_num(o, "mu_held", m->mu);
  cf_cli_json_str(o, "cloth_model", m->cloth[0] ? m->cloth : "inextensible");
  cf_cli_json_num(o, "k_stretch", m->k_stretch);
  cf_cli_json_num(o, "k_shear", m->k_shear);
  cf_cli_json_num(o, "k_bend", m->k_bend);
  cf_cli_json_str(o, "rest_metric", m->rest); /* "first-frame" for files without it (cf_res_model_default) */
  cf_cli_json_num(o, "mesh_split", m->split); /* 2 for files without it */
  cf_cli_json_num(o, "mesh_split_cols", m->split_cols); /* 0 (uniform) for files without it */
  cf_cli_json_num(o, "substeps", m->substeps); /* 1 for files without it */
  cf_cli_json_str(o, "start_state", m->start); /* "rest" for files without it */
}

static void prov_json(json_t *o, const char *path, const cf_results *r) {
  const cf_res_provenance *p = &r->prov;
  cf_cli_json_str(o, "file", path);
  cf_cli_json_str(o, "kind", "results");
  json_t *j = cf_cli_json_object(o, "provenance");
  cf_cli_json_str(j, "tool_version", p->tool_version);
  cf_cli_json_str(j, "git_revision", p->git_revision);
  cf_cli_json_str(j, "created", p->end_time);
  cf_cli_json_str(j, "start_time", p->start_time);
  cf_cli_json_str(j, "end_time", p->end_time);
  cf_cli_json_str(j, "hostname", p->hostname);
  cf_cli_json_str(j, "command", p->command);
  cf_cli_json_num(j, "workers", p->workers);
  cf_cli_json_num(j, "ranks", p->ranks);
  cf_cli_json_str(j, "hosts", p->hosts);
  cf_cli_json_str(j, "shard", p->shard);
  cf_cli_json_num(j, "earlier_runs", history_runs(p->history));
  cf_cli_json_num(o, "n_recordings", r->n);
}

static void sweep_best_json(json_t *o, const cf_res_sweep *w) {
  int b = w->best;
  double d = NAN, a = NAN, mu = NAN;
  if (b >= 0) cf_res_sweep_at(w, b, &d, &a, &mu);
  cf_cli_json_num(o, "best_delta", d);
  cf_cli_json_num(o, "best_alpha", a);
  cf_cli_json_num(o, "best_mu", w->nm > 0 ? mu : NAN);
  cf_cli_json_num(o, "best_error_cm", b >= 0 ? w->e[b] : NAN);
  cf_cli_json_num(o, "best_std_cm", b >= 0 ? w->s[b] : NAN);
}

static void sweep_json(json_t *o, const cf_res_rec *c) {
  const cf_res_sweep *w = &c->sweep;
  point_counts n = sweep_counts(w);
  char edge[512];
  int on_edge = cf_pipeline_grid_edge(c, edge, sizeof edge);
  json_t *j = cf_cli_json_object(o, "sweep");
  cf_cli_json_num(j, "delta_min", w->delta[0]);
  cf_cli_json_num(j, "delta_max", w->delta[w->nd - 1]);
  cf_cli_json_num(j, "n_delta", w->nd);
  cf_cli_json_num(j, "alpha_min", w->alpha[0]);
  cf_cli_json_num(j, "alpha_max", w->alpha[w->na - 1]);
  cf_cli_json_num(j, "n_alpha", w->na);
  cf_cli_json_num(j, "mu_min", w->nm > 0 ? w->mu[0] : NAN);
  cf_cli_json_num(j, "mu_max", w->nm > 0 ? w->mu[w->nm - 1] : NAN);
  cf_cli_json_num(j, "n_mu", w->nm);
  cf_cli_json_num(j, "points", cf_res_sweep_points(w));
  cf_cli_json_num(j, "best_index", w->best);
  sweep_best_json(j, w);
  cf_cli_json_bool(j, "on_grid_edge", on_edge);
  cf_cli_json_num(j, "ok", n.ok), cf_cli_json_num(j, "failed", n.failed), cf_cli_json_num(j, "pruned", n.pruned);
  cf_cli_json_str(j, "first_failure", n.failed ? cf_cli_first_failure(w) : NULL);
  cf_cli_json_num(j, "window_t0_s", w->t0_s);
  cf_cli_json_num(j, "window_t1_s", w->t1_s);
  cf_cli_json_num(j, "workers", w->workers), cf_cli_json_num(j, "prune", w->prune);
  cf_cli_json_num(j, "prune_margin", w->prune ? (w->prune_margin > 1 ? w->prune_margin : 1) : 0);
  cf_cli_json_num(j, "wall_s", w->wall_s);
  json_model(j, &w->model);
}

static void fit_json(json_t *o, const cf_res_fit *f) {
  const char *k[] = {"start_delta", "start_alpha", "delta", "alpha", "f_start_cm", "f_best_cm", "train_t0_s",
                     "train_t1_s", "error_train_cm", "std_train_cm", "error_test_cm", "std_test_cm",
                     "error_all_cm", "std_all_cm"};
  const double v[] = {f->start[0], f->start[1], f->x[0], f->x[1], f->f_start, f->f_best, f->train_t0_s,
                      f->train_t1_s, f->e_train, f->s_train, f->e_test, f->s_test, f->e_all, f->s_all};
  json_t *j = cf_cli_json_object(o, "fit");
  cf_cli_json_str(j, "method", f->method);
  cf_cli_json_num(j, "mu", f->n_params > 2 ? f->x[2] : NAN);
  cf_cli_json_num(j, "start_mu", f->n_params > 2 ? f->start[2] : NAN);
  cf_cli_json_bool(j, "kappa_fitted", f->kappa_fitted != 0); /* its value: the model's kappa */
  cf_cli_json_bool(j, "beta_fitted", f->beta_fitted != 0);
  cf_cli_json_num(j, "start_kappa", f->start_kappa);
  cf_cli_json_num(j, "start_beta", f->start_beta);
  cf_cli_json_str(j, "start", f->start_kind);
  cf_cli_json_numbers(j, k, v, 14);
  cf_cli_json_num(j, "evaluations", f->evaluations), cf_cli_json_num(j, "iterations", f->iterations);
  cf_cli_json_bool(j, "converged", f->converged != 0);
  cf_cli_json_num(j, "failed_evaluations", f->failed_evaluations);
  cf_cli_json_str(j, "failure", f->failure[0] ? f->failure : NULL);
  cf_cli_json_str(j, "starts_tried", f->starts_tried);
  cf_cli_json_polish(j, f);
  json_model(j, &f->model);
}

static void rec_json(json_t *list, const cf_res_rec *c) {
  json_t *j = json_object();
  json_array_append_new(list, j);
  cf_cli_json_str(j, "name", c->name);
  cf_cli_json_str(j, "recording", c->recording);
  cf_cli_json_str(j, "material", c->meta.material);
  cf_cli_json_str(j, "size", c->meta.size);
  cf_cli_json_str(j, "motion", c->meta.motion);
  cf_cli_json_str(j, "speed", c->meta.speed);
  cf_cli_json_num(j, "frames", c->frames);
  const char *k[] = {"dt", "rho", "S", "V", "truth_delta", "truth_alpha"};
  const double v[] = {c->dt, c->rho, c->S, c->V, c->truth_delta, c->truth_alpha};
  cf_cli_json_numbers(j, k, v, 6);
  if (has_grid(c)) sweep_json(j, c);
  else cf_cli_json_set(j, "sweep", NULL);
  if (c->has_fit) fit_json(j, &c->fit);
  else cf_cli_json_set(j, "fit", NULL);
  cf_cli_json_num(j, "series_frames", c->has_series ? c->series.T : NAN);
  cf_cli_json_bool(j, "series_markers", c->has_series && c->series.simulated);
  if (c->has_sens) {
    json_t *s = cf_cli_json_object(j, "sensitivity");
    cf_cli_json_str(s, "kind", c->sens.kind);
    cf_cli_json_num(s, "n_delta", c->sens.nd), cf_cli_json_num(s, "n_alpha", c->sens.na);
    cf_cli_json_num(s, "n_mu", c->sens.nm);
    cf_cli_json_num(s, "at_delta", c->sens.at_delta);
    cf_cli_json_num(s, "at_alpha", c->sens.at_alpha);
  } else {
    cf_cli_json_set(j, "sensitivity", NULL);
  }
  if (c->has_compare) {
    json_t *m = cf_cli_json_object(j, "compare");
    cf_cli_json_num(m, "models_compared", c->compare.n);
    cf_cli_compare_json(m, &c->compare);
  } else {
    cf_cli_json_set(j, "compare", NULL);
  }
  if (c->has_remesh) cf_cli_remesh_json(cf_cli_json_object(j, "remesh"), &c->remesh);
  else cf_cli_json_set(j, "remesh", NULL);
}

static void reg_json(json_t *o, const cf_res_regression *g) {
  if (!g->has) {
    cf_cli_json_set(o, "regression", NULL);
    return;
  }
  json_t *j = cf_cli_json_object(o, "regression");
  cf_cli_json_strs(j, "recordings", g->used, g->n_used);
  cf_cli_json_nums(j, "delta_coefficients", g->f.d, 4);
  cf_cli_json_nums(j, "alpha_coefficients", g->f.a, 4);
  cf_cli_json_nums(j, "delta_coefficients_start", g->f_start.d, 4);
  cf_cli_json_nums(j, "alpha_coefficients_start", g->f_start.a, 4);
  cf_cli_json_num(j, "R_cm", g->R);
  cf_cli_json_num(j, "R_start_cm", g->R_start);
  cf_cli_json_num(j, "E_cm", g->E);
  cf_cli_json_num(j, "evaluations", g->evaluations), cf_cli_json_num(j, "iterations", g->iterations);
  cf_cli_json_num(j, "simulations", g->simulations), cf_cli_json_str(j, "search", g->search);
  json_model(j, &g->model);
}

/* ------------------------------------------------------------------ entry */
static void results_text(const char *path, const cf_results *r) {
  prov_text(path, r);
  for (int i = 0; i < r->n; i++) rec_text(&r->recs[i]);
  if (r->reg.has) reg_text(&r->reg);
}

static void results_json(const char *path, const cf_results *r) {
  json_t *j = json_object();
  prov_json(j, path, r);
  json_t *list = cf_cli_json_array(j, "recordings");
  for (int i = 0; i < r->n; i++) rec_json(list, &r->recs[i]);
  reg_json(j, &r->reg);
  cf_cli_json_print(j);
}

int cf_cli_inspect_results(const char *path, int json) {
  cf_results r;
  cf_error err = {0, ""};
  if (cf_results_read(path, &r, &err)) return cf_cli_fail("inspect", "%s", err.msg);
  results_text(path, &r);
  if (json) results_json(path, &r);
  cf_results_free(&r);
  return 0;
}
