/* bending.c — bending matrix and unconstrained implicit-Euler step. */
#include "bending.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "element.h"
#include "shear.h"

/* Surface stiffness S at rest, as a CHOLMOD triplet summed into CSC. */
static cholmod_sparse *stiffness(const cf_mesh *m, cholmod_common *cc) {
  cf_element_rule r;
  cf_element_rule_get(m->nv, &r);
  size_t nz = (size_t)m->n_elems * m->nv * m->nv;
  cholmod_triplet *T = cholmod_allocate_triplet(m->n_nodes, m->n_nodes, nz, 0, CHOLMOD_REAL, cc);
  if (!T) return NULL;
  int *Ti = T->i, *Tj = T->j;
  double *Tx = T->x;
  size_t q = 0;
  for (int e = 0; e < m->n_elems; e++) {
    const int *el = m->elems + e * m->nv;
    const double *p[CF_MAX_NV];
    double s[CF_MAX_NV][CF_MAX_NV] = {{0}};
    for (int i = 0; i < m->nv; i++) p[i] = m->x + 3 * el[i];
    for (int l = 0; l < r.ng; l++) {
      double a[3], b[3], E, F, G;
      cf_element_tangents(&r, l, p, a, b);
      double J = cf_element_metric(a, b, &E, &F, &G);
      double det = E * G - F * F, dA = J * r.w[l];
      for (int i = 0; i < m->nv; i++)
        for (int j = 0; j < m->nv; j++) {
          const double *di = r.dN[l][i], *dj = r.dN[l][j];
          double gg = (G * di[0] * dj[0] - F * (di[0] * dj[1] + di[1] * dj[0]) + E * di[1] * dj[1]) / det;
          s[i][j] += gg * dA;
        }
    }
    for (int i = 0; i < m->nv; i++)
      for (int j = 0; j < m->nv; j++) {
        Ti[q] = el[i];
        Tj[q] = el[j];
        Tx[q++] = s[i][j];
      }
  }
  T->nnz = q;
  cholmod_sparse *S = cholmod_triplet_to_sparse(T, q, cc);
  cholmod_free_triplet(&T, cc);
  return S;
}

cholmod_sparse *cf_bending_matrix(const cf_mesh *m, const double *mass, cholmod_common *cc) {
  cholmod_sparse *S = stiffness(m, cc);
  if (!S) return NULL;
  cholmod_dense *w = cholmod_allocate_dense(m->n_nodes, 1, m->n_nodes, CHOLMOD_REAL, cc);
  if (!w) {
    cholmod_free_sparse(&S, cc);
    return NULL;
  }
  /* Only interior rows of the Laplacian L = M^-1 S: at a boundary node S x
   * of a flat (linear) x is the Neumann flux, not zero, so the full
   * S^T M^-1 S would push a flat sheet in its own plane against the
   * inextensibility constraints.  Restricted to interior rows, flat states
   * (and their rigid motions) have zero bending energy. */
  for (int i = 0; i < m->n_nodes; i++)
    ((double *)w->x)[i] = m->is_boundary[i] ? 0 : 1 / sqrt(mass[i]);
  cholmod_scale(w, CHOLMOD_COL, S, cc); /* S[:, I] M_I^-1/2 */
  cholmod_sparse *K = cholmod_aat(S, NULL, 0, 1, cc); /* S_I^T M_I^-1 S_I */
  cholmod_free_dense(&w, cc);
  cholmod_free_sparse(&S, cc);
  if (K) cholmod_sort(K, cc);
  return K;
}

struct cf_ustep {
  int n, nf, diagonal;
  double rho, dt, alpha, delta, g, kappa, c2;
  const double *mass;
  const unsigned char *is_kin;
  int *fidx;          /* node -> free index or -1 */
  cholmod_common cc;
  cholmod_sparse *K;  /* full K, n x n */
  cholmod_factor *L;  /* factor of B_ff */
  cholmod_dense *R, *X, *Y, *E;
  double *w, *kw;     /* [3n] scratch */
  /* rest_bending (cf_params): the unscaled S, the rest curvature vectors
   * c0_k = (M^-1 S x0)_k at interior nodes (0 elsewhere) in each node's rest
   * frame, and scratch for the turned vectors, the normals and the frames. */
  const cf_mesh *mesh;
  cholmod_sparse *S;
  double *c0, *cr, *nrm; /* [3n] each: c0 in the rest frame of its node */
  double *frame;          /* [9n] node frames (node_frames) */
  int *nbr;               /* [n] a neighbour of each node (frame tangent) */
  cf_sstep *shear;    /* ks > 0 or a baseline model: the coupled step of shear.c does the work */
  /* tangents (cf_ustep_tangent): K x, K v*, K dx [3n] each, the
   * right-hand sides and solutions [nf x 3 np] */
  const cf_mesh *m;
  double *tk;
  cholmod_dense *TR, *TX, *TY, *TE;
};

void cf_ustep_free(cf_ustep *u) {
  if (!u) return;
  cf_sstep_free(u->shear);
  if (u->K) cholmod_free_sparse(&u->K, &u->cc);
  if (u->L) cholmod_free_factor(&u->L, &u->cc);
  if (u->R) cholmod_free_dense(&u->R, &u->cc);
  if (u->X) cholmod_free_dense(&u->X, &u->cc);
  if (u->Y) cholmod_free_dense(&u->Y, &u->cc);
  if (u->E) cholmod_free_dense(&u->E, &u->cc);
  if (u->S) cholmod_free_sparse(&u->S, &u->cc);
  if (u->TR) cholmod_free_dense(&u->TR, &u->cc);
  if (u->TX) cholmod_free_dense(&u->TX, &u->cc);
  if (u->TY) cholmod_free_dense(&u->TY, &u->cc);
  if (u->TE) cholmod_free_dense(&u->TE, &u->cc);
  CF_FREE_ALL(u->tk, u->c0, u->nbr, u->frame, u->cr, u->nrm);
  cholmod_finish(&u->cc);
  CF_FREE_ALL(u->fidx, u->w, u->kw, u);
}

/* B_ff = (ρ+dtα) M_ff + c2 K_ff, upper triangle, factored once. */
static int factor_system(cf_ustep *u) {
  const int *Kp = u->K->p, *Ki = u->K->i;
  const double *Kx = u->K->x;
  size_t nz = 0;
  for (int j = 0; j < u->n; j++)
    if (u->fidx[j] >= 0)
      for (int k = Kp[j]; k < Kp[j + 1]; k++) nz += u->fidx[Ki[k]] >= 0;
  cholmod_sparse *B = cholmod_allocate_sparse(u->nf, u->nf, nz + u->nf, 1, 1, 1, CHOLMOD_REAL, &u->cc);
  if (!B) return CF_ENOMEM;
  int *Bp = B->p, *Bi = B->i;
  double *Bx = B->x;
  size_t q = 0;
  for (int j = 0; j < u->n; j++) {
    int fj = u->fidx[j];
    if (fj < 0) continue;
    Bp[fj] = (int)q;
    int diag_done = 0;
    for (int k = Kp[j]; k < Kp[j + 1]; k++) {
      int fi = u->fidx[Ki[k]];
      if (fi < 0 || fi > fj) continue;
      Bi[q] = fi;
      Bx[q] = u->c2 * Kx[k];
      if (fi == fj) {
        Bx[q] += (u->rho + u->dt * u->alpha) * u->mass[j];
        diag_done = 1;
      }
      q++;
    }
    if (!diag_done) { /* K has no entry here: add the mass term */
      Bi[q] = fj;
      Bx[q++] = (u->rho + u->dt * u->alpha) * u->mass[j];
    }
  }
  Bp[u->nf] = (int)q;
  cholmod_sort(B, &u->cc);
  u->L = cholmod_analyze(B, &u->cc);
  int ok = u->L && cholmod_factorize(B, u->L, &u->cc) && u->cc.status == CHOLMOD_OK;
  cholmod_free_sparse(&B, &u->cc);
  return ok ? CF_OK : CF_ESOLVER;
}

/* kw = K w for 3 interleaved columns. */
static void k_apply(const cholmod_sparse *K, const double *w, double *kw, int n) {
  const int *Kp = K->p, *Ki = K->i;
  const double *Kx = K->x;
  memset(kw, 0, sizeof(double) * 3 * n);
  for (int j = 0; j < n; j++)
    for (int k = Kp[j]; k < Kp[j + 1]; k++) {
      double a = Kx[k];
      double *o = kw + 3 * Ki[k];
      o[0] += a * w[3 * j];
      o[1] += a * w[3 * j + 1];
      o[2] += a * w[3 * j + 2];
    }
}

/* Unit node normals of state x: the sum of the adjacent elements' normals
 * (cross products of the diagonals, or of two edges for triangles, so
 * weighted by area), normalized. */
static void node_normals(const cf_mesh *m, const double *x, double *nrm) {
  memset(nrm, 0, sizeof(double) * 3 * m->n_nodes);
  for (int e = 0; e < m->n_elems; e++) {
    const int *el = m->elems + e * m->nv;
    const double *p0 = x + 3 * el[0], *p1 = x + 3 * el[1], *p2 = x + 3 * el[2];
    const double *pa = m->nv == 4 ? x + 3 * el[3] : p0, *pb = m->nv == 4 ? p1 : p0;
    double a[3], b[3], c[3];
    for (int d = 0; d < 3; d++) {
      a[d] = m->nv == 4 ? p2[d] - p0[d] : p1[d] - p0[d];
      b[d] = m->nv == 4 ? pa[d] - pb[d] : p2[d] - p0[d];
    }
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
    for (int i = 0; i < m->nv; i++)
      for (int d = 0; d < 3; d++) nrm[3 * el[i] + d] += c[d];
  }
  for (int i = 0; i < m->n_nodes; i++) {
    double *q = nrm + 3 * i, l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    if (l > 0)
      for (int d = 0; d < 3; d++) q[d] /= l;
  }
}

/* Node frames of state x: the unit normal n, the unit tangent t along the
 * edge to the node's neighbour (projected on the tangent plane), n x t.
 * frame[9i..]: t, n x t, n.  Rigid motions turn the frames exactly. */
static void node_frames(const cf_ustep *u, const double *x, double *nrm, double *frame) {
  node_normals(u->mesh, x, nrm);
  for (int i = 0; i < u->n; i++) {
    const double *n = nrm + 3 * i, *p = x + 3 * i, *q = x + 3 * u->nbr[i];
    double e[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, en = e[0] * n[0] + e[1] * n[1] + e[2] * n[2];
    double *t = frame + 9 * i, *b = t + 3, *nn = t + 6;
    for (int d = 0; d < 3; d++) t[d] = e[d] - en * n[d];
    double l = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int d = 0; d < 3; d++) t[d] = l > 0 ? t[d] / l : 0, nn[d] = n[d];
    b[0] = n[1] * t[2] - n[2] * t[1];
    b[1] = n[2] * t[0] - n[0] * t[2];
    b[2] = n[0] * t[1] - n[1] * t[0];
  }
}

/* Rest curvature for rest_bending: c0 = M^-1 S x0 at interior nodes (0
 * elsewhere), stored in the coordinates of each node's rest frame. */
static int rest_curvature(cf_ustep *u, const cf_mesh *m) {
  u->mesh = m;
  u->S = stiffness(m, &u->cc);
  size_t sz = sizeof(double) * 3 * u->n;
  u->c0 = malloc(sz), u->cr = malloc(sz), u->nrm = malloc(sz), u->nbr = malloc(sizeof(int) * u->n);
  double *frame = u->frame = malloc(3 * sz), *c = malloc(sz);
  int rc = u->S && u->c0 && u->cr && u->nrm && u->nbr && frame && c ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    for (int e = m->n_elems - 1; e >= 0; e--) /* the neighbour: next node of an element */
      for (int i = 0; i < m->nv; i++) u->nbr[m->elems[e * m->nv + i]] = m->elems[e * m->nv + (i + 1) % m->nv];
    k_apply(u->S, m->x, c, u->n);
    node_frames(u, m->x, u->nrm, frame);
    for (int i = 0; i < u->n; i++)
      for (int a = 0; a < 3; a++) {
        const double *f = frame + 9 * i + 3 * a, *ci = c + 3 * i;
        u->c0[3 * i + a] = m->is_boundary[i] ? 0 : (f[0] * ci[0] + f[1] * ci[1] + f[2] * ci[2]) / u->mass[i];
      }
  }
  free(c);
  return rc;
}

/* kw -= dt κ S_I^T (R c0): the rest curvature turned with each node's
 * frame at x (R_k = F_k F0_k^T, lagged: x is the step's start). */
static void rest_force(cf_ustep *u, const double *x) {
  node_frames(u, x, u->nrm, u->frame);
  for (int i = 0; i < u->n; i++) {
    const double *c = u->c0 + 3 * i, *F = u->frame + 9 * i;
    for (int d = 0; d < 3; d++) u->cr[3 * i + d] = c[0] * F[d] + c[1] * F[3 + d] + c[2] * F[6 + d];
  }
  k_apply(u->S, u->cr, u->nrm, u->n); /* S symmetric: S^T cr = S cr; cr = 0 off I */
  double s = u->dt * u->kappa;
  for (int i = 0; i < 3 * u->n; i++) u->kw[i] -= s * u->nrm[i];
}

cf_ustep *cf_ustep_alloc(const cf_mesh *m, const double *mass, const cf_params *p,
                         const unsigned char *is_kin, cf_error *err) {
  cf_ustep *u = calloc(1, sizeof *u);
  if (!u) {
    cf_error_set(err, CF_ENOMEM, "unconstrained step: out of memory");
    return NULL;
  }
  cholmod_start(&u->cc);
  u->cc.print = 0;
  u->n = m->n_nodes;
  u->m = m;
  u->rho = p->rho;
  u->dt = p->dt;
  u->alpha = p->alpha;
  u->delta = p->delta;
  u->g = p->g;
  u->kappa = p->kappa;
  u->c2 = p->dt * p->beta + p->dt * p->dt * p->kappa;
  u->mass = mass;
  u->is_kin = is_kin;
  u->diagonal = p->kappa == 0 && p->beta == 0;
  u->fidx = malloc(sizeof(int) * u->n);
  int rc = u->fidx ? CF_OK : CF_ENOMEM;
  for (int i = 0; rc == CF_OK && i < u->n; i++) u->fidx[i] = is_kin[i] ? -1 : u->nf++;
  if (rc == CF_OK && (p->ks > 0 || p->model != CF_CLOTH_INEXTENSIBLE)) {
    int needs_k = !u->diagonal && p->model != CF_CLOTH_MASS_SPRING; /* mass-spring: bending by springs */
    if (needs_k) u->K = cf_bending_matrix(m, mass, &u->cc);
    u->shear = !needs_k || u->K ? cf_sstep_alloc(m, mass, p, is_kin, u->K, err) : NULL;
    rc = u->shear ? CF_OK : CF_ENOMEM;
  } else if (rc == CF_OK && !u->diagonal && u->nf > 0) {
    u->K = cf_bending_matrix(m, mass, &u->cc);
    u->R = cholmod_allocate_dense(u->nf, 3, u->nf, CHOLMOD_REAL, &u->cc);
    u->w = malloc(sizeof(double) * 3 * u->n);
    u->kw = malloc(sizeof(double) * 3 * u->n);
    rc = u->K && u->R && u->w && u->kw ? factor_system(u) : CF_ENOMEM;
    if (rc == CF_OK && p->rest_bending && p->kappa > 0) rc = rest_curvature(u, m);
  }
  if (rc != CF_OK) {
    cf_error_set(err, rc, "unconstrained step: %s", rc == CF_ENOMEM ? "out of memory"
                                                                   : "factorization of the implicit-Euler matrix failed");
    cf_ustep_free(u);
    return NULL;
  }
  return u;
}

int cf_ustep_apply(cf_ustep *u, const double *x, const double *v, double *vs, cf_error *err) {
  if (u->shear) return cf_sstep_apply(u->shear, x, v, vs, err);
  double dt = u->dt, gz = u->dt * u->delta * u->g;
  if (u->diagonal) {
    double den = u->rho + dt * u->alpha;
    for (int i = 0; i < u->n; i++) {
      if (u->is_kin[i]) continue;
      vs[3 * i] = u->rho * v[3 * i] / den;
      vs[3 * i + 1] = u->rho * v[3 * i + 1] / den;
      vs[3 * i + 2] = (u->rho * v[3 * i + 2] - gz) / den;
    }
    return CF_OK;
  }
  if (u->nf == 0) return CF_OK;
  /* w = dt κ φ + c2 v*_kin (zero velocity at free nodes) */
  for (int i = 0; i < u->n; i++)
    for (int d = 0; d < 3; d++)
      u->w[3 * i + d] = dt * u->kappa * x[3 * i + d] + (u->is_kin[i] ? u->c2 * vs[3 * i + d] : 0);
  k_apply(u->K, u->w, u->kw, u->n);
  if (u->c0) rest_force(u, x);
  double *R = u->R->x;
  int nf = u->nf;
  for (int i = 0; i < u->n; i++) {
    int f = u->fidx[i];
    if (f < 0) continue;
    double m = u->mass[i];
    R[f] = u->rho * m * v[3 * i] - u->kw[3 * i];
    R[f + nf] = u->rho * m * v[3 * i + 1] - u->kw[3 * i + 1];
    R[f + 2 * nf] = u->rho * m * v[3 * i + 2] - gz * m - u->kw[3 * i + 2];
  }
  if (!cholmod_solve2(CHOLMOD_A, u->L, u->R, NULL, &u->X, NULL, &u->Y, &u->E, &u->cc))
    return cf_error_set(err, CF_ESOLVER, "unconstrained step: CHOLMOD solve failed");
  const double *X = u->X->x;
  for (int i = 0; i < u->n; i++) {
    int f = u->fidx[i];
    if (f < 0) continue;
    vs[3 * i] = X[f];
    vs[3 * i + 1] = X[f + nf];
    vs[3 * i + 2] = X[f + 2 * nf];
  }
  return CF_OK;
}

/* Workspace of cf_ustep_tangent for np parameters. */
static int tangent_setup(cf_ustep *u, int np) {
  if (!u->K && !(u->K = cf_bending_matrix(u->m, u->mass, &u->cc))) return CF_ENOMEM;
  if (!u->tk && !(u->tk = malloc(sizeof(double) * 9 * (size_t)u->n))) return CF_ENOMEM;
  if (u->diagonal || (u->TR && u->TR->ncol == (size_t)(3 * np))) return CF_OK;
  if (u->TR) cholmod_free_dense(&u->TR, &u->cc);
  u->TR = cholmod_allocate_dense(u->nf, 3 * np, u->nf, CHOLMOD_REAL, &u->cc);
  return u->TR ? CF_OK : CF_ENOMEM;
}

/* The right-hand side of parameter theta at free node i, coordinate d,
 * the parameter's own terms (kx = K x, kv = K v*). */
static double theta_rhs(const cf_ustep *u, int theta, int i, int d, const double *vs, const double *kx,
                        const double *kv) {
  double h = u->dt, m = u->mass[i];
  switch (theta) {
  case CF_THETA_DELTA: return d == 2 ? -h * u->g * m : 0;
  case CF_THETA_ALPHA: return -h * m * vs[3 * i + d];
  case CF_THETA_KAPPA: return -h * kx[3 * i + d] - h * h * kv[3 * i + d];
  default: return -h * kv[3 * i + d]; /* beta */
  }
}

int cf_ustep_tangent(cf_ustep *u, const cf_ustep_tan *a, cf_error *err) {
  if (u->shear || u->c0)
    return cf_error_set(err, CF_EINVAL, "sensitivities: the step with a shear energy or rest_bending is not "
                        "differentiated");
  int n = u->n, nf = u->nf, rc = tangent_setup(u, a->np);
  if (rc) return cf_error_set(err, rc, "sensitivities: out of memory");
  double *kx = u->tk, *kv = kx + 3 * n, *kd = kv + 3 * n, den = u->rho + u->dt * u->alpha;
  k_apply(u->K, a->x, kx, n);
  k_apply(u->K, a->vs, kv, n);
  for (int j = 0; j < a->np; j++) {
    const double *dx = a->dx + (size_t)3 * n * j, *dv = a->dv + (size_t)3 * n * j;
    double *out = a->dvs + (size_t)3 * n * j, *R = u->TR ? (double *)u->TR->x + (size_t)3 * nf * j : NULL;
    if (u->kappa > 0) k_apply(u->K, dx, kd, n);
    for (int i = 0; i < n; i++)
      for (int d = 0; d < 3; d++) {
        int f = u->fidx[i];
        if (f < 0) {
          out[3 * i + d] = 0;
          continue;
        }
        double r = u->rho * u->mass[i] * dv[3 * i + d] - (u->kappa > 0 ? u->dt * u->kappa * kd[3 * i + d] : 0) +
                   theta_rhs(u, a->theta[j], i, d, a->vs, kx, kv);
        if (R) R[f + d * nf] = r;
        else out[3 * i + d] = r / (den * u->mass[i]);
      }
  }
  if (!u->TR || nf == 0) return CF_OK;
  if (!cholmod_solve2(CHOLMOD_A, u->L, u->TR, NULL, &u->TX, NULL, &u->TY, &u->TE, &u->cc))
    return cf_error_set(err, CF_ESOLVER, "sensitivities: CHOLMOD solve of the implicit step failed");
  for (int j = 0; j < a->np; j++) {
    const double *X = (const double *)u->TX->x + (size_t)3 * nf * j;
    double *out = a->dvs + (size_t)3 * n * j;
    for (int i = 0; i < n; i++)
      for (int d = 0; d < 3 && u->fidx[i] >= 0; d++) out[3 * i + d] = X[u->fidx[i] + d * nf];
  }
  return CF_OK;
}
