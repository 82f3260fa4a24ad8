#!/usr/bin/env bash
# ctest sweep.slurm (label cluster): a one-node Slurm on this machine, all
# under a temporary directory (munged with its own key and socket,
# slurmctld and slurmd with a generated slurm.conf for localhost, 2 CPUs,
# free ports), runs tools/slurm/sweep_array.sbatch as a 4-task array plus
# the dependent sweep_merge.sbatch, waits at most 120 s, and compares the
# merged output with the unsharded sweep. The daemons are always stopped.
# Usage: slurm_test.sh PATH/TO/perflab SOURCE_DIR. Exit 77 (skipped) where
# the daemons cannot run: not root, or Slurm/munge not installed.
set -euo pipefail
perflab=$(realpath "$1") src=$(realpath "$2")
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: the Slurm daemons need root here (SlurmUser=root)"; exit 77
fi
for t in munged slurmctld slurmd sbatch scontrol; do
  if ! command -v "$t" >/dev/null && [ ! -x "/usr/sbin/$t" ]; then
    echo "skipped: $t is not installed (apt-get install slurm-wlm munge)"; exit 77
  fi
done
export PATH="/usr/sbin:$PATH"

tmp=$(mktemp -d /tmp/perflab-slurm.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${keep:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*"
  for f in slurmctld.log slurmd.log munged.log; do
    [ -f "$tmp/$f" ] && { echo "--- $f"; tail -15 "$tmp/$f"; }
  done
  exit 1
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out" "$tmp/munge"
chmod 711 "$tmp/munge"

# munge: a private key and socket, so the machine's own munge is untouched.
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --foreground --force --key-file="$tmp/munge/munge.key" \
  --socket="$tmp/munge/munge.sock" --pid-file="$tmp/munge/munged.pid" \
  --seed-file="$tmp/munge/munge.seed" --log-file="$tmp/munged.log" \
  >> "$tmp/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.sock" ] || fail "munged did not start"

node=$(hostname -s)
ctld_port=$(free_port) slurmd_port=$(free_port)
cat > "$tmp/slurm.conf" <<CONF
ClusterName=perflabtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=perflab Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >> "$tmp/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >> "$tmp/slurmd.log" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 150); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed)'; then up=1; break; fi
  sleep 0.2
done
[ $up = 1 ] || fail "the node did not become idle within 30 s"

args=(mmc --set servers=1,2 --set arrival_rate_per_s=0.5,0.9 --set customers=2000 --replications 5)
"$perflab" sweep "${args[@]}" > "$tmp/unsharded.txt"

cd "$tmp/out"
export PERFLAB="$perflab"
array=$(sbatch --parsable --array=1-4 "$src/tools/slurm/sweep_array.sbatch" "$tmp/out" "${args[@]}") \
  || fail "sbatch of the array failed"
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" "$src/tools/slurm/sweep_merge.sbatch" "$tmp/out") \
  || fail "sbatch of the merge failed"
merge=${merge%%;*}

state=""
for _ in $(seq 600); do  # 120 s
  state=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
  case "$state" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
  sleep 0.2
done
[ "$state" = COMPLETED ] || { cat "$tmp"/out/slurm-*.out 2>/dev/null | tail -20; fail "merge job $merge ended as '${state:-unknown}' (120 s bound)"; }
[ "$(ls "$tmp"/out/part-*.json | wc -l)" = 4 ] || fail "expected 4 parts"
if ! cmp "$tmp/unsharded.txt" "$tmp/out/sweep.table"; then
  diff "$tmp/unsharded.txt" "$tmp/out/sweep.table" | head -20
  fail "Slurm merge differs from the unsharded sweep"
fi
echo "Slurm: array job $array (4 shards) + merge job $merge == unsharded sweep"
