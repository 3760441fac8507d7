/* journal.c — the append-only task journal (see cf_io.h, "Task journals").
 *
 * File layout (text, one line per record, so that `wc -l` counts tasks and
 * a torn write is visible as a last line without its newline):
 *
 *   clothfit-journal 1 KEY\n                         KEY: 16 hex digits
 *   ID TEXT CHECK\n                                  one per finished task
 *
 * ID is the task's decimal id, TEXT the caller's one-line payload (no
 * newline), CHECK 16 hex digits of FNV-1a 64 over "ID TEXT".  A line is
 * written with one write(2) on a descriptor opened with O_APPEND, which
 * Linux keeps whole against other appenders (the inode lock), so forked
 * workers may share the journal; it is then fdatasync'ed, which costs ~1 ms
 * against simulations of ~1 s, so that a persisted task survives a power
 * cut as well as a kill -9. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf_io.h"

#define JOURNAL_MAGIC "clothfit-journal 1 "

typedef struct {
  uint64_t id;
  char *text;
  int used; /* taken by the caller since open (cf_journal_mark_used) */
} entry;

struct cf_journal {
  char *path;
  int fd;
  uint64_t key;
  entry *e;  /* sorted by id */
  int n;
  int torn;  /* a torn last line was dropped on open */
};

uint64_t cf_hash_str(uint64_t h, const char *s) { return cf_hash_bytes(h, s, strlen(s) + 1); }

void cf_journal_free(cf_journal *j) {
  if (!j) return;
  if (j->fd >= 0) close(j->fd);
  for (int i = 0; i < j->n; i++) free(j->e[i].text);
  free(j->e);
  free(j->path);
  free(j);
}

static int by_id(const void *a, const void *b) {
  uint64_t x = ((const entry *)a)->id, y = ((const entry *)b)->id;
  return x < y ? -1 : x > y;
}

/* One record line (without its newline) into e; CF_EFORMAT naming the line. */
static int parse_record(const cf_journal *j, char *line, int lineno, entry *e, cf_error *err) {
  char *sp = strchr(line, ' '), *last = strrchr(line, ' ');
  char *end = NULL;
  errno = 0;
  unsigned long long id = sp ? strtoull(line, &end, 10) : 0;
  if (!sp || sp == last || end != sp || errno)
    return cf_error_set(err, CF_EFORMAT, "%s:%d: damaged journal record: expected 'ID TEXT CHECK'", j->path, lineno);
  uint64_t want = strtoull(last + 1, &end, 16);
  if (strlen(last + 1) != 16 || *end || cf_hash_bytes(0, line, (size_t)(last - line)) != want)
    return cf_error_set(err, CF_EFORMAT, "%s:%d: damaged journal record of task %llu: its checksum does not match "
                        "(remove the journal or rerun with --restart)", j->path, lineno, id);
  *last = 0;
  e->id = id;
  e->text = strdup(sp + 1);
  return e->text ? CF_OK : cf_error_set(err, CF_ENOMEM, "%s: out of memory", j->path);
}

static int add_entry(cf_journal *j, entry e, int *cap) {
  if (j->n == *cap) {
    int c = *cap ? 2 * *cap : 256;
    entry *g = realloc(j->e, sizeof *g * c);
    if (!g) return CF_ENOMEM;
    j->e = g, *cap = c;
  }
  j->e[j->n++] = e;
  return CF_OK;
}

/* Records of an existing journal text (NUL-terminated, length len). */
static int load(cf_journal *j, char *text, size_t len, cf_error *err) {
  char *nl = strchr(text, '\n');
  if (!nl || strncmp(text, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)))
    return cf_error_set(err, CF_EFORMAT, "%s:1: not a clothfit journal: expected '" JOURNAL_MAGIC "KEY'", j->path);
  char *end = NULL;
  uint64_t key = strtoull(text + strlen(JOURNAL_MAGIC), &end, 16);
  if (end != nl) return cf_error_set(err, CF_EFORMAT, "%s:1: malformed journal header", j->path);
  j->key = key;
  int cap = 0, lineno = 2;
  for (char *p = nl + 1; p < text + len; lineno++) {
    char *q = memchr(p, '\n', (size_t)(text + len - p));
    if (!q) { /* a write cut short by a crash: that task did not finish */
      j->torn = 1;
      break;
    }
    *q = 0;
    entry e = {0, NULL, 0};
    if (parse_record(j, p, lineno, &e, err)) return err ? err->code : CF_EFORMAT;
    if (add_entry(j, e, &cap)) return cf_error_set(err, CF_ENOMEM, "%s: out of memory", j->path);
    p = q + 1;
  }
  if (j->n) qsort(j->e, (size_t)j->n, sizeof *j->e, by_id);
  int m = j->n ? 1 : 0; /* a task recorded twice alike (computed twice in one run) is kept once */
  for (int i = 1; i < j->n; i++) {
    if (j->e[i].id != j->e[m - 1].id) {
      j->e[m++] = j->e[i];
      continue;
    }
    int same = !strcmp(j->e[i].text, j->e[m - 1].text);
    free(j->e[i].text);
    if (!same) {
      for (int k = i + 1; k < j->n; k++) free(j->e[k].text);
      j->n = m;
      return cf_error_set(err, CF_EFORMAT, "%s: task %" PRIu64 " is recorded twice with different results",
                          j->path, j->e[m - 1].id);
    }
  }
  j->n = m;
  return CF_OK;
}

static char *slurp(const char *path, size_t *len, int *missing) {
  FILE *f = fopen(path, "rb");
  *missing = !f && errno == ENOENT;
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n + 65536 + 1 > cap) {
      char *g = realloc(buf, cap = 2 * cap + 65536 + 1);
      if (!g) break;
      buf = g;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
  } while (got > 0);
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) return free(buf), NULL;
  buf[n] = 0;
  *len = n;
  return buf;
}

/* The journal line of a record into line (size n); its length. */
static int format_line(char *line, size_t n, uint64_t id, const char *text) {
  int k = snprintf(line, n, "%" PRIu64 " %s", id, text);
  return k + snprintf(line + k, n - (size_t)k, " %016" PRIx64 "\n", (uint64_t)cf_hash_bytes(0, line, (size_t)k));
}

/* (Re)write the journal with its header and the records it holds, in a
 * temporary file renamed over it: a crash leaves the old or the new one. */
static int rewrite(cf_journal *j, cf_error *err) {
  if (cf_io_ensure_parent(j->path, err)) return err ? err->code : CF_EIO;
  char tmp[4096];
  cf_io_tmpname(j->path, tmp, sizeof tmp);
  FILE *f = fopen(tmp, "wb");
  int bad = !f || fprintf(f, JOURNAL_MAGIC "%016" PRIx64 "\n", j->key) < 0;
  for (int i = 0; !bad && i < j->n; i++) {
    size_t n = strlen(j->e[i].text) + 48;
    char *line = malloc(n);
    bad = !line || fwrite(line, 1, (size_t)format_line(line, n, j->e[i].id, j->e[i].text), f) == 0;
    free(line);
  }
  if (f && (fflush(f) || fdatasync(fileno(f)))) bad = 1;
  if (f && fclose(f)) bad = 1;
  if (bad || rename(tmp, j->path)) {
    int e = errno;
    remove(tmp);
    return cf_error_set(err, CF_EIO, "%s: cannot write the journal: %s", j->path, strerror(e));
  }
  return CF_OK;
}

cf_journal *cf_journal_open(const char *path, uint64_t key, int restart, cf_error *err) {
  cf_journal *j = calloc(1, sizeof *j);
  if (!j || !(j->path = strdup(path))) {
    cf_journal_free(j);
    cf_error_set(err, CF_ENOMEM, "%s: out of memory", path);
    return NULL;
  }
  j->fd = -1;
  size_t len = 0;
  int missing = 0, rc = CF_OK;
  char *text = restart ? NULL : slurp(path, &len, &missing);
  if (!restart && !text && !missing)
    rc = cf_error_set(err, CF_EIO, "%s: cannot read the journal: %s", path, strerror(errno));
  else if (text && (rc = load(j, text, len, err)) == CF_OK && j->key != key)
    rc = cf_error_set(err, CF_EINVAL, "%s: journal of another run (its recordings, grid, model settings or "
                      "configuration differ); rerun with --restart to discard its %d finished tasks", path, j->n);
  free(text);
  j->key = key;
  /* A fresh journal, or one whose torn last line (a write cut short by a
   * crash: that task did not finish) is dropped before new lines follow. */
  if (!rc && (restart || missing || j->torn)) rc = rewrite(j, err);
  if (!rc && (j->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
    rc = cf_error_set(err, CF_EIO, "%s: cannot open the journal for appending: %s", path, strerror(errno));
  if (rc) {
    cf_journal_free(j);
    return NULL;
  }
  return j;
}

int cf_journal_count(const cf_journal *j) { return j->n; }
int cf_journal_torn(const cf_journal *j) { return j->torn; }
const char *cf_journal_path(const cf_journal *j) { return j->path; }

const char *cf_journal_find(const cf_journal *j, uint64_t id) {
  if (j->n == 0) return NULL; /* bsearch on a NULL table is undefined even for 0 entries */
  entry k = {id, NULL, 0};
  const entry *e = bsearch(&k, j->e, (size_t)j->n, sizeof k, by_id);
  return e ? e->text : NULL;
}

void cf_journal_mark_used(cf_journal *j, uint64_t id) {
  if (!j || j->n == 0) return;
  entry k = {id, NULL, 0};
  entry *e = bsearch(&k, j->e, (size_t)j->n, sizeof k, by_id);
  if (e) e->used = 1;
}

int cf_journal_used(const cf_journal *j) {
  int n = 0;
  for (int i = 0; j && i < j->n; i++) n += j->e[i].used;
  return n;
}

int cf_journal_append(cf_journal *j, uint64_t id, const char *text, cf_error *err) {
  if (strchr(text, '\n')) return cf_error_set(err, CF_EINVAL, "%s: task %" PRIu64 ": record text holds a newline",
                                              j->path, id);
  size_t n = strlen(text) + 48;
  char *line = malloc(n);
  if (!line) return cf_error_set(err, CF_ENOMEM, "%s: out of memory", j->path);
  int k = format_line(line, n, id, text);
  ssize_t w = write(j->fd, line, (size_t)k);
  free(line);
  if (w != k || fdatasync(j->fd))
    return cf_error_set(err, CF_EIO, "%s: cannot append task %" PRIu64 ": %s", j->path, id,
                        w < 0 || w == k ? strerror(errno) : "short write");
  return CF_OK;
}

int cf_journal_remove(cf_journal *j, cf_error *err) {
  if (unlink(j->path) && errno != ENOENT)
    return cf_error_set(err, CF_EIO, "%s: cannot remove the journal: %s", j->path, strerror(errno));
  return CF_OK;
}
