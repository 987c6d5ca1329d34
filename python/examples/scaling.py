"""The scaling examples of docs/python.md: an FP8 GEMM under DeepSeek-V3's
recipe beside per-tensor scaling, on Hopper's QGMMA and on Blackwell's FP8
instruction, and the two-stage FP16 accumulation of the RTX 4090 write-up.
Prints the two tables of the docs (markdown); `make python` first.

    python python/examples/scaling.py
"""
import numpy as np

import mmaref

QGMMA = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"                                    # F = 13
BW = "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3"               # F = 25
M, K, N = 64, 4096, 128


def rel(d, x):
    """normwise relative error ||d - x|| / ||x||"""
    return float(np.linalg.norm(np.asarray(d, dtype=np.float64) - x) / np.linalg.norm(x))


def dequant(q, s, block, fmt):
    """the values the scaled encodings stand for, in float64"""
    v = mmaref.decode(q, fmt)
    return v * np.repeat(np.repeat(s.astype(np.float64), block[0], 0), block[1], 1)


def fp8_table():
    rng = np.random.default_rng(1)
    # activations with a few large channels (as LLM activations have), weights ~ N(0, 1/K)
    A = rng.standard_normal((M, K)) * np.where(rng.random(K) < 0.01, 30.0, 1.0)
    B = rng.standard_normal((K, N)) / np.sqrt(K)
    X = A @ B
    print("| instruction | scales | accumulation | error against the exact sum of the scaled FP8 values "
          "| error against A @ B in float64 |")
    print("|---|---|---|---:|---:|")
    for unit in (QGMMA, BW):
        name = unit.split(":")[0]
        for scales, ba, bb in (("per tensor", (M, K), (K, N)), ("1x128 / 128x128 blocks", (1, 128), (128, 128))):
            qa, sa = mmaref.quantize(A, "e4m3", ba)
            qb, sb = mmaref.quantize(B, "e4m3", bb)
            exact = dequant(qa, sa, ba, "e4m3") @ dequant(qb, sb, bb, "e4m3")
            runs = [("promote every 128", 128)] if ba == (1, 128) else [("in the unit (tc)", None),
                                                                       ("promote every 128", 128)]
            for acc, p in runs:
                s_a, s_b = (sa, sb) if ba == (1, 128) else (sa[0, 0], sb[0, 0])
                D = mmaref.matmul(qa, qb, unit=unit, scale_a=s_a, scale_b=s_b, promote=p)
                d = mmaref.decode(D, "fp32")
                print(f"| {name} | {scales} | {acc} | {rel(d, exact):.2e} | {rel(d, X):.2e} |")


def fp16_table():
    rng = np.random.default_rng(2)
    A = rng.uniform(0, 1, (M, K))            # positive: the sum grows with K, as in the write-up's test
    B = rng.uniform(0, 1, (K, N))
    f16acc = "ada:mma.m16n8k16.f16.f16.f16.f16"
    f32acc = "ada:mma.m16n8k16.f32.f16.f16.f32"
    exact = mmaref.matmul(A, B, unit=f32acc, mode="exact")
    print("| instruction | accumulation | error against the exact sum of the FP16 values |")
    print("|---|---|---:|")
    for unit, mode, what in ((f16acc, "tc", "FP16 accumulator over all of K"),
                             (f16acc, "twostage", "two-stage: each call from 0, added in FP32"),
                             (f32acc, "tc", "FP32 accumulator over all of K")):
        d = mmaref.matmul(A, B, unit=unit, mode=mode)
        print(f"| {unit.split(':')[1]} | {what} | {rel(d, exact):.2e} |")


if __name__ == "__main__":
    print(f"FP8 GEMM, A {M} x {K} (1% of its channels 30 times larger), B {K} x {N}, e4m3:\n")
    fp8_table()
    print(f"\nFP16 GEMM, A {M} x {K}, B {K} x {N}, values uniform in [0, 1):\n")
    fp16_table()
