/* main.c — `clothfit <command> ...`: dispatch on the table of commands
 * (command_list.h) through their prologue (command.c); `clothfit help
 * [COMMAND]`; --version; under mpirun, the commands that run there. */
#include <stdio.h>
#include <string.h>

#include "clothfit_version.h"
#include "cf_common.h"
#include "cf_fit.h"
#include "commands.h"
#include "fit_cli.h"

#define CF_CLI_COMMAND(name) &cf_cli_cmd_##name,
static const cf_cli_command *const commands[] = {
#include "command_list.h"
};
#undef CF_CLI_COMMAND
static const int n_commands = sizeof commands / sizeof commands[0];

static void usage(FILE *f) {
  fprintf(f, "usage: clothfit <command> [options]   (clothfit help <command> or clothfit <command> --help: details)\n\n");
  for (int i = 0; i < n_commands; i++) fprintf(f, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
}

/* `clothfit help [COMMAND]`: the list above, or the command's own help
 * text, the one `COMMAND --help` prints (docs/commands.md is made from it,
 * tests/test_help.c checks). */
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
    if (!strcmp(argv[2], commands[i]->name)) return fputs(commands[i]->help, stdout), 0;
  fprintf(stderr, "clothfit help: unknown command '%s' (clothfit help lists them)\n", argv[2]);
  return 2;
}

/* The commands that run under `mpirun -n N` (N > 1), those whose outputs
 * rank 0 alone writes (cf_cli_command.mpi), as the error of another names
 * them: "sweep, fit, ... and experiment". */
static void mpi_commands(char *buf, size_t size) {
  int n = 0, k = 0;
  for (int i = 0; i < n_commands; i++) n += commands[i]->mpi;
  buf[0] = 0;
  for (int i = 0; i < n_commands; i++) {
    if (!commands[i]->mpi) continue;
    size_t l = strlen(buf);
    snprintf(buf + l, size - l, "%s%s", k == 0 ? "" : k == n - 1 ? " and " : ", ", commands[i]->name);
    k++;
  }
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
    if (strcmp(argv[1], commands[i]->name)) continue;
    if (cf_dist_size() > 1 && !commands[i]->mpi) {
      char names[256];
      mpi_commands(names, sizeof names);
      return cf_cli_fail(argv[1], "does not run under mpirun with %d ranks (only %s do); run it without mpirun",
                         cf_dist_size(), names);
    }
    return cf_cli_command_run(commands[i], argc - 1, argv + 1);
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
