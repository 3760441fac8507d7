/* cf_fit_confidence.h — how sure a fit is, and whether the cloth stretches.
 * Part of the API of cf_fit.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_FIT_CONFIDENCE_H
#define CF_FIT_CONFIDENCE_H

#include "cf_common.h"
#include "cf_sim.h"
#include "cf_fit_driven.h"
#include "cf_fit_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------- fit confidence (confidence.c) */
/* How sure a fitted (delta, alpha) is: a quadratic fitted to the mean error
 * on a 3 x 3 stencil around the point (+-30 %), and the jackknife over
 * CF_CONF_BLOCKS consecutive time blocks of the window for the spread of
 * its stationary point (the reasons and the rule: confidence.c). */
enum { CF_CONF_BLOCKS = 8 };
typedef struct {
  double center[2];      /* the fitted (delta, alpha) the intervals are around */
  double se[2];          /* jackknife standard errors of delta, alpha (NaN if none) */
  double interval[2][2]; /* 95 % intervals [lo, hi] of delta and alpha (NaN if none):
                            the jackknife's t(7) 97.5 % quantile x se and sys in
                            quadrature */
  double sys[2];         /* systematic half-widths: the moves of the held checks made
                            (kappa, beta, rest, mesh shifts x the fit) in quadrature
                            (0: none made) */
  int identifiable;      /* 1 yes, 0 no (why says why), -1 unknown (a stencil simulation failed) */
  char why[200];         /* "" when identifiable */
  double kappa_shift[2]; /* how far the fit moves, as fractions of delta and alpha,
                            refitted with the held kappa tripled (NaN: not checked:
                            kappa 0 or fitted, not identifiable already, or the refit
                            failed) */
  double beta_shift[2];  /* the same refitted with the held beta raised to kappa x the
                            window's length (s) (NaN: not checked, as above, or beta
                            fitted, or the held beta is already that large) */
  double beta_checked;   /* the held beta of that refit (NaN: not checked) */
  double mesh_shift[2];  /* the same refitted on the mesh one split finer (the
                            convergence check; NaN: not checked) */
  double rest_shift[2];  /* the same refitted with the other rest metric (tg.rest:
                            the nominal flat lattice for a fit on the first frame's,
                            and back) (NaN: not checked, as for kappa, and for a rest
                            of the cloth's measured size) */
  int kappa_fitted, beta_fitted; /* 1: fitted with delta and alpha (fitted[j]): the
                            check of its held value is not made (kappa_shift,
                            beta_shift NaN); the other checks hold it at the fit */
  int simulations;       /* the stencil's and the checks' refits' */
} cf_confidence;
/* A fit whose delta or alpha moves by more than this fraction when
 * refitted with a held assumption changed (3 x kappa, a large beta, the
 * other rest metric) is not identifiable (confidence.c says why 0.25). */
#define CF_CONF_HELD_MAX_SHIFT 0.25
/* For n recordings at once (9 simulations each on the worker processes,
 * then Nelder-Mead refits of (delta, alpha), at most 40 simulations each,
 * with 3 kappa, with a large beta and with the other rest metric,
 * confidence.c): tg[n]; at[n] the fitted points with everything the fit
 * held or fitted besides delta and alpha (kappa, beta, mu, stiffnesses:
 * the stencil and the refits hold them); fitted[n] (NULL: none) the
 * log-scale parameters each fit fitted (CF_STIFF_BIT mask: kappa's and
 * beta's checks skip those); windows [t0[j], t1[j]) (NULL: whole
 * recordings; t1 <= 0: to the end); search the refits' (CF_SEARCH_*). */
int cf_fit_confidence_batch(int n, const cf_fit_target *const *tg, const cf_params *base, const cf_fit_point *at,
                            const unsigned *fitted, const int *t0, const int *t1, int workers, int search,
                            const struct cf_fit_journal *kept, cf_confidence *out, cf_error *err);

/* ------------------------------- does the cloth stretch? (stretch.c) */
/* Whether the recorded markers move farther apart than on the flat sheet,
 * which an inextensible cloth cannot (a chord is never longer than its
 * geodesic; stretch.c says why this test and measures it).  Needs the
 * rest of the cloth's measured size (tg.rest CF_REST_SIZE, tg.size > 0)
 * and markers (not made on a point-cloud recording, tg.n_cloud > 0). */
typedef struct {
  int checked;      /* 0: not checked (no measured size: the rest distances are unknown) */
  double edges;     /* the largest over the lattice edges of the median over frames of
                       the edge's relative excess d / r - 1 (NaN: none present) */
  double diagonals; /* the same of the cells' diagonals */
  int stretches;    /* 1: edges > CF_STRETCH_MAX (the cloth stretches) */
  int shears;       /* 1: not stretches, diagonals > CF_STRETCH_MAX (its cells shear) */
} cf_stretch;
/* The allowance: the model's own recordings keep their pairs within 0.26 %
 * (markers with 0.1 mm noise: 0.01 %; a depth camera's registered meshes
 * with 2 mm depth noise, datasets/wam-mini: 0.26 %), a quasi-inextensible
 * cloth of k_shear 0.3-1 N/m shears its diagonals by 1.4-1.8 % and an
 * elastic one stretches its edges by 4.8-10 % (tests/test_stretch.c): 1 %
 * is four times the first and below the second. */
#define CF_STRETCH_MAX 0.01
/* CF_OK (out filled; out->checked 0 when tg has no measured size) or
 * CF_ENOMEM. */
int cf_fit_stretch(const cf_fit_target *tg, cf_stretch *out);

#ifdef __cplusplus
}
#endif
#endif
