/* sweep.c — grid sweep over (delta, alpha) on all cores (thesis §4.2.2,
 * SPEC §8).  Points are handed out dynamically (an atomic counter), so a
 * slow point does not stall the others; every worker owns its driven
 * simulation, so results are independent of the number of workers. */
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cf_fit.h"

int cf_sweep_default_grid(double rho, double **delta, int *nd, double **alpha, int *na) {
  *nd = 15;
  *na = 16;
  *delta = malloc(sizeof(double) * 15);
  *alpha = malloc(sizeof(double) * 16);
  if (!*delta || !*alpha) {
    free(*delta);
    free(*alpha);
    return CF_ENOMEM;
  }
  for (int i = 0; i < 15; i++) (*delta)[i] = rho * (0.05 + (1.0 - 0.05) * i / 14);
  for (int i = 0; i < 16; i++) (*alpha)[i] = rho * (0.05 + (4.0 - 0.05) * i / 15);
  return CF_OK;
}

/* Workers are forked processes, not threads: Debian's serial OpenBLAS (used
 * by CHOLMOD's supernodal factorization) is not safe to call from several
 * threads at once, and neither is HDF5.  Results and the dynamic work
 * counter live in one shared anonymous mapping. */
typedef struct {
  atomic_int next;
  atomic_int failed;        /* a worker could not set up */
  pthread_mutex_t lock;     /* process-shared: guards best */
  double best;              /* smallest exact mean error so far (pruning bound) */
  cf_error err;
} sweep_shared;

typedef struct {
  const cf_fit_target *tg;
  const cf_params *base;
  const cf_fit_point *fixed;
  const cf_sweep_options *o;
  cf_sweep_result *res;     /* arrays in shared memory while running */
  sweep_shared *sh;
} sweep_ctx;

static void record(sweep_ctx *c, int idx, const cf_fit_result *r) {
  cf_sweep_result *s = c->res;
  s->e[idx] = r->err.e_cm;
  s->s[idx] = r->err.s_cm;
  s->dmax[idx] = r->err.d_max_cm;
  s->status[idx] = r->status;
  s->pruned[idx] = (unsigned char)r->pruned;
  snprintf(s->reason[idx], sizeof s->reason[idx], "%s", r->reason);
  if (r->status == CF_OK && !r->pruned) {
    pthread_mutex_lock(&c->sh->lock);
    if (r->err.e_cm < c->sh->best) c->sh->best = r->err.e_cm;
    pthread_mutex_unlock(&c->sh->lock);
  }
}

static double prune_bound(sweep_ctx *c) {
  if (!c->o->prune) return 0;
  pthread_mutex_lock(&c->sh->lock);
  double b = isfinite(c->sh->best) ? c->sh->best : 0;
  pthread_mutex_unlock(&c->sh->lock);
  return b;
}

static void worker(sweep_ctx *c) {
  cf_error err;
  cf_fit_run *run = cf_fit_run_alloc(c->tg, c->base, &err);
  if (!run) {
    if (atomic_fetch_add(&c->sh->failed, 1) == 0) c->sh->err = err;
    return;
  }
  int n = c->o->nd * c->o->na;
  for (int idx; (idx = atomic_fetch_add(&c->sh->next, 1)) < n;) {
    cf_fit_point pt = *c->fixed;
    pt.delta = c->o->delta[idx / c->o->na];
    pt.alpha = c->o->alpha[idx % c->o->na];
    cf_fit_result r;
    if (cf_fit_run_eval(run, &pt, c->o->t0, c->o->t1, prune_bound(c), NULL, &r) != CF_OK) {
      r.status = CF_ENOMEM;
      strcpy(r.reason, "out of memory");
      r.err.e_cm = INFINITY;
    }
    record(c, idx, &r);
  }
  cf_fit_run_free(run);
}

/* One shared mapping holds the sweep_shared block and every result array. */
typedef struct {
  void *base;
  size_t size;
} shared_map;

static void *carve(char **p, size_t bytes) {
  void *q = *p;
  *p += (bytes + 63) & ~(size_t)63;
  return q;
}

static int map_shared(shared_map *mp, sweep_ctx *c, cf_sweep_result *res, int nd, int na) {
  size_t n = (size_t)nd * na;
  size_t need = 64 * 8 + sizeof(sweep_shared) + n * (3 * sizeof(double) + sizeof(int) + 1 + 128);
  mp->size = need;
  mp->base = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mp->base == MAP_FAILED) return CF_ENOMEM;
  char *p = mp->base;
  c->sh = carve(&p, sizeof(sweep_shared));
  memset(res, 0, sizeof *res);
  res->nd = nd;
  res->na = na;
  res->e = carve(&p, n * sizeof(double));
  res->s = carve(&p, n * sizeof(double));
  res->dmax = carve(&p, n * sizeof(double));
  res->status = carve(&p, n * sizeof(int));
  res->pruned = carve(&p, n);
  res->reason = carve(&p, n * 128);
  pthread_mutexattr_t at;
  pthread_mutexattr_init(&at);
  pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
  pthread_mutex_init(&c->sh->lock, &at);
  pthread_mutexattr_destroy(&at);
  atomic_init(&c->sh->next, 0);
  atomic_init(&c->sh->failed, 0);
  c->sh->best = INFINITY;
  return CF_OK;
}

/* Copy the results out of the shared mapping into malloc'ed arrays. */
static int unshare(cf_sweep_result *res) {
  cf_sweep_result sh = *res;
  size_t n = (size_t)sh.nd * sh.na;
  res->e = malloc(n * sizeof(double));
  res->s = malloc(n * sizeof(double));
  res->dmax = malloc(n * sizeof(double));
  res->status = malloc(n * sizeof(int));
  res->pruned = malloc(n);
  res->reason = malloc(n * 128);
  if (!res->e || !res->s || !res->dmax || !res->status || !res->pruned || !res->reason) return CF_ENOMEM;
  memcpy(res->e, sh.e, n * sizeof(double));
  memcpy(res->s, sh.s, n * sizeof(double));
  memcpy(res->dmax, sh.dmax, n * sizeof(double));
  memcpy(res->status, sh.status, n * sizeof(int));
  memcpy(res->pruned, sh.pruned, n);
  memcpy(res->reason, sh.reason, n * 128);
  return CF_OK;
}

void cf_sweep_result_free(cf_sweep_result *res) {
  free(res->e);
  free(res->s);
  free(res->dmax);
  free(res->status);
  free(res->pruned);
  free(res->reason);
  memset(res, 0, sizeof *res);
}

static int n_workers(const cf_sweep_options *o, int n) {
  long t = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (t < 1) t = 1;
  if (t > n) t = n;
  if (t > 256) t = 256;
  return (int)t;
}

/* Fork the workers (the calling process works too) and wait for them. */
static int run_workers(sweep_ctx *c, int nw) {
  pid_t pid[256];
  int forked = 0;
  for (; forked < nw - 1; forked++) {
    pid[forked] = fork();
    if (pid[forked] < 0) break;
    if (pid[forked] == 0) {
      worker(c);
      _exit(0);
    }
  }
  worker(c);
  int crashed = 0;
  for (int i = 0; i < forked; i++) {
    int st;
    while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR) {
    }
    crashed |= !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  return crashed;
}

int cf_sweep_run(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed,
                 const cf_sweep_options *o, cf_sweep_result *res, cf_error *err) {
  if (o->nd < 1 || o->na < 1)
    return cf_error_set(err, CF_EINVAL, "sweep: empty grid (%d x %d)", o->nd, o->na);
  sweep_ctx c = {.tg = tg, .base = base, .fixed = fixed, .o = o, .res = res};
  shared_map mp;
  if (map_shared(&mp, &c, res, o->nd, o->na))
    return cf_error_set(err, CF_ENOMEM, "sweep: cannot map shared memory for the results");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int n = o->nd * o->na;
  int crashed = run_workers(&c, n_workers(o, n));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int rc = CF_OK;
  if (atomic_load(&c.sh->failed)) {
    rc = c.sh->err.code ? c.sh->err.code : CF_EINVAL;
    if (err) *err = c.sh->err;
  } else if (crashed || atomic_load(&c.sh->next) < n) {
    rc = cf_error_set(err, CF_ESOLVER, "sweep: a worker process died before finishing its points");
  }
  pthread_mutex_destroy(&c.sh->lock);
  if (rc == CF_OK && unshare(res)) rc = cf_error_set(err, CF_ENOMEM, "sweep: out of memory");
  if (rc) memset(res, 0, sizeof *res);
  munmap(mp.base, mp.size);
  if (rc) return rc;
  res->wall_s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  res->best = -1;
  for (int i = 0; i < n; i++)
    if (res->status[i] == CF_OK && !res->pruned[i] && (res->best < 0 || res->e[i] < res->e[res->best]))
      res->best = i;
  return CF_OK;
}
