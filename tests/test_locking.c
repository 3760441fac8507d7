/* Locking test (thesis §2.7.1): a horizontal 1 m x 1 m sheet with 3 mm of
 * Gaussian noise on its nodes (the rest state), three corners fixed, the
 * fourth falls; kappa = 1e-4, alpha = 2, dt = 1 ms (the per-step violation
 * grows like g dt^2 / h, and these elements are 3-5 cm), 5 s, rho = delta =
 * 0.1.  Meshes: irregular near-equilateral triangles of 471 and 912 nodes
 * (cf_mesh_square_hex; the thesis' Fig. 2.4 has 472 and 941) over the noise
 * seeds 3, 5, 7, 11 and 23, and the regular quad grids 23 x 23 and 30 x 30
 * (529, 900 nodes) on seed 7.  Twelve simulations on two worker processes.
 *
 * The fold has no unique resting state: with kappa = 1e-4 the flap can roll
 * along its crease at almost no cost, so it stops somewhere in a nearly
 * neutral family of states, and where follows the rounding of CHOLMOD's BLAS
 * calls (the OpenBLAS kernel set) and the solver's path by 1-3.5 cm, as much
 * as the two meshes differ (docs/notes/locking.md §18).  Runs also slip along
 * that family late, after seconds nearly still (with Prescott's kernels the
 * 471-node sheet on seed 5 dropped its centre of mass by 4.6 mm more between
 * 3.5 and 4.5 s).  So this test asserts what the physics fixes, and holds
 * with every kernel set (bench/locking_kernels.sh, docs/notes/locking.md §19).
 *
 * Asserted for every run:
 * - it runs, and the constraints hold (violation <= 1e-3);
 * - it folds without locking: the free corner ends more than 0.65 m below
 *   the fixed ones (quads: 0.6 m, they fold only through the slack the noise
 *   gives each element, docs/notes/locking.md §2); a rigid flap hinged on the
 *   diagonal hangs 0.707 m;
 * - and no lower than 0.72 m: the corner is 1 m along the sheet from the two
 *   fixed corners beside it, so inextensibility keeps it within
 *   sqrt(1 - 1/2) = 0.707 m of the diagonal's height, plus the few mm of
 *   length the noise adds to the rest state;
 * - the fall's motion is dissipated: the kinetic energy over the last 0.5 s
 *   stays below 1 % of the gravitational energy released (slips along the
 *   neutral family are allowed: they are small).
 * Asserted for the triangles: the energy released is a hanging flap's: the
 * centre of mass drops by 85-110 % of a rigid flap's sqrt(2)/12 = 117.9 mm
 * (half the mass, its centroid a third of 0.707 m down); and, for every
 * seed, the free corners of the two meshes lie within 2.5 cm in height
 * (thesis Table 2.2 compares such meshes by the corner: 1.4-3.7 cm).
 *
 * NOT asserted, and why: where along the family the corner stops (its
 * distance between the two meshes, up to 6.01 cm with Nehalem's kernels;
 * a bound of 5 cm failed with Nehalem's and
 * Prescott's kernels), nor
 * that it has stopped after a fixed time (a late slip moves it 1 cm: the
 * corner's motion over the last 0.5 s is printed).  Nor that kinetic plus
 * gravitational energy never rises: the crease's bending energy, which the
 * simulator does not expose, flows back into them (the 900-node quads: a
 * rise of 4.6 % of the energy released, with OpenBLAS's choice of kernels).
 * Nor anything about the quads against the triangles beyond the fold: their
 * corners lie 3-9 cm from the triangles' (docs/notes/locking.md §9, §12), and they
 * release 9-14 % less energy than the rigid flap.
 *
 * Measured over OpenBLAS's own choice and the seven kernel sets of Debian's
 * OpenBLAS on x86-64 (bench/locking_kernels.sh; AMD EPYC; docs/locking.md
 * §19), all PASS: the free corners 0.666-0.695 m deep on the triangles and
 * 0.640-0.672 m on the quads; the triangles' centres of mass -8.7 to +6.5 %
 * from the rigid flap's drop; the kinetic energy of the last 0.5 s at most
 * 0.69 % of the energy released (Sandybridge, the 471-node sheet on seed 5:
 * the narrowest margin); the corner heights of the pair within 1.70 cm; the
 * corners themselves 2.49-6.01 cm apart (largest over the seeds, per set). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "forkmap.h"
#include "testutil.h"

enum { NSEED = 5, NRUN = 2 * NSEED + 2, STEPS = 5000, LAST = 500 };
static const unsigned long long seeds[NSEED] = {3, 5, 7, 11, 23};
/* The centre of mass of a rigid triangular flap hanging from the diagonal:
 * half the mass, sqrt(2)/2 m deep, its centroid a third of that. */
static const double flap_drop = M_SQRT2 / 12;

typedef struct {
  double corner[3], max_violation;
  double com_drop;  /* drop of the centre of mass, m */
  double released;  /* gravitational energy released, J */
  double ke_peak;   /* largest kinetic energy, J */
  double ke_end;    /* largest kinetic energy over the last LAST steps, J */
  double e_rise;    /* largest rise of kinetic + gravitational energy above
                       its lowest value so far, J */
  double moved_end; /* corner's displacement over the last LAST steps, m */
  int nodes, ok;
  char msg[256];
} lock_result;

static void add_noise(cf_mesh *m, unsigned long long seed) {
  for (int i = 0; i < 3 * m->n_nodes; i++) {
    double u1 = 0.5 * (cf_test_rand(&seed) + 1) + 1e-300, u2 = 0.5 * (cf_test_rand(&seed) + 1);
    m->x[i] += 0.003 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
  }
}

static int nearest(const cf_mesh *m, double x, double y) {
  int best = 0;
  for (int i = 1; i < m->n_nodes; i++)
    if (hypot(m->x[3 * i] - x, m->x[3 * i + 1] - y) < hypot(m->x[3 * best] - x, m->x[3 * best + 1] - y))
      best = i;
  return best;
}

/* Mesh 0, 1: triangles of 471 and 912 nodes (bench/locking_scan meshes 10
 * and 11); 2, 3: quads 23 x 23 and 30 x 30. */
static cf_mesh *make_mesh(int which) {
  double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
  switch (which) {
    case 0: return cf_mesh_square_hex(1.0, 20, 0.15, 60, 0);
    case 1: return cf_mesh_square_hex(1.0, 28, 0.15, 61, 0);
    case 2: return cf_mesh_grid(23, 23, o, u, v, 1);
    default: return cf_mesh_grid(30, 30, o, u, v, 1);
  }
}

/* Run i: mesh and seed (index into seeds).  The 912-node runs cost several
 * times the others (11316 factorizations on seed 7 against 3339 for the
 * 471-node mesh), and the workers take the runs round robin (even i, odd
 * i), so each worker gets 912-node runs and cheaper ones.  The runs are
 * 5 s long (wall times in docs/locking.md). */
static const int runs[NRUN][2] = {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 2},
                                  {0, 0}, {3, 2}, {0, 2}, {0, 1}, {0, 4}, {0, 3}};

static void run_of(int i, int *mesh, unsigned long long *seed) { *mesh = runs[i][0], *seed = seeds[runs[i][1]]; }

/* The run of mesh `which` with seed index k. */
static const lock_result *find_run(const lock_result *r, int which, int k) {
  for (int i = 0; i < NRUN; i++)
    if (runs[i][0] == which && runs[i][1] == k) return &r[i];
  return NULL;
}

/* Kinetic and gravitational energy of the state, J (z = 0 at the rest
 * state's plane). */
static void energies(const cf_sim *s, int n, const cf_params *p, double *ke, double *pe) {
  const double *x = cf_sim_x(s), *v = cf_sim_v(s), *mass = cf_model_mass(cf_sim_model(s));
  *ke = *pe = 0;
  for (int k = 0; k < n; k++) {
    *ke += 0.5 * p->rho * mass[k] * (v[3 * k] * v[3 * k] + v[3 * k + 1] * v[3 * k + 1] + v[3 * k + 2] * v[3 * k + 2]);
    *pe += p->delta * p->g * mass[k] * x[3 * k + 2];
  }
}

/* STEPS steps of s (free corner c), the energies tracked at every step. */
static void simulate(cf_sim *s, const cf_mesh *m, const cf_params *p, int c, lock_result *r) {
  const double *mass = cf_model_mass(cf_sim_model(s));
  double weight = 0, ke, pe0, e_min, at_end[3] = {0};
  for (int k = 0; k < m->n_nodes; k++) weight += p->delta * p->g * mass[k];
  energies(s, m->n_nodes, p, &ke, &pe0);
  e_min = ke + pe0;
  cf_error err;
  for (int k = 1; k <= STEPS; k++) {
    if (cf_sim_step(s, NULL, &err)) {
      snprintf(r->msg, sizeof r->msg, "%.255s", err.msg);
      return;
    }
    double pe;
    energies(s, m->n_nodes, p, &ke, &pe);
    r->ke_peak = fmax(r->ke_peak, ke);
    if (k > STEPS - LAST) r->ke_end = fmax(r->ke_end, ke);
    if (k == STEPS - LAST) memcpy(at_end, cf_sim_x(s) + 3 * c, sizeof at_end);
    r->e_rise = fmax(r->e_rise, ke + pe - e_min);
    e_min = fmin(e_min, ke + pe);
    r->released = pe0 - pe;
  }
  const double *x = cf_sim_x(s);
  memcpy(r->corner, x + 3 * c, sizeof r->corner);
  r->moved_end = sqrt(pow(at_end[0] - x[3 * c], 2) + pow(at_end[1] - x[3 * c + 1], 2) + pow(at_end[2] - x[3 * c + 2], 2));
  r->com_drop = r->released / weight;
  r->max_violation = cf_sim_get_stats(s).max_violation;
  r->ok = 1;
}

static void run_mesh(int i, void *out) {
  lock_result *r = out;
  int which;
  unsigned long long seed;
  run_of(i, &which, &seed);
  cf_mesh *m = make_mesh(which);
  add_noise(m, seed);
  cf_error err;
  if (cf_mesh_finalize(m, &err)) {
    snprintf(r->msg, sizeof r->msg, "%.255s", err.msg);
    cf_mesh_free(m);
    return;
  }
  int kin[3] = {nearest(m, 0, 0), nearest(m, 1, 0), nearest(m, 0, 1)}, c = nearest(m, 1, 1);
  cf_params p;
  cf_params_default(&p);
  p.rho = p.delta = 0.1;
  p.alpha = 2;
  p.kappa = 1e-4;
  p.dt = 0.001;
  cf_sim *s = cf_sim_alloc(m, &p, kin, 3, &err);
  r->nodes = m->n_nodes;
  if (s) {
    simulate(s, m, &p, c, r);
  } else {
    snprintf(r->msg, sizeof r->msg, "%.255s", err.msg);
  }
  cf_sim_free(s);
  cf_mesh_free(m);
}

static double dist_cm(const double *a, const double *b) {
  return 100 * sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
}

/* The checks of every run. */
static void check_run(int i, const lock_result *r) {
  int which;
  unsigned long long seed;
  run_of(i, &which, &seed);
  printf("%4d %-9s seed %2llu: free corner (%.4f, %.4f, %.4f) m; centre of mass %.2f mm down (%+.1f %% of the rigid "
         "flap's); kinetic energy %.3g J at its peak, %.3g J at most in the last %.1f s (%.2f %% of the peak), energy "
         "rise %.2g J (%.3f %% of %.4f J released, not asserted); corner moved %.1f mm in the last %.1f s; max violation %.2g\n",
         r->nodes, which < 2 ? "triangles" : "quads", seed, r->corner[0], r->corner[1], r->corner[2],
         1e3 * r->com_drop, 100 * (r->com_drop / flap_drop - 1), r->ke_peak, r->ke_end, LAST * 1e-3,
         100 * r->ke_end / r->ke_peak, r->e_rise, 100 * r->e_rise / r->released, r->released, 1e3 * r->moved_end,
         LAST * 1e-3, r->max_violation);
  CHECK(r->ok, "mesh %d seed %llu: %s", which, seed, r->msg);
  if (!r->ok) return;
  CHECK(r->max_violation <= 1e-3, "mesh %d seed %llu: violation %.3g", which, seed, r->max_violation);
  double low = which < 2 ? 0.65 : 0.6; /* the quads fold through the noise's slack only */
  CHECK(-r->corner[2] > low, "mesh %d seed %llu: the free corner hangs only %.3f m low (limit %.2f): locking?", which,
        seed, -r->corner[2], low);
  CHECK(-r->corner[2] < 0.72, "mesh %d seed %llu: the free corner hangs %.3f m low, more than the sheet's length allows",
        which, seed, -r->corner[2]);
  CHECK(r->ke_end <= 0.01 * r->released, "mesh %d seed %llu: still moving: kinetic energy %.3g J (%.4f J released)",
        which, seed, r->ke_end, r->released);
  if (which < 2)
    CHECK(r->com_drop > 0.85 * flap_drop && r->com_drop < 1.1 * flap_drop,
          "mesh %d seed %llu: centre of mass %.1f mm down, the rigid flap's %.1f mm", which, seed, 1e3 * r->com_drop,
          1e3 * flap_drop);
}

int main(void) {
  cf_runtime_init();
  setvbuf(stdout, NULL, _IOLBF, 0); /* the FAIL lines (stderr) between whole lines */
  lock_result r[NRUN];
  memset(r, 0, sizeof r);
  CHECK(cf_test_fork_map(NRUN, 2, sizeof r[0], run_mesh, r) == 0, "a worker process failed");
  for (int i = 0; i < NRUN; i++) check_run(i, &r[i]);
  double dz = 0, dc = 0, dx = 0;
  for (int k = 0; k < NSEED; k++) {
    const lock_result *a = find_run(r, 0, k), *b = find_run(r, 1, k);
    if (!a->ok || !b->ok) continue;
    double d = dist_cm(a->corner, b->corner), z = 100 * fabs(a->corner[2] - b->corner[2]);
    double cm = 1e3 * fabs(a->com_drop - b->com_drop);
    dx = fmax(dx, d), dz = fmax(dz, z), dc = fmax(dc, cm);
    CHECK(z < 2.5, "seed %llu: the corners of the triangles %d and %d differ by %.2f cm in height", seeds[k], a->nodes,
          b->nodes, z);
    printf("seed %2llu: triangles %d-%d: corners %.2f cm apart, %.2f cm in height; centres of mass %.2f mm in height\n",
           seeds[k], a->nodes, b->nodes, d, z, cm);
  }
  printf("largest over the seeds, triangles %d-%d: corners %.2f cm apart (not asserted), %.2f cm in height; centres of "
         "mass %.2f mm (not asserted)\n", find_run(r, 0, 0)->nodes, find_run(r, 1, 0)->nodes, dx, dz, dc);
  return cf_test_done("test_locking");
}
