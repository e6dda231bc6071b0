#!/bin/sh
# A single-node Slurm cluster on this machine (Debian's slurm-wlm and munge), for trying
# `alcove batch --slurm` for real and for the test batch_slurmArray: slurmctld and slurmd on
# localhost, one partition "local" with this machine's cores, no cgroups, state under
# /tmp/alcove-slurm. Needs root (munged and slurmd run as root here).
#
#   tools/slurm-local.sh start    write the configuration and start munged, slurmctld, slurmd
#   tools/slurm-local.sh stop     stop them (the configuration stays)
#   tools/slurm-local.sh status   sinfo
#
# Exit status: 0 when the node is up (start) or stopped (stop); 1 when Slurm or munge is not
# installed (apt-get install slurm-wlm munge) or does not come up, with the logs named.
set -u
STATE=/tmp/alcove-slurm
CONF=/etc/slurm/slurm.conf

need() {
    for p in slurmctld slurmd munged sbatch sinfo; do
        command -v "$p" >/dev/null 2>&1 || {
            echo "slurm-local: $p not found (apt-get install slurm-wlm munge)" >&2
            exit 1
        }
    done
}

start() {
    need
    [ "$(id -u)" = 0 ] || { echo "slurm-local: needs root" >&2; exit 1; }
    mkdir -p "$STATE/ctld" "$STATE/d" /etc/slurm /run/munge /var/log/munge /var/lib/munge
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    if [ ! -f "$CONF" ] || ! grep -q "alcove slurm-local" "$CONF"; then
        [ -f "$CONF" ] && cp "$CONF" "$CONF.before-alcove"
        cat > "$CONF" <<EOF
# written by alcove tools/slurm-local.sh: one node, this machine
ClusterName=alcove
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    fi
    [ -f /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; chmod 400 /etc/munge/munge.key; }
    pgrep -x munged >/dev/null || munged --force || { echo "slurm-local: munged did not start" >&2; exit 1; }
    pgrep -x slurmctld >/dev/null || slurmctld || { echo "slurm-local: slurmctld did not start ($STATE/slurmctld.log)" >&2; exit 1; }
    pgrep -x slurmd >/dev/null || slurmd || { echo "slurm-local: slurmd did not start ($STATE/slurmd.log)" >&2; exit 1; }
    i=0
    while [ $i -lt 30 ]; do
        if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
            echo "slurm-local: node $host up with $cpus CPUs (partition local)"
            exit 0
        fi
        sleep 1
        i=$((i + 1))
    done
    echo "slurm-local: the node did not come up in 30 s ($STATE/slurmctld.log, $STATE/slurmd.log)" >&2
    sinfo >&2 || true
    exit 1
}

stop() {
    pkill -x slurmd 2>/dev/null
    pkill -x slurmctld 2>/dev/null
    pkill -x munged 2>/dev/null
    exit 0
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) sinfo ;;
*) echo "usage: tools/slurm-local.sh start|stop|status" >&2; exit 2 ;;
esac
