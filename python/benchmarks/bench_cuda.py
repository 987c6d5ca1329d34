"""Unit.dot on CUDA tensors from Python: dot products per second, the
call's whole time (argument checks, DLPack, the launch) with the result
awaited (torch.cuda.synchronize), on N random-bit vectors already on the
GPU, the same bits as the CPU path checked on the first 100,000.

    python bench_cuda.py [N] [unit ...]
"""
import sys
import time

import numpy as np
import torch

import mmaref


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
    names = sys.argv[2:] or ["hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "hopper:wgmma.m64n8k16.f32.bf16.bf16"]
    print(f"# {mmaref.cuda_device()}; {n} vectors a call, torch {torch.__version__}")
    rng = np.random.default_rng(1)
    for name in names:
        u = mmaref.Unit(name)
        fa, fb, fc = u.formats["a"], u.formats["b"], u.formats["c"]
        a = torch.from_numpy(rng.integers(0, 1 << fa.width, (n, u.K), dtype=np.uint64).astype(fa.dtype)).cuda()
        b = torch.from_numpy(rng.integers(0, 1 << fb.width, (n, u.K), dtype=np.uint64).astype(fb.dtype)).cuda()
        c = torch.from_numpy(rng.integers(0, 1 << fc.width, (n,), dtype=np.uint64).astype(fc.dtype)).cuda()
        d = u.dot(c, a, b)
        torch.cuda.synchronize()
        m = 100000
        want = u.dot(c[:m].cpu().numpy(), a[:m].cpu().numpy(), b[:m].cpu().numpy())
        got = d[:m].cpu().numpy()
        ok = bool((u.result_equal(got, want)).all())
        reps = 10
        t0 = time.perf_counter()
        for _ in range(reps):
            d = u.dot(c, a, b)
        torch.cuda.synchronize()
        t = time.perf_counter() - t0
        print(f"{name:80s} {n * reps / t:14.0f} dot/s  (first {m}: {'same bits as the CPU' if ok else 'MISMATCH'})")


if __name__ == "__main__":
    main()
