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
#     datasets/contacts/recordings/;
#   wam-mini: the bundled depth-camera study of thesis §4.1 (4 fabrics x 2 speeds of the
#     WAM hanger, datasets/wam-mini/configs/), written to datasets/wam-mini/recordings/:
#     NAME.meshes/, NAME.corners.csv, NAME.truth.ini, NAME.meta.ini (committed) and
#     NAME.clouds/ (~16 MB each, not committed: regenerated here) with
#     NAME.clouds.sha256, their sums (committed), which --check compares.
# Every run is deterministic (seeded), so the files come out byte-identical whatever the
# number of parallel jobs — as long as the simulator is unchanged.
#
# usage: scripts/make-dataset.sh [aero-mini|aero-full|contacts|wam-mini] [--check] [--jobs N] [OUT_DIR]
#   --check   regenerate into a temporary folder and compare with the committed
#             recordings (exit 1 if any file differs; aero-mini, contacts, wam-mini)
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
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    aero-mini|aero-full|contacts|wam-mini) name=$1 ;;
    -*) echo "make-dataset.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
study="$root/datasets/$name"
configs="$study/configs"
if [ "$name" = aero-full ]; then
  [ "$check" = 0 ] || { echo "make-dataset.sh: --check is for the committed aero-mini, contacts and wam-mini" >&2; exit 2; }
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
# one run per config; a failure stops the script with clothfit's message.  A camera
# recording (wam-mini) is written to the stem OUT/NAME, a Motive one to OUT/NAME.csv.
ext=.csv line=speed
[ "$name" = wam-mini ] && ext="" line=frames
ls "$configs"/*.ini | xargs -P "$jobs" -I{} sh -c '
  name=$(basename "$1" .ini)
  "$2" synth "$1" -o "$3/$name$4" > "$3/$name.log" 2>&1 || { cat "$3/$name.log" >&2; exit 255; }
  grep "^$5" "$3/$name.log" | sed "s/^$5 */$name: /"
  rm -f "$3/$name.log"' _ {} "$exe" "$out" "$ext" "$line"
end=$(date +%s.%N)
n=$(ls "$out"/*.truth.ini | wc -l)
if [ "$name" = wam-mini ]; then
  for t in "$out"/*.truth.ini; do
    rec=$(basename "$t" .truth.ini)
    (cd "$out" && LC_ALL=C sha256sum "$rec".clouds/* > "$rec.clouds.sha256")
  done
  size=$(du -cb "$out"/*.meshes "$out"/*.csv "$out"/*.ini "$out"/*.sha256 | tail -1 | cut -f1)
  clouds=$(du -cb "$out"/*.clouds | tail -1 | cut -f1)
  awk -v b="$clouds" 'BEGIN { printf "clouds (not committed): %.1f MB\n", b / 1048576 }'
else
  size=$(du -cb "$out"/*.csv "$out"/*.ini "$out"/*.map | tail -1 | cut -f1)
fi
awk -v n="$n" -v out="$out" -v b="$size" -v j="$jobs" -v s="$start" -v e="$end" \
  'BEGIN { printf "%d recordings in %s: %.1f MB, %.0f s with %d jobs\n", n, out, b / 1048576, e - s, j }'
if [ "$check" = 1 ]; then
  diff -r -q -x '*.clouds' "$out" "$study/recordings" && echo "identical to the committed recordings"
fi
