#include "testutil.h"

#include <stdlib.h>

int cf_test_failures = 0;

int cf_test_done(const char *name) {
  if (cf_test_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, cf_test_failures);
  else printf("%s: all checks passed\n", name);
  return cf_test_failures ? 1 : 0;
}

double cf_test_rand(unsigned long long *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

char *cf_test_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  if (b) b[n] = 0;
  if (b && len) *len = (size_t)n;
  fclose(f);
  return b;
}
