#!/usr/bin/env bash
# `clothfit compare` on one A2 recording (thesis Table 4.3; docs/models.md,
# "Speed"): the bundled polyester-A2-shake-fast-I (6 s at 100 Hz, the 7 x 9
# fitting mesh) ingested, then the four cloth models fitted on its first half
# (grid start, Nelder-Mead) and tested on the second, on 2 worker
# processes.  Prints the comparison's table, the wall time of the whole
# command, each model's time per simulation of the recording (the table's
# time_s: to the end of the testing window) next to the thesis' (per 14 s on
# their machine: inextensible 2.10 s, quasi-inextensible 2.20, elastic 1.16,
# mass-spring 1.30), and PASS when the command takes under 60 s; exits 1
# otherwise.
#   bench/compare.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
exe=$build/src/cli/clothfit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=datasets/aero-mini/recordings/polyester-A2-shake-fast-I
"$exe" ingest motive "$src.csv" --meta "$src.meta.ini" --map "$src.map" -o "$tmp/rec.h5" >/dev/null
t0=$(date +%s.%N)
"$exe" compare "$tmp/rec.h5" --workers 2 --json >"$tmp/out.txt"
t1=$(date +%s.%N)
grep -v '^{' "$tmp/out.txt"
tail -1 "$tmp/out.txt" | python3 -c '
import json, sys
d = json.load(sys.stdin)
thesis = {"inextensible": 2.10, "quasi-inextensible": 2.20, "elastic": 1.16, "mass-spring": 1.30}
for m in d["models"]:
    T = d["test_window_s"][1]
    print("%-19s %.3f s per simulation of %.2f s (%.3f s per 14 s; thesis %.2f s per 14 s)" %
          (m["model"], m["sim_wall_s"], T, 14 * m["sim_wall_s"] / T, thesis[m["model"]]))'
awk -v a="$t0" -v b="$t1" 'BEGIN { t = b - a; ok = t < 60
  printf "compare (A2, 4 models, 2 workers): %.1f s (target < 60): %s\n", t, ok ? "PASS" : "FAIL"; exit !ok }'
