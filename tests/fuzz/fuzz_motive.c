/* fuzz_motive.c — libFuzzer target: the Motive CSV reader on arbitrary bytes
 * (parsed from memory), then resampling of whatever it accepted.  Any crash,
 * leak or sanitizer report is a bug; errors are the expected outcome. */
#include <stddef.h>
#include <stdint.h>

#include "cf_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  o.allow_empty = size & 1; /* vary the options with the input */
  o.keep_unseen = (size >> 1) & 1;
  o.rigid_bodies = (size >> 2) & 1;
  o.strict = (size >> 3) & 1;
  cf_recording r;
  cf_error err;
  if (cf_motive_read_mem(data, size, "fuzz.csv", &o, &r, &err) == CF_OK) {
    for (int k = 0; k < r.n_markers; k++) cf_recording_quality(&r, k);
    char line[128]; /* short: the description is cut, never overflows */
    cf_rec_export_describe(&r.exported, "fuzz.csv", line, sizeof line);
    /* bounded work: at most ~1e6 resampled marker samples */
    if (r.n_frames > 0 && r.time[r.n_frames - 1] * 100.0 * (r.n_markers + 1) < 1e6)
      cf_recording_resample(&r, 0.01, &err);
    cf_recording_free(&r);
  }
  return 0;
}
