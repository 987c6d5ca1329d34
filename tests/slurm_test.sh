#!/bin/sh
# The Slurm job array of docs/verify.md, run as printed there on a
# single-node Slurm that this test starts (slurmctld and slurmd of Debian's
# slurm-wlm, in a configuration of its own under the work directory, no
# munge: auth/none) and stops: three shards of the broken dot4_pipe
# example, merged by a dependent job, must give the same report as the
# campaign run whole, and the merge job must fail (it has mismatches).
# Needs root (slurmd) and slurm-wlm.
# usage: tests/slurm_test.sh path/to/mmaref work-directory
set -u
M=$1
W=$2
R=$(pwd)
for p in slurmctld slurmd sbatch squeue scontrol sinfo; do
    command -v $p > /dev/null || { echo "FAIL: $p not found (Debian: apt-get install slurm-wlm)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "FAIL: a single-node Slurm needs root here (slurmd)"; exit 1; }
rm -rf "$W"; mkdir -p "$W/slurm/state" "$W/slurm/spool" "$W/jobs"
W=$(cd "$W" && pwd)
S=$W/slurm
host=$(hostname -s)
port=$((20000 + $$ % 20000))
cat > "$S/slurm.conf" <<EOF
ClusterName=mmaref-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$S/slurm.conf
stop() {
    for d in slurmd slurmctld; do
        [ -f "$S/$d.pid" ] && kill "$(cat "$S/$d.pid")" 2> /dev/null
    done
    sleep 1
}
trap stop EXIT
slurmctld -f "$SLURM_CONF" || { tail "$S/slurmctld.log"; echo "FAIL: slurmctld did not start"; exit 1; }
slurmd -f "$SLURM_CONF" || { tail "$S/slurmd.log"; echo "FAIL: slurmd did not start"; exit 1; }
i=0
until [ "$(sinfo -h -o %T 2> /dev/null)" = idle ]; do
    i=$((i + 1)); [ $i -gt 60 ] && { tail -5 "$S/slurmctld.log" "$S/slurmd.log"; echo "FAIL: the node did not come up"; exit 1; }
    sleep 1
done
echo "== single-node Slurm up ($(sinfo --version), node $host, $(nproc) CPUs, port $port)"

# the two blocks of docs/verify.md after "On a Slurm cluster"
block() {   # block <n>: the n-th sh block of that part
    awk -v n="$1" '/^On a Slurm cluster/ { f = 1 } f && /^```sh$/ { k++; if (k == n) { g = 1; next } } g && /^```$/ { exit } g' "$R/docs/verify.md"
}
block 1 > "$W/jobs/verify-shard.sh"
grep -q '^#SBATCH --array' "$W/jobs/verify-shard.sh" || { echo "FAIL: no job script in docs/verify.md"; exit 1; }
DUT=$R/examples/dot4_pipe/broken.dut
ARGS="--count 300 --random 30000 --seed 3 --no-fst"
# as printed, but this campaign and three array tasks
block 2 | sed -e "s|^export DUT=.*|export DUT=$DUT WORK=$W/work ARGS=\"$ARGS\"|" -e 's/--array=0-7/--array=0-2/' > "$W/jobs/submit.sh"
grep -q 'sbatch' "$W/jobs/submit.sh" || { echo "FAIL: no submission block in docs/verify.md"; exit 1; }
export PATH="$(cd "$(dirname "$M")" && pwd):$PATH"
(cd "$W/jobs" && sh ./submit.sh > submit.out 2>&1) || { cat "$W/jobs/submit.out"; echo "FAIL: the submission"; exit 1; }
mid=$(tail -1 "$W/jobs/submit.out")
echo "== submitted: array and merge job $mid"
i=0
while squeue -h -j "$mid" 2> /dev/null | grep -q .; do
    i=$((i + 1)); [ $i -gt 600 ] && { squeue; echo "FAIL: the jobs did not finish in 10 minutes"; exit 1; }
    sleep 1
done
state=$(scontrol show job "$mid" | tr ' ' '\n' | grep -E '^(JobState|ExitCode)=' | tr '\n' ' ')
merged=$(tail -1 "$W/jobs/merged.log" 2> /dev/null)
# the same campaign, whole
"$M" verify "$DUT" --workdir "$W/work" $ARGS > "$W/whole.log" 2>&1
whole=$(tail -1 "$W/whole.log")
echo "== merged by Slurm: $merged ($state); run whole: $whole"
fail=0
[ -n "$merged" ] && [ "$merged" = "$whole" ] || { cat "$W/jobs/merged.log" "$W"/jobs/shard-*.log 2> /dev/null | tail -20; echo "FAIL: the merged shards are not the whole campaign"; fail=1; }
echo "$state" | grep -q 'ExitCode=1:0' || { echo "FAIL: the merge job did not fail on mismatches ($state)"; fail=1; }
[ $fail = 0 ] && echo "PASS: the Slurm job array of docs/verify.md"
exit $fail
