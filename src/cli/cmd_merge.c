/* cmd_merge.c — `clothfit merge SHARD.h5... -o RESULTS.h5`: the results
 * files of the shards of one `sweep --shard I/N` (e.g. the elements of a
 * Slurm job array) joined into one results file (docs/design.md §9; src/study's
 * shards.c does the joining). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

typedef struct {
  const char *out;
} merge_opts;

static const cf_cli_option options[] = {CF_CLI_VALUE("-o", merge_opts, out), CF_CLI_END};

/* The merged file's tasks: the grid points of its sweeps. */
static long merged_tasks(const cf_results *m) {
  long points = 0;
  for (int r = 0; r < m->n; r++) points += cf_res_sweep_points(&m->recs[r].sweep);
  return points;
}

static void print_text(int n, const cf_results *m, const char *out) {
  printf("merged %d shard files: %d recordings, %ld tasks -> %s\n", n, m->n, merged_tasks(m), out);
}

static void print_json(int n, const cf_results *m, const char *out) {
  json_t *j = json_object();
  cf_cli_json_num(j, "shards", n);
  cf_cli_json_num(j, "recordings", m->n);
  cf_cli_json_num(j, "tasks", merged_tasks(m));
  cf_cli_json_str(j, "output", out);
  cf_cli_json_print(j);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  const char *out = ((const merge_opts *)opts)->out, **pos = c->pos;
  int npos = c->n_pos;
  if (!out) return cf_cli_fail("merge", "missing -o RESULTS.h5");
  cf_results *s = calloc((size_t)npos + 1, sizeof *s);
  if (!s) return cf_cli_fail("merge", "out of memory");
  cf_error err = {0, ""};
  int n = 0, problems = 0, rc = 0;
  for (; !rc && n < npos; n++) {
    cf_results_init(&s[n]);
    if (cf_results_read(pos[n], &s[n], &err)) rc = cf_cli_fail("merge", "%s", err.msg);
  }
  if (!rc && cf_shards_merge(s, pos, npos, stderr, &problems, &err)) rc = cf_cli_fail("merge", "%s", err.msg);
  if (!rc) {
    cf_results_stamp(&s[0], c->argc, c->argv, 0, NULL);
    s[0].prov.shard[0] = 0;
    rc = cf_cli_results_write("merge", out, &s[0]);
  }
  if (!rc) print_text(npos, &s[0], out);
  if (!rc && c->json) print_json(npos, &s[0], out);
  for (int i = 0; i < n; i++) cf_results_free(&s[i]);
  free(s);
  return rc;
}

const cf_cli_command cf_cli_cmd_merge = {
    .name = "merge", .summary = "join the results files of the shards of a sweep (sweep --shard I/N) into one",
    .help = cf_cli_help_merge, .options = options, .opts_size = sizeof(merge_opts), .max_pos = -1,
    .needs = "SHARD.h5", .run = run_cmd};
