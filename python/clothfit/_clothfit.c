/* _clothfit.c — the C layer of the Python module clothfit
 * (docs/python.md): each function loads what it is given through the
 * library, calls one step of cf_pipeline.h (or the simulator's scenario
 * run) with the GIL released, and hands the result to Python.
 *
 * Computes: nothing of its own; the option words come from the Python
 * package (clothfit/__init__.py) and are read by the library's parsers
 * (cf_pipeline.h "options"), the fit's values are the library's list
 * (cf_pipeline_fit_fields), the simulations and errors its steps'.
 * Ownership: arrays of the library (a recording's markers, a scenario's
 * trajectories, a fit's series) are handed to NumPy without a copy: the
 * ndarray's base is a capsule that frees the library's record when the
 * last array over it goes; arrays the library fills (simulate's markers)
 * are allocated as ndarrays first.  Every returned array is read-only
 * except those the caller owns alone (simulate's).
 * Failure: a library error raises clothfit.Error (RuntimeError) with the
 * library's message, OptionError (also ValueError) for a setting the
 * library refuses, FileError (also OSError) for a file it cannot read,
 * SimulationError for a simulation that failed; never a crash.
 *
 * Threads: the library keeps no process-wide state a fit changes (the
 * only static variables are the MPI rank, set once, and the resolved
 * GOMP_parallel); every call here runs on its own records, so several
 * Python threads may fit at once.  HDF5 is Debian's thread-safe build. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "cf_pipeline.h"
#include "cf_sim.h"

static PyObject *Error, *OptionError, *FileError, *SimulationError;

/* The exception for a library error: OPTION for a setting refused. */
enum { KIND_LIBRARY, KIND_OPTION };
static PyObject *raise_error(int kind, const cf_error *err) {
  PyObject *type = kind == KIND_OPTION ? OptionError : err->code == CF_EIO ? FileError : Error;
  PyErr_SetString(type, err->msg[0] ? err->msg : cf_status_name(err->code));
  return NULL;
}

/* ------------------------------------------------------------ options */
/* The model settings from the dict d (name -> option word; None: the
 * default) into t; the words are borrowed from d.  0, or -1 with a
 * Python exception. */
static const char *word(PyObject *d, const char *key) {
  PyObject *v = d ? PyDict_GetItemString(d, key) : NULL;
  if (!v || v == Py_None) return NULL;
  if (!PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "option %s: expected a str, got %R", key, v);
    return NULL;
  }
  return PyUnicode_AsUTF8(v);
}

#define WORD(t, d, key) ((t)->key = word(d, #key))

static int model_text(PyObject *d, cf_pipeline_model_text *t) {
  memset(t, 0, sizeof *t);
  WORD(t, d, kappa), WORD(t, d, beta), WORD(t, d, tol), WORD(t, d, max_iter), WORD(t, d, mu);
  WORD(t, d, model), WORD(t, d, k_stretch), WORD(t, d, k_shear), WORD(t, d, k_bend);
  WORD(t, d, rest), WORD(t, d, split), WORD(t, d, substeps), WORD(t, d, initial);
  return PyErr_Occurred() ? -1 : 0;
}

/* A flag of the dict d: 1 when d[key] is true. */
static int flag(PyObject *d, const char *key) {
  PyObject *v = PyDict_GetItemString(d, key);
  return v && PyObject_IsTrue(v) == 1;
}

static int fit_text(PyObject *d, cf_pipeline_fit_text *t) {
  memset(t, 0, sizeof *t);
  WORD(t, d, params), WORD(t, d, start), WORD(t, d, train), WORD(t, d, max_evals), WORD(t, d, workers);
  WORD(t, d, dgrid), WORD(t, d, agrid), WORD(t, d, mgrid), WORD(t, d, polish), WORD(t, d, search);
  if (PyErr_Occurred()) return -1;
  t->prune = flag(d, "prune"), t->no_confidence = flag(d, "no_confidence");
  return 0;
}

/* Load path with the settings m (GIL released by the caller).  CF_OK or
 * the error; *option 1 when the settings were refused. */
static int load(const char *path, const cf_pipeline_model_text *m, cf_fit_input **in, int *option, cf_error *err) {
  cf_pipeline_model v;
  *in = NULL;
  *option = 1;
  if (cf_pipeline_model_parse(m, &v, err)) return CF_EINVAL;
  *option = 0;
  cf_runtime_init(); /* this thread's OpenMP setting, as clothfit's main() makes it */
  return cf_pipeline_inputs_load(&path, 1, &v, in, err);
}


/* The recording at path with the model settings of the dict opts, loaded
 * with the GIL released; NULL with the Python exception set. */
static cf_fit_input *load_released(const char *path, PyObject *opts) {
  cf_pipeline_model_text m;
  if (model_text(opts, &m)) return NULL;
  cf_fit_input *in = NULL;
  cf_error err = {0, ""};
  int option, rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = load(path, &m, &in, &option, &err);
  Py_END_ALLOW_THREADS;
  if (rc) return raise_error(option ? KIND_OPTION : KIND_LIBRARY, &err), NULL;
  return in;
}
/* ------------------------------------------------------------ arrays */
static void free_inputs(PyObject *cap) { cf_pipeline_inputs_free(PyCapsule_GetPointer(cap, "clothfit.input"), 1); }

static void free_results(PyObject *cap) {
  cf_results *r = PyCapsule_GetPointer(cap, "clothfit.results");
  cf_results_free(r);
  free(r);
}

static void free_scenario(PyObject *cap) {
  cf_pipeline_scenario_sim *r = PyCapsule_GetPointer(cap, "clothfit.scenario");
  cf_pipeline_scenario_sim_free(r);
  free(r);
}

/* A read-only ndarray over data (nd dims, type), kept alive by base (a
 * new reference is taken). */
static PyObject *view(void *data, int nd, npy_intp *dims, int type, PyObject *base) {
  PyObject *a = PyArray_SimpleNewFromData(nd, dims, type, data);
  if (!a) return NULL;
  PyArray_CLEARFLAGS((PyArrayObject *)a, NPY_ARRAY_WRITEABLE);
  Py_INCREF(base);
  if (PyArray_SetBaseObject((PyArrayObject *)a, base) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

/* Set d[key] = v and drop the reference; -1 if v is NULL or on error. */
static int put(PyObject *d, const char *key, PyObject *v) {
  if (!v) return -1;
  int rc = PyDict_SetItemString(d, key, v);
  Py_DECREF(v);
  return rc;
}

/* e, s, d (cm) and n of fe[T] as new arrays */
static int frame_errors(PyObject *d, const cf_frame_error *fe, int T) {
  npy_intp dims[1] = {T};
  PyObject *e = PyArray_SimpleNew(1, dims, NPY_DOUBLE), *s = PyArray_SimpleNew(1, dims, NPY_DOUBLE),
           *dd = PyArray_SimpleNew(1, dims, NPY_DOUBLE), *n = PyArray_SimpleNew(1, dims, NPY_INT);
  if (!e || !s || !dd || !n) {
    Py_XDECREF(e), Py_XDECREF(s), Py_XDECREF(dd), Py_XDECREF(n);
    return -1;
  }
  for (int k = 0; k < T; k++) {
    ((double *)PyArray_DATA((PyArrayObject *)e))[k] = fe[k].e_cm;
    ((double *)PyArray_DATA((PyArrayObject *)s))[k] = fe[k].s_cm;
    ((double *)PyArray_DATA((PyArrayObject *)dd))[k] = fe[k].d_cm;
    ((int *)PyArray_DATA((PyArrayObject *)n))[k] = fe[k].n;
  }
  return put(d, "e_cm", e) | put(d, "s_cm", s) | put(d, "d_cm", dd) | put(d, "markers_present", n);
}

/* The times k dt of T frames as a new array. */
static PyObject *times(int T, double dt) {
  npy_intp dims[1] = {T};
  PyObject *t = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
  for (int k = 0; t && k < T; k++) ((double *)PyArray_DATA((PyArrayObject *)t))[k] = k * dt;
  return t;
}

/* ------------------------------------------------------------ load */
static PyObject *py_load(PyObject *self, PyObject *args) {
  (void)self;
  const char *path;
  PyObject *opts;
  if (!PyArg_ParseTuple(args, "sO!", &path, &PyDict_Type, &opts)) return NULL;
  cf_fit_input *in = load_released(path, opts);
  if (!in) return NULL;
  PyObject *cap = PyCapsule_New(in, "clothfit.input", free_inputs);
  if (!cap) return cf_pipeline_inputs_free(in, 1), NULL;
  const cf_fit_target *tg = &in->tg;
  int K = tg->rows * tg->cols;
  npy_intp dm[3] = {tg->T, K, 3}, dw[1] = {K};
  PyObject *d = PyDict_New();
  int bad = !d || put(d, "markers", view(in->pos, 3, dm, NPY_DOUBLE, cap)) ||
            put(d, "weights", view(in->weight, 1, dw, NPY_DOUBLE, cap)) || put(d, "time", times(tg->T, tg->dt)) ||
            put(d, "name", PyUnicode_FromString(in->name)) || put(d, "path", PyUnicode_FromString(in->path)) ||
            put(d, "frames", PyLong_FromLong(tg->T)) || put(d, "dt", PyFloat_FromDouble(tg->dt)) ||
            put(d, "rows", PyLong_FromLong(tg->rows)) || put(d, "cols", PyLong_FromLong(tg->cols)) ||
            put(d, "rho", PyFloat_FromDouble(tg->rho)) || put(d, "duration", PyFloat_FromDouble(in->duration)) ||
            put(d, "S", PyFloat_FromDouble(in->S)) || put(d, "V", PyFloat_FromDouble(in->V)) ||
            put(d, "material", PyUnicode_FromString(in->meta.material)) ||
            put(d, "width_m", PyFloat_FromDouble(in->meta.width_m)) ||
            put(d, "height_m", PyFloat_FromDouble(in->meta.height_m)) ||
            put(d, "table", PyBool_FromLong(isfinite(in->meta.table[0])));
  Py_DECREF(cap);
  if (bad) return Py_XDECREF(d), NULL;
  return d;
}

/* ------------------------------------------------------------ simulate, error */
/* simulate(path, delta, alpha, model) and error(path, delta, alpha, w0, w1, model) */
static PyObject *run_point(PyObject *args, int markers) {
  const char *path;
  double delta, alpha, w0 = 0, w1 = INFINITY;
  PyObject *opts;
  if (markers ? !PyArg_ParseTuple(args, "sddO!", &path, &delta, &alpha, &PyDict_Type, &opts)
              : !PyArg_ParseTuple(args, "sddddO!", &path, &delta, &alpha, &w0, &w1, &PyDict_Type, &opts))
    return NULL;
  if (!(isfinite(delta) && isfinite(alpha) && delta >= 0 && alpha >= 0))
    return PyErr_SetString(OptionError, "delta and alpha: expected finite numbers >= 0"), NULL;
  if (!(w0 >= 0 && w1 > w0))
    return PyErr_SetString(OptionError, "invalid window: expected (t0, t1) seconds with 0 <= t0 < t1"), NULL;
  cf_fit_input *in = load_released(path, opts);
  if (!in) return NULL;
  cf_error err = {0, ""};
  int option = 0, rc;
  int T = in->tg.T, K = in->tg.rows * in->tg.cols, t0 = 0, t1 = 0;
  npy_intp dims[3] = {T, K, 3};
  PyObject *sim = markers ? PyArray_SimpleNew(3, dims, NPY_DOUBLE) : NULL;
  cf_frame_error *fe = malloc(sizeof *fe * (T + 1));
  if ((markers && !sim) || !fe) {
    free(fe), Py_XDECREF(sim), cf_pipeline_inputs_free(in, 1);
    return PyErr_NoMemory();
  }
  if (!markers) cf_pipeline_window_frames(in, w0, w1, &t0, &t1);
  for (int k = 0; k < T; k++) fe[k].e_cm = fe[k].s_cm = fe[k].d_cm = NAN, fe[k].n = 0;
  cf_fit_result res;
  if (!markers && t1 - t0 < 1) {
    rc = cf_error_set(&err, CF_EINVAL, "%s: the window [%g, %g) s holds no frame of the recording (%d frames, dt %g s)",
                      in->path, w0, w1, T, in->tg.dt);
    option = 1;
  } else {
    double *x = markers ? PyArray_DATA((PyArrayObject *)sim) : NULL;
    Py_BEGIN_ALLOW_THREADS;
    rc = cf_pipeline_eval_window(in, delta, alpha, t0, t1, fe, x, &res, &err);
    Py_END_ALLOW_THREADS;
  }
  PyObject *d = NULL;
  if (rc) raise_error(option ? KIND_OPTION : KIND_LIBRARY, &err);
  else if (res.status != CF_OK) {
    char msg[1400];
    snprintf(msg, sizeof msg, "%s: the simulation at delta %g, alpha %g failed: %s", in->path, delta, alpha,
             res.reason[0] ? res.reason : cf_status_name(res.status));
    PyErr_SetString(SimulationError, msg);
  } else {
    d = PyDict_New();
    int bad = !d || frame_errors(d, fe, T) || put(d, "error_cm", PyFloat_FromDouble(res.err.e_cm)) ||
              put(d, "std_cm", PyFloat_FromDouble(res.err.s_cm)) ||
              put(d, "dispersion_max_cm", PyFloat_FromDouble(res.err.d_max_cm)) ||
              put(d, "frames", PyLong_FromLong(res.err.frames)) || put(d, "window_frames", Py_BuildValue("(ii)", t0, markers ? T : t1)) ||
              put(d, "time", times(T, in->tg.dt)) || put(d, "iterations", PyLong_FromLong(res.iterations)) ||
              put(d, "recording", PyUnicode_FromString(in->path));
    if (!bad && markers) bad = PyDict_SetItemString(d, "markers", sim);
    if (bad) Py_CLEAR(d);
  }
  Py_XDECREF(sim);
  free(fe);
  cf_pipeline_inputs_free(in, 1);
  return d;
}

static PyObject *py_simulate(PyObject *self, PyObject *args) { return (void)self, run_point(args, 1); }
static PyObject *py_error(PyObject *self, PyObject *args) { return (void)self, run_point(args, 0); }

/* ------------------------------------------------------------ fit */
/* The fields of cf_pipeline_fit_fields into a dict, the way Python's json
 * module reads `fit --json` (whole numbers below 2^53 as int, NaN and
 * infinities as None). */
static PyObject *number(double v) {
  if (!isfinite(v)) Py_RETURN_NONE;
  if (v == floor(v) && fabs(v) < 9007199254740992.0) return PyLong_FromLongLong((long long)v);
  return PyFloat_FromDouble(v);
}
/* Each value as d[key], or appended when the container is a list; the
 * visitor's user is the container; an error is the Python exception set
 * (the members after it add nothing). */
static void member(void *c, const char *key, PyObject *v) {
  if (v && !PyErr_Occurred()) PyList_Check((PyObject *)c) ? PyList_Append(c, v) : PyDict_SetItemString(c, key, v);
  Py_XDECREF(v);
}
static void f_num(void *u, const char *key, double v) { member(u, key, number(v)); }
static void f_str(void *u, const char *key, const char *s) {
  member(u, key, s ? PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace") : (Py_INCREF(Py_None), Py_None));
}
static void f_bool(void *u, const char *key, int b) {
  member(u, key, b < 0 ? (Py_INCREF(Py_None), Py_None) : PyBool_FromLong(b > 0));
}
static void f_nums(void *u, const char *key, const double *x, int n) {
  PyObject *l = n < 0 ? (Py_INCREF(Py_None), Py_None) : PyList_New(n);
  for (int i = 0; l && i < n; i++) PyList_SET_ITEM(l, i, number(x[i]));
  member(u, key, l);
}
static void f_words(void *u, const char *key, const char *text) {
  PyObject *l = PyList_New(0);
  for (const char *p = text; l && *p;) {
    size_t n = strcspn(p, " ");
    PyObject *w = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "replace");
    if (!w || PyList_Append(l, w)) Py_CLEAR(l);
    Py_XDECREF(w);
    p += n + (p[n] == ' ');
  }
  member(u, key, l);
}
/* A nested dict or list, held by its container (a borrowed reference). */
static void *f_open(void *u, const char *key, int array) {
  PyObject *v = array ? PyList_New(0) : PyDict_New();
  if (!v || PyErr_Occurred()) return Py_XDECREF(v), NULL;
  int bad = PyList_Check((PyObject *)u) ? PyList_Append(u, v) : PyDict_SetItemString(u, key, v);
  Py_DECREF(v);
  return bad ? NULL : v;
}
/* The fields into the new dict *d: a visitor (NULL: out of memory). */
static cf_pipeline_fields *fields_into(cf_pipeline_fields *f, PyObject **d) {
  *d = PyDict_New();
  *f = (cf_pipeline_fields){f_num, f_str, f_bool, f_nums, f_words, f_open, *d};
  return *d ? f : NULL;
}

/* The notes a fit leaves (warnings the command line prints on stderr). */
#define MAX_NOTES 32
typedef struct {
  char text[MAX_NOTES][512];
  int n;
  char failed[2400]; /* why every start failed */
} notes;
static void note(void *user, const char *text) {
  notes *s = user;
  if (s->n < MAX_NOTES) snprintf(s->text[s->n++], sizeof s->text[0], "%s", text);
}

/* The notes as a new list of str. */
static PyObject *notes_list(const notes *nt) {
  PyObject *nl = PyList_New(0);
  for (int i = 0; nl && i < nt->n; i++) {
    PyObject *w = PyUnicode_DecodeUTF8(nt->text[i], (Py_ssize_t)strlen(nt->text[i]), "replace");
    if (!w || PyList_Append(nl, w)) Py_CLEAR(nl);
    Py_XDECREF(w);
  }
  return nl;
}

/* The series at the optimum (rec->series) as arrays over the results. */
static int series(PyObject *d, const cf_res_rec *rec, PyObject *cap) {
  const cf_res_series *s = &rec->series;
  if (!rec->has_series) return PyDict_SetItemString(d, "series", Py_None);
  npy_intp dt[1] = {s->T}, dm[3] = {s->T, (npy_intp)s->rows * s->cols, 3};
  PyObject *o = PyDict_New();
  int bad = !o || put(o, "e_cm", view(s->e, 1, dt, NPY_DOUBLE, cap)) ||
            put(o, "s_cm", view(s->s, 1, dt, NPY_DOUBLE, cap)) || put(o, "d_cm", view(s->d, 1, dt, NPY_DOUBLE, cap)) ||
            put(o, "time", times(s->T, s->dt)) || put(o, "delta", PyFloat_FromDouble(s->delta)) ||
            put(o, "alpha", PyFloat_FromDouble(s->alpha));
  if (!bad && s->simulated) bad = put(o, "simulated", view(s->simulated, 3, dm, NPY_DOUBLE, cap));
  if (!bad && s->recorded) bad = put(o, "recorded", view(s->recorded, 3, dm, NPY_DOUBLE, cap));
  if (bad) return Py_XDECREF(o), -1;
  return put(d, "series", o);
}

static PyObject *py_fit(PyObject *self, PyObject *args) {
  (void)self;
  const char *path;
  PyObject *fopts, *mopts;
  if (!PyArg_ParseTuple(args, "sO!O!", &path, &PyDict_Type, &fopts, &PyDict_Type, &mopts)) return NULL;
  cf_pipeline_model_text m;
  cf_pipeline_fit_text t;
  if (model_text(mopts, &m) || fit_text(fopts, &t)) return NULL;
  cf_pipeline_fit_plan *plan = malloc(sizeof *plan);
  cf_results *res = malloc(sizeof *res);
  notes *nt = calloc(1, sizeof *nt);
  if (!plan || !res || !nt) return free(plan), free(res), free(nt), PyErr_NoMemory();
  cf_results_init(res);
  cf_error err = {0, ""};
  cf_fit_input *in = NULL;
  cf_pipeline_fit_info info;
  memset(&info, 0, sizeof info);
  cf_res_rec *rec = NULL;
  int option = 1, rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = cf_pipeline_fit_plan_parse(&t, plan, &err);
  if (!rc) rc = load(path, &m, &in, &option, &err);
  if (!rc) option = 1, rc = cf_pipeline_fit_plan_apply(&t, plan, m.mu != NULL, in, &err);
  if (!rc) {
    option = 0;
    rec = cf_results_rec(res, in->name, 1);
    if (!rec) rc = cf_error_set(&err, CF_ENOMEM, "out of memory");
  }
  if (!rc) {
    cf_pipeline_progress pr = {NULL, NULL, note, nt};
    rc = cf_pipeline_fit(in, &plan->o, NULL, &pr, rec, &info, &err);
    /* the whole list of the starts tried, as `clothfit fit` says it (err.msg may cut it) */
    if (rc && info.all_failed)
      snprintf(nt->failed, sizeof nt->failed, "%s: no finite optimum: the simulation fails at every start tried: %s",
               in->path, info.tried);
  }
  Py_END_ALLOW_THREADS;
  cf_pipeline_inputs_free(in, in ? 1 : 0);
  free(plan);
  PyObject *d = NULL, *cap = NULL;
  if (rc) {
    if (!info.all_failed) raise_error(option ? KIND_OPTION : KIND_LIBRARY, &err);
    else PyErr_SetString(SimulationError, nt->failed);
    cf_results_free(res), free(res);
  } else if ((cap = PyCapsule_New(res, "clothfit.results", free_results))) {
    cf_pipeline_fields f;
    if (fields_into(&f, &d)) cf_pipeline_fit_fields(&f, rec, info.swept, 0, NULL);
    PyObject *nl = notes_list(nt);
    PyObject *out = d && nl && !PyErr_Occurred() ? Py_BuildValue("(OO)", d, nl) : NULL;
    if (!out || series(d, rec, cap)) Py_CLEAR(out);
    Py_XDECREF(d), Py_XDECREF(nl);
    d = out;
  } else {
    cf_results_free(res), free(res);
  }
  Py_XDECREF(cap);
  free(nt);
  return d;
}

/* ------------------------------------------------------------ scenario */
static PyObject *py_simulate_scenario(PyObject *self, PyObject *args) {
  (void)self;
  const char *path;
  if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
  cf_pipeline_scenario_sim *r = calloc(1, sizeof *r);
  if (!r) return PyErr_NoMemory();
  cf_error err = {0, ""};
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  cf_runtime_init();
  rc = cf_pipeline_scenario_run(path, NULL, r, &err);
  Py_END_ALLOW_THREADS;
  if (rc) {
    int loaded = r->loaded;
    cf_pipeline_scenario_sim_free(r), free(r);
    if (loaded && (rc == CF_ENOCONV || rc == CF_ENONFINITE || rc == CF_ESOLVER)) {
      PyErr_SetString(SimulationError, err.msg);
      return NULL;
    }
    return raise_error(rc == CF_EIO ? KIND_LIBRARY : KIND_OPTION, &err);
  }
  PyObject *cap = PyCapsule_New(r, "clothfit.scenario", free_scenario);
  if (!cap) return cf_pipeline_scenario_sim_free(r), free(r), NULL;
  const cf_mesh *mesh = r->mesh;
  npy_intp dp[3] = {r->T, mesh->n_nodes, 3}, dt[1] = {r->T}, dr[2] = {mesh->n_nodes, 3},
           df[2] = {mesh->n_elems, mesh->nv}, dk[1] = {r->n_kin};
  PyObject *d = PyDict_New();
  int bad = !d || put(d, "positions", view(r->pos, 3, dp, NPY_DOUBLE, cap)) ||
            put(d, "time", view(r->time, 1, dt, NPY_DOUBLE, cap)) ||
            put(d, "violation", view(r->viol, 1, dt, NPY_DOUBLE, cap)) ||
            put(d, "iterations", view(r->iters, 1, dt, NPY_INT, cap)) ||
            put(d, "rest", view(mesh->x, 2, dr, NPY_DOUBLE, cap)) ||
            put(d, "faces", view(mesh->elems, 2, df, NPY_INT, cap)) ||
            put(d, "kinematic", view(r->kin, 1, dk, NPY_INT, cap)) ||
            put(d, "max_violation", PyFloat_FromDouble(r->st.max_violation)) ||
            put(d, "steps", PyLong_FromLong(r->st.steps)) || put(d, "wall_s", PyFloat_FromDouble(r->wall));
  Py_DECREF(cap);
  if (bad) return Py_XDECREF(d), NULL;
  return d;
}

/* ------------------------------------------------------------ ingest */
/* The words of one option (name, value or None) of the list opts. */
static int option_words(PyObject *item, const char **name, const char **value) {
  PyObject *n, *v;
  if (!PyArg_ParseTuple(item, "OO", &n, &v) || !PyUnicode_Check(n) || (v != Py_None && !PyUnicode_Check(v))) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "ingest option %R: expected (name, value or None) of str", item);
    return -1;
  }
  *name = PyUnicode_AsUTF8(n), *value = v == Py_None ? NULL : PyUnicode_AsUTF8(v);
  return *name && (v == Py_None || *value) ? 0 : -1;
}

/* ingest(kind, source, options) -> (summary, notes): options is a list of
 * (option as the command line spells it, its value or None for a flag). */
static PyObject *py_ingest(PyObject *self, PyObject *args) {
  (void)self;
  const char *kind, *source;
  PyObject *opts;
  if (!PyArg_ParseTuple(args, "ssO!", &kind, &source, &PyList_Type, &opts)) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(opts);
  const char **w = calloc((size_t)(2 * n + 1), sizeof *w);
  cf_pipeline_ingest *a = malloc(sizeof *a);
  notes *nt = calloc(1, sizeof *nt);
  if (!w || !a || !nt) return free(w), free(a), free(nt), PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; i++)
    if (option_words(PyList_GET_ITEM(opts, i), &w[2 * i], &w[2 * i + 1])) return free(w), free(a), free(nt), NULL;
  cf_pipeline_ingest_init(a);
  a->kind = kind, a->in = source;
  cf_error err = {0, ""};
  cf_recording r;
  int rc = CF_OK, stage = 0; /* 0 options, 1 reading and writing; unknown: the option not taken */
  const char *unknown = NULL;
  Py_BEGIN_ALLOW_THREADS;
  for (Py_ssize_t i = 0; !rc && i < n; i++) /* --meta FILE first, as the command line reads it */
    if (!strcmp(w[2 * i], "--meta") && w[2 * i + 1]) rc = cf_pipeline_ingest_meta(a, w[2 * i + 1], &err);
  for (Py_ssize_t i = 0; !rc && !unknown && i < n; i++) {
    int k = w[2 * i + 1] ? cf_pipeline_ingest_option(a, w[2 * i], w[2 * i + 1], &err) : cf_pipeline_ingest_flag(a, w[2 * i]);
    if (k < 0) rc = CF_EINVAL;
    else if (k == 0) unknown = w[2 * i];
  }
  if (!rc && !unknown) rc = cf_pipeline_ingest_check(a, &err);
  if (!rc && !unknown) {
    stage = 1;
    cf_pipeline_progress pp = {NULL, NULL, note, nt};
    rc = cf_pipeline_ingest_run(a, &pp, &r, &err);
  }
  Py_END_ALLOW_THREADS;
  PyObject *out = NULL;
  if (unknown) PyErr_Format(PyExc_TypeError, "unknown ingest option %s (see clothfit ingest --help)", unknown);
  else if (rc) raise_error(stage || rc == CF_EIO ? KIND_LIBRARY : KIND_OPTION, &err);
  else {
    PyObject *d = PyDict_New(), *nl = notes_list(nt);
    int bad = !d || !nl || put(d, "output", PyUnicode_FromString(a->out)) ||
              put(d, "source", PyUnicode_FromString(a->in)) || put(d, "frames", PyLong_FromLong(r.n_frames)) ||
              put(d, "markers", PyLong_FromLong(r.n_markers)) ||
              put(d, "dropped_markers", PyLong_FromLong(r.n_dropped)) || put(d, "dt", PyFloat_FromDouble(r.dt)) ||
              put(d, "duration_s", PyFloat_FromDouble(r.n_frames ? r.time[r.n_frames - 1] : 0)) ||
              put(d, "resampling", PyUnicode_FromString(r.uniform ? "linear" : "native")) ||
              put(d, "nodes", PyLong_FromLong(r.mesh.n_nodes)) ||
              put(d, "points", PyLong_FromLong(r.cloud.offset ? r.cloud.n_points : 0));
    if (!bad) out = Py_BuildValue("(OO)", d, nl);
    Py_XDECREF(d), Py_XDECREF(nl);
  }
  if (stage) cf_recording_free(&r);
  free(w), free(a), free(nt);
  return out;
}

/* ------------------------------------------------------------ experiment */
/* experiment(kind, options, model) -> (fields, notes): clothfit experiment
 * KIND with the options (a dict of option words; the flags True) and the
 * model settings; the fields of its --json (no report). */
static PyObject *py_experiment(PyObject *self, PyObject *args) {
  (void)self;
  const char *kind;
  PyObject *opts, *mopts;
  if (!PyArg_ParseTuple(args, "sO!O!", &kind, &PyDict_Type, &opts, &PyDict_Type, &mopts)) return NULL;
  cf_pipeline_experiment_text t;
  memset(&t, 0, sizeof t);
  if (model_text(mopts, &t.model)) return NULL;
  WORD(&t, opts, dataset), WORD(&t, opts, out), WORD(&t, opts, recordings), WORD(&t, opts, workers);
  WORD(&t, opts, max_evals), WORD(&t, opts, regress_evals), WORD(&t, opts, regress_search);
  WORD(&t, opts, prune_margin), WORD(&t, opts, search), WORD(&t, opts, start), WORD(&t, opts, dgrid);
  WORD(&t, opts, agrid);
  if (PyErr_Occurred()) return NULL;
  t.prune = flag(opts, "prune"), t.no_refine = flag(opts, "no_refine"), t.no_maps = flag(opts, "no_maps");
  t.restart = flag(opts, "restart"), t.no_confidence = flag(opts, "no_confidence"), t.clouds = flag(opts, "clouds");
  const char *words[64];
  int argc = cf_pipeline_experiment_words(kind, &t, words, 64);
  cf_pipeline_experiment *x = malloc(sizeof *x);
  notes *nt = calloc(1, sizeof *nt);
  if (!x || !nt || argc < 0) return free(x), free(nt), PyErr_NoMemory();
  cf_error err = {0, ""};
  int rc, option = 1;
  Py_BEGIN_ALLOW_THREADS;
  cf_runtime_init(); /* this thread's OpenMP setting, as clothfit's main() makes it */
  rc = cf_pipeline_experiment_parse(kind, &t, x, &err);
  if (!rc) {
    option = 0;
    cf_pipeline_progress pr = {NULL, NULL, note, nt};
    rc = cf_pipeline_experiment_run(x, argc, (char **)words, &pr, &err);
  }
  Py_END_ALLOW_THREADS;
  PyObject *d = NULL, *out = NULL;
  if (rc) raise_error(option ? KIND_OPTION : KIND_LIBRARY, &err);
  else {
    cf_pipeline_fields f;
    if (fields_into(&f, &d)) cf_pipeline_experiment_fields(&f, x, NULL);
    PyObject *nl = notes_list(nt);
    if (d && nl && !PyErr_Occurred()) out = Py_BuildValue("(OO)", d, nl);
    Py_XDECREF(d), Py_XDECREF(nl);
  }
  cf_pipeline_experiment_free(x);
  free(x), free(nt);
  return out;
}

/* ------------------------------------------------------------ module */
static PyMethodDef methods[] = {
    {"load", py_load, METH_VARARGS,
     "load(path, model) -> dict: the recording read through the library's HDF5 reader with the model settings\n"
     "(dict of option words); its markers [T, K, 3] m (read-only, no copy), weights, time, dt, rho ..."},
    {"simulate", py_simulate, METH_VARARGS,
     "simulate(path, delta, alpha, model) -> dict: the recording simulated at (delta, alpha): markers [T, K, 3] m,\n"
     "per-frame e_cm, s_cm, d_cm, the mean error over the whole recording."},
    {"error", py_error, METH_VARARGS,
     "error(path, delta, alpha, t0, t1, model) -> dict: the mean M-norm error over the window [t0, t1) s,\n"
     "as one point of clothfit sweep."},
    {"fit", py_fit, METH_VARARGS,
     "fit(path, fit_options, model) -> (fields, notes): the fields of clothfit fit --json, the series at\n"
     "the optimum and the fit's warnings."},
    {"experiment", py_experiment, METH_VARARGS,
     "experiment(kind, options, model) -> (fields, notes): clothfit experiment KIND with the options (a dict of\n"
     "option words, flags True) and the model settings: the fields of its --json (no report) and its warnings."},
    {"ingest", py_ingest, METH_VARARGS,
     "ingest(kind, source, options) -> (summary, notes): clothfit ingest KIND SOURCE with options, a list of\n"
     "(option as the command line spells it, value or None for a flag), -o among them."},
    {"simulate_scenario", py_simulate_scenario, METH_VARARGS,
     "simulate_scenario(config) -> dict: the scenario simulated as clothfit simulate does: positions\n"
     "[T, n, 3] m, time, violation, iterations, rest, faces, kinematic."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_clothfit",
                                    "The C layer of clothfit's Python module (use the package clothfit).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__clothfit(void) {
  import_array();
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Error = PyErr_NewExceptionWithDoc("clothfit.Error",
                                    "An error of the clothfit library, with the message the command line "
                                    "prints.", PyExc_RuntimeError, NULL);
  PyObject *ob = PyTuple_Pack(2, Error, PyExc_ValueError), *fb = PyTuple_Pack(2, Error, PyExc_OSError);
  OptionError = ob ? PyErr_NewExceptionWithDoc("clothfit.OptionError", "A setting the library refuses (a bad "
                                               "option value); also a ValueError.", ob, NULL) : NULL;
  FileError = fb ? PyErr_NewExceptionWithDoc("clothfit.FileError", "A file the library cannot read or write; also "
                                             "an OSError.", fb, NULL) : NULL;
  SimulationError = PyErr_NewExceptionWithDoc("clothfit.SimulationError", "A simulation that failed (the "
                                              "projection did not converge, the state turned non-finite ...).",
                                              Error, NULL);
  Py_XDECREF(ob), Py_XDECREF(fb);
  if (!Error || !OptionError || !FileError || !SimulationError || PyModule_AddObjectRef(m, "Error", Error) ||
      PyModule_AddObjectRef(m, "OptionError", OptionError) || PyModule_AddObjectRef(m, "FileError", FileError) ||
      PyModule_AddObjectRef(m, "SimulationError", SimulationError)) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
