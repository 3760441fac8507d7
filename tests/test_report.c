/* test_report.c — `clothfit report` (issue 13, first part; src/report).
 *
 * A results file is made here with the library's writer (cf_results_write):
 * four recordings — a refined fit with its per-frame series (one frame
 * without markers), a failed and a pruned grid point and a ground truth; a
 * repetition II recording with only a sweep; a recording whose grid points
 * all failed, named with characters every format must escape ('_', '&');
 * a recording with a one-value delta axis, a sensitivity map and a series
 * without any value — and a regression.  Then `clothfit report` is run on it
 * and the test checks:
 *   - the tables: tables/ID.csv hold exactly the expected rows and numbers,
 *     made here from the values read back with cf_results_read (errors and
 *     stds "%.3f", delta, alpha, coefficients "%.4f"), Table 4.5's means
 *     recomputed here from the per-recording values; the Markdown and LaTeX
 *     (booktabs) files hold the same rows with the same digits; report.md
 *     holds every Markdown table; a few literal golden lines;
 *   - the figures: every gnuplot script exits 0 when run again with gnuplot
 *     from another folder and writes its SVG and PNG; the failed grid point
 *     is in the surface's data; every file index.html references exists and
 *     is non-empty; index.html has no "http://" or "https://"; --json and the
 *     progress line count the figures; no temporary file is left;
 *   - without gnuplot on PATH: the same tables, every script and data file,
 *     no image in index.html, the one-line message and a non-zero exit;
 *   - a missing results file and a file that is not one fail with one line.
 * If gnuplot is not installed, only the missing-gnuplot path is checked.
 *
 * usage: test_report CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include "cf_io.h"
#include "cli_json.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_test_report.XXXXXX";

/* ------------------------------------------------------- the results file */
static double *dup_d(const double *v, int n) {
  double *p = malloc(sizeof *p * (size_t)n);
  memcpy(p, v, sizeof *p * (size_t)n);
  return p;
}

static void meta(cf_res_rec *c, const char *mat, const char *size, const char *motion, const char *speed,
                 const char *rep) {
  snprintf(c->meta.material, sizeof c->meta.material, "%s", mat);
  snprintf(c->meta.size, sizeof c->meta.size, "%s", size);
  snprintf(c->meta.motion, sizeof c->meta.motion, "%s", motion);
  snprintf(c->meta.speed, sizeof c->meta.speed, "%s", speed);
  snprintf(c->meta.repetition, sizeof c->meta.repetition, "%s", rep);
  c->rho = 0.3, c->S = 2, c->V = 0.1, c->dt = 0.01, c->frames = 40, c->duration = 0.39;
}

/* A sweep of nd x na points with errors e0 + id + 0.37 ia ... (failed: status 5). */
static void sweep(cf_res_rec *c, int nd, const double *delta, int na, const double *alpha, const double *e,
                  const int *status, const unsigned char *pruned, int best) {
  cf_res_sweep *w = &c->sweep;
  c->has_sweep = 1;
  w->nd = nd, w->na = na;
  w->delta = dup_d(delta, nd), w->alpha = dup_d(alpha, na);
  w->e = dup_d(e, nd * na);
  w->s = malloc(sizeof *w->s * (size_t)(nd * na));
  w->status = calloc((size_t)(nd * na), sizeof *w->status);
  w->pruned = calloc((size_t)(nd * na), 1);
  w->reason = calloc((size_t)(nd * na), sizeof *w->reason);
  for (int i = 0; i < nd * na; i++) {
    w->s[i] = status && status[i] ? INFINITY : 0.4 * e[i] + 0.0123;
    if (status) w->status[i] = status[i];
    if (pruned) w->pruned[i] = pruned[i];
    w->reason[i] = strdup(w->status[i] ? "step 7 (t = 0.0700 s): projection: no convergence" : "");
  }
  w->best = best;
  w->t1_s = 0;
  w->model = cf_res_model_default();
}

static void fit(cf_res_rec *c, double d0, double a0, double d, double a, double e, double s, double t1) {
  cf_res_fit *f = &c->fit;
  c->has_fit = 1;
  strcpy(f->method, "nelder-mead");
  strcpy(f->start_kind, "grid");
  f->n_params = 2;
  f->start[0] = d0, f->start[1] = a0, f->start[2] = NAN;
  f->x[0] = d, f->x[1] = a, f->x[2] = NAN;
  f->f_start = e + 0.5, f->f_best = e;
  f->train_t0_s = 0, f->train_t1_s = t1;
  f->e_train = e, f->s_train = s, f->e_test = NAN, f->s_test = NAN;
  f->e_all = e, f->s_all = s;
  f->evaluations = 23, f->iterations = 11, f->converged = 1;
  f->model = cf_res_model_default();
}

static void series(cf_res_rec *c, int T, double d, double a, int gap_from, int gap_to) {
  cf_res_series *z = &c->series;
  c->has_series = 1;
  z->T = T, z->dt = 0.01, z->delta = d, z->alpha = a;
  z->e = malloc(sizeof(double) * T), z->s = malloc(sizeof(double) * T), z->d = malloc(sizeof(double) * T);
  for (int i = 0; i < T; i++) {
    int gap = i >= gap_from && i < gap_to;
    z->e[i] = gap ? NAN : 0.5 + 0.3 * sin(0.3 * i);
    z->s[i] = gap ? NAN : 0.2 + 0.05 * cos(0.2 * i);
    z->d[i] = z->e[i] + 2 * z->s[i];
  }
}

static int make_results(const char *path) {
  cf_results r;
  cf_results_init(&r);
  char arg0[] = "test_report", *argv[] = {arg0, NULL};
  cf_results_stamp(&r, 1, argv, 1, NULL);

  /* 1: refined fit, series with a gap, a failed and a pruned grid point, truth */
  cf_res_rec *c = cf_results_rec(&r, "denim-A2-shake-fast-I", 1);
  meta(c, "denim", "A2", "shake", "fast", "I");
  c->truth_delta = 0.201, c->truth_alpha = 0.898;
  double d1[3] = {0.1, 0.2, 0.3}, a1[4] = {0.3, 0.6, 0.9, 1.2};
  double e1[12] = {3.1, 2.4, 1.9, 2.2, 2.0, 1.1, 0.61234, 1.3, 2.5, 1.7, 1.2, 1.6};
  int st1[12] = {0};
  unsigned char pr1[12] = {0};
  st1[11] = 5, e1[11] = INFINITY;
  pr1[0] = 1;
  sweep(c, 3, d1, 4, a1, e1, st1, pr1, 6);
  fit(c, 0.2, 0.9, 0.20123456, 0.89876543, 0.5432149, 0.2345551, 0.2);
  series(c, 40, 0.20123456, 0.89876543, 10, 12);

  /* 2: repetition II, sweep only (the grid optimum), no truth */
  c = cf_results_rec(&r, "wool-A3-twist-slow-II", 1);
  meta(c, "wool", "A3", "twist", "slow", "II");
  double d2[2] = {0.05, 0.1}, a2[2] = {0.2, 0.4}, e2[4] = {1.4444, 0.98765, 1.2, 2.3456};
  sweep(c, 2, d2, 2, a2, e2, NULL, NULL, 1);

  /* 3: every grid point failed: no optimum; a name to escape */
  c = cf_results_rec(&r, "felt_A3&odd", 1);
  meta(c, "felt", "A3", "shake", "slow", "I");
  double e3[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
  int st3[4] = {3, 3, 5, 3};
  sweep(c, 2, d2, 2, a2, e3, st3, NULL, -1);

  /* 4: a one-value delta axis, a refined fit, a sensitivity map, a series without values */
  c = cf_results_rec(&r, "polyester-A2-shake-slow-I", 1);
  meta(c, "polyester", "A2", "shake", "slow", "I");
  c->truth_delta = 0.041, c->truth_alpha = 0.307;
  double d4[1] = {0.04}, a4[3] = {0.1, 0.3, 0.5}, e4[3] = {0.9, 0.81, 1.05};
  sweep(c, 1, d4, 3, a4, e4, NULL, NULL, 1);
  fit(c, 0.04, 0.3, 0.0412, 0.3055, 0.78901, 0.33335, NAN);
  series(c, 5, 0.0412, 0.3055, 0, 5);
  cf_res_sens *m = &c->sens;
  c->has_sens = 1;
  strcpy(m->kind, "map");
  m->at_delta = 0.0412, m->at_alpha = 0.3055, m->nd = 3, m->na = 3;
  double dm[3] = {0, 0.0412, 0.0824}, am[3] = {0, 0.3055, 0.611};
  m->delta = dup_d(dm, 3), m->alpha = dup_d(am, 3);
  m->e = malloc(sizeof(double) * 9), m->s = malloc(sizeof(double) * 9), m->status = calloc(9, sizeof(int));
  for (int i = 0; i < 9; i++) m->e[i] = 0.8 + 0.1 * abs(i / 3 - 1) + 0.2 * abs(i % 3 - 1), m->s[i] = 0.3;
  m->status[0] = 3, m->e[0] = INFINITY;
  m->model = cf_res_model_default();

  /* the regression */
  cf_res_regression *g = &r.reg;
  g->has = 1;
  double fd[4] = {-0.0223, -0.0178, 0.0714, 0.7664}, fa[4] = {0.2082, -0.1481, 1.1804, 1.744};
  for (int k = 0; k < 4; k++)
    g->f.d[k] = fd[k] + 1e-5 * k, g->f.a[k] = fa[k] - 2e-5 * k, g->f_start.d[k] = fd[k] * 1.1,
    g->f_start.a[k] = fa[k] * 0.9;
  g->R = 0.8765432, g->R_start = 1.23456, g->E = 0.6543219;
  g->evaluations = 77, g->iterations = 31, g->n_used = 2;
  g->used = malloc(2 * sizeof(char *));
  g->used[0] = strdup("denim-A2-shake-fast-I"), g->used[1] = strdup("polyester-A2-shake-slow-I");
  g->model = cf_res_model_default();

  cf_error err = {0, ""};
  int rc = cf_results_write(path, &r, &err);
  if (rc) fprintf(stderr, "cf_results_write: %s\n", err.msg);
  cf_results_free(&r);
  return rc;
}

/* ------------------------------------------------- the expected tables */
/* Rows of cells; "" = no value. */
typedef struct {
  int nrow, ncol;
  char cell[32][16][96];
} rows;

static void put(rows *t, int i, int j, const char *fmt, double v) {
  if (isnan(v)) t->cell[i][j][0] = 0;
  else snprintf(t->cell[i][j], sizeof t->cell[i][j], fmt, v);
}

/* Tables A.1 (rep2 = 0) and A.2 (rep2 = 1) from the file's values. */
static void expect_a(const cf_results *r, int rep2, rows *t) {
  memset(t, 0, sizeof *t);
  t->ncol = 13; /* the file has ground truths */
  for (int k = 0; k < r->n; k++) {
    const cf_res_rec *c = &r->recs[k];
    if ((strcmp(c->meta.repetition, "II") == 0) != rep2) continue;
    int i = t->nrow++;
    const char *text[6] = {c->name, c->meta.material, c->meta.size, c->meta.motion, c->meta.speed, c->meta.repetition};
    for (int j = 0; j < 6; j++) snprintf(t->cell[i][j], sizeof t->cell[i][j], "%s", text[j]);
    double d = NAN, a = NAN, e = NAN, s = NAN;
    const char *how = c->has_sweep ? "none: no valid grid point" : "none: not swept";
    if (c->has_fit) d = c->fit.x[0], a = c->fit.x[1], e = c->fit.e_all, s = c->fit.s_all, how = "nelder-mead";
    else if (c->has_sweep && c->sweep.best >= 0) {
      int b = c->sweep.best;
      d = c->sweep.delta[b / c->sweep.na], a = c->sweep.alpha[b % c->sweep.na], e = c->sweep.e[b], s = c->sweep.s[b];
      how = "grid";
    }
    put(t, i, 6, "%.3f", e), put(t, i, 7, "%.3f", s), put(t, i, 8, "%.4f", a), put(t, i, 9, "%.4f", d);
    snprintf(t->cell[i][10], sizeof t->cell[i][10], "%s", how);
    put(t, i, 11, "%.4f", c->truth_alpha), put(t, i, 12, "%.4f", c->truth_delta);
  }
}

/* Table 4.5 recomputed: for each of material, size, motion, speed the
 * distinct values in order of appearance, then all recordings. */
static void expect_45(const cf_results *r, rows *t) {
  memset(t, 0, sizeof *t);
  t->ncol = 5;
  double e[16], s[16];
  int ok[16];
  for (int k = 0; k < r->n; k++) {
    const cf_res_rec *c = &r->recs[k];
    ok[k] = c->has_fit || (c->has_sweep && c->sweep.best >= 0);
    e[k] = c->has_fit ? c->fit.e_all : ok[k] ? c->sweep.e[c->sweep.best] : NAN;
    s[k] = c->has_fit ? c->fit.s_all : ok[k] ? c->sweep.s[c->sweep.best] : NAN;
  }
  static const char *groups[4] = {"material", "size", "motion", "speed"};
  for (int gi = 0; gi <= 4; gi++) {
    for (int k = 0; k < r->n; k++) {
      const cf_rec_meta *mk = &r->recs[k].meta;
      const char *fields[4] = {mk->material, mk->size, mk->motion, mk->speed};
      const char *v = gi < 4 ? fields[gi] : "all";
      int first = 1;
      for (int j = 0; j < k && first && gi < 4; j++) {
        const cf_rec_meta *mj = &r->recs[j].meta;
        const char *fj[4] = {mj->material, mj->size, mj->motion, mj->speed};
        first = strcmp(fj[gi], v) != 0;
      }
      if (!first || (gi == 4 && k > 0)) continue;
      double se = 0, ss = 0;
      int n = 0;
      for (int j = 0; j < r->n; j++) {
        const cf_rec_meta *mj = &r->recs[j].meta;
        const char *fj[4] = {mj->material, mj->size, mj->motion, mj->speed};
        if (ok[j] && (gi == 4 || !strcmp(fj[gi], v))) se += e[j], ss += s[j], n++;
      }
      if (!n) continue;
      int i = t->nrow++;
      snprintf(t->cell[i][0], 96, "%s", gi < 4 ? groups[gi] : "global");
      snprintf(t->cell[i][1], 96, "%s", v);
      put(t, i, 2, "%.3f", se / n), put(t, i, 3, "%.3f", ss / n);
      snprintf(t->cell[i][4], 96, "%d", n);
    }
  }
}

static void expect_46(const cf_res_regression *g, rows *t) {
  memset(t, 0, sizeof *t);
  t->ncol = 3;
  for (int k = 0; k < 8; k++) {
    snprintf(t->cell[k][0], 96, "%s_%d", k < 4 ? "delta" : "alpha", k % 4);
    put(t, k, 1, "%.4f", k < 4 ? g->f_start.d[k] : g->f_start.a[k - 4]);
    put(t, k, 2, "%.4f", k < 4 ? g->f.d[k] : g->f.a[k - 4]);
  }
  snprintf(t->cell[8][0], 96, "R*_cm"), put(t, 8, 1, "%.3f", g->R_start), put(t, 8, 2, "%.3f", g->R);
  snprintf(t->cell[9][0], 96, "E*_cm"), put(t, 9, 2, "%.3f", g->E);
  t->nrow = 10;
}

static const char *a_head = "recording,material,size,motion,speed,repetition,error_cm,std_cm,alpha,delta,optimum,"
                            "alpha_truth,delta_truth";

/* The CSV text: header, then the rows (no cell here needs quoting). */
static char *csv_text(const char *head, const rows *t) {
  static char buf[16384];
  size_t n = (size_t)snprintf(buf, sizeof buf, "%s\n", head);
  for (int i = 0; i < t->nrow; i++)
    for (int j = 0; j < t->ncol; j++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", t->cell[i][j], j == t->ncol - 1 ? "\n" : ",");
  return buf;
}

static void tex_escape(const char *s, char *out, size_t size) {
  size_t n = 0;
  for (; *s && n + 3 < size; s++) {
    if (strchr("_&%$#{}", *s)) out[n++] = '\\';
    out[n++] = *s;
  }
  out[n] = 0;
}

/* Lines of text starting with prefix (a row of a table in Markdown "| " or
 * LaTeX, below \midrule and above \bottomrule). */
static int count_md_rows(const char *text) {
  int n = 0;
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    n += !strncmp(p, "| ", 2);
  return n - 1; /* the header */
}

static int count_tex_rows(const char *text) {
  const char *a = strstr(text, "\\midrule\n"), *b = strstr(text, "\\bottomrule");
  int n = 0;
  for (const char *p = a; p && b && p < b; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    n += p > a && p < b;
  return n;
}

static char *read_rel(const char *out, const char *rel) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", out, rel);
  return cf_test_slurp(path, NULL);
}

/* The table id in out/tables/: CSV exactly, Markdown and LaTeX the same rows. */
static void check_table(const char *out, const char *id, const char *head, const rows *t) {
  char rel[256];
  snprintf(rel, sizeof rel, "tables/%s.csv", id);
  char *csv = read_rel(out, rel);
  snprintf(rel, sizeof rel, "tables/%s.md", id);
  char *md = read_rel(out, rel);
  snprintf(rel, sizeof rel, "tables/%s.tex", id);
  char *tex = read_rel(out, rel);
  char *report = read_rel(out, "report.md");
  CHECK(csv && md && tex && report, "%s: a file is missing", id);
  if (!csv || !md || !tex || !report) goto done;
  const char *want = csv_text(head, t);
  CHECK(!strcmp(csv, want), "%s.csv differs:\n--- got\n%s--- expected\n%s", id, csv, want);
  CHECK(count_md_rows(md) == t->nrow, "%s.md: %d rows, expected %d", id, count_md_rows(md), t->nrow);
  CHECK(count_tex_rows(tex) == t->nrow, "%s.tex: %d rows, expected %d", id, count_tex_rows(tex), t->nrow);
  CHECK(strstr(tex, "\\toprule\n") && strstr(tex, "\\midrule\n") && strstr(tex, "\\bottomrule\n") &&
            strstr(tex, "\\begin{tabular}") && strstr(tex, "\\end{table}"),
        "%s.tex: not a booktabs table:\n%s", id, tex);
  CHECK(strstr(report, md) != NULL, "report.md does not hold tables/%s.md", id);
  for (int i = 0; i < t->nrow; i++) {
    char mline[2048] = "|", tline[2048] = "", esc[256];
    for (int j = 0; j < t->ncol; j++) {
      const char *v = t->cell[i][j][0] ? t->cell[i][j] : "-";
      snprintf(mline + strlen(mline), sizeof mline - strlen(mline), " %s |", v);
      tex_escape(v, esc, sizeof esc);
      snprintf(tline + strlen(tline), sizeof tline - strlen(tline), "%s%s", j ? " & " : "", esc);
    }
    strcat(mline, "\n");
    strcat(tline, " \\\\\n");
    CHECK(strstr(md, mline) != NULL, "%s.md lacks the row\n%s", id, mline);
    CHECK(strstr(tex, tline) != NULL, "%s.tex lacks the row\n%s", id, tline);
  }
done:
  free(csv), free(md), free(tex), free(report);
}

/* ------------------------------------------------------------- running */
static int run_report(const char *res, const char *out, int json, char **so, char **se) {
  char *argv[8] = {(char *)exe, "report", (char *)res, "-o", (char *)out, json ? "--json" : NULL, NULL};
  int st = cf_test_run(argv, dir, so, se);
  if (!*so) *so = calloc(1, 1);
  if (!*se) *se = calloc(1, 1);
  return st;
}

static int file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (int)st.st_size : -1;
}

/* Every .gp in out/figures: rerun with gnuplot from dir (not the figures
 * folder) after removing its images; exit 0 and both images back. */
static int rerun_scripts(const char *gnuplot, const char *out) {
  char fdir[2048];
  snprintf(fdir, sizeof fdir, "%s/figures", out);
  DIR *d = opendir(fdir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".gp")) continue;
    char script[2300], svg[2300], png[2300];
    snprintf(script, sizeof script, "%s/%s", fdir, e->d_name);
    snprintf(svg, sizeof svg, "%s/%.*s.svg", fdir, (int)(len - 3), e->d_name);
    snprintf(png, sizeof png, "%s/%.*s.png", fdir, (int)(len - 3), e->d_name);
    remove(svg), remove(png);
    char *argv[] = {(char *)gnuplot, script, NULL}, *so = NULL, *se = NULL;
    int st = cf_test_run(argv, dir, &so, &se);
    CHECK(st == 0, "gnuplot %s: exit %d: %s", script, st, se ? se : "");
    CHECK(file_size(svg) > 0 && file_size(png) > 0, "gnuplot %s: no image written", script);
    free(so), free(se);
    n++;
  }
  if (d) closedir(d);
  return n;
}

/* Every src="..." and href="..." of index.html (but #anchors) exists and is
 * non-empty; the count of <img. */
static int check_links(const char *out, const char *html) {
  int imgs = 0;
  for (const char *p = html; (p = strstr(p, "<img")); p++) imgs++;
  const char *attrs[2] = {"src=\"", "href=\""};
  for (int k = 0; k < 2; k++)
    for (const char *p = html; (p = strstr(p, attrs[k])); p++) {
      p += strlen(attrs[k]);
      const char *q = strchr(p, '"');
      if (!q || *p == '#') continue;
      char rel[1024], path[2048];
      snprintf(rel, sizeof rel, "%.*s", (int)(q - p), p);
      snprintf(path, sizeof path, "%s/%s", out, rel);
      CHECK(file_size(path) > 0, "index.html references %s: missing or empty", rel);
      CHECK(!strchr(rel, ':') && rel[0] != '/', "index.html references %s: not a relative path", rel);
    }
  return imgs;
}

/* Files under path whose name holds ".tmp." */
static int temp_files(const char *path) {
  DIR *d = opendir(path);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char sub[2300];
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    struct stat st;
    if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) n += temp_files(sub);
    else n += strstr(e->d_name, ".tmp.") != NULL;
  }
  if (d) closedir(d);
  return n;
}

static void check_tables(const char *out, const cf_results *rb) {
  rows t;
  expect_a(rb, 0, &t);
  CHECK(t.nrow == 3, "expected 3 rows in Table A.1, made %d", t.nrow);
  check_table(out, "table_a1", a_head, &t);
  expect_a(rb, 1, &t);
  CHECK(t.nrow == 1, "expected 1 row in Table A.2, made %d", t.nrow);
  check_table(out, "table_a2", a_head, &t);
  expect_45(rb, &t);
  CHECK(t.nrow == 10, "expected 10 rows in Table 4.5, made %d", t.nrow);
  check_table(out, "table_4_5", "group,value,error_cm,std_cm,n", &t);
  expect_46(&rb->reg, &t);
  check_table(out, "table_4_6", "coefficient,start_lsq,fitted", &t);

  /* literal golden lines (the values given above, rounded by hand) */
  char *a1 = read_rel(out, "tables/table_a1.csv"), *a2 = read_rel(out, "tables/table_a2.csv");
  char *t45 = read_rel(out, "tables/table_4_5.csv"), *t46 = read_rel(out, "tables/table_4_6.tex");
  char *a1tex = read_rel(out, "tables/table_a1.tex");
  CHECK(a1 && strstr(a1, "\ndenim-A2-shake-fast-I,denim,A2,shake,fast,I,0.543,0.235,0.8988,0.2012,nelder-mead,"
                         "0.8980,0.2010\n"), "table_a1.csv: the denim row:\n%s", a1 ? a1 : "");
  CHECK(a1 && strstr(a1, "\nfelt_A3&odd,felt,A3,shake,slow,I,,,,,none: no valid grid point,,\n"),
        "table_a1.csv: the failed row:\n%s", a1 ? a1 : "");
  CHECK(a2 && strstr(a2, "\nwool-A3-twist-slow-II,wool,A3,twist,slow,II,0.988,0.407,0.4000,0.0500,grid,,\n"),
        "table_a2.csv: the wool row:\n%s", a2 ? a2 : "");
  /* 4.5 global: (0.5432149 + 0.98765 + 0.78901) / 3, stds (0.2345551 + 0.40736 + 0.33335) / 3 */
  CHECK(t45 && strstr(t45, "\nglobal,all,0.773,0.325,3\n"), "table_4_5.csv: the global row:\n%s", t45 ? t45 : "");
  CHECK(t45 && strstr(t45, "\nsize,A2,0.666,0.284,2\n"), "table_4_5.csv: the A2 row:\n%s", t45 ? t45 : "");
  CHECK(t46 && strstr(t46, "R*\\_cm & 1.235 & 0.877 \\\\\n") && strstr(t46, "E*\\_cm & - & 0.654 \\\\\n") &&
            strstr(t46, "delta\\_0 & -0.0245 & -0.0223 \\\\\n"),
        "table_4_6.tex:\n%s", t46 ? t46 : "");
  CHECK(a1tex && strstr(a1tex, "felt\\_A3\\&odd & felt & A3 & shake & slow & I & - & - & - & - & none: no valid "
                               "grid point & - & - \\\\\n"), "table_a1.tex: the escaped row:\n%s", a1tex ? a1tex : "");
  free(a1), free(a2), free(t45), free(t46), free(a1tex);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_report CLOTHFIT_EXE [SOURCE_ROOT]\n");
    return 2;
  }
  exe = argv[1];
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  char res[512], out[512], out2[512], gnuplot[1024];
  snprintf(res, sizeof res, "%s/study.h5", dir);
  snprintf(out, sizeof out, "%s/reports/study", dir);
  snprintf(out2, sizeof out2, "%s/reports/nognuplot", dir);
  if (make_results(res)) return 1;
  cf_results rb;
  cf_error err = {0, ""};
  if (cf_results_read(res, &rb, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  int have = cf_test_find_program("gnuplot", gnuplot, sizeof gnuplot);
  if (!have) fprintf(stderr, "test_report: gnuplot is not installed: only the missing-gnuplot path is checked\n");

  /* 1. with gnuplot */
  if (have) {
    setenv("CLOTHFIT_PROGRESS", "1", 1);
    char *so, *se;
    int st = run_report(res, out, 1, &so, &se);
    unsetenv("CLOTHFIT_PROGRESS");
    CHECK(st == 0, "clothfit report: exit %d: %s", st, se);
    const char *json = cf_test_last_line(so);
    /* figures: denim surface + series, wool surface, felt surface, polyester surface + series + sensitivity */
    CHECK(json[0] == '{' && cf_test_json_num(json, "tables") == 4 && cf_test_json_num(json, "figures") == 7 &&
              cf_test_json_num(json, "figures_planned") == 7 && cf_test_json_num(json, "figures_failed") == 0,
          "--json: %s", json);
    char want[600];
    snprintf(want, sizeof want, "\"index\":\"%s/index.html\"", out);
    CHECK(strstr(json, want) && strstr(json, "\"gnuplot\":true"), "--json: %s", json);
    CHECK(strstr(se, "figures 7/7"), "progress on stderr: %s", se);
    check_tables(out, &rb);
    char *html = read_rel(out, "index.html");
    CHECK(html != NULL, "no index.html");
    if (html) {
      CHECK(!strstr(html, "http://") && !strstr(html, "https://"), "index.html has a web address");
      CHECK(check_links(out, html) == 7, "index.html: expected 7 images");
      CHECK(strstr(html, "felt_A3&amp;odd"), "index.html: the escaped name");
      CHECK(strstr(html, "<td class=\"num\">0.543</td>"), "index.html: the denim error");
    }
    free(html);
    char *dat = read_rel(out, "figures/denim-A2-shake-fast-I-surface.dat");
    CHECK(dat && strstr(dat, "# failed grid points") && strstr(dat, "\n0.29999999999999999 1.2 5\n") &&
              strstr(dat, "# pruned grid points") && strstr(dat, "# refined optimum") && strstr(dat, "# grid optimum"),
          "the surface's data: %s", dat ? dat : "(missing)");
    free(dat);
    char *gp = read_rel(out, "figures/felt_A3_odd-surface.gp");
    CHECK(gp && strstr(gp, "pointtype 2") && !strstr(gp, "boxxyerror"), "all-failed surface: crosses only: %s",
          gp ? gp : "(missing)");
    free(gp);
    CHECK(temp_files(out) == 0, "temporary files left in %s", out);
    CHECK(rerun_scripts(gnuplot, out) == 7, "expected 7 gnuplot scripts");
    free(so), free(se);
  }

  /* 2. without gnuplot on PATH */
  {
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent-clothfit-test", 1);
    char *so, *se;
    int st = run_report(res, out2, 1, &so, &se);
    if (old) setenv("PATH", old, 1);
    free(old);
    CHECK(st != 0, "without gnuplot: exit 0");
    CHECK(!strcmp(se, "clothfit report: gnuplot not found: figures skipped (install gnuplot)\n"),
          "without gnuplot: stderr '%s'", se);
    const char *json = cf_test_last_line(so);
    CHECK(cf_test_json_num(json, "tables") == 4 && cf_test_json_num(json, "figures") == 0 &&
              cf_test_json_num(json, "figures_planned") == 7 && strstr(json, "\"gnuplot\":false"),
          "without gnuplot: --json %s", json);
    check_tables(out2, &rb);
    char *html = read_rel(out2, "index.html");
    CHECK(html && !strstr(html, "<img") && strstr(html, "gnuplot was not found"), "without gnuplot: index.html");
    if (html) check_links(out2, html);
    free(html);
    char *gp = read_rel(out2, "figures/wool-A3-twist-slow-II-surface.gp");
    char *dat = read_rel(out2, "figures/wool-A3-twist-slow-II-surface.dat");
    CHECK(gp && dat, "without gnuplot: the scripts and data are written");
    free(gp), free(dat);
    char svg[700];
    snprintf(svg, sizeof svg, "%s/figures/wool-A3-twist-slow-II-surface.svg", out2);
    CHECK(file_size(svg) < 0, "without gnuplot: an image was written");
    if (have) { /* the same tables either way */
      const char *ids[4] = {"table_a1.csv", "table_a2.md", "table_4_5.tex", "table_4_6.csv"};
      for (int k = 0; k < 4; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "tables/%s", ids[k]);
        char *x = read_rel(out, rel), *y = read_rel(out2, rel);
        CHECK(x && y && !strcmp(x, y), "%s differs with and without gnuplot", rel);
        free(x), free(y);
      }
    }
    free(so), free(se);
  }

  /* 3. errors: one line naming the file */
  {
    char missing[600], bogus[600], out3[600];
    snprintf(missing, sizeof missing, "%s/nosuch.h5", dir);
    snprintf(bogus, sizeof bogus, "%s/bogus.h5", dir);
    snprintf(out3, sizeof out3, "%s/reports/bad", dir);
    FILE *f = fopen(bogus, "w");
    if (f) fputs("not hdf5\n", f), fclose(f);
    const char *inputs[2] = {missing, bogus};
    for (int k = 0; k < 2; k++) {
      char *so, *se;
      int st = run_report(inputs[k], out3, 0, &so, &se);
      CHECK(st != 0, "report %s: exit 0", inputs[k]);
      CHECK(!strncmp(se, "clothfit report: ", 17) && strstr(se, inputs[k]) && strchr(se, '\n') == se + strlen(se) - 1,
            "report %s: stderr '%s'", inputs[k], se);
      free(so), free(se);
    }
    struct stat st;
    CHECK(stat(out3, &st) != 0, "a failed report created %s", out3);
  }

  cf_results_free(&rb);
  if (!cf_test_failures) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  }
  return cf_test_done("test_report");
}
