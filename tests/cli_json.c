#include "cli_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cf_test_last_line(const char *s) {
  if (!s) return "";
  const char *end = s + strlen(s);
  while (end > s && end[-1] == '\n') end--;
  const char *p = end;
  while (p > s && p[-1] != '\n') p--;
  return p;
}

/* json parsed (NULL with the parser's message when it is not JSON). */
static json_t *parse(const char *json) {
  json_error_t e;
  json_t *v = json ? json_loads(json, JSON_DECODE_ANY, &e) : NULL;
  if (json && !v) fprintf(stderr, "not JSON (%s at column %d): %.300s\n", e.text, e.column, json);
  return v;
}

/* The element of array a whose member key (the text before '=' in seg,
 * seg_len long) is the string after it. */
static json_t *select_named(json_t *a, const char *seg, size_t len) {
  const char *eq = memchr(seg, '=', len);
  size_t i;
  json_t *x;
  json_array_foreach(a, i, x) {
    json_t *m = json_object_getn(x, seg, (size_t)(eq - seg));
    const char *s = json_string_value(m);
    if (s && strlen(s) == len - (size_t)(eq - seg) - 1 && !strncmp(s, eq + 1, len - (size_t)(eq - seg) - 1)) return x;
  }
  return NULL;
}

/* The value at path in v (borrowed; NULL if absent). */
static json_t *at(json_t *v, const char *path) {
  for (const char *p = path; v && *p;) {
    size_t len = strcspn(p, ".");
    char *end;
    unsigned long i = strtoul(p, &end, 10);
    if (json_is_array(v) && memchr(p, '=', len)) v = select_named(v, p, len);
    else if (json_is_array(v) && len && end == p + len) v = json_array_get(v, i);
    else v = json_object_getn(v, p, len);
    p += len + (p[len] == '.');
  }
  return v;
}

int cf_test_json_valid(const char *json) {
  json_t *v = parse(json);
  json_decref(v);
  return v != NULL;
}

int cf_test_json_has(const char *json, const char *path) {
  json_t *root = parse(json);
  int has = at(root, path) != NULL;
  json_decref(root);
  return has;
}

double cf_test_json_num(const char *json, const char *path) {
  json_t *root = parse(json), *v = at(root, path);
  double x = json_is_number(v) ? json_number_value(v) : NAN;
  json_decref(root);
  return x;
}

int cf_test_json_int(const char *json, const char *path) {
  double v = cf_test_json_num(json, path);
  return isfinite(v) ? (int)v : -1;
}

double cf_test_json_first(const char *json, const char *path) {
  json_t *root = parse(json), *v = json_array_get(at(root, path), 0);
  double x = json_is_number(v) ? json_number_value(v) : NAN;
  json_decref(root);
  return x;
}

int cf_test_json_len(const char *json, const char *path) {
  json_t *root = parse(json), *v = at(root, path);
  int n = json_is_array(v) ? (int)json_array_size(v) : -1;
  json_decref(root);
  return n;
}

/* Jansson's json_equal tells 1 from 1.0: numbers compare by value here. */
static int same(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) return json_number_value(a) == json_number_value(b);
  if (json_is_array(a) && json_is_array(b)) {
    if (json_array_size(a) != json_array_size(b)) return 0;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!same(json_array_get(a, i), json_array_get(b, i))) return 0;
    return 1;
  }
  if (json_is_object(a) && json_is_object(b)) {
    const char *k;
    json_t *x;
    if (json_object_size(a) != json_object_size(b)) return 0;
    json_object_foreach((json_t *)a, k, x) if (!same(x, json_object_get(b, k))) return 0;
    return 1;
  }
  return json_equal(a, b);
}

int cf_test_json_is(const char *json, const char *path, const char *value) {
  json_t *root = parse(json), *want = parse(value);
  int eq = root && want && at(root, path) && same(at(root, path), want);
  json_decref(root), json_decref(want);
  return eq;
}

char *cf_test_json_str(const char *json, const char *path) {
  json_t *root = parse(json);
  const char *s = json_string_value(at(root, path));
  char *c = s ? strdup(s) : NULL;
  json_decref(root);
  return c;
}

int cf_test_json_has_str(const char *json, const char *path, const char *s) {
  char *v = cf_test_json_str(json, path);
  int eq = v && (!s || !strcmp(v, s));
  free(v);
  return eq;
}

char *cf_test_json_part(const char *json, const char *path) {
  json_t *root = parse(json), *v = at(root, path);
  char *t = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
  json_decref(root);
  return t;
}
