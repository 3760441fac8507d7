/* meshseq_files.c — which files make a mesh sequence, and when each frame
 * was taken.
 *
 * Files: every *.obj / *.ply (any letter case) of a folder (point clouds:
 * *.ply / *.xyz), or every file a glob pattern matches (e.g.
 * 'scan/frame_*.ply', quoted so that the shell leaves it alone), in natural
 * name order: runs of digits compare as numbers, so frame_9 comes before
 * frame_10.
 *
 * Times, in this order of precedence:
 *  - a times file (--times): '#' comments and blank lines are ignored; every
 *    other line is either "FILE TIME" or "TIME" (all lines alike), TIME in
 *    seconds.  "FILE TIME" lines list the frames in frame order, FILE being
 *    the frame file's name (a folder part is ignored); every frame file needs
 *    exactly one line and every line must name a frame file.  "TIME" lines
 *    give the frame files' times in name order, one line per file.  Either
 *    way the times must increase strictly from line to line.
 *  - the file names: the last number in the name without its extension —
 *    digits, optionally with a decimal fraction — is the time in seconds
 *    ("frame_000123_1.234567.obj" -> 1.234567 s); with fps > 0 that number
 *    must be a whole frame index and the time is index / fps
 *    ("frame_000123.obj" at 30 fps -> 4.1 s).  The frames are put in time
 *    order; two files with the same time are an error. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "meshseq_internal.h"
#include "cf_io.h"

void ms_list_free(ms_list *l) {
  for (int i = 0; i < l->n; i++) free(l->f[i].path);
  free(l->f);
  l->f = NULL, l->n = 0;
}

int ms_slurp(const char *path, char **buf, size_t *len, cf_error *err) {
  FILE *f = fopen(path, "rb");
  *buf = NULL, *len = 0;
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 0;
  int rc = CF_OK;
  for (;;) {
    if (*len + 65536 + 1 > cap) {
      char *b = cap * 2 <= MF_MAX_FILE + 65536 ? realloc(*buf, cap = cap ? 2 * cap : 1 << 16) : NULL;
      if (!b) {
        rc = cf_error_set(err, CF_EIO, "%s: larger than %zu bytes or out of memory", path, (size_t)MF_MAX_FILE);
        break;
      }
      *buf = b;
    }
    size_t n = fread(*buf + *len, 1, cap - *len - 1, f);
    *len += n;
    if (n == 0) break;
  }
  if (!rc && ferror(f)) rc = cf_error_set(err, CF_EIO, "%s: read error", path);
  fclose(f);
  if (rc) free(*buf), *buf = NULL;
  else (*buf)[*len] = 0;
  return rc;
}

/* ----------------------------------------------------------------- names */
static int natural_cmp(const char *a, const char *b) {
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      while (*a == '0') a++;
      while (*b == '0') b++;
      size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
      int c = na != nb ? (na > nb ? 1 : -1) : strncmp(a, b, na);
      if (c) return c;
      a += na, b += nb;
    } else if (*a != *b) {
      return (unsigned char)*a - (unsigned char)*b;
    } else {
      a++, b++;
    }
  }
  return (unsigned char)*a - (unsigned char)*b;
}

static int by_name(const void *x, const void *y) {
  const ms_frame *a = x, *b = y;
  int c = natural_cmp(a->base, b->base);
  return c ? c : strcmp(a->path, b->path);
}

static const char *base_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* 1 when name's extension is one of exts ("obj ply"). */
static int has_ext(const char *name, const char *exts) {
  const char *dot = strrchr(name, '.');
  if (!dot) return 0;
  size_t n = strlen(dot + 1);
  for (const char *p = exts; *p;) {
    size_t w = strcspn(p, " ");
    if (w == n && !strncasecmp(p, dot + 1, n)) return 1;
    p += w + (p[w] == ' ');
  }
  return 0;
}

/* "exts" as ".a or .b" (".a, .b or .c") into buf. */
static const char *ext_list(const char *exts, char *buf, size_t size) {
  size_t o = 0;
  int n = 0, total = 1;
  for (const char *p = exts; *p; p++) total += *p == ' ';
  for (const char *p = exts; *p && o < size;) {
    size_t w = strcspn(p, " ");
    n++;
    o += snprintf(buf + o, size - o, "%s.%.*s", n == 1 ? "" : n == total ? " or " : ", ", (int)w, p);
    p += w + (p[w] == ' ');
  }
  return buf;
}

static int add_file(ms_list *l, const char *dir, const char *name) {
  ms_frame *f = realloc(l->f, sizeof(ms_frame) * (l->n + 1));
  if (!f) return 0;
  l->f = f;
  size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
  char *p = malloc(n);
  if (!p) return 0;
  snprintf(p, n, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
  f[l->n++] = (ms_frame){p, base_of(p), 0, 0};
  return 1;
}

static int list_dir(const char *dir, const char *exts, ms_list *l, cf_error *err) {
  DIR *d = opendir(dir);
  if (!d) return cf_error_set(err, CF_EIO, "%s: cannot open the folder: %s", dir, strerror(errno));
  int ok = 1;
  for (struct dirent *e; ok && (e = readdir(d));)
    if (e->d_name[0] != '.' && has_ext(e->d_name, exts)) ok = add_file(l, dir, e->d_name);
  closedir(d);
  char names[64];
  if (!ok) return cf_error_set(err, CF_ENOMEM, "%s: out of memory listing the folder", dir);
  if (!l->n)
    return cf_error_set(err, CF_EIO, "%s: no %s files in the folder", dir, ext_list(exts, names, sizeof names));
  return CF_OK;
}

static int list_glob(const char *pattern, ms_list *l, cf_error *err) {
  glob_t g;
  int r = glob(pattern, 0, NULL, &g), ok = 1;
  if (r == GLOB_NOMATCH) return cf_error_set(err, CF_EIO, "%s: no such folder, and no file matches it", pattern);
  if (r) return cf_error_set(err, CF_EIO, "%s: cannot expand the pattern", pattern);
  for (size_t i = 0; ok && i < g.gl_pathc; i++) ok = add_file(l, NULL, g.gl_pathv[i]);
  globfree(&g);
  return ok ? CF_OK : cf_error_set(err, CF_ENOMEM, "%s: out of memory listing the files", pattern);
}

int ms_list_files(const char *dir_or_glob, ms_list *l, cf_error *err) {
  return ms_list_files_ext(dir_or_glob, "obj ply", l, err);
}

int ms_list_files_ext(const char *dir_or_glob, const char *exts, ms_list *l, cf_error *err) {
  struct stat sb;
  memset(l, 0, sizeof *l);
  int dir = stat(dir_or_glob, &sb) == 0 && S_ISDIR(sb.st_mode);
  int rc = dir ? list_dir(dir_or_glob, exts, l, err) : list_glob(dir_or_glob, l, err);
  if (rc) ms_list_free(l);
  else qsort(l->f, l->n, sizeof *l->f, by_name);
  return rc;
}

/* ---------------------------------------------------- times from the names */
/* The last number of the name without its extension: [s, e) in *s, *e. */
static int last_number(const char *base, const char **s, const char **e) {
  const char *dot = strrchr(base, '.'), *p = dot ? dot : base + strlen(base);
  while (p > base && !isdigit((unsigned char)p[-1])) p--;
  if (p == base) return 0;
  *e = p;
  while (p > base && isdigit((unsigned char)p[-1])) p--;
  if (p - base >= 2 && p[-1] == '.' && isdigit((unsigned char)p[-2]))
    for (p--; p > base && isdigit((unsigned char)p[-1]);) p--;
  *s = p;
  return 1;
}

static int name_time(ms_frame *f, double fps, cf_error *err) {
  const char *s, *e;
  const char *ext = strrchr(f->base, '.');
  if (!last_number(f->base, &s, &e))
    return cf_error_set(err, CF_EFORMAT, "%s: file name: no number in the name to take the time from (expected "
                        "e.g. frame_000123_1.234567%s, or give --times FILE)", f->path, ext ? ext : ".obj");
  int whole = !memchr(s, '.', (size_t)(e - s));
  if (fps > 0 && !whole)
    return cf_error_set(err, CF_EFORMAT, "%s: file name: with --fps the last number of the name must be a frame "
                        "index, found %.*s", f->path, (int)(e - s), s);
  f->t = strtod(s, NULL) / (fps > 0 ? fps : 1);
  if (!isfinite(f->t))
    return cf_error_set(err, CF_EFORMAT, "%s: file name: number %.*s is too large", f->path, (int)(e - s), s);
  return CF_OK;
}

static int by_time(const void *x, const void *y) {
  const ms_frame *a = x, *b = y;
  return (a->t > b->t) - (a->t < b->t);
}

static int by_line(const void *x, const void *y) {
  const ms_frame *a = x, *b = y;
  return (a->t_line > b->t_line) - (a->t_line < b->t_line);
}

static int times_from_names(ms_list *l, double fps, cf_error *err) {
  for (int i = 0; i < l->n; i++) {
    int rc = name_time(&l->f[i], fps, err);
    if (rc) return rc;
  }
  qsort(l->f, l->n, sizeof *l->f, by_time);
  for (int i = 1; i < l->n; i++)
    if (l->f[i].t == l->f[i - 1].t)
      return cf_error_set(err, CF_EFORMAT, "%s: file name: time %.9g s repeats that of %s (every frame needs its "
                          "own time)", l->f[i].path, l->f[i].t, l->f[i - 1].path);
  return CF_OK;
}

/* ------------------------------------------------------ the times file */
typedef struct {
  const char *name; /* the times file */
  ms_list *l;
  cf_error *err;
  long line;
  int form, used; /* 1: "TIME", 2: "FILE TIME"; lines read */
  long form_line;
} times_state;

static int tfail(times_state *ts, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int tfail(times_state *ts, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = cf_meshframe_vfail(ts->err, ts->name, 0, ts->line, "", fmt, ap);
  va_end(ap);
  return rc;
}

/* The frame a "FILE TIME" line names (by file name). */
static int named_frame(times_state *ts, const char *s, const char *e, ms_frame **out) {
  const char *slash = s;
  for (const char *p = s; p < e; p++)
    if (*p == '/') slash = p + 1;
  size_t n = (size_t)(e - slash);
  *out = NULL;
  for (int i = 0; i < ts->l->n; i++) {
    ms_frame *f = &ts->l->f[i];
    if (strlen(f->base) != n || memcmp(f->base, slash, n)) continue;
    if (*out) return tfail(ts, "'%.*s' names two frame files, %s and %s", (int)n, slash, (*out)->path, f->path);
    *out = f;
  }
  if (!*out) return tfail(ts, "'%.*s' is not one of the %d frame files", (int)n, slash, ts->l->n);
  if ((*out)->t_line)
    return tfail(ts, "'%.*s' is listed twice (also on line %ld)", (int)n, slash, (*out)->t_line);
  return CF_OK;
}

static int time_line(times_state *ts, const char **tk, const char **te, int nt) {
  if (nt > 2) return tfail(ts, "expected 'FILE TIME' or 'TIME', found %d fields", nt);
  if (ts->form && nt != ts->form)
    return tfail(ts, "expected '%s' like line %ld", ts->form == 1 ? "TIME" : "FILE TIME", ts->form_line);
  if (!ts->form) ts->form = nt, ts->form_line = ts->line;
  ms_frame *f = NULL;
  if (nt == 1 && ts->used == ts->l->n)
    return tfail(ts, "time %d, but there are only %d frame files", ts->used + 1, ts->l->n);
  int rc = nt == 2 ? named_frame(ts, tk[0], te[0], &f) : CF_OK;
  if (rc) return rc;
  if (!f) f = &ts->l->f[ts->used];
  char *end, q[64];
  f->t = strtod(tk[nt - 1], &end);
  if (end != te[nt - 1] || !isfinite(f->t))
    return tfail(ts, "expected a time in seconds, found %s", cf_meshframe_quote(tk[nt - 1], te[nt - 1], q, sizeof q));
  f->t_line = ts->line;
  ts->used++;
  return CF_OK;
}

static int parse_times(times_state *ts, char *buf, size_t len) {
  for (char *p = buf, *end = buf + len; p < end;) {
    char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *hash = memchr(p, '#', (size_t)(e - p));
    const char *tk[3], *te[3];
    int nt = 0;
    ts->line++;
    for (char *q = p, *stop = hash ? hash : e; q < stop && nt < 3;) {
      while (q < stop && isspace((unsigned char)*q)) q++;
      if (q == stop) break;
      tk[nt] = q;
      while (q < stop && !isspace((unsigned char)*q)) q++;
      te[nt++] = q;
    }
    for (int i = 0; i < nt; i++) *(char *)te[i] = 0; /* strtod stops at the field's end */
    int rc = nt ? time_line(ts, tk, te, nt) : CF_OK;
    if (rc) return rc;
    p = nl ? nl + 1 : end;
  }
  return CF_OK;
}

/* Every frame has a line; in frame (= line) order the times increase. */
static int check_times(times_state *ts) {
  ms_list *l = ts->l;
  for (int i = 0; i < l->n; i++)
    if (!l->f[i].t_line)
      return ts->form != 2 ? tfail(ts, "the file ends after %d times, expected %d: no time for %s", ts->used, l->n,
                                   l->f[i].path)
                           : tfail(ts, "the file ends without a line for frame file %s (expected '%s TIME')",
                                   l->f[i].path, l->f[i].base);
  qsort(l->f, l->n, sizeof *l->f, by_line);
  for (int i = 1; i < l->n; i++)
    if (!(l->f[i].t > l->f[i - 1].t)) {
      ts->line = l->f[i].t_line;
      return tfail(ts, "time %.9g s (%s) is not after %.9g s (%s, line %ld): the times must increase in frame "
                   "order", l->f[i].t, l->f[i].base, l->f[i - 1].t, l->f[i - 1].base, l->f[i - 1].t_line);
    }
  return CF_OK;
}

static int times_from_file(ms_list *l, const char *path, cf_error *err) {
  char *buf = cf_text_slurp(path, "a text file of frame times", err);
  if (!buf) return err ? err->code : CF_EIO;
  times_state ts = {path, l, err, 0, 0, 0, 0};
  int rc = parse_times(&ts, buf, strlen(buf));
  if (!rc) rc = check_times(&ts);
  free(buf);
  return rc;
}

int ms_times(ms_list *l, const cf_meshseq_opts *o, cf_error *err) {
  l->times_name = o->times_file;
  return o->times_file ? times_from_file(l, o->times_file, err) : times_from_names(l, o->fps, err);
}
