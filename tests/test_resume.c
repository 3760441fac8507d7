/* test_resume.c — crash-safe sweeps and shards (docs/cluster.md, docs/design.md §9):
 *   - kill -9 at random moments (5 runs, seeded): the rerun of the same
 *     command resumes from RESULTS.h5.journal, runs exactly the tasks the
 *     journal does not hold (tasks_resumed = its records, tasks_resumed +
 *     tasks_run = the grid), and writes results bitwise equal to an
 *     uninterrupted run's (errors, stds, status, pruned flags, best point);
 *     a results file that existed before the crash stays readable; the
 *     journal is removed once the results are written;
 *   - the same grid on 1 and 2 workers and as 3 shards joined by `merge`
 *     gives the same results;
 *   - a journal of another run (other grid) is refused naming --restart, and
 *     --restart discards it; a damaged record is one error line naming the
 *     file, its line and the task, with no results file; a torn last line
 *     (a write cut short) is dropped and its task runs again;
 *   - with Open MPI: `mpirun -n 2` and `mpirun -n 3 --oversubscribe` give
 *     the same results (their provenance names the ranks and hosts), and a
 *     killed mpirun resumes from the journal;
 *   - `merge` names every missing task and writes nothing; it refuses a
 *     results file that is not a shard.
 * usage: test_resume CLOTHFIT_EXE */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cf_study.h"
#include "cli_json.h"
#include "sweepcmp.h"
#include "synthrec.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_resume.XXXXXX", rec[600];
/* 6 x 6, not the 10 x 10 it had first: the test took 206 s under ASan in CI, its
 * sweeps ran 100 tasks each; 36 are still enough for kills in the middle of a run. */
static char *const GRID[] = {"--delta-grid", "0.01:0.08:6", "--alpha-grid", "0.1:0.5:6"};
enum { NPTS = 36 };

static int run(char **out, char **err, const char *a0, ...) {
  char *argv[40] = {(char *)exe, (char *)a0};
  va_list ap;
  va_start(ap, a0);
  for (int i = 2; i < 39 && (argv[i] = va_arg(ap, char *)); i++) {
  }
  va_end(ap);
  return cf_test_run(argv, dir, out, err);
}

static void path_of(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

/* `sweep REC GRID --workers W -o out [extra] --json`; its JSON's key or -1. */
static int sweep(const char *out, const char *workers, const char *extra, const char *key, long *value) {
  char o[600], *so = NULL, *se = NULL;
  path_of(o, sizeof o, out);
  int st = extra ? run(&so, &se, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "--workers", workers, "-o", o,
                       "--json", extra, (char *)NULL)
                 : run(&so, &se, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "--workers", workers, "-o", o,
                       "--json", (char *)NULL);
  if (key && value) *value = st == 0 ? (long)cf_test_json_num(cf_test_last_line(so), key) : -1;
  if (st) fprintf(stderr, "sweep %s: status %d: %s", out, st, se ? se : "");
  free(so);
  free(se);
  return st;
}

/* Complete records in a journal (lines ending in a newline, less the header). */
static int journal_records(const char *out) {
  char p[700];
  snprintf(p, sizeof p, "%s/%s.journal", dir, out);
  char *t = cf_test_slurp(p, NULL);
  int n = -1;
  for (char *c = t; c && *c; c++) n += *c == '\n';
  free(t);
  return n;
}

static int exists(const char *name) {
  char p[700];
  path_of(p, sizeof p, name);
  return access(p, F_OK) == 0;
}

/* Start the sweep into out, SIGKILL it after ms milliseconds, or (ms < 0)
 * as soon as its journal holds -ms records (polled every 10 ms, for at most
 * 120 s): a fixed delay is too short on a loaded machine under ASan. */
static void kill_after(const char *out, int ms) {
  char o[600];
  path_of(o, sizeof o, out);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execl(exe, exe, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "--workers", "2", "-o", o, (char *)NULL);
    _exit(127);
  }
  if (ms >= 0) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  } else {
    for (int w = 0; w < 12000 && journal_records(out) < -ms; w++) usleep(10000);
  }
  kill(pid, SIGKILL);
  int st;
  waitpid(pid, &st, 0);
  usleep(100000); /* the workers die with it (PR_SET_PDEATHSIG) */
}

static void crashes(void) {
  CHECK(sweep("ref.h5", "1", NULL, NULL, NULL) == 0, "reference sweep");
  CHECK(!exists("ref.h5.journal"), "the journal outlives a finished sweep");
  long ms_total;
  { /* timing of a whole sweep on 2 workers, to spread the kills over it */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK(sweep("w2.h5", "2", NULL, NULL, NULL) == 0, "2-worker sweep");
    clock_gettime(CLOCK_MONOTONIC, &b);
    ms_total = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
  }
  same_sweep(dir, "ref.h5", "w2.h5");
  unsigned long long seed = 20261125;
  for (int k = 0; k < 5; k++) {
    char out[32];
    snprintf(out, sizeof out, "crash%d.h5", k);
    if (k == 3) { /* a results file from before: it must stay readable */
      CHECK(sweep(out, "2", NULL, NULL, NULL) == 0, "sweep before the crash");
    }
    int ms = (int)(ms_total * (0.1 + 0.3 * (cf_test_rand(&seed) + 1)));
    kill_after(out, ms);
    int persisted = journal_records(out);
    if (k == 3) same_sweep(dir, "ref.h5", out);
    long resumed = -1;
    CHECK(sweep(out, "2", NULL, "tasks_resumed", &resumed) == 0, "rerun %d", k);
    CHECK(persisted < 0 || resumed == persisted, "run %d (killed at %d ms): resumed %ld tasks, the journal held %d",
          k, ms, resumed, persisted);
    fprintf(stderr, "run %d: killed after %d of ~%ld ms, %d tasks persisted\n", k, ms, ms_total, persisted);
    same_sweep(dir, "ref.h5", out);
    char j[64];
    snprintf(j, sizeof j, "%s.journal", out);
    CHECK(!exists(j), "the journal outlives the rerun");
  }
}

static void journal_errors(void) {
  char o[600], j[700], *so = NULL, *se = NULL;
  kill_after("bad.h5", -2);
  path_of(o, sizeof o, "bad.h5");
  snprintf(j, sizeof j, "%s.journal", o);
  int persisted = journal_records("bad.h5");
  CHECK(persisted >= 2 && persisted < NPTS, "killed with %d records in the journal, expected 2 .. %d", persisted,
        NPTS - 1);
  /* another grid: refused */
  int st = run(&so, &se, "sweep", rec, "--delta-grid", "0.01:0.08:5", GRID[2], GRID[3], "-o", o, (char *)NULL);
  CHECK(st != 0 && se && strstr(se, j) && strstr(se, "--restart") && !strchr(strchr(se, '\n') + 1, '\n') &&
            !exists("bad.h5"), "other grid: status %d, '%s'", st, se ? se : "");
  free(so), free(se);
  /* damage the second record's value */
  size_t len;
  char *t = cf_test_slurp(j, &len);
  char *l2 = t ? strchr(strchr(t, '\n') + 1, '\n') + 1 : NULL, *x = l2 ? strstr(l2, "0x1.") : NULL;
  CHECK(x, "no value in the journal");
  if (x) {
    char orig = x[4];
    x[4] = orig == '1' ? '2' : '1';
    FILE *f = fopen(j, "wb");
    fwrite(t, 1, len, f);
    fclose(f);
    long dummy;
    so = se = NULL;
    st = run(&so, &se, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "-o", o, (char *)NULL);
    CHECK(st != 0 && se && strstr(se, j) && strstr(se, ":3:") && strstr(se, "task") && !exists("bad.h5"),
          "damaged record: status %d, '%s'", st, se ? se : "");
    free(so), free(se);
    /* a torn last line: dropped, its task runs again */
    x[4] = orig;
    f = fopen(j, "wb");
    fwrite(t, 1, len - 5, f);
    fclose(f);
    CHECK(sweep("bad.h5", "2", NULL, "tasks_resumed", &dummy) == 0 && dummy == persisted - 1,
          "torn journal: resumed %ld of %d", dummy, persisted);
    same_sweep(dir, "ref.h5", "bad.h5");
    /* --restart discards a journal of another run */
    kill_after("bad.h5", -1); /* a journal of the whole grid */
    so = se = NULL;
    st = run(&so, &se, "sweep", rec, "--delta-grid", "0.01:0.08:5", GRID[2], GRID[3], "-o", o, "--restart", "--json",
             (char *)NULL);
    CHECK(st == 0 && cf_test_json_num(cf_test_last_line(so), "tasks_resumed") == 0 &&
              cf_test_json_num(cf_test_last_line(so), "tasks_run") == 30,
          "--restart: status %d", st);
    free(so), free(se);
  }
  free(t);
}

/* The grid as 3 shards (one on 2 workers) joined by merge equals the
 * single run; without one shard, merge names its tasks and writes nothing. */
static void shards(void) {
  char o[3][600], m[600], *so = NULL, *se = NULL;
  for (int i = 0; i < 3; i++) {
    char name[32], spec[16];
    snprintf(name, sizeof name, "shard%d.h5", i);
    snprintf(spec, sizeof spec, "--shard=%d/3", i);
    path_of(o[i], sizeof o[i], name);
    long ran = -1;
    CHECK(sweep(name, i == 1 ? "2" : "1", spec, "tasks_run", &ran) == 0 && ran == (NPTS + 2 - i) / 3,
          "shard %d ran %ld tasks", i, ran);
  }
  path_of(m, sizeof m, "merged.h5");
  int st = run(&so, &se, "merge", o[0], o[1], o[2], "-o", m, (char *)NULL);
  CHECK(st == 0, "merge: status %d: %s", st, se ? se : "");
  free(so), free(se);
  same_sweep(dir, "ref.h5", "merged.h5");
  path_of(m, sizeof m, "partial.h5");
  so = se = NULL;
  st = run(&so, &se, "merge", o[2], o[0], "-o", m, (char *)NULL);
  int named = 0;
  for (const char *c = se; c && (c = strstr(c, "missing task ")); c++) named++;
  char missing[32];
  snprintf(missing, sizeof missing, "%d missing", (NPTS + 1) / 3); /* shard 1's tasks */
  CHECK(st != 0 && named == (NPTS + 1) / 3 && !exists("partial.h5") && se && strstr(se, missing),
        "merge without shard 1: status %d, %d missing tasks named", st, named);
  free(so), free(se);
  path_of(m, sizeof m, "ref.h5");
  so = se = NULL;
  st = run(&so, &se, "merge", o[0], m, "-o", o[2], (char *)NULL);
  CHECK(st != 0 && se && strstr(se, m) && strstr(se, "not a shard"), "merge of a non-shard: '%s'", se ? se : "");
  free(so), free(se);
}

/* mpirun -n 2 and -n 3 --oversubscribe give the single run's results; an
 * MPI run killed with SIGKILL (mpirun itself) resumes like a local one. */
static void mpi(void) {
  char mpirun[512], *so = NULL;
  if (!cf_test_mpi_setup("test_resume", exe, dir, mpirun, sizeof mpirun)) return;
  const char *ranks[2][3] = {{"-n", "2", NULL}, {"-n", "3", "--oversubscribe"}};
  for (int k = 0; k < 2; k++) {
    char out[32], o[600], *se = NULL;
    snprintf(out, sizeof out, "mpi%d.h5", k);
    path_of(o, sizeof o, out);
    char *argv[24] = {mpirun, (char *)ranks[k][0], (char *)ranks[k][1]};
    int a = 3;
    if (ranks[k][2]) argv[a++] = (char *)ranks[k][2];
    char *tail[] = {(char *)exe, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "-o", o, NULL};
    memcpy(argv + a, tail, sizeof tail);
    so = NULL;
    int st = cf_test_run(argv, dir, &so, &se);
    CHECK(st == 0, "mpirun %s %s: status %d: %s", ranks[k][0], ranks[k][1], st, se ? se : "");
    free(so), free(se);
    if (st == 0) same_sweep(dir, "ref.h5", out);
    cf_results r;
    cf_results_init(&r);
    cf_error err = {0, ""};
    CHECK(st || (cf_results_read(o, &r, &err) == 0 && r.prov.ranks == 2 + k && strstr(r.prov.hosts, k ? " x3" : " x2")),
          "%s: provenance ranks %d, hosts '%s' %s", out, r.prov.ranks, r.prov.hosts, err.msg);
    cf_results_free(&r);
  }
  /* kill -9 of mpirun, then resume under mpirun */
  char o[600];
  path_of(o, sizeof o, "mpikill.h5");
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execl(mpirun, mpirun, "-n", "2", exe, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "-o", o, (char *)NULL);
    _exit(127);
  }
  for (int w = 0; w < 400 && journal_records("mpikill.h5") < NPTS / 2; w++) usleep(50000); /* mid-run */
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  usleep(500000);
  int persisted = journal_records("mpikill.h5");
  char *se = NULL;
  so = NULL;
  char *argv[] = {mpirun, "-n", "2", (char *)exe, "sweep", rec, GRID[0], GRID[1], GRID[2], GRID[3], "-o", o, "--json",
                  NULL};
  int st = cf_test_run(argv, dir, &so, &se);
  double resumed = so ? cf_test_json_num(cf_test_last_line(so), "tasks_resumed") : -1;
  CHECK(st == 0 && persisted >= NPTS / 2 && persisted < NPTS && resumed == persisted, "mpirun resume: status %d, resumed %g, journal held %d",
        st, resumed, persisted);
  fprintf(stderr, "mpirun killed with %d tasks persisted\n", persisted);
  free(so), free(se);
  if (st == 0) same_sweep(dir, "ref.h5", "mpikill.h5");
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: test_resume CLOTHFIT_EXE\n"), 2;
  exe = argv[1];
  CHECK(mkdtemp(dir), "mkdtemp");
  path_of(rec, sizeof rec, "rec.h5");
  CHECK(cf_test_sweep_recording(rec) == 0, "writing %s", rec);
  crashes();
  journal_errors();
  shards();
  mpi();
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (!cf_test_failures && system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return cf_test_done("test_resume");
}
