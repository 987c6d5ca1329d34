#!/bin/sh
# What the neighbours suite reaches that compliance does not (docs/suites.md):
# for fp16 inputs and fp32 c, 20,000 vectors of each suite (seed 1), how
# many of the 32 one-bit neighbours of +Inf appear in c and of the 16
# one-hot fp16 patterns in a, and how many vectors expose a model whose c
# decoding takes exponent 0xf7 with a zero fraction (2^120) for Inf: each
# such c is replaced by Inf of its sign with d left as the model computed
# it for 2^120, and `mmaref check` counts the vectors whose d then differs.
# usage: scripts/neighbours_value.sh [mmaref] [count]
M=${1:-build/mmaref}
N=${2:-20000}
I=hopper:wgmma.m64n8k16.f32.f16.f16
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo "$I, seed 1, $N vectors a suite:"
echo
echo "| suite | neighbours of +Inf in c | one-hot fp16 in a | vectors exposing 0xf7 as Inf |"
echo "|---|---|---|---|"
for S in neighbours compliance; do
  $M gen $I --suite $S --count "$N" --seed 1 -o "$T/s.vec" || exit 2
  seen=$(python3 - "$T/s.vec" "$T/m.vec" <<'PY'
import sys
c_nb, a_hot = set(), set()
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        if line.startswith("#"):
            out.write(line); continue
        w = line.split()
        c = int(w[0], 16)
        x = c ^ 0x7f800000
        if x and x & (x - 1) == 0: c_nb.add(x)
        for t in w[1:17]:
            v = int(t, 16)
            if v and v & (v - 1) == 0: a_hot.add(v)
        if c & 0x7fffffff == 0x7b800000:
            w[0] = "%08x" % ((c & 0x80000000) | 0x7f800000)
        out.write(" ".join(w) + "\n")
print("%d of 32 | %d of 16" % (len(c_nb), len(a_hot)))
PY
) || exit 2
  r=$($M check "$T/m.vec" 2>&1 | tail -1 | sed -n 's/.*, \([0-9]*\) mismatches/\1/p')
  echo "| $S | $seen | ${r:-?} |"
done
