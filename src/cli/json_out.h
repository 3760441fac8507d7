/* json_out.h — the commands' --json output: one JSON object, built as a
 * tree of Jansson values (https://jansson.readthedocs.io) and written on the
 * last line of stdout by cf_cli_json_print.
 *
 * Why a library and why Jansson: hand-written printf fragments had to get
 * the escaping of every string right (a file name with a quote or a control
 * character, a material in UTF-8) and the commas between members; a tree
 * is valid JSON by construction.  Jansson is maintained, packaged in Debian
 * (libjansson-dev, pkg-config 'jansson'), small and in C with no further
 * dependencies; json_string refuses invalid UTF-8 (cf_cli_json_string then
 * replaces the bad bytes, so the line stays valid); objects keep the order
 * their members were set in (JSON_PRESERVE_ORDER), so the keys come out in
 * the order user scripts know; JSON_COMPACT keeps the object on one line,
 * and JSON_REAL_PRECISION sets the digits of the numbers.
 *
 * Numbers: 17 significant digits (printed as "%.17g"), the precision at
 * which every double reads back as the same double.  A fitted delta,
 * alpha or error copied from the JSON line then equals the one in the
 * results file, and a rerun from it starts from the same point; the older
 * output's 9 digits (10 for a few members) could not promise that.  The
 * price is that a decimal such as 0.1 shows its binary rounding
 * (0.10000000000000001).  A number that is a whole number below 2^53 (a
 * count, an index, a grid value such as 2) is written as a JSON integer,
 * as "%g" wrote it before; a NaN or infinity is null. */
#ifndef CF_JSON_OUT_H
#define CF_JSON_OUT_H

#include <jansson.h>

/* New values (a reference the caller owns): a number as above; a string
 * (null for NULL; bytes that are not UTF-8 become U+FFFD). */
json_t *cf_cli_json_number(double v);
json_t *cf_cli_json_string(const char *s);

/* Members of the object o, in the order they are set (the order of the
 * output).  cf_cli_json_set takes the reference of v (NULL: null). */
void cf_cli_json_set(json_t *o, const char *key, json_t *v);
void cf_cli_json_num(json_t *o, const char *key, double v);
void cf_cli_json_str(json_t *o, const char *key, const char *s);
/* true for b > 0, false for 0, null for b < 0 (not known). */
void cf_cli_json_bool(json_t *o, const char *key, int b);
/* The members keys[i]:v[i] (numbers), i < n. */
void cf_cli_json_numbers(json_t *o, const char *const *keys, const double *v, size_t n);
/* [v[0], ..., v[n-1]] (numbers) and [s[0], ...] (strings). */
void cf_cli_json_nums(json_t *o, const char *key, const double *v, int n);
void cf_cli_json_strs(json_t *o, const char *key, char *const *s, int n);
/* A new, empty object or array member of o, returned (o holds it). */
json_t *cf_cli_json_object(json_t *o, const char *key);
json_t *cf_cli_json_array(json_t *o, const char *key);

/* Write o compactly on one line of stdout and release it. */
void cf_cli_json_print(json_t *o);
#endif
