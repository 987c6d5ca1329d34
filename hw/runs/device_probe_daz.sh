#!/bin/sh
# A one-off probe of the device host (docs/performance.md, "Against the
# peer": why CDNA3's fp32 chain and DMMA stay below 20x on one thread), run
# with the static mmaref of the commit that added this script (its
# MMAREF_DAZ switch: 1 = the AVX-512 SFMA loop with MXCSR.DAZ set and the
# lanes with subnormal operands done again, 3 = DAZ without those checks,
# wrong results, timing only; the commit after it removed the switch) and
# scripts/stream_floor.c built statically:
#   hw/runs/device_probe_daz.sh MMAREF STREAM_FLOOR > docs/data/probe_device_daz.txt
# Also the host's own ceiling for 16 threads: 8 and 16 one-thread bench
# processes at once against one alone (the sum of their rates).
set -u
M=${1:?usage: device_probe_daz.sh MMAREF STREAM_FLOOR}; S=${2:?usage: device_probe_daz.sh MMAREF STREAM_FLOOR}
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
best() { b=0; for r in 1 2 3; do x=$(env $2 "$M" bench --file "$1" --threads 1 --seconds 0.3 | tail -1 | awk '{print $5}'); b=$(python3 -c "print(max($b, $x))"); done; echo "$b"; }
u=cdna3:v_mfma_f32_16x16x4_f32
"$M" gen $u --suite random --count 100000 --seed 1 -o "$T/r.vec"
"$M" gen $u --suite normal --count 100000 --seed 1 -o "$T/n.vec"
"$M" gen $u --suite random --count 10000 --seed 1 -o "$T/s.vec"
for m in nonan nosub; do python3 "$D/vec_zero_specials.py" $m "$T/r.vec" "$T/$m.vec"; done
for round in 1 2; do
  for f in r nonan nosub n s; do
    echo "$u $f plain $(best "$T/$f.vec" X=1) daz $(best "$T/$f.vec" MMAREF_DAZ=1) daz_nochecks $(best "$T/$f.vec" MMAREF_DAZ=3)"
  done
done
u=hopper:mma.m8n8k4.f64.f64.f64.f64
"$M" gen $u --suite random --count 100000 --seed 1 -o "$T/dr.vec"
"$M" gen $u --suite random --count 10000 --seed 1 -o "$T/ds.vec"
echo "$u random100k $(best "$T/dr.vec" X=1) random10k $(best "$T/ds.vec" X=1)"
for a in "4 4 100000" "4 4 10000" "8 4 100000" "8 4 10000" "1 32 100000"; do "$S" $a; "$S" $a; done
u=hopper:wgmma.m64n8k32.f32.e4m3.e4m3
"$M" gen $u --suite random --count 100000 --seed 1 -o "$T/q.vec"
one() { "$M" bench --file "$T/q.vec" --threads 1 --seconds 3 | tail -1 | awk '{print $5}'; }
for round in 1 2; do
  echo "host ceiling round $round: one process alone: $(one)"
  for n in 8 16; do
    i=0; while [ $i -lt $n ]; do one > "$T/p$i.txt" & i=$((i + 1)); done; wait
    cat "$T"/p*.txt | awk -v n=$n '{s += $1} END {printf "%d processes at once: sum %.0f, mean %.0f\n", n, s, s / n}'
    rm -f "$T"/p*.txt
  done
  echo "bench --threads 16: $("$M" bench --file "$T/q.vec" --threads 16 --seconds 3 | tail -1)"
done
