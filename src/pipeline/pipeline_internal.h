/* pipeline_internal.h — what the files of src/pipeline share: src/fit's
 * progress callback fed into a cf_pipeline_progress from an offset (a stage
 * of several steps counts on), stages, and the sweep's task numbering. */
#ifndef CF_PIPELINE_INTERNAL_H
#define CF_PIPELINE_INTERNAL_H

#include "cf_pipeline.h"

typedef struct {
  const cf_pipeline_progress *pr;
  long offset; /* units of the stage done before the current step */
  cf_fit_progress fp;
} cf_pl_count;
/* c set up to report to pr from offset; &c->fp (NULL without pr). */
const cf_fit_progress *cf_pl_count_start(cf_pl_count *c, const cf_pipeline_progress *pr, long offset);
/* A stage of pr starts (label, total) or ends (label NULL). */
void cf_pl_stage(const cf_pipeline_progress *pr, const char *label, long total);
void cf_pl_update(const cf_pipeline_progress *pr, long done);
void cf_pl_note(const cf_pipeline_progress *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A sweep of this recording from offset units of the stage on (steps.c). */
int cf_pl_sweep(const cf_fit_input *in, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                const cf_pipeline_grid *gm, int t0, int t1, int workers, double prune, const cf_pipeline_progress *pr,
                long offset, cf_pipeline_tasks *tasks, cf_res_rec *rec, cf_error *err);
/* The stiffnesses, kappa and beta of the settings m (a fit's, held or
 * fitted there; may be NULL) held at pt (steps.c). */
void cf_pl_held_model(cf_fit_point *pt, const cf_res_model *m);
/* Number the next sweep's tasks and hand it the journal and the shard. */
void cf_pl_tasks_apply(cf_pipeline_tasks *t, cf_sweep_options *o);
#endif
