/* cmd_merge.c — `clothfit merge SHARD.h5... -o RESULTS.h5`: the results
 * files of the shards of one `sweep --shard I/N` (e.g. the elements of a
 * Slurm job array) joined into one results file (docs/design.md §9; src/study's
 * shards.c does the joining). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

static const char *help =
    "usage: clothfit merge SHARD.h5... -o RESULTS.h5 [--json]\n"
    "\n"
    "Join the results files of the shards of one sweep (`clothfit sweep ...\n"
    "--shard I/N -o SHARD.h5`, I = 0..N-1, e.g. the elements of a Slurm job\n"
    "array) into one results file, equal to the sweep run at once.  Every task\n"
    "(grid point) must have been run by one shard: each missing task and each\n"
    "task two shards ran with different results is named on stderr, and then\n"
    "nothing is written (status 1).  A task two shards ran with the same\n"
    "results (a shard run twice) is a warning.  Shard files of different\n"
    "sweeps (recordings, grid, settings, clothfit version) are refused.\n"
    "\n"
    "  -o RESULTS.h5   the merged results file (written atomically)\n"
    "  --json          one JSON object on the last line\n";

int cmd_merge(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(help, stdout), 0;
  const char *out = NULL;
  int json = 0, npos = 0;
  const cf_cli_opt opts[] = {{"-o", &out, NULL}, {"--json", NULL, &json}, {NULL, NULL, NULL}};
  const char **pos = calloc((size_t)argc + 1, sizeof *pos);
  cf_results *s = calloc((size_t)argc + 1, sizeof *s);
  if (!pos || !s) return free(pos), free(s), cf_cli_fail("merge", "out of memory");
  int rc = cf_cli_parse("merge", argc, argv, opts, pos, argc, &npos);
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
