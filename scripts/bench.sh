#!/bin/sh
# make bench: speed figures (never asserted by tests).
#  1. the bench instructions (scripts/bench_instructions.txt): dot products
#     per second on one core (thread CPU time; wall clock beside it: this
#     machine is shared) and on all cores, with instructions per dot product
#     (callgrind, when valgrind is there) and the floors;
#  2. every catalogue unit on one core, and the slowest;
#  3. gen and check, one core and all cores; gen into .vec.zst, .vec.xz, .vec.gz;
#  4. mmaref against mmasim on the same vectors, as make bench-peer last
#     measured it (docs/data/bench_peer.tsv);
#  5. the other parts' benches (metrics, RTL testbench) when present.
M=${1:-build/mmaref}; shift
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
L=$(grep -v '^#' scripts/bench_instructions.txt)
# (the machine: figures from different processors differ by twofold at the
# same instruction counts, a 2.1 GHz Xeon against a Zen 4, docs/performance.md)
echo "== machine: $(lscpu 2> /dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores$(lscpu 2> /dev/null | sed -n 's/^Hypervisor vendor: *\(.*\)/, virtual (\1)/p'), $(awk '/^cpu MHz/ { printf "%.0f MHz", $4; exit }' /proc/cpuinfo 2> /dev/null)"
echo
echo "== model: dot products per second (one core: thread CPU time; wall clock beside it)"
$M bench $L --seconds 1 | tee "$T/b"
echo
echo "== instructions per dot product (callgrind, inside mma_dot; valgrind has no AVX-512, so these are the AVX2 kernels)"
sh scripts/bench_instr.sh $M $L | tee "$T/i"
echo
echo "== floors (one core, CPU time: a call of mma_dot per vector, and the same vectors as a batch)"
awk -F'\t' 'NR == FNR { ir[$1] = $2; next }
  FNR > 1 { r = $4; q = ($8 == "-" ? 0 : $8); f = 0; w = ""
    if ($1 ~ /wgmma.m64n8k32.*e4m3.e4m3/) { f = 50e6; w = "Hopper QGMMA" }
    else if ($1 ~ /ampere:mma.m16n8k16.f32.f16/) { f = 45e6; w = "Ampere f16" }
    else if ($1 ~ /block/) { f = 10e6; w = "block-scaled" }
    best = q > r ? q : r
    if (f) printf "%-14s %-80s mma_dot %5.1f M, batch %5.1f M  (floor %2.0f M)  %s  %s instructions (mma_dot)\n", w, $1,
                  r / 1e6, q / 1e6, f / 1e6, (best >= f ? "ok" : "BELOW"), ir[$1] }' \
  "$T/i" FS=' +' "$T/b"
echo
echo "== every catalogue unit, one core (CPU time)"
$M bench --all --threads 1 --seconds 0.1 > "$T/all"
awk 'NR > 1 && $2 != "of" { n[$2]++; if (!($2 in lo) || $4 < lo[$2]) { lo[$2] = $4; at[$2] = $1 } }
     END { for (a in lo) printf "  %-11s %3d units, slowest %6.1f M  %s\n", a, n[a], lo[a] / 1e6, at[a] }' "$T/all" | sort -k4 -n
tail -1 "$T/all"
slow=$(tail -1 "$T/all" | sed 's/^slowest of [0-9]* units: \([^,]*\),.*/\1/')
sh scripts/bench_instr.sh $M "$slow" | sed 's/^/  instructions per dot product: /'
echo
echo "== gen and check, K=32 e4m3 (1,000,000 vectors)"
tm() { bash -c 'TIMEFORMAT="%R %U %S"; time "$@" > "$0.out"' "$T/t" "$@" 2> "$T/t.time"; tail -1 "$T/t.time"; }
rate() { echo "$1 $2" | awk '{ printf "%.2f M vectors/s wall (%.2f s); CPU: user %.2f s (%.2f M/s), system %.2f s", $1 / $2 / 1e6, $2, $3, $1 / $3 / 1e6, $4 }'; }
for t in 1 $(nproc); do
  echo "gen --threads $t:   $(rate 1000000 "$(tm $M gen hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --suite compliance --count 1000000 --seed 1 --threads $t -o "$T/g.vec")")"
  echo "check --threads $t: $(rate 1000000 "$(tm $M check "$T/g.vec" --threads $t)")   [$(tail -1 "$T/t.out")]"
done
echo "(system time: the kernel writing the file, $(($(stat -c %s "$T/g.vec") / 1000000)) MB)"
echo
echo "== gen into a compressed file, all cores, K=32 e4m3 (1,000,000 vectors; compressed in the process: cli/outfile.c)"
for ext in zst xz gz; do
  echo "gen -o .vec.$ext: $(rate 1000000 "$(tm $M gen hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --suite compliance --count 1000000 --seed 1 -o "$T/g.vec.$ext")"), $(($(stat -c %s "$T/g.vec.$ext") / 1000000)) MB"
done
echo
P=docs/data/bench_peer.tsv
if [ -f "$P" ]; then
  echo "== against the peer model mmasim, same vectors, same run (make bench-peer on the device host, $P)"
  python3 scripts/peer/bench_peer.py --table "$P" | sed -n '/^| instruction/,/^$/p'
fi
for t in "$@"; do echo; echo "== $t"; make --no-print-directory "$t" || echo "($t failed)"; done
