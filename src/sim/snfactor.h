/* snfactor.h — internal: a numeric supernodal Cholesky factorization for
 * the small projection matrices of the fitting meshes, on CHOLMOD's
 * symbolic analysis and into CHOLMOD's own supernodal factor, so that
 * CHOLMOD's solves (and spchol.c's single-precision copy) read it as if
 * cholmod_factorize had written it.  Used by spchol.c below
 * CF_SPCHOL_OWN_FLOPS, where CHOLMOD's calls into BLAS/LAPACK cost more
 * than their arithmetic (measurements in snfactor.c and spchol.h).
 *
 * The factor is L L^T of A + beta I, deterministic: the same bits on every
 * machine that runs the same kernels.c build (the SSE2 and AVX2 builds
 * give the same bits, kernels.h). */
#ifndef CF_SNFACTOR_H
#define CF_SNFACTOR_H
#include <cholmod.h>

typedef struct cf_snfactor cf_snfactor;

/* L (input): a supernodal factor analysed in the natural ordering, whose
 * numeric part is allocated (L->x, xsize entries: one cholmod_factorize
 * call does it).  The workspace keeps no pointer to L: only its symbolic
 * structure is read (the updates between supernodes, listed once).  NULL
 * when L is not supernodal or out of memory. */
cf_snfactor *cf_snfactor_alloc(const cholmod_factor *L);
void cf_snfactor_free(cf_snfactor *w);

/* Where entry (row, col), row >= col, of the factorized matrix is assembled
 * in L->x, or -1 when it is not in L's pattern (or row < col). */
long cf_snfactor_pos(const cf_snfactor *w, const cholmod_factor *L, int row, int col);

/* L (input/output, the same pattern as at alloc) = chol(A + beta I), in
 * place: on input L->x holds A's lower triangle at cf_snfactor_pos and
 * zeros everywhere else (the caller's assembly).  Returns 0 with L->minor
 * = n, or 1 when a pivot is not positive, L->minor then naming its column
 * (L's values are partly overwritten). */
int cf_snfactor_run(cf_snfactor *w, double beta, cholmod_factor *L);

/* x (input/output, n entries, in L's order) = (L L^T)^-1 x with the last
 * successful cf_snfactor_run into L (input).  The same solution as
 * cholmod_solve to rounding, without CHOLMOD's per-supernode BLAS calls. */
void cf_snfactor_solve(cf_snfactor *w, const cholmod_factor *L, double *x);
#endif
