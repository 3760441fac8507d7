#!/bin/sh
# make-dataset.sh — regenerate a synthetic study (docs/design.md §11) with `clothfit synth`:
#   aero-mini (default): the bundled study, one run per config in
#     datasets/aero-mini/configs/, written to datasets/aero-mini/recordings/;
#   aero-full: the whole study of thesis Tables A.1/A.2: 4 fabrics x 2 sizes
#     x 2 motions x 2 speeds x repetitions I and II = 64 recordings of 15 s, not committed
#     (written to datasets/aero-full/recordings/, with the generated configs beside them in
#     datasets/aero-full/configs/).  Repetition I is driven "by hands" (synth's defaults:
#     the corners' amplitude and rate vary by 25 %, the top edge 1 % slack), repetition II
#     "by a hanger": a more regular motion (5 % variation) with the top edge nearly taut
#     (0.5 % slack); delta and alpha are those of Table A.1 / A.2;
#   contacts: the bundled contact recordings, one per config in
#     datasets/contacts/configs/ (a tablecloth, a hitting), written to
#     datasets/contacts/recordings/.
# Every run is deterministic (seeded), so the files come out byte-identical whatever the
# number of parallel jobs — as long as the simulator is unchanged.
#
# usage: scripts/make-dataset.sh [aero-mini|aero-full|contacts] [--check] [--jobs N] [OUT_DIR]
#   --check   regenerate into a temporary folder and compare with the committed
#             recordings (exit 1 if any file differs; aero-mini and contacts)
#   --jobs N  parallel runs (default: the number of cores)
#   OUT_DIR   where to write (default datasets/STUDY/recordings)
# Environment: CLOTHFIT (default build/src/cli/clothfit).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
name=aero-mini
exe=${CLOTHFIT:-"$root/build/src/cli/clothfit"}
jobs=$(nproc 2>/dev/null || echo 2)
check=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --jobs) jobs=$2; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    aero-mini|aero-full|contacts) name=$1 ;;
    -*) echo "make-dataset.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
study="$root/datasets/$name"
configs="$study/configs"
if [ "$name" = aero-full ]; then
  [ "$check" = 0 ] || { echo "make-dataset.sh: --check is for the committed aero-mini and contacts" >&2; exit 2; }
  configs="$study/configs"
  mkdir -p "$configs"
  seed=100
  for rep in I II; do for m in polyester wool denim stiff-cotton; do for size in A2 A3; do
    for motion in shake twist; do for speed in slow fast; do
      seed=$((seed + 1))
      f="$configs/$m-$size-$motion-$speed-$rep.ini"
      {
        echo "; aero-full (scripts/make-dataset.sh aero-full): $m, $size, $motion, $speed, repetition $rep"
        printf '[recording]\nmaterial = %s\nsize = %s\nmotion = %s\nspeed = %s\nrepetition = %s\n' \
          "$m" "$size" "$motion" "$speed" "$rep"
        printf 'duration = 15\nseed = %d\n\n[markers]\ndecimals = 1\n' "$seed"
        if [ "$rep" = II ]; then printf '\n; a hanger: a regular motion, the top edge nearly taut\n[motion]\nmodulation = 0.05\nslack = 0.005\n'; fi
      } > "$f"
    done; done; done; done; done
fi
[ -x "$exe" ] || { echo "make-dataset.sh: no clothfit at $exe (build first: ninja -C build)" >&2; exit 1; }
if [ "$check" = 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
out=${out:-"$study/recordings"}
mkdir -p "$out"
start=$(date +%s.%N)
# one run per config; a failure stops the script with clothfit's message
ls "$configs"/*.ini | xargs -P "$jobs" -I{} sh -c '
  name=$(basename "$1" .ini)
  "$2" synth "$1" -o "$3/$name.csv" > "$3/$name.log" 2>&1 || { cat "$3/$name.log" >&2; exit 255; }
  grep "^speed" "$3/$name.log" | sed "s/^speed */$name: /"
  rm -f "$3/$name.log"' _ {} "$exe" "$out"
end=$(date +%s.%N)
n=$(ls "$out"/*.csv | wc -l)
size=$(du -cb "$out"/*.csv "$out"/*.ini "$out"/*.map | tail -1 | cut -f1)
awk -v n="$n" -v out="$out" -v b="$size" -v j="$jobs" -v s="$start" -v e="$end" \
  'BEGIN { printf "%d recordings in %s: %.1f MB, %.0f s with %d jobs\n", n, out, b / 1048576, e - s, j }'
if [ "$check" = 1 ]; then
  diff -r -q "$out" "$study/recordings" && echo "identical to the committed recordings"
fi
