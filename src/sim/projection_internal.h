/* projection_internal.h — internal: the layout of cf_proj (projection.h),
 * shared by projection.c, which owns and runs it, and proj_sens.c, which
 * differentiates its iterations (reads the fields, writes only its own
 * struct cf_psens).  Nothing else includes it. */
#ifndef CF_PROJECTION_INTERNAL_H
#define CF_PROJECTION_INTERNAL_H
#include <cholmod.h>

#include "projection.h"
#include "spchol.h"
#include "team.h"

/* A = J M^-1 J^T is assembled node by node: A_ab = 4 sum_i G_ai . G_bi / m_i
 * over the free nodes i; at node i, every pair (u, w >= u) of the slots of
 * i (node_slot[node_ptr[i] ..]) adds one term to the entry at cpos[k],
 * k = cptr[i], cptr[i] + 1, ... in that order. */

struct cf_proj {
  const cf_model *md;
  int na;            /* active rows, numbered in model order */
  int ng, *grp;      /* active row groups of the model (all rows of a group
                        share their nodes, so a group is active or not) */
  double *invm;      /* [n] */
  int *slot_row;     /* [n_slots] active row of each slot, -1 if inactive */
  double *G;         /* [n_slots*3] half gradients */
  double *C;         /* [na] */
  double *Gb, *Cb;   /* G and C at xb (swapped with G, C: see swap_eval) */
  int *node_ptr;     /* [n+1] slots grouped by node (free nodes only) */
  int *node_slot;
  int *cptr;         /* [n+1] contributions grouped by node */
  int *cpos;         /* index of each contribution in the value array of F */
  int maxd;          /* max slots at a node */
  double *gs;        /* [4*maxd] gradients at one node by coordinate, dots */
  int *diag;         /* [na] value index of A_aa */
  double *dl;        /* [na] multipliers of the last solve */
  cholmod_common cc;
  cf_spchol *F;
  double *xb;        /* [3n] iterate before the last update (for undo) */
  double merit;      /* sum of squared violations at the last eval */
  double mu;         /* Levenberg-Marquardt shift, relative to mean diag A */
  int have_factor;
  int pcg;           /* Newton steps by PCG on stale factors (see cf_proj_solve) */
  int max_cg;        /* their CG iterations before refactoring (projection.h) */
  int single;        /* PCG preconditioned in single precision (CF_PCG_SINGLE_FLOPS) */
  double *cg;        /* [4*na] conjugate-gradient vectors of cf_proj_tangent */
  /* Large meshes (p->single): the loops below run in two parts (team.h),
   * concurrently when p->team is set; bitwise the same results either way,
   * and as the one-pass loops of small meshes. */
  int split;         /* loops in two parts */
  cf_team *team;     /* NULL: one thread */
  int node_cut, row_cut, grp_cut, row_at_grp_cut; /* where part 1 starts */
  int *rs_ptr, *rs_slot; /* [na+1], slots of each active row at free nodes, by node */
  double *U;         /* [3n] per-node sums of matrix_times */
  struct {           /* arguments of the loop in progress */
    const double *y, *dl;
    const double *xc;
    double *out, *x, eps, v[2];
  } arg;
  struct cf_psens *sens; /* forward sensitivities (proj_sens.h; NULL: off) */
};
#endif
