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

/* ------------------------------------------- the solves' supernodes */
/* Why not cblas_strsv/sgemv per supernode: the solve is latency-bound, not
 * bandwidth-bound (a bf16 copy of the factor, half the bytes, was not
 * faster): strsv works column by column, each column's division, dot
 * product or axpy waiting for the previous one.  Here a supernode is done
 * in panels of SN_PANEL columns: the small triangle of a panel column by
 * column (multiplying by the inverted diagonal), then everything below the
 * panel (the rest of the diagonal block and the rectangle under it) four
 * columns at a time with independent sums of 8 floats or 4 doubles (the
 * 40x40 figures are the float solve's).  (An explicit inverse
 * of each diagonal block instead of the panels: the solves 250 -> 190 us
 * at 40x40, but computing the inverses added 3 ms to each factorization.) */
#define SN_PANEL 8
typedef float vf __attribute__((vector_size(32)));
typedef float vf_u __attribute__((vector_size(32), aligned(4)));
#define LOADF(p) (*(const vf_u *)(p))
#define STOREF(p, v) (*(vf_u *)(p) = (v))

typedef double v4d __attribute__((vector_size(32)));
typedef double v4d_u __attribute__((vector_size(32), aligned(8)));
#define LOAD4(p) (*(const v4d_u *)(p))
#define STORE4(p, v) (*(v4d_u *)(p) = (v))

/* sums of the lanes, in a fixed order */
static inline float hsum(vf v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

static inline double hsum4(v4d v) { return (v[0] + v[2]) + (v[1] + v[3]); }

#define SN_T float
#define SN_V vf
#define SN_W 8
#define SN_LOAD LOADF
#define SN_STORE STOREF
#define SN_HSUM hsum
#define SN_NAME(f) f##_f
#include "kernels_sn.inc"
#undef SN_T
#undef SN_V
#undef SN_W
#undef SN_LOAD
#undef SN_STORE
#undef SN_HSUM
#undef SN_NAME

#define SN_T double
#define SN_V v4d
#define SN_W 4
#define SN_LOAD LOAD4
#define SN_STORE STORE4
#define SN_HSUM hsum4
#define SN_NAME(f) f##_d
#include "kernels_sn.inc"

/* ------------------------------------------- double-precision supernodes */
/* Tiles of 2 VL rows x 4 columns: 8 sums, 2 loads and 4 broadcasts in the
 * 16 vector registers of either build, each loaded segment of Y serving
 * four columns.  Why not dsyrk/dgemm (CHOLMOD's supernodal update): on the
 * projection matrices of the fitting meshes (n 69-137, supernodes of
 * 2-76 columns) OpenBLAS's call and packing overheads dominate (see
 * snfactor.c for the measurement). */
static void syrk_tile(const double *Y, int ldy, int k, int i, int c, double *C, int ldc) {
  vd s00 = {0}, s01 = {0}, s10 = {0}, s11 = {0}, s20 = {0}, s21 = {0}, s30 = {0}, s31 = {0};
  const double *a = Y + i, *b = Y + c;
  for (int q = 0; q < k; q++, a += ldy, b += ldy) {
    vd a0 = LOAD(a), a1 = LOAD(a + VL);
    double b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    s00 += a0 * b0;
    s01 += a1 * b0;
    s10 += a0 * b1;
    s11 += a1 * b1;
    s20 += a0 * b2;
    s21 += a1 * b2;
    s30 += a0 * b3;
    s31 += a1 * b3;
  }
  double *c0 = C + i + (size_t)c * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
  STORE(c0, LOAD(c0) - s00);
  STORE(c0 + VL, LOAD(c0 + VL) - s01);
  STORE(c1, LOAD(c1) - s10);
  STORE(c1 + VL, LOAD(c1 + VL) - s11);
  STORE(c2, LOAD(c2) - s20);
  STORE(c2 + VL, LOAD(c2 + VL) - s21);
  STORE(c3, LOAD(c3) - s30);
  STORE(c3 + VL, LOAD(c3 + VL) - s31);
}

/* One entry, in the same order of operations as a tile. */
static void syrk_entry(const double *Y, int ldy, int k, int i, int c, double *C, int ldc) {
  double s = 0;
  for (int q = 0; q < k; q++) s += Y[i + (size_t)q * ldy] * Y[c + (size_t)q * ldy];
  C[i + (size_t)c * ldc] -= s;
}

static void syrk_sub(const double *Y, int ldy, int k, int m, int w, double *C, int ldc) {
  int c = 0;
  for (; c + 4 <= w; c += 4) {
    int i = c;
    for (; i + 2 * VL <= m; i += 2 * VL) syrk_tile(Y, ldy, k, i, c, C, ldc);
    for (; i < m; i++)
      for (int t = 0; t < 4; t++) syrk_entry(Y, ldy, k, i, c + t, C, ldc);
  }
  for (int c0 = c; c < w; c++)
    for (int i = c0; i < m; i++) syrk_entry(Y, ldy, k, i, c, C, ldc);
}

#ifdef CF_KERNELS_AVX2
const cf_kernels cf_kernels_avx2 = {group_grad, sn_forward_f, sn_backward_f, syrk_sub, sn_forward_d, sn_backward_d};
#else
static const cf_kernels kernels_base = {group_grad, sn_forward_f, sn_backward_f, syrk_sub, sn_forward_d, sn_backward_d};

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
