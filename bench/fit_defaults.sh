#!/usr/bin/env bash
# `clothfit fit REC.h5` with no options on the bundled shake recordings (the
# aim: delta and alpha within 20 % of the truth on all 16; docs/simulator.md,
# "Model parameters held fixed by the fitting commands").  Each recording is
# ingested as `clothfit experiment aero` does, then fitted with the command's
# defaults (grid start, Nelder-Mead, confidence; the fitting settings kappa
# 1e-3, tol 1e-4) on all cores.  Prints per recording the fit, the truth, the
# deviations, the fit's 95 % interval for alpha (* when it holds the truth;
# "not identifiable" when the fit is flagged so) and the wall seconds; then
# how many are within 20 %; exits 1 if any is not.  Extra arguments go to every
# fit (e.g. --kappa 0 --tol 1e-3, the simulator's own settings):
#   bench/fit_defaults.sh [BUILD_DIR] [FIT OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build}")/src/cli/clothfit
shift || true
data=datasets/aero-mini/recordings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
truth() { sed -n '/^\[truth\]/,/^\[/p' "$data/$1.truth.ini" | grep "^$2 *=" | head -n 1 | sed 's/.*= *//; s/ .*//'; }
num() { grep -o "\"$1\":[-0-9.e+]*" | head -n 1 | cut -d: -f2; }
n=0 ok=0 total=0
printf '%-30s %9s %9s %9s %9s %8s %8s %17s %6s\n' recording delta delta_tr alpha alpha_tr 'd_dev%' 'a_dev%' \
  alpha_interval wall_s
for csv in "$data"/*-shake-*.csv; do
  rec=$(basename "$csv" .csv)
  "$exe" ingest motive "$csv" -o "$tmp/$rec.h5" --meta "$data/$rec.meta.ini" --map "$data/$rec.map" \
    >/dev/null 2>&1 || { echo "fit_defaults: ingesting $csv failed" >&2; exit 1; }
  t0=$(date +%s.%N)
  "$exe" fit "$tmp/$rec.h5" --json "$@" >"$tmp/out" 2>"$tmp/err" ||
    { echo "fit_defaults: clothfit fit $rec failed: $(tail -n 1 "$tmp/err")" >&2; exit 1; }
  t1=$(date +%s.%N)
  j=$(tail -n 1 "$tmp/out")
  d=$(num delta <<<"$j") a=$(num alpha <<<"$j")
  dt=$(truth "$rec" delta) at=$(truth "$rec" alpha)
  iv=$(grep -o '"alpha_interval":\[[^]]*\]' <<<"$j" | sed 's/.*\[//; s/\]//' || true)
  line=$(awk -v d="$d" -v a="$a" -v dt="$dt" -v at="$at" -v iv="${iv:-nan,nan}" -v t0="$t0" -v t1="$t1" 'BEGIN {
    dd = 100 * (d / dt - 1); da = 100 * (a / at - 1); split(iv, b, ",")
    ivs = iv == "nan,nan" ? sprintf("%-17s", "not identifiable") : \
      sprintf("%7.4f-%-7.4f%s", b[1], b[2], (b[1] <= at && at <= b[2]) ? "*" : " ")
    printf "%9.4f %9.4f %9.4f %9.4f %+8.1f %+8.1f %s %6.1f %d", d, dt, a, at, dd, da, ivs, t1 - t0,
      (dd <= 20 && dd >= -20 && da <= 20 && da >= -20) }')
  n=$((n + 1)); [ "${line##* }" = 1 ] && ok=$((ok + 1))
  total=$(awk -v s="$total" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", s + b - a }')
  printf '%-30s %s\n' "$rec" "${line% *}"
done
echo "within 20 % of the truth (delta and alpha): $ok of $n (*: the alpha interval holds the truth); fits: $total s wall"
[ "$ok" = "$n" ]
