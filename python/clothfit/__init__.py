"""clothfit from Python: the library's simulator, error and fit over HDF5 recordings.

The functions take a recording (the path of an HDF5 file written by
:func:`ingest_motive`, :func:`ingest_meshes`, :func:`ingest_clouds`,
``clothfit ingest`` or ``clothfit synth``, or a :class:`Recording` from
:func:`load`) and the settings of the command line as keyword arguments,
with the same names (``--max-iter`` is ``max_iter``) and defaults::

    import clothfit
    fit = clothfit.fit("rec.h5", train=(0, 0.5), workers=1)
    print(fit.delta, fit.alpha, fit.delta_interval, fit.identifiable)

Units are those of the HDF5 files: positions in metres, times in seconds,
errors in centimetres (the thesis' unit, the ``_cm`` keys of ``--json``).
Arrays are NumPy arrays frames x points x 3 over the library's own buffers
(read-only) or filled by it in place, never copied.

The model settings (every function): ``kappa``, ``beta``, ``tol``,
``max_iter``, ``mu``, ``model``, ``k_stretch``, ``k_shear``, ``k_bend``,
``rest`` ("size", "flat", "first-frame"), ``split`` (N or "RxC"),
``substeps``, ``initial`` ("rest" or "moving"); see ``clothfit fit --help``.

Errors of the library raise :class:`Error` (a RuntimeError) with the
library's message: :class:`OptionError` (also ValueError) for a setting it
refuses, :class:`FileError` (also OSError) for a file it cannot read,
:class:`SimulationError` for a simulation that failed.  The GIL is
released while the library works, so threads may run several fits at once.
"""

import math
import os

from . import _clothfit
from ._clothfit import Error, FileError, OptionError, SimulationError

__all__ = ["Error", "OptionError", "FileError", "SimulationError", "Recording", "Fit", "Experiment", "load",
           "simulate", "error", "fit", "experiment", "simulate_scenario", "ingest_motive", "ingest_csv",
           "ingest_meshes", "ingest_clouds"]

_MODEL = ("kappa", "beta", "tol", "max_iter", "mu", "model", "k_stretch", "k_shear", "k_bend", "rest", "split",
          "substeps", "initial")


def _word(name, value):
    """The option word of one keyword value: numbers with every digit (repr), pairs joined."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise OptionError("invalid %s %r: expected a number or a word" % (name, value))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise OptionError("invalid %s %r: expected a number or a word" % (name, value))


def _model(options):
    """The model settings among the keyword arguments, as option words; the others are refused."""
    unknown = sorted(set(options) - set(_MODEL))
    if unknown:
        raise TypeError("unknown option%s %s (the model settings are %s)" % (
            "s" if len(unknown) > 1 else "", ", ".join(unknown), ", ".join(_MODEL)))
    return {k: _word(k, v) for k, v in options.items() if v is not None}


def _path(recording):
    """The file of a recording given as a path or a Recording."""
    if isinstance(recording, Recording):
        return recording.path
    if isinstance(recording, (str, bytes, os.PathLike)):
        return os.fsdecode(recording)
    raise TypeError("recording: expected a path or a clothfit.Recording, got %r" % (recording,))


def _pair(name, value, sep):
    """A window or a start (two numbers, or the option's own word) as an option word."""
    if value is None or isinstance(value, str):
        return value
    try:
        a, b = value
    except (TypeError, ValueError):
        raise OptionError("invalid %s %r: expected two numbers" % (name, value)) from None
    return sep.join("" if isinstance(x, float) and math.isinf(x) else _word(name, x) for x in (a, b))


def _grid(name, value):
    """A grid (lo, hi, n[, "rho"]) or "A:B:N[*rho]" as an option word."""
    if value is None or isinstance(value, str):
        return value
    v = list(value)
    per_rho = len(v) == 4 and v[3] == "rho"
    if len(v) != 3 and not per_rho:
        raise OptionError("invalid %s %r: expected (lo, hi, n) or (lo, hi, n, 'rho')" % (name, value))
    return ":".join(_word(name, x) for x in v[:3]) + ("*rho" if per_rho else "")


class Recording:
    """A recording read through the library's HDF5 reader (:func:`load`).

    Attributes: ``path``, ``name`` (the file's stem), ``markers`` (frames x
    markers x 3, m, NaN where missing; read-only, the library's buffer),
    ``weights`` (the lattice weights of the error), ``time`` (s), ``dt``,
    ``frames``, ``rows`` and ``cols`` of the marker lattice, ``rho``
    (kg/m^2), ``duration`` (s), ``S`` and ``V`` (the size and speed
    measures), ``material``, ``width_m``, ``height_m``, ``table`` (whether it
    has one).  The functions that simulate read the file again with their
    own settings.
    """

    def __init__(self, fields):
        """A recording from the fields _clothfit.load returns."""
        self.__dict__.update(fields)

    def __repr__(self):
        """The recording's name, frames and lattice."""
        return "<clothfit.Recording %s: %d frames of %d x %d markers, dt %g s>" % (
            self.name, self.frames, self.rows, self.cols, self.dt)


class _Fields:
    """The fields of a command's ``--json`` as attributes, and ``notes``, the warnings it prints on stderr."""

    def __init__(self, fields, notes):
        """The fields and notes the C layer returns."""
        self._fields = fields
        self.notes = list(notes)

    def __getattr__(self, name):
        """The field name of the fit's result."""
        try:
            return self.__dict__["_fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        """The attributes and the fields."""
        return sorted(set(super().__dir__()) | set(self._fields))

    def as_dict(self):
        """The fields of the command's ``--json`` as a new dict, in its order."""
        return dict(self._fields)


class Fit(_Fields):
    """The result of :func:`fit`: the fields of ``clothfit fit --json``, value for value.

    Every field is an attribute (``fit.delta``, ``fit.alpha``, ``fit.mu``,
    ``fit.delta_interval``, ``fit.identifiable``, ``fit.identifiable_why``,
    ``fit.train_error_cm`` ...); :meth:`as_dict` gives them all in the
    command line's order.  Besides them: ``series``, the per-frame errors
    at the optimum (``e_cm``, ``s_cm``, ``d_cm``, ``time``) with the
    simulated and recorded markers (frames x markers x 3, m), and ``notes``,
    the warnings the command line prints on stderr.
    """

    def __init__(self, fields, notes):
        """A fit from the fields and notes _clothfit.fit returns."""
        self.series = fields.pop("series")
        super().__init__(fields, notes)

    def __repr__(self):
        """The fit's estimates and intervals."""
        return "<clothfit.Fit %s: delta %.5g %s, alpha %.5g %s, identifiable %s>" % (
            self.recording, self.delta, self.delta_interval, self.alpha, self.alpha_interval, self.identifiable)


def load(path, **model):
    """Read a recording (HDF5) through the library's reader.

    ``load(path, **model)`` returns a :class:`Recording` whose ``markers``
    (frames x markers x 3, m) are the library's buffer, read-only.  The
    model settings (``rest``, ``split`` ...) are checked against the
    recording as the commands check them.  Raises FileError for a file that
    cannot be read, OptionError for a setting the recording refuses.
    """
    return Recording(_clothfit.load(_path(path), _model(model)))


def simulate(recording, delta, alpha, **model):
    """Simulate a recording at (delta, alpha) as a fit's optimum is simulated.

    The cloth starts from the recording's first frame, its held markers
    follow their recorded tracks, and the other parameters are the model
    settings (keyword arguments, the defaults of ``clothfit fit``).  Returns
    a dict: ``markers`` (frames x markers x 3, m; a new array the library
    filled in place), ``e_cm``, ``s_cm``, ``d_cm`` (the per-frame error
    e(t), spread and dispersion d(t) = e + 2 s, cm), ``markers_present``,
    ``error_cm`` and ``std_cm`` (means over the whole recording),
    ``dispersion_max_cm``, ``time`` (s), ``iterations``.  Raises
    SimulationError (with the step and reason) when the simulation fails.
    """
    return _clothfit.simulate(_path(recording), float(delta), float(alpha), _model(model))


def error(recording, delta, alpha, window=(0.0, math.inf), **model):
    """The M-norm error of the thesis (4.2)-(4.3) at (delta, alpha) over a window.

    ``window`` is [t0, t1) in seconds (t1 inf: to the end), as ``clothfit
    sweep --window``; the value equals that sweep's at the same point.
    Returns a dict: ``error_cm`` (the mean of e(t) over the window's frames),
    ``std_cm``, ``dispersion_max_cm``, ``frames`` (that counted),
    ``window_frames`` (t0, t1), the per-frame ``e_cm``, ``s_cm``, ``d_cm`` up
    to the window's end (NaN after it), ``time``.  Raises SimulationError
    when the simulation fails, OptionError for a window without frames.
    """
    try:
        t0, t1 = window
    except (TypeError, ValueError):
        raise OptionError("invalid window %r: expected (t0, t1) in seconds" % (window,)) from None
    return _clothfit.error(_path(recording), float(delta), float(alpha), float(t0), float(t1), _model(model))


def fit(recording, params=None, start=None, train=None, max_evals=None, workers=None, delta_grid=None,
        alpha_grid=None, mu_grid=None, polish=None, search=None, prune=False, confidence=True, **model):
    """Fit (delta, alpha) (and mu, kappa, beta if asked) to a recording, as ``clothfit fit`` does.

    The options are the command's, with the same defaults:

    - ``params``: the parameters fitted, "delta,alpha" (default) or a list
      such as ["delta", "alpha", "mu"] (mu needs a table; kappa, beta);
    - ``start``: "grid" (sweep the grid first; default), "apriori" or a
      pair (delta, alpha);
    - ``train``: the training window, fractions of the recording (default
      (0, 0.5)); the rest is the testing window;
    - ``max_evals``: Nelder-Mead evaluations at most (default 200);
    - ``workers``: worker processes of the grid and the checks (default 0,
      all cores; 1 runs in this process, which threads need);
    - ``delta_grid``, ``alpha_grid``: (lo, hi, n) or (lo, hi, n, "rho") or
      "A:B:N[*rho]" (defaults rho x 0.05..1, 15 and rho x 0.05..4, 16);
      ``mu_grid`` with mu fitted;
    - ``polish``: "quadratic" or "none" (default: quadratic with a table);
    - ``search``: "nelder-mead" (default) or "trust";
    - ``prune``: stop hopeless grid points early;
    - ``confidence``: the intervals and the identifiability checks (default
      True; False is --no-confidence);
    - and the model settings (``kappa``, ``tol``, ``rest`` ...).

    Returns a :class:`Fit` whose fields equal those of ``clothfit fit
    --json`` with the same options (delta, alpha, mu, delta_interval,
    alpha_interval, identifiable, identifiable_why, train/test errors,
    simulations, the settings used ...), with the series at the optimum
    and the notes.  Raises OptionError for a bad option (the command
    line's message), FileError for a recording that cannot be read, and
    SimulationError when the simulation fails at every start.
    """
    if params is not None and not isinstance(params, str):
        params = ",".join(params)
    text = {"params": params, "start": _pair("start", start, ","), "train": _pair("train", train, ":"),
            "max_evals": _word("max_evals", max_evals), "workers": _word("workers", workers),
            "dgrid": _grid("delta_grid", delta_grid), "agrid": _grid("alpha_grid", alpha_grid),
            "mgrid": _grid("mu_grid", mu_grid), "polish": polish, "search": search, "prune": bool(prune),
            "no_confidence": not confidence}
    fields, notes = _clothfit.fit(_path(recording), text, _model(model))
    return Fit(fields, notes)


class Experiment(_Fields):
    """The result of :func:`experiment`: the fields of ``clothfit experiment --json``, value for value.

    Every field is an attribute: ``recordings`` (a list of dicts, one per
    recording: ``name``, ``delta``, ``alpha``, ``error_cm``, the intervals
    ...), the failure totals (``failed_points`` ...), ``R_cm``, ``E_cm`` and
    ``regression_simulations`` with a regression, ``remesh`` (experiment
    wam), ``stage_seconds``, ``tasks_resumed``, ``output``; :meth:`as_dict`
    gives them in the command line's order.  ``notes``: the warnings the
    command line prints as "clothfit: warning: ...".
    """

    def __repr__(self):
        """The study's recordings and results file."""
        return "<clothfit.Experiment: %d recordings, results %s>" % (len(self.recordings), self.output)


def experiment(kind, dataset=None, output=None, recordings=None, workers=None, max_evals=None, start=None,
               search=None, delta_grid=None, alpha_grid=None, prune=False, prune_margin=None, refine=True,
               regress_evals=None, regress_search=None, maps=True, confidence=True, clouds=False, restart=False,
               **model):
    """Run a study of the thesis, as ``clothfit experiment KIND --no-report`` does, and return its results.

    ``kind`` is "aero" (thesis §4.2: ingest every Motive export of the
    dataset with its sidecars, sweep each recording's grid, refine its
    optimum, fit the a-priori formulas) or "wam" (§4.1: the registered
    meshes, each fitted on its first half, with the close look at one).
    The options are the command's (``clothfit experiment --help``), with
    the same defaults:

    - ``dataset``: the folder of sources (default datasets/aero-mini or
      datasets/wam-mini, relative to the working directory);
    - ``output``: the results file (-o; default reports/aero.h5,
      reports/wam.h5), ``recordings``: where the ingested recordings go;
    - ``workers``: worker processes (default 0, all cores; 1 runs in this
      process);
    - ``max_evals``: evaluations per fit (default 100); ``start``: "grid"
      or "apriori"; ``search``: "nelder-mead" or "trust";
    - ``delta_grid``, ``alpha_grid``: (lo, hi, n), (lo, hi, n, "rho") or
      "A:B:N[*rho]"; ``prune`` and ``prune_margin``;
    - ``refine=False`` is --no-refine, ``maps=False`` --no-maps,
      ``confidence=False`` --no-confidence, ``clouds=True`` --clouds (wam),
      ``restart=True`` --restart;
    - ``regress_evals``, ``regress_search`` ("model" or "nelder-mead");
    - and the model settings (``kappa``, ``tol``, ``rest`` ...).

    The study writes the results file and its journal as the command does
    (a rerun with the same options resumes it); the report is not written
    (``clothfit report RESULTS.h5`` makes it).  Returns an
    :class:`Experiment` whose fields equal those of ``clothfit experiment
    --no-report --json`` with the same options (``stage_seconds`` are wall
    times).  A recording left without a finite optimum is in the results
    with its failed points and ``delta`` None (the command exits with
    status 1 then).  Raises OptionError for a bad option (the command
    line's message), Error or FileError for a dataset the library cannot
    read (a source without sidecars ...).
    """
    flags = {"prune": bool(prune), "no_refine": not refine, "no_maps": not maps, "no_confidence": not confidence,
             "clouds": bool(clouds), "restart": bool(restart)}
    text = {"dataset": dataset, "out": output, "recordings": recordings, "workers": workers,
            "max_evals": max_evals, "start": start, "search": search, "dgrid": _grid("delta_grid", delta_grid),
            "agrid": _grid("alpha_grid", alpha_grid), "prune_margin": prune_margin, "regress_evals": regress_evals,
            "regress_search": regress_search}
    text = {k: _word(k, os.fsdecode(v) if isinstance(v, os.PathLike) else v) for k, v in text.items()}
    fields, notes = _clothfit.experiment(str(kind), dict(text, **flags), _model(model))
    return Experiment(fields, notes)


def simulate_scenario(config):
    """Simulate a scenario (CONFIG.ini, see experiments/) as ``clothfit simulate`` does.

    Returns a dict: ``positions`` (frames x nodes x 3, m; read-only, the
    library's buffer, the /nodes/position of ``clothfit simulate -o``),
    ``time`` (s), ``violation`` and ``iterations`` per frame, the mesh's
    ``rest`` positions and ``faces``, the ``kinematic`` (driven) nodes,
    ``max_violation``, ``steps`` and ``wall_s``.  Raises OptionError or
    FileError for a config the library refuses (naming file, line and key),
    SimulationError when a step fails.
    """
    return _clothfit.simulate_scenario(os.fsdecode(config))


# The options whose pairs are written RxC or WxH on the command line (the others join with commas).
_BY_X = ("lattice", "grid", "size")


def _ingest(kind, source, output, options):
    """``clothfit ingest KIND SOURCE -o OUTPUT`` with the keyword arguments as its options."""
    words = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        name = "--" + key.replace("_", "-")
        if value is True:
            words.append((name, None))
            continue
        if isinstance(value, os.PathLike):
            value = os.fsdecode(value)
        elif isinstance(value, (list, tuple)):
            value = ("x" if key in _BY_X else ",").join(_word(key, x) for x in value)
        words.append((name, _word(key, value)))
    words.append(("-o", os.fsdecode(output)))
    summary, notes = _clothfit.ingest(kind, os.fsdecode(source), words)
    summary["notes"] = notes
    return summary


_INGEST_RETURNS = """
    Returns a dict: ``output``, ``source``, ``frames``, ``markers``,
    ``dropped_markers``, ``dt`` (s), ``duration_s``, ``resampling``
    ("linear" or "native"), ``nodes`` (a mesh's), ``points`` (a cloud's),
    and ``notes``, the warnings the command line prints on stderr (an
    edited export).  Raises OptionError with the command line's message
    for an option it refuses, FileError for a file it cannot read or
    write, Error for a source it cannot parse; TypeError for a keyword
    that is no option of ``clothfit ingest``.
"""

_META_OPTIONS = """
    Metadata (all kinds): ``material``, ``size`` ("A2", "A3" or (W, H) m),
    ``density`` (kg/m^2; default from the material), ``motion``,
    ``speed``, ``repetition``, ``notes``, ``table_height`` (m) with
    ``table_extent`` (X0, X1, Y0, Y1), ``meta`` (a sidecar INI, which the
    other options override).
"""


def ingest_motive(csv, output, **options):
    """Ingest an OptiTrack Motive CSV export into the HDF5 recording output, as ``clothfit ingest motive``.

    The options are the command's (``clothfit ingest --help``), with ``_``
    for ``-``: ``dt`` (seconds or "native"; default 0.01), ``up`` ("y",
    Motive's default, or "z"), ``rigid_bodies``, ``keep_unseen``,
    ``allow_no_markers``, ``strict`` (True for the flag); marker processing:
    ``lattice`` ((R, C) or "RxC"), ``map`` (file), ``merge`` ("auto",
    "none"), ``merge_radius``, ``merge_gap``, ``ghost_radius``,
    ``controlled`` (names or "top-corners"), ``stick`` ((A, B)),
    ``max_gap`` (s).
    """
    return _ingest("motive", csv, output, options)


def ingest_csv(csv, output, **options):
    """Ingest a generic marker CSV into the HDF5 recording output, as ``clothfit ingest csv``.

    Options: ``time_column`` (default "time"), ``columns_pattern`` (default
    "{name}_{axis}"), ``units`` ("mm", "cm", "m"), ``up`` (default "z"),
    ``dt`` and the marker processing and metadata options of
    :func:`ingest_motive`.
    """
    return _ingest("csv", csv, output, options)


def ingest_meshes(source, output, **options):
    """Ingest a mesh sequence (a folder or a glob of OBJ/PLY files) into output, as ``clothfit ingest meshes``.

    Options: ``times`` (file of frame times) or ``fps`` (the names' number
    is a frame index), ``units`` ("mm", "cm", "m"), ``dt`` (default 0.01;
    "native"), ``up`` ("z" default, "y"), ``held`` ((I, J) node indices,
    0-based), ``max_gap`` (s).
    """
    return _ingest("meshes", source, output, options)


def ingest_clouds(source, output, held_track, **options):
    """Ingest point clouds (a folder or a glob of PLY/XYZ files) into output, as ``clothfit ingest clouds``.

    ``held_track`` is the held corners' trajectory (CSV, --held-track).
    Options: ``times`` or ``fps``, ``units``, ``up``, ``grid`` ((R, C) or
    "RxC", the lattice a fit simulates); the clouds keep the camera's
    frames (no ``dt``).
    """
    options["held_track"] = held_track
    return _ingest("clouds", source, output, options)


for _f in (ingest_motive, ingest_csv, ingest_meshes, ingest_clouds):
    _f.__doc__ += _META_OPTIONS + _INGEST_RETURNS
del _f
