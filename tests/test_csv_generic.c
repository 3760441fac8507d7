/* test_csv_generic.c — generic marker CSV files: write/read round trip
 * (exact, so well within 1e-12), header patterns, units and axes; every
 * file of tests/data/malformed_csv (argv[1]) rejected by the reader with a
 * one-line error naming the file, the line and what was wrong, and by
 * `clothfit ingest csv` (argv[2]) with one stderr line and no output file;
 * and `clothfit ingest csv` with marker processing (--meta, --lattice,
 * fragments, a ghost, the stick) end to end, with `clothfit inspect`; the
 * --json lines of both keep a file name and a material with a quote, a
 * backslash, control characters and non-ASCII UTF-8 as they are (valid JSON,
 * parsed back equal), and replace bytes that are not UTF-8. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "cf_common.h"
#include "cf_recording.h"
#include "cli_json.h"
#include "markers_synth.h"
#include "testutil.h"

/* -------------------------------------------------------------- round trip */
static void test_round_trip(const char *dir) {
  const char *names[] = {"C1", "Rigid Body 1:Marker1", "odd, \"quoted\" name"};
  synth_sheet s;
  synth_sheet_make(&s, 2, 2, 50, 1.0 / 120, 0.1, 0.2, 1);
  cf_recording r, back;
  synth_recording(&r, &s, 3, (char *const *)names, NULL);
  for (int k = 0; k < 3; k++) synth_put(&r, &s, k, k, k * 5, 50 - k);
  for (int i = 0; i < 50; i++) r.time[i] = i / 120.0 + 1e-4 * sin(i);
  r.time[0] = 0;
  char path[1100];
  snprintf(path, sizeof path, "%s/rt.csv", dir);
  cf_error err = {0, ""};
  CHECK(cf_csv_write(path, &r, &err) == 0, "%s", err.msg);
  CHECK(cf_csv_read(path, NULL, &back, &err) == 0, "%s", err.msg);
  CHECK(back.n_frames == 50 && back.n_markers == 3 && !strcmp(back.source_kind, "csv"), "shape %d x %d", back.n_frames,
        back.n_markers);
  double worst = 0;
  int nan_bad = 0;
  for (int k = 0; k < 3 && back.n_markers == 3; k++) CHECK(!strcmp(back.names[k], names[k]), "name '%s'", back.names[k]);
  for (size_t i = 0; back.n_markers == 3 && i < 3 * 50 * 3; i++) {
    if (isnan(r.pos[i]) || isnan(back.pos[i])) nan_bad += isnan(r.pos[i]) != isnan(back.pos[i]);
    else worst = fmax(worst, fabs(r.pos[i] - back.pos[i]));
  }
  for (int i = 0; i < back.n_frames; i++) worst = fmax(worst, fabs(r.time[i] - back.time[i]));
  CHECK(worst <= 1e-12 && nan_bad == 0, "round trip: max difference %.3g, %d missing-sample mismatches", worst, nan_bad);
  cf_recording_free(&r);
  cf_recording_free(&back);
  remove(path);
  synth_sheet_free(&s);
}

/* Other patterns, units and axes, from memory. */
static void test_patterns(void) {
  const char *csv = "t,X:a,Y:a,Z:a,z:b,y:b,x:b\n0.5,1,2,3,,,\n0.75,4,5,6,7,8,9\n";
  cf_csv_opts o;
  cf_csv_opts_default(&o);
  o.time_column = "T", o.pattern = "{axis}:{name}", o.unit_scale = 1e-3, o.up = 'y';
  cf_recording r;
  cf_error err = {0, ""};
  CHECK(cf_csv_read_mem(csv, strlen(csv), "mem.csv", &o, &r, &err) == 0, "%s", err.msg);
  if (r.n_markers == 2) {
    const double *b = r.pos + 3 * (2 + 1); /* frame 1, marker b: x 9, y 8, z 7 mm, Y up */
    CHECK(!strcmp(r.names[0], "a") && !strcmp(r.names[1], "b") && isnan(r.pos[3]), "names, missing b at frame 0");
    CHECK(fabs(b[0] - 0.009) < 1e-15 && fabs(b[1] + 0.007) < 1e-15 && fabs(b[2] - 0.008) < 1e-15,
          "mm and y up: %g %g %g", b[0], b[1], b[2]);
    CHECK(fabs(r.time[1] - 0.25) < 1e-15 && fabs(r.time_offset - 0.5) < 1e-15, "times from 0");
  }
  cf_recording_free(&r);
  o.pattern = "{name}";
  CHECK(cf_csv_read_mem(csv, strlen(csv), "mem.csv", &o, &r, &err) == CF_EINVAL && strstr(err.msg, "{axis}"), "%s",
        err.msg);
}

/* --------------------------------------------------------------- malformed */
typedef struct {
  const char *file;
  long line;
  const char *why;
} malformed;

static const malformed cases[] = {
    {"empty.csv", 1, "empty file"},
    {"blank_lines_only.csv", 1, "no header row"},
    {"no_time_column.csv", 1, "no time column 'time'"},
    {"second_time_column.csv", 1, "column 5: a second time column 'Time'"},
    {"bad_header_cell.csv", 1, "column 5: column 'B_w' is neither the time column"},
    {"missing_axis.csv", 1, "marker 'A' has no z column"},
    {"duplicate_column.csv", 1, "column 5: marker 'A' has a second x column"},
    {"no_data_rows.csv", 1, "no data frames after the header row"},
    {"ragged_short.csv", 3, "3 cells, expected 4"},
    {"ragged_long.csv", 4, "5 cells, expected 4"},
    {"non_numeric.csv", 3, "column 3: marker 'A' Y: expected a finite number, found 'abc'"},
    {"nan_cell.csv", 3, "found 'NaN'"},
    {"blank_time.csv", 3, "column 1: time: expected a finite number"},
    {"time_goes_back.csv", 4, "goes back"},
    {"all_blank.csv", 2, "no marker data"},
    {"unterminated_quote.csv", 3, "malformed CSV"},
    {"binary.csv", 2, "binary data (byte 0x00"},
};
static const int n_cases = sizeof cases / sizeof cases[0];

static void test_malformed(const char *data, const char *exe, const char *dir) {
  char path[1100], out[1200], outdir[1100], at[64];
  snprintf(outdir, sizeof outdir, "%s/out", dir);
  snprintf(out, sizeof out, "%s/rec.h5", outdir);
  mkdir(outdir, 0755);
  CHECK(n_cases >= 8 && cf_test_dir_entries(data) == n_cases, "%d cases, %d files in %s", n_cases, cf_test_dir_entries(data), data);
  for (int i = 0; i < n_cases; i++) {
    snprintf(path, sizeof path, "%s/%s", data, cases[i].file);
    snprintf(at, sizeof at, ": line %ld", cases[i].line);
    cf_recording r;
    cf_error err = {0, ""};
    int rc = cf_csv_read(path, NULL, &r, &err);
    CHECK(rc == CF_EFORMAT && strstr(err.msg, path) == err.msg && strstr(err.msg, at) && strstr(err.msg, cases[i].why) &&
          !strchr(err.msg, '\n'), "%s: rc %d, message: %s", cases[i].file, rc, err.msg);
    char *argv[] = {(char *)exe, "ingest", "csv", path, "-o", out, NULL}, *e = NULL;
    int status = cf_test_run(argv, dir, NULL, &e), lines = 0;
    for (const char *c = e; c && *c; c++) lines += *c == '\n';
    CHECK(status > 0 && lines == 1 && e && strstr(e, cases[i].file), "%s: exit %d, stderr: %s", cases[i].file, status,
          e ? e : "");
    CHECK(cf_test_dir_entries(outdir) == 0, "%s: ingest left %d file(s)", cases[i].file, cf_test_dir_entries(outdir));
    free(e);
  }
  rmdir(outdir);
}

/* --------------------------------------------------- ingest csv end to end */
/* A 5x4 sheet in a shuffled order with one marker in two fragments, a
 * ghost and the stick's two endpoints (one with a short gap). */
static void write_scene(const char *path) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, 240, 1.0 / 120, 0.15, -0.25, 1);
  char buf[26][16], *labels[26];
  int perm[26];
  unsigned long long seed = 2024;
  for (int l = 0; l < 26; l++) labels[l] = buf[l];
  for (int c = 0; c < 20; c++) snprintf(buf[c], 16, "R%dC%d", (c / 4) % 8, c % 4);
  strcpy(buf[20], "Frag"), strcpy(buf[21], "Ghost"), strcpy(buf[22], "S1"), strcpy(buf[23], "S2");
  synth_shuffle(perm, 24, &seed);
  cf_recording r;
  synth_recording(&r, &s, 24, labels, perm);
  for (int c = 0; c < 20; c++) synth_put(&r, &s, perm[c], c, 0, c == 6 ? 100 : 240);
  synth_put(&r, &s, perm[20], 6, 104, 240);
  synth_put(&r, &s, perm[21], 0, 30, 60);
  synth_put(&r, &s, perm[22], 16, 0, 120), synth_put(&r, &s, perm[22], 16, 125, 240);
  synth_put(&r, &s, perm[23], 19, 0, 240);
  for (int i = 0; i < 240; i++) {
    double *g = r.pos + 3 * ((size_t)i * 24 + perm[21]), *s1 = r.pos + 3 * ((size_t)i * 24 + perm[22]);
    double *s2 = r.pos + 3 * ((size_t)i * 24 + perm[23]);
    g[0] += 2.0, s1[1] -= 0.5, s2[1] -= 0.5;
  }
  cf_error err = {0, ""};
  CHECK(cf_csv_write(path, &r, &err) == 0, "%s", err.msg);
  cf_recording_free(&r);
  synth_sheet_free(&s);
}

static void check_ingested(const char *path) {
  cf_recording r;
  cf_error err = {0, ""};
  CHECK(cf_recording_read_h5(path, &r, &err) == 0, "%s", err.msg);
  const cf_marker_proc *p = r.proc;
  CHECK(p && p->rows == 5 && p->cols == 4 && r.n_markers == 22, "lattice 5x4 and 22 markers (%d)", r.n_markers);
  if (!p || r.n_markers != 22) return cf_recording_free(&r);
  CHECK(!strcmp(r.names[6], "R1C2") && !strcmp(r.names[19], "R4C3"), "lattice order: %s %s", r.names[6], r.names[19]);
  CHECK(p->n_merged == 1 && strstr(p->merged[0], "R1C2 <- Frag") && p->n_ghosts == 1 && !strcmp(p->ghosts[0], "Ghost"),
        "merged %d, ghosts %d", p->n_merged, p->n_ghosts);
  CHECK(!strcmp(r.meta.material, "denim") && fabs(r.meta.density - 0.3046) < 1e-12 && !strcmp(r.meta.speed, "slow") &&
        !strcmp(r.meta.motion, "shake") && r.meta.width_m == 0.42, "meta: %s %g %s %s", r.meta.material,
        r.meta.density, r.meta.speed, r.meta.motion);
  CHECK(p->stick[0] >= 20 && p->filled[p->stick[0]] > 0 && p->n_controlled == 2 && r.uniform && fabs(r.dt - 0.01) < 1e-15,
        "stick, controlled, dt");
  cf_recording_free(&r);
}

/* DIR/STEM.csv (the scene), DIR/STEM.ini (holding meta_text) and the
 * output path DIR/STEM.h5, each into a buffer of 1100. */
static void scene_files(const char *dir, const char *stem, const char *meta_text, char *csv, char *meta, char *out) {
  snprintf(csv, 1100, "%s/%s.csv", dir, stem);
  snprintf(meta, 1100, "%s/%s.ini", dir, stem);
  snprintf(out, 1100, "%s/%s.h5", dir, stem);
  write_scene(csv);
  FILE *f = fopen(meta, "w");
  if (f) fputs(meta_text, f), fclose(f);
}

static void test_ingest(const char *exe, const char *dir) {
  char csv[1100], meta[1100], out[1100];
  scene_files(dir, "scene", "material = denim\nsize = A2\nmotion = shake\nspeed = fast\nlattice = 5x4\nstick = S1, S2\n",
              csv, meta, out);
  char *argv[] = {(char *)exe, "ingest", "csv", csv, "-o", out, "--meta", meta, "--speed", "slow", "--json", NULL};
  char *o = NULL, *e = NULL;
  int status = cf_test_run(argv, dir, &o, &e);
  CHECK(status == 0, "ingest: exit %d: %s", status, e ? e : "");
  CHECK(o && strstr(o, "lattice           5x4 (pca") && cf_test_json_is(cf_test_last_line(o), "ghosts", "[\"Ghost\"]"),
        "ingest output: %s", o ? o : "");
  free(o), free(e);
  check_ingested(out);
  char *inspect[] = {(char *)exe, "inspect", out, "--json", NULL};
  status = cf_test_run(inspect, dir, &o, &e);
  const char *j = cf_test_last_line(o);
  CHECK(status == 0 && o && cf_test_json_num(j, "lattice.rows") == 5 && cf_test_json_num(j, "lattice.cols") == 4 &&
            cf_test_json_has_str(j, "lattice.method", "pca") && cf_test_json_has_str(j, "markers.0.name", "R0C0") &&
            cf_test_json_num(j, "markers.0.missing_fraction") == 0 && cf_test_json_num(j, "markers.0.longest_gap_s") == 0 &&
            cf_test_json_is(j, "markers.0.cell", "[0,0]") && strstr(o, "merged fragments  1") &&
            strstr(o, "controlled        R0C0, R0C3"),
        "inspect: %s %s", o ? o : "", e ? e : "");
  free(o), free(e);
  remove(csv), remove(meta), remove(out);
}

/* The table of a recording (/table): from --meta or the options,
 * in the file and in inspect; half a table, a reversed extent, a malformed
 * meta key and a malformed /table are one-line errors, and no file is
 * written. */
static void test_table(const char *exe, const char *dir) {
  char csv[1100], meta[1100], out[1100];
  scene_files(dir, "tab", "lattice = 5x4\ntable_height = 0.75\ntable_extent = -1, 1, -0.5, 0.25\n", csv, meta, out);
  char *ok[] = {(char *)exe, "ingest", "csv", csv, "-o", out, "--meta", meta, NULL}, *o = NULL, *e = NULL;
  int status = cf_test_run(ok, dir, &o, &e);
  CHECK(status == 0, "ingest with a table: exit %d: %s", status, e ? e : "");
  free(o), free(e);
  cf_recording r;
  cf_error err = {0, ""};
  const double want[5] = {0.75, -1, 1, -0.5, 0.25};
  if (cf_recording_read_h5(out, &r, &err) == CF_OK) {
    CHECK(!memcmp(r.meta.table, want, sizeof want), "/table read back: %g %g %g %g %g", r.meta.table[0],
          r.meta.table[1], r.meta.table[2], r.meta.table[3], r.meta.table[4]);
    cf_recording_free(&r);
  } else {
    CHECK(0, "%s", err.msg);
  }
  char *in[] = {(char *)exe, "inspect", out, "--json", NULL};
  status = cf_test_run(in, dir, &o, &e);
  CHECK(status == 0 && cf_test_json_is(cf_test_last_line(o), "meta.table", "{\"height\":0.75,\"extent\":[-1,1,-0.5,0.25]}"),
        "inspect: %s", o ? o : "");
  free(o), free(e);
  /* a malformed /table: extent with 3 values */
  hid_t h = H5Fopen(out, H5F_ACC_RDWR, H5P_DEFAULT), g = h < 0 ? -1 : H5Gopen2(h, "table", H5P_DEFAULT);
  if (g >= 0) {
    H5Adelete(g, "extent");
    hsize_t d = 3;
    hid_t sp = H5Screate_simple(1, &d, NULL), a = H5Acreate2(g, "extent", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, want);
    H5Aclose(a), H5Sclose(sp), H5Gclose(g);
  }
  if (h >= 0) H5Fclose(h);
  CHECK(cf_recording_read_h5(out, &r, &err) == CF_EFORMAT && strstr(err.msg, "/table: expected attributes height"),
        "malformed /table: %s", err.msg);
  remove(out);
  struct {
    const char *opt1, *val1, *opt2, *val2, *meta, *needle;
  } bad[] = {{"--table-height", "0.8", NULL, NULL, NULL, "a table needs both its height"},
             {"--table-height", "0.8", "--table-extent", "1,-1,0,1", NULL, "invalid value '1,-1,0,1' for --table-extent"},
             {"--table-extent", "0,1,0", NULL, NULL, NULL, "invalid value '0,1,0' for --table-extent"},
             {NULL, NULL, NULL, NULL, "table_extent = 0, 1, 2, 1\n", "tab.ini:1: table_extent = '0, 1, 2, 1': expected"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char *argv[16] = {(char *)exe, "ingest", "csv", csv, "-o", out, "--lattice", "5x4"};
    int n = 8;
    if (bad[k].opt1) argv[n++] = (char *)bad[k].opt1, argv[n++] = (char *)bad[k].val1;
    if (bad[k].opt2) argv[n++] = (char *)bad[k].opt2, argv[n++] = (char *)bad[k].val2;
    if (bad[k].meta) {
      FILE *f = fopen(meta, "w");
      fputs(bad[k].meta, f);
      fclose(f);
      argv[n++] = "--meta", argv[n++] = meta;
    }
    argv[n] = NULL;
    status = cf_test_run(argv, dir, &o, &e);
    CHECK(status != 0 && e && strstr(e, bad[k].needle) && access(out, F_OK) != 0, "table case %zu: exit %d, %s", k,
          status, e ? e : "");
    free(o), free(e);
  }
  remove(csv), remove(meta), remove(out);
}

/* A file name and a material with a quote, a backslash, control characters
 * and UTF-8 (ä, the euro sign, an emoji) come out of ingest --json and
 * inspect --json as they are; a byte that is not UTF-8 becomes U+FFFD. */
static void test_json_strings(const char *exe, const char *dir) {
  const char *odd = "q\"b\\s\x01\t\xc3\xa4\xe2\x82\xac\xf0\x9f\xa7\xb5", *material = "wool \"A\" \\ \x01\n\xc3\xa4\xe2\x82\xac";
  char csv[1100], meta[1100], out[1100], bad[1100], bad_utf8[1100];
  scene_files(dir, odd, "lattice = 5x4\n", csv, meta, out);
  char *argv[] = {(char *)exe, "ingest", "csv", csv, "-o", out, "--meta", meta, "--material", (char *)material, "--json",
                  NULL};
  char *o = NULL, *e = NULL;
  int status = cf_test_run(argv, dir, &o, &e);
  const char *j = cf_test_last_line(o);
  CHECK(status == 0 && cf_test_json_valid(j) && cf_test_json_has_str(j, "output", out) &&
            cf_test_json_has_str(j, "source", csv),
        "ingest --json of %s: exit %d: %s %s", out, status, j, e ? e : "");
  free(o), free(e);
  char *in[] = {(char *)exe, "inspect", out, "--json", NULL};
  status = cf_test_run(in, dir, &o, &e);
  j = cf_test_last_line(o);
  CHECK(status == 0 && cf_test_json_has_str(j, "file", out) && cf_test_json_has_str(j, "meta.material", material),
        "inspect --json of %s: exit %d: %s %s", out, status, j, e ? e : "");
  free(o), free(e);
  snprintf(bad, sizeof bad, "%s/bad\xff\xc3.h5", dir);
  snprintf(bad_utf8, sizeof bad_utf8, "%s/bad\xef\xbf\xbd\xef\xbf\xbd.h5", dir);
  argv[5] = bad;
  status = cf_test_run(argv, dir, &o, &e);
  j = cf_test_last_line(o);
  CHECK(status == 0 && cf_test_json_has_str(j, "output", bad_utf8), "ingest -o %s --json: exit %d: %s %s", bad, status,
        j, e ? e : "");
  free(o), free(e);
  remove(csv), remove(meta), remove(out), remove(bad);
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 3) {
    fprintf(stderr, "usage: %s MALFORMED_CSV_DIR CLOTHFIT_EXE\n", argv[0]);
    return 2;
  }
  char dir[] = "/tmp/cf_csv_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  test_round_trip(dir);
  test_patterns();
  test_malformed(argv[1], argv[2], dir);
  test_ingest(argv[2], dir);
  test_table(argv[2], dir);
  test_json_strings(argv[2], dir);
  rmdir(dir);
  return cf_test_done("test_csv_generic");
}
