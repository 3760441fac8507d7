/* drape.h — the sheet-on-cylinder scene shared by tests/test_contact_cylinder
 * and bench/bench_contact (after thesis §3.6.1, whose cylinder size and
 * height are not given). */
#ifndef CF_TEST_DRAPE_H
#define CF_TEST_DRAPE_H
#include "cf_sim.h"

typedef struct {
  int n;      /* nodes per side of the quad sheet */
  double L;   /* side of the sheet, m */
  double R;   /* cylinder radius, m */
  double top; /* height of the cylinder's top, m */
  double off; /* x of the sheet's centre line from the cylinder axis, m */
  double mu;  /* friction of the cylinder */
} cf_test_drape;

/* The n x n quad sheet of side L, rotated 20 degrees about z, 1 mm above
 * the cylinder's top, and ob[0] the cylinder (axis along y, half length
 * 0.5 m, its surface `thickness` (input, cf_contact_params) below the
 * sheet), ob[1] the floor z = 0 with mu 0.4 (output).  Returns the mesh,
 * owned by the caller, or NULL for a bad size or out of memory. */
cf_mesh *cf_test_drape_scene(const cf_test_drape *d, double thickness, cf_obstacle ob[2]);
#endif
