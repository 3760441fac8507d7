/* ingest_meshes.c — what `clothfit ingest meshes` adds to cmd_ingest.c:
 * its options (--times, --fps, --units), their help, and the summary lines
 * of a mesh recording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

const char *cf_ingest_mesh_help =
    "\n"
    "clothfit ingest meshes DIR_OR_GLOB -o REC.h5 [--times FILE | --fps F] [--units mm|cm|m]\n"
    "         [--dt SECONDS|native] [--up z|y] [metadata options as above] [--json]\n"
    "\n"
    "Read a depth-camera mesh sequence: one OBJ or PLY (ascii or binary little endian)\n"
    "file per frame, every .obj/.ply file of the folder DIR or every file the quoted glob\n"
    "pattern matches, in natural name order.  All frames must have the same vertex count\n"
    "and the same faces (triangles or quads).  The nodes are resampled to a uniform time\n"
    "step by linear interpolation and written to /mesh/nodes [T,N,3], /mesh/faces [F,3|4].\n"
    "\n"
    "  --times FILE     the frame times: lines 'FILE TIME' in frame order, or one 'TIME'\n"
    "                   a line for the frame files in name order ('#' comments)\n"
    "  (no --times)     the last number in each file name (without extension) is its\n"
    "                   time in seconds: frame_000123_1.234567.obj -> 1.234567 s\n"
    "  --fps F          ... or that number is a frame index: t = index / F\n"
    "  --units mm|cm|m  length unit of the files (default m)\n"
    "  --up z|y         up axis of the files (default z; y maps (x, y, z) = (x, -z, y))\n";

int cf_ingest_mesh_option(const char *opt, const char *v, cf_meshseq_opts *o, int *bad) {
  char *end;
  if (!strcmp(opt, "--times")) o->times_file = v;
  else if (!strcmp(opt, "--fps")) o->fps = strtod(v, &end), *bad = end == v || *end || !(o->fps > 0) || !isfinite(o->fps);
  else if (!strcmp(opt, "--units")) {
    o->unit_scale = !strcmp(v, "mm") ? 0.001 : !strcmp(v, "cm") ? 0.01 : !strcmp(v, "m") ? 1 : 0;
    *bad = o->unit_scale == 0;
  } else return 0;
  return 1;
}

int cf_ingest_mesh_check(const char *kind, const cf_meshseq_opts *o) {
  int given = o->times_file || o->fps > 0 || (o->unit_scale != 1 && strcmp(kind, "csv"));
  if (strcmp(kind, "meshes") && given) return cf_cli_fail("ingest", "--times, --fps and --units are options of "
                                                          "'ingest meshes' (--units also of 'ingest csv')");
  if (o->times_file && o->fps > 0) return cf_cli_fail("ingest", "give --times FILE or --fps F, not both");
  return 0;
}

void cf_ingest_mesh_summary(const cf_recording *r, json_t *j) {
  const cf_rec_mesh *m = &r->mesh;
  const char *kind = m->nv == 4 ? "quads" : "triangles";
  if (j) {
    json_t *o = cf_cli_json_object(j, "mesh");
    cf_cli_json_num(o, "nodes", m->n_nodes);
    cf_cli_json_num(o, "faces", m->n_faces);
    cf_cli_json_str(o, "element", kind);
  } else printf("mesh              %d nodes, %d faces (%s)\n", m->n_nodes, m->n_faces, kind);
}
