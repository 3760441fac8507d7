/* report_check.h — checks of a written report shared by test_report and
 * test_report_browser: the images' formats
 * and pixel sizes, the links of index.html, PNG decoding. */
#ifndef CF_REPORT_CHECK_H
#define CF_REPORT_CHECK_H

#include <stddef.h>

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

#endif
