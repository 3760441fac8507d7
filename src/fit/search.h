/* search.h — internal: what the searches of a fit's parameters share
 * (nelder_mead.c, trust.c, lm.c): one evaluation of the training error at
 * a parameter vector, counted, with the first failure's message kept, the
 * path of best points, and the type of a search (GSL-style: one const
 * struct per search in its file, chosen by the driver of minimize.c). */
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
/* The same with the per-frame errors of frames [0, window end) into fe
 * (as cf_fit_run_eval's). */
double cf_search_eval_frames(cf_search_ctx *c, const double *x, cf_frame_error *fe);
/* The same with the sensitivities sn (its np and theta set by the caller;
 * cf_fit_run_eval_sens); *status the simulation's (CF_EINVAL: the
 * sensitivities were refused, the reason kept as a failure's). */
double cf_search_eval_sens(cf_search_ctx *c, const double *x, cf_fit_sens *sn, int *status);
/* A search: its option word (--search), the method its results name,
 * and its run, with the contract of cf_fit_minimize. */
typedef struct {
  const char *word, *method;
  int (*minimize)(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                  cf_error *err);
} cf_search_type;
extern const cf_search_type cf_search_nelder_mead; /* nelder_mead.c */
extern const cf_search_type cf_search_trust;       /* trust.c */
extern const cf_search_type cf_search_lm;          /* lm.c */

/* Append the step (x [n], f) to res->path: CF_OK or CF_ENOMEM. */
int cf_search_push_path(cf_nm_result *res, const double *x, double f, int n);
#endif
