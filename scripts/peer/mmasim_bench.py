#!/usr/bin/env python3
"""Speed of the peer model: for each instruction, N random-bit vectors
through mmasim_fill (in process, so interpreter and torch start-up are not
counted).  Prints a TSV: instr, vectors, fill seconds (parse + mmasim +
write), dpa seconds (the mmasim call alone), vectors per second (fill),
a digest of all d values (to compare devices and torch versions), and
`status` (ok or the exception).

    mmasim_bench.py [-n 10000] [--repeat 3] [--match SUBSTR] [--list FILE] [--device cpu]

Times are the best of --repeat runs over the same file.
"""

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mmasim_fill as mf  # noqa: E402
import mmasim_gen as mg  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=10000)
    ap.add_argument("--match", default="")
    ap.add_argument("--list", default=os.path.join(HERE, "mmasim_instructions.txt"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    names = [ln.strip() for ln in open(a.list) if ln.strip() and a.match in ln]
    tmp = tempfile.mkdtemp(prefix="peer_bench_")
    torch = mf._import_torch()
    print(f"# mmasim {mf.mmasim_version()}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, device {a.device}, {a.n} vectors each, "
          f"best of {a.repeat}")
    print("instr\tvectors\tfill_s\tdpa_s\tvectors_per_s\td_sha256\tstatus", flush=True)
    t_all = time.perf_counter()
    for name in names:
        path = os.path.join(tmp, "b.vec")
        try:
            spec = mf.resolve(name)
            mg.write_file(path, spec, mg.random_lines(spec, a.n, a.seed))
            best = None
            for _ in range(max(a.repeat, 1)):
                filler = mf.Filler(a.device)
                filler._specs[name] = spec
                t0 = time.perf_counter()
                filler.process(path, None)
                dt = time.perf_counter() - t0
                if best is None or dt < best[0]:
                    best = (dt, filler.dpa_seconds)
            dt, dpa = best
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for ln in f:
                    if not ln.startswith(b"#"):
                        h.update(ln.split()[-1] + b"\n")
            print(f"{name}\t{a.n}\t{dt:.3f}\t{dpa:.3f}\t{a.n / dt:.0f}\t"
                  f"{h.hexdigest()[:16]}\tok", flush=True)
        except Exception as e:  # report and go on
            msg = "".join(traceback.format_exception_only(type(e), e)).strip().replace("\n", " | ")
            print(f"{name}\t{a.n}\t-\t-\t-\t-\tERROR {msg}", flush=True)
    print(f"# total {time.perf_counter() - t_all:.1f} s for {len(names)} instructions")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
