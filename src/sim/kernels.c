/* kernels.c — see kernels.h.  Compiled once as is and, on x86-64, once
 * more with -mavx2 -DCF_KERNELS_AVX2 (src/sim/meson.build).
 *
 * The loop keeps its sums in local vector variables (GCC/Clang vector
 * extensions, VL doubles each: the register width of the build), so each
 * loaded tensor segment serves several multiply-adds; written as a plain
 * loop, the compiler would not keep them in registers. */
#include "kernels.h"

#include <stddef.h>

#if defined(__AVX__)
#define VL 4
#else
#define VL 2
#endif

typedef double vd __attribute__((vector_size(8 * VL)));
typedef double vd_u __attribute__((vector_size(8 * VL), aligned(8))); /* any double address */
#define LOAD(p) (*(const vd_u *)(p))
#define STORE(p, v) (*(vd_u *)(p) = (v))

static void group_grad(const double *Tg, int wp, int w, int nl, const double *px,
                       const double *py, const double *pz, double *gx, double *gy, double *gz) {
  /* two vectors per coordinate: 6 sums + 2 loads + 3 broadcasts fit the
   * 16 registers of either build */
  for (int q = 0; q < w; q += 2 * VL) {
    vd x0 = {0}, x1 = {0}, y0 = {0}, y1 = {0}, z0 = {0}, z1 = {0};
    const double *T = Tg + q;
    for (int j = 0; j < nl; j++, T += wp) {
      vd t0 = LOAD(T), t1 = LOAD(T + VL);
      double a = px[j], b = py[j], c = pz[j];
      x0 += t0 * a;
      x1 += t1 * a;
      y0 += t0 * b;
      y1 += t1 * b;
      z0 += t0 * c;
      z1 += t1 * c;
    }
    STORE(gx + q, x0);
    STORE(gx + q + VL, x1);
    STORE(gy + q, y0);
    STORE(gy + q + VL, y1);
    STORE(gz + q, z0);
    STORE(gz + q + VL, z1);
  }
}

/* ------------------------------------------- single-precision supernodes */
/* Why not cblas_strsv/sgemv per supernode: the solve is latency-bound, not
 * bandwidth-bound (a bf16 copy of the factor, half the bytes, was not
 * faster): strsv works column by column, each column's division, dot
 * product or axpy waiting for the previous one.  Here a supernode is done
 * in panels of SN_PANEL columns: the small triangle of a panel column by
 * column (multiplying by the inverted diagonal), then everything below the
 * panel (the rest of the diagonal block and the rectangle under it) four
 * columns at a time with independent 8-float sums.  (An explicit inverse
 * of each diagonal block instead of the panels: the solves 250 -> 190 us
 * at 40x40, but computing the inverses added 3 ms to each factorization.) */
#define SN_PANEL 8
typedef float vf __attribute__((vector_size(32)));
typedef float vf_u __attribute__((vector_size(32), aligned(4)));
#define LOADF(p) (*(const vf_u *)(p))
#define STOREF(p, v) (*(vf_u *)(p) = (v))

/* sum of the lanes, in a fixed order */
static inline float hsum(vf v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

/* y[0..m) += A x for the m x n column-major A (leading dimension ld),
 * four columns per pass over y; the sign s is +1 or -1. */
static void gemv_n(const float *A, size_t ld, int m, int n, const float *x, float s, float *y) {
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    const float *a0 = A + j * ld, *a1 = a0 + ld, *a2 = a1 + ld, *a3 = a2 + ld;
    float x0 = s * x[j], x1 = s * x[j + 1], x2 = s * x[j + 2], x3 = s * x[j + 3];
    int i = 0;
    for (; i + 8 <= m; i += 8)
      STOREF(y + i, LOADF(y + i) + ((LOADF(a0 + i) * x0 + LOADF(a1 + i) * x1) +
                                    (LOADF(a2 + i) * x2 + LOADF(a3 + i) * x3)));
    for (; i < m; i++) y[i] += (a0[i] * x0 + a1[i] * x1) + (a2[i] * x2 + a3[i] * x3);
  }
  for (; j < n; j++) {
    const float *a0 = A + j * ld;
    float x0 = s * x[j];
    for (int i = 0; i < m; i++) y[i] += a0[i] * x0;
  }
}

/* y[j] = sum_{i < m} A[i, j] x[i] for j < n (A^T x), four columns per pass
 * over x. */
static void gemv_t(const float *A, size_t ld, int m, int n, const float *x, float *y) {
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    const float *a0 = A + j * ld, *a1 = a0 + ld, *a2 = a1 + ld, *a3 = a2 + ld;
    vf s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    int i = 0;
    for (; i + 8 <= m; i += 8) {
      vf xi = LOADF(x + i);
      s0 += LOADF(a0 + i) * xi;
      s1 += LOADF(a1 + i) * xi;
      s2 += LOADF(a2 + i) * xi;
      s3 += LOADF(a3 + i) * xi;
    }
    float r0 = hsum(s0), r1 = hsum(s1), r2 = hsum(s2), r3 = hsum(s3);
    for (; i < m; i++) {
      r0 += a0[i] * x[i];
      r1 += a1[i] * x[i];
      r2 += a2[i] * x[i];
      r3 += a3[i] * x[i];
    }
    y[j] = r0;
    y[j + 1] = r1;
    y[j + 2] = r2;
    y[j + 3] = r3;
  }
  for (; j < n; j++) {
    const float *a0 = A + j * ld;
    vf s0 = {0};
    int i = 0;
    for (; i + 8 <= m; i += 8) s0 += LOADF(a0 + i) * LOADF(x + i);
    float r0 = hsum(s0);
    for (; i < m; i++) r0 += a0[i] * x[i];
    y[j] = r0;
  }
}

static void sn_forward(const float *L, const float *dinv, int nsrow, int nscol, float *u) {
  size_t ld = (size_t)nsrow;
  for (int p = 0; p < nscol; p += SN_PANEL) {
    int e = p + SN_PANEL < nscol ? p + SN_PANEL : nscol;
    for (int j = p; j < e; j++) {
      const float *c = L + j * ld;
      float x = u[j] * dinv[j];
      u[j] = x;
      for (int i = j + 1; i < e; i++) u[i] -= c[i] * x;
    }
    gemv_n(L + p * ld + e, ld, nsrow - e, e - p, u + p, -1.0f, u + e);
  }
}

static void sn_backward(const float *L, const float *dinv, int nsrow, int nscol, float *u, float *y) {
  size_t ld = (size_t)nsrow;
  for (int p = (nscol - 1) / SN_PANEL * SN_PANEL; p >= 0; p -= SN_PANEL) {
    int e = p + SN_PANEL < nscol ? p + SN_PANEL : nscol;
    gemv_t(L + p * ld + e, ld, nsrow - e, e - p, u + e, y);
    for (int j = e; j-- > p;) {
      const float *c = L + j * ld;
      float s = u[j] - y[j - p];
      for (int i = j + 1; i < e; i++) s -= c[i] * u[i];
      u[j] = s * dinv[j];
    }
  }
}

#ifdef CF_KERNELS_AVX2
const cf_kernels cf_kernels_avx2 = {group_grad, sn_forward, sn_backward};
#else
static const cf_kernels kernels_base = {group_grad, sn_forward, sn_backward};

#ifdef CF_HAVE_AVX2_KERNELS
extern const cf_kernels cf_kernels_avx2;
#endif

const cf_kernels *cf_kernels_variant(int avx2) {
  if (!avx2) return &kernels_base;
#ifdef CF_HAVE_AVX2_KERNELS
  if (__builtin_cpu_supports("avx2")) return &cf_kernels_avx2;
#endif
  return NULL;
}

const cf_kernels *cf_kernels_get(void) {
  const cf_kernels *k = cf_kernels_variant(1);
  return k ? k : cf_kernels_variant(0);
}
#endif
