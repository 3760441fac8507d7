/* point.c — a fit's parameter vector and the point of the model it names:
 * cf_fit_point_set writes the linear parameters (delta, alpha, mu: the first
 * n of x) into a cf_fit_point, cf_fit_point_set_all also the log-scale
 * stiffnesses a search frees (x[n + j] = log10 of o->kpar[j]); the names of
 * the log-scale parameters and which stiffnesses each cloth model has.  The
 * searches (search.c, nelder_mead.c, trust.c, polish.c) and the comparison
 * of models build on it.  No allocation, no failure. */
#include <math.h>
#include <string.h>

#include "cf_fit.h"

static const char *const log_name[CF_STIFF_COUNT] = {"k_stretch", "k_shear", "k_bend", "kappa", "beta"};

void cf_fit_point_set(cf_fit_point *pt, int n, const double *x) {
  if (n > CF_PARAM_DELTA) pt->delta = x[CF_PARAM_DELTA];
  if (n > CF_PARAM_ALPHA) pt->alpha = x[CF_PARAM_ALPHA];
  if (n > CF_PARAM_MU) pt->mu = x[CF_PARAM_MU];
}

int cf_fit_model_stiffness(int model, int *which) {
  if (model == CF_CLOTH_QUASI) return which[0] = CF_STIFF_SHEAR, 1;
  if (model == CF_CLOTH_ELASTIC || model == CF_CLOTH_MASS_SPRING)
    return which[0] = CF_STIFF_STRETCH, which[1] = CF_STIFF_SHEAR, 2;
  return 0;
}

const char *cf_fit_stiffness_name(int k) { return k >= 0 && k < CF_STIFF_COUNT ? log_name[k] : "?"; }

int cf_fit_log_param_find(const char *name) {
  for (int k = 0; k < CF_STIFF_COUNT; k++)
    if (!strcmp(name, log_name[k])) return k;
  return -1;
}

unsigned cf_fit_model_stiffness_mask(int model) {
  int which[CF_NM_MAXK];
  unsigned mask = 0;
  for (int j = cf_fit_model_stiffness(model, which) - 1; j >= 0; j--) mask |= CF_STIFF_BIT(which[j]);
  return mask;
}

static double *log_param_of(cf_fit_point *pt, int k) {
  double *p[CF_STIFF_COUNT] = {&pt->k_stretch, &pt->k_shear, &pt->k_bend, &pt->kappa, &pt->beta};
  return p[k];
}

void cf_fit_point_set_all(cf_fit_point *pt, const cf_nm_options *o, const double *x) {
  cf_fit_point_set(pt, o->n, x);
  for (int j = 0; j < o->nk; j++) *log_param_of(pt, o->kpar[j]) = pow(10, x[o->n + j]);
}
