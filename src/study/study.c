/* study.c — the file lists of a study: experiment list INIs (the
 * recordings of `clothfit sweep --experiment`) and the ground truth of
 * synthetic recordings (NAME.truth.ini of `clothfit synth`).  Formats in
 * cf_io.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cf_study.h"
#include "cf_study.h"

typedef struct {
  const char *path;
  size_t dir_len;  /* of path's folder, with the '/' (0: none) */
  char **files;
  int n;
  cf_error *err;
} list_ctx;

static int add_file(list_ctx *c, const char *name, size_t len) {
  char **f = realloc(c->files, sizeof(char *) * (c->n + 1));
  if (!f) return 0;
  c->files = f;
  size_t dir = name[0] == '/' ? 0 : c->dir_len, size = dir + len + 1;
  if (!(f[c->n] = malloc(size))) return 0;
  snprintf(f[c->n++], size, "%.*s%.*s", (int)dir, c->path, (int)len, name);
  return 1;
}

static int list_key(void *user, const char *section, const char *key, const char *value, int line) {
  list_ctx *c = user;
  if (strcasecmp(section, "recordings") || strcasecmp(key, "files"))
    return cf_error_set(c->err, CF_EFORMAT, "%s:%d: unknown key '%s' in [%s] (expected files = ... under "
                        "[recordings])", c->path, line, key, section), 0;
  for (const char *p = value; *p;) {
    size_t skip = strspn(p, ", \t"), len = strcspn(p + skip, ", \t");
    if (len && !add_file(c, p + skip, len))
      return cf_error_set(c->err, CF_ENOMEM, "%s:%d: out of memory", c->path, line), 0;
    p += skip + len;
  }
  return 1;
}

int cf_experiment_load(const char *path, char ***files, int *n, char **text, cf_error *err) {
  *files = NULL, *n = 0;
  if (text) *text = NULL;
  char *t = cf_text_slurp(path, "a text INI experiment list", err);
  if (!t) return err ? err->code : CF_EIO;
  const char *slash = strrchr(path, '/');
  list_ctx c = {path, slash ? (size_t)(slash - path) + 1 : 0, NULL, 0, err};
  int rc = cf_ini_parse_text(path, t, list_key, &c, err);
  if (!rc && c.n == 0)
    rc = cf_error_set(err, CF_EFORMAT, "%s: no recordings (expected [recordings] files = a.h5, b.h5 ...)", path);
  if (rc) {
    cf_strings_free(c.files, c.n);
    free(t);
    return rc;
  }
  *files = c.files, *n = c.n;
  if (text) *text = t;
  else free(t);
  return CF_OK;
}

typedef struct {
  const char *path;
  double *delta, *alpha;
  cf_error *err;
} truth_ctx;

static int truth_key(void *user, const char *section, const char *key, const char *value, int line) {
  truth_ctx *c = user;
  double *dst = !strcasecmp(key, "delta") ? c->delta : !strcasecmp(key, "alpha") ? c->alpha : NULL;
  if (strcasecmp(section, "truth") || !dst) return 1;
  char num[64];
  snprintf(num, sizeof num, "%.*s", (int)strcspn(value, " \t;#"), value); /* drop a trailing comment */
  if (!cf_text_double(num, dst))
    return cf_error_set(c->err, CF_EFORMAT, "%s:%d: %s = '%s': expected a number", c->path, line, key, value), 0;
  return 1;
}

int cf_truth_load(const char *path, double *delta, double *alpha, cf_error *err) {
  *delta = *alpha = NAN;
  char *t = cf_text_slurp(path, "a text INI ground-truth file", err);
  if (!t) return err ? err->code : CF_EIO;
  truth_ctx c = {path, delta, alpha, err};
  int rc = cf_ini_parse_text(path, t, truth_key, &c, err);
  free(t);
  return rc;
}
