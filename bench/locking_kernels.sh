#!/usr/bin/env bash
# tests/test_locking once with OpenBLAS's own choice of kernels
# (OPENBLAS_CORETYPE unset) and once with each kernel set given; by default
# every set Debian's OpenBLAS can pick on x86-64.  The fold reaches a nearly
# neutral family of rest states and where along it a run stops follows the
# rounding of CHOLMOD's BLAS calls (docs/notes/locking.md §18), so the test
# asserts only what the physics fixes, and it must pass with every set.
# Prints each run's summary lines and PASS or FAIL per set; exits 1 if any
# fails.  Each set costs one run of the test (docs/notes/locking.md §19).
#   bench/locking_kernels.sh [BUILD_DIR [CORETYPE ...]]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
shift || true
types=("" "$@")
[ $# -gt 0 ] || types=("" Prescott Nehalem Sandybridge Haswell Zen SkylakeX Cooperlake)
status=0
for ct in "${types[@]}"; do
  name=${ct:-"OpenBLAS's choice"}
  start=$SECONDS
  if [ -n "$ct" ]; then
    out=$(OPENBLAS_CORETYPE=$ct "$build/tests/test_locking" 2>&1)
  else
    out=$(env -u OPENBLAS_CORETYPE "$build/tests/test_locking" 2>&1)
  fi
  rc=$?
  echo "== $name ($((SECONDS - start)) s)"
  echo "$out" | grep -E '^ *[0-9]+ (triangles|quads)|^seed|^largest|FAIL'
  if [ $rc -eq 0 ]; then echo "$name: PASS"; else echo "$name: FAIL"; status=1; fi
done
exit $status
