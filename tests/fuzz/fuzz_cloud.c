/* fuzz_cloud.c — libFuzzer targets for the point-cloud reader's parsers on
 * arbitrary bytes: built as fuzz_cloud (a PLY file read as a point cloud,
 * cf_ply_parse_points), with -DFUZZ_XYZ as fuzz_xyz (cf_xyz_parse) and with
 * -DFUZZ_HELD as fuzz_held (the held corners' track CSV,
 * cf_held_track_parse).  Any crash, leak or sanitizer report is a bug;
 * errors are the expected outcome. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1); /* the parsers want buf[len] == 0 */
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = 0;
  cf_error err;
#ifdef FUZZ_HELD
  cf_rec_held h;
  if (cf_held_track_parse(buf, size, "fuzz.csv", 0.001, 'y', &h, &err) == CF_OK) cf_rec_held_free(&h);
#else
  cf_meshframe fr;
#ifdef FUZZ_XYZ
  int rc = cf_xyz_parse(buf, size, "fuzz.xyz", &fr, &err);
#else
  int rc = cf_ply_parse_points(buf, size, "fuzz.ply", &fr, &err);
#endif
  if (rc == CF_OK) cf_meshframe_free(&fr);
#endif
  free(buf);
  return 0;
}
