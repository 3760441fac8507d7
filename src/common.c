/* common.c — status codes and messages; freeing lists of arrays; the
 * a-priori formulas' values; the OpenMP run-time setting. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cf_common.h"

#include <omp.h>

void cf_free_n(void *const *p, size_t n) {
  for (size_t i = 0; i < n; i++) free(p[i]);
}

void cf_formula_predict(const cf_formula *f, double S, double V, double rho, double *delta, double *alpha) {
  *delta = f->d[0] + f->d[1] * S + f->d[2] * V + f->d[3] * rho;
  *alpha = f->a[0] + f->a[1] * S + f->a[2] * V + f->a[3] * rho;
}

void cf_runtime_init(void) { omp_set_max_active_levels(0); }

/* GCC compiles `#pragma omp parallel` (Debian's CHOLMOD) into a call of
 * GOMP_parallel(fn, data, ...).  With no active level allowed, libgomp
 * still builds and tears down a team of one for every region and wakes
 * its barrier with a futex system call: about 120 regions per numeric
 * factorization of the 137-row A2 projection matrix, a fifth of a whole
 * A2 simulation (bench_sim).  This definition in the executable comes
 * first in the dynamic symbol lookup, so CHOLMOD's calls land here: when
 * parallelism is off the region runs on the calling thread, as libgomp
 * would run it (an inactive region of one thread: thread 0 of 1, orphaned
 * work-sharing and barriers); otherwise libgomp's own GOMP_parallel runs. */
typedef void (*cf_gomp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
  if (omp_get_max_active_levels() == 0) {
    fn(data);
    return;
  }
  static cf_gomp_parallel_fn real;
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "GOMP_parallel");
  real(fn, data, num_threads, flags);
}

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
    case CF_ENOTRUN: return "not run in this shard";
    default: return "unknown error";
  }
}

unsigned long long cf_hash_bytes(unsigned long long h, const void *p, size_t n) {
  const unsigned char *c = p;
  if (!h) h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}
