#!/usr/bin/env python3
"""Directed NaN vectors for the fp64 instructions (DMMA), to find which NaN
a chain of fused multiply-adds passes on.

Every position (c, a[k], b[k]) is finite, a quiet NaN or a signaling NaN;
each NaN carries a payload naming its position (0xc00 for c, 0xa00 + k for
a[k], 0xb00 + k for b[k]) and the vector's index, so the output names the
operand whose NaN survived.  Finite values (a = 1 + k/16, b = 2, c = 0.5)
make no invalid operation.

  combos   K = 4: all 3^9 = 19,683 states of the nine positions.  K > 4:
           the 27 states of (c, a[k], b[k]) for every k, and the 81 states
           of (a[k1], b[k1], a[k2], b[k2]) for every pair k1 < k2 (c finite).
  random   2,000 vectors whose positions are each finite, +-0, +-Inf,
           subnormal, a quiet or a signaling NaN (0*Inf and Inf-Inf occur).
A NaN's sign is the vector index's lowest bit.

usage: hw_dmma_nan.py QUALIFIER OUT.vec     (QUALIFIER: hopper:mma.m8n8k4.f64.f64.f64.f64, ...)
The file's d fields are zero: the capture fills them in.
"""
import itertools
import random
import re
import sys

QNAN, SNAN = 0x7FF8000000000000, 0x7FF0000000000000
SIGN = 1 << 63


def nan(kind, tag, index):
    payload = (tag << 32) | (index & 0xFF)  # never 0 (tag), which would be Inf
    return (QNAN if kind == 1 else SNAN) | payload | (SIGN if index & 1 else 0)


def finite_a(k):
    return 0x3FF0000000000000 | (k << 48)  # 1 + k/16


FINITE_B, FINITE_C = 0x4000000000000000, 0x3FE0000000000000  # 2, 0.5


def vector(index, states, K):
    """states: (c, a[0..K-1], b[0..K-1]) in {0 finite, 1 quiet, 2 signaling}."""
    c = FINITE_C if states[0] == 0 else nan(states[0], 0xC00, index)
    a = [finite_a(k) if s == 0 else nan(s, 0xA00 + k, index) for k, s in enumerate(states[1:K + 1])]
    b = [FINITE_B if s == 0 else nan(s, 0xB00 + k, index) for k, s in enumerate(states[K + 1:])]
    return c, a, b


def combos(K):
    if K == 4:
        yield from itertools.product(range(3), repeat=9)
        return
    for k in range(K):
        for sc, sa, sb in itertools.product(range(3), repeat=3):
            st = [0] * (2 * K + 1)
            st[0], st[1 + k], st[1 + K + k] = sc, sa, sb
            yield st
    for k1, k2 in itertools.combinations(range(K), 2):
        for s in itertools.product(range(3), repeat=4):
            st = [0] * (2 * K + 1)
            st[1 + k1], st[1 + K + k1], st[1 + k2], st[1 + K + k2] = s
            yield st


def random_value(rng, tag, index):
    r = rng.random()
    if r < 0.40:
        return (rng.getrandbits(1) << 63) | ((1023 + rng.randint(-30, 30)) << 52) | (rng.getrandbits(8) << 44)
    if r < 0.50:
        return rng.getrandbits(1) << 63
    if r < 0.65:
        return (rng.getrandbits(1) << 63) | 0x7FF0000000000000
    if r < 0.70:
        return (rng.getrandbits(1) << 63) | (rng.getrandbits(8) << 40) | 1
    return nan(1 if r < 0.85 else 2, tag, index)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, out = sys.argv[1], sys.argv[2]
    qual = name.split(":", 1)[1] if ":" in name and "::" not in name.split(":", 1)[0] else name
    m = re.search(r"\.m\d+n\d+k(\d+)\.", qual)
    if not m or not qual.endswith("f64.f64.f64.f64"):
        sys.exit("hw_dmma_nan: %s is not an fp64 instruction" % name)
    K = int(m.group(1))
    lines = ["# mmavec 1", "# arch: hopper", "# instr: hopper:" + qual, "# k: %d" % K,
             "# fields: c a[0..%d] b[0..%d] d" % (K - 1, K - 1), "# suite: dmma-nan (scripts/hw_dmma_nan.py)",
             "# seed: 14"]
    index = 0

    def emit(c, a, b):
        lines.append(" ".join("%016x" % x for x in [c] + a + b + [0]))

    for st in combos(K):
        emit(*vector(index, st, K))
        index += 1
    rng = random.Random(14)
    for _ in range(2000):
        c = random_value(rng, 0xC00, index)
        a = [random_value(rng, 0xA00 + k, index) for k in range(K)]
        b = [random_value(rng, 0xB00 + k, index) for k in range(K)]
        emit(c, a, b)
        index += 1
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
