#!/usr/bin/env python3
"""Write a small random vector file for developing the capture harness.

This is a development aid only; the project's real input suites come from
`mmaref gen`. Operands are raw bit patterns: a mix of values near 1, random
bit patterns (NaN, Inf, subnormals included), and vectors with zeros.

usage: make_test_vectors.py INSTR N SEED OUT.vec
  INSTR  qualifier, e.g. wgmma.m64n8k32.f32.e4m3.e4m3 (optionally hopper:...)
"""
import random
import re
import sys

FMT = {  # name: (bits, ebits, fbits)
    "e4m3": (8, 4, 3), "e5m2": (8, 5, 2), "f16": (16, 5, 10), "bf16": (16, 8, 7),
    "tf32": (32, 8, 23), "f32": (32, 8, 23), "f64": (64, 11, 52),
}


def parse(q):
    q = q.split(":", 1)[1] if ":" in q else q
    parts = q.split(".")
    k = int(re.search(r"k(\d+)$", parts[1]).group(1))
    if parts[0] == "wgmma":
        dt, at, bt = parts[2], parts[3], parts[4]
    else:
        dt, at, bt = parts[2], parts[3], parts[4]
    return q, k, at, bt, dt


def near_one(rng, fmt, spread):
    bits, eb, fb = FMT[fmt]
    bias = (1 << (eb - 1)) - 1
    e = bias + rng.randint(-spread, spread)
    e = max(1, min(e, (1 << eb) - 2))
    v = (rng.getrandbits(1) << (bits - 1)) | (e << fb) | rng.getrandbits(fb)
    if fmt == "e4m3" and (v & 0x7f) == 0x7f:
        v &= ~1
    return v


def value(rng, fmt, mode):
    bits = FMT[fmt][0]
    if mode == 0:
        return near_one(rng, fmt, 3)
    if mode == 1:
        return rng.getrandbits(bits)
    r = rng.random()
    if r < 0.3:
        return 0 if rng.random() < 0.5 else 1 << (bits - 1)
    if r < 0.5:  # subnormal
        return (rng.getrandbits(1) << (bits - 1)) | rng.randint(1, (1 << FMT[fmt][2]) - 1)
    return near_one(rng, fmt, 6)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    q, k, at, bt, dt = parse(sys.argv[1])
    n, seed, out = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    w = {f: FMT[f][0] // 4 for f in FMT}
    lines = [
        "# mmavec 1",
        "# arch: hopper",
        "# instr: hopper:" + q,
        "# k: %d" % k,
        "# fields: c a[0..%d] b[0..%d] d" % (k - 1, k - 1),
        "# seed: %d" % seed,
        "# source: hw/make_test_vectors.py",
    ]
    for i in range(n):
        mode = i % 3
        c = value(rng, dt, mode)
        a = [value(rng, at, mode) for _ in range(k)]
        b = [value(rng, bt, mode) for _ in range(k)]
        f = ["%0*x" % (w[dt], c)] + ["%0*x" % (w[at], x) for x in a]
        f += ["%0*x" % (w[bt], x) for x in b] + ["0" * w[dt]]
        lines.append(" ".join(f))
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
