/* ingest_meshes.c — what `clothfit ingest meshes` and `ingest clouds` add
 * to cmd_ingest.c (their options --times, --fps, --units, --held,
 * --held-track, --grasp, --start are read by src/pipeline/ingest.c, their help is in
 * help/ingest.txt): the summary lines of a mesh or cloud recording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* The points of a cloud recording: in all, and the fewest and most of a frame. */
static void cloud_summary(const cf_recording *r, json_t *j) {
  const cf_rec_cloud *c = &r->cloud;
  const cf_rec_held *h = &r->held;
  long lo = c->n_points, hi = 0;
  for (int t = 0; t < r->n_frames; t++) {
    long n = c->offset[t + 1] - c->offset[t];
    lo = n < lo ? n : lo, hi = n > hi ? n : hi;
  }
  double h0 = h->n ? h->time[0] : NAN, h1 = h->n ? h->time[h->n - 1] : NAN;
  if (j) {
    json_t *o = cf_cli_json_object(j, "cloud");
    cf_cli_json_num(o, "points", (double)c->n_points);
    cf_cli_json_num(o, "points_min", (double)lo);
    cf_cli_json_num(o, "points_max", (double)hi);
    cf_cli_json_num(o, "held_samples", h->n);
    cf_cli_json_num(o, "held_t0", h0);
    cf_cli_json_num(o, "held_t1", h1);
    cf_cli_json_num(o, "grippers", h->n_grip);
    cf_cli_json_str(o, "start", cf_rec_held_start_name(h->start));
    cf_cli_json_num(o, "grid_rows", c->grid[0] ? c->grid[0] : NAN);
    cf_cli_json_num(o, "grid_cols", c->grid[1] ? c->grid[1] : NAN);
  } else {
    printf("cloud             %ld points, %ld .. %ld a frame\n", c->n_points, lo, hi);
    printf("held track        %d samples, t = %.4f .. %.4f s, %d gripper%s, the cloth %s at the first frame\n", h->n,
           h0, h1, h->n_grip, h->n_grip > 1 ? "s" : "", h->start ? "flat on the table" : "hanging");
    for (int g = 0; g < h->n_grip; g++) {
      char what[160];
      cf_rec_held_describe(h, g, what, sizeof what);
      printf("gripper %-2d        %s\n", g + 1, what);
    }
    if (c->grid[0]) printf("grid              %d x %d (the lattice a fit simulates)\n", c->grid[0], c->grid[1]);
  }
}

void cf_ingest_mesh_summary(const cf_recording *r, json_t *j) {
  const cf_rec_mesh *m = &r->mesh;
  if (r->cloud.offset) cloud_summary(r, j);
  if (!m->n_nodes) return;
  const char *kind = m->nv == 4 ? "quads" : "triangles";
  if (j) {
    json_t *o = cf_cli_json_object(j, "mesh");
    cf_cli_json_num(o, "nodes", m->n_nodes);
    cf_cli_json_num(o, "faces", m->n_faces);
    cf_cli_json_str(o, "element", kind);
  } else printf("mesh              %d nodes, %d faces (%s)\n", m->n_nodes, m->n_faces, kind);
  if (j) {
    json_t *o = json_object_get(j, "mesh"), *h = cf_cli_json_array(o, "held");
    for (int i = 0; i < m->n_held; i++) json_array_append_new(h, json_integer(m->held[i]));
    cf_cli_json_num(o, "dropped_frames", m->dropped_frames);
    cf_cli_json_num(o, "drop_limit_s", m->drop_limit_s);
    return;
  }
  printf("held nodes        ");
  for (int i = 0; i < m->n_held; i++) printf("%s%d", i ? ", " : "", m->held[i]);
  printf("%s\n", m->n_held ? " (0-based, in file order)" : "none (the faces are no grid; give --held I,J)");
  if (m->drop_limit_s > 0)
    printf("dropped frames    %d resampled frame(s) left missing (source intervals longer than %.4g s)\n",
           m->dropped_frames, m->drop_limit_s);
}
