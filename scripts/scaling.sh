#!/bin/sh
# Speed-up with the number of threads of gen, run, check, bench and metrics
# on one large input (K=32 fp8; docs/performance.md).  Each figure is the
# best of REPEAT runs (the device host is a virtual machine whose memory
# and caches warm up as they are used; a first gen warms them).  Prints a
# TSV: command, threads, seconds, items per second, speed-up over one
# thread; a line starting '# ... differs' if the output of run or gen, or
# the report of check, is not the same bytes as with one thread.
#   scripts/scaling.sh BIN [VECTORS] [THREADS...]     (default 4000000; 1 2 4 ... cores)
set -eu
M=$1; N=${2:-4000000}; shift $(( $# >= 2 ? 2 : 1 ))
C=$(nproc)
T=${*:-$(t=1; while [ $t -lt "$C" ]; do printf '%s ' $t; t=$((t * 2)); done; echo "$C")}
REPEAT=${REPEAT:-3}
U=hopper:wgmma.m64n8k32.f32.e4m3.e4m3
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
now() { date +%s.%N; }
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $C cores; $N vectors of $U; best of $REPEAT"
$M gen $U --suite compliance --count "$N" --seed 1 -o "$D/g1.vec"
printf 'command\tthreads\tseconds\tper_second\tspeedup\n'
for cmd in gen run check bench metrics; do
  base=
  for t in $T; do
    best=
    i=0
    while [ $i -lt "$REPEAT" ]; do
      i=$((i + 1))
      t0=$(now)
      case $cmd in
        gen) $M gen $U --suite compliance --count "$N" --seed 1 --threads "$t" -o "$D/x.vec"; n=$N ;;
        run) $M run "$D/g1.vec" -o "$D/x.vec" --threads "$t" 2> /dev/null; n=$N ;;
        check) $M check "$D/g1.vec" --threads "$t" > "$D/c$t.out"; n=$N ;;
        metrics) n=$((N / 2)); $M metrics $U --count $n --threads "$t" > /dev/null ;;
        bench) n=$($M bench $U --threads "$t" --seconds 1 | awk 'NR == 2 { print $6 }') ;;
      esac
      t1=$(now)
      if [ $cmd = bench ]; then rate=$n; else rate=$(awk "BEGIN { printf \"%.0f\", $n / ($t1 - $t0) }"); fi
      if [ -z "$best" ] || [ "$rate" -gt "$best" ]; then best=$rate; fi
      case $cmd in
        gen|run) { grep -v '^#' "$D/x.vec" | cmp -s - "$D/body" 2> /dev/null || { [ ! -e "$D/body" ] && grep -v '^#' "$D/x.vec" > "$D/body"; } || echo "# $cmd --threads $t: output differs"; }; rm -f "$D/x.vec" ;;
        check) cmp -s "$D/c1.out" "$D/c$t.out" || echo "# check --threads $t: report differs" ;;
      esac
    done
    [ -z "$base" ] && base=$best
    secs=$(awk "BEGIN { printf \"%.3f\", $n / $best }")
    [ $cmd = bench ] && secs=-
    printf '%s\t%s\t%s\t%s\t%s\n' $cmd "$t" "$secs" "$best" "$(awk "BEGIN { printf \"%.2f\", $best / $base }")"
  done
done
echo "# outputs of gen and run (vector lines) and check's report: the same bytes for every thread count"
