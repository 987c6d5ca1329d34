#!/bin/sh
# Instructions per dot product (callgrind), the steady measure on a shared
# machine: mmaref bench --reps 6 less --reps 2, over 4 x 4096 dot products
# of the normal suite, inside mma_dot only (the inputs' generation and the
# plan's first build cancel out).
#   scripts/bench_instr.sh BIN INSTR...
M=$1; shift
command -v valgrind > /dev/null || { echo "(valgrind not found: no instruction counts)"; exit 0; }
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=mma_dot "$M" bench "$1" --reps "$2" 2>&1 > /dev/null | awk '/Collected/ { print $4 }'; }
for u in "$@"; do
  a=$(ir "$u" 2); b=$(ir "$u" 6)
  [ -n "$a" ] && [ -n "$b" ] && printf '%s\t%d\n' "$u" $(( (b - a) / (4 * 4096) ))
done
