/* bench_needles — the sharp points' broad phase at scale (docs/contacts.md,
 * "Needles"): an A2 sheet of NX x NY nodes over the needles (3.16) with
 * c1 = C1 (tips every 2 pi / C1 m; c1 c2 = 1.5, the thesis', so the tips
 * stand 3.3 cm below the sheet), the tips within a FIELD x FIELD m square
 * (centred under the sheet) sharp points.
 *
 * MODE 0: STEPS steps of 10 ms of the sheet dropped on them with the broad
 * phase (contact_points.c); 1: the same with every tip against every
 * triangle (the list before it).  Prints the wall time per step and a
 * checksum of the positions, which the two modes must share.
 * MODE 2: what each projection iteration spends on the triangle pairs
 * (cf_contact_eval_pairs, node rows included), STEPS times: the sheet
 * flat 1 cm above the tips at the step's start and 1 mm above them at the
 * iterate (0.9 cm of motion, a fall at 0.9 m/s), with the broad phase and
 * with every pair (skipped beyond 2e7 pairs: several GB).
 *
 * usage: bench_needles [NX [NY [C1 [FIELD [STEPS [MODE]]]]]]
 *        defaults       7   9   20  1       100     0 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_sim.h"
#include "contact_points.h"

static double arg(int argc, char **argv, int k, double def) { return argc > k ? atof(argv[k]) : def; }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* MODE 0 and 1. */
static int run(const cf_mesh *m, const cf_obstacle *o, int steps) {
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  if (!s || cf_sim_set_obstacles(s, o, 1, &cp, &err)) {
    fprintf(stderr, "bench_needles: %s\n", err.msg);
    return 1;
  }
  double t0 = now(), sum = 0;
  int rc = 0, k;
  for (k = 0; k < steps && !rc; k++)
    if ((rc = cf_sim_step(s, NULL, &err))) fprintf(stderr, "bench_needles: step %d: %s\n", k + 1, err.msg);
  double wall = now() - t0;
  const double *x = cf_sim_x(s);
  for (int q = 0; q < 3 * m->n_nodes; q++) sum += x[q] * (1 + q % 7);
  cf_sim_stats st = cf_sim_get_stats(s);
  printf("%s: %d steps, %ld contact iterations, %d contacts at the end; %.2f ms/step; checksum %.17g\n",
         cf_contact_all_points ? "every pair" : "broad phase", k, st.contact_iterations, st.last_contacts,
         1e3 * wall / (k ? k : 1), sum);
  cf_sim_free(s);
  return rc != 0;
}

/* MODE 2, one of the two lists: ms per evaluation. */
static double evaluations(const cf_mesh *m, const cf_obstacle *o, int reps, int all, const double *x0,
                          const double *x1) {
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cf_error err = {0, ""};
  unsigned char *kin = calloc((size_t)m->n_nodes, 1);
  cf_contact *c = kin ? cf_contact_alloc(NULL, m, kin, o, 1, &cp, &err) : NULL; /* no projection: rows only */
  free(kin);
  if (!c) return NAN;
  cf_contact_all_points = all;
  cf_contact_set_sides(c, x0, 0);
  double h = cf_contact_eval_pairs(c, x1, 0.01), t0 = now(); /* the first builds the list */
  for (int r = 0; r < reps; r++) h = fmin(h, cf_contact_eval_pairs(c, x1, 0.01));
  double ms = 1e3 * (now() - t0) / reps;
  printf("  %s: %d triangle pairs, %.3f ms per evaluation (min H %.3g m)\n", all ? "every pair " : "broad phase",
         c->K3 - c->K2, ms, h);
  cf_contact_free(c);
  cf_contact_all_points = 0;
  return ms;
}

static int eval_only(cf_mesh *m, const cf_obstacle *o, int reps) {
  int n = m->n_nodes, ntips = cf_obstacle_points(o, 0, NULL);
  double *x0 = malloc(sizeof(double) * 3 * n), *x1 = malloc(sizeof(double) * 3 * n);
  double ztip = o->c[2] + 1 / (o->k[0] * o->k[1]);
  for (int i = 0; i < n; i++) {
    memcpy(x0 + 3 * i, m->x + 3 * i, 3 * sizeof(double));
    memcpy(x1 + 3 * i, m->x + 3 * i, 3 * sizeof(double));
    x0[3 * i + 2] = ztip + 0.01, x1[3 * i + 2] = ztip + 0.001;
  }
  double b = evaluations(m, o, reps, 0, x0, x1), e = NAN;
  if ((double)ntips * 2 * m->n_elems <= 2e7) e = evaluations(m, o, reps > 20 ? 20 : reps, 1, x0, x1);
  else printf("  every pair : %.3g triangle pairs, not run\n", (double)ntips * 2 * m->n_elems);
  printf("  ratio %.1f\n", e / b);
  free(x0), free(x1);
  return !(b >= 0);
}

int main(int argc, char **argv) {
  int nx = (int)arg(argc, argv, 1, 7), ny = (int)arg(argc, argv, 2, 9), steps = (int)arg(argc, argv, 5, 100);
  int mode = (int)arg(argc, argv, 6, 0);
  double c1 = arg(argc, argv, 3, 20), field = arg(argc, argv, 4, 1);
  double org[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  cf_mesh *m = nx > 0 && ny > 0 ? cf_mesh_grid(nx, ny, org, u, v, 1) : NULL;
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_needles);
  o.k[0] = c1, o.k[1] = 1.5 / c1, o.h[0] = o.h[1] = field / 2;
  o.c[0] = 0.21, o.c[1] = 0.297, o.c[2] = -0.7;
  o.mu = 0.3;
  cf_error err = {0, ""};
  if (!m || cf_obstacle_check(&o, &err)) {
    fprintf(stderr, "bench_needles: %s\n", m ? err.msg : "bad mesh size");
    return 1;
  }
  printf("%dx%d nodes (%d triangles), %d tips: ", nx, ny, 2 * m->n_elems, cf_obstacle_points(&o, 0, NULL));
  cf_contact_all_points = mode == 1;
  int rc = mode == 2 ? (printf("evaluations\n"), eval_only(m, &o, steps)) : run(m, &o, steps);
  cf_mesh_free(m);
  return rc;
}
