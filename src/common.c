/* error.c — status codes and messages. */
#include <stdarg.h>
#include <stdio.h>

#include "cf_common.h"

#include <omp.h>

void cf_runtime_init(void) { omp_set_max_active_levels(0); }

int cf_error_set(cf_error *err, int code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

const char *cf_status_name(int code) {
  switch (code) {
    case CF_OK: return "ok";
    case CF_EINVAL: return "invalid argument";
    case CF_ENOMEM: return "out of memory";
    case CF_ENOCONV: return "projection did not converge";
    case CF_ENONFINITE: return "non-finite state";
    case CF_ESOLVER: return "factorization failed";
    case CF_EIO: return "input/output error";
    case CF_EFORMAT: return "malformed input";
    default: return "unknown error";
  }
}
