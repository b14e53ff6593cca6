#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for testing the regression's farm mode (nettwin.regress.cli --slurm,
# nettwin.regress.soak --slurm) on one machine: munged + slurmctld + slurmd, everything (config, munge key and
# socket, state, spool, logs, pid files) inside DIR, on ports of its own, bound to 127.0.0.1 only. It never
# reads or touches /etc/slurm, /etc/munge or a real cluster's daemons.
#
#   scripts/slurm_local.sh start DIR [TTL_SECONDS]   # exit 0: up, `. DIR/env` sets SLURM_CONF for the clients;
#                                                    # exit 3: cannot start here (message says why)
#   scripts/slurm_local.sh stop DIR                  # cancels its jobs, stops its daemons; safe to repeat
#
# Needs root (Slurm runs with SlurmUser=root, munged is forced to run as root) and Debian's slurm-wlm + munge
# (scripts/setup.sh installs them). start also leaves a watchdog that runs `stop DIR` after TTL_SECONDS
# (default 1800), so the daemons go away even if the caller is killed before it can stop them.
# Settings known to work in a container without systemd or cgroup delegation: ProctrackType=proctrack/linuxproc,
# TaskPlugin=task/none, SelectType=select/cons_tres, no accounting.
set -euo pipefail

# the daemons live in sbin, which a non-login root shell (or CI's environment) may not have on PATH
PATH="$PATH:/usr/sbin:/sbin"
usage() { echo "usage: $0 start DIR [TTL_SECONDS] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd="$1"
dir="$2"
CANNOT=3

pids_of_cluster() {
  # The processes of this cluster's jobs: a SLURM_JOB_ID and this cluster's SLURM_CONF in their environment
  # (batch scripts and what they start inherit the submitter's SLURM_CONF; the submitter has no SLURM_JOB_ID).
  local conf="$1/slurm.conf" p env
  for p in /proc/[0-9]*; do
    env="$( { tr '\0' '\n' < "$p/environ"; } 2>/dev/null || true)"
    if grep -qxF "SLURM_CONF=$conf" <<< "$env" && grep -q "^SLURM_JOB_ID=" <<< "$env"; then
      echo "${p#/proc/}"
    fi
  done
}

stop_cluster() {
  local d="$1" f pid
  [ -f "$d/slurm.conf" ] || return 0
  if [ -f "$d/slurmctld.pid" ] && kill -0 "$(cat "$d/slurmctld.pid")" 2>/dev/null; then
    SLURM_CONF="$d/slurm.conf" timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 1 20); do
      [ -z "$(SLURM_CONF="$d/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  for f in slurmd slurmctld munged; do
    if [ -f "$d/$f.pid" ]; then
      pid="$(cat "$d/$f.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$d/$f.pid"
    fi
  done
  # job steps that outlived slurmd, identified by this cluster's SLURM_CONF (never by name)
  for pid in $(pids_of_cluster "$d"); do
    [ "$pid" = "$$" ] || kill -9 "$pid" 2>/dev/null || true
  done
  if [ -f "$d/watchdog.pid" ]; then
    pid="$(cat "$d/watchdog.pid")"
    rm -f "$d/watchdog.pid"
    # its own session and process group (setsid): the group is the watchdog and its sleep
    [ "$pid" = "$$" ] || kill -- "-$pid" 2>/dev/null || true
  fi
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cannot() { echo "slurm_local: cannot start Slurm here: $*" >&2; stop_cluster "$dir"; exit $CANNOT; }

case "$cmd" in
  stop)
    stop_cluster "$dir"
    exit 0
    ;;
  start) ;;
  *) usage ;;
esac

ttl="${3:-1800}"
[ "$(id -u)" -eq 0 ] || { echo "slurm_local: cannot start Slurm here: needs root (SlurmUser=root)" >&2; exit $CANNOT; }
for b in munged slurmctld slurmd sbatch squeue scancel scontrol; do
  command -v "$b" > /dev/null || { echo "slurm_local: cannot start Slurm here: no $b (install slurm-wlm munge: scripts/setup.sh)" >&2; exit $CANNOT; }
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
chmod 700 "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
host="$(hostname -s)"
cpus="$(nproc)"
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port="$(free_port)"; done

dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
cat > "$dir/slurm.conf" <<EOF
# one-node test cluster written by scripts/slurm_local.sh; ports $ctld_port/$slurmd_port on 127.0.0.1 only
ClusterName=nettwinlocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
echo "export SLURM_CONF=$dir/slurm.conf" > "$dir/env"

munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed" \
  > "$dir/munged.out" 2>&1 || cannot "munged failed: $(tail -3 "$dir/munged.out" "$dir/munged.log" 2>/dev/null)"
# the watchdog: stops this cluster after TTL seconds unless `stop` killed it first
# shellcheck disable=SC2016  # the single-quoted script is the watchdog's, expanded by its own bash
setsid bash -c 'echo $$ > "$2/watchdog.pid"; sleep "$1"; exec bash "$0" stop "$2"' \
  "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" "$ttl" "$dir" < /dev/null > /dev/null 2>&1 &
for _ in $(seq 1 20); do [ -s "$dir/watchdog.pid" ] && break; sleep 0.1; done

export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 || cannot "slurmctld failed: $(tail -5 "$dir/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" > "$dir/slurmd.out" 2>&1 || cannot "slurmd failed: $(tail -5 "$dir/slurmd.log" 2>/dev/null)"
for _ in $(seq 1 60); do
  state="$(timeout 5 sinfo -h -N -o %t 2>/dev/null | head -1 || true)"
  case "$state" in idle|mix|alloc) echo "slurm_local: up in $dir (node $host, $cpus CPUs, ports $ctld_port/$slurmd_port)"; exit 0;; esac
  sleep 0.5
done
cannot "the node did not become idle in 30 s (state '${state:-none}'): $(tail -3 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null)"
