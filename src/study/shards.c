/* shards.c — joining the shard files of a sweep (`sweep --shard I/N`,
 * `merge`; docs/design.md §9, docs/cluster.md).
 *
 * Every shard file holds the whole grid of every recording; the points of
 * other shards have status CF_ENOTRUN.  Tasks are numbered as the sweep
 * numbers them: recording after recording in file order, grid index within.
 * A task no shard ran is missing; a task two shards ran is a duplicate,
 * harmless when both hold the same bits (e.g. a shard run twice) and a
 * conflict otherwise.  Missing and conflicting tasks are errors: a merged
 * file is complete or not written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_study.h"

static int same_axes(const cf_res_sweep *a, const cf_res_sweep *b) {
  return a->nd == b->nd && a->na == b->na && a->nm == b->nm && !memcmp(a->delta, b->delta, sizeof(double) * a->nd) &&
         !memcmp(a->alpha, b->alpha, sizeof(double) * a->na) &&
         (a->nm == 0 || !memcmp(a->mu, b->mu, sizeof(double) * a->nm));
}

/* "name, delta D alpha A[ mu M]" of point k, for the log. */
static const char *point_text(const cf_res_rec *rec, int k, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s, ", rec->name);
  if (n > 0 && (size_t)n < size) cf_res_sweep_point_text(&rec->sweep, k, buf + n, size - (size_t)n);
  return buf;
}

static int same_point(const cf_res_sweep *a, const cf_res_sweep *b, int k) {
  return !memcmp(&a->e[k], &b->e[k], sizeof(double)) && !memcmp(&a->s[k], &b->s[k], sizeof(double)) &&
         a->status[k] == b->status[k] && a->pruned[k] == b->pruned[k];
}

/* Shard files of one sweep: the same task key and N, the same recordings and grids. */
static int check_shards(cf_results *s, const char *const *names, int n, int *N, cf_error *err) {
  for (int f = 0; f < n; f++) {
    int i, m;
    char tail;
    if (sscanf(s[f].prov.shard, "%d/%d%c", &i, &m, &tail) != 2 || i < 0 || i >= m)
      return cf_error_set(err, CF_EFORMAT, "%s: not a shard of a sweep (provenance/shard is '%s', expected I/N)",
                          names[f], s[f].prov.shard);
    if (f == 0) *N = m;
    if (m != *N || strcmp(s[f].prov.task_key, s[0].prov.task_key))
      return cf_error_set(err, CF_EINVAL, "%s: a shard of another sweep than %s (%s: shard %s, task key %s; %s: "
                          "shard %s, task key %s)", names[f], names[0], names[f], s[f].prov.shard,
                          s[f].prov.task_key, names[0], s[0].prov.shard, s[0].prov.task_key);
    if (s[f].n != s[0].n)
      return cf_error_set(err, CF_EINVAL, "%s: %d recordings, %s has %d", names[f], s[f].n, names[0], s[0].n);
    for (int r = 0; r < s[0].n; r++)
      if (strcmp(s[f].recs[r].name, s[0].recs[r].name) || !same_axes(&s[f].recs[r].sweep, &s[0].recs[r].sweep) ||
          !s[0].recs[r].sweep.e)
        return cf_error_set(err, CF_EINVAL, "%s: recording %d is %s with another grid than %s's %s", names[f], r + 1,
                            s[f].recs[r].name, names[0], s[0].recs[r].name);
  }
  return CF_OK;
}

/* Take point k of shard file g into the merged sweep m (its reason moves). */
static void take(cf_res_sweep *m, cf_res_sweep *g, int k) {
  m->e[k] = g->e[k], m->s[k] = g->s[k], m->status[k] = g->status[k], m->pruned[k] = g->pruned[k];
  if (m->reason && g->reason) {
    char *t = m->reason[k];
    m->reason[k] = g->reason[k], g->reason[k] = t;
  }
}

static void find_best(cf_res_sweep *w) {
  w->best = -1;
  for (int k = 0; k < cf_res_sweep_points(w); k++)
    if (w->status[k] == CF_OK && !w->pruned[k] && (w->best < 0 || w->e[k] < w->e[w->best])) w->best = k;
  cf_res_sweep_mu_of_best(w);
}

int cf_shards_merge(cf_results *s, const char *const *names, int n, FILE *log, int *problems, cf_error *err) {
  int N = 0;
  *problems = 0;
  if (n < 1) return cf_error_set(err, CF_EINVAL, "no shard files");
  int rc = check_shards(s, names, n, &N, err);
  if (rc) return rc;
  long id0 = 0, missing = 0, conflicts = 0, dups = 0;
  for (int r = 0; r < s[0].n; r++) {
    cf_res_sweep *m = &s[0].recs[r].sweep;
    int np = cf_res_sweep_points(m);
    for (int k = 0; k < np; k++) {
      int holder = -1;
      char pt[400];
      for (int f = 0; f < n; f++) {
        cf_res_sweep *g = &s[f].recs[r].sweep;
        if (g->status[k] == CF_ENOTRUN) continue;
        if (holder < 0) {
          holder = f;
          if (f) take(m, g, k);
          continue;
        }
        int same = same_point(&s[holder].recs[r].sweep, g, k);
        same ? dups++ : conflicts++;
        fprintf(log, "clothfit merge: %s task %ld (%s, shard %ld/%d) is in %s and %s%s\n",
                same ? "warning: duplicated" : "conflicting", id0 + k, point_text(&s[0].recs[r], k, pt, sizeof pt),
                (id0 + k) % N, N, names[holder], names[f], same ? " with the same results" : " with different results");
      }
      if (holder < 0) {
        missing++;
        fprintf(log, "clothfit merge: missing task %ld (%s): shard %ld/%d did not run it\n", id0 + k,
                point_text(&s[0].recs[r], k, pt, sizeof pt), (id0 + k) % N, N);
      }
    }
    find_best(m);
    for (int f = 1; f < n; f++) m->wall_s += s[f].recs[r].sweep.wall_s;
    id0 += np;
  }
  *problems = (int)(missing + conflicts);
  if (missing || conflicts)
    return cf_error_set(err, CF_EINVAL, "%ld missing and %ld conflicting tasks of %ld (%d shard files for "
                        "N = %d); nothing written", missing, conflicts, id0, n, N);
  if (dups) fprintf(log, "clothfit merge: warning: %ld tasks were run by two shards (same results)\n", dups);
  return CF_OK;
}
