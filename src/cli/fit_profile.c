/* fit_profile.c — `fit --profile`'s output: the profile intervals
 * (cf_profile, docs/confidence.md "Profile intervals") as text lines and
 * as the JSON member "profile".  No allocation but the JSON tree's. */
#include <stdio.h>

#include "fit_cli.h"
#include "json_out.h"

static const char *const name[2] = {"delta", "alpha"};

void cf_cli_profile_text(const cf_profile *p) {
  printf("profile           threshold %.4f cm over the least error %.4f cm (%.1f effective frames of %d), %d "
         "simulations: %s\n", p->threshold, p->f_min, p->n_eff, p->frames, p->simulations,
         p->identifiable ? "identifiable" : p->why);
  for (int q = 0; q < 2; q++) {
    const cf_profile_param *r = &p->p[q];
    printf("profile %-9s %.5f in [%.5f%s, %.5f%s]%s%s\n", name[q], r->value, r->interval[0],
           r->open[0] ? " (open: bound)" : "", r->interval[1], r->open[1] ? " (open: bound)" : "",
           r->trades_against[0] ? ", moves most with " : "", r->trades_against);
  }
}

void cf_cli_profile_json(json_t *j, const cf_profile *p) {
  json_t *o = cf_cli_json_object(j, "profile");
  for (int q = 0; q < 2; q++) {
    const cf_profile_param *r = &p->p[q];
    json_t *m = cf_cli_json_object(o, name[q]);
    cf_cli_json_num(m, "value", r->value);
    cf_cli_json_nums(m, "interval", r->interval, 2);
    json_t *open = cf_cli_json_array(m, "open");
    for (int s = 0; s < 2; s++) json_array_append_new(open, json_boolean(r->open[s]));
    cf_cli_json_str(m, "trades_against", r->trades_against[0] ? r->trades_against : NULL);
    cf_cli_json_num(m, "simulations", r->simulations);
  }
  cf_cli_json_num(o, "threshold_cm", p->threshold);
  cf_cli_json_num(o, "f_min_cm", p->f_min);
  cf_cli_json_num(o, "n_eff", p->n_eff);
  cf_cli_json_num(o, "se_hac_cm", p->se_hac);
  cf_cli_json_num(o, "discrepancy_cm", p->discrepancy_cm);
  cf_cli_json_bool(o, "identifiable", p->identifiable);
  cf_cli_json_str(o, "why", p->why[0] ? p->why : NULL);
  cf_cli_json_num(o, "simulations", p->simulations);
}
