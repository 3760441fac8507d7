/* synth_cfg.c — the INI config of `clothfit synth` (keys in cf_io.h and
 * datasets/aero-mini/configs/), with the thesis' tables as defaults:
 * densities (Table 4.1) and the per-recording optimal (delta, alpha) of
 * Tables A.1 (repetition I) and A.2 (repetition II). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "synth_internal.h"

static const struct {
  const char *name;
  double rho;
} densities[] = {{"paper", 0.0802}, {"polyester", 0.1042}, {"light-cotton", 0.1604}, {"felt", 0.1764},
                 {"wool", 0.1804},  {"denim", 0.3046},     {"stiff-cotton", 0.3046}};

double cf_material_density(const char *material) {
  for (size_t i = 0; i < sizeof densities / sizeof densities[0]; i++)
    if (!strcasecmp(material, densities[i].name)) return densities[i].rho;
  return NAN;
}

/* Tables A.1 / A.2: material, size (2 = A2, 3 = A3), motion (s|t), speed
 * (s|f), then (alpha, delta) of repetition I and of repetition II. */
static const struct {
  const char *material;
  char size, motion, speed;
  double alpha1, delta1, alpha2, delta2;
} table_a[] = {
    {"stiff-cotton", 2, 's', 's', 0.336, 0.160, 0.416, 0.139}, {"stiff-cotton", 2, 's', 'f', 0.657, 0.181, 0.737, 0.181},
    {"stiff-cotton", 2, 't', 's', 0.496, 0.222, 0.496, 0.222}, {"stiff-cotton", 2, 't', 'f', 0.817, 0.284, 0.898, 0.305},
    {"stiff-cotton", 3, 's', 's', 0.336, 0.201, 0.336, 0.181}, {"stiff-cotton", 3, 's', 'f', 0.817, 0.222, 0.737, 0.222},
    {"stiff-cotton", 3, 't', 's', 0.336, 0.243, 0.496, 0.284}, {"stiff-cotton", 3, 't', 'f', 0.898, 0.263, 0.978, 0.305},
    {"wool", 2, 's', 's', 0.199, 0.058, 0.247, 0.070},         {"wool", 2, 's', 'f', 0.437, 0.082, 0.532, 0.095},
    {"wool", 2, 't', 's', 0.437, 0.131, 0.294, 0.095},         {"wool", 2, 't', 'f', 0.532, 0.095, 0.627, 0.107},
    {"wool", 3, 's', 's', 0.294, 0.082, 0.342, 0.082},         {"wool", 3, 's', 'f', 0.579, 0.107, 0.532, 0.107},
    {"wool", 3, 't', 's', 0.294, 0.107, 0.294, 0.095},         {"wool", 3, 't', 'f', 0.579, 0.107, 0.627, 0.144},
    {"polyester", 2, 's', 's', 0.170, 0.026, 0.142, 0.026},    {"polyester", 2, 's', 'f', 0.307, 0.041, 0.280, 0.041},
    {"polyester", 2, 't', 's', 0.197, 0.041, 0.170, 0.033},    {"polyester", 2, 't', 'f', 0.307, 0.048, 0.252, 0.041},
    {"polyester", 3, 's', 's', 0.142, 0.033, 0.170, 0.033},    {"polyester", 3, 's', 'f', 0.280, 0.041, 0.280, 0.041},
    {"polyester", 3, 't', 's', 0.115, 0.048, 0.170, 0.033},    {"polyester", 3, 't', 'f', 0.307, 0.055, 0.417, 0.055},
    {"denim", 2, 's', 's', 0.416, 0.139, 0.336, 0.139},        {"denim", 2, 's', 'f', 0.898, 0.201, 0.817, 0.181},
    {"denim", 2, 't', 's', 0.416, 0.222, 0.336, 0.222},        {"denim", 2, 't', 'f', 0.978, 0.263, 0.978, 0.243},
    {"denim", 3, 's', 's', 0.416, 0.181, 0.416, 0.181},        {"denim", 3, 's', 'f', 0.737, 0.201, 0.737, 0.201},
    {"denim", 3, 't', 's', 0.416, 0.243, 0.978, 0.222},        {"denim", 3, 't', 'f', 0.737, 0.305, 0.496, 0.222},
};

/* Table 4.2: the WAM shakes (A3, rho = 1, Remark 4.1.1): material, then
 * delta and alpha of the slow and of the fast motion. */
static const struct {
  const char *material;
  double delta_slow, delta_fast, alpha_slow, alpha_fast;
} table_42[] = {{"paper", 0.32, 0.37, 1.40, 2.49},
                {"light-cotton", 0.52, 0.52, 1.29, 2.69},
                {"felt", 0.46, 0.61, 1.05, 2.65},
                {"wool", 0.47, 0.50, 1.19, 2.52}};

static int table_42_lookup(const cf_synth_config *c, double *delta, double *alpha) {
  int slow = !strcmp(c->speed, "slow");
  for (size_t i = 0; i < sizeof table_42 / sizeof table_42[0]; i++)
    if (!strcasecmp(table_42[i].material, c->material)) {
      *delta = slow ? table_42[i].delta_slow : table_42[i].delta_fast;
      *alpha = slow ? table_42[i].alpha_slow : table_42[i].alpha_fast;
      return 1;
    }
  return 0;
}

/* Tables A.1/A.2 entry of the recording c describes (a tablecloth or a
 * hitting: the shake of the same fabric, size and speed); 0 if there is
 * none. */
static int table_lookup(const cf_synth_config *c, double *delta, double *alpha) {
  int rep = !strcmp(c->repetition, "I") ? 1 : !strcmp(c->repetition, "II") ? 2 : 0;
  for (size_t i = 0; rep && i < sizeof table_a / sizeof table_a[0]; i++) {
    if (strcasecmp(table_a[i].material, c->material) || table_a[i].size != c->size[1] - '0' ||
        table_a[i].motion != (c->motion[0] == 't' && c->motion[1] == 'w' ? 't' : 's') || table_a[i].speed != c->speed[0])
      continue;
    *alpha = rep == 1 ? table_a[i].alpha1 : table_a[i].alpha2;
    *delta = rep == 1 ? table_a[i].delta1 : table_a[i].delta2;
    return 1;
  }
  return 0;
}

void cf_synth_config_default(cf_synth_config *c) {
  memset(c, 0, sizeof *c);
  strcpy(c->material, "polyester");
  strcpy(c->size, "A2");
  strcpy(c->motion, "shake");
  strcpy(c->speed, "fast");
  strcpy(c->repetition, "I");
  c->density = c->delta = c->alpha = NAN;
  c->kappa = 1e-5;
  c->beta = 1e-4;
  strcpy(c->model, "inextensible");
  c->k_stretch = CF_DEFAULT_K_STRETCH;
  c->k_shear = CF_DEFAULT_K_SHEAR;
  c->k_bend = CF_DEFAULT_K_BEND;
  c->refine = 4;
  c->sim_dt = 1.0 / 480;
  c->tol = 1e-3;
  c->max_iter = 50;
  c->duration = 15;
  c->rate = 120;
  c->speed_tol = 0.05;
  c->twist_angle = 30;
  c->modulation = 0.25;
  c->ramp = 0.5;
  c->slack = 0.01;
  c->preroll = 1;
  c->top_height = 1.5;
  c->table_mu = 0.5;
  c->table_drop = 0.10;
  c->lay_time = 1.5;
  c->drag = 0.3;
  c->drag_period = 2;
  c->hits = 4;
  c->stick_length = 0.75;
  c->stick_radius = CF_STICK_RADIUS;
  c->hit_depth = 0.12;
  c->hit_time = 0.5;
  c->stick_rest = 0.25;
  c->still_before = 1;
  c->still_after = 3;
  strcpy(c->output, "markers");
  c->mesh[0] = c->mesh[1] = 9;
  c->cam_rate = 30;
  c->jitter = 0.003;
  c->drop_rate = 0.25;
  c->drop_min = 2;
  c->drop_max = 5;
  c->distance = 1.2;
  c->pixels[0] = 200, c->pixels[1] = 150;
  c->fov = 57;
  c->mesh_noise = 0.002;
  c->depth_noise = 1.5e-3;
  c->outliers = 0.015;
  strcpy(c->cloud_format, "binary");
  c->mesh_decimals = 5;
  c->track_rate = 120;
  c->seed = 1;
  c->noise = 1e-4;
  c->gap_rate = 0.05;
  c->gap_mean = 0.1;
  c->gap_max = 0.5;
  c->corner_max_gap = 0.1;
  c->quiet = 0.5;
  c->fragments = 2;
  c->fragment_gap = 0.05;
  c->ghosts = 2;
  c->decimals = 6;
}

void cf_synth_config_free(cf_synth_config *c) {
  free(c->text);
  c->text = NULL;
}

/* ------------------------------------------------------------ the keys */
enum { K_DBL, K_INT, K_SEED, K_WORD, K_PAIR };

typedef struct {
  const char *section, *key;
  int kind;
  size_t off, size;      /* K_WORD: the char array's size */
  double lo, hi;         /* numbers: accepted range [lo, hi] */
  const char *expect;    /* K_WORD: '|'-separated choices ("" = any) */
} key_spec;

#define CFG(f) offsetof(cf_synth_config, f)
#define W(sec, k, f, ch) {sec, k, K_WORD, CFG(f), sizeof(((cf_synth_config *)0)->f), 0, 0, ch}
#define D(sec, k, f, lo, hi, ex) {sec, k, K_DBL, CFG(f), 0, lo, hi, ex}
#define I(sec, k, f, lo, hi, ex) {sec, k, K_INT, CFG(f), 0, lo, hi, ex}
#define P(sec, k, f, lo, hi, ex) {sec, k, K_PAIR, CFG(f), 0, lo, hi, ex}
static const key_spec keys[] = {
    W("recording", "material", material, ""),
    W("recording", "size", size, "A2|A3"),
    W("recording", "motion", motion, "shake|twist|tablecloth|hitting|wam"),
    W("recording", "speed", speed, "slow|fast"),
    W("recording", "repetition", repetition, ""),
    D("recording", "duration", duration, 1, 3600, "a duration in s, 1..3600"),
    D("recording", "rate", rate, 1, 1000, "a sampling rate in Hz, 1..1000"),
    {"recording", "seed", K_SEED, CFG(seed), 0, 0, 4e9, "an integer >= 0"},
    W("recording", "output", output, "markers|meshes|clouds|both"),
    D("cloth", "density", density, 1e-6, 100, "a density > 0 in kg/m^2"),
    D("cloth", "delta", delta, 0, 100, "a virtual gravitational mass >= 0 in kg/m^2"),
    D("cloth", "alpha", alpha, 0, 1e4, "a damping >= 0"),
    D("cloth", "kappa", kappa, 0, 1, "a bending stiffness >= 0"),
    D("cloth", "beta", beta, 0, 10, "a damping >= 0"),
    I("cloth", "refine", refine, 1, 8, "an integer 1..8 (cells split refine x refine)"),
    W("cloth", "model", model, "inextensible|quasi-inextensible|elastic|mass-spring"),
    D("cloth", "k_stretch", k_stretch, 1e-6, 1e9, "a stiffness in N/m, 1e-6..1e9"),
    D("cloth", "k_shear", k_shear, 1e-6, 1e9, "a stiffness in N/m, 1e-6..1e9"),
    D("cloth", "k_bend", k_bend, 1e-6, 1e9, "a stiffness in N/m, 1e-6..1e9"),
    D("sim", "dt", sim_dt, 1e-5, 0.01, "a time step in s, 1e-5..0.01"),
    D("sim", "tol", tol, 1e-9, 0.1, "a relative tolerance in 1e-9..0.1"),
    I("sim", "max_iter", max_iter, 1, 10000, "an integer >= 1"),
    D("motion", "target_speed", target_speed, 0, 5, "an average speed in m/s, 0..5 (0: by speed)"),
    D("motion", "speed_tol", speed_tol, 0.001, 1, "a relative tolerance in 0.001..1"),
    D("motion", "amplitude", amplitude, 0, 0.5, "an amplitude in m, 0..0.5 (0: by speed)"),
    D("motion", "frequency", frequency, 0, 20, "a frequency in Hz, 0..20 (0: by speed)"),
    D("motion", "still_before", still_before, 0, 60, "a time in s, 0..60"),
    D("motion", "still_after", still_after, 0, 60, "a time in s, 0..60"),
    D("motion", "twist_angle", twist_angle, 1, 80, "an angle in degrees, 1..80"),
    D("motion", "modulation", modulation, 0, 0.9, "a relative variation in 0..0.9"),
    D("motion", "ramp", ramp, 0, 10, "a time in s, 0..10"),
    D("motion", "slack", slack, 0, 0.3, "a relative shortening of the top edge's chord, 0..0.3"),
    D("motion", "preroll", preroll, 0, 60, "a time in s, 0..60"),
    D("motion", "top_height", top_height, 0.1, 10, "a height in m, 0.1..10"),
    D("table", "mu", table_mu, 0, 10, "a friction coefficient in 0..10"),
    D("table", "drop", table_drop, 0, 2, "a height in m, 0..2"),
    D("table", "lay_time", lay_time, 0.1, 60, "a time in s, 0.1..60"),
    D("table", "drag", drag, 0, 1, "a length in m, 0..1"),
    D("table", "drag_period", drag_period, 0.1, 60, "a time in s, 0.1..60"),
    I("stick", "hits", hits, 1, 100, "a number of hits, 1..100"),
    D("stick", "length", stick_length, 0.05, 5, "a length in m, 0.05..5"),
    D("stick", "radius", stick_radius, 1e-4, 0.1, "a radius in m, 1e-4..0.1"),
    D("stick", "depth", hit_depth, 0, 1, "a depth in m, 0..1"),
    D("stick", "hit_time", hit_time, 0.05, 10, "a time in s, 0.05..10"),
    D("stick", "rest", stick_rest, 0.05, 2, "a distance in m, 0.05..2"),
    P("camera", "mesh", mesh, 2, 200, "ROWSxCOLS, each 2..200 (e.g. 9x9)"),
    D("camera", "rate", cam_rate, 1, 1000, "a frame rate in Hz, 1..1000"),
    D("camera", "jitter", jitter, 0, 0.1, "a standard deviation in s, 0..0.1"),
    D("camera", "drop_rate", drop_rate, 0, 10, "dropped runs per second, 0..10"),
    I("camera", "drop_min", drop_min, 1, 100, "a number of frames, 1..100"),
    I("camera", "drop_max", drop_max, 1, 100, "a number of frames, 1..100"),
    D("camera", "distance", distance, 0.2, 20, "a distance in m, 0.2..20"),
    P("camera", "pixels", pixels, 2, 4096, "WIDTHxHEIGHT, each 2..4096 (e.g. 200x150)"),
    D("camera", "fov", fov, 1, 170, "an angle in degrees, 1..170"),
    D("camera", "mesh_noise", mesh_noise, 0, 0.1, "a standard deviation in m, 0..0.1"),
    D("camera", "mesh_noise_across", mesh_noise_across, 0, 0.1, "a standard deviation in m, 0..0.1"),
    D("camera", "depth_noise", depth_noise, 0, 0.1, "a coefficient in 1/m, 0..0.1 (sigma = it x depth^2)"),
    D("camera", "outliers", outliers, 0, 0.5, "a fraction in 0..0.5"),
    W("camera", "cloud_format", cloud_format, "binary|ascii"),
    I("camera", "mesh_decimals", mesh_decimals, 1, 9, "an integer 1..9"),
    D("camera", "track_rate", track_rate, 1, 10000, "a rate in Hz, 1..10000"),
    D("markers", "noise", noise, 0, 0.01, "a standard deviation in m, 0..0.01"),
    D("markers", "gap_rate", gap_rate, 0, 10, "gaps per marker per second, 0..10"),
    D("markers", "gap_mean", gap_mean, 1e-4, 10, "a mean gap length in s, 1e-4..10"),
    D("markers", "gap_max", gap_max, 0, 10, "a gap length in s, 0..10"),
    D("markers", "corner_max_gap", corner_max_gap, 0, 10, "a gap length in s, 0..10"),
    D("markers", "quiet", quiet, 0, 100, "a time in s, 0..100"),
    I("markers", "fragments", fragments, 0, 1000, "a number of markers >= 0"),
    D("markers", "fragment_gap", fragment_gap, 0, 10, "a gap length in s, 0..10"),
    I("markers", "ghosts", ghosts, 0, 100, "a number of tracks, 0..100"),
    I("markers", "decimals", decimals, 0, 9, "an integer 0..9"),
};

typedef struct {
  cf_synth_config *c;
  const char *path;
  cf_error *err;
  int line[sizeof keys / sizeof keys[0]]; /* where each key was set (0: default) */
} parse_ctx;

static int choice_ok(const char *choices, const char *v) {
  if (!*choices) return *v != 0;
  size_t n = strlen(v);
  for (const char *p = choices; *p; p += strcspn(p, "|"), p += *p == '|') {
    size_t m = strcspn(p, "|");
    if (m == n && !strncasecmp(p, v, n)) return 1;
  }
  return 0;
}

static int set_value(const key_spec *k, cf_synth_config *c, const char *v) {
  char *field = (char *)c + k->off;
  double d;
  if (k->kind == K_WORD) {
    if (!choice_ok(k->expect, v) || strlen(v) >= k->size) return 0;
    strcpy(field, v);
    return 1;
  }
  if (k->kind == K_PAIR) { /* "AxB" */
    int a, b, n = -1;
    if (sscanf(v, "%d%*[xX]%d%n", &a, &b, &n) != 2 || n != (int)strlen(v) || a < k->lo || a > k->hi || b < k->lo ||
        b > k->hi)
      return 0;
    ((int *)field)[0] = a, ((int *)field)[1] = b;
    return 1;
  }
  if (!cf_text_double(v, &d) || d < k->lo || d > k->hi) return 0;
  if (k->kind == K_DBL) *(double *)field = d;
  else if (d != floor(d)) return 0;
  else if (k->kind == K_INT) *(int *)field = (int)d;
  else *(unsigned long *)field = (unsigned long)d;
  return 1;
}

static int set_key(void *user, const char *section, const char *name, const char *value, int line) {
  parse_ctx *x = user;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const key_spec *k = &keys[i];
    if (strcasecmp(section, k->section) || strcasecmp(name, k->key)) continue;
    x->line[i] = line;
    if (set_value(k, x->c, value)) return 1;
    char expect[160];
    if (k->kind != K_WORD) snprintf(expect, sizeof expect, "%s", k->expect);
    else if (*k->expect) snprintf(expect, sizeof expect, "one of %s", k->expect);
    else snprintf(expect, sizeof expect, "a name under %zu characters", k->size);
    cf_error_set(x->err, CF_EFORMAT, "%s:%d: [%s] %s = '%s': expected %s", x->path, line, section, name, value,
                 expect);
    return 0;
  }
  cf_error_set(x->err, CF_EFORMAT, "%s:%d: unknown key '%s' in section [%s] (sections: recording, cloth, sim, "
               "motion, table, stick, camera, markers)", x->path, line, name, section);
  return 0;
}

/* The line of the first of the keys (space-separated) that the file sets. */
static int line_of(const parse_ctx *x, const char *names) {
  for (const char *n = names; *n; n += strcspn(n, " "), n += *n == ' ')
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      if (strlen(keys[i].key) == strcspn(n, " ") && !strncmp(keys[i].key, n, strcspn(n, " ")) && x->line[i])
        return x->line[i];
  return 1;
}

/* Whether the file sets the key. */
static int line_of_set(const parse_ctx *x, const char *name) {
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (!strcmp(keys[i].key, name) && x->line[i]) return 1;
  return 0;
}

int cf_synth_camera_output(const cf_synth_config *c) { return strcmp(c->output, "markers") != 0; }

/* Lower-case the choices so that comparisons and outputs are canonical. */
static void canonical(cf_synth_config *c) {
  for (char *p = c->motion; *p; p++) *p = (char)(*p | 0x20);
  for (char *p = c->speed; *p; p++) *p = (char)(*p | 0x20);
  for (char *p = c->model; *p; p++) *p = (char)(*p | 0x20);
  for (char *p = c->output; *p; p++) *p = (char)(*p | 0x20);
  for (char *p = c->cloud_format; *p; p++) *p = (char)(*p | 0x20);
  c->size[0] = 'A';
  if (!strcmp(c->repetition, "1") || !strcasecmp(c->repetition, "i")) strcpy(c->repetition, "I");
  if (!strcmp(c->repetition, "2") || !strcasecmp(c->repetition, "ii")) strcpy(c->repetition, "II");
  int a2 = c->size[1] == '2';
  c->width = a2 ? 0.420 : 0.297;
  c->height = a2 ? 0.594 : 0.420;
  c->rows = a2 ? 5 : 4;
  c->cols = a2 ? 4 : 3;
  if (cf_synth_camera_output(c)) c->rows = c->mesh[0], c->cols = c->mesh[1]; /* the registered mesh */
}

/* motion = wam: rho = 1 (Remark 4.1.1), delta and alpha of Table 4.2 and a
 * 14 s recording unless given. */
static int resolve_wam(parse_ctx *x) {
  cf_synth_config *c = x->c;
  const char *p = x->path;
  if (isnan(c->density)) c->density = 1;
  double d = NAN, a = NAN;
  if ((isnan(c->delta) || isnan(c->alpha)) && !table_42_lookup(c, &d, &a))
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: Table 4.2 has no material '%s' (paper, light-cotton, felt, "
                        "wool): give [cloth] delta and alpha", p, line_of(x, "material"), c->material);
  if (isnan(c->delta)) c->delta = d;
  if (isnan(c->alpha)) c->alpha = a;
  if (!line_of_set(x, "duration")) c->duration = 14;
  if (c->still_before + c->still_after >= c->duration)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [motion] still_before + still_after = %g s: expected less than "
                        "the duration (%g s)", p, line_of(x, "still_before still_after duration"),
                        c->still_before + c->still_after, c->duration);
  return CF_OK;
}

/* Camera outputs: the registered mesh, the camera and the drops. */
static int resolve_camera(parse_ctx *x) {
  cf_synth_config *c = x->c;
  const char *p = x->path;
  if (!strcmp(c->motion, "tablecloth") || !strcmp(c->motion, "hitting"))
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [recording] output = %s: the camera renders the cloth alone; "
                        "expected motion shake, twist or wam (or output = markers)", p, line_of(x, "output motion"),
                        c->output);
  if (c->drop_min > c->drop_max)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [camera] drop_min = %d: expected at most drop_max = %d", p,
                        line_of(x, "drop_min drop_max"), c->drop_min, c->drop_max);
  if (c->jitter * 8 > 1 / c->cam_rate)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [camera] jitter = %g s: expected at most 1/8 of the frame period "
                        "(%g s), so that timestamps stay in order", p, line_of(x, "jitter rate"), c->jitter,
                        1 / c->cam_rate);
  if (c->distance <= 0.1 + (c->amplitude > 0 ? 2 * c->amplitude : 0.3))
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [camera] distance = %g m: expected the cloth to stay more than "
                        "0.1 m in front of the camera (its motion reaches %g m towards it)", p, line_of(x, "distance"),
                        c->distance, c->amplitude > 0 ? 2 * c->amplitude : 0.3);
  return CF_OK;
}

/* Fill the table defaults and check the keys against each other; errors
 * name the line of the key to change. */
static int resolve(parse_ctx *x) {
  cf_synth_config *c = x->c;
  const char *p = x->path;
  canonical(c);
  int wam = !strcmp(c->motion, "wam"), rc;
  if (wam && (rc = resolve_wam(x))) return rc;
  if (cf_synth_camera_output(c) && (rc = resolve_camera(x))) return rc;
  if (isnan(c->density)) c->density = cf_material_density(c->material);
  if (isnan(c->density))
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: material '%s' is not in Table 4.1 (paper, polyester, "
                        "light-cotton, felt, wool, denim, stiff-cotton): give [cloth] density", p,
                        line_of(x, "material"), c->material);
  double d = NAN, a = NAN;
  int found = wam || table_lookup(c, &d, &a);
  if ((isnan(c->delta) || isnan(c->alpha)) && !found)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: Tables A.1/A.2 have no %s %s %s %s repetition '%s': give "
                        "[cloth] delta and alpha", p, line_of(x, "material size motion speed repetition"), c->material, c->size, c->motion,
                        c->speed, c->repetition);
  if (isnan(c->delta)) c->delta = d;
  if (isnan(c->alpha)) c->alpha = a;
  int K = c->rows * c->cols;
  if (!cf_synth_camera_output(c) && c->fragments > K - 2)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [markers] fragments = %d: expected at most %d (the %s lattice "
                        "has %d markers, the 2 driven corners are never split)", p, line_of(x, "fragments"),
                        c->fragments, K - 2, c->size, K);
  if (2 * c->quiet >= c->duration)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [markers] quiet = %g: expected less than half the duration "
                        "(%g s)", p, line_of(x, "quiet duration"), c->quiet, c->duration);
  if (!strcmp(c->motion, "hitting") && c->hits * c->hit_time > c->duration - 2 * c->quiet)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [stick] hits = %d of %g s: expected them to fit between the "
                        "quiet ends (%g s of the %g s)", p, line_of(x, "hits hit_time duration"), c->hits,
                        c->hit_time, c->duration - 2 * c->quiet, c->duration);
  if (c->top_height <= c->height)
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [motion] top_height = %g: expected more than the cloth's "
                        "height %g m", p, line_of(x, "top_height"), c->top_height, c->height);
  int m = cf_cloth_model_find(c->model);
  if (m >= CF_CLOTH_ELASTIC && (!strcmp(c->motion, "tablecloth") || !strcmp(c->motion, "hitting")))
    return cf_error_set(x->err, CF_EINVAL, "%s:%d: [cloth] model = %s has no contacts: motion = %s needs the "
                        "inextensible or quasi-inextensible model", p, line_of(x, "model motion"), c->model, c->motion);
  return CF_OK;
}

int cf_synth_load(const char *path, cf_synth_config *c, cf_error *err) {
  cf_synth_config_default(c);
  c->text = cf_text_slurp(path, "a text INI config", err);
  if (!c->text) return err ? err->code : CF_EIO;
  parse_ctx x;
  memset(&x, 0, sizeof x);
  x.c = c, x.path = path, x.err = err;
  int rc = cf_ini_parse_text(path, c->text, set_key, &x, err);
  return rc ? rc : resolve(&x);
}

double sy_target_speed(const cf_synth_config *c) {
  if (c->target_speed > 0) return c->target_speed;
  return !strcmp(c->speed, "slow") ? 0.09 : 0.25;
}
