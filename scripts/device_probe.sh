#!/bin/sh
# What the device host's one-thread rate of the IEEE chains depends on
# (docs/performance.md, against the peer): mmaref bench --file, best of 3,
# on 100,000 and 10,000 random-bit vectors and the normal suite, and for
# CDNA3's fp32 chain the random bits with their NaN, Inf and subnormal
# operands set to zero in turn (scripts/vec_zero_specials.py), with the
# AVX-512 loops and with MMAREF_NO_AVX512=1.
#   scripts/device_probe.sh MMAREF > docs/data/probe_device.txt
M=${1:?usage: device_probe.sh MMAREF}
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
best() { b=0; for r in 1 2 3; do x=$(env $2 "$M" bench --file "$1" --threads 1 --seconds 0.3 | tail -1 | awk '{print $5}'); b=$(python3 -c "print(max($b, $x))"); done; echo "$b"; }
for u in cdna3:v_mfma_f32_16x16x4_f32 hopper:mma.m8n8k4.f64.f64.f64.f64; do
  "$M" gen $u --suite random --count 100000 --seed 1 -o "$T/r.vec"
  "$M" gen $u --suite random --count 10000 --seed 1 -o "$T/s.vec"
  "$M" gen $u --suite normal --count 100000 --seed 1 -o "$T/n.vec"
  echo "$u random100k $(best "$T/r.vec" X=1) random10k $(best "$T/s.vec" X=1) normal100k $(best "$T/n.vec" X=1)"
done
u=cdna3:v_mfma_f32_16x16x4_f32
"$M" gen $u --suite random --count 100000 --seed 1 -o "$T/r.vec"
"$M" gen $u --suite normal --count 100000 --seed 1 -o "$T/n.vec"
for m in nonan noinf nosub; do python3 "$D/vec_zero_specials.py" $m "$T/r.vec" "$T/$m.vec"; done
for f in r nonan noinf nosub n; do
  echo "$u $f avx512 $(best "$T/$f.vec" X=1) avx2 $(best "$T/$f.vec" MMAREF_NO_AVX512=1)"
done
