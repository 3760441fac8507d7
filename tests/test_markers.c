/* test_markers.c — cf_markers_process on synthetic recordings of a hanging
 * A2 sheet (5x4 lattice, swaying and turning) cut into label fragments,
 * with occlusions, ghosts and a shuffled marker order: fragments merged back
 * exactly, ghosts dropped, lattice cells, trimming, controlled-corner gap
 * filling (linear to 1e-12; too long: an error naming marker and time),
 * weights, the mapping file (merges, cells, drops, errors), the sidecar
 * metadata, and the HDF5 round trip of it all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf_common.h"
#include "cf_recording.h"
#include "markers_synth.h"
#include "testutil.h"

#define T 300
#define TRIM 15 /* R4C2 first seen at frame 15 */

/* The labels of the scenario, and where each comes from. */
typedef struct {
  const char *name;
  int cell, i0, i1; /* cell -1: a ghost */
} track;

static const track tracks[] = {
    {"R0C0", 0, 0, 100},           {"Unlabeled:2004", 0, 110, T}, /* controlled corner, fragment + 10-frame gap */
    {"R0C1", 1, 0, T},             {"R0C2", 2, 0, T},
    {"R0C3", 3, 0, 200},           {"R0C3", 3, 210, T},           /* controlled, one label, 10-frame gap */
    {"R1C0", 4, 0, T},             {"R1C1", 5, 0, 80},
    {"Unlabeled:2001", 5, 86, 200}, {"Unlabeled:2002", 5, 204, T}, /* three fragments */
    {"R1C2", 6, 0, T},             {"R1C3", 7, 0, T},
    {"R2C0", 8, 0, T},             {"R2C1", 9, 0, T},
    {"R2C2", 10, 0, T},            {"R2C3", 11, 0, 150},
    {"Unlabeled:2003", 11, 160, T}, {"R3C0", 12, 0, T},
    {"R3C1", 13, 0, 120},          {"R3C1", 13, 130, T},          /* occluded: stays missing */
    {"R3C2", 14, 0, T},            {"R3C3", 15, 0, T},
    {"R4C0", 16, 0, T},            {"R4C1", 17, 0, T},
    {"R4C2", 18, TRIM, T},         {"R4C3", 19, 0, T},
    {"Unlabeled:3000", -1, 50, 250}, {"Unlabeled:3001", -2, 10, 21}, /* ghosts */
    {"S1", -3, 0, 100},            {"S1", -3, 105, T},            /* the stick (with_stick only) */
    {"S2", -4, 0, T},
};
static const int n_tracks = sizeof tracks / sizeof tracks[0];
#define MAX_LABELS 32

static int label_index(const char **labels, int *n, const char *name) {
  for (int l = 0; l < *n; l++)
    if (!strcmp(labels[l], name)) return l;
  labels[*n] = name;
  return (*n)++;
}

/* The scenario as a recording, markers shuffled by seed. */
static void scenario_stick(cf_recording *r, const synth_sheet *s, unsigned long long seed, int gap_frames,
                           int with_stick) {
  const char *labels[MAX_LABELS];
  int n = 0, of[64], perm[MAX_LABELS], nt = with_stick ? n_tracks : n_tracks - 3;
  for (int t = 0; t < nt; t++) of[t] = label_index(labels, &n, tracks[t].name);
  synth_shuffle(perm, n, &seed);
  synth_recording(r, s, n, (char *const *)labels, perm);
  for (int t = 0; t < nt; t++) {
    const track *tr = &tracks[t];
    int k = perm[of[t]], i1 = tr->i1 == 200 && tr->cell == 3 ? 200 + 10 - gap_frames : tr->i1;
    if (tr->cell >= 0) synth_put(r, s, k, tr->cell, tr->i0, i1);
    for (int i = tr->i0; tr->cell < 0 && i < tr->i1; i++) { /* a reflection 1.5 m away; a static blip; */
      double *p = r->pos + 3 * ((size_t)i * r->n_markers + k); /* the stick 50 cm in front of the sheet */
      memcpy(p, synth_at(s, i, tr->cell == -4 ? 19 : 16), 3 * sizeof(double));
      if (tr->cell == -1) p[0] += 1.5;
      else if (tr->cell == -2) p[0] = 5, p[1] = 5, p[2] = 0.1;
      else p[1] -= 0.5, p[2] -= 0.3;
    }
  }
}

static void scenario(cf_recording *r, const synth_sheet *s, unsigned long long seed, int gap_frames) {
  scenario_stick(r, s, seed, gap_frames, 0);
}

static const double *P(const cf_recording *r, int i, int k) { return r->pos + 3 * ((size_t)i * r->n_markers + k); }

/* Linear interpolation of cell over source frames (a, b) at frame i. */
static void lerp(const synth_sheet *s, int cell, int a, int b, int i, double *out) {
  double w = (double)(i - a) / (b - a);
  for (int c = 0; c < 3; c++) out[c] = synth_at(s, a, cell)[c] + w * (synth_at(s, b, cell)[c] - synth_at(s, a, cell)[c]);
}

/* Is source frame i of cell a sample of some track? */
static int recorded(int cell, int i) {
  for (int t = 0; t < n_tracks; t++)
    if (tracks[t].cell == cell && i >= tracks[t].i0 && i < tracks[t].i1) return 1;
  return 0;
}

static void check_positions(const cf_recording *r, const synth_sheet *s) {
  int bad = 0, fill_bad = 0, nan_bad = 0;
  double fill_err = 0;
  for (int i = 0; i < r->n_frames; i++)
    for (int j = 0; j < 20; j++) {
      int src = i + TRIM;
      const double *p = P(r, i, j), *q = synth_at(s, src, j);
      if (recorded(j, src)) bad += memcmp(p, q, 3 * sizeof(double)) != 0;
      else if (j == 0 || j == 3) { /* controlled: filled linearly */
        double e[3];
        lerp(s, j, j ? 199 : 99, j ? 210 : 110, src, e);
        for (int c = 0; c < 3; c++) fill_err = fmax(fill_err, fabs(p[c] - e[c]));
        fill_bad += isnan(p[0]);
      } else nan_bad += !isnan(p[0]);
    }
  CHECK(bad == 0, "%d recorded samples differ from the originals", bad);
  CHECK(fill_bad == 0 && fill_err < 1e-12, "controlled gaps: %d unfilled, max deviation from linear %.3g", fill_bad,
        fill_err);
  CHECK(nan_bad == 0, "%d cloth samples filled that should stay missing", nan_bad);
}

static void check_proc(const cf_recording *r, int merged) {
  const cf_marker_proc *p = r->proc;
  CHECK(p && p->rows == 5 && p->cols == 4, "lattice 5x4");
  CHECK(r->n_markers == 20, "%d markers, expected the 20 of the lattice", r->n_markers);
  for (int j = 0; j < 20 && j < r->n_markers; j++) {
    char want[16];
    snprintf(want, sizeof want, "R%dC%d", j / 4, j % 4);
    CHECK(!strcmp(r->names[j], want), "marker %d is '%s', expected '%s' (lattice order)", j, r->names[j], want);
    CHECK(p->cell[2 * j] == j / 4 && p->cell[2 * j + 1] == j % 4, "marker %d cell %d,%d", j, p->cell[2 * j],
          p->cell[2 * j + 1]);
  }
  CHECK(p->n_merged == merged, "%d merges, expected %d", p->n_merged, merged);
  CHECK(p->trim_start_frames == TRIM && fabs(p->trim_start_s - TRIM * 0.01) < 1e-12 && p->trim_end_frames == 0,
        "trimmed %d frames / %g s at the start, %d at the end", p->trim_start_frames, p->trim_start_s, p->trim_end_frames);
  CHECK(r->n_frames == T - TRIM && fabs(r->time_offset - TRIM * 0.01) < 1e-12, "%d frames, offset %g", r->n_frames,
        r->time_offset);
  CHECK(p->n_controlled == 2 && p->controlled[0] == 0 && p->controlled[1] == 3, "controlled: the top corners");
  CHECK(p->filled[0] == 10 && p->filled[3] == 10 && p->filled[5] == 0, "filled %d %d %d", p->filled[0], p->filled[3],
        p->filled[5]);
  double w0 = p->weight ? p->weight[0] : NAN;
  CHECK(p->weight && fabs(p->weight[1] / w0 - 2) < 0.02 && fabs(p->weight[5] / w0 - 4) < 0.04,
        "weights ~1:2:4 (%g %g %g)", w0, p->weight ? p->weight[1] : NAN, p->weight ? p->weight[5] : NAN);
}

/* The scenario (seed, R0C3's gap) processed on a 5x4 lattice (dt native). */
static int run(cf_recording *r, const synth_sheet *s, unsigned long long seed, int gap, int merge, double max_gap,
               const char *map, cf_error *err) {
  scenario(r, s, seed, gap);
  cf_marker_opts o;
  cf_marker_opts_default(&o);
  o.rows = 5, o.cols = 4, o.merge = merge, o.max_gap = max_gap;
  snprintf(o.map, sizeof o.map, "%s", map ? map : "");
  return cf_markers_process(r, &o, 0, err);
}

static void test_auto(void) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, T, 0.01, 0.2, 0.3, 1);
  for (unsigned long long seed = 1; seed <= 5; seed++) {
    cf_recording r;
    cf_error err = {0, ""};
    int rc = run(&r, &s, seed, 10, CF_MERGE_DEFAULT, 0.25, NULL, &err);
    CHECK(rc == 0, "seed %llu: %s", seed, err.msg);
    if (rc) continue;
    check_proc(&r, 4);
    check_positions(&r, &s);
    CHECK(r.proc->n_ghosts == 2, "%d ghosts dropped, expected 2", r.proc->n_ghosts);
    for (int g = 0; g < r.proc->n_ghosts; g++)
      CHECK(!strncmp(r.proc->ghosts[g], "Unlabeled:300", 13), "ghost '%s'", r.proc->ghosts[g]);
    cf_recording_free(&r);
  }
  synth_sheet_free(&s);
}

/* A 0.30 s gap of the controlled R0C3: an error naming it and the time. */
static void test_gap_too_long(void) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, T, 0.01, 0, 0, 1);
  cf_recording r;
  cf_error err = {0, ""};
  int rc = run(&r, &s, 7, 30, CF_MERGE_DEFAULT, 0.25, NULL, &err);
  CHECK(rc == CF_EINVAL, "rc %d", rc);
  CHECK(strstr(err.msg, "'R0C3'") && strstr(err.msg, "0.300 s") && strstr(err.msg, "t = 1.650 s") &&
        strstr(err.msg, "--max-gap"), "message: %s", err.msg);
  cf_recording_free(&r);
  CHECK(run(&r, &s, 7, 30, CF_MERGE_DEFAULT, 0.3, NULL, &err) == 0, "--max-gap 0.3 accepts a 0.3 s gap: %s", err.msg);
  CHECK(r.proc && r.proc->filled[3] == 30, "30 samples filled");
  cf_recording_free(&r);
  synth_sheet_free(&s);
}

/* ------------------------------------------------------------ mapping file */
static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static int run_map(const synth_sheet *s, const char *path, const char *text, int merge, cf_recording *r, cf_error *err) {
  write_file(path, text);
  return run(r, s, 3, 10, merge, 0.25, path, err);
}

static void map_error(const synth_sheet *s, const char *path, const char *text, const char *want) {
  cf_recording r;
  cf_error err = {0, ""};
  int rc = run_map(s, path, text, CF_MERGE_NONE, &r, &err);
  CHECK(rc != 0 && strstr(err.msg, want) && strstr(err.msg, path), "map '%s': rc %d, message: %s", text, rc, err.msg);
  cf_recording_free(&r);
}

static const char *merges =
    "# fragments\n"
    "R1C1 = R1C1, Unlabeled:2001, Unlabeled:2002\n"
    "R2C3 = Unlabeled:2003   # into an existing marker\n"
    "R0C0 = Unlabeled:2004\n"
    "drop = Unlabeled:3000, Unlabeled:3001\n";

static void test_map(const char *dir) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, T, 0.01, -0.15, -0.4, 1);
  char path[1100], text[4096];
  snprintf(path, sizeof path, "%s/map.txt", dir);
  cf_recording r;
  cf_error err = {0, ""};
  CHECK(run_map(&s, path, merges, CF_MERGE_NONE, &r, &err) == 0, "%s", err.msg);
  if (r.proc) {
    check_proc(&r, 4);
    check_positions(&r, &s);
    CHECK(r.proc->n_removed == 2 && r.proc->n_ghosts == 0, "removed %d, ghosts %d", r.proc->n_removed, r.proc->n_ghosts);
  }
  cf_recording_free(&r);
  /* Cells from the map: a mirrored assignment is taken as given. */
  int n = snprintf(text, sizeof text, "%s", merges);
  for (int c = 0; c < 20; c++)
    n += snprintf(text + n, sizeof text - n, "cell %d %d = R%dC%d\n", c / 4, 3 - c % 4, c / 4, c % 4);
  CHECK(run_map(&s, path, text, CF_MERGE_NONE, &r, &err) == 0, "%s", err.msg);
  CHECK(r.proc && !strcmp(r.names[0], "R0C3") && !strcmp(r.names[3], "R0C0") && !strcmp(r.proc->fit.method, "map"),
        "mapped cells: marker 0 '%s'", r.n_markers ? r.names[0] : "");
  cf_recording_free(&r);
  map_error(&s, path, "R1C1 = Nope\n", ":1: no marker 'Nope'");
  map_error(&s, path, "# c\n\nR1C1 = R1C1, R1C2\n", ":3: markers 'R1C1' and 'R1C2' both have a sample");
  map_error(&s, path, "this is not a directive\n", ":1: expected 'TARGET = FRAGMENT");
  map_error(&s, path, "R1C1 = a,,b\n", ":1: expected");
  map_error(&s, path, "cell 9 0 = R0C0\n", ":1: cell 9 0 is outside the 5x4 lattice");
  map_error(&s, path, "cell 0 0 = R0C0\ncell 0 0 = R0C1\n", ":2: cell 0 0 is given twice");
  map_error(&s, path, "cell 0 0 = R0C0\n", "no marker for cell 0 1");
  synth_sheet_free(&s);
}

/* Without merging, the fragments leave too many markers: named. */
static void test_too_many(void) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, T, 0.01, 0, 0, 1);
  cf_recording r;
  cf_error err = {0, ""};
  CHECK(run(&r, &s, 11, 10, CF_MERGE_NONE, 0.25, NULL, &err) == CF_EINVAL && strstr(err.msg, "4 too many") &&
        strstr(err.msg, "'Unlabeled:2002'"), "message: %s", err.msg);
  cf_recording_free(&r);
  synth_sheet_free(&s);
}

/* Two tracks end 2 cm apart and two start nearby: the nearest pair first
 * (B <- S1, 0.9 cm) would leave A without a continuation within 3 cm; the
 * global assignment joins both (A <- S1, B <- S2, 1.1 cm each). */
static void test_competing(void) {
  const char *labels[] = {"A", "B", "S1", "S2"};
  const double at[4] = {0, 0.02, 0.011, 0.031};
  synth_sheet s;
  synth_sheet_make(&s, 2, 2, 30, 0.01, 0, 0, 0);
  cf_recording r;
  synth_recording(&r, &s, 4, (char *const *)labels, NULL);
  for (int i = 0; i < 30; i++)
    for (int k = 0; k < 4; k++) {
      double *p = r.pos + 3 * ((size_t)i * 4 + k);
      if ((k < 2 && i < 10) || (k >= 2 && i >= 12)) p[0] = at[k], p[1] = 0, p[2] = 1;
    }
  cf_marker_opts o;
  cf_marker_opts_default(&o);
  o.merge = CF_MERGE_AUTO;
  cf_error err = {0, ""};
  CHECK(cf_markers_process(&r, &o, 0, &err) == 0, "%s", err.msg);
  CHECK(r.n_markers == 2 && r.proc->n_merged == 2 && strstr(r.proc->merged[0], "A <- S1") &&
        strstr(r.proc->merged[1], "B <- S2"), "competing fragments: %d markers, %s", r.n_markers,
        r.proc && r.proc->n_merged ? r.proc->merged[0] : "no merge");
  CHECK(r.n_markers == 2 && P(&r, 20, 0)[0] == 0.011 && P(&r, 20, 1)[0] == 0.031, "joined samples");
  cf_recording_free(&r);
  synth_sheet_free(&s);
}

/* --------------------------------------------------------- HDF5 and meta */
static void test_h5(const char *dir) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, T, 0.01, 0.1, 0.1, 1);
  cf_recording r, back;
  scenario_stick(&r, &s, 5, 10, 1);
  cf_marker_opts o;
  cf_marker_opts_default(&o);
  o.rows = 5, o.cols = 4;
  snprintf(o.stick, sizeof o.stick, "S1, S2");
  cf_error err = {0, ""};
  char path[1100];
  snprintf(path, sizeof path, "%s/rec.h5", dir);
  CHECK(cf_markers_process(&r, &o, 0.02, &err) == 0, "%s", err.msg);
  CHECK(r.uniform && fabs(r.dt - 0.02) < 1e-15, "resampled to 0.02 s");
  CHECK(cf_recording_write_h5(path, &r, &err) == 0 && cf_recording_read_h5(path, &back, &err) == 0, "%s", err.msg);
  const cf_marker_proc *p = r.proc, *q = back.proc;
  CHECK(q != NULL, "no marker processing read back");
  if (q) {
    CHECK(q->rows == 5 && q->cols == 4 && !memcmp(q->cell, p->cell, sizeof(int) * 40) && !strcmp(q->fit.method, "pca"),
          "lattice");
    CHECK(q->weight && !memcmp(q->weight, p->weight, sizeof(double) * 20), "weights");
    CHECK(q->n_controlled == 2 && q->controlled[1] == 3 && !memcmp(q->filled, p->filled, sizeof(int) * 20), "controlled, filled");
    CHECK(q->stick[0] >= 20 && q->stick[1] >= 20 && !strcmp(back.names[q->stick[0]], "S1") &&
          !strcmp(back.names[q->stick[1]], "S2") && q->stick_radius == 0.0075, "stick %d %d", q->stick[0], q->stick[1]);
    CHECK(q->filled[q->stick[0]] > 0 && !isnan(P(&back, 45, q->stick[0])[0]), "stick gap filled");
    CHECK(q->n_merged == 4 && q->n_ghosts == 2 && !strcmp(q->merged[0], p->merged[0]), "merge records");
    CHECK(q->trim_start_frames == TRIM && q->fit.angle_deg == p->fit.angle_deg, "trim, fit");
  }
  cf_recording_free(&r);
  cf_recording_free(&back);
  remove(path);
  synth_sheet_free(&s);
}

static void test_meta(const char *dir) {
  char path[1100];
  snprintf(path, sizeof path, "%s/meta.ini", dir);
  write_file(path, "; sidecar\nmaterial = denim\nsize = A2\n[meta]\nmotion = shake\nspeed = fast\nrepetition = II\n"
                   "lattice = 5x4\ncontrolled = R0C0, R0C3\nstick = S1,S2\nnotes = hanger\n");
  cf_recording r;
  cf_recording_init(&r);
  cf_marker_opts o;
  cf_marker_opts_default(&o);
  cf_error err = {0, ""};
  CHECK(cf_meta_load(path, &r.meta, &o, &err) == 0, "%s", err.msg);
  CHECK(!strcmp(r.meta.material, "denim") && !strcmp(r.meta.size, "A2") && r.meta.width_m == 0.42 &&
        !strcmp(r.meta.repetition, "II") && o.rows == 5 && o.cols == 4 && !strcmp(o.stick, "S1,S2") &&
        !strcmp(o.controlled, "R0C0, R0C3"), "meta values");
  write_file(path, "material = denim\ncolour = blue\n");
  CHECK(cf_meta_load(path, &r.meta, &o, &err) == CF_EFORMAT && strstr(err.msg, ":2: unknown key 'colour'"), "%s", err.msg);
  write_file(path, "lattice = 5 by 4\n");
  CHECK(cf_meta_load(path, &r.meta, &o, &err) == CF_EFORMAT && strstr(err.msg, ":1: lattice = '5 by 4': expected"),
        "%s", err.msg);
  remove(path);
}

int main(void) {
  cf_runtime_init();
  char dir[] = "/tmp/cf_markers_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  test_auto();
  test_gap_too_long();
  test_map(dir);
  test_too_many();
  test_competing();
  test_h5(dir);
  test_meta(dir);
  char path[1100];
  snprintf(path, sizeof path, "%s/map.txt", dir);
  remove(path);
  rmdir(dir);
  return cf_test_done("test_markers");
}
