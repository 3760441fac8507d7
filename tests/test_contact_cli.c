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

#include "cli_json.h"
#include "testutil.h"

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
  free(out);
  free(err);
  return cf_test_done("test_contact_cli");
}
