/* report_check.c — checks of a written report (report_check.h). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "report_check.h"
#include "testutil.h"

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

int cf_test_png_size(const char *path, int *w, int *h) {
  unsigned char b[24];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(b, 1, sizeof b, f) : 0;
  if (f) fclose(f);
  if (n < 24 || memcmp(b, png_sig, 8) || be32(b + 8) != 13 || memcmp(b + 12, "IHDR", 4)) return -1;
  *w = (int)be32(b + 16), *h = (int)be32(b + 20);
  return *w > 0 && *h > 0 ? 0 : -1;
}

/* The number in attribute name="..." of the tag starting at tag (before its '>'). */
static int attr_num(const char *tag, const char *name, double *v) {
  const char *end = strchr(tag, '>');
  char key[32];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *p = strstr(tag, key);
  if (!p || (end && p > end)) snprintf(key, sizeof key, "\n%s=\"", name), p = strstr(tag, key);
  if (!p || (end && p > end)) return -1;
  char *q;
  *v = strtod(p + strlen(key), &q);
  return q == p + strlen(key) ? -1 : 0;
}

int cf_test_svg_size(const char *path, int *w, int *h) {
  char *s = cf_test_slurp(path, NULL);
  const char *tag = s ? strstr(s, "<svg") : NULL;
  double x, y;
  int rc = -1;
  if (tag && attr_num(tag, "width", &x) == 0 && attr_num(tag, "height", &y) == 0) rc = 0;
  else if (tag) {
    const char *vb = strstr(tag, "viewBox=\"");
    double x0, y0;
    if (vb && vb < strchr(tag, '>') && sscanf(vb + 9, "%lf %lf %lf %lf", &x0, &y0, &x, &y) == 4) rc = 0;
  }
  if (!rc) *w = (int)x, *h = (int)y;
  free(s);
  return rc;
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undo the filters of the h scanlines of raw (each 1 + w*bpp bytes) into out (w*h*3 RGB). */
static int unfilter(unsigned char *raw, int w, int h, int bpp, unsigned char *out) {
  size_t stride = (size_t)w * bpp;
  for (int y = 0; y < h; y++) {
    unsigned char *line = raw + y * (stride + 1), *cur = line + 1, *prev = y ? line - stride : NULL;
    for (size_t i = 0; i < stride; i++) {
      int a = i >= (size_t)bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;
      switch (line[0]) {
      case 0: break;
      case 1: cur[i] = (unsigned char)(cur[i] + a); break;
      case 2: cur[i] = (unsigned char)(cur[i] + b); break;
      case 3: cur[i] = (unsigned char)(cur[i] + (a + b) / 2); break;
      case 4: cur[i] = (unsigned char)(cur[i] + paeth(a, b, c)); break;
      default: return -1;
      }
    }
    for (int x = 0; x < w; x++) memcpy(out + ((size_t)y * w + x) * 3, cur + (size_t)x * bpp, 3);
  }
  return 0;
}

int cf_test_png_decode(const char *path, int *w, int *h, unsigned char **rgb, char *why, size_t size) {
  size_t len = 0;
  unsigned char *s = (unsigned char *)cf_test_slurp(path, &len), *idat = NULL, *raw = NULL;
  size_t nidat = 0;
  int rc = -1, bpp = 0;
  *rgb = NULL;
  if (!s || cf_test_png_size(path, w, h)) {
    snprintf(why, size, "%s: not a PNG", path);
    goto done;
  }
  int depth = s[24], color = s[25], interlace = s[28];
  bpp = color == 2 ? 3 : color == 6 ? 4 : 0;
  if (depth != 8 || !bpp || interlace) {
    snprintf(why, size, "%s: PNG of depth %d, colour type %d, interlace %d: only 8-bit RGB(A) is decoded", path,
             depth, color, interlace);
    goto done;
  }
  idat = malloc(len);
  for (size_t p = 8; idat && p + 12 <= len;) { /* the chunks: length, type, data, CRC */
    size_t n = be32(s + p);
    if (p + 12 + n > len) break;
    if (!memcmp(s + p + 4, "IDAT", 4)) memcpy(idat + nidat, s + p + 8, n), nidat += n;
    p += 12 + n;
  }
  uLongf want = (uLongf)(*h) * (1 + (uLongf)(*w) * bpp), got = want;
  raw = malloc(want);
  *rgb = malloc((size_t)(*w) * (*h) * 3);
  if (!idat || !raw || !*rgb) snprintf(why, size, "%s: out of memory", path);
  else if (uncompress(raw, &got, idat, nidat) != Z_OK || got != want)
    snprintf(why, size, "%s: the image data do not inflate to %lu bytes", path, (unsigned long)want);
  else if (unfilter(raw, *w, *h, bpp, *rgb)) snprintf(why, size, "%s: a scanline has an unknown filter", path);
  else rc = 0;
done:
  if (rc) free(*rgb), *rgb = NULL;
  free(s), free(idat), free(raw);
  return rc;
}

/* The size script figures/ID.gp sets for the terminal term ("svg" or "pngcairo"). */
static int script_size(const char *out, const char *rel, const char *term, int *w, int *h) {
  char path[2300], key[64];
  const char *dot = strrchr(rel, '.');
  snprintf(path, sizeof path, "%s/%.*s.gp", out, dot ? (int)(dot - rel) : (int)strlen(rel), rel);
  char *gp = cf_test_slurp(path, NULL);
  snprintf(key, sizeof key, "set terminal %s size ", term);
  const char *p = gp ? strstr(gp, key) : NULL;
  int ok = p && sscanf(p + strlen(key), "%d,%d", w, h) == 2;
  free(gp);
  return ok ? 0 : -1;
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long)st.st_size : -1;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && !strcmp(s + n - k, tail);
}

/* An image of the report: valid, not tiny, the size its script sets. */
static void check_image(const char *out, const char *rel) {
  char path[2300];
  snprintf(path, sizeof path, "%s/%s", out, rel);
  int svg = ends_with(rel, ".svg"), w = 0, h = 0, sw = -1, sh = -1;
  CHECK(file_size(path) > 1000, "%s: %ld bytes: not a real image", rel, file_size(path));
  int ok = svg ? cf_test_svg_size(path, &w, &h) == 0 : cf_test_png_size(path, &w, &h) == 0;
  CHECK(ok, "%s: not a valid %s", rel, svg ? "SVG (no size on its <svg> element)" : "PNG");
  CHECK(script_size(out, rel, svg ? "svg" : "pngcairo", &sw, &sh) == 0, "%s: its script sets no size", rel);
  CHECK(!ok || (w == sw && h == sh), "%s: %d x %d pixels, its script sets %d x %d", rel, w, h, sw, sh);
}

int cf_test_report_links(const char *out, const char *html) {
  int imgs = 0;
  CHECK(!strstr(html, "url(") && !strstr(html, "@import") && !strstr(html, "<script") && !strstr(html, "<link"),
        "index.html loads something besides its own images (url(, @import, <script or <link)");
  const char *attrs[2] = {"src=\"", "href=\""};
  for (int k = 0; k < 2; k++)
    for (const char *p = html; (p = strstr(p, attrs[k])); p++) {
      p += strlen(attrs[k]);
      const char *q = strchr(p, '"');
      if (!q) break;
      char rel[1024], path[2300];
      snprintf(rel, sizeof rel, "%.*s", (int)(q - p), p);
      if (rel[0] == '#') continue; /* an anchor: checked below */
      CHECK(!strchr(rel, ':') && rel[0] != '/' && strncmp(rel, "//", 2), "index.html references %s: not a "
            "relative path inside the folder (a network address or an absolute path)", rel);
      snprintf(path, sizeof path, "%s/%s", out, rel);
      CHECK(file_size(path) > 0, "index.html references %s: missing or empty", rel);
      int img = k == 0 && p - html >= 10 && !strncmp(p - 10, "<img src=\"", 10);
      imgs += img;
      if (img || ends_with(rel, ".png") || ends_with(rel, ".svg")) check_image(out, rel);
    }
  for (const char *p = html; (p = strstr(p, "href=\"#")); p++) { /* every anchor has its target */
    const char *q = strchr(p + 7, '"');
    char id[512];
    snprintf(id, sizeof id, "id=\"%.*s\"", q ? (int)(q - p - 7) : 0, p + 7);
    CHECK(q && strstr(html, id), "index.html: the link %.40s... has no target %s", p, id);
  }
  return imgs;
}

/* ----------------------------------------------------- in a real browser */
int cf_test_chromium_find(const char *test, char *exe, size_t size) {
  const char *env = getenv("CLOTHFIT_CHROMIUM"), *ci = getenv("CI");
  int have = env && *env ? snprintf(exe, size, "%s", env) > 0 && access(exe, X_OK) == 0
                         : cf_test_find_program("chromium", exe, size);
  if (have) return 0;
  fprintf(stderr, "%s: chromium not found (%s): install Debian's package chromium (scripts/setup.sh does) or give "
          "CLOTHFIT_CHROMIUM=PATH; %s\n", test, env && *env ? env : "not on PATH",
          ci && *ci ? "failing: CI must run the browser test" : "skipped (CI is not set)");
  return ci && *ci ? 1 : 77;
}

int cf_test_browser_begin(const char *test, char *exe, size_t size, char *dir) {
  int st = cf_test_chromium_find(test, exe, size);
  if (st) return st;
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  return 0;
}

int cf_test_browser_end(const char *dir, const char *test) {
  if (!cf_test_failures) {
    char rm[700];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm)) fprintf(stderr, "could not remove %s\n", dir);
  } else fprintf(stderr, "%s: the report and the screenshot are kept in %s\n", test, dir);
  return cf_test_done(test);
}

/* Run chromium headless on url with one more option (the output mode);
 * stdout into *out.  Its own profile folder under dir, no sandbox (root),
 * /tmp instead of /dev/shm (small in containers), none of its background
 * network services, stopped by timeout(1) after 180 s. */
static int chromium(const char *exe, const char *dir, int height, const char *mode, const char *url, char **out) {
  char profile[600], tmo[600], size[64];
  snprintf(profile, sizeof profile, "--user-data-dir=%s/profile", dir);
  snprintf(size, sizeof size, "--window-size=1280,%d", height);
  if (!cf_test_find_program("timeout", tmo, sizeof tmo)) snprintf(tmo, sizeof tmo, "/usr/bin/timeout");
  char *argv[] = {tmo, "180", (char *)exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-domain-reliability", "--no-pings", "--hide-scrollbars", size,
                  profile, (char *)mode, (char *)url, NULL};
  char *err = NULL;
  int st = cf_test_run(argv, dir, out, &err);
  if (st) fprintf(stderr, "chromium %s: exit %d; its stderr:\n%s\n", mode, st, err ? err : "");
  free(err);
  return st;
}

/* The screenshot is not blank and shows the figures' colours. */
static void check_screenshot(const char *png, int height) {
  int w, h;
  unsigned char *rgb;
  char why[600];
  CHECK(cf_test_png_decode(png, &w, &h, &rgb, why, sizeof why) == 0, "the screenshot: %s", why);
  if (!rgb) return;
  CHECK(w == 1280 && h == height, "the screenshot is %d x %d, the window 1280 x %d", w, h, height);
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

char *cf_test_report_render(const char *exe, const char *dir, const char *out, int height) {
  char url[700], shot[700];
  snprintf(url, sizeof url, "file://%s/index.html", out);
  snprintf(shot, sizeof shot, "--screenshot=%s/shot.png", dir);
  char *ignored = NULL, *dom = NULL;
  CHECK(chromium(exe, dir, height, shot, url, &ignored) == 0, "chromium --screenshot failed");
  free(ignored);
  snprintf(shot, sizeof shot, "%s/shot.png", dir);
  check_screenshot(shot, height);
  int ok = chromium(exe, dir, height, "--dump-dom", url, &dom) == 0 && dom && strstr(dom, "</html>");
  CHECK(ok, "chromium --dump-dom failed");
  if (!ok) free(dom), dom = NULL;
  return dom;
}

char *cf_test_page_text(const char *html) {
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

/* The title of every table the report wrote (out/tables/ID.md) in text;
 * the number of tables seen of ids[n]. */
static int check_table_titles(const char *out, const char *text, const char *const *ids, int n) {
  char tdir[600];
  snprintf(tdir, sizeof tdir, "%s/tables", out);
  DIR *d = opendir(tdir);
  CHECK(d != NULL, "%s: cannot open", tdir);
  struct dirent *e;
  int seen = 0;
  while (d && (e = readdir(d))) {
    if (!ends_with(e->d_name, ".md")) continue;
    char path[1000], title[600] = "";
    snprintf(path, sizeof path, "%s/%s", tdir, e->d_name);
    char *md = cf_test_slurp(path, NULL);
    CHECK(md && !strncmp(md, "### ", 4), "%s: missing or without a title", path);
    if (md) sscanf(md + 4, "%599[^\n]", title);
    CHECK(title[0] && strstr(text, title), "the page's text lacks the title of %s: %s", e->d_name, title);
    free(md);
    for (int k = 0; k < n; k++) seen += strlen(e->d_name) == strlen(ids[k]) + 3 && !strncmp(e->d_name, ids[k], strlen(ids[k]));
  }
  if (d) closedir(d);
  return seen;
}

/* The caption of every image line "![CAPTION](figures/ID.EXT)" of
 * out/report.md (unescaped: cf_rbuf_md puts \ before | and \) in text;
 * the number of such lines. */
static int check_captions(const char *out, const char *text) {
  char path[700];
  snprintf(path, sizeof path, "%s/report.md", out);
  char *md = cf_test_slurp(path, NULL);
  CHECK(md != NULL, "%s: missing", path);
  int n = 0;
  for (const char *p = md; p && (p = strstr(p, "\n![")); p++) {
    const char *end = strchr(p + 1, '\n'), *q = strstr(p, "](figures/");
    if (!end || !q || q > end) continue;
    char cap[1000];
    size_t k = 0;
    for (const char *c = p + 3; c < q && k + 1 < sizeof cap; c++) cap[k++] = *c == '\\' && c + 1 < q ? *++c : *c;
    cap[k] = 0;
    n++;
    CHECK(strstr(text, cap), "the page's text lacks the figure caption '%s'", cap);
  }
  free(md);
  return n;
}

char *cf_test_report_dom(const char *out, const char *dom, const char *const *ids, int n, const cf_results *r,
                         int figures) {
  char *text = cf_test_page_text(dom);
  int seen = check_table_titles(out, text, ids, n);
  CHECK(seen == n, "the report wrote %d of the %d tables the test expects (out/tables/ID.md)", seen, n);
  int captions = check_captions(out, text);
  CHECK(captions == figures, "report.md shows %d figures, the report drew %d", captions, figures);
  for (int i = 0; i < r->n; i++)
    CHECK(strstr(text, r->recs[i].name), "the page's text lacks the recording %s", r->recs[i].name);
  int imgs = 0;
  for (const char *p = dom; (p = strstr(p, "<img ")); p++) imgs++;
  CHECK(imgs == figures, "the page has %d images, the report drew %d figures", imgs, figures);
  return text;
}
