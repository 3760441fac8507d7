"""Fixtures of the Python tests: the clothfit command and small recordings it makes.

CLOTHFIT_EXE names the command (scripts/test.sh: build/src/cli/clothfit);
the recordings are synthetic (clothfit synth, then ingest motive at 50 Hz),
1.5 s of an A3 sheet, so that a fit with its confidence checks takes about
two seconds.
"""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="package")
def exe():
    """The clothfit command the module is compared with."""
    path = os.environ.get("CLOTHFIT_EXE", os.path.join(ROOT, "build", "src", "cli", "clothfit"))
    if not os.access(path, os.X_OK):
        pytest.fail("no clothfit command at %s (set CLOTHFIT_EXE)" % path)
    return path


def make_recording(exe, folder, name, seed, motion="shake"):
    """A small synthetic recording folder/name.h5 (A3, 1.5 s, 50 Hz)."""
    ini = os.path.join(folder, name + ".ini")
    with open(ini, "w") as f:
        f.write("[recording]\nmaterial = polyester\nsize = A3\nmotion = %s\nspeed = fast\nduration = 1.5\n"
                "seed = %d\n" % (motion, seed))
    base = os.path.join(folder, name)
    subprocess.run([exe, "synth", ini, "-o", base + ".csv"], check=True, capture_output=True)
    subprocess.run([exe, "ingest", "motive", base + ".csv", "-o", base + ".h5", "--meta", base + ".meta.ini",
                    "--dt", "0.02"], check=True, capture_output=True)
    return base + ".h5"


@pytest.fixture(scope="package")
def recordings(exe, tmp_path_factory):
    """Two small recordings: a shake and a twist."""
    d = str(tmp_path_factory.mktemp("recordings"))
    return [make_recording(exe, d, "shake", 3), make_recording(exe, d, "twist", 5, "twist")]
