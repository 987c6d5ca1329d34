#!/bin/sh
# The tables of docs/cuda.md from the device runs' logs (docs/data/cuda_*):
#   sh scripts/cuda/tables.sh bench   the GPU's rates (mmaref bench --device
#        cuda) beside the CPU's on 16 cores and mmasim's GPU figure of
#        make bench-peer (docs/data/bench_peer.tsv; 100,000 vectors a call)
#   sh scripts/cuda/tables.sh test    test_cuda's totals
set -eu
case "${1:-}" in
bench)
    echo "| instruction | algorithm | GPU, dot/s | CPU 16 cores, dot/s | GPU / CPU | mmasim GPU, dot/s | GPU / mmasim |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    awk 'FNR == NR { split($0, f, "\t"); if (f[1] !~ /^#/ && f[1] != "instr") { cpu[f[1]] = f[5]; sim[f[1]] = f[9] }; next }
        /^[a-z0-9]+:/ {
            g = $4; c = cpu[$1]; s = sim[$1]
            printf "| %s | %s | %.3g G | %s | %s | %s | %s |\n", $1, $2, g / 1e9,
                (c ~ /^[0-9]/) ? sprintf("%.3g G", c / 1e9) : "-", (c ~ /^[0-9]/) ? sprintf("%.1f", g / c) : "-",
                (s ~ /^[0-9]/) ? sprintf("%.3g M", s / 1e6) : "-", (s ~ /^[0-9]/) ? sprintf("%.0f", g / s) : "-" }' \
        docs/data/bench_peer.tsv docs/data/cuda_bench_h200.txt ;;
test)
    sed -n '/^suites:/,$p' docs/data/cuda_test_h200.txt | grep -v '^rc=' ;;
*)
    echo "usage: sh scripts/cuda/tables.sh bench|test" >&2; exit 2 ;;
esac
