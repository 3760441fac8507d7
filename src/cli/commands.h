/* commands.h — the `clothfit` sub-commands as a table.
 *
 * Each command is one cf_cli_command in its own cmd_<name>.c (its name,
 * its one-line summary, its help text from src/cli/help/<name>.txt, its
 * option table and its run function) and one line CF_CLI_COMMAND(name) in
 * command_list.h, the table `clothfit` dispatches on (main.c).  The shared
 * prologue (command.c, cf_cli_command_run) prints the help for --help or
 * -h, parses the options into the command's options struct (zeroed first),
 * takes --json for every command, checks the words that are not options,
 * and loads the recordings when the command asks; then it calls run.  A
 * command without an option table (ingest, whose options the library
 * reads) gets argv as it is, --json included.
 *
 * Every command returns the process exit status (0 only on success) and
 * prints each error as one line "clothfit <cmd>: <message>" on stderr
 * (cf_cli_fail); its text output goes to stdout and, with --json, one JSON
 * object on the last line of stdout (json_out.h), printed by a function of
 * its own after the text.  Nothing here holds state between calls. */
#ifndef CF_COMMANDS_H
#define CF_COMMANDS_H

#include <stddef.h>

#include "json_out.h"
#include "cf_io.h"
#include "cf_recording.h"
#include "cf_sim.h"
#include "cf_fit.h"
#include "cf_synth.h"
#include "cf_study.h"
#include "cf_pipeline.h"
#include "help_texts.h"

/* ----------------------------------------------------------------- options */
/* One option of a command: its name ("--workers", "-o"), where it goes in
 * the command's options struct (offset), and whether it is a flag (an int
 * set to 1) or takes a value (a const char * set to the word after it, or
 * after '=' in "--name=value"). */
typedef struct {
  const char *name;
  size_t offset;
  int flag;
} cf_cli_option;
#define CF_CLI_VALUE(name, type, member) {name, offsetof(type, member), 0}
#define CF_CLI_FLAG(name, type, member) {name, offsetof(type, member), 1}
#define CF_CLI_END {NULL, 0, 0}

/* Parse argv[1..] against opts (a NULL name ends it) into the struct at
 * base; --json sets *json; other words go to pos[] (*n_pos of at most
 * max_pos).  0, or 1 after printing the one-line error (an unknown option,
 * a flag given a value, a value missing, a word too many). */
int cf_cli_parse(const char *cmd, int argc, char **argv, const cf_cli_option *opts, void *base, int *json,
                 const char **pos, int max_pos, int *n_pos);

/* Print "clothfit <cmd>: message" to stderr; returns 1 (the exit status). */
int cf_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if argv has --help or -h. */
int cf_cli_wants_help(int argc, char **argv);

/* ---------------------------------------------------------------- commands */
/* What the prologue hands a command's run: the command line (argv[0] =
 * the command's name; provenance and journal keys use it), the words that
 * are not options (pos[0..n_pos), borrowed), --json, and with `loads` the
 * recordings pos[] loaded with the command's model settings (in[n_pos],
 * owned and freed by the prologue). */
typedef struct {
  const char *name;
  int argc;
  char **argv;
  const char **pos;
  int n_pos;
  int json;
  cf_fit_input *in;
} cf_cli_call;

typedef struct {
  const char *name, *summary; /* `clothfit help` lists them */
  const char *help;           /* the --help text (src/cli/help/<name>.txt) */
  /* The options (CF_CLI_END ends them; --json is every command's), parsed
   * into a zeroed struct of opts_size bytes; NULL: run reads argv itself
   * (ingest, whose options the library reads) and gets opts NULL. */
  const cf_cli_option *options;
  size_t opts_size;
  int max_pos;         /* words that are not options, at most (-1: any number) */
  const char *needs;   /* not NULL: at least one such word, else "missing <needs> (see --help)" */
  /* Checks after the parse (may be NULL): 0, or 1 after the error line. */
  int (*check)(const cf_cli_call *c, void *opts);
  /* Non-zero: the words are recordings, loaded (cf_cli_load_inputs) with
   * the cf_cli_model at model_offset in opts, after check. */
  int loads;
  size_t model_offset;
  int mpi; /* runs under mpirun -n N > 1 (rank 0 alone writes its outputs) */
  int (*run)(const cf_cli_call *c, void *opts);
} cf_cli_command;

/* The prologue: help, parse, check, load, then c->run; the exit status. */
int cf_cli_command_run(const cf_cli_command *c, int argc, char **argv);

/* The table (command_list.h), in the order `clothfit help` lists it. */
#define CF_CLI_COMMAND(name) extern const cf_cli_command cf_cli_cmd_##name;
#include "command_list.h"
#undef CF_CLI_COMMAND

/* ------------------------------------------------------ ingest and inspect */
/* The mesh or cloud lines of a recording's summary (ingest_meshes.c; text,
 * or with j members of the JSON object j instead; nothing for a recording
 * with neither). */
void cf_ingest_mesh_summary(const cf_recording *r, json_t *j);

/* Marker processing for `clothfit ingest motive|csv` and the report in
 * `inspect` (ingest_markers.c; the options are read by the library,
 * cf_pipeline.h "ingest"): the report of r->proc (text lines or JSON
 * members of j when j is not NULL) and a marker's cell, weight and filled
 * count (table columns, or members of j). */
void cf_cli_markers_report(const cf_recording *r, json_t *j);
/* The source export's frames against its header (r->exported): a text line
 * "export ..." or (j not NULL) the member "export" of j, null when not
 * recorded. */
void cf_cli_export_report(const cf_recording *r, json_t *j);
void cf_cli_marker_fields(const cf_recording *r, int k, json_t *j);

/* `inspect` of a results file (inspect_results.c): the summary as text,
 * and with json the JSON object on the last line; 0 or the exit status. */
int cf_cli_inspect_results(const char *path, int json);
#endif
