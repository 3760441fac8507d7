/* ingest_markers.c — what marker processing (docs/design.md §6) adds to `clothfit
 * ingest motive|csv` and `clothfit inspect` (its options --lattice, --map,
 * --merge, --max-gap, --controlled, --stick, --meta, and the generic CSV's
 * --time-column, --columns-pattern are read by src/pipeline/ingest.c, their
 * help is in help/ingest.txt): the report of the
 * lattice, controlled markers, stick, trimming, merges and ghosts, and of
 * an edited source export. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* ----------------------------------------------------------------- report */
static void name_list(const cf_recording *r, const int *idx, int n) {
  for (int i = 0; i < n; i++) printf("%s%s", i ? ", " : "", r->names[idx[i]]);
}

/* The names of the markers idx[n] as the array member key of j. */
static void json_names(json_t *j, const char *key, const cf_recording *r, const int *idx, int n) {
  json_t *a = cf_cli_json_array(j, key);
  for (int i = 0; i < n; i++) json_array_append_new(a, cf_cli_json_string(r->names[idx[i]]));
}

static void string_list(const char *label, char **s, int n) {
  if (n) printf("%-17s %d\n", label, n);
  for (int i = 0; i < n && i < 12; i++) printf("  %s\n", s[i]);
  if (n > 12) printf("  ... (%d more)\n", n - 12);
}

static void lattice_text(const cf_marker_proc *p) {
  const cf_lattice_fit *f = &p->fit;
  if (!p->rows) {
    printf("lattice           none (no --lattice)\n");
    return;
  }
  printf("lattice           %dx%d (%s, first complete frame at source time %.4f s): rows %.1f cm and columns "
         "%.1f cm apart, neighbour spacings within %.0f %%, rotated %.1f deg in plane, plane rms %.2f cm\n",
         p->rows, p->cols, f->method, f->first_time, 100 * f->row_spacing, 100 * f->col_spacing, 100 * f->spacing_dev,
         f->angle_deg, 100 * f->plane_rms);
}

static void lattice_json(json_t *j, const cf_marker_proc *p) {
  const cf_lattice_fit *f = &p->fit;
  if (!p->rows) {
    cf_cli_json_set(j, "lattice", NULL);
    return;
  }
  json_t *l = cf_cli_json_object(j, "lattice");
  cf_cli_json_num(l, "rows", p->rows);
  cf_cli_json_num(l, "cols", p->cols);
  cf_cli_json_str(l, "method", f->method);
  const double v[] = {f->first_time, f->angle_deg, f->row_spacing, f->col_spacing, f->spacing_dev, f->plane_rms};
  const char *k[] = {"first_complete_time_s", "angle_deg", "row_spacing_m", "col_spacing_m", "spacing_deviation",
                     "plane_rms_m"};
  cf_cli_json_numbers(l, k, v, 6);
}

static int total_filled(const cf_recording *r) {
  int n = 0;
  for (int k = 0; k < r->n_markers; k++) n += r->proc->filled[k];
  return n;
}

static void report_text(const cf_recording *r) {
  const cf_marker_proc *p = r->proc;
  lattice_text(p);
  printf("controlled        ");
  name_list(r, p->controlled, p->n_controlled);
  printf("%s (gaps up to %.3g s interpolated; %d samples filled in all)\n", p->n_controlled ? "" : "none", p->max_gap,
         total_filled(r));
  if (p->stick[0] >= 0) printf("stick             %s, %s (radius %g m)\n", r->names[p->stick[0]], r->names[p->stick[1]],
                               p->stick_radius);
  printf("trimmed           %.4f s (%d frames) at the start, %.4f s (%d frames) at the end\n", p->trim_start_s,
         p->trim_start_frames, p->trim_end_s, p->trim_end_frames);
  string_list("merged fragments", p->merged, p->n_merged);
  string_list("ghosts dropped", p->ghosts, p->n_ghosts);
  string_list("removed by map", p->removed, p->n_removed);
}

static void report_json(json_t *j, const cf_recording *r) {
  const cf_marker_proc *p = r->proc;
  lattice_json(j, p);
  json_names(j, "controlled", r, p->controlled, p->n_controlled);
  if (p->stick[0] >= 0) json_names(j, "stick", r, p->stick, 2);
  else cf_cli_json_set(j, "stick", NULL);
  cf_cli_json_num(j, "max_gap_s", p->max_gap);
  cf_cli_json_num(j, "filled_samples", total_filled(r));
  cf_cli_json_num(j, "trimmed_start_frames", p->trim_start_frames);
  cf_cli_json_num(j, "trimmed_start_s", p->trim_start_s);
  cf_cli_json_num(j, "trimmed_end_frames", p->trim_end_frames);
  cf_cli_json_num(j, "trimmed_end_s", p->trim_end_s);
  cf_cli_json_strs(j, "merged", p->merged, p->n_merged);
  cf_cli_json_strs(j, "ghosts", p->ghosts, p->n_ghosts);
  cf_cli_json_strs(j, "removed", p->removed, p->n_removed);
}

static void export_text(const cf_rec_export *x) {
  printf("export            %d data frames", x->frames_found);
  if (x->frames_expected >= 0) printf(", metadata says %d", x->frames_expected);
  printf(", frame numbers from %d", x->first_frame_number);
  if (x->frame_jumps) printf(" with %d jump(s)", x->frame_jumps);
  printf("%s\n", x->edited ? ": EDITED (trimmed or cut) export" : "");
}

static void export_json(json_t *j, const cf_rec_export *x) {
  json_t *e = cf_cli_json_object(j, "export");
  cf_cli_json_num(e, "frames_expected", x->frames_expected >= 0 ? x->frames_expected : NAN);
  cf_cli_json_num(e, "frames_found", x->frames_found);
  cf_cli_json_num(e, "first_frame_number", x->first_frame_number);
  cf_cli_json_num(e, "frame_jumps", x->frame_jumps);
  cf_cli_json_bool(e, "edited_export", x->edited != 0);
}

void cf_cli_export_report(const cf_recording *r, json_t *j) {
  if (!r->exported.known) {
    if (j) cf_cli_json_set(j, "export", NULL);
  } else if (j) {
    export_json(j, &r->exported);
  } else {
    export_text(&r->exported);
  }
}

void cf_cli_markers_report(const cf_recording *r, json_t *j) {
  if (!r->proc) return;
  if (j) report_json(j, r);
  else report_text(r);
}

void cf_cli_marker_fields(const cf_recording *r, int k, json_t *j) {
  const cf_marker_proc *p = r->proc;
  if (!p) return;
  double w = p->weight ? p->weight[k] : NAN;
  if (j) {
    cf_cli_json_nums(j, "cell", (const double[]){p->cell[2 * k], p->cell[2 * k + 1]}, 2);
    cf_cli_json_num(j, "weight", w);
    cf_cli_json_num(j, "filled", p->filled[k]);
  } else if (p->cell[2 * k] >= 0) {
    printf(" %4d,%-3d %7.4f %7d", p->cell[2 * k], p->cell[2 * k + 1], w, p->filled[k]);
  } else {
    printf(" %8s %7s %7d", "-", "-", p->filled[k]);
  }
}
