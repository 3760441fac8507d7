#!/usr/bin/env bash
# Ingestion speed (target < 0.2 s): a 15 s, 20-marker,
# 120 Hz Motive export (made by `clothfit synth`: A2 lattice with noise, gaps,
# fragments and ghosts) ingested with marker processing, resampled to 0.01 s.
# Prints the best of 5 wall times.   bench/ingest.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build}/src/cli/clothfit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '[recording]\nmaterial = polyester\nsize = A2\nmotion = shake\nspeed = fast\nduration = 15\nseed = 3\n' \
  >"$tmp/take.ini"
"$exe" synth "$tmp/take.ini" -o "$tmp/take.csv" >/dev/null
lines=$(wc -l <"$tmp/take.csv")
bytes=$(wc -c <"$tmp/take.csv")
best=
for i in 1 2 3 4 5; do
  t0=$(date +%s.%N)
  "$exe" ingest motive "$tmp/take.csv" -o "$tmp/take.h5" --meta "$tmp/take.meta.ini" >/dev/null
  t1=$(date +%s.%N)
  best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; print best }')
done
printf 'ingest motive: %d lines, %d bytes (15 s, 120 Hz, 20 cloth markers + fragments/ghosts)\n' "$lines" "$bytes"
printf 'best of 5: %.3f s (target < 0.2 s): %s\n' "$best" "$(awk -v t="$best" 'BEGIN { print (t < 0.2 ? "PASS" : "FAIL") }')"
