/* meshseq_write.c — writers of the depth-camera formats the mesh-sequence
 * readers take (meshseq_obj.c, meshseq_ply.c): one OBJ frame of a mesh,
 * one PLY frame of points (binary little endian or ascii), and a folder of
 * frames written whole (a temporary folder renamed into place). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_io.h"

int cf_obj_write_stream(FILE *f, const char *comment, int n, const double *x, int nv, int n_faces, const int *faces,
                        int decimals) {
  if (comment) fprintf(f, "# %s\n", comment);
  for (int k = 0; k < n; k++)
    fprintf(f, "v %.*f %.*f %.*f\n", decimals, x[3 * k], decimals, x[3 * k + 1], decimals, x[3 * k + 2]);
  for (int e = 0; e < n_faces; e++) {
    fputc('f', f);
    for (int a = 0; a < nv; a++) fprintf(f, " %d", faces[(size_t)nv * e + a] + 1);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

/* A float's bytes, least significant first, whatever the host's order. */
static void put_le32(FILE *f, float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
  fwrite(b, 1, 4, f);
}

int cf_ply_points_write_stream(FILE *f, const char *comment, int n, const double *p, int binary, int decimals) {
  fprintf(f, "ply\nformat %s 1.0\n", binary ? "binary_little_endian" : "ascii");
  if (comment) fprintf(f, "comment %s\n", comment);
  fprintf(f, "element vertex %d\nproperty float x\nproperty float y\nproperty float z\nend_header\n", n);
  for (int k = 0; k < n; k++) {
    if (binary)
      for (int a = 0; a < 3; a++) put_le32(f, (float)p[3 * k + a]);
    else fprintf(f, "%.*f %.*f %.*f\n", decimals, p[3 * k], decimals, p[3 * k + 1], decimals, p[3 * k + 2]);
  }
  return ferror(f) ? -1 : 0;
}

int cf_io_dir_begin(const char *dir, char *tmp, size_t size, cf_error *err) {
  cf_io_tmpname(dir, tmp, size);
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/x", tmp);
  if (cf_io_ensure_parent(probe, err)) return CF_EIO;
  return CF_OK;
}

/* Remove folder dir and its files if every name in it starts with prefix
 * (a folder an earlier run wrote); CF_EIO naming it otherwise. */
static int remove_old(const char *dir, const char *prefix, cf_error *err) {
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? CF_OK : cf_error_set(err, CF_EIO, "%s: cannot open: %s", dir, strerror(errno));
  struct dirent *e;
  int rc = CF_OK;
  char path[4600];
  while (!rc && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strncmp(e->d_name, prefix, strlen(prefix)))
      rc = cf_error_set(err, CF_EIO, "%s: holds %s, which this command did not write: remove the folder or write "
                        "elsewhere", dir, e->d_name);
  rewinddir(d);
  while (!rc && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (unlink(path)) rc = cf_error_set(err, CF_EIO, "%s: cannot remove: %s", path, strerror(errno));
    }
  closedir(d);
  if (!rc && rmdir(dir)) rc = cf_error_set(err, CF_EIO, "%s: cannot remove: %s", dir, strerror(errno));
  return rc;
}

int cf_io_dir_commit(const char *tmp, const char *dir, const char *prefix, int ok, cf_error *err) {
  if (ok && remove_old(dir, prefix, err)) ok = 0;
  if (ok && rename(tmp, dir))
    ok = 0, cf_error_set(err, CF_EIO, "%s: cannot rename %s into place: %s", dir, tmp, strerror(errno));
  if (!ok) remove_old(tmp, "", NULL);
  return ok ? CF_OK : CF_EIO;
}

int cf_io_dir_check(const char *dir, const char *prefix, cf_error *err) {
  DIR *d = opendir(dir);
  if (!d) return CF_OK;
  struct dirent *e;
  int rc = CF_OK;
  while (!rc && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strncmp(e->d_name, prefix, strlen(prefix)))
      rc = cf_error_set(err, CF_EIO, "%s: holds %s, which this command did not write: remove the folder or write "
                        "elsewhere", dir, e->d_name);
  closedir(d);
  return rc;
}
