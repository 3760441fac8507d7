/* meshseq_internal.h — the per-frame OBJ and PLY parsers of the mesh
 * sequence reader (meshseq.c) and what they share (meshseq_frame.c).  The
 * parsers read from memory (also the libFuzzer targets of tests/fuzz); the
 * buffer must have a NUL byte at buf[len].  Not part of the public API. */
#ifndef CF_MESHSEQ_INTERNAL_H
#define CF_MESHSEQ_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "cf_common.h"

#define MF_MAX_FILE ((size_t)1 << 31) /* bytes; a larger frame file is an error */

/* One frame as read from its file (source units and axes). */
typedef struct {
  int n_nodes, n_faces, nv; /* nv: 3 or 4, 0 before the first face */
  double *x;                /* [n_nodes*3] */
  int *faces;               /* [n_faces*nv] 0-based */
  long *face_at;            /* [n_faces] line (text) or byte offset (binary) of each face */
  int binary;               /* face_at are byte offsets */
  int base;                 /* index base of the file (OBJ 1, PLY 0), for messages */
  long nodes_at, faces_at;  /* lines that settle the vertex and face counts: the last
                               line (OBJ), the element lines (PLY) */
  size_t cap_nodes, cap_faces;
} cf_meshframe;

void cf_meshframe_free(cf_meshframe *fr);
/* "<name>: line L: what" (or "byte offset L" when binary); returns
 * CF_EFORMAT, or CF_ENOMEM when what starts with "out of memory". */
int cf_meshframe_fail(cf_error *err, const char *name, int binary, long at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same with a prefix before the message and a va_list. */
int cf_meshframe_vfail(cf_error *err, const char *name, int binary, long at, const char *prefix, const char *fmt,
                       va_list ap);
/* Room for n more nodes / faces; 0 when out of memory. */
int cf_meshframe_reserve(cf_meshframe *fr, size_t nodes, size_t faces);
/* Append a node (reserve first). */
void cf_meshframe_add_node(cf_meshframe *fr, const double *x);
/* Append a face of nv 0-based indices found at `at`: nv must be 3 or 4 and
 * the same for every face, no node twice.  Reserve first. */
int cf_meshframe_add_face(cf_meshframe *fr, const int *idx, int nv, long at, const char *name, cf_error *err);
/* Final checks: some nodes, some faces, every index < n_nodes.  end_at is
 * where "the file" is for the first two (its last line, the header line). */
int cf_meshframe_finish(cf_meshframe *fr, long end_at, const char *name, cf_error *err);
/* Every face's edges as (u < v, face), sorted by (u, v, face): malloc'ed
 * [nf*nv], NULL when out of memory (meshgrid.c and the check below). */
typedef struct {
  int u, v, f;
} ms_edge;
ms_edge *ms_edges_sorted(const int *faces, int nv, int nf);
int ms_edge_cmp(const void *x, const void *y);
/* The mesh rules the parsers cannot check face by face: no edge in more
 * than two faces (topology = 1: checked once, on the first frame) and no
 * face of zero area (its nodes coincide or lie on one line) at fr's
 * positions. */
int cf_meshframe_check_faces(const cf_meshframe *fr, int topology, const char *name, cf_error *err);
/* A token [s, e) quoted for a message: at most 40 characters, non-printables
 * as '?'. */
const char *cf_meshframe_quote(const char *s, const char *e, char *buf, size_t size);

/* n points [n*3] in the source's unit and axes to metres and z up ('y':
 * (x, y, z) = (x_s, -z_s, y_s)) into dst[n*3]. (meshseq_frame.c) */
void ms_put_points(const double *x, long n, double unit_scale, char up, double *dst);

/* Wavefront OBJ: v, f (i, i/j, i/j/k, i//k, negative = relative), comments;
 * vt, vn and every other statement are ignored. */
int cf_obj_parse(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err);
/* PLY, ascii or binary_little_endian: element vertex (x, y, z of any
 * numeric type, among other properties) and element face (list
 * vertex_indices or vertex_index, integer count and index types); other
 * elements are skipped. */
int cf_ply_parse(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err);
/* The same file as a point cloud (cloudseq.c): the vertex positions alone
 * into fr->x (n_faces 0), element face optional and read past; no vertex
 * is an error (an empty cloud). */
int cf_ply_parse_points(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err);
/* XYZ text (cloud_text.c): one point a line, 'x y z' and optionally further
 * numbers (normals, colours: ignored), separated by blanks or commas; '#'
 * comments and blank lines.  No point is an error (an empty cloud). */
int cf_xyz_parse(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err);

/* ---------------------------------------------- the sequence (meshseq_files.c) */
#include "cf_io.h"

typedef struct {
  char *path;       /* as opened */
  const char *base; /* its file name (inside path) */
  double t;         /* source time, s */
  long t_line;      /* line of the times file that gave t (0: the file name) */
} ms_frame;

typedef struct {
  ms_frame *f;
  int n;
  const char *times_name; /* the times file, or NULL */
} ms_list;

/* The .obj/.ply files of a folder, or the files a glob pattern matches, in
 * natural name order (digit runs compare as numbers). */
int ms_list_files(const char *dir_or_glob, ms_list *l, cf_error *err);
/* The same for other frame files: a folder's files whose extension is one
 * of exts (blank-separated, without dots, any letter case: "ply xyz"). */
int ms_list_files_ext(const char *dir_or_glob, const char *exts, ms_list *l, cf_error *err);
/* Give every frame its time and put the frames in time order (see cf_io.h
 * and meshseq_files.c for the rules). */
int ms_times(ms_list *l, const cf_meshseq_opts *o, cf_error *err);
void ms_list_free(ms_list *l);

/* ------------------------------------ the recording of a sequence (meshseq.c) */
/* One frame file by its extension (any letter case): .obj or .ply
 * (cf_obj_parse, cf_ply_parse), or with points set .ply or .xyz as a point
 * cloud (cf_ply_parse_points, cf_xyz_parse). */
int ms_read_frame(const char *path, int points, cf_meshframe *fr, cf_error *err);
/* Append key = value to r's source header record; 0 when out of memory. */
int ms_add_info(cf_recording *r, const char *key, const char *value);
/* r's native frames from l (times from 0, the first frame's source time in
 * time_offset, the median step as dt), no markers, its source kind and
 * file, and the frame files and times in r->info. */
int ms_fill(cf_recording *r, const char *kind, const char *src, const ms_list *l, const cf_meshseq_opts *o,
            cf_error *err);
/* source_sha256: the frame files in frame order, then the times file, then
 * extra (may be NULL; "" if this build has no SHA-256); 0 when out of memory. */
int ms_hash_sources(cf_recording *r, const ms_list *l, const cf_meshseq_opts *o, const char *extra);
/* A whole file, NUL-terminated (malloc'ed), at most MF_MAX_FILE bytes. */
int ms_slurp(const char *path, char **buf, size_t *len, cf_error *err);
#endif
