#!/usr/bin/env python3
"""Cut a filled peer vector file down to the part committed under vectors/peer.

    peer_subset.py SRC DST N [--exclude LIST] [--commit HASH]

Keeps the header and the first N vectors of SRC (a .vec filled by
mmasim_fill.py), less the vectors whose line numbers LIST names (one
"<line>\t<reason>" per line: vectors where the peer is wrong, see
docs/peer-comparison.md), and writes DST (.xz) through a temporary file.
`# count:` is rewritten, and `# subset:` and `# gen:` lines say what was
kept and how the inputs were generated.
"""
import argparse
import lzma
import os

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("n", type=int)
ap.add_argument("--exclude")
ap.add_argument("--commit", default="")
o = ap.parse_args()

excl = set()
if o.exclude and os.path.exists(o.exclude):
    with open(o.exclude) as f:
        excl = {int(l.split("\t", 1)[0]) for l in f if l.strip()}
hdr, data, dropped, seen = [], [], 0, 0
with open(o.src) as f:
    for i, l in enumerate(f, 1):
        if l.startswith("#"):
            hdr.append(l)
            continue
        seen += 1
        if seen > o.n:
            break
        if i in excl:
            dropped += 1
        else:
            data.append(l)
meta = {h[2:].split(":", 1)[0]: h.split(":", 1)[1].strip() for h in hdr if ":" in h}
out = []
for h in hdr:
    if h.startswith("# count:"):
        out.append("# count: %d\n" % len(data))
        out.append("# subset: the first %d of %s vectors%s\n" % (
            o.n, meta.get("count", "?"),
            ", less %d where mmasim is wrong (docs/peer-comparison.md, class C)" % dropped if dropped else ""))
    elif h.startswith("# source:"):
        out.append("# gen: mmaref gen %s --suite %s --count %s --seed %s%s\n" % (
            meta["instr"], meta["suite"], meta["count"], meta["seed"],
            " (mmaref at commit %s)" % o.commit if o.commit else ""))
        out.append(h)
    else:
        out.append(h)
tmp = o.dst + ".tmp%d" % os.getpid()
with lzma.open(tmp, "wt", preset=9 | lzma.PRESET_EXTREME) as f:
    f.writelines(out + data)
os.rename(tmp, o.dst)
