#!/usr/bin/env bash
# The hitting scenario's speed (thesis Table 4.8; docs/contacts.md, "The stick"):
# a 15 s synthetic hitting recording (datasets/contacts/configs/
# polyester-A2-hitting-fast-I.ini, 4 hits, made at 120 Hz on the finer
# synthetic mesh and ingested at 100 Hz) simulated on the 7 x 9 fitting mesh
# at the truth (delta 0.041, alpha 0.307) at the fitting settings (kappa
# 1e-3, tol 1e-4) with its stick, best of 3, once with the contact QPs by
# the active set and once by Ipopt.  Prints both lines of bench_driven (wall
# time per simulation, q = wall time / recorded time), the ratio, and PASS
# when the active set's simulation takes at most 300 ms and is at least 5x
# faster than Ipopt's; exits 1 otherwise.
#   bench/hitting.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
exe=$build/src/cli/clothfit bench=$build/bench/bench_driven
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ cat datasets/contacts/configs/polyester-A2-hitting-fast-I.ini; printf '\n[recording]\nduration = 15\n'; } >"$tmp/hit.ini"
"$exe" synth "$tmp/hit.ini" -o "$tmp/hit.csv" >/dev/null
"$exe" ingest motive "$tmp/hit.csv" --meta "$tmp/hit.meta.ini" --map "$tmp/hit.map" -o "$tmp/hit.h5" >/dev/null
as=$("$bench" "$tmp/hit.h5" 0.041 0.307 3 1e-3 1e-4 active-set)
ip=$("$bench" "$tmp/hit.h5" 0.041 0.307 3 1e-3 1e-4 ipopt)
echo "$as"
echo "$ip"
ms() { sed 's/.*best of [0-9]*: \([0-9.]*\) ms.*/\1/'; }
t_as=$(ms <<<"$as") t_ip=$(ms <<<"$ip")
awk -v a="$t_as" -v i="$t_ip" 'BEGIN {
  r = i / a; ok = a <= 300 && r >= 5
  printf "hitting (A2, 7x9, 15 s): active set %.1f ms (target <= 300), Ipopt %.1f ms, ratio %.2f (target >= 5): %s\n",
    a, i, r, ok ? "PASS" : "FAIL"
  exit !ok }'
