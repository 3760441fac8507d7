#include "cli_json.h"

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

double cf_test_json_num(const char *json, const char *key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = json ? strstr(json, k) : NULL;
  return p && strncmp(p + strlen(k), "null", 4) ? strtod(p + strlen(k), NULL) : NAN;
}

double cf_test_json_first(const char *json, const char *key) {
  char k[128];
  snprintf(k, sizeof k, "\"%s\":[", key);
  const char *p = json ? strstr(json, k) : NULL;
  return p ? strtod(p + strlen(k), NULL) : NAN;
}

int cf_test_json_int(const char *json, const char *key) {
  double v = cf_test_json_num(json, key);
  return isfinite(v) ? (int)v : -1;
}
