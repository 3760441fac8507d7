/* cmd_report.c — `clothfit report RESULTS.h5 [-o DIR] [--frames T,...] [--workers N]
 * [--json]`: the report of a results file (src/report, docs/design.md §10): tables as
 * CSV, Markdown and LaTeX, figures drawn by gnuplot from scripts kept beside
 * them, report.md and a self-contained index.html.  Reads the results file
 * only; nothing is simulated (the 3-D snapshots use the markers the results
 * file stores at the optimum). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_report.h"
#include "commands.h"
#include "fit_cli.h"

static void print_text(const char *out, const cf_report_summary *s, int gnuplot) {
  printf("report            %s\n", s->index);
  printf("markdown          %s\n", s->markdown);
  printf("tables            %d (%s/tables/: .csv, .md, .tex)\n", s->tables, out);
  printf("figures           %d drawn of %d (%s/figures/)%s\n", s->figures, s->figures_planned, out,
         gnuplot ? "" : ": gnuplot not found");
}

static void print_json(const char *out, const cf_report_summary *s, int gnuplot) {
  json_t *j = json_object();
  cf_cli_json_str(j, "output", out);
  cf_cli_json_str(j, "index", s->index);
  cf_cli_json_str(j, "markdown", s->markdown);
  cf_cli_json_num(j, "tables", s->tables);
  cf_cli_json_num(j, "figures", s->figures);
  cf_cli_json_num(j, "figures_planned", s->figures_planned);
  cf_cli_json_num(j, "figures_failed", s->figures_failed);
  cf_cli_json_bool(j, "gnuplot", gnuplot != 0);
  cf_cli_json_print(j);
}

/* --frames T1,T2,...: times (s) >= 0 into t[]; 0, or the exit status
 * after a one-line error naming the value. */
static int parse_times(const char *spec, double *t, int *n) {
  *n = 0;
  for (const char *p = spec;; p++) {
    size_t len = strcspn(p, ",");
    char item[64], *end;
    snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
    double v = strtod(item, &end);
    if (!len || end == item || *end || !isfinite(v))
      return cf_cli_fail("report", "--frames: '%.*s' is not a time in seconds (e.g. --frames 1.2,2.4)", (int)len, p);
    if (v < 0) return cf_cli_fail("report", "--frames: '%s': a time before the start of the recording", item);
    if (*n == CF_REPORT_MAX_TIMES) return cf_cli_fail("report", "--frames: more than %d times", CF_REPORT_MAX_TIMES);
    t[(*n)++] = v;
    p += len;
    if (!*p) return 0;
  }
}

typedef struct {
  const char *out, *frames, *workers;
} report_opts;

static const cf_cli_option options[] = {CF_CLI_VALUE("-o", report_opts, out), CF_CLI_VALUE("--frames", report_opts, frames),
                                        CF_CLI_VALUE("--workers", report_opts, workers), CF_CLI_END};

/* The report folder: -o, else reports/NAME/ of the results file. */
static int report_dir(const char *out, const char *results, char *dir, size_t size) {
  if (out) {
    if (!out[0]) return cf_cli_fail("report", "-o: empty folder name");
    snprintf(dir, size, "%s", out);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/';) dir[--n] = 0;
  } else {
    char stem[256];
    cf_path_stem(results, stem, sizeof stem);
    snprintf(dir, size, "reports/%s", stem);
  }
  return 0;
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  const report_opts *o = opts;
  const char *path = c->pos[0];
  int nw = 0, n_times = 0;
  double times[CF_REPORT_MAX_TIMES];
  char dir[4096];
  if (cf_cli_workers("report", o->workers, &nw)) return 1;
  if (o->frames && parse_times(o->frames, times, &n_times)) return 1;
  if (report_dir(o->out, path, dir, sizeof dir)) return 1;
  cf_results r;
  cf_error err = {0, ""};
  if (cf_results_read(path, &r, &err)) return cf_cli_fail("report", "%s", err.msg);
  cf_report_summary s;
  int have_gnuplot = 0;
  int rc = cf_cli_report_write("report", path, &r, dir, nw, o->frames ? times : NULL, n_times, &s, &have_gnuplot);
  cf_results_free(&r);
  if (rc == 2) return 1; /* nothing written */
  print_text(dir, &s, have_gnuplot);
  if (c->json) print_json(dir, &s, have_gnuplot);
  fflush(stdout);
  return cf_cli_report_status("report", &s, have_gnuplot);
}

const cf_cli_command cf_cli_cmd_report = {
    .name = "report", .summary = "tables (CSV, Markdown, LaTeX), gnuplot figures and an HTML page of a results file",
    .help = cf_cli_help_report, .options = options, .opts_size = sizeof(report_opts), .max_pos = 1,
    .needs = "RESULTS.h5", .run = run_cmd};
