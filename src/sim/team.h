/* team.h — internal: two threads for the projection's loops on large
 * meshes (cf_params.threads = 2).
 *
 * Why a team of its own and not OpenMP: Debian's CHOLMOD runs its kernels
 * in OpenMP regions, which clothfit switches off (cf_runtime_init: the
 * serial OpenBLAS under it is not thread-safe, and sweeps run one
 * simulation per core), so OpenMP cannot be turned on for our loops alone.
 *
 * Every parallel loop is cut into exactly two parts, whatever the number of
 * threads: with a team the caller runs part 0 while the helper thread runs
 * part 1; without one (NULL) the caller runs part 0, then part 1.  Parts
 * write disjoint data, so results are bitwise the same with one thread or
 * two.  The helper spins briefly between loops (they come every few
 * microseconds during conjugate gradients), then sleeps on a condition
 * variable (during factorizations, or when the simulation is idle).
 *
 * Not fork-safe: a child of fork() has no helper thread, so it must not use
 * a team its parent made (the sweeps' workers fork before they make their
 * simulations, which run on one thread anyway). */
#ifndef CF_TEAM_H
#define CF_TEAM_H

typedef struct cf_team cf_team;
typedef void (*cf_team_fn)(void *arg, int part);

/* Starts the helper thread; NULL when it cannot be started (then callers
 * run both parts themselves). */
cf_team *cf_team_alloc(void);
/* Stops and joins the helper; t may be NULL. */
void cf_team_free(cf_team *t);
/* fn(arg, 0) and fn(arg, 1), concurrently when t is not NULL; returns when
 * both are done (their writes visible to the caller). */
void cf_team_run(cf_team *t, cf_team_fn fn, void *arg);
#endif
