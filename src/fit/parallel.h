/* parallel.h — internal: run n independent items on worker processes.
 *
 * Why processes: Debian's serial OpenBLAS (under CHOLMOD's supernodal
 * factorization) is not safe to call from several threads at once, and
 * neither is HDF5; forked workers share nothing but one anonymous shared
 * mapping holding the work counter and the result records.  Items are
 * handed out dynamically, so a slow item does not stall the rest, and each
 * item's result depends only on the item: results are identical whatever
 * the number of workers.  Under `mpirun` the items go to the ranks of the
 * job instead (distributed.c), with the same guarantees. */
#ifndef CF_PARALLEL_H
#define CF_PARALLEL_H
#include <stddef.h>

#include "cf_fit.h"

/* Compute item i into out (rec_size bytes, zeroed).  ctx is the caller's,
 * as it was at fork time (changes in a worker are not seen by others).
 * Return CF_OK, or an error code that aborts the whole run (with err's
 * message if the item filled it). */
typedef int (*cf_item_fn)(int i, void *ctx, void *out, cf_error *err);
/* Called once in each worker before its first item (may be NULL): set up
 * per-worker state in ctx (e.g. allocate simulations). */
typedef int (*cf_worker_init_fn)(void *ctx, cf_error *err);
/* Called for every finished item with its record (may be NULL): in the
 * worker process that computed it (forked workers), or on rank 0 under
 * MPI, one call at a time.  An error aborts the run. */
typedef int (*cf_done_fn)(int i, const void *rec, void *ctx, cf_error *err);

/* Run items 0..n-1 on `workers` processes (0: all cores; the caller works
 * too).  out receives n records of rec_size bytes.  progress (may be NULL)
 * is called in the calling process, after each item it computes, with the
 * count of items finished by all workers. */
int cf_parallel_run(int n, int workers, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, cf_done_fn done,
                    void *ctx, void *out, const cf_fit_progress *progress, cf_error *err);
/* The task id of item i of a kept loop, from what the item computes (ctx:
 * the loop's, as given to cf_parallel_run_kept); pure, as it is also called
 * in worker processes. */
typedef unsigned long long (*cf_item_id_fn)(int i, const void *ctx);
/* cf_parallel_run over the items whose task ids id(i, ctx) the journal kept
 * (may be NULL; under MPI rank 0's, the others pass NULL) does not hold:
 * those are read from it into out, the others computed and saved to it as
 * they finish.  The plan is rank 0's, broadcast, so every rank runs the
 * same items and gets every record (kept.c). */
int cf_parallel_run_kept(int n, int workers, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, void *ctx,
                         void *out, const cf_fit_progress *progress, const cf_fit_journal *kept, const char *kind,
                         cf_item_id_fn id, cf_error *err);
/* The task id of an item of a kept loop: FNV-1a 64 of kind, index and the
 * bits of x[nx], with the top bit set (the sweeps' ids count from 0). */
unsigned long long cf_task_id(const char *kind, int index, const double *x, int nx);
/* The same across the ranks of an MPI job (distributed.c): every rank
 * calls it with the same n and gets every record; cf_parallel_run goes
 * there by itself when cf_dist_size() > 1 (workers is then ignored). */
int cf_dist_run(int n, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, cf_done_fn done, void *ctx, void *out,
                const cf_fit_progress *progress, cf_error *err);
#endif
