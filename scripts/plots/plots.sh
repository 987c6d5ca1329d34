#!/bin/sh
# make plots: regenerates docs/accuracy_*.png (gnuplot) and the measured
# tables of docs/accuracy.md, from the tool's own output.
# usage: scripts/plots/plots.sh [build/mmaref] [docs]
set -e
M=${1:-build/mmaref}
D=${2:-docs}
W=${PLOT_WORK:-build/plots}
export PLOT_WORK="$W"
mkdir -p "$W"
command -v gnuplot > /dev/null || { echo "plots: gnuplot is needed (Debian: gnuplot-nox)" >&2; exit 2; }

FS=$(seq 10 30)
units() { for f in $FS; do printf ' %s,f=%s' "$1" "$f"; done; }
# dat CSV COLUMNS...: "F col..." rows from a CSV of an F sweep (F from the unit name)
dat() {
    csv=$1; shift
    sed -n '2,$p' "$csv" | sed 's/^"[^"]*,f=\([0-9]*\)[^"]*"/\1/; s/"[^"]*"/Q/g' > "$W/body.tmp"
    head -1 "$csv" | awk -F, -v cols="$*" '{ n = split(cols, c, " "); for (j = 1; j <= n; j++) for (i = 1; i <= NF; i++) if ($i == c[j]) k[j] = i; for (j = 1; j <= n; j++) printf "%d ", k[j]; print "" }' > "$W/idx.tmp"
    awk -F, 'NR == FNR { n = split($0, k, " "); next } { printf "%s", $1; for (j = 1; j <= n; j++) printf " %s", $k[j]; print "" }' "$W/idx.tmp" "$W/body.tmp"
}

echo "plots: error vs F, K = 32"
for d in normal llm; do
    "$M" metrics $(units fused,a=e4m3,b=e4m3,k=32) exact,a=e4m3,b=e4m3,k=32 --dist $d --count 200000 --seed 1 --csv > "$W/f_k32_$d.csv"
    dat "$W/f_k32_$d.csv" mean_ulp p99_ulp not_cr | grep -v '^exact' > "$W/f_k32_$d.dat"
    sed 's/^"exact,[^"]*"/EXACT/; s/"[^"]*"/Q/g' "$W/f_k32_$d.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } $1 == "EXACT" { print $h["mean_ulp"], $h["p99_ulp"] }' > "$W/f_k32_${d}_exact.dat"
done

echo "plots: error vs F, GEMM depths 256..16384, with and without promotion"
for K in 256 1024 4096 16384; do
    n=$((400 * 4096 / K)); [ $n -lt 100 ] && n=100
    "$M" gemm $(units fused,a=e4m3,b=e4m3,k=32) --k $K --mode tc,promote --nc 128 --dist normal --scale 0.5 --count $n --seed 1 --csv > "$W/f_gemm_$K.csv"
    for mode in tc promote; do
        head -1 "$W/f_gemm_$K.csv" > "$W/m.csv"
        grep ",$mode," "$W/f_gemm_$K.csv" >> "$W/m.csv"
        dat "$W/m.csv" agg_rel p50_rel > "$W/f_gemm_${K}_$mode.dat"
    done
done

echo "plots: error histograms, hopper QGMMA vs blackwell F=25 vs exact-rounded"
"$M" metrics hopper:wgmma.m64n8k32.f32.e4m3.e4m3 blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3 exact,a=e4m3,b=e4m3,k=32 \
    --dist normal --count 1000000 --seed 1 --hist "$W/hist.dat" --hist-bins 81 > "$W/hist_table.txt"

gnuplot -e "W='$W'; D='$D'" scripts/plots/accuracy.gp
echo "plots: $D/accuracy_f_k32.png $D/accuracy_f_gemm.png $D/accuracy_hist.png"
sh scripts/docs_check.sh --update "$D/accuracy.md"
