/* synth_stick.c — motion = hitting (thesis §4.3.2; cf_synth.h): where the
 * stick is at any time, and its endpoint markers as a motion-capture system
 * exports them (noise, short gaps: Remark 4.3.3, the stick's markers
 * vanish during hits too). */
#include <math.h>
#include <string.h>

#include "synth_internal.h"

typedef struct {
  double t, x, z, tilt, depth; /* centre time (s), place (m), tilt (rad), depth (m) */
} hit;

/* Hit i of the seeded schedule: evenly spread between the quiet ends (its
 * time jittered by a tenth of the spacing), at 30-75 % of the height below
 * the top, up to a sixth of the width sideways, tilted by up to 20
 * degrees, 60-100 % of hit_depth deep. */
static hit hit_at(const cf_synth_config *c, int i) {
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_STICK);
  double u[5] = {0};
  for (int k = 0; k <= i; k++)
    for (int q = 0; q < 5; q++) u[q] = sy_uniform(&g);
  double t0 = c->quiet + 0.5 * c->hit_time, span = c->duration - 2 * t0, step = span / c->hits;
  hit h;
  h.t = t0 + step * (i + 0.5 + 0.1 * (u[0] - 0.5));
  h.z = c->top_height - c->height * (0.3 + 0.45 * u[1]);
  h.x = c->width / 6 * (2 * u[2] - 1);
  h.tilt = 20 * M_PI / 180 * (2 * u[3] - 1);
  h.depth = c->hit_depth * (0.6 + 0.4 * u[4]);
  return h;
}

static double smooth(double s) { return s <= 0 ? 0 : s >= 1 ? 1 : s * s * (3 - 2 * s); }

int cf_synth_stick(const cf_synth_config *c, double t, double e[6]) {
  if (strcmp(c->motion, "hitting")) return 0;
  double tau = c->hit_time, y = -c->stick_rest;
  hit a = hit_at(c, 0), p = a;
  for (int i = 0; i < c->hits; i++) {
    hit b = hit_at(c, i);
    if (t >= b.t - tau / 2 && t <= b.t + tau / 2) { /* in hit i */
      double s = sin(M_PI * (t - b.t + tau / 2) / tau);
      p = b, y += (c->stick_rest + b.depth) * s * s;
      break;
    }
    if (t < b.t - tau / 2) { /* at rest, moving from hit i - 1's place to hit i's */
      double w = i ? smooth((t - (a.t + tau / 2)) / (b.t - a.t - tau)) : 1;
      p.x = a.x + w * (b.x - a.x), p.z = a.z + w * (b.z - a.z), p.tilt = a.tilt + w * (b.tilt - a.tilt);
      break;
    }
    a = p = b; /* after hit i */
  }
  double h = c->stick_length / 2, dx = h * cos(p.tilt), dz = h * sin(p.tilt);
  double m[3] = {p.x, y, p.z};
  for (int d = 0; d < 3; d++) e[d] = m[d], e[3 + d] = m[d];
  e[0] -= dx, e[2] -= dz, e[3] += dx, e[5] += dz;
  return 1;
}

/* The two endpoint tracks StickA, StickB (ids 201, 202, cell -2): the true
 * endpoints with noise, and gaps by the cloth markers' process but no
 * longer than corner_max_gap (ingest interpolates them; the simulation
 * needs the stick at every frame). */
int sy_stick_tracks(const cf_synth_config *c, cf_synth_result *r, cf_synth_track *t[2]) {
  sy_rng g, h;
  sy_rng_init(&g, c->seed, SY_STICK_NOISE);
  sy_rng_init(&h, c->seed, SY_STICK_GAPS);
  int T = r->n_frames, quiet = (int)ceil(c->quiet * c->rate - 1e-9);
  int max_n = (int)floor(c->corner_max_gap * c->rate + 1e-9);
  for (int e = 0; e < 2; e++) {
    t[e]->id = 201 + e;
    for (int i = 0; i < T; i++)
      for (int d = 0; d < 3; d++)
        t[e]->pos[3 * i + d] = r->stick[6 * i + 3 * e + d] + (c->noise > 0 ? c->noise * sy_normal(&g) : 0);
    for (int next = quiet; max_n >= 1 && c->gap_rate > 0;) {
      int first = next + (int)floor(sy_exponential(&h, 1 / c->gap_rate) * c->rate);
      int n = (int)lround(sy_exponential(&h, c->gap_mean) * c->rate);
      n = n < 1 ? 1 : n > max_n ? max_n : n;
      if (first + n > T - quiet) break;
      for (int i = first; i < first + n; i++) t[e]->pos[3 * i] = t[e]->pos[3 * i + 1] = t[e]->pos[3 * i + 2] = NAN;
      next = first + n + 1;
    }
  }
  return CF_OK;
}
