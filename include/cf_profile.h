/* cf_profile.h — profile intervals of a fit (src/fit/profile.c), apart
 * from cf_fit.h, whose public headers are kept under 400 lines
 * (tests/test_structure.py). */
#ifndef CF_PROFILE_H
#define CF_PROFILE_H
#include "cf_fit.h"

/* ------------------------------------- profile intervals (profile.c) */
/* The 95 % profile intervals of a fit's delta and alpha (Raue et al. 2009;
 * docs/confidence.md "Profile intervals"): each stepped away from the
 * optimum on both sides, the training error re-minimised at every step over
 * all the other parameters (the other of delta, alpha; mu when fitted; the
 * model's stiffnesses; kappa and beta within CF_FIT_KAPPA_*, CF_FIT_BETA_*
 * as log10, even when the fit held them), until the error exceeds the
 * threshold or the parameter its bound.  The re-minimiser behind one
 * pointer: a search with cf_fit_nelder_mead's contract that holds every
 * parameter whose lo == hi (step 0) at that value. */
typedef int (*cf_fit_minimizer)(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                                cf_error *err);
typedef struct {
  int t0, t1;                /* training window (t1 <= 0: to the end) */
  int fit_mu;                /* 1: mu re-minimised too (the fit fitted it) */
  int max_evals;             /* per profile point (0: 60); the optimum's re-minimisation 3 x that */
  double discrepancy_cm;     /* the model-discrepancy term added to the threshold (cm;
                                0: none, not calibrated yet) */
  cf_fit_minimizer minimize; /* NULL: cf_fit_nelder_mead */
} cf_profile_options;
enum { CF_PROFILE_SIDE_PTS = 9, CF_PROFILE_FREE = CF_NM_MAXP };
typedef struct {
  double value;               /* the fitted value */
  double interval[2];         /* where the profile crosses the threshold; an open side:
                                 the last point reached (its bound) */
  int open[2];                /* 1: below the threshold up to that side's bound */
  char trades_against[16];    /* the parameter that moved most along the profile, in
                                 units of its search step ("" if none moved) */
  int n;                      /* profile points, increasing in x */
  double x[2 * CF_PROFILE_SIDE_PTS + 1], f[2 * CF_PROFILE_SIDE_PTS + 1];
  int simulations;
} cf_profile_param;
typedef struct {
  double f_min;          /* the least training error found (cm) */
  double threshold;      /* cm: f_min + threshold bounds the intervals */
  double n_eff;          /* effective independent frames of the window (HAC) */
  double se_hac;         /* Newey-West standard error of the mean error at the optimum (cm) */
  double discrepancy_cm; /* the options' term, included in threshold */
  int frames, bandwidth; /* frames counted; the Newey-West bandwidth (frames) */
  cf_fit_point optimum;  /* every parameter re-minimised from the fit */
  cf_profile_param p[2]; /* delta, alpha */
  int identifiable;      /* 1: both intervals closed on both sides */
  char why[200];         /* "" when identifiable: "alpha trades against beta ..." */
  int simulations;
} cf_profile;
/* The relative threshold's statistics of per-frame errors e[n] (n >= 2):
 * Newey-West variance of their mean with Bartlett bandwidth L, n_eff =
 * their variance / that (clamped to [1, n]). */
void cf_profile_hac(const double *e, int n, int L, double *se, double *n_eff);
/* Profiles of at's delta and alpha on tg (at holds everything else the fit
 * held or fitted): the four sides run on the worker processes (0: all
 * cores).  CF_OK with out filled; CF_EINVAL for options the search refuses
 * (a model without kappa is profiled without it); CF_ENOCONV when the
 * simulation fails at the fit; CF_ENOMEM. */
int cf_fit_profile(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *at,
                   const cf_profile_options *o, int workers, cf_profile *out, cf_error *err);
#endif
