/* test_meshfit.c — the fitting commands on depth-camera mesh recordings
 * (`clothfit ingest meshes`, docs/design.md §6 and §7), made by the model
 * itself (synthrec.h) and written as OBJ / PLY files with the nodes in a
 * shuffled order and the faces shuffled:
 *  - the grid is found from the faces (quads, and triangulated quads), the
 *    nodes come back in lattice order (row 0 on top), the two top corners
 *    are held by default;
 *  - `fit` recovers delta and alpha on two motions (quads in OBJ, triangles
 *    in PLY);
 *  - the per-frame error on a triangle mesh is eq. (4.3) with the lumped
 *    mass of the recorded triangles, computed here by hand;
 *  - frames the camera dropped stay NaN (held nodes interpolated) and do
 *    not count in the errors; a drop longer than --max-gap is refused;
 *  - the simulated cloth is the recording's own mesh by default (split 1:
 *    `fit` without --split says mesh_split 1), an explicit --split wins
 *    (the recovery fits and `sweep` on the model's split-2 motion);
 *  - `sweep` finds the truth, `compare`, `fit --rest size`, `sensitivity`,
 *    `predict` and `report` run on a mesh recording;
 *  - bad input: held nodes off the mesh (option and meta key), a mesh that
 *    is not a grid (ingested, then one line from fit).
 * usage: test_meshfit CLOTHFIT_EXE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_study.h"
#include "cli_json.h"
#include "synthrec.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_meshfit.XXXXXX";
static unsigned long long rng = 0x2545f4914f6cdd1dULL;

/* A recording pos [T*R*C*3] (lattice order) written as one file a frame:
 * file vertex perm[k] is lattice node k; quads or triangles (every quad
 * cut along its (r,c)-(r+1,c+1) diagonal), the faces in a shuffled order.
 * Frames i with skip0 <= i < skip1 are left out (the camera dropped them). */
typedef struct {
  int R, C, T, tri, ply, skip0, skip1;
  double dt;
  const double *pos;
  int *perm;
} seqspec;

static void shuffle(int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)((cf_test_rand(&rng) + 1) / 2 * (i + 1)) % (i + 1), t = a[i];
    a[i] = a[j], a[j] = t;
  }
}

static int make_faces(const seqspec *s, int *f) {
  int n = 0, nv = s->tri ? 3 : 4;
  for (int r = 0; r + 1 < s->R; r++)
    for (int c = 0; c + 1 < s->C; c++) {
      int a = r * s->C + c, b = a + 1, d = a + s->C, e = d + 1;
      int q[2][4] = {{a, b, e, d}, {a, e, d, 0}}, t[2][3] = {{a, b, e}, {a, e, d}};
      if (!s->tri) memcpy(f + 4 * n++, q[0], sizeof q[0]);
      else for (int k = 0; k < 2; k++) memcpy(f + 3 * n++, t[k], sizeof t[k]);
    }
  int *order = malloc(sizeof(int) * n), *g = malloc(sizeof(int) * n * nv);
  for (int i = 0; i < n; i++) order[i] = i;
  shuffle(order, n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < nv; k++) g[i * nv + k] = s->perm[f[order[i] * nv + k]];
  memcpy(f, g, sizeof(int) * n * nv);
  free(order), free(g);
  return n;
}

static void write_seq(const seqspec *s, const char *sub) {
  char d[600], path[800];
  int K = s->R * s->C, nv = s->tri ? 3 : 4, *f = malloc(sizeof(int) * 2 * K * 4), *inv = malloc(sizeof(int) * K);
  int F = make_faces(s, f);
  for (int k = 0; k < K; k++) inv[s->perm[k]] = k;
  snprintf(d, sizeof d, "%s/%s", dir, sub);
  mkdir(d, 0755);
  for (int i = 0; i < s->T; i++) {
    if (i >= s->skip0 && i < s->skip1) continue;
    snprintf(path, sizeof path, "%s/frame_%06d_%.6f.%s", d, i, i * s->dt, s->ply ? "ply" : "obj");
    FILE *o = fopen(path, "w");
    if (s->ply)
      fprintf(o, "ply\nformat ascii 1.0\nelement vertex %d\nproperty double x\nproperty double y\nproperty double z\n"
              "element face %d\nproperty list uchar int vertex_indices\nend_header\n", K, F);
    for (int v = 0; v < K; v++) {
      const double *x = s->pos + 3 * ((size_t)i * K + inv[v]);
      fprintf(o, "%s%.17g %.17g %.17g\n", s->ply ? "" : "v ", x[0], x[1], x[2]);
    }
    for (int j = 0; j < F; j++) {
      fprintf(o, s->ply ? "%d" : "f", nv);
      for (int k = 0; k < nv; k++) fprintf(o, " %d", f[j * nv + k] + !s->ply);
      fprintf(o, "\n");
    }
    fclose(o);
  }
  free(f), free(inv);
}

static int *random_perm(int K) {
  int *p = malloc(sizeof(int) * K);
  for (int k = 0; k < K; k++) p[k] = k;
  shuffle(p, K);
  return p;
}

/* A driven simulation of tg with the default settings (NULL after a failed check). */
static cf_fit_run *run_of(const cf_fit_target *tg) {
  cf_params base;
  cf_params_default(&base);
  cf_error err = {0, ""};
  cf_fit_run *r = cf_fit_run_alloc(tg, &base, &err);
  CHECK(r != NULL, "cf_fit_run_alloc: %s", err.msg);
  return r;
}

/* ingest meshes DIR/sub -o DIR/sub.h5 with extra arguments; the JSON line. */
static char *ingest(const char *sub, char *h5, size_t size, const char *a, const char *b) {
  char src[600], *o = NULL, *e = NULL;
  snprintf(src, sizeof src, "%s/%s", dir, sub);
  snprintf(h5, size, "%s/%s.h5", dir, sub);
  int st = cf_test_run_args(exe, dir, &o, &e, "ingest", "meshes", src, "-o", h5, "--density", "0.1042", "--size",
                            "0.42x0.594", "--json", a, b, NULL);
  CHECK(st == 0, "ingest %s: status %d: %s", sub, st, e ? e : "");
  free(e);
  return o;
}

/* ------------------------------------------------------------- recovery */
/* The model's own motion on the recorded grid: the fit is the model on the
 * same mesh (the grid split 2, as synthrec simulates: --split 2, which
 * wins over a mesh recording's own split 1), with the same held
 * kappa (1e-3, the fitting default) and a tolerance no looser than the
 * fit's, so what is left between the truth and the optimum is the 0.1 mm
 * marker-like noise on the nodes and Nelder-Mead's stopping rule: 3 %. */
static void recovers(const char *sub, cf_test_rec_spec sp, int tri, int ply, const char *start) {
  double *pos = cf_test_shaken_recording(&sp);
  int K = sp.rows * sp.cols, *perm = random_perm(K);
  seqspec s = {sp.rows, sp.cols, sp.T, tri, ply, -1, -1, sp.dt, pos, perm};
  write_seq(&s, sub);
  char h5[700];
  char *o = ingest(sub, h5, sizeof h5, NULL, NULL);
  const char *j = cf_test_last_line(o);
  char held[64];
  snprintf(held, sizeof held, "[%d,%d]", perm[0], perm[sp.cols - 1]); /* the top corners, left first */
  CHECK(cf_test_json_is(j, "mesh.held", held) && cf_test_json_int(j, "mesh.dropped_frames") == 0,
        "%s: held %s expected: %s", sub, held, j);
  free(o);
  /* the adapter: the grid in lattice order, the top corners controlled */
  cf_fit_input in;
  cf_error err = {0, ""};
  CHECK(cf_fit_input_load(h5, &in, &err) == CF_OK, "%s: %s", sub, err.msg);
  if (!err.code) {
    double dmax = 0;
    for (size_t i = 0; i < (size_t)sp.T * K * 3; i++) dmax = fmax(dmax, fabs(in.pos[i] - pos[i]));
    CHECK(in.tg.rows == sp.rows && in.tg.cols == sp.cols && dmax < 1e-12 && in.tg.n_ctrl == 2 &&
              in.ctrl[0] + in.ctrl[1] == sp.cols - 1 && in.ctrl[0] * in.ctrl[1] == 0,
          "%s: %dx%d, order off by %g m, ctrl %d", sub, in.tg.rows, in.tg.cols, dmax, in.tg.n_ctrl);
    if (!tri) { /* a quad grid is weighted as a marker lattice (corners : edges : interior = 1 : 2 : 4) */
      cf_fit_target lat = in.tg;
      lat.weight = NULL, lat.n_ctrl = 0, lat.ctrl = NULL;
      cf_fit_run *a = run_of(&in.tg), *b = run_of(&lat);
      cf_fit_point pt = {sp.delta, sp.alpha, 0, 1e-3, 0, 0, 0, 0};
      cf_fit_result ra, rb;
      CHECK(a && b && !cf_fit_run_eval(a, &pt, 0, 60, 0, NULL, &ra) && !cf_fit_run_eval(b, &pt, 0, 60, 0, NULL, &rb) &&
                fabs(ra.err.e_cm - rb.err.e_cm) <= 1e-12 * rb.err.e_cm && ra.err.e_cm > 0,
            "%s: the mesh's error %g cm, the lattice's %g cm", sub, ra.err.e_cm, rb.err.e_cm);
      cf_fit_run_free(a), cf_fit_run_free(b);
    }
    cf_fit_input_free(&in);
  }
  char *e = NULL;
  int st = cf_test_run_args(exe, dir, &o, &e, "fit", h5, "--start", start, "--split", "2", "--no-confidence", "--json",
                            NULL);
  j = cf_test_last_line(o);
  double d = cf_test_json_num(j, "delta"), a = cf_test_json_num(j, "alpha");
  CHECK(cf_test_json_int(j, "mesh_split") == 2, "%s: --split 2 did not win over the mesh's own split: %s", sub, j);
  printf("%s: fit delta %.5f (truth %.5f), alpha %.5f (truth %.5f), error %.4f cm\n", sub, d, sp.delta, a, sp.alpha,
         cf_test_json_num(j, "mean_error_cm"));
  CHECK(st == 0 && fabs(d / sp.delta - 1) < 0.03 && fabs(a / sp.alpha - 1) < 0.03, "%s: status %d: %s %s", sub, st,
        j, e ? e : "");
  free(o), free(e), free(pos), free(perm);
}

static cf_test_rec_spec spec(int R, int C, int T, double delta, double alpha, double A, double f, unsigned long long seed) {
  cf_test_rec_spec sp = {.rows = R, .cols = C, .T = T, .width = 0.42, .height = 0.594, .rho = 0.1042, .delta = delta,
                         .alpha = alpha, .amplitude = A, .frequency = f, .dt = 0.01, .noise = 1e-4, .seed = seed,
                         .kappa = 1e-3, .tol = 1e-4};
  return sp;
}

/* ------------------------------------------------------ eq. (4.3) by hand */
static double tri_area(const double *a, const double *b, const double *c) {
  double u[3], v[3];
  for (int d = 0; d < 3; d++) u[d] = b[d] - a[d], v[d] = c[d] - a[d];
  double n0 = u[1] * v[2] - u[2] * v[1], n1 = u[2] * v[0] - u[0] * v[2], n2 = u[0] * v[1] - u[1] * v[0];
  return 0.5 * sqrt(n0 * n0 + n1 * n1 + n2 * n2);
}

static void error_by_hand(void) {
  cf_test_rec_spec sp = spec(3, 4, 40, 0.041, 0.307, 0.075, 0.6, 7);
  double *pos = cf_test_shaken_recording(&sp);
  int K = 12, *perm = random_perm(K);
  seqspec s = {3, 4, 40, 1, 0, -1, -1, 0.01, pos, perm};
  write_seq(&s, "hand");
  char h5[700];
  free(ingest("hand", h5, sizeof h5, NULL, NULL));
  cf_fit_input in;
  cf_error err = {0, ""};
  CHECK(cf_fit_input_load(h5, &in, &err) == CF_OK, "hand: %s", err.msg);
  if (err.code) return;
  /* the lumped mass of the recorded triangles at frame 0: area / 3 to each node */
  double m[12] = {0};
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++) {
      int a = r * 4 + c, b = a + 1, d = a + 4, e = d + 1, t[2][3] = {{a, b, e}, {a, e, d}};
      for (int k = 0; k < 2; k++) {
        double A = tri_area(pos + 3 * t[k][0], pos + 3 * t[k][1], pos + 3 * t[k][2]);
        for (int q = 0; q < 3; q++) m[t[k][q]] += A / 3;
      }
    }
  cf_fit_run *run = run_of(&in.tg);
  cf_fit_point pt = {0.05, 0.25, 0, 0, 0, 0, 0, 0};
  cf_frame_error fe[40];
  cf_fit_result res;
  double *sim = malloc(sizeof(double) * 40 * K * 3), worst = 0;
  CHECK(run && cf_fit_run_eval_markers(run, &pt, fe, &res, sim, NULL) == CF_OK && res.status == CF_OK, "hand: eval");
  for (int i = 1; run && i < 40; i++) {
    double sw = 0, s2 = 0;
    for (int k = 0; k < K; k++) {
      const double *x = sim + 3 * ((size_t)i * K + k), *y = pos + 3 * ((size_t)i * K + k);
      sw += m[k];
      s2 += m[k] * ((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]));
    }
    double e = 100 * sqrt(s2 / sw);
    worst = fmax(worst, fabs(fe[i].e_cm - e) / fmax(e, 1e-12));
  }
  /* the corners differ: (0,0) is in two triangles, (0,3) in one */
  CHECK(worst < 1e-12 && fabs(in.weight[0] / in.weight[3] - m[0] / m[3]) < 1e-12 && m[0] > 1.5 * m[3],
        "hand: e_i differs from eq. (4.3) by %g (relative); weights %g %g", worst, in.weight[0], in.weight[3]);
  cf_fit_run_free(run);
  cf_fit_input_free(&in);
  free(sim), free(pos), free(perm);
}

static void one_line_error(const char *what, int st, const char *e, const char *needle, const char *out) {
  FILE *f = fopen(out, "r");
  CHECK(st != 0 && e && strstr(e, needle) && strchr(e, '\n') && !strchr(e, '\n')[1] && !f,
        "%s: status %d, stderr '%s' (expected one line with '%s', no %s)", what, st, e ? e : "", needle, out);
  if (f) fclose(f);
}

/* ------------------------------------------------------- dropped frames */
static void dropped(void) {
  cf_test_rec_spec sp = spec(3, 4, 100, 0.041, 0.307, 0.075, 0.6, 9);
  double *pos = cf_test_shaken_recording(&sp);
  int K = 12, *perm = random_perm(K);
  seqspec s = {3, 4, 100, 0, 0, 50, 60, 0.01, pos, perm}; /* frames 50..59 dropped: 0.11 s between 49 and 60 */
  write_seq(&s, "drop");
  char h5[700];
  char *o = ingest("drop", h5, sizeof h5, NULL, NULL);
  CHECK(cf_test_json_int(cf_test_last_line(o), "mesh.dropped_frames") == 10, "drop: %s", o);
  free(o);
  cf_fit_input in;
  cf_error err = {0, ""};
  CHECK(cf_fit_input_load(h5, &in, &err) == CF_OK, "drop: %s", err.msg);
  if (err.code) return;
  int bad = 0;
  for (int i = 45; i < 65; i++)
    for (int k = 0; k < K; k++) {
      int held = k == 0 || k == 3, inside = i >= 50 && i < 60;
      const double *x = in.pos + 3 * ((size_t)i * K + k);
      double w = (i - 49) / 11.0, want = inside && held ? pos[3 * (49 * K + k)] + w * (pos[3 * (60 * K + k)] -
                                                                                     pos[3 * (49 * K + k)])
                                                        : pos[3 * ((size_t)i * K + k)];
      bad += inside && !held ? !isnan(x[0]) : !(fabs(x[0] - want) < 1e-12);
    }
  CHECK(bad == 0, "drop: %d samples are not NaN (dropped) or the interpolant (held) or as recorded", bad);
  cf_fit_run *run = run_of(&in.tg);
  cf_fit_point pt = {0.041, 0.307, 0, 0, 0, 0, 0, 0};
  cf_frame_error fe[100];
  cf_fit_result res;
  CHECK(run && cf_fit_run_eval(run, &pt, 0, 0, 0, fe, &res) == CF_OK && res.status == CF_OK, "drop: eval");
  CHECK(fe[49].n == K && fe[50].n == 0 && fe[59].n == 0 && fe[60].n == K && res.err.frames == 90,
        "drop: frames counted %d, n %d %d %d %d", res.err.frames, fe[49].n, fe[50].n, fe[59].n, fe[60].n);
  cf_fit_run_free(run);
  cf_fit_input_free(&in);
  /* held nodes are interpolated across at most --max-gap */
  char src[600], out[700], *e = NULL;
  snprintf(src, sizeof src, "%s/drop", dir);
  snprintf(out, sizeof out, "%s/drop_gap.h5", dir);
  int st = cf_test_run_args(exe, dir, &o, &e, "ingest", "meshes", src, "-o", out, "--max-gap", "0.1", NULL);
  one_line_error("drop --max-gap 0.1", st, e, "longer than the limit of 0.1 s (--max-gap)", out);
  free(o), free(e), free(pos), free(perm);
}

/* ------------------------------------------------ the other commands */
static void commands(void) {
  cf_test_rec_spec sp = spec(4, 3, 120, 0.041, 0.307, 0.075, 0.6, 11);
  double *pos = cf_test_shaken_recording(&sp);
  int *perm = random_perm(12);
  seqspec s = {4, 3, 120, 1, 1, -1, -1, 0.01, pos, perm};
  write_seq(&s, "cmd");
  char h5[700], *o = NULL, *e = NULL;
  free(ingest("cmd", h5, sizeof h5, NULL, NULL));
  int st = cf_test_run_args(exe, dir, &o, &e, "sweep", h5, "--delta-grid", "0.031:0.051:3", "--alpha-grid",
                            "0.207:0.407:3", "--split", "2", "--workers", "1", "--json", NULL);
  const char *j = cf_test_last_line(o);
  printf("sweep: best delta %g alpha %g\n", cf_test_json_num(j, "recordings.0.delta"),
         cf_test_json_num(j, "recordings.0.alpha"));
  CHECK(st == 0 && fabs(cf_test_json_num(j, "recordings.0.delta") - 0.041) < 1e-9 &&
            fabs(cf_test_json_num(j, "recordings.0.alpha") - 0.307) < 1e-9,
        "sweep on a mesh recording: status %d, best not at the truth (the grid's middle): %s %s", st, j, e ? e : "");
  free(o), free(e);
  st = cf_test_run_args(exe, dir, &o, &e, "compare", h5, "--models", "inextensible,mass-spring", "--start",
                        "0.041,0.307", "--max-evals", "10", "--split", "2", "--workers", "1", "--json", NULL);
  j = cf_test_last_line(o);
  printf("compare: inextensible %g cm, mass-spring %g cm (testing window)\n",
         cf_test_json_num(j, "models.model=inextensible.test_error_cm"),
         cf_test_json_num(j, "models.model=mass-spring.test_error_cm"));
  CHECK(st == 0 && cf_test_json_num(j, "models.model=inextensible.test_error_cm") < 0.5 &&
            isfinite(cf_test_json_num(j, "models.model=mass-spring.test_error_cm")),
        "compare on a mesh recording: status %d: %s %s", st, o ? o : "", e ? e : "");
  free(o), free(e);
  char res[700], rep[700];
  snprintf(res, sizeof res, "%s/cmd_results.h5", dir);
  snprintf(rep, sizeof rep, "%s/cmd_report", dir);
  /* without --split the cloth is the recorded 4 x 3 mesh itself */
  st = cf_test_run_args(exe, dir, &o, &e, "fit", h5, "--rest", "size", "--start", "0.041,0.307",
                        "--max-evals", "10", "--no-confidence", "--json", "-o", res, NULL);
  j = cf_test_last_line(o);
  CHECK(st == 0 && cf_test_json_num(j, "mean_error_cm") < 1 && cf_test_json_int(j, "mesh_split") == 1,
        "fit --rest size (a mesh recording's default split 1): status %d: %s %s", st, j, e ? e : "");
  free(o), free(e);
  st = cf_test_run_args(exe, dir, &o, &e, "sensitivity", h5, "--at", "0.041,0.307", "-n", "3", "--workers", "1",
                        "-o", res, "--json", NULL);
  CHECK(st == 0 && cf_test_json_valid(cf_test_last_line(o)), "sensitivity: status %d: %s %s", st, o, e ? e : "");
  free(o), free(e);
  st = cf_test_run_args(exe, dir, &o, &e, "predict", h5, "--json", NULL);
  CHECK(st == 0 && cf_test_json_valid(cf_test_last_line(o)), "predict: status %d: %s %s", st, o, e ? e : "");
  free(o), free(e);
  st = cf_test_run_args(exe, dir, &o, &e, "report", res, "-o", rep, "--json", NULL);
  CHECK(st == 0 && cf_test_json_valid(cf_test_last_line(o)), "report: status %d: %s %s", st, o, e ? e : "");
  free(o), free(e), free(pos), free(perm);
}

/* ------------------------------------------------------------ bad input */
static void bad_input(void) {
  char src[600], out[700], meta[700], *o = NULL, *e = NULL;
  snprintf(src, sizeof src, "%s/drop", dir);
  snprintf(out, sizeof out, "%s/bad.h5", dir);
  int st = cf_test_run_args(exe, dir, &o, &e, "ingest", "meshes", src, "-o", out, "--held", "0,12", NULL);
  one_line_error("--held 0,12", st, e, "held node 12 is not on the mesh", out);
  free(o), free(e);
  snprintf(meta, sizeof meta, "%s/held.ini", dir);
  FILE *f = fopen(meta, "w");
  fprintf(f, "material = felt\nheld = 3,x\n");
  fclose(f);
  st = cf_test_run_args(exe, dir, &o, &e, "ingest", "meshes", src, "-o", out, "--meta", meta, NULL);
  one_line_error("meta held = 3,x", st, e, "held = '3,x': expected node indices", out);
  free(o), free(e);
  /* a meta held on the mesh is taken */
  f = fopen(meta, "w");
  fprintf(f, "material = felt\ndensity = 1\nsize = A3\nheld = 4,7\n");
  fclose(f);
  st = cf_test_run_args(exe, dir, &o, &e, "ingest", "meshes", src, "-o", out, "--meta", meta, "--json", NULL);
  const char *j = cf_test_last_line(o);
  CHECK(st == 0 && cf_test_json_is(j, "mesh.held", "[4,7]"), "meta held: %s %s", j, e ? e : "");
  free(o), free(e);
  cf_recording r;
  cf_error err = {0, ""};
  CHECK(cf_recording_read_h5(out, &r, &err) == CF_OK && r.meta.density == 1 && !strcmp(r.meta.material, "felt") &&
            fabs(r.meta.width_m - 0.297) < 1e-12 && r.mesh.n_held == 2 && r.mesh.held[1] == 7,
        "meta: density, material, size, held not stored: %s", err.msg);
  if (!err.code) cf_recording_free(&r);
  remove(out);
  /* not a grid: an L-shaped sheet (a 3 x 3 grid of quads without one) */
  char d[600], path[800];
  snprintf(d, sizeof d, "%s/lshape", dir);
  mkdir(d, 0755);
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/f_%d.obj", d, i);
    f = fopen(path, "w");
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) fprintf(f, "v %g 0 %g\n", 0.1 * c + 0.001 * i, 0.3 - 0.1 * r);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        if (r < 2 || c < 2) fprintf(f, "f %d %d %d %d\n", r * 4 + c + 1, r * 4 + c + 2, r * 4 + c + 6, r * 4 + c + 5);
    fclose(f);
  }
  snprintf(out, sizeof out, "%s/lshape.h5", dir);
  st = cf_test_run_args(exe, dir, &o, &e, "ingest", "meshes", d, "-o", out, "--fps", "30", "--density", "1", NULL);
  CHECK(st == 0 && strstr(o, "held nodes        none"), "L-shape ingest: status %d: %s %s", st, o, e ? e : "");
  free(o), free(e);
  st = cf_test_run_args(exe, dir, &o, &e, "fit", out, "--json", NULL);
  one_line_error("fit on an L-shaped mesh", st, e, "only structured grids (quads, or triangulated quads) can be fitted",
                 "/nonexistent");
  CHECK(e && strstr(e, out), "the error names the file: %s", e ? e : "");
  free(o), free(e);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s CLOTHFIT_EXE\n", argv[0]), 2;
  exe = argv[1];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  recovers("quads_obj", spec(5, 4, 300, 0.041, 0.307, 0.075, 0.6, 12345), 0, 0, "0.05,0.25");
  /* the slow shake over 6 s, more than its 3.3 s period (over 3 s the fit
   * was 4 % off in delta and 5.5 % in alpha: half a period determines them
   * loosely, the thesis' Figure 4.6 finds these motions forgiving) */
  recovers("tri_ply", spec(4, 5, 600, 0.06, 0.5, 0.15, 0.3, 777), 1, 1, "0.05,0.6");
  error_by_hand();
  dropped();
  commands();
  bad_input();
  if (!cf_test_failures) {
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  }
  return cf_test_done("test_meshfit");
}
