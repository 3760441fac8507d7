/* test_motive_samples.c — the Motive reader on the real exports in
 * tests/data/motive-samples (argv[1]; sources and licenses in its README.md)
 * and on small in-memory files for the other header variants; resampling;
 * the HDF5 recording round trip.
 * Expected values come from an independent, naive parse of the CSV here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_common.h"
#include "cf_io.h"
#include "cli_json.h"
#include "testutil.h"

/* ------------------------------------------------ a naive CSV table reader */
typedef struct {
  int n_rows;
  int n_cells[400];
  char *cells[400][64];
} table;

/* Lines first..first+max-1 (1-based) of path, split at every comma. */
static int read_table(const char *path, int first, table *t) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char *line = NULL;
  size_t cap = 0;
  int no = 0;
  memset(t, 0, sizeof *t);
  while (getline(&line, &cap, f) > 0 && t->n_rows < 400) {
    if (++no < first) continue;
    line[strcspn(line, "\r\n")] = 0;
    int r = t->n_rows++, c = 0;
    for (char *s = line, *e;; s = e + 1) {
      e = strchr(s, ',');
      if (e) *e = 0;
      if (c < 64) t->cells[r][c++] = strdup(s);
      if (!e) break;
    }
    t->n_cells[r] = c;
  }
  free(line);
  fclose(f);
  return 1;
}

static void free_table(table *t) {
  for (int r = 0; r < t->n_rows; r++)
    for (int c = 0; c < t->n_cells[r]; c++) free(t->cells[r][c]);
}

static int find_col(const table *names, const char *name) {
  for (int c = 0; c < names->n_cells[0]; c++)
    if (!strcmp(names->cells[0][c], name)) return c;
  return -1;
}

/* Motive Y-up (x, y, z) of data row r at column c, mapped to Z-up. */
static void expected_pos(const table *d, int r, int c, double *p) {
  double x = atof(d->cells[r][c]), y = atof(d->cells[r][c + 1]), z = atof(d->cells[r][c + 2]);
  p[0] = x, p[1] = -z, p[2] = y;
}

static int find_marker(const cf_recording *r, const char *name) {
  for (int k = 0; k < r->n_markers; k++)
    if (!strcmp(r->names[k], name)) return k;
  return -1;
}

static const double *P(const cf_recording *r, int i, int k) { return r->pos + 3 * ((size_t)r->n_markers * i + k); }

/* ------------------------------------------------------ the 1.21 sample */
static const char *labelled[] = {"Unlabeled:108", "Unlabeled:110", "Unlabeled:111", "Rigid Body 1:Marker1",
                                 "Rigid Body 1:Marker2", "Rigid Body 1:Marker3"};

static void test_121_native(const char *path) {
  table names, d;
  CHECK(read_table(path, 4, &names) && read_table(path, 8, &d), "cannot read %s", path);
  cf_recording r;
  cf_error err = {0, ""};
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  int rc = cf_motive_read(path, &o, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  CHECK(r.n_frames == 250 && d.n_rows == 250, "frames %d (csv %d)", r.n_frames, d.n_rows);
  CHECK(r.n_markers == 6, "markers %d", r.n_markers);
  CHECK(r.n_dropped == 3 && !strcmp(r.dropped[0], "Unlabeled:105"), "dropped %d", r.n_dropped);
  CHECK(fabs(r.unit_scale - 1) < 1e-15 && r.up == 'y' && !r.uniform, "scale %g", r.unit_scale);
  for (int i = 0; i < r.n_frames && i < d.n_rows; i++)
    CHECK(fabs(r.time[i] - (atof(d.cells[i][1]) - atof(d.cells[0][1]))) < 1e-12, "time %d: %.9f", i, r.time[i]);
  CHECK(fabs(r.dt - 0.008333) < 2e-6, "dt %g", r.dt);
  int frames[] = {0, 1, 57, 123, 200, 249};
  for (int m = 0; m < 6; m++) {
    int k = find_marker(&r, labelled[m]), c = find_col(&names, labelled[m]);
    CHECK(k == m && c > 1, "marker %s at %d, column %d", labelled[m], k, c);
    for (int f = 0; k >= 0 && c > 1 && f < 6; f++) {
      double e[3];
      expected_pos(&d, frames[f], c, e);
      for (int a = 0; a < 3; a++)
        CHECK(fabs(P(&r, frames[f], k)[a] - e[a]) < 1e-12, "%s frame %d axis %d: %.9f vs %.9f", labelled[m],
              frames[f], a, P(&r, frames[f], k)[a], e[a]);
    }
  }
  cf_recording_free(&r);
  free_table(&names);
  free_table(&d);
}

static void test_121_options(const char *path) {
  cf_recording r;
  cf_error err = {0, ""};
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  o.keep_unseen = 1;
  CHECK(cf_motive_read(path, &o, &r, &err) == CF_OK, "%s", err.msg);
  CHECK(r.n_markers == 9 && r.n_dropped == 0, "keep_unseen: %d markers", r.n_markers);
  int k = find_marker(&r, "Unlabeled:106"), blanks = 0;
  for (int i = 0; k >= 0 && i < r.n_frames; i++) blanks += isnan(P(&r, i, k)[0]) && isnan(P(&r, i, k)[2]);
  CHECK(k >= 0 && blanks == r.n_frames, "blank cells must be NaN (%d of %d)", blanks, r.n_frames);
  cf_recording_free(&r);
  o.keep_unseen = 0;
  o.rigid_bodies = 1;
  CHECK(cf_motive_read(path, &o, &r, &err) == CF_OK, "%s", err.msg);
  CHECK(r.n_markers == 10 && find_marker(&r, "Rigid Body 1") >= 0 && find_marker(&r, "Rigid Body 1_2") >= 0,
        "rigid bodies: %d markers", r.n_markers);
  cf_recording_free(&r);
}

/* With the default dt every frame is the linear interpolation of the two
 * bracketing file samples (computed here from the raw CSV). */
static void test_121_resampled(const char *path) {
  table names, d;
  read_table(path, 4, &names);
  read_table(path, 8, &d);
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_motive_read(path, NULL, &r, &err);
  if (!rc) rc = cf_recording_resample(&r, 0.01, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  CHECK(r.n_frames == 208 && r.uniform && r.dt == 0.01, "resampled frames %d", r.n_frames);
  int worst = 0;
  for (int i = 0; i < r.n_frames; i++) {
    double t = 0.01 * i;
    CHECK(fabs(r.time[i] - t) < 1e-12, "time %d", i);
    int j = 0;
    while (j + 1 < d.n_rows && atof(d.cells[j + 1][1]) <= t + 1e-11) j++;
    double t0 = atof(d.cells[j][1]), t1 = j + 1 < d.n_rows ? atof(d.cells[j + 1][1]) : t0;
    double w = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
    for (int m = 0; m < 6; m++) {
      double a[3], b[3];
      int c = find_col(&names, labelled[m]);
      expected_pos(&d, j, c, a);
      expected_pos(&d, j + 1 < d.n_rows ? j + 1 : j, c, b);
      for (int x = 0; x < 3; x++) worst += fabs(P(&r, i, m)[x] - (a[x] + w * (b[x] - a[x]))) > 1e-12;
    }
  }
  CHECK(worst == 0, "%d interpolated values differ from the file's linear interpolation", worst);
  cf_recording_free(&r);
  free_table(&names);
  free_table(&d);
}

static void test_123_no_assets(const char *path) {
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_motive_read(path, NULL, &r, &err);
  CHECK(rc == CF_EFORMAT && strstr(err.msg, "no markers") && strstr(err.msg, path) && strstr(err.msg, "line 3"),
        "1.23 without assets: rc %d, %s", rc, err.msg);
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  o.allow_empty = 1;
  rc = cf_motive_read(path, &o, &r, &err);
  CHECK(rc == CF_OK && r.n_markers == 0 && r.n_frames == 1353, "allow_empty: rc %d (%s), %d frames", rc,
        err.msg, r.n_frames);
  CHECK(rc || fabs(r.unit_scale - 1e-3) < 1e-18, "millimetres: scale %g", r.unit_scale);
  if (!rc) cf_recording_free(&r);
}

/* ------------------------------------------- header variants, from memory */
/* 1.24 with a TimeCode column, a 1.25 Parent row, centimetres, CRLF + BOM,
 * an unlabelled marker named "Unlabeled 1036", blanks, Z-up identity. */
static const char *v124 =
    "\xef\xbb\xbf"
    "Format Version,1.24,Take Name,t,Capture Frame Rate,100,Export Frame Rate,100,Total Exported Frames,5,"
    "Rotation Type,Quaternion,Length Units,Centimeters,Coordinate Space,Global\r\n"
    "\r\n"
    ",Type,,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Marker,Marker,Marker,"
    "Marker,Marker,Marker\r\n"
    ",Name,,RB,RB,RB,RB,RB,RB,RB,P1,P1,P1,Unlabeled 1036,Unlabeled 1036,Unlabeled 1036\r\n"
    ",ID,,1,1,1,1,1,1,1,2,2,2,3,3,3\r\n"
    ",Parent,,,,,,,,,RB,RB,RB,,,\r\n"
    ",,,Rotation,Rotation,Rotation,Rotation,Position,Position,Position,Position,Position,Position,Position,"
    "Position,Position\r\n"
    "Frame,Time (Seconds),TimeCode,X,Y,Z,W,X,Y,Z,X,Y,Z,X,Y,Z\r\n"
    "0,0.000000,00:00:00:00.0,0,0,0,1,0,0,0,10,20,30,1,2,3\r\n"
    "1,0.010000,00:00:00:01.0,0,0,0,1,0,0,0,11,21,31,1,2,3\r\n"
    "2,0.020000,00:00:00:02.0,0,0,0,1,0,0,0,,,,1,2,3\r\n"
    "3,0.030000,00:00:00:03.0,0,0,0,1,0,0,0,13,23,33,,,\r\n"
    "4,0.040000,00:00:00:04.0,0,0,0,1,0,0,0,14,24,34,,,";

static void test_v124(void) {
  cf_recording r;
  cf_error err = {0, ""};
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  o.up = 'z';
  int rc = cf_motive_read_mem(v124, strlen(v124), "v124.csv", &o, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  CHECK(r.n_frames == 5 && r.n_markers == 2, "%d frames, %d markers", r.n_frames, r.n_markers);
  CHECK(!strcmp(r.names[0], "P1") && !strcmp(r.names[1], "Unlabeled 1036"), "names %s, %s", r.names[0],
        r.names[1]);
  CHECK(fabs(P(&r, 1, 0)[0] - 0.11) < 1e-15 && fabs(P(&r, 1, 0)[2] - 0.31) < 1e-15, "cm -> m, identity axes");
  CHECK(isnan(P(&r, 2, 0)[0]) && isnan(P(&r, 3, 1)[1]) && !isnan(P(&r, 2, 1)[0]), "blanks are NaN");
  cf_marker_quality q = cf_recording_quality(&r, 1);
  CHECK(fabs(q.missing_fraction - 0.4) < 1e-15 && q.longest_gap_frames == 2 && fabs(q.longest_gap_s - 0.02) < 1e-15,
        "quality: missing %g, gap %d frames %g s", q.missing_fraction, q.longest_gap_frames, q.longest_gap_s);
  CHECK(r.n_info >= 7 && !strcmp(r.info[0].key, "Format Version") && !strcmp(r.info[0].value, "1.24"),
        "metadata pairs: %d", r.n_info);
  /* dt 0.005: a marker missing at either bracketing sample stays missing;
   * on a sample's own time the sample alone counts. */
  rc = cf_recording_resample(&r, 0.005, &err);
  CHECK(rc == CF_OK && r.n_frames == 9, "resample: %d frames, %s", r.n_frames, err.msg);
  CHECK(fabs(P(&r, 1, 0)[1] - 0.205) < 1e-15, "midpoint 0.005: %.17g", P(&r, 1, 0)[1]);
  CHECK(fabs(P(&r, 2, 0)[1] - 0.21) < 1e-15, "on sample 0.01");
  CHECK(isnan(P(&r, 3, 0)[0]) && isnan(P(&r, 4, 0)[0]) && isnan(P(&r, 5, 0)[0]), "gap around 0.02 stays NaN");
  CHECK(fabs(P(&r, 6, 0)[2] - 0.33) < 1e-15 && fabs(P(&r, 7, 0)[2] - 0.335) < 1e-15, "after the gap");
  CHECK(fabs(P(&r, 4, 1)[0] - 0.01) < 1e-15 && isnan(P(&r, 5, 1)[0]) && isnan(P(&r, 6, 1)[0]),
        "marker 2: sample at 0.02, NaN from 0.025");
  cf_recording_free(&r);
}

/* Y-up mapping (x, y, z) = (x_M, -z_M, y_M) on a millimetre file. */
static void test_up_y(void) {
  const char *f =
      "Format Version,1.23,Length Units,Millimeters\n\n,Type,Marker,Marker,Marker\n,Name,A,A,A\n,ID,1,1,1\n"
      ",,Position,Position,Position\nFrame,Time (Seconds),X,Y,Z\n0,0.5,1,2,3\n1,0.6,4,5,6\n";
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_motive_read_mem(f, strlen(f), "up.csv", NULL, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  const double *p = P(&r, 0, 0);
  CHECK(fabs(p[0] - 0.001) < 1e-15 && fabs(p[1] + 0.003) < 1e-15 && fabs(p[2] - 0.002) < 1e-15, "y-up mapping");
  CHECK(r.time[0] == 0 && fabs(r.time[1] - 0.1) < 1e-15 && r.time_offset == 0.5, "time starts at 0");
  cf_recording_free(&r);
}

/* ------------------------------------------------------ HDF5 round trip */
static int same_double(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void compare(const cf_recording *a, const cf_recording *b) {
  CHECK(a->n_frames == b->n_frames && a->n_markers == b->n_markers, "shape %dx%d vs %dx%d", a->n_frames,
        a->n_markers, b->n_frames, b->n_markers);
  if (a->n_frames != b->n_frames || a->n_markers != b->n_markers) return;
  int bad = 0;
  for (size_t i = 0; i < 3 * (size_t)a->n_frames * a->n_markers; i++) bad += !same_double(a->pos[i], b->pos[i]);
  for (int i = 0; i < a->n_frames; i++) bad += a->time[i] != b->time[i];
  for (int k = 0; k < a->n_markers; k++) bad += strcmp(a->names[k], b->names[k]) != 0;
  CHECK(bad == 0, "%d values differ after the round trip", bad);
  CHECK(a->dt == b->dt && a->uniform == b->uniform && a->up == b->up && a->unit_scale == b->unit_scale,
        "dt/uniform/up/scale");
  CHECK(!strcmp(a->source_kind, b->source_kind) && !strcmp(a->source_file, b->source_file) &&
            !strcmp(a->source_sha256, b->source_sha256) && !strcmp(a->created, b->created),
        "root attributes");
  CHECK(!strcmp(a->meta.material, b->meta.material) && !strcmp(a->meta.size, b->meta.size) &&
            a->meta.width_m == b->meta.width_m && same_double(a->meta.density, b->meta.density) &&
            !strcmp(a->meta.repetition, b->meta.repetition),
        "meta");
  CHECK(a->n_info == b->n_info && a->n_dropped == b->n_dropped, "info %d/%d, dropped %d/%d", a->n_info, b->n_info,
        a->n_dropped, b->n_dropped);
  for (int i = 0; i < a->n_info && i < b->n_info; i++)
    CHECK(!strcmp(a->info[i].key, b->info[i].key) && !strcmp(a->info[i].value, b->info[i].value), "info %d", i);
}

static void test_h5_roundtrip(const char *path) {
  char dir[] = "/tmp/cf_motive_XXXXXX", out[256];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(out, sizeof out, "%s/sub/rec.h5", dir);
  cf_recording r, back;
  cf_error err = {0, ""};
  int rc = cf_motive_read(path, NULL, &r, &err);
  if (!rc) rc = cf_recording_resample(&r, 0.01, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  CHECK(cf_sha256_file(path, r.source_sha256, &err) == CF_OK && strlen(r.source_sha256) == 64, "sha256: %s",
        err.msg);
  snprintf(r.meta.material, sizeof r.meta.material, "wool");
  snprintf(r.meta.size, sizeof r.meta.size, "A2");
  r.meta.width_m = 0.42, r.meta.density = 0.1804;
  snprintf(r.meta.repetition, sizeof r.meta.repetition, "II");
  rc = cf_recording_write_h5(out, &r, &err);
  CHECK(rc == CF_OK, "write: %s", err.msg);
  rc = rc ? rc : cf_recording_read_h5(out, &back, &err);
  CHECK(rc == CF_OK, "read: %s", err.msg);
  if (!rc) {
    compare(&r, &back);
    cf_recording_free(&back);
  }
  CHECK(cf_recording_read_h5(path, &back, &err) == CF_EIO, "a CSV is not an HDF5 recording: %s", err.msg);
  cf_recording_free(&r);
  remove(out);
  snprintf(out, sizeof out, "%s/sub", dir);
  rmdir(out);
  rmdir(dir);
}

/* ------------------------------------------------------ trimmed exports */
/* Researchers cut takes to the part they need: the header lines of path
 * (through the 'Frame' row), then its data rows without the first `head`
 * and the last `tail`; with cut_last, the next row cut at a comma before
 * its middle (no newline). */
static int write_trimmed(const char *path, const char *out, int head, int tail, int cut_last) {
  size_t len;
  char *s = cf_test_slurp(path, &len);
  FILE *f = s ? fopen(out, "wb") : NULL;
  if (!f) return free(s), 0;
  char *line[2000];
  int n = 0, frame = -1;
  for (char *p = s; p < s + len && n < 2000; n++) {
    line[n] = p;
    if (frame < 0 && !strncmp(p, "Frame,", 6)) frame = n;
    char *nl = memchr(p, '\n', s + len - p);
    p = nl ? nl + 1 : s + len;
  }
  line[n] = s + len;
  for (int i = 0; i < n; i++)
    if (i <= frame || (i > frame + head && i < n - tail)) fwrite(line[i], 1, line[i + 1] - line[i], f);
  size_t half = cut_last ? (line[n - tail + 1] - line[n - tail]) / 2 : 0;
  while (half > 0 && line[n - tail][half] != ',') half--; /* at a comma: fewer cells for sure */
  fwrite(line[n - tail], 1, half, f);
  fclose(f);
  free(s);
  return frame > 0;
}

/* `clothfit ingest motive` of path into out (--dt native, args), its status;
 * stderr in *err (malloc'ed). */
static int ingest(const char *exe, const char *dir, const char *path, const char *out, const char *a1,
                  const char *a2, char **err) {
  char *argv[] = {(char *)exe, "ingest", "motive", (char *)path, "-o", (char *)out, "--dt", "native",
                  (char *)a1, (char *)a2, NULL};
  return cf_test_run(argv, dir, NULL, err);
}

/* The trimmed recording's frame i is the whole one's frame i + 20: same
 * source time, same positions (bit for bit) of every marker it has. */
static void compare_trimmed(const cf_recording *t, const cf_recording *w, int head) {
  CHECK(t->n_frames + head + 30 == w->n_frames, "frames: trimmed %d, whole %d", t->n_frames, w->n_frames);
  int bad = 0, n = t->n_frames + head <= w->n_frames ? t->n_frames : 0;
  for (int i = 0; i < n; i++) bad += fabs(t->time[i] + t->time_offset - w->time[i + head] - w->time_offset) > 1e-12;
  for (int k = 0; k < t->n_markers; k++) {
    int kw = find_marker(w, t->names[k]);
    CHECK(kw >= 0, "marker %s of the trimmed recording is not in the whole one", t->names[k]);
    for (int i = 0; kw >= 0 && i < n; i++)
      for (int a = 0; a < 3; a++) {
        double x = P(t, i, k)[a], y = P(w, i + head, kw)[a];
        bad += !(x == y || (isnan(x) && isnan(y)));
      }
  }
  CHECK(bad == 0, "%d times or coordinates of the trimmed recording differ from the whole one's", bad);
  for (int k = 0; k < w->n_markers; k++) {
    int seen = 0;
    for (int i = head; i < head + n; i++) seen |= !isnan(P(w, i, k)[0]);
    CHECK(!seen || find_marker(t, w->names[k]) >= 0, "marker %s is missing from the trimmed recording", w->names[k]);
  }
}

static void check_export(const char *h5, int expected, int found, int first, int edited) {
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_recording_read_h5(h5, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  const cf_rec_export *x = &r.exported;
  CHECK(x->known && x->frames_expected == expected && x->frames_found == found && x->first_frame_number == first &&
            x->frame_jumps == 0 && x->edited == edited,
        "%s /quality: known %d, expected %d, found %d, first %d, jumps %d, edited %d", h5, x->known,
        x->frames_expected, x->frames_found, x->first_frame_number, x->frame_jumps, x->edited);
  cf_recording_free(&r);
}

static void check_inspect(const char *exe, const char *dir, const char *h5, int found) {
  char *argv[] = {(char *)exe, "inspect", (char *)h5, "--json", NULL}, want[200];
  char *out = NULL;
  int st = cf_test_run(argv, dir, &out, NULL);
  snprintf(want, sizeof want, "{\"frames_expected\":%d,\"frames_found\":%d,\"first_frame_number\":20,"
           "\"frame_jumps\":0,\"edited_export\":true}", found + 50, found);
  CHECK(st == 0 && out && strstr(out, "EDITED (trimmed or cut) export") &&
            cf_test_json_is(cf_test_last_line(out), "export", want),
        "inspect %s: status %d, stdout %s", h5, st, out ? out : "");
  free(out);
}

/* Drop the first 20 and the last 30 data rows of a real export: it loads
 * with one warning line, /quality records it, the data are those rows of
 * the whole file; --strict refuses it with the message of before, and a
 * cut last row is an error either way.  No output is left on failure. */
static void test_trimmed(const char *exe, const char *path, int frames, const char *a1, const char *a2) {
  char dir[] = "/tmp/cf_trim_XXXXXX", csv[256], cut[256], h5[256], whole[256], outdir[256], bad_h5[300];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(csv, sizeof csv, "%s/trimmed.csv", dir), snprintf(cut, sizeof cut, "%s/cut.csv", dir);
  snprintf(h5, sizeof h5, "%s/trimmed.h5", dir), snprintf(whole, sizeof whole, "%s/whole.h5", dir);
  snprintf(outdir, sizeof outdir, "%s/out", dir), snprintf(bad_h5, sizeof bad_h5, "%s/rec.h5", outdir);
  mkdir(outdir, 0755);
  CHECK(write_trimmed(path, csv, 20, 30, 0) && write_trimmed(path, cut, 20, 30, 1), "cannot cut %s", path);
  char *err = NULL, want[600];
  int found = frames - 50, st = ingest(exe, dir, csv, h5, a1, a2, &err);
  snprintf(want, sizeof want, "clothfit ingest: warning: %s: edited export: %d data frames, but the metadata row "
           "says Total Exported Frames %d; first frame number 20, not 0: loaded as it is", csv, found, frames);
  CHECK(st == 0 && err && strstr(err, want) == err && strchr(err, '\n') == err + strlen(err) - 1,
        "trimmed %s: status %d, stderr %s", path, st, err ? err : "");
  free(err);
  st = ingest(exe, dir, path, whole, a1, a2, &err);
  CHECK(st == 0 && err && !*err, "whole %s: status %d, stderr %s", path, st, err ? err : "");
  free(err);
  check_export(h5, frames, found, 20, 1);
  check_export(whole, frames, frames, 0, 0);
  check_inspect(exe, dir, h5, found);
  cf_recording t, w;
  cf_error e = {0, ""};
  if (!cf_recording_read_h5(h5, &t, &e)) {
    if (!cf_recording_read_h5(whole, &w, &e)) {
      CHECK(t.n_markers == w.n_markers, "markers: trimmed %d, whole %d", t.n_markers, w.n_markers);
      compare_trimmed(&t, &w, 20);
      cf_recording_free(&w);
    }
    cf_recording_free(&t);
  }
  CHECK(!e.code, "%s", e.msg);
  /* --strict: the refusal and message of before (line: the last data row) */
  st = ingest(exe, dir, csv, bad_h5, "--strict", a1, &err);
  snprintf(want, sizeof want, "clothfit ingest: %s: line %d: %d data frames, but the metadata row says Total "
           "Exported Frames %d (truncated or edited export?)\n", csv, 7 + found, found, frames);
  CHECK(st != 0 && err && !strcmp(err, want), "--strict %s: status %d, stderr %s", path, st, err ? err : "");
  free(err);
  CHECK(cf_test_dir_entries(outdir) == 0, "--strict left %d file(s)", cf_test_dir_entries(outdir));
  /* a last row cut in the middle: fewer cells than the header */
  for (int strict = 0; strict < 2; strict++) {
    st = ingest(exe, dir, cut, bad_h5, strict ? "--strict" : a1, strict ? a1 : a2, &err);
    CHECK(st != 0 && err && strstr(err, "cells, expected") && strchr(err, '\n') == err + strlen(err) - 1,
          "cut last row (strict %d): status %d, stderr %s", strict, st, err ? err : "");
    free(err);
    CHECK(cf_test_dir_entries(outdir) == 0, "a failed ingest left %d file(s)", cf_test_dir_entries(outdir));
  }
  const char *files[] = {csv, cut, h5, whole, outdir};
  for (int i = 0; i < 4; i++) remove(files[i]);
  rmdir(outdir);
  rmdir(dir);
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 4) {
    fprintf(stderr, "usage: %s MOTIVE_SAMPLES_DIR MALFORMED_DIR CLOTHFIT_EXE\n", argv[0]);
    return 2;
  }
  char p121[1024], p123[1024];
  snprintf(p121, sizeof p121, "%s/motive-1.21-rigidbody-and-unlabeled.csv", argv[1]);
  snprintf(p123, sizeof p123, "%s/motive-1.23-no-assets.csv", argv[1]);
  test_121_native(p121);
  test_121_options(p121);
  test_121_resampled(p121);
  test_123_no_assets(p123);
  test_v124();
  test_up_y();
  test_h5_roundtrip(p121);
  test_trimmed(argv[3], p121, 250, NULL, NULL);
  test_trimmed(argv[3], p123, 1353, "--allow-no-markers", NULL);
  return cf_test_done("test_motive_samples");
}
