/* target.c — what a fit target (cf_fit_target, cf_fit.h) says of itself:
 * the fitting mesh's split of each lattice cell (rows, columns; the
 * defaults when the target leaves them 0) and whether it has a table or
 * any obstacle.  The driven simulation (driven.c), the start states
 * (start.c) and the confidence checks build on it.  Pure functions of the
 * target: no allocation, no failure. */
#include <math.h>

#include "cf_fit.h"

int cf_fit_target_split(const cf_fit_target *tg) { return tg->split > 0 ? tg->split : CF_LATTICE_SPLIT_DEFAULT; }

int cf_fit_target_split_cols(const cf_fit_target *tg) {
  return tg->split_cols > 0 ? tg->split_cols : cf_fit_target_split(tg);
}

int cf_fit_target_has_table(const cf_fit_target *tg) {
  const double *t = tg->table;
  return isfinite(t[0]) && t[1] < t[2] && t[3] < t[4];
}

int cf_fit_target_has_obstacles(const cf_fit_target *tg) { return cf_fit_target_has_table(tg) || tg->stick; }
