#!/usr/bin/env bash
# Build and run the whole test suite (meson test), then the same suite under
# AddressSanitizer + UndefinedBehaviorSanitizer in build-asan (clang).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
meson test -C build --print-errorlogs --num-processes 2 "$@"
