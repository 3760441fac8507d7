#!/usr/bin/env bash
# Install clothfit's Debian dependencies (when missing) and build it into ./build.
# Idempotent: a second run only rebuilds what changed.  Needs root for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(meson ninja-build pkg-config gcc clang libclang-rt-14-dev
      libgsl-dev libhdf5-dev hdf5-tools libsuitesparse-dev libcsv-dev libinih-dev libjansson-dev
      libopenblas-dev libopenblas0-serial nettle-dev gnuplot-nox zlib1g-dev
      openmpi-bin libopenmpi-dev slurm-wlm munge coinor-libipopt-dev
      python3-dev python3-numpy python3-mesonpy python3-pip python3-pytest python3-h5py python3-scipy
      python3-matplotlib)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Headless Chromium for the test suite 'browser' (tests/test_report_browser*.c render a
# report each): installed with its recommended packages (fonts-liberation among them), as it
# was tested; about 350 MB.
chromium=()
dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed" || chromium=(chromium)
if [ ${#missing[@]} -gt 0 ] || [ ${#chromium[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} ${chromium[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if [ ${#chromium[@]} -gt 0 ]; then
    apt-get install -y -qq "${chromium[@]}" >/dev/null
  fi
fi
# CHOLMOD must use the serial OpenBLAS: the reference BLAS is
# several times slower and the threaded OpenBLAS fights our own workers.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
for alt in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  target=/usr/lib/$arch/openblas-serial/$alt
  if [ -e "$target" ]; then
    update-alternatives --set "$alt-$arch" "$target" >/dev/null 2>&1 || true
  fi
done
# The Python module (python/clothfit, docs/python.md) is built for Debian's
# Python, the one with python3-numpy.
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release -Dpython=/usr/bin/python3 >/dev/null
elif [ "$(meson introspect build --buildoptions | /usr/bin/python3 -c 'import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "python"))')" != /usr/bin/python3 ]; then
  # a build/ configured before the option: set it (cheap, and only when it differs)
  meson configure build -Dpython=/usr/bin/python3 >/dev/null
fi
ninja -C build >/dev/null
echo "setup: built build/src/cli/clothfit" >&2
