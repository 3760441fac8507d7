/* command.c — the prologue every command runs through (commands.h):
 * --help, the option table, the words that are not options, the
 * recordings, then the command's run.  It allocates the command's options
 * struct and the word list for the call and frees them, and the loaded
 * recordings, after run returns; every failure before run is one error
 * line and exit status 1 (0 for --help). */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "fit_cli.h"

/* The checks and loads between the parse and run. */
static int prepare(const cf_cli_command *c, cf_cli_call *call, void *opts) {
  if (c->check && c->check(call, opts)) return 1;
  if (c->needs && !call->n_pos) return cf_cli_fail(c->name, "missing %s (see --help)", c->needs);
  if (!c->loads) return 0;
  const cf_cli_model *m = (const cf_cli_model *)((const char *)opts + c->model_offset);
  return cf_cli_load_inputs(c->name, call->pos, call->n_pos, m, &call->in);
}

int cf_cli_command_run(const cf_cli_command *c, int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(c->help, stdout), 0;
  cf_cli_call call = {c->name, argc, argv, NULL, 0, 0, NULL};
  if (!c->options) return c->run(&call, NULL);
  void *opts = calloc(1, c->opts_size ? c->opts_size : 1);
  call.pos = calloc((size_t)argc + 1, sizeof *call.pos);
  int rc = !opts || !call.pos ? cf_cli_fail(c->name, "out of memory")
                              : cf_cli_parse(c->name, argc, argv, c->options, opts, &call.json, call.pos,
                                             c->max_pos < 0 ? argc : c->max_pos, &call.n_pos);
  rc = rc || prepare(c, &call, opts) || c->run(&call, opts);
  cf_pipeline_inputs_free(call.in, call.in ? call.n_pos : 0);
  free(call.pos);
  free(opts);
  return rc;
}
