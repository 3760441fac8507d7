/* synthrec.h — test helper: recordings made by the model itself.  A W x H
 * sheet hangs in the xz plane (row 0 on top), its rows x cols marker
 * lattice refined into the simulation mesh (by default as the fitting mesh), the two
 * top corners shaken across the plane (axis y) with amplitude A (m) and
 * frequency f (Hz), and turned about the vertical when twist is set;
 * markers are sampled at the lattice nodes every step. */
#ifndef CF_SYNTHREC_H
#define CF_SYNTHREC_H
#include "cf_sim.h"

typedef struct {
  int rows, cols, T;
  double width, height, rho, delta, alpha, amplitude, frequency, dt;
  double noise;            /* Gaussian marker noise (m), not on the corners */
  unsigned long long seed;
  double kappa;            /* bending stiffness (0: none) */
  double tol;              /* projection tolerance (0: the default 1e-3) */
  int model;               /* cf_cloth_model (0: inextensible) */
  double k_stretch, k_shear, k_bend; /* its stiffnesses (0: cf_params_default's) */
  double axis[3];          /* the shake's direction (0: across the plane, y) */
  double beta;             /* Rayleigh damping on K (0: none) */
  int split;               /* the mesh: lattice cells split split x split (0: 2) */
  int substeps;            /* simulation steps per sample (0: 1), the corners on the
                              drive's own curve at every step */
  double twist;            /* > 0: the top corners also turn about the vertical through
                              their midpoint by twist sin(2 pi f t) (radians), as
                              synth's twist does (0: none) */
  int split_cols;          /* the cells' split across when it differs from split's (0: split's) */
} cf_test_rec_spec;

/* [T*rows*cols*3] malloc'ed; exits the test with a message on failure. */
double *cf_test_shaken_recording(const cf_test_rec_spec *sp);
/* Make rec [T*rows*cols*3] a smooth case for the sensitivities
 * (tests/test_fit_sens.c says why): frame 0's markers below the top row
 * up to 1 mm out of the plane (seeded), and the two top corners from frame
 * 1 on closer together by `slack` of their distance.  For a target with
 * the rest metric and start of frame 0 (CF_REST_FIRST_FRAME). */
void cf_test_smooth_start(double *rec, int rows, int cols, int T, unsigned long long seed, double slack);
/* (synthrec_h5.c, links src/io) The recording pos [T*rows*cols*3] of sp
 * as an HDF5 recording file: markers M00.. in lattice order, uniform dt,
 * polyester of sp's size and density.  Flags: CF_TEST_REC_LATTICE adds the
 * marker processing of an ingest with --lattice (cells, weights, top
 * corners controlled); NO_DENSITY leaves the density unknown; NATIVE marks
 * the time as native (not resampled).  0 or the error code (message on
 * stderr). */
enum { CF_TEST_REC_LATTICE = 1, CF_TEST_REC_NO_DENSITY = 2, CF_TEST_REC_NATIVE = 4 };
int cf_test_write_recording_h5(const char *path, const cf_test_rec_spec *sp, const double *pos, int flags);
#endif
