#!/usr/bin/env bash
# The bundled example under Slurm (issue 39): a one-node Slurm cluster of the test's own (munged,
# slurmctld and slurmd in the foreground, configured in the work directory, on ports nobody else
# uses, nothing in /etc touched) runs `srun --mpi=pmix -n 2 hpcrun-lite -o meas -- heat2d`.
# Debian's Open MPI 4.1 is built against the external PMIx only (no PMI-2), so `--mpi=pmix` is
# what makes the two tasks ranks 0 and 1 of one MPI_COMM_WORLD of size 2. Checked: the program's
# output and status are those of the same srun without the tool; one profile per rank, META rank
# 0 and 1, one run id; the merge and the report tell what they tell under mpirun (heat2d.sh); a
# run without -o writes hpcrun-lite-heat2d-measurements-<jobid> (docs/USAGE.md); and a batch
# script (`sbatch --wait`, srun inside), as the README shows, leaves its ranks' profiles there too.
# Every daemon is stopped on the way out, pass or fail; on failure their logs are printed.
# Usage: slurm.sh HEAT2D
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "the example was not built (no MPI?): $prog"
prog=$(realpath "$prog")
run=$(realpath "$HPCL_RUN")
# The daemons live in sbin, which a user's PATH may lack.
export PATH=$PATH:/usr/sbin:/sbin
for cmd in munged munge unmunge slurmctld slurmd srun sbatch sinfo squeue scancel scontrol; do
  command -v "$cmd" >/dev/null 2>&1 || skip "$cmd not found (Debian: apt-get install slurm-wlm munge)"
done
# Nothing of a Slurm job this test may itself run in (ctest inside an allocation) may leak into
# the cluster's clients; nor may srun forward a terminal's input to a task.
for _v in $(compgen -e); do
  case $_v in SLURM_* | SBATCH_* | SRUN_* | SALLOC_*) unset "$_v" ;; esac
done
exec </dev/null
# The daemons run as this user: as root, as on a real cluster; as anyone else, slurmd can still
# start the steps of its own user's jobs.
user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The cluster's files: configuration, state and logs in the work directory; munge's key and the
# sockets (munge's, slurmd's per-step ones, PMIx's) under a short directory of /tmp, since a
# socket's path holds at most 107 bytes and a checkout can lie deeper than that, and munged
# refuses a key or socket below a directory that others may write without the sticky bit.
# munged also wants its socket's directory searchable by all.
cl=$HPCL_WORK/slurm
log=$cl/log
mkdir -p "$cl/state" "$log"
rt=$(mktemp -d /tmp/hpcl-slurm.XXXXXX)
chmod 755 "$rt"
mkdir -p "$rt/munge" "$rt/spool" "$rt/tmp"
sock=$rt/munge/socket

munge_pid="" ctld_pid="" slurmd_pid=""
# our_stepds: the pids of this cluster's slurmstepd processes.
our_stepds() {
  local pid
  for pid in $(pgrep -x slurmstepd); do
    tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qxF "SLURM_CONF=$cl/slurm.conf" && echo "$pid"
  done
  return 0
}
# stop_cluster: cancels what is left of the jobs, waits for their step daemons (KILL after 10 s),
# stops the daemons (TERM, then KILL after 10 s) and reaps them, prints their logs when the test
# failed and removes the socket directory. Runs on every exit.
stop_cluster() {
  local status=$? pid deadline
  set +e
  trap - EXIT INT TERM
  if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
    timeout 10 scancel --user="$user" 2>/dev/null
    deadline=$((SECONDS + 10))
    while [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do
      sleep 0.5
    done
  fi
  # The step daemons (no children of this shell) end a moment after their steps; one is told
  # from another cluster's by the SLURM_CONF it inherited from slurmd.
  deadline=$((SECONDS + 10))
  while [ -n "$(our_stepds)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  for pid in $(our_stepds); do
    echo "killing a step daemon left behind: $pid" >&2
    kill -KILL "$pid" 2>/dev/null
  done
  for pid in $slurmd_pid $ctld_pid $munge_pid; do kill -TERM "$pid" 2>/dev/null; done
  deadline=$((SECONDS + 10))
  for pid in $slurmd_pid $ctld_pid $munge_pid; do
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    local d f
    for d in munged slurmctld slurmd; do
      f=$log/$d.log
      [ -s "$f" ] || f=$log/$d.out
      [ -s "$f" ] || continue
      echo "----- $f (last 40 lines)" >&2
      tail -n 40 "$f" >&2
    done
  fi
  rm -rf "$rt"
  exit "$status"
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# alive NAME PID: fails the test when the daemon has already ended.
alive() { kill -0 "$2" 2>/dev/null || fail "$1 ended at start-up (its log follows)"; }

# Munge with a key of its own.
step "munged on $sock"
(umask 077 && head -c 1024 /dev/urandom >"$rt/munge/munge.key")
munged --foreground --socket="$sock" --key-file="$rt/munge/munge.key" --pid-file="$rt/munge/munged.pid" \
  --seed-file="$rt/munge/munged.seed" >"$log/munged.out" 2>&1 &
munge_pid=$!
for _ in $(seq 50); do
  munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break
  alive munged "$munge_pid"
  sleep 0.2
done
munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 || fail "munged does not answer on $sock"

# Two ports free now (the kernel's choice), so that two runs of this test cannot clash.
read -r ctld_port slurmd_port < <("$HPCL_PYTHON" -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("", 0))
print(*(s.getsockname()[1] for s in socks))')

# The node as slurmd sees it (its real CPUs), less the memory, which the jobs do not ask for.
node_line=$(slurmd -C | head -1 | sed 's/ RealMemory=[^ ]*//')
node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$node_line")
[ -n "$node" ] || fail "slurmd -C names no node: $node_line"
cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$node_line")
# Two tasks need two CPUs; a smaller machine is declared with two (config_overrides keeps slurmd
# from draining it).
[ "${cpus:-0}" -ge 2 ] || node_line="NodeName=$node CPUs=2"
# Job ids that another run (whose ids start elsewhere) would not give: they name Open MPI's
# session directories and the measurement directories.
first_job=$((1000 + RANDOM * 10))
cat >"$cl/slurm.conf" <<EOF
ClusterName=hpcl
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$cl/state
SlurmdSpoolDir=$rt/spool
TmpFS=$rt/tmp
SlurmctldPidFile=$rt/slurmctld.pid
SlurmdPidFile=$rt/slurmd.pid
SlurmctldLogFile=$log/slurmctld.log
SlurmdLogFile=$log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
FirstJobId=$first_job
KillWait=2
MinJobAge=300
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$cl/slurm.conf

step "slurmctld and slurmd on ports $ctld_port and $slurmd_port, node $node"
slurmctld -D -i -f "$SLURM_CONF" >"$log/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -f "$SLURM_CONF" -N "$node" >"$log/slurmd.out" 2>&1 &
slurmd_pid=$!
deadline=$((SECONDS + 30))
until [ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ]; do
  alive slurmctld "$ctld_pid"
  alive slurmd "$slurmd_pid"
  [ $SECONDS -lt $deadline ] || fail "the node is not idle after 30 s: $(sinfo -N 2>&1)"
  sleep 0.5
done
srun --mpi=list 2>&1 | grep -qw pmix || skip "this Slurm has no mpi/pmix plugin: $(srun --mpi=list 2>&1 | tr '\n' ' ')"

# srun and sbatch: bounded in time twice over (the job's limit in minutes, then timeout).
SRUN=(timeout 300 srun --mpi=pmix -n 2 -N 1 -t 5)

# One MPI job of two ranks, natively and under the tool.
run_to native "${SRUN[@]}" -J native "$prog"
[ "$(cat native.status)" = 0 ] ||
  fail "heat2d fails under srun --mpi=pmix (Slurm's mpi/pmix loads libpmix.so: Debian's libpmix-dev): $(tail -5 native.err)"
[ "$(grep -c '^heat2d: 2 ranks,' native.out)" = 1 ] ||
  fail "srun's two tasks are not one MPI job of two ranks: $(grep '^heat2d:' native.out)"
run_to tool "${SRUN[@]}" -J tool "$run" -o meas -- "$prog"
cat tool.err >&2
same_as_native native tool
expect_rank_profiles meas heat2d 2
ids=$(for f in $(profiles meas); do profile_meta "$f" run_id; done | sort -u)
[ "$(wc -l <<<"$ids")" = 1 ] || fail "the two ranks' profiles have different run ids: $ids"
merge_and_report meas db.hpcdb report.json
check heat2d report.json --processes 2 || fail "the report under srun is not the one under mpirun"

# in_job_dir DIR JOBID JOBNAME: DIR holds just hpcrun-lite-heat2d-measurements-JOBID, with one
# profile of each of the two ranks, and JOBID is the job named JOBNAME.
in_job_dir() {
  local dir=$1 id=$2 name=$3
  [[ "$id" =~ ^[0-9]+$ ]] || fail "no job id ($id)"
  timeout 10 scontrol show job "$id" | grep -q "JobName=$name\b" ||
    fail "job $id is not the job $name: $(scontrol show job "$id" 2>&1 | head -3)"
  [ "$(ls "$dir")" = "hpcrun-lite-heat2d-measurements-$id" ] ||
    { ls -la "$dir" >&2; fail "$dir does not hold just hpcrun-lite-heat2d-measurements-$id"; }
  expect_rank_profiles "$dir/hpcrun-lite-heat2d-measurements-$id" heat2d 2
}

# Without -o the directory is named after the job. A short run (20 steps) in a cwd of its own.
mkdir jobdir
run_to default "${SRUN[@]}" -J default --chdir="$PWD/jobdir" "$run" -- "$prog" 20
[ "$(cat default.status)" = 0 ] || fail "srun without -o failed: $(tail -5 default.err)"
grep -q '^heat2d: 2 ranks,' default.out || fail "srun without -o: $(cat default.out)"
mapfile -t dirs < <(find jobdir -mindepth 1 -maxdepth 1)
[ "${#dirs[@]}" = 1 ] || { ls -la jobdir >&2; fail "jobdir holds ${#dirs[@]} entries, expected one"; }
in_job_dir jobdir "${dirs[0]##*-}" default

# A batch script with srun inside, as the README shows; sbatch --wait returns the job's status.
mkdir batchdir
cat >batch.sh <<EOF
#!/bin/bash
srun --mpi=pmix "$run" -- "$prog" 20
EOF
step "sbatch --wait -n 2 batch.sh"
status=0
id=$(timeout 300 sbatch --wait --parsable -n 2 -N 1 -t 5 -J batch --chdir="$PWD/batchdir" \
  --output="$PWD/batch.log" batch.sh 2>sbatch.err) || status=$?
[ "$status" = 0 ] || fail "the batch job failed (status $status): $(cat sbatch.err batch.log 2>&1 | tail -5)"
grep -q '^heat2d: 2 ranks,' batch.log || fail "the batch job's output: $(cat batch.log)"
in_job_dir batchdir "${id%%;*}" batch
echo "slurm: srun and sbatch, jobs ${dirs[0]##*-} and ${id%%;*}: one profile per rank"
