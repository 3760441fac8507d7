#include "forkmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, char *p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

int cf_test_fork_map(int n, int workers, size_t rec_size, void (*fn)(int i, void *out), void *out) {
  if (workers < 1) workers = 1;
  if (workers > 64) workers = 64;
  int fds[64][2], status = 0;
  pid_t pid[64];
  for (int w = 0; w < workers; w++) {
    if (pipe(fds[w]) != 0) return -1;
    pid[w] = fork();
    if (pid[w] < 0) return -1;
    if (pid[w] == 0) {
      close(fds[w][0]);
      char *rec = calloc(1, rec_size);
      for (int i = w; i < n; i += workers) {
        memset(rec, 0, rec_size);
        fn(i, rec);
        if (write_all(fds[w][1], rec, rec_size)) _exit(1);
      }
      _exit(0);
    }
    close(fds[w][1]);
  }
  for (int w = 0; w < workers; w++) {
    for (int i = w; i < n; i += workers)
      if (read_all(fds[w][0], (char *)out + (size_t)i * rec_size, rec_size)) status = -1;
    close(fds[w][0]);
    int st = 0;
    while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) status = -1;
  }
  return status;
}
