/* scenario.c — simulation scenarios from INI files (inih). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cf_study.h"
#include "cf_study.h"

typedef struct {
  cf_scenario *sc;
  const char *path;
  cf_error *err;
} parse_ctx;

static int parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  while (*end == ' ' || *end == '\t') end++;
  if (end == s || *end || errno == ERANGE || v < -1000000000L || v > 1000000000L) return 0;
  *out = (int)v;
  return 1;
}

static int parse_vec3(const char *s, double v[3]) { return cf_text_doubles(s, 3, v); }

static int copy_word(char *dst, size_t n, const char *v) {
  if (strlen(v) >= n) return 0;
  strcpy(dst, v);
  return 1;
}

#define KEY(sec, k) (!strcasecmp(section, sec) && !strcasecmp(name, k))

/* parse_vec3 normalized to a unit vector */
static int parse_unit(const char *s, double v[3]) {
  if (!parse_vec3(s, v)) return 0;
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(l > 0)) return 0;
  for (int i = 0; i < 3; i++) v[i] /= l;
  return 1;
}

/* Keys of [obstacle.NAME] sections (docs/contacts.md).  `kind` comes first;
 * every other key names the kinds it applies to.  Returns 1 (accepted),
 * 0 (malformed or not for this kind: *expect says what was expected) or
 * -1 (unknown key). */
static int obstacle_key(cf_scenario *sc, const char *obj, const char *name, const char *value, const char **expect) {
  int k = 0;
  while (k < sc->n_obstacles && strcmp(sc->obstacle_names[k], obj)) k++;
  if (!strcasecmp(name, "kind")) {
    *expect = k < sc->n_obstacles ? "one kind per obstacle section" :
              sc->n_obstacles >= CF_SCENARIO_MAX_OBSTACLES ? "at most 16 obstacles" :
              "plane, sphere, cylinder, box, table, stick or needles";
    const cf_obstacle_type *t = cf_obstacle_type_find(value);
    if (!t || k < sc->n_obstacles || k >= CF_SCENARIO_MAX_OBSTACLES || strlen(obj) >= 64) return 0;
    cf_obstacle_init(sc->obstacles + k, t);
    strcpy(sc->obstacle_names[k], obj);
    sc->n_obstacles++;
    return 1;
  }
  static const struct { const char *key, *kinds; } keys[] = {
      {"point", "plane"}, {"normal", "plane"}, {"center", "sphere cylinder box table stick needles"},
      {"radius", "sphere cylinder stick"}, {"axis", "cylinder stick"}, {"length", "cylinder stick"}, {"size", "box table"},
      {"mu", "*"}, {"velocity", "*"}, {"omega", "*"}, {"rotation_axis", "*"}, {"rotation_center", "*"},
      {"c1", "needles"}, {"c2", "needles"}, {"field", "needles"}};
  size_t q = 0;
  while (q < sizeof keys / sizeof keys[0] && strcasecmp(name, keys[q].key)) q++;
  if (q == sizeof keys / sizeof keys[0]) return -1;
  if (k == sc->n_obstacles) return *expect = "'kind' as the section's first key", 0;
  cf_obstacle *o = sc->obstacles + k;
  if (strcmp(keys[q].kinds, "*") && !strstr(keys[q].kinds, o->type->name))
    return *expect = "a key of this obstacle kind (see docs/contacts.md)", 0;
  double v[3], x;
  *expect = "three comma-separated numbers";
  switch (q) {
  case 0: case 2: return parse_vec3(value, o->c);
  case 1: *expect = "a non-zero vector"; return parse_unit(value, o->a);
  case 4: *expect = "a non-zero vector"; return parse_unit(value, o->a);
  case 8: return parse_vec3(value, o->vel);
  case 14: /* needles: the field's extents x, y */
    *expect = "two lengths >= 0 in m (x, y)";
    if (!cf_text_doubles(value, 2, v) || !(v[0] >= 0 && v[1] >= 0)) return 0;
    o->h[0] = 0.5 * v[0], o->h[1] = 0.5 * v[1];
    return 1;
  case 10: *expect = "a non-zero vector"; return parse_unit(value, o->rot_axis);
  case 11: return parse_vec3(value, o->rot_c);
  case 6:
    *expect = strcmp(o->type->name, "table") ? "three lengths > 0 in m (x, y, z)" : "three lengths > 0 in m (x, y, thickness)";
    if (!parse_vec3(value, v) || !(v[0] > 0 && v[1] > 0 && v[2] > 0)) return 0;
    for (int d = 0; d < 3; d++) o->h[d] = d == 2 && !strcmp(o->type->name, "table") ? v[d] : 0.5 * v[d];
    return 1;
  default: break;
  }
  int stick = o->type == cf_obstacle_stick;
  *expect = q == 3 ? "a radius > 0 in m"
            : q == 5 ? (stick ? "a length > 0 in m" : "a length >= 0 in m (0: infinite)")
            : q == 7 ? "a friction coefficient >= 0"
            : q == 12 || q == 13 ? "a number > 0"
                     : "a finite number";
  if (!cf_text_double(value, &x)) return 0;
  if (q == 3) return (o->r = x) > 0;
  if (q == 5) return (o->len = 0.5 * x) > 0 || (x == 0 && !stick);
  if (q == 7) return (o->mu = x) >= 0;
  if (q == 12 || q == 13) return (o->k[q - 12] = x) > 0;
  o->omega = x;
  return 1;
}

/* One key=value; returns 1 if accepted, 0 with err filled otherwise. */
static int set_key(void *user, const char *section, const char *name, const char *value, int line) {
  parse_ctx *c = user;
  cf_scenario *sc = c->sc;
  cf_params *p = &sc->params;
  int ok = 1, known = 1;
  const char *expect = "a finite number";
  if (KEY("scenario", "name")) ok = copy_word(sc->name, sizeof sc->name, value), expect = "a name under 128 characters";
  else if (KEY("cloth", "width")) ok = cf_text_double(value, &sc->width) && sc->width > 0, expect = "a length > 0 in m";
  else if (KEY("cloth", "height")) ok = cf_text_double(value, &sc->height) && sc->height > 0, expect = "a length > 0 in m";
  else if (KEY("cloth", "mesh")) ok = (!strcmp(value, "quads") || !strcmp(value, "triangles")) && copy_word(sc->mesh_kind, sizeof sc->mesh_kind, value), expect = "quads or triangles";
  else if (KEY("cloth", "nx")) ok = parse_int(value, &sc->nx) && sc->nx >= 2, expect = "an integer >= 2";
  else if (KEY("cloth", "ny")) ok = parse_int(value, &sc->ny) && sc->ny >= 2, expect = "an integer >= 2";
  else if (KEY("cloth", "noise")) ok = cf_text_double(value, &sc->noise) && sc->noise >= 0, expect = "a length >= 0 in m";
  else if (KEY("cloth", "seed")) { int s = 0; ok = parse_int(value, &s) && s >= 0; sc->seed = (unsigned long)s; expect = "an integer >= 0"; }
  else if (KEY("cloth", "orientation"))
    ok = (!strcmp(value, "hanging") || !strcmp(value, "horizontal") || !strcmp(value, "tube")) &&
         copy_word(sc->orientation, sizeof sc->orientation, value),
    expect = "hanging, horizontal or tube";
  else if (KEY("material", "rho")) ok = cf_text_double(value, &p->rho);
  else if (KEY("material", "delta")) ok = cf_text_double(value, &p->delta);
  else if (KEY("material", "alpha")) ok = cf_text_double(value, &p->alpha);
  else if (KEY("material", "beta")) ok = cf_text_double(value, &p->beta);
  else if (KEY("material", "kappa")) ok = cf_text_double(value, &p->kappa);
  else if (KEY("material", "ks")) ok = cf_text_double(value, &p->ks);
  else if (KEY("material", "model")) ok = (p->model = cf_cloth_model_find(value)) >= 0, expect = "inextensible, quasi-inextensible, elastic or mass-spring";
  else if (KEY("material", "k_stretch")) ok = cf_text_double(value, &p->k_stretch) && p->k_stretch > 0, expect = "a stiffness > 0 in N/m";
  else if (KEY("material", "k_shear")) ok = cf_text_double(value, &p->k_shear) && p->k_shear > 0, expect = "a stiffness > 0 in N/m";
  else if (KEY("material", "k_bend")) ok = cf_text_double(value, &p->k_bend) && p->k_bend > 0, expect = "a stiffness > 0 in N/m";
  else if (KEY("material", "rest_bending")) ok = parse_int(value, &p->rest_bending) && (p->rest_bending == 0 || p->rest_bending == 1), expect = "0 or 1";
  else if (KEY("sim", "dt")) ok = cf_text_double(value, &p->dt) && p->dt > 0, expect = "a time step > 0 in s";
  else if (KEY("sim", "duration")) ok = cf_text_double(value, &sc->duration) && sc->duration > 0, expect = "a duration > 0 in s";
  else if (KEY("sim", "tol")) ok = cf_text_double(value, &p->tol) && p->tol > 0, expect = "a relative tolerance > 0";
  else if (KEY("sim", "max_iter")) ok = parse_int(value, &p->max_iter) && p->max_iter >= 1, expect = "an integer >= 1";
  else if (KEY("sim", "reuse_factor")) ok = parse_int(value, &p->reuse_factor) && (p->reuse_factor == 0 || p->reuse_factor == 1), expect = "0 or 1";
  else if (KEY("sim", "predictor")) ok = parse_int(value, &p->predictor) && (p->predictor == 0 || p->predictor == 1), expect = "0 or 1";
  else if (KEY("sim", "threads")) ok = parse_int(value, &p->threads) && p->threads >= 1 && p->threads <= 256, expect = "an integer 1..256";
  else if (KEY("sim", "g")) ok = cf_text_double(value, &p->g);
  else if (KEY("drive", "nodes")) ok = copy_word(sc->drive_nodes, sizeof sc->drive_nodes, value), expect = "top-corners, three-corners, none or a node list";
  else if (KEY("drive", "motion")) {
    expect = "shake or fixed";
    if (!strcmp(value, "shake")) sc->drive.kind = CF_DRIVE_SHAKE;
    else if (!strcmp(value, "fixed")) sc->drive.kind = CF_DRIVE_FIXED;
    else ok = 0;
  } else if (KEY("drive", "amplitude")) ok = cf_text_double(value, &sc->drive.amplitude) && sc->drive.amplitude >= 0, expect = "an amplitude >= 0 in m";
  else if (KEY("drive", "frequency")) ok = cf_text_double(value, &sc->drive.frequency) && sc->drive.frequency >= 0, expect = "a frequency >= 0 in Hz";
  else if (KEY("drive", "axis")) {
    double *a = sc->drive.axis, nrm;
    ok = parse_vec3(value, a);
    nrm = ok ? sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) : 0;
    ok = ok && nrm > 0;
    for (int i = 0; ok && i < 3; i++) a[i] /= nrm;
    expect = "three comma-separated numbers, not all zero";
  } else if (KEY("contact", "thickness")) ok = cf_text_double(value, &sc->contact.thickness) && sc->contact.thickness >= 0, expect = "a length >= 0 in m";
  else if (KEY("contact", "eps_h")) ok = cf_text_double(value, &sc->contact.eps_h) && sc->contact.eps_h > 0, expect = "a length > 0 in m";
  else if (KEY("contact", "eps_x")) ok = cf_text_double(value, &sc->contact.eps_x) && sc->contact.eps_x > 0, expect = "a length > 0 in m";
  else if (KEY("contact", "updates")) ok = parse_int(value, &sc->contact.updates) && (sc->contact.updates == 0 || sc->contact.updates == 1), expect = "0 or 1";
  else if (KEY("contact", "friction")) {
    ok = !strcasecmp(value, "lagged") || !strcasecmp(value, "budget");
    sc->contact.friction_budget = ok && !strcasecmp(value, "budget");
    expect = "lagged or budget";
  } else if (KEY("contact", "solver")) {
    ok = !strcasecmp(value, "active-set") || !strcasecmp(value, "ipopt");
    sc->contact.solver = ok && !strcasecmp(value, "ipopt") ? CF_CONTACT_IPOPT : CF_CONTACT_ACTIVE_SET;
    expect = "active-set or ipopt";
  } else if (KEY("contact", "self"))
    ok = parse_int(value, &sc->contact.self) && (sc->contact.self == 0 || sc->contact.self == 1), expect = "0 or 1";
  else if (KEY("contact", "self_mu"))
    ok = cf_text_double(value, &sc->contact.self_mu) && sc->contact.self_mu >= 0, expect = "a friction coefficient >= 0";
  else if (KEY("contact", "omega"))
    ok = cf_text_double(value, &sc->contact.omega) && sc->contact.omega >= 0 && sc->contact.omega <= 0.5,
    expect = "a proximity in [0, 0.5]";
  else if (!strncasecmp(section, "obstacle.", 9) && section[9]) {
    int r = obstacle_key(sc, section + 9, name, value, &expect);
    known = r >= 0;
    ok = r > 0;
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
  /* one simulation may use both cores of a laptop (large meshes only;
   * trajectories do not depend on it) */
  sc->params.threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
  sc->duration = 15;
  strcpy(sc->drive_nodes, "top-corners");
  sc->drive.kind = CF_DRIVE_SHAKE;
  sc->drive.amplitude = 0.075;
  sc->drive.frequency = 0.6;
  sc->drive.axis[1] = 1;
  cf_contact_params_default(&sc->contact);
}

int cf_scenario_load(const char *path, cf_scenario *sc, cf_error *err) {
  scenario_defaults(sc);
  sc->text = cf_text_slurp(path, "a text INI config", err);
  if (!sc->text) return err ? err->code : CF_EIO;
  parse_ctx c = {sc, path, err};
  int rc = cf_ini_parse_text(path, sc->text, set_key, &c, err);
  if (rc) return rc;
  cf_error perr;
  if (cf_params_check(&sc->params, &perr))
    return cf_error_set(err, CF_EINVAL, "%s: %s", path, perr.msg);
  if (!strcmp(sc->orientation, "tube") && strcmp(sc->mesh_kind, "quads"))
    return cf_error_set(err, CF_EINVAL, "%s: [cloth] orientation = tube: expected mesh = quads", path);
  for (int k = 0; k < sc->n_obstacles; k++)
    if (cf_obstacle_check(sc->obstacles + k, &perr))
      return cf_error_set(err, CF_EINVAL, "%s: [obstacle.%s] %s", path, sc->obstacle_names[k], perr.msg + 10);
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
  int quads = !strcmp(sc->mesh_kind, "quads"), tube = !strcmp(sc->orientation, "tube");
  if (tube && !quads) return cf_error_set(err, CF_EINVAL, "[cloth] orientation = tube: needs mesh = quads");
  /* a tube: width long, height round, its bottom 1 cm above z = 0 */
  cf_mesh *m = tube ? cf_mesh_tube(sc->width, sc->height, sc->nx, sc->ny, 0.01 + sc->height / (2 * M_PI))
                    : cf_mesh_grid(sc->nx, sc->ny, o, u, v, quads);
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

int cf_trajectory_params(const cf_params *p, const char **names, double *values) {
  /* the order of the root attributes of trajectory files */
  static const char *const n[CF_TRAJECTORY_PARAMS] = {"rho", "delta", "alpha", "beta", "kappa", "ks",
                                                     "g", "dt", "tol", "max_iter", "reuse_factor", "predictor",
                                                     "rest_bending", "model", "k_stretch", "k_shear", "k_bend"};
  const double v[CF_TRAJECTORY_PARAMS] = {p->rho, p->delta, p->alpha, p->beta, p->kappa, p->ks,
                                          p->g, p->dt, p->tol, p->max_iter, p->reuse_factor, p->predictor,
                                          p->rest_bending, p->model, p->k_stretch, p->k_shear, p->k_bend};
  for (int i = 0; i < CF_TRAJECTORY_PARAMS; i++) names[i] = n[i], values[i] = v[i];
  return CF_TRAJECTORY_PARAMS;
}
