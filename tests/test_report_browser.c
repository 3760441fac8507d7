/* test_report_browser.c — a real browser renders the report
 * (meson suite 'browser').
 *
 * The small study of test_report (tests/resultsgen.c: four recordings, a
 * regression) is written with the library's writer, `clothfit report`
 * makes its page, and headless Chromium (Debian's chromium) opens
 * index.html from the folder, offline:
 *   - a screenshot (1280 x 4000, the tables and the first figures) is
 *     decoded (zlib) and must not be blank: more than 3 % of its pixels
 *     differ from the background, it has more than 50 distinct colours, and
 *     more than 5000 pixels have the green-yellow colours of the error
 *     surfaces' palette (viridis), which only the drawn figures have: the
 *     page's text is grey and its links blue;
 *   - the DOM it dumps (--dump-dom), tags removed and entities decoded, holds
 *     every table's title (the "### " line of tables/ID.md), every
 *     recording's name and every figure's caption, and as many <img> as the
 *     report drew figures.
 * Chromium is found on PATH (or given by CLOTHFIT_CHROMIUM).  When it is
 * missing the test fails under CI (CI set in the environment) and is
 * skipped elsewhere (exit 77), both with a message naming what is missing.
 *
 * usage: test_report_browser CLOTHFIT_EXE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_io.h"
#include "cli_json.h"
#include "report_check.h"
#include "resultsgen.h"
#include "testutil.h"

static char dir[] = "/tmp/cf_test_browser.XXXXXX";

/* Run chromium headless on url with one more option (the output mode);
 * stdout into *out.  Its own profile folder under dir, no sandbox (root),
 * /tmp instead of /dev/shm (small in containers), none of its background
 * network services, stopped by timeout(1) after 180 s. */
static int chromium(const char *exe, const char *mode, const char *url, char **out) {
  char profile[600], tmo[600];
  snprintf(profile, sizeof profile, "--user-data-dir=%s/profile", dir);
  if (!cf_test_find_program("timeout", tmo, sizeof tmo)) snprintf(tmo, sizeof tmo, "/usr/bin/timeout");
  char *argv[] = {tmo, "180", (char *)exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-domain-reliability", "--no-pings", "--hide-scrollbars", "--window-size=1280,4000",
                  profile, (char *)mode, (char *)url, NULL};
  char *err = NULL;
  int st = cf_test_run(argv, dir, out, &err);
  if (st) fprintf(stderr, "chromium %s: exit %d; its stderr:\n%s\n", mode, st, err ? err : "");
  free(err);
  return st;
}

/* The screenshot is not blank and shows the figures' colours. */
static void check_screenshot(const char *png) {
  int w, h;
  unsigned char *rgb;
  char why[600];
  CHECK(cf_test_png_decode(png, &w, &h, &rgb, why, sizeof why) == 0, "the screenshot: %s", why);
  if (!rgb) return;
  CHECK(w == 1280 && h == 4000, "the screenshot is %d x %d, the window 1280 x 4000", w, h);
  const unsigned char *bg = rgb; /* the top-left pixel: the page's background */
  long ink = 0, plot = 0, n = (long)w * h;
  int ncol = 0;
  static unsigned char seen[1 << 15]; /* colours at 5 bits a channel */
  memset(seen, 0, sizeof seen);
  for (long i = 0; i < n; i++) {
    const unsigned char *p = rgb + 3 * i;
    int r = p[0], g = p[1], b = p[2], key = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3;
    ink += abs(r - bg[0]) + abs(g - bg[1]) + abs(b - bg[2]) > 30;
    plot += g >= 120 && g > b + 30 && g > r - 60;
    ncol += !seen[key], seen[key] = 1;
  }
  printf("screenshot %d x %d: %.1f %% not background, %d colours, %ld pixels of the palette's green-yellow\n", w, h,
         100.0 * ink / n, ncol, plot);
  CHECK(ink > 0.03 * n, "the screenshot is blank: %ld of %ld pixels differ from the background", ink, n);
  CHECK(ncol > 50, "the screenshot has %d colours: nothing was drawn", ncol);
  CHECK(plot > 5000, "the screenshot has %ld green-yellow pixels: the figures were not rendered", plot);
  free(rgb);
}

/* The text of html: tags removed, the entities the serializer writes decoded. */
static char *page_text(const char *html) {
  char *t = malloc(strlen(html) + 1), *o = t;
  static const char *ent[6][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"},
                                  {"&quot;", "\""}, {"&nbsp;", " "}, {"&#58;", ":"}};
  for (const char *p = html; *p;) {
    if (*p == '<') {
      const char *q = strchr(p, '>');
      p = q ? q + 1 : p + strlen(p);
      *o++ = ' ';
      continue;
    }
    int k = 0;
    while (k < 6 && strncmp(p, ent[k][0], strlen(ent[k][0]))) k++;
    if (k < 6) *o++ = ent[k][1][0], p += strlen(ent[k][0]);
    else *o++ = *p++;
  }
  *o = 0;
  return t;
}

/* Every table title, recording name and figure caption in the text. */
static void check_dom(const char *out, const char *dom, const cf_results *r, int figures) {
  char *text = page_text(dom);
  const char *ids[5] = {"table_a1", "table_a2", "table_4_5", "table_4_6", "table_4_9"};
  for (int k = 0; k < 5; k++) {
    char path[700], title[600] = "";
    snprintf(path, sizeof path, "%s/tables/%s.md", out, ids[k]);
    char *md = cf_test_slurp(path, NULL);
    CHECK(md && !strncmp(md, "### ", 4), "%s: missing or without a title", path);
    if (md) sscanf(md + 4, "%599[^\n]", title);
    CHECK(title[0] && strstr(text, title), "the page's text lacks the title of %s: %s", ids[k], title);
    free(md);
  }
  for (int i = 0; i < r->n; i++)
    CHECK(strstr(text, r->recs[i].name), "the page's text lacks the recording %s", r->recs[i].name);
  int imgs = 0;
  for (const char *p = dom; (p = strstr(p, "<img ")); p++) imgs++;
  CHECK(imgs == figures, "the page has %d images, the report drew %d figures", imgs, figures);
  const char *cap[2] = {"denim-A2-shake-fast-I: mean error ē(δ, α) of the 3 x 4 sweep (cm)",
                        "δ* of 3 recording(s) against V; the fitted formula at mean S = 1.67, mean ρ = 0.213: δ = "};
  for (int k = 0; k < 2; k++) CHECK(strstr(text, cap[k]), "the page's text lacks the caption '%s'", cap[k]);
  free(text);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: test_report_browser CLOTHFIT_EXE\n"), 2;
  char exe[1024];
  const char *env = getenv("CLOTHFIT_CHROMIUM");
  int have = env && *env ? snprintf(exe, sizeof exe, "%s", env) > 0 && access(exe, X_OK) == 0
                         : cf_test_find_program("chromium", exe, sizeof exe);
  if (!have) {
    const char *ci = getenv("CI");
    fprintf(stderr, "test_report_browser: chromium not found (%s): install Debian's package chromium "
            "(scripts/setup.sh does) or give CLOTHFIT_CHROMIUM=PATH; %s\n", env && *env ? env : "not on PATH",
            ci && *ci ? "failing: CI must run the browser test" : "skipped (CI is not set)");
    return ci && *ci ? 1 : 77;
  }
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  char res[600], out[600], url[700], shot[700];
  snprintf(res, sizeof res, "%s/study.h5", dir);
  snprintf(out, sizeof out, "%s/report", dir);
  snprintf(url, sizeof url, "file://%s/index.html", out);
  snprintf(shot, sizeof shot, "--screenshot=%s/shot.png", dir);
  cf_results r;
  if (cf_test_results_small_read(res, &r)) return 1;

  char *so = NULL, *se = NULL, *cmd[] = {argv[1], "report", res, "-o", out, "--json", NULL};
  int st = cf_test_run(cmd, dir, &so, &se);
  CHECK(st == 0, "clothfit report: exit %d (is gnuplot installed?): %s", st, se ? se : "");
  int figures = cf_test_json_int(cf_test_last_line(so), "figures"); /* -1: no JSON */
  CHECK(figures == 11, "clothfit report drew %d figures, expected 11", figures);
  free(so), free(se);

  char *ignored = NULL, *dom = NULL;
  CHECK(chromium(exe, shot, url, &ignored) == 0, "chromium --screenshot failed");
  free(ignored);
  snprintf(shot, sizeof shot, "%s/shot.png", dir);
  check_screenshot(shot);
  CHECK(chromium(exe, "--dump-dom", url, &dom) == 0 && dom && strstr(dom, "</html>"), "chromium --dump-dom failed");
  if (dom) check_dom(out, dom, &r, figures);
  free(dom);
  cf_results_free(&r);
  if (!cf_test_failures) {
    char rm[700];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm)) fprintf(stderr, "could not remove %s\n", dir);
  } else fprintf(stderr, "test_report_browser: the report and the screenshot are kept in %s\n", dir);
  return cf_test_done("test_report_browser");
}
