#!/usr/bin/env bash
# One whole fit of a 14 s depth-camera recording from its point clouds against
# the same fit from its registered meshes (docs/design.md §8, "Point clouds"):
# recording NAME of datasets/wam-mini (default light-cotton-fast).  Its clouds
# are taken from datasets/wam-mini/recordings/NAME.clouds/ when
# scripts/make-dataset.sh wam-mini has written them there, else made as that
# script makes them (`clothfit synth configs/NAME.ini`, this recording only)
# into a temporary folder; either way checked against the committed
# NAME.clouds.sha256 (a warning when they differ: the simulator changed).
# Then
#   clothfit ingest meshes NAME.meshes --meta NAME.meta.ini
#   clothfit ingest clouds NAME.clouds --held-track NAME.corners.csv --material M --size S ...
# (the clouds' metadata options from NAME.meta.ini; its held nodes are the meshes')
# (both simulate the same 9 x 9 cloth: the mesh's own grid at split 1, the
# clouds' default --grid 5x5 at split 2) and `clothfit fit REC.h5` on each
# with the same options: --start 0.36,1.88 (30 % below the truth, delta 0.52,
# alpha 2.69), --max-evals 100, --no-confidence, then FIT_ARGS.  Prints each
# fit's wall time, its Nelder-Mead evaluations (a simulation of the recording
# each), the wall time per evaluation, the fitted parameters and the errors
# on the training and testing windows (the clouds' is a
# point-to-surface distance, the meshes' a node distance: not comparable),
# and the ratio of the wall times: PASS when the cloud fit takes at most 2 x
# the mesh fit; exits 1 otherwise.
#   bench/cloud_fit.sh [BUILD_DIR] [NAME] [FIT_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build}")/src/cli/clothfit
name=${2:-light-cotton-fast}
shift $(($# > 2 ? 2 : $#))
recs=$(realpath datasets/wam-mini/recordings)
[ -f "$recs/$name.meta.ini" ] || { echo "cloud_fit: no recording $name in $recs" >&2; exit 2; }
[ -x "$exe" ] || { echo "cloud_fit: no clothfit at $exe (build first: ninja -C build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

clouds=$recs/$name.clouds
if [ ! -d "$clouds" ]; then
  "$exe" synth "datasets/wam-mini/configs/$name.ini" -o "$tmp/$name" >"$tmp/synth.log" 2>&1 ||
    { cat "$tmp/synth.log" >&2; echo "cloud_fit: clothfit synth failed" >&2; exit 1; }
  clouds=$tmp/$name.clouds
fi
(cd "$(dirname "$clouds")" && LC_ALL=C sha256sum -c --quiet "$recs/$name.clouds.sha256" >/dev/null 2>&1) ||
  echo "cloud_fit: warning: $clouds differ from $name.clouds.sha256 (the simulator changed since they were committed)" >&2
echo "cloud_fit: $name: $(ls "$clouds" | wc -l) clouds in $clouds, $(ls "$recs/$name.meshes" | wc -l) meshes"

"$exe" ingest meshes "$recs/$name.meshes" --meta "$recs/$name.meta.ini" -o "$tmp/mesh.h5" >/dev/null
# the clouds' metadata from the same NAME.meta.ini, less held (--held-track gives the corners)
meta=()
for key in material size density motion speed; do
  meta+=("--$key" "$(sed -n "s/^$key *= *//p" "$recs/$name.meta.ini")")
done
"$exe" ingest clouds "$clouds" --held-track "$recs/$name.corners.csv" "${meta[@]}" -o "$tmp/cloud.h5" >/dev/null

# fit KIND: one whole fit of $tmp/KIND.h5; its wall time and JSON line into $tmp/KIND.*
fit() {
  local t0 t1
  t0=$(date +%s.%N)
  "$exe" fit "$tmp/$1.h5" --start 0.36,1.88 --max-evals 100 --no-confidence "${@:2}" --json >"$tmp/$1.out" \
    2>"$tmp/$1.err" || { tail -n 5 "$tmp/$1.err" >&2; echo "cloud_fit: the $1 fit failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >"$tmp/$1.wall"
  tail -n 1 "$tmp/$1.out" >"$tmp/$1.json"
}
fit mesh "$@"
fit cloud "$@"
python3 - "$tmp" <<'EOF'
import json, sys
tmp = sys.argv[1]
wall = {}
for kind in ("mesh", "cloud"):
    d = json.load(open(f"{tmp}/{kind}.json"))
    w = wall[kind] = float(open(f"{tmp}/{kind}.wall").read())
    n = d["evaluations"]
    print("cloud_fit: %-5s fit %7.1f s wall, %3d evaluations (%.3f s each), delta %.4f alpha %.4f, "
          "e_train %.3f e_test %.3f cm" % (kind, w, n, w / n, d["delta"], d["alpha"], d["train_error_cm"],
                                            d["test_error_cm"]))
r = wall["cloud"] / wall["mesh"]
print("cloud_fit: cloud / mesh wall time %.2f (target <= 2): %s" % (r, "PASS" if r <= 2 else "FAIL"))
sys.exit(0 if r <= 2 else 1)
EOF
