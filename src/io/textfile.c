/* textfile.c — whole small text files and INI parsing with line numbers
 * (see textfile.h). */
#include "cf_io.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cf_text_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  while (*end == ' ' || *end == '\t') end++;
  if (end == s || *end || errno == ERANGE || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

int cf_text_doubles(const char *s, int n, double *out) {
  for (int q = 0; q < n; q++) {
    char buf[64];
    size_t len = strcspn(s, ",");
    if (len >= sizeof buf || (q < n - 1) != (s[len] == ',')) return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *b = buf;
    while (*b == ' ' || *b == '\t') b++;
    if (!cf_text_double(b, out + q)) return 0;
    s += len + (q < n - 1);
  }
  return 1;
}

static char *read_all(FILE *f, const char *path, const char *what, size_t *len, cf_error *err) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n + 1 < cap) break;
    if (cap > (1u << 24)) { /* 16 MB: not a small text file */
      free(buf);
      cf_error_set(err, CF_EFORMAT, "%s: larger than 16 MB, expected %s", path, what);
      return NULL;
    }
    char *nb = realloc(buf, cap *= 2);
    if (!nb) free(buf);
    buf = nb;
  }
  if (!buf) cf_error_set(err, CF_ENOMEM, "%s: out of memory", path);
  else buf[n] = 0;
  *len = n;
  return buf;
}

/* NUL bytes and control characters other than tab and CR LF line ends mean
 * binary data; rejecting them here also keeps them out of the messages,
 * which quote keys and values. */
static int check_text(const char *buf, size_t n, const char *path, const char *what, cf_error *err) {
  if (strlen(buf) != n) return cf_error_set(err, CF_EFORMAT, "%s: contains NUL bytes, expected %s", path, what);
  int line = 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)buf[i];
    line += ch == '\n';
    if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f)
      return cf_error_set(err, CF_EFORMAT, "%s:%d: contains binary data (byte 0x%02x), expected %s", path, line,
                          ch, what);
  }
  return CF_OK;
}

char *cf_text_slurp(const char *path, const char *what, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    cf_error_set(err, CF_EIO, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t n = 0;
  char *buf = read_all(f, path, what, &n, err);
  fclose(f);
  if (buf && check_text(buf, n, path, what, err)) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Debian's inih is built without line numbers in the handler, so a custom
 * reader feeds the text line by line and counts. */
typedef struct {
  const char *cursor;
  int line, failed;
  cf_ini_key_fn fn;
  void *user;
} ini_ctx;

static char *read_line(char *str, int num, void *stream) {
  ini_ctx *c = stream;
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

static int handler(void *user, const char *section, const char *name, const char *value) {
  ini_ctx *c = user;
  if (c->failed) return 0;
  if (!name) return 1; /* a section header */
  if (!c->fn(c->user, section, name, value, c->line)) {
    c->failed = 1;
    return 0;
  }
  return 1;
}

/* inih reads a line in pieces of INI_MAX_LINE - 1 bytes (Debian's libinih:
 * 200) and would report the rest of a long line as a malformed next line. */
static int long_line(const char *text) {
  int line = 1;
  for (const char *p = text; *p; line++) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n >= INI_MAX_LINE - 1) return line;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

int cf_ini_parse_text(const char *path, const char *text, cf_ini_key_fn fn, void *user, cf_error *err) {
  int ll = long_line(text);
  if (ll)
    return cf_error_set(err, CF_EFORMAT, "%s:%d: line longer than %d characters: split it (in an experiment list "
                        "the key may repeat: one 'files = NAME.h5' a line)", path, ll, INI_MAX_LINE - 2);
  ini_ctx c = {text, 0, 0, fn, user};
  int rc = ini_parse_stream(read_line, &c, handler, &c);
  if (c.failed) return err && err->code ? err->code : CF_EFORMAT;
  if (rc != 0)
    return cf_error_set(err, CF_EFORMAT, "%s:%d: malformed line, expected 'key = value' or '[section]'", path, rc);
  return CF_OK;
}
