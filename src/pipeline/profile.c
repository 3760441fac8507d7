/* profile.c — `fit --profile`: the profile intervals (cf_fit_profile,
 * docs/confidence.md "Profile intervals") of a recording's fit, from the
 * fitted point with everything the fit held or fitted (kappa, beta, mu,
 * stiffnesses) over its training window.  Nothing is kept; fails as
 * cf_fit_profile does, and with CF_EINVAL naming the recording when it has
 * no finite fit. */
#include <math.h>

#include "pipeline_internal.h"

int cf_pipeline_profile(const cf_fit_input *in, const cf_res_rec *rec, int workers, cf_profile *out, cf_error *err) {
  const cf_res_fit *f = &rec->fit;
  if (!rec->has_fit || !isfinite(f->x[0]) || !isfinite(f->x[1]))
    return cf_error_set(err, CF_EINVAL, "%s: no finite fit to profile", in->path);
  cf_fit_point at = in->fixed;
  at.delta = f->x[0], at.alpha = f->x[1];
  if (f->n_params > 2) at.mu = f->x[2];
  cf_pl_held_model(&at, &f->model);
  cf_profile_options po = {(int)lround(f->train_t0_s / in->tg.dt),
                           f->train_t1_s > 0 ? (int)lround(f->train_t1_s / in->tg.dt) : 0, f->n_params > 2, 0, 0,
                           NULL};
  return cf_fit_profile(&in->tg, &in->base, &at, &po, workers, out, err);
}
