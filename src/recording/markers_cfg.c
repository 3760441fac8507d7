/* markers_cfg.c — the inputs of marker processing: option values (lattice,
 * size, units, name lists), mapping files (format in cf_io.h) and sidecar
 * metadata INI files (--meta). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "recording_internal.h"

void cf_marker_opts_default(cf_marker_opts *o) {
  memset(o, 0, sizeof *o);
  o->merge = CF_MERGE_DEFAULT;
  o->merge_radius = 0.03;
  o->merge_max_gap = 1.0;
  o->ghost_radius = 0.25;
  o->max_gap = 0.25;
  snprintf(o->controlled, sizeof o->controlled, "top-corners");
  o->stick_radius = 0.0075;
}

/* ----------------------------------------------------------- option values */
int cf_parse_lattice(const char *s, int *rows, int *cols) {
  char *end;
  long r = strtol(s, &end, 10);
  if (end == s || (*end != 'x' && *end != 'X')) return 0;
  const char *p = end + 1;
  long c = strtol(p, &end, 10);
  if (end == p || *end || r < 2 || c < 2 || r > 1000 || c > 1000) return 0;
  *rows = (int)r, *cols = (int)c;
  return 1;
}

/* s[0..n) without surrounding blanks, malloc'ed. */
static char *trimmed(const char *s, size_t n) {
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  return strndup(s, n);
}

void mk_free_names(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

int mk_split_names(const char *s, char ***out, int *n) {
  int cap = 1;
  for (const char *c = s; *c; c++) cap += *c == ',';
  char **v = calloc((size_t)cap, sizeof(char *));
  int k = 0, ok = v != NULL;
  for (const char *p = s; ok && k < cap; k++) {
    size_t len = strcspn(p, ",");
    v[k] = trimmed(p, len);
    ok = v[k] && v[k][0];
    p += len + (p[len] == ',');
  }
  if (!ok) {
    if (v) mk_free_names(v, cap);
    return 0;
  }
  *out = v, *n = k;
  return 1;
}

/* ------------------------------------------------------------ mapping file */
void mk_map_free(mk_map *map) {
  for (int i = 0; i < map->n_merge; i++) free(map->merge[i].target), mk_free_names(map->merge[i].frags, map->merge[i].n_frags);
  for (int i = 0; i < map->n_cell; i++) free(map->cell[i].name);
  free(map->merge), free(map->cell);
  mk_free_names(map->drop, map->n_drop);
  memset(map, 0, sizeof *map);
}

static int map_cell(mk_map *map, const char *lhs, const char *rhs, int line) {
  int row, col, used = 0;
  if (sscanf(lhs, "cell %d %d %n", &row, &col, &used) != 2 || lhs[used] || row < 0 || col < 0) return 0;
  mk_cell *c = realloc(map->cell, sizeof(mk_cell) * (map->n_cell + 1));
  if (!c) return 0;
  map->cell = c;
  c += map->n_cell;
  c->name = trimmed(rhs, strlen(rhs)), c->row = row, c->col = col, c->line = line;
  if (!c->name || !c->name[0] || strchr(c->name, ',')) return free(c->name), 0;
  map->n_cell++;
  return 1;
}

static int map_merge(mk_map *map, const char *lhs, const char *rhs, int line) {
  mk_merge *m = realloc(map->merge, sizeof(mk_merge) * (map->n_merge + 1));
  if (!m) return 0;
  map->merge = m;
  m += map->n_merge;
  m->line = line;
  m->target = strdup(lhs);
  if (!m->target || !mk_split_names(rhs, &m->frags, &m->n_frags)) return free(m->target), 0;
  map->n_merge++;
  return 1;
}

static int map_drop(mk_map *map, const char *rhs, int line) {
  char **names;
  int n;
  if (!mk_split_names(rhs, &names, &n)) return 0;
  char **d = realloc(map->drop, sizeof(char *) * (map->n_drop + n));
  if (!d) return mk_free_names(names, n), 0;
  memcpy(d + map->n_drop, names, sizeof(char *) * n);
  free(names);
  map->drop = d, map->n_drop += n, map->drop_line = line;
  return 1;
}

/* One non-blank line without its comment: "LHS = RHS". */
static int map_line(mk_map *map, char *text, int line, cf_error *err) {
  char *eq = strchr(text, '=');
  char *lhs = eq ? trimmed(text, (size_t)(eq - text)) : NULL;
  int ok = lhs && lhs[0];
  if (ok && !strncmp(lhs, "cell", 4) && (!lhs[4] || isspace((unsigned char)lhs[4]))) ok = map_cell(map, lhs, eq + 1, line);
  else if (ok && !strcmp(lhs, "drop")) ok = map_drop(map, eq + 1, line);
  else if (ok) ok = map_merge(map, lhs, eq + 1, line);
  free(lhs);
  if (!ok)
    return cf_error_set(err, CF_EFORMAT, "%s:%d: expected 'TARGET = FRAGMENT, ...', 'cell ROW COL = NAME' or "
                        "'drop = NAME, ...' (non-empty names without ',' '=' '#')", map->path, line);
  return CF_OK;
}

int mk_map_load(const char *path, mk_map *map, cf_error *err) {
  memset(map, 0, sizeof *map);
  map->path = path;
  char *text = cf_text_slurp(path, "a text mapping file", err);
  if (!text) return err ? err->code : CF_EIO;
  int rc = CF_OK, line = 0;
  for (char *p = text, *next; *p && !rc; p = next) {
    size_t len = strcspn(p, "\n");
    next = p + len + (p[len] == '\n');
    p[len] = 0;
    p[strcspn(p, "#")] = 0;
    line++;
    if (strspn(p, " \t\r") < strlen(p)) rc = map_line(map, p, line, err);
  }
  free(text);
  if (rc) mk_map_free(map);
  return rc;
}

/* ------------------------------------------------------- sidecar metadata */
typedef struct {
  const char *path;
  cf_rec_meta *meta;
  cf_marker_opts *mo;
  cf_error *err;
  int other_sections; /* 1: skip sections other than [meta] */
} meta_ctx;

static int copy_value(char *dst, size_t size, const char *v) {
  if (strlen(v) >= size) return 0;
  memcpy(dst, v, strlen(v) + 1);
  return 1;
}

static int positive(const char *v, double *out) { return cf_text_double(v, out) && *out > 0; }

#define STR(key, field) (!strcasecmp(name, key)) ok = copy_value(field, sizeof field, value), expect = "a shorter text"

static int meta_key(void *user, const char *section, const char *name, const char *value, int line) {
  meta_ctx *c = user;
  cf_rec_meta *m = c->meta;
  cf_marker_opts *o = c->mo;
  int ok = 1;
  const char *expect = "a number > 0";
  if (section[0] && strcasecmp(section, "meta") && c->other_sections) return 1;
  if (section[0] && strcasecmp(section, "meta"))
    return cf_error_set(c->err, CF_EFORMAT, "%s:%d: unknown section [%s] (keys go at the top or under [meta])",
                        c->path, line, section), 0;
  if STR("material", m->material);
  else if STR("motion", m->motion);
  else if STR("speed", m->speed);
  else if STR("repetition", m->repetition);
  else if STR("notes", m->notes);
  else if STR("controlled", o->controlled);
  else if STR("stick", o->stick);
  else if STR("held", o->held);
  else if STR("grasp", o->grasp);
  else if STR("start", o->start);
  else if (!strcasecmp(name, "size")) ok = cf_parse_size(value, m), expect = "A2, A3 or WxH in metres";
  else if (!strcasecmp(name, "width_m")) ok = positive(value, &m->width_m), expect = "a width > 0 in m";
  else if (!strcasecmp(name, "height_m")) ok = positive(value, &m->height_m), expect = "a height > 0 in m";
  else if (!strcasecmp(name, "density")) ok = positive(value, &m->density), expect = "a density > 0 in kg/m^2";
  else if (!strcasecmp(name, "lattice")) ok = cf_parse_lattice(value, &o->rows, &o->cols), expect = "ROWSxCOLS, e.g. 5x4";
  else if (!strcasecmp(name, "table_height")) ok = cf_text_double(value, m->table), expect = "a height in m";
  else if (!strcasecmp(name, "table_extent"))
    ok = cf_rec_table_extent_parse(value, m->table + 1),
    expect = "x_min, x_max, y_min, y_max in m (x_min < x_max, y_min < y_max)";
  else
    return cf_error_set(c->err, CF_EFORMAT, "%s:%d: unknown key '%s' (expected material, size, width_m, height_m, "
                        "density, motion, speed, repetition, notes, lattice, controlled, stick, held, grasp, start, "
                        "table_height or table_extent)",
                        c->path, line, name), 0;
  if (!ok) return cf_error_set(c->err, CF_EFORMAT, "%s:%d: %s = '%s': expected %s", c->path, line, name, value, expect), 0;
  return 1;
}

static int meta_load(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, int other_sections, cf_error *err) {
  char *text = cf_text_slurp(path, "a text INI metadata file", err);
  if (!text) return err ? err->code : CF_EIO;
  meta_ctx c = {path, meta, mo, err, other_sections};
  int rc = cf_ini_parse_text(path, text, meta_key, &c, err);
  free(text);
  return rc;
}

int cf_meta_load(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err) {
  return meta_load(path, meta, mo, 0, err);
}

int cf_meta_load_section(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err) {
  return meta_load(path, meta, mo, 1, err);
}
