/* fit_cli.c — option parsing, values, progress, recordings and results
 * files for the fitting commands (fit_cli.h). */
#include "fit_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* ----------------------------------------------------------------- options */
static const cf_cli_opt *find_opt(const cf_cli_opt *opts, const char *arg, size_t len) {
  for (; opts->name; opts++)
    if (strlen(opts->name) == len && !strncmp(opts->name, arg, len)) return opts;
  return NULL;
}

int cf_cli_parse(const char *cmd, int argc, char **argv, const cf_cli_opt *opts, const char **pos, int max_pos,
                 int *n_pos) {
  *n_pos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *eq = strchr(a, '=');
    if (a[0] != '-' || !a[1]) {
      if (*n_pos >= max_pos) return cf_cli_fail(cmd, "unexpected argument '%s' (see --help)", a);
      pos[(*n_pos)++] = a;
      continue;
    }
    size_t len = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
    const cf_cli_opt *o = find_opt(opts, a, len);
    if (!o) return cf_cli_fail(cmd, "unknown option '%s' (see --help)", a);
    if (!o->value) {
      if (len != strlen(a)) return cf_cli_fail(cmd, "option %s takes no value (see --help)", o->name);
      *o->flag = 1;
    } else if (len != strlen(a)) {
      *o->value = a + len + 1;
    } else if (i + 1 < argc) {
      *o->value = argv[++i];
    } else {
      return cf_cli_fail(cmd, "option %s needs a value (see --help)", a);
    }
  }
  return 0;
}

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
  *prune = flag || margin ? 1 : 0;
  if (margin && !(cf_pipeline_parse_number(margin, prune) && *prune >= 1))
    return cf_cli_fail(cmd, "invalid --prune-margin '%s': expected a factor >= 1", margin);
  return 0;
}

int cf_cli_search(const char *cmd, const char *value, cf_fit_input *in, int n) {
  cf_error err = {0, ""};
  return said(cmd, cf_pipeline_search(value, in, n, &err), &err);
}

int cf_cli_regress_search(const char *cmd, const char *opt, const char *value, int *search) {
  *search = value ? cf_regress_search_parse(value) : CF_REGRESS_MODEL;
  return *search < 0 ? cf_cli_fail(cmd, "invalid %s '%s': expected model or nelder-mead", opt, value) : 0;
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
  for (int i = 0; v.rest == CF_PIPELINE_REST_AUTO && i < n; i++)
    if (in[i].tg.rest == CF_REST_FIRST_FRAME)
      fprintf(stderr, "clothfit %s: note: %s: the recording gives no cloth size (meta width_m, height_m), so the "
              "rest shape is its first frame's marker lattice, which a cloth that starts bent holds too short "
              "(ingest with --size; docs/models.md)\n", cmd, in[i].path);
  return 0;
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

/* b's running stage ends now: its time is added to its label's */
static void stage_time(cf_cli_bar *b) {
  if (b->current >= 0) b->seconds[b->current] += cf_now() - b->since;
  b->current = -1;
}

static void bar_stage(void *user, const char *label, long total) {
  cf_cli_bar *b = user;
  stage_time(b);
  if (!label) {
    cf_progress_end(&b->bar);
    return;
  }
  cf_progress_start(&b->bar, label, total);
  int k = 0;
  while (k < b->n_stages && strcmp(b->stage[k], label)) k++;
  if (k == b->n_stages && k < CF_CLI_STAGES) b->stage[b->n_stages++] = label;
  b->current = k < CF_CLI_STAGES ? k : -1, b->since = cf_now();
}

void cf_cli_bar_stages(cf_cli_bar *b) {
  memset(b, 0, sizeof *b);
  b->current = -1;
  b->pp = (cf_pipeline_progress){bar_stage, bar_update, bar_note, b};
}

void cf_cli_bar_json(const cf_cli_bar *b, json_t *o, const char *key) {
  json_t *t = cf_cli_json_object(o, key);
  for (int k = 0; k < b->n_stages; k++) cf_cli_json_num(t, b->stage[k], b->seconds[k]);
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

/* cf_cli_json_fields: each value as a member of the object */
static void field_num(void *j, const char *key, double v) { cf_cli_json_num(j, key, v); }
static void field_str(void *j, const char *key, const char *s) { cf_cli_json_str(j, key, s); }
static void field_bool(void *j, const char *key, int b) { cf_cli_json_bool(j, key, b); }
static void field_nums(void *j, const char *key, const double *v, int n) {
  if (n < 0) cf_cli_json_set(j, key, NULL);
  else cf_cli_json_nums(j, key, v, n);
}
static void field_words(void *j, const char *key, const char *text) {
  json_t *list = cf_cli_json_array(j, key);
  for (const char *p = text; *p;) {
    size_t l = strcspn(p, " ");
    json_array_append_new(list, json_stringn(p, l));
    p += l + (p[l] == ' ');
  }
}

cf_pipeline_fields cf_cli_json_fields(json_t *j) {
  return (cf_pipeline_fields){field_num, field_str, field_bool, field_nums, field_words, j};
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

/* ------------------------------------------------------------------- tasks */
int cf_cli_tasks_begin(const char *cmd, const cf_pipeline_task_opts *o, int argc, char **argv,
                       const char *const *files, int n, const char *config, cf_pipeline_tasks *t) {
  cf_error err = {0, ""};
  if (cf_pipeline_tasks_begin(o, argc, argv, files, n, config, t, &err)) return cf_cli_fail(cmd, "%s", err.msg);
  if (t->journal && cf_journal_torn(t->journal))
    fprintf(stderr, "clothfit %s: %s: dropped a record cut short by a crash (that task runs again)\n", cmd, t->path);
  if (t->journal && cf_journal_count(t->journal))
    fprintf(stderr, "clothfit %s: resuming from %s: %d finished tasks will not run again\n", cmd, t->path,
            cf_journal_count(t->journal));
  return 0;
}

int cf_cli_tasks_end(const char *cmd, cf_pipeline_tasks *t) {
  cf_error err = {0, ""};
  return cf_pipeline_tasks_end(t, &err) ? cf_cli_fail(cmd, "%s", err.msg) : 0;
}
