/* inspect_results.c — `clothfit inspect RESULTS.h5 [--json]`: what a
 * results file (SPEC §6; written by sweep, fit, sensitivity, regress,
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
  if (!strcmp(m->rest, "flat")) printf(", flat rest metric");
  if (m->split != cf_res_model_default().split) printf(", mesh split %d", m->split);
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
  if (cf_cli_grid_edge(c, edge, sizeof edge) > 0) printf("  grid edge       %s\n", edge);
  printf("  grid points     %d ok, %d failed, %d pruned (error a lower bound)\n", n.ok, n.failed, n.pruned);
  if (n.failed) printf("  first failure   %s\n", cf_cli_first_failure(w));
}

static void fit_text(const cf_res_fit *f) {
  printf("  fit             %s from %s (delta %.6g alpha %.6g, training error %.4f cm): delta %.6g alpha %.6g, "
         "training error %.4f cm\n", f->method, f->start_kind, f->start[0], f->start[1], f->f_start, f->x[0], f->x[1],
         f->f_best);
  if (f->n_params > 2) printf("                  mu fitted: from %.6g to %.6g\n", f->start[2], f->x[2]);
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
static void json_int(const char *key, int v) { printf(",\"%s\":%d", key, v); }

static void json_model(const cf_res_model *m) {
  cf_cli_json_num("kappa", m->kappa, 0);
  cf_cli_json_num("beta", m->beta, 0);
  cf_cli_json_num("tol", m->tol, 0);
  json_int("max_iter", m->max_iter);
  cf_cli_json_num("mu_held", m->mu, 0);
  cf_cli_json_str("cloth_model", m->cloth[0] ? m->cloth : "inextensible", 0);
  cf_cli_json_num("k_stretch", m->k_stretch, 0);
  cf_cli_json_num("k_shear", m->k_shear, 0);
  cf_cli_json_num("k_bend", m->k_bend, 0);
  cf_cli_json_str("rest_metric", m->rest, 0); /* "first-frame" for files without it (cf_res_model_default) */
  json_int("mesh_split", m->split);           /* 2 for files without it */
}

static void json_array(const char *key, const double *v, int n) {
  printf(",\"%s\":[", key);
  for (int i = 0; i < n; i++) printf("%s", i ? "," : ""), cf_cli_json_number(stdout, v[i]);
  printf("]");
}

static void prov_json(const char *path, const cf_results *r) {
  const cf_res_provenance *p = &r->prov;
  cf_cli_json_str("file", path, 1);
  printf(",\"kind\":\"results\",\"provenance\":{");
  cf_cli_json_str("tool_version", p->tool_version, 1);
  cf_cli_json_str("git_revision", p->git_revision, 0);
  cf_cli_json_str("created", p->end_time, 0);
  cf_cli_json_str("start_time", p->start_time, 0);
  cf_cli_json_str("end_time", p->end_time, 0);
  cf_cli_json_str("hostname", p->hostname, 0);
  cf_cli_json_str("command", p->command, 0);
  json_int("workers", p->workers);
  json_int("ranks", p->ranks);
  cf_cli_json_str("hosts", p->hosts, 0);
  cf_cli_json_str("shard", p->shard, 0);
  json_int("earlier_runs", history_runs(p->history));
  printf("},\"n_recordings\":%d", r->n);
}

static void sweep_best_json(const cf_res_sweep *w) {
  int b = w->best;
  double d = NAN, a = NAN, mu = NAN;
  if (b >= 0) cf_res_sweep_at(w, b, &d, &a, &mu);
  cf_cli_json_num("best_delta", d, 0);
  cf_cli_json_num("best_alpha", a, 0);
  cf_cli_json_num("best_mu", w->nm > 0 ? mu : NAN, 0);
  cf_cli_json_num("best_error_cm", b >= 0 ? w->e[b] : NAN, 0);
  cf_cli_json_num("best_std_cm", b >= 0 ? w->s[b] : NAN, 0);
}

static void sweep_json(const cf_res_rec *c) {
  const cf_res_sweep *w = &c->sweep;
  point_counts n = sweep_counts(w);
  char edge[512];
  int on_edge = cf_cli_grid_edge(c, edge, sizeof edge);
  printf(",\"sweep\":{");
  cf_cli_json_num("delta_min", w->delta[0], 1);
  cf_cli_json_num("delta_max", w->delta[w->nd - 1], 0);
  json_int("n_delta", w->nd);
  cf_cli_json_num("alpha_min", w->alpha[0], 0);
  cf_cli_json_num("alpha_max", w->alpha[w->na - 1], 0);
  json_int("n_alpha", w->na);
  cf_cli_json_num("mu_min", w->nm > 0 ? w->mu[0] : NAN, 0);
  cf_cli_json_num("mu_max", w->nm > 0 ? w->mu[w->nm - 1] : NAN, 0);
  json_int("n_mu", w->nm);
  json_int("points", cf_res_sweep_points(w));
  json_int("best_index", w->best);
  sweep_best_json(w);
  printf(",\"on_grid_edge\":%s", on_edge < 0 ? "null" : on_edge ? "true" : "false");
  json_int("ok", n.ok), json_int("failed", n.failed), json_int("pruned", n.pruned);
  cf_cli_json_str("first_failure", n.failed ? cf_cli_first_failure(w) : NULL, 0);
  cf_cli_json_num("window_t0_s", w->t0_s, 0);
  cf_cli_json_num("window_t1_s", w->t1_s, 0);
  json_int("workers", w->workers), json_int("prune", w->prune);
  cf_cli_json_num("prune_margin", w->prune ? (w->prune_margin > 1 ? w->prune_margin : 1) : 0, 0);
  cf_cli_json_num("wall_s", w->wall_s, 0);
  json_model(&w->model);
  printf("}");
}

static void fit_json(const cf_res_fit *f) {
  const char *k[] = {"start_delta", "start_alpha", "delta", "alpha", "f_start_cm", "f_best_cm", "train_t0_s",
                     "train_t1_s", "error_train_cm", "std_train_cm", "error_test_cm", "std_test_cm",
                     "error_all_cm", "std_all_cm"};
  const double v[] = {f->start[0], f->start[1], f->x[0], f->x[1], f->f_start, f->f_best, f->train_t0_s,
                      f->train_t1_s, f->e_train, f->s_train, f->e_test, f->s_test, f->e_all, f->s_all};
  printf(",\"fit\":{");
  cf_cli_json_str("method", f->method, 1);
  cf_cli_json_num("mu", f->n_params > 2 ? f->x[2] : NAN, 0);
  cf_cli_json_num("start_mu", f->n_params > 2 ? f->start[2] : NAN, 0);
  cf_cli_json_str("start", f->start_kind, 0);
  for (int i = 0; i < 14; i++) cf_cli_json_num(k[i], v[i], 0);
  json_int("evaluations", f->evaluations), json_int("iterations", f->iterations);
  printf(",\"converged\":%s", f->converged ? "true" : "false");
  json_int("failed_evaluations", f->failed_evaluations);
  cf_cli_json_str("failure", f->failure[0] ? f->failure : NULL, 0);
  cf_cli_json_str("starts_tried", f->starts_tried, 0);
  cf_cli_json_polish(f);
  json_model(&f->model);
  printf("}");
}

static void rec_json(const cf_res_rec *c, int first) {
  printf("%s{", first ? "" : ",");
  cf_cli_json_str("name", c->name, 1);
  cf_cli_json_str("recording", c->recording, 0);
  cf_cli_json_str("material", c->meta.material, 0);
  cf_cli_json_str("size", c->meta.size, 0);
  cf_cli_json_str("motion", c->meta.motion, 0);
  cf_cli_json_str("speed", c->meta.speed, 0);
  json_int("frames", c->frames);
  const char *k[] = {"dt", "rho", "S", "V", "truth_delta", "truth_alpha"};
  const double v[] = {c->dt, c->rho, c->S, c->V, c->truth_delta, c->truth_alpha};
  for (int i = 0; i < 6; i++) cf_cli_json_num(k[i], v[i], 0);
  if (has_grid(c)) sweep_json(c);
  else printf(",\"sweep\":null");
  if (c->has_fit) fit_json(&c->fit);
  else printf(",\"fit\":null");
  if (c->has_series) json_int("series_frames", c->series.T);
  else printf(",\"series_frames\":null");
  printf(",\"series_markers\":%s", c->has_series && c->series.simulated ? "true" : "false");
  if (c->has_sens) {
    printf(",\"sensitivity\":{");
    cf_cli_json_str("kind", c->sens.kind, 1);
    json_int("n_delta", c->sens.nd), json_int("n_alpha", c->sens.na), json_int("n_mu", c->sens.nm);
    cf_cli_json_num("at_delta", c->sens.at_delta, 0);
    cf_cli_json_num("at_alpha", c->sens.at_alpha, 0);
    printf("}");
  } else {
    printf(",\"sensitivity\":null");
  }
  if (c->has_compare) {
    printf(",\"compare\":{");
    cf_cli_json_num("models_compared", c->compare.n, 1);
    cf_cli_compare_json(&c->compare);
    printf("}");
  } else {
    printf(",\"compare\":null");
  }
  printf("}");
}

static void reg_json(const cf_res_regression *g) {
  if (!g->has) {
    printf(",\"regression\":null");
    return;
  }
  printf(",\"regression\":{\"recordings\":[");
  for (int i = 0; i < g->n_used; i++) printf("%s", i ? "," : ""), cf_cli_json_string(stdout, g->used[i]);
  printf("]");
  json_array("delta_coefficients", g->f.d, 4);
  json_array("alpha_coefficients", g->f.a, 4);
  json_array("delta_coefficients_start", g->f_start.d, 4);
  json_array("alpha_coefficients_start", g->f_start.a, 4);
  cf_cli_json_num("R_cm", g->R, 0);
  cf_cli_json_num("R_start_cm", g->R_start, 0);
  cf_cli_json_num("E_cm", g->E, 0);
  json_int("evaluations", g->evaluations), json_int("iterations", g->iterations);
  json_model(&g->model);
  printf("}");
}

/* ------------------------------------------------------------------ entry */
int cf_cli_inspect_results(const char *path, int json) {
  cf_results r;
  cf_error err = {0, ""};
  if (cf_results_read(path, &r, &err)) return cf_cli_fail("inspect", "%s", err.msg);
  prov_text(path, &r);
  for (int i = 0; i < r.n; i++) rec_text(&r.recs[i]);
  if (r.reg.has) reg_text(&r.reg);
  if (json) {
    printf("{");
    prov_json(path, &r);
    printf(",\"recordings\":[");
    for (int i = 0; i < r.n; i++) rec_json(&r.recs[i], i == 0);
    printf("]");
    reg_json(&r.reg);
    printf("}\n");
  }
  cf_results_free(&r);
  return 0;
}
