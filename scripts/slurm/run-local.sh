#!/usr/bin/env bash
# run-local.sh: a private one-node Slurm (munged, slurmctld, slurmd from the
# Debian packages slurm-wlm and munge) on localhost, for trying
# kdet-scan.sbatch and for the e2e test tests/e2e/slurm_scan.sh.
#
#   scripts/slurm/run-local.sh start DIR   # prints "export SLURM_CONF=DIR/slurm.conf"
#   scripts/slurm/run-local.sh stop DIR
#
# Everything (config, key, sockets, state, logs) lives in DIR; nothing under
# /etc is touched and no system service is started. Needs root (slurmd runs
# jobs as their submitter). Exit 0 when the node is idle and takes jobs, 1
# otherwise (the reason, with the daemon logs' tails, on stderr).
set -euo pipefail
cmd=${1:-}
dir=${2:-}
[[ ($cmd == start || $cmd == stop) && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"
dir=$(realpath "$dir")

stop() {
  for name in slurmd slurmctld munged; do
    if [[ -f $dir/$name.pid ]]; then
      pid=$(cat "$dir/$name.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
      rm -f "$dir/$name.pid"
    fi
  done
}
if [[ $cmd == stop ]]; then stop; exit 0; fi

fail() {
  echo "run-local: $*" >&2
  for f in munged slurmctld slurmd; do [[ -f $dir/$f.log ]] && { echo "--- $f.log" >&2; tail -n 8 "$dir/$f.log" >&2; }; done
  stop
  exit 1
}
for p in munged slurmctld slurmd sbatch sinfo; do command -v $p >/dev/null || fail "$p not found (apt-get install -y slurm-wlm munge)"; done
((EUID == 0)) || fail "needs root (slurmd must be able to run jobs as their submitter)"

host=$(hostname -s)
cpus=$(nproc)
mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
port=$((17000 + RANDOM % 2000))
mkdir -p "$dir/state" "$dir/spool"

# munge: a private key and socket.
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" || fail "munged did not start"

cat >"$dir/slurm.conf" <<CONF
ClusterName=kdetlocal
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MaxArraySize=1001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -c -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" >>"$dir/slurmd.out" 2>&1 || fail "slurmd did not start"
for _ in $(seq 1 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -n1 || true)
  [[ $state == idle* ]] && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.5
done
fail "the node did not become idle in 30 s (state: '${state:-none}')"
