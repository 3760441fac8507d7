/* cli_json.h — test helpers for the commands' --json output: the last line
 * of stdout, parsed with Jansson (as user scripts parse it) and looked up
 * by path.
 *
 * A path names members separated by '.', an array element by its index
 * ("recordings.0.delta") or by the string value of one of its members
 * ("recordings.name=wool-A3.failed_points"); "" is the whole value.  Each
 * call parses json afresh; text that is not JSON gives the "absent" answer
 * and the parser's message on stderr, so every assertion on the output is
 * also one that it is valid JSON. */
#ifndef CF_CLI_JSON_H
#define CF_CLI_JSON_H
#include <stddef.h>
/* The last non-empty line of s ("" if none). */
const char *cf_test_last_line(const char *s);
/* 1 if json is one valid JSON value, else 0 (with the parser's message). */
int cf_test_json_valid(const char *json);
/* 1 if there is a value (null too) at path. */
int cf_test_json_has(const char *json, const char *path);
/* The number at path (NAN if absent, null or not a number). */
double cf_test_json_num(const char *json, const char *path);
/* The same as an int, -1 if absent, null or not finite (no cast of a NaN). */
int cf_test_json_int(const char *json, const char *path);
/* The first number of the array at path (NAN if absent, empty or null). */
double cf_test_json_first(const char *json, const char *path);
/* The length of the array at path (-1 if it is not an array). */
int cf_test_json_len(const char *json, const char *path);
/* 1 if the value at path equals the JSON text value ("true", "null", "3",
 * "\"grid\"", "[\"given\",\"grid\"]"; numbers compare by value). */
int cf_test_json_is(const char *json, const char *path, const char *value);
/* 1 if the value at path is the string s (with s NULL: any string). */
int cf_test_json_has_str(const char *json, const char *path, const char *s);
/* The string at path, malloc'ed (NULL if absent or not a string). */
char *cf_test_json_str(const char *json, const char *path);
/* The value at path as JSON text, malloc'ed (NULL if absent): a part of
 * the output to look into with the functions above. */
char *cf_test_json_part(const char *json, const char *path);
#endif
