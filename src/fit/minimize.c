/* minimize.c — the driver of a fit's searches (cf_fit_minimize): the
 * search type o->search names (search.h: Nelder-Mead, the trust region,
 * Levenberg-Marquardt), its option word and its results' method name.
 * No state, no allocation; an unknown search is CF_EINVAL. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf_fit.h"
#include "search.h"

static const cf_search_type *const types[CF_SEARCH_COUNT] = {&cf_search_nelder_mead, &cf_search_trust,
                                                             &cf_search_lm};

static const cf_search_type *type_of(int search) {
  return search >= 0 && search < CF_SEARCH_COUNT ? types[search] : NULL;
}

int cf_fit_minimize(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                    cf_error *err) {
  const cf_search_type *t = type_of(o->search);
  if (!t) {
    memset(res, 0, sizeof *res);
    return cf_error_set(err, CF_EINVAL, "search %d: expected 0 to %d (CF_SEARCH_*)", o->search, CF_SEARCH_COUNT - 1);
  }
  int rc = t->minimize(run, base, o, res, err);
  if (t != &cf_search_lm) res->tangent_secant = NAN;
  return rc;
}

const char *cf_fit_search_word(int search) {
  const cf_search_type *t = type_of(search);
  return t ? t->word : "?";
}

const char *cf_fit_search_method(int search) {
  const cf_search_type *t = type_of(search);
  return t ? t->method : "?";
}

int cf_fit_search_parse(const char *word) {
  for (int s = 0; s < CF_SEARCH_COUNT; s++)
    if (!strcmp(word, types[s]->word)) return s;
  return -1;
}
