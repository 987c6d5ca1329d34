#!/usr/bin/env python3
"""Random-bit vector files for testing scripts/peer/mmasim_fill.py.

    mmasim_gen.py INSTR N [--seed S] [-o FILE]

Every field (c, a, b, block scales) gets uniformly random bits of its format's
width; d is written as zeros for mmasim_fill.py to fill.  For peer testing
only; the project's suite generator lives elsewhere.
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mmasim_fill as mf  # noqa: E402

BITS = {"e3m2": 6, "e2m3": 6, "e2m1": 4}


def header(spec, extra=()):
    arch, qual = spec.name.split(":", 1)
    lines = ["# mmavec 1", f"# arch: {arch}", f"# instr: {spec.name}", f"# k: {spec.k}"]
    lines += list(extra)
    lines.append(f"# fields: {spec.field_line()}")
    return lines


def fmt_field(fmt, v):
    return "%0*x" % (mf.DIGITS[fmt], v)


def random_lines(spec, n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for label, fmt, cnt in spec.fields:
            w = mf.DIGITS[fmt]
            bits = BITS.get(fmt, 4 * w)
            for _ in range(max(cnt, 1)):
                parts.append(fmt_field(fmt, 0 if label == "d" else rng.getrandbits(bits)))
        out.append(" ".join(parts))
    return out


def write_file(path, spec, rows, extra=()):
    text = "\n".join(header(spec, extra) + rows) + "\n"
    mf._atomic_write(path, text.encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instr")
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    spec = mf.resolve(a.instr)
    rows = random_lines(spec, a.n, a.seed)
    extra = [f"# seed: {a.seed}"]
    if a.output == "-":
        sys.stdout.write("\n".join(header(spec, extra) + rows) + "\n")
    else:
        write_file(a.output, spec, rows, extra)


if __name__ == "__main__":
    main()
