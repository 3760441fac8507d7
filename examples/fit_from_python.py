#!/usr/bin/env python3
"""Fit a bundled recording from Python and plot its error e(t) at the optimum.

    python3 examples/fit_from_python.py [--clothfit PATH] [-o fit.png]

Ingests datasets/aero-mini's denim-A2-shake-fast-I export (with its sidecars)
into a temporary HDF5 recording with clothfit.ingest_motive, fits it with
clothfit.fit (a coarse grid start and 30 Nelder-Mead evaluations, with the
confidence checks), runs `clothfit fit --json` with the same options, says
whether the two agree value for value, and draws e(t) with the 95 % intervals
in the title (matplotlib, Agg backend) into the PNG.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import clothfit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORT = os.path.join(ROOT, "datasets", "aero-mini", "recordings", "denim-A2-shake-fast-I")
OPTIONS = dict(delta_grid=(0.02, 0.3, 4), alpha_grid=(0.05, 1.2, 4), max_evals=30)
ARGS = ["--delta-grid", "0.02:0.3:4", "--alpha-grid", "0.05:1.2:4", "--max-evals", "30"]


def main():
    """Ingest, fit from Python and from the command line, compare, plot."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clothfit", default=shutil.which("clothfit") or os.path.join(ROOT, "build", "src", "cli",
                                                                                     "clothfit"))
    ap.add_argument("-o", "--output", default="fit_from_python.png")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="clothfit_example_") as tmp:
        rec = os.path.join(tmp, "denim-A2-shake-fast-I.h5")
        clothfit.ingest_motive(EXPORT + ".csv", rec, meta=EXPORT + ".meta.ini", map=EXPORT + ".map")
        fit = clothfit.fit(rec, **OPTIONS)
        out = subprocess.run([a.clothfit, "fit", rec, *ARGS, "--json"], check=True, capture_output=True, text=True)
        cli = json.loads(out.stdout.strip().splitlines()[-1])
    same = fit.as_dict() == cli
    print("recording    %s" % fit.recording)
    print("fit          delta %.5f %s, alpha %.5f %s" % (fit.delta, fit.delta_interval, fit.alpha, fit.alpha_interval))
    print("identifiable %s %s" % (fit.identifiable, fit.identifiable_why or ""))
    print("errors       train %.4f cm, test %.4f cm, whole %.4f cm (%d simulations)" % (
        fit.train_error_cm, fit.test_error_cm, fit.mean_error_cm, fit.simulations))
    print("clothfit fit --json equals clothfit.fit: %s (%d fields)" % (same, len(cli)))
    for n in fit.notes:
        print("note         %s" % n)
    s = fit.series
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(s["time"], s["e_cm"], label="e(t)")
    ax.plot(s["time"], s["d_cm"], lw=0.8, label="d(t) = e + 2 s")
    t1 = fit.as_dict().get("train_error_cm")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("cm")
    di, ai = fit.delta_interval or [float("nan")] * 2, fit.alpha_interval or [float("nan")] * 2
    ax.set_title("%s: delta %.4f [%.4f, %.4f], alpha %.4f [%.4f, %.4f]" % (
        fit.recording, fit.delta, di[0], di[1], fit.alpha, ai[0], ai[1]), fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.output, dpi=100)
    print("figure       %s (training error %.4f cm)" % (a.output, t1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
