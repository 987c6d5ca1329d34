#!/bin/sh
# Speed-up with the number of threads of gen, run, check, bench and metrics
# on one large input (K=32 fp8; docs/performance.md).  Large enough that
# starting the process does not count: 16,000,000 vectors (a 3.4 GB file)
# for gen, run and check, a quarter as many for metrics (5 to 7 s on one
# thread).  Each figure is the best of REPEAT runs (the device host is a
# virtual machine whose memory and caches warm up as they are used; a
# first gen warms them), of REPEAT1 with one thread (the best of as many
# as the others by default: one slow one-thread run showed as a speed-up
# over 16, and the one-thread runs are most of the time, 2 of 8 minutes).
# Prints the machine (CPUs as sockets x cores x threads per core: whether
# the CPUs are cores; the file system the files are on), then a TSV:
# command, threads, seconds, items per second, speed-up over one thread;
# a line starting '# ... differs' if the output of run or gen, or the
# report of check or metrics, is not the same bytes as with one thread.
# run and gen write one file, and the kernel takes one write into a file
# at a time: 'run>null' and 'gen>null' are the same commands with their
# output to /dev/null (the work mmaref spreads over the threads), and a
# last line times one writer (dd) of run's output bytes into a new file
# on the same file system, the floor under run's time.  After each command
# a row 'Px1' (P the most threads): P one-thread processes at once, each on
# 1/P of the work, the host's ceiling for P threads.
#   scripts/scaling.sh BIN [VECTORS] [THREADS...]   (default 16000000; 1 2 4 ... cores)
#   REPEAT=3, REPEAT1=3, DIR=a folder for the files (default: a new one under $TMPDIR or /tmp)
set -eu
M=$1; N=${2:-16000000}; shift $(( $# >= 2 ? 2 : 1 ))
C=$(nproc)
T=${*:-$(t=1; while [ $t -lt "$C" ]; do printf '%s ' $t; t=$((t * 2)); done; echo "$C")}
REPEAT=${REPEAT:-3}; REPEAT1=${REPEAT1:-$REPEAT}
U=hopper:wgmma.m64n8k32.f32.e4m3.e4m3
D=$(mktemp -d "${DIR:-${TMPDIR:-/tmp}}/scaling.XXXXXX"); trap 'rm -rf "$D"' EXIT
now() { date +%s.%N; }
topo() { LC_ALL=C lscpu 2> /dev/null | sed -n "s/^$1: *//p" | head -1; }
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'): $C CPUs = $(topo 'Socket(s)') socket(s) x $(topo 'Core(s) per socket') core(s) x $(topo 'Thread(s) per core') thread(s) per core"
echo "# files on $(df -PT "$D" | awk 'NR == 2 { print $2 }'); $N vectors of $U ($((N / 4)) for metrics); best of $REPEAT (of $REPEAT1 with one thread)"
$M gen $U --suite compliance --count "$N" --seed 1 -o "$D/g1.vec"
P=$(echo $T | awk '{ print $NF }')
$M gen $U --suite compliance --count $((N / P)) --seed 2 -o "$D/part.vec"
printf 'command\tthreads\tseconds\tper_second\tspeedup\n'
for cmd in gen gen\>null run run\>null check bench metrics; do
  base=
  for t in $T; do
    best=
    i=0
    reps=$REPEAT; [ "$t" = 1 ] && reps=$REPEAT1
    while [ $i -lt "$reps" ]; do
      i=$((i + 1))
      rm -f "$D/x.vec"
      t0=$(now)
      case $cmd in
        gen) $M gen $U --suite compliance --count "$N" --seed 1 --threads "$t" -o "$D/x.vec"; n=$N ;;
        run) $M run "$D/g1.vec" -o "$D/x.vec" --threads "$t" 2> /dev/null; n=$N ;;
        'gen>null') $M gen $U --suite compliance --count "$N" --seed 1 --threads "$t" -o /dev/null; n=$N ;;
        'run>null') $M run "$D/g1.vec" -o /dev/null --threads "$t" 2> /dev/null; n=$N ;;
        check) $M check "$D/g1.vec" --threads "$t" > "$D/c$t.out"; n=$N ;;
        metrics) n=$((N / 4)); $M metrics $U --count $n --threads "$t" > "$D/m$t.out" ;;
        bench) n=$($M bench $U --threads "$t" --seconds 1 | awk 'NR == 2 { print $6 }') ;;
      esac
      t1=$(now)
      if [ $cmd = bench ]; then rate=$n; else rate=$(awk "BEGIN { printf \"%.0f\", $n / ($t1 - $t0) }"); fi
      if [ -z "$best" ] || [ "$rate" -gt "$best" ]; then best=$rate; fi
      # the same bytes as with one thread (gen: as the first file, made on all threads)
      if [ $i = 1 ]; then
        case $cmd in
          gen) cmp -s "$D/g1.vec" "$D/x.vec" || echo "# gen --threads $t: output differs" ;;
          *null) ;;
          run) if [ ! -e "$D/r1.vec" ]; then mv "$D/x.vec" "$D/r1.vec"; else cmp -s "$D/r1.vec" "$D/x.vec" || echo "# run --threads $t: output differs"; fi ;;
          check|metrics) f=$(echo $cmd | cut -c1); cmp -s "$D/${f}1.out" "$D/$f$t.out" 2> /dev/null || [ ! -e "$D/${f}1.out" ] || echo "# $cmd --threads $t: report differs" ;;
        esac
      fi
    done
    [ -z "$base" ] && base=$best
    secs=$(awk "BEGIN { printf \"%.3f\", $n / $best }")
    [ $cmd = bench ] && secs=-
    printf '%s\t%s\t%s\t%s\t%s\n' $cmd "$t" "$secs" "$best" "$(awk "BEGIN { printf \"%.2f\", $best / $base }")"
  done
  # the host's own ceiling for the most threads P: P one-thread processes
  # of the command at once, each on 1/P of the work (a file of N/P vectors),
  # timed until the last ends (bench: the sum of their one-core rates).
  # Nothing is shared between them, so what they lose against P times one
  # thread is the host's (clock, memory, the neighbours on a virtual machine).
  if [ "$P" -gt 1 ]; then
    best=
    i=0
    while [ $i -lt "$REPEAT" ]; do
      i=$((i + 1))
      t0=$(now)
      k=0
      while [ $k -lt "$P" ]; do
        case $cmd in
          gen) $M gen $U --suite compliance --count $((N / P)) --seed 2 --threads 1 -o "$D/i$k.vec" & ;;
          'gen>null') $M gen $U --suite compliance --count $((N / P)) --seed 2 --threads 1 -o /dev/null & ;;
          run) $M run "$D/part.vec" -o "$D/i$k.vec" --threads 1 2> /dev/null & ;;
          'run>null') $M run "$D/part.vec" -o /dev/null --threads 1 2> /dev/null & ;;
          check) $M check "$D/part.vec" --threads 1 > /dev/null & ;;
          metrics) $M metrics $U --count $((N / 4 / P)) --threads 1 > /dev/null & ;;
          bench) $M bench $U --threads 1 --seconds 1 | awk 'NR == 2 { print $5 }' > "$D/b$k.out" & ;;
        esac
        k=$((k + 1))
      done
      wait
      t1=$(now)
      n=$N; [ $cmd = metrics ] && n=$((N / 4))
      if [ $cmd = bench ]; then rate=$(cat "$D"/b*.out | awk '{ s += $1 } END { printf "%.0f", s }')
      else rate=$(awk "BEGIN { printf \"%.0f\", $n / ($t1 - $t0) }"); fi
      rm -f "$D"/i*.vec "$D"/b*.out
      if [ -z "$best" ] || [ "$rate" -gt "$best" ]; then best=$rate; fi
    done
    secs=$(awk "BEGIN { printf \"%.3f\", $n / $best }")
    [ $cmd = bench ] && secs=-
    printf '%s\t%sx1\t%s\t%s\t%s\n' $cmd "$P" "$secs" "$best" "$(awk "BEGIN { printf \"%.2f\", $best / $base }")"
  fi
  [ $cmd = run ] && bytes=$(wc -c < "$D/r1.vec")
  rm -f "$D/r1.vec" "$D/x.vec"
done
best=
for i in 1 2 3; do
  rm -f "$D/w.out"; sync
  t0=$(now); dd if=/dev/zero of="$D/w.out" bs=1M count=$((bytes >> 20)) 2> /dev/null; t1=$(now)
  s=$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")
  if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; fi
done
rm -f "$D/w.out"
echo "# one writer of run's $((bytes >> 20)) MiB into a new file there (dd bs=1M, best of 3): $best s"
echo "# outputs of gen and run (the files), reports of check and metrics: the same bytes for every thread count"
