#!/usr/bin/env bash
# The wall time of the README's main job: `clothfit experiment aero
# --prune-margin 1.5` on the bundled dataset (or DATASET), end to end with its
# report, into a temporary folder, with the workers of all cores.  Prints the
# wall and CPU times, the simulations per recording (its grid's points,
# pruned ones counted whole, and every simulation of its fit, confidence
# checks and refits: the JSON's "simulations"), how many fits the
# held-parameter checks flagged, how many were refitted with kappa or beta
# free, and how many fits are within 20 % of the truth (NAME.truth.ini) in
# both delta and alpha.  DATASET aero-full is the whole study of thesis
# Tables A.1/A.2 (64 recordings of 15 s), made first by
# scripts/make-dataset.sh aero-full when datasets/aero-full/ has none.  Extra
# arguments go to the experiment (e.g. --split 3, --start apriori --search
# trust).  Also prints the wall time of each of the study's stages.  With
# STUDY_TIME_JSON=FILE in the environment the experiment's --json output is
# kept in FILE.
#   bench/study_time.sh [BUILD_DIR] [DATASET] [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build}")/src/cli/clothfit
data=${2:-datasets/aero-mini}
if [ "$data" = aero-full ]; then
  data=datasets/aero-full
  ls "$data"/recordings/*.csv >/dev/null 2>&1 || CLOTHFIT="$exe" scripts/make-dataset.sh aero-full
fi
data=$(realpath "$data")
shift $(($# > 2 ? 2 : $#))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$exe" experiment aero --dataset "$data" --prune-margin 1.5 \
  -o "$tmp/aero.h5" --json "$@" >"$tmp/out.json" 2>"$tmp/err.txt" ||
  { tail -n 5 "$tmp/err.txt" >&2; echo "study_time: the experiment failed" >&2; exit 1; }
end=$(date +%s.%N)
[ -f "$tmp/aero/index.html" ] || { echo "study_time: no report written" >&2; exit 1; }
[ -z "${STUDY_TIME_JSON:-}" ] || cp "$tmp/out.json" "$STUDY_TIME_JSON"
recs=$data/recordings
[ -d "$recs" ] || recs=$data
# one recording per line of the JSON's "recordings" array: name, delta, alpha, identifiable, freed_why
tail -n 1 "$tmp/out.json" | sed 's/},{"name"/}\n{"name"/g' >"$tmp/rows"
n=0 ok=0 flagged=0 freed=0 sims=0 smin=-1 smax=0
while IFS= read -r row; do
  sim=$(printf '%s' "$row" | grep -o '"simulations":[0-9]*' | head -n 1 | cut -d: -f2)
  if [ -n "$sim" ]; then
    sims=$((sims + sim))
    [ "$smin" -lt 0 ] || [ "$sim" -lt "$smin" ] && smin=$sim
    [ "$sim" -gt "$smax" ] && smax=$sim
  fi
  name=$(printf '%s' "$row" | grep -o '"name":"[^"]*"' | head -n 1 | cut -d'"' -f4)
  [ -n "$name" ] && [ -f "$recs/$name.truth.ini" ] || continue
  d=$(printf '%s' "$row" | grep -o '"delta":[-0-9.e+]*' | head -n 1 | cut -d: -f2)
  a=$(printf '%s' "$row" | grep -o '"alpha":[-0-9.e+]*' | head -n 1 | cut -d: -f2)
  td=$(sed -n 's/^delta = //p' "$recs/$name.truth.ini")
  ta=$(sed -n 's/^alpha = //p' "$recs/$name.truth.ini")
  n=$((n + 1))
  if awk -v d="$d" -v a="$a" -v td="$td" -v ta="$ta" \
    'BEGIN { rd = d / td - 1; ra = a / ta - 1; exit !(rd <= 0.2 && rd >= -0.2 && ra <= 0.2 && ra >= -0.2) }'; then
    ok=$((ok + 1))
  fi
  case $row in *'"identifiable":false'*) flagged=$((flagged + 1)) ;; esac
  case $row in *'"freed_why":"'*) freed=$((freed + 1)) ;; esac
done <"$tmp/rows"
awk -v s="$start" -v e="$end" -v c="$(cat "$tmp/cpu")" -v n="$n" -v ok="$ok" -v f="$flagged" -v r="$freed" \
  -v sims="$sims" -v smin="$smin" -v smax="$smax" -v m="$(wc -l <"$tmp/rows")" \
  'BEGIN { split(c, u, " ");
    printf "study_time: %d recordings, wall %.0f s (%d min %02d s), CPU %.0f s user + %.0f s system\n", n, e - s,
      int((e - s) / 60), int(e - s) % 60, u[1], u[2];
    printf "study_time: simulations per recording %.0f (%d to %d), besides the regression\n", m ? sims / m : 0,
      smin, smax;
    printf "study_time: %d refitted with kappa or beta free, %d not identifiable, %d of %d within 20 %% of the truth\n",
      r, f, ok, n }'
# the wall time of each stage (the JSON's "stage_seconds")
tail -n 1 "$tmp/out.json" | grep -o '"stage_seconds":{[^}]*}' | sed 's/^"stage_seconds":{//; s/}$//' | tr ',' '\n' |
  awk -F: '{ gsub(/"/, "", $1); line = line sprintf("%s%s %.0f s", NR > 1 ? ", " : "", $1, $2) }
    END { print "study_time: stages: " line }'
