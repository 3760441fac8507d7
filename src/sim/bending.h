/* bending.h — internal: the isometric bending matrix K = S^T M_L^-1 S
 * (thesis §2.5: K = L^T M L, L = M_L^-1 S the discrete Laplacian),
 * S_ij = int grad N_i . grad N_j dA the surface stiffness matrix at rest,
 * and the implicit-Euler unconstrained step that uses it. */
#ifndef CF_BENDING_H
#define CF_BENDING_H
#include <cholmod.h>

#include "model.h"

/* K (n x n, both triangles stored, stype 0), allocated in cc.  The
 * Laplacian rows are those of the interior nodes (see bending.c: deviation
 * from the plain S^T M^-1 S of thesis §2.5, so that a flat sheet is at rest). */
cholmod_sparse *cf_bending_matrix(const cf_mesh *m, const double *mass, cholmod_common *cc);

/* The unconstrained step (ρM + dt D + dt² κK) v* = ρMv − dt(δMg + κKφ),
 * D = αM + βK, with the kinematic velocities prescribed.  The matrix is
 * factored once (it is diagonal when κ = β = 0). */
typedef struct cf_ustep cf_ustep;
cf_ustep *cf_ustep_alloc(const cf_mesh *m, const double *mass, const cf_params *p,
                         const unsigned char *is_kin, cf_error *err);
void cf_ustep_free(cf_ustep *u);
/* vstar[3n]: kinematic nodes' entries must hold their prescribed velocity on
 * entry; the free nodes' entries are computed. */
int cf_ustep_apply(cf_ustep *u, const double *x, const double *v, double *vstar, cf_error *err);
/* The tangent of cf_ustep_apply with respect to np parameters theta[]
 * (cf_theta): with B = (rho + h alpha) M + (h beta + h^2 kappa) K on the
 * free nodes, B dv* = rho M dv - h kappa K dx - dB/dtheta v* - d(h delta M g
 * + h kappa K x + (h beta + h^2 kappa) K_fk v*_k)/dtheta, all parameters
 * in one solve with the step's factor (K built on first use when the step
 * is diagonal).  dx, dv [np][3n] are 0 at the kinematic nodes, and so is
 * the output dvs [np][3n].  Only the plain step (no shear energy, no
 * rest_bending: CF_EINVAL).  CF_OK, CF_ENOMEM or CF_ESOLVER. */
typedef struct {
  int np;
  const int *theta;
  const double *x, *vs; /* the step's start, its v* (kinematic entries prescribed) */
  const double *dx, *dv;
  double *dvs;
} cf_ustep_tan;
int cf_ustep_tangent(cf_ustep *u, const cf_ustep_tan *a, cf_error *err);
#endif
