/* cf_fit_sweep.h — grid sweeps and their distribution over processes.
 * Part of the API of cf_fit.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_FIT_SWEEP_H
#define CF_FIT_SWEEP_H

#include "cf_common.h"
#include "cf_sim.h"
#include "cf_fit_target.h"
#include "cf_fit_driven.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- grid sweep */
typedef struct {
  int nd, na;            /* grid sizes */
  const double *delta;   /* [nd] */
  const double *alpha;   /* [na] */
  int t0, t1;            /* evaluation window */
  int threads;           /* worker processes; 0: all cores */
  int prune;             /* exact pruning of hopeless points (docs/design.md §8) */
  const cf_fit_progress *progress; /* points done of nd*na (may be NULL) */
  /* Task model (docs/design.md §9): grid point i is task task0 + i of the
   * command.  shard_n > 1: only the tasks with id % shard_n == shard_i run (a
   * Slurm array element); the others get status CF_ENOTRUN.  checkpoint (may
   * be NULL): tasks it already holds are not run again, and every finished
   * one is handed to it at once. */
  unsigned long long task0;
  int shard_i, shard_n;
  const struct cf_sweep_checkpoint *checkpoint;
  /* With prune: a point stops only once its error is certain to exceed
   * prune_margin times the best exact error known (values <= 1: 1).  A
   * margin > 1 keeps every point within it exact: the basin around the
   * optimum that the error-surface figures draw; the optimum stays exact. */
  double prune_margin;
  /* A third axis, the cloth's friction on the recording's table
   * (sweep --mu-grid): nm > 0 values mu[nm], each (delta, alpha) grid run
   * at each; nm = 0: no mu axis, every point at the fixed point's mu.
   * Point i of the nm*nd*na (or nd*na) is (mu[i / (nd*na)],
   * delta[(i / na) % nd], alpha[i % na]); it is task task0 + i. */
  int nm;
  const double *mu;
} cf_sweep_options;

/* Points of a grid: max(nm, 1) * nd * na. */
static inline int cf_sweep_n_points(int nm, int nd, int na) { return (nm > 0 ? nm : 1) * nd * na; }

/* One evaluated grid point, as a sweep's checkpoint stores it. */
typedef struct {
  double e, s, dmax;     /* cm; pruned: e is a lower bound */
  int status, pruned;
  char reason[128];
} cf_sweep_point;

/* Persistence of finished tasks (src/study implements it with a journal
 * file).  load: 1 and *p filled if task id finished in an earlier run, 0 if
 * not.  save: called in the worker process that finished task id, before
 * the next task starts; an error aborts the sweep. */
typedef struct cf_sweep_checkpoint {
  int (*load)(void *ctx, unsigned long long id, cf_sweep_point *p);
  int (*save)(void *ctx, unsigned long long id, const cf_sweep_point *p, cf_error *err);
  void *ctx;
} cf_sweep_checkpoint;

/* Persistence of the finished items of the other parallel loops (the
 * Nelder-Mead fits of a batch, the confidence stencils' simulations, the
 * simulations of each evaluation of the regression), so that a command
 * killed midway and run again computes only what it had not finished.
 * Each item's task id is derived from what it computes (its kind, its
 * recording's place, its parameters' bits; apart from the sweeps' ids) and
 * its record is kept as it is (bytes).  load: 1 and rec[size] filled if
 * task id of this kind and size finished in an earlier run, else 0.  save: called for every item
 * finished now, in the worker process that computed it (on rank 0 under
 * MPI); an error aborts the loop.  kind names the loop ("nm", "conf",
 * "reg") for the records' text.  src/cli implements it with the command's
 * journal (the same file as the sweeps'). */
typedef struct cf_fit_journal {
  int (*load)(void *ctx, unsigned long long id, const char *kind, void *rec, size_t size);
  int (*save)(void *ctx, unsigned long long id, const char *kind, const void *rec, size_t size, cf_error *err);
  void *ctx;
} cf_fit_journal;

typedef struct {
  int nd, na;
  double *e, *s, *dmax;  /* [cf_sweep_n_points] mean error/std (cm), index (im*nd + id)*na + ia */
  int *status;           /* CF_OK or failure code */
  unsigned char *pruned; /* 1: e is a lower bound */
  char (*reason)[128];   /* failure reasons */
  int best;              /* index of the smallest e among exact points, -1 if none */
  double wall_s;
  int resumed, ran;      /* points taken from the checkpoint / simulated now */
  int nm;                /* the options' (0: no mu axis) */
} cf_sweep_result;

/* The default grid of docs/design.md §8: alpha = rho*linspace(0.05, 4, 16),
 * delta = rho*linspace(0.05, 1, 15); arrays malloc'ed into *delta, *alpha. */
int cf_sweep_default_grid(double rho, double **delta, int *nd, double **alpha, int *na);
/* Evaluate every grid point on the target on all cores.  The workers are
 * forked processes (see sweep.c for why not threads); each owns its
 * cf_fit_run, so results do not depend on the number of workers (except for
 * pruned lower bounds, which depend on the order points finish). */
int cf_sweep_run(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed,
                 const cf_sweep_options *o, cf_sweep_result *res, cf_error *err);
void cf_sweep_result_free(cf_sweep_result *res);

/* ------------------------------------------------ Open MPI (distributed.c) */
/* Under `mpirun -n N` every rank runs the same command on the same inputs;
 * the parallel loops of sweeps, Nelder-Mead batches and regressions hand
 * their items out across the ranks, every rank gets every result, and
 * only rank 0 writes files and prints (the commands see to that).  Without
 * Open MPI at build time, or when not started by mpirun: rank 0 of 1.  The
 * rank and size are the process's (MPI's own state is process-global). */
int cf_dist_init(int *argc, char ***argv); /* from main(), before anything else */
void cf_dist_finalize(void);
int cf_dist_available(void);              /* 1 if built with Open MPI */
int cf_dist_rank(void);
int cf_dist_size(void);
void cf_dist_abort(int code);             /* end every rank of the job */
void cf_dist_bcast(void *buf, size_t n);  /* rank 0's n bytes to every rank */
/* The hosts of all ranks ("vm x2, node7 x2") into buf; collective: every
 * rank calls it.  Not under mpirun, buf is left as it is. */
void cf_dist_hosts(char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
