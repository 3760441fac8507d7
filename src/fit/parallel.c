/* parallel.c — forked workers over a shared mapping (see parallel.h). */
#include "parallel.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  atomic_int next;
  atomic_int done;
  atomic_int failed;
  cf_error err; /* the first failure */
} shared_head;

typedef struct {
  shared_head *head;
  char *recs;
  size_t rec_size;
  int n;
  cf_worker_init_fn init;
  cf_item_fn fn;
  cf_done_fn done;
  void *ctx;
  const cf_fit_progress *progress; /* in the calling process only */
} job;

static void note_failure(job *j, const cf_error *err) {
  if (atomic_fetch_add(&j->head->failed, 1) == 0) j->head->err = *err;
}

static void work(job *j, int caller) {
  cf_error err = {0, ""};
  if (j->init && j->init(j->ctx, &err)) {
    note_failure(j, &err);
    return;
  }
  for (int i; !atomic_load(&j->head->failed) && (i = atomic_fetch_add(&j->head->next, 1)) < j->n;) {
    err.msg[0] = 0;
    char *rec = j->recs + (size_t)i * j->rec_size;
    int rc = j->fn(i, j->ctx, rec, &err);
    if (!rc && j->done) rc = j->done(i, rec, j->ctx, &err);
    if (rc) {
      if (!err.msg[0]) cf_error_set(&err, rc, "worker: item %d failed (%s)", i, cf_status_name(rc));
      err.code = rc;
      note_failure(j, &err);
      return;
    }
    int done = atomic_fetch_add(&j->head->done, 1) + 1;
    if (caller && j->progress && j->progress->fn) j->progress->fn(done, j->n, j->progress->user);
  }
}

static int n_workers(int workers, int n) {
  long t = workers > 0 ? workers : sysconf(_SC_NPROCESSORS_ONLN);
  if (t < 1) t = 1;
  if (t > n) t = n;
  if (t > 256) t = 256;
  return (int)t;
}

int cf_parallel_run(int n, int workers, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, cf_done_fn done,
                    void *ctx, void *out, const cf_fit_progress *progress, cf_error *err) {
  if (n <= 0) return CF_OK;
  if (cf_dist_size() > 1) return cf_dist_run(n, rec_size, init, fn, done, ctx, out, progress, err);
  size_t head = (sizeof(shared_head) + 63) & ~(size_t)63, size = head + (size_t)n * rec_size;
  void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return cf_error_set(err, CF_ENOMEM, "cannot map %zu bytes of shared memory", size);
  job j = {map, (char *)map + head, rec_size, n, init, fn, done, ctx, progress};
  atomic_init(&j.head->next, 0);
  atomic_init(&j.head->done, 0);
  atomic_init(&j.head->failed, 0);
  int nw = n_workers(workers, n), forked = 0;
  pid_t parent = getpid();
  pid_t pid[256];
  for (; forked < nw - 1; forked++) {
    pid[forked] = fork();
    if (pid[forked] < 0) break;
    if (pid[forked] == 0) {
      /* Die with the caller: a worker orphaned by a kill -9 would go on
       * appending to the caller's journal while a rerun resumes from it. */
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent) _exit(1);
      work(&j, 0);
      _exit(0);
    }
  }
  work(&j, 1);
  int crashed = 0;
  for (int i = 0; i < forked; i++) {
    int st = 0;
    while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR) {
    }
    crashed |= !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  int rc = CF_OK;
  if (atomic_load(&j.head->failed)) {
    rc = j.head->err.code ? j.head->err.code : CF_EINVAL;
    if (err) *err = j.head->err;
  } else if (crashed || atomic_load(&j.head->done) < n) {
    rc = cf_error_set(err, CF_ESOLVER, "a worker process died before finishing its items");
  } else {
    memcpy(out, j.recs, (size_t)n * rec_size);
  }
  munmap(map, size);
  return rc;
}
