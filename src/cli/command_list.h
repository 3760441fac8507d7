/* command_list.h — the table of `clothfit`'s commands, in the order
 * `clothfit help` lists them: one line CF_CLI_COMMAND(name) per command,
 * whose cf_cli_command cf_cli_cmd_<name> is defined in cmd_<name>.c.  Read
 * with CF_CLI_COMMAND defined (commands.h: the declarations; main.c: the
 * table).  Adding a command: its file, its help text, and a line here. */
CF_CLI_COMMAND(ingest)
CF_CLI_COMMAND(inspect)
CF_CLI_COMMAND(simulate)
CF_CLI_COMMAND(synth)
CF_CLI_COMMAND(sweep)
CF_CLI_COMMAND(fit)
CF_CLI_COMMAND(sensitivity)
CF_CLI_COMMAND(compare)
CF_CLI_COMMAND(predict)
CF_CLI_COMMAND(regress)
CF_CLI_COMMAND(experiment)
CF_CLI_COMMAND(merge)
CF_CLI_COMMAND(report)
