"""The Python module against the command line: the same library, the same numbers, bit for bit."""
import json
import os
import subprocess
import threading

import h5py
import numpy as np
import pytest

import clothfit

from conftest import ROOT

# A small fit: a 3 x 3 grid start, 20 evaluations, one process (threads need it)
FIT = dict(delta_grid=(0.02, 0.2, 3), alpha_grid=(0.05, 0.6, 3), max_evals=20, workers=1)
FIT_ARGS = ["--delta-grid", "0.02:0.2:3", "--alpha-grid", "0.05:0.6:3", "--max-evals", "20", "--workers", "1"]


def cli_json(exe, *args):
    """The --json object of a clothfit command (its last line)."""
    out = subprocess.run([exe, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_simulate_scenario_equals_clothfit_simulate(exe, tmp_path):
    """simulate_scenario's positions are /nodes/position of clothfit simulate -o, bitwise."""
    cfg = tmp_path / "short.ini"
    with open(os.path.join(ROOT, "experiments", "shake_a2.ini")) as f:
        text = f.read()
    assert "duration = 15 " in text
    cfg.write_text(text.replace("duration = 15 ", "duration = 0.3 "))
    out = tmp_path / "traj.h5"
    subprocess.run([exe, "simulate", str(cfg), "-o", str(out)], check=True, capture_output=True)
    r = clothfit.simulate_scenario(str(cfg))
    with h5py.File(out, "r") as h:
        pos, time = h["nodes/position"][()], h["time"][()]
    assert r["positions"].shape == pos.shape and r["positions"].shape[2] == 3
    assert np.array_equal(r["positions"], pos) and r["positions"].tobytes() == pos.tobytes()
    assert np.array_equal(r["time"], time)
    assert not r["positions"].flags.writeable  # the library's buffer, not a copy


def test_simulate_equals_fit_series(exe, recordings, tmp_path):
    """simulate's markers are those clothfit fit -o stores at its optimum, bitwise (the file keeps them as float32),
    and those of the fit's own series (float64)."""
    rec, out = recordings[0], str(tmp_path / "res.h5")
    subprocess.run([exe, "fit", rec, "--start", "0.05,0.2", "--max-evals", "1", "--no-confidence", "--polish", "none",
                    "--workers", "1", "-o", out], check=True, capture_output=True)
    with h5py.File(out, "r") as h:
        g = h["recordings/shake/series"]
        sim, delta, alpha = g["simulated"][()], float(g.attrs["delta"]), float(g.attrs["alpha"])
    s = clothfit.simulate(rec, delta, alpha)
    assert s["markers"].shape == (clothfit.load(rec).frames, 12, 3)
    assert sim.dtype == np.float32 and s["markers"].shape == sim.shape
    assert s["markers"].astype(np.float32).tobytes() == sim.tobytes()
    f = clothfit.fit(rec, start=(0.05, 0.2), max_evals=1, confidence=False, polish="none", workers=1)
    assert (f.delta, f.alpha) == (delta, alpha)
    assert f.series["simulated"].tobytes() == s["markers"].tobytes()
    assert s["markers"].flags.writeable  # the caller's own array, filled by the library


def test_error_equals_sweep_point(exe, recordings):
    """error() at (delta, alpha) over a window is clothfit sweep's value at that one grid point."""
    rec = recordings[0]
    j = cli_json(exe, "sweep", rec, "--delta-grid", "0.07:0.07:1", "--alpha-grid", "0.3:0.3:1", "--window", "0:0.8",
                 "--workers", "1")
    e = clothfit.error(rec, 0.07, 0.3, window=(0, 0.8))
    assert e["error_cm"] == j["recordings"][0]["error_cm"]
    assert e["std_cm"] == j["recordings"][0]["std_cm"]
    assert e["window_frames"] == (0, 40)


def test_fit_equals_fit_json(exe, recordings):
    """fit()'s fields are those of clothfit fit --json, value for value and in its order."""
    rec = recordings[0]
    cli = cli_json(exe, "fit", rec, *FIT_ARGS)
    f = clothfit.fit(rec, **FIT)
    assert f.as_dict() == cli
    assert list(f.as_dict()) == list(cli)
    assert f.delta_interval is not None and len(f.delta_interval) == 2
    assert f.series["e_cm"].shape == (clothfit.load(rec).frames,)
    assert f.series["simulated"].shape == clothfit.load(rec).markers.shape


def test_fit_options_equal_command_line(exe, recordings):
    """Other options (a given start, a training window, the trust search, a held kappa) alike."""
    rec = recordings[1]
    cli = cli_json(exe, "fit", rec, "--start", "0.05,0.2", "--train", "0:0.6", "--search", "trust", "--kappa", "2e-3",
                   "--max-evals", "12", "--no-confidence", "--workers", "1")
    f = clothfit.fit(rec, start=(0.05, 0.2), train=(0, 0.6), search="trust", kappa=2e-3, max_evals=12,
                     confidence=False, workers=1)
    assert f.as_dict() == cli


def test_bad_inputs_raise_library_messages(exe, recordings, tmp_path):
    """Each kind of bad input raises an exception with the message the command line prints."""
    rec = recordings[0]

    def cli_error(*args):
        p = subprocess.run([exe, *args], capture_output=True, text=True)
        assert p.returncode != 0
        return p.stderr.strip().splitlines()[-1].split(": ", 1)[1]  # without "clothfit CMD: "

    # a bad file
    missing = str(tmp_path / "missing.h5")
    with pytest.raises(clothfit.Error) as e:
        clothfit.load(missing)
    assert str(e.value) == cli_error("fit", missing)
    assert isinstance(e.value, RuntimeError)
    garbage = tmp_path / "garbage.h5"
    garbage.write_bytes(b"not an HDF5 file\n" * 10)
    with pytest.raises(clothfit.Error) as e:
        clothfit.fit(str(garbage))
    assert str(e.value) == cli_error("fit", str(garbage))
    # bad options: the library's parsers, the same words
    for kw, args in [(dict(kappa=-1.0), ["--kappa", "-1.0"]), (dict(max_evals=0), ["--max-evals", "0"]),
                     (dict(params="delta,gamma"), ["--params", "delta,gamma"]),
                     (dict(start="nowhere"), ["--start", "nowhere"]), (dict(train=(0.5, 2)), ["--train", "0.5:2"]),
                     (dict(rest="round"), ["--rest", "round"]), (dict(split="9"), ["--split", "9"]),
                     (dict(delta_grid=(1, 0, 3)), ["--delta-grid", "1:0:3"])]:
        with pytest.raises(clothfit.OptionError) as e:
            clothfit.fit(rec, **kw)
        assert isinstance(e.value, ValueError)
        assert str(e.value) == cli_error("fit", rec, *args), kw
    with pytest.raises(clothfit.OptionError) as e:
        clothfit.simulate(rec, 0.1, 0.3, tol=2)
    assert str(e.value) == cli_error("fit", rec, "--tol", "2")
    with pytest.raises(TypeError):
        clothfit.fit(rec, colour="red")
    # a failed simulation: one projection iteration at a tight tolerance
    with pytest.raises(clothfit.SimulationError) as e:
        clothfit.simulate(rec, 0.1, 0.3, max_iter=1, tol=1e-9)
    j = cli_json(exe, "sweep", rec, "--delta-grid", "0.1:0.1:1", "--alpha-grid", "0.3:0.3:1", "--max-iter", "1",
                 "--tol", "1e-9", "--workers", "1")
    assert j["recordings"][0]["failed_points"] == 1
    p = subprocess.run([exe, "sweep", rec, "--delta-grid", "0.1:0.1:1", "--alpha-grid", "0.3:0.3:1", "--max-iter", "1",
                        "--tol", "1e-9", "--workers", "1"], capture_output=True, text=True)
    reason = str(e.value).split(" failed: ", 1)[1]
    assert reason.startswith("step ") and reason[:40] in p.stderr  # the library's reason, as sweep warns it
    with pytest.raises(clothfit.SimulationError) as e:
        clothfit.fit(rec, max_iter=1, tol=1e-9, **FIT)
    assert str(e.value) == cli_error("fit", rec, "--max-iter", "1", "--tol", "1e-9", *FIT_ARGS)
    # a bad scenario config
    bad = tmp_path / "bad.ini"
    bad.write_text("[mesh]\nrows = many\n")
    with pytest.raises(clothfit.Error) as e:
        clothfit.simulate_scenario(str(bad))
    assert str(e.value) == cli_error("simulate", str(bad))


def test_two_threads_equal_sequential(recordings):
    """Two fits of two recordings in two threads at once equal the same fits one after the other."""
    seq = [clothfit.fit(r, **FIT).as_dict() for r in recordings]
    got = [None, None]

    def run(i):
        got[i] = clothfit.fit(recordings[i], **FIT).as_dict()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == seq


def test_docstrings():
    """Every public function has a docstring, and help(clothfit.fit) names its options."""
    for name in clothfit.__all__:
        assert getattr(clothfit, name).__doc__, name
    assert "delta_interval" in clothfit.fit.__doc__ and "train" in clothfit.fit.__doc__
