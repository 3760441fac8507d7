/* h5util.h — small HDF5 helpers shared by the writers and readers of src/io
 * (attributes, whole datasets).  Each returns 1 on success, 0 on failure. */
#ifndef CF_H5UTIL_H
#define CF_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>

#include "cf_io.h"

int cf_h5_attr_double(hid_t obj, const char *name, double v);
int cf_h5_attr_int(hid_t obj, const char *name, int v);
int cf_h5_attr_string(hid_t obj, const char *name, const char *s);
/* A [n] double attribute. */
int cf_h5_attr_doubles(hid_t obj, const char *name, int n, const double *v);
int cf_h5_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data);

/* Readers.  A missing attribute leaves *v / buf unchanged and returns 0. */
int cf_h5_read_attr_double(hid_t obj, const char *name, double *v);
int cf_h5_read_attr_string(hid_t obj, const char *name, char *buf, size_t size);
/* A double attribute of exactly n values (scalar when n == 1) into v[n];
 * -1 when it exists with another size or type, 0 when it is missing. */
int cf_h5_read_attr_doubles(hid_t obj, const char *name, int n, double *v);
/* Read a whole dataset of rank `rank` as type; dims[] gets its shape and
 * *data a malloc'ed buffer (of at least one element). */
int cf_h5_read_dataset(hid_t loc, const char *name, hid_t type, int rank, hsize_t *dims, void **data);
/* A [n] dataset of variable-length UTF-8 strings. */
int cf_h5_strings(hid_t loc, const char *name, char *const *s, size_t n);
/* Read a [n] string dataset (variable- or fixed-length) into *out
 * (malloc'ed array of malloc'ed strings) and *n. */
int cf_h5_read_strings(hid_t loc, const char *name, char ***out, size_t *n);

/* The marker-processing groups of a recording file (markers_h5.c): the
 * lattice, weights, controlled markers, stick and /quality of r->proc. */
int cf_h5_write_markers(hid_t f, const cf_recording *r);
void cf_h5_read_markers(hid_t f, cf_recording *r);
#endif
