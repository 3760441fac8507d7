/* json_out.c — the --json output through Jansson (why: json_out.h). */
#include "json_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *cf_cli_json_number(double v) {
  if (!isfinite(v)) return json_null();
  if (v == floor(v) && fabs(v) < 9007199254740992.0) return json_integer((json_int_t)v);
  return json_real(v);
}

/* The length of the UTF-8 sequence led by c (0: c cannot lead one). */
static size_t utf8_length(unsigned char c) {
  return c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
}

/* s with each byte that is not part of a valid UTF-8 sequence replaced by
 * U+FFFD; Jansson's own check decides what is valid. */
static json_t *string_repaired(const char *s) {
  size_t n = strlen(s), k = 0;
  char *t = malloc(3 * n + 1);
  if (!t) return NULL;
  for (size_t i = 0; i < n;) {
    size_t l = utf8_length((unsigned char)s[i]);
    json_t *ok = l && i + l <= n ? json_stringn(s + i, l) : NULL;
    if (ok) memcpy(t + k, s + i, l), k += l, i += l;
    else memcpy(t + k, "\xef\xbf\xbd", 3), k += 3, i++;
    json_decref(ok);
  }
  json_t *v = json_stringn(t, k);
  free(t);
  return v;
}

json_t *cf_cli_json_string(const char *s) {
  if (!s) return json_null();
  json_t *v = json_string(s);
  return v ? v : string_repaired(s);
}

void cf_cli_json_set(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v ? v : json_null()); }

void cf_cli_json_num(json_t *o, const char *key, double v) { cf_cli_json_set(o, key, cf_cli_json_number(v)); }

void cf_cli_json_str(json_t *o, const char *key, const char *s) { cf_cli_json_set(o, key, cf_cli_json_string(s)); }

void cf_cli_json_bool(json_t *o, const char *key, int b) { cf_cli_json_set(o, key, b < 0 ? json_null() : json_boolean(b)); }

void cf_cli_json_numbers(json_t *o, const char *const *keys, const double *v, size_t n) {
  for (size_t i = 0; i < n; i++) cf_cli_json_num(o, keys[i], v[i]);
}

void cf_cli_json_nums(json_t *o, const char *key, const double *v, int n) {
  json_t *a = cf_cli_json_array(o, key);
  for (int i = 0; i < n; i++) json_array_append_new(a, cf_cli_json_number(v[i]));
}

void cf_cli_json_strs(json_t *o, const char *key, char *const *s, int n) {
  json_t *a = cf_cli_json_array(o, key);
  for (int i = 0; i < n; i++) json_array_append_new(a, cf_cli_json_string(s[i]));
}

json_t *cf_cli_json_object(json_t *o, const char *key) {
  json_t *v = json_object();
  cf_cli_json_set(o, key, v);
  return v;
}

json_t *cf_cli_json_array(json_t *o, const char *key) {
  json_t *v = json_array();
  cf_cli_json_set(o, key, v);
  return v;
}

void cf_cli_json_print(json_t *o) {
  if (!o || json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)))
    fprintf(stderr, "clothfit: the JSON line could not be written\n");
  else putchar('\n');
  json_decref(o);
}
