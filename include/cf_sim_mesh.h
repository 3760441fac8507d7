/* cf_sim_mesh.h — meshes and the inextensible model's constraint rows.
 * Part of the API of cf_sim.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_SIM_MESH_H
#define CF_SIM_MESH_H

#include <stddef.h>
#include <stdint.h>
#include "cf_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ mesh */
/* A cloth mesh of one element kind: nv = 3 (linear triangles) or nv = 4
 * (bilinear quads, nodes counter-clockwise starting at (-1,-1)).  Any
 * topology (holes, rings, garments).  The derived fields are filled by
 * cf_mesh_finalize(). */
typedef struct {
  int nv;          /* nodes per element: 3 or 4 */
  int n_nodes;
  int n_elems;
  double *x;       /* [n_nodes*3] rest positions (also the initial state) */
  int *elems;      /* [n_elems*nv] node indices */
  /* derived (cf_mesh_finalize) */
  int n_bedges;    /* boundary edges: edges that belong to one element */
  int *bedges;     /* [n_bedges*2] */
  unsigned char *is_boundary; /* [n_nodes] */
  unsigned char *is_corner;   /* [n_nodes] boundary nodes where the boundary turns */
} cf_mesh;

cf_mesh *cf_mesh_alloc(int nv, int n_nodes, int n_elems);
void cf_mesh_free(cf_mesh *m);
cf_mesh *cf_mesh_clone(const cf_mesh *m);
/* Validate indices and element areas, then find boundary edges and corners.
 * A boundary node is a corner when its boundary turns by more than 45°
 * (for grids: the nodes in exactly one element). */
int cf_mesh_finalize(cf_mesh *m, cf_error *err);

/* nx*ny nodes on the parallelogram origin + s*u + t*v, s,t in [0,1];
 * node (i,j) (i along u, j along v) has index j*nx + i.  quads = 1 for
 * quads, 0 for triangles (alternating diagonals). */
cf_mesh *cf_mesh_grid(int nx, int ny, const double origin[3],
                      const double u[3], const double v[3], int quads);
/* Refine a rows x cols marker lattice ([rows*cols*3], row-major, row 0 =
 * top) to a quad mesh by bilinear interpolation, every cell split split_r
 * times down and split_c times across (1 <= split_r, split_c <=
 * CF_LATTICE_SPLIT_MAX; thesis §4.2.2 fits on 2 x 2: 4x5 markers -> 7x9
 * nodes; §4.1.5 reruns a 9 x 9 mesh recording on 1 x 2, 2 x 1 and 2 x 2:
 * 9 x 17, 17 x 9 and 17 x 17 nodes): (split_r(rows-1)+1) x
 * (split_c(cols-1)+1) nodes, marker (r,c) at node
 * (split_r r)*(split_c(cols-1)+1) + split_c c, where it stays (the
 * interpolation passes through the markers).  NULL on bad arguments or a
 * degenerate lattice. */
enum { CF_LATTICE_SPLIT_DEFAULT = 2, CF_LATTICE_SPLIT_MAX = 8 };
cf_mesh *cf_mesh_lattice_refine(int rows, int cols, int split_r, int split_c, const double *markers);
/* Index of the node holding marker (r, c) in cf_mesh_lattice_refine. */
int cf_mesh_lattice_node(int rows, int cols, int split_r, int split_c, int r, int c);
/* Node a of a line of nodes refined split times per cell of n markers: the
 * cell it lies in (0..n-2), and where in it, *s in [0, 1] (the last node
 * belongs to the last cell at s = 1). */
int cf_mesh_lattice_cell(int a, int n, int split, double *s);
/* Lumped-mass weights of a rows x cols marker lattice at positions x
 * [rows*cols*3] (row-major), normalized to sum to rows*cols: for a regular
 * lattice corners : edges : interior = 1 : 2 : 4 (docs/design.md §6, §7).  The
 * metrics of src/fit weight the markers by them and ingestion
 * (src/recording) stores them in the recording. */
int cf_mesh_lattice_weights(int rows, int cols, const double *x, double *w, cf_error *err);
/* The same weights of any mesh's nodes at positions x: its lumped masses
 * normalized to sum to n_nodes (a recorded mesh's weights, eq. (4.3)). */
int cf_mesh_node_weights(const cf_mesh *m, const double *x, double *w, cf_error *err);
/* Flat annulus r_in..r_out in the plane z = z0, centred on the z axis:
 * n_rad rings of quads between n_rad+1 circles of n_ang nodes. */
cf_mesh *cf_mesh_ring(double r_in, double r_out, int n_rad, int n_ang, double z0);
/* A tube (a sleeve, a garment's leg: a mesh without a boundary around it):
 * n_around rows of n_along nodes on the cylinder of the given circumference
 * whose axis runs along x from 0 to length at y = 0, z = z_axis; node (i
 * along, j around) is j*n_along + i, row j = 0 at the bottom. */
cf_mesh *cf_mesh_tube(double length, double circumference, int n_along, int n_around, double z_axis);
/* Irregular triangulation of the square [0,side]^2 in the plane z = z0:
 * n x n nodes, interior nodes jittered by up to `jitter` x spacing,
 * each cell split along a random diagonal (seeded, deterministic). */
cf_mesh *cf_mesh_square_tri(double side, int n, double jitter, uint64_t seed, double z0);
/* Irregular triangulation of the square [0,side]^2 close to what a mesh
 * generator makes (nearly equilateral, valence ~6): rows of nodes
 * sqrt(3)/2 x spacing apart, every other row offset by half a spacing (and
 * closed by nodes on the square's sides), interior nodes jittered by up to
 * `jitter` x spacing, each pair of rows zipped into triangles.  n nodes on
 * the even rows, spacing side / (n - 1). */
cf_mesh *cf_mesh_square_hex(double side, int n, double jitter, uint64_t seed, double z0);

/* Lumped masses of unit density: m_k = sum_j int N_k N_j dA at positions x
 * (pass m->x for the rest state). */
void cf_mesh_lumped_mass(const cf_mesh *m, const double *x, double *mass);
/* Area of every element at positions x (integrated with the element's own
 * parametrization, as in the T tensors). */
void cf_mesh_element_areas(const cf_mesh *m, const double *x, double *area);

/* Area errors (2.23)-(2.25) of state x relative to the rest areas a0. */
typedef struct { double total, mean, dispersion; } cf_area_error;
cf_area_error cf_mesh_area_error(const cf_mesh *m, const double *a0, const double *x);

/* ----------------------------------------------------------------- model */
/* The inextensibility constraints and their tensors (Algorithm 1): one row
 * per boundary edge (2.7), rows E, F, G per interior node and F per corner
 * (2.11)-(2.14).  Each row is a quadratic form over a few nodes:
 * C_r(x) = sum_ij T_r[i][j] <p_i, p_j> - c0_r. */
typedef struct cf_model cf_model;

enum { CF_ROW_EDGE = 0, CF_ROW_E = 1, CF_ROW_F = 2, CF_ROW_G = 3 };

/* Keeps a pointer to mesh. */
cf_model *cf_model_alloc(const cf_mesh *mesh, cf_error *err);
void cf_model_free(cf_model *md);
int cf_model_nrows(const cf_model *md);
int cf_model_row_kind(const cf_model *md, int r);
int cf_model_row_node(const cf_model *md, int r); /* node k (edge: first node) */
double cf_model_row_scale(const cf_model *md, int r); /* c_k of docs/design.md §4 */
/* C(x) into C[nrows]. */
void cf_model_eval(const cf_model *md, const double *x, double *C);
/* max_r |C_r| / c_r */
double cf_model_violation(const cf_model *md, const double *x);
/* Dense Jacobian [nrows x 3n] row-major, column 3*i+d (for tests/tools). */
void cf_model_jacobian_dense(const cf_model *md, const double *x, double *J);
/* Lumped masses (unit density) used by the model. */
const double *cf_model_mass(const cf_model *md);

#ifdef __cplusplus
}
#endif
#endif
