/* main.c — `clothfit <command> ...`: dispatch to the sub-commands; `clothfit help [COMMAND]`. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clothfit_version.h"
#include "cf_common.h"
#include "cf_fit.h"
#include "commands.h"
#include "fit_cli.h"

static const cf_command commands[] = {
    {"ingest",
     "read a motion-capture export (Motive CSV, generic CSV, mesh sequence, point clouds) into an HDF5 recording",
     cmd_ingest},
    {"inspect", "summarize an HDF5 recording (frames, dt, markers, missing data) or results file", cmd_inspect},
    {"simulate", "simulate a cloth from a config file, write trajectories to HDF5", cmd_simulate},
    {"synth", "make a synthetic Motive or depth-camera recording (simulated cloth, noise) + ground truth", cmd_synth},
    {"sweep", "grid search of (delta, alpha) per recording on all cores (Tables A.1, 4.5)", cmd_sweep},
    {"fit", "Nelder-Mead fit of (delta, alpha) with training/testing windows", cmd_fit},
    {"sensitivity", "error map around a parameter point (or 1-D scans)", cmd_sensitivity},
    {"compare", "fit the four cloth models of thesis Table 4.3 to a recording and compare them", cmd_compare},
    {"predict", "a-priori (delta, alpha) from size, speed and density (Table 4.9)", cmd_predict},
    {"regress", "fit the a-priori formulas (4.6)-(4.7) to a study's optima (Table 4.6)", cmd_regress},
    {"experiment", "run a whole study: ingest, sweep, fit, regress (experiment aero)", cmd_experiment},
    {"merge", "join the results files of the shards of a sweep (sweep --shard I/N) into one", cmd_merge},
    {"report", "tables (CSV, Markdown, LaTeX), gnuplot figures and an HTML page of a results file", cmd_report},
};
static const int n_commands = sizeof commands / sizeof commands[0];

int cf_cli_fail(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "clothfit %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

int cf_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

int cf_cli_config_args(int argc, char **argv, const char *help, const char **cfg, const char **out, int *json) {
  const char *cmd = argv[0];
  *cfg = *out = NULL;
  *json = 0;
  if (cf_cli_wants_help(argc, argv)) {
    fputs(help, stdout);
    return -1;
  }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) *out = argv[++i];
    else if (!strcmp(argv[i], "--json")) *json = 1;
    else if (argv[i][0] == '-') return cf_cli_fail(cmd, "unknown option or missing value: '%s' (see --help)", argv[i]);
    else if (!*cfg) *cfg = argv[i];
    else return cf_cli_fail(cmd, "unexpected argument '%s' (see --help)", argv[i]);
  }
  if (!*cfg) return cf_cli_fail(cmd, "missing CONFIG.ini (see --help)");
  return 0;
}

static void usage(FILE *f) {
  fprintf(f, "usage: clothfit <command> [options]   (clothfit help <command> or clothfit <command> --help: details)\n\n");
  for (int i = 0; i < n_commands; i++) fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

/* `clothfit help [COMMAND]`: the list above, or the command's own help text,
 * printed by the command itself run as `COMMAND --help` so that the two can
 * never differ (docs/commands.md is made from it, tests/test_help.c checks). */
static int help(int argc, char **argv) {
  if (argc < 3 || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h") || !strcmp(argv[2], "help")) {
    usage(stdout);
    return 0;
  }
  if (argc > 3) {
    fprintf(stderr, "clothfit help: expected one command name, got '%s %s...' (clothfit help lists them)\n", argv[2], argv[3]);
    return 2;
  }
  for (int i = 0; i < n_commands; i++)
    if (!strcmp(argv[2], commands[i].name)) {
      char opt[] = "--help";
      char *hargv[] = {argv[2], opt, NULL};
      return commands[i].run(2, hargv);
    }
  fprintf(stderr, "clothfit help: unknown command '%s' (clothfit help lists them)\n", argv[2]);
  return 2;
}

/* The commands that run under `mpirun -n N` (N > 1): those whose outputs
 * rank 0 alone writes: a results file (cf_cli_results_write), and for
 * experiment also the ingested recordings and the report. */
static int distributable(const char *name) {
  static const char *ok[] = {"sweep", "fit", "sensitivity", "regress", "experiment"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    if (!strcmp(name, ok[i])) return 1;
  return 0;
}

static int run_command(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "help")) return help(argc, argv);
  if (!strcmp(argv[1], "--version")) {
    printf("clothfit %s (%s)%s\n", CLOTHFIT_VERSION, CLOTHFIT_GIT_REVISION,
           cf_dist_available() ? ", with Open MPI" : ", without Open MPI");
    return 0;
  }
  for (int i = 0; i < n_commands; i++) {
    if (strcmp(argv[1], commands[i].name)) continue;
    if (cf_dist_size() > 1 && !distributable(argv[1]))
      return cf_cli_fail(argv[1], "does not run under mpirun with %d ranks (only sweep, fit, sensitivity, regress "
                         "and experiment do); run it without mpirun", cf_dist_size());
    return commands[i].run(argc - 1, argv + 1);
  }
  fprintf(stderr, "clothfit: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (cf_dist_init(&argc, &argv)) {
    fprintf(stderr, "clothfit: MPI_Init_thread failed\n");
    return 1;
  }
  /* Under mpirun every rank runs the command; rank 0 alone prints results
   * (the others' stderr stays, for errors only they meet). */
  if (cf_dist_rank() > 0 && !freopen("/dev/null", "w", stdout)) return 1;
  int rc = run_command(argc, argv);
  if (rc && cf_dist_size() > 1 && !cf_cli_status_is_collective()) {
    fflush(NULL);
    cf_dist_abort(rc); /* a rank that fails alone must not leave the others waiting */
  }
  cf_dist_finalize();
  return rc;
}
