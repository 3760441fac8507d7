/* cmd_merge.c — `clothfit merge SHARD.h5... -o RESULTS.h5`: the results
 * files of the shards of one `sweep --shard I/N` (e.g. the elements of a
 * Slurm job array) joined into one results file (docs/design.md §9; src/study's
 * shards.c does the joining). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

static int run_argv(int argc, char **argv) {
  const char *out = NULL;
  int json = 0, npos = 0;
  const cf_cli_opt opts[] = {{"-o", &out, NULL}, {"--json", NULL, &json}, {NULL, NULL, NULL}};
  const char **pos = calloc((size_t)argc + 1, sizeof *pos);
  cf_results *s = calloc((size_t)argc + 1, sizeof *s);
  if (!pos || !s) return free(pos), free(s), cf_cli_fail("merge", "out of memory");
  int rc = cf_cli_parse_argv("merge", argc, argv, opts, pos, argc, &npos);
  if (!rc && !npos) rc = cf_cli_fail("merge", "missing SHARD.h5 (see --help)");
  if (!rc && !out) rc = cf_cli_fail("merge", "missing -o RESULTS.h5");
  cf_error err = {0, ""};
  int n = 0, problems = 0;
  for (; !rc && n < npos; n++) {
    cf_results_init(&s[n]);
    if (cf_results_read(pos[n], &s[n], &err)) rc = cf_cli_fail("merge", "%s", err.msg);
  }
  if (!rc && cf_shards_merge(s, pos, npos, stderr, &problems, &err)) rc = cf_cli_fail("merge", "%s", err.msg);
  if (!rc) {
    cf_results_stamp(&s[0], argc, argv, 0, NULL);
    s[0].prov.shard[0] = 0;
    rc = cf_cli_results_write("merge", out, &s[0]);
  }
  if (!rc) {
    long points = 0;
    for (int r = 0; r < s[0].n; r++) points += cf_res_sweep_points(&s[0].recs[r].sweep);
    printf("merged %d shard files: %d recordings, %ld tasks -> %s\n", npos, s[0].n, points, out);
    if (json) {
      json_t *j = json_object();
      cf_cli_json_num(j, "shards", npos);
      cf_cli_json_num(j, "recordings", s[0].n);
      cf_cli_json_num(j, "tasks", points);
      cf_cli_json_str(j, "output", out);
      cf_cli_json_print(j);
    }
  }
  for (int i = 0; i < n; i++) cf_results_free(&s[i]);
  free(s);
  free(pos);
  return rc;
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  (void)opts;
  return run_argv(c->argc, c->argv);
}

const cf_cli_command cf_cli_cmd_merge = {
    .name = "merge",
    .summary = "join the results files of the shards of a sweep (sweep --shard I/N) into one",
    .help = cf_cli_help_merge,
    .run = run_cmd,
};
