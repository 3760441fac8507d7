/* h5traj.c — simulated trajectories to HDF5 (SPEC §6 style), atomically. */
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cf_io.h"
#include "clothfit_version.h"
#include "h5util.h"

static int write_params(hid_t f, const cf_params *p) {
  return cf_h5_attr_double(f, "rho", p->rho) && cf_h5_attr_double(f, "delta", p->delta) &&
         cf_h5_attr_double(f, "alpha", p->alpha) && cf_h5_attr_double(f, "beta", p->beta) &&
         cf_h5_attr_double(f, "kappa", p->kappa) && cf_h5_attr_double(f, "ks", p->ks) &&
         cf_h5_attr_double(f, "g", p->g) && cf_h5_attr_double(f, "dt", p->dt) && cf_h5_attr_double(f, "tol", p->tol) &&
         cf_h5_attr_double(f, "max_iter", p->max_iter) && cf_h5_attr_double(f, "reuse_factor", p->reuse_factor) &&
         cf_h5_attr_double(f, "predictor", p->predictor);
}

static int write_body(hid_t f, const cf_trajectory *tr) {
  const cf_mesh *m = tr->mesh;
  char created[64];
  time_t now = time(NULL);
  strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  int ok = cf_h5_attr_string(f, "clothfit_format", "trajectory-1") &&
           cf_h5_attr_string(f, "clothfit_version", CLOTHFIT_VERSION) &&
           cf_h5_attr_string(f, "git_revision", CLOTHFIT_GIT_REVISION) && cf_h5_attr_string(f, "created", created) &&
           cf_h5_attr_string(f, "scenario", tr->scenario ? tr->scenario : "") &&
           cf_h5_attr_string(f, "config", tr->config_text ? tr->config_text : "") && write_params(f, tr->params);
  hsize_t T = (hsize_t)tr->n_frames, n = (hsize_t)m->n_nodes;
  hsize_t d1[1] = {T}, d3[3] = {T, n, 3}, dr[2] = {n, 3}, df[2] = {(hsize_t)m->n_elems, (hsize_t)m->nv};
  ok = ok && cf_h5_dataset(f, "time", H5T_NATIVE_DOUBLE, 1, d1, tr->time);
  hid_t g = H5Gcreate2(f, "nodes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = ok && g >= 0 && cf_h5_dataset(g, "position", H5T_NATIVE_DOUBLE, 3, d3, tr->positions);
  if (g >= 0) H5Gclose(g);
  g = H5Gcreate2(f, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = ok && g >= 0 && cf_h5_dataset(g, "rest", H5T_NATIVE_DOUBLE, 2, dr, m->x) &&
       cf_h5_dataset(g, "faces", H5T_NATIVE_INT, 2, df, m->elems);
  if (g >= 0) H5Gclose(g);
  g = H5Gcreate2(f, "diagnostics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = ok && g >= 0;
  if (ok && tr->violation) ok = cf_h5_dataset(g, "violation", H5T_NATIVE_DOUBLE, 1, d1, tr->violation);
  if (ok && tr->iterations) ok = cf_h5_dataset(g, "iterations", H5T_NATIVE_INT, 1, d1, tr->iterations);
  if (g >= 0) H5Gclose(g);
  return ok;
}

int cf_h5_write_trajectory(const char *path, const cf_trajectory *tr, cf_error *err) {
  char tmp[4096];
  int prc = cf_io_ensure_parent(path, err);
  if (prc) return prc;
  cf_io_tmpname(path, tmp, sizeof tmp);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return cf_error_set(err, CF_EIO, "%s: cannot create HDF5 file (is the folder writable?)", path);
  int ok = write_body(f, tr);
  ok = H5Fclose(f) >= 0 && ok;
  if (!ok) {
    cf_io_commit(tmp, path, 0, err);
    return cf_error_set(err, CF_EIO, "%s: writing the HDF5 trajectory failed", path);
  }
  return cf_io_commit(tmp, path, 1, err);
}
