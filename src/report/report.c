/* report.c — cf_report_write (cf_report.h): the folders, the tables in
 * every format, the figures, then report.md and index.html. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_internal.h"

static int make_dir(const char *dir, cf_error *err) {
  char probe[4300];
  snprintf(probe, sizeof probe, "%s/x", dir);
  if (cf_io_ensure_parent(probe, err)) return CF_EIO;
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return cf_error_set(err, CF_EIO, "%s: cannot create the folder (a file of that name?)", dir);
  return CF_OK;
}

/* ------------------------------------------------------------- the pages */
static const char *or_dash(const char *s) { return s && s[0] ? s : "-"; }

/* Provenance as "key: value" pairs (both formats show the same). */
static int prov_items(const cf_results *r, const char *results_path, const char *key[8], char val[8][2200]) {
  const cf_res_provenance *p = &r->prov;
  int n = 0;
  key[n] = "results file", snprintf(val[n++], sizeof val[0], "%s", or_dash(results_path));
  key[n] = "written by", snprintf(val[n++], sizeof val[0], "clothfit %s (git %s) on %s, %s", or_dash(p->tool_version),
                                  or_dash(p->git_revision), or_dash(p->hostname), or_dash(p->end_time));
  key[n] = "command", snprintf(val[n++], sizeof val[0], "%s", or_dash(p->command));
  key[n] = "recordings", snprintf(val[n++], sizeof val[0], "%d", r->n);
  return n;
}

static void markdown(cf_rbuf *b, const cf_results *r, const char *results_path, const cf_rtable *t, int nt,
                     const cf_rfigure *f, int nf, int gnuplot) {
  const char *key[8];
  static char val[8][2200];
  cf_rbuf_puts(b, "# clothfit report");
  if (results_path) cf_rbuf_puts(b, ": "), cf_rbuf_puts(b, results_path);
  cf_rbuf_puts(b, "\n\n");
  int np = prov_items(r, results_path, key, val);
  for (int i = 0; i < np; i++) cf_rbuf_printf(b, "- %s: ", key[i]), cf_rbuf_md(b, val[i]), cf_rbuf_puts(b, "\n");
  cf_rbuf_puts(b, "\n## Tables\n\n");
  if (!nt) cf_rbuf_puts(b, "The results file has no optimum and no regression: no table.\n\n");
  for (int i = 0; i < nt; i++) {
    cf_rtable_md(&t[i], b);
    cf_rbuf_printf(b, "\nAlso as tables/%s.csv and tables/%s.tex.\n\n", t[i].id, t[i].id);
  }
  cf_rbuf_puts(b, "## Figures\n\n");
  char note[2048];
  if (cf_report_snapshots_note(r, note, sizeof note)) cf_rbuf_md(b, note), cf_rbuf_puts(b, "\n\n");
  if (!nf) cf_rbuf_puts(b, "The results file has no sweep, series or sensitivity map: no figure.\n");
  else if (!gnuplot)
    cf_rbuf_puts(b, "Not drawn: gnuplot was not found.  Each figure's script and data are in figures/: install "
                    "gnuplot and run `gnuplot figures/NAME.gp`, or `clothfit report` again.\n\n");
  const char *last = NULL;
  for (int i = 0; i < nf; i++) {
    if (!last || strcmp(last, f[i].rec)) cf_rbuf_puts(b, "### "), cf_rbuf_md(b, f[i].rec), cf_rbuf_puts(b, "\n\n");
    last = f[i].rec;
    if (f[i].drawn) {
      cf_rbuf_puts(b, "![");
      cf_rbuf_md(b, f[i].caption);
      cf_rbuf_printf(b, "](figures/%s.%s)\n\n", f[i].id, f[i].gif ? "gif" : "svg");
    } else {
      cf_rbuf_md(b, f[i].caption);
      cf_rbuf_printf(b, ": not drawn (figures/%s.gp, figures/%s.dat)\n\n", f[i].id, f[i].id);
    }
  }
}

static const char *css =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;color:#222}\n"
    "table{border-collapse:collapse;margin:1em 0 .3em}caption{text-align:left;font-weight:bold;padding:.3em 0}\n"
    "th,td{padding:.15em .6em;border-bottom:1px solid #ccc}th{border-bottom:2px solid #444;text-align:left}\n"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "p.note{font-size:90%;color:#555;margin:.2em 0 1em}dl.prov dt{font-weight:bold;float:left;clear:left;width:9em}\n"
    "dl.prov dd{margin-left:10em}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}\n"
    "figcaption{font-size:90%;color:#444}.warn{color:#a00}\n";

static void html(cf_rbuf *b, const cf_results *r, const char *results_path, const cf_rtable *t, int nt,
                 const cf_rfigure *f, int nf, int gnuplot) {
  const char *key[8];
  static char val[8][2200];
  cf_rbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>clothfit report");
  if (results_path) cf_rbuf_puts(b, ": "), cf_rbuf_html(b, results_path);
  cf_rbuf_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>clothfit report</h1>\n<dl class=\"prov\">\n",
                 css);
  int np = prov_items(r, results_path, key, val);
  for (int i = 0; i < np; i++)
    cf_rbuf_printf(b, "<dt>%s</dt><dd>", key[i]), cf_rbuf_html(b, val[i]), cf_rbuf_puts(b, "</dd>\n");
  cf_rbuf_puts(b, "</dl>\n<p>Contents: <a href=\"#tables\">tables</a>");
  const char *last = NULL;
  for (int i = 0; i < nf; i++) {
    if (last && !strcmp(last, f[i].rec)) continue;
    last = f[i].rec;
    cf_rbuf_printf(b, " · <a href=\"#fig-%s\">", f[i].id);
    cf_rbuf_html(b, f[i].rec);
    cf_rbuf_puts(b, "</a>");
  }
  cf_rbuf_puts(b, "; also <a href=\"report.md\">report.md</a>.</p>\n<h2 id=\"tables\">Tables</h2>\n");
  if (!nt) cf_rbuf_puts(b, "<p>The results file has no optimum and no regression: no table.</p>\n");
  for (int i = 0; i < nt; i++) {
    cf_rtable_html(&t[i], b);
    cf_rbuf_printf(b, "<p class=\"note\">Files: <a href=\"tables/%s.csv\">CSV</a> · <a href=\"tables/%s.md\">"
                      "Markdown</a> · <a href=\"tables/%s.tex\">LaTeX</a></p>\n", t[i].id, t[i].id, t[i].id);
  }
  cf_rbuf_puts(b, "<h2 id=\"figures\">Figures</h2>\n");
  char note[2048];
  if (cf_report_snapshots_note(r, note, sizeof note))
    cf_rbuf_puts(b, "<p class=\"note\">"), cf_rbuf_html(b, note), cf_rbuf_puts(b, "</p>\n");
  if (!nf) cf_rbuf_puts(b, "<p>The results file has no sweep, series or sensitivity map: no figure.</p>\n");
  else if (!gnuplot)
    cf_rbuf_puts(b, "<p class=\"warn\">Not drawn: gnuplot was not found.  Each figure's script and data are in "
                    "figures/: install gnuplot and run <code>gnuplot figures/NAME.gp</code>, or "
                    "<code>clothfit report</code> again.</p>\n");
  last = NULL;
  for (int i = 0; i < nf; i++) {
    if (!last || strcmp(last, f[i].rec)) {
      cf_rbuf_printf(b, "<h3 id=\"fig-%s\">", f[i].id);
      cf_rbuf_html(b, f[i].rec);
      cf_rbuf_puts(b, "</h3>\n");
    }
    last = f[i].rec;
    const char *id = f[i].id;
    cf_rbuf_puts(b, "<figure>\n");
    if (f[i].drawn) {
      cf_rbuf_printf(b, "<img src=\"figures/%s.%s\" alt=\"", id, f[i].gif ? "gif" : "svg");
      cf_rbuf_html(b, f[i].caption);
      cf_rbuf_puts(b, "\">\n");
    }
    cf_rbuf_puts(b, "<figcaption>");
    cf_rbuf_html(b, f[i].caption);
    if (!f[i].drawn) cf_rbuf_puts(b, " <span class=\"warn\">(not drawn)</span>");
    cf_rbuf_puts(b, " — ");
    if (f[i].drawn && !f[i].gif) cf_rbuf_printf(b, "<a href=\"figures/%s.png\">PNG</a> · ", id);
    cf_rbuf_printf(b, "<a href=\"figures/%s.gp\">gnuplot script</a> · <a href=\"figures/%s.dat\">data</a>"
                      "</figcaption>\n</figure>\n", id, id);
  }
  cf_rbuf_puts(b, "</body>\n</html>\n");
}

/* ------------------------------------------------------------------ main */
static int write_tables(const char *dir, const cf_rtable *t, int nt, cf_error *err) {
  static const char *ext[3] = {"csv", "md", "tex"};
  char path[4300];
  for (int i = 0; i < nt; i++)
    for (int k = 0; k < 3; k++) {
      cf_rbuf b = {0};
      if (k == 0) cf_rtable_csv(&t[i], &b);
      else if (k == 1) cf_rtable_md(&t[i], &b);
      else cf_rtable_tex(&t[i], &b);
      snprintf(path, sizeof path, "%s/tables/%s.%s", dir, t[i].id, ext[k]);
      int rc = cf_report_write_file(path, &b, err);
      cf_rbuf_free(&b);
      if (rc) return rc;
    }
  return CF_OK;
}

int cf_report_write(const cf_results *r, const char *dir, const cf_report_opts *o, cf_report_summary *sum,
                    cf_error *err) {
  memset(sum, 0, sizeof *sum);
  char tdir[4200], fdir[4200];
  snprintf(tdir, sizeof tdir, "%s/tables", dir);
  snprintf(fdir, sizeof fdir, "%s/figures", dir);
  if (strlen(dir) > 4000) return cf_error_set(err, CF_EIO, "%.100s...: output folder name too long", dir);
  int rc = cf_report_snapshots_check(r, o, err); /* before anything is written */
  if (rc) return rc;
  if (make_dir(dir, err) || make_dir(tdir, err) || make_dir(fdir, err)) return CF_EIO;
  cf_rtable *t = NULL;
  cf_rfigure *f = NULL;
  int nt = 0, nf = 0;
  rc = cf_report_tables(r, &t, &nt, err);
  if (!rc) rc = write_tables(dir, t, nt, err);
  if (!rc) rc = cf_report_figures_write(r, o, fdir, &f, &nf, err);
  if (!rc) rc = cf_report_study_figures_write(r, o->results_path, fdir, &f, &nf, err);
  if (!rc) {
    sum->tables = nt, sum->figures_planned = nf;
    if (o->gnuplot) cf_report_figures_draw(o->gnuplot, fdir, f, nf, o, sum);
    cf_rbuf md = {0}, page = {0};
    markdown(&md, r, o->results_path, t, nt, f, nf, o->gnuplot != NULL);
    html(&page, r, o->results_path, t, nt, f, nf, o->gnuplot != NULL);
    snprintf(sum->markdown, sizeof sum->markdown, "%s/report.md", dir);
    snprintf(sum->index, sizeof sum->index, "%s/index.html", dir);
    rc = cf_report_write_file(sum->markdown, &md, err);
    if (!rc) rc = cf_report_write_file(sum->index, &page, err);
    cf_rbuf_free(&md);
    cf_rbuf_free(&page);
  }
  cf_report_tables_free(t, nt);
  free(f);
  return rc;
}
