/* test_slurm.c — a real Slurm (docs/cluster.md): starts a single-node
 * Slurm on this machine (scripts/slurm-local.sh: munged, slurmctld, slurmd
 * on localhost), submits the example job array experiments/slurm/
 * aero-sweep.sbatch (3 shards; element 0 submits the merge job with an
 * afterok dependency on the array) with sbatch, waits for the merged
 * results and checks they equal the single-process sweep bit for bit.
 * Needs root and Debian's slurm-wlm and munge (scripts/setup.sh installs
 * them).  usage: test_slurm CLOTHFIT_EXE SOURCE_ROOT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweepcmp.h"
#include "testutil.h"

static char dir[] = "/tmp/cf_slurm.XXXXXX";

static int file_in(const char *name) {
  char p[700];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: test_slurm CLOTHFIT_EXE SOURCE_ROOT\n"), 2;
  const char *exe = argv[1], *src = argv[2];
  CHECK(mkdtemp(dir), "mkdtemp");
  char rec[600], list[600], script[600], sbatch[600], slurmdir[600], out[600], ref[600];
  snprintf(rec, sizeof rec, "%s/rec.h5", dir);
  snprintf(list, sizeof list, "%s/study.ini", dir);
  snprintf(script, sizeof script, "%s/scripts/slurm-local.sh", src);
  snprintf(sbatch, sizeof sbatch, "%s/experiments/slurm/aero-sweep.sbatch", src);
  snprintf(slurmdir, sizeof slurmdir, "%s/slurm", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(ref, sizeof ref, "%s/ref.h5", dir);
  CHECK(cf_test_sweep_recording(rec) == 0, "writing %s", rec);
  FILE *f = fopen(list, "w");
  CHECK(f && fprintf(f, "[recordings]\nfiles = rec.h5\n") > 0 && fclose(f) == 0, "writing %s", list);
  char *grid[] = {"--delta-grid", "0.01:0.08:6", "--alpha-grid", "0.1:0.5:6"};
  char *single[] = {(char *)exe, "sweep", "--experiment", list, grid[0], grid[1], grid[2], grid[3], "--workers", "1",
                    "-o", ref, NULL};
  char *so = NULL, *se = NULL;
  CHECK(cf_test_run(single, dir, NULL, &se) == 0, "single sweep: %s", se ? se : "");
  free(se);
  /* Slurm up */
  char *start[] = {"/bin/bash", script, "start", slurmdir, NULL};
  se = NULL;
  int st = cf_test_run(start, dir, &so, &se);
  char *conf = so ? strstr(so, "SLURM_CONF=") : NULL;
  CHECK(st == 0 && conf, "%s start: status %d: %s", script, st, se ? se : "");
  if (st == 0 && conf) {
    conf[strcspn(conf, "\n")] = 0;
    setenv("SLURM_CONF", conf + strlen("SLURM_CONF="), 1);
    setenv("CLOTHFIT", exe, 1);
    setenv("LIST", list, 1);
    setenv("OUT", out, 1);
    char sb[600];
    CHECK(cf_test_find_program("sbatch", sb, sizeof sb), "sbatch not on PATH");
    char logs[700];
    snprintf(logs, sizeof logs, "--output=%s/slurm-%%A_%%a.out", dir);
    char *submit[] = {sb, "--array=0-2", logs, sbatch, grid[0], grid[1], grid[2], grid[3], NULL};
    char *o2 = NULL, *e2 = NULL;
    st = cf_test_run(submit, dir, &o2, &e2);
    CHECK(st == 0 && o2 && strstr(o2, "Submitted batch job"), "sbatch: status %d: %s%s", st, o2 ? o2 : "",
          e2 ? e2 : "");
    free(o2), free(e2);
    int waited = 0; /* the merge job runs after the three shards */
    while (st == 0 && waited < 1200 && !file_in("out/results.h5")) usleep(100000), waited++;
    CHECK(file_in("out/results.h5"), "no merged results after %d s (logs in %s)", waited / 10, out);
    for (int i = 0; i < 3; i++) {
      char sh[32];
      snprintf(sh, sizeof sh, "out/shard-%d.h5", i);
      CHECK(file_in(sh), "%s missing", sh);
    }
    if (file_in("out/results.h5")) same_sweep(dir, "ref.h5", "out/results.h5");
    printf("test_slurm: array of 3 shards and the merge job done in %.1f s\n", waited / 10.0);
  }
  free(so), free(se);
  char *stop[] = {"/bin/bash", script, "stop", slurmdir, NULL};
  cf_test_run(stop, dir, NULL, NULL);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (!cf_test_failures && system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return cf_test_done("test_slurm");
}
