/* cmd_simulate.c — `clothfit simulate CONFIG -o OUT.h5 [--json]`: simulate
 * a scenario (cf_pipeline_scenario_run), write its trajectories and print
 * the run's summary (text, then the JSON line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"
#include "fit_cli.h"

typedef struct {
  const char *out, *sens;
} sim_opts;

static const cf_cli_option options[] = {CF_CLI_VALUE("-o", sim_opts, out),
                                        CF_CLI_VALUE("--sensitivities", sim_opts, sens), CF_CLI_END};

/* --sensitivities LIST: its parameters into theta[*np] (none without the
 * option).  0, or the exit status after the error line. */
static int sens_list(const char *list, int *theta, int *np) {
  *np = 0;
  if (!list) return 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = 0;
    while (k < CF_THETA_COUNT && strcmp(t, cf_theta_name(k))) k++;
    for (int j = 0; j < *np && k < CF_THETA_COUNT; j++)
      if (theta[j] == k) k = CF_THETA_COUNT;
    if (k == CF_THETA_COUNT)
      return cf_cli_fail("simulate", "--sensitivities '%s': '%s' is not one of delta, alpha, kappa, beta, or "
                         "is given twice", list, t);
    theta[(*np)++] = k;
  }
  if (*np == 0)
    return cf_cli_fail("simulate", "--sensitivities '%s': expected a comma-separated list of delta, alpha, kappa, "
                       "beta", list);
  return 0;
}

/* The summary of the run. */
typedef struct {
  double wall, max_violation, it_per_step, fact_per_step, sub_per_step, cg_per_step;
  int threads;
  cf_area_error area_max;
  long steps;
  cf_sim_stats st;
} sim_summary;

static void print_text(const char *cfg, const char *out, const cf_pipeline_scenario_sim *r, const sim_summary *s,
                       const int *theta, int nsens) {
  const cf_scenario *sc = &r->sc;
  const double *xl = r->pos + 3 * (size_t)r->mesh->n_nodes * (r->T - 1);
  int lc = 0; /* lowest node at the end */
  for (int i = 1; i < r->mesh->n_nodes; i++)
    if (xl[3 * i + 2] < xl[3 * lc + 2]) lc = i;
  printf("scenario          %s (%s)\n", sc->name, cfg);
  printf("mesh              %d nodes, %d %s, %d kinematic\n", r->mesh->n_nodes, r->mesh->n_elems,
         r->mesh->nv == 4 ? "quads" : "triangles", r->n_kin);
  printf("steps             %ld x dt %.4g s = %.3g s simulated\n", s->steps, sc->params.dt, s->steps * sc->params.dt);
  printf("wall time         %.1f ms (%.1f us/step%s)\n", 1e3 * s->wall, 1e6 * s->wall / (s->steps ? s->steps : 1),
         s->threads > 1 ? ", 2 threads" : "");
  printf("projection        %.2f iterations/step, %.2f factorizations/step\n", s->it_per_step, s->fact_per_step);
  if (s->sub_per_step > 0 || s->cg_per_step > 0) /* fine meshes: shorter steps, inexact Newton (cf_sim.h) */
    printf("                  %.2f substeps/step, %.2f preconditioned CG iterations/step\n", s->sub_per_step,
           s->cg_per_step);
  if (sc->n_obstacles > 0 || sc->contact.self) {
    const cf_sim_stats *c = &s->st;
    printf("contacts          %d obstacles, %s; %ld of %ld steps in contact, %.2f iterations and %.2f %s each\n",
           sc->n_obstacles, sc->contact.solver == CF_CONTACT_IPOPT ? "Ipopt" : "active set", c->contact_steps, s->steps,
           c->contact_steps ? (double)c->contact_iterations / c->contact_steps : 0.0,
           c->contact_steps ? (double)c->active_set_iterations / c->contact_steps : 0.0,
           sc->contact.solver == CF_CONTACT_IPOPT ? "interior-point iterations" : "active-set solves");
    printf("                  rows in %ld, out %ld (%ld dependent, %ld exchanges); %ld factorizations, %ld updates, "
           "%ld analyses; min clearance %.3g m\n", c->rows_in, c->rows_out, c->contact_dependent, c->contact_exchanges,
           c->contact_factorizations, c->contact_updates, c->contact_analyses, c->min_clearance);
  }
  printf("max violation     %.3g (tol %.3g)\n", s->max_violation, sc->params.tol);
  printf("area error max    total %.3f %%, mean element %.3f %%\n", 100 * s->area_max.total, 100 * s->area_max.mean);
  printf("lowest node end   %d at (%.4f, %.4f, %.4f) m\n", lc, xl[3 * lc], xl[3 * lc + 1], xl[3 * lc + 2]);
  if (nsens) {
    printf("sensitivities     ");
    for (int j = 0; j < nsens; j++) printf("%s%s", j ? ", " : "", cf_theta_name(theta[j]));
    printf(out ? " (/nodes/sensitivity/ of the output)\n" : " (no output file: not written)\n");
  }
  if (out) printf("output            %s\n", out);
}

static void print_json(const char *out, const cf_pipeline_scenario_sim *r, const sim_summary *s) {
  const cf_scenario *sc = &r->sc;
  json_t *j = json_object();
  cf_cli_json_str(j, "scenario", sc->name);
  const char *k1[] = {"nodes", "steps", "wall_s", "iterations_per_step", "factorizations_per_step", "max_violation",
                      "area_error_total_max", "area_error_mean_max", "threads", "obstacles"};
  const double v1[] = {r->mesh->n_nodes, s->steps, s->wall, s->it_per_step, s->fact_per_step, s->max_violation,
                       s->area_max.total, s->area_max.mean, s->threads, sc->n_obstacles};
  cf_cli_json_numbers(j, k1, v1, sizeof v1 / sizeof v1[0]);
  cf_cli_json_str(j, "contact_solver", sc->contact.solver == CF_CONTACT_IPOPT ? "ipopt" : "active-set");
  const char *k2[] = {"contact_steps", "contact_iterations", "active_set_iterations", "rows_in", "rows_out",
                      "dependent_rows", "exchanges", "self_restarts", "contact_factorizations", "contact_updates",
                      "contact_analyses", "min_clearance"};
  const double v2[] = {s->st.contact_steps, s->st.contact_iterations, s->st.active_set_iterations, s->st.rows_in,
                       s->st.rows_out, s->st.contact_dependent, s->st.contact_exchanges, s->st.self_restarts,
                       s->st.contact_factorizations, s->st.contact_updates, s->st.contact_analyses, s->st.min_clearance};
  cf_cli_json_numbers(j, k2, v2, sizeof v2 / sizeof v2[0]);
  cf_cli_json_str(j, "output", out);
  cf_cli_json_print(j);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  const char *cfg = c->pos[0], *out = ((const sim_opts *)opts)->out;
  int theta[CF_THETA_COUNT], nsens;
  int a = sens_list(((const sim_opts *)opts)->sens, theta, &nsens);
  if (a) return a;
  cf_error err = {0, ""};
  cf_pipeline_scenario_sim r;
  memset(&r, 0, sizeof r);
  cf_cli_bar bar;
  cf_cli_bar_stages(&bar);
  int rc = cf_pipeline_scenario_run_sens(cfg, &bar.pp, nsens, theta, &r, &err);
  const cf_scenario sc = r.sc;
  if (!rc && out) {
    const char *pn[CF_TRAJECTORY_PARAMS];
    double pv[CF_TRAJECTORY_PARAMS];
    int np = cf_trajectory_params(&sc.params, pn, pv);
    const char *sn[CF_THETA_COUNT];
    for (int j = 0; j < nsens; j++) sn[j] = cf_theta_name(theta[j]);
    cf_trajectory tr = {r.mesh->n_nodes, r.mesh->n_elems, r.mesh->nv, r.mesh->x, r.mesh->elems, r.T, r.time, r.pos,
                        r.viol, r.iters, np, pn, pv, sc.text, sc.name, nsens, sn, r.dpos};
    rc = cf_h5_write_trajectory(out, &tr, &err);
  }
  if (rc) {
    cf_pipeline_scenario_sim_free(&r);
    return cf_cli_fail("simulate", "%s", err.msg);
  }
  const cf_sim_stats *st = &r.st;
  sim_summary su = {r.wall, st->max_violation, st->steps ? (double)st->iterations / st->steps : 0,
                    st->steps ? (double)st->factorizations / st->steps : 0,
                    st->steps ? (double)st->substeps / st->steps : 0,
                    st->steps ? (double)st->cg_iterations / st->steps : 0, st->threads, r.area_max, st->steps, *st};
  print_text(cfg, out, &r, &su, theta, nsens);
  if (c->json) print_json(out, &r, &su);
  cf_pipeline_scenario_sim_free(&r);
  return 0;
}

const cf_cli_command cf_cli_cmd_simulate = {
    .name = "simulate", .summary = "simulate a cloth from a config file, write trajectories to HDF5",
    .help = cf_cli_help_simulate, .options = options, .opts_size = sizeof(sim_opts), .max_pos = 1,
    .needs = "CONFIG.ini", .run = run_cmd};
