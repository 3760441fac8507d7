#!/usr/bin/env bash
# What moves the fitted delta and alpha of the bundled study away from the
# truth (docs/models.md, "What the fits depend on"): every bundled recording
# (or those matching GLOB) ingested as `clothfit experiment aero` does, then
# `clothfit fit REC --start apriori --no-confidence --max-evals 120` with the
# fitting settings OPTS on the training window (the first half), two fits
# at a time.  Prints per recording the fit's deviation from the truth
# (NAME.truth.ini), the training and testing errors, kappa and beta (held or
# fitted: --params delta,alpha,kappa,beta), and a summary line: how
# many fits are within 20 % of the truth in both delta and alpha.
#   bench/fit_causes.sh "OPTS" [GLOB] [BUILD_DIR]
# e.g. bench/fit_causes.sh "--rest size --kappa 1e-5 --beta 1e-4"
#      bench/fit_causes.sh "--split 4" '*A3-twist*'
set -euo pipefail
cd "$(dirname "$0")/.."
opts=${1:-}
glob=${2:-*}
exe=$(realpath "${3:-build}")/src/cli/clothfit
data=datasets/aero-mini/recordings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fit_one() { # NAME: ingest and fit, the fit's JSON line into $tmp/NAME.json
  local n=$1
  "$exe" ingest motive "$data/$n.csv" -o "$tmp/$n.h5" --meta "$data/$n.meta.ini" --map "$data/$n.map" \
    >/dev/null 2>&1 || { echo "fit_causes: ingesting $data/$n.csv failed" >&2; return 1; }
  # shellcheck disable=SC2086
  "$exe" fit "$tmp/$n.h5" --start apriori --no-confidence --max-evals 120 $opts --json 2>/dev/null |
    tail -n 1 >"$tmp/$n.json" || echo "fit_causes: the fit of $n failed" >&2
}
export -f fit_one
export exe data tmp opts
# shellcheck disable=SC2046
printf '%s\n' $(cd "$data" && ls $glob.csv | sed 's/\.csv$//') | xargs -P 2 -I{} bash -c 'fit_one {}'
num() { grep -o "\"$1\":[-0-9.e+]*" "$2" | head -n 1 | cut -d: -f2; }
ok=0 n=0
printf '%-30s %8s %8s %9s %9s %9s %9s\n' recording delta alpha train_cm test_cm kappa beta
for f in "$tmp"/*.json; do
  name=$(basename "$f" .json)
  [ -s "$f" ] || { printf '%-30s failed\n' "$name"; n=$((n + 1)); continue; }
  td=$(sed -n 's/^delta = //p' "$data/$name.truth.ini")
  ta=$(sed -n 's/^alpha = //p' "$data/$name.truth.ini")
  line=$(awk -v d="$(num delta "$f")" -v a="$(num alpha "$f")" -v td="$td" -v ta="$ta" \
    -v tr="$(num train_error_cm "$f")" -v te="$(num test_error_cm "$f")" -v n="$name" \
    -v k="$(num kappa "$f")" -v b="$(num beta "$f")" 'BEGIN {
      rd = d / td - 1; ra = a / ta - 1; ok = (rd <= 0.2 && rd >= -0.2 && ra <= 0.2 && ra >= -0.2)
      printf "%-30s %+7.0f%% %+7.0f%% %9.3f %9.3f %9.3g %9.3g %s\n", n, 100 * rd, 100 * ra, tr, te, k, b,
        ok ? "within 20 %" : "" }')
  echo "$line"
  n=$((n + 1))
  case $line in *"within 20 %"*) ok=$((ok + 1)) ;; esac
done
echo "fit_causes: $ok of $n fits within 20 % of the truth in delta and alpha (options: ${opts:-the defaults})"
