/* test_determinism.c — simulations are bitwise reproducible (docs/design.md §9:
 * sweeps and regressions compare runs).
 *
 * 1. Library: the A2 shake scenario (7x9 hanging quads, top corners shaken
 *    with A = 0.075 m, f = 0.6 Hz across the sheet, 300 steps) run twice in
 *    one process, with the heap scribbled over in between (so a read of
 *    uninitialized memory would show), gives bitwise identical positions
 *    after every step.
 * 2. CLI: `clothfit simulate` of experiments/shake_a2.ini shortened to 2 s,
 *    run twice, writes bitwise identical /nodes/position datasets, and
 *    they equal the in-process run of part 1 bit for bit.
 *
 * usage: test_determinism CLOTHFIT_EXE SOURCE_ROOT */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cf_sim.h"
#include "testutil.h"

extern char **environ;

enum { NX = 7, NY = 9, STEPS = 300 };

/* Run the scenario; positions of every step into traj[(STEPS+1)*n*3]. */
static int run_shake(double *traj) {
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(NX, NY, o, u, v, 1);
  if (!m) return -1;
  /* grid node (i,j) = j*nx + i, row j = ny-1 is the top edge (z = 0.594) */
  int kin[2] = {(NY - 1) * NX, NY * NX - 1};
  CHECK(m->x[3 * kin[0] + 2] == 0.594 && m->x[3 * kin[1] + 2] == 0.594 && m->x[3 * kin[1]] == 0.42,
        "kinematic nodes are not the top corners");
  cf_params p;
  cf_params_default(&p);
  cf_drive d = {CF_DRIVE_SHAKE, 0.075, 0.6, {0, 1, 0}};
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s != NULL, "cf_sim_alloc: %s", err.msg);
  if (!s) {
    cf_mesh_free(m);
    return -1;
  }
  int n = m->n_nodes, done = 0;
  double kin0[6], kp[6];
  for (int k = 0; k < 2; k++) memcpy(kin0 + 3 * k, m->x + 3 * kin[k], 3 * sizeof(double));
  memcpy(traj, cf_sim_x(s), sizeof(double) * 3 * n);
  for (int k = 1; k <= STEPS; k++) {
    cf_drive_eval(&d, 2, kin0, k * p.dt, kp);
    if (cf_sim_step(s, kp, &err) != CF_OK) {
      CHECK(0, "step %d: %s", k, err.msg);
      break;
    }
    memcpy(traj + (size_t)3 * n * k, cf_sim_x(s), sizeof(double) * 3 * n);
    done = k;
    /* the driven corners are exactly on the prescribed trajectory */
    CHECK(!memcmp(cf_sim_x(s) + 3 * kin[0], kp, 3 * sizeof(double)) &&
              !memcmp(cf_sim_x(s) + 3 * kin[1], kp + 3, 3 * sizeof(double)),
          "step %d: kinematic nodes off their trajectory", k);
  }
  cf_sim_stats st = cf_sim_get_stats(s);
  CHECK(st.max_violation <= p.tol, "max violation %g > tol", st.max_violation);
  cf_sim_free(s);
  cf_mesh_free(m);
  return done;
}

static void scribble_heap(void) {
  enum { NB = 64 };
  void *b[NB];
  for (int i = 0; i < NB; i++) {
    size_t sz = (size_t)(64 + 97 * i * i);
    b[i] = malloc(sz);
    if (b[i]) memset(b[i], 0xA5 ^ i, sz);
  }
  for (int i = 0; i < NB; i += 2) free(b[i]);
  for (int i = 1; i < NB; i += 2) free(b[i]);
}

/* ------------------------------------------------------------------ CLI */

static int run_cli(const char *exe, const char *cfg, const char *out, const char *dir) {
  char so[4096], se[4096];
  snprintf(so, sizeof so, "%s/stdout.txt", dir);
  snprintf(se, sizeof se, "%s/stderr.txt", dir);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, so, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, se, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {(char *)exe, "simulate", (char *)cfg, "-o", (char *)out, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    CHECK(0, "posix_spawn %s: %s", exe, strerror(rc));
    return -1;
  }
  int st;
  if (waitpid(pid, &st, 0) < 0) return -1;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    FILE *f = fopen(se, "r");
    char line[1024] = "";
    if (f) {
      if (!fgets(line, sizeof line, f)) line[0] = 0;
      fclose(f);
    }
    CHECK(0, "clothfit simulate exited with status %d: %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, line);
    return -1;
  }
  return 0;
}

/* Read /nodes/position [T][n][3]; returns malloc'ed data, dims in d. */
static double *read_positions(const char *path, hsize_t d[3]) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(f >= 0, "cannot open %s", path);
  if (f < 0) return NULL;
  double *buf = NULL;
  hid_t ds = H5Dopen2(f, "/nodes/position", H5P_DEFAULT);
  CHECK(ds >= 0, "%s: no /nodes/position", path);
  if (ds >= 0) {
    hid_t sp = H5Dget_space(ds);
    int rank = H5Sget_simple_extent_ndims(sp);
    CHECK(rank == 3, "%s: /nodes/position has rank %d", path, rank);
    if (rank == 3) {
      H5Sget_simple_extent_dims(sp, d, NULL);
      buf = malloc(sizeof(double) * d[0] * d[1] * d[2]);
      if (buf && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        CHECK(0, "%s: H5Dread failed", path);
        free(buf);
        buf = NULL;
      }
    }
    H5Sclose(sp);
    H5Dclose(ds);
  }
  H5Fclose(f);
  return buf;
}


static void test_cli(const char *exe, const char *root, const double *traj) {
  char src[4096], dir[] = "/tmp/cf_determinism.XXXXXX";
  snprintf(src, sizeof src, "%s/experiments/shake_a2.ini", root);
  char *ini = cf_test_slurp(src, NULL);
  CHECK(ini != NULL, "cannot read %s", src);
  if (!ini) return;
  CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
  char cfg[4200], a[4200], b[4200];
  snprintf(cfg, sizeof cfg, "%s/shake_2s.ini", dir);
  snprintf(a, sizeof a, "%s/a.h5", dir);
  snprintf(b, sizeof b, "%s/b.h5", dir);
  /* copy the config, replacing the duration line */
  FILE *f = fopen(cfg, "w");
  int replaced = 0;
  for (char *line = strtok(ini, "\n"); line; line = strtok(NULL, "\n")) {
    if (!strncmp(line, "duration", 8)) {
      fputs("duration = 2\n", f);
      replaced++;
    } else {
      fprintf(f, "%s\n", line);
    }
  }
  fclose(f);
  free(ini);
  CHECK(replaced == 1, "shake_a2.ini: %d duration lines", replaced);
  if (run_cli(exe, cfg, a, dir) == 0 && run_cli(exe, cfg, b, dir) == 0) {
    hsize_t da[3] = {0, 0, 0}, db[3] = {0, 0, 0};
    double *pa = read_positions(a, da), *pb = read_positions(b, db);
    CHECK(da[0] == 201 && da[1] == NX * NY && da[2] == 3, "a.h5: dims %llu x %llu x %llu",
          (unsigned long long)da[0], (unsigned long long)da[1], (unsigned long long)da[2]);
    CHECK(!memcmp(da, db, sizeof da), "a.h5 and b.h5 have different dims");
    if (pa && pb && !memcmp(da, db, sizeof da)) {
      size_t cnt = (size_t)(da[0] * da[1] * da[2]);
      CHECK(!memcmp(pa, pb, cnt * sizeof(double)), "two CLI runs differ");
      /* first differing frame, for the log */
      for (hsize_t t = 0; t < da[0]; t++)
        if (memcmp(pa + t * da[1] * 3, pb + t * da[1] * 3, sizeof(double) * da[1] * 3)) {
          fprintf(stderr, "first differing frame: %llu\n", (unsigned long long)t);
          break;
        }
      /* the CLI runs the same scenario as run_shake: same bits */
      if (da[0] == 201 && da[1] == NX * NY && da[2] == 3) {
        int diff = -1;
        for (int t = 0; t <= 200 && diff < 0; t++)
          if (memcmp(pa + (size_t)t * NX * NY * 3, traj + (size_t)t * NX * NY * 3, sizeof(double) * NX * NY * 3))
            diff = t;
        CHECK(diff < 0, "CLI trajectory differs from the library run from frame %d", diff);
      }
    }
    free(pa);
    free(pb);
  }
  remove(cfg);
  remove(a);
  remove(b);
  char p[4200];
  snprintf(p, sizeof p, "%s/stdout.txt", dir);
  remove(p);
  snprintf(p, sizeof p, "%s/stderr.txt", dir);
  remove(p);
  CHECK(rmdir(dir) == 0, "temporary folder %s not empty: %s", dir, strerror(errno));
}

int main(int argc, char **argv) {
  cf_runtime_init();
  size_t sz = sizeof(double) * 3 * NX * NY * (STEPS + 1);
  double *t1 = malloc(sz), *t2 = malloc(sz);
  memset(t1, 0, sz);
  memset(t2, 0xff, sz);
  int d1 = run_shake(t1);
  scribble_heap();
  int d2 = run_shake(t2);
  CHECK(d1 == STEPS && d2 == STEPS, "runs stopped at %d and %d steps", d1, d2);
  int first = -1;
  for (int k = 0; k <= STEPS && first < 0; k++)
    if (memcmp(t1 + (size_t)k * 3 * NX * NY, t2 + (size_t)k * 3 * NX * NY, sizeof(double) * 3 * NX * NY)) first = k;
  CHECK(first < 0, "library runs differ from step %d", first);
  /* the shake really moved the cloth (the test is not vacuous) */
  double ymax = 0;
  for (int k = 0; k <= STEPS; k++)
    for (int i = 0; i < NX * NY; i++) ymax = fmax(ymax, fabs(t1[(size_t)k * 3 * NX * NY + 3 * i + 1]));
  CHECK(ymax > 0.1, "max |y| over the run = %g, expected a 0.15 m shake", ymax);
  if (argc >= 3) test_cli(argv[1], argv[2], t1);
  else CHECK(0, "usage: %s CLOTHFIT_EXE SOURCE_ROOT", argv[0]);
  free(t1);
  free(t2);
  return cf_test_done("test_determinism");
}
