/* json_out.c — JSON output helpers for the commands' --json lines. */
#include <math.h>
#include <stdio.h>

#include "commands.h"

void cf_cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
    else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
    else fputc(*c, f);
  }
  fputc('"', f);
}

void cf_cli_json_number(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.9g", v);
  else fputs("null", f);
}
