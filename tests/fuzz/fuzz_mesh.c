/* fuzz_mesh.c — libFuzzer targets for the frame parsers of the
 * mesh-sequence and point-cloud readers on arbitrary bytes, one a build:
 * fuzz_obj (the OBJ parser), -DFUZZ_PLY fuzz_ply (the PLY parser),
 * -DFUZZ_CLOUD fuzz_cloud (a PLY read as a point cloud), -DFUZZ_XYZ
 * fuzz_xyz (the XYZ parser) and -DFUZZ_HELD fuzz_held (the held corners'
 * track CSV).  Any crash, leak or sanitizer report is a bug; errors are the
 * expected outcome. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

#if defined FUZZ_PLY
#define PARSE(buf, len, fr, err) cf_ply_parse(buf, len, "fuzz.ply", fr, err)
#elif defined FUZZ_CLOUD
#define PARSE(buf, len, fr, err) cf_ply_parse_points(buf, len, "fuzz.ply", fr, err)
#elif defined FUZZ_XYZ
#define PARSE(buf, len, fr, err) cf_xyz_parse(buf, len, "fuzz.xyz", fr, err)
#else
#define PARSE(buf, len, fr, err) cf_obj_parse(buf, len, "fuzz.obj", fr, err)
#endif

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
  if (PARSE(buf, size, &fr, &err) == CF_OK) cf_meshframe_free(&fr);
#endif
  free(buf);
  return 0;
}
