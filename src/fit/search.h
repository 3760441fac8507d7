/* search.h — internal: what the searches of a fit's parameters share
 * (nelder_mead.c, trust.c): one evaluation of the training error at a
 * parameter vector, counted, with the first failure's message kept, and
 * the path of best points. */
#ifndef CF_SEARCH_H
#define CF_SEARCH_H

#include "cf_fit.h"

typedef struct {
  cf_fit_run *run;           /* borrowed */
  const cf_fit_point *base;  /* borrowed: what the fit holds */
  const cf_nm_options *o;    /* borrowed */
  int evals, failed;
  char failure[256];         /* the first failure's message */
} cf_search_ctx;

/* The mean error (cm) on o's window at x (o->n + o->nk entries, the
 * log-scale ones as log10), +inf where the simulation fails (counted in
 * failed, its message kept).  The caller keeps x within o's bounds.
 * Reports evaluations of o->max_evals to o->progress. */
double cf_search_eval(cf_search_ctx *c, const double *x);
/* Append the step (x [n], f) to res->path: CF_OK or CF_ENOMEM. */
int cf_search_push_path(cf_nm_result *res, const double *x, double f, int n);
#endif
