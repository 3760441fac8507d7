/* closest.c — the sheet on the cloth model's constraints closest to a
 * given shape (cf_sim.h, cf_sim_closest_state): the start of a simulation
 * fitted to a recording's first frame that no inextensible sheet meets
 * exactly (docs/start.md).
 *
 * What it computes: the fast projection (projection.c, thesis §2.6.1) of y
 * in the metric W = diag(w_i m_i) (m_i node i's lumped mass), i.e. the
 * iterated linearised minimiser of sum_i w_i m_i |x_i - y_i|^2 subject to
 * C(x) = 0; w_i = INFINITY holds node i at y_i.  Workspace: the model and
 * its projection, made and freed here.  Ownership: x is the caller's.
 * Fails (x then the last iterate) with the projection's CF_ENOCONV, with
 * CF_EINVAL for a weight that is not positive, CF_ENOMEM. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "projection.h"

int cf_sim_closest_state(const cf_mesh *mesh, const cf_params *p, const double *w, const double *y, double *x,
                         cf_error *err) {
  int n = mesh->n_nodes;
  for (int i = 0; i < n; i++)
    if (!(w[i] > 0))
      return cf_error_set(err, CF_EINVAL, "closest state: weight %g of node %d, expected > 0", w[i], i);
  memcpy(x, y, sizeof(double) * 3 * n);
  cf_model *md = cf_model_constraints_alloc(mesh, p, err);
  if (!md) return err ? err->code : CF_ENOMEM;
  int rc = CF_OK;
  if (md->nrows > 0) {
    double *invm = malloc(sizeof(double) * n);
    cf_proj *pj = NULL;
    if (invm) {
      for (int i = 0; i < n; i++) invm[i] = isinf(w[i]) ? 0 : 1 / (w[i] * md->mass[i]);
      pj = cf_proj_alloc(md, invm, err);
    }
    cf_proj_result pr;
    cf_error perr;
    rc = !invm ? cf_error_set(err, CF_ENOMEM, "closest state: out of memory")
         : !pj ? (err ? err->code : CF_ENOMEM)
               : cf_proj_solve(pj, x, p->tol, CF_PROJECT_STATE_ITERS, 0, &pr, &perr);
    if (pj && rc) cf_error_set(err, rc, "the start closest to the first frame: %s", perr.msg);
    cf_proj_free(pj);
    free(invm);
  }
  cf_model_free(md);
  return rc;
}
