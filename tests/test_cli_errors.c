/* test_cli_errors.c — `clothfit simulate` on bad input (docs/design.md §2: exit 0
 * only on success; cf_io.h: errors name the file, the line or field, and
 * what was expected; writes are atomic).
 *
 * Every case runs the real binary (posix_spawn, no shell) in a fresh
 * mkdtemp folder with `-o OUT.h5` and requires: a normal exit with a
 * non-zero status, nothing on stdout, exactly one line on stderr that starts
 * with "clothfit simulate: " and names the config file (and, for syntax
 * errors, "FILE:LINE:"), and no OUT.h5 or OUT.h5.tmp.* left behind.
 *
 * usage: test_cli_errors CLOTHFIT_EXE SOURCE_ROOT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cf_common.h"
#include "testutil.h"

extern char **environ;

static const char *exe;
static char base[] = "/tmp/cf_cli_errors.XXXXXX";
static char *ini_text; /* experiments/shake_a2.ini */
static int case_no;


/* Write the reference config with the line starting with `key` replaced by
 * `repl`; returns the (1-based) line number of the replaced line. */
static int write_config(const char *path, const char *key, const char *repl) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int line = 0, at = 0;
  size_t kl = strlen(key);
  for (const char *p = ini_text; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    line++;
    if (!at && n >= kl && !strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '=')) {
      fprintf(f, "%s\n", repl);
      at = line;
    } else {
      fprintf(f, "%.*s\n", (int)n, p);
    }
    p += n + (e ? 1 : 0);
  }
  fclose(f);
  return at;
}

/* Deterministic binary junk; with_nul = 0 avoids NUL bytes. */
static void write_garbage(const char *path, int with_nul) {
  FILE *f = fopen(path, "wb");
  unsigned long long s = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)with_nul;
  for (int i = 0; i < 4096; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    unsigned char c = (unsigned char)(s >> 56);
    if (!with_nul && c == 0) c = 0x1b;
    if (with_nul && i == 100) c = 0;
    fputc(c, f);
  }
  fclose(f);
}

typedef struct {
  int status;    /* exit status, -1 if not a normal exit */
  char *out, *err;
  size_t err_len;
} run_result;

static run_result run(char *const argv[]) {
  run_result r = {-1, NULL, NULL, 0};
  char so[256], se[256];
  snprintf(so, sizeof so, "%s/stdout.txt", base);
  snprintf(se, sizeof se, "%s/stderr.txt", base);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, so, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, se, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    CHECK(0, "posix_spawn %s: %s", exe, strerror(rc));
    return r;
  }
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (WIFSIGNALED(st)) fprintf(stderr, "killed by signal %d\n", WTERMSIG(st));
  r.out = cf_test_slurp(so, NULL);
  r.err = cf_test_slurp(se, &r.err_len);
  remove(so);
  remove(se);
  return r;
}

/* Files in dir other than `keep`; names listed into buf. */
static int stray_files(const char *dir, const char *keep, char *buf, size_t n) {
  DIR *d = opendir(dir);
  int c = 0;
  buf[0] = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (keep && !strcmp(e->d_name, keep))) continue;
    c++;
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, " %s", e->d_name);
  }
  closedir(d);
  return c;
}

static void remove_all(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char p[512];
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    remove(p);
  }
  closedir(d);
  rmdir(dir);
}

/* A case: cfg is written by the caller into dir (or not at all); `need`
 * strings must all occur in the message. */
static void expect_failure(const char *what, const char *dir, const char *cfg, const char *out,
                           const char *keep, const char *need1, const char *need2) {
  char *argv[] = {(char *)exe, "simulate", (char *)cfg, "-o", (char *)out, NULL};
  run_result r = run(argv);
  CHECK(r.status > 0, "%s: exit status %d, expected a normal non-zero exit", what, r.status);
  CHECK(r.out && r.out[0] == 0, "%s: stdout not empty: '%s'", what, r.out ? r.out : "(null)");
  const char *e = r.err ? r.err : "";
  int newlines = 0, ctrl = 0;
  for (size_t i = 0; i < r.err_len; i++) {
    unsigned char c = (unsigned char)e[i];
    newlines += c == '\n';
    ctrl += (c < 0x20 && c != '\n') || c == 0x7f;
  }
  CHECK(r.err && newlines == 1 && r.err_len > 0 && e[r.err_len - 1] == '\n' && strlen(e) == r.err_len,
        "%s: stderr is not exactly one line: '%s'", what, e);
  CHECK(ctrl == 0, "%s: the message contains %d control characters", what, ctrl);
  CHECK(!strncmp(e, "clothfit simulate: ", 19), "%s: message does not start with 'clothfit simulate: ': '%s'",
        what, e);
  if (need1) CHECK(strstr(e, need1) != NULL, "%s: message does not contain '%s': '%s'", what, need1, e);
  if (need2) CHECK(strstr(e, need2) != NULL, "%s: message does not contain '%s': '%s'", what, need2, e);
  char list[1024];
  int stray = stray_files(dir, keep, list, sizeof list);
  CHECK(stray == 0, "%s: files left behind:%s", what, list);
  printf("ok  %-28s %s", what, e);
  free(r.out);
  free(r.err);
}

/* One config case in its own fresh folder.  key/repl: the line to replace
 * (key NULL: write `garbage` instead, 1 with NUL bytes, 0 without). */
static void config_case(const char *what, const char *key, const char *repl, int garbage, int want_line,
                        const char *need) {
  char dir[256], cfg[300], out[300], loc[400];
  snprintf(dir, sizeof dir, "%s/case%02d", base, ++case_no);
  if (mkdir(dir, 0700) != 0) {
    CHECK(0, "mkdir %s: %s", dir, strerror(errno));
    return;
  }
  snprintf(cfg, sizeof cfg, "%s/cfg.ini", dir);
  snprintf(out, sizeof out, "%s/OUT.h5", dir);
  int line = 0;
  if (key) {
    line = write_config(cfg, key, repl);
    CHECK(line > 0, "%s: key '%s' not in shake_a2.ini", what, key);
  } else {
    write_garbage(cfg, garbage);
  }
  if (want_line && line > 0) snprintf(loc, sizeof loc, "%s:%d:", cfg, line);
  else snprintf(loc, sizeof loc, "%s", cfg);
  expect_failure(what, dir, cfg, out, "cfg.ini", loc, need);
  remove_all(dir);
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 3) {
    fprintf(stderr, "usage: %s CLOTHFIT_EXE SOURCE_ROOT\n", argv[0]);
    return 2;
  }
  exe = argv[1];
  char ref[1024];
  snprintf(ref, sizeof ref, "%s/experiments/shake_a2.ini", argv[2]);
  ini_text = cf_test_slurp(ref, NULL);
  CHECK(ini_text != NULL, "cannot read %s", ref);
  CHECK(mkdtemp(base) != NULL, "mkdtemp: %s", strerror(errno));
  if (!ini_text) return cf_test_done("test_cli_errors");

  /* the reference config itself is fine (sanity for the harness): a short run */
  {
    char dir[256], cfg[300], out[300];
    snprintf(dir, sizeof dir, "%s/ok", base);
    mkdir(dir, 0700);
    snprintf(cfg, sizeof cfg, "%s/cfg.ini", dir);
    snprintf(out, sizeof out, "%s/OUT.h5", dir);
    write_config(cfg, "duration", "duration = 0.05");
    char *av[] = {(char *)exe, "simulate", cfg, "-o", out, NULL};
    run_result r = run(av);
    struct stat sb;
    CHECK(r.status == 0 && r.err && r.err[0] == 0, "valid config: status %d, stderr '%s'", r.status,
          r.err ? r.err : "");
    CHECK(stat(out, &sb) == 0 && sb.st_size > 0, "valid config: no OUT.h5");
    char list[1024];
    CHECK(stray_files(dir, "cfg.ini", list, sizeof list) == 1, "valid config: files:%s", list);
    free(r.out);
    free(r.err);
    remove_all(dir);
  }

  config_case("unknown key", "noise", "nosie = 0", 0, 1, "nosie");
  config_case("non-numeric value", "delta", "delta = 0.04l   ; typo", 0, 1, "delta");
  config_case("nx = 1", "nx", "nx = 1", 0, 1, "nx");
  config_case("negative rho", "rho", "rho = -0.1042", 0, 0, "rho");
  config_case("negative ks", "ks", "ks = -0.5", 0, 0, "ks");
  config_case("malformed line", "height", "height 0.594", 0, 1, NULL);
  /* inih reads 199 bytes at a time: a longer line is named, not its tail */
  config_case("long line", "height", "height = 0.594 ; xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
              "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
              "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0, 1, "longer than 198 characters");
  /* obstacles (docs/contacts.md): the seed line of [cloth] is followed by
   * an obstacle section, so these errors are a few lines further down */
  config_case("obstacle: unknown kind", "seed", "seed = 1\n[obstacle.a]\nkind = cone", 0, 0, "kind");
  config_case("obstacle: key before kind", "seed", "seed = 1\n[obstacle.a]\nradius = 0.1", 0, 0, "'kind'");
  config_case("obstacle: key of another kind", "seed", "seed = 1\n[obstacle.a]\nkind = sphere\nnormal = 0, 0, 1", 0, 0,
              "normal");
  config_case("obstacle: negative radius", "seed", "seed = 1\n[obstacle.a]\nkind = sphere\nradius = -1", 0, 0, "radius");
  config_case("obstacle: no radius", "seed", "seed = 1\n[obstacle.ball]\nkind = sphere", 0, 0, "[obstacle.ball] radius");
  config_case("obstacle: negative mu", "seed", "seed = 1\n[obstacle.a]\nkind = plane\nmu = -0.2", 0, 0, "mu");
  config_case("obstacle: zero normal", "seed", "seed = 1\n[obstacle.a]\nkind = plane\nnormal = 0, 0, 0", 0, 0,
              "normal");
  config_case("contact: negative thickness", "seed", "seed = 1\n[contact]\nthickness = -1", 0, 0, "thickness");
  config_case("contact: unknown friction", "seed", "seed = 1\n[contact]\nfriction = sticky", 0, 0, "lagged or budget");
  config_case("contact: unknown solver", "seed", "seed = 1\n[contact]\nsolver = simplex", 0, 0, "active-set or ipopt");
  config_case("stick: zero length", "seed", "seed = 1\n[obstacle.s]\nkind = stick\nlength = 0", 0, 0, "length > 0");
  config_case("stick: no length", "seed", "seed = 1\n[obstacle.s]\nkind = stick", 0, 0, "[obstacle.s] length");
  config_case("needles: one extent", "seed", "seed = 1\n[obstacle.n]\nkind = needles\nfield = 1", 0, 0,
              "two lengths");
  config_case("needles: no c1", "seed", "seed = 1\n[obstacle.n]\nkind = needles\nc2 = 0.075", 0, 0,
              "[obstacle.n] c1");
  config_case("needles: c1 of a sphere", "seed", "seed = 1\n[obstacle.n]\nkind = sphere\nc1 = 20", 0, 0,
              "this obstacle kind");
  config_case("contact: self = 2", "seed", "seed = 1\n[contact]\nself = 2", 0, 0, "0 or 1");
  config_case("contact: omega 0.7", "seed", "seed = 1\n[contact]\nomega = 0.7", 0, 0, "[0, 0.5]");
  config_case("cloth: tube of triangles", "seed", "seed = 1\norientation = tube\nmesh = triangles", 0, 0, "tube");
  config_case("binary garbage (NUL bytes)", NULL, NULL, 1, 0, NULL);
  config_case("binary garbage (no NUL)", NULL, NULL, 0, 0, NULL);

  /* missing file */
  {
    char dir[256], cfg[300], out[300];
    snprintf(dir, sizeof dir, "%s/missing", base);
    mkdir(dir, 0700);
    snprintf(cfg, sizeof cfg, "%s/does-not-exist.ini", dir);
    snprintf(out, sizeof out, "%s/OUT.h5", dir);
    expect_failure("missing file", dir, cfg, out, NULL, cfg, NULL);
    remove_all(dir);
  }
  /* a run that fails in the middle (projection cannot converge): the
   * trajectory is never written */
  {
    char dir[256], cfg[300], out[300];
    snprintf(dir, sizeof dir, "%s/noconv", base);
    mkdir(dir, 0700);
    snprintf(cfg, sizeof cfg, "%s/cfg.ini", dir);
    snprintf(out, sizeof out, "%s/OUT.h5", dir);
    FILE *f = fopen(cfg, "w");
    fputs("[sim]\ntol = 1e-15\nmax_iter = 1\nduration = 1\n[cloth]\nnoise = 0.003\n", f);
    fclose(f);
    expect_failure("no convergence", dir, cfg, out, "cfg.ini", "step 1", NULL);
    remove_all(dir);
  }
  /* the output cannot be created (its folder would be a regular file):
   * fails at the write, names the output */
  {
    char dir[256], cfg[300], out[400];
    snprintf(dir, sizeof dir, "%s/nodir", base);
    mkdir(dir, 0700);
    snprintf(cfg, sizeof cfg, "%s/cfg.ini", dir);
    snprintf(out, sizeof out, "%s/OUT.h5", cfg);
    write_config(cfg, "duration", "duration = 0.05");
    expect_failure("unwritable output", dir, cfg, out, "cfg.ini", out, NULL);
    remove_all(dir);
  }
  char list[1024];
  CHECK(stray_files(base, NULL, list, sizeof list) == 0, "left in %s:%s", base, list);
  rmdir(base);
  free(ini_text);
  return cf_test_done("test_cli_errors");
}
