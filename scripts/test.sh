#!/usr/bin/env bash
# Set up, build and run the whole test suite (meson test), then the 'fast'
# suite again under AddressSanitizer + UndefinedBehaviorSanitizer, built with
# clang in build-asan.  Extra arguments go to both meson test runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=1
if [ ! -f build-asan/build.ninja ]; then
  CC=clang meson setup build-asan --buildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C build-asan >/dev/null
# intercept_tls_get_addr=0: LeakSanitizer (LLVM 14) misreads glibc's dynamic TLS
# blocks (HDF5's thread-local error stacks) now and then and dies in its tracer
# at exit ("Tracer caught signal 11"), google/sanitizers#1322.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
meson test -C build-asan --suite fast --print-errorlogs --num-processes 2 "$@" || status=1
exit $status
