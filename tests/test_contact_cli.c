/* test_contact_cli.c — `clothfit simulate experiments/table_drop.ini
 * --json` (obstacles from the scenario INI, docs/contacts.md): the sheet
 * dropped half over a table edge runs its 200 steps, the contact solve
 * was used, every node stayed at least thickness - eps1 outside the table
 * and the floor (min_clearance >= -1e-5 m, measured by the solver after
 * every contact step), the metric constraints within tol, the counters
 * are consistent (factorizations <= active-set solves <= factorizations +
 * updates, rows out <= rows in).
 * args: CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_json.h"
#include "qp.h"
#include "testutil.h"

/* The same scenario with [contact] solver = ipopt, its first 0.4 s (the
 * sheet lands: contact steps): every step converges within the tolerances,
 * and the JSON names the solver.  Without Ipopt in the build, the command
 * must refuse with a one-line error naming Ipopt. */
static void ipopt_run(const char *exe, const char *cfg) {
  char *ini = cf_test_slurp(cfg, NULL), path[] = "/tmp/cf_contact_cli_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  CHECK(ini && f, "cannot copy %s", cfg);
  if (!ini || !f) return;
  fprintf(f, "%s\n[sim]\nduration = 0.4\n[contact]\nsolver = ipopt\n", ini);
  fclose(f);
  char *av[] = {(char *)exe, "simulate", path, "--json", NULL}, *out = NULL, *err = NULL;
  int st = cf_test_run(av, "/tmp", &out, &err);
  if (!cf_qp_have_ipopt()) {
    CHECK(st != 0 && err && strstr(err, "Ipopt"), "without Ipopt: status %d, %s", st, err ? err : "");
  } else {
    CHECK(st == 0, "ipopt: status %d: %s", st, err ? err : "");
    const char *j = cf_test_last_line(out ? out : "");
    printf("%s\n", j);
    CHECK(strstr(j, "\"contact_solver\":\"ipopt\"") != NULL, "no contact_solver ipopt in the JSON line");
    CHECK(cf_test_json_num(j, "steps") == 40 && cf_test_json_num(j, "contact_steps") > 0, "ipopt: steps");
    CHECK(cf_test_json_num(j, "min_clearance") >= -1e-5, "ipopt: min clearance %g m",
          cf_test_json_num(j, "min_clearance"));
    CHECK(cf_test_json_num(j, "max_violation") <= 1e-3, "ipopt: max violation %g",
          cf_test_json_num(j, "max_violation"));
  }
  unlink(path);
  free(ini);
  free(out);
  free(err);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CLOTHFIT_EXE SOURCE_ROOT\n", argv[0]);
    return 2;
  }
  char cfg[1024];
  snprintf(cfg, sizeof cfg, "%s/experiments/table_drop.ini", argv[2]);
  char *av[] = {argv[1], "simulate", cfg, "--json", NULL};
  char *out = NULL, *err = NULL;
  int st = cf_test_run(av, "/tmp", &out, &err);
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
  CHECK(strstr(j, "\"contact_solver\":\"active-set\"") != NULL, "no contact_solver active-set in the JSON line");
  free(out);
  free(err);
  ipopt_run(argv[1], cfg);
  return cf_test_done("test_contact_cli");
}
