#!/usr/bin/env python3
"""mmaref against the peer model mmasim, on the same vector files, in the
same run (make bench-peer; needs PyTorch and mmasim 2.1.1, docs/peer.md).

For each instruction of the list:
  1. `mmaref gen NAME --suite random` writes N vectors of random bits (every
     field, as mmasim_gen.py makes them);
  2. mmasim fills d of that file (scripts/peer/mmasim_fill.py, in process):
     torch on one CPU thread, on all CPU threads, and on the GPU when there
     is one; the time of the dpa() calls alone and of the whole fill;
  3. `mmaref check` compares mmasim's d with the model's, vector by vector
     (a NaN matches any NaN only where the unit leaves the payload open);
  4. `mmaref bench --file` times mma_dot on the same vectors, one thread and
     all threads (wall clock: the device is not shared), and `mmaref run`
     the whole fill (parse, model, write).
Writes a TSV (--tsv) and, with --doc, the table between the markers
'<!-- bench-peer:begin -->' and '<!-- bench-peer:end -->' of that file.

With a GPU (and mmaref's Python package built with its CUDA backend), the
GPU rows, same GPU, same run, same vectors (measure_gpu): --gpu-n random-bit
vectors made on the GPU; mmaref's CUDA backend (Unit.dot on the CUDA
tensors, the kernel's time with the launch, the result awaited) against
mmasim's dpa() on the same tensors at batch sizes 2^16 to --gpu-n, its best
rate kept; the d of both compared bit for bit over mmasim's largest batch.
Written to --gpu-tsv and between '<!-- bench-peer-gpu:begin -->' and
'<!-- bench-peer-gpu:end -->' of --doc.

    bench_peer.py --mmaref BIN [-n N] [--list FILE] [--dir DIR] [--tsv OUT.tsv] [--doc FILE]
                  [--gpu-n N] [--gpu-tsv OUT.tsv] [--gpu-only | --no-gpu]
    bench_peer.py --table IN.tsv --doc FILE      (only the table, from a TSV)
    bench_peer.py --gpu-table IN.tsv --doc FILE  (only the GPU table)
"""

import argparse
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

COLS = ["instr", "algorithm", "vectors", "mmaref_1", "mmaref_all", "threads", "mmasim_1", "mmasim_all",
        "mmasim_gpu", "ratio_1", "ratio_all", "ratio_gpu", "mismatches", "nan_any", "mmaref_run_1",
        "mmaref_run_all", "mmasim_fill_1", "mmasim_fill_all"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def bench_rate(mmaref, path, threads):
    """mma_dot rate over the file's vectors: (one thread, wall clock; all
    threads; the algorithm)"""
    out = sh([mmaref, "bench", "--file", path, "--threads", str(threads), "--seconds", "0.5"])
    row = out.strip().splitlines()[-1].split()
    return float(row[4]), float(row[5]), row[1]


def run_rate(mmaref, path, n, threads, tmp):
    t0 = time.perf_counter()
    sh([mmaref, "run", path, "-o", tmp, "--threads", str(threads)])
    return n / (time.perf_counter() - t0)


def mmasim_pass(mf, torch, path, out, device, threads):
    if device == "cpu":
        torch.set_num_threads(threads)
    filler = mf.Filler(device)
    t0 = time.perf_counter()
    filler.process(path, out)
    return filler.dpa_seconds, time.perf_counter() - t0


def measure(a):
    import mmasim_fill as mf
    torch = mf._import_torch()
    ncpu = os.cpu_count() or 1
    gpu = torch.cuda.is_available() and not a.no_gpu
    os.makedirs(a.dir, exist_ok=True)
    names = [ln.split("#")[0].strip() for ln in open(a.list)]   # (a '#' line is a comment)
    names = [n for n in names if n]
    info = (f"# mmasim {mf.mmasim_version()}, torch {torch.__version__}, {ncpu} CPU threads, "
            f"{platform.processor() or platform.machine()}, GPU "
            f"{torch.cuda.get_device_name(0) if gpu else 'none'}, {a.n} random-bit vectors each")
    print(info, flush=True)
    rows = []
    # warm-up: mmasim builds its extension and torch its kernels once
    w = os.path.join(a.dir, "warmup.vec")
    sh([a.mmaref, "gen", names[0], "--suite", "random", "--count", "1000", "--seed", "2", "-o", w])
    mmasim_pass(mf, torch, w, w + ".out", "cpu", 1)
    if gpu:
        mmasim_pass(mf, torch, w, w + ".out", "cuda", 1)
    for name in names:
        base = os.path.join(a.dir, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        path = base + ".vec"
        r = {"instr": name, "vectors": a.n, "threads": ncpu}
        try:
            mf.resolve(name)
        except mf.BadInput:
            r["mismatches"] = "not in mmasim"
            rows.append(r)
            print("\t".join(fmt(r.get(c, "-")) for c in COLS), flush=True)
            continue
        try:
            sh([a.mmaref, "gen", name, "--suite", "random", "--count", str(a.n), "--seed", "1", "-o", path])
            d1, f1 = mmasim_pass(mf, torch, path, base + ".mmasim.vec", "cpu", 1)
            dn, fn = mmasim_pass(mf, torch, path, base + ".mmasim_all.vec", "cpu", ncpu)
            r["mmasim_1"], r["mmasim_all"] = a.n / d1, a.n / dn
            r["mmasim_fill_1"], r["mmasim_fill_all"] = a.n / f1, a.n / fn
            if gpu:
                dg, _ = mmasim_pass(mf, torch, path, base + ".mmasim_gpu.vec", "cuda", 1)
                r["mmasim_gpu"] = a.n / dg
            chk = subprocess.run([a.mmaref, "check", base + ".mmasim.vec", "--show", "0"],
                                 capture_output=True, text=True).stdout.strip().splitlines()
            m = re.match(r"(\d+) vectors, (\d+) mismatches", chk[-1] if chk else "")
            r["mismatches"] = int(m.group(2)) if m else "error"
            desc = sh([a.mmaref, "describe", name])
            r["nan_any"] = "yes" if "any NaN matches any NaN" in desc else "no"
            one, alln, alg = bench_rate(a.mmaref, path, ncpu)
            r["algorithm"], r["mmaref_1"], r["mmaref_all"] = alg, one, alln
            r["mmaref_run_1"] = run_rate(a.mmaref, path, a.n, 1, base + ".run.vec")
            r["mmaref_run_all"] = run_rate(a.mmaref, path, a.n, ncpu, base + ".run.vec")
            r["ratio_1"] = r["mmaref_1"] / r["mmasim_1"]
            r["ratio_all"] = r["mmaref_all"] / max(r["mmasim_1"], r["mmasim_all"])
            if gpu:
                r["ratio_gpu"] = r["mmaref_all"] / r["mmasim_gpu"]
        except Exception as e:  # report and go on
            r["mismatches"] = "error: " + str(e).replace("\t", " ").replace("\n", " ")[:200]
        rows.append(r)
        print("\t".join(fmt(r.get(c, "-")) for c in COLS), flush=True)
        for suffix in (".vec", ".mmasim_all.vec", ".mmasim_gpu.vec", ".run.vec"):
            if os.path.exists(base + suffix):
                os.unlink(base + suffix)
    with open(a.tsv, "w") as f:
        f.write(info + "\n" + "\t".join(COLS) + "\n")
        for r in rows:
            f.write("\t".join(fmt(r.get(c, "-")) for c in COLS) + "\n")


# ---- the GPU rows -------------------------------------------------------------------

GPU_COLS = ["instr", "algorithm", "vectors", "mmaref_gpu", "kernel", "mmasim_gpu", "mmasim_batch", "ratio",
            "compared", "mismatches"]


def _gpu_raw(torch, fmt, shape, gen):
    """random bits of a field of fmt (every code of its hex digits, as
    mmasim_gen.py and `mmaref gen --suite random` draw), int64 on the GPU"""
    import mmasim_fill as mf
    bits = 4 * mf.DIGITS[fmt]
    hi = mf.CODE_LIMIT.get(fmt, (1 << bits) - 1) if bits < 64 else None
    if hi is None:                       # 64 bits: two 32-bit halves
        lo = torch.randint(0, 1 << 32, shape, device="cuda", dtype=torch.int64, generator=gen)
        up = torch.randint(0, 1 << 32, shape, device="cuda", dtype=torch.int64, generator=gen)
        return (up << 32) | lo
    return torch.randint(0, hi + 1, shape, device="cuda", dtype=torch.int64, generator=gen)


def _gpu_enc(torch, raw, width):
    """the same bits as unsigned encodings at their natural width"""
    if width <= 8:
        return raw.to(torch.uint8)
    if width <= 16:
        return raw.to(torch.int16).view(torch.uint16)      # (the cast keeps the low bits)
    if width <= 32:
        return raw.to(torch.int32).view(torch.uint32)
    return raw.view(torch.uint64)


def _gpu_bits(torch, d):
    """a result tensor as signed integers of its width (bits compared)"""
    return d.view({1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[d.element_size()])


def measure_gpu(a, names, log):
    import mmasim_fill as mf
    import mmaref
    torch = mf._import_torch()
    dev = mmaref.cuda_device()
    if dev is None:
        sys.exit("bench_peer: --gpu: mmaref's Python package has no CUDA backend here (pip install . with nvcc)")
    info = (f"# mmasim {mf.mmasim_version()}, torch {torch.__version__}, GPU {torch.cuda.get_device_name(0)}; "
            f"mmaref's CUDA backend on {dev}; {a.gpu_n} random-bit vectors each")
    log(info)
    rows = []
    sizes = [1 << s for s in range(18, 40, 2) if (1 << s) <= a.gpu_n]
    if not sizes or sizes[-1] != a.gpu_n:
        sizes.append(a.gpu_n)
    for name in names:
        r = {"instr": name, "vectors": a.gpu_n}
        try:
            spec = mf.resolve(name)
        except mf.BadInput:
            r["mismatches"] = "not in mmasim"
            rows.append(r)
            log("\t".join(fmt(r.get(c, "-")) for c in GPU_COLS))
            continue
        try:
            u = mmaref.Unit(name)
            r["algorithm"] = u.algorithm
            fm = u.formats
            gen = torch.Generator(device="cuda")
            gen.manual_seed(1)
            n = a.gpu_n
            raw = {"c": _gpu_raw(torch, spec.c_fmt, (n,), gen), "a": _gpu_raw(torch, spec.a_fmt, (n, spec.k), gen),
                   "b": _gpu_raw(torch, spec.b_fmt, (n, spec.k), gen)}
            if spec.block_scaled:
                raw["sa"] = _gpu_raw(torch, spec.s_fmt, (n, spec.s_count), gen)
                raw["sb"] = _gpu_raw(torch, spec.s_fmt, (n, spec.s_count), gen)
            enc = {k: _gpu_enc(torch, v, fm["scale" if k in ("sa", "sb") else k].width) for k, v in raw.items()}
            args = [enc["c"], enc["a"], enc["b"]] + ([enc["sa"], enc["sb"]] if spec.block_scaled else [])
            d = u.dot(*args)                             # (the first call: module load, the kernel's setup)
            torch.cuda.synchronize()
            reps, t = 0, 0.0
            while t < 0.5 and reps < 1000:
                t0 = time.perf_counter()
                d = u.dot(*args)
                torch.cuda.synchronize()
                t += time.perf_counter() - t0
                reps += 1
            r["mmaref_gpu"] = n * reps / t
            r["kernel"] = "specialized" if "specialized" in mmaref_kernel(a.mmaref, name) else "reference"
            best, db, bsz = None, None, 0
            for bs in sizes:
                try:
                    c = mf._to_tensor(raw["c"][:bs], spec.c_fmt)
                    ta = mf._to_tensor(raw["a"][:bs], spec.a_fmt, spec.packed_fp4)
                    tb = mf._to_tensor(raw["b"][:bs], spec.b_fmt, spec.packed_fp4)
                    extra = ([mf._to_tensor(raw["sa"][:bs], spec.s_fmt), mf._to_tensor(raw["sb"][:bs], spec.s_fmt)]
                             if spec.block_scaled else [])
                    times = []
                    for _ in range(2):
                        torch.cuda.synchronize()
                        t0 = time.perf_counter()
                        with torch.no_grad():
                            out = spec.op.dpa(ta, tb, c, *extra)
                        torch.cuda.synchronize()
                        times.append(time.perf_counter() - t0)
                except torch.cuda.OutOfMemoryError:
                    torch.cuda.empty_cache()
                    break
                rate = bs / min(times)
                if best is None or rate > best:
                    best = rate
                db, bsz = out, bs
                if min(times) > 1.5:
                    break
            r["mmasim_gpu"], r["mmasim_batch"] = best, bsz
            r["ratio"] = r["mmaref_gpu"] / best
            ours = _gpu_bits(torch, d[:bsz])
            theirs = _gpu_bits(torch, db.reshape(-1).contiguous())
            diff = ours != theirs
            if "any NaN matches any NaN" in sh([a.mmaref, "describe", name]):
                fl = d[:bsz].view(torch.float64 if d.element_size() == 8 else
                                  torch.float32 if d.element_size() == 4 else torch.float16)
                diff &= ~(torch.isnan(fl) & torch.isnan(db.reshape(-1).to(fl.dtype)))
            r["compared"], r["mismatches"] = bsz, int(diff.sum())
            del raw, enc, args, d, db
            torch.cuda.empty_cache()
        except Exception as e:  # report and go on
            r["mismatches"] = "error: " + str(e).replace("\t", " ").replace("\n", " ")[:200]
        rows.append(r)
        log("\t".join(fmt(r.get(c, "-")) for c in GPU_COLS))
    with open(a.gpu_tsv, "w") as f:
        f.write(info + "\n" + "\t".join(GPU_COLS) + "\n")
        for r in rows:
            f.write("\t".join(fmt(r.get(c, "-")) for c in GPU_COLS) + "\n")


def mmaref_kernel(mmaref_bin, name):
    """which kernel computes the unit: the last column of a short `mmaref
    bench --device cuda` (mma_cuda_kernel_info)"""
    try:
        return sh([mmaref_bin, "bench", "--device", "cuda", "--count", "4096", "--seconds", "0.01", name])
    except Exception:
        return "?"


def gpu_table(tsv):
    lines = [ln.rstrip("\n") for ln in open(tsv)]
    info = [ln[2:] for ln in lines if ln.startswith("# ")]
    hdr = next(ln for ln in lines if ln.startswith("instr\t")).split("\t")
    rows = [dict(zip(hdr, ln.split("\t"))) for ln in lines if ln and not ln.startswith(("#", "instr\t"))]

    def rate(x):
        try:
            v = float(x)
        except ValueError:
            return x
        return f"{v / 1e9:.3g} G" if v >= 1e9 else f"{v / 1e6:.3g} M"

    out = [f"Measured by `make bench-peer` ({'; '.join(info)}); dot products per second on the same GPU, "
           "the same vectors, in the same run:",
           "",
           "| instruction | algorithm | mmaref CUDA | kernel | mmasim GPU (best batch) | batch | mmaref / mmasim | "
           "d differs (of) |",
           "|---|---|---:|---|---:|---:|---:|---|"]
    for r in rows:
        mis = r.get("mismatches", "-")
        out.append(f"| {r['instr']} | {r.get('algorithm', '-')} | {rate(r.get('mmaref_gpu', '-'))} | "
                   f"{r.get('kernel', '-')} | {rate(r.get('mmasim_gpu', '-'))} | {r.get('mmasim_batch', '-')} | "
                   f"{ratio(r.get('ratio', '-'))} | {mis} ({r.get('compared', '-')}) |")
    return "\n".join(out) + "\n"


def fmt(x):
    if isinstance(x, float):
        return f"{x:.4g}" if x < 1000 else f"{x:.0f}"
    return str(x)


def mega(x):
    try:
        v = float(x)
    except ValueError:
        return x
    return f"{v / 1e6:.2f} M" if v < 1e7 else f"{v / 1e6:.1f} M"


def ratio(x):
    try:
        return f"{float(x):.0f}x"
    except ValueError:
        return x


def table(tsv):
    lines = [ln.rstrip("\n") for ln in open(tsv)]
    info = [ln[2:] for ln in lines if ln.startswith("# ")]
    hdr = next(ln for ln in lines if ln.startswith("instr\t")).split("\t")
    rows = [dict(zip(hdr, ln.split("\t"))) for ln in lines if ln and not ln.startswith(("#", "instr\t"))]
    t = rows[0].get("threads", "?") if rows else "?"
    out = [f"Measured by `make bench-peer` ({'; '.join(info)}); dot products per second,",
           "the time of `mma_dot` and of mmasim's `dpa()` alone on the same vectors (random bits in every field):",
           "",
           f"| instruction | algorithm | mmaref 1 thread | mmasim 1 thread | ratio | mmaref {t} threads | "
           f"mmasim {t} threads | ratio to the peer's best CPU | mmasim GPU | ratio to the GPU | "
           "d differs |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mis = r.get("mismatches", "-")
        if r.get("nan_any") == "yes" and mis == "0":
            mis = "0 (NaN = NaN)"
        out.append(f"| {r['instr']} | {r.get('algorithm', '-')} | {mega(r.get('mmaref_1', '-'))} | "
                   f"{mega(r.get('mmasim_1', '-'))} | {ratio(r.get('ratio_1', '-'))} | "
                   f"{mega(r.get('mmaref_all', '-'))} | {mega(r.get('mmasim_all', '-'))} | "
                   f"{ratio(r.get('ratio_all', '-'))} | {mega(r.get('mmasim_gpu', '-'))} | "
                   f"{ratio(r.get('ratio_gpu', '-'))} | {mis} |")
    out += ["", "End to end (vectors per second: parse, compute and write a file; mmasim_fill.py against "
            "`mmaref run`):", "",
            f"| instruction | mmaref run, 1 thread | mmasim fill, 1 thread | mmaref run, {t} threads | "
            f"mmasim fill, {t} threads |", "|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['instr']} | {mega(r.get('mmaref_run_1', '-'))} | {mega(r.get('mmasim_fill_1', '-'))} | "
                   f"{mega(r.get('mmaref_run_all', '-'))} | {mega(r.get('mmasim_fill_all', '-'))} |")
    return "\n".join(out) + "\n"


def put_table(doc, text, tag="bench-peer"):
    s = open(doc).read()
    b, e = f"<!-- {tag}:begin -->\n", f"<!-- {tag}:end -->"
    if b not in s or e not in s:
        sys.exit(f"bench_peer: {doc} has no '{b.strip()}' ... '{e}' markers")
    head, rest = s.split(b, 1)
    _, tail = rest.split(e, 1)
    with open(doc, "w") as f:
        f.write(head + b + text + e + tail)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmaref", default=os.path.join(HERE, "..", "..", "build", "mmaref"))
    ap.add_argument("-n", type=int, default=100000)
    ap.add_argument("--list", default=os.path.join(HERE, "..", "bench_instructions.txt"))
    ap.add_argument("--dir", default="build/bench-peer")
    ap.add_argument("--tsv", default="docs/data/bench_peer.tsv")
    ap.add_argument("--doc")
    ap.add_argument("--table", help="only render the table of this TSV into --doc")
    ap.add_argument("--no-gpu", action="store_true")
    ap.add_argument("--gpu-only", action="store_true", help="only the GPU rows")
    ap.add_argument("--gpu-n", type=int, default=1 << 22)
    ap.add_argument("--gpu-tsv", default="docs/data/bench_peer_gpu.tsv")
    ap.add_argument("--gpu-table", help="only render the GPU table of this TSV into --doc")
    a = ap.parse_args()
    if a.table or a.gpu_table:
        text = table(a.table) if a.table else gpu_table(a.gpu_table)
        if a.doc:
            put_table(a.doc, text, "bench-peer" if a.table else "bench-peer-gpu")
        else:
            sys.stdout.write(text)
        return 0
    if not a.gpu_only:
        measure(a)
        if a.doc:
            put_table(a.doc, table(a.tsv))
    if not a.no_gpu:
        import mmasim_fill as mf
        if mf._import_torch().cuda.is_available():
            names = [ln.split("#")[0].strip() for ln in open(a.list)]
            measure_gpu(a, [n for n in names if n], lambda s: print(s, flush=True))
            if a.doc:
                put_table(a.doc, gpu_table(a.gpu_tsv), "bench-peer-gpu")
        elif a.gpu_only:
            sys.exit("bench_peer: --gpu-only: no CUDA device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
