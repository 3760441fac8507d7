/* cf_io_journal.h — task journals: the crash-safe progress of sweeps and studies.
 * Part of the API of cf_io.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_IO_JOURNAL_H
#define CF_IO_JOURNAL_H

#include <stddef.h>
#include <stdio.h>
#include "cf_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ task journals */
/* Crash-safe progress of commands that run many tasks (docs/design.md §9):
 * each finished task is appended to a journal beside the results file as
 * soon as it completes, and a rerun of the same command skips the tasks
 * it finds there.  The journal carries a key, a hash of everything the
 * results depend on (tool version, input files, grid, model settings,
 * config): a journal of another key is refused, so a changed run never
 * reuses stale results.  Format and durability: journal.c. */
#include <stdint.h>

/* cf_hash_bytes (cf_common.h) over a NUL-terminated string and its
 * terminator. */
uint64_t cf_hash_str(uint64_t h, const char *s);

typedef struct cf_journal cf_journal;
/* Open the journal at path for the run identified by key, creating it if
 * missing (restart: discard any existing one).  Its records are read: a
 * torn last line (a crash during a write) is dropped, a damaged record
 * elsewhere is CF_EFORMAT naming the file, line and task; a journal of
 * another key is CF_EINVAL telling to use --restart.  NULL on error. */
cf_journal *cf_journal_open(const char *path, uint64_t key, int restart, cf_error *err);
/* The text of finished task id read at open, or NULL (borrowed; valid
 * until cf_journal_free).  Tasks appended since open are not looked up. */
const char *cf_journal_find(const cf_journal *j, uint64_t id);
int cf_journal_count(const cf_journal *j);  /* tasks read at open (a task recorded twice alike counts once) */
/* The caller took task id's record (it was what it expected): counted by
 * cf_journal_used, the tasks resumed. */
void cf_journal_mark_used(cf_journal *j, uint64_t id);
int cf_journal_used(const cf_journal *j);   /* tasks marked used since open */
int cf_journal_torn(const cf_journal *j);   /* 1 if a torn last line was dropped */
const char *cf_journal_path(const cf_journal *j);
/* Persist a finished task: one line "id text check" with one write(2) in
 * O_APPEND mode and fdatasync, so that forked workers sharing j append
 * whole lines.  text: one line (no newline). */
int cf_journal_append(cf_journal *j, uint64_t id, const char *text, cf_error *err);
/* Delete the file (after the results it protects are written). */
int cf_journal_remove(cf_journal *j, cf_error *err);
void cf_journal_free(cf_journal *j);

#ifdef __cplusplus
}
#endif
#endif
