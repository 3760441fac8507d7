/* test_json_golden.c — every command's --json output on the bundled inputs
 * equals the golden files in tests/data/json-golden/ (one NAME.json per
 * step below): ingest (Motive exports of datasets/aero-mini with their
 * sidecars, a Motive sample of tests/data, a mesh sequence of
 * datasets/wam-mini), inspect (a recording, a results file), simulate (a
 * shaken sheet, a drop on a table), synth, sweep (whole and in two shards),
 * merge, fit (from a given start with its confidence checks, and from a
 * small grid), sensitivity, compare, predict, regress, experiment aero (a
 * dataset of four of those recordings) and report.  Each step runs in one
 * scratch folder, later steps reading what earlier ones wrote; runs are
 * kept short by small grids and few evaluations.
 *
 * The comparison parses both with Jansson and compares member by member
 * (names, order, JSON types, array lengths, strings exactly).  It leaves
 * out only what legitimately varies between runs and machines: wall times
 * (members ending in wall_s, stage_seconds), the provenance's clock times,
 * host names, tool version and git revision, thread and core counts
 * (threads, provenance.workers); the source root in strings is written
 * $SRC.  Numbers compare exactly, except in the steps whose values go
 * through a LAPACK or CHOLMOD factorization whose rounding depends on the
 * OpenBLAS kernel set (OPENBLAS_CORETYPE): there they compare to a relative
 * tolerance, given with its reason in the table of steps (measured between
 * the Prescott, Haswell and the machine's own kernels: at most 2.4e-12 on
 * fits and compared models, 5.7e-5 on a regression's residual R, whose
 * simulations at the formula's points sit near a failing step).
 *
 * usage: test_json_golden CLOTHFIT_EXE SOURCE_ROOT [--write]
 *   --write  (re)make the golden files from this build instead of
 *            comparing: only when an output changes on purpose. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_json.h"
#include "testutil.h"

#define MAX_ARGS 32

typedef struct {
  const char *name;   /* the golden file NAME.json */
  double rel_tol;     /* 0: numbers exactly */
  const char *args[MAX_ARGS]; /* "@/" starts a path under SOURCE_ROOT */
} step;

#define AERO "@/datasets/aero-mini/recordings/"
#define REC(i, n) "ingest_" #i, LAPACK_TOL, {"ingest", "motive", AERO n ".csv", "--meta", AERO n ".meta.ini", "--map", AERO n ".map", "-o", "r" #i ".h5", "--json"}
#define GRID "--delta-grid", "0.03:0.2:3", "--alpha-grid", "0.2:0.9:3"
/* The tolerances, where a factorization's rounding depends on the kernel set. */
#define FIT_TOL 1e-9  /* Nelder-Mead over simulations: observed 2.4e-12 */
#define REG_TOL 1e-3  /* a regression's residual over simulations near a failing step: observed 5.7e-5 */
#define LAPACK_TOL 1e-12 /* a marker plane's least squares (ingest): observed 2.8e-15 */

static const char *recs[] = {"polyester-A3-shake-fast-I", "wool-A2-twist-slow-I", "denim-A3-shake-slow-I",
                             "stiff-cotton-A2-twist-fast-I"};

static const step steps[] = {
    {REC(0, "polyester-A3-shake-fast-I")},
    {REC(1, "wool-A2-twist-slow-I")},
    {REC(2, "denim-A3-shake-slow-I")},
    {REC(3, "stiff-cotton-A2-twist-fast-I")},
    {"ingest_sample", 0, {"ingest", "motive", "@/tests/data/motive-samples/motive-1.21-rigidbody-and-unlabeled.csv", "-o", "s.h5", "--json"}},
    {"ingest_meshes", 0, {"ingest", "meshes", "@/datasets/wam-mini/recordings/paper-fast.meshes", "-o", "m.h5", "--json"}},
    {"inspect_rec", LAPACK_TOL, {"inspect", "r0.h5", "--json"}},
    {"inspect_meshes", LAPACK_TOL, {"inspect", "m.h5", "--json"}},
    {"simulate", 0, {"simulate", "@/experiments/shake_a2.ini", "-o", "sim.h5", "--json"}},
    {"simulate_table", 0, {"simulate", "@/experiments/table_drop.ini", "-o", "simt.h5", "--json"}},
    {"synth", 0, {"synth", "@/datasets/aero-mini/configs/polyester-A3-shake-fast-I.ini", "-o", "syn.csv", "--json"}},
    {"sweep", 0, {"sweep", "r0.h5", "r1.h5", "r2.h5", "r3.h5", GRID, "-o", "sw.h5", "--json"}},
    {"shard0", 0, {"sweep", "r0.h5", "r1.h5", GRID, "--shard", "0/2", "-o", "sh0.h5", "--json"}},
    {"shard1", 0, {"sweep", "r0.h5", "r1.h5", GRID, "--shard", "1/2", "-o", "sh1.h5", "--json"}},
    {"merge", 0, {"merge", "sh0.h5", "sh1.h5", "-o", "merged.h5", "--json"}},
    {"inspect_res", 0, {"inspect", "sw.h5", "--json"}},
    {"fit", FIT_TOL, {"fit", "r0.h5", "--start", "0.05,0.3", "--max-evals", "20", "-o", "fit.h5", "--json"}},
    {"inspect_fit", FIT_TOL, {"inspect", "fit.h5", "--json"}},
    {"fit_grid", FIT_TOL, {"fit", "r1.h5", GRID, "--max-evals", "15", "--no-confidence", "--json"}},
    {"sensitivity", 0, {"sensitivity", "r0.h5", "--at", "0.05,0.3", "-n", "3", "-o", "sens.h5", "--json"}},
    {"compare", FIT_TOL, {"compare", "r0.h5", "--max-evals", "10", "--json"}},
    {"predict", 0, {"predict", "r0.h5", "r1.h5", "--json"}},
    {"regress", REG_TOL, {"regress", "r0.h5", "r1.h5", "r2.h5", "r3.h5", "--from", "sw.h5", "--search", "nelder-mead",
                          "--max-evals", "10", "-o", "reg.h5", "--json"}},
    {"experiment", REG_TOL, {"experiment", "aero", "--dataset", "ds", "-o", "exp.h5", GRID, "--max-evals", "10",
                             "--regress-evals", "10", "--regress-search", "nelder-mead", "--no-confidence",
                             "--no-report", "--json"}},
    {"report", 0, {"report", "sw.h5", "-o", "rep", "--json"}},
};

static const char *root;
static size_t root_len;

/* Members left out of the comparison (and of the golden files). */
static int ignored(const char *key, const char *parent) {
  static const char *any[] = {"stage_seconds", "threads", NULL};
  static const char *prov[] = {"created", "start_time", "end_time", "hostname", "hosts", "tool_version",
                               "git_revision", "workers", NULL};
  size_t l = strlen(key);
  if (l >= 6 && !strcmp(key + l - 6, "wall_s")) return 1;
  for (int i = 0; any[i]; i++)
    if (!strcmp(key, any[i])) return 1;
  for (int i = 0; parent && !strcmp(parent, "provenance") && prov[i]; i++)
    if (!strcmp(key, prov[i])) return 1;
  return 0;
}

/* A copy of v without the ignored members, the source root written $SRC. */
static json_t *normalized(json_t *v, const char *parent) {
  if (json_is_object(v)) {
    json_t *o = json_object(), *x;
    const char *k;
    json_object_foreach(v, k, x) if (!ignored(k, parent)) json_object_set_new(o, k, normalized(x, k));
    return o;
  }
  if (json_is_array(v)) {
    json_t *a = json_array(), *x;
    size_t i;
    json_array_foreach(v, i, x) json_array_append_new(a, normalized(x, parent));
    return a;
  }
  const char *s = json_string_value(v), *p;
  if (!s || !(p = strstr(s, root))) return json_deep_copy(v);
  size_t n = strlen(s) + 8;
  char *t = malloc(n);
  snprintf(t, n, "%.*s$SRC%s", (int)(p - s), s, p + root_len);
  json_t *r = normalized(json_string(t), parent); /* every occurrence */
  free(t);
  return r;
}

static int differs(const char *step_name, const char *path, json_t *g, json_t *o, double tol);

static int object_differs(const char *name, const char *path, json_t *g, json_t *o, double tol) {
  int bad = 0;
  void *ig = json_object_iter(g), *io = json_object_iter(o);
  for (; ig && io; ig = json_object_iter_next(g, ig), io = json_object_iter_next(o, io)) {
    char sub[512];
    const char *kg = json_object_iter_key(ig), *ko = json_object_iter_key(io);
    snprintf(sub, sizeof sub, "%s.%s", path, kg);
    if (strcmp(kg, ko)) {
      CHECK(0, "%s: %s: member '%s' where the golden file has '%s'", name, path, ko, kg);
      return 1;
    }
    bad |= differs(name, sub, json_object_iter_value(ig), json_object_iter_value(io), tol);
  }
  CHECK(!ig && !io, "%s: %s: %s member '%s'", name, path, ig ? "missing" : "extra",
        json_object_iter_key(ig ? ig : io));
  return bad || ig || io;
}

/* Report the first differences of o from the golden g under path; 1 if any. */
static int differs(const char *name, const char *path, json_t *g, json_t *o, double tol) {
  if (json_typeof(g) != json_typeof(o)) {
    char *a = json_dumps(g, JSON_ENCODE_ANY), *b = json_dumps(o, JSON_ENCODE_ANY);
    CHECK(0, "%s: %s: %.200s where the golden file has %.200s", name, path, b, a);
    free(a), free(b);
    return 1;
  }
  if (json_is_object(g)) return object_differs(name, path, g, o, tol);
  if (json_is_array(g)) {
    size_t n = json_array_size(g);
    if (json_array_size(o) != n) {
      CHECK(0, "%s: %s: %zu elements where the golden file has %zu", name, path, json_array_size(o), n);
      return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
      char sub[512];
      snprintf(sub, sizeof sub, "%s.%zu", path, i);
      bad |= differs(name, sub, json_array_get(g, i), json_array_get(o, i), tol);
    }
    return bad;
  }
  if (json_is_real(g)) {
    double a = json_real_value(g), b = json_real_value(o);
    int ok = tol > 0 ? fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) : a == b;
    CHECK(ok, "%s: %s: %.17g where the golden file has %.17g (relative tolerance %g)", name, path, b, a, tol);
    return !ok;
  }
  int ok = json_equal(g, o);
  if (!ok) {
    char *a = json_dumps(g, JSON_ENCODE_ANY), *b = json_dumps(o, JSON_ENCODE_ANY);
    CHECK(0, "%s: %s: %.200s where the golden file has %.200s", name, path, b, a);
    free(a), free(b);
  }
  return !ok;
}

/* The tiny dataset of experiment aero: the four recordings' exports and sidecars. */
static void make_dataset(void) {
  static const char *ext[] = {"csv", "meta.ini", "map", "truth.ini"};
  CHECK(mkdir("ds", 0755) == 0, "mkdir ds");
  for (size_t i = 0; i < sizeof recs / sizeof *recs; i++)
    for (int e = 0; e < 4; e++) {
      char src[1024], dst[256];
      snprintf(src, sizeof src, "%s/datasets/aero-mini/recordings/%s.%s", root, recs[i], ext[e]);
      snprintf(dst, sizeof dst, "ds/%s.%s", recs[i], ext[e]);
      CHECK(symlink(src, dst) == 0, "symlink %s", dst);
    }
}

static void run_step(const char *exe, const char *dir, const step *s, int write) {
  char *argv[MAX_ARGS + 2] = {(char *)exe}, paths[MAX_ARGS][1024];
  int n = 1;
  for (int i = 0; i < MAX_ARGS && s->args[i]; i++, n++) {
    if (!strncmp(s->args[i], "@/", 2)) {
      snprintf(paths[i], sizeof paths[i], "%s/%s", root, s->args[i] + 2);
      argv[n] = paths[i];
    } else argv[n] = (char *)s->args[i];
  }
  argv[n] = NULL;
  char *out = NULL, *err = NULL;
  int st = cf_test_run(argv, dir, &out, &err);
  CHECK(st == 0, "%s: status %d: %.2000s", s->name, st, err ? err : "");
  json_error_t je;
  json_t *o = json_loads(cf_test_last_line(out), 0, &je);
  CHECK(o, "%s: the last line is not JSON (%s): %.300s", s->name, je.text, cf_test_last_line(out));
  char golden[1200];
  snprintf(golden, sizeof golden, "%s/tests/data/json-golden/%s.json", root, s->name);
  json_t *no = o ? normalized(o, NULL) : NULL;
  if (no && write) {
    CHECK(!json_dump_file(no, golden, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)), "write %s",
          golden);
  } else if (no) {
    json_t *g = json_load_file(golden, 0, &je);
    CHECK(g, "%s: %s", golden, je.text);
    if (g) differs(s->name, "", g, no, s->rel_tol);
    json_decref(g);
  }
  json_decref(no);
  json_decref(o);
  free(out), free(err);
}

int main(int argc, char **argv) {
  static char dir[] = "/tmp/cf_json_golden.XXXXXX";
  const char *exe;
  if (cf_test_cli_begin(argc, argv, &exe, &root, dir)) return 2;
  root_len = strlen(root);
  int write = argc > 3 && !strcmp(argv[3], "--write");
  if (chdir(dir)) return perror(dir), 1;
  make_dataset();
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) run_step(exe, dir, &steps[i], write);
  return cf_test_cli_end(dir, "test_json_golden");
}
