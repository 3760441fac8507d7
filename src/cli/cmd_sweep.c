/* cmd_sweep.c — `clothfit sweep REC.h5... [-o results.h5] ...`: the grid
 * search of thesis §4.2.2 (docs/design.md §8) per recording, on all cores, with the
 * Table A.1 and Table 4.5 summaries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

typedef struct {
  const char *out, *workers, *window, *dgrid, *agrid, *mgrid, *experiment, *shard, *prune_margin;
  cf_cli_model model;
  int prune, restart, confidence;
  double pruning; /* cf_cli_prune */
  cf_pipeline_grid gd, ga, gm;
  double w0, w1;
  int nw;
} sweep_args;

static const cf_cli_option options[] = {
    CF_CLI_VALUE("-o", sweep_args, out),                CF_CLI_VALUE("--workers", sweep_args, workers),
    CF_CLI_VALUE("--window", sweep_args, window),       CF_CLI_VALUE("--delta-grid", sweep_args, dgrid),
    CF_CLI_VALUE("--alpha-grid", sweep_args, agrid),    CF_CLI_VALUE("--mu-grid", sweep_args, mgrid),
    CF_CLI_VALUE("--experiment", sweep_args, experiment), CF_CLI_FLAG("--prune", sweep_args, prune),
    CF_CLI_VALUE("--prune-margin", sweep_args, prune_margin), CF_CLI_VALUE("--shard", sweep_args, shard),
    CF_CLI_FLAG("--restart", sweep_args, restart),      CF_CLI_FLAG("--confidence", sweep_args, confidence),
    CF_CLI_MODEL_OPTIONS(sweep_args, model),            CF_CLI_END};

static int check_values(const cf_cli_call *c, void *opts) {
  (void)c;
  sweep_args *a = opts;
  if (cf_cli_grids("sweep", a->dgrid, a->agrid, &a->gd, &a->ga) ||
      cf_cli_prune("sweep", a->prune, a->prune_margin, &a->pruning))
    return 1;
  if (a->confidence && a->shard)
    return cf_cli_fail("sweep", "--confidence needs the whole grid: not with --shard (use fit on the merged optimum)");
  a->w0 = 0, a->w1 = INFINITY;
  if (a->window && !cf_pipeline_parse_range(a->window, &a->w0, &a->w1))
    return cf_cli_fail("sweep", "invalid --window '%s': expected T0:T1 in seconds with 0 <= T0 < T1", a->window);
  return cf_cli_workers("sweep", a->workers, &a->nw);
}

/* Recordings named on the command line, then those of --experiment. */
static int collect(sweep_args *a, const char **pos, int npos, const char ***paths, int *n, char **files_store[],
                   int *nfiles, char **text) {
  *files_store = NULL, *nfiles = 0, *text = NULL;
  cf_error err = {0, ""};
  if (a->experiment && cf_experiment_load(a->experiment, files_store, nfiles, text, &err))
    return cf_cli_fail("sweep", "%s", err.msg);
  *paths = malloc(sizeof(char *) * (npos + *nfiles + 1));
  if (!*paths) return cf_cli_fail("sweep", "out of memory");
  memcpy(*paths, pos, sizeof(char *) * npos);
  for (int i = 0; i < *nfiles; i++) (*paths)[npos + i] = (*files_store)[i];
  *n = npos + *nfiles;
  if (*n == 0) return cf_cli_fail("sweep", "missing REC.h5 (see --help)");
  return 0;
}

static int run_all(const sweep_args *a, cf_fit_input *in, int n, cf_pipeline_tasks *tk, cf_results *res) {
  for (int i = 0; i < n; i++) {
    int t0, t1;
    cf_pipeline_window_frames(&in[i], a->w0, a->w1, &t0, &t1);
    if (t1 - t0 < 2)
      return cf_cli_fail("sweep", "%s: the window %s holds %d frame(s) of a %.3f s recording", in[i].path, a->window,
                         t1 - t0 > 0 ? t1 - t0 : 0, in[i].duration);
  }
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_stages(&bar);
  int rc = cf_pipeline_sweep_all(in, n, &a->gd, &a->ga, &a->gm, a->w0, a->w1, a->nw, a->pruning, tk, &bar.pp, res,
                                 &err);
  return rc ? cf_cli_fail("sweep", "%s", err.msg) : 0;
}

/* Intervals around each recording's best grid point (--confidence). */
static int confidence(const sweep_args *a, cf_fit_input *in, int n, cf_pipeline_tasks *tk, cf_results *res) {
  cf_error err = {0, ""};
  if (cf_pipeline_sweep_confidence(in, n, a->w0, a->w1, a->nw, cf_pipeline_tasks_kept(tk), res, &err))
    return cf_cli_fail("sweep", "%s", err.msg);
  return 0;
}

/* A results view of this run's recordings (shallow copies). */
static cf_results view_of(const cf_results *res, const cf_fit_input *in, int n) {
  cf_results v;
  cf_results_init(&v);
  v.recs = calloc((size_t)n + 1, sizeof *v.recs);
  for (int i = 0; v.recs && i < n; i++) {
    const cf_res_rec *r = cf_results_rec((cf_results *)res, in[i].name, 0);
    if (r) v.recs[v.n] = *r, v.recs[v.n++].has_fit = 0; /* the grid's best, not an older fit */
  }
  return v;
}

/* The points of each recording that failed or were pruned. */
static void point_counts_text(const cf_results *v) {
  for (int i = 0; i < v->n; i++) {
    const cf_res_sweep *w = &v->recs[i].sweep;
    int failed = 0, pruned = 0, other = 0;
    int np = cf_res_sweep_points(w);
    for (int k = 0; k < np; k++)
      other += w->status[k] == CF_ENOTRUN, failed += cf_pipeline_point_failed(w->status[k]),
          pruned += w->pruned[k];
    if (failed || pruned || (w->best < 0 && !other))
      printf("  %s: %d of %d points failed, %d pruned%s\n", v->recs[i].name, failed, np - other, pruned,
             w->best < 0 ? ", no valid point" : "");
  }
}

static void print_text(const sweep_args *a, const cf_results *v, const cf_pipeline_tasks *tk) {
  cf_cli_table_a1(v);
  point_counts_text(v);
  for (int i = 0; i < v->n; i++) {
    char conf[512];
    cf_cli_conf_text(&v->recs[i].sweep.conf, conf, sizeof conf);
    if (conf[0]) printf("  %s: %s\n", v->recs[i].name, conf);
  }
  if (tk->shard_n)
    printf("  shard %d/%d: %ld of the tasks ran here; `clothfit merge` joins the shards\n", tk->shard_i, tk->shard_n,
           tk->resumed + tk->ran);
  cf_cli_warn_failures("sweep", v, a->out);
  int failed = cf_cli_n_failed(v);
  if (failed)
    fprintf(stderr, "clothfit sweep: warning: %d of %d recordings have no valid grid point (every simulation "
            "failed)\n", failed, v->n);
  cf_cli_warn_grid_edges("sweep", v);
  printf("\n");
  cf_cli_table_45(v);
  if (a->out) printf("\nresults: %s\n", a->out);
}

static void print_json(const sweep_args *a, const cf_results *v, const cf_pipeline_tasks *tk) {
  json_t *j = json_object();
  cf_cli_json_recordings(j, v);
  cf_cli_json_failure_totals(j, v);
  cf_cli_json_num(j, "tasks_resumed", tk->resumed);
  cf_cli_json_num(j, "tasks_run", tk->ran);
  cf_cli_json_str(j, "output", a->out);
  cf_cli_json_print(j);
}

/* The recordings, their journal and results file, the sweep and its
 * intervals; rc the status so far. */
static int sweep(const cf_cli_call *c, sweep_args *a, const char **paths, int n, const char *text, cf_fit_input **in,
                 cf_pipeline_tasks *tk, cf_results *res) {
  int rc = cf_cli_load_inputs("sweep", paths, n, &a->model, in) || cf_cli_mu_grid("sweep", a->mgrid, *in, n, &a->gm) ||
           cf_cli_outputs_begin(c, &(cf_pipeline_task_opts){a->out, a->shard, a->restart}, paths, n, text, a->nw, tk,
                                res);
  if (!rc) {
    snprintf(res->prov.shard, sizeof res->prov.shard, "%s", tk->shard_n ? a->shard : "");
    snprintf(res->prov.task_key, sizeof res->prov.task_key, "%016llx", tk->key);
    rc = run_all(a, *in, n, tk, res) || (a->confidence && confidence(a, *in, n, tk, res));
  }
  return cf_cli_outputs_end("sweep", rc, a->out, res, tk, NULL);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  sweep_args *a = opts;
  const char **paths = NULL;
  char **files = NULL, *text = NULL;
  int n = 0, nfiles = 0;
  cf_fit_input *in = NULL;
  cf_results res;
  cf_results_init(&res);
  cf_pipeline_tasks tk;
  memset(&tk, 0, sizeof tk);
  int rc = collect(a, c->pos, c->n_pos, &paths, &n, &files, &nfiles, &text) ||
           sweep(c, a, paths, n, text, &in, &tk, &res);
  if (!rc) {
    cf_results v = view_of(&res, in, n);
    print_text(a, &v, &tk);
    if (c->json) print_json(a, &v, &tk);
    free(v.recs);
  }
  cf_results_free(&res);
  cf_pipeline_inputs_free(in, n);
  cf_strings_free(files, nfiles);
  free(text);
  free(paths);
  return rc;
}

const cf_cli_command cf_cli_cmd_sweep = {
    .name = "sweep", .summary = "grid search of (delta, alpha) per recording on all cores (Tables A.1, 4.5)",
    .help = cf_cli_help_sweep, .options = options, .opts_size = sizeof(sweep_args), .max_pos = -1,
    .check = check_values, .mpi = 1, .run = run_cmd};
