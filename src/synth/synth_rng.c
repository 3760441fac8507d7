/* synth_rng.c — the random numbers of `clothfit synth`: splitmix64 streams,
 * one per purpose (sy_rng_init(g, seed, stream): the seed of the config and a
 * stream number of synth_internal.h), so that changing how many numbers one
 * purpose draws leaves the others' draws as they were.  Uniform on [0, 1)
 * with 53 bits, standard normal (Box-Muller, one of the pair), exponential
 * of a given mean.  No allocation, no failure. */
#include <math.h>
#include <stdint.h>

#include "synth_internal.h"

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void sy_rng_init(sy_rng *g, unsigned long seed, int stream) {
  g->s = (uint64_t)seed * 0xD1B54A32D192ED03ULL + (uint64_t)stream * 0x8CB92BA72F3D8DD7ULL;
  splitmix(&g->s);
}

double sy_uniform(sy_rng *g) { return (double)(splitmix(&g->s) >> 11) * (1.0 / 9007199254740992.0); }

double sy_normal(sy_rng *g) {
  double u = 1 - sy_uniform(g), v = sy_uniform(g); /* u in (0, 1] */
  return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

double sy_exponential(sy_rng *g, double mean) { return -mean * log(1 - sy_uniform(g)); }
