/* tasks.c — the task model of the sweeping steps (docs/design.md §9,
 * docs/cluster.md): task ids, the journal that makes a sweep crash-safe,
 * and shards.
 *
 * A command's tasks are its grid points, recording after recording in
 * command-line order: task id = (points of the recordings before) + grid
 * index.  The list is deterministic, so a rerun, another worker count or
 * another shard numbers every task the same way.
 *
 * The journal is "<RESULTS>.journal" beside the -o file.  Its key hashes
 * what the results depend on: the clothfit version and git revision, the
 * command line without the options that do not change results (-o,
 * --workers, --shard, --json, --restart), the bytes of the input files (the
 * recordings; for `experiment`, the CSV exports and their sidecars, since
 * its ingested files carry their creation time) and the config text.
 *
 * The journal serves crashes: a run that ends, with its results written or
 * with an error it reported, removes it, so that a rerun with other options
 * is not refused for a journal nobody needs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clothfit_version.h"
#include "pipeline_internal.h"

/* Options that change nothing in the results; the ones with a value skip it too. */
static int neutral(const char *a, int *skip_value) {
  static const char *valued[] = {"-o", "--workers", "--shard"}, *flags[] = {"--json", "--restart"};
  *skip_value = 0;
  for (size_t i = 0; i < sizeof valued / sizeof *valued; i++) {
    size_t n = strlen(valued[i]);
    if (!strncmp(a, valued[i], n) && (a[n] == 0 || a[n] == '=')) return *skip_value = a[n] == 0, 1;
  }
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
    if (!strcmp(a, flags[i])) return 1;
  return 0;
}

static int hash_file(uint64_t *h, const char *path, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot read", path);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) *h = cf_hash_bytes(*h, buf, n);
  int bad = ferror(f);
  fclose(f);
  return bad ? cf_error_set(err, CF_EIO, "%s: read error", path) : CF_OK;
}

static int run_key(int argc, char **argv, const char *const *files, int n, const char *config, uint64_t *key,
                   cf_error *err) {
  uint64_t h = cf_hash_str(0, CLOTHFIT_VERSION);
  h = cf_hash_str(h, CLOTHFIT_GIT_REVISION);
  for (int i = 1; i < argc; i++) {
    int skip;
    if (neutral(argv[i], &skip)) {
      i += skip;
      continue;
    }
    h = cf_hash_str(h, argv[i]);
  }
  for (int i = 0; i < n; i++) {
    int rc = hash_file(&h, files[i], err);
    if (rc) return rc;
  }
  *key = cf_hash_str(h, config ? config : "");
  return CF_OK;
}

/* "I/N" with 0 <= I < N. */
static int parse_shard(const char *s, cf_pipeline_tasks *t, cf_error *err) {
  char *end = NULL;
  long i = strtol(s, &end, 10), nn = *end == '/' ? strtol(end + 1, &end, 10) : -1;
  if (*end || i < 0 || nn < 1 || i >= nn || nn > 100000)
    return cf_error_set(err, CF_EINVAL, "invalid --shard '%s': expected I/N with 0 <= I < N (e.g. 0/3)", s);
  t->shard_i = (int)i, t->shard_n = (int)nn;
  return 0;
}

int cf_pipeline_tasks_begin(const cf_pipeline_task_opts *o, int argc, char **argv, const char *const *files, int n,
                            const char *config, cf_pipeline_tasks *t, cf_error *err) {
  memset(t, 0, sizeof *t);
  if (o->shard && parse_shard(o->shard, t, err)) return CF_EINVAL;
  if (o->shard && !o->out)
    return cf_error_set(err, CF_EINVAL, "--shard needs -o SHARD.h5 (the file `clothfit merge` combines)");
  if (!o->out) return CF_OK;
  uint64_t key = 0;
  int rc = run_key(argc, argv, files, n, config, &key, err);
  if (rc) return rc;
  t->key = key;
  if (cf_dist_rank() > 0) return CF_OK; /* under MPI, rank 0 keeps the journal */
  snprintf(t->path, sizeof t->path, "%s.journal", o->out);
  t->journal = cf_journal_open(t->path, key, o->restart, err);
  return t->journal ? CF_OK : err && err->code ? err->code : CF_EIO;
}

int cf_pipeline_tasks_end(cf_pipeline_tasks *t, cf_error *err) {
  int rc = t->journal ? cf_journal_remove(t->journal, err) : CF_OK;
  cf_journal_free(t->journal);
  t->journal = NULL;
  return rc;
}

/* ------------------------------------------- sweep points in the journal */
static int ck_load(void *ctx, unsigned long long id, cf_sweep_point *p) {
  const cf_pipeline_tasks *t = ctx;
  const char *text = cf_journal_find(t->journal, id);
  if (!text) return 0;
  int used = 0;
  memset(p, 0, sizeof *p);
  if (sscanf(text, "%la %la %la %d %d %n", &p->e, &p->s, &p->dmax, &p->status, &p->pruned, &used) != 5) return 0;
  snprintf(p->reason, sizeof p->reason, "%s", text + used);
  cf_journal_mark_used(t->journal, id);
  return 1;
}

static int ck_save(void *ctx, unsigned long long id, const cf_sweep_point *p, cf_error *err) {
  const cf_pipeline_tasks *t = ctx;
  char text[256];
  snprintf(text, sizeof text, "%a %a %a %d %d %s", p->e, p->s, p->dmax, p->status, p->pruned, p->reason);
  for (char *q = text; *q; q++)
    if (*q == '\n') *q = ' ';
  return cf_journal_append(t->journal, id, text, err);
}

/* ------------------------------- the other loops' items in the journal */
static int hexval(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

/* A record "KIND SIZE HEX" of this kind and size: the bytes it holds (an
 * even count of lower-case hex digits, at most 2 size) followed by zeros. */
static int kept_load(void *ctx, unsigned long long id, const char *kind, void *rec, size_t size) {
  const cf_pipeline_tasks *t = ctx;
  const char *text = cf_journal_find(t->journal, id);
  size_t lk = strlen(kind);
  if (!text || strncmp(text, kind, lk) || text[lk] != ' ') return 0; /* not kept, or another record: run it */
  char *end = NULL;
  size_t n = strtoull(text + lk + 1, &end, 10), k = 0;
  if (n != size || *end != ' ') return 0;
  const char *hex = end + 1;
  size_t len = strlen(hex);
  if (len % 2 || len > 2 * size) return 0;
  unsigned char *b = rec;
  memset(b, 0, size);
  for (; k < len / 2; k++) {
    int hi = hexval(hex[2 * k]), lo = hexval(hex[2 * k + 1]);
    if (hi < 0 || lo < 0) return 0;
    b[k] = (unsigned char)(16 * hi + lo);
  }
  cf_journal_mark_used(t->journal, id);
  return 1;
}

static int kept_save(void *ctx, unsigned long long id, const char *kind, const void *rec, size_t size, cf_error *err) {
  const cf_pipeline_tasks *t = ctx;
  const unsigned char *b = rec;
  size_t used = size;
  while (used && !b[used - 1]) used--; /* the trailing zeros stay implicit */
  char *text = malloc(2 * used + 64);
  if (!text) return cf_error_set(err, CF_ENOMEM, "%s: out of memory", t->path);
  int k = snprintf(text, 64, "%s %zu ", kind, size);
  for (size_t i = 0; i < used; i++) k += snprintf(text + k, 3, "%02x", b[i]);
  int rc = cf_journal_append(t->journal, id, text, err);
  free(text);
  return rc;
}

const cf_fit_journal *cf_pipeline_tasks_kept(cf_pipeline_tasks *t) {
  if (!t || !t->journal) return NULL;
  t->kept = (cf_fit_journal){kept_load, kept_save, t};
  return &t->kept;
}

void cf_pl_tasks_apply(cf_pipeline_tasks *t, cf_sweep_options *o) {
  if (!t) return;
  o->task0 = t->next;
  o->shard_i = t->shard_i, o->shard_n = t->shard_n;
  t->ck = (cf_sweep_checkpoint){ck_load, ck_save, t};
  o->checkpoint = t->journal ? &t->ck : NULL;
  t->next += (unsigned long long)cf_sweep_n_points(o->nm, o->nd, o->na);
}
