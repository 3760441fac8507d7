/* team.c — see team.h. */
#include "team.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Spins of the helper before it sleeps: ~0.1-0.5 ms, longer than the gap
 * between two loops of a CG iteration, shorter than a factorization. */
#define CF_TEAM_SPINS 4000

struct cf_team {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_uint gen;  /* loops published */
  atomic_uint done; /* loops the helper finished */
  atomic_int sleeping, quit;
  cf_team_fn fn;
  void *arg;
};

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* The next generation after seen (waits for it). */
static unsigned wait_gen(cf_team *t, unsigned seen) {
  unsigned g;
  for (int k = 0; k < CF_TEAM_SPINS; k++) {
    if ((g = atomic_load_explicit(&t->gen, memory_order_acquire)) != seen) return g;
    relax();
  }
  pthread_mutex_lock(&t->mu);
  atomic_store(&t->sleeping, 1);
  while ((g = atomic_load(&t->gen)) == seen) pthread_cond_wait(&t->cv, &t->mu);
  atomic_store(&t->sleeping, 0);
  pthread_mutex_unlock(&t->mu);
  return g;
}

static void *helper(void *p) {
  cf_team *t = p;
  unsigned seen = 0;
  for (;;) {
    seen = wait_gen(t, seen);
    if (atomic_load(&t->quit)) return NULL;
    t->fn(t->arg, 1);
    atomic_store_explicit(&t->done, seen, memory_order_release);
  }
}

/* Publish generation g (fn, arg set before): under the mutex, so a helper
 * going to sleep either sees it or is woken. */
static void publish(cf_team *t, unsigned g) {
  pthread_mutex_lock(&t->mu);
  atomic_store_explicit(&t->gen, g, memory_order_release);
  if (atomic_load(&t->sleeping)) pthread_cond_signal(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

cf_team *cf_team_alloc(void) {
  cf_team *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  atomic_init(&t->gen, 0);
  atomic_init(&t->done, 0);
  atomic_init(&t->sleeping, 0);
  atomic_init(&t->quit, 0);
  if (pthread_mutex_init(&t->mu, NULL)) {
    free(t);
    return NULL;
  }
  if (pthread_cond_init(&t->cv, NULL)) {
    pthread_mutex_destroy(&t->mu);
    free(t);
    return NULL;
  }
  if (pthread_create(&t->thread, NULL, helper, t)) {
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
    return NULL;
  }
  return t;
}

void cf_team_free(cf_team *t) {
  if (!t) return;
  atomic_store(&t->quit, 1);
  publish(t, atomic_load(&t->gen) + 1);
  pthread_join(t->thread, NULL);
  pthread_cond_destroy(&t->cv);
  pthread_mutex_destroy(&t->mu);
  free(t);
}

void cf_team_run(cf_team *t, cf_team_fn fn, void *arg) {
  if (!t) {
    fn(arg, 0);
    fn(arg, 1);
    return;
  }
  unsigned g = atomic_load(&t->gen) + 1;
  t->fn = fn;
  t->arg = arg;
  publish(t, g);
  fn(arg, 0);
  while (atomic_load_explicit(&t->done, memory_order_acquire) != g) relax();
}
