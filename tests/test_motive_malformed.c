/* test_motive_malformed.c — every file of tests/data/malformed (argv[2]) and
 * two generated over-long lines must be rejected by the Motive reader with
 * an error naming the file, the line and what was wrong; `clothfit ingest`
 * (argv[3]) must exit non-zero with exactly one stderr line and leave no
 * output file (neither REC.h5 nor REC.h5.tmp.*) behind.  Each in both
 * modes, with and without --strict, except the edited export (fewer rows
 * than its Total Exported Frames): refused with --strict only, loaded with
 * one warning line without it (trimmed real exports: test_motive_samples). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cf_common.h"
#include "cf_io.h"
#include "testutil.h"

extern char **environ;

typedef struct {
  const char *file;
  long line;       /* expected "line N" in the message */
  const char *why; /* expected fragment of the message */
  int strict_only; /* refused with --strict (cf_motive_opts.strict) only */
} malformed;

static const malformed cases[] = {
    {"truncated_header_meta_only.csv", 1, "truncated header", 0},
    {"truncated_header_no_frame_row.csv", 6, "truncated header", 0},
    {"truncated_header_no_name_row.csv", 6, "no 'Name' row", 0},
    {"data_before_header.csv", 5, "data row before the 'Frame", 0},
    {"ragged_short_row.csv", 9, "7 cells, expected 8", 0},
    {"ragged_long_row.csv", 10, "9 cells, expected 8", 0},
    {"ragged_header_row.csv", 4, "header row has 7 cells", 0},
    {"non_numeric_cell.csv", 10, "column 4: marker 'A' Y: expected a finite number, found 'abc'", 0},
    {"nan_cell.csv", 8, "found 'NaN'", 0},
    {"inf_cell.csv", 9, "found 'inf'", 0},
    {"overflow_cell.csv", 9, "found '1e999'", 0},
    {"blank_time.csv", 9, "column 2: Time: expected a finite number", 0},
    {"duplicate_marker_names.csv", 4, "duplicate marker name 'A' (also at column 3)", 0},
    {"duplicate_marker_adjacent.csv", 7, "duplicate marker name 'A'", 0},
    {"unnamed_marker.csv", 4, "marker column without a name", 0},
    {"missing_z_axis.csv", 7, "marker 'A' has no Z column", 0},
    {"zero_frames.csv", 7, "no data frames", 0},
    {"marker_never_seen.csv", 8, "no marker data", 0},
    {"rigid_body_only.csv", 3, "no markers", 0},
    {"non_monotonic_time.csv", 10, "goes back", 0},
    {"repeated_time.csv", 10, "repeats", 0},
    {"unknown_units.csv", 1, "unknown Length Units 'Furlongs'", 0},
    {"missing_units.csv", 1, "no 'Length Units'", 0},
    {"bad_total_frames.csv", 1, "not a frame count", 0},
    {"frame_count_mismatch.csv", 10, "Total Exported Frames 5 (truncated or edited export?)", 1},
    {"missing_frame_column.csv", 7, "Frame column is missing", 0},
    {"bad_time_header.csv", 7, "expected the 'Time (Seconds)' column", 0},
    {"not_motive.csv", 1, "not a Motive CSV export", 0},
    {"empty.csv", 1, "empty file", 0},
    {"binary_garbage.csv", 1, "binary data", 0},
    {"binary_nul_in_data.csv", 10, "binary data (byte 0x00", 0},
    {"stray_quote.csv", 8, "malformed CSV", 0},
    {"unterminated_quote.csv", 10, "malformed CSV", 0},
};
static const int n_cases = sizeof cases / sizeof cases[0];

/* The reader's error for path: CF_EFORMAT, names the file and the line. */
static void check_reader(const char *path, long line, const char *why, int strict) {
  cf_recording r;
  cf_error err = {0, ""};
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  o.strict = strict;
  char at[64];
  snprintf(at, sizeof at, ": line %ld", line);
  int rc = cf_motive_read(path, &o, &r, &err);
  CHECK(rc == CF_EFORMAT, "%s: rc %d (%s)", path, rc, err.msg);
  CHECK(strstr(err.msg, path) == err.msg, "%s: message does not start with the file: %s", path, err.msg);
  CHECK(strstr(err.msg, at) != NULL, "%s: message does not name line %ld: %s", path, line, err.msg);
  CHECK(strstr(err.msg, why) != NULL, "%s: message lacks '%s': %s", path, why, err.msg);
  CHECK(strchr(err.msg, '\n') == NULL, "%s: multi-line message", path);
}

/* Run `clothfit ingest motive path -o dir/rec.h5`; returns the exit status
 * and the number of stderr lines in *lines. */
static int run_ingest(const char *exe, const char *path, const char *dir, int strict, int *lines) {
  char out[1024], errf[1024];
  snprintf(out, sizeof out, "%s/rec.h5", dir);
  snprintf(errf, sizeof errf, "%s.stderr", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {(char *)exe, "ingest", "motive", (char *)path, "-o", out, strict ? "--strict" : NULL, NULL};
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, exe, &fa, NULL, argv, environ) == 0) waitpid(pid, &status, 0);
  posix_spawn_file_actions_destroy(&fa);
  FILE *f = fopen(errf, "r");
  int c, last = '\n';
  *lines = 0;
  while (f && (c = fgetc(f)) != EOF) *lines += (last = c) == '\n';
  if (last != '\n') ++*lines;
  if (f) fclose(f);
  remove(errf);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_cli(const char *exe, const char *path, const char *outdir, int strict) {
  int lines = 0, status = run_ingest(exe, path, outdir, strict, &lines);
  CHECK(status != 0 && status != -1, "%s: clothfit ingest exit status %d", path, status);
  CHECK(lines == 1, "%s: %d stderr lines, expected exactly 1", path, lines);
  CHECK(cf_test_dir_entries(outdir) == 0, "%s: ingest left %d file(s) in %s", path, cf_test_dir_entries(outdir), outdir);
}

/* Without --strict an edited export loads: rec->exported records it, and
 * ingest writes REC.h5 with one warning line on stderr. */
static void check_loads(const char *exe, const char *path, const char *outdir) {
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_motive_read(path, NULL, &r, &err);
  CHECK(rc == CF_OK && r.exported.known && r.exported.edited && r.exported.frames_expected == 5 &&
            r.exported.frames_found == 3 && r.exported.first_frame_number == 0 && r.exported.frame_jumps == 0,
        "%s: rc %d (%s): must load without strict, recording the mismatch", path, rc, err.msg);
  if (!rc) cf_recording_free(&r);
  int lines = 0, status = run_ingest(exe, path, outdir, 0, &lines);
  char out[1200];
  snprintf(out, sizeof out, "%s/rec.h5", outdir);
  CHECK(status == 0 && lines == 1 && cf_test_dir_entries(outdir) == 1, "%s: ingest status %d, %d stderr lines, "
        "%d file(s)", path, status, lines, cf_test_dir_entries(outdir));
  remove(out);
}

/* A 1 MB+ line, written by the test: in the metadata row and in a data row. */
static void long_lines(const char *exe, const char *tmp, const char *outdir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/long_line.csv", tmp);
  for (int where = 0; where < 2; where++) {
    FILE *f = fopen(path, "w");
    fputs(where ? "Format Version,1.23,Length Units,Meters\n\n,Type,Marker,Marker,Marker\n,Name,A,A,A\n,ID,1,1,1\n"
                  ",,Position,Position,Position\nFrame,Time (Seconds),X,Y,Z\n0,0,1,2,3\n1,0.01,"
                : "Format Version,1.23,Take Notes,",
          f);
    for (int i = 0; i < (1 << 20) / 8 + 10; i++) fputs("12345678", f);
    fputs(",2,3\n", f);
    fclose(f);
    check_reader(path, where ? 9 : 1, "longer than 1048576 bytes", 0);
    check_cli(exe, path, outdir, 0);
  }
  remove(path);
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 4) {
    fprintf(stderr, "usage: %s MOTIVE_SAMPLES_DIR MALFORMED_DIR CLOTHFIT_EXE\n", argv[0]);
    return 2;
  }
  const char *dir = argv[2], *exe = argv[3];
  char tmp[] = "/tmp/cf_malformed_XXXXXX", outdir[1100], path[1100];
  CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
  snprintf(outdir, sizeof outdir, "%s/out", tmp);
  mkdir(outdir, 0755);
  CHECK(n_cases >= 20 && cf_test_dir_entries(dir) == n_cases, "%d cases, %d files in %s: every malformed file needs an "
        "expected message here", n_cases, cf_test_dir_entries(dir), dir);
  for (int i = 0; i < n_cases; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
    for (int strict = !!cases[i].strict_only; strict < 2; strict++) {
      check_reader(path, cases[i].line, cases[i].why, strict);
      check_cli(exe, path, outdir, strict);
    }
    if (cases[i].strict_only) check_loads(exe, path, outdir);
  }
  long_lines(exe, tmp, outdir);
  rmdir(outdir);
  rmdir(tmp);
  return cf_test_done("test_motive_malformed");
}
