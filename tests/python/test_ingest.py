"""ingest_motive, ingest_csv, ingest_meshes, ingest_clouds against `clothfit ingest`: the same files, bit for bit."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import clothfit

from conftest import ROOT

AERO = os.path.join(ROOT, "datasets", "aero-mini", "recordings", "denim-A2-shake-fast-I")
WAM = os.path.join(ROOT, "datasets", "wam-mini", "recordings", "felt-fast")


def h5_contents(path):
    """Every dataset's bytes (or its strings) and every attribute of the file, by name."""
    out = {}
    with h5py.File(path, "r") as f:
        def value(v):
            a = np.asarray(v)
            return a.tolist() if a.dtype.kind in "OSU" else (a.dtype.str, a.shape, a.tobytes())

        def visit(name, obj):
            out[name] = value(obj[()]) if isinstance(obj, h5py.Dataset) else None
            for k, v in obj.attrs.items():
                out[name + "@" + k] = value(v)
        visit("/", f)
        f.visititems(visit)
    return out


def cli_ingest(exe, kind, source, out, *args):
    """`clothfit ingest KIND SOURCE -o OUT ARGS`."""
    subprocess.run([exe, "ingest", kind, source, "-o", out, *args], check=True, capture_output=True)


def cli_error(exe, *args):
    """The message `clothfit ingest ARGS` fails with, without "clothfit ingest: "."""
    p = subprocess.run([exe, "ingest", *args], capture_output=True, text=True)
    assert p.returncode != 0
    return p.stderr.strip().splitlines()[-1].split(": ", 1)[1]


def make_clouds(folder):
    """Three point-cloud frames (XYZ) and the held corners' track of a small flat sheet."""
    clouds = os.path.join(folder, "clouds")
    os.makedirs(clouds)
    x, z = np.meshgrid(np.linspace(-0.15, 0.15, 7), np.linspace(-0.4, 0.0, 9))
    for k, t in enumerate((0.0, 0.033, 0.066)):
        pts = np.stack([x.ravel() + 0.001 * k, np.zeros(x.size), z.ravel()], axis=1)
        np.savetxt(os.path.join(clouds, "frame_%06d_%.6f.xyz" % (k, t)), pts, fmt="%.6f")
    track = os.path.join(folder, "corners.csv")
    with open(track, "w") as f:
        f.write("time,x1,y1,z1,x2,y2,z2\n")
        for t in (0.0, 0.05, 0.1):
            f.write("%g,-0.1485,0,0,0.1485,0,0\n" % t)
    return clouds, track


def test_ingest_motive_equals_command(exe, tmp_path):
    """ingest_motive with the sidecars and options writes the file `clothfit ingest motive` writes."""
    cli, py = str(tmp_path / "cli.h5"), str(tmp_path / "py.h5")
    cli_ingest(exe, "motive", AERO + ".csv", cli, "--meta", AERO + ".meta.ini", "--map", AERO + ".map", "--dt", "0.02",
               "--ghost-radius", "0.3", "--notes", "from Python")
    s = clothfit.ingest_motive(AERO + ".csv", py, meta=AERO + ".meta.ini", map=AERO + ".map", dt=0.02,
                               ghost_radius=0.3, notes="from Python")
    assert h5_contents(py) == h5_contents(cli)
    assert s["output"] == py and s["frames"] > 100 and s["dt"] == 0.02 and s["markers"] == 20


def test_ingest_csv_equals_command(exe, recordings, tmp_path):
    """ingest_csv of a generic CSV (written from a recording; blank cells where a marker is missing)."""
    with h5py.File(recordings[0], "r") as f:
        pos, t = f["markers/position"][()], f["time"][()]
    src = tmp_path / "generic.csv"
    names = ["M%d" % k for k in range(pos.shape[1])]
    with open(src, "w") as f:
        f.write("t," + ",".join("%s_%s" % (n, a) for n in names for a in "xyz") + "\n")
        for k in range(len(t)):
            f.write("%.6f," % t[k] + ",".join("%.6f" % v if np.isfinite(v) else "" for v in pos[k].ravel()) + "\n")
    cli, py = str(tmp_path / "cli.h5"), str(tmp_path / "py.h5")
    cli_ingest(exe, "csv", str(src), cli, "--time-column", "t", "--units", "m", "--size", "A3", "--material", "felt")
    clothfit.ingest_csv(src, py, time_column="t", units="m", size="A3", material="felt")
    assert h5_contents(py) == h5_contents(cli)


def test_ingest_meshes_equals_command(exe, tmp_path):
    """ingest_meshes of a glob of OBJ frames equals `clothfit ingest meshes`."""
    cli, py = str(tmp_path / "cli.h5"), str(tmp_path / "py.h5")
    glob = os.path.join(WAM + ".meshes", "frame_00001*.obj")
    cli_ingest(exe, "meshes", glob, cli, "--meta", WAM + ".meta.ini", "--held", "0,8", "--dt", "0.02")
    s = clothfit.ingest_meshes(glob, py, meta=WAM + ".meta.ini", held=(0, 8), dt=0.02)
    assert h5_contents(py) == h5_contents(cli)
    assert s["nodes"] == 81 and s["frames"] > 5


def test_ingest_clouds_equals_command(exe, tmp_path):
    """ingest_clouds of three XYZ frames and a corner track equals `clothfit ingest clouds`."""
    clouds, track = make_clouds(str(tmp_path))
    cli, py = str(tmp_path / "cli.h5"), str(tmp_path / "py.h5")
    cli_ingest(exe, "clouds", clouds, cli, "--held-track", track, "--size", "0.297x0.42", "--grid", "4x3")
    s = clothfit.ingest_clouds(clouds, py, track, size=(0.297, 0.42), grid=(4, 3))
    assert h5_contents(py) == h5_contents(cli)
    assert s["frames"] == 3 and s["points"] == 3 * 63 and s["resampling"] == "native"


def test_ingest_bad_inputs_raise_command_messages(exe, tmp_path):
    """A bad input of each function raises the message `clothfit ingest` prints."""
    out = str(tmp_path / "out.h5")
    with pytest.raises(clothfit.OptionError) as e:
        clothfit.ingest_motive(AERO + ".csv", out, up="x")
    assert str(e.value) == cli_error(exe, "motive", AERO + ".csv", "-o", out, "--up", "x")
    garbage = tmp_path / "garbage.csv"
    garbage.write_text("not,a,motive\nexport\n")
    with pytest.raises(clothfit.Error) as e:
        clothfit.ingest_csv(garbage, out)
    assert str(e.value) == cli_error(exe, "csv", str(garbage), "-o", out)
    with pytest.raises(clothfit.OptionError) as e:
        clothfit.ingest_meshes(WAM + ".meshes", out, times="t.txt", fps=30)
    assert str(e.value) == cli_error(exe, "meshes", WAM + ".meshes", "-o", out, "--times", "t.txt", "--fps", "30")
    clouds, track = make_clouds(str(tmp_path))
    with pytest.raises(clothfit.OptionError) as e:
        clothfit.ingest_clouds(clouds, out, track, dt=0.01)
    assert str(e.value) == cli_error(exe, "clouds", clouds, "-o", out, "--held-track", track, "--dt", "0.01")
    missing = str(tmp_path / "missing.csv")
    with pytest.raises(clothfit.FileError) as e:
        clothfit.ingest_clouds(clouds, out, missing)
    assert str(e.value) == cli_error(exe, "clouds", clouds, "-o", out, "--held-track", missing)
    with pytest.raises(TypeError):
        clothfit.ingest_motive(AERO + ".csv", out, colour="red")
