/* h5util.c — HDF5 attribute and dataset helpers (see h5util.h), and the
 * format attribute of a clothfit file (cf_h5_file_format, cf_io.h). */
#include "h5util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int attr_scalar(hid_t obj, const char *name, hid_t type, const void *v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = a < 0 ? -1 : H5Awrite(a, type, v);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return r >= 0;
}

int cf_h5_attr_double(hid_t obj, const char *name, double v) { return attr_scalar(obj, name, H5T_NATIVE_DOUBLE, &v); }

int cf_h5_attr_doubles(hid_t obj, const char *name, int n, const double *v) {
  hsize_t d = (hsize_t)n;
  hid_t sp = H5Screate_simple(1, &d, NULL);
  hid_t a = sp < 0 ? -1 : H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, v);
  if (a >= 0) H5Aclose(a);
  if (sp >= 0) H5Sclose(sp);
  return r >= 0;
}

int cf_h5_attr_int(hid_t obj, const char *name, int v) { return attr_scalar(obj, name, H5T_NATIVE_INT, &v); }

int cf_h5_attr_string(hid_t obj, const char *name, const char *s) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(s) + 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  H5Tset_cset(t, H5T_CSET_UTF8);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = a < 0 ? -1 : H5Awrite(a, t, s);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  return r >= 0;
}

int cf_h5_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                  const void *data) {
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t d = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = d < 0 ? -1 : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0) H5Dclose(d);
  H5Sclose(sp);
  return r >= 0;
}

int cf_h5_read_attr_double(hid_t obj, const char *name, double *v) {
  if (H5Aexists(obj, name) <= 0) return 0;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  herr_t r = a < 0 ? -1 : H5Aread(a, H5T_NATIVE_DOUBLE, v);
  if (a >= 0) H5Aclose(a);
  return r >= 0;
}

int cf_h5_read_attr_doubles(hid_t obj, const char *name, int n, double *v) {
  if (H5Aexists(obj, name) <= 0) return 0;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t sp = a < 0 ? -1 : H5Aget_space(a), t = a < 0 ? -1 : H5Aget_type(a);
  hssize_t np = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
  int ok = np == n && t >= 0 && H5Tget_class(t) == H5T_FLOAT && H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  if (a >= 0) H5Aclose(a);
  return ok ? 1 : -1;
}

/* A string attribute, fixed-length or variable-length, truncated to size. */
int cf_h5_read_attr_string(hid_t obj, const char *name, char *buf, size_t size) {
  if (size == 0 || H5Aexists(obj, name) <= 0) return 0;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t ft = a < 0 ? -1 : H5Aget_type(a);
  int ok = 0;
  if (ft >= 0 && H5Tget_class(ft) == H5T_STRING) {
    if (H5Tis_variable_str(ft) > 0) {
      char *s = NULL;
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      ok = H5Aread(a, mt, &s) >= 0 && s;
      if (ok) snprintf(buf, size, "%s", s);
      if (s) H5free_memory(s);
      H5Tclose(mt);
    } else {
      size_t n = H5Tget_size(ft);
      char *s = calloc(n + 1, 1);
      ok = s && H5Aread(a, ft, s) >= 0;
      if (ok) snprintf(buf, size, "%s", s);
      free(s);
    }
  }
  if (ft >= 0) H5Tclose(ft);
  if (a >= 0) H5Aclose(a);
  return ok;
}

int cf_h5_read_dataset(hid_t loc, const char *name, hid_t type, int rank, hsize_t *dims, void **data) {
  *data = NULL;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return 0;
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  hid_t sp = d < 0 ? -1 : H5Dget_space(d);
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == rank && H5Sget_simple_extent_dims(sp, dims, NULL) == rank;
  size_t n = 1;
  for (int i = 0; ok && i < rank; i++) n *= dims[i];
  if (ok) *data = malloc(H5Tget_size(type) * (n ? n : 1));
  ok = ok && *data && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) >= 0;
  if (!ok) free(*data), *data = NULL;
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  return ok;
}

static hid_t vlen_string_type(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

int cf_h5_strings(hid_t loc, const char *name, char *const *s, size_t n) {
  static char *none[1] = {NULL};
  hid_t t = vlen_string_type();
  hsize_t dims[1] = {n};
  int ok = cf_h5_dataset(loc, name, t, 1, dims, n ? (const void *)s : (const void *)none);
  H5Tclose(t);
  return ok;
}

static int copy_strings(char **raw, size_t n, size_t width, char ***out) {
  *out = calloc(n + 1, sizeof(char *));
  if (!*out) return 0;
  for (size_t i = 0; i < n; i++) {
    const char *s = width ? (const char *)raw + i * width : raw[i];
    (*out)[i] = width ? strndup(s, width) : strdup(s ? s : "");
    if (!(*out)[i]) return 0;
  }
  return 1;
}

int cf_h5_read_strings(hid_t loc, const char *name, char ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return 0;
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  hid_t sp = d < 0 ? -1 : H5Dget_space(d), ft = d < 0 ? -1 : H5Dget_type(d);
  hsize_t dims[1] = {0};
  int ok = sp >= 0 && ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_dims(sp, dims, NULL) == 1;
  int vlen = ok && H5Tis_variable_str(ft) > 0;
  size_t width = ok && !vlen ? H5Tget_size(ft) : 0;
  hid_t mt = vlen ? vlen_string_type() : ft;
  char **raw = ok ? calloc(dims[0] + 1, vlen ? sizeof(char *) : width + 1) : NULL;
  ok = ok && raw && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) >= 0;
  if (ok) {
    *n = dims[0];
    ok = copy_strings(raw, dims[0], width, out);
    if (vlen) H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, raw);
  }
  if (!ok && *out) {
    for (size_t i = 0; i < dims[0]; i++) free((*out)[i]);
    free(*out), *out = NULL, *n = 0;
  }
  free(raw);
  if (vlen) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  return ok;
}

int cf_h5_file_format(const char *path, char *buf, size_t size, cf_error *err) {
  if (size) buf[0] = 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return cf_error_set(err, CF_EIO, "%s: cannot open as an HDF5 file", path);
  cf_h5_read_attr_string(f, "clothfit_format", buf, size);
  H5Fclose(f);
  return CF_OK;
}
