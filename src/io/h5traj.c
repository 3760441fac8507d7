/* h5traj.c — simulated trajectories to HDF5, atomically, in the style of
 * the recording layout (docs/design.md §6). */
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cf_io.h"
#include "clothfit_version.h"
#include "h5util.h"

static int write_params(hid_t f, const cf_trajectory *tr) {
  int ok = 1;
  for (int i = 0; ok && i < tr->n_params; i++) ok = cf_h5_attr_double(f, tr->param_names[i], tr->param_values[i]);
  return ok;
}

/* /nodes/sensitivity/NAME: dx/dNAME [T][n][3] per sensitivity. */
static int write_sens(hid_t nodes, const cf_trajectory *tr, const hsize_t d3[3]) {
  hid_t g = H5Gcreate2(nodes, "sensitivity", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0;
  size_t fr = (size_t)d3[0] * d3[1] * 3;
  for (int j = 0; ok && j < tr->n_sens; j++)
    ok = cf_h5_dataset(g, tr->sens_names[j], H5T_NATIVE_DOUBLE, 3, d3, tr->sens + fr * j);
  if (g >= 0) H5Gclose(g);
  return ok;
}

static int write_body(hid_t f, const cf_trajectory *tr) {
  char created[64];
  time_t now = time(NULL);
  strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  int ok = cf_h5_attr_string(f, "clothfit_format", "trajectory-1") &&
           cf_h5_attr_string(f, "clothfit_version", CLOTHFIT_VERSION) &&
           cf_h5_attr_string(f, "git_revision", CLOTHFIT_GIT_REVISION) && cf_h5_attr_string(f, "created", created) &&
           cf_h5_attr_string(f, "scenario", tr->scenario ? tr->scenario : "") &&
           cf_h5_attr_string(f, "config", tr->config_text ? tr->config_text : "") && write_params(f, tr);
  hsize_t T = (hsize_t)tr->n_frames, n = (hsize_t)tr->n_nodes;
  hsize_t d1[1] = {T}, d3[3] = {T, n, 3}, dr[2] = {n, 3}, df[2] = {(hsize_t)tr->n_faces, (hsize_t)tr->nv};
  ok = ok && cf_h5_dataset(f, "time", H5T_NATIVE_DOUBLE, 1, d1, tr->time);
  hid_t g = H5Gcreate2(f, "nodes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = ok && g >= 0 && cf_h5_dataset(g, "position", H5T_NATIVE_DOUBLE, 3, d3, tr->positions);
  if (ok && tr->n_sens > 0) ok = write_sens(g, tr, d3);
  if (g >= 0) H5Gclose(g);
  g = H5Gcreate2(f, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = ok && g >= 0 && cf_h5_dataset(g, "rest", H5T_NATIVE_DOUBLE, 2, dr, tr->rest) &&
       cf_h5_dataset(g, "faces", H5T_NATIVE_INT, 2, df, tr->faces);
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
