#!/bin/sh
# The tables of docs/cuda.md from the device runs' logs (docs/data/cuda_*):
#   sh scripts/cuda/tables.sh bench   the GPU's rates (mmaref bench --device
#        cuda, docs/data/cuda_bench_fast_h200.txt: the specialized kernels
#        and, the same run, the reference path's on four) beside the CPU's on
#        16 cores of make bench-peer (docs/data/bench_peer.tsv)
#   sh scripts/cuda/tables.sh test    test_cuda's totals (cuda_test_fast_h200.txt)
set -eu
case "${1:-}" in
bench)
    # (the log's first table: the default kernels; after the '# the
    # reference' line: the reference path's kernels, the same run)
    echo "| instruction | algorithm | kernel | GPU, dot/s | reference kernel, same run | CPU 16 cores, dot/s | GPU / CPU |"
    echo "|---|---|---|---:|---:|---:|---:|"
    awk 'FNR == NR { split($0, f, "\t"); if (f[1] !~ /^#/ && f[1] != "instr") cpu[f[1]] = f[5]; next }
        /^# the reference/ { ref = 1; next }
        /^[a-z0-9]+:/ { if (ref) { r[$1] = $4; next } n++; name[n] = $1; alg[n] = $2; g[n] = $4; k[n] = $6 }
        END { for (i = 1; i <= n; i++) { c = cpu[name[i]]
            printf "| %s | %s | %s | %.3g G | %s | %s | %s |\n", name[i], alg[i], k[i] == "reference," ? "reference" : k[i], g[i] / 1e9,
                (name[i] in r) ? sprintf("%.3g G", r[name[i]] / 1e9) : "-",
                (c ~ /^[0-9]/) ? sprintf("%.3g G", c / 1e9) : "-", (c ~ /^[0-9]/) ? sprintf("%.1f", g[i] / c) : "-" } }' \
        docs/data/bench_peer.tsv docs/data/cuda_bench_fast_h200.txt ;;
test)
    sed -n '/^suites:/,$p' docs/data/cuda_test_fast_h200.txt | grep -v '^rc=' ;;
*)
    echo "usage: sh scripts/cuda/tables.sh bench|test" >&2; exit 2 ;;
esac
