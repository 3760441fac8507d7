/* study.c — the aerodynamics study of thesis §4.2 on a dataset of Motive
 * exports (cf_pipeline.h "study"): the exports and their sidecars, their
 * ingestion, and the study's stages over the recordings.
 *
 * A dataset is a folder of NAME.csv (Motive exports) with, per file,
 *   NAME.meta.ini   ingest metadata (cf_meta_load: material, size, density,
 *                   motion, speed, repetition, lattice = RxC, controlled ...),
 *                   or the [meta] section of NAME.truth.ini;
 *   NAME.truth.ini  optional ground truth ([truth] delta, alpha) of synthetic
 *                   recordings;
 *   NAME.map        optional marker mapping file (fragments, cells, drops).
 * as `clothfit synth` writes them (datasets/aero-mini). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_recording.h"
#include "pipeline_internal.h"

static int is_csv(const char *name) {
  size_t l = strlen(name);
  return l >= 5 && !strcmp(name + l - 4, ".csv");
}

static int has_csv(DIR *d) {
  struct dirent *e;
  int any = 0;
  while (!any && (e = readdir(d))) any = is_csv(e->d_name);
  rewinddir(d);
  return any;
}

static int by_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int cf_pipeline_dataset_list(const char *dir, char ***csv, int *n, char *used, size_t size, cf_error *err) {
  *csv = NULL, *n = 0;
  snprintf(used, size, "%s", dir);
  DIR *d = opendir(dir);
  if (d && !has_csv(d)) {
    closedir(d);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/recordings", dir);
    d = opendir(sub);
    if (d) snprintf(used, size, "%s", sub);
    else d = opendir(dir);
  }
  if (!d) return cf_error_set(err, CF_EIO, "%s: cannot open the dataset folder (give --dataset DIR)", used);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!is_csv(e->d_name)) continue;
    char **p = realloc(*csv, sizeof(char *) * (*n + 1));
    if (!p) break;
    *csv = p;
    size_t len = strlen(used) + strlen(e->d_name) + 2;
    if ((p[*n] = malloc(len))) snprintf(p[(*n)++], len, "%s/%s", used, e->d_name);
  }
  closedir(d);
  if (!*n) return cf_error_set(err, CF_EIO, "%s: no Motive CSV files (*.csv) in the dataset folder", used);
  qsort(*csv, (size_t)*n, sizeof **csv, by_name);
  return CF_OK;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* (the ingested REC.h5 carry their creation time, so they differ between
 * runs of the same study: the exports are what the results depend on) */
int cf_pipeline_dataset_files(char *const *csv, int n, char ***files, int *nf, cf_error *err) {
  static const char *ext[] = {".csv", ".meta.ini", ".map", ".truth.ini"};
  *nf = 0;
  *files = calloc((size_t)n * 4 + 1, sizeof **files);
  if (!*files) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    size_t l = strlen(csv[i]) - 4; /* without .csv */
    for (int k = 0; k < 4; k++) {
      char *p = malloc(l + strlen(ext[k]) + 1);
      if (!p) return cf_error_set(err, CF_ENOMEM, "out of memory");
      snprintf(p, l + strlen(ext[k]) + 1, "%.*s%s", (int)l, csv[i], ext[k]);
      if (exists(p)) (*files)[(*nf)++] = p;
      else free(p);
    }
  }
  return CF_OK;
}

/* Metadata and marker options from the sidecars of base (csv without .csv). */
static int sidecars(const char *base, int use_map, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err) {
  char p[4200];
  snprintf(p, sizeof p, "%s.meta.ini", base);
  int rc;
  if (exists(p)) {
    rc = cf_meta_load(p, meta, mo, err);
  } else {
    snprintf(p, sizeof p, "%s.truth.ini", base);
    if (!exists(p)) return cf_error_set(err, CF_EIO, "%s.csv: no sidecar %s.meta.ini or %s.truth.ini", base, base, base);
    rc = cf_meta_load_section(p, meta, mo, err);
  }
  if (!rc && mo->rows < 2) rc = cf_error_set(err, CF_EINVAL, "%s: no lattice = RxC in the metadata", p);
  snprintf(p, sizeof p, "%s.map", base);
  if (!rc && use_map && exists(p)) snprintf(mo->map, sizeof mo->map, "%.1000s", p);
  return rc;
}

/* Under mpirun every rank ingests the CSV into memory (the same bytes give
 * the same input) and rank 0 alone writes REC.h5, so the ranks need no
 * shared folder. */
int cf_pipeline_dataset_ingest(const char *csv, const char *recdir, int use_map, cf_fit_input *in, double truth[2],
                               cf_error *err) {
  char base[4096], h5[4600], stem[256];
  snprintf(base, sizeof base, "%.*s", (int)(strlen(csv) - 4), csv);
  cf_path_stem(csv, stem, sizeof stem);
  snprintf(h5, sizeof h5, "%s/%s.h5", recdir, stem);
  cf_recording r;
  cf_recording_init(&r);
  cf_rec_meta meta = r.meta;
  cf_marker_opts mo;
  cf_marker_opts_default(&mo);
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  int rc = sidecars(base, use_map, &meta, &mo, err);
  if (!rc) rc = cf_motive_read(csv, &o, &r, err);
  if (!rc) rc = cf_markers_process(&r, &mo, 0.01, err);
  if (!rc) {
    r.meta = meta;
    cf_sha256_file(csv, r.source_sha256, NULL);
    if (cf_dist_rank() == 0) rc = cf_recording_write_h5(h5, &r, err);
  }
  if (!rc) rc = cf_fit_input_from_recording(&r, h5, in, err);
  cf_recording_free(&r);
  char tp[4200];
  snprintf(tp, sizeof tp, "%s.truth.ini", base);
  truth[0] = truth[1] = NAN;
  if (!rc && exists(tp)) rc = cf_truth_load(tp, &truth[0], &truth[1], err);
  return rc;
}

int cf_pipeline_study_ingest(char *const *csv, int n, const char *recdir, int use_map, cf_fit_input *in,
                             const cf_pipeline_progress *pr, cf_results *r, cf_error *err) {
  cf_pl_stage(pr, "ingest", n);
  int rc = CF_OK;
  for (int i = 0; i < n && !rc; i++) {
    double truth[2];
    cf_res_rec *rec = NULL;
    rc = cf_pipeline_dataset_ingest(csv[i], recdir, use_map, &in[i], truth, err);
    if (!rc && !(rec = cf_results_rec(r, in[i].name, 1))) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    if (!rc) cf_res_rec_describe(rec, &in[i]), rec->truth_delta = truth[0], rec->truth_alpha = truth[1];
    cf_pl_update(pr, i + 1);
  }
  cf_pl_stage(pr, NULL, 0);
  return rc;
}

int cf_pipeline_study_sweep(const cf_fit_input *in, int n, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                            int workers, double prune, cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr,
                            cf_results *r, cf_error *err) {
  long per = (long)gd->n * ga->n;
  cf_pl_stage(pr, "sweep", n * per);
  int rc = CF_OK;
  for (int i = 0; i < n && !rc; i++)
    rc = cf_pl_sweep(&in[i], gd, ga, NULL, 0, 0, workers, prune, pr, i * per, tasks, cf_results_rec(r, in[i].name, 0),
                     err);
  cf_pl_stage(pr, NULL, 0);
  return rc;
}

/* Nelder-Mead from each grid optimum, several recordings at once. */
int cf_pipeline_study_refine(const cf_fit_input *in, int n, int max_evals, int workers, int confidence,
                             const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_results *r,
                             cf_error *err) {
  const cf_fit_input **sel = calloc((size_t)n + 1, sizeof *sel);
  cf_res_rec **recs = calloc((size_t)n + 1, sizeof *recs);
  double *d0 = calloc((size_t)n + 1, sizeof *d0), *a0 = calloc((size_t)n + 1, sizeof *a0);
  int m = 0, rc = sel && recs && d0 && a0 ? CF_OK : cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < n; i++) {
    cf_res_rec *rec = cf_results_rec(r, in[i].name, 0);
    const cf_res_sweep *w = &rec->sweep;
    if (w->best < 0) continue; /* every grid point failed: nothing to refine */
    sel[m] = &in[i], recs[m] = rec;
    cf_res_sweep_at(w, w->best, &d0[m], &a0[m], NULL);
    m++;
  }
  cf_pl_stage(pr, "fit", m);
  if (!rc) rc = cf_pipeline_refine_many(sel, m, d0, a0, max_evals, workers, kept, pr, recs, err);
  cf_pl_stage(pr, NULL, 0);
  if (!rc && confidence) rc = cf_pipeline_confidence(sel, m, workers, kept, recs, err);
  if (!rc && confidence) rc = cf_pipeline_free_flagged(sel, m, max_evals, workers, kept, pr, recs, NULL, err);
  if (!rc && confidence) rc = cf_pipeline_model_check(sel, m, workers, kept, pr, recs, err);
  free(sel), free(recs), free(d0), free(a0);
  return rc;
}

int cf_pipeline_study_regress(const cf_fit_input *in, int n, const char *opt_name, int max_evals, int workers,
                              const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_results *r,
                              cf_error *err) {
  if (cf_pipeline_n_valid(r) < 4) return CF_OK; /* the formulas have 4 coefficients each */
  cf_pl_stage(pr, "regress", max_evals);
  int rc = cf_pipeline_regress(in, n, r, opt_name, 1, max_evals, workers, kept, pr, &r->reg, err);
  cf_pl_stage(pr, NULL, 0);
  return rc;
}
