#!/usr/bin/env bash
# Set up, build and run the test suite (meson test) without the suite
# 'validation' (the physics validations of minutes each: scripts/validate.sh
# runs them), then the 'fast' suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer, built with clang in build-asan, then every
# libFuzzer target (the readers: Motive CSV, generic CSV, OBJ, PLY) for
# CLOTHFIT_FUZZ_SECONDS each (default 20; 0 skips), two at a time, counted as
# one test per target.  Extra arguments go to the meson test runs.
# Everything it writes is in build/, build-asan/, build-fuzz/ and the tests'
# own temporary folders (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
status=0
if [ ! -f build-asan/build.ninja ]; then
  CC=clang meson setup build-asan --buildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false -Dpython_module=disabled >/dev/null
elif [ "$(meson introspect build-asan --buildoptions | /usr/bin/python3 -c 'import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "python_module"))')" != disabled ]; then
  # a build-asan/ configured before the option: the sanitizer build never builds the module
  meson configure build-asan -Dpython_module=disabled >/dev/null
fi
# The sanitizer and fuzzer builds run beside the main suite at the lowest
# priority (nice 19): they take the CPU its tests leave idle (tests waiting
# on their subprocesses, on Slurm, on the browser) instead of adding their
# ~190 CPU-seconds after it; what is left of them runs after the suite.
# The fuzz targets are built only when they will run (CLOTHFIT_FUZZ_SECONDS > 0).
secs=${CLOTHFIT_FUZZ_SECONDS:-20}
(nice -n 19 ninja -C build-asan && if [ "$secs" -gt 0 ]; then nice -n 19 bash scripts/fuzz.sh --build-only; fi) \
  >build-asan/background_build.log 2>&1 &
bg=$!
meson test -C build --no-suite validation --print-errorlogs --num-processes 2 "$@" || status=1
# The Python module's tests (tests/python, pytest from Debian) on the module
# of build/ (build/python), against build/src/cli/clothfit; counted as one test.
if CLOTHFIT_EXE="$PWD/build/src/cli/clothfit" PYTHONPATH="$PWD/build/python" \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python; then
  printf 'Ok:                 1\nFail:               0\n'
else
  status=1; printf 'Ok:                 0\nFail:               1\n'
fi
if ! wait $bg; then tail -20 build-asan/background_build.log; exit 1; fi
ninja -C build-asan >/dev/null
# intercept_tls_get_addr=0: LeakSanitizer (LLVM 14) misreads glibc's dynamic TLS
# blocks (HDF5's thread-local error stacks) now and then and dies in its tracer
# at exit ("Tracer caught signal 11"), google/sanitizers#1322.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Three times the timeouts: the sanitizers slow the tests 2-20x (test_motive_malformed:
# 6 s in the release build, 100-150 s under ASan on a loaded machine; the Ipopt tests'
# allocations, tests/meson.build), and a timeout there says nothing about memory errors.
meson test -C build-asan --suite fast --print-errorlogs --num-processes 2 --timeout-multiplier 3 "$@" || status=1
if [ "$secs" -gt 0 ]; then
  ok=0 bad=0
  # two targets at a time (each fuzzer is one process; the machine has two cores)
  for pair in "motive csv" "obj ply"; do
    pids=()
    for t in $pair; do
      FUZZ_BUILD=0 FUZZ_TARGETS=$t bash scripts/fuzz.sh "$secs" >"build-asan/fuzz_$t.log" 2>&1 &
      pids+=($!)
    done
    i=0
    for t in $pair; do
      if wait "${pids[$i]}"; then
        ok=$((ok + 1)); echo "fuzz_$t: ${secs} s, no crash"
      else
        bad=$((bad + 1)); status=1; echo "fuzz_$t: FAILED (see build-asan/fuzz_$t.log)"; tail -20 "build-asan/fuzz_$t.log"
      fi
      i=$((i + 1))
    done
  done
  # the same summary lines as meson test, so .ci/run counts the fuzzers too
  printf 'Ok:                 %d\nFail:               %d\n' "$ok" "$bad"
fi
exit $status
