/* cmd_simulate.c — `clothfit simulate CONFIG -o OUT.h5 [--json]`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"
#include "fit_cli.h"

static const char *help =
    "usage: clothfit simulate CONFIG.ini [-o OUT.h5] [--json] [--sensitivities LIST]\n"
    "\n"
    "Simulate the inextensible cloth of CONFIG (see experiments/shake_a2.ini for\n"
    "every key; obstacles, [obstacle.NAME] and [contact], in docs/contacts.md),\n"
    "write node trajectories to OUT.h5 (/time, /nodes/position, /mesh,\n"
    "/diagnostics; every parameter and the tool version as attributes) and print\n"
    "a summary.  --json: also a JSON object on the last line.\n"
    "--sensitivities LIST: also the forward sensitivities of the trajectory to\n"
    "the parameters in LIST (comma-separated, of delta, alpha, kappa, beta),\n"
    "written as /nodes/sensitivity/NAME (dX/dNAME, [T][n][3], every node at every\n"
    "frame).  Refused for what the simulator does not differentiate (obstacles,\n"
    "models other than the inextensible one, ks > 0, rest_bending, the predictor;\n"
    "docs/simulator.md, \"Forward sensitivities\").\n";

/* --sensitivities LIST out of argv (the rest into rest[], *nrest): its
 * parameters into theta[*np].  0, or the exit status after the error line. */
static int sens_option(int argc, char **argv, char **rest, int *nrest, int *theta, int *np) {
  *np = *nrest = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--sensitivities")) {
      rest[(*nrest)++] = argv[i];
      continue;
    }
    if (i + 1 >= argc) return cf_cli_fail("simulate", "--sensitivities: missing LIST (see --help)");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", argv[++i]);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      int k = 0;
      while (k < CF_THETA_COUNT && strcmp(t, cf_theta_name(k))) k++;
      for (int j = 0; j < *np && k < CF_THETA_COUNT; j++)
        if (theta[j] == k) k = CF_THETA_COUNT;
      if (k == CF_THETA_COUNT)
        return cf_cli_fail("simulate", "--sensitivities '%s': '%s' is not one of delta, alpha, kappa, beta, or "
                           "is given twice", argv[i], t);
      theta[(*np)++] = k;
    }
    if (*np == 0) return cf_cli_fail("simulate", "--sensitivities '%s': expected a comma-separated list of "
                                     "delta, alpha, kappa, beta", argv[i]);
  }
  rest[*nrest] = NULL;
  return 0;
}

int cmd_simulate(int argc, char **argv) {
  const char *cfg, *out;
  char **rest = malloc(sizeof(char *) * ((size_t)argc + 1));
  int theta[CF_THETA_COUNT], nsens, nrest, json;
  if (!rest) return cf_cli_fail("simulate", "out of memory");
  int a = sens_option(argc, argv, rest, &nrest, theta, &nsens);
  if (!a) a = cf_cli_config_args(nrest, rest, help, &cfg, &out, &json);
  free(rest);
  if (a) return a < 0 ? 0 : a;
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
  /* the summary of the run */
  const cf_sim_stats *st = &r.st;
  struct {
    double wall, max_violation, it_per_step, fact_per_step, sub_per_step, cg_per_step;
    int threads;
    cf_area_error area_max;
    long steps;
    cf_sim_stats st;
  } su = {r.wall, st->max_violation, st->steps ? (double)st->iterations / st->steps : 0,
          st->steps ? (double)st->factorizations / st->steps : 0, st->steps ? (double)st->substeps / st->steps : 0,
          st->steps ? (double)st->cg_iterations / st->steps : 0, st->threads, r.area_max, st->steps, *st};
  const double *xl = r.pos + 3 * (size_t)r.mesh->n_nodes * (r.T - 1);
  int lc = 0; /* lowest node at the end */
  for (int i = 1; i < r.mesh->n_nodes; i++)
    if (xl[3 * i + 2] < xl[3 * lc + 2]) lc = i;
  printf("scenario          %s (%s)\n", sc.name, cfg);
  printf("mesh              %d nodes, %d %s, %d kinematic\n", r.mesh->n_nodes, r.mesh->n_elems,
         r.mesh->nv == 4 ? "quads" : "triangles", r.n_kin);
  printf("steps             %ld x dt %.4g s = %.3g s simulated\n", su.steps, sc.params.dt, su.steps * sc.params.dt);
  printf("wall time         %.1f ms (%.1f us/step%s)\n", 1e3 * su.wall, 1e6 * su.wall / (su.steps ? su.steps : 1),
         su.threads > 1 ? ", 2 threads" : "");
  printf("projection        %.2f iterations/step, %.2f factorizations/step\n", su.it_per_step, su.fact_per_step);
  if (su.sub_per_step > 0 || su.cg_per_step > 0) /* fine meshes: shorter steps, inexact Newton (cf_sim.h) */
    printf("                  %.2f substeps/step, %.2f preconditioned CG iterations/step\n", su.sub_per_step,
           su.cg_per_step);
  if (sc.n_obstacles > 0 || sc.contact.self) {
    const cf_sim_stats *c = &su.st;
    printf("contacts          %d obstacles, %s; %ld of %ld steps in contact, %.2f iterations and %.2f %s each\n",
           sc.n_obstacles, sc.contact.solver == CF_CONTACT_IPOPT ? "Ipopt" : "active set", c->contact_steps, su.steps,
           c->contact_steps ? (double)c->contact_iterations / c->contact_steps : 0.0,
           c->contact_steps ? (double)c->active_set_iterations / c->contact_steps : 0.0,
           sc.contact.solver == CF_CONTACT_IPOPT ? "interior-point iterations" : "active-set solves");
    printf("                  rows in %ld, out %ld (%ld dependent, %ld exchanges); %ld factorizations, %ld updates, "
           "%ld analyses; min clearance %.3g m\n", c->rows_in, c->rows_out, c->contact_dependent, c->contact_exchanges,
           c->contact_factorizations, c->contact_updates, c->contact_analyses, c->min_clearance);
  }
  printf("max violation     %.3g (tol %.3g)\n", su.max_violation, sc.params.tol);
  printf("area error max    total %.3f %%, mean element %.3f %%\n", 100 * su.area_max.total, 100 * su.area_max.mean);
  printf("lowest node end   %d at (%.4f, %.4f, %.4f) m\n", lc, xl[3 * lc], xl[3 * lc + 1], xl[3 * lc + 2]);
  if (nsens) {
    printf("sensitivities     ");
    for (int j = 0; j < nsens; j++) printf("%s%s", j ? ", " : "", cf_theta_name(theta[j]));
    printf(out ? " (/nodes/sensitivity/ of the output)\n" : " (no output file: not written)\n");
  }
  if (out) printf("output            %s\n", out);
  if (json) {
    json_t *j = json_object();
    cf_cli_json_str(j, "scenario", sc.name);
    const char *k1[] = {"nodes", "steps", "wall_s", "iterations_per_step", "factorizations_per_step", "max_violation",
                        "area_error_total_max", "area_error_mean_max", "threads", "obstacles"};
    const double v1[] = {r.mesh->n_nodes, su.steps, su.wall, su.it_per_step, su.fact_per_step, su.max_violation,
                         su.area_max.total, su.area_max.mean, su.threads, sc.n_obstacles};
    cf_cli_json_numbers(j, k1, v1, sizeof v1 / sizeof v1[0]);
    cf_cli_json_str(j, "contact_solver", sc.contact.solver == CF_CONTACT_IPOPT ? "ipopt" : "active-set");
    const char *k2[] = {"contact_steps", "contact_iterations", "active_set_iterations", "rows_in", "rows_out",
                        "dependent_rows", "exchanges", "self_restarts", "contact_factorizations", "contact_updates",
                        "contact_analyses", "min_clearance"};
    const double v2[] = {st->contact_steps, st->contact_iterations, st->active_set_iterations, st->rows_in,
                         st->rows_out, st->contact_dependent, st->contact_exchanges, st->self_restarts,
                         st->contact_factorizations, st->contact_updates, st->contact_analyses, st->min_clearance};
    cf_cli_json_numbers(j, k2, v2, sizeof v2 / sizeof v2[0]);
    cf_cli_json_str(j, "output", out);
    cf_cli_json_print(j);
  }
  cf_pipeline_scenario_sim_free(&r);
  return 0;
}
