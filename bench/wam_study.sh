#!/usr/bin/env bash
# The WAM study (thesis §4.1) from the registered meshes and from the point
# clouds of the same recordings: `clothfit experiment wam` and `clothfit
# experiment wam --clouds` on datasets/wam-mini (or DATASET), end to end with
# their reports, into a temporary folder (or OUT_DIR, kept), with the workers
# of all cores.  The clouds are not committed: scripts/make-dataset.sh
# wam-mini makes them.  Prints per recording the fitted delta and alpha of
# each source against the truth (NAME.truth.ini), whether each recovers it
# (meshes: both within 10 %, clouds: within 20 %; or, for a loosely
# determined parameter, the truth inside the fit's 95 % interval), whether
# the clouds' fit is within 10 % of the meshes', and the wall time of each
# run.  Extra arguments go to both experiments.
#   bench/wam_study.sh [BUILD_DIR] [DATASET] [OUT_DIR] [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build}")/src/cli/clothfit
data=$(realpath "${2:-datasets/wam-mini}")
out=${3:-}
shift $(($# > 3 ? 3 : $#))
if [ -n "$out" ]; then mkdir -p "$out"; tmp=$(realpath "$out"); else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
recs=$data/recordings
[ -d "$recs" ] || recs=$data

run() { # run NAME [--clouds]: the experiment into $tmp/NAME.h5, its wall time into $tmp/NAME.wall
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$exe" experiment wam --dataset "$data" -o "$tmp/$name.h5" --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" ||
    { tail -n 5 "$tmp/$name.err" >&2; echo "wam_study: experiment wam $* failed" >&2; exit 1; }
  end=$(date +%s.%N)
  [ -f "$tmp/$name/index.html" ] || { echo "wam_study: no report written for $name" >&2; exit 1; }
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f\n", e - s }' >"$tmp/$name.wall"
  tail -n 1 "$tmp/$name.json" | sed 's/},{"name"/}\n{"name"/g' >"$tmp/$name.rows"
}
run meshes "$@"
run clouds --clouds "$@"

# field NAME KEY: a number of recording NAME's row; interval NAME KEY: "lo hi"
field() { grep "\"name\":\"$2\"" "$tmp/$1.rows" | grep -o "\"$3\":[-0-9.e+]*" | head -n 1 | cut -d: -f2; }
interval() {
  grep "\"name\":\"$2\"" "$tmp/$1.rows" | grep -o "\"$3\":\[[-0-9.e+]*,[-0-9.e+]*\]" | head -n 1 |
    sed 's/.*\[\(.*\),\(.*\)\]/\1 \2/'
}
# recovered X TRUTH TOL LO HI: 1 when X within TOL of TRUTH or TRUTH in [LO, HI]
recovered() {
  awk -v x="$1" -v t="$2" -v tol="$3" -v lo="${4:-nan}" -v hi="${5:-nan}" \
    'BEGIN { r = x / t - 1; exit !((r <= tol && r >= -tol) || (lo != "nan" && lo + 0 <= t && t <= hi + 0)) }'
}

printf "%-20s %7s %7s %7s %7s %7s %7s  %-6s %-6s %-6s\n" recording delta_t delta_m delta_c alpha_t alpha_m \
  alpha_c mesh cloud c~m
n=0 okm=0 okc=0 near=0
for truth in "$recs"/*.truth.ini; do
  name=$(basename "$truth" .truth.ini)
  td=$(sed -n 's/^delta = //p' "$truth") ta=$(sed -n 's/^alpha = //p' "$truth")
  dm=$(field meshes "$name" delta) am=$(field meshes "$name" alpha)
  dc=$(field clouds "$name" delta) ac=$(field clouds "$name" alpha)
  [ -n "$dm" ] && [ -n "$dc" ] || { echo "wam_study: $name has no fit in both runs" >&2; continue; }
  n=$((n + 1))
  m=no c=no cm=no
  # shellcheck disable=SC2046
  if recovered "$dm" "$td" 0.1 $(interval meshes "$name" delta_interval) &&
    recovered "$am" "$ta" 0.1 $(interval meshes "$name" alpha_interval); then m=yes okm=$((okm + 1)); fi
  # shellcheck disable=SC2046
  if recovered "$dc" "$td" 0.2 $(interval clouds "$name" delta_interval) &&
    recovered "$ac" "$ta" 0.2 $(interval clouds "$name" alpha_interval); then c=yes okc=$((okc + 1)); fi
  if recovered "$dc" "$dm" 0.1 && recovered "$ac" "$am" 0.1; then cm=yes near=$((near + 1)); fi
  printf "%-20s %7.4f %7.4f %7.4f %7.4f %7.4f %7.4f  %-6s %-6s %-6s\n" "$name" "$td" "$dm" "$dc" "$ta" "$am" "$ac" \
    $m $c $cm
done
echo "wam_study: meshes: $okm of $n recover the truth (10 % or the 95 % intervals), $(cat "$tmp/meshes.wall") s"
echo "wam_study: clouds: $okc of $n recover the truth (20 % or the 95 % intervals), $(cat "$tmp/clouds.wall") s"
echo "wam_study: clouds within 10 % of the meshes' fit in delta and alpha: $near of $n"
