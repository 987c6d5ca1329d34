#!/bin/sh
# make demo: what mmaref does, in one minute.  README.md shows this output
# as it is (make docs-check compares the two).
# usage: scripts/demo.sh [build/mmaref]
M=$(cd "$(dirname "${1:-build/mmaref}")" && pwd)/$(basename "${1:-build/mmaref}")
# headings, a blank line between sections; bold on a terminal only
said=
say() {
    [ -n "$said" ] && echo; said=1
    if [ -t 1 ]; then printf '\033[1m== %s\033[0m\n' "$*"; else printf '== %s\n' "$*"; fi
}
# long vector lines cut, visibly
short() { awk '{ if (length($0) > 78) print substr($0, 1, 74) " ..."; else print }'; }
# cols NAME...: the named columns of the tool's aligned table, comments left out
cols() {
    awk -v want="$*" '
        /^#/ { next }
        !h { h = 1; n = split(want, w, " "); for (j = 1; j <= n; j++) for (i = 1; i <= NF; i++) if ($i == w[j]) k[j] = i }
        { r++; for (j = 1; j <= n; j++) { c[r, j] = $k[j]; if (length($k[j]) > wd[j]) wd[j] = length($k[j]) } }
        END { for (i = 1; i <= r; i++) { s = ""
                for (j = 1; j <= n; j++) s = s sprintf(j == 1 ? "%-*s" : "  %*s", wd[j], c[i, j])
                print s } }'
}
set -e
R=$(pwd)                   # the repository (make demo runs here)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cd "$T"
Q=hopper:wgmma.m64n8k32.f32.e4m3.e4m3
BW=blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3

say "The catalogue: $($M list | wc -l) instructions over $($M list | cut -d: -f1 | sort -u | wc -l) architectures (some of Hopper's)"
$M list --arch hopper | grep -E '^hopper:(mma\.m16n8k16\.f32\.bf16|mma\.m16n8k32\.f32\.e4m3\.e4m3|mma\.m8n8k4|wgmma\.m64n8k16\.f32\.bf16|wgmma\.m64n8k32\.f32\.e4m3\.e4m3)'

say "What an instruction computes (a configuration string any command accepts)"
$M describe $Q | { read -r n; echo "$n"; read -r c; echo "$c"; fold -s -w 78 | sed 's/ *$//'; }

say "One dot product on three GPUs: c = 2^10 plus 32 products of 2^-12 (exact: 1024 + 2^-7)"
C=$(printf '08,%.0s' $(seq 31))08
for i in $Q $BW cdna3:v_mfma_f32_16x16x32_fp8_fp8; do
  cc=$( [ "${i#cdna3}" != "$i" ] && echo "$(printf '10,%.0s' $(seq 31))10" || echo "$C" )
  printf '%-58s d = %s\n' "$i" "$($M eval "$i" 44800000 "$cc" "$cc")"
done
echo "(operands in hex: c = 1024 in fp32, a = b = 2^-6 in e4m3, or in AMD's e4m3fnuz"
echo " for cdna3; d = 44800000 is 1024, 44800040 is 1024 + 2^-7.  Hopper keeps 13"
echo " fraction bits below the largest term, so the 2^-12 products vanish)"

say "The model against real H100 hardware: 50,000 captured QGMMA vectors"
$M check "$R/vectors/hw/h100/wgmma.m64n8k32.f32.e4m3.e4m3.compliance.vec.xz" | tail -1

say "A compliance suite for a unit of your own (F=20, RNE, chained in halves)"
U="fused,a=bf16,k=16,l=8,f=20,round=rne"
echo "\$ mmaref gen \"$U\" --suite compliance --count 100000 --seed 1 -o mine.vec.xz"
$M gen "$U" --suite compliance --count 100000 --seed 1 -o mine.vec.xz
xz -dc mine.vec.xz | sed -n '/^# fields:/p; /^[^#]/{p;q}' | short
$M check mine.vec.xz | tail -1
echo "... and the same suite against a unit one fraction bit short (F=19):"
$M check mine.vec.xz --instr "fused,a=bf16,k=16,l=8,f=19,round=rne" --show 1 | tail -3 | short || true

say "Accuracy: Hopper FP8 (F=13) against Blackwell (F=25), K=32, normal inputs"
$M metrics $Q $BW --dist normal --count 200000 --seed 1 | cols unit out n mean_ulp p99_ulp bias_ulp not_cr

say "GEMM depth 4096: tensor-core accumulation against promotion every 128 (DeepSeek-V3)"
$M gemm $Q --k 4096 --mode tc,promote --nc 128 --dist normal --count 300 --seed 1 | cols unit mode nc agg_rel mean_rel
