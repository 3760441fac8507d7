/* sweep.c — grid sweep over (delta, alpha) on all cores (thesis §4.2.2,
 * docs/design.md §8), on the worker processes of parallel.c.  Each worker owns
 * one driven simulation; results do not depend on the number of workers,
 * except the lower bounds of pruned points (pruning uses the best exact error
 * the workers of the process had seen when a point started, so it stays exact
 * for the argmin; under MPI each rank's workers share theirs).
 *
 * Pruning stops a point once its running error sum exceeds the best exact
 * mean times the window, so it saves work only once a good point is known.
 * The points therefore run coarse to fine from the grid's middle (see
 * visit_order), and the workers share the best error in a shared page. */
#include <stdatomic.h>
#include <sys/mman.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_fit.h"
#include "parallel.h"

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

typedef cf_sweep_point point_rec;

typedef struct {
  const cf_fit_target *tg;
  const cf_params *base;
  const cf_fit_point *fixed;
  const cf_sweep_options *o;
  const int *todo; /* grid indices still to run */
  cf_fit_run *run; /* per worker */
  double best;     /* smallest exact error known: from the journal, then
                      (without the shared page) the worker's own */
  _Atomic unsigned long long *shared_best; /* the workers' smallest exact
                      error since (bits of a double >= 0, whose order the
                      integers keep); NULL: not shared */
} sweep_ctx;

/* The smallest exact error known, and a new one. */
static double known_best(const sweep_ctx *c) {
  if (!c->shared_best) return c->best;
  unsigned long long b = atomic_load(c->shared_best);
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static void lower_best(sweep_ctx *c, double e) {
  if (!(e >= 0)) return;
  if (!c->shared_best) {
    if (e < c->best) c->best = e;
    return;
  }
  unsigned long long b, old = atomic_load(c->shared_best);
  memcpy(&b, &e, sizeof b);
  while (b < old && !atomic_compare_exchange_weak(c->shared_best, &old, b)) {
  }
}

static int sweep_init(void *arg, cf_error *err) {
  sweep_ctx *c = arg;
  c->run = cf_fit_run_alloc(c->tg, c->base, err);
  return c->run ? CF_OK : err->code;
}

static int sweep_item(int k, void *arg, void *out, cf_error *err) {
  sweep_ctx *c = arg;
  point_rec *p = out;
  int idx = c->todo[k];
  cf_fit_point pt = *c->fixed;
  int nda = c->o->nd * c->o->na;
  pt.delta = c->o->delta[idx % nda / c->o->na];
  pt.alpha = c->o->alpha[idx % c->o->na];
  if (c->o->nm > 0) pt.mu = c->o->mu[idx / nda];
  double best = known_best(c), margin = c->o->prune_margin > 1 ? c->o->prune_margin : 1;
  double bound = c->o->prune && isfinite(best) ? margin * best : 0;
  cf_fit_result r;
  int rc = cf_fit_run_eval(c->run, &pt, c->o->t0, c->o->t1, bound, NULL, &r);
  if (rc) return rc;
  p->e = r.err.e_cm;
  p->s = r.err.s_cm;
  p->dmax = r.err.d_max_cm;
  p->status = r.status;
  p->pruned = r.pruned;
  snprintf(p->reason, sizeof p->reason, "%.127s", r.reason);
  if (r.status == CF_OK && !r.pruned) lower_best(c, r.err.e_cm);
  (void)err;
  return CF_OK;
}

/* A finished point goes to the checkpoint (in the process that holds it first). */
static int sweep_done(int k, const void *rec, void *arg, cf_error *err) {
  const sweep_ctx *c = arg;
  const cf_sweep_checkpoint *ck = c->o->checkpoint;
  return ck->save(ck->ctx, c->o->task0 + (unsigned)c->todo[k], rec, err);
}

static int alloc_result(cf_sweep_result *res, int nm, int nd, int na) {
  size_t n = (size_t)cf_sweep_n_points(nm, nd, na);
  memset(res, 0, sizeof *res);
  res->nm = nm;
  res->nd = nd;
  res->na = na;
  res->e = malloc(sizeof(double) * n);
  res->s = malloc(sizeof(double) * n);
  res->dmax = malloc(sizeof(double) * n);
  res->status = malloc(sizeof(int) * n);
  res->pruned = malloc(n);
  res->reason = calloc(n, sizeof *res->reason);
  return res->e && res->s && res->dmax && res->status && res->pruned && res->reason ? CF_OK : CF_ENOMEM;
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

static void unpack(cf_sweep_result *res, const point_rec *p, int n) {
  res->best = -1;
  for (int i = 0; i < n; i++) {
    res->e[i] = p[i].e;
    res->s[i] = p[i].s;
    res->dmax[i] = p[i].dmax;
    res->status[i] = p[i].status;
    res->pruned[i] = (unsigned char)p[i].pruned;
    memcpy(res->reason[i], p[i].reason, sizeof res->reason[i]);
    if (p[i].status == CF_OK && !p[i].pruned && (res->best < 0 || p[i].e < res->e[res->best])) res->best = i;
  }
}

/* How coarse grid index i of n is: the power of two dividing its offset
 * from the middle (the middle itself: 31). */
static int coarseness(int i, int n) {
  int o = i - n / 2;
  if (o == 0) return 31;
  if (o < 0) o = -o;
  int z = 0;
  while (!(o & 1)) o >>= 1, z++;
  return z;
}

/* The order points run in: the middle of the (delta, alpha) grid first,
 * then the points on ever finer sublattices around it (strides 8, 4, 2, 1
 * from the middle), each level in index order (with a mu axis: at every mu
 * before the next level), so that good points, and with them tight pruning
 * bounds, are found early wherever the optimum lies.  Stable and
 * deterministic: it depends on the grid alone. */
static void visit_order(int *todo, int m, int nd, int na) {
  int done = 0;
  for (int level = 31; level >= 0 && done < m; level--) {
    for (int k = done; k < m; k++) {
      int idx = todo[k], g = idx % (nd * na), lv = coarseness(g / na, nd), la = coarseness(g % na, na);
      if ((lv < la ? lv : la) != level) continue;
      memmove(todo + done + 1, todo + done, sizeof *todo * (size_t)(k - done));
      todo[done++] = idx;
    }
  }
}

/* Which points to run: not another shard's, not finished before.  The
 * others are filled in recs now; the indices to run go to todo.  Returns
 * how many; *resumed counts the checkpoint's. */
static int plan(const cf_sweep_options *o, point_rec *recs, int *todo, int *resumed, double *best) {
  int n = cf_sweep_n_points(o->nm, o->nd, o->na), m = 0;
  *resumed = 0;
  for (int i = 0; i < n; i++) {
    unsigned long long id = o->task0 + (unsigned)i;
    if (o->shard_n > 1 && (int)(id % (unsigned)o->shard_n) != o->shard_i) {
      recs[i].status = CF_ENOTRUN, recs[i].e = recs[i].s = recs[i].dmax = NAN;
    } else if (o->checkpoint && o->checkpoint->load(o->checkpoint->ctx, id, &recs[i])) {
      ++*resumed;
      if (recs[i].status == CF_OK && !recs[i].pruned && recs[i].e < *best) *best = recs[i].e;
    } else {
      todo[m++] = i;
    }
  }
  return m;
}

int cf_sweep_run(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed,
                 const cf_sweep_options *o, cf_sweep_result *res, cf_error *err) {
  if (o->nd < 1 || o->na < 1 || o->nm < 0 || (o->nm > 0 && !o->mu))
    return cf_error_set(err, CF_EINVAL, "sweep: empty grid (%d x %d, %d mu)", o->nd, o->na, o->nm);
  if (o->shard_n > 1 && (o->shard_i < 0 || o->shard_i >= o->shard_n))
    return cf_error_set(err, CF_EINVAL, "sweep: shard %d of %d does not exist", o->shard_i, o->shard_n);
  int n = cf_sweep_n_points(o->nm, o->nd, o->na);
  point_rec *recs = calloc((size_t)n, sizeof *recs), *ran = calloc((size_t)n, sizeof *ran);
  int *todo = malloc(sizeof(int) * (size_t)n);
  if (!recs || !ran || !todo || alloc_result(res, o->nm, o->nd, o->na)) {
    free(recs);
    free(ran);
    free(todo);
    cf_sweep_result_free(res);
    return cf_error_set(err, CF_ENOMEM, "sweep: out of memory");
  }
  sweep_ctx c = {tg, base, fixed, o, todo, NULL, INFINITY, NULL};
  int resumed, m = plan(o, recs, todo, &resumed, &c.best);
  if (o->prune) visit_order(todo, m, o->nd, o->na);
  /* Under MPI the checkpoint is rank 0's: every rank takes its plan. */
  int head[2] = {m, resumed};
  cf_dist_bcast(head, sizeof head);
  m = head[0], resumed = head[1];
  cf_dist_bcast(recs, sizeof *recs * (size_t)n);
  cf_dist_bcast(todo, sizeof *todo * (size_t)n);
  cf_dist_bcast(&c.best, sizeof c.best);
  void *page = o->prune ? mmap(NULL, sizeof *c.shared_best, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0)
                         : MAP_FAILED;
  if (page != MAP_FAILED) { /* else each worker keeps its own best */
    c.shared_best = page;
    unsigned long long b;
    memcpy(&b, &c.best, sizeof b);
    atomic_init(c.shared_best, b);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = m ? cf_parallel_run(m, o->threads, sizeof *ran, sweep_init, sweep_item,
                                 o->checkpoint ? sweep_done : NULL, &c, ran, o->progress, err)
             : CF_OK;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (page != MAP_FAILED) munmap(page, sizeof *c.shared_best);
  cf_fit_run_free(c.run); /* the caller's own worker */
  if (rc == CF_OK) {
    for (int k = 0; k < m; k++) recs[todo[k]] = ran[k];
    unpack(res, recs, n);
  }
  free(recs);
  free(ran);
  free(todo);
  if (rc) {
    cf_sweep_result_free(res);
    return rc;
  }
  res->wall_s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  res->resumed = resumed;
  res->ran = m;
  return CF_OK;
}
