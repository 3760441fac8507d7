/* fit_flat.h — internal to src/study: the flat-on-table start of a
 * point-cloud fit (fit_flat.c), for fit_cloud.c. */
#ifndef CF_STUDY_FIT_FLAT_H
#define CF_STUDY_FIT_FLAT_H

/* Where the grippers pin the sheet: anchor a's point of the sheet (u, v)
 * = uv[2a], uv[2a + 1] lies at (x, y) = xy[2a], xy[2a + 1]. */
typedef struct {
  int n;
  double uv[2 * 16], xy[2 * 16];
} cf_flat_anchors;

/* The rows x cols lattice of a W x H sheet lying flat at height z, placed
 * and oriented by the anchors and the first frame's n points p[n*3] (those
 * within CF_FLAT_BAND of z count; fit_flat.c says how) into pos[rows*cols*3]
 * (row 0 the sheet's top edge v = 0, column 0 its left edge u = 0).
 * CF_EINVAL with one line naming source when nothing places it (no anchor
 * and no point near z). */
#define CF_FLAT_BAND 0.02 /* m */
int cf_fit_flat_place(const double *p, long n, double W, double H, double z, int rows, int cols,
                      const cf_flat_anchors *an, const char *source, double *pos, cf_error *err);
#endif
