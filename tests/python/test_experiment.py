"""clothfit.experiment against clothfit experiment --json: the same study, the same fields, value for value."""
import json
import os
import subprocess

import pytest

import clothfit

# A tiny aerodynamics study: four synthetic exports of 1.5 s (clothfit synth; four, so that the a-priori formulas
# are fitted too), a 2 x 2 grid, 6 evaluations per fit, 4 of the regression, no confidence checks (about 3 s a run).
SOURCES = [("shake", 3, "shake", "A3", "polyester", "fast"), ("twist", 5, "twist", "A3", "polyester", "fast"),
           ("shake2", 7, "shake", "A2", "wool", "slow"), ("twist2", 9, "twist", "A2", "denim", "slow")]
OPTIONS = dict(delta_grid=(0.2, 1, 2, "rho"), alpha_grid=(1, 3, 2, "rho"), max_evals=6, regress_evals=4,
               confidence=False, workers=1)
ARGS = ["--delta-grid", "0.2:1:2*rho", "--alpha-grid", "1:3:2*rho", "--max-evals", "6", "--regress-evals", "4",
        "--no-confidence", "--workers", "1"]


@pytest.fixture(scope="module")
def dataset(exe, tmp_path_factory):
    """A dataset folder of four Motive exports with their sidecars (NAME.meta.ini, NAME.truth.ini, NAME.map)."""
    d = tmp_path_factory.mktemp("study")
    for name, seed, motion, size, material, speed in SOURCES:
        ini = d / (name + ".ini")
        ini.write_text("[recording]\nmaterial = %s\nsize = %s\nmotion = %s\nspeed = %s\nduration = 1.5\nseed = %d\n"
                       % (material, size, motion, speed, seed))
        subprocess.run([exe, "synth", str(ini), "-o", str(d / (name + ".csv"))], check=True, capture_output=True)
        ini.unlink()
    return str(d)


def cli(exe, *args):
    """clothfit experiment with args: (status, its --json object or None, stderr)."""
    p = subprocess.run([exe, "experiment", *args], capture_output=True, text=True,
                       env=dict(os.environ, CLOTHFIT_PROGRESS="0"))
    lines = p.stdout.strip().splitlines()
    return p.returncode, json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None, p.stderr


def test_experiment_equals_experiment_json(exe, dataset, tmp_path):
    """experiment()'s fields are those of clothfit experiment --no-report --json, value for value and in its order
    (stage_seconds, the wall times, only by their stages)."""
    out = str(tmp_path / "aero.h5")
    status, ref, err = cli(exe, "aero", "--dataset", dataset, "-o", out, *ARGS, "--no-report", "--json")
    assert status == 0, err
    x = clothfit.experiment("aero", dataset=dataset, output=out, **OPTIONS)  # the same file, rewritten
    got = x.as_dict()
    assert list(got) == list(ref)
    assert list(got["stage_seconds"]) == list(ref["stage_seconds"]) == ["ingest", "sweep", "fit", "regress"]
    assert all(t >= 0 for t in got["stage_seconds"].values())
    got.pop("stage_seconds"), ref.pop("stage_seconds")
    assert got == ref
    assert len(x.recordings) == 4 and x.R_cm == ref["R_cm"] and x.output == out
    assert not os.path.exists(out + ".journal")  # closed, as the command closes it
    assert os.path.exists(os.path.join(str(tmp_path), "aero-recordings", "twist2.h5"))


def test_experiment_bad_options_raise_command_messages(exe, dataset, tmp_path):
    """A bad option raises OptionError with the message clothfit experiment prints after 'clothfit experiment: '."""
    out = str(tmp_path / "bad.h5")
    for kw, args in [(dict(max_evals=0), ["--max-evals", "0"]), (dict(clouds=True), ["--clouds"]),
                     (dict(regress_search="best"), ["--regress-search", "best"]),
                     (dict(delta_grid=(1, 0, 3)), ["--delta-grid", "1:0:3"]), (dict(kappa=-1.0), ["--kappa", "-1.0"]),
                     (dict(start="nowhere"), ["--start", "nowhere"])]:
        status, _, err = cli(exe, "aero", "--dataset", dataset, "-o", out, *args)
        assert status == 1
        with pytest.raises(clothfit.OptionError) as e:
            clothfit.experiment("aero", dataset=dataset, output=out, **kw)
        assert isinstance(e.value, ValueError)
        assert "clothfit experiment: " + str(e.value) == err.strip().splitlines()[-1], kw
    with pytest.raises(clothfit.OptionError) as e:
        clothfit.experiment("nope")
    assert str(e.value) == cli(exe, "nope")[2].strip().split(": ", 1)[1]
    # a dataset the library cannot read: the same message, nothing written
    missing = str(tmp_path / "missing")
    with pytest.raises(clothfit.Error) as e:
        clothfit.experiment("aero", dataset=missing, output=out)
    assert str(e.value) == cli(exe, "aero", "--dataset", missing, "-o", out)[2].strip().split(": ", 1)[1]
    assert not os.path.exists(out)
    with pytest.raises(TypeError):
        clothfit.experiment("aero", colour="red")
