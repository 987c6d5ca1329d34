#!/usr/bin/env python3
"""Which NaN does a chain of fp64 fused multiply-adds pass on?  Fits NaN
rules to captured fp64 vector files (DMMA on the H100; docs/hardware.md).

The chain is d = c; d = fma(a[k], b[k], d) for k = 0..K-1, every step an
IEEE fma rounded to nearest even (exact Fraction arithmetic here).  A step
that meets a NaN operand returns one of its NaN operands, quieted; which one
is what the candidate rules differ in:

  first NaN of <order>        the first NaN operand in that order (a[k],
                              b[k], d the running accumulator), signaling
                              or quiet alike
  signaling first, then <order>  the first signaling NaN in that order if
                              there is one, else the first quiet NaN
A step with no NaN operand that is invalid (0*Inf, Inf-Inf) gives the
default NaN 0xfff8000000000000 (what the H100 returns).

usage: hw_dmma_nan_rule.py FILE...   (.vec or .vec.xz, fp64 instructions)
Prints one line per rule: vectors whose d it reproduces bit for bit, of all
vectors and of those whose d is a NaN.  Exit status 0.
"""
import itertools
import lzma
import math
import sys
from fractions import Fraction

DEFAULT_NAN = 0xFFF8000000000000
SIGN = 1 << 63
EXP = 0x7FF0000000000000
QUIET = 1 << 51


def is_nan(x):
    return (x & EXP) == EXP and x & 0xFFFFFFFFFFFFF


def is_snan(x):
    return is_nan(x) and not x & QUIET


def is_inf(x):
    return (x & ~SIGN) == EXP


def value(x):
    """Finite fp64 bits -> Fraction."""
    e = (x >> 52) & 0x7FF
    m = x & ((1 << 52) - 1)
    v = Fraction(m, 1 << 52) * Fraction(2) ** -1022 if e == 0 else (1 + Fraction(m, 1 << 52)) * Fraction(2) ** (e - 1023)
    return -v if x & SIGN else v


def to_bits(v):
    """Fraction -> fp64 bits, round to nearest even, overflow to Inf."""
    neg = v < 0
    a = -v if neg else v
    if a == 0:
        return SIGN if neg else 0
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -1022)
    q = Fraction(2) ** (e - 52)
    n = a / q
    fl = n.numerator // n.denominator
    r = n - fl
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and fl & 1):
        fl += 1
    if fl == 1 << 53:
        fl, e = 1 << 52, e + 1
    if e > 1023:
        return (SIGN if neg else 0) | EXP
    bits = (fl - (1 << 52)) | ((e + 1023) << 52) if fl >= 1 << 52 else fl
    return (SIGN if neg else 0) | bits


def fma(a, b, c):
    """IEEE fma of finite or infinite operands (no NaN), RNE."""
    if is_inf(a) or is_inf(b):
        if (a & ~SIGN) == 0 or (b & ~SIGN) == 0:
            return DEFAULT_NAN
        ps = (a ^ b) & SIGN
        if is_inf(c) and (c & SIGN) != ps:
            return DEFAULT_NAN
        return ps | EXP
    if is_inf(c):
        return c
    p = value(a) * value(b)
    s = p + value(c)
    if s == 0:
        psign = (a ^ b) & SIGN
        if p == 0 and psign and c & SIGN:
            return SIGN  # -0 + -0
        return 0
    return to_bits(s)


def make_rule(snan_first, order):
    def pick(a, b, c):
        ops = {"a": a, "b": b, "c": c}
        if snan_first:
            for o in order:
                if is_snan(ops[o]):
                    return ops[o] | QUIET
        for o in order:
            if is_nan(ops[o]):
                return ops[o] | QUIET
        return None
    return pick


NAME = {"a": "a[k]", "b": "b[k]", "c": "d"}
RULES = {}
for perm in itertools.permutations("abc"):
    order = "".join(perm)
    label = ", ".join(NAME[o] for o in order)
    RULES["first NaN of " + label] = make_rule(False, order)
    RULES["signaling first, then " + label] = make_rule(True, order)


def chain(rule, c, a, b):
    d = c
    for x, y in zip(a, b):
        n = rule(x, y, d)
        d = n if n is not None else fma(x, y, d)
    return d


def read(path):
    op = lzma.open if path.endswith(".xz") else open
    with op(path, "rt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            v = [int(x, 16) for x in line.split()]
            k = (len(v) - 2) // 2
            yield v[0], v[1:1 + k], v[1 + k:1 + 2 * k], v[-1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    vecs = [x for p in sys.argv[1:] for x in read(p)]
    nans = sum(1 for v in vecs if is_nan(v[3]))
    print("%d vectors from %d files, %d with a NaN result" % (len(vecs), len(sys.argv) - 1, nans))
    print("| rule | vectors reproduced | NaN results reproduced |")
    print("|---|---|---|")
    rows = []
    for name, rule in RULES.items():
        ok = okn = 0
        for c, a, b, d in vecs:
            if chain(rule, c, a, b) == d:
                ok += 1
                okn += bool(is_nan(d))
        rows.append((ok, name, okn))
    for ok, name, okn in sorted(rows, key=lambda r: (-r[0], r[1])):
        print("| %s | %d of %d | %d of %d |" % (name, ok, len(vecs), okn, nans))


if __name__ == "__main__":
    main()
