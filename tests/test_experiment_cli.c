/* test_experiment_cli.c — `clothfit experiment aero` on a tiny study made
 * here: four short recordings of the model itself (synthrec.h) with
 * different sizes, densities and speeds, and a fifth whose top corners are
 * pulled apart (no simulation can follow it: every failed grid point is
 * reported on stderr, counted in the JSON and kept in the results file, the
 * recording is left out of the study and the command exits with status 1
 * naming it; docs/driving.md), written as Motive 1.21 CSV files
 * (Y-up, metres, markers in reverse lattice order) with the sidecars of
 * `clothfit synth` (NAME.meta.ini; for one recording only NAME.truth.ini,
 * whose [meta] is read and its other sections skipped).  The command must
 * ingest, sweep a small grid, refine, fit the a-priori formulas and write
 * one results file with everything, every part with the model settings
 * given (--kappa, --tol); a CSV without sidecars is a one-line error that
 * leaves no results file.  Tables A.1 and A.2 apart (one recording is of
 * repetition II).
 * With 'resume' (suite 'resume'), the same study killed with SIGKILL in its
 * refinements and in its regression, `regress` killed, and `fit` killed (with
 * the default search and with --start apriori --search trust), each run again:
 * every task the journal held is resumed and the results equal an
 * uninterrupted run's; and the study under mpirun -n 2 equals it too.
 * usage: test_experiment_cli CLOTHFIT_EXE [resume] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cf_study.h"
#include "cli_json.h"
#include "sweepcmp.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, K = ROWS * COLS, T = 121, N = 5 };
static char dir[] = "/tmp/cf_experiment.XXXXXX";
static const char *exe; /* clothfit */

typedef struct {
  const char *name, *material, *size;
  double w, h, rho, delta, alpha, amp, freq;
} study_rec;

static const study_rec study[N] = {
    {"polyester-A2", "polyester", "A2", 0.42, 0.594, 0.1042, 0.041, 0.307, 0.075, 0.6},
    {"wool-A3", "wool", "A3", 0.297, 0.42, 0.1804, 0.107, 0.579, 0.05, 0.9},
    {"denim-A2", "denim", "A2", 0.42, 0.594, 0.3046, 0.201, 0.898, 0.06, 1.0},
    {"felt-A3", "felt", "A3", 0.297, 0.42, 0.1764, 0.14, 0.5, 0.08, 0.5},
    {"broken-A2", "paper", "A2", 0.42, 0.594, 0.0802, 0.02, 0.2, 0.05, 0.5}, /* corners pulled apart */
};

/* Motive's frame is Y-up: (x_M, y_M, z_M) = (x, z, -y). */
static void write_motive(const char *path, const double *pos) {
  FILE *f = fopen(path, "w");
  fprintf(f, "Format Version,1.21,Take Name,synthetic,Capture Frame Rate,100.000000,Export Frame Rate,100.000000,"
             "Total Frames in Take,%d,Total Exported Frames,%d,Rotation Type,Quaternion,Length Units,Meters,"
             "Coordinate Space,Global\n\n", T, T);
  const char *rows[3] = {"Marker", "Cloth:", "ID"};
  for (int r = 0; r < 3; r++) {
    fprintf(f, ",");
    for (int k = K - 1; k >= 0; k--)
      for (int d = 0; d < 3; d++) r == 0 ? fprintf(f, ",Marker") : fprintf(f, ",%s%d", r == 1 ? rows[1] : "", k + 1);
    fprintf(f, "\n");
  }
  fprintf(f, ",");
  for (int k = 0; k < 3 * K; k++) fprintf(f, ",Position");
  fprintf(f, "\nFrame,Time");
  for (int k = 0; k < K; k++) fprintf(f, ",X,Y,Z");
  fprintf(f, "\n");
  for (int i = 0; i < T; i++) {
    fprintf(f, "%d,%.6f", i, i * 0.01);
    for (int k = K - 1; k >= 0; k--) {
      const double *p = pos + 3 * ((size_t)i * K + k);
      fprintf(f, ",%.9f,%.9f,%.9f", p[0], p[2], -p[1]);
    }
    fprintf(f, "\n");
  }
  fclose(f);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* denim-A2 is of repetition II (the thesis' hanger-driven takes): Table A.2 */
static void make_study(const char *data) {
  mkdir(data, 0777);
  for (int i = 0; i < N; i++) {
    const study_rec *s = &study[i];
    cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = T, .width = s->w, .height = s->h, .rho = s->rho,
                           .delta = s->delta, .alpha = s->alpha, .amplitude = s->amp, .frequency = s->freq,
                           .dt = 0.01, .noise = 1e-4, .seed = 7 + i};
    double *pos = cf_test_shaken_recording(&sp);
    for (int t = 20; i == N - 1 && t < T; t++) pos[3 * ((size_t)t * K + COLS - 1)] += 0.01; /* 2.4 % stretch */
    char path[600], meta[600], truth[900];
    snprintf(path, sizeof path, "%s/%s.csv", data, s->name);
    write_motive(path, pos);
    free(pos);
    snprintf(meta, sizeof meta, "[meta]\nmaterial = %s\nsize = %s\ndensity = %g\nmotion = shake\nspeed = %s\n"
             "repetition = %s\nlattice = %dx%d\n", s->material, s->size, s->rho, i % 2 ? "fast" : "slow",
             i == 2 ? "II" : "I", ROWS, COLS);
    snprintf(truth, sizeof truth, "; ground truth\n%s\n[truth]\ndelta = %g\nalpha = %g  ; 1/s\n\n[cells]\nCloth:1 = 0 0\n",
             meta, s->delta, s->alpha);
    snprintf(path, sizeof path, "%s/%s.truth.ini", data, s->name);
    write_text(path, truth);
    snprintf(path, sizeof path, "%s/%s.meta.ini", data, s->name);
    if (i != 3) write_text(path, meta); /* the last one: metadata from the truth file */
  }
}

static int model_given(const cf_res_model *m) { return m->kappa == 1e-3 && m->beta == 0 && m->tol == 1e-4; }

static void check_results(const char *out) {
  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(out, &r, &err) == CF_OK, "%s", err.msg);
  CHECK(r.n == N, "%d recordings in the results", r.n);
  for (int i = 0; i < r.n; i++) {
    const cf_res_rec *c = &r.recs[i];
    const study_rec *s = NULL;
    for (int j = 0; j < N; j++)
      if (!strcmp(study[j].name, c->name)) s = &study[j];
    if (s == &study[N - 1]) { /* no simulation can follow it: no optimum, no fit, and the others go on; the
                                 reason names the frame where the corners are too far apart */
      CHECK(c->has_sweep && c->sweep.best == -1 && !c->has_fit && strstr(c->sweep.reason[0], "frame 20 ") &&
            strstr(c->sweep.reason[0], "controlled corners are"), "broken: %s", c->has_sweep ? c->sweep.reason[0] : "");
      int kept = 0; /* the failed-point map: every point's status and reason */
      for (int k = 0; c->has_sweep && k < c->sweep.nd * c->sweep.na; k++)
        kept += c->sweep.status[k] != 0 && strstr(c->sweep.reason[k], "(t = 0.200 s)") != NULL;
      CHECK(kept == 9, "broken: %d of 9 failed points kept with their reason", kept);
      continue;
    }
    CHECK(s && c->has_sweep && c->has_fit && c->has_series && c->sweep.nd == 3 && c->sweep.na == 3, "%s", c->name);
    CHECK(s && c->truth_delta == s->delta && c->truth_alpha == s->alpha && c->rho == s->rho, "%s: truth", c->name);
    CHECK(s && !strcmp(c->meta.material, s->material) && c->frames == T, "%s: metadata", c->name);
    CHECK(c->fit.f_best <= c->fit.f_start && c->series.T == T, "%s: fit", c->name);
    /* a fit the held-kappa or held-beta check flagged is refitted with it
     * free (cf_pipeline_free_flagged): then its kappa / beta are its own,
     * within their bounds, and freed_why says why */
    const cf_res_fit *f = &c->fit;
    cf_res_model held = f->model;
    if (f->kappa_fitted) held.kappa = f->model.kappa >= 1e-7 && f->model.kappa <= 0.1 ? 1e-3 : NAN;
    if (f->beta_fitted) held.beta = f->model.beta >= 1e-8 && f->model.beta <= 0.1 ? 0 : NAN;
    CHECK(model_given(&c->sweep.model) && model_given(&held), "%s: model settings (kappa %g%s, beta %g%s)", c->name,
          f->model.kappa, f->kappa_fitted ? " fitted" : "", f->model.beta, f->beta_fitted ? " fitted" : "");
    CHECK(!(f->kappa_fitted || f->beta_fitted) == !f->freed_why[0], "%s: refitted with kappa or beta free, why: '%s'",
          c->name, f->freed_why);
  }
  CHECK(r.reg.has && r.reg.n_used == N - 1 && isfinite(r.reg.R) && r.reg.R <= r.reg.R_start, "regression");
  CHECK(model_given(&r.reg.model), "regression: model settings");
  CHECK(r.prov.config_text && strstr(r.prov.config_text, "dataset = ") && strstr(r.prov.config_text, "kappa = 1e-3") &&
        strstr(r.prov.command, "experiment aero"), "provenance");
  cf_results_free(&r);
}

/* ref and out hold the same results bit for bit but for the provenance and
 * the wall times: h5diff -v lists every object with an x per file that has
 * it, then each object compared ("attribute: <NAME of <PATH>> and ...",
 * "dataset: ...") followed by "N differences found"; every object must be
 * in both files, comparable (same shape and type: h5diff says "Not
 * comparable" and then "0 differences found" otherwise) and every
 * difference a wall_s attribute. */
static void same_results(const char *ref, const char *out, const char *what) {
  char h5diff[512], *o = NULL, *e = NULL;
  CHECK(cf_test_find_program("h5diff", h5diff, sizeof h5diff), "h5diff (Debian's hdf5-tools) is not on PATH");
  char *diff[] = {h5diff, "-v", "--exclude-path", "/provenance", (char *)ref, (char *)out, NULL};
  int st = cf_test_run(diff, dir, &o, &e);
  int objects = 0, unique = 0, other = st > 1 || !o, walls = 0, wall = 0;
  for (const char *l = o; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
    int both = 0, one = 0;
    if (sscanf(l, "    x      x    %n/", &both) >= 0 && both) objects++;
    else if (sscanf(l, " %*[x ] %n/", &one) >= 0 && one) unique++;
    if (!strncmp(l, "attribute: ", 11) || !strncmp(l, "dataset: ", 9) || !strncmp(l, "group  : ", 9))
      wall = !strncmp(l, "attribute: <wall_s of <", 23);
    long nd = 0;
    if (sscanf(l, "%ld differences found", &nd) == 1 && nd > 0) wall ? walls++ : other++;
    if (strstr(l, "not comparable") || strstr(l, "Not comparable")) other++; /* e.g. other dimensions: "0 differences" */
  }
  CHECK(objects > 10 && !unique && !other, "%s: h5diff -v %s %s: status %d, %d objects in both, %d in one only, %d "
        "differences but wall_s: %.3000s %s", what, ref, out, st, objects, unique, other, o ? o : "", e ? e : "");
  printf("h5diff: %s: results equal (%d objects) but for %d wall_s attribute(s) and the provenance\n", what, objects,
         walls);
  free(o), free(e);
}

/* The study's argument vector: args without its -o, then -o out and
 * --recordings recs (the single run's, so that both results name the same
 * recording files), extra (NULL-terminated, may be NULL) and NULL. */
static void study_argv(char **argv, int cap, char **args, char *out, char *recs, char **extra) {
  int n = 0;
  for (int i = 0; args[i] && n < cap - 8; i++)
    if (!strcmp(args[i], "-o") || !strcmp(args[i], "--regress-evals")) i++; /* given below */
    else argv[n++] = args[i];
  argv[n++] = "-o", argv[n++] = out, argv[n++] = "--recordings", argv[n++] = recs;
  for (int i = 0; extra && extra[i] && n < cap - 1; i++) argv[n++] = extra[i];
  argv[n] = NULL;
}

/* Records of each kind in the journal at path: grid points (a sweep's
 * records start with a hex float), Nelder-Mead fits, confidence stencil and
 * regression simulations (its evaluations of R, "reg", and the model
 * search's design, "regd"); distinct task ids in all. */
static int journal_kinds(const char *path, int *grid, int *nm, int *conf, int *reg) {
  char *t = cf_test_slurp(path, NULL);
  *grid = *nm = *conf = *reg = 0;
  int distinct = 0;
  unsigned long long seen[4096];
  for (char *l = t ? strchr(t, '\n') : NULL; l && l[1]; l = strchr(l + 1, '\n')) {
    char *nl = strchr(l + 1, '\n');
    if (!nl) break; /* torn */
    unsigned long long id = strtoull(l + 1, NULL, 10);
    const char *text = strchr(l + 1, ' ');
    if (!text) continue;
    text++;
    if (!strncmp(text, "nm ", 3)) ++*nm;
    else if (!strncmp(text, "conf ", 5)) ++*conf;
    else if (!strncmp(text, "reg ", 4) || !strncmp(text, "regd ", 5)) ++*reg;
    else ++*grid;
    int dup = 0;
    for (int k = 0; k < distinct; k++) dup |= seen[k] == id;
    if (!dup && distinct < 4096) seen[distinct++] = id;
  }
  free(t);
  return distinct;
}

/* Runs argv (stdout, stderr to /dev/null) and kills it with SIGKILL as soon
 * as the journal holds `count` records of kind (0 grid points, 1 fits, 2
 * stencil, 3 regression simulations), polling every poll_us; then waits for
 * its workers to die with it.  n[4] receives the journal's records by kind;
 * returns how many tasks it holds (distinct ids), or -1 when the command
 * ended before it could be killed. */
static int kill_when(char **argv, const char *journal, int kind, int count, int poll_us, int n[4]) {
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0, killed = 0;
  for (long waited = 0; waited < 60000000L && !killed; waited += poll_us) { /* up to 60 s */
    usleep((useconds_t)poll_us);
    journal_kinds(journal, &n[0], &n[1], &n[2], &n[3]);
    if (n[kind] >= count) killed = kill(pid, SIGKILL) == 0;
    else if (waitpid(pid, &st, WNOHANG) == pid) break;
  }
  if (killed) waitpid(pid, &st, 0);
  usleep(200000); /* the workers die with it (PR_SET_PDEATHSIG) */
  int held = journal_kinds(journal, &n[0], &n[1], &n[2], &n[3]);
  return killed ? held : -1;
}

/* Crash safety of the whole study (docs/cluster.md): killed with SIGKILL once its
 * journal holds a first Nelder-Mead fit (phase 0: during the refinements),
 * or 4 regression simulations (phase 1: so grid points, fits and stencils
 * too), then run again, it resumes every task the journal held (JSON
 * tasks_resumed) and writes the results of an uninterrupted run. */
static void crash_resume(char **args, int phase) {
  char ref[400], out[400], recs[400], journal[450];
  snprintf(ref, sizeof ref, "%s/reports/whole.h5", dir), snprintf(out, sizeof out, "%s/reports/crash%d.h5", dir, phase);
  snprintf(recs, sizeof recs, "%s/reports/aero-recordings", dir);
  snprintf(journal, sizeof journal, "%s.journal", out);
  char *extra[] = {"--regress-evals", "40", "--no-report", NULL}, *argv[48], *o = NULL, *e = NULL;
  int st;
  struct stat sb;
  if (stat(ref, &sb) != 0) {
    study_argv(argv, 48, args, ref, recs, extra);
    st = cf_test_run(argv, dir, &o, &e);
    CHECK(st == 1, "uninterrupted study: status %d: %s", st, e ? e : "");
    free(o), free(e);
  }
  study_argv(argv, 48, args, out, recs, extra);
  int c[4], held = kill_when(argv, journal, phase ? 3 : 1, phase ? 4 : 1, 10000, c);
  int grid = c[0], nm = c[1], conf = c[2], reg = c[3], killed = held >= 0;
  CHECK(killed && grid > 0 && nm > 0 && (phase ? conf > 0 && reg >= 4 : reg == 0), "phase %d: killed %d with %d grid, "
        "%d fit, %d stencil, %d regression records", phase, killed, grid, nm, conf, reg);
  printf("killed with %d tasks kept: %d grid points, %d fits, %d stencil and %d regression simulations\n", held, grid,
         nm, conf, reg);
  int n = 0;
  while (argv[n]) n++;
  argv[n] = "--json", argv[n + 1] = NULL;
  o = e = NULL;
  st = cf_test_run(argv, dir, &o, &e);
  const char *j = o ? cf_test_last_line(o) : "";
  CHECK(st == 1 && e && strstr(e, "resuming from ") && cf_test_json_num(j, "tasks_resumed") == held,
        "rerun: status %d, tasks_resumed %g of %d kept: %s", st, cf_test_json_num(j, "tasks_resumed"), held, e ? e : "");
  free(o), free(e);
  same_results(ref, out, phase ? "killed in the regression and resumed" : "killed in the refinements and resumed");
  CHECK(stat(journal, &sb) != 0, "the journal outlives the rerun");
}

/* clothfit fit of one recording, killed with SIGKILL right after its
 * Nelder-Mead fit (search "trust" or "lm": that search from the a-priori
 * start, no grid) went to the journal, then run again: it resumes every
 * task the journal held (grid start, fit, stencil) and writes the
 * uninterrupted run's results. */
static void fit_resume(const char *search) {
  int trust = search != NULL;
  char rec[400], out[2][400], journal[450];
  snprintf(rec, sizeof rec, "%s/reports/aero-recordings/wool-A3.h5", dir);
  for (int k = 0; k < 2; k++) {
    snprintf(out[k], sizeof out[k], "%s/reports/fit%d-%s.h5", dir, k, trust ? search : "nm");
    char *argv[] = {(char *)exe, "fit", rec, "--max-evals", "30", "-o", out[k], "--json", NULL, NULL, NULL, NULL, NULL};
    char *o = NULL, *e = NULL;
    if (trust) argv[8] = "--start", argv[9] = "apriori", argv[10] = "--search", argv[11] = (char *)search;
    int held = 0;
    if (k == 1) {
      snprintf(journal, sizeof journal, "%s.journal", out[k]);
      int c[4];
      held = kill_when(argv, journal, 1, 1, 1000, c);
      int grid = c[0], nm = c[1], conf = c[2], killed = held >= 0;
      CHECK(killed && grid == (trust ? 0 : 240) && nm == 1, "fit: killed %d with %d grid, %d fit, %d stencil records",
            killed, grid, nm, conf);
      printf("fit killed with %d tasks kept: %d grid points, %d fit, %d stencil simulations\n", held, grid, nm, conf);
    }
    int st = cf_test_run(argv, dir, &o, &e);
    const char *j = o ? cf_test_last_line(o) : "";
    CHECK(st == 0 && cf_test_json_num(j, "tasks_resumed") == held, "fit %d: status %d, tasks_resumed %g of %d: %s", k,
          st, cf_test_json_num(j, "tasks_resumed"), held, e ? e : "");
    free(o), free(e);
  }
  char what[64];
  snprintf(what, sizeof what, "%s fit killed and resumed", trust ? search : "Nelder-Mead");
  same_results(out[0], out[1], what);
}

/* Under mpirun -n 2 the study gives the uninterrupted single run's results
 * file ref, bit for bit but for the provenance and the wall times (h5diff),
 * with the same status and error line, ending normally (no MPI_Abort), and
 * its report: args are the single run's arguments (NULL-terminated). */
static void under_mpi(char **args, const char *ref, const char *last_ref) {
  char mpirun[512];
  if (!cf_test_mpi_setup("test_experiment_cli", args[0], dir, mpirun, sizeof mpirun)) return;
  char out[400], recs[400], index[400];
  snprintf(out, sizeof out, "%s/reports/mpi.h5", dir);
  snprintf(recs, sizeof recs, "%s/reports/aero-recordings", dir); /* the same paths in both results */
  char *argv[48] = {mpirun, "-n", "2"}, *extra[] = {"--regress-evals", "40", NULL};
  study_argv(argv + 3, 45, args, out, recs, extra);
  char *o = NULL, *e = NULL;
  int st = cf_test_run(argv, dir, &o, &e);
  /* mpirun adds its own lines after the command's last one */
  CHECK(st == 1 && e && !strstr(e, "MPI_ABORT") && strstr(e, last_ref), "mpirun -n 2: status %d, '%s'", st,
        e ? e : "");
  const char *t2 = o ? strstr(o, "Table A.2 (repetition II)") : NULL, *no = e ? strstr(e, last_ref) : NULL;
  CHECK(t2 && !strstr(t2 + 1, "Table A.2 (repetition II)") && strstr(o, "delta_0") && no && !strstr(no + 1, last_ref),
        "mpirun: the tables and the error line once: '%s' '%s'", o ? o : "", e ? e : "");
  free(o), free(e);
  same_results(ref, out, "mpirun -n 2");
  cf_results r;
  cf_error err = {0, ""};
  CHECK(cf_results_read(out, &r, &err) == CF_OK && r.prov.ranks == 2 && strstr(r.prov.hosts, " x2"),
        "mpirun: provenance ranks %d, hosts '%s' %s", r.prov.ranks, r.prov.hosts, err.msg);
  cf_results_free(&r);
  struct stat sb;
  snprintf(index, sizeof index, "%s/reports/mpi/index.html", dir);
  CHECK(stat(index, &sb) == 0 && sb.st_size > 0, "mpirun: no report %s", index);
}

/* clothfit regress on the study's four recordings with an optimum, from the
 * uninterrupted study's results: killed with SIGKILL once its journal holds
 * 8 records, then run again, it resumes every task they hold (JSON
 * tasks_resumed) and gives the uninterrupted regression's coefficients and
 * R* bit for bit. */
static void regress_resume(void) {
  char from[400], recs[4][400], out[2][400], journal[450], *o = NULL, *e = NULL;
  snprintf(from, sizeof from, "%s/reports/whole.h5", dir);
  for (int i = 0; i < 4; i++) snprintf(recs[i], sizeof recs[i], "%s/reports/aero-recordings/%s.h5", dir, study[i].name);
  cf_formula f[2];
  double R[2] = {NAN, NAN};
  for (int k = 0; k < 2; k++) {
    snprintf(out[k], sizeof out[k], "%s/reports/regress%d.h5", dir, k);
    char *argv[] = {(char *)exe, "regress", recs[0], recs[1], recs[2], recs[3], "--from", from, "--max-evals", "40",
                    "--kappa", "1e-3", "--tol", "1e-4", "-o", out[k], "--json", NULL};
    int held = 0;
    if (k == 1) { /* killed once 8 simulations are kept */
      snprintf(journal, sizeof journal, "%s.journal", out[k]);
      int c[4];
      held = kill_when(argv, journal, 3, 8, 10000, c);
      int grid = c[0], nm = c[1], conf = c[2], reg = c[3], killed = held >= 0;
      /* (the model search: R at the start, 4 records, then the design's 36) */
      CHECK(killed && reg >= 8 && held >= 4 && grid + nm + conf == 0, "regress: killed %d with %d regression records "
            "(%d tasks)", killed, reg, held);
    }
    int st = cf_test_run(argv, dir, &o, &e);
    const char *j = o ? cf_test_last_line(o) : "";
    CHECK(st == 0 && cf_test_json_num(j, "tasks_resumed") == held, "regress %d: status %d, tasks_resumed %g of %d: "
          "%s %s", k, st, cf_test_json_num(j, "tasks_resumed"), held, o ? o : "", e ? e : "");
    cf_results r;
    cf_error err = {0, ""};
    CHECK(cf_results_read(out[k], &r, &err) == CF_OK && r.reg.has, "%s: %s", out[k], err.msg);
    if (r.reg.has) f[k] = r.reg.f, R[k] = r.reg.R;
    cf_results_free(&r);
    free(o), free(e);
    o = e = NULL;
  }
  CHECK(!memcmp(&f[0], &f[1], sizeof f[0]) && !memcmp(&R[0], &R[1], sizeof R[0]),
        "regress resumed: other coefficients (R %.17g, %.17g)", R[0], R[1]);
  printf("regress: killed and resumed: the same coefficients and R* (%.6f cm), bit for bit\n", R[1]);
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc < 2) return fprintf(stderr, "usage: test_experiment_cli CLOTHFIT_EXE [resume]\n"), 2;
  exe = argv[1];
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  setenv("CLOTHFIT_PROGRESS", "0", 1);
  char data[300], out[300], recs[300], *o = NULL, *e = NULL;
  snprintf(data, sizeof data, "%s/study", dir), snprintf(out, sizeof out, "%s/reports/aero.h5", dir);
  make_study(data);
  char *args[] = {argv[1], "experiment", "aero", "--dataset", data, "-o", out, "--delta-grid", "0.2:1:3*rho",
                  "--alpha-grid", "1:3:3*rho", "--max-evals", "10", "--regress-evals", "12", "--kappa", "1e-3",
                  "--tol", "1e-4", "--json", NULL};
  if (argc > 2 && !strcmp(argv[2], "resume")) { /* the suite 'resume': crash safety and mpirun */
    crash_resume(args, 0); /* (makes the uninterrupted run's results, whole.h5) */
    crash_resume(args, 1);
    regress_resume();
    fit_resume(NULL);
    fit_resume("trust");
    fit_resume("lm");
    char ref[400];
    snprintf(ref, sizeof ref, "%s/reports/whole.h5", dir);
    under_mpi(args, ref, "clothfit experiment: 1 of 5 recording(s) without a finite optimum: ");
    return cf_test_cli_end(dir, "test_experiment_cli resume");
  }
  int st = cf_test_run(args, dir, &o, &e);
  const char *j = cf_test_last_line(o);
  printf("%s", o ? o : "");
  /* the study is done and written, but broken-A2 has no optimum: status 1, the last line naming it */
  const char *last = e ? cf_test_last_line(e) : "";
  CHECK(st == 1 && j[0] == '{' && isfinite(cf_test_json_num(j, "R_cm")), "status %d: %s", st, e ? e : "");
  /* every stage's wall time, in the order they ran */
  const char *stages[] = {"ingest", "sweep", "fit", "confidence", "refit", "model check", "regress", "report"};
  char *times = cf_test_json_part(j, "stage_seconds");
  for (int k = 0; k < 8; k++) {
    char path[64];
    snprintf(path, sizeof path, "stage_seconds.%s", stages[k]);
    const char *at = times ? strstr(times, stages[k]) : NULL, *next = k < 7 && times ? strstr(times, stages[k + 1]) : NULL;
    CHECK(cf_test_json_num(j, path) >= 0 && at && (k == 7 || (next && at < next)), "stage_seconds: %s: %s", stages[k],
          times ? times : "absent");
  }
  free(times);
  CHECK(!strncmp(last, "clothfit experiment: 1 of 5 recording(s) without a finite optimum: ", 67) &&
        strstr(last, "broken-A2.h5 (every one of its 9 grid points failed, first: ") && strstr(last, out),
        "last stderr line '%s'", last);
  CHECK(o && strstr(o, "global") && strstr(o, "delta_0") && strstr(o, "alpha_tr") && strstr(o, "no valid grid point"),
        "tables missing");
  /* denim-A2, of repetition II, in a Table A.2 of its own after Table A.1 of the others */
  const char *a1 = o ? strstr(o, "Table A.1 (all but repetition II)\n") : NULL,
             *a2 = o ? strstr(o, "\n\nTable A.2 (repetition II)\nrecording ") : NULL, *den = o ? strstr(o, "\ndenim-A2 ") : NULL;
  const char *wool = a1 ? strstr(a1, "\nwool-A3 ") : NULL;
  CHECK(a1 && a2 && den && wool && a1 < a2 && a2 < den && wool < a2 && !strstr(den + 1, "\ndenim-A2 "),
        "Tables A.1/A.2 in '%s'", o ? o : "");
  CHECK(e && strstr(e, "clothfit experiment: warning: broken-A2: 9 of 9 simulations of the grid failed (100.0 %): at "
                       "delta 0.01604 alpha 0.0802: ") && strstr(e, "also at delta 0.01604 alpha 0.1604 (frame 20, "
                       "t = 0.2 s)") && strstr(e, "clothfit experiment: warning: in total 9 of 45 grid simulations "
                       "failed (20.0 %)"), "stderr '%s'", e ? e : "");
  char *b = cf_test_json_part(j, "recordings.name=broken-A2"), *w = cf_test_json_part(j, "recordings.name=wool-A3");
  CHECK(b && cf_test_json_num(b, "failed_points") == 9 && cf_test_json_num(b, "grid_points") == 9 &&
        cf_test_json_num(b, "failed_fraction") == 1 && cf_test_json_is(b, "optimum_borders_failed", "null"), "broken: %s",
        b ? b : j);
  CHECK(w && cf_test_json_num(w, "failed_points") == 0 && cf_test_json_is(w, "optimum_borders_failed", "false") &&
        cf_test_json_num(w, "failed_evaluations") == 0, "wool: %s", w ? w : j);
  free(b), free(w);
  /* the totals, after the recordings */
  CHECK(cf_test_json_num(j, "failed_points") == 9 && cf_test_json_num(j, "grid_points") == 45 &&
        cf_test_json_num(j, "failed_fraction") == 0.2, "totals: %s", j);
  check_results(out);
  struct stat sb;
  snprintf(recs, sizeof recs, "%s/reports/aero-recordings/wool-A3.h5", dir);
  CHECK(stat(recs, &sb) == 0, "no %s", recs);
  /* the report of the results, next to them (RESULTS without .h5), named in the text and the JSON */
  char index[400], table[400], fig[400];
  snprintf(index, sizeof index, "%s/reports/aero/index.html", dir);
  snprintf(table, sizeof table, "%s/reports/aero/tables/table_4_5.csv", dir);
  snprintf(fig, sizeof fig, "%s/reports/aero/figures/wool-A3-surface.svg", dir);
  CHECK(stat(index, &sb) == 0 && sb.st_size > 0 && stat(table, &sb) == 0 && stat(fig, &sb) == 0 && sb.st_size > 0,
        "report: %s, %s, %s", index, table, fig);
  CHECK(o && strstr(o, "report: ") && strstr(o, index) && cf_test_json_has_str(j, "report", index),
        "the report's path in the text and the JSON");
  free(o), free(e);
  /* a CSV without sidecars: one line naming it, no results file */
  char lone[400], out2[300];
  snprintf(lone, sizeof lone, "%s/aaa-lone.csv", data), snprintf(out2, sizeof out2, "%s/out2.h5", dir);
  write_text(lone, "not read\n");
  char *bad[] = {argv[1], "experiment", "aero", "--dataset", data, "-o", out2, NULL};
  st = cf_test_run(bad, dir, &o, &e);
  const char *nl = e ? strchr(e, '\n') : NULL;
  CHECK(st == 1 && o && !o[0] && e && strstr(e, "aaa-lone") && strstr(e, "sidecar") && nl && !nl[1] &&
        stat(out2, &sb) != 0, "lone CSV: %d '%s'", st, e ? e : "");
  free(o), free(e);
  return cf_test_cli_end(dir, "test_experiment_cli");
}
