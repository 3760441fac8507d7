/* text.c — the text machinery of src/report: a growing buffer, the
 * escapes of each output format, atomic file writes, file stems and the
 * look-up of gnuplot on $PATH. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_internal.h"

static int grow(cf_rbuf *b, size_t extra) {
  if (b->oom) return 0;
  if (b->n + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->n + extra + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) return b->oom = 1, 0;
  b->s = s, b->cap = cap;
  return 1;
}

static void put(cf_rbuf *b, const char *s, size_t len) {
  if (!grow(b, len)) return;
  memcpy(b->s + b->n, s, len);
  b->n += len;
  b->s[b->n] = 0;
}

void cf_rbuf_puts(cf_rbuf *b, const char *s) { put(b, s, strlen(s)); }

void cf_rbuf_printf(cf_rbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len < 0 || !grow(b, (size_t)len)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)len;
}

void cf_rbuf_mesh(cf_rbuf *b, const cf_res_model *m) {
  char split[32];
  if (m->split != cf_res_model_default().split || m->split_cols)
    cf_rbuf_printf(b, ", mesh split %s", cf_res_model_split_text(m, split, sizeof split));
}

void cf_rbuf_free(cf_rbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

void cf_rbuf_html(cf_rbuf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '&') cf_rbuf_puts(b, "&amp;");
    else if (*s == '<') cf_rbuf_puts(b, "&lt;");
    else if (*s == '>') cf_rbuf_puts(b, "&gt;");
    else if (*s == '"') cf_rbuf_puts(b, "&quot;");
    else if (*s == ':' && s[1] == '/' && s[2] == '/') cf_rbuf_puts(b, "&#58;"); /* no web addresses */
    else put(b, s, 1);
  }
}

void cf_rbuf_tex(cf_rbuf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '\\': cf_rbuf_puts(b, "\\textbackslash{}"); break;
    case '~': cf_rbuf_puts(b, "\\textasciitilde{}"); break;
    case '^': cf_rbuf_puts(b, "\\textasciicircum{}"); break;
    case '&': case '%': case '$': case '#': case '_': case '{': case '}':
      put(b, "\\", 1);
      put(b, s, 1);
      break;
    default: put(b, s, 1);
    }
  }
}

void cf_rbuf_md(cf_rbuf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '|' || *s == '\\') put(b, "\\", 1), put(b, s, 1);
    else if (*s == '\n' || *s == '\r') put(b, " ", 1);
    else put(b, s, 1);
  }
}

void cf_rbuf_gp(cf_rbuf *b, const char *s) {
  put(b, "'", 1);
  for (; *s; s++) {
    if (*s == '\'') put(b, "''", 2);
    else if (*s == '\n' || *s == '\r') put(b, " ", 1);
    else put(b, s, 1);
  }
  put(b, "'", 1);
}

int cf_report_write_file(const char *path, const cf_rbuf *b, cf_error *err) {
  if (b->oom) return cf_error_set(err, CF_ENOMEM, "%s: out of memory while composing it", path);
  char tmp[4300];
  cf_io_tmpname(path, tmp, sizeof tmp);
  FILE *f = fopen(tmp, "wb");
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot create the temporary file %s", path, tmp);
  int ok = fwrite(b->s ? b->s : "", 1, b->n, f) == b->n;
  ok = (fclose(f) == 0) && ok;
  if (!ok) {
    cf_io_commit(tmp, path, 0, NULL);
    return cf_error_set(err, CF_EIO, "%s: writing failed (disk full?)", path);
  }
  return cf_io_commit(tmp, path, 1, err);
}

void cf_report_file_stem(const char *name, char *buf, size_t size) {
  size_t n = 0;
  for (const char *s = name; *s && n + 1 < size; s++) {
    char c = *s;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
             ((c == '.' || c == '-') && n > 0);
    buf[n++] = ok ? c : '_';
  }
  if (size) buf[n < size ? n : size - 1] = 0;
  if (size > 1 && n == 0) strcpy(buf, "_");
}

int cf_report_find_program(const char *name, char *buf, size_t size) {
  const char *path = getenv("PATH");
  if (!path || !*path) return 0;
  for (const char *p = path; *p;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    /* an empty entry is the current folder */
    int n = len ? snprintf(buf, size, "%.*s/%s", (int)len, p, name) : snprintf(buf, size, "./%s", name);
    struct stat st;
    if (n > 0 && (size_t)n < size && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) return 1;
    p += len;
    if (*p == ':') p++;
  }
  if (size) buf[0] = 0;
  return 0;
}
