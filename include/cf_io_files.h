/* cf_io_files.h — small text inputs, HDF5 trajectories and atomic writes.
 * Part of the API of cf_io.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_IO_FILES_H
#define CF_IO_FILES_H

#include <stddef.h>
#include <stdio.h>
#include "cf_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ text inputs */
/* Small text inputs (INI configs, sidecar metadata, marker mapping files,
 * experiment lists) for every folder: read a whole file, rejecting binary
 * data, and run inih over it with line numbers. */

/* The whole of path as a NUL-terminated malloc'ed string; NULL with err set
 * (naming the file and, for binary data, the line) if it cannot be read, is
 * larger than 16 MB or is not text.  `what` completes "expected ..." in the
 * messages, e.g. "a small INI config". */
char *cf_text_slurp(const char *path, const char *what, cf_error *err);

/* Called for every key = value of an INI text, with its 1-based line;
 * returns 1 to go on, 0 (having filled err) to stop. */
typedef int (*cf_ini_key_fn)(void *user, const char *section, const char *key, const char *value, int line);
/* Parse the INI text (read from path) calling fn; CF_OK, or the handler's
 * error, or CF_EFORMAT "path:LINE: malformed line ..." for lines inih rejects. */
int cf_ini_parse_text(const char *path, const char *text, cf_ini_key_fn fn, void *user, cf_error *err);

/* A whole finite number (trailing blanks allowed); 0 if s is not one. */
int cf_text_double(const char *s, double *out);
/* Exactly n comma-separated finite numbers into out[n]; 0 if s is not that
 * (out may then be partly written). */
int cf_text_doubles(const char *s, int n, double *out);

/* ------------------------------------------------------------ HDF5 output */
/* A simulated trajectory: positions [T][n][3] at times [T] of a mesh with
 * n_nodes nodes and n_faces faces of nv (3 or 4) nodes.  Plain arrays, so
 * that this writer needs nothing of the simulator (src/study builds one
 * from a cf_mesh and cf_params: cf_trajectory_params).  Every pointer is
 * borrowed (input) and must stay valid during the call. */
typedef struct {
  int n_nodes, n_faces, nv;
  const double *rest;        /* [n*3] the mesh's rest positions */
  const int *faces;          /* [F*nv] 0-based node indices */
  int n_frames;
  const double *time;        /* [T] */
  const double *positions;   /* [T*n*3] */
  const double *violation;   /* [T] max relative constraint violation (may be NULL) */
  const int *iterations;     /* [T] projection iterations (may be NULL) */
  int n_params;              /* parameters written as root attributes, in this order */
  const char *const *param_names;
  const double *param_values;
  const char *config_text;   /* may be NULL */
  const char *scenario;      /* may be NULL */
  int n_sens;                /* sensitivities (0: none), written as /nodes/sensitivity/NAME [T][n][3] */
  const char *const *sens_names;
  const double *sens;        /* [n_sens][T*n*3]: dx/dNAME at every frame */
} cf_trajectory;

/* Write /time, /nodes/position (and /nodes/sensitivity/), /mesh/{rest,faces}, /diagnostics/ and root
 * attributes (clothfit_format, tool version, git revision, every parameter,
 * the config text).  Atomic. */
int cf_h5_write_trajectory(const char *path, const cf_trajectory *tr, cf_error *err);


/* ----------------------------------------------------- atomic writes */
/* Temporary name for atomic writes: "<path>.tmp.<pid>" into buf. */
void cf_io_tmpname(const char *path, char *buf, size_t size);
/* Create the folders leading to path (like mkdir -p of its dirname). */
int cf_io_ensure_parent(const char *path, cf_error *err);
/* Rename tmp over path (or remove tmp on failure when ok == 0). */
int cf_io_commit(const char *tmp, const char *path, int ok, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
