#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cf_common.h"

extern char **environ;

int cf_test_failures = 0;

int cf_test_done(const char *name) {
  if (cf_test_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, cf_test_failures);
  else printf("%s: all checks passed\n", name);
  return cf_test_failures ? 1 : 0;
}

double cf_test_rand(unsigned long long *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

char *cf_test_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  if (b) b[n] = 0;
  if (b && len) *len = (size_t)n;
  fclose(f);
  return b;
}

int cf_test_run(char *const argv[], const char *dir, char **out, char **err) {
  char so[1100], se[1100];
  snprintf(so, sizeof so, "%s/run.stdout", dir);
  snprintf(se, sizeof se, "%s/run.stderr", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, so, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, se, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int st = -1, rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == 0) waitpid(pid, &st, 0);
  if (out) *out = cf_test_slurp(so, NULL);
  if (err) *err = cf_test_slurp(se, NULL);
  remove(so);
  remove(se);
  return rc == 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *cf_test_run_ok(char *const argv[], const char *dir, const char *what) {
  char *out = NULL, *err = NULL;
  int st = cf_test_run(argv, dir, &out, &err);
  CHECK(st == 0, "%s: status %d: %s", what, st, err ? err : "");
  free(err);
  if (st) free(out), out = NULL;
  return out;
}

int cf_test_synth_ingest(const char *exe, const char *dir, const char *src, const char *extra, const char *stem,
                         char *h5, size_t size) {
  char ini[1100], csv[1100], meta[1100], map[1100];
  snprintf(ini, sizeof ini, "%s/%s.ini", dir, stem);
  snprintf(csv, sizeof csv, "%s/%s.csv", dir, stem);
  snprintf(meta, sizeof meta, "%s/%s.meta.ini", dir, stem);
  snprintf(map, sizeof map, "%s/%s.map", dir, stem);
  snprintf(h5, size, "%s/%s.h5", dir, stem);
  char *text = cf_test_slurp(src, NULL);
  FILE *f = text ? fopen(ini, "w") : NULL;
  CHECK(f != NULL, "cannot copy %s to %s", src, ini);
  if (!f) return free(text), -1;
  fprintf(f, "%s\n%s", text, extra);
  fclose(f);
  free(text);
  char *a1[] = {(char *)exe, "synth", ini, "-o", csv, NULL};
  char *o = cf_test_run_ok(a1, dir, "synth");
  if (!o) return -1;
  free(o);
  char *a2[] = {(char *)exe, "ingest", "motive", csv, "--meta", meta, "--map", map, "-o", h5, NULL};
  o = cf_test_run_ok(a2, dir, "ingest");
  free(o);
  return o ? 0 : -1;
}

int cf_test_find_program(const char *name, char *buf, size_t size) {
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    size_t len = strcspn(p, ":");
    snprintf(buf, size, "%.*s/%s", (int)len, p, name);
    if (len && access(buf, X_OK) == 0) return 1;
    p += len + (p[len] == ':');
  }
  return 0;
}

int cf_test_dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

int cf_test_corpus_begin(int argc, char **argv, int n_cases, char *tmp, char *outdir, size_t size) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CORPUS_DIR CLOTHFIT_EXE\n", argv[0]);
    return 2;
  }
  CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
  snprintf(outdir, size, "%s/out", tmp);
  mkdir(outdir, 0755);
  CHECK(cf_test_dir_entries(argv[1]) == n_cases, "%d cases, %d folders in %s: every malformed case needs an expected "
        "message here", n_cases, cf_test_dir_entries(argv[1]), argv[1]);
  return 0;
}

void cf_test_refused(const char *name, int rc, const char *msg, const char *start, const char *why) {
  CHECK(rc == CF_EFORMAT, "%s: rc %d (%s)", name, rc, msg);
  CHECK(strstr(msg, start) == msg, "%s: message does not start with '%s': %s", name, start, msg);
  CHECK(strstr(msg, why) != NULL, "%s: message lacks '%s': %s", name, why, msg);
  CHECK(strchr(msg, '\n') == NULL, "%s: multi-line message", name);
}

void cf_test_cli_refuses(char *const argv[], const char *tmp, const char *outdir, const char *name) {
  char *se = NULL;
  int status = cf_test_run(argv, tmp, NULL, &se), lines = 0;
  for (const char *p = se; p && *p; p++) lines += *p == '\n';
  CHECK(status > 0, "%s: clothfit %s %s exit status %d", name, argv[1], argv[2], status);
  CHECK(lines == 1 && se[strlen(se) - 1] == '\n', "%s: %d stderr lines, expected exactly 1: %s", name, lines,
        se ? se : "");
  CHECK(cf_test_dir_entries(outdir) == 0, "%s: left %d file(s) in %s", name, cf_test_dir_entries(outdir), outdir);
  free(se);
}

int cf_test_cli_begin(int argc, char **argv, const char **exe, const char **root, char *dir) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CLOTHFIT_EXE SOURCE_ROOT\n", argv[0]);
    return 2;
  }
  *exe = argv[1], *root = argv[2];
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  return 0;
}

int cf_test_cli_end(const char *dir, const char *name) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return cf_test_done(name);
}

int cf_test_run_va(const char *exe, const char *dir, char **out, char **err, const char *a0, va_list ap) {
  char *argv[32] = {(char *)exe, (char *)a0};
  for (int i = 2; i < 31 && (argv[i] = va_arg(ap, char *)); i++) {
  }
  argv[31] = NULL;
  return cf_test_run(argv, dir, out, err);
}

int cf_test_run_args(const char *exe, const char *dir, char **out, char **err, const char *a0, ...) {
  va_list ap;
  va_start(ap, a0);
  int st = cf_test_run_va(exe, dir, out, err, a0, ap);
  va_end(ap);
  return st;
}
