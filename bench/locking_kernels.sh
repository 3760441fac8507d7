#!/usr/bin/env bash
# Issue 15, acceptance 2: tests/test_locking (five noise seeds; the corners
# of the 471- and 912-node triangle meshes within 5 cm for each) run once
# with OpenBLAS's own choice of kernels and once with each core type given
# (default: Sandybridge), since the free corners follow the rounding of
# CHOLMOD's BLAS calls (docs/locking.md §10).  Prints each run's per-seed
# distances and PASS or FAIL per core type; exit 1 if any fails.  About
# 1.5 minutes per core type on 2 cores (docs/locking.md §18: Nehalem's and
# Prescott's kernels fail it since the projection's inexact Newton steps).
#   bench/locking_kernels.sh [BUILD_DIR [CORETYPE ...]]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
shift || true
types=("" "$@")
[ $# -gt 0 ] || types=("" Sandybridge)
status=0
for ct in "${types[@]}"; do
  name=${ct:-"OpenBLAS's choice"}
  out=$(env ${ct:+OPENBLAS_CORETYPE=$ct} "$build/tests/test_locking" 2>&1)
  rc=$?
  echo "== $name"
  echo "$out" | grep -E '^seed|^largest|FAIL'
  if [ $rc -eq 0 ]; then echo "$name: PASS"; else echo "$name: FAIL"; status=1; fi
done
exit $status
