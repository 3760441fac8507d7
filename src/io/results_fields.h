/* results_fields.h — internal to results_h5.c / results_read.c: the
 * attributes of each part of a results file as tables (name, offset, kind),
 * so that the writer and the reader share one description. */
#ifndef CF_RESULTS_FIELDS_H
#define CF_RESULTS_FIELDS_H
#include <stddef.h>

#include "cf_io.h"

typedef struct {
  const char *name;
  size_t off;
  char kind;   /* 'd' double, 'i' int, 's' char[size] */
  size_t size;
} cf_res_field;

/* Terminated by a NULL name. */
extern const cf_res_field cf_res_rec_fields[], cf_res_sweep_fields[], cf_res_fit_fields[], cf_res_series_fields[],
    cf_res_sens_fields[], cf_res_reg_fields[], cf_res_prov_fields[], cf_res_compare_fields[],
    cf_res_compare_row_fields[], cf_res_remesh_fields[], cf_res_remesh_row_fields[];

/* A part made of rows (compare/: a cloth model a row; remesh/: a mesh a
 * row): the group's attributes (head), then a subgroup per row named by
 * the row's string field at name_off, in the order written (at most max). */
typedef struct {
  const char *group;
  const cf_res_field *head, *row;
  size_t row_size, name_off, name_size;
  int max;
} cf_res_rows;
extern const cf_res_rows cf_res_compare_rows, cf_res_remesh_rows;
#endif
