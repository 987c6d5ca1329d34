#!/bin/sh
# A million (or more) hardware vectors per instruction, judged on the device
# machine itself: for every instruction of PLAN and every suite of MIX,
# `mmaref gen` writes the inputs (deterministic: the same bytes anywhere),
# hwbuild/capture runs them through the H100, and `mmaref check` compares
# the hardware's d with the model, bit for bit.  The vectors never leave the
# machine: only the counts, every mismatching vector and a small sample of
# each instruction come back (docs/hardware.md, "A million vectors per
# instruction").
#
# usage: scripts/hw_million.sh PLAN OUTDIR
#   PLAN     one instruction a line (hopper:<qualifier>), '#' comments
#   OUTDIR   receives million.tsv (instr, suite, shard, vectors, mismatches,
#            seconds), mismatches.txt (check --show output of every
#            mismatch), sample/<qualifier>.<suite>.vec (the first vectors of
#            the suites named in KEEP, with the hardware's d)
# environment:
#   MIX     "suite:count:shards ..." (default: compliance 600,000 in 3
#           shards, random 150,000, bits 150,000, specials 100,000, cancel
#           50,000: 1,050,000 a instruction, 28.6% random bit patterns)
#   SEED    (14)   JOBS (the machine's cores)   WORK (/tmp/hwmillion)
#   KEEP    "suite:n ..." (default "bits:300 random:150 specials:150")
#   MMAREF, CAPTURE  the binaries (hwbuild/mmaref, hwbuild/capture)
# Exit status 1 when a capture failed or any vector mismatched.
set -u
if [ "${1:-}" = --task ]; then TASK=1; shift; else TASK=0; fi
[ $TASK = 1 ] || [ $# -eq 2 ] || { echo "usage: $0 PLAN OUTDIR" >&2; exit 2; }
PLAN=${1:-} OUTD=${2:-}
MIX=${MIX:-"compliance:600000:3 random:150000:1 bits:150000:1 specials:100000:1 cancel:50000:1"}
SEED=${SEED:-14}
JOBS=${JOBS:-$(nproc)}
W=${WORK:-/tmp/hwmillion}
KEEP=${KEEP:-"bits:300 random:150 specials:150"}
MMAREF=${MMAREF:-hwbuild/mmaref} CAPTURE=${CAPTURE:-hwbuild/capture} WORK=$W
M=$MMAREF C=$CAPTURE
export MMAREF CAPTURE WORK SEED KEEP 2>/dev/null

# one task: an instruction, a suite, a shard
task() {
  instr=$1 suite=$2 count=$3 i=$4 n=$5
  q=${instr#*:}
  b=$W/$q.$suite.$i
  t0=$(date +%s.%N)
  {
    # the header of the unsharded file (a shard past the first has none)
    "$M" gen "$instr" --suite "$suite" --count "$count" --seed "$SEED" --shard 0/"$count" -o - | grep '^#'
    "$M" gen "$instr" --suite "$suite" --count "$count" --seed "$SEED" --shard "$i/$n" -o - | grep -v '^#'
  } > "$b.in.vec"
  if ! msg=$("$C" "$b.in.vec" "$b.hw.vec" 2>&1); then
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$instr" "$suite" "$i/$n" 0 -1 "capture failed: $(echo "$msg" | tail -1)"
    rm -f "$b.in.vec"
    return
  fi
  "$M" check "$b.hw.vec" --show 1000 > "$b.chk" 2>&1
  last=$(tail -1 "$b.chk")
  nv=${last%% vectors*}
  nm=${last#*, }; nm=${nm%% mismatches}
  case "$nv$nm" in *[!0-9]*|'') nv=0 nm=-1 ;; esac
  [ "$nm" = 0 ] || { echo "== $instr $suite $i/$n"; head -n -1 "$b.chk"; } > "$b.mis"
  if [ "$i" = 0 ]; then
    for kk in $KEEP; do
      [ "${kk%%:*}" = "$suite" ] || continue
      awk -v n="${kk#*:}" '/^#/ { print; next } { if (++v > n) exit; print }' "$b.hw.vec" > "$W/$q.$suite.sample"
    done
  fi
  rm -f "$b.in.vec" "$b.hw.vec" "$b.chk"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$instr" "$suite" "$i/$n" "$nv" "$nm" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
}
if [ $TASK = 1 ]; then task "$@"; exit 0; fi
rm -rf "$W"
mkdir -p "$W" "$OUTD/sample" || exit 2

# the task list: the largest first, so that the tail of the run is short
grep -v '^#' "$PLAN" | while read -r instr; do
  [ -n "$instr" ] || continue
  for s in $MIX; do
    suite=${s%%:*} rest=${s#*:}
    count=${rest%%:*} n=${rest#*:}
    i=0
    while [ $i -lt "$n" ]; do echo "$instr $suite $count $i $n"; i=$((i + 1)); done
  done
done | sort -k3,3nr -s > "$W/tasks.txt"
echo "hw_million: $(wc -l < "$W/tasks.txt") tasks, $JOBS at a time, seed $SEED"
start=$(date +%s)
xargs -P "$JOBS" -L 1 sh "$0" --task < "$W/tasks.txt" > "$OUTD/million.tsv"
echo "hw_million: $(( $(date +%s) - start )) s"
cat "$W"/*.mis > "$OUTD/mismatches.txt" 2>/dev/null || : > "$OUTD/mismatches.txt"
for f in "$W"/*.sample; do [ -e "$f" ] && mv "$f" "$OUTD/sample/$(basename "$f" .sample).vec"; done

# totals: per instruction, per suite, all
awk -F'\t' '
  { v[$1] += $4; if ($5 < 0) f[$1]++; else m[$1] += $5; sv[$2] += $4; sm[$2] += ($5 < 0 ? 0 : $5); tv += $4; tm += ($5 < 0 ? 0 : $5); if ($5 < 0) tf++ }
  END {
    for (i in v) printf "instr\t%s\t%d\t%d%s\n", i, v[i], m[i], f[i] ? "\tFAILED " f[i] : ""
    for (s in sv) printf "suite\t%s\t%d\t%d\n", s, sv[s], sm[s]
    printf "total\t%d instructions\t%d\t%d\t%d failed tasks\n", length(v), tv, tm, tf
  }' "$OUTD/million.tsv" | sort > "$OUTD/totals.tsv"
cat "$OUTD/totals.tsv"
! grep -q "FAILED" "$OUTD/totals.tsv" && tail -1 "$OUTD/totals.tsv" | awk -F'\t' '{ exit !($4 == 0 && $5 + 0 == 0) }'
