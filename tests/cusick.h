/* cusick.h — Cusick's drape scene (thesis §2.7.2) shared by
 * tests/test_cusick and bench/cusick_scan: a flat ring RI..RO (m) whose
 * inner circle is held, its smooth initial perturbation, and the drape
 * coefficient of a draped state. */
#ifndef CF_TEST_CUSICK_H
#define CF_TEST_CUSICK_H
#include "cf_sim.h"

#define CF_CUSICK_RI 0.09 /* the table's radius, m */
#define CF_CUSICK_RO 0.15 /* the cloth's radius, m */

/* Into x0 [3 n_nodes] (output): the rest positions of m (input) with a
 * smooth out-of-plane perturbation of at most ~0.5 mm, the same function
 * of (r, theta) on every mesh (modes 1..16 in theta with fixed random
 * coefficients, growing linearly from the held circle), so that every mesh
 * starts from the same shape (a flat, symmetric ring has no reason to fold;
 * node-wise noise would start every mesh differently). */
void cf_test_cusick_start(const cf_mesh *m, double *x0);
/* 100 (|shadow of the table disk and the ring| - |disk|) / |flat ring|, the
 * shadow of x (input, [3 n_nodes]) rasterised on a 1200 x 1200 grid over the
 * cloth's square: the area of the union of the projected elements (the sum
 * of the element areas would count overlapping fold walls twice).  Each
 * bilinear quad is covered by its four corner triangles. */
double cf_test_cusick_dc(const cf_mesh *m, const double *x);
#endif
