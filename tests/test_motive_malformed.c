/* test_motive_malformed.c — every file of tests/data/malformed (argv[2]) and
 * two generated over-long lines must be rejected by the Motive reader with
 * an error naming the file, the line and what was wrong; `clothfit ingest`
 * (argv[3]) must exit non-zero with exactly one stderr line and leave no
 * output file (neither REC.h5 nor REC.h5.tmp.*) behind. */
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
} malformed;

static const malformed cases[] = {
    {"truncated_header_meta_only.csv", 1, "truncated header"},
    {"truncated_header_no_frame_row.csv", 6, "truncated header"},
    {"truncated_header_no_name_row.csv", 6, "no 'Name' row"},
    {"data_before_header.csv", 5, "data row before the 'Frame"},
    {"ragged_short_row.csv", 9, "7 cells, expected 8"},
    {"ragged_long_row.csv", 10, "9 cells, expected 8"},
    {"ragged_header_row.csv", 4, "header row has 7 cells"},
    {"non_numeric_cell.csv", 10, "column 4: marker 'A' Y: expected a finite number, found 'abc'"},
    {"nan_cell.csv", 8, "found 'NaN'"},
    {"inf_cell.csv", 9, "found 'inf'"},
    {"overflow_cell.csv", 9, "found '1e999'"},
    {"blank_time.csv", 9, "column 2: Time: expected a finite number"},
    {"duplicate_marker_names.csv", 4, "duplicate marker name 'A' (also at column 3)"},
    {"duplicate_marker_adjacent.csv", 7, "duplicate marker name 'A'"},
    {"unnamed_marker.csv", 4, "marker column without a name"},
    {"missing_z_axis.csv", 7, "marker 'A' has no Z column"},
    {"zero_frames.csv", 7, "no data frames"},
    {"marker_never_seen.csv", 8, "no marker data"},
    {"rigid_body_only.csv", 3, "no markers"},
    {"non_monotonic_time.csv", 10, "goes back"},
    {"repeated_time.csv", 10, "repeats"},
    {"unknown_units.csv", 1, "unknown Length Units 'Furlongs'"},
    {"missing_units.csv", 1, "no 'Length Units'"},
    {"bad_total_frames.csv", 1, "not a frame count"},
    {"frame_count_mismatch.csv", 10, "Total Exported Frames 5"},
    {"missing_frame_column.csv", 7, "Frame column is missing"},
    {"bad_time_header.csv", 7, "expected the 'Time (Seconds)' column"},
    {"not_motive.csv", 1, "not a Motive CSV export"},
    {"empty.csv", 1, "empty file"},
    {"binary_garbage.csv", 1, "binary data"},
    {"binary_nul_in_data.csv", 10, "binary data (byte 0x00"},
    {"stray_quote.csv", 8, "malformed CSV"},
    {"unterminated_quote.csv", 10, "malformed CSV"},
};
static const int n_cases = sizeof cases / sizeof cases[0];

/* The reader's error for path: CF_EFORMAT, names the file and the line. */
static void check_reader(const char *path, long line, const char *why) {
  cf_recording r;
  cf_error err = {0, ""};
  char at[64];
  snprintf(at, sizeof at, ": line %ld", line);
  int rc = cf_motive_read(path, NULL, &r, &err);
  CHECK(rc == CF_EFORMAT, "%s: rc %d (%s)", path, rc, err.msg);
  CHECK(strstr(err.msg, path) == err.msg, "%s: message does not start with the file: %s", path, err.msg);
  CHECK(strstr(err.msg, at) != NULL, "%s: message does not name line %ld: %s", path, line, err.msg);
  CHECK(strstr(err.msg, why) != NULL, "%s: message lacks '%s': %s", path, why, err.msg);
  CHECK(strchr(err.msg, '\n') == NULL, "%s: multi-line message", path);
}

/* Run `clothfit ingest motive path -o dir/rec.h5`; returns the exit status
 * and the number of stderr lines in *lines. */
static int run_ingest(const char *exe, const char *path, const char *dir, int *lines) {
  char out[1024], errf[1024];
  snprintf(out, sizeof out, "%s/rec.h5", dir);
  snprintf(errf, sizeof errf, "%s.stderr", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {(char *)exe, "ingest", "motive", (char *)path, "-o", out, NULL};
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

static void check_cli(const char *exe, const char *path, const char *outdir) {
  int lines = 0, status = run_ingest(exe, path, outdir, &lines);
  CHECK(status != 0 && status != -1, "%s: clothfit ingest exit status %d", path, status);
  CHECK(lines == 1, "%s: %d stderr lines, expected exactly 1", path, lines);
  CHECK(cf_test_dir_entries(outdir) == 0, "%s: ingest left %d file(s) in %s", path, cf_test_dir_entries(outdir), outdir);
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
    check_reader(path, where ? 9 : 1, "longer than 1048576 bytes");
    check_cli(exe, path, outdir);
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
    check_reader(path, cases[i].line, cases[i].why);
    check_cli(exe, path, outdir);
  }
  long_lines(exe, tmp, outdir);
  rmdir(outdir);
  rmdir(tmp);
  return cf_test_done("test_motive_malformed");
}
