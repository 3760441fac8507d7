/* scenario.c — simulation scenarios from INI files (inih). */
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cf_io.h"

/* Debian's inih is built without line numbers in the handler, so a custom
 * reader feeds the text line by line and counts. */
typedef struct {
  cf_scenario *sc;
  const char *path;
  cf_error *err;
  int failed;
  const char *cursor;
  int line;
} parse_ctx;

static char *read_line(char *str, int num, void *stream) {
  parse_ctx *c = stream;
  if (!*c->cursor || num < 2) return NULL;
  int n = 0;
  while (c->cursor[n] && c->cursor[n] != '\n' && n < num - 1) n++;
  memcpy(str, c->cursor, (size_t)n);
  str[n] = 0;
  c->cursor += n;
  if (*c->cursor == '\n') c->cursor++;
  c->line++;
  return str;
}

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  while (*end == ' ' || *end == '\t') end++;
  if (end == s || *end || errno == ERANGE || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

static int parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  while (*end == ' ' || *end == '\t') end++;
  if (end == s || *end || errno == ERANGE || v < -1000000000L || v > 1000000000L) return 0;
  *out = (int)v;
  return 1;
}

static int parse_vec3(const char *s, double v[3]) {
  char *end;
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    errno = 0;
    v[i] = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v[i])) return 0;
    p = end;
    while (*p == ' ') p++;
    if (i < 2) {
      if (*p != ',') return 0;
      p++;
    }
  }
  while (*p == ' ') p++;
  return *p == 0;
}

static int copy_word(char *dst, size_t n, const char *v) {
  if (strlen(v) >= n) return 0;
  strcpy(dst, v);
  return 1;
}

#define KEY(sec, k) (!strcasecmp(section, sec) && !strcasecmp(name, k))

/* One key=value; returns 1 if accepted, 0 with err filled otherwise. */
static int set_key(parse_ctx *c, const char *section, const char *name, const char *value,
                   int line) {
  cf_scenario *sc = c->sc;
  cf_params *p = &sc->params;
  int ok = 1, known = 1;
  const char *expect = "a finite number";
  if (KEY("scenario", "name")) ok = copy_word(sc->name, sizeof sc->name, value), expect = "a name under 128 characters";
  else if (KEY("cloth", "width")) ok = parse_double(value, &sc->width) && sc->width > 0, expect = "a length > 0 in m";
  else if (KEY("cloth", "height")) ok = parse_double(value, &sc->height) && sc->height > 0, expect = "a length > 0 in m";
  else if (KEY("cloth", "mesh")) ok = (!strcmp(value, "quads") || !strcmp(value, "triangles")) && copy_word(sc->mesh_kind, sizeof sc->mesh_kind, value), expect = "quads or triangles";
  else if (KEY("cloth", "nx")) ok = parse_int(value, &sc->nx) && sc->nx >= 2, expect = "an integer >= 2";
  else if (KEY("cloth", "ny")) ok = parse_int(value, &sc->ny) && sc->ny >= 2, expect = "an integer >= 2";
  else if (KEY("cloth", "noise")) ok = parse_double(value, &sc->noise) && sc->noise >= 0, expect = "a length >= 0 in m";
  else if (KEY("cloth", "seed")) { int s = 0; ok = parse_int(value, &s) && s >= 0; sc->seed = (unsigned long)s; expect = "an integer >= 0"; }
  else if (KEY("cloth", "orientation")) ok = (!strcmp(value, "hanging") || !strcmp(value, "horizontal")) && copy_word(sc->orientation, sizeof sc->orientation, value), expect = "hanging or horizontal";
  else if (KEY("material", "rho")) ok = parse_double(value, &p->rho);
  else if (KEY("material", "delta")) ok = parse_double(value, &p->delta);
  else if (KEY("material", "alpha")) ok = parse_double(value, &p->alpha);
  else if (KEY("material", "beta")) ok = parse_double(value, &p->beta);
  else if (KEY("material", "kappa")) ok = parse_double(value, &p->kappa);
  else if (KEY("material", "ks")) ok = parse_double(value, &p->ks);
  else if (KEY("sim", "dt")) ok = parse_double(value, &p->dt) && p->dt > 0, expect = "a time step > 0 in s";
  else if (KEY("sim", "duration")) ok = parse_double(value, &sc->duration) && sc->duration > 0, expect = "a duration > 0 in s";
  else if (KEY("sim", "tol")) ok = parse_double(value, &p->tol) && p->tol > 0, expect = "a relative tolerance > 0";
  else if (KEY("sim", "max_iter")) ok = parse_int(value, &p->max_iter) && p->max_iter >= 1, expect = "an integer >= 1";
  else if (KEY("sim", "reuse_factor")) ok = parse_int(value, &p->reuse_factor) && (p->reuse_factor == 0 || p->reuse_factor == 1), expect = "0 or 1";
  else if (KEY("sim", "g")) ok = parse_double(value, &p->g);
  else if (KEY("drive", "nodes")) ok = copy_word(sc->drive_nodes, sizeof sc->drive_nodes, value), expect = "top-corners, three-corners, none or a node list";
  else if (KEY("drive", "motion")) {
    expect = "shake or fixed";
    if (!strcmp(value, "shake")) sc->drive.kind = CF_DRIVE_SHAKE;
    else if (!strcmp(value, "fixed")) sc->drive.kind = CF_DRIVE_FIXED;
    else ok = 0;
  } else if (KEY("drive", "amplitude")) ok = parse_double(value, &sc->drive.amplitude) && sc->drive.amplitude >= 0, expect = "an amplitude >= 0 in m";
  else if (KEY("drive", "frequency")) ok = parse_double(value, &sc->drive.frequency) && sc->drive.frequency >= 0, expect = "a frequency >= 0 in Hz";
  else if (KEY("drive", "axis")) {
    double *a = sc->drive.axis, nrm;
    ok = parse_vec3(value, a);
    nrm = ok ? sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) : 0;
    ok = ok && nrm > 0;
    for (int i = 0; ok && i < 3; i++) a[i] /= nrm;
    expect = "three comma-separated numbers, not all zero";
  } else known = 0;
  if (!known) {
    cf_error_set(c->err, CF_EFORMAT, "%s:%d: unknown key '%s' in section [%s]", c->path, line, name, section);
    return 0;
  }
  if (!ok) {
    cf_error_set(c->err, CF_EFORMAT, "%s:%d: [%s] %s = '%s': expected %s", c->path, line, section, name, value, expect);
    return 0;
  }
  return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
  parse_ctx *c = user;
  int line = c->line;
  if (c->failed) return 0;
  if (!name) return 1; /* a section header */
  if (!set_key(c, section, name, value, line)) {
    c->failed = 1;
    return 0;
  }
  return 1;
}

static void scenario_defaults(cf_scenario *sc) {
  memset(sc, 0, sizeof *sc);
  strcpy(sc->name, "unnamed");
  sc->width = 0.42;
  sc->height = 0.594;
  strcpy(sc->mesh_kind, "quads");
  sc->nx = 7;
  sc->ny = 9;
  strcpy(sc->orientation, "hanging");
  cf_params_default(&sc->params);
  sc->duration = 15;
  strcpy(sc->drive_nodes, "top-corners");
  sc->drive.kind = CF_DRIVE_SHAKE;
  sc->drive.amplitude = 0.075;
  sc->drive.frequency = 0.6;
  sc->drive.axis[1] = 1;
}

static char *slurp(const char *path, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    cf_error_set(err, CF_EIO, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (n + 1 < cap) break;
    if (cap > (1u << 24)) { /* 16 MB: not a config file */
      free(buf);
      buf = NULL;
      cf_error_set(err, CF_EFORMAT, "%s: larger than 16 MB, expected a small INI config", path);
      fclose(f);
      return NULL;
    }
    char *nb = realloc(buf, cap *= 2);
    if (!nb) free(buf);
    buf = nb;
  }
  fclose(f);
  if (!buf) {
    cf_error_set(err, CF_ENOMEM, "%s: out of memory", path);
    return NULL;
  }
  buf[n] = 0;
  if (strlen(buf) != n) {
    free(buf);
    cf_error_set(err, CF_EFORMAT, "%s: contains NUL bytes, expected a text INI config", path);
    return NULL;
  }
  /* Other control characters (tab and CR LF line ends aside) mean binary
   * data; rejecting them here also keeps them out of the error messages,
   * which quote keys and values. */
  int line = 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)buf[i];
    line += ch == '\n';
    if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f) {
      free(buf);
      cf_error_set(err, CF_EFORMAT, "%s:%d: contains binary data (byte 0x%02x), expected a text INI config",
                   path, line, ch);
      return NULL;
    }
  }
  return buf;
}

int cf_scenario_load(const char *path, cf_scenario *sc, cf_error *err) {
  scenario_defaults(sc);
  sc->text = slurp(path, err);
  if (!sc->text) return err ? err->code : CF_EIO;
  parse_ctx c = {sc, path, err, 0, sc->text, 0};
  int rc = ini_parse_stream(read_line, &c, handler, &c);
  if (c.failed) return err ? err->code : CF_EFORMAT;
  if (rc != 0)
    return cf_error_set(err, CF_EFORMAT, "%s:%d: malformed line, expected 'key = value' or '[section]'", path, rc);
  cf_error perr;
  if (cf_params_check(&sc->params, &perr))
    return cf_error_set(err, CF_EINVAL, "%s: %s", path, perr.msg);
  return CF_OK;
}

void cf_scenario_free(cf_scenario *sc) {
  free(sc->text);
  sc->text = NULL;
}

/* Node lists: named sets or "i,j,k". */
static int drive_nodes(const cf_scenario *sc, const cf_mesh *m, int **kin, int *n_kin, cf_error *err) {
  int nx = sc->nx, ny = sc->ny;
  int *k = malloc(sizeof(int) * (size_t)(m->n_nodes + 1));
  if (!k) return cf_error_set(err, CF_ENOMEM, "out of memory");
  int n = 0;
  /* grid node (i,j): index j*nx + i; row j = ny-1 is the top edge */
  if (!strcmp(sc->drive_nodes, "top-corners")) {
    k[n++] = (ny - 1) * nx;
    k[n++] = ny * nx - 1;
  } else if (!strcmp(sc->drive_nodes, "three-corners")) {
    k[n++] = 0;
    k[n++] = nx - 1;
    k[n++] = ny * nx - 1;
  } else if (strcmp(sc->drive_nodes, "none")) {
    const char *p = sc->drive_nodes;
    while (*p) {
      char *end;
      long v = strtol(p, &end, 10);
      if (end == p || v < 0 || v >= m->n_nodes) {
        free(k);
        return cf_error_set(err, CF_EINVAL, "[drive] nodes = '%s': expected node indices in 0..%d",
                            sc->drive_nodes, m->n_nodes - 1);
      }
      k[n++] = (int)v;
      p = end;
      if (*p == ',') p++;
      if (n >= m->n_nodes) break;
    }
  }
  *kin = k;
  *n_kin = n;
  return CF_OK;
}

int cf_scenario_mesh(const cf_scenario *sc, cf_mesh **mesh, int **kin, int *n_kin, cf_error *err) {
  double o[3] = {0, 0, 0}, u[3] = {sc->width, 0, 0}, v[3] = {0, 0, sc->height};
  if (!strcmp(sc->orientation, "horizontal")) {
    v[1] = sc->height;
    v[2] = 0;
  }
  int quads = !strcmp(sc->mesh_kind, "quads");
  cf_mesh *m = cf_mesh_grid(sc->nx, sc->ny, o, u, v, quads);
  if (!m) return cf_error_set(err, CF_EINVAL, "cannot build a %dx%d %s mesh", sc->nx, sc->ny, sc->mesh_kind);
  if (sc->noise > 0) {
    uint64_t s = sc->seed * 0x9E3779B97F4A7C15ULL + 1;
    for (int i = 0; i < 3 * m->n_nodes; i++) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17; /* xorshift64 */
      m->x[i] += sc->noise * ((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
    }
    int rc = cf_mesh_finalize(m, err);
    if (rc) {
      cf_mesh_free(m);
      return rc;
    }
  }
  int rc = drive_nodes(sc, m, kin, n_kin, err);
  if (rc) {
    cf_mesh_free(m);
    return rc;
  }
  *mesh = m;
  return CF_OK;
}
