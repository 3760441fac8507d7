/* fuzz_mesh.c — libFuzzer targets for the frame parsers of the
 * mesh-sequence reader on arbitrary bytes: built as fuzz_obj (the OBJ
 * parser) and, with -DFUZZ_PLY, as fuzz_ply (the PLY parser).  Any crash,
 * leak or sanitizer report is a bug; errors are the expected outcome. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

#ifdef FUZZ_PLY
#define PARSE(buf, len, fr, err) cf_ply_parse(buf, len, "fuzz.ply", fr, err)
#else
#define PARSE(buf, len, fr, err) cf_obj_parse(buf, len, "fuzz.obj", fr, err)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1); /* the parsers want buf[len] == 0 */
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = 0;
  cf_meshframe fr;
  cf_error err;
  if (PARSE(buf, size, &fr, &err) == CF_OK) cf_meshframe_free(&fr);
  free(buf);
  return 0;
}
