/* cf_fit_regress.h — the a-priori formulas (4.6)-(4.7) and their regression.
 * Part of the API of cf_fit.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_FIT_REGRESS_H
#define CF_FIT_REGRESS_H

#include "cf_common.h"
#include "cf_sim.h"
#include "cf_fit_target.h"
#include "cf_fit_driven.h"
#include "cf_fit_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------- a-priori formulas (4.6)-(4.7) */
/* delta = d0 + d1 S + d2 V + d3 rho,  alpha = a0 + a1 S + a2 V + a3 rho:
 * S = cloth area / A3 area (1 for A3, 2 for A2), V (m^2/s^2) the speed
 * measure below, rho the density (kg/m^2). */
/* (cf_formula, the eight coefficients, is in cf_common.h: the results
 * files of src/io store it too.) */

/* Table 4.6 of the thesis, repetition I (reference values). */
extern const cf_formula cf_formula_thesis_rep1;

/* S of a width x height cloth. */
double cf_size_measure(double width_m, double height_m);
/* V: squared speeds of every marker at every frame where it and the next
 * frame are present (forward differences at dt); the values >= their median
 * are averaged.  pos [T*K*3], NaN = missing.  NaN if no speed exists. */
double cf_speed_measure(int T, int K, double dt, const double *pos);

/* One recording of a study: its target and descriptors. */
typedef struct {
  const cf_fit_target *tg;
  double S, V;          /* size and speed measures (rho is tg->rho) */
  double delta, alpha;  /* per-recording optimum (for the least-squares start) */
  double e_opt;         /* error at that optimum (for E*), NaN if unknown */
  double kappa, beta;   /* > 0: the recording's fitted kappa / beta, which its
                           simulations hold (a fit with them free,
                           cf_pipeline_free_flagged); else base's */
} cf_study_item;

/* Least squares of the 4+4 coefficients on the per-recording optima
 * (GSL multifit); needs >= 4 recordings with independent (1, S, V, rho). */
int cf_regress_lsq(const cf_study_item *items, int n, cf_formula *f, cf_error *err);

/* The searches of cf_regress_fit (cf_regress_options.search).
 * CF_REGRESS_MODEL: a least-squares quadratic error model per recording
 * (a 3 x 3 design of simulations around its optimum), Nelder-Mead on the
 * mean of the models, the result checked by simulating every recording and
 * the models refitted with those points, for at most CF_REGRESS_ROUNDS
 * rounds (regress_model.c).  CF_REGRESS_NM: Nelder-Mead on R itself, every
 * evaluation simulating every recording (the reference). */
enum { CF_REGRESS_MODEL = 0, CF_REGRESS_NM = 1 };
#define CF_REGRESS_ROUNDS 6
/* The model search's design, counted in evaluations of R for progress:
 * 9 simulations of each recording. */
#define CF_REGRESS_DESIGN 9
/* "model" or "nelder-mead" (results files, help texts); the parse returns
 * the search, or -1 for another word. */
const char *cf_regress_search_name(int search);
int cf_regress_search_parse(const char *word);

typedef struct {
  int search;      /* CF_REGRESS_MODEL (0, the default) or CF_REGRESS_NM */
  int max_evals;   /* evaluations of R at most, each simulating every
                      recording (<= 0: 400); the model search stops after
                      1 + CF_REGRESS_ROUNDS of them anyway */
  int workers;     /* worker processes (0: all cores) */
  const struct cf_fit_journal *kept; /* finished simulations (may be NULL) */
  const cf_fit_progress *progress;   /* evaluations of R (may be NULL), of
                                        cf_regress_progress_total */
} cf_regress_options;
/* The total the progress of cf_regress_fit counts to: max_evals for
 * Nelder-Mead; for the model search its real evaluations plus the design
 * as CF_REGRESS_DESIGN of them. */
long cf_regress_progress_total(const cf_regress_options *o);

typedef struct {
  cf_formula f;       /* fitted coefficients */
  cf_formula f_start; /* least-squares start */
  double R, R_start;  /* (4.7) at the fit and at the start (cm), both
                       * simulated (the model search's R is the best real
                       * evaluation, not a model's value) */
  double E;           /* mean of the items' e_opt (E*), NaN if unknown */
  int evaluations;    /* evaluations of R by simulating every recording */
  int iterations;     /* Nelder-Mead's iterations; the model search's rounds */
  long simulations;   /* simulations of a recording in all (resumed from the
                       * journal or run now): n per evaluation, plus the
                       * model search's design */
  int search;         /* the options' */
  double *e_item;     /* [n] each item's error (cm) with f's parameters (the
                       * terms of R), inf where its simulation failed or the
                       * formula left the model's domain; malloc'ed (the
                       * caller frees it), NULL if out of memory */
} cf_regress_result;

/* R(f) = mean over items of the whole-recording mean error with the
 * formula's (delta, alpha); items run on worker processes (0: all cores).
 * The simulations use base, its beta and kappa held fixed (as a sweep's
 * fixed point holds them).  Failed simulations count as a large penalty. */
int cf_regress_objective(const cf_study_item *items, int n, const cf_params *base,
                         const cf_formula *f, int workers, double *R, cf_error *err);
/* The 8 coefficients minimizing R, started from least squares (or from
 * *start when not NULL), by o's search (NULL: the defaults). */
int cf_regress_fit(const cf_study_item *items, int n, const cf_params *base, const cf_formula *start,
                   const cf_regress_options *o, cf_regress_result *res, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
