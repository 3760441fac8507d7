#!/usr/bin/env python3
"""clothfit.error as the objective of SciPy's Nelder-Mead, beside clothfit.fit.

    python3 examples/objective.py [--evals N]

Ingests datasets/aero-mini's denim-A2-shake-fast-I export with
clothfit.ingest_motive, minimises the mean error over its first half (the fit's training
window) with scipy.optimize.minimize(method="Nelder-Mead") from the same start
as clothfit.fit (delta, alpha) = (0.1, 0.5), both with N evaluations at most
(default 40), and prints the two answers and their training errors.  A failed
simulation (clothfit.SimulationError) counts as an infinite error.
"""
import argparse
import math
import os
import sys
import tempfile

import scipy.optimize

import clothfit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORT = os.path.join(ROOT, "datasets", "aero-mini", "recordings", "denim-A2-shake-fast-I")


def main():
    """Ingest, minimise with SciPy and with clothfit.fit, compare."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evals", type=int, default=40)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="clothfit_example_") as tmp:
        path = os.path.join(tmp, "denim-A2-shake-fast-I.h5")
        clothfit.ingest_motive(EXPORT + ".csv", path, meta=EXPORT + ".meta.ini", map=EXPORT + ".map")
        rec = clothfit.load(path)
        window = (0.0, 0.5 * rec.frames * rec.dt)  # the fit's training window: frames [0, T/2)

        def objective(x):
            """The mean error (cm) over the training window; inf where the simulation fails."""
            if x[0] < 0 or x[1] < 0:
                return math.inf
            try:
                return clothfit.error(rec, x[0], x[1], window=window)["error_cm"]
            except clothfit.SimulationError:
                return math.inf

        res = scipy.optimize.minimize(objective, [0.1, 0.5], method="Nelder-Mead",
                                      options=dict(maxfev=a.evals, xatol=1e-4, fatol=1e-4))
        fit = clothfit.fit(rec, start=(0.1, 0.5), max_evals=a.evals, confidence=False, workers=1)
    print("scipy Nelder-Mead  delta %.5f alpha %.5f  training error %.4f cm (%d evaluations)" % (
        res.x[0], res.x[1], res.fun, res.nfev))
    print("clothfit.fit       delta %.5f alpha %.5f  training error %.4f cm (%d evaluations)" % (
        fit.delta, fit.alpha, fit.train_error_cm, fit.evaluations))
    print("difference         delta %+.1f %%, alpha %+.1f %%" % (100 * (res.x[0] / fit.delta - 1),
                                                                  100 * (res.x[1] / fit.alpha - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
