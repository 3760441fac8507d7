/* scenario_run.c — a scenario (CONFIG.ini, cf_scenario of src/study)
 * simulated from its rest state with its driven nodes moving as its drive
 * says (cf_pipeline.h "scenario"): what `clothfit simulate` writes and the
 * Python module's simulate_scenario returns.
 *
 * Computes: the node trajectories [T][n][3] (m) at t = k dt, k < T =
 * round(duration / dt) + 1, the projection's constraint violation and
 * iterations per frame, the largest area errors, and the simulator's
 * counters at the end.
 * Ownership: the scenario read from its file, the run's arrays and mesh
 * are malloc'ed into the caller's cf_pipeline_scenario_sim and released by
 * cf_pipeline_scenario_sim_free (also after an error).
 * Failure: the scenario's errors (file, line and key), CF_ENOMEM, or the simulator's code with its message ("step N
 * ..."); the frames simulated before a failed step stay in the run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

void cf_pipeline_scenario_sim_free(cf_pipeline_scenario_sim *r) {
  if (r->loaded) cf_scenario_free(&r->sc);
  cf_mesh_free(r->mesh);
  free(r->kin);
  free(r->time);
  free(r->pos);
  free(r->viol);
  free(r->iters);
  free(r->dpos);
  memset(r, 0, sizeof *r);
}

/* The frame-k sensitivities of s into r->dpos. */
static void keep_sens(cf_pipeline_scenario_sim *r, const cf_sim *s, int k) {
  size_t n3 = 3 * (size_t)r->mesh->n_nodes, fr = n3 * (size_t)r->T;
  for (int j = 0; j < r->np; j++) memcpy(r->dpos + fr * j + n3 * k, cf_sim_dx(s, j), sizeof(double) * n3);
}

int cf_pipeline_scenario_run(const char *config, const cf_pipeline_progress *pr, cf_pipeline_scenario_sim *r,
                             cf_error *err) {
  return cf_pipeline_scenario_run_sens(config, pr, 0, NULL, r, err);
}

int cf_pipeline_scenario_run_sens(const char *config, const cf_pipeline_progress *pr, int np, const int *theta,
                                  cf_pipeline_scenario_sim *r, cf_error *err) {
  memset(r, 0, sizeof *r);
  int rc = cf_scenario_load(config, &r->sc, err);
  r->loaded = 1; /* a failed load may hold the file's text */
  if (rc) return rc;
  const cf_scenario *sc = &r->sc;
  rc = cf_scenario_mesh(sc, &r->mesh, &r->kin, &r->n_kin, err);
  if (rc) return rc;
  int n = r->mesh->n_nodes;
  double dt = sc->params.dt;
  r->T = (int)floor(sc->duration / dt + 0.5) + 1;
  r->time = malloc(sizeof(double) * r->T);
  r->pos = malloc(sizeof(double) * 3 * (size_t)n * r->T);
  r->viol = calloc((size_t)r->T, sizeof(double));
  r->iters = calloc((size_t)r->T, sizeof(int));
  double *kin0 = malloc(sizeof(double) * 3 * (r->n_kin + 1)), *kp = malloc(sizeof(double) * 3 * (r->n_kin + 1));
  double *a0 = malloc(sizeof(double) * r->mesh->n_elems);
  r->np = np;
  if (np > 0) memcpy(r->theta, theta, sizeof(int) * (size_t)np);
  if (np > 0) r->dpos = calloc(3 * (size_t)n * r->T * np, sizeof(double));
  if (!r->time || !r->pos || !r->viol || !r->iters || !kin0 || !kp || !a0 || (np > 0 && !r->dpos)) {
    free(a0), free(kin0), free(kp);
    return cf_error_set(err, CF_ENOMEM, "out of memory for %d frames of %d nodes", r->T, n);
  }
  cf_mesh_element_areas(r->mesh, r->mesh->x, a0);
  for (int k = 0; k < r->n_kin; k++) memcpy(kin0 + 3 * k, r->mesh->x + 3 * r->kin[k], 3 * sizeof(double));
  cf_sim *s = cf_sim_alloc(r->mesh, &sc->params, r->kin, r->n_kin, err);
  if (s && (sc->n_obstacles > 0 || sc->contact.self) && cf_sim_set_obstacles(s, sc->obstacles, sc->n_obstacles, &sc->contact, err)) {
    cf_sim_free(s);
    s = NULL;
  }
  if (s && np > 0 && cf_sim_set_sensitivities(s, theta, np, err)) {
    cf_sim_free(s);
    s = NULL;
  }
  if (!s) {
    free(a0), free(kin0), free(kp);
    return err && err->code ? err->code : CF_EINVAL;
  }
  memcpy(r->pos, cf_sim_x(s), sizeof(double) * 3 * n);
  r->time[0] = 0;
  cf_pl_stage(pr, "simulate", r->T - 1);
  double t0 = cf_fit_now();
  for (int k = 1; k < r->T && rc == CF_OK; k++) {
    cf_drive_eval(&sc->drive, r->n_kin, kin0, k * dt, kp);
    rc = cf_sim_step(s, kp, err);
    if (rc) break;
    r->time[k] = k * dt;
    memcpy(r->pos + 3 * (size_t)n * k, cf_sim_x(s), sizeof(double) * 3 * n);
    if (np > 0) keep_sens(r, s, k);
    cf_sim_stats st = cf_sim_get_stats(s);
    r->viol[k] = st.last_violation;
    r->iters[k] = st.last_iterations;
    cf_area_error ae = cf_mesh_area_error(r->mesh, a0, cf_sim_x(s));
    if (ae.total > r->area_max.total) r->area_max.total = ae.total;
    if (ae.mean > r->area_max.mean) r->area_max.mean = ae.mean;
    if (ae.dispersion > r->area_max.dispersion) r->area_max.dispersion = ae.dispersion;
    r->area_final = ae;
    cf_pl_update(pr, k);
  }
  cf_pl_stage(pr, NULL, 0);
  r->wall = cf_fit_now() - t0;
  r->st = cf_sim_get_stats(s);
  cf_sim_free(s);
  free(a0), free(kin0), free(kp);
  return rc;
}
