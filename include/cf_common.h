/* cf_common.h — what every folder of clothfit shares: status codes and the
 * error record.  Functions return a status code; when given a cf_error they
 * also fill in a one-line message that names what failed and where (file,
 * line, field, step ...), ready to print after "clothfit: ". */
#ifndef CF_COMMON_H
#define CF_COMMON_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */
enum {
  CF_OK = 0,
  CF_EINVAL = 1,     /* invalid argument or parameter */
  CF_ENOMEM = 2,     /* allocation failed */
  CF_ENOCONV = 3,    /* projection did not converge within max_iter */
  CF_ENONFINITE = 4, /* NaN or Inf appeared in the state */
  CF_ESOLVER = 5,    /* sparse factorization failed */
  CF_EIO = 6,        /* file input/output (used by src/io) */
  CF_EFORMAT = 7,    /* malformed input file (used by src/io) */
  CF_ENOTRUN = 8     /* a task left to another shard of a sweep (docs/design.md §9) */
};

typedef struct {
  int code;
  char msg[512];
} cf_error;

/* Set err (if not NULL) to code and a printf-formatted message; returns code. */
int cf_error_set(cf_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *cf_status_name(int code);

/* FNV-1a 64 of n bytes, continuing from h (0 to start).  Not cryptographic:
 * it tells runs and damaged records apart (src/io's journals), and names
 * tasks by what they compute (src/fit); it does not authenticate. */
unsigned long long cf_hash_bytes(unsigned long long h, const void *p, size_t n);

/* free() each of the n pointers p[0..n) (NULL ones too, as free does).
 * CF_FREE_ALL(a, b, ...) frees its arguments: the _free function of a
 * record that owns many arrays, in one statement (the pointers are read
 * before any is freed, so the record itself may come last). */
void cf_free_n(void *const *p, size_t n);
#define CF_FREE_ALL(...) \
  cf_free_n((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/* The a-priori formulas (4.6)-(4.7) of the thesis: delta = d0 + d1 S +
 * d2 V + d3 rho, alpha = a0 + a1 S + a2 V + a3 rho.  A value type shared by
 * the fitter that computes it (src/fit: cf_formula_predict, regression) and
 * the results files that store it (src/io), hence here. */
typedef struct {
  double d[4], a[4];
} cf_formula;

/* delta and alpha of f at size S, speed V and density rho (common.c). */
void cf_formula_predict(const cf_formula *f, double S, double V, double rho, double *delta, double *alpha);

/* Call once at program start, before any simulation.  Debian's CHOLMOD
 * runs its supernodal kernels in OpenMP regions hard-wired to 4 threads;
 * on small factorizations (our meshes) the thread start-up costs several
 * times the work itself, and sweeps already use every core with their own
 * workers.  This turns nested OpenMP parallelism off (max active levels 0),
 * which makes those regions run on the calling thread — straight, without
 * libgomp's per-region team set-up (common.c defines GOMP_parallel for
 * that; with parallelism on it hands over to libgomp's). */
void cf_runtime_init(void);

#ifdef __cplusplus
}
#endif
#endif
