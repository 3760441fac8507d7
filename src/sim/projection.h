/* projection.h — internal: the fast projection of thesis §2.6.1 on
 * CHOLMOD.  The sparsity pattern of J M^-1 J^T never changes during a
 * simulation, so the pattern, the symbolic analysis and the list of
 * contributions to every non-zero are built once here; each iteration only
 * refills values in place and (when needed) refactors numerically. */
#ifndef CF_PROJECTION_H
#define CF_PROJECTION_H
#include "model.h"

typedef struct cf_proj cf_proj;

/* invm[n]: inverse lumped mass per node (0 = kinematic node: its position is
 * fixed during the projection).  Rows all of whose nodes are kinematic are
 * left out (their value is decided by the prescribed trajectories).
 * Keeps pointers to md; copies invm. */
cf_proj *cf_proj_alloc(const cf_model *md, const double *invm, cf_error *err);
void cf_proj_free(cf_proj *p);

typedef struct {
  int iterations, factorizations;
  int cg_iterations; /* preconditioned CG iterations of inexact Newton steps */
  double violation; /* max relative violation at exit */
} cf_proj_result;

/* Project x in place onto C(x) = 0 up to relative tolerance tol.
 * reuse != 0 keeps the last factorization while it still converges fast
 * (chord iterations), refactoring when the violation drops by less than a
 * factor 4 per iteration. */
int cf_proj_solve(cf_proj *p, double *x, double tol, int max_iter, int reuse,
                  cf_proj_result *res, cf_error *err);
/* The velocity predictor of a step (see sim.c): project the velocities
 * v[3n] onto the tangent space of the constraints at x,
 * v -= M^-1 J^T y with (J M^-1 J^T) y = J v, in the M-norm, the kinematic
 * nodes' velocities held (they enter J v).  Solved by conjugate gradients
 * preconditioned with the factorization the projection keeps (stale
 * factors are the rule: refactoring at x only when CG does not get the
 * violation h |J v| / c left by a step of length h below
 * CF_TANGENT_RTOL * tol in CF_TANGENT_MAX_CG iterations).  res counts CG
 * iterations and factorizations. */
#define CF_TANGENT_RTOL 0.3
#define CF_TANGENT_MAX_CG 8
/* Inexact Newton steps on large meshes.  While the factorization is stale
 * (chord iterations), the Newton step (J M^-1 J^T) dl = C at the current
 * iterate is solved by conjugate gradients preconditioned with it, to a
 * residual whose relative violation is at most CF_NEWTON_ETA times the
 * current one, in at most CF_NEWTON_MAX_CG iterations; otherwise the
 * matrix is refactored.  The plain chord step (one solve) stalls on fine
 * meshes: its 4x safeguard refactored 6.5 times per step of the 40x40 A2
 * shake.  Used when a factorization costs many solves:
 * cf_spchol_solve_ratio >= CF_PCG_MIN_RATIO (40x40: 67; 20x20: 31; the
 * 7x9 A2 mesh: ~11, where the solves cost more than the factorizations
 * they save).  Measured (A2 sheet, 1 mm noise, steps 50-200): 40x40 ~108
 * -> ~37 ms per step (factorizations 6.5 -> 0.44 per step).  The threshold
 * lies between two measured meshes (AMD EPYC, one core; user
 * time with the inexact steps forced on and off): `clothfit synth` of the
 * bundled denim-A2-shake-fast-I (13x17 nodes, ratio 22.8) 0.92-1.02 s
 * without against 1.50-1.58 s with them; test_locking's 471-node triangles
 * (ratio 29.6) 1.39 -> 0.82 s per simulated second, its 912-node ones
 * (42.3) 10.4 -> 3.8 s; bench_sim's 20x20 (30.6) 6.1-7.6 -> 3.4-4.7 ms per
 * steady step.  The inexact steps land elsewhere along the nearly singular
 * directions of flat regions (test_newton_pcg: same M-norm correction,
 * different point), so a path-sensitive end state moves with them: the
 * locking test's final fold on the jittered square lattices it used
 * before ended up to 10.7 cm apart with them on all four meshes,
 * against 2-3 cm with them on the 900-node mesh only, and the threshold
 * was 50 for that reason, which kept that test on the chord steps.  A
 * solver threshold must not be set to keep a test on its path
 * (docs/notes/locking.md §18), so it is now where the speed measurements put
 * it.  The test's near-equilateral triangles (docs/notes/locking.md §9) then take
 * the inexact steps and their free corners lie at most 4.03 cm apart over the
 * five seeds with OpenBLAS's Zen and Haswell kernels and 4.13 cm with
 * Sandybridge's, but 5.53 cm with Nehalem's (seed 23; 5.4 cm still when run
 * to rest in 12 s) and with Prescott's, two runs still move after 6 s; with
 * the chord steps all five kernel sets kept them within 4.06 cm
 * (docs/notes/locking.md §18).  Keeping the Levenberg-Marquardt shift across steps
 * on large meshes, which cuts the factorizations of a 40x40 sheet starting
 * flat from 14 to 7.3 per step, moved the old 900-node corner 7 cm and is not
 * done. */
#define CF_NEWTON_ETA 0.5
#define CF_NEWTON_MAX_CG 8
/* Factorizations of at least CF_NEWTON_HUGE_FLOPS (~70x70 nodes and up)
 * allow CF_NEWTON_MAX_CG_HUGE CG iterations instead: a factorization there
 * is worth more solves (it stays serial while the solves run on two
 * threads), and the stale factor's CG needs more iterations as the mesh
 * grows.  80x80 A2 shake, 80 steps on two threads: 809 -> 640 ms per step
 * (caps 16 / 48 / 64: 803 / 672 / 735 ms over 40 steps); at 40x40 a cap of
 * 8 stays best (16: +5 %, 32: +25 %). */
#define CF_NEWTON_HUGE_FLOPS 1e9
#define CF_NEWTON_MAX_CG_HUGE 32
#define CF_PCG_MIN_RATIO 27.0
/* The preconditioner solves of PCG run on a single-precision copy of the
 * factor (cf_spchol_keep_single) when a factorization costs at least
 * CF_PCG_SINGLE_FLOPS: 40x40 A2 shake ~20 % per step (steady state, paired
 * runs 31-39 -> 25-30 ms; CG iterations within 2 %).  Not below: the
 * locking test's meshes (13-87 Mflop; the 900-node one takes the inexact
 * steps) keep their path, see CF_NEWTON_ETA. */
#define CF_PCG_SINGLE_FLOPS 1e8
int cf_proj_tangent(cf_proj *p, const double *x, double *v, double h, double tol,
                    cf_proj_result *res, cf_error *err);
/* Inexact Newton steps by PCG on stale factors on or off (default: by the
 * solve ratio, see CF_NEWTON_ETA); for tests and benchmarks. */
void cf_proj_set_pcg(cf_proj *p, int on);
int cf_proj_uses_pcg(const cf_proj *p);
/* Run the projection's loops on two threads (threads >= 2) on large meshes
 * (those with the single-precision preconditioner, CF_PCG_SINGLE_FLOPS);
 * the results are bitwise those of one thread (team.h).  When the helper
 * thread cannot be started the projection runs on one thread (see
 * cf_proj_threads).  Returns CF_OK. */
int cf_proj_set_threads(cf_proj *p, int threads);
/* 1, or 2 when a second thread runs. */
int cf_proj_threads(const cf_proj *p);
/* 1 on large meshes: those whose factorization costs >= CF_PCG_SINGLE_FLOPS
 * (single-precision preconditioner, loops in two parts). */
int cf_proj_large(const cf_proj *p);
/* For the contact solver (contact.c): the active rows' values C and half
 * gradients G at x (the gradient of row slot_row[s] at node nodes[s] is
 * 2 G[3s..3s+2]), evaluated by cf_proj_eval, which returns the max relative
 * violation.  The view's arrays belong to p and are valid until the next
 * call on p. */
typedef struct {
  int n, na;           /* nodes; active rows */
  const double *invm;  /* [n] inverse masses (0: kinematic) */
  const int *node_ptr, *node_slot; /* [n+1], slots of each free node */
  const int *slot_row; /* [slots] active row of each slot (-1: none) */
  const double *G, *C; /* [3 slots] half gradients, [na] values */
} cf_proj_rows;
double cf_proj_eval(cf_proj *p, const double *x, cf_proj_rows *rows);
/* Forget the factorization (next solve refactors). */
void cf_proj_invalidate(cf_proj *p);
#endif
