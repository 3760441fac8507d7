/* proj_sens.c — the tangents of the fast projection's iterations
 * (proj_sens.h says what is differentiated and why that is the derivative
 * of the computed result).
 *
 * Cost.  Every update needs, per parameter, the half gradients' tangents
 * dG = T t of every row, once at the iterate and once at the factor's
 * iterate; row by row that is nl^2 work per row and parameter, the
 * largest cost when it was done so (perf on build/bench/bench_sens).  They
 * enter only through sums over rows weighted by l, so they are formed as
 * the curvature matrix H_l = sum_a l_a T_a (n x n over the free nodes,
 * pattern built once, values once per update for all parameters) applied
 * to t: dJ^T l = 2 H_l t.  The one term that is not of that form,
 * dG_s M^-1 G_s^T l, is t_s . T (M^-1 G_s^T l) row by row: one
 * half-gradient evaluation of the field M^-1 G_s^T l per update, for all
 * parameters.  The shift's tangent is t_s . q with q = sum_a T_a (M^-1
 * G_s,a) formed once per factor.  Then one solve per parameter with the
 * factor.
 *
 * Workspace: one cf_psens per projection, owned by it (p->sens), sized at
 * cf_proj_sens_on: the tangents t, their copies at xb and at the factor's
 * iterate [np][3n], the half gradients there [3 slots], H's pattern and
 * values, per-node vectors [3n] and [np][3n], and row vectors [np][na].
 * It reads cf_proj's fields (projection_internal.h) and calls no function
 * of projection.c.  Failure: CF_ENOMEM at cf_proj_sens_on, CF_ESOLVER when a
 * solve with the factor fails. */
#include "proj_sens.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "projection_internal.h"

struct cf_psens {
  int np, n3, ns3;
  double *t, *tb, *ts; /* [np][3n] tangents of the iterate, of xb, of the factor's iterate */
  double *Gs, *Gw;     /* [3 slots] half gradients at the factor's iterate; of the field w */
  double *q;           /* [3n] sum_a T_a (M^-1 G_s,a): the shift's tangent is c t_s . q */
  double deps[4];      /* tangents of the factor's shift, per parameter */
  int fresh;           /* the factor was made at the current iterate */
  int *hp, *hj, *hpos; /* H: CSR over the free nodes [n+1], [nnz]; entry of each tensor entry (-1: none) */
  double *hv;          /* [nnz] */
  double *u, *w;       /* [3n] G_s^T l, M^-1 G_s^T l */
  double *ht, *hs;     /* [np][3n] H t, H t_s */
  double *rhs, *dl;    /* [np][na] */
};

void cf_psens_free(cf_psens *z) {
  if (!z) return;
  CF_FREE_ALL(z->t, z->tb, z->ts, z->Gs, z->Gw, z->q, z->hv, z->u, z->w, z->ht, z->hs, z->rhs, z->dl, z->hp, z->hj,
              z->hpos, z);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The pairs (i, j) of free nodes that share a row, as keys i << 32 | j
 * into key[] (room for every tensor entry); returns their count. */
static size_t pair_keys(const cf_proj *p, uint64_t *key) {
  const cf_model *md = p->md;
  size_t nk = 0;
  for (int r = 0; r < md->nrows; r++) {
    int s0 = md->row_ptr[r], nl = md->row_ptr[r + 1] - s0;
    for (int l = 0; l < nl; l++)
      for (int j = 0; j < nl && p->slot_row[s0] >= 0; j++) {
        int a = md->nodes[s0 + l], b = md->nodes[s0 + j];
        if (p->invm[a] > 0 && p->invm[b] > 0) key[nk++] = (uint64_t)a << 32 | (uint64_t)b;
      }
  }
  return nk;
}

/* H's pattern (CSR) and where each row's tensor entry goes in it. */
static int build_h(cf_psens *z, const cf_proj *p) {
  const cf_model *md = p->md;
  size_t nt = (size_t)md->tptr[md->nrows];
  uint64_t *key = malloc(sizeof(uint64_t) * (nt + 1));
  z->hp = calloc((size_t)md->n + 1, sizeof(int));
  z->hpos = malloc(sizeof(int) * (nt + 1));
  if (!key || !z->hp || !z->hpos) return free(key), CF_ENOMEM;
  size_t nk = pair_keys(p, key), nz = 0;
  qsort(key, nk, sizeof(uint64_t), cmp_u64);
  for (size_t k = 0; k < nk; k++)
    if (nz == 0 || key[nz - 1] != key[k]) key[nz++] = key[k];
  z->hj = malloc(sizeof(int) * (nz + 1));
  z->hv = malloc(sizeof(double) * (nz + 1));
  if (!z->hj || !z->hv) return free(key), CF_ENOMEM;
  for (size_t k = 0; k < nz; k++) {
    z->hp[(key[k] >> 32) + 1]++;
    z->hj[k] = (int)(key[k] & 0xffffffffu);
  }
  for (int i = 0; i < md->n; i++) z->hp[i + 1] += z->hp[i];
  for (int r = 0; r < md->nrows; r++) {
    int s0 = md->row_ptr[r], nl = md->row_ptr[r + 1] - s0;
    for (int l = 0; l < nl; l++)
      for (int j = 0; j < nl; j++) {
        uint64_t k = (uint64_t)md->nodes[s0 + l] << 32 | (uint64_t)md->nodes[s0 + j];
        const uint64_t *f = bsearch(&k, key, nz, sizeof(uint64_t), cmp_u64);
        z->hpos[md->tptr[r] + l * nl + j] = f && p->slot_row[s0] >= 0 ? (int)(f - key) : -1;
      }
  }
  free(key);
  return CF_OK;
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
  z->ts = calloc(np * n3, sizeof(double));
  z->Gs = calloc(ns3 + 1, sizeof(double));
  z->Gw = calloc(ns3 + 1, sizeof(double));
  z->q = calloc(n3, sizeof(double));
  z->u = calloc(n3, sizeof(double));
  z->w = calloc(n3, sizeof(double));
  z->ht = calloc(np * n3, sizeof(double));
  z->hs = calloc(np * n3, sizeof(double));
  z->rhs = calloc(np * na, sizeof(double));
  z->dl = calloc(np * na, sizeof(double));
  int rc = z->t && z->tb && z->ts && z->Gs && z->Gw && z->q && z->u && z->w && z->ht && z->hs && z->rhs && z->dl
               ? build_h(z, p)
               : CF_ENOMEM;
  if (rc) {
    cf_psens_free(z);
    return rc;
  }
  p->sens = z;
  p->pcg = 0;
  p->have_factor = 0;
  return CF_OK;
}

double *cf_proj_sens_t(cf_proj *p) { return p->sens ? p->sens->t : NULL; }

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* q = sum over the active rows a of T_a (M^-1 G_s,a), at every node. */
static void shift_field(const cf_proj *p, double *q) {
  const cf_model *md = p->md;
  cf_psens *z = p->sens;
  memset(q, 0, sizeof(double) * (size_t)z->n3);
  for (int r = 0; r < md->nrows; r++) {
    int s0 = md->row_ptr[r], nl = md->row_ptr[r + 1] - s0;
    if (p->slot_row[s0] < 0) continue;
    const double *T = md->T + md->tptr[r];
    for (int l = 0; l < nl; l++) {
      double wl = p->invm[md->nodes[s0 + l]];
      if (wl == 0) continue;
      const double *g = z->Gs + 3 * (s0 + l);
      for (int j = 0; j < nl; j++) {
        double c = T[l * nl + j] * wl;
        double *o = q + 3 * md->nodes[s0 + j];
        o[0] += c * g[0], o[1] += c * g[1], o[2] += c * g[2];
      }
    }
  }
}

void cf_psens_factored(cf_proj *p) {
  cf_psens *z = p->sens;
  memcpy(z->Gs, p->G, sizeof(double) * (size_t)z->ns3);
  memcpy(z->ts, z->t, sizeof(double) * (size_t)z->np * z->n3);
  shift_field(p, z->q); /* d trace(A_s) = 8 sum_a sum_l G_s,al . (T_a t_s)_l / m_l = 8 t_s . q */
  for (int j = 0; j < z->np; j++) {
    const double *t = z->ts + (size_t)j * z->n3;
    double dtr = 0;
    for (int i = 0; i < z->n3; i++) dtr += t[i] * z->q[i];
    z->deps[j] = (1e-9 + p->mu) * 8 * dtr / p->na; /* the shift of factorize() */
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

/* H = sum_a l_a T_a over the free nodes, group by group (the rows of a
 * group share their nodes, so their tensors are summed before the
 * scatter). */
static void assemble_h(const cf_proj *p, const double *l) {
  const cf_model *md = p->md;
  cf_psens *z = p->sens;
  memset(z->hv, 0, sizeof(double) * (size_t)z->hp[md->n]);
  for (int k = 0, a = 0; k < p->ng; k++) {
    int r0 = md->grp_row[p->grp[k]], m = md->grp_row[p->grp[k] + 1] - r0;
    int nl = md->row_ptr[r0 + 1] - md->row_ptr[r0], nt = nl * nl;
    const int *pos = z->hpos + md->tptr[r0];
    const double *T = md->T + md->tptr[r0];
    for (int e = 0; e < nt; e++) {
      double c = 0;
      for (int t = 0; t < m; t++) c += l[a + t] * T[(size_t)t * nt + e];
      if (pos[e] >= 0) z->hv[pos[e]] += c;
    }
    a += m;
  }
}

/* out[j] = H t[j] at the free nodes (0 elsewhere), for the np tangents. */
static void h_times(const cf_psens *z, int n, const double *t, double *out) {
  int np = z->np;
  size_t n3 = (size_t)z->n3;
  for (int i = 0; i < n; i++) {
    double o[4][3] = {{0}};
    for (int k = z->hp[i]; k < z->hp[i + 1]; k++) {
      double h = z->hv[k];
      size_t c = 3 * (size_t)z->hj[k];
      for (int j = 0; j < np; j++)
        for (int d = 0; d < 3; d++) o[j][d] += h * t[n3 * j + c + d];
    }
    for (int j = 0; j < np; j++) memcpy(out + n3 * j + 3 * i, o[j], sizeof o[j]);
  }
}

/* The half gradients of the field w at the active groups' slots (T w). */
static void field_half_grad(const cf_proj *p, const double *w, double *Gw) {
  const cf_model *md = p->md;
  double val[CF_GROUP_MAX_ROWS];
  for (int k = 0; k < p->ng; k++) {
    int r0 = md->grp_row[p->grp[k]];
    cf_model_group_half_grad(md, p->grp[k], w, Gw + 3 * md->row_ptr[r0], val);
  }
}

/* rhs[j] = J_k t - dA_s l - de_s l, dA_s l = 4 (dG_s M^-1 u + G_s M^-1 H
 * t_s): per slot 2 G_k . t - 4 (T w . t_s + G_s . M^-1 H t_s), w = M^-1
 * u, for the np tangents t[j], t_s[j], H t_s[j] = hs[j]. */
static void dual_rhs(cf_proj *p, const double *t, const double *ts, const double *hs) {
  cf_psens *z = p->sens;
  int np = z->np, na = p->na;
  size_t n3 = (size_t)z->n3;
  for (int j = 0; j < np; j++)
    for (int a = 0; a < na; a++) z->rhs[(size_t)na * j + a] = -z->deps[j] * p->dl[a];
  for (int i = 0; i < p->md->n; i++) {
    double w = p->invm[i];
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      int s = p->node_slot[k], a = p->slot_row[s];
      const double *g = p->G + 3 * s, *gw = z->Gw + 3 * s, *gs = z->Gs + 3 * s;
      for (int j = 0; j < np; j++) {
        size_t o = n3 * j + 3 * (size_t)i;
        z->rhs[(size_t)na * j + a] += 2 * dot3(g, t + o) - 4 * (dot3(gw, ts + o) + w * dot3(gs, hs + o));
      }
    }
  }
}

/* t[j] -= M^-1 (dJ_k^T l + J_k^T dl[j]) = 2 M^-1 (H t[j] + G_k^T dl[j]) at
 * the free nodes. */
static void primal_update(const cf_proj *p, const double *ht, const double *dl, double *t) {
  const cf_psens *z = p->sens;
  int np = z->np, na = p->na;
  size_t n3 = (size_t)z->n3;
  for (int i = 0; i < p->md->n; i++) {
    double o[4][3];
    for (int j = 0; j < np; j++) memcpy(o[j], ht + n3 * j + 3 * i, sizeof o[j]);
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      int s = p->node_slot[k];
      const double *g = p->G + 3 * s;
      for (int j = 0; j < np; j++) {
        double b = dl[(size_t)na * j + p->slot_row[s]];
        for (int d = 0; d < 3; d++) o[j][d] += g[d] * b;
      }
    }
    double w = 2 * p->invm[i];
    for (int j = 0; j < np; j++)
      for (int d = 0; d < 3; d++) t[n3 * j + 3 * i + d] -= w * o[j][d];
  }
}

int cf_psens_update(cf_proj *p) {
  cf_psens *z = p->sens;
  int n = p->md->n;
  assemble_h(p, p->dl);
  node_sums(p, z->Gs, p->dl, z->u);
  for (int i = 0; i < n; i++)
    for (int d = 0; d < 3; d++) z->w[3 * i + d] = p->invm[i] * z->u[3 * i + d];
  field_half_grad(p, z->w, z->Gw);
  h_times(z, n, z->t, z->ht);
  if (!z->fresh) h_times(z, n, z->ts, z->hs); /* fresh: t_s = t */
  dual_rhs(p, z->t, z->ts, z->fresh ? z->ht : z->hs);
  for (int j = 0; j < z->np; j++)
    if (cf_spchol_solve(p->F, z->rhs + (size_t)p->na * j, z->dl + (size_t)p->na * j, &p->cc)) return CF_ESOLVER;
  primal_update(p, z->ht, z->dl, z->t);
  z->fresh = 0;
  return CF_OK;
}
