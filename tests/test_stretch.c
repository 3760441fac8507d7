/* test_stretch.c — the chord test of cf_fit_stretch (src/fit/stretch.c,
 * docs/confidence.md item 10): an inextensible cloth's markers never move
 * farther apart than on the flat sheet, so a recording whose neighbours do
 * was made by a cloth the inextensible model cannot reproduce.
 *
 * Recordings of an A2 sheet (5 x 4 markers) shaken for 2 s by each cloth
 * model, two truths and noise seeds each (0.1 mm noise):
 *   - inextensible: edges and diagonals at most 0.5 % longer than at rest
 *     (the projection's tolerance 1e-3 and the noise, 0.1 mm on 15 cm
 *     edges: 0.1 %), so not flagged;
 *   - quasi-inextensible (edges held, shear springs k_shear 0.3 and 1 N/m):
 *     edges at most 0.5 %, diagonals beyond CF_STRETCH_MAX: it shears;
 *   - elastic (k_stretch 10 and 30 N/m): edges beyond CF_STRETCH_MAX: it
 *     stretches.
 * And the test is not made without a measured size or with another rest
 * metric (the rest distances are then unknown). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, T = 200 };
static const double W = 0.42, H = 0.594, RHO = 0.1042;

typedef struct {
  int model;
  double k_stretch, k_shear;
  unsigned long long seed;
  int stretches, shears;
} case_t;

static const case_t cases[] = {
    {CF_CLOTH_INEXTENSIBLE, 0, 0, 11, 0, 0}, {CF_CLOTH_INEXTENSIBLE, 0, 0, 12, 0, 0},
    {CF_CLOTH_QUASI, 0, 0.3, 21, 0, 1},      {CF_CLOTH_QUASI, 0, 1.0, 22, 0, 1},
    {CF_CLOTH_ELASTIC, 10, 0.5, 31, 1, 0},   {CF_CLOTH_ELASTIC, 30, 2.0, 32, 1, 0},
};

static void one(const case_t *c) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = T, .width = W, .height = H, .rho = RHO, .delta = 0.04,
                         .alpha = 0.25, .amplitude = 0.08, .frequency = 0.9, .dt = 0.01, .noise = 1e-4,
                         .seed = c->seed, .kappa = 1e-3, .tol = 1e-4, .model = c->model, .k_stretch = c->k_stretch,
                         .k_shear = c->k_shear, .axis = {0.6, 0.8, 0}};
  double *pos = cf_test_shaken_recording(&sp);
  cf_fit_target tg = {ROWS, COLS, T, 0.01, pos, NULL, 0, NULL, RHO, {0}, NULL, 0, 0, CF_REST_SIZE, 0, {W, H}, 0, 0, 0, NULL, NULL, NULL, 0};
  cf_stretch s;
  CHECK(cf_fit_stretch(&tg, &s) == CF_OK, "cf_fit_stretch failed");
  const char *name = cf_cloth_model_name(c->model);
  printf("%-20s seed %llu: edges %+.4f diagonals %+.4f -> stretches %d shears %d\n", name, c->seed, s.edges,
         s.diagonals, s.stretches, s.shears);
  CHECK(s.checked, "%s seed %llu: not checked", name, c->seed);
  CHECK(s.stretches == c->stretches && s.shears == c->shears, "%s seed %llu: stretches %d shears %d, expected %d %d",
        name, c->seed, s.stretches, s.shears, c->stretches, c->shears);
  if (c->model != CF_CLOTH_ELASTIC)
    CHECK(s.edges <= 0.005, "%s seed %llu: edges %.4f longer than at rest (keeps them: at most 0.005)", name, c->seed,
          s.edges);
  if (c->model == CF_CLOTH_INEXTENSIBLE)
    CHECK(s.diagonals <= 0.005, "%s seed %llu: diagonals %.4f longer than at rest (at most 0.005)", name, c->seed,
          s.diagonals);
  /* not made without the measured size, nor with another rest metric */
  cf_fit_target t2 = tg;
  t2.size[0] = t2.size[1] = 0;
  CHECK(cf_fit_stretch(&t2, &s) == CF_OK && !s.checked && isnan(s.edges), "checked without a size");
  t2 = tg;
  t2.rest = CF_REST_FIRST_FRAME;
  CHECK(cf_fit_stretch(&t2, &s) == CF_OK && !s.checked && !s.stretches && !s.shears, "checked on the first frame");
  free(pos);
}

int main(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) one(&cases[i]);
  return cf_test_done("test_stretch");
}
