/* test_experiment_wam.c — `clothfit experiment wam` (thesis §4.1) on a
 * shortened copy of two recordings of datasets/wam-mini (the first 4 s of
 * light-cotton-fast and paper-slow: 1 s still, 3 s of the hanger's motion),
 * plus a mesh sequence that cannot be ingested (no frame files; the run is
 * tests/wam_short.c's, which test_report_browser_wam opens in a browser):
 *  - the broken source is named on stderr and left out, the two others are
 *    fitted and the command exits 1 after writing the results and report;
 *  - each fit is on the training window (the first half: [0, 2) s), on the
 *    recording's own 9 x 9 mesh (mesh split 1), with a finite testing error
 *    below 3 cm (these 2 s training windows hold 1 s of motion, so their
 *    parameters are loose: light-cotton fast 0.82 cm, paper slow 2.4 cm when
 *    written; the whole recordings' fits are docs/design.md's);
 *  - Table 4.2 is printed with the thesis' values (light-cotton fast: 0.52,
 *    2.69, 0.31 cm);
 *  - light-cotton-fast gets the 10 x 10 sensitivity map of Figure 4.6 on
 *    [0, 2 delta*] x [0, 2 alpha*], whose best point is near the fit (at
 *    most 3 of its 100 cells lower than the best cell next to the fit), and
 *    the four models of Table 4.3;
 *  - light-cotton-fast's fit is rerun on finer meshes (thesis §4.1.5,
 *    remesh_checks below) and the remeshing table is printed after Table
 *    4.3 with the thesis' values;
 *  - the report has Table 4.2 (tables/table_4_2.md) and the remeshing
 *    table (tables/table_remesh.md), and index.html names them.
 * usage: test_experiment_wam CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "testutil.h"
#include "wam_short.h"

static char dir[] = "/tmp/cf_exp_wam.XXXXXX";

/* Field k (0: the row's name) of the first line of text that starts with
 * the word `row`, read as a number (NaN without such a line). */
static double printed_field(const char *text, const char *row, int k) {
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, row, strlen(row)) || p[strlen(row)] != ' ') continue;
    const char *q = p;
    for (int i = 0; i < k; i++) {
      q += strcspn(q, " \n");
      q += strspn(q, " ");
    }
    return strtod(q, NULL);
  }
  return NAN;
}

/* The remeshing check of thesis §4.1.5 on light-cotton-fast (its record c,
 * the command's stdout o): the fit's (delta, alpha) on 9 x 9 (the fitting
 * mesh), 9 x 17, 17 x 9 and 17 x 17 nodes, each with a finite mean error
 * on the testing window.
 *  - 9 x 9 is the fit's own mesh: its entry is the fit's testing error, not
 *    simulated again (the same simulation over the same frames: `clothfit
 *    sweep REC.h5 --delta-grid D:D:1 --alpha-grid A:A:1 --window 2: --split 1`
 *    at the fit's point gave 0.8192464675055686 cm, the fit's e_test to the
 *    last digit, when written), so it equals the fit's e_test exactly, and
 *    the table prints it as Table 4.2 does.
 *  - The finer meshes within a factor 1.5 of it, either way: frame by frame
 *    the difference of the two errors is at most the mean distance between
 *    the two meshes' simulations of the recorded nodes (the triangle
 *    inequality with the same weights), the 9 x 9 sheet's discretisation
 *    error at these parameters.  Fitted parameters that describe the cloth
 *    and not the mesh keep it below the fit's own misfit (here the camera's
 *    2 mm mesh noise and kappa 1e-3 against the recording's 1e-5): the
 *    thesis finds +10 to +19 %, this shortened copy gave +13 to +24 % when
 *    written.  A fault of the refinement (a recorded node compared at
 *    another node, rows and columns swapped) is off by a cell, 3.7 cm on
 *    this 0.297 m sheet, many times the 0.8 cm of the fit.  Not a claim on
 *    the whole recording: its fit is 1.83 x off on 17 x 17
 *    (docs/design.md). */
static void remesh_checks(const cf_res_rec *c, const char *o) {
  static const char *mesh[4] = {"9x9", "9x17", "17x9", "17x17"};
  static const int split[4][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}};
  const cf_res_remesh *m = &c->remesh;
  CHECK(c->has_remesh && m->n == 4, "light-cotton-fast: remesh %d, %d meshes", c->has_remesh, m->n);
  if (!c->has_remesh || m->n != 4) return;
  double e0 = m->row[0].e_test;
  for (int k = 0; k < 4; k++) {
    const cf_res_remesh_row *r = &m->row[k];
    double th;
    CHECK(!strcmp(r->mesh, mesh[k]) && r->split[0] == split[k][0] && r->split[1] == split[k][1] &&
              r->status == CF_OK && isfinite(r->e_test) && r->e_test > 0,
          "mesh %d: %s split %dx%d, status %d, e %g cm", k, r->mesh, r->split[0], r->split[1], r->status, r->e_test);
    CHECK(cf_thesis_remesh(c->meta.material, c->meta.speed, r->rows, r->cols, &th), "%s: no thesis value", r->mesh);
    if (k == 0) continue;
    CHECK(!r->fit_reused && r->e_test <= 1.5 * e0 && r->e_test >= e0 / 1.5,
          "%s: testing error %.4f cm against %.4f cm on 9x9 (more than a factor 1.5 apart)", r->mesh, r->e_test, e0);
  }
  printf("remeshing: %s %.4f, %s %.4f, %s %.4f, %s %.4f cm\n", mesh[0], e0, mesh[1], m->row[1].e_test, mesh[2],
         m->row[2].e_test, mesh[3], m->row[3].e_test);
  CHECK(m->row[0].fit_reused && e0 == c->fit.e_test && m->delta == c->fit.x[0] && m->alpha == c->fit.x[1] &&
            fabs(m->test_t0_s - c->fit.train_t1_s) < 1e-9,
        "9x9: %.17g cm against the fit's %.17g cm (reused %d)", e0, c->fit.e_test, m->row[0].fit_reused);
  /* as printed: Table 4.2's e_cm (the 8th column) and the remeshing table's 9x9 row (the 3rd) */
  double t42 = printed_field(o, "light-cotton-fast", 7), t9 = printed_field(o, "9x9", 2);
  CHECK(isfinite(t42) && t9 == t42 && fabs(t42 - c->fit.e_test) <= 5e-5,
        "printed: Table 4.2 e %g cm, remeshing 9x9 %g cm, fit %g cm", t42, t9, c->fit.e_test);
  CHECK(strstr(o, "Remeshing (thesis §4.1.5)") && strstr(o, "17x17") && strstr(o, "0.37") &&
            strstr(o, "Remeshing") > strstr(o, "Table 4.3"),
        "the remeshing table after Table 4.3: %s", o);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s CLOTHFIT_EXE SOURCE_ROOT\n", argv[0]), 2;
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char res[700], path[800];
  snprintf(res, sizeof res, "%s/wam.h5", dir);
  char *o = NULL, *e = NULL;
  int st = cf_test_wam_study(argv[1], argv[2], dir, 1, &o, &e);
  printf("%s", o ? o : "");
  CHECK(st == 1 && e && strstr(e, "broken.meshes: not ingested") && strstr(e, "1 of 3 recordings could not be ingested"),
        "the broken source: status %d, stderr %s", st, e ? e : "");
  CHECK(o && strstr(o, "Table 4.2") && strstr(o, "light-cotton-fast") && strstr(o, "paper-slow") &&
            strstr(o, "inextensible"),
        "Table 4.2 and the comparison printed: %s", o ? o : "");
  free(e);

  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(res, &r, &err) == CF_OK && r.n == 2, "%s: %s (%d recordings)", res, err.msg, r.n);
  for (int i = 0; !err.code && i < r.n; i++) {
    const cf_res_rec *c = &r.recs[i];
    const cf_res_fit *x = &c->fit;
    printf("%s: delta %.4f (truth %.2f) alpha %.4f (truth %.2f) e_train %.3f e_test %.3f cm, window [%g, %g) s\n",
           c->name, x->x[0], c->truth_delta, x->x[1], c->truth_alpha, x->e_train, x->e_test, x->train_t0_s,
           x->train_t1_s);
    CHECK(c->has_fit && fabs(x->train_t1_s - 0.5 * c->frames * c->dt) <= c->dt && x->model.split == 1 &&
              isfinite(x->e_test) && x->e_test > 0.05 && x->e_test < 3,
          "%s: fit %d, training end %g s of %d frames, split %d, e_test %g", c->name, c->has_fit, x->train_t1_s,
          c->frames, x->model.split, x->e_test);
    double th[3];
    CHECK(cf_thesis_table_42(c->meta.material, c->meta.speed, th) && isfinite(th[2]), "%s: no thesis values", c->name);
    if (strcmp(c->name, "light-cotton-fast")) {
      CHECK(!c->has_sens && !c->has_compare && !c->has_remesh, "%s: a close look at the other recording", c->name);
      continue;
    }
    remesh_checks(c, o ? o : "");
    const cf_res_sens *s = &c->sens;
    CHECK(c->has_sens && s->nd == 10 && s->na == 10 && fabs(s->delta[9] - 2 * x->x[0]) < 1e-9 &&
              fabs(s->alpha[9] - 2 * x->x[1]) < 1e-9 && c->has_compare && c->compare.n == 4,
          "light-cotton-fast: map %d x %d, compare %d", s->nd, s->na, c->compare.n);
    if (c->has_sens && s->nd == 10 && s->na == 10) {
      double lo = INFINITY, at = NAN;
      for (int k = 0; k < 100; k++) lo = fmin(lo, s->status[k] ? INFINITY : s->e[k]);
      /* the fit sits between cells 4 and 5 of each axis (i (2 x*) / 9) */
      at = fmin(fmin(s->e[4 * 10 + 4], s->e[4 * 10 + 5]), fmin(s->e[5 * 10 + 4], s->e[5 * 10 + 5]));
      int below = 0;
      for (int k = 0; k < 100; k++) below += !s->status[k] && s->e[k] < at;
      printf("sensitivity map: minimum %.3f cm, next to the fit %.3f cm, %d of 100 cells lower\n", lo, at, below);
      /* near = among the map's best cells, not within a factor of its minimum:
       * the basin is one cell wide here, and its lowest cell (0.355 or 0.430
       * cm, by the BLAS kernels) is 1.3-2.1 times the best cell next to the
       * fit, while the fit's cell is second of 100 on every kernel set
       * (Haswell, SkylakeX, Prescott) */
      CHECK(isfinite(lo) && below <= 3, "%d of the map's cells are below the fit's cells (%g cm; minimum %g cm)", below,
            at, lo);
    }
  }
  cf_results_free(&r);
  free(o);
  snprintf(path, sizeof path, "%s/wam/tables/table_remesh.md", dir);
  char *rm = cf_test_slurp(path, NULL);
  CHECK(rm && strstr(rm, "### Remeshing (thesis §4.1.5)") && strstr(rm, "| light-cotton-fast | 9x17 | 1x2 |") &&
            strstr(rm, "0.37") && strstr(rm, "| fit |"),
        "%s: %s", path, rm ? rm : "missing");
  free(rm);
  snprintf(path, sizeof path, "%s/wam/tables/table_4_2.md", dir);
  char *md = cf_test_slurp(path, NULL);
  CHECK(md && strstr(md, "### Table 4.2") && strstr(md, "0.31"), "%s: %s", path, md ? md : "missing");
  free(md);
  snprintf(path, sizeof path, "%s/wam/index.html", dir);
  char *page = cf_test_slurp(path, NULL);
  CHECK(page && strstr(page, "Table 4.2") && strstr(page, "Table 4.3") && strstr(page, "light-cotton-fast-sensitivity") &&
            strstr(page, "id=\"table_remesh\"") && strstr(page, "tables/table_remesh.csv"),
        "%s: no Table 4.2, 4.3, remeshing table or sensitivity figure", path);
  free(page);
  if (!cf_test_failures) {
    char rm[800];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm)) fprintf(stderr, "could not remove %s\n", dir);
  }
  return cf_test_done("test_experiment_wam");
}
