#!/usr/bin/env bash
# Set up, build and run the meson suite 'validation': the thesis' physics
# validations that take minutes each (the cloth's drape against Cusick,
# locking, the tablecloth's mu, the four models told apart, fit confidence,
# parameter recovery, regression; tests/meson.build lists them,
# docs/testing.md gives their CPU times).  scripts/test.sh runs everything
# else; CI runs both.  Extra arguments go to meson test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
meson test -C build --suite validation --print-errorlogs --num-processes 2 "$@"
