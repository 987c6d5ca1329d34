#!/bin/sh
# The hardware findings of docs/hardware.md, recomputed from the committed
# H100 vectors: the model against each file, and the nearest wrong models.
M=${1:-build/mmaref}
V=vectors/hw/h100
row() {  # row <label> <file-glob> <config-edit (sed)>
  label=$1; glob=$2; edit=$3; n=0; bad=0
  for f in $V/$glob; do
    i=$(xz -dc "$f" | sed -n 's/^# instr: //p' | head -1)
    c=$($M describe "$i" | sed -n 's/^config: //p')
    [ -n "$edit" ] && c=$(echo "$c" | sed "$edit")
    r=$($M check "$f" --instr "$c" --show 0 | tail -1)
    n=$((n + ${r%% vectors*})); m=${r##*, }; bad=$((bad + ${m%% mismatches}))
  done
  printf '| %s | %s | %d | %d |\n' "$label" "$glob" "$n" "$bad"
}
echo "| model | files | vectors | mismatches |"
echo "|---|---|---|---|"
row "catalogue (all instructions)" "*.vec.xz" ""
row "QGMMA f32 out, F=13 (catalogue)" "wgmma.*k32.f32.*.vec.xz" ""
row "QGMMA f32 out, F=12" "wgmma.*k32.f32.*.vec.xz" "s/,f=13,/,f=12,/"
row "QGMMA f32 out, F=14" "wgmma.*k32.f32.*.vec.xz" "s/,f=13,/,f=14,/"
row "QGMMA f32 out, full fp32 output (p=23)" "wgmma.*k32.f32.*.vec.xz" "s/,p=13,/,p=23,/"
row "QGMMA f16 out, F=12" "wgmma.*k32.f16.*.vec.xz" "s/,f=13,/,f=12,/"
row "QGMMA f16 out, F=14" "wgmma.*k32.f16.*.vec.xz" "s/,f=13,/,f=14,/"
row "HGMMA, F=24" "wgmma.m64n8k16.*.vec.xz" "s/,f=25,/,f=24,/"
row "HGMMA, F=26" "wgmma.m64n8k16.*.vec.xz" "s/,f=25,/,f=26,/"
row "HMMA m16n8k16 chained in halves (Ampere style)" "mma.m16n8k16.f*16*.vec.xz" "s/,l=16,/,l=8,/"
row "HMMA/HGMMA RNE instead of RZ (f32 out)" "*mma.m*.f32.[bft]*16.*.vec.xz" "s/round=rz/round=rne/"
row "zero terms take no part in emax" "*.ezero.vec.xz" "s/ezero=-[0-9]*/ezero=none/"
row "zero terms at -126 (MMA-Sim 1.x)" "*mma.*.f32.bf16.bf16*.vec.xz" "s/ezero=-[0-9]*/ezero=-126/"
row "subnormal inputs flushed" "*mma.m*k16.f32.f16.f16*.vec.xz" "s/$/,ftz=in/"
row "IEEE NaN instead of canonical" "wgmma.*.specials.vec.xz" "s/nan=canon/nan=ieee/"
row "emulated fp8 mma.sync without the k interleave" "mma.m16n8k32.*.vec.xz" "s/,interleave=2//"
row "emulated fp8 mma.sync as one fused step" "mma.m16n8k32.*.vec.xz" "s/,l=16,/,l=32,/;s/,interleave=2//"
