/* cf_sim_run.h — the simulator's parameters, its steps and the drive of its held nodes.
 * Part of the API of cf_sim.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_SIM_RUN_H
#define CF_SIM_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "cf_common.h"
#include "cf_sim_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ parameters */
/* The cloth models (thesis §4.1.4, Table 4.3; model_rows.c builds them).
 * All share the mesh, the masses, damping, aerodynamics (delta), the
 * implicit-Euler step and the driving; they differ in what keeps the cloth
 * together:
 *   CF_CLOTH_INEXTENSIBLE  the thesis' model: metric constraints E, F, G
 *       (with ks > 0 its own quasi-inextensible variant, §2.4.6), bending
 *       kappa K;
 *   CF_CLOTH_QUASI  quasi-inextensible after Goldenthal et al. ([44] of the
 *       thesis): the length of every mesh edge is a constraint, shearing is
 *       resisted by springs on the elements' diagonals (k_shear), bending
 *       kappa K;
 *   CF_CLOTH_ELASTIC  a continuum membrane without constraints: the
 *       St. Venant-Kirchhoff energy with zero Poisson ratio in each
 *       element's rest frame (first axis along the material's warp: the
 *       first edge of element 0, a lattice's rows), k_stretch/2 (e11^2 + e22^2) +
 *       k_shear/2 g12^2 per unit area (Green strains, g12 = 2 e12), at the
 *       Gauss points; bending kappa K;
 *   CF_CLOTH_MASS_SPRING  springs, no constraints (Provot; Blender,
 *       MuJoCo): structural springs on the mesh edges (k_stretch), shear
 *       springs on the quads' diagonals (k_shear), bending springs between
 *       the ends of two opposite edges of a node (quads; triangles: the
 *       vertices opposite an edge) (k_bend); kappa is not used.
 * The elastic energies are integrated implicitly with their Gauss-Newton
 * Hessian (the step of shear.c).  Spring and strain constants are N/m, the
 * springs' scaled by their share of the sheet's area over their squared
 * length, so that on a grid of rectangles the structural springs have the
 * membrane modulus k_stretch along the grid lines (model_rows.c). */
typedef enum {
  CF_CLOTH_INEXTENSIBLE = 0,
  CF_CLOTH_QUASI = 1,
  CF_CLOTH_ELASTIC = 2,
  CF_CLOTH_MASS_SPRING = 3
} cf_cloth_model;
#define CF_CLOTH_MODELS 4
/* cf_params_default's stiffnesses (N/m): the starting point of fits of the
 * baseline models' stiffness (a soft fabric). */
#define CF_DEFAULT_K_STRETCH 50.0
#define CF_DEFAULT_K_SHEAR 1.0
#define CF_DEFAULT_K_BEND 0.1
/* "inextensible", "quasi-inextensible", "elastic", "mass-spring" */
const char *cf_cloth_model_name(int model);
/* The model named name (one of the above), or -1. */
int cf_cloth_model_find(const char *name);

typedef struct {
  double rho;      /* density (inertial mass), kg/m^2 */
  double delta;    /* virtual gravitational mass, kg/m^2 */
  double alpha;    /* Rayleigh damping on M, kg/(m^2 s) */
  double beta;     /* Rayleigh damping on K */
  double kappa;    /* bending stiffness */
  double ks;       /* shear energy constant (0: none; > 0: the cloth is
                      quasi-inextensible, the F rows become the energy) */
  double g;        /* gravity, 9.8 */
  double dt;       /* time step, s */
  double tol;      /* relative constraint tolerance of the projection */
  int max_iter;    /* projection iterations per step before giving up */
  int reuse_factor;/* 1: reuse the projection factor across iterations/steps
                      (chord method with a convergence safeguard) */
  int predictor;   /* 0 (default): the unconstrained step (thesis (2.20)) is
                      projected as it is.  1: its velocities are first
                      projected onto the constraints' tangent space at the
                      step's start (J v = 0 in the M-norm), so the position
                      projection only removes the curvature drift
                      O(dt^2 |v|^2 / h^2): about half the projection
                      iterations (bench_sim --predictor 1), though no
                      longer less time, and larger element-level
                      distortions (test_shake_area prints both mean
                      element area errors).  See sim.c for figures. */
  int max_substep_level; /* a step whose projection does not converge is
                      split in halves, recursively, down to dt / 2^level
                      (default 4; 0: never split) */
  int rest_bending;/* 0 (default, thesis §2.5): K = S_I^T M^-1 S_I acts on
                      the positions, so only flat states are free of
                      bending forces: a curved rest state (a recorded first
                      frame, a sheet with noise) is pulled flat, with forces
                      that grow like kappa sigma / h^4 under refinement.
                      1: bending relative to the rest curvature: the energy
                      kappa/2 sum_k m_k |L_k x - R_k L_k x0|^2 (L = M^-1 S
                      at interior nodes, R_k the rotation of node k's normal
                      since rest, lagged one step), so the rest state and
                      its rigid motions are force-free (bending.c). */
  int model;       /* cf_cloth_model (default CF_CLOTH_INEXTENSIBLE) */
  double k_stretch;/* stretching stiffness, N/m (elastic, mass-spring) */
  double k_shear;  /* shearing stiffness, N/m (quasi, elastic, mass-spring) */
  double k_bend;   /* bending springs, N/m (mass-spring) */
  int threads;     /* threads of one simulation (default 1; 2 or more: two).
                      Only large meshes use a second thread (those whose
                      projection factorization costs >= 1e8 flops, ~35x35
                      nodes and up): the preconditioner's triangular solves
                      over two subtrees of the elimination tree, the
                      constraint evaluation and the matrix-free products
                      over two halves of the nodes and rows.  Trajectories
                      are bitwise the same for any value.  Sweeps keep 1:
                      they run one simulation per core. */
} cf_params;

#define CF_MAX_SUBSTEP_LEVEL 10

void cf_params_default(cf_params *p);
/* Check ranges; names the offending parameter. */
int cf_params_check(const cf_params *p, cf_error *err);

/* ------------------------------------------------------------ simulation */
typedef struct cf_sim cf_sim;

typedef struct {
  long steps;
  long iterations;      /* projection iterations, all steps */
  long factorizations;  /* numeric factorizations of J M^-1 J^T */
  long substeps;        /* steps taken at dt / 2^level, level > 0 */
  long split_attempts;  /* attempts whose projection did not converge and
                           were redone as two halves (their iterations
                           are counted above) */
  long cg_iterations;   /* conjugate-gradient iterations of the tangent
                           predictor (preconditioned solves) */
  int last_iterations;
  int threads;          /* threads the projection runs on (1, or 2 with
                           cf_params.threads >= 2 on a large mesh) */
  double last_violation;/* max relative violation after the last step */
  /* contacts (cf_sim_set_obstacles; all 0 without obstacles) */
  long contact_steps;   /* (sub)steps projected with contact constraints */
  long contact_iterations;  /* their projection iterations (also in iterations) */
  long contact_factorizations; /* numeric factorizations of the contact
                           system (not in factorizations) */
  long contact_analyses; /* symbolic analyses (when a pair without a row
                           in the system's pattern enters the working set) */
  long contact_updates; /* working-set changes done as factor updates */
  long active_set_iterations; /* solves of the contact system */
  long rows_in, rows_out; /* contacts added to / removed from the working set */
  long contact_dependent; /* of rows_out: rows found linearly dependent on
                           the others when factoring (Remark 3.5.3) */
  long contact_exchanges; /* violated pairs dependent on the working set
                           that entered it in place of a contact of it
                           (Remark 3.5.2; each one of rows_in and rows_out) */
  long self_restarts;   /* steps restarted with a smaller omega (§3.4.1) */
  int last_contacts;    /* contacts in the working set after the last step */
  double min_clearance; /* min over steps of (distance - thickness), m;
                           only steps that used contacts (else 0) */
  double max_violation; /* max over all steps */
} cf_sim_stats;

/* kin[n_kin]: kinematic (driven) nodes; their positions are prescribed at
 * every step by cf_sim_step.  Keeps a pointer to mesh.  The state starts at
 * rest at mesh->x. */
cf_sim *cf_sim_alloc(const cf_mesh *mesh, const cf_params *p,
                     const int *kin, int n_kin, cf_error *err);
void cf_sim_free(cf_sim *s);
/* Replace positions and/or velocities (NULL keeps the current one).  The
 * substep level the steps run at (see cf_sim_step) is kept. */
void cf_sim_set_state(cf_sim *s, const double *x, const double *v);
/* Move the current positions onto the constraints (the projection, the
 * kinematic nodes held, at most CF_PROJECT_STATE_ITERS iterations) and set
 * the velocities to 0: a start that is not on the rest metric's
 * constraints (a recording's first frame with a flat rest metric,
 * cf_fit_target.rest).  Nothing for the models without constraints.
 * On failure the state is unchanged and err says why. */
#define CF_PROJECT_STATE_ITERS 500
int cf_sim_project_state(cf_sim *s, cf_error *err);
/* The state x[3n] (output) on mesh's constraints (the cloth model p's, at
 * p->tol, at most CF_PROJECT_STATE_ITERS iterations) closest to y[3n] in
 * the weighted least squares sum_i w[i] m_i |x_i - y_i|^2, m_i node i's
 * lumped mass: the fast projection in that metric (closest.c).  w[i] > 0;
 * INFINITY holds node i at y_i.  The models without constraints: x = y.
 * CF_OK, or the projection's error (x its last iterate), CF_EINVAL for a
 * weight <= 0, CF_ENOMEM. */
int cf_sim_closest_state(const cf_mesh *mesh, const cf_params *p, const double *w, const double *y, double *x,
                         cf_error *err);
/* Advance one step dt.  kin_pos[n_kin*3]: positions of the kinematic nodes
 * at the new time (NULL: they stay where they are).  A step whose projection
 * does not converge is retried as two half steps (kinematic nodes moving
 * linearly), recursively down to dt / 2^max_substep_level.  The level
 * that worked is kept for the next steps, and a coarser one tried again
 * after 8 steps that converged in at most one iteration per substep (sim.c:
 * fine meshes need shorter steps than the recording's dt, and a step that
 * fails first is wasted work).  On failure the state is left at the last
 * good step and err names step, time and violation. */
int cf_sim_step(cf_sim *s, const double *kin_pos, cf_error *err);
const double *cf_sim_x(const cf_sim *s);
const double *cf_sim_v(const cf_sim *s);
double cf_sim_time(const cf_sim *s);
/* Set the simulation's time (s): a simulation that takes over the state of
 * another one (a driven cloth whose held nodes change) goes on at its time,
 * which moving obstacles depend on. */
void cf_sim_set_time(cf_sim *s, double t);
const cf_model *cf_sim_model(const cf_sim *s);
cf_sim_stats cf_sim_get_stats(const cf_sim *s);

/* ---------------------------------------------------------------- driving */
/* Prescribed motion of the kinematic nodes: fixed, or a shake (thesis §4.1). */
typedef enum { CF_DRIVE_FIXED = 0, CF_DRIVE_SHAKE = 1 } cf_drive_kind;
typedef struct {
  cf_drive_kind kind;
  double amplitude;   /* m */
  double frequency;   /* Hz */
  double axis[3];     /* unit direction of the shake */
} cf_drive;
/* Positions of kinematic nodes at time t given their rest positions x0:
 * shake: x0 + A cos(2 pi f t) axis - A axis (starts at rest position). */
void cf_drive_eval(const cf_drive *d, int n_kin, const double *x0, double t,
                   double *out);

#ifdef __cplusplus
}
#endif
#endif
