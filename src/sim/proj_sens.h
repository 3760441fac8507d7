/* proj_sens.h — internal: forward sensitivities of the fast projection
 * (projection.c), differentiated as it runs.
 *
 * The projection's end point is not the solution of one system: each
 * accepted update x_{k+1} = x_k - M^-1 J_k^T l_k solves (A_s + e_s I) l_k =
 * C(x_k) with the factor of A_s = J_s M^-1 J_s^T made at an earlier
 * iterate x_s (chord iterations, possibly in an earlier step) and its shift
 * e_s (Tikhonov and Levenberg-Marquardt, proportional to trace A_s), so
 * where it ends on the constraint manifold depends on the path.  The
 * implicit function theorem at the end point therefore does not give the
 * derivative of what is computed (its errors against finite differences
 * are percents).  Here every update is differentiated instead, with the
 * same discrete decisions (which updates are kept, where the factor is
 * made), so the tangent t = dx/dtheta of the iterate is exactly the
 * derivative of the computed iterate wherever those decisions do not
 * change:
 *   dl_k = (A_s + e_s I)^-1 (J_k t_k - dA_s l_k - de_s l_k),
 *   dA_s l = dJ_s M^-1 J_s^T l + J_s M^-1 dJ_s^T l,
 *   t_{k+1} = t_k - M^-1 (dJ_k^T l_k + J_k^T dl_k),
 * with dJ = 2 dG, dG the rows' half gradients (linear in the positions:
 * the T tensors applied to t; this is the curvature term, sum_a l_a
 * grad^2 C_a t).  M (the unit-density lumped masses) does not depend on
 * the parameters, so there is no d(M^-1) term.  An undone update restores
 * t with x; the solves use the step's own factor (no extra
 * factorization), and the inexact Newton steps by conjugate gradients are
 * switched off while sensitivities are on (their iterates would have to be
 * differentiated through every CG iteration): on the meshes that use them
 * (cf_proj_uses_pcg) trajectories with sensitivities on differ from those
 * without, within the tolerance.  Contacts are not differentiated. */
#ifndef CF_PROJ_SENS_H
#define CF_PROJ_SENS_H
#include "projection.h"

typedef struct cf_psens cf_psens;

/* Sensitivities for np parameters on p (np = 0: off, freed).  The tangents
 * start at 0; the factor is forgotten so that the next one is recorded.
 * Also switches the PCG updates off (see above).  CF_OK or CF_ENOMEM. */
int cf_proj_sens_on(cf_proj *p, int np);
/* The tangents of the iterate, [np][3n]: the caller sets them to those of
 * the point it passes to cf_proj_solve and reads them after it (those of
 * its result).  NULL when off. */
double *cf_proj_sens_t(cf_proj *p);

/* Hooks of projection.c (p->sens != NULL): a factor was made at the
 * current iterate; the iterate is saved to xb / restored from it; an
 * update with p->dl and the half gradients p->G at the iterate before it
 * was applied.  cf_psens_update returns CF_OK or CF_ESOLVER. */
void cf_psens_factored(cf_proj *p);
void cf_psens_save(cf_proj *p);
void cf_psens_restore(cf_proj *p);
int cf_psens_update(cf_proj *p);
void cf_psens_free(cf_psens *z);
#endif
