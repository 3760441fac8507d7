/* kernels.h — internal: the inner loop of the constraint evaluation (the
 * half gradients of a row group, model.c), which bounds the projection's
 * cost together with the factorization (docs/design.md §4).
 * It is arithmetic-bound, so on x86-64 kernels.c is compiled twice, for
 * the baseline ISA (SSE2: two doubles per register) and with -mavx2 (four),
 * and cf_kernels_get picks one at run time.
 *
 * Both builds give bitwise the same results: every lane performs the same
 * IEEE operations in the same order (no fused multiply-add: ISO C mode
 * compiles with -ffp-contract=off and FMA is not enabled; the float kernels
 * use vectors of 8 lanes in both builds, two SSE registers each in the
 * baseline one). */
#ifndef CF_KERNELS_H
#define CF_KERNELS_H

/* Row tile of the kernels: arrays are read and written in blocks of up to
 * CF_KERN_TILE rows. */
#define CF_KERN_TILE 16

typedef struct cf_kernels_s {
  /* g[q] = sum_{j < nl} Tg[j*wp + q] p[j] for q < w, per coordinate; the
   * sum over j runs in ascending order, starting from 0.  wp: w rounded up
   * to a multiple of CF_KERN_TILE, Tg zero-padded, g written up to wp. */
  void (*group_grad)(const double *Tg, int wp, int w, int nl, const double *px,
                     const double *py, const double *pz, double *gx, double *gy, double *gz);
  /* One supernode of the single-precision supernodal solves (spchol.c).
   * L: the supernode's values, column-major, nsrow rows (the nscol x nscol
   * lower-triangular diagonal block D first, then the m = nsrow - nscol
   * rows B below it), leading dimension nsrow; dinv[nscol]: the inverses
   * of D's diagonal.  u[nsrow]: the solution vector's entries at the
   * supernode's columns, then m more; y[nscol]: scratch.
   * sn_forward: u[0..nscol) = D^-1 u[0..nscol), then u[nscol..) -= B u[0..nscol).
   * sn_backward: u[0..nscol) = D^-T (u[0..nscol) - B^T u[nscol..)). */
  void (*sn_forward)(const float *L, const float *dinv, int nsrow, int nscol, float *u);
  void (*sn_backward)(const float *L, const float *dinv, int nsrow, int nscol, float *u, float *y);
  /* The update of the double-precision supernodal factorization (snfactor.c):
   * C[i + c*ldc] -= sum_{q < k} Y[i + q*ldy] Y[c + q*ldy] for c < w <= m and
   * 4 floor(c/4) <= i < m: the rows [0, m) of a block of columns of L times
   * the rows [0, w) transposed, its lower trapezoid (and the upper part of
   * the diagonal 4 x 4 tiles); the entries above are not touched.  Every
   * entry's sum runs over q in ascending order from 0 and is subtracted
   * once, whatever the tiling. */
  void (*syrk_sub)(const double *Y, int ldy, int k, int m, int w, double *C, int ldc);
  /* sn_forward and sn_backward in double precision (snfactor.c's solves). */
  void (*sn_forward_d)(const double *L, const double *dinv, int nsrow, int nscol, double *u);
  void (*sn_backward_d)(const double *L, const double *dinv, int nsrow, int nscol, double *u, double *y);
} cf_kernels;

/* The fastest variant this machine runs. */
const cf_kernels *cf_kernels_get(void);
/* The baseline variant (avx2 = 0), or the AVX2 one (NULL when not built or
 * not supported by the CPU); for the tests. */
const cf_kernels *cf_kernels_variant(int avx2);
#endif
