/* test_report_browser.c — a real browser renders the report
 * (meson suite 'browser').
 *
 * The small study of test_report (tests/resultsgen.c: four recordings, a
 * regression) is written with the library's writer, `clothfit report`
 * makes its page, and headless Chromium (Debian's chromium) opens
 * index.html from the folder, offline (report_check.h):
 *   - a screenshot (1280 x 4000, the tables and the first figures) is
 *     decoded (zlib) and must not be blank and show the error surfaces'
 *     colours;
 *   - the DOM it dumps (--dump-dom), tags removed and entities decoded, holds
 *     every table's title (Tables A.1, A.2, 4.5, 4.6 and 4.9 among them),
 *     every recording's name and every figure's caption, and as many <img>
 *     as the report drew figures; the surface's and the study figure's
 *     captions are the ones the results file gives.
 * Chromium is found on PATH (or given by CLOTHFIT_CHROMIUM).  When it is
 * missing the test fails under CI (CI set in the environment) and is
 * skipped elsewhere (exit 77), both with a message naming what is missing.
 *
 * usage: test_report_browser CLOTHFIT_EXE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "cli_json.h"
#include "report_check.h"
#include "resultsgen.h"
#include "testutil.h"

static char dir[] = "/tmp/cf_test_browser.XXXXXX";

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: test_report_browser CLOTHFIT_EXE\n"), 2;
  char exe[1024];
  int st = cf_test_browser_begin("test_report_browser", exe, sizeof exe, dir);
  if (st) return st;
  char res[600], out[600];
  snprintf(res, sizeof res, "%s/study.h5", dir);
  snprintf(out, sizeof out, "%s/report", dir);
  cf_results r;
  if (cf_test_results_small_read(res, &r)) return 1;

  char *so = NULL, *se = NULL, *cmd[] = {argv[1], "report", res, "-o", out, "--json", NULL};
  st = cf_test_run(cmd, dir, &so, &se);
  CHECK(st == 0, "clothfit report: exit %d (is gnuplot installed?): %s", st, se ? se : "");
  int figures = cf_test_json_int(cf_test_last_line(so), "figures"); /* -1: no JSON */
  CHECK(figures == 11, "clothfit report drew %d figures, expected 11", figures);
  free(so), free(se);

  char *dom = cf_test_report_render(exe, dir, out, 4000);
  if (dom) {
    static const char *const ids[5] = {"table_a1", "table_a2", "table_4_5", "table_4_6", "table_4_9"};
    char *text = cf_test_report_dom(out, dom, ids, 5, &r, figures);
    const char *cap[2] = {"denim-A2-shake-fast-I: mean error ē(δ, α) of the 3 x 4 sweep (cm)",
                          "δ* of 3 recording(s) against V; the fitted formula at mean S = 1.67, mean ρ = 0.213: δ = "};
    for (int k = 0; k < 2; k++) CHECK(strstr(text, cap[k]), "the page's text lacks the caption '%s'", cap[k]);
    free(text);
  }
  free(dom);
  cf_results_free(&r);
  return cf_test_browser_end(dir, "test_report_browser");
}
