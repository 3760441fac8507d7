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

/* Print "clothfit <cmd>: message" to stderr; returns 1 (the exit status). */
int cf_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if argv has --help or -h. */
int cf_cli_wants_help(int argc, char **argv);
/* JSON output (json_out.c): a quoted, escaped string; a number or null. */
#include <stdio.h>
void cf_cli_json_string(FILE *f, const char *s);
void cf_cli_json_number(FILE *f, double v);
#endif
