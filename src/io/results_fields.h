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
    cf_res_compare_row_fields[];
#endif
