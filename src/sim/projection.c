/* projection.c — fast projection (see projection.h); the factorization of
 * J M^-1 J^T is spchol.c's. */
#include "projection_internal.h"
#include "proj_sens.h"

#include <cholmod.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spchol.h"
#include "team.h"

static int cmp_u64(const void *p, const void *q) {
  uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
  return (a > b) - (a < b);
}

/* Slots of every free node, grouped by node. */
static int group_slots(cf_proj *p) {
  const cf_model *md = p->md;
  int n = md->n, ns = md->row_ptr[md->nrows];
  p->node_ptr = calloc((size_t)n + 1, sizeof(int));
  p->node_slot = malloc(sizeof(int) * (size_t)(ns + 1));
  if (!p->node_ptr || !p->node_slot) return CF_ENOMEM;
  for (int s = 0; s < ns; s++)
    if (p->slot_row[s] >= 0 && p->invm[md->nodes[s]] > 0) p->node_ptr[md->nodes[s] + 1]++;
  for (int i = 0; i < n; i++) p->node_ptr[i + 1] += p->node_ptr[i];
  int *fill = malloc(sizeof(int) * (size_t)n);
  if (!fill) return CF_ENOMEM;
  memcpy(fill, p->node_ptr, sizeof(int) * (size_t)n);
  for (int s = 0; s < ns; s++)
    if (p->slot_row[s] >= 0 && p->invm[md->nodes[s]] > 0) p->node_slot[fill[md->nodes[s]]++] = s;
  free(fill);
  return CF_OK;
}

/* Where each contribution (key: column << 32 | row) and each diagonal entry
 * goes in the value array of the factorization. */
static int map_values(cf_proj *p, const uint64_t *key, size_t nc) {
  p->diag = malloc(sizeof(int) * ((size_t)p->na + 1));
  if (!p->diag || cf_spchol_nvalues(p->F) >= INT_MAX) return CF_ENOMEM;
  for (size_t k = 0; k < nc; k++)
    p->cpos[k] = (int)cf_spchol_pos(p->F, (int)(key[k] & 0xffffffffu), (int)(key[k] >> 32));
  for (int a = 0; a < p->na; a++) p->diag[a] = (int)cf_spchol_pos(p->F, a, a);
  return CF_OK;
}

/* Pattern of A (upper triangle, CSC), its analysis and the contribution
 * list. */
static int build_pattern(cf_proj *p) {
  const cf_model *md = p->md;
  int n = md->n;
  size_t nc = 0;
  p->maxd = 1;
  for (int i = 0; i < n; i++) {
    int d = p->node_ptr[i + 1] - p->node_ptr[i];
    nc += (size_t)d * (d + 1) / 2;
    if (d > p->maxd) p->maxd = d;
  }
  uint64_t *key = malloc(sizeof(uint64_t) * (nc + (size_t)p->na + 1));
  p->cpos = malloc(sizeof(int) * (nc + 1));
  p->cptr = malloc(sizeof(int) * ((size_t)n + 1));
  p->gs = malloc(sizeof(double) * 4 * (size_t)p->maxd);
  if (!key || !p->cpos || !p->cptr || !p->gs || nc >= INT_MAX) {
    free(key);
    return CF_ENOMEM;
  }
  size_t q = 0;
  p->cptr[0] = 0;
  for (int i = 0; i < n; i++) {
    for (int u = p->node_ptr[i]; u < p->node_ptr[i + 1]; u++)
      for (int w = u; w < p->node_ptr[i + 1]; w++) {
        int a = p->slot_row[p->node_slot[u]], b = p->slot_row[p->node_slot[w]];
        if (a > b) { int t = a; a = b; b = t; }
        key[q++] = ((uint64_t)b << 32) | (uint64_t)a;
      }
    p->cptr[i + 1] = (int)q;
  }
  for (int a = 0; a < p->na; a++) key[nc + a] = ((uint64_t)a << 32) | (uint64_t)a; /* diagonal */
  size_t nk = nc + p->na;
  uint64_t *sorted = malloc(sizeof(uint64_t) * (nk + 1));
  if (!sorted) {
    free(key);
    return CF_ENOMEM;
  }
  memcpy(sorted, key, sizeof(uint64_t) * nk);
  qsort(sorted, nk, sizeof(uint64_t), cmp_u64);
  size_t nz = 0;
  for (size_t k = 0; k < nk; k++)
    if (nz == 0 || sorted[nz - 1] != sorted[k]) sorted[nz++] = sorted[k];
  cholmod_sparse *A = cholmod_allocate_sparse(p->na, p->na, nz, 1, 1, 1, CHOLMOD_PATTERN, &p->cc);
  int rc = A ? CF_OK : CF_ENOMEM;
  if (A) {
    int *Ap = A->p, *Ai = A->i;
    memset(Ap, 0, sizeof(int) * ((size_t)p->na + 1));
    for (size_t k = 0; k < nz; k++) {
      Ap[(sorted[k] >> 32) + 1]++;
      Ai[k] = (int)(sorted[k] & 0xffffffffu);
    }
    for (int b = 0; b < p->na; b++) Ap[b + 1] += Ap[b];
    p->F = cf_spchol_alloc(A, &p->cc);
    p->pcg = p->F && cf_spchol_solve_ratio(p->F) >= CF_PCG_MIN_RATIO;
    p->max_cg = p->F && cf_spchol_flops(p->F) >= CF_NEWTON_HUGE_FLOPS ? CF_NEWTON_MAX_CG_HUGE : CF_NEWTON_MAX_CG;
    p->single = p->F && cf_spchol_flops(p->F) >= CF_PCG_SINGLE_FLOPS && cf_spchol_keep_single(p->F) == 0;
    cholmod_free_sparse(&A, &p->cc);
    rc = p->F ? map_values(p, key, nc) : CF_ESOLVER;
  }
  free(key);
  free(sorted);
  return rc;
}

static void proj_destroy(cf_proj *p) {
  cf_spchol_free(p->F, &p->cc);
  cholmod_finish(&p->cc);
}

void cf_proj_free(cf_proj *p) {
  if (!p) return;
  proj_destroy(p);
  cf_psens_free(p->sens);
  CF_FREE_ALL(p->grp, p->invm, p->slot_row, p->G, p->C, p->Gb, p->Cb, p->node_ptr, p->node_slot, p->cptr, p->cpos,
              p->gs, p->diag, p->dl, p->xb, p->cg, p->rs_ptr, p->rs_slot, p->U);
  cf_team_free(p->team);
  free(p);
}

static int select_rows(cf_proj *p) {
  const cf_model *md = p->md;
  int ns = md->row_ptr[md->nrows];
  p->slot_row = malloc(sizeof(int) * ((size_t)ns + 1));
  p->G = malloc(sizeof(double) * 3 * ((size_t)ns + 1));
  p->C = malloc(sizeof(double) * ((size_t)md->nrows + 1));
  p->Gb = malloc(sizeof(double) * 3 * ((size_t)ns + 1));
  p->Cb = malloc(sizeof(double) * ((size_t)md->nrows + 1));
  p->dl = malloc(sizeof(double) * ((size_t)md->nrows + 1));
  p->grp = malloc(sizeof(int) * ((size_t)md->ngroups + 1));
  p->cg = malloc(sizeof(double) * 4 * ((size_t)md->nrows + 1));
  if (!p->slot_row || !p->G || !p->C || !p->dl || !p->Gb || !p->Cb || !p->grp || !p->cg)
    return CF_ENOMEM;
  p->na = p->ng = 0;
  for (int k = 0; k < md->ngroups; k++) {
    int r = md->grp_row[k];
    for (int s = md->row_ptr[r]; s < md->row_ptr[r + 1]; s++)
      if (p->invm[md->nodes[s]] > 0) {
        p->grp[p->ng++] = k;
        break;
      }
  }
  for (int r = 0; r < md->nrows; r++) {
    int free_node = 0;
    for (int s = md->row_ptr[r]; s < md->row_ptr[r + 1]; s++) free_node |= p->invm[md->nodes[s]] > 0;
    int a = free_node ? p->na++ : -1;
    for (int s = md->row_ptr[r]; s < md->row_ptr[r + 1]; s++) p->slot_row[s] = a;
  }
  return CF_OK;
}

/* Part boundaries of the split loops (about half the slots each side) and
 * the slots of every active row ordered by node, so that matrix_times can
 * add to each row in the order the one-pass loop does. */
static int setup_split(cf_proj *p) {
  const cf_model *md = p->md;
  int n = md->n, total = p->node_ptr[n];
  p->rs_ptr = calloc((size_t)p->na + 1, sizeof(int));
  p->rs_slot = malloc(sizeof(int) * ((size_t)total + 1));
  p->U = malloc(sizeof(double) * 3 * ((size_t)n + 1));
  if (!p->rs_ptr || !p->rs_slot || !p->U) return CF_ENOMEM;
  p->node_cut = 0;
  while (p->node_cut < n && 2 * p->node_ptr[p->node_cut] < total) p->node_cut++;
  for (int i = 0; i < n; i++) /* slots by node: each row's list comes out in node order */
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) p->rs_ptr[p->slot_row[p->node_slot[k]] + 1]++;
  for (int a = 0; a < p->na; a++) p->rs_ptr[a + 1] += p->rs_ptr[a];
  int *fill = malloc(sizeof(int) * ((size_t)p->na + 1));
  if (!fill) return CF_ENOMEM;
  memcpy(fill, p->rs_ptr, sizeof(int) * (size_t)p->na);
  for (int i = 0; i < n; i++)
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++)
      p->rs_slot[fill[p->slot_row[p->node_slot[k]]]++] = p->node_slot[k];
  free(fill);
  p->row_cut = 0;
  while (p->row_cut < p->na && 2 * p->rs_ptr[p->row_cut] < total) p->row_cut++;
  int a = 0, half = md->row_ptr[md->nrows] / 2;
  p->grp_cut = p->ng;
  for (int k = 0; k < p->ng; k++) {
    int r0 = md->grp_row[p->grp[k]];
    if (md->row_ptr[r0] >= half) {
      p->grp_cut = k;
      p->row_at_grp_cut = a;
      break;
    }
    a += md->grp_row[p->grp[k] + 1] - r0;
  }
  if (p->grp_cut == p->ng) p->row_at_grp_cut = a;
  p->split = 1;
  return CF_OK;
}

cf_proj *cf_proj_alloc(const cf_model *md, const double *invm, cf_error *err) {
  cf_proj *p = calloc(1, sizeof *p);
  if (!p) {
    cf_error_set(err, CF_ENOMEM, "projection: out of memory");
    return NULL;
  }
  p->md = md;
  cholmod_start(&p->cc);
  p->cc.print = 0;
  p->cc.error_handler = NULL;
  p->invm = malloc(sizeof(double) * md->n);
  p->xb = malloc(sizeof(double) * 3 * md->n);
  int rc = p->invm && p->xb ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    memcpy(p->invm, invm, sizeof(double) * md->n);
    rc = select_rows(p);
  }
  if (rc == CF_OK) rc = group_slots(p);
  if (rc == CF_OK && p->na > 0) rc = build_pattern(p);
  if (rc == CF_OK && p->na > 0 && p->single) rc = setup_split(p);
  if (rc != CF_OK) {
    cf_error_set(err, rc, "projection: %s while setting up J M^-1 J^T (%d rows)",
                 rc == CF_ENOMEM ? "out of memory" : "symbolic analysis failed", p->na);
    cf_proj_free(p);
    return NULL;
  }
  return p;
}

int cf_proj_set_threads(cf_proj *p, int threads) {
  if (!p->split || threads < 2 || p->team) return CF_OK;
  p->team = cf_team_alloc(); /* NULL: one thread, the same results */
  return CF_OK;
}

int cf_proj_threads(const cf_proj *p) { return p->team ? 2 : 1; }

int cf_proj_large(const cf_proj *p) { return p->split; }

void cf_proj_invalidate(cf_proj *p) { p->have_factor = 0; }

void cf_proj_set_pcg(cf_proj *p, int on) { p->pcg = on != 0; }

int cf_proj_uses_pcg(const cf_proj *p) { return p->pcg; }

/* Half gradients and C of all active rows; returns max relative violation
 * and stores the sum of squared violations (the merit function
 * that Newton/Levenberg-Marquardt steps decrease) in p->merit. */
/* Groups [k0, k1), the first active row a; returns their max violation. */
static double eval_groups(cf_proj *p, const double *x, int k0, int k1, int a) {
  const cf_model *md = p->md;
  double v = 0, val[CF_GROUP_MAX_ROWS];
  for (int k = k0; k < k1; k++) {
    int r0 = md->grp_row[p->grp[k]], m = md->grp_row[p->grp[k] + 1] - r0;
    cf_model_group_half_grad(md, p->grp[k], x, p->G + 3 * md->row_ptr[r0], val);
    for (int t = 0; t < m; t++, a++) {
      double c = val[t] - md->c0[r0 + t];
      p->C[a] = c;
      double q = fabs(c) / md->scale[r0 + t];
      if (!(q <= v) && v == v) v = q; /* a NaN sticks */
    }
  }
  return v;
}

static void eval_part(void *arg, int part) {
  cf_proj *p = arg;
  p->arg.v[part] = part ? eval_groups(p, p->arg.xc, p->grp_cut, p->ng, p->row_at_grp_cut)
                        : eval_groups(p, p->arg.xc, 0, p->grp_cut, 0);
}

static double eval_rows(cf_proj *p, const double *x) {
  const cf_model *md = p->md;
  if (p->split) {
    p->arg.xc = x;
    cf_team_run(p->team, eval_part, p);
    double m2 = 0, v = p->arg.v[0];
    for (int a = 0; a < p->na; a++) m2 += p->C[a] * p->C[a];
    if (!(p->arg.v[1] <= v) && v == v) v = p->arg.v[1]; /* a NaN sticks */
    p->merit = m2;
    return v;
  }
  double v = 0, m2 = 0, val[CF_GROUP_MAX_ROWS];
  int a = 0; /* active rows are numbered in model order, group after group */
  for (int k = 0; k < p->ng; k++) {
    int r0 = md->grp_row[p->grp[k]], m = md->grp_row[p->grp[k] + 1] - r0;
    cf_model_group_half_grad(md, p->grp[k], x, p->G + 3 * md->row_ptr[r0], val);
    for (int t = 0; t < m; t++, a++) {
      double c = val[t] - md->c0[r0 + t];
      p->C[a] = c;
      double q = fabs(c) / md->scale[r0 + t];
      if (!(q <= v) && v == v) v = q; /* a NaN sticks */
      m2 += c * c;
    }
  }
  p->merit = m2;
  return v;
}

double cf_proj_eval(cf_proj *p, const double *x, cf_proj_rows *rows) {
  double v = p->na ? eval_rows(p, x) : 0;
  rows->n = p->md->n;
  rows->na = p->na;
  rows->invm = p->invm;
  rows->node_ptr = p->node_ptr;
  rows->node_slot = p->node_slot;
  rows->slot_row = p->slot_row;
  rows->G = p->G;
  rows->C = p->C;
  return v;
}

/* The terms of node i: its gradients are gathered by coordinate once, so
 * the dot products of slot u with slots u.. form a loop the compiler
 * vectorizes; the additions into A follow in the original order. */
static void assemble_node(cf_proj *p, int i, double *Ax) {
  int s0 = p->node_ptr[i], d = p->node_ptr[i + 1] - s0;
  double *gx = p->gs, *gy = gx + d, *gz = gy + d, *dot = gz + d;
  for (int u = 0; u < d; u++) {
    const double *g = p->G + 3 * p->node_slot[s0 + u];
    gx[u] = g[0];
    gy[u] = g[1];
    gz[u] = g[2];
  }
  double w = 4 * p->invm[i];
  const int *pos = p->cpos + p->cptr[i];
  for (int u = 0; u < d; u++) {
    double a = gx[u], b = gy[u], c = gz[u];
    for (int v = u; v < d; v++) dot[v] = a * gx[v] + b * gy[v] + c * gz[v];
    for (int v = u; v < d; v++) Ax[*pos++] += w * dot[v];
  }
}

static int factorize(cf_proj *p, cf_error *err) {
  double *Ax = cf_spchol_values(p->F);
  memset(Ax, 0, sizeof(double) * cf_spchol_nvalues(p->F));
  for (int i = 0; i < p->md->n; i++)
    if (p->node_ptr[i + 1] > p->node_ptr[i]) assemble_node(p, i, Ax);
  /* Tikhonov shift: J M^-1 J^T is singular on planar states (docs/design.md §4). */
  double tr = 0;
  for (int a = 0; a < p->na; a++) tr += Ax[p->diag[a]];
  if (cf_spchol_factor(p->F, (1e-9 + p->mu) * tr / p->na, &p->cc)) {
    p->have_factor = 0; /* L is partly overwritten */
    return cf_error_set(err, CF_ESOLVER, "projection: CHOLMOD factorization failed (status %d)",
                        p->cc.status);
  }
  p->have_factor = 1;
  if (p->sens) cf_psens_factored(p);
  return CF_OK;
}

/* x -= M^-1 J^T dl, J = 2G, at the nodes [i0, i1). */
static void update_nodes(cf_proj *p, double *x, const double *dl, int i0, int i1) {
  for (int i = i0; i < i1; i++) {
    if (p->node_ptr[i] == p->node_ptr[i + 1]) continue;
    double dx = 0, dy = 0, dz = 0;
    for (int u = p->node_ptr[i]; u < p->node_ptr[i + 1]; u++) {
      int s = p->node_slot[u];
      double l = dl[p->slot_row[s]];
      dx += p->G[3 * s] * l;
      dy += p->G[3 * s + 1] * l;
      dz += p->G[3 * s + 2] * l;
    }
    double w = 2 * p->invm[i];
    x[3 * i] -= w * dx;
    x[3 * i + 1] -= w * dy;
    x[3 * i + 2] -= w * dz;
  }
}

static void update_part(void *arg, int part) {
  cf_proj *p = arg;
  update_nodes(p, p->arg.x, p->arg.dl, part ? p->node_cut : 0, part ? p->md->n : p->node_cut);
}

static void apply_update(cf_proj *p, double *x, const double *dl) {
  if (!p->split) {
    update_nodes(p, x, dl, 0, p->md->n);
    return;
  }
  p->arg.x = x;
  p->arg.dl = dl;
  cf_team_run(p->team, update_part, p);
}

/* ---------------------------------------------------- tangent projection */

/* out = J v over the active rows, every node's velocity counted (the
 * kinematic nodes' prescribed velocities drive the constraints too). */
static void jacobian_times(const cf_proj *p, const double *v, double *out) {
  const cf_model *md = p->md;
  memset(out, 0, sizeof(double) * (size_t)p->na);
  for (int s = 0; s < md->row_ptr[md->nrows]; s++) {
    int a = p->slot_row[s];
    if (a < 0) continue;
    const double *g = p->G + 3 * s, *w = v + 3 * md->nodes[s];
    out[a] += 2 * (g[0] * w[0] + g[1] * w[1] + g[2] * w[2]);
  }
}

/* out = (J M^-1 J^T + eps I) y, the matrix the factorizations approximate
 * (eps: the Tikhonov shift of a fresh factorization, docs/design.md §4). */
static void node_sums(void *arg, int part) { /* U_i = sum over the slots of node i of g y */
  cf_proj *p = arg;
  const double *y = p->arg.y;
  for (int i = part ? p->node_cut : 0, i1 = part ? p->md->n : p->node_cut; i < i1; i++) {
    double u[3] = {0, 0, 0};
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      const double *g = p->G + 3 * p->node_slot[k];
      double l = y[p->slot_row[p->node_slot[k]]];
      u[0] += g[0] * l;
      u[1] += g[1] * l;
      u[2] += g[2] * l;
    }
    memcpy(p->U + 3 * i, u, sizeof u);
  }
}

static void row_sums(void *arg, int part) { /* out_a = eps y_a + sum over a's slots, by node */
  cf_proj *p = arg;
  const int *nodes = p->md->nodes;
  for (int a = part ? p->row_cut : 0, a1 = part ? p->na : p->row_cut; a < a1; a++) {
    double o = p->arg.eps * p->arg.y[a];
    for (int k = p->rs_ptr[a]; k < p->rs_ptr[a + 1]; k++) {
      int s = p->rs_slot[k], i = nodes[s];
      const double *g = p->G + 3 * s, *u = p->U + 3 * i;
      o += 4 * p->invm[i] * (g[0] * u[0] + g[1] * u[1] + g[2] * u[2]);
    }
    p->arg.out[a] = o;
  }
}

static void matrix_times(cf_proj *p, const double *y, double eps, double *out) {
  if (p->split) {
    p->arg.y = y;
    p->arg.eps = eps;
    p->arg.out = out;
    cf_team_run(p->team, node_sums, p);
    cf_team_run(p->team, row_sums, p);
    return;
  }
  for (int a = 0; a < p->na; a++) out[a] = eps * y[a];
  for (int i = 0; i < p->md->n; i++) {
    int s0 = p->node_ptr[i], s1 = p->node_ptr[i + 1];
    if (s0 == s1) continue;
    double u[3] = {0, 0, 0};
    for (int k = s0; k < s1; k++) {
      const double *g = p->G + 3 * p->node_slot[k];
      double l = y[p->slot_row[p->node_slot[k]]];
      u[0] += g[0] * l;
      u[1] += g[1] * l;
      u[2] += g[2] * l;
    }
    double w = 4 * p->invm[i];
    for (int k = s0; k < s1; k++) {
      const double *g = p->G + 3 * p->node_slot[k];
      out[p->slot_row[p->node_slot[k]]] += w * (g[0] * u[0] + g[1] * u[1] + g[2] * u[2]);
    }
  }
}

static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += a[k] * b[k];
  return s;
}

/* Largest |h r_a| / c_a: the relative violation a residual r of the
 * tangent condition J v = 0 leaves after a step of length h. */
static double residual_violation(const cf_proj *p, const double *r, double h) {
  const cf_model *md = p->md;
  double v = 0;
  int a = 0;
  for (int k = 0; k < p->ng; k++) {
    int r0 = md->grp_row[p->grp[k]], m = md->grp_row[p->grp[k] + 1] - r0;
    for (int t = 0; t < m; t++, a++) {
      double q = fabs(h * r[a]) / md->scale[r0 + t];
      if (!(q <= v) && v == v) v = q; /* a NaN sticks */
    }
  }
  return v;
}

/* Mean diagonal of J M^-1 J^T at the last evaluation (the scale of the
 * Tikhonov and Levenberg-Marquardt shifts). */
static double mean_diag(const cf_proj *p) {
  double tr = 0;
  for (int i = 0; i < p->md->n; i++)
    for (int k = p->node_ptr[i]; k < p->node_ptr[i + 1]; k++) {
      const double *g = p->G + 3 * p->node_slot[k];
      tr += 4 * p->invm[i] * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    }
  return tr / p->na;
}

/* Solve (J M^-1 J^T + eps I) y = b into p->dl by conjugate gradients
 * preconditioned with the current factorization (exact in one iteration
 * when the factor is fresh and used in double precision): the tangent
 * projection of the predictor, and the inexact Newton steps of
 * cf_proj_solve.  Returns the iterations, or
 * -1 when the residual's violation (residual_violation with step h) is
 * still above rtol after max_it. */
static int pcg_solve(cf_proj *p, const double *b, double h, double rtol, int max_it, double eps) {
  int na = p->na;
  double *r = p->cg, *z = r + na, *d = z + na, *q = d + na, *y = p->dl;
  memset(y, 0, sizeof(double) * (size_t)na);
  memcpy(r, b, sizeof(double) * (size_t)na);
  double rz = 0;
  for (int it = 0;; it++) {
    if (residual_violation(p, r, h) <= rtol) return it;
    if (it >= max_it) return -1;
    if (p->single) cf_spchol_solve_single(p->F, r, z, p->team);
    else if (cf_spchol_solve(p->F, r, z, &p->cc)) return -1;
    double rz_new = dot(r, z, na);
    if (it == 0) {
      memcpy(d, z, sizeof(double) * (size_t)na);
    } else {
      double beta = rz_new / rz;
      for (int a = 0; a < na; a++) d[a] = z[a] + beta * d[a];
    }
    rz = rz_new;
    matrix_times(p, d, eps, q);
    double dq = dot(d, q, na);
    if (!(dq > 0)) return -1;
    double step = rz / dq;
    for (int a = 0; a < na; a++) {
      y[a] += step * d[a];
      r[a] -= step * q[a];
    }
  }
}

int cf_proj_tangent(cf_proj *p, const double *x, double *v, double h, double tol,
                    cf_proj_result *res, cf_error *err) {
  res->iterations = res->factorizations = res->cg_iterations = 0;
  res->violation = 0;
  if (p->na == 0) return CF_OK;
  eval_rows(p, x);
  double *b = p->Cb; /* scratch: the next projection evaluates into it */
  jacobian_times(p, v, b);
  double eps = 1e-9 * mean_diag(p), rtol = CF_TANGENT_RTOL * tol;
  int it = p->have_factor ? pcg_solve(p, b, h, rtol, CF_TANGENT_MAX_CG, eps) : -1;
  if (it < 0) { /* no factor, or a stale one too far off: refactor here */
    double mu = p->mu;
    p->mu = 0;
    int rc = factorize(p, err);
    p->mu = mu;
    if (rc) return rc;
    res->factorizations++;
    it = pcg_solve(p, b, h, rtol, CF_TANGENT_MAX_CG, eps);
    if (it < 0)
      return cf_error_set(err, CF_ENOCONV, "tangent projection: no convergence with a fresh factor");
  }
  res->iterations = it;
  apply_update(p, v, p->dl);
  return CF_OK;
}

enum { NO_UPDATE, CHORD_UPDATE, FRESH_UPDATE, PCG_UPDATE };

/* The evaluation at xb is kept when x moves on (G, C are evaluated into
 * the other pair of buffers), so undoing an update needs no new evaluation:
 * swapping back restores bitwise what evaluating at xb again would give. */
static void swap_eval(cf_proj *p) {
  double *t = p->G;
  p->G = p->Gb;
  p->Gb = t;
  t = p->C;
  p->C = p->Cb;
  p->Cb = t;
}

/* Decide whether the last update is kept and whether to refactor.
 * - An update that did not lower the violation is undone.  If it used a
 *   stale factor (chord), refactoring is enough; if the factor was fresh,
 *   Newton itself overshot: near planar states J M^-1 J^T is nearly singular
 *   and its small eigenvalues send nodes far out of the plane, so the
 *   Levenberg-Marquardt shift mu is raised (x10) before refactoring.
 * - A chord update that cut the violation by less than 4x triggers a refactor.
 * Returns 1 if a new factorization is needed. */
static int judge_update(cf_proj *p, double *x, int last, double *v, double prev,
                        double prev_merit) {
  if (last != NO_UPDATE && !(p->merit < prev_merit)) {
    memcpy(x, p->xb, sizeof(double) * 3 * (size_t)p->md->n);
    if (p->sens) cf_psens_restore(p);
    swap_eval(p); /* the evaluation at xb: violation prev, merit prev_merit */
    *v = prev;
    p->merit = prev_merit;
    if (last == FRESH_UPDATE) p->mu = p->mu > 0 ? 10 * p->mu : 1e-6;
    return 1;
  }
  if (last == FRESH_UPDATE && p->mu > 0) p->mu = p->mu < 1e-8 ? 0 : 0.5 * p->mu;
  if (last == CHORD_UPDATE && !(*v <= 0.25 * prev)) return 1;
  if (last == PCG_UPDATE && p->mu > 0) p->mu = p->mu < 1e-8 ? 0 : 0.5 * p->mu;
  return !p->have_factor;
}

int cf_proj_solve(cf_proj *p, double *x, double tol, int max_iter, int reuse,
                  cf_proj_result *res, cf_error *err) {
  res->iterations = res->factorizations = res->cg_iterations = 0;
  res->violation = 0;
  if (p->na == 0) return CF_OK;
  if (p->mu > 0) { /* relax the damping of earlier steps */
    p->mu = p->mu < 1e-8 ? 0 : p->mu * 0.1;
    p->have_factor = 0;
  }
  double prev = INFINITY, prev_merit = INFINITY;
  int last = NO_UPDATE;
  for (;;) {
    if (last != NO_UPDATE) swap_eval(p); /* keep the evaluation at xb */
    double v = eval_rows(p, x);
    int refactor = judge_update(p, x, last, &v, prev, prev_merit) || !reuse;
    res->violation = v;
    if (!isfinite(v))
      return cf_error_set(err, CF_ENONFINITE, "projection: non-finite constraint value");
    if (v <= tol) return CF_OK;
    if (res->iterations >= max_iter || p->mu > 1e6)
      return cf_error_set(err, CF_ENOCONV,
                          "projection: no convergence in %d iterations (violation %.3g > tol %.3g)",
                          res->iterations, v, tol);
    int cg_it = -1;
    if (!refactor && p->pcg) { /* the Newton step, solved with the stale factor as preconditioner */
      cg_it = pcg_solve(p, p->C, 1.0, CF_NEWTON_ETA * v, p->max_cg, (1e-9 + p->mu) * mean_diag(p));
      if (cg_it < 0) refactor = 1;
      else res->cg_iterations += cg_it;
    }
    if (refactor) {
      int rc = factorize(p, err);
      if (rc) return rc;
      res->factorizations++;
    }
    memcpy(p->xb, x, sizeof(double) * 3 * (size_t)p->md->n);
    if (p->sens) cf_psens_save(p);
    if (cg_it < 0 && cf_spchol_solve(p->F, p->C, p->dl, &p->cc))
      return cf_error_set(err, CF_ESOLVER, "projection: CHOLMOD solve failed");
    apply_update(p, x, p->dl);
    if (p->sens && cf_psens_update(p))
      return cf_error_set(err, CF_ESOLVER, "projection: CHOLMOD solve of the sensitivities failed");
    res->iterations++;
    last = refactor ? FRESH_UPDATE : cg_it >= 0 ? PCG_UPDATE : CHORD_UPDATE;
    prev = v;
    prev_merit = p->merit;
  }
}
