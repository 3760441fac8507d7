/* test_synth.c — `clothfit synth` (docs/design.md §11).
 *
 * 1. Exactness: with no noise, gaps, fragments or ghosts (6 decimals, a
 *    simulation step of 0.002 s that does not divide 1/120 s, so samples are
 *    interpolated), the CSV read back with cf_motive_read gives the lattice
 *    markers equal to an independent simulation of the fine mesh (same mesh,
 *    parameters, initial state and corner motion, linear interpolation at
 *    t_i = i/120) to 1e-9 m; the achieved speed recomputed from the file
 *    matches the reported one and is within 25 % of the target.
 * 2. Corruption: with noise, gaps, fragments and ghosts, every lattice cell
 *    is present in exactly one of its tracks (its label or a fragment, never
 *    overlapping) except exactly at the injected gaps, within 1 mm of the
 *    truth; the driven corners' gaps are at most corner_max_gap; ghosts stay
 *    > 0.4 m from every marker; OUT.meta.ini loads with cf_meta_load, and the
 *    marker processing (automatic, and with OUT.map) joins every fragment,
 *    drops every ghost and puts every marker on its cell.
 * 3. Determinism: the same config gives byte-identical files (CSV, truth,
 *    meta, map; library twice and the CLI).
 * 4. Errors: bad configs give one line naming file:line (library and CLI);
 *    a simulation that fails names the step and writes no file.
 * 5. datasets/aero-mini/synth-keys.ini (every key at its default) loads and
 *    equals the defaults; every config of the bundled study loads.
 *
 * usage: test_synth CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf_recording.h"
#include "cf_synth.h"
#include "cli_json.h"
#include "testutil.h"

static char dir[256];

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
}

/* A3 (4x3 lattice, 9x13 fine mesh), 2 s: quick. */
static const char *base_cfg = "[recording]\nmaterial = wool\nsize = A3\nmotion = twist\nspeed = fast\n"
                              "duration = 2\nseed = 7\n[motion]\npreroll = 0.5\n";

/* Run DIR/NAME.ini, written first as base_cfg + extra unless extra is NULL. */
static int load_run(const char *name, const char *extra, cf_synth_config *c, cf_synth_result *r) {
  char path[512], text[2048];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  snprintf(text, sizeof text, "%s%s", base_cfg, extra ? extra : "");
  if (extra) write_text(path, text);
  memset(r, 0, sizeof *r);
  cf_error err = {0, ""};
  int rc = cf_synth_load(path, c, &err);
  CHECK(rc == CF_OK, "load %s: %s", name, err.msg);
  if (!rc) rc = cf_synth_run(c, r, NULL, NULL, &err);
  CHECK(rc == CF_OK, "run %s: %s", name, err.msg);
  return rc;
}

static int find(const cf_recording *rec, const char *name) {
  for (int k = 0; k < rec->n_markers; k++)
    if (!strcmp(rec->names[k], name)) return k;
  return -1;
}

static double dist(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* The fine-mesh simulation redone here, sampled at the frames into out[T*K*3]. */
static void resimulate(const cf_synth_config *c, const cf_synth_result *r, double *out) {
  int kin[2], K = c->rows * c->cols, T = r->n_frames;
  cf_mesh *m = cf_synth_mesh(c, kin);
  cf_params p;
  cf_params_default(&p);
  p.rho = c->density, p.delta = c->delta, p.alpha = c->alpha, p.beta = c->beta, p.kappa = c->kappa;
  p.dt = c->sim_dt, p.tol = c->tol, p.max_iter = c->max_iter;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  double *x = malloc(sizeof(double) * 3 * m->n_nodes), *prev = malloc(sizeof(double) * 3 * m->n_nodes);
  cf_synth_initial_state(c, m, x);
  cf_sim_set_state(s, x, NULL);
  cf_synth_motion mo;
  cf_synth_motion_init(&mo, c, r->rate_scale);
  double kin0[6], kp[6];
  for (int q = 0; q < 2; q++) memcpy(kin0 + 3 * q, x + 3 * kin[q], 3 * sizeof(double));
  long P = lround(c->preroll / c->sim_dt);
  int i = 0;
  for (long k = 1 - P; i < T; k++) {
    memcpy(prev, cf_sim_x(s), sizeof(double) * 3 * m->n_nodes);
    cf_synth_motion_eval(&mo, k * c->sim_dt, 2, kin0, kp);
    if (cf_sim_step(s, kp, &err)) {
      CHECK(0, "resimulation step %ld: %s", k, err.msg);
      break;
    }
    for (; i < T && i / c->rate <= k * c->sim_dt + 1e-12; i++) {
      double w = k <= 0 ? 1 : (i / c->rate - (k - 1) * c->sim_dt) / c->sim_dt;
      for (int q = 0; q < K; q++) {
        int nd = cf_synth_marker_node(c, q / c->cols, q % c->cols);
        for (int a = 0; a < 3; a++)
          out[3 * (K * i + q) + a] = prev[3 * nd + a] + w * (cf_sim_x(s)[3 * nd + a] - prev[3 * nd + a]);
      }
    }
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  free(x), free(prev);
}

static void test_exact(void) {
  cf_synth_config c;
  cf_synth_result r;
  if (load_run("exact", "[sim]\ndt = 0.002\n[markers]\nnoise = 0\ngap_rate = 0\nfragments = 0\nghosts = 0\n", &c, &r))
    return;
  char csv[512];
  snprintf(csv, sizeof csv, "%s/exact.csv", dir);
  cf_error err = {0, ""};
  CHECK(cf_synth_write(csv, &c, &r, &err) == CF_OK, "write: %s", err.msg);
  cf_recording rec;
  cf_motive_opts mo;
  cf_motive_opts_default(&mo);
  int rc = cf_motive_read(csv, &mo, &rec, &err);
  CHECK(rc == CF_OK, "cf_motive_read: %s", err.msg);
  int K = c.rows * c.cols, T = r.n_frames;
  if (!rc) {
    CHECK(rec.n_markers == K && rec.n_frames == T, "%d markers, %d frames", rec.n_markers, rec.n_frames);
    double *sim = malloc(sizeof(double) * 3 * K * T), worst = 0, worst_truth = 0, speed = 0;
    resimulate(&c, &r, sim);
    for (int i = 0; i < T && rec.n_frames == T; i++) {
      CHECK(fabs(rec.time[i] - i / 120.0) < 1e-6, "time %d: %.9f", i, rec.time[i]);
      for (int k = 0; k < K; k++) {
        char name[32];
        snprintf(name, sizeof name, "Marker%d", k + 1);
        int j = find(&rec, name);
        const double *p = rec.pos + 3 * (rec.n_markers * i + (j < 0 ? 0 : j));
        worst = fmax(worst, dist(p, sim + 3 * (K * i + k)));
        worst_truth = fmax(worst_truth, dist(r.truth + 3 * (K * i + k), sim + 3 * (K * i + k)));
        if (i) speed += dist(p, rec.pos + 3 * (rec.n_markers * (i - 1) + (j < 0 ? 0 : j))) * 120;
      }
    }
    speed /= (double)K * (T - 1);
    CHECK(worst <= 1e-9, "CSV markers vs resimulated nodes: %.3g m", worst);
    CHECK(worst_truth <= 1e-12, "synth truth vs resimulated nodes: %.3g m", worst_truth);
    CHECK(fabs(speed - r.achieved_speed) < 1e-6, "speed from the file %.6f vs reported %.6f", speed, r.achieved_speed);
    CHECK(fabs(r.achieved_speed / r.target_speed - 1) < 0.25, "achieved speed %.4f, target %.4f", r.achieved_speed,
          r.target_speed);
    printf("exact: max |CSV - simulation| %.2g m, speed %.4f m/s (target %.2f, rate scale %.3f)\n", worst,
           r.achieved_speed, r.target_speed, r.rate_scale);
    free(sim);
    cf_recording_free(&rec);
  }
  cf_synth_result_free(&r);
  cf_synth_config_free(&c);
}

/* Marker processing of the CSV: automatic or with the mapping file. */
static void check_processing(const char *csv, const char *map, const cf_synth_config *c, const cf_synth_result *r,
                             int n_frag) {
  cf_recording rec;
  cf_motive_opts mo;
  cf_motive_opts_default(&mo);
  cf_error err = {0, ""};
  if (cf_motive_read(csv, &mo, &rec, &err)) {
    CHECK(0, "read: %s", err.msg);
    return;
  }
  cf_marker_opts o;
  cf_marker_opts_default(&o);
  char meta_path[512];
  snprintf(meta_path, sizeof meta_path, "%s/noisy.meta.ini", dir);
  cf_rec_meta meta = rec.meta;
  CHECK(cf_meta_load(meta_path, &meta, &o, &err) == CF_OK, "meta: %s", err.msg);
  CHECK(o.rows == c->rows && o.cols == c->cols && !strcmp(meta.material, "wool") && fabs(meta.density - 0.1804) < 1e-12,
        "meta: lattice %dx%d, material %s, density %g", o.rows, o.cols, meta.material, meta.density);
  if (map) snprintf(o.map, sizeof o.map, "%s", map);
  int rc = cf_markers_process(&rec, &o, 0, &err);
  CHECK(rc == CF_OK, "%s processing: %s", map ? "mapped" : "automatic", err.msg);
  if (!rc) {
    CHECK(rec.proc->n_merged == n_frag, "%d merged, expected %d", rec.proc->n_merged, n_frag);
    CHECK(rec.proc->n_ghosts + rec.proc->n_removed == c->ghosts, "%d ghosts + %d removed, expected %d",
          rec.proc->n_ghosts, rec.proc->n_removed, c->ghosts);
    for (int k = 0; k < c->rows * c->cols; k++) {
      char name[32];
      snprintf(name, sizeof name, "Marker%d", k + 1);
      int j = find(&rec, name);
      CHECK(j >= 0 && rec.proc->cell[2 * j] == k / c->cols && rec.proc->cell[2 * j + 1] == k % c->cols,
            "%s on cell (%d, %d)", name, j >= 0 ? rec.proc->cell[2 * j] : -1, j >= 0 ? rec.proc->cell[2 * j + 1] : -1);
    }
  }
  (void)r;
  cf_recording_free(&rec);
}

static void test_noisy(cf_synth_config *c, cf_synth_result *r) {
  char csv[512], map[512];
  snprintf(csv, sizeof csv, "%s/noisy.csv", dir);
  snprintf(map, sizeof map, "%s/noisy.map", dir);
  cf_error err = {0, ""};
  CHECK(cf_synth_write(csv, c, r, &err) == CF_OK, "write: %s", err.msg);
  cf_recording rec;
  cf_motive_opts mo;
  cf_motive_opts_default(&mo);
  if (cf_motive_read(csv, &mo, &rec, &err)) {
    CHECK(0, "read: %s", err.msg);
    return;
  }
  int K = c->rows * c->cols, T = r->n_frames, n_frag = 0, bad_gap = 0, bad_present = 0, corner_gap = 0;
  CHECK(rec.n_markers == r->n_tracks, "%d markers read, %d tracks written", rec.n_markers, r->n_tracks);
  unsigned char *gap = calloc((size_t)K * T, 1);
  for (int q = 0; q < r->n_gaps; q++) {
    for (int i = 0; i < r->gaps[q].n; i++) gap[K * (r->gaps[q].first + i) + r->gaps[q].cell] = 1;
    if (r->gaps[q].cell == r->controlled[0] || r->gaps[q].cell == r->controlled[1])
      corner_gap = r->gaps[q].n > corner_gap ? r->gaps[q].n : corner_gap;
  }
  double worst = 0, ghost_min = INFINITY;
  for (int t = 0; t < r->n_tracks; t++) n_frag += t >= K && r->tracks[t].cell >= 0;
  for (int i = 0; i < T; i++)
    for (int k = 0; k < K; k++) {
      int seen = 0;
      for (int t = 0; t < r->n_tracks; t++) {
        int j = find(&rec, r->tracks[t].name);
        const double *p = rec.pos + 3 * (rec.n_markers * i + (j < 0 ? 0 : j));
        if (j < 0 || isnan(p[0])) continue;
        if (r->tracks[t].cell == k) seen++, worst = fmax(worst, dist(p, r->truth + 3 * (K * i + k)));
        if (r->tracks[t].cell < 0) ghost_min = fmin(ghost_min, dist(p, r->truth + 3 * (K * i + k)));
      }
      bad_gap += gap[K * i + k] && seen;
      bad_present += !gap[K * i + k] && seen != 1;
      const double *mp = r->meas + 3 * (K * i + k);
      CHECK(isnan(mp[0]) == gap[K * i + k], "meas of cell %d frame %d", k, i);
    }
  CHECK(bad_gap == 0 && bad_present == 0, "%d samples inside gaps, %d outside gaps not seen exactly once", bad_gap,
        bad_present);
  CHECK(worst < 1e-3, "worst error vs truth %.3g m", worst);
  CHECK(r->n_gaps > 0 && n_frag == c->fragments, "%d gaps, %d fragments (expected %d)", r->n_gaps, n_frag,
        c->fragments);
  CHECK(corner_gap <= (int)floor(c->corner_max_gap * c->rate + 1e-9), "corner gap of %d frames", corner_gap);
  CHECK(c->ghosts == 0 || ghost_min > 0.4, "a ghost came within %.3f m of the cloth", ghost_min);
  printf("noisy: %d tracks, %d gaps, %d fragments, worst error %.3g mm, ghosts >= %.2f m away\n", r->n_tracks,
         r->n_gaps, n_frag, 1e3 * worst, ghost_min);
  free(gap);
  cf_recording_free(&rec);
  check_processing(csv, NULL, c, r, n_frag);
  check_processing(csv, map, c, r, n_frag);
}

static int same_file(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  char *x = cf_test_slurp(a, &na), *y = cf_test_slurp(b, &nb);
  int same = x && y && na == nb && !memcmp(x, y, na);
  free(x), free(y);
  return same;
}

static void test_determinism(const char *exe) {
  static const char *suffix[] = {".csv", ".truth.ini", ".meta.ini", ".map"};
  cf_synth_config c2;
  cf_synth_result r2;
  if (load_run("noisy", NULL, &c2, &r2)) return;
  char out[512], a[600], b[600];
  snprintf(out, sizeof out, "%s/again.csv", dir);
  cf_error err = {0, ""};
  CHECK(cf_synth_write(out, &c2, &r2, &err) == CF_OK, "write: %s", err.msg);
  char cfg[512], cli_out[512];
  snprintf(cfg, sizeof cfg, "%s/noisy.ini", dir);
  snprintf(cli_out, sizeof cli_out, "%s/cli.csv", dir);
  char *argv[] = {(char *)exe, "synth", cfg, "-o", cli_out, "--json", NULL}, *so = NULL, *se = NULL;
  int rc = cf_test_run(argv, dir, &so, &se);
  CHECK(rc == 0 && cf_test_json_num(cf_test_last_line(so), "achieved_speed") > 0, "CLI synth: exit %d, %s", rc,
        se ? se : "");
  free(so), free(se);
  for (int i = 0; i < 4; i++) {
    snprintf(a, sizeof a, "%s/noisy%s", dir, suffix[i]);
    snprintf(b, sizeof b, "%s/again%s", dir, suffix[i]);
    CHECK(same_file(a, b), "%s and %s differ", a, b);
    snprintf(b, sizeof b, "%s/cli%s", dir, suffix[i]);
    CHECK(same_file(a, b), "%s and %s differ", a, b);
  }
  cf_synth_result_free(&r2);
  cf_synth_config_free(&c2);
}

/* A bad config: cf_synth_load fails with "PATH:LINE: ..." on one line, and
 * so does the CLI (exit 1, one line on stderr, no output). */
static void bad_config(const char *exe, const char *text, int line, const char *what) {
  char path[512], expect[600], out[512];
  snprintf(path, sizeof path, "%s/bad.ini", dir);
  snprintf(out, sizeof out, "%s/bad.csv", dir);
  write_text(path, text);
  snprintf(expect, sizeof expect, "%s:%d:", path, line);
  cf_synth_config c;
  cf_error err = {0, ""};
  int rc = cf_synth_load(path, &c, &err);
  CHECK(rc != CF_OK && strstr(err.msg, expect) && strstr(err.msg, what) && !strchr(err.msg, '\n'),
        "config '%s': rc %d, message '%s' (expected '%s' and '%s')", text, rc, err.msg, expect, what);
  cf_synth_config_free(&c);
  char *argv[] = {(char *)exe, "synth", path, "-o", out, NULL}, *se = NULL;
  rc = cf_test_run(argv, dir, NULL, &se);
  CHECK(rc == 1 && se && strstr(se, expect) && strchr(se, '\n') == se + strlen(se) - 1 && access(out, F_OK) != 0,
        "CLI on '%s': exit %d, stderr '%s'", text, rc, se ? se : "");
  free(se);
}

static void test_errors(const char *exe) {
  bad_config(exe, "[recording]\nsize = A2\n\ncolour = red\n", 4, "unknown key 'colour'");
  bad_config(exe, "[recording]\nmotion = wave\n", 2, "expected one of shake|twist");
  bad_config(exe, "; comment\n[markers]\nnoise = -1\n", 3, "noise = '-1'");
  bad_config(exe, "[cloth]\nrefine = 2.5\n", 2, "refine");
  bad_config(exe, "[recording]\nmaterial = silk\n", 2, "not in Table 4.1");
  bad_config(exe, "[recording]\nmaterial = felt\n[cloth]\ndelta = 0.1\n", 2, "give [cloth] delta and alpha");
  bad_config(exe, "[recording]\nsize = A3\n[markers]\nfragments = 11\n", 4, "at most 10");
  bad_config(exe, "[recording]\nsize = A3\nthis is not ini\n", 3, "malformed line");
  /* a simulation that cannot converge: a clear error and no files */
  char path[512], out[512];
  snprintf(path, sizeof path, "%s/fail.ini", dir);
  snprintf(out, sizeof out, "%s/fail.csv", dir);
  write_text(path, "[recording]\nsize = A3\nduration = 2\n[sim]\ntol = 1e-9\nmax_iter = 1\n");
  int before = cf_test_dir_entries(dir);
  char *argv[] = {(char *)exe, "synth", path, "-o", out, NULL}, *se = NULL;
  int rc = cf_test_run(argv, dir, NULL, &se);
  CHECK(rc == 1 && se && strstr(se, "simulation 1") && strstr(se, "step") && access(out, F_OK) != 0 &&
            cf_test_dir_entries(dir) == before,
        "failing simulation: exit %d, stderr '%s'", rc, se ? se : "");
  free(se);
}

/* The reference config equals the defaults; the study's configs load. */
static void test_configs(const char *root) {
  char path[1024];
  snprintf(path, sizeof path, "%s/datasets/aero-mini/synth-keys.ini", root);
  cf_synth_config c, d;
  cf_error err = {0, ""};
  int rc = cf_synth_load(path, &c, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  snprintf(path, sizeof path, "%s/empty.ini", dir);
  write_text(path, "");
  CHECK(cf_synth_load(path, &d, &err) == CF_OK, "empty config: %s", err.msg);
  if (!rc) {
    free(c.text), free(d.text);
    c.text = d.text = NULL;
    CHECK(!memcmp(&c, &d, sizeof c), "synth-keys.ini differs from the defaults");
    CHECK(d.sim_dt == 1.0 / 480 && d.delta == 0.041 && d.alpha == 0.307 && d.density == 0.1042 && d.rows == 5,
          "defaults: dt %g, delta %g, alpha %g, rho %g, rows %d", d.sim_dt, d.delta, d.alpha, d.density, d.rows);
  }
  int n = 0;
  static const char *mats[] = {"polyester", "wool", "denim", "stiff-cotton"};
  for (int i = 0; i < 32; i++) {
    snprintf(path, sizeof path, "%s/datasets/aero-mini/configs/%s-A%d-%s-%s-I.ini", root, mats[i / 8], 2 + (i / 4) % 2,
             (i / 2) % 2 ? "twist" : "shake", i % 2 ? "fast" : "slow");
    rc = cf_synth_load(path, &c, &err);
    CHECK(rc == CF_OK, "%s", err.msg);
    n += !rc && !strcmp(c.repetition, "I") && c.delta > 0 && c.alpha > 0;
    cf_synth_config_free(&c);
  }
  CHECK(n == 32, "%d of 32 study configs load with Table A.1 values", n);
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 3) {
    fprintf(stderr, "usage: test_synth CLOTHFIT_EXE SOURCE_ROOT\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "/tmp/cf_test_synth_XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  test_exact();
  cf_synth_config c;
  cf_synth_result r;
  if (!load_run("noisy", "[markers]\ngap_rate = 0.5\nfragments = 3\nghosts = 2\n", &c, &r)) {
    test_noisy(&c, &r);
    test_determinism(argv[1]);
    cf_synth_result_free(&r);
  }
  cf_synth_config_free(&c);
  test_errors(argv[1]);
  test_configs(argv[2]);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (!cf_test_failures && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return cf_test_done("test_synth");
}
