/* report_check.c — checks of a written report (report_check.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
