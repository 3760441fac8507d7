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
static int number(const char *s, size_t len, double *v) {
  char buf[64], *end;
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, s, len);
  buf[len] = 0;
  errno = 0;
  *v = strtod(buf, &end);
  return *end == 0 && errno == 0 && isfinite(*v);
}

int cf_cli_parse_int(const char *s, int lo, int *v) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end == s || *end || errno || x < lo || x > 1000000) return 0;
  *v = (int)x;
  return 1;
}

int cf_cli_parse_grid(const char *spec, char axis, cf_pipeline_grid *g) {
  if (!spec) return *g = cf_pipeline_grid_default(axis), 1;
  const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2) return 0;
  char nbuf[32];
  size_t nl = strlen(c2 + 1);
  const char *star = strstr(c2 + 1, "*rho");
  g->per_rho = star && !strcmp(star, "*rho");
  if (g->per_rho) nl = (size_t)(star - (c2 + 1));
  if (nl == 0 || nl >= sizeof nbuf) return 0;
  memcpy(nbuf, c2 + 1, nl);
  nbuf[nl] = 0;
  return number(spec, (size_t)(c1 - spec), &g->lo) && number(c1 + 1, (size_t)(c2 - c1 - 1), &g->hi) &&
         cf_cli_parse_int(nbuf, 1, &g->n) && g->lo >= 0 && g->hi >= g->lo && (g->n > 1 || g->hi == g->lo) &&
         (g->n == 1 || g->hi > g->lo);
}

int cf_cli_grids(const char *cmd, const char *dspec, const char *aspec, cf_pipeline_grid *gd, cf_pipeline_grid *ga) {
  int bad_d = !cf_cli_parse_grid(dspec, 'd', gd), bad_a = !bad_d && !cf_cli_parse_grid(aspec, 'a', ga);
  if (!bad_d && !bad_a) return 0;
  return cf_cli_fail(cmd, "invalid --%s-grid '%s': expected A:B:N with 0 <= A < B and N >= 2 (or A:A:1), "
                     "optionally followed by *rho", bad_d ? "delta" : "alpha", bad_d ? dspec : aspec);
}

int cf_cli_mu_grid(const char *cmd, const char *spec, const cf_fit_input *in, int n, cf_pipeline_grid *g) {
  memset(g, 0, sizeof *g);
  if (!spec) return 0;
  if (!cf_cli_parse_grid(spec, 'm', g) || g->per_rho)
    return cf_cli_fail(cmd, "invalid --mu-grid '%s': expected A:B:N with 0 <= A < B and N >= 2 (or A:A:1)", spec);
  for (int i = 0; i < n; i++)
    if (!cf_fit_target_has_table(&in[i].tg))
      return cf_cli_fail(cmd, "%s: --mu-grid needs a table in the recording (/table: ingest with --table-height and "
                         "--table-extent): mu is the cloth's friction on it", in[i].path);
  return 0;
}

int cf_cli_parse_range(const char *s, double *a, double *b) {
  const char *c = strchr(s, ':');
  if (!c || !number(s, (size_t)(c - s), a)) return 0;
  if (!c[1]) *b = INFINITY;
  else if (!number(c + 1, strlen(c + 1), b)) return 0;
  return *a >= 0 && *b > *a;
}

int cf_cli_prune(const char *cmd, int flag, const char *margin, double *prune) {
  *prune = flag || margin ? 1 : 0;
  if (margin && !(number(margin, strlen(margin), prune) && *prune >= 1))
    return cf_cli_fail(cmd, "invalid --prune-margin '%s': expected a factor >= 1", margin);
  return 0;
}

int cf_cli_search(const char *cmd, const char *value, cf_fit_input *in, int n) {
  if (!value) return 0;
  int trust = !strcmp(value, "trust");
  if (!trust && strcmp(value, "nelder-mead"))
    return cf_cli_fail(cmd, "invalid --search '%s': expected trust or nelder-mead", value);
  for (int i = 0; i < n; i++) in[i].search = trust ? CF_SEARCH_TRUST : CF_SEARCH_NM;
  return 0;
}

int cf_cli_regress_search(const char *cmd, const char *opt, const char *value, int *search) {
  *search = value ? cf_regress_search_parse(value) : CF_REGRESS_MODEL;
  return *search < 0 ? cf_cli_fail(cmd, "invalid %s '%s': expected model or nelder-mead", opt, value) : 0;
}

int cf_cli_parse_pair(const char *s, double *a, double *b) {
  const char *c = strchr(s, ',');
  return c && number(s, (size_t)(c - s), a) && number(c + 1, strlen(c + 1), b) && *a >= 0 && *b >= 0;
}

/* --split N or RxC (each 1..CF_LATTICE_SPLIT_MAX) into *down and *across
 * (0 when it equals *down: a uniform mesh); 0 if malformed. */
static int parse_split(const char *s, int *down, int *across) {
  const char *x = strchr(s, 'x');
  char head[16];
  if (x && (size_t)(x - s) >= sizeof head) return 0;
  if (x) snprintf(head, sizeof head, "%.*s", (int)(x - s), s);
  *across = 0;
  if (!cf_cli_parse_int(x ? head : s, 1, down) || *down > CF_LATTICE_SPLIT_MAX) return 0;
  if (x && !(cf_cli_parse_int(x + 1, 1, across) && *across <= CF_LATTICE_SPLIT_MAX)) return 0;
  if (*across == *down) *across = 0;
  return 1;
}

int cf_cli_model_values(const char *cmd, const cf_cli_model *m, cf_pipeline_model *v) {
  static const char *const name[3] = {"kappa", "beta", "tol"}, *const rule[3] = {"K >= 0", "B >= 0", "0 < T < 1"};
  const char *s[3] = {m && m->kappa ? m->kappa : CF_CLI_FIT_KAPPA, m ? m->beta : NULL,
                      m && m->tol ? m->tol : CF_CLI_FIT_TOL};
  cf_pipeline_model_default(v);
  double *x[3] = {&v->kappa, &v->beta, &v->tol};
  for (int k = 0; k < 3; k++)
    if (s[k] && (!number(s[k], strlen(s[k]), x[k]) || *x[k] < 0 || (k == 2 && !(*x[k] > 0 && *x[k] < 1))))
      return cf_cli_fail(cmd, "invalid --%s '%s': expected a number with %s", name[k], s[k], rule[k]);
  if (m && m->max_iter && !cf_cli_parse_int(m->max_iter, 1, &v->max_iter))
    return cf_cli_fail(cmd, "invalid --max-iter '%s': expected a count >= 1", m->max_iter);
  v->mu_given = m && m->mu;
  if (v->mu_given && !(number(m->mu, strlen(m->mu), &v->mu) && v->mu >= 0))
    return cf_cli_fail(cmd, "invalid --mu '%s': expected a friction coefficient >= 0", m->mu);
  if (cf_cli_cloth_model(cmd, m, &v->cloth)) return 1;
  if (m && m->rest) {
    if (!strcmp(m->rest, "first-frame")) v->rest = CF_REST_FIRST_FRAME;
    else if (!strcmp(m->rest, "flat")) v->rest = CF_REST_FLAT;
    else if (!strcmp(m->rest, "size")) v->rest = CF_REST_SIZE;
    else return cf_cli_fail(cmd, "invalid --rest '%s': expected size, flat or first-frame", m->rest);
  }
  if (m && m->substeps && !(cf_cli_parse_int(m->substeps, 1, &v->substeps) && v->substeps <= 64))
    return cf_cli_fail(cmd, "invalid --substeps '%s': expected a count 1..64 (steps per recorded frame)", m->substeps);
  if (m && m->initial && strcmp(m->initial, "rest") && strcmp(m->initial, "moving"))
    return cf_cli_fail(cmd, "invalid --initial '%s': expected rest or moving", m->initial);
  v->start = m && m->initial && !strcmp(m->initial, "moving") ? CF_START_MOVING : CF_START_REST;
  if (m && m->split && !parse_split(m->split, &v->split, &v->split_cols))
    return cf_cli_fail(cmd, "invalid --split '%s': expected a count 1..%d (lattice cells split N x N) or RxC (split R "
                       "times down, C times across, each 1..%d)", m->split, CF_LATTICE_SPLIT_MAX, CF_LATTICE_SPLIT_MAX);
  return 0;
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
  cf_params_default(p);
  if (m && m->model && (p->model = cf_cloth_model_find(m->model)) < 0)
    return cf_cli_fail(cmd, "invalid --model '%s': expected inextensible, quasi-inextensible, elastic or mass-spring",
                       m->model);
  const char *s[3] = {m ? m->k_stretch : NULL, m ? m->k_shear : NULL, m ? m->k_bend : NULL};
  double *k[3] = {&p->k_stretch, &p->k_shear, &p->k_bend};
  static const char *const name[3] = {"k-stretch", "k-shear", "k-bend"};
  for (int j = 0; j < 3; j++)
    if (s[j] && !(number(s[j], strlen(s[j]), k[j]) && *k[j] > 0 && *k[j] < 1e9))
      return cf_cli_fail(cmd, "invalid --%s '%s': expected a stiffness in N/m, 0 < K < 1e9", name[j], s[j]);
  return 0;
}

int cf_cli_workers(const char *cmd, const char *s, int *workers) {
  *workers = 0;
  if (s && !cf_cli_parse_int(s, 0, workers))
    return cf_cli_fail(cmd, "invalid value '%s' for --workers (expected a count >= 0; 0 = all cores)", s);
  return 0;
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

void cf_cli_json_drive(json_t *j, const cf_res_rec *rec) {
  const cf_res_drive *d = &rec->drive;
  int known = isfinite(d->start_mean_m);
  cf_cli_json_num(j, "start_residual_mean_mm", 1e3 * d->start_mean_m);
  cf_cli_json_num(j, "start_residual_max_mm", 1e3 * d->start_max_m);
  cf_cli_json_num(j, "start_residual_marker", known ? d->start_marker : NAN);
  cf_cli_json_num(j, "held_noise_mm", 1e3 * d->noise_m);
  cf_cli_json_num(j, "held_smoothing_frames", known ? d->window : NAN);
  cf_cli_json_num(j, "held_smoothed_max_mm", 1e3 * d->smooth_max_m);
  cf_cli_json_num(j, "held_pulled_frames", known ? d->pulled_frames : NAN);
  cf_cli_json_num(j, "held_pull_max_mm", known ? 1e3 * d->pull_max_m : NAN);
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
