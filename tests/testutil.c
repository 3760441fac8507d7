#include "testutil.h"

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
