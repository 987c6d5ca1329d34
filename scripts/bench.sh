#!/bin/sh
# make bench: speed figures (never asserted by tests).
#  1. dot products per second through the model, one core and all cores;
#  2. gen and check throughput (vectors per second, K=32 FP8);
#  3. the peer model mmasim 2.1.1 on the same instructions, as measured on
#     the device machine (docs/data/mmasim_bench_t1.tsv: one CPU thread),
#     and the ratio;
#  4. the other parts' benches (metrics, RTL testbench) when present.
M=${1:-build/mmaref}; shift
echo "== model: dot products per second"
$M bench --seconds 1 | tee /tmp/mmaref-bench.$$
echo
echo "== gen and check, K=32 e4m3 (1,000,000 vectors, one core)"
T=$(mktemp -d); trap 'rm -rf "$T" /tmp/mmaref-bench.$$' EXIT
# wall clock and CPU time (user + system) of one process, via bash's time
tm() { bash -c 'TIMEFORMAT="%R %U %S"; time "$@" > "$0.out"' "$T/t" "$@" 2> "$T/t.time"; tail -1 "$T/t.time"; }
rate() { echo "$1 $2" | awk '{ printf "%.2f M vectors/s wall (%.2f s); CPU: user %.2f s (%.2f M/s), system %.2f s", $1 / $2 / 1e6, $2, $3, $1 / $3 / 1e6, $4 }'; }
echo "gen:   $(rate 1000000 "$(tm $M gen hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --suite compliance --count 1000000 --seed 1 -o "$T/g.vec")")"
echo "       (system time: the kernel writing the file, $(($(stat -c %s "$T/g.vec") / 1000000)) MB)"
echo "check: $(rate 1000000 "$(tm $M check "$T/g.vec")")   [$(tail -1 "$T/t.out")]"
echo
P=docs/data/mmasim_bench_t1.tsv
if [ -f "$P" ]; then
  echo "== peer model mmasim 2.1.1 (device CPU, one thread, $(sed -n 's/^# //p' $P | head -1 | cut -c1-60)...)"
  printf '%-44s %14s %14s %14s %10s\n' instruction "mmasim dpa/s" "mmasim file/s" "mmaref dot/s" "ratio"
  awk -F'\t' 'NR==FNR { if ($1 ~ /:/) { dpa[$1] = $2 / $4; fill[$1] = $5 }; next }
              ($1 in dpa) { printf "%-44s %14.0f %14.0f %14.0f %9.0fx\n", $1, dpa[$1], fill[$1], $2, $2 / dpa[$1] }' \
      "$P" - <<TSV
$(awk 'NR > 1 { print $1 "\t" $3 }' /tmp/mmaref-bench.$$)
TSV
  echo "(ratio: mmaref one core here (CPU time) over mmasim's dpa() alone on one device thread; CPUs differ: see docs/performance.md)"
fi
for t in "$@"; do echo; echo "== $t"; make --no-print-directory "$t" || echo "($t failed)"; done
