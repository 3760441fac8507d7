/* results_h5.c — results files in HDF5 (docs/design.md §6):
 *   /                      attrs clothfit_format = "results-1"
 *   /provenance            attrs tool_version, git_revision, hostname,
 *                          start_time, end_time, command, workers, ranks
 *                          and hosts (of an mpirun run), shard
 *                          ("I/N" of a `sweep --shard`, else ""), task_key (hash
 *                          of what a sweep depends on), config
 *                          (the experiment config text, if any), history
 *                          (earlier runs that wrote the file, one a line)
 *   /recordings/<stem>     one group per recording (file stem), in the order
 *                          written; attrs recording, material, size, motion,
 *                          speed, repetition, width_m, height_m, density, rho,
 *                          S, V, dt, duration_s, frames, truth_delta,
 *                          truth_alpha (NaN = unknown); what the driven
 *                          simulation changed of the recording
 *                          (docs/driving.md, docs/start.md):
 *                          start_residual_mean_m, start_residual_max_m
 *                          (the first frame's markers from the fitted
 *                          start), start_residual_marker, held_noise_m
 *                          (the held points' noise per coordinate),
 *                          held_smoothing_frames (1: not smoothed),
 *                          held_smoothed_max_m, held_pulled_frames,
 *                          held_pull_max_m, held_pull_frame (NaN or 0 in
 *                          older files)
 *     sweep/               delta [nd], alpha [na], error [nd,na] (cm, inf
 *                          where failed), std [nd,na] (cm), status [nd,na]
 *                          (0 ok, else the failure code CF_E*), reason
 *                          [nd*na] (failure message "step N (t = X s): ..."
 *                          or ""), pruned [nd,na] (1: error is a lower bound)
 *                          — the failed-point map, written for every point;
 *                          with a mu axis (sweep --mu-grid) also mu [nm],
 *                          and error, std, status, pruned are [nm,nd,na],
 *                          reason [nm*nd*na], attr best_mu, and the model
 *                          setting mu is the best point's;
 *                          attrs best_index (-1: none), best_delta,
 *                          best_alpha, best_error, best_std, window_t0_s,
 *                          window_t1_s (0: to the end), wall_s, workers, prune,
 *                          prune_margin (0: not pruned),
 *                          the model settings (below), and with sweep
 *                          --confidence those of fit/ (confidence ..
 *                          identifiable_why) around the best grid point
 *     fit/                 attrs method ("nelder-mead"), start ("grid" |
 *                          "apriori" | "given" | "centre"), n_params, start_delta,
 *                          start_alpha, delta, alpha, mu (NaN: not fitted),
 *                          f_start, f_best, train_t0_s, train_t1_s,
 *                          error_train, std_train, error_test, std_test,
 *                          error_all, std_all, evaluations, iterations,
 *                          converged, failed_evaluations (simulations that
 *                          failed), failure (the first one's message),
 *                          starts_tried ("given grid": the starts tried, the
 *                          last used), optimum_failure (the whole recording
 *                          at the optimum failed: why; ""), model settings;
 *                          confidence (1: computed), delta_lo, delta_hi,
 *                          alpha_lo, alpha_hi (95 % intervals), identifiable
 *                          (1, 0 or -1: unknown), identifiable_why,
 *                          kappa_shift_delta, kappa_shift_alpha (the
 *                          fit's move refitted with kappa x3, fractions;
 *                          NaN: not checked; absent in older files),
 *                          beta_shift_delta, beta_shift_alpha (the same
 *                          with beta = kappa x the window's length),
 *                          beta_checked (that beta; NaN: not checked),
 *                          rest_shift_delta, rest_shift_alpha (the same
 *                          with the other rest metric; absent in older
 *                          files), mesh_shift_delta, mesh_shift_alpha (the
 *                          same on the mesh one split finer; absent in
 *                          older files), sys_delta, sys_alpha (the
 *                          systematic half-widths in the intervals; NaN in
 *                          older files: noise only), stretch_edges,
 *                          stretch_diagonals (the recorded cloth's median
 *                          largest excess over its flat-sheet distances;
 *                          NaN: not checked), model_limited (1: it stretches
 *                          or shears, so the model sets the error),
 *                          better_model (the cloth model that fits it better;
 *                          ""), better_e_test (its testing error, cm);
 *                          polish ("quadratic" | "none"; absent in older
 *                          files), polished (1: delta, alpha, mu are the
 *                          quadratic's minimum), polish_evaluations,
 *                          nm_delta, nm_alpha, nm_mu (Nelder-Mead's
 *                          optimum), f_nm (its training error), polish_rms,
 *                          polish_why (why not polished, "");
 *                          simulations (every simulation of the fit, its
 *                          confidence checks and a first fit it replaced
 *                          included, the grid's not; absent in older files);
 *                          path [n,4] (delta, alpha, mu, f: best vertex
 *                          after each simplex iteration)
 *     series/              e, s, d [T] (cm, per frame at the optimum, with
 *                          the fit's model settings); recorded, simulated
 *                          [T,K,3] (m, float32, the markers in lattice order:
 *                          as fitted, and simulated at the optimum; absent
 *                          in older files); contacts [T] (contact rows of
 *                          the cloth with the recording's table or stick
 *                          in the working set at each frame: nodes, and
 *                          edges and triangles on the stick; only for
 *                          recordings with a table or a stick); attrs
 *                          dt, delta, alpha, rows, cols (the lattice,
 *                          K = rows*cols; 0 if absent)
 *     sensitivity/         delta [nd], alpha [na], error, std, status
 *                          [nd,na], reason [nd*na] (absent in older files);
 *                          kind "mu" (a scan of the friction): also mu [nm],
 *                          the grids [nm,1,1], reason [nm];
 *                          attrs kind ("map" | "delta" | "alpha" | "mu"),
 *                          at_delta, at_alpha, model settings
 *     compare/             `clothfit compare`: attrs train_t0_s, train_t1_s,
 *                          test_t0_s, test_t1_s, start_delta, start_alpha,
 *                          model settings; a group per model compared, named
 *                          after it ("inextensible", "quasi-inextensible",
 *                          "elastic", "mass-spring"), attrs model, status,
 *                          reason, delta, alpha, k_stretch, k_shear, k_bend
 *                          (N/m, NaN: not the model's), fitted (the
 *                          parameters fitted), error_train, error_test,
 *                          std_test, max_d_test (cm), wall_s,
 *                          iterations_per_step, evaluations, converged,
 *                          fit_wall_s
 *     remesh/              the fit's (delta, alpha) rerun on other meshes of
 *                          the recording (`experiment wam`, thesis §4.1.5):
 *                          attrs delta, alpha, test_t0_s, test_t1_s, model
 *                          settings (the fit's); a group per mesh, named
 *                          after its nodes ("9x17": rows x columns), attrs
 *                          mesh (the same), split_rows, split_cols (the
 *                          recording's cells split down, across), node_rows,
 *                          node_cols, status, reason, error_test, std_test
 *                          (cm, the testing window; inf where failed),
 *                          fit_reused (1: the fit's own mesh, its testing
 *                          error the fit's)
 *   /regression            attrs d0..d3, a0..a3 (fitted), d0_start..a3_start
 *                          (least squares), R, R_start, E (cm), evaluations,
 *                          iterations, search ("model" or "nelder-mead";
 *                          older files: "nelder-mead"), simulations (0 in
 *                          older files), model settings; recordings [n] (group
 *                          names), error_formula [n] (cm: each recording's
 *                          error with the fitted formula's parameters, inf
 *                          where its simulation failed; absent in older
 *                          files)
 * Model settings (what a part was computed with, so that it can be
 * reproduced): attrs kappa, beta (held fixed), tol (the projection's
 * relative tolerance) and max_iter (its iterations per step before a
 * simulation fails), cloth_model and its stiffnesses k_stretch, k_shear,
 * k_bend (N/m, NaN: not the model's; a fit's: at its optimum, the fitted
 * ones named by the fit's attr stiffness_fitted; a fit's kappa and beta:
 * at its optimum when its attrs kappa_fitted, beta_fitted are 1), rest_metric
 * ("first-frame", "flat" or "size"), mesh_split (the lattice's cells split
 * N x N), substeps (simulation steps per recorded frame), start_state
 * ("rest" or "moving"), mesh_split_cols (the cells' split across when it
 * differs from mesh_split, which is then the split down; 0: uniform);
 * parts of files written before they were recorded read as the defaults
 * every run used then (0, 0, 1e-3, 50, inextensible, first-frame, 2, 1,
 * rest, 0).
 * Written whole and atomically (temporary name + rename); read back by
 * results_read.c.  Attributes are described once, in tables shared by the
 * writer and the reader (results_fields.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "results_fields.h"

#define FORMAT "results-1"

/* ------------------------------------------------------- attribute tables */
#define FD(st, key, m) {key, offsetof(st, m), 'd', 0}
#define FI(st, key, m) {key, offsetof(st, m), 'i', 0}
#define FS(st, key, m) {key, offsetof(st, m), 's', sizeof(((st *)0)->m)}
/* The model settings (cf_res_model m) of a part. */
#define FM(st, m)                                                                                          \
  FD(st, "kappa", m.kappa), FD(st, "beta", m.beta), FD(st, "tol", m.tol), FI(st, "max_iter", m.max_iter),   \
      FD(st, "mu_held", m.mu), FS(st, "cloth_model", m.cloth), FD(st, "k_stretch", m.k_stretch),           \
      FD(st, "k_shear", m.k_shear), FD(st, "k_bend", m.k_bend), FS(st, "rest_metric", m.rest), \
      FI(st, "mesh_split", m.split), FI(st, "substeps", m.substeps), FS(st, "start_state", m.start),    \
      FI(st, "mesh_split_cols", m.split_cols)
/* a cf_res_conf (the confidence of an optimum), in fit/ and sweep/ alike */
#define FC(st, c)                                                                                        \
  FI(st, "confidence", c.done), FD(st, "delta_lo", c.delta[0]), FD(st, "delta_hi", c.delta[1]),          \
      FD(st, "alpha_lo", c.alpha[0]), FD(st, "alpha_hi", c.alpha[1]), FI(st, "identifiable", c.identifiable), \
      FS(st, "identifiable_why", c.why), FD(st, "kappa_shift_delta", c.kappa_shift[0]),                    \
      FD(st, "kappa_shift_alpha", c.kappa_shift[1]), FD(st, "beta_shift_delta", c.beta_shift[0]),          \
      FD(st, "beta_shift_alpha", c.beta_shift[1]), FD(st, "beta_checked", c.beta_checked),            \
      FD(st, "rest_shift_delta", c.rest_shift[0]), FD(st, "rest_shift_alpha", c.rest_shift[1]),            \
      FD(st, "mesh_shift_delta", c.mesh_shift[0]), FD(st, "mesh_shift_alpha", c.mesh_shift[1]),            \
      FI(st, "kappa_check_skipped", c.kappa_fitted), FI(st, "beta_check_skipped", c.beta_fitted),          \
      FD(st, "sys_delta", c.sys[0]), FD(st, "sys_alpha", c.sys[1]), FD(st, "stretch_edges", c.stretch_edges), \
      FD(st, "stretch_diagonals", c.stretch_diagonals), FI(st, "model_limited", c.model_limited),          \
      FS(st, "better_model", c.better_model), FD(st, "better_e_test", c.better_e_test)

const cf_res_field cf_res_rec_fields[] = {
    FS(cf_res_rec, "recording", recording),     FS(cf_res_rec, "material", meta.material),
    FS(cf_res_rec, "size", meta.size),          FS(cf_res_rec, "motion", meta.motion),
    FS(cf_res_rec, "speed", meta.speed),        FS(cf_res_rec, "repetition", meta.repetition),
    FD(cf_res_rec, "width_m", meta.width_m),    FD(cf_res_rec, "height_m", meta.height_m),
    FD(cf_res_rec, "density", meta.density),    FD(cf_res_rec, "rho", rho),
    FD(cf_res_rec, "S", S),                     FD(cf_res_rec, "V", V),
    FD(cf_res_rec, "dt", dt),                   FD(cf_res_rec, "duration_s", duration),
    FI(cf_res_rec, "frames", frames),           FD(cf_res_rec, "truth_delta", truth_delta),
    FD(cf_res_rec, "truth_alpha", truth_alpha),
    FD(cf_res_rec, "start_residual_mean_m", drive.start_mean_m),
    FD(cf_res_rec, "start_residual_max_m", drive.start_max_m),
    FI(cf_res_rec, "start_residual_marker", drive.start_marker),
    FD(cf_res_rec, "held_noise_m", drive.noise_m),
    FI(cf_res_rec, "held_smoothing_frames", drive.window),
    FD(cf_res_rec, "held_smoothed_max_m", drive.smooth_max_m),
    FI(cf_res_rec, "held_pulled_frames", drive.pulled_frames),
    FD(cf_res_rec, "held_pull_max_m", drive.pull_max_m),
    FI(cf_res_rec, "held_pull_frame", drive.pull_frame), {NULL, 0, 0, 0}};

const cf_res_field cf_res_sweep_fields[] = {
    FI(cf_res_sweep, "best_index", best),     FD(cf_res_sweep, "window_t0_s", t0_s),
    FD(cf_res_sweep, "window_t1_s", t1_s),    FD(cf_res_sweep, "wall_s", wall_s),
    FI(cf_res_sweep, "workers", workers),     FI(cf_res_sweep, "prune", prune),
    FD(cf_res_sweep, "prune_margin", prune_margin),
    FM(cf_res_sweep, model),                  FC(cf_res_sweep, conf),
    {NULL, 0, 0, 0}};

const cf_res_field cf_res_fit_fields[] = {
    FS(cf_res_fit, "method", method),            FS(cf_res_fit, "start", start_kind),
    FI(cf_res_fit, "n_params", n_params),        FD(cf_res_fit, "start_delta", start[0]),
    FD(cf_res_fit, "start_alpha", start[1]),     FD(cf_res_fit, "delta", x[0]),
    FD(cf_res_fit, "alpha", x[1]),               FD(cf_res_fit, "mu", x[2]),
    FD(cf_res_fit, "f_start", f_start),          FD(cf_res_fit, "f_best", f_best),
    FD(cf_res_fit, "train_t0_s", train_t0_s),    FD(cf_res_fit, "train_t1_s", train_t1_s),
    FD(cf_res_fit, "error_train", e_train),      FD(cf_res_fit, "std_train", s_train),
    FD(cf_res_fit, "error_test", e_test),        FD(cf_res_fit, "std_test", s_test),
    FD(cf_res_fit, "error_all", e_all),          FD(cf_res_fit, "std_all", s_all),
    FI(cf_res_fit, "evaluations", evaluations),  FI(cf_res_fit, "iterations", iterations),
    FI(cf_res_fit, "converged", converged),      FM(cf_res_fit, model),
    FI(cf_res_fit, "failed_evaluations", failed_evaluations), FS(cf_res_fit, "failure", failure),
    FS(cf_res_fit, "starts_tried", starts_tried), FS(cf_res_fit, "optimum_failure", optimum_failure),
    FC(cf_res_fit, conf),                        FS(cf_res_fit, "polish", polish),
    FI(cf_res_fit, "polished", polished),        FI(cf_res_fit, "polish_evaluations", polish_evaluations),
    FD(cf_res_fit, "nm_delta", nm_x[0]),         FD(cf_res_fit, "nm_alpha", nm_x[1]),
    FD(cf_res_fit, "nm_mu", nm_x[2]),            FD(cf_res_fit, "f_nm", f_nm),
    FD(cf_res_fit, "polish_rms", polish_rms),    FS(cf_res_fit, "polish_why", polish_why),
    FS(cf_res_fit, "stiffness_fitted", stiffness), FI(cf_res_fit, "kappa_fitted", kappa_fitted),
    FI(cf_res_fit, "beta_fitted", beta_fitted),  FD(cf_res_fit, "start_kappa", start_kappa),
    FD(cf_res_fit, "start_beta", start_beta),    FS(cf_res_fit, "freed_why", freed_why),
    FI(cf_res_fit, "simulations", simulations),  {NULL, 0, 0, 0}};

const cf_res_field cf_res_series_fields[] = {
    FD(cf_res_series, "dt", dt), FD(cf_res_series, "delta", delta), FD(cf_res_series, "alpha", alpha),
    FI(cf_res_series, "rows", rows), FI(cf_res_series, "cols", cols), {NULL, 0, 0, 0}};

const cf_res_field cf_res_sens_fields[] = {
    FS(cf_res_sens, "kind", kind), FD(cf_res_sens, "at_delta", at_delta), FD(cf_res_sens, "at_alpha", at_alpha),
    FM(cf_res_sens, model),        {NULL, 0, 0, 0}};

const cf_res_field cf_res_reg_fields[] = {
    FD(cf_res_regression, "d0", f.d[0]),       FD(cf_res_regression, "d1", f.d[1]),
    FD(cf_res_regression, "d2", f.d[2]),       FD(cf_res_regression, "d3", f.d[3]),
    FD(cf_res_regression, "a0", f.a[0]),       FD(cf_res_regression, "a1", f.a[1]),
    FD(cf_res_regression, "a2", f.a[2]),       FD(cf_res_regression, "a3", f.a[3]),
    FD(cf_res_regression, "d0_start", f_start.d[0]), FD(cf_res_regression, "d1_start", f_start.d[1]),
    FD(cf_res_regression, "d2_start", f_start.d[2]), FD(cf_res_regression, "d3_start", f_start.d[3]),
    FD(cf_res_regression, "a0_start", f_start.a[0]), FD(cf_res_regression, "a1_start", f_start.a[1]),
    FD(cf_res_regression, "a2_start", f_start.a[2]), FD(cf_res_regression, "a3_start", f_start.a[3]),
    FD(cf_res_regression, "R", R),             FD(cf_res_regression, "R_start", R_start),
    FD(cf_res_regression, "E", E),             FI(cf_res_regression, "evaluations", evaluations),
    FI(cf_res_regression, "iterations", iterations), FI(cf_res_regression, "simulations", simulations),
    FS(cf_res_regression, "search", search),   FM(cf_res_regression, model), {NULL, 0, 0, 0}};

const cf_res_field cf_res_compare_fields[] = {
    FD(cf_res_compare, "train_t0_s", train_t0_s), FD(cf_res_compare, "train_t1_s", train_t1_s),
    FD(cf_res_compare, "test_t0_s", test_t0_s),   FD(cf_res_compare, "test_t1_s", test_t1_s),
    FD(cf_res_compare, "start_delta", start_delta), FD(cf_res_compare, "start_alpha", start_alpha),
    FM(cf_res_compare, model),                    {NULL, 0, 0, 0}};

const cf_res_field cf_res_compare_row_fields[] = {
    FS(cf_res_compare_row, "model", model),           FI(cf_res_compare_row, "status", status),
    FS(cf_res_compare_row, "reason", reason),         FD(cf_res_compare_row, "delta", delta),
    FD(cf_res_compare_row, "alpha", alpha),           FD(cf_res_compare_row, "k_stretch", k_stretch),
    FD(cf_res_compare_row, "k_shear", k_shear),       FD(cf_res_compare_row, "k_bend", k_bend),
    FS(cf_res_compare_row, "fitted", fitted),         FD(cf_res_compare_row, "error_train", e_train),
    FD(cf_res_compare_row, "error_test", e_test),     FD(cf_res_compare_row, "std_test", s_test),
    FD(cf_res_compare_row, "max_d_test", d_max_test), FD(cf_res_compare_row, "wall_s", wall_s),
    FD(cf_res_compare_row, "iterations_per_step", iters_per_step),
    FI(cf_res_compare_row, "evaluations", evaluations), FI(cf_res_compare_row, "converged", converged),
    FD(cf_res_compare_row, "fit_wall_s", fit_wall_s), {NULL, 0, 0, 0}};

const cf_res_rows cf_res_compare_rows = {"compare", cf_res_compare_fields, cf_res_compare_row_fields,
                                         sizeof(cf_res_compare_row), offsetof(cf_res_compare_row, model),
                                         sizeof(((cf_res_compare_row *)0)->model), CF_RES_COMPARE_MAX};

const cf_res_field cf_res_remesh_fields[] = {
    FD(cf_res_remesh, "delta", delta), FD(cf_res_remesh, "alpha", alpha), FD(cf_res_remesh, "test_t0_s", test_t0_s),
    FD(cf_res_remesh, "test_t1_s", test_t1_s), FM(cf_res_remesh, model), {NULL, 0, 0, 0}};

const cf_res_field cf_res_remesh_row_fields[] = {
    FS(cf_res_remesh_row, "mesh", mesh),           FI(cf_res_remesh_row, "split_rows", split[0]),
    FI(cf_res_remesh_row, "split_cols", split[1]), FI(cf_res_remesh_row, "node_rows", rows),
    FI(cf_res_remesh_row, "node_cols", cols),      FI(cf_res_remesh_row, "status", status),
    FS(cf_res_remesh_row, "reason", reason),       FD(cf_res_remesh_row, "error_test", e_test),
    FD(cf_res_remesh_row, "std_test", s_test),     FI(cf_res_remesh_row, "fit_reused", fit_reused),
    {NULL, 0, 0, 0}};

const cf_res_rows cf_res_remesh_rows = {"remesh", cf_res_remesh_fields, cf_res_remesh_row_fields,
                                        sizeof(cf_res_remesh_row), offsetof(cf_res_remesh_row, mesh),
                                        sizeof(((cf_res_remesh_row *)0)->mesh), CF_RES_REMESH_MAX};

const cf_res_field cf_res_prov_fields[] = {
    FS(cf_res_provenance, "tool_version", tool_version), FS(cf_res_provenance, "git_revision", git_revision),
    FS(cf_res_provenance, "hostname", hostname),         FS(cf_res_provenance, "start_time", start_time),
    FS(cf_res_provenance, "end_time", end_time),         FS(cf_res_provenance, "command", command),
    FI(cf_res_provenance, "workers", workers),           FI(cf_res_provenance, "ranks", ranks),
    FS(cf_res_provenance, "hosts", hosts),               FS(cf_res_provenance, "shard", shard),
    FS(cf_res_provenance, "task_key", task_key),         {NULL, 0, 0, 0}};

static int write_fields(hid_t obj, const void *base, const cf_res_field *f) {
  int ok = 1;
  for (; ok && f->name; f++) {
    const char *p = (const char *)base + f->off;
    if (f->kind == 'd') ok = cf_h5_attr_double(obj, f->name, *(const double *)p);
    else if (f->kind == 'i') ok = cf_h5_attr_int(obj, f->name, *(const int *)p);
    else ok = cf_h5_attr_string(obj, f->name, p);
  }
  return ok;
}

/* ------------------------------------------------------------------ write */
static int grid2(hid_t g, const char *name, hid_t type, int nd, int na, const void *v) {
  hsize_t d[2] = {(hsize_t)nd, (hsize_t)na};
  return cf_h5_dataset(g, name, type, 2, d, v);
}

static int vec(hid_t g, const char *name, int n, const double *v) {
  hsize_t d[1] = {(hsize_t)n};
  static const double none[1] = {0};
  if (n == 0) v = none;
  return cf_h5_dataset(g, name, H5T_NATIVE_DOUBLE, 1, d, v);
}

static int axes(hid_t g, int nd, const double *delta, int na, const double *alpha) {
  return vec(g, "delta", nd, delta) && vec(g, "alpha", na, alpha);
}

static int best_attrs(hid_t g, const cf_res_sweep *w) {
  int b = w->best;
  double d = NAN, a = NAN, mu = NAN;
  if (b >= 0) cf_res_sweep_at(w, b, &d, &a, &mu);
  return cf_h5_attr_double(g, "best_delta", d) && cf_h5_attr_double(g, "best_alpha", a) &&
         (w->nm == 0 || cf_h5_attr_double(g, "best_mu", mu)) &&
         cf_h5_attr_double(g, "best_error", b >= 0 ? w->e[b] : NAN) &&
         cf_h5_attr_double(g, "best_std", b >= 0 ? w->s[b] : NAN);
}

/* A [nd,na] grid, or [nm,nd,na] with a mu axis (nm > 0). */
static int grid3(hid_t g, const char *name, hid_t type, int nm, int nd, int na, const void *v) {
  hsize_t d[3] = {(hsize_t)nm, (hsize_t)nd, (hsize_t)na};
  return nm > 0 ? cf_h5_dataset(g, name, type, 3, d, v) : grid2(g, name, type, nd, na, v);
}

static int write_sweep(hid_t g, const void *part) {
  const cf_res_sweep *w = part;
  int m = w->nm, d = w->nd, a = w->na;
  return axes(g, d, w->delta, a, w->alpha) && (m == 0 || vec(g, "mu", m, w->mu)) &&
         grid3(g, "error", H5T_NATIVE_DOUBLE, m, d, a, w->e) && grid3(g, "std", H5T_NATIVE_DOUBLE, m, d, a, w->s) &&
         grid3(g, "status", H5T_NATIVE_INT, m, d, a, w->status) &&
         grid3(g, "pruned", H5T_NATIVE_UCHAR, m, d, a, w->pruned) &&
         cf_h5_strings(g, "reason", w->reason, (size_t)cf_res_sweep_points(w)) &&
         write_fields(g, w, cf_res_sweep_fields) && best_attrs(g, w);
}

static int write_fit(hid_t g, const void *part) {
  const cf_res_fit *f = part;
  hsize_t d[2] = {(hsize_t)f->n_path, 4};
  double none[4] = {0, 0, 0, 0};
  return write_fields(g, f, cf_res_fit_fields) &&
         cf_h5_dataset(g, "path", H5T_NATIVE_DOUBLE, 2, d, f->n_path ? f->path : none);
}

/* Marker positions [T,K,3] (m) as 32-bit floats, shuffled and deflated in
 * chunks of 256 frames when the deflate filter is available: they are for
 * figures (0.1 um at 1 m), and the file stays small (docs/report.md). */
static int markers(hid_t g, const char *name, int T, int K, const double *v) {
  hsize_t d[3] = {(hsize_t)T, (hsize_t)K, 3}, c[3] = {(hsize_t)(T < 256 ? T : 256), (hsize_t)K, 3};
  hid_t sp = H5Screate_simple(3, d, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
    H5Pset_chunk(pl, 3, c), H5Pset_shuffle(pl), H5Pset_deflate(pl, 4);
  hid_t ds = H5Dcreate2(g, name, H5T_IEEE_F32LE, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
  herr_t r = ds < 0 ? -1 : H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  if (ds >= 0) H5Dclose(ds);
  H5Pclose(pl), H5Sclose(sp);
  return r >= 0;
}

static int write_series(hid_t g, const void *part) {
  const cf_res_series *s = part;
  int K = s->rows * s->cols, pos = s->recorded && s->simulated && K > 0 && s->T > 0;
  return vec(g, "e", s->T, s->e) && vec(g, "s", s->T, s->s) && vec(g, "d", s->T, s->d) &&
         (!s->contacts || vec(g, "contacts", s->T, s->contacts)) && write_fields(g, s, cf_res_series_fields) &&
         (!pos || (markers(g, "recorded", s->T, K, s->recorded) && markers(g, "simulated", s->T, K, s->simulated)));
}

static int write_sens(hid_t g, const void *part) {
  const cf_res_sens *m = part;
  size_t n = (size_t)(m->nm > 0 ? m->nm : 1) * m->nd * m->na;
  return axes(g, m->nd, m->delta, m->na, m->alpha) && (m->nm == 0 || vec(g, "mu", m->nm, m->mu)) &&
         grid3(g, "error", H5T_NATIVE_DOUBLE, m->nm, m->nd, m->na, m->e) &&
         grid3(g, "std", H5T_NATIVE_DOUBLE, m->nm, m->nd, m->na, m->s) &&
         grid3(g, "status", H5T_NATIVE_INT, m->nm, m->nd, m->na, m->status) &&
         (!m->reason || cf_h5_strings(g, "reason", m->reason, n)) &&
         write_fields(g, m, cf_res_sens_fields);
}

typedef int (*part_writer)(hid_t g, const void *part);
static int write_part(hid_t parent, const char *name, int has, part_writer fn, const void *part);

/* A part of rows p (compare/, remesh/): head's attributes, then a subgroup
 * per row rows[0..n) named after it, listed in the order written (creation
 * order tracked). */
static int write_rows(hid_t parent, const cf_res_rows *p, int has, const void *head, const void *rows, int n) {
  if (!has) return 1;
  hid_t pl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_link_creation_order(pl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  hid_t g = H5Gcreate2(parent, p->group, H5P_DEFAULT, pl, H5P_DEFAULT);
  int ok = g >= 0 && write_fields(g, head, p->head);
  for (int i = 0; ok && i < n; i++) {
    const char *row = (const char *)rows + (size_t)i * p->row_size;
    hid_t s = H5Gcreate2(g, row + p->name_off, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok = s >= 0 && write_fields(s, row, p->row);
    if (s >= 0) H5Gclose(s);
  }
  if (g >= 0) H5Gclose(g);
  H5Pclose(pl);
  return ok;
}

/* Group `name` under parent written by fn (skipped when has == 0). */
static int write_part(hid_t parent, const char *name, int has, part_writer fn, const void *part) {
  if (!has) return 1;
  hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && fn(g, part);
  if (g >= 0) H5Gclose(g);
  return ok;
}

static int write_rec(hid_t parent, const cf_res_rec *r) {
  hid_t g = H5Gcreate2(parent, r->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && write_fields(g, r, cf_res_rec_fields) &&
           write_part(g, "sweep", r->has_sweep, write_sweep, &r->sweep) &&
           write_part(g, "fit", r->has_fit, write_fit, &r->fit) &&
           write_part(g, "series", r->has_series, write_series, &r->series) &&
           write_part(g, "sensitivity", r->has_sens, write_sens, &r->sens) &&
           write_rows(g, &cf_res_compare_rows, r->has_compare, &r->compare, r->compare.row, r->compare.n) &&
           write_rows(g, &cf_res_remesh_rows, r->has_remesh, &r->remesh, r->remesh.row, r->remesh.n);
  if (g >= 0) H5Gclose(g);
  return ok;
}

static int write_recordings(hid_t f, const cf_results *r) {
  hid_t pl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_link_creation_order(pl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  hid_t g = H5Gcreate2(f, "recordings", H5P_DEFAULT, pl, H5P_DEFAULT);
  int ok = g >= 0;
  for (int i = 0; ok && i < r->n; i++) ok = write_rec(g, &r->recs[i]);
  if (g >= 0) H5Gclose(g);
  H5Pclose(pl);
  return ok;
}

static int write_regression(hid_t g, const void *part) {
  const cf_res_regression *reg = part;
  return write_fields(g, reg, cf_res_reg_fields) && cf_h5_strings(g, "recordings", reg->used, (size_t)reg->n_used) &&
         (!reg->e_hat || vec(g, "error_formula", reg->n_used, reg->e_hat));
}

static int write_provenance(hid_t g, const void *part) {
  const cf_res_provenance *p = part;
  return write_fields(g, p, cf_res_prov_fields) && (!p->config_text || cf_h5_attr_string(g, "config", p->config_text)) &&
         (!p->history || cf_h5_attr_string(g, "history", p->history));
}

int cf_results_write(const char *path, cf_results *r, cf_error *err) {
  cf_iso_time_now(r->prov.end_time, sizeof r->prov.end_time);
  if (cf_io_ensure_parent(path, err)) return CF_EIO;
  char tmp[4200];
  cf_io_tmpname(path, tmp, sizeof tmp);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return cf_error_set(err, CF_EIO, "%s: cannot create the temporary file %s", path, tmp);
  int ok = cf_h5_attr_string(f, "clothfit_format", FORMAT) &&
           write_part(f, "provenance", 1, write_provenance, &r->prov) && write_recordings(f, r) &&
           write_part(f, "regression", r->reg.has, write_regression, &r->reg);
  ok = H5Fclose(f) >= 0 && ok;
  if (!ok) {
    cf_io_commit(tmp, path, 0, NULL);
    return cf_error_set(err, CF_EIO, "%s: writing the results failed (disk full or a bad group name?)", path);
  }
  return cf_io_commit(tmp, path, 1, err);
}
