/* args.c — what every command of src/cli uses first: the one-line error
 * (cf_cli_fail), --help, and the table-driven option parser (commands.h).
 * The parser writes only into the caller's options struct and pos[]; it
 * allocates nothing, and fails with one error line naming the word. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

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

/* --json, every command's flag, after the command's own options. */
static const cf_cli_option json_option = {"--json", 0, 1};

static const cf_cli_option *find_option(const cf_cli_option *opts, const char *arg, size_t len) {
  for (; opts->name; opts++)
    if (strlen(opts->name) == len && !strncmp(opts->name, arg, len)) return opts;
  return len == 6 && !strncmp(arg, "--json", 6) ? &json_option : NULL;
}

int cf_cli_parse(const char *cmd, int argc, char **argv, const cf_cli_option *opts, void *base, int *json,
                 const char **pos, int max_pos, int *n_pos) {
  *n_pos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *eq = strchr(a, '=');
    if (a[0] != '-' || !a[1]) {
      if (*n_pos >= max_pos) return cf_cli_fail(cmd, "unexpected argument '%s' (see --help)", a);
      pos[(*n_pos)++] = a;
      continue;
    }
    size_t len = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
    const cf_cli_option *o = find_option(opts, a, len);
    char *at = o == &json_option ? (char *)json : o ? (char *)base + o->offset : NULL;
    if (!o) return cf_cli_fail(cmd, "unknown option '%s' (see --help)", a);
    if (o->flag) {
      if (len != strlen(a)) return cf_cli_fail(cmd, "option %s takes no value (see --help)", o->name);
      *(int *)at = 1;
    } else if (len != strlen(a)) {
      *(const char **)at = a + len + 1;
    } else if (i + 1 < argc) {
      *(const char **)at = argv[++i];
    } else {
      return cf_cli_fail(cmd, "option %s needs a value (see --help)", a);
    }
  }
  return 0;
}
