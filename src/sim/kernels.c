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

#ifdef CF_KERNELS_AVX2
const cf_kernels cf_kernels_avx2 = {group_grad};
#else
static const cf_kernels kernels_base = {group_grad};

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
