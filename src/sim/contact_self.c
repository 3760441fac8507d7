/* contact_self.c — the cloth's self-collision rows in contact.c's projection
 * (thesis §3.3.2, §3.4.1; see contact_internal.h).
 *
 * Pairs are found as the steps go (selfcoll.c: continuous detection between
 * the step's start φⁿ and each iterate φ_j with proximity ω, and with ω = 0
 * once an iterate satisfies (3.5)), so the per-pair arrays grow; each pair
 * is kept (one per node-face or edge-edge pair, found again or not) until a
 * step starts with it outside the working set and many such pairs
 * (cf_contact_self_prune).  Rows, at the iterate (the thesis' form, §3.3.2):
 *   node x_4 and face x_1..x_3: H = ⟨x_4 − Σ b_i x_i, ν⟩ − τ0, the
 *     barycentric coordinates b of x_4's projection, ν the face's normal;
 *   edges x_1 x_2 and x_3 x_4: H = ⟨(1 − s) x_1 + s x_2 − (1 − u) x_3 −
 *     u x_4, ν⟩ − τ0 at their closest points, ν normal to both edges;
 * ν oriented by the side at φⁿ, so that a pair that crossed within the step
 * has H < 0 (the thesis: "ν is oriented such that H_k(φⁿ) ≥ 0").  A pair
 * whose closest points lie on a face's boundary or an edge's end, or whose
 * edges are nearly parallel, is left to the pairs there (CF_PAIR_FAR).
 * Why the normal to both edges and not the closest points' direction: for
 * two layers' edges lying one on the other that direction is rounding, and
 * rows along it threw a collapsing sleeve's nodes sideways at 15 m/s.
 * Workspace: the pair hash (hkey) and the detection's (selfcoll.c). */
#include "contact_internal.h"
#include "selfcoll.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *grow_array(void *p, size_t n, size_t size, size_t old) {
  char *q = realloc(p, n * size + 1);
  if (q && n > old) memset(q + old * size, 0, (n - old) * size);
  return q;
}

int cf_contact_grow(cf_contact *c, int K) {
  if (K <= c->Kcap) return CF_OK;
  int cap = c->Kcap ? c->Kcap : 64;
  while (cap < K) cap *= 2;
  size_t n = (size_t)cap, o = (size_t)c->Kcap, H = CF_QP_HMAX;
#define GROW(f, m)                                                                  \
  do {                                                                              \
    void *p_ = grow_array(c->f, (m) * n, sizeof *c->f, (m) * o);                    \
    if (!p_) return CF_ENOMEM;                                                      \
    c->f = p_;                                                                      \
  } while (0)
  GROW(side, 3); GROW(pn, 1); GROW(pnode, H); GROW(pw, H); GROW(cobs, 1); GROW(H, 1); GROW(N, 3);
  GROW(gam, 1); GROW(sprev, 1); GROW(tprev, 3); GROW(wpos, 1); GROW(W, 1); GROW(P, 1); GROW(ppos, 1);
  GROW(wn, H); GROW(wj, H); GROW(qgam, 1); GROW(dep, 1); GROW(outs, 1); GROW(kpt, 2);
#undef GROW
  for (size_t k = o; k < n; k++) c->wpos[k] = c->ppos[k] = -1;
  c->Kcap = cap;
  return CF_OK;
}

/* Every per-pair field of cf_contact_grow's but the lists W, P, wn and wj
 * (which name pairs: the caller renames them), of pair from into slot to. */
void cf_contact_copy_pair(cf_contact *c, int to, int from) {
  size_t H = CF_QP_HMAX;
#define COPY(f, m) memcpy(c->f + (m) * (size_t)to, c->f + (m) * (size_t)from, (m) * sizeof *c->f)
  COPY(side, 3); COPY(pn, 1); COPY(pnode, H); COPY(pw, H); COPY(cobs, 1); COPY(H, 1); COPY(N, 3);
  COPY(gam, 1); COPY(sprev, 1); COPY(tprev, 3); COPY(wpos, 1); COPY(ppos, 1); COPY(qgam, 1); COPY(dep, 1);
  COPY(outs, 1); COPY(kpt, 2);
#undef COPY
}

/* ---------------------------------------------------------- the pair hash */
static uint32_t pair_hash(int kind, const int *v) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
  for (int q = 0; q < 4; q++) h = (h ^ (uint64_t)(unsigned)v[q]) * 1099511628211ull;
  return (uint32_t)(h ^ (h >> 32));
}

static int pair_kind(const cf_contact *c, int k) { return -1 - c->cobs[k]; }

static int same_pair(const cf_contact *c, int k, int kind, const int *v) {
  return pair_kind(c, k) == kind && !memcmp(c->pnode + CF_QP_HMAX * k, v, 4 * sizeof(int));
}

/* The slot of (kind, v) in the hash: its pair, or an empty slot (-1). */
static int *slot(cf_contact *c, int kind, const int *v) {
  uint32_t m = (uint32_t)c->hcap - 1, i = pair_hash(kind, v) & m;
  while (c->hkey[i] >= 0 && !same_pair(c, c->hkey[i], kind, v)) i = (i + 1) & m;
  return c->hkey + i;
}

/* The hash rebuilt for the current self pairs, with room for twice them. */
static int rehash(cf_contact *c, int want) {
  int cap = 64;
  while (cap < 2 * want) cap *= 2;
  if (cap != c->hcap) {
    free(c->hkey);
    if (!(c->hkey = malloc(sizeof(int) * (size_t)cap))) return CF_ENOMEM;
    c->hcap = cap;
  }
  for (int i = 0; i < cap; i++) c->hkey[i] = -1;
  for (int k = c->K3; k < c->K; k++) *slot(c, pair_kind(c, k), c->pnode + CF_QP_HMAX * k) = k;
  return CF_OK;
}

/* ------------------------------------------------------------ geometry */
static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Self pair k at x: the pair's unit normal into nrm (a face's normal; the
 * normal to both edges, their cross product), the vector from the other
 * side's closest point to the node's (or edge a's) into r, the four
 * weights into w (node/edge a positive); returns 1 when the closest points
 * are interior (edges: by CF_EDGE_END; a node's projection: on the closed
 * face) and the normal is defined (edges more than
 * CF_SELF_PARALLEL apart in angle: nearly parallel edges have no normal,
 * and the node-face pairs of the same touch hold them), else 0. */
#define CF_SELF_PARALLEL 0.1 /* sin of the angle */
#define CF_SELF_ON_FACE 1e-9  /* barycentric slack of a projection on a face's boundary */
static int self_geometry(const cf_contact *c, int k, const double *x, double nrm[3], double r[3], double w[4]) {
  const int *nd = c->pnode + CF_QP_HMAX * k;
  const double *p[4] = {x + 3 * nd[0], x + 3 * nd[1], x + 3 * nd[2], x + 3 * nd[3]};
  double n[3];
  int ok;
  if (pair_kind(c, k) == 1) { /* edges p0-p1 and p2-p3 */
    double e1[3], e2[3], s, u;
    for (int d = 0; d < 3; d++) e1[d] = p[1][d] - p[0][d], e2[d] = p[3][d] - p[2][d];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    cf_segment_closest(p[0], p[1], p[2], p[3], &s, &u);
    for (int d = 0; d < 3; d++) r[d] = (1 - s) * p[0][d] + s * p[1][d] - (1 - u) * p[2][d] - u * p[3][d];
    w[0] = 1 - s, w[1] = s, w[2] = -(1 - u), w[3] = -u;
    ok = sqrt(dot(n, n)) > CF_SELF_PARALLEL * sqrt(dot(e1, e1) * dot(e2, e2)) && s > CF_EDGE_END &&
         s < 1 - CF_EDGE_END && u > CF_EDGE_END && u < 1 - CF_EDGE_END;
  } else { /* node p0, face p1 p2 p3: the barycentric coordinates of its projection */
    double b[3], h = cf_tri_project(p[0], p[1], p[2], p[3], b, n);
    if (isnan(h)) return 0;
    for (int d = 0; d < 3; d++) r[d] = h * n[d];
    w[0] = 1, w[1] = -b[0], w[2] = -b[1], w[3] = -b[2];
    /* the closed face: a node right above a node of the other layer (a
     * sleeve's two layers line up) projects on a vertex, and no edge-edge
     * pair holds it there */
    ok = b[0] >= -CF_SELF_ON_FACE && b[1] >= -CF_SELF_ON_FACE && b[2] >= -CF_SELF_ON_FACE;
  }
  double l = sqrt(dot(n, n));
  for (int d = 0; d < 3; d++) nrm[d] = l > 0 ? n[d] / l : 0;
  return ok;
}

/* The thesis' row (§3.3.2): H = ⟨r, ν⟩ − τ0 with ν the pair's normal at the
 * iterate, turned so that H(φⁿ) ≥ 0: ⟨r(φⁿ), ν⟩ ≥ 0 for r(φⁿ) = Σ w_e
 * x_e(φⁿ) with the iterate's weights (c->xstart); a pair that crossed then
 * has H < 0.  Why not compare ν with the normal at φⁿ: a side wall of a
 * collapsing sleeve turns by 90° within a step, and the two normals' sign
 * was then rounding. */
double cf_contact_self_eval(cf_contact *c, int k, const double *x) {
  double nrm[3], r[3], w[4], rn[3] = {0, 0, 0}, *pw = c->pw + CF_QP_HMAX * k, *nk = c->N + 3 * k;
  if (!self_geometry(c, k, x, nrm, r, w)) {
    memset(pw, 0, 4 * sizeof(double));
    nk[0] = nk[1] = nk[2] = 0;
    return CF_PAIR_FAR;
  }
  for (int e = 0; e < 4; e++)
    for (int q = 0; q < 3; q++) rn[q] += w[e] * c->xstart[3 * c->pnode[CF_QP_HMAX * k + e] + q];
  double o = dot(nrm, rn);
  double sg = o < 0 || (o == 0 && dot(nrm, r) < 0) ? -1 : 1;
  for (int q = 0; q < 3; q++) nk[q] = sg * nrm[q];
  memcpy(pw, w, sizeof w);
  return dot(r, nk) - c->cp.thickness;
}

/* ------------------------------------------------------------ the pairs */
int cf_contact_self_add(cf_contact *c, const double *xprev, const double *x, double omega) {
  const cf_self_pair *sp;
  int m = cf_selfcoll_detect(c->sc, xprev, x, c->cp.thickness, omega, &sp), added = 0;
  if (m < 0) return -1;
  if ((c->K - c->K3 + m) * 2 > c->hcap && rehash(c, c->K - c->K3 + m)) return -1;
  for (int q = 0; q < m; q++) {
    int *s = slot(c, sp[q].kind, sp[q].v);
    if (*s >= 0) continue;
    if (cf_contact_grow(c, c->K + 1)) return -1;
    int k = c->K++;
    c->pn[k] = 4;
    memcpy(c->pnode + CF_QP_HMAX * k, sp[q].v, 4 * sizeof(int));
    memset(c->pw + CF_QP_HMAX * k, 0, 4 * sizeof(double));
    c->cobs[k] = -1 - sp[q].kind;
    c->wpos[k] = c->ppos[k] = -1;
    c->gam[k] = c->sprev[k] = 0;
    *s = k;
    added++;
  }
  return added;
}

int cf_contact_self_prune(cf_contact *c) {
  int in_w = 0;
  for (int k = c->K3; k < c->K; k++) in_w += c->wpos[k] >= 0;
  if (c->K - c->K3 <= 2 * in_w + 256) return CF_OK;
  /* the pattern goes: P holds pair ids */
  for (int f = 0; f < c->np; f++) c->ppos[c->P[f]] = -1;
  c->np = 0;
  cholmod_free_factor(&c->L, &c->cc);
  c->valid = 0;
  int to = c->K3;
  for (int k = c->K3; k < c->K; k++) {
    if (c->wpos[k] < 0) continue;
    if (to != k) {
      cf_contact_copy_pair(c, to, k);
      c->W[c->wpos[to]] = to;
    }
    to++;
  }
  for (int k = to; k < c->K; k++) c->wpos[k] = c->ppos[k] = -1;
  c->K = to;
  return rehash(c, c->K - c->K3);
}
