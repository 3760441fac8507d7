/* wam_short.c — the WAM study on a shortened dataset (wam_short.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "wam_short.h"

/* The frames of ROOT/datasets/wam-mini/recordings/NAME.meshes with t <
 * t_end (from the file names frame_CCCCCC_T.obj) linked into
 * dir/ds/NAME.meshes, and the sidecars linked beside. */
static void short_copy(const char *root, const char *dir, const char *name, double t_end) {
  char src[PATH_MAX + 200], dst[1200], a[PATH_MAX + 600], b[1600];
  snprintf(src, sizeof src, "%s/datasets/wam-mini/recordings/%s.meshes", root, name);
  snprintf(dst, sizeof dst, "%s/ds/%s.meshes", dir, name);
  mkdir(dst, 0755);
  DIR *d = opendir(src);
  CHECK(d != NULL, "cannot open %s", src);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d))) {
    const char *u = strrchr(e->d_name, '_');
    if (!u || !strstr(e->d_name, ".obj") || strtod(u + 1, NULL) >= t_end) continue;
    snprintf(a, sizeof a, "%s/%s", src, e->d_name), snprintf(b, sizeof b, "%s/%s", dst, e->d_name);
    n += symlink(a, b) == 0;
  }
  if (d) closedir(d);
  CHECK(n > 100, "%s: %d frames before %g s", name, n, t_end);
  static const char *ext[2] = {"meta.ini", "truth.ini"};
  for (int k = 0; k < 2; k++) {
    snprintf(a, sizeof a, "%s/datasets/wam-mini/recordings/%s.%s", root, name, ext[k]);
    snprintf(b, sizeof b, "%s/ds/%s.%s", dir, name, ext[k]);
    CHECK(symlink(a, b) == 0, "link %s", b);
  }
}

int cf_test_wam_study(const char *exe, const char *root, const char *dir, int broken, char **out, char **err) {
  char ds[700], res[700], path[800], abs_root[PATH_MAX];
  *out = *err = NULL;
  if (!realpath(root, abs_root)) { /* the links are absolute */
    CHECK(0, "%s: no such folder", root);
    return -1;
  }
  snprintf(ds, sizeof ds, "%s/ds", dir);
  CHECK(mkdir(ds, 0755) == 0, "cannot make %s", ds);
  short_copy(abs_root, dir, "light-cotton-fast", 4.0);
  short_copy(abs_root, dir, "paper-slow", 4.0);
  if (broken) {
    snprintf(path, sizeof path, "%s/broken.meshes", ds); /* no frames */
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/broken.meta.ini", ds);
    FILE *f = fopen(path, "w");
    if (f) fputs("density = 1\nsize = A3\n", f), fclose(f);
  }
  snprintf(res, sizeof res, "%s/wam.h5", dir);
  return cf_test_run_args(exe, dir, out, err, "experiment", "wam", "--dataset", ds, "-o", res, "--delta-grid",
                          "0.2:0.8:3*rho", "--alpha-grid", "1:3:3*rho", "--max-evals", "15", "--no-confidence",
                          "--workers", "1", NULL);
}
