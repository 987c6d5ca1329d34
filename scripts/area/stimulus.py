"""The stimulus of the power figures: `mmaref gen <unit> --dist normal`,
the inputs `mmaref metrics --dist normal` draws (values of a normal
distribution quantized into the unit's formats, a realistic workload),
applied one vector a clock cycle with the input valid held high; d is the
model's result, which the gate-level simulation must reproduce.

Operand packing on the ports is mma_dpa's: element k of a at bits
[k*W +: W] (W = the port's width over the element count), the same for b
and for the block scales sa, sb; c and d whole."""
import os
import re

from proc import FlowError, run


class Stimulus:
    def __init__(self, path, port_widths):
        self.path = path
        fields, rows = None, []
        with open(path) as fh:
            for line in fh:
                if line.startswith("#"):
                    m = re.match(r"# fields: (.*)", line)
                    if m:
                        fields = m.group(1).split()
                    continue
                if line.strip():
                    rows.append(line.split())
        if not fields or not rows:
            raise FlowError("%s: no vectors" % path)
        cols, at = {}, 0
        for f in fields:           # "c", "a[0..31]", "sa[0..0]", "d"
            m = re.match(r"(\w+)(?:\[0\.\.(\d+)\])?$", f)
            if not m:
                raise FlowError("%s: field %s not understood" % (path, f))
            n = int(m.group(2)) + 1 if m.group(2) else 1
            cols[m.group(1)] = (at, n)
            at += n
        self.ncycles = len(rows)
        self.latency = 0
        self.ports = {}
        for port, width in port_widths.items():
            if port in ("a", "b", "c", "sa", "sb"):
                if port not in cols:
                    raise FlowError("%s: the unit's port %s has no field in the vectors" % (path, port))
                at, n = cols[port]
                if width % n:
                    raise FlowError("port %s: %d bits do not hold %d elements" % (port, width, n))
                slot = width // n
                words = []
                for r in rows:
                    w = 0
                    for k in range(n):
                        w |= (int(r[at + k], 16) & ((1 << slot) - 1)) << (k * slot)
                    words.append(w)
                self.ports[port] = columns(words, width)
            elif port in ("in_valid", "rst_n"):
                self.ports[port] = [(1 << self.ncycles) - 1]
        if "d" not in cols:
            raise FlowError("%s: no d field (the model's results)" % path)
        self.d = [int(r[cols["d"][0]], 16) for r in rows]

    def check(self, outs):
        """Compares the simulated d with the model's; sets the latency from
        out_valid's first high cycle.  Returns '' or what differs."""
        if "out_valid" in outs:
            v = outs["out_valid"][0]
            if not v:
                return "out_valid never rises"
            self.latency = (v & -v).bit_length() - 1
        d = outs.get("d")
        if d is None:
            return "no output port d"
        lat, n = self.latency, self.ncycles
        want = columns([0] * lat + self.d[:n - lat], len(d))
        mask = ((1 << (n - lat)) - 1) << lat
        for j, (g, w) in enumerate(zip(d, want)):
            diff = (g ^ w) & mask
            if diff:
                i = (diff & -diff).bit_length() - 1 - lat
                return "d bit %d differs from the model on vector %d of %s (latency %d)" % (j, i, self.path, lat)
        return ""


def columns(words, width):
    """Transposes words (one a cycle) into one integer a bit: bit i of
    column j is bit j of words[i]."""
    strs = [format(w, "0%db" % width)[::-1] for w in reversed(words)]
    return [int("".join(col), 2) for col in zip(*strs)]


def make(mmaref, config, d, count, seed, dist="normal"):
    path = os.path.join(d, "stim_%s_%d_%d.vec" % (dist, count, seed))
    if os.path.exists(path):
        return path
    r = run([mmaref, "gen", config, "--dist", dist, "--count", str(count), "--seed", str(seed), "--threads", "1",
             "-o", path])
    if r.returncode != 0:
        raise FlowError("mmaref gen --dist %s: %s" % (dist, r.out.strip().splitlines()[-1] if r.out.strip() else
                                                      "exit %d" % r.returncode))
    return path
