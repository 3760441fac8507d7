/* test_report.c — `clothfit report` (docs/report.md; src/report).
 *
 * A results file is made with the library's writer (tests/resultsgen.c,
 * cf_test_results_small): four recordings — a refined fit with its
 * per-frame series (one frame without markers), a failed and a pruned grid
 * point and a ground truth; a repetition II recording with only a sweep; a
 * recording whose grid points all failed, named with characters every
 * format must escape ('_', '&'); a recording with a one-value delta axis, a
 * sensitivity map and a series without any value — each with its S, V and
 * rho, and a regression with the formula's error of its two recordings
 * (one failed).  Then `clothfit report` is run on it and the test checks:
 *   - the tables: tables/ID.csv hold exactly the expected
 *     rows and numbers, made here from the values read back with
 *     cf_results_read (errors and stds "%.3f", delta, alpha, coefficients,
 *     S, V, rho "%.4f"), Table 4.5's means and Table 4.9's delta^, alpha^
 *     recomputed here; the Markdown and LaTeX (booktabs) files hold the same
 *     rows with the same digits; report.md holds every Markdown table; a
 *     few literal golden lines;
 *   - the figures and the page: every gnuplot script exits 0
 *     when run again with gnuplot from another folder and writes its SVG
 *     and PNG; every file index.html references exists, every image is a
 *     valid PNG/SVG of more than 1000 bytes with the pixel size its script
 *     sets, no reference is a network address or an absolute path, every
 *     anchor has its target (report_check.c); the failed grid point is in
 *     the surface's data; the study figures' points lie their residual
 *     above the formula's line; --json and the progress lines count the
 *     figures; no temporary file is left;
 *   - a gnuplot that fails on two figures (the later one sooner), with
 *     --workers 2: both counted and left out of the page, the first in the
 *     report's order named, exit 1;
 *   - without gnuplot on PATH: the same tables, every script and data file,
 *     no image in index.html, the one-line message and a non-zero exit;
 *   - a missing results file and a file that is not one fail with one line.
 * If gnuplot is not installed, only the missing-gnuplot path is checked.
 *
 * usage: test_report CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include "cf_io.h"
#include "cli_json.h"
#include "report_check.h"
#include "resultsgen.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_test_report.XXXXXX";

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

/* Table 4.9: every recording (all have S, V, rho): the formula's values
 * computed here, the optimum, e_hat of the regression's recordings. */
static void expect_49(const cf_results *r, rows *t) {
  memset(t, 0, sizeof *t);
  t->ncol = 12;
  const cf_res_regression *g = &r->reg;
  for (int k = 0; k < r->n; k++) {
    const cf_res_rec *c = &r->recs[k];
    int i = t->nrow++, u = -1;
    for (int j = 0; j < g->n_used; j++)
      if (!strcmp(g->used[j], c->name)) u = j;
    double dh = g->f.d[0] + g->f.d[1] * c->S + g->f.d[2] * c->V + g->f.d[3] * c->rho;
    double ah = g->f.a[0] + g->f.a[1] * c->S + g->f.a[2] * c->V + g->f.a[3] * c->rho;
    double d = NAN, a = NAN, e = NAN;
    if (c->has_fit) d = c->fit.x[0], a = c->fit.x[1], e = c->fit.e_all;
    else if (c->has_sweep && c->sweep.best >= 0)
      d = c->sweep.delta[c->sweep.best / c->sweep.na], a = c->sweep.alpha[c->sweep.best % c->sweep.na],
      e = c->sweep.e[c->sweep.best];
    snprintf(t->cell[i][0], 96, "%.95s", c->name), snprintf(t->cell[i][1], 96, "%.95s", c->meta.material);
    put(t, i, 2, "%.4f", c->S), put(t, i, 3, "%.4f", c->V), put(t, i, 4, "%.4f", c->rho);
    put(t, i, 5, "%.4f", dh), put(t, i, 6, "%.4f", d), put(t, i, 7, "%.4f", ah), put(t, i, 8, "%.4f", a);
    if (u >= 0 && isinf(g->e_hat[u])) snprintf(t->cell[i][9], 96, "failed");
    else put(t, i, 9, "%.3f", u >= 0 ? g->e_hat[u] : NAN);
    put(t, i, 10, "%.3f", e);
    snprintf(t->cell[i][11], 96, "%s", u >= 0 ? "yes" : "no");
  }
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

/* A gnuplot on PATH that fails on the scripts of the wool and felt
 * recordings (the 3rd and 4th figures; wool after 0.5 s, so that felt fails
 * first) and runs the real one on the others. */
static void check_failing_figures(const char *res, const char *gnuplot) {
  char bin[600], fake[700], out[600], path[4096];
  snprintf(bin, sizeof bin, "%s/fakebin", dir);
  snprintf(fake, sizeof fake, "%s/gnuplot", bin);
  snprintf(out, sizeof out, "%s/reports/failing", dir);
  mkdir(bin, 0755);
  FILE *f = fopen(fake, "w");
  if (f) fprintf(f, "#!/bin/sh\ncase \"$*\" in *wool*) sleep 0.5;; esac\n"
                 "case \"$*\" in *wool*|*felt*) echo \"fake gnuplot: refusing $3\" >&2; exit 1;; esac\nexec '%s' \"$@\"\n", gnuplot), fclose(f);
  chmod(fake, 0755);
  char *old = strdup(getenv("PATH") ? getenv("PATH") : "");
  snprintf(path, sizeof path, "%s:%s", bin, old);
  setenv("PATH", path, 1);
  char *argv[] = {(char *)exe, "report", (char *)res, "-o", out, "--workers", "2", "--json", NULL}, *so, *se;
  int st = cf_test_run(argv, dir, &so, &se);
  setenv("PATH", old, 1);
  free(old);
  const char *json = cf_test_last_line(so ? so : "");
  CHECK(st == 1 && cf_test_json_num(json, "figures") == 9 && cf_test_json_num(json, "figures_failed") == 2,
        "failing figures: exit %d, %s", st, json);
  CHECK(se && strstr(se, "clothfit report: 2 of 11 figures failed; the first: ") &&
            strstr(se, "wool-A3-twist-slow-II-surface.gp: fake gnuplot: refusing"),
        "failing figures: stderr %s", se ? se : "");
  char *html = read_rel(out, "index.html");
  CHECK(html && cf_test_report_links(out, html) == 9 && !strstr(html, "wool-A3-twist-slow-II-surface.svg") &&
            strstr(html, "(not drawn)"), "failing figures: index.html");
  free(html), free(so), free(se);
  CHECK(temp_files(out) == 0, "temporary files left in %s", out);
}

/* rb written again without the formula's errors (as files before them):
 * read back without them, and Table 4.9 has e_hat "" and says why. */
static void check_without_e_hat(cf_results *rb) {
  char res[600], out[600];
  snprintf(res, sizeof res, "%s/old.h5", dir);
  snprintf(out, sizeof out, "%s/reports/old", dir);
  double *keep = rb->reg.e_hat;
  rb->reg.e_hat = NULL;
  cf_error err = {0, ""};
  int rc = cf_results_write(res, rb, &err);
  rb->reg.e_hat = keep;
  cf_results back;
  CHECK(rc == 0 && cf_results_read(res, &back, &err) == 0, "the file without error_formula: %s", err.msg);
  if (rc || err.msg[0]) return;
  CHECK(back.reg.has && back.reg.n_used == 2 && !back.reg.e_hat, "read back: regression %d, %d used, e_hat %p",
        back.reg.has, back.reg.n_used, (void *)back.reg.e_hat);
  cf_results_free(&back);
  char *old = strdup(getenv("PATH") ? getenv("PATH") : ""), *so, *se;
  setenv("PATH", "/nonexistent-clothfit-test", 1); /* tables only */
  run_report(res, out, 0, &so, &se);
  setenv("PATH", old, 1);
  char *t49 = read_rel(out, "tables/table_4_9.csv"), *md = read_rel(out, "tables/table_4_9.md");
  CHECK(t49 && strstr(t49, ",0.2670,0.2012,1.5672,0.8988,,0.543,yes\n") && !strstr(t49, "failed"),
        "table_4_9.csv without error_formula:\n%s", t49 ? t49 : "");
  CHECK(md && strstr(md, "(not stored in this file)"), "table_4_9.md without error_formula:\n%s", md ? md : "");
  free(old), free(so), free(se), free(t49), free(md);
}

/* rb with kappa fitted on its denim fit (fit --params ...,kappa, or the
 * pipeline's refit of a flagged fit): Table A.1 gains the columns kappa,
 * beta and fitted, the denim row names kappa as fitted, the others none;
 * without a fitted kappa or beta the table has no such columns (check_tables). */
static void check_kappa_fitted(cf_results *rb) {
  char res[600], out[600];
  snprintf(res, sizeof res, "%s/kb.h5", dir);
  snprintf(out, sizeof out, "%s/reports/kb", dir);
  cf_res_rec *c = NULL;
  for (int i = 0; i < rb->n; i++)
    if (!strcmp(rb->recs[i].name, "denim-A2-shake-fast-I")) c = &rb->recs[i];
  CHECK(c && c->has_fit, "the small results have a denim fit");
  if (!c || !c->has_fit) return;
  cf_res_fit keep = c->fit;
  c->fit.kappa_fitted = 1, c->fit.start_kappa = 1e-5, c->fit.model.kappa = 3.2e-4, c->fit.model.beta = 1e-4;
  cf_error err = {0, ""};
  int rc = cf_results_write(res, rb, &err);
  c->fit = keep;
  CHECK(rc == 0, "writing the results with kappa fitted: %s", err.msg);
  if (rc) return;
  char *old = strdup(getenv("PATH") ? getenv("PATH") : ""), *so, *se;
  setenv("PATH", "/nonexistent-clothfit-test", 1); /* tables only */
  run_report(res, out, 0, &so, &se);
  setenv("PATH", old, 1);
  char *a1 = read_rel(out, "tables/table_a1.csv"), *md = read_rel(out, "tables/table_a1.md");
  CHECK(a1 && strstr(a1, ",alpha_truth,delta_truth,kappa,beta,fitted\n"), "table_a1.csv with kappa fitted: the "
        "head:\n%s", a1 ? a1 : "");
  CHECK(a1 && strstr(a1, "\ndenim-A2-shake-fast-I,denim,A2,shake,fast,I,0.543,0.235,0.8988,0.2012,nelder-mead,"
                         "0.8980,0.2010,0.00032,0.0001,kappa\n"), "table_a1.csv: the denim row with kappa "
        "fitted:\n%s", a1 ? a1 : "");
  CHECK(a1 && strstr(a1, "\nfelt_A3&odd,felt,A3,shake,slow,I,,,,,none: no valid grid point,,"), "table_a1.csv: the "
        "failed row with kappa columns:\n%s", a1 ? a1 : "");
  CHECK(md && strstr(md, "kappa, beta: the bending stiffness"), "table_a1.md says what kappa and beta are:\n%s",
        md ? md : "");
  free(old), free(so), free(se), free(a1), free(md);
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
  expect_49(rb, &t);
  CHECK(t.nrow == 4, "expected 4 rows in Table 4.9, made %d", t.nrow);
  check_table(out, "table_4_9",
              "recording,material,S,V_m2s2,rho,delta_hat,delta_opt,alpha_hat,alpha_opt,e_hat_cm,e_opt_cm,in_fit", &t);

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
  /* 4.9, by hand: delta^ = -0.0223 - 0.01779*2 + 0.07142*0.9 + 0.76643*0.34 = 0.26698...,
   * alpha^ = 0.2082 - 0.14812*2 + 1.18036*0.9 + 1.74394*0.34 = 1.56722... */
  char *t49 = read_rel(out, "tables/table_4_9.csv");
  CHECK(t49 && strstr(t49, "\ndenim-A2-shake-fast-I,denim,2.0000,0.9000,0.3400,0.2670,0.2012,1.5672,0.8988,0.612,0.543,"
                           "yes\n") && strstr(t49, ",0.789,yes\n") && strstr(t49, ",failed,0.789,yes\n"),
        "table_4_9.csv:\n%s", t49 ? t49 : "");
  free(a1), free(a2), free(t45), free(t46), free(a1tex), free(t49);
}

/* The study's figures: four, each point's height above the formula's line
 * equal to its residual (delta_opt - delta_hat or alpha_opt - alpha_hat). */
static void check_study_figures(const char *out) {
  const char *ids[4] = {"study-delta-V", "study-delta-rho", "study-alpha-V", "study-alpha-rho"};
  for (int q = 0; q < 4; q++) {
    char rel[128];
    snprintf(rel, sizeof rel, "figures/%s.dat", ids[q]);
    char *dat = read_rel(out, rel);
    CHECK(dat != NULL, "%s missing", rel);
    if (!dat) continue;
    double x0, y0, x1, y1;
    const char *p = strstr(dat, "# the formula:");
    p = p ? strchr(p, '\n') : NULL;
    CHECK(p && sscanf(p, "%lf %lf %lf %lf", &x0, &y0, &x1, &y1) == 4 && x1 > x0, "%s: the line", rel);
    int points = 0;
    for (const char *l = p ? strstr(p, "\n\n\n") : NULL; l && (l = strchr(l, '\n')); l++) {
      double x, ya, yo, yh;
      if (l[1] == '#' || sscanf(l + 1, "%lf %lf %lf %lf", &x, &ya, &yo, &yh) != 4) continue;
      double line = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
      CHECK(fabs((ya - line) - (yo - yh)) < 1e-9, "%s: point at %g: %g above the line, residual %g", rel, x,
            ya - line, yo - yh);
      points++;
    }
    CHECK(points == 3, "%s: %d points, expected the 3 recordings with an optimum", rel, points);
    free(dat);
  }
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
  cf_results rb;
  if (cf_test_results_small_read(res, &rb)) return 1;
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
    CHECK(json[0] == '{' && cf_test_json_num(json, "tables") == 5 && cf_test_json_num(json, "figures") == 11 &&
              cf_test_json_num(json, "figures_planned") == 11 && cf_test_json_num(json, "figures_failed") == 0,
          "--json: %s", json);
    char want[600];
    snprintf(want, sizeof want, "%s/index.html", out);
    CHECK(cf_test_json_has_str(json, "index", want) && cf_test_json_is(json, "gnuplot", "true"), "--json: %s", json);
    /* progress forced into a file: one line per figure (11 < 10 steps), no carriage return */
    int lines = 0;
    for (const char *p = se; (p = strstr(p, "clothfit report: figures ")); p++) lines++;
    CHECK(strstr(se, "figures 11/11") && strstr(se, "figures 1/11") && lines == 11 && !strchr(se, '\r'),
          "progress on stderr: %d lines: %s", lines, se);
    check_tables(out, &rb);
    char *html = read_rel(out, "index.html");
    CHECK(html != NULL, "no index.html");
    if (html) {
      CHECK(!strstr(html, "http://") && !strstr(html, "https://"), "index.html has a web address");
      CHECK(cf_test_report_links(out, html) == 11, "index.html: expected 11 images");
      CHECK(strstr(html, "felt_A3&amp;odd"), "index.html: the escaped name");
      CHECK(strstr(html, "<td class=\"num\">0.543</td>"), "index.html: the denim error");
    }
    free(html);
    char *dat = read_rel(out, "figures/denim-A2-shake-fast-I-surface.dat");
    CHECK(dat && strstr(dat, "# failed grid points") && strstr(dat, "\n0.29999999999999999 1.2 5\n") &&
              strstr(dat, "# pruned grid points") && strstr(dat, "# refined optimum") && strstr(dat, "# grid optimum"),
          "the surface's data: %s", dat ? dat : "(missing)");
    free(dat);
    char *sg = read_rel(out, "figures/denim-A2-shake-fast-I-series.gp");
    CHECK(sg && strstr(sg, "set object 10 rect from 0.19500000000000001, graph 0 to 0.29499999999999998, graph 1") &&
              strstr(sg, "set object 11 rect from 0.32500000000000001, graph 0 to 0.35499999999999998, graph 1") &&
              !strstr(sg, "set object 12") && strstr(sg, "the cloth touches an obstacle"),
          "the series' contact shading: %s", sg ? sg : "(missing)");
    free(sg);
    char *gp = read_rel(out, "figures/felt_A3_odd-surface.gp");
    CHECK(gp && strstr(gp, "pointtype 2") && !strstr(gp, "boxxyerror"), "all-failed surface: crosses only: %s",
          gp ? gp : "(missing)");
    free(gp);
    CHECK(temp_files(out) == 0, "temporary files left in %s", out);
    CHECK(rerun_scripts(gnuplot, out) == 11, "expected 11 gnuplot scripts");
    check_study_figures(out);
    free(so), free(se);
  }

  /* 1b. figures gnuplot fails on, drawn two at a time: counted, left out of
   * the page, the first in the report's order named, whatever finished first */
  if (have) check_failing_figures(res, gnuplot);

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
    CHECK(cf_test_json_num(json, "tables") == 5 && cf_test_json_num(json, "figures") == 0 &&
              cf_test_json_num(json, "figures_planned") == 11 && cf_test_json_is(json, "gnuplot", "false"),
          "without gnuplot: --json %s", json);
    check_tables(out2, &rb);
    char *html = read_rel(out2, "index.html");
    CHECK(html && !strstr(html, "<img") && strstr(html, "gnuplot was not found"), "without gnuplot: index.html");
    if (html) cf_test_report_links(out2, html);
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

  /* 2b. a results file written before /regression/error_formula was stored */
  check_without_e_hat(&rb);
  check_kappa_fitted(&rb);

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
