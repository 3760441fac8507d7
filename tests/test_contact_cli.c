/* test_contact_cli.c — `clothfit simulate experiments/table_drop.ini
 * --json` (obstacles from the scenario INI, docs/contacts.md): the sheet
 * dropped half over a table edge runs its 200 steps, the contact solve
 * was used, every node stayed at least thickness - eps1 outside the table
 * and the floor (min_clearance >= -1e-5 m, measured by the solver after
 * every contact step), the metric constraints within tol, the counters
 * are consistent (factorizations <= active-set solves <= factorizations +
 * updates, rows out <= rows in); the same scenario's first 0.4 s with
 * solver = ipopt; experiments/rotating_sphere.ini within the bounds.  With
 * --physics: experiments/cylinder_friction.ini with mu = 0.55 (stays on)
 * and 0.2 (slides off), thesis §3.6.1.
 * args: CLOTHFIT_EXE SOURCE_ROOT [--physics] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_json.h"
#include "qp.h"
#include "testutil.h"

/* The test's scratch folder: the scenario copies and the runs' output files. */
static char dir[] = "/tmp/cf_contact_cli.XXXXXX";

/* `clothfit simulate` on a copy of the scenario cfg with extra INI text
 * appended (NULL: none), --json: its status, stdout and stderr (malloc'ed,
 * caller frees). */
static int simulate(const char *exe, const char *cfg, const char *extra, char **out, char **err) {
  char *ini = cf_test_slurp(cfg, NULL), path[600];
  snprintf(path, sizeof path, "%s/scenario.ini", dir);
  FILE *f = fopen(path, "w");
  CHECK(ini && f, "cannot copy %s", cfg);
  *out = *err = NULL;
  if (!ini || !f) return free(ini), -1;
  fprintf(f, "%s\n%s", ini, extra ? extra : "");
  fclose(f);
  char *av[] = {(char *)exe, "simulate", path, "--json", NULL};
  int st = cf_test_run(av, dir, out, err);
  unlink(path);
  free(ini);
  return st;
}

/* The bounds every contact run must keep: converged, min clearance >=
 * -eps1, metric violation <= tol; the JSON line printed and returned. */
static const char *bounds(const char *what, int st, const char *out, const char *err) {
  CHECK(st == 0, "%s: status %d: %s", what, st, err ? err : "");
  const char *j = cf_test_last_line(out ? out : "");
  printf("%s: %s\n", what, j);
  CHECK(cf_test_json_num(j, "contact_steps") > 0, "%s: no contact steps", what);
  CHECK(cf_test_json_num(j, "min_clearance") >= -1e-5, "%s: min clearance %g m", what,
        cf_test_json_num(j, "min_clearance"));
  CHECK(cf_test_json_num(j, "max_violation") <= 1e-3, "%s: max violation %g", what,
        cf_test_json_num(j, "max_violation"));
  return j;
}

/* z of the text's "lowest node end   N at (x, y, z) m" line (NAN if none). */
static double lowest_z(const char *out) {
  const char *p = out ? strstr(out, "lowest node end") : NULL;
  double x, y, z;
  return p && (p = strchr(p, '(')) && sscanf(p, "(%lf, %lf, %lf)", &x, &y, &z) == 3 ? z : NAN;
}

/* The same scenario with [contact] solver = ipopt, its first 0.4 s (the
 * sheet lands: contact steps): every step converges within the tolerances,
 * and the JSON names the solver.  Without Ipopt in the build, the command
 * must refuse with a one-line error naming Ipopt. */
static void ipopt_run(const char *exe, const char *cfg) {
  char *out, *err;
  int st = simulate(exe, cfg, "[sim]\nduration = 0.4\n[contact]\nsolver = ipopt\n", &out, &err);
  if (!cf_qp_have_ipopt()) {
    CHECK(st != 0 && err && strstr(err, "Ipopt"), "without Ipopt: status %d, %s", st, err ? err : "");
  } else {
    const char *j = bounds("ipopt", st, out, err);
    CHECK(cf_test_json_has_str(j, "contact_solver", "ipopt"), "no contact_solver ipopt in the JSON line");
    CHECK(cf_test_json_num(j, "steps") == 40, "ipopt: steps");
  }
  free(out);
  free(err);
}

/* experiments/NAME with the extra INI text (may be NULL) within the
 * bounds; returns its lowest node's z at the end (NAN if not printed). */
static double experiment(const char *exe, const char *root, const char *name, const char *extra, const char *what) {
  char cfg[1024], *out, *err;
  snprintf(cfg, sizeof cfg, "%s/experiments/%s", root, name);
  int st = simulate(exe, cfg, extra, &out, &err);
  bounds(what, st, out, err);
  double z = lowest_z(out);
  free(out);
  free(err);
  return z;
}

/* experiments/cylinder_friction.ini (thesis §3.6.1; the physics suite:
 * about 10 s a run): with its mu = 0.55 the sheet stays on the cylinder
 * (lowest node more than 0.3 m above the floor at z = -1.401 after 2 s),
 * with mu = 0.2 it slides onto the floor (lowest node within 1 cm of it). */
static void cylinder_runs(const char *exe, const char *root) {
  double z = experiment(exe, root, "cylinder_friction.ini", NULL, "cylinder, mu 0.55");
  CHECK(z > -1.401 + 0.3, "cylinder, mu 0.55: lowest node at z = %g m: the sheet should stay on", z);
  z = experiment(exe, root, "cylinder_friction.ini", "[obstacle.cylinder]\nmu = 0.2\n", "cylinder, mu 0.2");
  CHECK(z < -1.401 + 0.01, "cylinder, mu 0.2: lowest node at z = %g m: the sheet should slide onto the floor", z);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CLOTHFIT_EXE SOURCE_ROOT [--physics]\n", argv[0]);
    return 2;
  }
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  if (argc > 3 && !strcmp(argv[3], "--physics")) {
    cylinder_runs(argv[1], argv[2]);
    return cf_test_cli_end(dir, "test_contact_cli --physics");
  }
  char cfg[1024];
  snprintf(cfg, sizeof cfg, "%s/experiments/table_drop.ini", argv[2]);
  char *av[] = {argv[1], "simulate", cfg, "--json", NULL};
  char *out = NULL, *err = NULL;
  int st = cf_test_run(av, dir, &out, &err);
  CHECK(st == 0, "status %d: %s", st, err ? err : "");
  const char *j = cf_test_last_line(out ? out : "");
  printf("%s\n", j);
  double steps = cf_test_json_num(j, "steps"), cs = cf_test_json_num(j, "contact_steps");
  double mc = cf_test_json_num(j, "min_clearance"), mv = cf_test_json_num(j, "max_violation");
  double as = cf_test_json_num(j, "active_set_iterations"), fa = cf_test_json_num(j, "contact_factorizations");
  double ri = cf_test_json_num(j, "rows_in"), ro = cf_test_json_num(j, "rows_out");
  CHECK(steps == 200, "steps %g", steps);
  CHECK(cs > 100, "contact steps %g: the sheet should lie on the table most of the run", cs);
  CHECK(mc >= -1e-5, "min clearance %g m < -eps1", mc);
  CHECK(mv <= 1e-3, "max violation %g > tol", mv);
  double up = cf_test_json_num(j, "contact_updates");
  /* every solve follows a factorization or (one working-set change) an update */
  CHECK(as > 0 && fa <= as && as <= fa + up, "active-set solves %g, factorizations %g, updates %g", as, fa, up);
  CHECK(ro <= ri && ri > 0, "rows in %g, out %g", ri, ro);
  CHECK(cf_test_json_has_str(j, "contact_solver", "active-set"), "no contact_solver active-set in the JSON line");
  free(out);
  free(err);
  ipopt_run(argv[1], cfg);
  /* experiments/rotating_sphere.ini (thesis §3.6.2): 1 s within the bounds */
  experiment(argv[1], argv[2], "rotating_sphere.ini", NULL, "rotating sphere");
  return cf_test_cli_end(dir, "test_contact_cli");
}
