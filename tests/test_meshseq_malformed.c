/* test_meshseq_malformed.c — every case folder of tests/data/malformed_mesh
 * (argv[1]) must be rejected by the mesh-sequence reader with a one-line
 * CF_EFORMAT error that starts with the offending file, names the line (or
 * byte offset of binary PLY data, or "file name") and says what was
 * expected; `clothfit ingest meshes` (argv[2]) must exit non-zero with
 * exactly one stderr line and leave no output file behind.  A folder with a
 * times.txt is read with --times FOLDER/times.txt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_common.h"
#include "cf_io.h"
#include "testutil.h"

typedef struct {
  const char *dir;  /* case folder */
  const char *file; /* the file the message must start with */
  const char *at;   /* "line N", "byte offset N" or "file name" */
  const char *why;  /* expected fragment of the message */
} malformed;

#define F0 "frame_000000_0.000000.obj"
#define F1 "frame_000001_0.013000.obj"
#define P0 "frame_000000_0.000000.ply"

static const malformed cases[] = {
    /* OBJ */
    {"empty_file", F0, "line 1", "empty file"},
    {"obj_index_out_of_range", F0, "line 6", "face 1 vertex 3: index 5 out of range (the file has 4 vertices"},
    {"obj_index_zero", F0, "line 6", "index 0 ('0'): OBJ indices start at 1"},
    {"obj_relative_index_before_first", F0, "line 4", "relative index -4 reaches before the first vertex"},
    {"obj_non_numeric_vertex", F0, "line 2", "vertex coordinate 2: expected a finite number, found 'abc'"},
    {"obj_nan_vertex", F0, "line 3", "vertex coordinate 3: expected a finite number, found 'nan'"},
    {"obj_inf_vertex", F0, "line 4", "expected a finite number, found '-inf'"},
    {"obj_bad_face_token", F0, "line 5", "face vertex 3: expected an index 'i', 'i/j', 'i/j/k' or 'i//k', found 'x/1'"},
    {"obj_mixed_triangles_quads", F0, "line 7", "face 2 is a quad after triangles (first face at line 6)"},
    {"obj_polygon", F0, "line 6", "more than 4 vertices"},
    {"obj_no_faces", F0, "line 5", "no faces in the file"},
    {"obj_repeated_vertex", F0, "line 6", "face 2 lists vertex 4 twice (degenerate face)"},
    {"obj_nonmanifold_edge", F0, "line 11", "face 3 has the edge 2-3 of faces 1 and 2 too: an edge may be in at most two"},
    {"obj_zero_area_face", F1, "line 4", "face 1 has zero area (its vertices coincide or lie on one line)"},
    /* PLY */
    {"ply_lying_header", P0, "byte offset 183", "declares 40 'vertex' elements of at least 12 bytes each, but only 65"},
    {"ply_ascii_lying_header", P0, "line 16", "end of file, expected a value (the header declares more"},
    {"ply_truncated_binary", P0, "byte offset 230", "a list of 4 items needs at least 16 more bytes, the file has 8"},
    {"ply_trailing_data", P0, "byte offset 247", "3 byte(s) of data after the last element"},
    {"ply_big_endian", P0, "line 2", "unsupported format 'binary_big_endian': expected ascii or binary_little_endian"},
    {"ply_unknown_format", P0, "line 2", "unknown format 'text'"},
    {"ply_not_ply", P0, "line 1", "expected 'ply' (not a PLY file)"},
    {"ply_nan_binary", P0, "byte offset 210", "vertex 3 of 4, property 'y': expected a finite coordinate, found nan"},
    {"ply_non_numeric_ascii", P0, "line 13", "vertex 3 of 4, property 'y': expected a number, found 'one'"},
    {"ply_face_index_out_of_range", P0, "line 16", "face 2 vertex 3: index 4 out of range"},
    {"ply_no_face_element", P0, "line 7", "no 'element face' in the header"},
    /* sequences */
    {"vertex_count_mismatch", F1, "line 7", "5 vertices, expected 4 as in"},
    {"face_count_mismatch", F1, "line 7", "1 face(s), expected 2 as in"},
    {"connectivity_differs", "frame_000002_0.031000.obj", "line 9", "face 2 is (2 3 6 5), expected (2 5 6 3) as in"},
    /* times */
    {"non_monotonic_times", "times.txt", "line 4", "time 0.015 s (c.obj) is not after 0.021 s (b.obj, line 3)"},
    {"missing_times_entry", "times.txt", "line 2", "the file ends without a line for frame file"},
    {"times_too_few", "times.txt", "line 2", "the file ends after 2 times, expected 3"},
    {"times_unknown_frame", "times.txt", "line 3", "'d.obj' is not one of the 2 frame files"},
    {"times_bad_number", "times.txt", "line 2", "expected a time in seconds, found '0.0l0'"},
    {"name_without_number", "cloth.obj", "file name", "no number in the name"},
    {"name_time_repeats", "right_0.500.obj", "file name", "time 0.5 s repeats that of"},
};
static const int n_cases = sizeof cases / sizeof cases[0];

static int times_file(const char *dir, char *buf, size_t size) {
  struct stat sb;
  snprintf(buf, size, "%s/times.txt", dir);
  return stat(buf, &sb) == 0;
}

static void check_reader(const char *dir, const malformed *c) {
  char times[1300], start[1400];
  cf_meshseq_opts o;
  cf_meshseq_opts_default(&o);
  if (times_file(dir, times, sizeof times)) o.times_file = times;
  snprintf(start, sizeof start, "%s/%s: %s: ", dir, c->file, c->at);
  cf_recording r;
  cf_error err = {0, ""};
  cf_test_refused(c->dir, cf_meshseq_read(dir, &o, &r, &err), err.msg, start, c->why);
}

static void check_cli(const char *exe, const char *dir, const char *tmp, const char *outdir) {
  char times[1300], out[1200];
  snprintf(out, sizeof out, "%s/rec.h5", outdir);
  char *argv[] = {(char *)exe, "ingest", "meshes", (char *)dir, "-o", out, "--times", times, NULL};
  if (!times_file(dir, times, sizeof times)) argv[6] = NULL;
  cf_test_cli_refuses(argv, tmp, outdir, dir);
}

int main(int argc, char **argv) {
  char tmp[] = "/tmp/cf_meshbad_XXXXXX", outdir[100], dir[1100];
  cf_runtime_init();
  if (cf_test_corpus_begin(argc, argv, n_cases, tmp, outdir, sizeof outdir)) return 2;
  CHECK(n_cases >= 30, "%d cases", n_cases);
  for (int i = 0; i < n_cases; i++) {
    snprintf(dir, sizeof dir, "%s/%s", argv[1], cases[i].dir);
    check_reader(dir, &cases[i]);
    check_cli(argv[2], dir, tmp, outdir);
  }
  rmdir(outdir);
  rmdir(tmp);
  return cf_test_done("test_meshseq_malformed");
}
