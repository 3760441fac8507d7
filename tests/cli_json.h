/* cli_json.h — test helpers for the commands' --json output: the last line
 * of stdout and a number member of it. */
#ifndef CF_CLI_JSON_H
#define CF_CLI_JSON_H
/* The last non-empty line of s ("" if none). */
const char *cf_test_last_line(const char *s);
/* The number after "key": in json (NAN if absent or null). */
double cf_test_json_num(const char *json, const char *key);
/* The same as an int, -1 if absent, null or not finite (no cast of a NaN). */
int cf_test_json_int(const char *json, const char *key);
/* The first number of "key":[a, ...] in json (NAN if absent or null). */
double cf_test_json_first(const char *json, const char *key);
#endif
