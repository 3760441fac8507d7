#!/usr/bin/env bash
# Throughput and overhead of the sweep's task runners (docs/cluster.md).
#   bench/tasks.sh [BUILD_DIR]
# On one bundled recording (wool-A3-shake-fast-I, ingested as `experiment aero` does):
#  1. tasks/s of an 8 x 8 sweep (64 simulations of the whole recording) on 1 process
#     (--workers 1), 2 forked workers (--workers 2) and `mpirun -n 2` (2 ranks);
#  2. the cost of handing out a task: a 40 x 40 sweep (1600 tasks) of the same recording cut
#     to its first 23 frames (0.19 s), where a task is almost no simulation, per task on 1
#     process, 2 forked workers and mpirun -n 2 (the difference between 2 ranks and half of
#     1 process bounds what the coordinator and its messages add per task);
#  3. peak memory (max RSS, rank 0 / the calling process) of 1 process for 100 and 1600
#     such tasks: it must not grow with the number of tasks beyond the results themselves
#     (a few hundred bytes per task).
# Wall times include starting the processes (mpirun: ~0.3-1 s).  Needs Open MPI for the
# mpirun lines (skipped otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build}")/src/cli/clothfit
data=datasets/aero-mini/recordings
rec=wool-A3-shake-fast-I
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exe" ingest motive "$data/$rec.csv" -o "$tmp/rec.h5" --meta "$data/$rec.meta.ini" --map "$data/$rec.map" \
  >/dev/null 2>&1 || { echo "tasks: ingesting $data/$rec.csv failed" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=0
if command -v mpirun >/dev/null && "$exe" --version | grep -q "with Open MPI"; then mpi=1; fi

# wall seconds and max RSS (kB) of a command: "SECONDS KB"
measure() {
  /usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
    { echo "tasks: '$*' failed: $(tail -n 1 "$tmp/err")" >&2; exit 1; }
  cat "$tmp/t"
}
grid8=(--delta-grid 0.3:0.9:8*rho --alpha-grid 0.5:2.5:8*rho)
echo "1. 8 x 8 sweep of $rec (64 simulations of 6 s):"
read -r t1 _ < <(measure "$exe" sweep "$tmp/rec.h5" "${grid8[@]}" --workers 1)
printf '   1 process     %6.1f s  %5.2f tasks/s\n' "$t1" "$(echo "64 / $t1" | bc -l)"
read -r t2 _ < <(measure "$exe" sweep "$tmp/rec.h5" "${grid8[@]}" --workers 2)
printf '   --workers 2   %6.1f s  %5.2f tasks/s  (%.2fx)\n' "$t2" "$(echo "64 / $t2" | bc -l)" "$(echo "$t1 / $t2" | bc -l)"
if [ $mpi = 1 ]; then
  read -r tm _ < <(measure mpirun -n 2 "$exe" sweep "$tmp/rec.h5" "${grid8[@]}")
  printf '   mpirun -n 2   %6.1f s  %5.2f tasks/s  (%.2fx)\n' "$tm" "$(echo "64 / $tm" | bc -l)" "$(echo "$t1 / $tm" | bc -l)"
fi
# the recording's first 23 frames, its lattice cells only (the cut loses the fragments)
head -n 30 "$data/$rec.csv" > "$tmp/short.csv"
grep '^cell ' "$data/$rec.map" > "$tmp/short.map"
"$exe" ingest motive "$tmp/short.csv" -o "$tmp/short.h5" --meta "$data/$rec.meta.ini" --map "$tmp/short.map" \
  >/dev/null 2>&1 || { echo "tasks: ingesting the first frames of $rec failed" >&2; exit 1; }
echo "2. tiny tasks (the first 0.19 s of the recording), 40 x 40 = 1600 tasks:"
grid40=(--delta-grid 0.05:1:40*rho --alpha-grid 0.05:4:40*rho)
read -r s1 m1600 < <(measure "$exe" sweep "$tmp/short.h5" "${grid40[@]}" --workers 1)
printf '   1 process     %6.2f s  %6.3f ms/task\n' "$s1" "$(echo "1000 * $s1 / 1600" | bc -l)"
read -r s2 _ < <(measure "$exe" sweep "$tmp/short.h5" "${grid40[@]}" --workers 2)
printf '   --workers 2   %6.2f s  %6.3f ms/task of wall time\n' "$s2" "$(echo "1000 * $s2 / 1600" | bc -l)"
if [ $mpi = 1 ]; then
  read -r sm _ < <(measure mpirun -n 2 "$exe" sweep "$tmp/short.h5" "${grid40[@]}")
  printf '   mpirun -n 2   %6.2f s  %6.3f ms/task of wall time; minus half of 1 process: %+.3f ms/task\n' "$sm" \
    "$(echo "1000 * $sm / 1600" | bc -l)" "$(echo "1000 * ($sm - $s1 / 2) / 1600" | bc -l)"
fi
echo "3. peak memory of 1 process (tiny tasks):"
read -r _ m100 < <(measure "$exe" sweep "$tmp/short.h5" --delta-grid 0.05:1:10*rho --alpha-grid 0.05:4:10*rho \
  --workers 1)
printf '   100 tasks  %7d kB\n   1600 tasks %7d kB\n' "$m100" "$m1600"
