/* ingest_meshes.c — what `clothfit ingest meshes` and `ingest clouds` add
 * to cmd_ingest.c: the help of their options (--times, --fps, --units,
 * --held; --held-track, --grasp, --start; read by src/pipeline/ingest.c)
 * and the summary lines of a mesh or cloud recording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

const char *cf_ingest_mesh_help =
    "\n"
    "clothfit ingest meshes DIR_OR_GLOB -o REC.h5 [--times FILE | --fps F] [--units mm|cm|m]\n"
    "         [--dt SECONDS|native] [--up z|y] [--held I,J] [--max-gap S] [--meta FILE]\n"
    "         [metadata options as above: --material, --size, --density ...] [--json]\n"
    "\n"
    "Read a depth-camera mesh sequence: one OBJ or PLY (ascii or binary little endian)\n"
    "file per frame, every .obj/.ply file of the folder DIR or every file the quoted glob\n"
    "pattern matches, in natural name order.  All frames must have the same vertex count\n"
    "and the same faces (triangles or quads), no edge in more than two faces and no face\n"
    "of zero area.  The nodes are resampled to a uniform time step by linear\n"
    "interpolation and written to /mesh/nodes [T,N,3], /mesh/faces [F,3|4].  Frames the\n"
    "camera dropped (an interval between frames longer than 2.5 x the median one) are\n"
    "not interpolated across: the frames inside stay missing (NaN), except the held\n"
    "nodes, which drive the simulation and are interpolated.  The fitting commands take\n"
    "a mesh whose faces form a rows x cols grid (quads, or quads cut in two triangles).\n"
    "\n"
    "  --times FILE     the frame times: lines 'FILE TIME' in frame order, or one 'TIME'\n"
    "                   a line for the frame files in name order ('#' comments)\n"
    "  (no --times)     the last number in each file name (without extension) is its\n"
    "                   time in seconds: frame_000123_1.234567.obj -> 1.234567 s\n"
    "  --fps F          ... or that number is a frame index: t = index / F\n"
    "  --units mm|cm|m  length unit of the files (default m)\n"
    "  --up z|y         up axis of the files (default z; y maps (x, y, z) = (x, -z, y))\n"
    "  --held I,J       the nodes the hanger holds, which the simulation drives: vertex\n"
    "                   indices as in the files, 0-based (the first vertex is 0, also in\n"
    "                   OBJ), up to 16 (also as held in --meta).  Default: the two\n"
    "                   highest corners of the first frame when the faces form a grid\n"
    "  --max-gap S      longest dropped interval the held nodes are interpolated across\n"
    "                   (default 0.25 s); a longer one is an error\n"
    "  --meta FILE      sidecar INI as for markers (material, size, density, held ...)\n"
    "\n"
    "clothfit ingest clouds DIR_OR_GLOB --held-track GRIPPERS.csv -o REC.h5\n"
    "         [--times FILE | --fps F] [--units mm|cm|m] [--up z|y] [--grid RxC]\n"
    "         [--held P,P,...] [--grasp T0:T1,...] [--start hanging|flat-on-table]\n"
    "         [metadata options] [--json]\n"
    "\n"
    "Read depth-camera point clouds: one PLY (ascii or binary little endian; vertex x,\n"
    "y, z; other properties and faces ignored) or XYZ text file ('x y z' a line, further\n"
    "numbers ignored, '#' comments) per frame, every .ply/.xyz file of the folder DIR or\n"
    "every file the quoted glob matches, in natural name order, any number of points a\n"
    "frame.  Frame times as for meshes (--times, --fps, the file names).  The frames keep\n"
    "the camera's times (clouds are never resampled; --dt is refused): /cloud/points\n"
    "[P,3] and /cloud/offset [T+1] (frame t: rows offset[t] .. offset[t+1]-1), /time [T].\n"
    "The fitting commands simulate the cloth as a flat rectangle of its size (--size\n"
    "or the metadata; required) hanging at rest from its top corners at the first\n"
    "frame, each gripper then moving the mesh node nearest to its point along its\n"
    "track while it holds it, and measure each frame by the\n"
    "clouds the camera took in it: the mean distance from the points to the simulated\n"
    "surface without the farthest 5 % (one-sided: the side the camera cannot see\n"
    "costs nothing; outliers dropped), in cm.\n"
    "\n"
    "  --held-track GRIPPERS.csv  the grippers' trajectory (a robot log or markers):\n"
    "                   header 'time,x1,y1,z1[,x2,y2,z2,...]', 1 to 16 grippers, their count\n"
    "                   from the header (the time column may be named time, t or\n"
    "                   timestamp), time in seconds on the frames' clock, increasing;\n"
    "                   coordinates in the unit (--units) and axes (--up) of the frames.\n"
    "                   It must cover the frames' time span; written to /held/time,\n"
    "                   /held/track [T_h,G,3]\n"
    "  --held P,P,...   the point of the sheet each gripper holds, in the track's order:\n"
    "                   top-left, top-right, bottom-left, bottom-right or U:V (U across\n"
    "                   from the left edge, V down from the top, both in [0,1]); the fit\n"
    "                   holds the mesh node nearest to it (also as held in --meta).\n"
    "                   Default for two grippers: top-left,top-right; other counts need it\n"
    "  --grasp T0:T1,...  when each gripper holds its point, s on the track's clock\n"
    "                   (T0 empty: from the start, T1 empty: to the end; also as grasp in\n"
    "                   --meta); outside its window the point is free.  Default: every\n"
    "                   gripper holds throughout\n"
    "  --start hanging|flat-on-table  the cloth at the first frame (also as start in\n"
    "                   --meta): hanging from its top corners (the default), which\n"
    "                   grippers must hold at the first frame; or lying flat on the\n"
    "                   table (--table-height and --table-extent, or the meta keys; none\n"
    "                   given: fitted to the first frame's points, said in a note, and\n"
    "                   written to /table with the attribute fitted = 1), placed by where\n"
    "                   each gripper first holds its point and by the first frame's\n"
    "                   points (a partial frame too: docs/driving.md).  The table is an\n"
    "                   obstacle with friction mu (fit --params delta,alpha,mu)\n"
    "  --grid RxC       the lattice the fitting commands simulate the cloth on, rows\n"
    "                   down x columns across, each cell split --split N (default 2) by\n"
    "                   them: the default 5x5 gives 9 x 9 nodes, 5x9 gives 9 x 17;\n"
    "                   written to /cloud attributes grid_rows, grid_cols\n";

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
