/* testutil.h — a minimal assertion layer for the tests: each CHECK prints
 * the failing expression with file:line and values, and the test's exit
 * status is the number of failed checks (0 = pass). */
#ifndef CF_TESTUTIL_H
#define CF_TESTUTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

extern int cf_test_failures;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      cf_test_failures++;                                                  \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
      fprintf(stderr, __VA_ARGS__);                                        \
      fputc('\n', stderr);                                                 \
    }                                                                      \
  } while (0)

/* Prints a summary and returns the exit status. */
int cf_test_done(const char *name);
/* Deterministic uniform random number in [-1, 1). */
double cf_test_rand(unsigned long long *state);
/* Whole file as a NUL-terminated malloc'ed string (NULL on error); *len
 * gets its size when len is not NULL. */
char *cf_test_slurp(const char *path, size_t *len);
/* Run argv[0] (no shell) with stdout and stderr in files under dir;
 * returns the exit status (-1 if it did not exit normally).  *out and *err
 * (when not NULL) get what it printed (malloc'ed, NULL if unreadable). */
int cf_test_run(char *const argv[], const char *dir, char **out, char **err);
/* cf_test_run of exe with the arguments a0, ... (NULL-terminated, at most
 * 30); the va_list form for helpers that take the arguments themselves. */
int cf_test_run_args(const char *exe, const char *dir, char **out, char **err, const char *a0, ...);
int cf_test_run_va(const char *exe, const char *dir, char **out, char **err, const char *a0, va_list ap);
/* cf_test_run that must succeed: its stdout (malloc'ed), or NULL after a
 * failed check naming what and the stderr. */
char *cf_test_run_ok(char *const argv[], const char *dir, const char *what);
/* A synthetic recording through the commands: DIR/STEM.ini = the config
 * src followed by the lines extra (the last value of a key wins), then `exe
 * synth` into DIR/STEM.csv and `exe ingest motive` with its .meta.ini and
 * .map into h5 = DIR/STEM.h5; 0, or -1 after a failed check. */
int cf_test_synth_ingest(const char *exe, const char *dir, const char *src, const char *extra, const char *stem,
                         char *h5, size_t size);
/* The arguments CLOTHFIT_EXE SOURCE_ROOT of a test of the commands into
 * *exe, *root, and its scratch folder made from the mkdtemp template dir:
 * 0, or the exit status after the usage or error line. */
int cf_test_cli_begin(int argc, char **argv, const char **exe, const char **root, char *dir);
/* Remove a test's scratch folder (rm -rf), then cf_test_done(name). */
int cf_test_cli_end(const char *dir, const char *name);
/* The path of the executable name on $PATH into buf; 0 if none. */
int cf_test_find_program(const char *name, char *buf, size_t size);
/* Entries of a folder other than those starting with '.' (0 if unreadable). */
int cf_test_dir_entries(const char *dir);
/* The start of a malformed-corpus test (argv: CORPUS_DIR CLOTHFIT_EXE):
 * tmp (a mkdtemp template) made with an empty folder
 * out/ in it for the command's outputs (its path into outdir[size]), and a
 * check that the corpus holds exactly n_cases case folders, each of which
 * needs its expected message in the test.  0, or 2 after the usage line. */
int cf_test_corpus_begin(int argc, char **argv, int n_cases, char *tmp, char *outdir, size_t size);
/* A reader's refusal of the malformed input name: rc CF_EFORMAT and a
 * one-line message msg that starts with start ("FILE: line N: ") and holds
 * why. */
void cf_test_refused(const char *name, int rc, const char *msg, const char *start, const char *why);
/* A command's refusal of it: argv (a clothfit command writing into outdir)
 * exits non-zero with exactly one stderr line and leaves outdir empty. */
void cf_test_cli_refuses(char *const argv[], const char *tmp, const char *outdir, const char *name);
#endif
