/* distributed.c — the parallel loops of parallel.c across the ranks of an
 * Open MPI job (`mpirun -n N clothfit sweep ...`; docs/design.md §9,
 * docs/cluster.md).
 *
 * Every rank runs the same command on the same inputs, so every rank calls
 * cf_parallel_run with the same n; the items are handed out dynamically:
 *   - rank 0 runs a coordinator thread that answers each worker rank's
 *     request (carrying its last result) with the next item, so a slow item
 *     stalls only the rank computing it; rank 0's main thread computes items
 *     too, taking them from the same counter;
 *   - the coordinator thread is the only caller of MPI while the loop runs
 *     (MPI_THREAD_SERIALIZED); it polls with MPI_Test and sleeps 100 us
 *     between polls instead of blocking in MPI_Recv, which would spin a
 *     core that rank 0's own simulations need;
 *   - `done` runs on rank 0 for every item (its own and the received ones),
 *     under a mutex: the journal of a crash-safe sweep lives there;
 *   - at the end rank 0 broadcasts all records (and the first failure), so
 *     every rank leaves with the same results and goes on identically.
 * Without MPI this file compiles to the single-process stubs. */
#include "parallel.h"

#include <stdio.h>
#include <string.h>

#ifdef CF_HAVE_MPI
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <stdlib.h>
#include <time.h>

static int dist_rank = 0, dist_size = 1, dist_on = 0, dist_threads = 0;

int cf_dist_init(int *argc, char ***argv) {
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return CF_OK; /* not under mpirun */
  /* A rank dies with its launcher (mpirun, or orted on other nodes): after
   * a kill -9 of mpirun, orphaned ranks would go on appending to the
   * journal while the rerun resumes from it. */
  pid_t launcher = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != launcher) return CF_EINVAL;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return CF_EINVAL;
  MPI_Comm_rank(MPI_COMM_WORLD, &dist_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &dist_size);
  dist_on = 1;
  dist_threads = provided >= MPI_THREAD_SERIALIZED;
  return CF_OK;
}

void cf_dist_finalize(void) {
  if (dist_on) MPI_Finalize();
  dist_on = 0;
}

int cf_dist_available(void) { return 1; }
int cf_dist_rank(void) { return dist_rank; }
int cf_dist_size(void) { return dist_size; }
void cf_dist_abort(int code) {
  if (dist_on) MPI_Abort(MPI_COMM_WORLD, code);
}
void cf_dist_bcast(void *buf, size_t n) {
  if (dist_size > 1 && n) MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

void cf_dist_hosts(char *buf, size_t size) {
  char me[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  if (!dist_on) return; /* not under mpirun: buf stays as it is */
  MPI_Get_processor_name(me, &len);
  char *all = dist_size > 1 ? calloc((size_t)dist_size, sizeof me) : NULL;
  if (!all) {
    snprintf(buf, size, "%s", me);
    return;
  }
  MPI_Allgather(me, sizeof me, MPI_CHAR, all, sizeof me, MPI_CHAR, MPI_COMM_WORLD);
  size_t n = 0;
  buf[0] = 0;
  for (int r = 0; r < dist_size; r++) { /* each host once, with its count of ranks */
    const char *h = all + (size_t)r * sizeof me;
    int first = 1, count = 0;
    for (int q = 0; q < dist_size; q++)
      if (!strcmp(h, all + (size_t)q * sizeof me)) first &= q >= r, count++;
    if (first && n < size) n += (size_t)snprintf(buf + n, size - n, "%s%s x%d", n ? ", " : "", h, count);
  }
  free(all);
}

enum { TAG_REQ = 7101, TAG_ITEM = 7102 };

/* A worker's message: the item it finished (-1: none yet), its status and
 * message, then the record. */
typedef struct {
  int item, rc;
  char msg[512];
} msg_head;

typedef struct {
  int n;
  size_t rec_size;
  cf_worker_init_fn init;
  cf_item_fn fn;
  cf_done_fn done;
  void *ctx;
  char *out;
  const cf_fit_progress *progress;
  pthread_mutex_t mu;
  int next, finished, failed;
  cf_error err; /* the first failure */
} dist_job;

static int take_item(dist_job *j) {
  pthread_mutex_lock(&j->mu);
  int i = j->failed || j->next >= j->n ? -1 : j->next++;
  pthread_mutex_unlock(&j->mu);
  return i;
}

/* An item finished (on any rank): record it, run done, count it. */
static void finish_item(dist_job *j, int i, int rc, const char *msg, const void *rec, int caller) {
  pthread_mutex_lock(&j->mu);
  cf_error e = {0, ""};
  if (!rc) {
    memcpy(j->out + (size_t)i * j->rec_size, rec, j->rec_size);
    if (j->done) rc = j->done(i, rec, j->ctx, &e), msg = e.msg;
  }
  if (rc && !j->failed++) cf_error_set(&j->err, rc, "%s", msg && msg[0] ? msg : cf_status_name(rc));
  int done = rc ? j->finished : ++j->finished;
  pthread_mutex_unlock(&j->mu);
  if (!rc && caller && j->progress && j->progress->fn) j->progress->fn(done, j->n, j->progress->user);
}

/* Rank 0's coordinator: serve the worker ranks until each got its stop. */
static void *coordinate(void *arg) {
  dist_job *j = arg;
  size_t size = sizeof(msg_head) + j->rec_size;
  char *buf = malloc(size);
  int stopped = 0;
  while (buf && stopped < dist_size - 1) {
    MPI_Request rq;
    MPI_Status st;
    int flag = 0;
    MPI_Irecv(buf, (int)size, MPI_BYTE, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &rq);
    while (MPI_Test(&rq, &flag, &st), !flag) nanosleep(&(struct timespec){0, 100000}, NULL);
    msg_head *h = (msg_head *)buf;
    if (h->item >= 0) finish_item(j, h->item, h->rc, h->msg, buf + sizeof *h, 0);
    int next = take_item(j);
    MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_ITEM, MPI_COMM_WORLD);
    stopped += next < 0;
  }
  free(buf);
  return NULL;
}

/* A worker rank: ask, compute, report, until told to stop. */
static void serve(dist_job *j, int init_rc, const cf_error *init_err) {
  size_t size = sizeof(msg_head) + j->rec_size;
  char *buf = calloc(1, size);
  msg_head *h = (msg_head *)buf;
  h->item = -1;
  for (int first = 1;; first = 0) {
    if (first && init_rc) h->item = 0, h->rc = init_rc, snprintf(h->msg, sizeof h->msg, "%s", init_err->msg);
    MPI_Send(buf, (int)size, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD);
    int next;
    MPI_Recv(&next, 1, MPI_INT, 0, TAG_ITEM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (next < 0) break;
    cf_error e = {0, ""};
    memset(buf, 0, size);
    h->item = next;
    h->rc = j->fn(next, j->ctx, buf + sizeof *h, &e);
    snprintf(h->msg, sizeof h->msg, "%s", e.msg);
  }
  free(buf);
}

int cf_dist_run(int n, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, cf_done_fn done, void *ctx, void *out,
                const cf_fit_progress *progress, cf_error *err) {
  dist_job j = {n, rec_size, init, fn, done, ctx, out, progress, PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, {0, ""}};
  cf_error e = {0, ""};
  int init_rc = init ? init(ctx, &e) : CF_OK;
  if (dist_rank > 0) {
    serve(&j, init_rc, &e);
  } else {
    pthread_t th;
    int threaded = dist_threads && pthread_create(&th, NULL, coordinate, &j) == 0;
    if (init_rc) finish_item(&j, 0, init_rc, e.msg, NULL, 1);
    for (int i; threaded && (i = take_item(&j)) >= 0;) {
      char *rec = calloc(1, rec_size);
      cf_error ie = {0, ""};
      int rc = rec ? fn(i, ctx, rec, &ie) : CF_ENOMEM;
      finish_item(&j, i, rc, ie.msg, rec, 1);
      free(rec);
    }
    if (threaded) pthread_join(th, NULL);
    else coordinate(&j); /* no thread support: rank 0 only hands out */
  }
  /* Everyone leaves with rank 0's records and verdict. */
  int head[2] = {j.failed, j.err.code};
  MPI_Bcast(head, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(j.err.msg, sizeof j.err.msg, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (head[0]) {
    if (err) *err = j.err, err->code = head[1];
    return head[1] ? head[1] : CF_EINVAL;
  }
  cf_dist_bcast(out, (size_t)n * rec_size);
  return CF_OK;
}

#else /* no MPI: one process */

int cf_dist_init(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return CF_OK;
}
void cf_dist_finalize(void) {}
int cf_dist_available(void) { return 0; }
int cf_dist_rank(void) { return 0; }
int cf_dist_size(void) { return 1; }
void cf_dist_abort(int code) { (void)code; }
void cf_dist_bcast(void *buf, size_t n) { (void)buf, (void)n; }
void cf_dist_hosts(char *buf, size_t size) { (void)buf, (void)size; }
int cf_dist_run(int n, size_t rec_size, cf_worker_init_fn init, cf_item_fn fn, cf_done_fn done, void *ctx, void *out,
                const cf_fit_progress *progress, cf_error *err) {
  (void)n, (void)rec_size, (void)init, (void)fn, (void)done, (void)ctx, (void)out, (void)progress;
  return cf_error_set(err, CF_EINVAL, "clothfit was built without Open MPI");
}
#endif
