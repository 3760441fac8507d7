#!/usr/bin/env bash
# A single-node Slurm on this machine, for trying and testing the job-array sweep
# (experiments/slurm/, tests/test_slurm.c): munged, slurmctld and slurmd on localhost
# with their configuration, state and logs in DIR, on ports 16817/16818.
#
#   scripts/slurm-local.sh start DIR   # prints the SLURM_CONF=... line to export
#   scripts/slurm-local.sh stop DIR
#
# Needs root and Debian's slurm-wlm and munge (scripts/setup.sh installs them).
# No cgroups: processes are tracked by /proc (proctrack/linuxproc), no accounting.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: slurm-local.sh start|stop DIR" >&2; exit 2; }
for p in slurmctld slurmd munged sbatch; do
  command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || { echo "slurm-local: $p not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
alive() { local p; p=$(cat "$dir/$1.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null; }
stop() {
  local d p
  for d in slurmd slurmctld; do
    p=$(cat "$dir/$d.pid" 2>/dev/null) && kill "$p" 2>/dev/null || true
  done
  for _ in $(seq 1 50); do
    if alive slurmd || alive slurmctld; then sleep 0.1; else break; fi
  done
  rm -f "$dir/slurmd.pid" "$dir/slurmctld.pid"
}
case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "slurm-local: unknown command '$cmd' (start|stop)" >&2; exit 2 ;;
esac
stop
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$dir/state" "$dir/spool"
cat > "$conf" <<EOF
ClusterName=clothfit
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  [ -f /etc/munge/munge.key ] || { /usr/sbin/mungekey --create >/dev/null 2>&1 || /usr/sbin/create-munge-key >/dev/null; }
  su munge -s /bin/sh -c /usr/sbin/munged
fi
/usr/sbin/slurmctld -f "$conf"
/usr/sbin/slurmd -f "$conf"
export SLURM_CONF=$conf
for i in $(seq 1 100); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = idle ] && { echo "SLURM_CONF=$conf"; exit 0; }
  sleep 0.2
done
echo "slurm-local: the node did not become idle in 20 s (logs: $dir/slurmctld.log, $dir/slurmd.log)" >&2
stop
exit 1
