/* fuzz_csv.c — libFuzzer target: the generic marker CSV reader on arbitrary
 * bytes (from memory), with the default and a reversed column pattern, then
 * resampling of whatever it accepted.  Errors are the expected outcome; any
 * crash, leak or sanitizer report is a bug. */
#include <stddef.h>
#include <stdint.h>

#include "cf_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cf_csv_opts o;
  cf_csv_opts_default(&o);
  if (size & 1) o.pattern = "{axis}.{name}", o.time_column = "t"; /* vary the options with the input */
  o.up = size & 2 ? 'y' : 'z';
  cf_recording r;
  cf_error err;
  if (cf_csv_read_mem(data, size, "fuzz.csv", &o, &r, &err) == CF_OK) {
    for (int k = 0; k < r.n_markers; k++) cf_recording_quality(&r, k);
    if (r.n_frames > 0 && r.time[r.n_frames - 1] * 100.0 * (r.n_markers + 1) < 1e6) /* bounded work */
      cf_recording_resample(&r, 0.01, &err);
    cf_recording_free(&r);
  }
  return 0;
}
