#!/usr/bin/env python3
"""A binary32 vector file with some operands set to +0 (hw/runs/device_probe_daz.sh):
nonan its NaN operands, noinf NaN and Inf, nosub NaN, Inf and subnormals.
d is left as it was (mmaref bench --file does not read it).
    vec_zero_specials.py nonan|noinf|nosub IN.vec OUT.vec"""
import sys


def zeroed(mode, w):
    e, m = (w >> 23) & 0xff, w & 0x7fffff
    return (e == 255 and m != 0) or (mode != "nonan" and e == 255) or (mode == "nosub" and e == 0 and m != 0)


def main():
    mode, src, dst = sys.argv[1:4]
    with open(src) as f, open(dst, "w") as o:
        for line in f:
            if line.startswith("#"):
                o.write(line)
                continue
            t = line.split()
            o.write(" ".join(["00000000" if zeroed(mode, int(x, 16)) else x for x in t[:-1]] + t[-1:]) + "\n")


main()
