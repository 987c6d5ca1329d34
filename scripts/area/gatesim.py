"""Zero-delay simulation of a mapped netlist (Yosys write_json) on a vector
stimulus, for the switching activity of the power figures.

Each net is a Python integer used as a bit vector: bit i is the net's value
in clock cycle i, so one pass over the cells in topological order simulates
every cycle at once (a gate's function, taken from the Liberty file, is
evaluated on whole integers).  A flip-flop's output is its input one cycle
later (Q = D << 1), so pipelines need no event loop; a register loop
(feedback) is refused.  The toggle rate of a net is the number of cycles
whose value differs from the cycle before, over the cycles compared.  Like
any cycle-based simulation (Verilator's included) it counts functional
transitions only: no glitches.

The simulation also computes the unit's outputs, which sta.py compares with
the model's d on every vector: a netlist that does not compute the model's
results is reported, not costed."""
import json

from liberty import parse_function, to_python, variables
from proc import FlowError


def popcount(x):
    return bin(x).count("1")


class CellModel:
    """A library cell as Python functions of its input pins' bit vectors."""

    def __init__(self, name, ent):
        self.name, self.kind = name, ent["kind"]
        self.inputs = ent["inputs"]
        self.outputs = {}
        if self.kind == "comb":
            for pin, fn in ent["outputs"].items():
                self.outputs[pin] = self.compile(fn)
        elif self.kind == "ff":
            s = ent["seq"]
            iq, iqn = s["vars"][0], s["vars"][1]
            self.next_state = self.compile(s["next_state"])
            self.clear = self.compile(s["clear"]) if s.get("clear") else None
            self.preset = self.compile(s["preset"]) if s.get("preset") else None
            for pin, fn in ent["outputs"].items():
                f = fn.replace(" ", "").strip("()")
                if f == iq:
                    self.outputs[pin] = "Q"
                elif f in (iqn, "!" + iq, iq + "'"):
                    self.outputs[pin] = "QN"
                else:
                    raise FlowError("gate simulation: %s: output %s = %s is not the flip-flop's state" % (name, pin, fn))
        else:
            raise FlowError("gate simulation: cell %s (%s) cannot be simulated" % (name, self.kind or "no function"))

    def compile(self, text):
        try:
            node = parse_function(text)
        except ValueError as e:
            raise FlowError("gate simulation: %s: %s" % (self.name, e))
        vs = sorted(variables(node))
        bad = [v for v in vs if v not in self.inputs]
        if bad:
            raise FlowError("gate simulation: %s: function '%s' names %s, not an input" % (self.name, text, bad[0]))
        body = to_python(node, lambda v: "p[%r]" % v)
        return eval("lambda p, M: " + body)     # the library's function, on integers


def load_netlist(path):
    with open(path) as fh:
        j = json.load(fh)
    mods = j["modules"]
    if len(mods) != 1:
        raise FlowError("gate simulation: %s holds %d modules, not one" % (path, len(mods)))
    return next(iter(mods.items()))


def simulate(net_json, cells_lib, stim, ncycles, skip, nets=None):
    """stim: {port name: [bit vector per port bit]} for the input ports
    (ports not given are held at 0).  Returns (per-instance toggle rate
    over cycles skip..ncycles-1, {output port: [bit vector per bit]}); with
    a dict nets, fills it with every net's bit vector (tests)."""
    top, mod = load_netlist(net_json)
    M = (1 << ncycles) - 1
    val = {"0": 0, "1": M, "x": 0, "z": 0}
    for pname, p in mod["ports"].items():
        if p["direction"] == "input":
            vec = stim.get(pname)
            for i, b in enumerate(p["bits"]):
                if isinstance(b, int):
                    val[b] = vec[i] if vec is not None else 0
    models = {}
    driver = {}                 # net -> cell name
    cells = mod["cells"]
    for cname, c in cells.items():
        t = c["type"]
        if t not in models:
            if t not in cells_lib:
                raise FlowError("gate simulation: cell type %s of %s is not in the library" % (t, cname))
            models[t] = CellModel(t, cells_lib[t])
        m = models[t]
        for pin in m.outputs:
            for b in c["connections"].get(pin, []):
                if isinstance(b, int):
                    driver[b] = cname
    # topological order (Kahn): a cell waits for the nets it reads
    waits, readers = {}, {}
    for cname, c in cells.items():
        m = models[c["type"]]
        need = set()
        for pin in m.inputs:
            for b in c["connections"].get(pin, []):
                if isinstance(b, int) and b in driver:
                    need.add(b)
        waits[cname] = len(need)
        for b in need:
            readers.setdefault(b, []).append(cname)
    ready = [c for c, n in waits.items() if n == 0]
    done = 0
    shift_mask = M & ~1
    while ready:
        cname = ready.pop()
        c = cells[cname]
        m = models[c["type"]]
        conn = c["connections"]
        p = {}
        for pin in m.inputs:
            bits = conn.get(pin)
            if not bits:
                raise FlowError("gate simulation: %s (%s): input %s unconnected" % (cname, c["type"], pin))
            b = bits[0]
            if b not in val:
                raise FlowError("gate simulation: %s (%s): input %s reads a net nothing drives" % (cname, c["type"], pin))
            p[pin] = val[b]
        outs = {}
        if m.kind == "comb":
            for pin, f in m.outputs.items():
                outs[pin] = f(p, M) & M
        else:
            q = (m.next_state(p, M) << 1) & shift_mask      # cycle 0: the reset state 0
            if m.clear:
                q &= ~m.clear(p, M) & M
            if m.preset:
                q |= m.preset(p, M) & M
            for pin, which in m.outputs.items():
                outs[pin] = q if which == "Q" else (q ^ M)
        for pin, v in outs.items():
            for b in conn.get(pin, []):
                if isinstance(b, int):
                    val[b] = v
                    for r in readers.get(b, ()):
                        waits[r] -= 1
                        if waits[r] == 0:
                            ready.append(r)
        done += 1
    if done != len(cells):
        stuck = [c for c, n in waits.items() if n > 0][:3]
        raise FlowError("gate simulation: a combinational or register loop through %s: not a pipeline" % ", ".join(stuck))
    # toggles over cycles skip..ncycles-1 (transitions between neighbours)
    span = ncycles - 1 - skip
    if span < 1:
        raise FlowError("gate simulation: %d cycles leave nothing to compare after %d of latency" % (ncycles, skip))
    tmask = ((1 << span) - 1) << skip

    def rate(v):
        return popcount((v ^ (v >> 1)) & tmask) / span

    if nets is not None:
        nets.update(val)
    act = {}
    for cname, c in cells.items():
        m = models[c["type"]]
        rs = [rate(val[b]) for pin in m.outputs for b in c["connections"].get(pin, []) if isinstance(b, int)]
        act[cname] = sum(rs) / len(rs) if rs else 0.0
    outs = {}
    for pname, p in mod["ports"].items():
        if p["direction"] == "output":
            outs[pname] = [val.get(b, 0) if isinstance(b, int) else val[b] for b in p["bits"]]
    return act, outs
