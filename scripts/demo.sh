#!/bin/sh
# make demo: what mmaref does, in one minute.
M=${1:-build/mmaref}
say() { printf '\n\033[1m== %s\033[0m\n' "$*" 2>/dev/null || printf '\n== %s\n' "$*"; }
set -e
say "The catalogue: $($M list | wc -l) instructions over 10 architectures (Hopper shown)"
$M list --arch hopper | head -14
say "What an instruction computes (a configuration string any command accepts)"
$M describe hopper:wgmma.m64n8k32.f32.e4m3.e4m3
C=$(printf '08,%.0s' $(seq 31))08
say "One dot product on three GPUs: c = 2^10 plus 32 products of 2^-12 (exact: 1024 + 2^-7)"
for i in hopper:wgmma.m64n8k32.f32.e4m3.e4m3 blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3 \
         cdna3:v_mfma_f32_16x16x32_fp8_fp8; do
  cc=$( [ "${i#cdna3}" != "$i" ] && echo "$(printf '10,%.0s' $(seq 31))10" || echo "$C" )
  printf '%-60s d = %s\n' "$i" "$($M eval "$i" 44800000 "$cc" "$cc")"
done
echo "(hopper keeps 13 fraction bits below the largest term: the 2^-12 products vanish; the others keep them)"
say "The model against real H100 hardware: 50,000 captured QGMMA vectors"
$M check vectors/hw/h100/wgmma.m64n8k32.f32.e4m3.e4m3.compliance.vec.xz | tail -1
say "A compliance suite for a unit of your own (F=20, RNE, chained in halves)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
$M gen "fused,a=bf16,k=16,l=8,f=20,round=rne" --suite compliance --count 100000 --seed 1 -o "$T/mine.vec.xz"
xz -dc "$T/mine.vec.xz" | sed -n '1,9p' | cut -c1-100
$M check "$T/mine.vec.xz" | tail -1
echo "... and the same suite against a unit one fraction bit short (F=19):"
$M check "$T/mine.vec.xz" --instr "fused,a=bf16,k=16,l=8,f=19,round=rne" --show 1 | tail -3 || true
say "Accuracy: Hopper FP8 (F=13) against Blackwell (F=25), K=32, normal inputs"
$M metrics hopper:wgmma.m64n8k32.f32.e4m3.e4m3 blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3 --dist normal --count 200000 --seed 1
say "GEMM depth 4096: tensor-core accumulation against promotion every 128 (DeepSeek-V3)"
$M gemm hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --k 4096 --mode tc,promote --nc 128 --dist normal --count 300 --seed 1
