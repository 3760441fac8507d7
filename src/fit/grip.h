/* grip.h — internal to src/fit: the grippers of a driven simulation
 * (cf_fit_target.n_grip; grip.c), for driven.c: the mesh node each holds,
 * the set holding at a frame, and the reach of two grippers on one edge. */
#ifndef CF_FIT_GRIP_H
#define CF_FIT_GRIP_H

#include "cf_fit.h"

/* The mesh node (row-major on the refined lattice) nearest to gripper g's
 * (u, v). */
int cf_grip_node(const cf_fit_target *tg, int g);
/* Bit g set when gripper g holds at frame k (its window holds k dt; to
 * 1e-9 s).  All bits of the n_grip without windows. */
unsigned cf_grip_mask(const cf_fit_target *tg, int k);
/* The kin[c] whose bit is set in mask, in order, into out; their number. */
int cf_grip_select(unsigned mask, const int *kin, int n, int *out);
/* Grippers 0 and 1 on one row of the mesh, holding throughout: the rest
 * length of the row between their nodes (rest: the rest mesh), the reach
 * cf_fit_held_track pulls them onto; else 0. */
double cf_grip_span(const cf_fit_target *tg, const cf_mesh *rest, const int *node);
/* The grippers' points in [0, 1]^2, on distinct nodes, and their track
 * finite at every frame: CF_OK or CF_EINVAL with one line. */
int cf_grip_check(const cf_fit_target *tg, cf_error *err);
#endif
