/* study.c — the studies of thesis §4.1 and §4.2 on a dataset of
 * recordings (cf_pipeline.h "study"): the sources and their sidecars, their
 * ingestion, and the study's stages over the recordings.
 *
 * A dataset is a folder of sources, NAME.csv (Motive exports),
 * NAME.meshes/ (a depth camera's registered mesh sequence, one OBJ or PLY
 * file a frame) or NAME.clouds/ (its point clouds, one PLY or XYZ file a
 * frame, with the held corners' track NAME.corners.csv), with, per source,
 *   NAME.meta.ini   ingest metadata (cf_meta_load: material, size, density,
 *                   motion, speed, repetition, lattice = RxC, controlled,
 *                   held ...), or the [meta] section of NAME.truth.ini;
 *   NAME.truth.ini  optional ground truth ([truth] delta, alpha) of synthetic
 *                   recordings;
 *   NAME.map        optional marker mapping file (fragments, cells, drops).
 * as `clothfit synth` writes them (datasets/aero-mini, datasets/wam-mini). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_recording.h"
#include "pipeline_internal.h"

static int ends_with(const char *name, const char *ext) {
  size_t l = strlen(name), k = strlen(ext);
  return l > k && !strcmp(name + l - k, ext);
}

/* A source: a Motive export, a mesh sequence's folder or a point cloud
 * sequence's folder.  A folder of mesh sequences may hold CSV files that
 * are no recordings (the robot's corner logs NAME.corners.csv), so its
 * sources are its mesh sequences alone, or its cloud sequences when the
 * study asks for them. */
static int is_csv(const char *name) { return ends_with(name, ".csv"); }
static int is_mesh_source(const char *path) { return ends_with(path, ".meshes"); }
static int is_cloud_source(const char *path) { return ends_with(path, ".clouds"); }
static int is_folder_source(const char *path) { return is_mesh_source(path) || is_cloud_source(path); }
static int is_source(const char *name) { return is_csv(name) || is_folder_source(name); }
/* A frame of a mesh or cloud sequence (cf_meshseq_read's and
 * cf_cloudseq_read's files). */
static int is_frame(const char *name) {
  return ends_with(name, ".obj") || ends_with(name, ".ply") || ends_with(name, ".xyz");
}

static int has_source(DIR *d) {
  struct dirent *e;
  int any = 0;
  while (!any && (e = readdir(d))) any = is_source(e->d_name);
  rewinddir(d);
  return any;
}

static int by_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* The entries of d that keep() takes, as "dir/name", appended to *list
 * (malloc'ed, *n of them) and sorted. */
static int list_dir(DIR *d, const char *dir, int (*keep)(const char *), char ***list, int *n) {
  struct dirent *e;
  int n0 = *n;
  while ((e = readdir(d))) {
    if (!keep(e->d_name)) continue;
    char **p = realloc(*list, sizeof(char *) * (*n + 1));
    if (!p) return CF_ENOMEM;
    *list = p;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(p[*n] = malloc(len))) return CF_ENOMEM;
    snprintf(p[(*n)++], len, "%s/%s", dir, e->d_name);
  }
  if (*n > n0) qsort(*list + n0, (size_t)(*n - n0), sizeof **list, by_name);
  return CF_OK;
}

int cf_pipeline_dataset_list(const char *dir, int clouds, char ***csv, int *n, char *used, size_t size,
                             cf_error *err) {
  *csv = NULL, *n = 0;
  snprintf(used, size, "%s", dir);
  DIR *d = opendir(dir);
  if (d && !has_source(d)) {
    closedir(d);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/recordings", dir);
    d = opendir(sub);
    if (d) snprintf(used, size, "%s", sub);
    else d = opendir(dir);
  }
  if (!d) return cf_error_set(err, CF_EIO, "%s: cannot open the dataset folder (give --dataset DIR)", used);
  int rc = list_dir(d, used, clouds ? is_cloud_source : is_mesh_source, csv, n);
  if (!rc && !*n && !clouds) rewinddir(d), rc = list_dir(d, used, is_csv, csv, n);
  closedir(d);
  if (rc) return cf_error_set(err, CF_ENOMEM, "out of memory");
  if (!*n && clouds)
    return cf_error_set(err, CF_EIO, "%s: no point cloud sequences NAME.clouds/ in the dataset folder (the bundled "
                        "study's are not committed: scripts/make-dataset.sh wam-mini makes them)", used);
  if (!*n)
    return cf_error_set(err, CF_EIO, "%s: no recordings in the dataset folder (Motive exports NAME.csv or mesh "
                        "sequences NAME.meshes/)", used);
  return CF_OK;
}

/* The source's path without .csv, .meshes or .clouds, into base[size]. */
static void source_base(const char *src, char *base, size_t size) {
  const char *dot = strrchr(src, '.');
  snprintf(base, size, "%.*s", (int)(dot ? dot - src : (long)strlen(src)), src);
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* (the ingested REC.h5 carry their creation time, so they differ between
 * runs of the same study: the sources are what the results depend on; a
 * mesh or cloud sequence is its frame files, a cloud's also its corners) */
int cf_pipeline_dataset_files(char *const *csv, int n, char ***files, int *nf, cf_error *err) {
  static const char *ext[] = {".meta.ini", ".map", ".truth.ini", ".corners.csv"};
  *nf = 0;
  *files = NULL;
  for (int i = 0; i < n; i++) {
    char base[4096];
    source_base(csv[i], base, sizeof base);
    DIR *d = is_folder_source(csv[i]) ? opendir(csv[i]) : NULL;
    if (is_folder_source(csv[i]) && !d) return cf_error_set(err, CF_EIO, "%s: cannot open the frames' folder", csv[i]);
    int rc = d ? list_dir(d, csv[i], is_frame, files, nf) : CF_OK;
    if (d) closedir(d);
    char **p = rc ? NULL : realloc(*files, sizeof(char *) * (*nf + 5));
    if (!p) return cf_error_set(err, CF_ENOMEM, "out of memory");
    *files = p;
    if (!d && !(p[(*nf)++] = strdup(csv[i]))) return cf_error_set(err, CF_ENOMEM, "out of memory");
    for (int k = 0; k < (is_cloud_source(csv[i]) ? 4 : 3); k++) {
      size_t l = strlen(base) + strlen(ext[k]) + 1;
      char *q = malloc(l);
      if (!q) return cf_error_set(err, CF_ENOMEM, "out of memory");
      snprintf(q, l, "%s%s", base, ext[k]);
      if (exists(q)) p[(*nf)++] = q;
      else free(q);
    }
  }
  return CF_OK;
}

/* The kinds of source of a dataset. */
enum source_kind { SOURCE_MOTIVE, SOURCE_MESHES, SOURCE_CLOUDS };
static const char *const source_ext[] = {".csv", ".meshes", ".clouds"};

static enum source_kind source_kind_of(const char *path) {
  return is_mesh_source(path) ? SOURCE_MESHES : is_cloud_source(path) ? SOURCE_CLOUDS : SOURCE_MOTIVE;
}

/* Metadata and marker options from the sidecars of base (the source of
 * kind without its extension); markers need a lattice, a mesh is one and a
 * cloud's is the simulated cloth's. */
static int sidecars(const char *base, enum source_kind kind, int use_map, cf_rec_meta *meta, cf_marker_opts *mo,
                    cf_error *err) {
  char p[4200];
  snprintf(p, sizeof p, "%s.meta.ini", base);
  int rc;
  if (exists(p)) {
    rc = cf_meta_load(p, meta, mo, err);
  } else {
    snprintf(p, sizeof p, "%s.truth.ini", base);
    if (!exists(p))
      return cf_error_set(err, CF_EIO, "%s%s: no sidecar %s.meta.ini or %s.truth.ini", base, source_ext[kind], base,
                          base);
    rc = cf_meta_load_section(p, meta, mo, err);
  }
  if (!rc && kind == SOURCE_MOTIVE && mo->rows < 2)
    rc = cf_error_set(err, CF_EINVAL, "%s: no lattice = RxC in the metadata", p);
  snprintf(p, sizeof p, "%s.map", base);
  if (!rc && use_map && exists(p)) snprintf(mo->map, sizeof mo->map, "%.1000s", p);
  return rc;
}

/* A mesh sequence with the held nodes and drop limit of its metadata,
 * resampled to dt as `ingest meshes` does (dropped frames stay NaN). */
static int read_meshes(const char *dir, const cf_marker_opts *mo, double dt, cf_recording *r, cf_error *err) {
  cf_meshseq_opts o;
  cf_meshseq_opts_default(&o);
  if (mo->held[0] && !cf_meshseq_held_parse(mo->held, &o))
    return cf_error_set(err, CF_EINVAL, "%s: held = '%s' in its metadata: expected node indices I,J (0-based, "
                        "comma-separated, at most %d)", dir, mo->held, CF_MESH_HELD_MAX);
  o.max_gap = mo->max_gap;
  int rc = cf_meshseq_read(dir, &o, r, err);
  return rc ? rc : cf_recording_resample(r, dt, err);
}

/* A point cloud sequence with the held corners' track base.corners.csv, as
 * `ingest clouds` reads it: native frames (clouds are never resampled). */
static int read_clouds(const char *dir, const char *base, cf_recording *r, cf_error *err) {
  cf_meshseq_opts o;
  cf_meshseq_opts_default(&o);
  char track[4200];
  snprintf(track, sizeof track, "%s.corners.csv", base);
  if (!exists(track))
    return cf_error_set(err, CF_EIO, "%s: no held corners' track %s (time,x1,y1,z1,x2,y2,z2)", dir, track);
  return cf_cloudseq_read(dir, track, &o, r, err);
}

/* Under mpirun every rank ingests the source into memory (the same bytes
 * give the same input) and rank 0 alone writes REC.h5, so the ranks need no
 * shared folder. */
int cf_pipeline_dataset_ingest(const char *csv, const char *recdir, int use_map, cf_fit_input *in, double truth[2],
                               cf_error *err) {
  char base[4096], h5[4600], stem[256];
  enum source_kind kind = source_kind_of(csv);
  source_base(csv, base, sizeof base);
  cf_path_stem(csv, stem, sizeof stem);
  snprintf(h5, sizeof h5, "%s/%s.h5", recdir, stem);
  cf_recording r;
  cf_recording_init(&r);
  cf_rec_meta meta = r.meta;
  cf_marker_opts mo;
  cf_marker_opts_default(&mo);
  cf_motive_opts o;
  cf_motive_opts_default(&o);
  int rc = sidecars(base, kind, use_map, &meta, &mo, err);
  if (!rc && kind == SOURCE_MESHES) rc = read_meshes(csv, &mo, CF_PIPELINE_DT, &r, err);
  if (!rc && kind == SOURCE_CLOUDS) rc = read_clouds(csv, base, &r, err);
  if (!rc && kind == SOURCE_MOTIVE) rc = cf_motive_read(csv, &o, &r, err);
  if (!rc && kind == SOURCE_MOTIVE) rc = cf_markers_process(&r, &mo, CF_PIPELINE_DT, err);
  if (!rc) {
    r.meta = meta;
    if (!r.source_sha256[0]) cf_sha256_file(csv, r.source_sha256, NULL); /* the mesh reader hashes its frames */
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

int cf_pipeline_study_ingest(char *const *csv, int n, const char *recdir, int use_map, int keep_going,
                             cf_fit_input *in, int *n_in, const cf_pipeline_progress *pr, cf_results *r,
                             cf_error *err) {
  cf_pl_stage(pr, "ingest", n);
  int rc = CF_OK, m = 0;
  for (int i = 0; i < n && !rc; i++) {
    double truth[2];
    cf_res_rec *rec = NULL;
    cf_error one = {0, ""};
    rc = cf_pipeline_dataset_ingest(csv[i], recdir, use_map, &in[m], truth, &one);
    if (rc && keep_going && rc != CF_ENOMEM) { /* reported; the others go on */
      cf_pl_note(pr, "%s: not ingested, left out of the study: %s", csv[i], one.msg);
      rc = CF_OK;
      cf_pl_update(pr, i + 1);
      continue;
    }
    if (rc) cf_error_set(err, rc, "%s", one.msg);
    if (!rc && !(rec = cf_results_rec(r, in[m].name, 1))) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    if (!rc) cf_res_rec_describe(rec, &in[m]), rec->truth_delta = truth[0], rec->truth_alpha = truth[1], m++;
    cf_pl_update(pr, i + 1);
  }
  cf_pl_stage(pr, NULL, 0);
  *n_in = m;
  return rc;
}

int cf_pipeline_study_window(const cf_fit_input *in, double train) {
  return train >= 1 ? in->tg.T : (int)floor(train * in->tg.T + 0.5);
}

int cf_pipeline_study_sweep(const cf_fit_input *in, int n, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                            double train, int workers, double prune, cf_pipeline_tasks *tasks,
                            const cf_pipeline_progress *pr, cf_results *r, cf_error *err) {
  long per = (long)gd->n * ga->n;
  cf_pl_stage(pr, "sweep", n * per);
  int rc = CF_OK;
  for (int i = 0; i < n && !rc; i++)
    rc = cf_pl_sweep(&in[i], gd, ga, NULL, 0, train >= 1 ? 0 : cf_pipeline_study_window(&in[i], train), workers,
                     prune, pr, i * per, tasks, cf_results_rec(r, in[i].name, 0), err);
  cf_pl_stage(pr, NULL, 0);
  return rc;
}

/* The refinement (cf_fit_input.search) from each grid optimum, or from
 * the a-priori start of a recording not swept, several recordings at once. */
int cf_pipeline_study_refine(const cf_fit_input *in, int n, double train, int max_evals, int workers, int confidence,
                             const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_results *r,
                             cf_error *err) {
  const cf_fit_input **sel = calloc((size_t)n + 1, sizeof *sel);
  cf_res_rec **recs = calloc((size_t)n + 1, sizeof *recs);
  double *d0 = calloc((size_t)n + 1, sizeof *d0), *a0 = calloc((size_t)n + 1, sizeof *a0);
  int *t1 = calloc((size_t)n + 1, sizeof *t1);
  int m = 0, swept = 0, rc = sel && recs && d0 && a0 && t1 ? CF_OK : cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < n; i++) {
    cf_res_rec *rec = cf_results_rec(r, in[i].name, 0);
    const cf_res_sweep *w = &rec->sweep;
    if (rec->has_sweep && w->best < 0) continue; /* every grid point failed: nothing to refine */
    sel[m] = &in[i], recs[m] = rec, t1[m] = cf_pipeline_study_window(&in[i], train);
    if (rec->has_sweep) cf_res_sweep_at(w, w->best, &d0[m], &a0[m], NULL), swept = 1;
    else cf_pipeline_apriori(&in[i], &d0[m], &a0[m]);
    m++;
  }
  cf_pl_stage(pr, "fit", m);
  if (!rc) /* a study sweeps all its recordings or none */
    rc = cf_pipeline_refine_many(sel, m, swept ? "grid" : "apriori", d0, a0, NULL, t1, max_evals, workers, kept, pr,
                                 recs, err);
  cf_pl_stage(pr, NULL, 0);
  if (!rc && confidence) {
    cf_pl_stage(pr, "confidence", m);
    rc = cf_pipeline_confidence(sel, m, workers, kept, recs, err);
    cf_pl_stage(pr, "refit", m);
    if (!rc) rc = cf_pipeline_free_flagged(sel, m, max_evals, workers, kept, pr, recs, NULL, err);
    cf_pl_stage(pr, "model check", m);
    if (!rc) rc = cf_pipeline_model_check(sel, m, workers, kept, pr, recs, err);
    cf_pl_stage(pr, NULL, 0);
  }
  free(sel), free(recs), free(d0), free(a0), free(t1);
  return rc;
}

int cf_pipeline_study_regress(const cf_fit_input *in, int n, const char *opt_name, int search, int max_evals,
                              int workers, const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_results *r,
                              cf_error *err) {
  if (cf_pipeline_n_valid(r) < 4) return CF_OK; /* the formulas have 4 coefficients each */
  cf_pl_stage(pr, "regress", cf_regress_progress_total(&(cf_regress_options){.search = search, .max_evals = max_evals}));
  int rc = cf_pipeline_regress(in, n, r, opt_name, 1, search, max_evals, workers, kept, pr, &r->reg, err);
  cf_pl_stage(pr, NULL, 0);
  return rc;
}

int cf_pipeline_study_detail(const cf_fit_input *in, int np, int max_evals, int workers, cf_pipeline_tasks *tasks,
                             const cf_pipeline_progress *pr, cf_res_rec *rec, cf_error *err) {
  if (!rec->has_fit) return cf_error_set(err, CF_EINVAL, "%s: no fit to look closer at", in->path);
  const cf_res_fit *f = &rec->fit;
  double D = f->x[0], A = f->x[1], end = in->duration, split = f->train_t1_s; /* compare takes fractions of it */
  int rc = cf_pipeline_sensitivity(in, "map", D, A, np, split, INFINITY, workers, tasks, pr, rec, err);
  int models[CF_CLOTH_MODELS];
  for (int k = 0; k < CF_CLOTH_MODELS; k++) models[k] = k;
  if (!rc)
    rc = cf_pipeline_compare(in, models, CF_CLOTH_MODELS, f->train_t0_s / end, split / end, D, A, max_evals, workers,
                             tasks, pr, rec, err);
  /* thesis §4.1.5: the fitting mesh, then twice as fine across, down and
   * both (a mesh recording is fitted on its own mesh, split 1: 9 x 9 -> 9 x
   * 17, 17 x 9, 17 x 17; a cloud's 5 x 5 lattice split 2 gives the same) */
  int sd = f->model.split > 0 ? f->model.split : CF_LATTICE_SPLIT_DEFAULT;
  int sc = f->model.split_cols > 0 ? f->model.split_cols : sd;
  const int meshes[][2] = {{sd, sc}, {sd, 2 * sc}, {2 * sd, sc}, {2 * sd, 2 * sc}};
  if (!rc) rc = cf_pipeline_remesh(in, meshes, 4, workers, tasks, pr, rec, err);
  return rc;
}
