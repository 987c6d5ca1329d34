"""make python-bench: speed of the Python package against the C library.

1. unit.dot over a million vectors (the normal suite of `mmaref gen`, tiled),
   one thread and all threads, beside the C library's own single-core rate
   (`mmaref bench`, CPU time: the machine may be shared);
2. matmul 1024 x 1024 x 1024 through hopper:wgmma.m64n8k32.f32.e4m3.e4m3.

Per-core rates are thread CPU time (one thread) or process CPU time over
the thread count, so that other jobs on the machine do not count.
usage: python bench.py [path/to/mmaref]"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import mmaref

M = sys.argv[1] if len(sys.argv) > 1 else "build/mmaref"
N = 1_000_000
UNITS = ["hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "hopper:wgmma.m64n8k16.f32.bf16.bf16"]


def c_rate(unit):
    """the C library's dot products per second on one core (CPU time), the
    best of three runs"""
    rates = []
    for _ in range(3):
        out = subprocess.run([M, "bench", unit, "--threads", "1", "--seconds", "1"], capture_output=True, text=True,
                             check=True).stdout.splitlines()
        rates.append(float(out[-1].split()[3]))
    return max(rates)


def best(fn, reps=3):
    """the best of reps runs: (wall, process CPU, thread CPU) seconds"""
    r = []
    for _ in range(reps):
        w, p, t = time.perf_counter(), time.process_time(), time.thread_time()
        fn()
        r.append((time.perf_counter() - w, time.process_time() - p, time.thread_time() - t))
    return min(r, key=lambda x: x[1])


def main():
    threads = mmaref._core.default_threads()
    print(f"unit.dot over {N:,} vectors (normal suite, tiled); {threads} cores")
    print(f"{'unit':44} {'dtype':7} {'C 1 core':>12} {'Py 1 thread':>12} {'ratio':>6} "
          f"{'Py all/core':>12} {'ratio':>6} {'Py all wall':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in UNITS:
            p = os.path.join(tmp, "n.vec")
            subprocess.run([M, "gen", name, "--suite", "normal", "--count", "4096", "--seed", "1", "-o", p], check=True,
                           capture_output=True)
            vf = mmaref.read_vectors(p)
            u = vf.unit
            reps = N // len(vf)
            f = u.formats
            for dt in ("narrow", "uint64"):
                cast = (lambda x, fm: x.astype(fm.dtype)) if dt == "narrow" else (lambda x, fm: x)
                c = np.tile(cast(vf.c, f["c"]), reps)
                a = np.tile(cast(vf.a, f["a"]), (reps, 1))
                b = np.tile(cast(vf.b, f["b"]), (reps, 1))
                n = len(c)
                d1 = None

                def one():
                    nonlocal d1
                    d1 = u.dot(c, a, b, threads=1)
                w1, p1, t1 = best(one, 5)
                dall = None

                def alln():
                    nonlocal dall
                    dall = u.dot(c, a, b)
                wa, pa, ta = best(alln)
                assert np.array_equal(d1, dall) and np.array_equal(d1[:len(vf)], vf.d.astype(d1.dtype))
                cr = c_rate(name)
                r1, rall = n / t1, n / pa
                print(f"{name:44} {a.dtype.name:7} {cr / 1e6:10.1f} M {r1 / 1e6:10.1f} M {r1 / cr:6.0%} "
                      f"{rall / 1e6:10.1f} M {rall / cr:6.0%} {n / wa / 1e6:10.1f} M")
    print("(C 1 core: mmaref bench, 4096 vectors in cache, CPU time, best of 3; Py 1 thread: dot products per")
    print(" second of the calling thread's CPU time, best of 5; Py all/core: per second of the process's CPU time")
    print(" with all threads, i.e. per core; wall: all threads together, on a machine shared with other jobs)")
    print()
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((1024, 1024)) * 0.5, rng.standard_normal((1024, 1024)) * 0.5
    for mode in ("tc", "promote"):
        w, p, _ = best(lambda: mmaref.matmul(A, B, unit=UNITS[0], mode=mode), reps=1)
        print(f"matmul 1024 x 1024 x 1024, {UNITS[0]}, mode={mode}: {w:.2f} s wall, {p:.2f} s CPU "
              f"({1024 ** 2 * 32 / p / 1e6:.1f} M instruction calls per CPU second)")


if __name__ == "__main__":
    main()
