/* report_check.h — checks of a written report shared by test_report and
 * the browser tests (test_report_browser, test_report_browser_wam): the
 * images' formats and pixel sizes, the links of index.html, PNG decoding,
 * and the page as headless Chromium renders it. */
#ifndef CF_REPORT_CHECK_H
#define CF_REPORT_CHECK_H

#include <stddef.h>

#include "cf_io.h"

/* The pixel size of a PNG from its IHDR (after checking the signature and
 * that IHDR is the first chunk); 0, or -1 if path is not a PNG. */
int cf_test_png_size(const char *path, int *w, int *h);
/* The size of an SVG: its root's width and height attributes (in px or
 * without unit), else its viewBox "0 0 W H"; 0, or -1. */
int cf_test_svg_size(const char *path, int *w, int *h);
/* A whole 8-bit RGB or RGBA PNG (not interlaced) decoded into *rgb
 * (malloc'ed, w*h*3 bytes); 0, or -1 with why in why. */
int cf_test_png_decode(const char *path, int *w, int *h, unsigned char **rgb, char *why, size_t size);

/* Every src and href of out/index.html (html): no network address (no
 * scheme, no "//"), no absolute path, the file exists and is not empty;
 * every image (img src, and the PNG links) is a valid PNG or SVG of more
 * than 1000 bytes whose pixel size is the one its script figures/ID.gp
 * sets ("set terminal svg size W,H", "set terminal pngcairo size W,H").
 * Failures are CHECKs; returns the number of <img> elements. */
int cf_test_report_links(const char *out, const char *html);

/* ----------------------------------------------------- in a real browser */
/* Chromium (Debian's chromium: scripts/setup.sh installs it) from
 * CLOTHFIT_CHROMIUM, else on PATH, into exe: 0; when it is missing, a line
 * naming what is missing and the exit status of the test `test`: 1 under
 * CI (CI set in the environment: CI must run the browser tests), 77
 * (skipped) elsewhere. */
int cf_test_chromium_find(const char *test, char *exe, size_t size);
/* The start of a browser test: chromium found (cf_test_chromium_find)
 * and the scratch folder made from the mkdtemp template dir: 0, or the
 * test's exit status. */
int cf_test_browser_begin(const char *test, char *exe, size_t size, char *dir);
/* Its end: the scratch folder removed when every check passed, else kept
 * and named for inspection (the report, the screenshot); cf_test_done. */
int cf_test_browser_end(const char *dir, const char *test);

/* Headless Chromium (exe) opens out/index.html from the folder, offline,
 * in a 1280 x height window, with its profile and screenshot under dir:
 *   - the screenshot (dir/shot.png) is decoded and must not be blank: more
 *     than 3 % of its pixels differ from the background, it has more than 50
 *     distinct colours, and more than 5000 pixels have the green-yellow
 *     colours of the heat maps' palette (viridis), which only the drawn
 *     figures have: the page's text is grey and its links blue;
 *   - the DOM it dumps (--dump-dom) is returned (malloc'ed; NULL after a
 *     failed check). */
char *cf_test_report_render(const char *exe, const char *dir, const char *out, int height);

/* The text of a DOM: tags removed, the entities the serializer writes
 * decoded (malloc'ed). */
char *cf_test_page_text(const char *html);

/* The DOM dom of out/index.html holds, in its text, the title (the "### "
 * line of tables/ID.md) of every table the report wrote, the tables ids[n]
 * among them; the caption of every figure report.md shows (its image
 * lines); the name of every recording of r; and `figures` <img> elements
 * (the figures the report says it drew).  Failures are CHECKs; returns
 * the page's text (cf_test_page_text) for the test's own checks. */
char *cf_test_report_dom(const char *out, const char *dom, const char *const *ids, int n, const cf_results *r,
                         int figures);

#endif
