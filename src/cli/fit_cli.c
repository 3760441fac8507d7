/* fit_cli.c — option parsing, values, progress, recordings and results
 * files for the fitting commands (fit_cli.h). */
#include "fit_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ values */
/* The library's parsers (cf_pipeline.h "options") with the error printed. */
static int said(const char *cmd, int rc, const cf_error *err) { return rc ? cf_cli_fail(cmd, "%s", err->msg) : 0; }

int cf_cli_grids(const char *cmd, const char *dspec, const char *aspec, cf_pipeline_grid *gd, cf_pipeline_grid *ga) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_grids(dspec, aspec, gd, ga, &err), &err);
}

int cf_cli_mu_grid(const char *cmd, const char *spec, const cf_fit_input *in, int n, cf_pipeline_grid *g) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_mu_grid(spec, in, n, g, &err), &err);
}

int cf_cli_prune(const char *cmd, int flag, const char *margin, double *prune) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_prune(flag, margin, prune, &err), &err);
}

int cf_cli_search(const char *cmd, const char *value, cf_fit_input *in, int n) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_search(value, in, n, &err), &err);
}

int cf_cli_regress_search(const char *cmd, const char *opt, const char *value, int *search) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_regress_search(opt, value, search, &err), &err);
}

int cf_cli_model_values(const char *cmd, const cf_cli_model *m, cf_pipeline_model *v) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_model_parse(m, v, &err), &err);
}

int cf_cli_model_apply(const char *cmd, const cf_cli_model *m, cf_fit_input *in, int n) {
  cf_pipeline_model v;
  cf_error err = {0, ""};
  if (cf_cli_model_values(cmd, m, &v)) return 1;
  if (cf_pipeline_model_apply(&v, in, n, &err)) return cf_cli_fail(cmd, "%s", err.msg);
  cf_cli_note_rest(cmd, &v, in, n);
  return 0;
}

void cf_cli_note_rest(const char *cmd, const cf_pipeline_model *v, const cf_fit_input *in, int n) {
  for (int i = 0; v->rest == CF_PIPELINE_REST_AUTO && i < n; i++)
    if (in[i].tg.rest == CF_REST_FIRST_FRAME)
      fprintf(stderr, "clothfit %s: note: %s: the recording gives no cloth size (meta width_m, height_m), so the "
              "rest shape is its first frame's marker lattice, which a cloth that starts bent holds too short "
              "(ingest with --size; docs/models.md)\n", cmd, in[i].path);
}

int cf_cli_cloth_model(const char *cmd, const cf_cli_model *m, cf_params *p) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_cloth_model(m, p, &err), &err);
}

int cf_cli_workers(const char *cmd, const char *s, int *workers) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_workers(s, workers, &err), &err);
}

/* ---------------------------------------------------------------- progress */
static void bar_update(void *user, long done) { cf_progress_update(&((cf_cli_bar *)user)->bar, done); }

static void bar_note(void *user, const char *text) {
  (void)user;
  fprintf(stderr, "clothfit: warning: %s\n", text);
}

static void bar_stage(void *user, const char *label, long total) {
  cf_cli_bar *b = user;
  if (!label) cf_progress_end(&b->bar);
  else cf_progress_start(&b->bar, label, total);
}

void cf_cli_bar_stages(cf_cli_bar *b) {
  memset(b, 0, sizeof *b);
  b->pp = (cf_pipeline_progress){bar_stage, bar_update, bar_note, b};
}

void cf_cli_bar_start(cf_cli_bar *b, const char *label, long total) {
  cf_cli_bar_stages(b);
  b->pp.stage = NULL; /* this one stage */
  cf_progress_start(&b->bar, label, total);
}

void cf_cli_bar_end(cf_cli_bar *b) { cf_progress_end(&b->bar); }

/* -------------------------------------------------------------- recordings */
int cf_cli_load_inputs(const char *cmd, const char *const *paths, int n, const cf_cli_model *m, cf_fit_input **in) {
  cf_pipeline_model v;
  cf_error err = {0, ""};
  *in = NULL;
  if (cf_cli_model_values(cmd, m, &v)) return 1;
  if (cf_pipeline_inputs_load(paths, n, &v, in, &err)) return cf_cli_fail(cmd, "%s", err.msg);
  cf_cli_note_driving(cmd, *in, n);
  return 0;
}
void cf_cli_note_driving(const char *cmd, const cf_fit_input *in, int n) {
  for (int i = 0; i < n && cf_dist_rank() == 0; i++) { /* under mpirun: once */
    cf_drive_fix f;
    if (cf_fit_input_drive_fix(&in[i], &f, NULL, 0)) continue; /* the commands report the recording's own error */
    if (f.frames > 0)
      fprintf(stderr, "clothfit %s: note: %s: the recorded top corners hold the cloth's top edge taut (or stretch it) "
              "on %d of %d frames; they are pulled together by at most %.3f mm (frame %d; docs/driving.md)\n",
              cmd, in[i].name, f.frames, in[i].tg.T, 1e3 * f.max_pull_m, f.worst_frame);
    if (f.start_max_m > CF_CLI_START_NOTE_M)
      fprintf(stderr, "clothfit %s: note: %s: no sheet of the model meets the first frame exactly: the start is the "
              "closest one, its markers %.2f mm from the recorded ones on average, %.2f mm at most (marker %d; "
              "docs/start.md)\n", cmd, in[i].name, 1e3 * f.start_mean_m, 1e3 * f.start_max_m, f.start_worst);
  }
}

void cf_cli_drive_text(const cf_res_rec *rec, char *buf, size_t size) {
  const cf_res_drive *d = &rec->drive;
  buf[0] = 0;
  if (!isfinite(d->start_mean_m)) return;
  int n = snprintf(buf, size, "start residual %.3f mm mean, %.3f mm largest (marker %d); held points: noise %.3f mm",
                   1e3 * d->start_mean_m, 1e3 * d->start_max_m, d->start_marker, 1e3 * d->noise_m);
  if (n >= 0 && (size_t)n < size)
    n += snprintf(buf + n, size - n, d->window > 1 ? ", smoothed over %d frames (largest move %.3f mm)" : ", not "
                  "smoothed", d->window, 1e3 * d->smooth_max_m);
  if (n >= 0 && (size_t)n < size && d->pulled_frames > 0)
    snprintf(buf + n, size - n, ", pulled onto the edge's reach on %d frames by at most %.3f mm (frame %d)",
             d->pulled_frames, 1e3 * d->pull_max_m, d->pull_frame);
}

/* cf_cli_json_fields: each value as a member of the object j, or an
 * element of the array j */
static void member(json_t *j, const char *key, json_t *v) {
  if (json_is_array(j)) json_array_append_new(j, v ? v : json_null());
  else cf_cli_json_set(j, key, v);
}
static void field_num(void *j, const char *key, double v) { member(j, key, cf_cli_json_number(v)); }
static void field_str(void *j, const char *key, const char *s) { member(j, key, cf_cli_json_string(s)); }
static void field_bool(void *j, const char *key, int b) { member(j, key, b < 0 ? json_null() : json_boolean(b)); }
static void field_nums(void *j, const char *key, const double *v, int n) {
  json_t *list = n < 0 ? NULL : json_array();
  for (int i = 0; i < n; i++) json_array_append_new(list, cf_cli_json_number(v[i]));
  member(j, key, list);
}
static void field_words(void *j, const char *key, const char *text) {
  json_t *list = json_array();
  for (const char *p = text; *p;) {
    size_t l = strcspn(p, " ");
    json_array_append_new(list, json_stringn(p, l));
    p += l + (p[l] == ' ');
  }
  member(j, key, list);
}
static void *field_open(void *j, const char *key, int array) {
  json_t *v = array ? json_array() : json_object();
  member(j, key, v);
  return v;
}

cf_pipeline_fields cf_cli_json_fields(json_t *j) {
  return (cf_pipeline_fields){field_num, field_str, field_bool, field_nums, field_words, field_open, j};
}

void cf_cli_json_drive(json_t *j, const cf_res_rec *rec) {
  cf_pipeline_fields f = cf_cli_json_fields(j);
  cf_pipeline_fields_drive(&f, rec);
}

/* ----------------------------------------------------------------- results */
int cf_cli_results_begin(const char *cmd, const char *out, cf_results *r, int argc, char **argv, int workers,
                         const char *config_text) {
  cf_error err = {0, ""};
  if (cf_pipeline_results_open(out, r, argc, argv, workers, config_text, &err))
    return cf_cli_fail(cmd, "%s (choose another -o file or remove it)", err.msg);
  return 0;
}

int cf_cli_results_write(const char *cmd, const char *out, cf_results *r) {
  cf_error err = {0, ""};
  return cf_pipeline_results_write(out, r, &err) ? cf_cli_fail(cmd, "%s", err.msg) : 0;
}

int cf_cli_outputs_begin(const cf_cli_call *c, const cf_pipeline_task_opts *o, const char *const *files, int n,
                         const char *config, int workers, cf_pipeline_tasks *tk, cf_results *res) {
  return cf_cli_tasks_begin(c->name, o, c->argc, c->argv, files, n, config, tk) ||
         cf_cli_results_begin(c->name, o->out, res, c->argc, c->argv, workers, config);
}

int cf_cli_outputs_end(const char *cmd, int rc, const char *out, cf_results *res, cf_pipeline_tasks *tk, int *resumed) {
  rc = rc || cf_cli_results_write(cmd, out, res);
  if (resumed) *resumed = cf_journal_used(tk->journal);
  return cf_cli_tasks_end(cmd, tk) || rc;
}

int cf_cli_run_recording(const cf_cli_call *c, void *opts, const cf_pipeline_task_opts *o, int workers,
                         cf_pipeline_tasks *tk, int *resumed, const cf_cli_recording_run *r) {
  cf_results res;
  cf_results_init(&res);
  int rc = cf_cli_outputs_begin(c, o, c->pos, 1, NULL, workers, tk, &res);
  cf_res_rec *rec = rc ? NULL : cf_cli_results_rec(c->name, &res, c->in->name);
  rc = rc || !rec || r->step(opts, c->in, rec);
  rc = cf_cli_outputs_end(c->name, rc, o->out, &res, tk, resumed);
  if (!rc) r->text(opts, rec);
  if (!rc && c->json) r->json(opts, rec);
  cf_results_free(&res);
  return rc;
}

cf_res_rec *cf_cli_results_rec(const char *cmd, cf_results *res, const char *name) {
  cf_res_rec *rec = cf_results_rec(res, name, 1);
  if (!rec) cf_cli_fail(cmd, "out of memory");
  return rec;
}

/* ------------------------------------------------------------------- tasks */
int cf_cli_tasks_begin(const char *cmd, const cf_pipeline_task_opts *o, int argc, char **argv,
                       const char *const *files, int n, const char *config, cf_pipeline_tasks *t) {
  cf_error err = {0, ""};
  if (cf_pipeline_tasks_begin(o, argc, argv, files, n, config, t, &err)) return cf_cli_fail(cmd, "%s", err.msg);
  cf_cli_tasks_notes(cmd, t);
  return 0;
}

void cf_cli_tasks_notes(const char *cmd, const cf_pipeline_tasks *t) {
  if (t->journal && cf_journal_torn(t->journal))
    fprintf(stderr, "clothfit %s: %s: dropped a record cut short by a crash (that task runs again)\n", cmd, t->path);
  if (t->journal && cf_journal_count(t->journal))
    fprintf(stderr, "clothfit %s: resuming from %s: %d finished tasks will not run again\n", cmd, t->path,
            cf_journal_count(t->journal));
}

int cf_cli_tasks_end(const char *cmd, cf_pipeline_tasks *t) {
  cf_error err = {0, ""};
  return cf_pipeline_tasks_end(t, &err) ? cf_cli_fail(cmd, "%s", err.msg) : 0;
}
