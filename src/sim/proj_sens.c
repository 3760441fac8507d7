/* proj_sens.c — the tangents of the fast projection's iterations
 * (proj_sens.h says what is differentiated and why that is the derivative
 * of the computed result).
 *
 * Workspace: one cf_psens per projection, owned by it (p->sens), sized at
 * cf_proj_sens_on: the tangents t and their copy at xb [np][3n], the half
 * gradients at the factor's iterate and their tangents [3 slots],
 * [np][3 slots], the tangents of the half gradients at the current iterate
 * [np][3 slots], per-node sums [2][3n] and two row vectors [na].  It reads
 * cf_proj's fields (projection_internal.h) and calls no function of
 * projection.c.  Failure: CF_ENOMEM at cf_proj_sens_on, CF_ESOLVER when a
 * solve with the factor fails. */
#include "proj_sens.h"

#include <stdlib.h>
#include <string.h>

#include "projection_internal.h"

struct cf_psens {
  int np, n3, ns3;
  double *t, *tb;      /* [np][3n] tangents of the iterate, of xb */
  double *Gs, *dGs;    /* half gradients at the factor's iterate, their tangents */
  double *dGk;         /* tangents of the half gradients at the iterate */
  double deps[4];      /* tangents of the factor's shift, per parameter */
  int fresh;           /* the factor was made at the current iterate */
  double *u, *du;      /* [3n] G_s^T l, dG_s^T l per node */
  double *rhs, *dl;    /* [na] */
};

void cf_psens_free(cf_psens *z) {
  if (!z) return;
  free(z->t);
  free(z->tb);
  free(z->Gs);
  free(z->dGs);
  free(z->dGk);
  free(z->u);
  free(z->du);
  free(z->rhs);
  free(z->dl);
  free(z);
}

int cf_proj_sens_on(cf_proj *p, int np) {
  cf_psens_free(p->sens);
  p->sens = NULL;
  if (np <= 0) return CF_OK;
  if (np > 4) return CF_EINVAL;
  cf_psens *z = calloc(1, sizeof *z);
  if (!z) return CF_ENOMEM;
  const cf_model *md = p->md;
  size_t n3 = 3 * (size_t)md->n, ns3 = 3 * (size_t)md->row_ptr[md->nrows], na = (size_t)p->na + 1;
  z->np = np;
  z->n3 = (int)n3;
  z->ns3 = (int)ns3;
  z->t = calloc(np * n3, sizeof(double));
  z->tb = calloc(np * n3, sizeof(double));
  z->Gs = calloc(ns3 + 1, sizeof(double));
  z->dGs = calloc(np * ns3 + 1, sizeof(double));
  z->dGk = calloc(np * ns3 + 1, sizeof(double));
  z->u = calloc(n3, sizeof(double));
  z->du = calloc(n3, sizeof(double));
  z->rhs = calloc(na, sizeof(double));
  z->dl = calloc(na, sizeof(double));
  if (!z->t || !z->tb || !z->Gs || !z->dGs || !z->dGk || !z->u || !z->du || !z->rhs || !z->dl) {
    cf_psens_free(z);
    return CF_ENOMEM;
  }
  p->sens = z;
  p->pcg = 0;
  p->have_factor = 0;
  return CF_OK;
}

double *cf_proj_sens_t(cf_proj *p) { return p->sens ? p->sens->t : NULL; }

/* dG = the half gradients' tangents along t[3n] (the T tensors applied to
 * t) at the active groups' slots. */
static void half_grad_tangent(const cf_proj *p, const double *t, double *dG) {
  const cf_model *md = p->md;
  double val[CF_GROUP_MAX_ROWS];
  for (int k = 0; k < p->ng; k++) {
    int r0 = md->grp_row[p->grp[k]];
    cf_model_group_half_grad(md, p->grp[k], t, dG + 3 * md->row_ptr[r0], val);
  }
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void cf_psens_factored(cf_proj *p) {
  cf_psens *z = p->sens;
  memcpy(z->Gs, p->G, sizeof(double) * (size_t)z->ns3);
  for (int j = 0; j < z->np; j++) {
    double *dG = z->dGs + (size_t)j * z->ns3, dtr = 0;
    half_grad_tangent(p, z->t + (size_t)j * z->n3, dG);
    for (int i = 0; i < p->md->n; i++) /* d trace(A_s): A_aa = 4 sum_i |G_ai|^2 / m_i */
      for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
        int s = p->node_slot[k];
        dtr += 8 * p->invm[i] * dot3(z->Gs + 3 * s, dG + 3 * s);
      }
    z->deps[j] = (1e-9 + p->mu) * dtr / p->na; /* the shift of factorize() */
  }
  z->fresh = 1;
}

void cf_psens_save(cf_proj *p) {
  cf_psens *z = p->sens;
  memcpy(z->tb, z->t, sizeof(double) * (size_t)z->np * z->n3);
}

void cf_psens_restore(cf_proj *p) {
  cf_psens *z = p->sens;
  memcpy(z->t, z->tb, sizeof(double) * (size_t)z->np * z->n3);
}

/* out[3n] = sum over the slots of each free node of G_slot l_row. */
static void node_sums(const cf_proj *p, const double *G, const double *l, double *out) {
  for (int i = 0; i < p->md->n; i++) {
    double o[3] = {0, 0, 0};
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      int s = p->node_slot[k];
      double a = l[p->slot_row[s]];
      o[0] += G[3 * s] * a;
      o[1] += G[3 * s + 1] * a;
      o[2] += G[3 * s + 2] * a;
    }
    memcpy(out + 3 * i, o, sizeof o);
  }
}

/* rhs = J_k t - dA_s l - de_s l for the tangent t of the iterate, dGs its
 * factor's half-gradient tangents (z->u = G_s^T l is set). */
static void dual_rhs(cf_proj *p, const double *t, const double *dGs, double deps) {
  cf_psens *z = p->sens;
  node_sums(p, dGs, p->dl, z->du);
  for (int a = 0; a < p->na; a++) z->rhs[a] = -deps * p->dl[a];
  for (int i = 0; i < p->md->n; i++) {
    double w = 4 * p->invm[i];
    const double *u = z->u + 3 * i, *du = z->du + 3 * i, *ti = t + 3 * i;
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      int s = p->node_slot[k];
      z->rhs[p->slot_row[s]] += 2 * dot3(p->G + 3 * s, ti) - w * (dot3(dGs + 3 * s, u) + dot3(z->Gs + 3 * s, du));
    }
  }
}

/* t -= M^-1 (dJ_k^T l + J_k^T dl) at the free nodes. */
static void primal_update(const cf_proj *p, const double *dGk, const double *dl, double *t) {
  for (int i = 0; i < p->md->n; i++) {
    double o[3] = {0, 0, 0};
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      int s = p->node_slot[k];
      double a = p->dl[p->slot_row[s]], b = dl[p->slot_row[s]];
      for (int d = 0; d < 3; d++) o[d] += dGk[3 * s + d] * a + p->G[3 * s + d] * b;
    }
    double w = 2 * p->invm[i];
    for (int d = 0; d < 3; d++) t[3 * i + d] -= w * o[d];
  }
}

int cf_psens_update(cf_proj *p) {
  cf_psens *z = p->sens;
  node_sums(p, z->Gs, p->dl, z->u);
  for (int j = 0; j < z->np; j++) {
    double *t = z->t + (size_t)j * z->n3, *dGs = z->dGs + (size_t)j * z->ns3;
    double *dGk = z->fresh ? dGs : z->dGk; /* fresh: the iterate is the factor's */
    if (!z->fresh) half_grad_tangent(p, t, dGk);
    dual_rhs(p, t, dGs, z->deps[j]);
    if (cf_spchol_solve(p->F, z->rhs, z->dl, &p->cc)) return CF_ESOLVER;
    primal_update(p, dGk, z->dl, t);
  }
  z->fresh = 0;
  return CF_OK;
}
