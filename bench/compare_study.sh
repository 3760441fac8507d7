#!/usr/bin/env bash
# `clothfit compare` on every shake recording of the bundled study (the
# inextensible model, which made them, should have the lowest testing error on
# each; docs/models.md measures it).  Ingests datasets/aero-mini's shake
# recordings, compares the four cloth models on each (grid start, fitted on
# the first half, tested on the second) and prints one markdown row per
# recording (testing error in cm, the lowest in bold) and how many each model
# wins.  The compare flags default to the settings the recordings were made
# with (their .truth.ini: the lattice's cells split 4 x 4, kappa 1e-5, beta
# 1e-4, tol 1e-3; the rest metric of the flat sheet they were hung from);
# pass others after the build folder, e.g. the fitting defaults:
#   bench/compare_study.sh [BUILD_DIR [COMPARE FLAGS...]]
#   bench/compare_study.sh build --split 2          # the default mesh
# With --split 2 (the fitting mesh) ~35 s per recording on 2 cores; with the
# default flags ~2 min per A3 recording and up to 25 min per A2 one (13 x 17).
# Exits 1 unless the inextensible model wins on every recording, 2 when a
# command fails (its message printed).
set -euo pipefail
build=$(realpath "${1:-build}")
cd "$(dirname "$0")/.."
shift || true
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--split 4 --kappa 1e-5 --beta 1e-4 --tol 1e-3 --rest flat)
exe=$build/src/cli/clothfit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "compare flags: ${flags[*]}"
for src in datasets/aero-mini/recordings/*-shake-*.csv; do
  name=$(basename "$src" .csv)
  stem=${src%.csv}
  if ! "$exe" ingest motive "$src" --meta "$stem.meta.ini" --map "$stem.map" -o "$tmp/$name.h5" \
      >/dev/null 2>"$tmp/err"; then
    echo "compare_study: ingest of $src failed:" >&2; cat "$tmp/err" >&2; exit 2
  fi
  t0=$(date +%s)
  if ! "$exe" compare "$tmp/$name.h5" --workers 2 --json "${flags[@]}" >"$tmp/out" 2>"$tmp/err"; then
    echo "compare_study: compare of $name failed:" >&2; cat "$tmp/err" >&2; exit 2
  fi
  tail -1 "$tmp/out" >"$tmp/$name.json"
  echo "$name $(($(date +%s) - t0))" >>"$tmp/times"
done
python3 - "$tmp" <<'EOF'
import glob, json, os, sys
tmp = sys.argv[1]
files = sorted(glob.glob(os.path.join(tmp, "*.json")))
order = [m["model"] for m in json.load(open(files[0]))["models"]]  # the models compared (--models)
times = dict(l.split() for l in open(os.path.join(tmp, "times")))
wins = {m: 0 for m in order}
inext = "inextensible" in order
print("| recording | " + " | ".join(order) + (" | inextensible above the lowest" if inext else "") +
      " | compare (s) |")
print("|---|" + "---:|" * (len(order) + 1 + inext))
for f in files:
    name = os.path.basename(f)[:-5]
    d = json.load(open(f))
    e = {m["model"]: m["test_error_cm"] for m in d["models"]}  # null: the model's simulation failed
    ok = {m: v for m, v in e.items() if v is not None}
    best = min(ok, key=ok.get) if ok else None
    if best: wins[best] += 1
    cells = ["-" if e[m] is None else ("**%.3f**" if m == best else "%.3f") % e[m] for m in order]
    above = ""
    if inext:
        above = " | -" if e["inextensible"] is None else " | %+.0f %%" % (100 * (e["inextensible"] / ok[best] - 1))
    print("| %s | %s%s | %s |" % (name, " | ".join(cells), above, times[name]))
n = len(files)
print("lowest testing error: " + ", ".join("%s %d" % (m, wins[m]) for m in order) + " (of %d)" % n)
w = wins.get("inextensible", 0)
print("inextensible lowest on %d of %d: %s" % (w, n, "PASS" if w == n else "FAIL"))
sys.exit(0 if w == n else 1)
EOF
