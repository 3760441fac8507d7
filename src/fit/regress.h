/* regress.h — internal: what the two searches of the regression share
 * (regress_eval.c), used by regress.c (the reference Nelder-Mead on R) and
 * regress_model.c (the search on per-recording error models).  One simulation of a recording at
 * a (delta, alpha), named in the journal by the same fields whoever asks,
 * one R over the study, and one Nelder-Mead over the 8 coefficients. */
#ifndef CF_REGRESS_H
#define CF_REGRESS_H
#include <gsl/gsl_multimin.h>

#include "cf_fit.h"

#define CF_REGRESS_PENALTY 1e3 /* cm, per recording whose simulation fails */

/* The whole-recording mean error of it at (delta, alpha) with the kappa,
 * beta it holds (its fitted ones, else base's) into *e; CF_REGRESS_PENALTY
 * where the simulation fails or (delta, alpha) leaves the model's domain.
 * CF_OK, or the error code of a run that could not be made. */
int cf_regress_sim(const cf_study_item *it, const cf_params *base, double delta, double alpha, double *e);
/* The task id of cf_regress_sim(it, base, delta, alpha) as item i of a
 * loop of kind: the recording (its place i, T, rho, S, V, rest metric and
 * mesh), the point, and the kappa, beta it holds. */
unsigned long long cf_regress_sim_id(const char *kind, int i, const cf_study_item *it, const cf_params *base,
                                     double delta, double alpha);
/* R(f) into *R and each item's error into e[n] (CF_REGRESS_PENALTY where
 * it failed), the n simulations kept in the journal (may be NULL) as kind
 * "reg". */
int cf_regress_eval(const cf_study_item *items, int n, const cf_params *base, const cf_formula *f, int workers,
                    const cf_fit_journal *kept, double *e, double *R, cf_error *err);
/* GSL's nmsimplex2 on fn (8 coefficients, unpacked d0..d3, a0..a3) from
 * start, with steps of 10 % of each coefficient's typical contribution over
 * items, until the simplex is below size_tol or stop(arg) (may be NULL)
 * says so.  The best vertex after the last iteration into *f and *fval and
 * the iterations into *iterations (0: *f, *fval untouched).  CF_OK or
 * CF_ENOMEM. */
int cf_regress_nm8(gsl_multimin_function *fn, const cf_study_item *items, int n, const cf_formula *start,
                   double size_tol, int (*stop)(void *arg), void *arg, cf_formula *f, double *fval, int *iterations);
void cf_regress_unpack(const gsl_vector *v, cf_formula *f);
/* f packed into x[8] (d0..d3, a0..a3) and the simplex steps into st[8]:
 * 10 % of each coefficient's typical contribution over items. */
void cf_regress_steps(const cf_study_item *it, int n, const cf_formula *f, gsl_vector *x, gsl_vector *st);
/* The model search (regress_model.c, called by cf_regress_fit), res->f_start
 * and res->E set. */
int cf_regress_model_search(const cf_study_item *items, int n, const cf_params *base, const cf_regress_options *o,
                            cf_regress_result *res, cf_error *err);
#endif
