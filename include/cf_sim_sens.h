/* cf_sim_sens.h — forward sensitivities of a simulation to its parameters.
 * Part of the API of cf_sim.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_SIM_SENS_H
#define CF_SIM_SENS_H

#include <stddef.h>
#include <stdint.h>
#include "cf_common.h"
#include "cf_sim_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------- sensitivities */
/* Forward sensitivities: dx/dtheta and dv/dtheta of the state, propagated
 * through every step for up to CF_THETA_COUNT parameters.
 *
 * What is differentiated is the computation itself, step by step: the
 * implicit-Euler step (its matrix (rho + h alpha) M + (h beta + h^2 kappa)
 * K and its right-hand side rho M v - h (delta M g + kappa K x), with
 * their dependence on x, v and on each parameter; one extra solve with
 * the step's own factor for all parameters at once), x + h v*, and every
 * update of the fast projection as it ran (proj_sens.h: the chord
 * iterations reuse a factor made at an earlier iterate, so the end point
 * depends on the path and the implicit function theorem at it does not
 * give the computed result's derivative; each update is differentiated
 * with the factor, the shift and the decisions it was made with, the
 * curvature term included).  Undone updates, failed attempts and failed
 * steps restore the tangents with the state, substeps propagate them, and
 * the driven nodes' tangents are 0 (their positions are prescribed).  So
 * where the discrete decisions (kept or undone updates, refactorizations,
 * substep levels) do not change with theta, the tangents are the exact
 * derivatives of the computed trajectory (to rounding); where they do, the
 * trajectory itself jumps by up to the projection's tolerance, which no
 * derivative sees (tests/test_sensitivity.c checks central differences).
 *
 * Not differentiated, so refused by cf_sim_set_sensitivities (CF_EINVAL):
 * contacts (obstacles, self-collisions), and so mu: the contact solve's
 * working set changes, and its friction is lagged and capped per contact,
 * so its result is not a smooth function of the state where contacts
 * matter; the models other than the inextensible one, the shear energy
 * (ks > 0), rest_bending (its lagged node frames) and the predictor (its
 * conjugate-gradient solves would have to be differentiated iteration by
 * iteration).  The aerodynamic force is delta M g (no drag term), so its
 * only dependence is on delta.  The inexact Newton steps of large meshes are switched off
 * while sensitivities are on (their CG iterates are not differentiated):
 * there, trajectories with sensitivities on are not bitwise those without.
 * With sensitivities off nothing changes. */
typedef enum { CF_THETA_DELTA = 0, CF_THETA_ALPHA = 1, CF_THETA_KAPPA = 2, CF_THETA_BETA = 3 } cf_theta;
#define CF_THETA_COUNT 4
/* "delta", "alpha", "kappa", "beta" */
const char *cf_theta_name(int theta);
/* Sensitivities with respect to theta[0 .. np-1] (distinct cf_theta
 * values; np = 0 switches them off), starting from dx = dv = 0 (the current
 * state is taken as independent of the parameters).  cf_sim_set_state and
 * cf_sim_project_state reset them to 0.  Switching them on forgets the
 * projection's factor (the next one's tangents must be recorded): before
 * the first step that changes nothing, later on the trajectory is no
 * longer bitwise that of a run without. */
int cf_sim_set_sensitivities(cf_sim *s, const int *theta, int np, cf_error *err);
/* Parameters with sensitivities on (0: off). */
int cf_sim_sensitivities(const cf_sim *s);
/* dx/dtheta[j], dv/dtheta[j] [3n] after the last step (node-major, as
 * cf_sim_x); NULL when j is out of range. */
const double *cf_sim_dx(const cf_sim *s, int j);
const double *cf_sim_dv(const cf_sim *s, int j);

#ifdef __cplusplus
}
#endif
#endif
