/* synth_write.c — the files of `clothfit synth` for OUT.csv:
 *   OUT.csv         the Motive 1.23 export (motive_write.c)
 *   OUT.truth.ini   ground truth: parameters, motion, achieved speed, the
 *                   lattice cell of every name, fragments, ghosts, gaps
 *   OUT.meta.ini    sidecar metadata for `clothfit ingest motive --meta`
 *   OUT.map         a marker mapping file (format in cf_io.h): merges,
 *                   cells, ghost drops
 * Every file goes to a temporary name first; all are renamed into place
 * only when all were written (synth_files.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clothfit_version.h"
#include "synth_internal.h"

enum { F_CSV, F_TRUTH, F_META, F_MAP, N_FILES };
static const char *suffix[N_FILES] = {".csv", ".truth.ini", ".meta.ini", ".map"};


static int csv(FILE *f, const cf_synth_config *c, const cf_synth_result *r) {
  int T = r->n_frames, N = r->n_tracks;
  cf_recording rec;
  cf_recording_init(&rec);
  rec.n_frames = T, rec.n_markers = N, rec.time = r->time, rec.dt = 1 / c->rate;
  rec.names = malloc(sizeof(char *) * (N + 1));
  rec.pos = malloc(sizeof(double) * 3 * (size_t)T * (N + 1));
  int *ids = malloc(sizeof(int) * (N + 1)), rc = -1;
  if (rec.names && rec.pos && ids) {
    for (int k = 0; k < N; k++) {
      rec.names[k] = (char *)r->tracks[k].name;
      ids[k] = r->tracks[k].id;
      for (int i = 0; i < T; i++) memcpy(rec.pos + 3 * ((size_t)N * i + k), r->tracks[k].pos + 3 * i, 3 * sizeof(double));
    }
    cf_motive_write_opts o;
    cf_motive_write_opts_default(&o);
    o.rate = c->rate, o.decimals = c->decimals, o.ids = ids;
    rc = cf_motive_write_stream(f, &rec, &o);
  }
  free(rec.names), free(rec.pos), free(ids);
  return rc;
}

static const char *name_of_cell(const cf_synth_result *r, int k) { return r->tracks[k].name; } /* Marker<k+1> */

static void meta(FILE *f, const cf_synth_config *c, const cf_synth_result *r) {
  fprintf(f, "[meta]\nmaterial = %s\nsize = %s\nwidth_m = %.10g\nheight_m = %.10g\ndensity = %.10g\n", c->material,
          c->size, c->width, c->height, c->density);
  fprintf(f, "motion = %s\nspeed = %s\nrepetition = %s\nlattice = %dx%d\ncontrolled = %s, %s\n", c->motion,
          c->speed, c->repetition, c->rows, c->cols, name_of_cell(r, r->controlled[0]),
          name_of_cell(r, r->controlled[1]));
  double t[5];
  cf_obstacle o;
  if (cf_synth_table(c, &o, t))
    fprintf(f, "table_height = %.10g\ntable_extent = %.10g, %.10g, %.10g, %.10g\n", t[0], t[1], t[2], t[3], t[4]);
  if (r->stick) fprintf(f, "stick = StickA, StickB\n");
}

static void truth(FILE *f, const cf_synth_config *c, const cf_synth_result *r) {
  cf_synth_motion m;
  cf_synth_motion_init(&m, c, r->rate_scale);
  fprintf(f, "; Ground truth of the synthetic recording STEM.csv next to this file (STEM.truth.ini),\n; written by "
          "clothfit synth %s.  [meta] is also in STEM.meta.ini (for\n; `clothfit ingest motive --meta`); "
          "STEM.map is the marker mapping file (fragments, cells, ghosts).\n", CLOTHFIT_VERSION);
  meta(f, c, r);
  sy_truth_params(f, c, r);
  fprintf(f, "duration = %.10g\nrate = %.10g\nframes = %d\nseed = %lu\nnoise = %.10g\n", c->duration, c->rate,
          r->n_frames, c->seed, c->noise);
  fprintf(f, "target_speed = %.6f\nachieved_speed = %.6f  ; m/s, mean |velocity| of the %d markers\n",
          r->target_speed, r->achieved_speed, r->rows * r->cols);
  fprintf(f, "amplitude = %.6f  ; %s\nfrequency = %.6f  ; Hz, after calibration\nrate_scale = %.6f\nruns = %d\n",
          m.amp, m.twist ? "rad, twist angle" : "m, shake across the plane", m.freq, r->rate_scale, r->runs);
  fprintf(f, "steps = %ld\nmax_violation = %.4g\n", r->steps, r->max_violation);
  if (r->stick) {
    fprintf(f, "\n[stick]  ; the stick's markers StickA, StickB are its axis' ends\nhits = %d\nlength = %.10g\n"
            "radius = %.10g\nhit_time = %.10g\nrest = %.10g\n", c->hits, c->stick_length, c->stick_radius,
            c->hit_time, c->stick_rest);
    for (int i = 0; i < r->n_frames; i++) /* the deepest frame of each hit */
      if (i > 0 && i + 1 < r->n_frames && r->stick[6 * i + 1] > r->stick[6 * (i - 1) + 1] &&
          r->stick[6 * i + 1] >= r->stick[6 * (i + 1) + 1] && r->stick[6 * i + 1] > 0)
        fprintf(f, "deepest = %.4f s, y %.4f m, z %.4f m  ; the axis' middle\n", r->time[i], r->stick[6 * i + 1],
                0.5 * (r->stick[6 * i + 2] + r->stick[6 * i + 5]));
  }
  fprintf(f, "\n[cells]  ; name = row col (row 0 = top, column 0 = smallest x), for every cloth track\n");
  for (int k = 0; k < r->n_tracks; k++)
    if (r->tracks[k].cell >= 0)
      fprintf(f, "%s = %d %d\n", r->tracks[k].name, r->tracks[k].cell / r->cols, r->tracks[k].cell % r->cols);
  fprintf(f, "\n[fragments]  ; later part of a track = the marker it belongs to (frames first-last)\n");
  for (int k = r->rows * r->cols; k < r->n_tracks; k++)
    if (r->tracks[k].cell >= 0)
      fprintf(f, "%s = %s  ; %d-%d\n", r->tracks[k].name, name_of_cell(r, r->tracks[k].cell), r->tracks[k].first,
              r->tracks[k].last);
  fprintf(f, "\n[ghosts]  ; unlabelled reflections away from the cloth (frames first-last)\n");
  for (int k = 0; k < r->n_tracks; k++)
    if (r->tracks[k].cell == -1) fprintf(f, "%s = %d-%d\n", r->tracks[k].name, r->tracks[k].first, r->tracks[k].last);
  fprintf(f, "\n[gaps]  ; gapN = marker first_frame frames (missing: first .. first+frames-1)\n");
  for (int q = 0; q < r->n_gaps; q++) {
    const cf_synth_gap *g = &r->gaps[q];
    fprintf(f, "gap%d = %s %d %d  ; %.4f-%.4f s\n", q + 1, name_of_cell(r, g->cell), g->first, g->n,
            r->time[g->first], r->time[g->first + g->n - 1]);
  }
}

static void map(FILE *f, const cf_synth_result *r) {
  fprintf(f, "# Marker mapping of the synthetic recording STEM.csv (STEM.map; clothfit synth):\n"
          "# fragments, lattice cells, ghosts.\n");
  for (int k = 0; k < r->rows * r->cols; k++) {
    int first = 1;
    for (int q = r->rows * r->cols; q < r->n_tracks; q++)
      if (r->tracks[q].cell == k) {
        if (first) fprintf(f, "%s = %s", r->tracks[k].name, r->tracks[k].name);
        fprintf(f, ", %s", r->tracks[q].name);
        first = 0;
      }
    if (!first) fputc('\n', f);
  }
  for (int k = 0; k < r->rows * r->cols; k++)
    fprintf(f, "cell %d %d = %s\n", k / r->cols, k % r->cols, r->tracks[k].name);
  int first = 1;
  for (int k = 0; k < r->n_tracks; k++)
    if (r->tracks[k].cell == -1 && r->tracks[k].first >= 0) {
      fprintf(f, "%s%s", first ? "drop = " : ", ", r->tracks[k].name);
      first = 0;
    }
  if (!first) fputc('\n', f);
}

int cf_synth_write(const char *csv_path, const cf_synth_config *c, const cf_synth_result *r, cf_error *err) {
  if (cf_synth_camera_output(c)) return cf_synth_write_camera(csv_path, c, r, err);
  char base[4096];
  size_t n = strlen(csv_path);
  if (n >= sizeof base - 16) return cf_error_set(err, CF_EIO, "%s: path too long", csv_path);
  memcpy(base, csv_path, n + 1);
  if (n > 4 && !strcmp(base + n - 4, ".csv")) base[n - 4] = 0;
  if (cf_io_ensure_parent(csv_path, err)) return CF_EIO;
  sy_out_file o[N_FILES];
  for (int i = 0; i < N_FILES; i++)
    snprintf(o[i].path, sizeof o[i].path, "%s%s", i == F_CSV ? csv_path : base, i == F_CSV ? "" : suffix[i]);
  int ok = sy_files_open(o, N_FILES, err) == CF_OK;
  if (ok && csv(o[F_CSV].f, c, r)) ok = 0, cf_error_set(err, CF_EIO, "%s: write error", o[F_CSV].path);
  if (ok) {
    truth(o[F_TRUTH].f, c, r);
    meta(o[F_META].f, c, r);
    map(o[F_MAP].f, r);
  }
  ok = sy_files_close(o, N_FILES, ok, err);
  ok = sy_files_commit(o, N_FILES, ok, err);
  return ok ? CF_OK : (err && err->code ? err->code : CF_EIO);
}
