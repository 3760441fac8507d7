/* commands.h — the `clothfit` sub-commands.  Each lives in its own
 * cmd_<name>.c and is a thin layer of argument parsing over the library:
 * it returns the process exit status (0 only on success) and prints errors
 * as one line "clothfit <cmd>: <message>" on stderr. */
#ifndef CF_COMMANDS_H
#define CF_COMMANDS_H

typedef struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cf_command;

int cmd_simulate(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
/* Fitting (shared helpers in fit_cli.h). */
int cmd_sweep(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_sensitivity(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_report(int argc, char **argv); /* cmd_report.c, over src/report */
int cmd_merge(int argc, char **argv);  /* cmd_merge.c: shards of a sweep into one results file */

/* `clothfit ingest meshes` and `ingest clouds` (ingest_meshes.c; their
 * options are read by the library, cf_pipeline.h "ingest"): their help and
 * the mesh or cloud lines of the summary (text; with j, members of the JSON
 * object j instead; nothing for a recording with neither). */
#include "json_out.h"
#include "cf_io.h"
#include "cf_recording.h"
#include "cf_sim.h"
#include "cf_fit.h"
#include "cf_synth.h"
#include "cf_study.h"
void cf_ingest_mesh_summary(const cf_recording *r, json_t *j);
extern const char *cf_ingest_mesh_help;

/* Marker processing and generic CSV for `clothfit ingest motive|csv` and
 * the report in `inspect` (ingest_markers.c; the options are read by the
 * library, cf_pipeline.h "ingest"): their help; the report of r->proc (text lines or JSON
 * members of j when j is not NULL) and a marker's cell, weight and filled
 * count (table columns, or members of j). */
void cf_cli_markers_report(const cf_recording *r, json_t *j);
/* The source export's frames against its header (r->exported): a text line
 * "export ..." or (j not NULL) the member "export" of j, null when not
 * recorded. */
void cf_cli_export_report(const cf_recording *r, json_t *j);
void cf_cli_marker_fields(const cf_recording *r, int k, json_t *j);
extern const char *cf_ingest_markers_help;

/* `inspect` of a results file (inspect_results.c): the summary as text,
 * and with json the JSON object on the last line; 0 or the exit status. */
int cf_cli_inspect_results(const char *path, int json);

/* Print "clothfit <cmd>: message" to stderr; returns 1 (the exit status). */
int cf_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if argv has --help or -h. */
int cf_cli_wants_help(int argc, char **argv);
/* The arguments of a command that runs one config, `CMD CONFIG [-o OUT]
 * [--json]` (argv[0] = CMD): 0 when parsed, -1 after printing help for
 * --help, 1 after printing an error. */
int cf_cli_config_args(int argc, char **argv, const char *help, const char **cfg, const char **out, int *json);
#endif
