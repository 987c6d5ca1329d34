#!/bin/sh
# The hardware findings of docs/hardware.md, recomputed from the committed
# H100 vectors and logs: the model against each file, the nearest wrong
# models, the DMMA NaN rules, and the totals of the million-vector runs
# judged on the device (vectors/hw/h100/million/log.tsv).
# usage: sh scripts/hw_findings.sh [build/mmaref] [--update docs/hardware.md]
#   prints the tables; with --update writes them between the markers
#   <!-- BEGIN hw-... --> and <!-- END hw-... --> of the document.
M=${1:-build/mmaref}
DOC=
[ "${2:-}" = --update ] && DOC=${3:-docs/hardware.md}
V=vectors/hw/h100
W=${HW_WORK:-build/hwfindings}
mkdir -p "$W"
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
{
echo "| model | files | vectors | mismatches |"
echo "|---|---|---|---|"
row "catalogue (all instructions)" "*.vec.xz" ""
row "catalogue, the million runs' sample" "million/*.vec.xz" ""
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
row "emulated fp8 mma.sync without the fp16 conversion of a, b" "million/mma.m16n8k*.e[45]m*.vec.xz" "s/,via=fp16//"
row "wmma tf32 as one fused step (mma.m16n8k8's arithmetic)" "wmma.m16n16k8.*.vec.xz" "s/,l=4,/,l=8,/"
row "wmma f16 chained in halves (Ampere style)" "wmma.m16n16k16.f*16*.vec.xz" "s/,l=16,/,l=8,/"
} > "$W/hw-findings.md"

# the DMMA NaN rules against the directed captures
python3 scripts/hw_dmma_nan_rule.py $V/*.nan.vec.xz | sed '1s/^/Directed NaN vectors: /' > "$W/hw-nan.md"

# the million runs: per instruction, per suite, in all
L=$V/million/log.tsv
{
echo "| instruction (\`hopper:\` ...) | vectors judged on the H100 | mismatches |"
echo "|---|---|---|"
awk -F'\t' '{ v[$1] += $4; m[$1] += ($5 < 0 ? 0 : $5); if ($5 < 0) f[$1]++ }
  END { for (i in v) { q = i; sub(/^hopper:/, "", q); printf "| `%s` | %d | %d%s |\n", q, v[i], m[i], f[i] ? " (" f[i] " failed tasks)" : "" } }' "$L" | sort
} > "$W/hw-million.md"
{
echo "| suite | vectors | mismatches |"
echo "|---|---|---|"
awk -F'\t' '{ v[$2] += $4; m[$2] += ($5 < 0 ? 0 : $5); tv += $4; tm += ($5 < 0 ? 0 : $5); if ($5 < 0) tf++; n[$1] = 1 }
  END { for (s in v) printf "| %s | %d | %d |\n", s, v[s], m[s]
        printf "| **all (%d instructions, %d failed tasks)** | **%d** | **%d** |\n", length(n), tf, tv, tm }' "$L" | sort
} > "$W/hw-million-suites.md"

for t in hw-findings hw-nan hw-million hw-million-suites; do
  if [ -n "$DOC" ]; then
    sh scripts/splice_table.sh "$DOC" "$t" "$W/$t.md"
  else
    cat "$W/$t.md"; echo
  fi
done
[ -z "$DOC" ] || echo "hw_findings: $DOC updated"
