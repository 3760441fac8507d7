/* model.h — internal layout of cf_model, shared by the solvers.
 * Each constraint row r is a quadratic form over its local nodes
 * nodes[row_ptr[r] .. row_ptr[r+1]) with a dense symmetric matrix
 * T[tptr[r] ..] (nl x nl, row-major):  C_r = sum_ij T_ij <p_i,p_j> - c0_r.
 * Boundary edges fit the same form with T = [[1,-1],[-1,1]], c0 = l^2, so
 * the solvers need no special case. */
#ifndef CF_MODEL_H
#define CF_MODEL_H
#include "cf_sim.h"

struct cf_model {
  const cf_mesh *mesh;
  int n, nrows;
  int *kind, *node;
  int *row_ptr, *nodes;
  int *tptr;
  double *T;
  double *c0, *scale;
  double *w;      /* energy row sets (model_rows.c): the weight of each row
                     in E = 1/2 sum_r w_r C_r^2; NULL for constraints */
  double *mass;
  /* Row groups: runs of consecutive rows over the same node list (E, F, G
   * of an interior node; every other row is a group of one).  Group k is
   * rows grp_row[k] .. grp_row[k+1]-1; its tensors are stored again in Tg
   * from grp_tptr[k], transposed and interleaved for
   * cf_model_group_half_grad: Tg[j*wp + t*nl + i] = T_t[i][j], each row j
   * zero-padded to wp >= m*nl entries. */
  int ngroups;
  int *grp_row, *grp_tptr;   /* [ngroups+1] */
  double *Tg;
  const struct cf_kernels_s *kern; /* kernels.h */
};

/* Row sets (model.c): the inextensible constraints, the quasi-inextensible
 * ones (no F rows: used with the shear energy), the F rows of every node
 * (C_F of (2.17), for the shear energy itself). */
enum { CF_MODEL_FULL = 0, CF_MODEL_QUASI = 1, CF_MODEL_SHEAR = 2 };
cf_model *cf_model_alloc_mode(const cf_mesh *mesh, int mode, cf_error *err);

/* For the row sets of model_rows.c: a model of mesh with its masses and no
 * rows (NULL: out of memory), and the groups built once its rows are in. */
cf_model *cf_model_empty(const cf_mesh *mesh);
int cf_model_finish(cf_model *md);
/* Fill row r over the nodes nb[nl] with the nl x nl tensor T, its node and
 * tensor slots from row_ptr[r], tptr[r] (the arrays have the room), and
 * set row_ptr[r + 1], tptr[r + 1]. */
void cf_model_set_row(cf_model *md, int r, int kind, int node, const int *nb, int nl, const double *T, double c0,
                      double scale);

/* model_rows.c.  The constraint rows of the cloth model p->model (see
 * cf_cloth_model): the inextensible model's (without the F rows when
 * p->ks > 0), the length of every mesh edge (quasi-inextensible), none
 * (elastic, mass-spring: a model with 0 rows). */
cf_model *cf_model_constraints_alloc(const cf_mesh *mesh, const cf_params *p, cf_error *err);
/* Its energy rows with their weights (md->w), E = 1/2 sum_r w_r C_r^2, or
 * NULL with err->code = CF_OK when the model has none (the inextensible
 * model with ks = 0). */
cf_model *cf_model_energy_alloc(const cf_mesh *mesh, const cf_params *p, cf_error *err);

/* 1 when rows r and q are over the same node list (shear.c sums such runs
 * into one block; the row groups below are made of them). */
int cf_model_same_nodes(const cf_model *md, int r, int q);

/* g[l*3+d] = sum_j T_lj p_j[d] for the local nodes of row r; returns
 * C_r + c0_r = sum_l <p_l, g_l>.  The gradient of C_r w.r.t. p_l is 2 g_l. */
double cf_model_row_half_grad(const cf_model *md, int r, const double *x, double *g);

#define CF_GROUP_MAX_ROWS 3 /* rows per group */

/* The same for all m rows of group k at once: g[(t*nl + l)*3 + d] for row
 * grp_row[k] + t (the rows' slots are consecutive, so g can point at the
 * first row's slots), val[t] = C_t + c0_t.  Bitwise equal to m calls of
 * cf_model_row_half_grad (same operations in the same order), several
 * times faster for E/F/G groups: the positions are gathered once and the
 * kernel runs over the group's contiguous (row, node) pairs. */
void cf_model_group_half_grad(const cf_model *md, int k, const double *x, double *g, double *val);
#endif
