/* cf_io.h — the public API of src/io: files in and out.
 *
 * Everything here writes atomically: output goes to "<path>.tmp.<pid>" and
 * is renamed over <path> only when complete, so a failed or interrupted run
 * never leaves a half-written file behind.  Errors name the file, the line or
 * field, and what was expected.
 */
#ifndef CF_IO_H
#define CF_IO_H

#include <stddef.h>

#include "cf_common.h"
#include "cf_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- scenarios */
/* A simulation scenario read from an INI config file (see
 * experiments/shake_a2.ini for every key and its meaning). */
typedef struct {
  char name[128];
  /* cloth and mesh */
  double width, height;   /* m */
  char mesh_kind[32];     /* "quads" | "triangles" */
  int nx, ny;             /* nodes along width and height */
  double noise;           /* m, random perturbation of the initial nodes */
  unsigned long seed;
  char orientation[32];   /* "hanging" (plane xz, top edge at z = height) | "horizontal" */
  /* physics */
  cf_params params;
  double duration;        /* s */
  /* driving */
  char drive_nodes[64];   /* "top-corners" | "none" | "three-corners" | comma-separated node list */
  cf_drive drive;
  /* the whole config text, for provenance */
  char *text;
} cf_scenario;

/* Parse path into sc (defaults for missing keys); unknown sections/keys and
 * malformed values are errors naming file, line and key. */
int cf_scenario_load(const char *path, cf_scenario *sc, cf_error *err);
void cf_scenario_free(cf_scenario *sc);
/* Build the mesh and the list of kinematic nodes (*kin malloc'ed). */
int cf_scenario_mesh(const cf_scenario *sc, cf_mesh **mesh, int **kin, int *n_kin, cf_error *err);

/* ------------------------------------------------------------ HDF5 output */
/* A simulated trajectory: positions [T][n][3] at times [T]. */
typedef struct {
  const cf_mesh *mesh;
  int n_frames;
  const double *time;        /* [T] */
  const double *positions;   /* [T*n*3] */
  const double *violation;   /* [T] max relative constraint violation (may be NULL) */
  const int *iterations;     /* [T] projection iterations (may be NULL) */
  const cf_params *params;
  const char *config_text;   /* may be NULL */
  const char *scenario;      /* may be NULL */
} cf_trajectory;

/* Write /time, /nodes/position, /mesh/{rest,faces}, /diagnostics/ and root
 * attributes (clothfit_format, tool version, git revision, every parameter,
 * the config text).  Atomic. */
int cf_h5_write_trajectory(const char *path, const cf_trajectory *tr, cf_error *err);

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
