/* spchol.h — internal: Cholesky factorization of the projection matrix
 * A = J M^-1 J^T + beta I, whose sparsity pattern never changes during a
 * simulation (docs/design.md §4), on CHOLMOD: the matrix is
 * assembled already permuted, in the layout CHOLMOD's numeric
 * factorization reads, so no copy of it is made per factorization.
 *
 * Indices are those of the caller's (unpermuted) matrix: the fill-reducing
 * permutation stays inside. */
#ifndef CF_SPCHOL_H
#define CF_SPCHOL_H
#include <cholmod.h>

typedef struct cf_spchol cf_spchol;

/* Factorizations that cost more than CF_SPCHOL_NESDIS_FLOPS in CHOLMOD's
 * default (AMD) order are also analysed in nested-dissection order
 * (CHOLMOD_NESDIS, METIS separators: deterministic), and the cheaper one is
 * kept.  CHOLMOD's default tries METIS only when fl/nnz(L) >= 500, which
 * these mesh-like matrices never reach, yet on them nested dissection saves
 * fill: 40x40 A2 sheet 0.89 M -> 0.74 M entries, 237 -> 155 Mflop, per step
 * ~34 -> ~28 ms.  Why not from smaller sizes: the gain is small there
 * (10-20 %), and the final fold of test_locking (meshes of 13-87 Mflop) is
 * path sensitive (see CF_NEWTON_ETA in projection.h): with nested
 * dissection on its meshes too, one free corner moved by 3 cm (its margin
 * is small: see tests/test_locking.c). */
#define CF_SPCHOL_NESDIS_FLOPS 1e8
/* Factorizations that cost less than CF_SPCHOL_OWN_FLOPS are supernodal
 * (CHOLMOD would choose a simplicial one when fl/nnz(L) < 40: the A3 5x7
 * mesh) and computed, and solved, by snfactor.c on CHOLMOD's analysis
 * instead of by CHOLMOD, whose per-supernode calls into BLAS/LAPACK cost
 * more than their arithmetic at these sizes.  Measured (AMD
 * EPYC; build/bench/bench_driven on the full study's recordings at the
 * fitting settings, delta 0.2, alpha 0.5): A2 7x9 (0.22 Mflop) 177.1 ->
 * 129.5 ms per simulation, A3 5x7 (0.036 Mflop) 102.3 -> 63.3 ms.  Above:
 * bench_sim's 20x20 grid (13 Mflop) 4.48 -> 3.95 ms per step with
 * snfactor.c, 40x40 (155 Mflop) 14.6 and 14.3 ms: the gain shrinks, and
 * the meshes of test_locking (13-87 Mflop) lie there, whose free corners
 * follow the solver's path (docs/notes/locking.md §18; with snfactor.c on them
 * the test failed, corners up to 8.31 cm apart against its limit of 5), so
 * the switch stayed below them.  The test no longer depends on where the
 * fold stops (docs/notes/locking.md §19); whether snfactor.c pays on those
 * meshes has not been measured again since. */
#ifndef CF_SPCHOL_OWN_FLOPS /* -D on the command line: for measuring the crossover */
#define CF_SPCHOL_OWN_FLOPS 2e6
#endif
/* pattern: the upper triangle of A (CSC, sorted, diagonal present, stype 1).
 * Runs CHOLMOD's analysis (ordering, supernodes) in cc.  Keeps no pointer to
 * pattern.  NULL when out of memory or when the analysis fails. */
cf_spchol *cf_spchol_alloc(const cholmod_sparse *pattern, cholmod_common *cc);
void cf_spchol_free(cf_spchol *f, cholmod_common *cc);

/* The value array A is assembled in: fill it with zeros, then add entry
 * (a, b) of the upper triangle (a <= b) at cf_spchol_pos(f, a, b) (-1: not
 * in the pattern).  For snfactor.c's factorizations it is the factor's own
 * value array, which the factorization overwrites: assemble before every
 * cf_spchol_factor. */
double *cf_spchol_values(cf_spchol *f);
/* Flops of one numeric factorization over flops of one solve (4 nnz(L)),
 * from CHOLMOD's analysis of the fill-reducing order: how many solves a
 * refactorization is worth (0.2 Mflop / 19 kflop ~ 11 for the 7x9 A2
 * projection matrix, ~100 at 40x40). */
double cf_spchol_solve_ratio(const cf_spchol *f);
/* Flops of one numeric factorization (CHOLMOD's analysis). */
double cf_spchol_flops(const cf_spchol *f);
size_t cf_spchol_nvalues(const cf_spchol *f);
long cf_spchol_pos(const cf_spchol *f, int a, int b);

/* Factorize A + beta I from the assembled values.  Returns 0, or 1 when
 * the factorization fails (not positive definite, see cc->status). */
int cf_spchol_factor(cf_spchol *f, double beta, cholmod_common *cc);
/* x = (A + beta I)^-1 b with the last successful factorization; x may be b.
 * Returns 0, or 1 when CHOLMOD's solve fails (out of memory). */
int cf_spchol_solve(cf_spchol *f, const double *b, double *x, cholmod_common *cc);

/* A single-precision copy of the factor, for preconditioning.  The triangular
 * solves of a large factor stream it from memory (0.74 M entries, 6 MB at
 * 40x40), so a float copy makes them ~2x faster; a preconditioner does not
 * need more than float's 7 digits (measured: the same CG iteration counts
 * within 2 %).  cf_spchol_keep_single() allocates the copy, which every
 * later successful cf_spchol_factor() refreshes (its cost: one pass over
 * L); returns 0, or 1 when out of memory or when the factor is simplicial
 * (only supernodal factors have a copy).  Call it before factorizing.
 * cf_spchol_solve_single: x ~= (A + beta I)^-1 b in single precision with
 * the last factorization (kept single copy required); x may be b.  The
 * supernodal solves are done here (CHOLMOD 3, the Debian one, has no
 * single-precision factor), with kernels.c's supernode kernels: panels of
 * 8 columns, the inverted diagonal kept, the rest four columns at a time
 * (40x40: 240 -> 200 us per solve against cblas_strsv/sgemv, which were
 * latency-bound on the column-by-column chain). */
int cf_spchol_keep_single(cf_spchol *f);
/* team: NULL, or the two threads of cf_team_run (team.h): the solve runs
 * two independent subtrees of the elimination tree concurrently (the
 * results are bitwise the same either way). */
typedef struct cf_team cf_team;
void cf_spchol_solve_single(cf_spchol *f, const double *b, double *x, cf_team *team);
/* 2 when the single-precision solve runs in two parts (a balanced split
 * of the elimination tree was found), else 1. */
int cf_spchol_single_parts(const cf_spchol *f);
#endif
