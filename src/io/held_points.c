/* held_points.c — the grippers of a point-cloud recording beyond their
 * track (cf_io.h, cf_rec_held): the point of the sheet each holds, the
 * window in which it holds it, the cloth's start, and their checks.
 *
 * Computes: the values of `ingest clouds --held`, `--grasp` and `--start`
 * (and of the meta keys held, grasp, start) into a cf_rec_held; the default
 * points; whether a gripper holds at a time; whether a recording is the
 * two-corner hanger of files written before (whose fits stay as they were).
 * No workspace; nothing allocated.
 * Failure: CF_EINVAL with one line naming the option or key, the value and
 * what was expected; cf_rec_held_check names the track's file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"

static const struct {
  const char *name;
  double u, v;
} corners[] = {{"top-left", 0, 0}, {"top-right", 1, 0}, {"bottom-left", 0, 1}, {"bottom-right", 1, 1}};

#define WINDOW_SLACK 1e-9 /* s: a window's ends count (frame times are multiples of dt) */

int cf_rec_held_point(const cf_rec_held *h, int g, double uv[2]) {
  if (g < 0 || g >= h->n_grip) return 0;
  if (h->n_point) return uv[0] = h->point[g][0], uv[1] = h->point[g][1], 1;
  if (h->n_grip != 2) return 0;
  uv[0] = g, uv[1] = 0;
  return 1;
}

int cf_rec_held_holds(const cf_rec_held *h, int g, double t) {
  if (!h->n_grasp) return 1;
  return t >= h->grasp[g][0] - WINDOW_SLACK && t <= h->grasp[g][1] + WINDOW_SLACK;
}

int cf_rec_held_is_hanger(const cf_rec_held *h) {
  double a[2], b[2];
  if (h->n_grip != 2 || h->start != CF_CLOTH_HANGING || !cf_rec_held_point(h, 0, a) || !cf_rec_held_point(h, 1, b))
    return 0;
  for (int g = 0; g < h->n_grasp; g++)
    if (h->grasp[g][0] != -INFINITY || h->grasp[g][1] != INFINITY) return 0;
  return a[0] == 0 && a[1] == 0 && b[0] == 1 && b[1] == 0;
}

/* The next item of a comma-separated list [*p ..) into buf; 0 at the end. */
static int next_item(const char **p, char *buf, size_t size) {
  if (!*p) return 0;
  const char *c = strchr(*p, ',');
  size_t w = c ? (size_t)(c - *p) : strlen(*p);
  snprintf(buf, size, "%.*s", (int)(w < size ? w : size - 1), *p);
  *p = c ? c + 1 : NULL;
  return 1;
}

/* A number of [0, 1] (end: the text after it must be exactly that). */
static int unit_number(const char *s, const char *end, double *v) {
  char *e;
  *v = strtod(s, &e);
  return e != s && e == end && *v >= 0 && *v <= 1;
}

static int one_point(const char *s, double uv[2]) {
  for (size_t k = 0; k < sizeof corners / sizeof corners[0]; k++)
    if (!strcmp(s, corners[k].name)) return uv[0] = corners[k].u, uv[1] = corners[k].v, 1;
  const char *c = strchr(s, ':');
  return c && unit_number(s, c, uv) && unit_number(c + 1, s + strlen(s), uv + 1);
}

/* One window "A:B" (either may be empty) into w[2]. */
static int one_window(const char *s, double w[2]) {
  const char *c = strchr(s, ':');
  if (!c) return 0;
  char *e;
  w[0] = c == s ? -INFINITY : strtod(s, &e);
  if (c != s && (e != c || !isfinite(w[0]))) return 0;
  w[1] = !c[1] ? INFINITY : strtod(c + 1, &e);
  if (c[1] && (*e || !isfinite(w[1]))) return 0;
  return w[0] < w[1];
}

/* The comma-separated items of s, one a gripper, each by one(item, out[n])
 * into out; their number into *n.  what names the option, kind and expect
 * say what an item is and how it is written. */
static int parse_list(const char *s, const char *what, const char *kind, const char *expect,
                      int (*one)(const char *, double *), double (*out)[2], int *n, cf_error *err) {
  char item[96];
  int k = 0;
  for (const char *p = s; next_item(&p, item, sizeof item); k++) {
    if (k == CF_HELD_MAX)
      return cf_error_set(err, CF_EINVAL, "%s '%s': more than %d items (one a gripper)", what, s, CF_HELD_MAX);
    if (!one(item, out[k]))
      return cf_error_set(err, CF_EINVAL, "%s: '%s' is not %s: expected %s", what, item, kind, expect);
  }
  *n = k;
  return CF_OK;
}

int cf_rec_held_points_parse(const char *s, const char *what, cf_rec_held *h, cf_error *err) {
  return parse_list(s, what, "a point of the sheet", "top-left, top-right, bottom-left, bottom-right or U:V with U "
                    "(across from the left edge) and V (down from the top) in [0, 1]", one_point, h->point,
                    &h->n_point, err);
}

int cf_rec_held_grasp_parse(const char *s, const char *what, double time_offset, cf_rec_held *h, cf_error *err) {
  int rc = parse_list(s, what, "a grasp window", "T0:T1, s on the track's clock, T0 < T1 (T0 empty: from the start, "
                      "T1 empty: to the end)", one_window, h->grasp, &h->n_grasp, err);
  for (int g = 0; !rc && g < h->n_grasp; g++) h->grasp[g][0] -= time_offset, h->grasp[g][1] -= time_offset;
  return rc;
}

const char *cf_rec_held_start_name(int start) { return start == CF_CLOTH_FLAT_ON_TABLE ? "flat-on-table" : "hanging"; }

int cf_rec_held_start_parse(const char *s, const char *what, cf_rec_held *h, cf_error *err) {
  if (!strcmp(s, "hanging")) h->start = CF_CLOTH_HANGING;
  else if (!strcmp(s, "flat-on-table")) h->start = CF_CLOTH_FLAT_ON_TABLE;
  else return cf_error_set(err, CF_EINVAL, "%s '%s': expected hanging or flat-on-table", what, s);
  return CF_OK;
}

/* The gripper holding the point (u, v) from time 0, or -1. */
static int holding_at_start(const cf_rec_held *h, double u, double v) {
  double uv[2];
  for (int g = 0; g < h->n_grip; g++)
    if (cf_rec_held_point(h, g, uv) && uv[0] == u && uv[1] == v && cf_rec_held_holds(h, g, 0)) return g;
  return -1;
}

static int hanging_check(const cf_rec_held *h, const char *source, cf_error *err) {
  for (int k = 0; k < 2; k++) {
    if (holding_at_start(h, k, 0) >= 0) continue;
    int g = -1;
    double uv[2];
    for (int q = 0; q < h->n_grip && g < 0; q++)
      if (cf_rec_held_point(h, q, uv) && uv[0] == k && uv[1] == 0) g = q;
    if (g < 0)
      return cf_error_set(err, CF_EINVAL, "%s: the hanging start hangs the sheet from its top corners, and no gripper "
                          "holds %s (--held; or --start flat-on-table)", source, corners[k].name);
    return cf_error_set(err, CF_EINVAL, "%s: gripper %d's grasp window %.6g:%.6g s does not cover the first frame "
                        "(t = 0), and the hanging start needs its point, %s, held there (--grasp; or --start "
                        "flat-on-table)", source, g + 1, h->grasp[g][0], h->grasp[g][1], corners[k].name);
  }
  return CF_OK;
}

int cf_rec_held_check(const cf_rec_held *h, const char *source, cf_error *err) {
  if (h->n_point && h->n_point != h->n_grip)
    return cf_error_set(err, CF_EINVAL, "%s has %d gripper%s and --held (or held) names %d point%s: one a gripper, "
                        "in the track's order", source, h->n_grip, h->n_grip > 1 ? "s" : "", h->n_point,
                        h->n_point > 1 ? "s" : "");
  if (!h->n_point && h->n_grip != 2)
    return cf_error_set(err, CF_EINVAL, "%s has %d gripper%s: name the point of the sheet each holds (--held, or "
                        "held in --meta: top-left, top-right, bottom-left, bottom-right or U:V)", source, h->n_grip,
                        h->n_grip > 1 ? "s" : "");
  if (h->n_grasp && h->n_grasp != h->n_grip)
    return cf_error_set(err, CF_EINVAL, "%s has %d gripper%s and --grasp (or grasp) gives %d window%s: one a gripper",
                        source, h->n_grip, h->n_grip > 1 ? "s" : "", h->n_grasp, h->n_grasp > 1 ? "s" : "");
  for (int a = 0; a < h->n_grip; a++)
    for (int b = 0; b < a; b++) {
      double p[2], q[2];
      if (cf_rec_held_point(h, a, p) && cf_rec_held_point(h, b, q) && p[0] == q[0] && p[1] == q[1])
        return cf_error_set(err, CF_EINVAL, "%s: grippers %d and %d hold the same point %g:%g of the sheet", source,
                            b + 1, a + 1, p[0], p[1]);
    }
  return h->start == CF_CLOTH_HANGING ? hanging_check(h, source, err) : CF_OK;
}

void cf_rec_held_describe(const cf_rec_held *h, int g, char *buf, size_t size) {
  double uv[2] = {NAN, NAN};
  const char *name = "";
  if (cf_rec_held_point(h, g, uv))
    for (size_t k = 0; k < sizeof corners / sizeof corners[0]; k++)
      if (uv[0] == corners[k].u && uv[1] == corners[k].v) name = corners[k].name;
  char when[96] = "throughout";
  const double *w = h->n_grasp ? h->grasp[g] : NULL;
  if (w && isfinite(w[0]) && isfinite(w[1])) snprintf(when, sizeof when, "from %.6g to %.6g s", w[0], w[1]);
  else if (w && isfinite(w[0])) snprintf(when, sizeof when, "from %.6g s", w[0]);
  else if (w && isfinite(w[1])) snprintf(when, sizeof when, "until %.6g s", w[1]);
  if (isnan(uv[0])) snprintf(buf, size, "no point named");
  else snprintf(buf, size, "%s%s(%.6g:%.6g) %s", name, name[0] ? " " : "", uv[0], uv[1], when);
}
