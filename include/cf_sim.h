/* cf_sim.h — the public API of src/sim: the inextensible FEM cloth model of
 * Coltraro et al. (thesis ch. 2; docs/design.md §4) and its solvers.
 *
 * Why it looks like this
 * ----------------------
 * - No I/O and no global state: every object is allocated by the caller and
 *   passed explicitly, so simulations can run concurrently in threads
 *   (sweeps run thousands of them).
 * - Vectors of positions/velocities are node-major: x[3*i + d], d = 0,1,2
 *   for the x, y, z coordinates of node i. z is up, gravity is -g e_z.
 * - Errors are returned as a status code; when a `cf_error *` is given the
 *   message says what failed and where (step, time, violation ...).
 * - The rest metric (T tensors, edge lengths, masses, bending matrix) is taken
 *   from the mesh's node positions `mesh->x` at allocation time
 *   (docs/design.md §4: for a recording this is the recorded first frame,
 *   as in thesis §4.2.2).
 *
 * Ownership: functions returning a pointer return a new object owned by the
 * caller (free it with the matching _free). Pointers passed in are borrowed
 * for the duration of the call, except where a comment says the object keeps
 * them (cf_model and cf_sim keep a pointer to their mesh: the mesh must
 * outlive them and must not be modified).
 */
#ifndef CF_SIM_H
#define CF_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "cf_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ mesh */
/* A cloth mesh of one element kind: nv = 3 (linear triangles) or nv = 4
 * (bilinear quads, nodes counter-clockwise starting at (-1,-1)).  Any
 * topology (holes, rings, garments).  The derived fields are filled by
 * cf_mesh_finalize(). */
typedef struct {
  int nv;          /* nodes per element: 3 or 4 */
  int n_nodes;
  int n_elems;
  double *x;       /* [n_nodes*3] rest positions (also the initial state) */
  int *elems;      /* [n_elems*nv] node indices */
  /* derived (cf_mesh_finalize) */
  int n_bedges;    /* boundary edges: edges that belong to one element */
  int *bedges;     /* [n_bedges*2] */
  unsigned char *is_boundary; /* [n_nodes] */
  unsigned char *is_corner;   /* [n_nodes] boundary nodes where the boundary turns */
} cf_mesh;

cf_mesh *cf_mesh_alloc(int nv, int n_nodes, int n_elems);
void cf_mesh_free(cf_mesh *m);
cf_mesh *cf_mesh_clone(const cf_mesh *m);
/* Validate indices and element areas, then find boundary edges and corners.
 * A boundary node is a corner when its boundary turns by more than 45°
 * (for grids: the nodes in exactly one element). */
int cf_mesh_finalize(cf_mesh *m, cf_error *err);

/* nx*ny nodes on the parallelogram origin + s*u + t*v, s,t in [0,1];
 * node (i,j) (i along u, j along v) has index j*nx + i.  quads = 1 for
 * quads, 0 for triangles (alternating diagonals). */
cf_mesh *cf_mesh_grid(int nx, int ny, const double origin[3],
                      const double u[3], const double v[3], int quads);
/* Refine a rows x cols marker lattice ([rows*cols*3], row-major, row 0 =
 * top) to a quad mesh by bilinear interpolation, every cell split split_r
 * times down and split_c times across (1 <= split_r, split_c <=
 * CF_LATTICE_SPLIT_MAX; thesis §4.2.2 fits on 2 x 2: 4x5 markers -> 7x9
 * nodes; §4.1.5 reruns a 9 x 9 mesh recording on 1 x 2, 2 x 1 and 2 x 2:
 * 9 x 17, 17 x 9 and 17 x 17 nodes): (split_r(rows-1)+1) x
 * (split_c(cols-1)+1) nodes, marker (r,c) at node
 * (split_r r)*(split_c(cols-1)+1) + split_c c, where it stays (the
 * interpolation passes through the markers).  NULL on bad arguments or a
 * degenerate lattice. */
enum { CF_LATTICE_SPLIT_DEFAULT = 2, CF_LATTICE_SPLIT_MAX = 8 };
cf_mesh *cf_mesh_lattice_refine(int rows, int cols, int split_r, int split_c, const double *markers);
/* Index of the node holding marker (r, c) in cf_mesh_lattice_refine. */
int cf_mesh_lattice_node(int rows, int cols, int split_r, int split_c, int r, int c);
/* Node a of a line of nodes refined split times per cell of n markers: the
 * cell it lies in (0..n-2), and where in it, *s in [0, 1] (the last node
 * belongs to the last cell at s = 1). */
int cf_mesh_lattice_cell(int a, int n, int split, double *s);
/* Lumped-mass weights of a rows x cols marker lattice at positions x
 * [rows*cols*3] (row-major), normalized to sum to rows*cols: for a regular
 * lattice corners : edges : interior = 1 : 2 : 4 (docs/design.md §6, §7).  The
 * metrics of src/fit weight the markers by them and ingestion
 * (src/recording) stores them in the recording. */
int cf_mesh_lattice_weights(int rows, int cols, const double *x, double *w, cf_error *err);
/* The same weights of any mesh's nodes at positions x: its lumped masses
 * normalized to sum to n_nodes (a recorded mesh's weights, eq. (4.3)). */
int cf_mesh_node_weights(const cf_mesh *m, const double *x, double *w, cf_error *err);
/* Flat annulus r_in..r_out in the plane z = z0, centred on the z axis:
 * n_rad rings of quads between n_rad+1 circles of n_ang nodes. */
cf_mesh *cf_mesh_ring(double r_in, double r_out, int n_rad, int n_ang, double z0);
/* A tube (a sleeve, a garment's leg: a mesh without a boundary around it):
 * n_around rows of n_along nodes on the cylinder of the given circumference
 * whose axis runs along x from 0 to length at y = 0, z = z_axis; node (i
 * along, j around) is j*n_along + i, row j = 0 at the bottom. */
cf_mesh *cf_mesh_tube(double length, double circumference, int n_along, int n_around, double z_axis);
/* Irregular triangulation of the square [0,side]^2 in the plane z = z0:
 * n x n nodes, interior nodes jittered by up to `jitter` x spacing,
 * each cell split along a random diagonal (seeded, deterministic). */
cf_mesh *cf_mesh_square_tri(double side, int n, double jitter, uint64_t seed, double z0);
/* Irregular triangulation of the square [0,side]^2 close to what a mesh
 * generator makes (nearly equilateral, valence ~6): rows of nodes
 * sqrt(3)/2 x spacing apart, every other row offset by half a spacing (and
 * closed by nodes on the square's sides), interior nodes jittered by up to
 * `jitter` x spacing, each pair of rows zipped into triangles.  n nodes on
 * the even rows, spacing side / (n - 1). */
cf_mesh *cf_mesh_square_hex(double side, int n, double jitter, uint64_t seed, double z0);

/* Lumped masses of unit density: m_k = sum_j int N_k N_j dA at positions x
 * (pass m->x for the rest state). */
void cf_mesh_lumped_mass(const cf_mesh *m, const double *x, double *mass);
/* Area of every element at positions x (integrated with the element's own
 * parametrization, as in the T tensors). */
void cf_mesh_element_areas(const cf_mesh *m, const double *x, double *area);

/* Area errors (2.23)-(2.25) of state x relative to the rest areas a0. */
typedef struct { double total, mean, dispersion; } cf_area_error;
cf_area_error cf_mesh_area_error(const cf_mesh *m, const double *a0, const double *x);

/* ----------------------------------------------------------------- model */
/* The inextensibility constraints and their tensors (Algorithm 1): one row
 * per boundary edge (2.7), rows E, F, G per interior node and F per corner
 * (2.11)-(2.14).  Each row is a quadratic form over a few nodes:
 * C_r(x) = sum_ij T_r[i][j] <p_i, p_j> - c0_r. */
typedef struct cf_model cf_model;

enum { CF_ROW_EDGE = 0, CF_ROW_E = 1, CF_ROW_F = 2, CF_ROW_G = 3 };

/* Keeps a pointer to mesh. */
cf_model *cf_model_alloc(const cf_mesh *mesh, cf_error *err);
void cf_model_free(cf_model *md);
int cf_model_nrows(const cf_model *md);
int cf_model_row_kind(const cf_model *md, int r);
int cf_model_row_node(const cf_model *md, int r); /* node k (edge: first node) */
double cf_model_row_scale(const cf_model *md, int r); /* c_k of docs/design.md §4 */
/* C(x) into C[nrows]. */
void cf_model_eval(const cf_model *md, const double *x, double *C);
/* max_r |C_r| / c_r */
double cf_model_violation(const cf_model *md, const double *x);
/* Dense Jacobian [nrows x 3n] row-major, column 3*i+d (for tests/tools). */
void cf_model_jacobian_dense(const cf_model *md, const double *x, double *J);
/* Lumped masses (unit density) used by the model. */
const double *cf_model_mass(const cf_model *md);

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

/* --------------------------------------------------------- sensitivities */
/* Forward sensitivities: dx/dtheta and dv/dtheta of the state, propagated
 * through every step for up to CF_THETA_COUNT parameters.
 *
 * What is differentiated is the computation itself, step by step: the
 * implicit-Euler step (its matrix (rho + h alpha) M + (h beta + h^2 kappa)
 * K and its right-hand side rho M v - h (delta M g + kappa K x), with
 * their dependence on x, v and on each parameter; one extra solve with
 * the step's own factor for all parameters at once), x + h v*, and every
 * update of the fast projection as it ran (proj_sens.h: the chord
 * iterations reuse a factor made at an earlier iterate, so the end point
 * depends on the path and the implicit function theorem at it does not
 * give the computed result's derivative; each update is differentiated
 * with the factor, the shift and the decisions it was made with, the
 * curvature term included).  Undone updates, failed attempts and failed
 * steps restore the tangents with the state, substeps propagate them, and
 * the driven nodes' tangents are 0 (their positions are prescribed).  So
 * where the discrete decisions (kept or undone updates, refactorizations,
 * substep levels) do not change with theta, the tangents are the exact
 * derivatives of the computed trajectory (to rounding); where they do, the
 * trajectory itself jumps by up to the projection's tolerance, which no
 * derivative sees (tests/test_sensitivity.c checks central differences).
 *
 * Not differentiated, so refused by cf_sim_set_sensitivities (CF_EINVAL):
 * contacts (obstacles, self-collisions), and so mu: the contact solve's
 * working set changes, and its friction is lagged and capped per contact,
 * so its result is not a smooth function of the state where contacts
 * matter; the models other than the inextensible one, the shear energy
 * (ks > 0), rest_bending (its lagged node frames) and the predictor (its
 * conjugate-gradient solves would have to be differentiated iteration by
 * iteration).  The aerodynamic force is delta M g (no drag term), so its
 * only dependence is on delta.  The inexact Newton steps of large meshes are switched off
 * while sensitivities are on (their CG iterates are not differentiated):
 * there, trajectories with sensitivities on are not bitwise those without.
 * With sensitivities off nothing changes. */
typedef enum { CF_THETA_DELTA = 0, CF_THETA_ALPHA = 1, CF_THETA_KAPPA = 2, CF_THETA_BETA = 3 } cf_theta;
#define CF_THETA_COUNT 4
/* "delta", "alpha", "kappa", "beta" */
const char *cf_theta_name(int theta);
/* Sensitivities with respect to theta[0 .. np-1] (distinct cf_theta
 * values; np = 0 switches them off), starting from dx = dv = 0 (the current
 * state is taken as independent of the parameters).  cf_sim_set_state and
 * cf_sim_project_state reset them to 0.  Switching them on forgets the
 * projection's factor (the next one's tangents must be recorded): before
 * the first step that changes nothing, later on the trajectory is no
 * longer bitwise that of a run without. */
int cf_sim_set_sensitivities(cf_sim *s, const int *theta, int np, cf_error *err);
/* Parameters with sensitivities on (0: off). */
int cf_sim_sensitivities(const cf_sim *s);
/* dx/dtheta[j], dv/dtheta[j] [3n] after the last step (node-major, as
 * cf_sim_x); NULL when j is out of range. */
const double *cf_sim_dx(const cf_sim *s, int j);
const double *cf_sim_dv(const cf_sim *s, int j);

/* ------------------------------------------------------------- obstacles */
/* Rigid obstacles the cloth's nodes must stay outside of (thesis §3.2,
 * docs/design.md §5): each kind gives the signed distance of a point to its surface
 * (negative inside) and the outward unit normal there (the gradient of the
 * distance; on edges and corners of a box the direction to the nearest
 * surface point).  Kinds are GSL-style constant type descriptors
 * (cf_obstacle_plane, ...); the fields of cf_obstacle each kind reads:
 *   plane:    c a point on it, a its unit normal (the free side);
 *   sphere:   c centre, r radius;
 *   cylinder: c centre, a unit axis, r radius, len half length along a
 *             (0: infinite);
 *   box:      c centre, h[3] half extents along x, y, z;
 *   table:    c centre of the top face, h[0], h[1] half extents of the top
 *             along x, y, h[2] the thickness of the top (a box below c; its
 *             top face and edges are what the cloth touches);
 *   needles:  the implicit surface (3.16) of thesis §3.6.3, free where
 *             H = k[0] k[1] (z - c_z) - sin(k[0] (x - c_x)) sin(k[0] (y - c_y))
 *             >= 0 (c1 = k[0], c2 = k[1]; the distance is H / |grad H|),
 *             with its peaks (3.17), needle tips of radius ~1 / (c1^2 A), as
 *             sharp points: those within h[0], h[1] of c in x, y are kept
 *             off every triangle of the cloth (like the stick's ends);
 *   stick:    a capsule (the stick of the hitting experiments, thesis
 *             §4.3.2): the segment c +- len a, radius r.  Besides its
 *             nodes, every cloth edge is kept outside it (edge-segment
 *             rows, contact.c): a stick thinner than the mesh would pass
 *             between the nodes.  With track != NULL its two endpoints
 *             follow a recording instead of c, a, len and the rigid motion:
 *             track[6 f .. 6 f + 5] are endpoint 0 and endpoint 1 at time
 *             f track_dt (f < track_n), linear in between, held before the
 *             first and after the last sample (borrowed: the array must
 *             outlive every copy of the obstacle).
 * Prescribed rigid motion (both optional): translation at velocity vel
 * (m/s) and rotation at omega (rad/s, right-handed) about the unit axis
 * rot_axis through the point rot_c (which moves with vel): at time t a body
 * point q is at R(omega t) (q - rot_c) + rot_c + vel t.  mu: Coulomb
 * friction coefficient of the cloth on this obstacle (>= 0). */
typedef struct cf_obstacle_type cf_obstacle_type;
typedef struct {
  const cf_obstacle_type *type;
  double c[3], a[3], h[3];
  double r, len;
  double k[2];     /* kind parameters (needles: c1, c2) */
  double mu;
  double vel[3];
  double omega, rot_axis[3], rot_c[3];
  const double *track; /* stick only: recorded endpoints (see above) */
  int track_n;
  double track_dt;
} cf_obstacle;

struct cf_obstacle_type {
  const char *name;
  /* signed distance of body-frame point p, outward unit normal into n */
  double (*distance)(const cf_obstacle *o, const double p[3], double n[3]);
  /* the kind's fields are valid (names the offending field) */
  int (*check)(const cf_obstacle *o, cf_error *err);
  /* its sharp points in the body frame into q[3 m] (q may be NULL), their
   * count m returned; NULL: none (a stick's two ends come from its segment,
   * cf_obstacle_points) */
  int (*points)(const cf_obstacle *o, double *q);
};

extern const cf_obstacle_type *cf_obstacle_plane;
extern const cf_obstacle_type *cf_obstacle_sphere;
extern const cf_obstacle_type *cf_obstacle_cylinder;
extern const cf_obstacle_type *cf_obstacle_box;
extern const cf_obstacle_type *cf_obstacle_table;
extern const cf_obstacle_type *cf_obstacle_stick;
extern const cf_obstacle_type *cf_obstacle_needles;
/* The kind named name ("plane", "sphere", "cylinder", "box", "table",
 * "stick", "needles"), or NULL. */
const cf_obstacle_type *cf_obstacle_type_find(const char *name);
/* o: output, zeroed, of kind t, rot_axis = a = e_z, no motion, mu = 0; a
 * stick's radius CF_STICK_RADIUS (the thesis' stick, §4.3.2). */
#define CF_STICK_RADIUS 0.0075
void cf_obstacle_init(cf_obstacle *o, const cf_obstacle_type *t);
/* o: output, a table whose top face is at height top[0] and spans x in
 * top[1]..top[2], y in top[3]..top[4] (a recording's /table), 3 cm thick,
 * at rest, friction mu. */
#define CF_TABLE_THICKNESS 0.03
void cf_obstacle_table_at(cf_obstacle *o, const double top[5], double mu);
/* o: output, a frictionless stick of radius r following track[6 n] (its two
 * endpoints every dt from t = 0; borrowed, see cf_obstacle.track). */
void cf_obstacle_stick_tracked(cf_obstacle *o, const double *track, int n, double dt, double r);
/* Valid kind, fields, finite motion, mu >= 0; names the field. */
int cf_obstacle_check(const cf_obstacle *o, cf_error *err);
/* Signed distance of world point p to the obstacle at time t; its outward
 * unit normal (world frame) into n[3] (output, may be NULL). */
double cf_obstacle_distance(const cf_obstacle *o, double t, const double p[3], double n[3]);
/* Velocity at time t of the obstacle's material point at world point p
 * (vel + omega rot_axis x (p - rot_c(t)); a tracked stick: its endpoints'
 * velocities interpolated at the point of its axis nearest p) into v[3]
 * (output). */
void cf_obstacle_velocity(const cf_obstacle *o, double t, const double p[3], double v[3]);
/* The obstacle's sharp points at time t (a stick's two ends, the needles'
 * tips in their field) into q[3 m] (output, may be NULL: count only);
 * returns m (0: none). */
int cf_obstacle_points(const cf_obstacle *o, double t, double *q);
#define CF_OBSTACLE_MAX_POINTS 4096
/* A stick's axis at time t: endpoints into e0[3], e1[3] (output); returns
 * 1, or 0 (nothing written) when o is not a stick. */
int cf_obstacle_segment(const cf_obstacle *o, double t, double e0[3], double e1[3]);
/* Closest points of the segments a0-a1 and b0-b1: their parameters into
 * *s (on a) and *u (on b), both in [0, 1]; returns the distance. */
double cf_segment_closest(const double a0[3], const double a1[3], const double b0[3], const double b1[3], double *s,
                          double *u);

/* Contacts in the projection (thesis §3.3-§3.5, contact.c): node-obstacle
 * constraints H = distance - thickness >= 0 with friction, solved by the
 * active-set method of Algorithm 2 together with the metric constraints
 * (or by Ipopt, the interior-point baseline). */
typedef enum { CF_CONTACT_ACTIVE_SET = 0, CF_CONTACT_IPOPT = 1 } cf_contact_solver;
struct cf_qp;
typedef struct {
  double thickness; /* tau0, m: nodes are kept this far outside (default 2e-3) */
  double eps_h;     /* eps1 of (3.5), m: min H >= -eps_h at convergence (default 1e-5) */
  double eps_x;     /* eps2 of (3.5), m: the friction displacement of the next
                       iteration must be below it (default 1e-5; 1e-6 did
                       not converge in 15 iterations where the cloth wraps
                       around an edge: test_contact's box) */
  int max_active_set; /* active-set changes per projection iteration before
                         giving up (default 0: 2 x candidate pairs + 20) */
  int updates;      /* 1 (default): working-set changes update the factor
                       (CHOLMOD rowadd/rowdel on the simplicial LDL'),
                       refactoring when an update fails or its pivot
                       reveals a dependent row; 0: refactor on every change */
  int friction_budget; /* 0 (default): the thesis' friction, iteration j+1
                       from the Δγ_j of iteration j, capped per contact so it
                       never reverses its node; too weak where few contact
                       nodes hold much cloth (docs/contacts.md).  1: what the
                       cap leaves of μ Σ_j Δγ_j is used in the next
                       iterations of the step (holds a sheet on a cylinder
                       the default lets slide; several times the iterations) */
  int self;         /* 1: the cloth's self-collisions too (thesis §3.3-§3.4:
                       node-face and edge-edge rows found by continuous
                       detection between the step's start and each iterate;
                       default 0) */
  double self_mu;   /* friction of the cloth on itself (default 0) */
  double omega;     /* proximity parameter of the detection, in [0, 0.5]
                       (default 0.5, §3.3.3) */
  cf_contact_solver solver; /* the QP (3.4) of each iteration by
                       CF_CONTACT_ACTIVE_SET (default: Algorithm 2 on
                       CHOLMOD) or CF_CONTACT_IPOPT (the interior-point
                       baseline; CF_EINVAL from cf_sim_set_obstacles when
                       the build has no Ipopt) */
  /* For tests and benchmarks (NULL: none): called after every QP the
   * solver solved, with the QP (src/sim/qp.h), its solution dx[3n] and the
   * contact impulses gamma[ni] of its contact rows; all borrowed for the
   * call. */
  void (*observe)(const struct cf_qp *qp, const double *dx, const double *gamma, void *ctx);
  void *observe_ctx;
} cf_contact_params;

void cf_contact_params_default(cf_contact_params *cp);
/* Put n_obs obstacles (copied; n_obs = 0 and cp->self = 0 removes them) in
 * the simulation's projection.  Without obstacles, or on a step where no node comes closer
 * than thickness to any obstacle and none was in contact at the previous
 * step, the step is the contact-free one, bitwise. */
int cf_sim_set_obstacles(cf_sim *s, const cf_obstacle *obs, int n_obs, const cf_contact_params *cp,
                         cf_error *err);

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
