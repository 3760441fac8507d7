#!/usr/bin/env bash
# Cost of the settings recommended for fitting (docs/driving.md, "Cost of the
# fitting settings": where nothing fails they should cost no more than in
# earlier builds).  Three bundled shake recordings (one whose top edge is held
# taut on many frames, one on a few, one never), each ingested as `clothfit
# experiment aero` does, then a 3 x 3 sweep around the truth on one worker at
# --kappa 1e-3 --tol T (default 1e-4).  Prints user CPU seconds per sweep and
# the failed points (none expected).  To compare two builds (e.g. before and
# after a change of the driven simulation), run it with each build's
# directory:
#   bench/fit_settings.sh [BUILD_DIR] [TOL]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build}")/src/cli/clothfit
tol=${2:-1e-4}
data=datasets/aero-mini/recordings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for rec in wool-A3-shake-fast-I stiff-cotton-A3-shake-fast-I polyester-A2-shake-fast-I; do
  "$exe" ingest motive "$data/$rec.csv" -o "$tmp/$rec.h5" --meta "$data/$rec.meta.ini" \
    --map "$data/$rec.map" >/dev/null 2>&1 ||
    { echo "fit_settings: ingesting $data/$rec.csv failed" >&2; exit 1; }
  /usr/bin/time -f '%U' -o "$tmp/t" "$exe" sweep "$tmp/$rec.h5" --workers 1 --kappa 1e-3 --tol "$tol" \
    --delta-grid 0.5:0.7:3*rho --alpha-grid 1.2:1.6:3*rho --json >"$tmp/out.json" 2>/dev/null ||
    { echo "fit_settings: the sweep of $rec failed" >&2; exit 1; }
  # older builds print no failed_points: '?'
  failed=$(tail -n 1 "$tmp/out.json" | grep -o '"failed_points":[0-9]*' | tail -n 1 | cut -d: -f2 || true)
  printf '%-30s 3x3 sweep, kappa 1e-3, tol %s: %6.2f s user, %s failed points\n' "$rec" "$tol" "$(cat "$tmp/t")" "${failed:-?}"
done
