/* kept.c — parallel loops whose finished items survive a crash (see
 * parallel.h, cf_parallel_run_kept, and cf_fit.h, cf_fit_journal).
 *
 * The same plan as a sweep's (sweep.c): the items the journal holds are
 * read into out, the others run on the workers (or ranks) and are saved as
 * each finishes, by the process that computed it (rank 0 under MPI, the
 * only one holding the journal).  An item's record depends only on the
 * item, so a resumed loop gives the records an uninterrupted one gives. */
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "parallel.h"

typedef struct {
  cf_item_fn fn;
  void *ctx;
  const int *todo;
  size_t size;
  const cf_fit_journal *kept;
  const char *kind;
  cf_item_id_fn id;
  const cf_fit_progress *progress; /* the caller's, counting all n items */
  int n, resumed;
} kept_ctx;

/* Progress of the items run now, offset by those taken from the journal. */
static void kept_progress(long done, long total, void *user) {
  const kept_ctx *c = user;
  (void)total;
  c->progress->fn(done + c->resumed, c->n, c->progress->user);
}

static int kept_item(int k, void *arg, void *out, cf_error *err) {
  kept_ctx *c = arg;
  return c->fn(c->todo[k], c->ctx, out, err);
}

static int kept_done(int k, const void *rec, void *arg, cf_error *err) {
  kept_ctx *c = arg;
  return c->kept->save(c->kept->ctx, c->id(c->todo[k], c->ctx), c->kind, rec, c->size, err);
}

unsigned long long cf_task_id(const char *kind, int index, const double *x, int nx) {
  unsigned long long h = cf_hash_bytes(0, kind, strlen(kind) + 1);
  h = cf_hash_bytes(h, &index, sizeof index);
  h = cf_hash_bytes(h, x, sizeof *x * (size_t)nx);
  return h | (1ULL << 63);
}

int cf_parallel_run_kept(int n, int workers, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, void *ctx,
                         void *out, const cf_fit_progress *progress, const cf_fit_journal *kept, const char *kind,
                         cf_item_id_fn id, cf_error *err) {
  if (n <= 0) return CF_OK;
  if (!kept && cf_dist_size() == 1)
    return cf_parallel_run(n, workers, rec_size, init, fn, NULL, ctx, out, progress, err);
  int *todo = calloc((size_t)n, sizeof(int)); /* broadcast whole */
  char *ran = calloc((size_t)n, rec_size);
  if (!todo || !ran) {
    free(todo), free(ran);
    return cf_error_set(err, CF_ENOMEM, "out of memory for %d items", n);
  }
  int m = 0;
  for (int i = 0; i < n; i++) {
    char *rec = (char *)out + (size_t)i * rec_size;
    memset(rec, 0, rec_size);
    if (!kept || !kept->load(kept->ctx, id(i, ctx), kind, rec, rec_size)) todo[m++] = i;
  }
  /* Under MPI the journal is rank 0's: every rank takes its plan. */
  cf_dist_bcast(&m, sizeof m);
  cf_dist_bcast(todo, sizeof *todo * (size_t)n);
  cf_dist_bcast(out, rec_size * (size_t)n);
  kept_ctx c = {fn, ctx, todo, rec_size, kept, kind, id, progress, n, n - m};
  cf_fit_progress shifted = {kept_progress, &c};
  const cf_fit_progress *p = progress && progress->fn && m < n ? &shifted : progress;
  int rc = m ? cf_parallel_run(m, workers, rec_size, init, kept_item, kept ? kept_done : NULL, &c, ran, p, err)
             : CF_OK;
  for (int k = 0; rc == CF_OK && k < m; k++) memcpy((char *)out + (size_t)todo[k] * rec_size, ran + (size_t)k * rec_size, rec_size);
  free(todo), free(ran);
  return rc;
}
