/* projection.h — internal: the fast projection of thesis §2.6.1 / SPEC §4 on
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
  double violation; /* max relative violation at exit */
} cf_proj_result;

/* Project x in place onto C(x) = 0 up to relative tolerance tol.
 * reuse != 0 keeps the last factorization while it still converges fast
 * (chord iterations), refactoring when the violation drops by less than a
 * factor 4 per iteration. */
int cf_proj_solve(cf_proj *p, double *x, double tol, int max_iter, int reuse,
                  cf_proj_result *res, cf_error *err);
/* Forget the factorization (next solve refactors). */
void cf_proj_invalidate(cf_proj *p);
#endif
