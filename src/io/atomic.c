/* atomic.c — atomic output files: write to "<path>.tmp.<pid>", rename over
 * <path> when complete; create the output folder when missing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_io.h"

void cf_io_tmpname(const char *path, char *buf, size_t size) {
  snprintf(buf, size, "%s.tmp.%ld", path, (long)getpid());
}

int cf_io_commit(const char *tmp, const char *path, int ok, cf_error *err) {
  if (!ok) {
    remove(tmp);
    return CF_EIO;
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    return cf_error_set(err, CF_EIO, "%s: cannot rename %s into place: %s", path, tmp, strerror(e));
  }
  return CF_OK;
}

int cf_io_ensure_parent(const char *path, cf_error *err) {
  char dir[4096];
  if (strlen(path) >= sizeof dir)
    return cf_error_set(err, CF_EIO, "%s: path too long", path);
  strcpy(dir, path);
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return CF_OK;
  *slash = 0;
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
      return cf_error_set(err, CF_EIO, "%s: cannot create folder %s: %s", path, dir, strerror(errno));
    *p = '/';
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return cf_error_set(err, CF_EIO, "%s: cannot create folder %s: %s", path, dir, strerror(errno));
  return CF_OK;
}
