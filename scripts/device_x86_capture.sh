#!/bin/sh
# x86 silicon on the device machine's host (an Intel Xeon with AMX and
# AVX512-BF16): TDPBF16PS and VDPBF16PS, 10,000,000 vectors each over the
# eight distributions of hw/xeon/capture_x86, judged there, as they are
# made, by a static `mmaref check` against x86:tdpbf16ps and x86:vdpbf16ps
# (docs/hardware.md, "x86").  Only counts, mismatching vectors and samples
# come back.
#
# Built here by `make x86-static` into .x86work/ (capture_x86.xz and
# mmaref.xz, static and xz-compressed: 1.3 MB, as the working tree that
# travels is limited to 64 MiB; and this script); on the device, with
# .x86work carried:
#     sh .x86work/device_x86_capture.sh
# writes into $OUT (at most 7 files):
#   cpu.txt        the CPU (model name, flags of interest, kernel)
#   log.tsv        instruction, distribution, shard, vectors, mismatches, seconds
#   summary.txt    vectors and mismatches per instruction and distribution,
#                  and the nearest wrong models on the samples
#   mismatches.txt every mismatching vector (check --show), when there are any
#   x86_<instr>.sample.vec.xz  the first SAMPLE vectors of each distribution,
#                  with the hardware's d: 20,000 VDPBF16PS vectors (250 kB)
#                  and 2,000 TDPBF16PS vectors (K = 32: 360 kB), the samples
#                  to commit (vectors/hw/xeon/)
#   x86_tdpbf16ps.20k.vec.xz  the first 2,500 TDPBF16PS vectors of each
#                  distribution (20,000, 3.6 MB: a record, too large to
#                  commit while the repository is near the 64 MiB that
#                  travels to the device machine)
# environment: COUNT (1250000 vectors per distribution: 10,000,000 per
# instruction), SHARDS (4 per distribution), SAMPLE_VDP (2500 per
# distribution), SAMPLE_TDP (250), SAMPLE_TDP_BIG (2500), SEED (20261129),
# JOBS (the cores), D (.x86work), LIMIT (540 seconds for the judged run).
# Exit 1 on any mismatch or failure.
set -u
# judged by the model's integer kernels, not the host's fma (the chains'
# fast path may run on it: fast_chains.c), so that the CPU under test is
# not also the judge
export MMAREF_NO_HOST_FMA=1
D=${D:-.x86work}
O=${OUT:?OUT: the folder that comes back}
COUNT=${COUNT:-1250000} SHARDS=${SHARDS:-4} SEED=${SEED:-20261129}
SAMPLE_VDP=${SAMPLE_VDP:-2500} SAMPLE_TDP=${SAMPLE_TDP:-250} SAMPLE_TDP_BIG=${SAMPLE_TDP_BIG:-2500}
JOBS=${JOBS:-$(nproc)} LIMIT=${LIMIT:-540}
W=${WORK:-/tmp/x86cap}
BIN=$W.bin
C=${C:-$BIN/capture_x86} M=${M:-$BIN/mmaref}
DISTS="bits random tiny overflow cancel zeros nan ties"

# one task: an instruction, a distribution, a shard; one line of log.tsv
if [ "${1:-}" = --task ]; then
  i=$2 d=$3 s=$4
  b=$W/$i.$d.$s
  t0=$(date +%s.%N)
  { "$C" --instr "$i" --dist "$d" --count "$COUNT" --seed "$SEED" --shard "$s/$SHARDS"; echo $? > "$b.rc"; } |
    "$M" check - --threads 1 --show 1000 > "$b.chk" 2>&1
  last=$(tail -1 "$b.chk")
  nv=${last%% vectors*} nm=${last#*, }; nm=${nm%% mismatches}
  case "$nv$nm" in *[!0-9]*|'') nv=0 nm=-1 ;; esac
  [ "$(cat "$b.rc")" = 0 ] || nm=-1
  [ "$nm" = 0 ] || { echo "== x86:$i $d shard $s/$SHARDS (capture exit $(cat "$b.rc"))"; head -n -1 "$b.chk"; } > "$b.mis"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$d" "$s/$SHARDS" "$nv" "$nm" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
  exit 0
fi

rm -rf "$W" "$BIN"
mkdir -p "$W" "$BIN" "$O" || exit 2
# the carried programs, compressed (xz, or Python's lzma where xz is missing)
unxz_to() {
  if command -v xz > /dev/null; then xz -dc "$1" > "$2"
  else python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$1" > "$2"; fi && chmod +x "$2"
}
for p in capture_x86 mmaref; do
  if [ -f "$D/$p.xz" ]; then unxz_to "$D/$p.xz" "$BIN/$p" || { echo "cannot unpack $D/$p.xz"; exit 2; }
  elif [ -f "$D/$p" ]; then cp "$D/$p" "$BIN/$p"
  else echo "$D/$p.xz missing: make x86-static builds it (carry $D)"; exit 2; fi
done
"$M" version > /dev/null || { echo "$M does not run here"; exit 2; }
{
  grep -m1 'model name' /proc/cpuinfo
  awk -F': ' '/^cpu family[[:space:]]*:/ { f = $2 } /^model[[:space:]]*:/ { m = $2 } /^stepping[[:space:]]*:/ { s = $2 }
              END { print "cpu family " f ", model " m ", stepping " s }' /proc/cpuinfo
  grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(amx|avx512_bf16|avx512_fp16|avx512f)' | tr '\n' ' '
  echo
  uname -sr
  printf 'capture_x86 --probe: %s\n' "$("$C" --probe 2>/dev/null)"
} > "$O/cpu.txt"
cat "$O/cpu.txt"
INSTRS=$("$C" --probe 2>/dev/null)
[ -n "$INSTRS" ] || { echo "this CPU runs neither VDPBF16PS nor TDPBF16PS"; exit 1; }

# the judged run: every (instruction, distribution, shard), JOBS at a time
for i in $INSTRS; do for d in $DISTS; do s=0; while [ $s -lt "$SHARDS" ]; do echo "$i $d $s"; s=$((s + 1)); done; done; done |
  W=$W C=$C M=$M COUNT=$COUNT SEED=$SEED SHARDS=$SHARDS timeout "$LIMIT" xargs -P "$JOBS" -n 3 sh "$0" --task > "$O/log.tsv"
echo "judged run: exit $? ($(wc -l < "$O/log.tsv") tasks)"
cat "$W"/*.mis > "$O/mismatches.txt" 2>/dev/null
[ -s "$O/mismatches.txt" ] || rm -f "$O/mismatches.txt"

# the samples: the first SAMPLE vectors of each distribution (a prefix of the
# judged vectors), one file an instruction
sample() {  # sample <instr> <vectors per distribution> <file>
  i=$1 SAMPLE=$2 f=$3
  first=1
  for d in $DISTS; do
    if [ $first = 1 ]; then
      "$C" --instr "$i" --dist "$d" --count "$SAMPLE" --seed "$SEED" | grep '^#' | grep -v '^# suite:\|^# shard:'
      echo "# suite: $DISTS ($SAMPLE vectors each, in that order)"
      first=0
    fi
    "$C" --instr "$i" --dist "$d" --count "$SAMPLE" --seed "$SEED" | grep -v '^#'
  done > "$f"
}
for i in $INSTRS; do
  if [ "$i" = tdpbf16ps ]; then
    sample "$i" "$SAMPLE_TDP_BIG" "$W/x86_$i.20k.vec"
    sample "$i" "$SAMPLE_TDP" "$W/x86_$i.sample.vec"
  else
    sample "$i" "$SAMPLE_VDP" "$W/x86_$i.sample.vec"
  fi
done

# counts, and the nearest wrong models on the samples
{
  echo "x86 capture: seed $SEED, $COUNT vectors per distribution in $SHARDS shards"
  awk -F'\t' '{ v[$1" "$2] += $4; if ($5 < 0) f[$1" "$2]++; else m[$1" "$2] += $5; V[$1] += $4; if ($5 > 0) M[$1] += $5 }
    END { for (k in v) printf "%-24s %10d vectors %6d mismatches%s\n", k, v[k], m[k], f[k] ? " (" f[k] " failed tasks)" : "" | "sort";
          close("sort"); for (k in V) printf "%-24s %10d vectors %6d mismatches\n", k " (all)", V[k], M[k] }' "$O/log.tsv"
  for i in $INSTRS; do
    echo "== x86:$i sample ($(grep -vc '^#' "$W/x86_$i.sample.vec") vectors): the catalogue model and the nearest wrong ones"
    printf '%-70s %s\n' "x86:$i" "$("$M" check "$W/x86_$i.sample.vec" --show 0 | tail -1)"
    if [ "$i" = tdpbf16ps ]; then
      base="chains,a=bf16,k=32,round=rne,ovf=ieee,zero=ieee"
      alts="ways=2,start=zero,ftz=in+out,nan=x86 ways=1,start=c,ftz=in+out,nan=x86 ways=1,start=zero,ftz=in+out,nan=x86
            ways=2,start=zero,ftz=none,nan=x86 ways=2,start=zero,ftz=out,nan=x86 ways=2,start=zero,ftz=in,nan=x86
            ways=2,start=zero,ftz=in+out,nan=x86,tiny=before ways=2,start=zero,ftz=in+out,nan=default
            ways=2,start=zero,ftz=in+out,nan=prop ways=2,start=none,ftz=in+out,nan=x86"
    else
      base="chains,a=bf16,k=2,ways=1,start=c,round=rne,ovf=ieee,zero=ieee"
      alts="order=down,ftz=in+out,nan=x86 order=up,ftz=in+out,nan=x86 order=down,ftz=none,nan=x86
            order=down,ftz=out,nan=x86 order=down,ftz=in,nan=x86 order=down,ftz=in+out,nan=x86,tiny=before
            order=down,ftz=in+out,nan=default order=down,ftz=in+out,nan=prop"
    fi
    for a in $alts; do   # tiny=after (the SDM's) unless the alternative says otherwise
      t=,tiny=after; case $a in *tiny=*) t= ;; esac
      printf '%-70s %s\n' "$a" "$("$M" check "$W/x86_$i.sample.vec" --instr "$base,$a$t" --show 0 | tail -1)"
    done
    printf '%-70s %s\n' "one exact sum, one rounding (ieee)" \
      "$("$M" check "$W/x86_$i.sample.vec" --instr "ieee,a=bf16,k=$([ "$i" = tdpbf16ps ] && echo 32 || echo 2),round=rne" --show 0 | tail -1)"
  done
} > "$O/summary.txt"
cat "$O/summary.txt"
for f in "$W"/x86_*.vec; do
  if command -v xz > /dev/null; then xz -9 -c "$f" > "$O/${f##*/}.xz"
  else cp "$f" "$O/"; fi
done
[ ! -f "$W/x86_tdpbf16ps.20k.vec" ] || printf '%-70s %s\n' "x86:tdpbf16ps on x86_tdpbf16ps.20k.vec" \
  "$("$M" check "$W/x86_tdpbf16ps.20k.vec" --show 0 | tail -1)" | tee -a "$O/summary.txt"
ls -l "$O"
rm -rf "$W" "$BIN"
# a failed task or a mismatch fails the run
awk -F'\t' '$5 != 0 { bad = 1 } END { exit bad }' "$O/log.tsv" && [ ! -e "$O/mismatches.txt" ]
