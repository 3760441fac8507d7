/* table_fit.c — the table a cloth lies on, from the points of a depth
 * camera's first frame (cf_recording.h, cf_table_fit): for a point-cloud
 * recording that starts flat on a table (`ingest clouds --start
 * flat-on-table`) whose metadata gives no table.
 *
 * The table is horizontal (z up; the simulation's table is an axis-aligned
 * slab, cf_obstacle_table_at), and the cloth lying on it is most of the
 * first frame's points.  So: the median z of the points, the points within
 * CF_TABLE_FIT_BAND of it (the cloth; not the outliers, a robot above it,
 * a fold), a plane through them by least squares (its tilt and rms say
 * whether they lie on a horizontal plane at all), and the table's top face
 * the clearance below their median z (the simulation keeps the cloth that
 * far above an obstacle: so the simulated sheet lies where the points are).
 * Its extent is unknown from the cloth alone: the points' box grown by
 * margin on every side.
 * Workspace: a copy of the z values (malloc'ed, freed).
 * Failure: CF_EINVAL with one line naming source when fewer than
 * CF_TABLE_FIT_MIN points lie in the band, when they do not spread over a
 * plane (all on a line), or when that plane is tilted more than
 * CF_TABLE_FIT_TILT degrees or its rms exceeds CF_TABLE_FIT_RMS; CF_ENOMEM. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_recording.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The least-squares plane z = a x + b y + c of the n points in the band
 * around zm: its tilt (degrees) and rms (m); 0 when they lie on a line. */
static int plane(const double *p, long n, double zm, double *tilt, double *rms) {
  double s[3] = {0, 0, 0}, m = 0;
  for (long i = 0; i < n; i++)
    if (fabs(p[3 * i + 2] - zm) <= CF_TABLE_FIT_BAND) s[0] += p[3 * i], s[1] += p[3 * i + 1], s[2] += p[3 * i + 2], m++;
  for (int d = 0; d < 3; d++) s[d] /= m;
  double xx = 0, xy = 0, yy = 0, xz = 0, yz = 0;
  for (long i = 0; i < n; i++) {
    const double *q = p + 3 * i;
    if (fabs(q[2] - zm) > CF_TABLE_FIT_BAND) continue;
    double x = q[0] - s[0], y = q[1] - s[1], z = q[2] - s[2];
    xx += x * x, xy += x * y, yy += y * y, xz += x * z, yz += y * z;
  }
  double det = xx * yy - xy * xy;
  if (!(det > 1e-12 * (xx + yy) * (xx + yy)) || !(xx + yy > 0)) return 0;
  double a = (xz * yy - yz * xy) / det, b = (yz * xx - xz * xy) / det, r2 = 0;
  for (long i = 0; i < n; i++) {
    const double *q = p + 3 * i;
    if (fabs(q[2] - zm) > CF_TABLE_FIT_BAND) continue;
    double e = q[2] - s[2] - a * (q[0] - s[0]) - b * (q[1] - s[1]);
    r2 += e * e;
  }
  *tilt = atan(sqrt(a * a + b * b)) * 180 / M_PI, *rms = sqrt(r2 / m);
  return 1;
}

int cf_table_fit(const double *p, long n, double clearance, double margin, const char *source, double table[5],
                 cf_table_fit_info *info, cf_error *err) {
  double *z = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!z) return cf_error_set(err, CF_ENOMEM, "%s: out of memory for the table's fit", source);
  for (long i = 0; i < n; i++) z[i] = p[3 * i + 2];
  qsort(z, (size_t)n, sizeof(double), cmp_double);
  double zm = n ? (n % 2 ? z[n / 2] : 0.5 * (z[n / 2 - 1] + z[n / 2])) : NAN, box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
  free(z);
  long m = 0;
  for (long i = 0; i < n; i++) {
    const double *q = p + 3 * i;
    if (!(fabs(q[2] - zm) <= CF_TABLE_FIT_BAND)) continue;
    m++;
    box[0] = fmin(box[0], q[0]), box[1] = fmax(box[1], q[0]), box[2] = fmin(box[2], q[1]), box[3] = fmax(box[3], q[1]);
  }
  double tilt = 0, rms = 0;
  if (m < CF_TABLE_FIT_MIN || !plane(p, n, zm, &tilt, &rms))
    return cf_error_set(err, CF_EINVAL, "%s: no table: %ld of the first frame's %ld points lie within %g mm of one "
                        "height, on a plane; a flat-on-table start needs at least %d (or the table from "
                        "--table-height and --table-extent, or the meta keys table_height, table_extent)", source, m,
                        n, 1e3 * CF_TABLE_FIT_BAND, CF_TABLE_FIT_MIN);
  if (tilt > CF_TABLE_FIT_TILT || rms > CF_TABLE_FIT_RMS)
    return cf_error_set(err, CF_EINVAL, "%s: no table: the first frame's points near z = %.4f m lie on a plane tilted "
                        "%.1f degrees with an rms of %.2f mm, not on a horizontal table (at most %g degrees, %g mm; "
                        "give --table-height and --table-extent)", source, zm, tilt, 1e3 * rms, CF_TABLE_FIT_TILT,
                        1e3 * CF_TABLE_FIT_RMS);
  table[0] = zm - clearance;
  table[1] = box[0] - margin, table[2] = box[1] + margin, table[3] = box[2] - margin, table[4] = box[3] + margin;
  if (info) info->points = m, info->rms_m = rms, info->tilt_deg = tilt;
  return CF_OK;
}
