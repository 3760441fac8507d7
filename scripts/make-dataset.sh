#!/bin/sh
# make-dataset.sh — regenerate the bundled synthetic study datasets/aero-mini
# (SPEC §11): one `clothfit synth` run per config in datasets/aero-mini/configs/,
# written to datasets/aero-mini/recordings/NAME.{csv,truth.ini,meta.ini,map}.
# Every run is deterministic (seeded), so the files come out byte-identical
# whatever the number of parallel jobs — as long as the simulator is unchanged.
#
# usage: scripts/make-dataset.sh [--check] [--jobs N] [OUT_DIR]
#   --check   regenerate into a temporary folder and compare with the committed
#             recordings (exit 1 if any file differs)
#   --jobs N  parallel runs (default: the number of cores)
#   OUT_DIR   where to write (default datasets/aero-mini/recordings)
# Environment: CLOTHFIT (default build/src/cli/clothfit).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
study="$root/datasets/aero-mini"
exe=${CLOTHFIT:-"$root/build/src/cli/clothfit"}
jobs=$(nproc 2>/dev/null || echo 2)
check=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --jobs) jobs=$2; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "make-dataset.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
[ -x "$exe" ] || { echo "make-dataset.sh: no clothfit at $exe (build first: ninja -C build)" >&2; exit 1; }
if [ "$check" = 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
out=${out:-"$study/recordings"}
mkdir -p "$out"
start=$(date +%s.%N)
# one run per config; a failure stops the script with clothfit's message
ls "$study"/configs/*.ini | xargs -P "$jobs" -I{} sh -c '
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
