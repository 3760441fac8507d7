/* synth_marks.c — what a motion-capture system does to the true marker
 * positions (thesis §4.2 items 4-5, Remark 4.2.1): Gaussian noise,
 * occlusion gaps (short ones only on the driven corners), label fragments
 * (a marker lost for a moment comes back under a new name, "Marker7-2" or
 * "Unlabeled 1003", never overlapping its first part), and ghost tracks
 * (reflections far from the cloth, flickering on and off). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_internal.h"

typedef struct {
  const cf_synth_config *c;
  cf_synth_result *r;
  int T, K, quiet;      /* frames, markers, frames kept free of gaps at both ends */
  int *split;           /* [K] first frame of the second fragment, 0: none */
  int *unlabeled;       /* [K] 1: the second fragment gets an "Unlabeled N" name */
  int cap;              /* gaps allocated */
} corrupt_ctx;

static int add_gap(corrupt_ctx *x, int cell, int first, int n) {
  cf_synth_result *r = x->r;
  if (r->n_gaps == x->cap) {
    int cap = x->cap ? 2 * x->cap : 64;
    cf_synth_gap *g = realloc(r->gaps, sizeof *g * cap);
    if (!g) return CF_ENOMEM;
    r->gaps = g, x->cap = cap;
  }
  r->gaps[r->n_gaps++] = (cf_synth_gap){cell, first, n};
  double *p = r->meas + 3 * ((size_t)x->K * first + cell);
  for (int i = 0; i < n; i++, p += 3 * x->K) p[0] = p[1] = p[2] = NAN;
  return CF_OK;
}

static int is_corner(const cf_synth_result *r, int k) { return k == r->controlled[0] || k == r->controlled[1]; }

/* Occlusions: a Poisson process per marker, exponential lengths capped at
 * gap_max (corner_max_gap on the driven corners), none within `quiet` of
 * either end so that the recording starts and ends complete. */
static int gaps(corrupt_ctx *x) {
  const cf_synth_config *c = x->c;
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_GAPS);
  for (int k = 0; k < x->K && c->gap_rate > 0; k++) {
    double cap = is_corner(x->r, k) ? c->corner_max_gap : c->gap_max;
    int max_n = (int)floor(cap * c->rate + 1e-9), next = x->quiet;
    while (max_n >= 1) {
      int first = next + (int)floor(sy_exponential(&g, 1 / c->gap_rate) * c->rate);
      double len = sy_exponential(&g, c->gap_mean);
      int n = (int)lround(len * c->rate);
      n = n < 1 ? 1 : n > max_n ? max_n : n;
      if (first + n > x->T - x->quiet) break;
      if (add_gap(x, k, first, n)) return CF_ENOMEM;
      next = first + n + 1;
    }
  }
  return CF_OK;
}

/* 1 if marker k has no gap within frames [a, b). */
static int free_of_gaps(const cf_synth_result *r, int k, int a, int b) {
  for (int q = 0; q < r->n_gaps; q++)
    if (r->gaps[q].cell == k && r->gaps[q].first < b && r->gaps[q].first + r->gaps[q].n > a) return 0;
  return 1;
}

/* Split `fragments` non-corner markers once each, at a new short gap away
 * from other gaps (so that the pieces can be joined by extrapolation). */
static int fragments(corrupt_ctx *x) {
  const cf_synth_config *c = x->c;
  cf_synth_result *r = x->r;
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_FRAGMENTS);
  int order[x->K], n_cand = 0, done = 0;
  for (int k = 0; k < x->K; k++)
    if (!is_corner(r, k)) order[n_cand++] = k;
  for (int i = n_cand - 1; i > 0; i--) { /* Fisher-Yates */
    int j = (int)(sy_uniform(&g) * (i + 1)), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  int max_n = (int)floor(c->fragment_gap * c->rate + 1e-9), margin = (int)ceil(0.1 * c->rate);
  max_n = max_n < 1 ? 1 : max_n;
  int span = x->T - 2 * x->quiet - max_n;
  for (int q = 0; q < n_cand && done < c->fragments && span > 0; q++) {
    int k = order[q];
    for (int attempt = 0; attempt < 200; attempt++) {
      int first = x->quiet + (int)(sy_uniform(&g) * span), n = 1 + (int)(sy_uniform(&g) * max_n);
      if (!free_of_gaps(r, k, first - margin, first + n + margin)) continue;
      if (add_gap(x, k, first, n)) return CF_ENOMEM;
      x->split[k] = first + n;
      x->unlabeled[k] = sy_uniform(&g) < 0.5;
      done++;
      break;
    }
  }
  return CF_OK;
}

/* A new track (cell: lattice cell, -1 a ghost, -2 a stick end). */
static cf_synth_track *new_track(corrupt_ctx *x, const char *name, int cell) {
  cf_synth_result *r = x->r;
  cf_synth_track *t = realloc(r->tracks, sizeof *t * (r->n_tracks + 1));
  if (!t) return NULL;
  r->tracks = t;
  t += r->n_tracks;
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  t->cell = cell;
  t->pos = malloc(sizeof(double) * 3 * x->T);
  if (!t->pos) return NULL;
  for (int i = 0; i < 3 * x->T; i++) t->pos[i] = NAN;
  r->n_tracks++;
  return t;
}

/* Copy marker k's measured samples of frames [a, b) into track t. */
static void fill(corrupt_ctx *x, cf_synth_track *t, int k, int a, int b) {
  for (int i = a; i < b; i++) memcpy(t->pos + 3 * i, x->r->meas + 3 * ((size_t)x->K * i + k), 3 * sizeof(double));
}

/* A reflection: a fixed point 0.8-1.5 m from the cloth's axis, at any
 * height, with 0.3 mm jitter, seen for ~1.5 s at a time with ~1 s pauses. */
static void ghost(corrupt_ctx *x, cf_synth_track *t, sy_rng *g) {
  const cf_synth_config *c = x->c;
  double az = 2 * M_PI * sy_uniform(g), dist = 0.8 + 0.7 * sy_uniform(g);
  double p[3] = {dist * cos(az), dist * sin(az), 0.2 + (c->top_height + 0.3) * sy_uniform(g)};
  double t0 = sy_uniform(g) * c->duration / 2;
  while (t0 < c->duration) {
    double t1 = t0 + 0.2 + sy_exponential(g, 1.5);
    for (int i = (int)ceil(t0 * c->rate); i < x->T && i <= t1 * c->rate; i++)
      for (int a = 0; a < 3; a++) t->pos[3 * i + a] = p[a] + 3e-4 * sy_normal(g);
    t0 = t1 + 0.1 + sy_exponential(g, 1.0);
  }
}

static void extent(cf_synth_track *t, int T) {
  t->first = t->last = -1;
  for (int i = 0; i < T; i++)
    if (!isnan(t->pos[3 * i])) {
      if (t->first < 0) t->first = i;
      t->last = i;
    }
}

static int by_first_frame(const void *a, const void *b) {
  const cf_synth_track *p = a, *q = b;
  if (p->first != q->first) return (p->first > q->first) - (p->first < q->first);
  if (p->cell != q->cell) return (p->cell > q->cell) - (p->cell < q->cell);
  return (p->id > q->id) - (p->id < q->id);
}

/* Column order as Motive writes it: the labelled markers Marker1..K, then
 * labelled fragments, then the unlabelled tracks (fragments and ghosts)
 * numbered from 1001 in order of appearance. */
static int tracks(corrupt_ctx *x) {
  cf_synth_result *r = x->r;
  char name[48];
  int first_unlabeled = 0;
  for (int k = 0; k < x->K; k++) {
    snprintf(name, sizeof name, "Marker%d", k + 1);
    cf_synth_track *t = new_track(x, name, k);
    if (!t) return CF_ENOMEM;
    t->id = k + 1;
    fill(x, t, k, 0, x->split[k] ? x->split[k] : x->T);
  }
  for (int pass = 0; pass < 2; pass++) { /* labelled fragments, then unlabelled ones */
    if (pass && r->stick) { /* the stick's labelled markers */
      cf_synth_track *st[2];
      for (int e = 0; e < 2; e++)
        if (!(st[e] = new_track(x, e ? "StickB" : "StickA", -2))) return CF_ENOMEM;
      st[0] = &r->tracks[r->n_tracks - 2], st[1] = &r->tracks[r->n_tracks - 1]; /* realloc moved the first */
      sy_stick_tracks(x->c, r, st);
    }
    if (pass) first_unlabeled = r->n_tracks;
    for (int k = 0; k < x->K; k++) {
      if (!x->split[k] || x->unlabeled[k] != pass) continue;
      snprintf(name, sizeof name, "Marker%d-2", k + 1);
      cf_synth_track *t = new_track(x, name, k);
      if (!t) return CF_ENOMEM;
      t->id = 100 + k + 1;
      fill(x, t, k, x->split[k], x->T);
    }
  }
  sy_rng g;
  sy_rng_init(&g, x->c->seed, SY_GHOSTS);
  for (int q = 0; q < x->c->ghosts; q++) {
    cf_synth_track *t = new_track(x, "ghost", -1);
    if (!t) return CF_ENOMEM;
    t->id = q;
    ghost(x, t, &g);
  }
  for (int i = 0; i < r->n_tracks; i++) extent(&r->tracks[i], x->T);
  int n_un = r->n_tracks - first_unlabeled;
  qsort(r->tracks + first_unlabeled, (size_t)n_un, sizeof *r->tracks, by_first_frame);
  for (int i = 0; i < n_un; i++) {
    cf_synth_track *t = &r->tracks[first_unlabeled + i];
    t->id = 1001 + i;
    snprintf(t->name, sizeof t->name, "Unlabeled %d", t->id);
  }
  return CF_OK;
}

int sy_corrupt(const cf_synth_config *c, cf_synth_result *r, cf_error *err) {
  corrupt_ctx x = {c, r, r->n_frames, r->rows * r->cols, (int)ceil(c->quiet * c->rate - 1e-9), NULL, NULL, 0};
  size_t n = 3 * (size_t)x.K * x.T;
  r->meas = malloc(sizeof(double) * n);
  x.split = calloc((size_t)x.K, sizeof(int));
  x.unlabeled = calloc((size_t)x.K, sizeof(int));
  int rc = r->meas && x.split && x.unlabeled ? CF_OK : CF_ENOMEM;
  if (!rc) {
    sy_rng g;
    sy_rng_init(&g, c->seed, SY_NOISE);
    for (size_t i = 0; i < n; i++) r->meas[i] = r->truth[i] + (c->noise > 0 ? c->noise * sy_normal(&g) : 0);
  }
  if (!rc) rc = gaps(&x);
  if (!rc) rc = fragments(&x);
  if (!rc) rc = tracks(&x);
  free(x.split), free(x.unlabeled);
  return rc ? cf_error_set(err, rc, "out of memory for the marker tracks") : CF_OK;
}
