/* test_report_browser_wam.c — a real browser renders the report of the
 * WAM study (thesis §4.1; meson suite 'browser').
 *
 * `clothfit experiment wam` runs on the shortened dataset of
 * test_experiment_wam (tests/wam_short.c: 4 s of light-cotton-fast and
 * paper-slow) and writes its report; headless Chromium opens its
 * index.html from the folder, offline (report_check.h):
 *   - a screenshot of the whole page (1280 x 10000: it is ~9400 pixels
 *     long) is decoded and must not be blank and show the heat maps'
 *     colours;
 *   - the DOM's text holds every table's title, every recording's name,
 *     every figure's caption, and as many <img> as the command says it
 *     drew figures (its line "report: ... (N tables, D of P figures)");
 *   - and the study's own parts, with their numbers from the results file:
 *     Table 4.2 (the fits beside the truth and the thesis), Table 4.3 (the
 *     four cloth models on light-cotton-fast, each named), the sensitivity
 *     map of Figure 4.6 (light-cotton-fast around its fit) and the error and
 *     dispersion curves e(t), d(t) of Figure 4.10 (every recording at its
 *     fit), each figure shown as an image.
 * Chromium as for test_report_browser: when it is missing the test fails
 * under CI (CI set) and is skipped elsewhere (exit 77).
 *
 * usage: test_report_browser_wam CLOTHFIT_EXE SOURCE_ROOT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "report_check.h"
#include "testutil.h"
#include "wam_short.h"

static char dir[] = "/tmp/cf_test_browser_wam.XXXXXX";

/* The figure `kind` of recording c: its caption in text, its image in dom. */
static void check_figure(const char *text, const char *dom, const cf_res_rec *c, const char *kind, const char *cap) {
  char img[600];
  snprintf(img, sizeof img, "<img src=\"figures/%s-%s.svg\"", c->name, kind); /* the names are file stems */
  CHECK(strstr(text, cap), "the page's text lacks the caption '%s'", cap);
  CHECK(strstr(dom, img), "the page has no image %s", img);
}

/* Tables 4.2 and 4.3, Figure 4.6's map and Figure 4.10's curves. */
static void check_study(const char *text, const char *dom, const cf_results *r) {
  CHECK(strstr(text, "Table 4.2: the parameters fitted on the training window") &&
            strstr(text, "Table 4.3: the cloth models fitted to each recording"),
        "the page's text lacks the titles of Tables 4.2 and 4.3");
  static const char *models[4] = {" inextensible ", " quasi-inextensible ", " elastic ", " mass-spring "};
  for (int k = 0; k < 4; k++) CHECK(strstr(text, models[k]), "Table 4.3 lacks the model%s", models[k]);
  int maps = 0;
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    char cap[600];
    CHECK(c->has_series, "%s: no e(t), d(t) series in the results", c->name);
    snprintf(cap, sizeof cap, "%s: e(t) and d(t) at δ %.4f, α %.4f", c->name, c->series.delta, c->series.alpha);
    if (c->has_series) check_figure(text, dom, c, "series", cap);
    if (!c->has_sens) continue;
    maps++;
    snprintf(cap, sizeof cap, "%s: sensitivity map around δ %.4f, α %.4f", c->name, c->sens.at_delta,
             c->sens.at_alpha);
    CHECK(!strcmp(c->name, "light-cotton-fast"), "a sensitivity map of %s", c->name);
    check_figure(text, dom, c, "sensitivity", cap);
  }
  CHECK(maps == 1, "%d sensitivity maps, expected light-cotton-fast's", maps);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: test_report_browser_wam CLOTHFIT_EXE SOURCE_ROOT\n"), 2;
  char exe[1024];
  int st = cf_test_browser_begin("test_report_browser_wam", exe, sizeof exe, dir);
  if (st) return st;
  char *so = NULL, *se = NULL, res[700], out[700];
  st = cf_test_wam_study(argv[1], argv[2], dir, 0, &so, &se);
  CHECK(st == 0, "clothfit experiment wam: exit %d (is gnuplot installed?): %s", st, se ? se : "");
  const char *line = so ? strstr(so, "\nreport: ") : NULL;
  int tables = -1, figures = -1, planned = -1;
  CHECK(line && sscanf(strchr(line, '(') ? strchr(line, '(') : "", "(%d tables, %d of %d figures)", &tables, &figures,
                       &planned) == 3,
        "clothfit experiment wam printed no line 'report: ... (N tables, D of P figures)': %s", so ? so : "");
  /* per recording the surface, the series, the snapshots and the animation, and light-cotton-fast's map */
  CHECK(figures == 9 && planned == 9, "the report drew %d of %d figures, expected 9 of 9", figures, planned);
  free(so), free(se);
  snprintf(res, sizeof res, "%s/wam.h5", dir);
  snprintf(out, sizeof out, "%s/wam", dir);
  cf_results r;
  cf_error err = {0, ""};
  int have = cf_results_read(res, &r, &err) == CF_OK;
  CHECK(have && r.n == 2, "%s: %s", res, err.msg);

  char *dom = have ? cf_test_report_render(exe, dir, out, 10000) : NULL;
  if (dom) {
    static const char *const ids[2] = {"table_4_2", "table_4_3"};
    char *text = cf_test_report_dom(out, dom, ids, 2, &r, figures);
    check_study(text, dom, &r);
    free(text);
  }
  free(dom);
  if (have) cf_results_free(&r);
  return cf_test_browser_end(dir, "test_report_browser_wam");
}
