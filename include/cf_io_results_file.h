/* cf_io_results_file.h — results records read, written and queried.
 * Part of the API of cf_io.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_IO_RESULTS_FILE_H
#define CF_IO_RESULTS_FILE_H

#include <stddef.h>
#include <stdio.h>
#include "cf_common.h"
#include "cf_io_results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------ results records: reading, writing, queries */
void cf_results_init(cf_results *r);
void cf_results_free(cf_results *r);
/* The record named name, added (zeroed, NaN descriptors) when missing and
 * create is set; NULL if absent (or out of memory).  Pointers into r->recs
 * stay valid until the next call that creates one. */
cf_res_rec *cf_results_rec(cf_results *r, const char *name, int create);
/* Free the arrays of rec (sweep, fit path, series, map); keeps its name. */
void cf_res_rec_clear(cf_res_rec *rec);
/* Free the arrays of one part and zero it. */
void cf_res_sweep_clear(cf_res_sweep *s);
void cf_res_sens_clear(cf_res_sens *m);
void cf_res_series_clear(cf_res_series *s);
/* The optimum of rec: the refined one if any, else the sweep's best point;
 * 0 if neither. */
int cf_res_optimum(const cf_res_rec *rec, double *delta, double *alpha, double *e, double *s);
/* The thesis' own results a study prints beside its fits (thesis.c; the report's tables and the commands' show them): Table
 * 4.2, the WAM shakes of §4.1 (delta, alpha and the mean error e_i (4.3)
 * over the testing window, cm) of material "paper", "light-cotton", "felt"
 * or "wool" (case-insensitive) at speed "slow" or "fast": 1 with out[3] =
 * delta, alpha, e; 0 (out NaN) for another. */
int cf_thesis_table_42(const char *material, const char *speed, double out[3]);
/* §4.1.5, the remeshing check: the fitted parameters of the WAM shake of
 * material "light-cotton" at speed "fast" (case-insensitive) rerun on
 * meshes of rows x cols nodes (9 x 9, the fitting mesh, 9 x 17, 17 x 9,
 * 17 x 17) and the mean error over the testing window (cm): 1 with *e, 0
 * (*e NaN) for another recording or mesh. */
int cf_thesis_remesh(const char *material, const char *speed, int rows, int cols, double *e);
/* The row of m on the mesh its fit was made on (fit_reused), else 0: what
 * the others are compared with. */
int cf_res_remesh_reference(const cf_res_remesh *m);
/* How a fit of a synthetic recording (rec->fit against rec->truth_*)
 * recovers the truth: "yes" (delta and alpha within the fraction tol of
 * it), "interval" (each within tol or the truth inside the fit's 95 %
 * interval, as for a parameter the recording determines only loosely),
 * "no", or "" (no fit or no truth). */
const char *cf_res_truth_check(const cf_res_rec *c, double tol);
/* The model settings of that optimum (the fit's, else the sweep's). */
const cf_res_model *cf_res_optimum_model(const cf_res_rec *rec);
/* Points of a sweep, max(nm, 1) * nd * na, and the parameters of point k
 * (mu: the mu axis' value, or model.mu without one; any pointer may be NULL). */
int cf_res_sweep_points(const cf_res_sweep *w);
/* The (delta, alpha) surface of w at its mu value im (im < 0: the best
 * point's) as a sweep without a mu axis: a shallow view into w's arrays
 * (do not clear it), model.mu that value.  w itself when it has no mu axis. */
cf_res_sweep cf_res_sweep_layer(const cf_res_sweep *w, int im);
/* The mu of rec's optimum: fitted, else held by the fit, else the sweep's
 * best point's; NaN when the recording has no table. */
double cf_res_optimum_mu(const cf_res_rec *rec);
void cf_res_sweep_at(const cf_res_sweep *w, int k, double *delta, double *alpha, double *mu);
/* With a mu axis, the model setting mu := the best point's (a sweep's
 * results say which mu its optimum has there; after a sweep and after a
 * merge).  Without one, or without a best point, nothing changes. */
void cf_res_sweep_mu_of_best(cf_res_sweep *w);
/* "delta D alpha A[ mu M]" of grid point k into buf (output, size bytes;
 * mu only with a mu axis); returns buf.  The one way messages name a
 * point (failure warnings, merge's log). */
const char *cf_res_sweep_point_text(const cf_res_sweep *w, int k, char *buf, size_t size);
/* Which edges of the sweep's grid the point index ((im*nd + id)*na + ia) lies on:
 * CF_EDGE_* bits, 0 if inside (or index < 0).  An axis of one point is not
 * swept and has no edge.  A grid optimum on an edge may be an optimum of
 * the grid only: the true minimum can lie beyond it. */
enum { CF_EDGE_DELTA_LO = 1, CF_EDGE_DELTA_HI = 2, CF_EDGE_ALPHA_LO = 4, CF_EDGE_ALPHA_HI = 8, CF_EDGE_MU_LO = 16,
       CF_EDGE_MU_HI = 32 };
unsigned cf_res_sweep_edges(const cf_res_sweep *w, int index);
/* The settings of parts of files written before the settings were
 * recorded: kappa = beta = 0, tol = 1e-3, max_iter = 50 (the defaults of
 * those versions; fixed here, whatever the defaults are today). */
cf_res_model cf_res_model_default(void);
int cf_res_model_equal(const cf_res_model *a, const cf_res_model *b);
void cf_res_regression_clear(cf_res_regression *g);
/* Provenance of this run: version, revision, host, start time, command. */
void cf_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config_text);

/* The current time as ISO 8601 UTC (YYYY-MM-DDThh:mm:ssZ). */
void cf_iso_time_now(char *buf, size_t size);
/* The root attribute clothfit_format of an HDF5 file ("recording-1",
 * "results-1", "trajectory-1"; "" if it has none) into buf, so that a
 * reader of several kinds can choose; CF_EIO if path cannot be opened as
 * an HDF5 file. */
int cf_h5_file_format(const char *path, char *buf, size_t size, cf_error *err);
/* Read a results file (CF_EIO if missing or unreadable, CF_EFORMAT if not
 * a results file). */
int cf_results_read(const char *path, cf_results *r, cf_error *err);
/* Read path into r if it exists, else leave r empty (freshly initialized). */
int cf_results_read_or_new(const char *path, cf_results *r, cf_error *err);
/* Write atomically (fills the end time). */
int cf_results_write(const char *path, cf_results *r, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
