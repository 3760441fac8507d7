/* motive_write.c — write a recording as an OptiTrack Motive 1.23 CSV export
 * (the layout cf_motive_read ingests, docs/design.md §6):
 *   Format Version,1.23,Take Name,...,Length Units,Millimeters,Coordinate Space,Global
 *   (blank)
 *   ,Type,Marker,Marker,Marker,...
 *   ,Name,M1,M1,M1,...
 *   ,ID,1,1,1,...
 *   ,,Position,Position,Position,...
 *   Frame,Time (Seconds),X,Y,Z,...
 *   0,0.000000,12.345678,1500.000000,-3.210000,...
 * millimetres, Motive's Y-up frame (the inverse of the ingest rotation
 * (x, y, z) = (x_M, -z_M, y_M)), blank cells for missing samples, CRLF line
 * ends as Motive writes them on Windows. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cf_io.h"

void cf_motive_write_opts_default(cf_motive_write_opts *o) {
  memset(o, 0, sizeof *o);
  o->decimals = 6;
  o->take_name = "clothfit";
  o->up = 'y';
}

/* A CSV cell: quoted when it holds a comma, a quote or a line break. */
static void cell(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The three header rows that repeat one text per marker column. */
static void header_row(FILE *f, const char *label, const cf_recording *r, const char *fixed, int id_row,
                       const int *ids) {
  fputc(',', f);
  fputs(label, f);
  for (int k = 0; k < r->n_markers; k++)
    for (int a = 0; a < 3; a++) {
      fputc(',', f);
      if (fixed) fputs(fixed, f);
      else if (id_row) fprintf(f, "%d", ids ? ids[k] : k + 1);
      else cell(f, r->names[k]);
    }
  fputs("\r\n", f);
}

/* The placeholder "Capture Start Time" of a file without one, in Motive's
 * format (Y-M-D h.m.s.ms AM|PM): a fixed instant, so that writing the same
 * recording twice gives the same bytes. */
static const char *placeholder_start(char *buf, size_t size) {
  const time_t at = 1704110400; /* noon UTC on the first day of 2024 */
  struct tm tm;
  gmtime_r(&at, &tm);
  strftime(buf, size, "%Y-%m-%d %I.%M.%S.000 %p", &tm);
  return buf;
}

int cf_motive_write_stream(FILE *f, const cf_recording *r, const cf_motive_write_opts *o) {
  char start[64];
  double rate = o->rate > 0 ? o->rate : (r->dt > 0 ? 1 / r->dt : 120);
  int T = r->n_frames, K = r->n_markers, dec = o->decimals < 0 ? 0 : o->decimals > 9 ? 9 : o->decimals;
  fputs("Format Version,1.23,Take Name,", f);
  cell(f, o->take_name ? o->take_name : "");
  fprintf(f, ",Take Notes,,Capture Frame Rate,%.6f,Export Frame Rate,%.6f,Capture Start Time,", rate, rate);
  cell(f, o->start_time && o->start_time[0] ? o->start_time : placeholder_start(start, sizeof start));
  fprintf(f, ",Capture Start Frame,0,Total Frames in Take,%d,Total Exported Frames,%d,Rotation Type,Quaternion,"
          "Length Units,Millimeters,Coordinate Space,Global\r\n\r\n", T, T);
  header_row(f, "Type", r, "Marker", 0, NULL);
  header_row(f, "Name", r, NULL, 0, NULL);
  header_row(f, "ID", r, NULL, 1, o->ids);
  header_row(f, "", r, "Position", 0, NULL);
  fputs("Frame,Time (Seconds)", f);
  for (int k = 0; k < K; k++) fputs(",X,Y,Z", f);
  fputs("\r\n", f);
  for (int i = 0; i < T; i++) {
    fprintf(f, "%d,%.6f", i, r->time[i]);
    for (int k = 0; k < K; k++) {
      const double *p = r->pos + 3 * ((size_t)K * i + k);
      if (isnan(p[0]) || isnan(p[1]) || isnan(p[2])) {
        fputs(",,,", f);
        continue;
      }
      double m[3] = {p[0], p[1], p[2]};
      if (o->up == 'y') m[1] = p[2], m[2] = -p[1];
      for (int a = 0; a < 3; a++) {
        double v = 1e3 * m[a];
        fprintf(f, ",%.*f", dec, v == 0 ? 0.0 : v); /* no "-0.000" */
      }
    }
    fputs("\r\n", f);
  }
  return ferror(f) ? -1 : 0;
}

int cf_motive_write(const char *path, const cf_recording *r, const cf_motive_write_opts *o, cf_error *err) {
  char tmp[4096];
  if (cf_io_ensure_parent(path, err)) return CF_EIO;
  cf_io_tmpname(path, tmp, sizeof tmp);
  FILE *f = fopen(tmp, "wb");
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot create: %s", path, strerror(errno));
  int ok = cf_motive_write_stream(f, r, o) == 0;
  ok = fclose(f) == 0 && ok;
  if (!ok) {
    cf_io_commit(tmp, path, 0, err);
    return cf_error_set(err, CF_EIO, "%s: write error", path);
  }
  return cf_io_commit(tmp, path, 1, err);
}
