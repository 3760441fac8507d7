/* forkmap.h — test helper: run fn(i, out_i) for i < n on `workers` forked
 * processes (static round-robin partition) and collect the fixed-size
 * results through pipes.  Kept apart from src/fit/parallel.c so that the
 * physics tests of src/sim do not depend on the fitting library. */
#ifndef CF_FORKMAP_H
#define CF_FORKMAP_H
#include <stddef.h>

/* Returns 0 on success, -1 if a worker failed or died. */
int cf_test_fork_map(int n, int workers, size_t rec_size, void (*fn)(int i, void *out), void *out);
#endif
