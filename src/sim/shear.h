/* shear.h — internal: the unconstrained step with an elastic energy
 * S = 1/2 sum_r w_r C_r^2 over the energy rows of the cloth model
 * (model_rows.c: the shear energy of thesis §2.4.6, S = ks/2 C_F^T M C_F
 * over the F rows of every node, when ks > 0; the diagonal springs of the
 * quasi-inextensible model; the membrane strains of the elastic one; the
 * springs of the mass-spring one): force -J^T W C, integrated implicitly
 * with the Gauss-Newton Hessian J^T W J (the full Hessian is indefinite).
 * The system couples x, y, z and changes with the state, so it is
 * assembled and factored every step (symbolic analysis once).  Used when
 * the model has energy rows. */
#ifndef CF_SHEAR_H
#define CF_SHEAR_H
#include <cholmod.h>

#include "model.h"

typedef struct cf_sstep cf_sstep;
/* K: the bending matrix (borrowed, may be NULL when kappa = beta = 0, and
 * is for the mass-spring model, whose bending is springs). */
cf_sstep *cf_sstep_alloc(const cf_mesh *m, const double *mass, const cf_params *p,
                         const unsigned char *is_kin, const cholmod_sparse *K, cf_error *err);
void cf_sstep_free(cf_sstep *s);
int cf_sstep_apply(cf_sstep *s, const double *x, const double *v, double *vstar, cf_error *err);
/* Shear energy at x (for tests). */
double cf_sstep_energy(const cf_sstep *s, const double *x);
#endif
