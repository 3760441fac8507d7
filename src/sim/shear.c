/* shear.c — unconstrained step with the elastic energies of the cloth
 * models (see shear.h). */
#include "shear.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cf_sstep {
  const cf_mesh *mesh;
  const double *mass;
  const unsigned char *is_kin;
  const cholmod_sparse *K;
  cf_model *F;          /* F rows of every node */
  cf_params p;
  int n, nf;
  int *fidx;            /* node -> free index or -1 */
  double *g, *C, *kw, *w;
  int nruns, *run;      /* runs of consecutive rows over the same nodes: rows
                           run[k] .. run[k+1]-1 (an element's strain rows) */
  double *H;            /* [(3 nl)^2] a run's summed Gauss-Newton Hessian */
  /* The matrix's pattern is the same every step: the first step assembles
   * it as a triplet and CHOLMOD sums it into A, and the later steps add
   * their values straight into A's slots, slot[k] for the k-th put (the
   * bundled A2 shake, `bench_driven REC 0.041 0.307 3 1e-3 1e-4 active-set
   * MODEL`, when it was added: elastic 182 -> 158 us per step, mass-spring
   * 208 -> 182; most of the rest is CHOLMOD's numeric factorization and its
   * permutation of A) */
  cholmod_sparse *A;
  int *slot;
  long nput;
  double *rhs;          /* = R->x (owned by R) */
  cholmod_common cc;
  cholmod_factor *L;
  cholmod_triplet *T;
  cholmod_dense *R, *X, *Y, *E;
};

void cf_sstep_free(cf_sstep *s) {
  if (!s) return;
  cf_model_free(s->F);
  if (s->L) cholmod_free_factor(&s->L, &s->cc);
  if (s->T) cholmod_free_triplet(&s->T, &s->cc);
  if (s->A) cholmod_free_sparse(&s->A, &s->cc);
  free(s->slot);
  if (s->R) cholmod_free_dense(&s->R, &s->cc);
  if (s->X) cholmod_free_dense(&s->X, &s->cc);
  if (s->Y) cholmod_free_dense(&s->Y, &s->cc);
  if (s->E) cholmod_free_dense(&s->E, &s->cc);
  cholmod_finish(&s->cc);
  CF_FREE_ALL(s->fidx, s->run, s->H, s->g, s->C, s->kw, s->w, s);
}

/* The runs of rows over the same nodes, and the largest run's Hessian. */
static int find_runs(cf_sstep *s) {
  const cf_model *F = s->F;
  s->run = malloc(sizeof(int) * (F->nrows + 1));
  if (!s->run) return CF_ENOMEM;
  int maxnl = 0;
  for (int r = 0; r < F->nrows; r++) {
    if (r == 0 || !cf_model_same_nodes(F, r - 1, r)) s->run[s->nruns++] = r;
    int nl = F->row_ptr[r + 1] - F->row_ptr[r];
    if (nl > maxnl) maxnl = nl;
  }
  s->run[s->nruns] = F->nrows;
  s->H = malloc(sizeof(double) * 9 * maxnl * maxnl + 1);
  return s->H ? CF_OK : CF_ENOMEM;
}

/* Triplet capacity: mass + bending (9 per K entry) + a block per run. */
static size_t capacity(const cf_sstep *s) {
  size_t cap = 3 * (size_t)s->n;
  if (s->K) cap += 3 * (size_t)((const int *)s->K->p)[s->n];
  for (int k = 0; k < s->nruns; k++) {
    int r = s->run[k];
    size_t nl = (size_t)(s->F->row_ptr[r + 1] - s->F->row_ptr[r]);
    cap += 9 * nl * nl;
  }
  return cap;
}

cf_sstep *cf_sstep_alloc(const cf_mesh *m, const double *mass, const cf_params *p,
                         const unsigned char *is_kin, const cholmod_sparse *K, cf_error *err) {
  cf_sstep *s = calloc(1, sizeof *s);
  if (!s) {
    cf_error_set(err, CF_ENOMEM, "shear step: out of memory");
    return NULL;
  }
  cholmod_start(&s->cc);
  s->cc.print = 0;
  s->mesh = m;
  s->mass = mass;
  s->is_kin = is_kin;
  s->K = K;
  s->p = *p;
  s->n = m->n_nodes;
  s->F = cf_model_energy_alloc(m, p, err);
  s->fidx = malloc(sizeof(int) * s->n);
  s->w = malloc(sizeof(double) * 3 * s->n);
  s->kw = malloc(sizeof(double) * 3 * s->n);
  if (!s->F || !s->fidx || !s->w || !s->kw) {
    if (s->F || (err && err->code == CF_OK)) cf_error_set(err, CF_ENOMEM, "energy step: out of memory");
    cf_sstep_free(s);
    return NULL;
  }
  for (int i = 0; i < s->n; i++) s->fidx[i] = is_kin[i] ? -1 : s->nf++;
  size_t ns = (size_t)s->F->row_ptr[s->F->nrows];
  s->g = malloc(sizeof(double) * 3 * (ns + 1));
  s->C = malloc(sizeof(double) * (s->F->nrows + 1));
  if (find_runs(s)) {
    cf_error_set(err, CF_ENOMEM, "energy step: out of memory");
    cf_sstep_free(s);
    return NULL;
  }
  s->T = cholmod_allocate_triplet(3 * s->nf, 3 * s->nf, capacity(s), 1, CHOLMOD_REAL, &s->cc);
  s->R = cholmod_allocate_dense(3 * s->nf, 1, 3 * s->nf, CHOLMOD_REAL, &s->cc);
  if (!s->g || !s->C || !s->T || !s->R) {
    cf_error_set(err, CF_ENOMEM, "shear step: out of memory");
    cf_sstep_free(s);
    return NULL;
  }
  s->rhs = s->R->x;
  return s;
}

/* Add value at global DOFs (a, b): into the upper triangle when both are
 * free, into the right-hand side when b is kinematic (a free). */
static void put(cf_sstep *s, int a, int b, double val, const double *vs) {
  int na = a / 3, nb = b / 3;
  if (s->fidx[na] < 0) return;
  int fa = 3 * s->fidx[na] + a % 3;
  if (s->fidx[nb] < 0) {
    s->rhs[fa] -= val * vs[b];
    return;
  }
  int fb = 3 * s->fidx[nb] + b % 3;
  if (fa > fb) return; /* the symmetric partner adds the upper entry */
  if (s->slot) {
    ((double *)s->A->x)[s->slot[s->nput++]] += val;
    return;
  }
  cholmod_triplet *T = s->T;
  ((int *)T->i)[T->nnz] = fa;
  ((int *)T->j)[T->nnz] = fb;
  ((double *)T->x)[T->nnz++] = val;
}

/* Each run's force -w C grad C into the right-hand side and its summed
 * Gauss-Newton Hessian sum_r w_r grad C_r grad C_r^T into the matrix, one
 * block per run (an element's 12 strain rows share their 4 nodes: 12 times
 * fewer entries for CHOLMOD to sort than one block per row; the A2 elastic
 * shake of bench_driven 481 -> 182 us per step when it was added). */
static void shear_terms(cf_sstep *s, const double *x, const double *vs) {
  const cf_model *F = s->F;
  double h = s->p.dt;
  for (int k = 0; k < s->nruns; k++) {
    int r0 = s->run[k], nl = F->row_ptr[r0 + 1] - F->row_ptr[r0], m = 3 * nl;
    const int *nb = F->nodes + F->row_ptr[r0];
    memset(s->H, 0, sizeof(double) * m * m);
    for (int r = r0; r < s->run[k + 1]; r++) {
      double *g = s->g + 3 * F->row_ptr[r];
      double C = cf_model_row_half_grad(F, r, x, g) - F->c0[r], wr = F->w[r];
      for (int q = 0; q < m; q++) g[q] *= 2; /* the gradient of C_r */
      for (int a = 0; a < m; a++) {
        if (s->fidx[nb[a / 3]] >= 0) s->rhs[3 * s->fidx[nb[a / 3]] + a % 3] -= h * wr * C * g[a];
        for (int b = 0; b < m; b++) s->H[a * m + b] += h * h * wr * g[a] * g[b];
      }
    }
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++) put(s, 3 * nb[a / 3] + a % 3, 3 * nb[b / 3] + b % 3, s->H[a * m + b], vs);
  }
}

static void base_terms(cf_sstep *s, const double *x, const double *v, const double *vs) {
  const cf_params *p = &s->p;
  double h = p->dt, c2 = h * p->beta + h * h * p->kappa;
  for (int i = 0; i < s->n; i++) {
    int f = s->fidx[i];
    for (int d = 0; d < 3 && f >= 0; d++) {
      s->rhs[3 * f + d] = p->rho * s->mass[i] * v[3 * i + d] - (d == 2 ? h * p->delta * p->g * s->mass[i] : 0);
      put(s, 3 * i + d, 3 * i + d, (p->rho + h * p->alpha) * s->mass[i], vs);
    }
  }
  if (!s->K) return;
  const int *Kp = s->K->p, *Ki = s->K->i;
  const double *Kx = s->K->x;
  for (int j = 0; j < s->n; j++)
    for (int q = Kp[j]; q < Kp[j + 1]; q++) {
      int i = Ki[q];
      if (s->fidx[i] < 0) continue;
      for (int d = 0; d < 3; d++) {
        s->rhs[3 * s->fidx[i] + d] -= h * p->kappa * Kx[q] * x[3 * j + d];
        put(s, 3 * i + d, 3 * j + d, c2 * Kx[q], vs);
      }
    }
}

/* After the first assembly: A from the triplet, and each put's slot in A. */
static int make_pattern(cf_sstep *s) {
  cholmod_triplet *T = s->T;
  s->A = cholmod_triplet_to_sparse(T, T->nnz, &s->cc);
  s->slot = malloc(sizeof(int) * (T->nnz + 1));
  if (!s->A || !s->slot) return CF_ENOMEM;
  const int *Ap = s->A->p, *Ai = s->A->i, *ti = T->i, *tj = T->j;
  for (size_t k = 0; k < T->nnz; k++) {
    int q = Ap[tj[k]];
    while (q < Ap[tj[k] + 1] && Ai[q] != ti[k]) q++;
    if (q == Ap[tj[k] + 1]) return CF_ESOLVER; /* cannot happen: A holds every entry of T */
    s->slot[k] = q;
  }
  cholmod_free_triplet(&s->T, &s->cc);
  return CF_OK;
}

int cf_sstep_apply(cf_sstep *s, const double *x, const double *v, double *vs, cf_error *err) {
  if (s->nf == 0) return CF_OK;
  if (s->A) memset(s->A->x, 0, sizeof(double) * ((const int *)s->A->p)[s->A->ncol]);
  else s->T->nnz = 0;
  s->nput = 0;
  base_terms(s, x, v, vs);
  shear_terms(s, x, vs);
  if (!s->A && make_pattern(s)) return cf_error_set(err, CF_ENOMEM, "energy step: out of memory");
  if (!s->L) s->L = cholmod_analyze(s->A, &s->cc);
  int ok = s->L && cholmod_factorize(s->A, s->L, &s->cc) && s->cc.status == CHOLMOD_OK &&
           cholmod_solve2(CHOLMOD_A, s->L, s->R, NULL, &s->X, NULL, &s->Y, &s->E, &s->cc);
  if (!ok) return cf_error_set(err, CF_ESOLVER, "energy step: factorization failed (status %d)", s->cc.status);
  const double *X = s->X->x;
  for (int i = 0; i < s->n; i++)
    if (s->fidx[i] >= 0)
      for (int d = 0; d < 3; d++) vs[3 * i + d] = X[3 * s->fidx[i] + d];
  return CF_OK;
}

double cf_sstep_energy(const cf_sstep *s, const double *x) {
  double e = 0;
  const cf_model *F = s->F;
  for (int r = 0; r < F->nrows; r++) {
    double C = cf_model_row_half_grad(F, r, x, s->g + 3 * F->row_ptr[r]) - F->c0[r];
    e += 0.5 * F->w[r] * C * C;
  }
  return e;
}
