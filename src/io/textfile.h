/* textfile.h — small text inputs of src/io (INI configs, sidecar metadata,
 * marker mapping files): read a whole file, rejecting binary data, and run
 * inih over it with line numbers.  Not part of the public API. */
#ifndef CF_TEXTFILE_H
#define CF_TEXTFILE_H

#include "cf_common.h"

/* The whole of path as a NUL-terminated malloc'ed string; NULL with err set
 * (naming the file and, for binary data, the line) if it cannot be read, is
 * larger than 16 MB or is not text.  `what` completes "expected ..." in the
 * messages, e.g. "a small INI config". */
char *cf_text_slurp(const char *path, const char *what, cf_error *err);

/* Called for every key = value of an INI text, with its 1-based line;
 * returns 1 to go on, 0 (having filled err) to stop. */
typedef int (*cf_ini_key_fn)(void *user, const char *section, const char *key, const char *value, int line);
/* Parse the INI text (read from path) calling fn; CF_OK, or the handler's
 * error, or CF_EFORMAT "path:LINE: malformed line ..." for lines inih rejects. */
int cf_ini_parse_text(const char *path, const char *text, cf_ini_key_fn fn, void *user, cf_error *err);

/* A whole finite number (trailing blanks allowed); 0 if s is not one. */
int cf_text_double(const char *s, double *out);
#endif
