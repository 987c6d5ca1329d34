"""A standard-cell library for the area flow: the Liberty file a user names
(LIBERTY=<file.lib[.gz]>), unpacked into the build folder, checked for the
cells the flow needs, and summarized (cells, areas, pin functions, flip-flops,
the input drive and output load convention) into a small JSON file that the
rest of the flow reads instead of the 10+ MB library.

The summary is keyed by the library's SHA-256, so a library is parsed once
however many points use it.  Only the Python standard library.
"""
import fnmatch
import gzip
import hashlib
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


class LibertyError(Exception):
    """A library the flow cannot use; the message names the file."""


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for blk in iter(lambda: fh.read(1 << 20), b""):
            h.update(blk)
    return h.hexdigest()


def write_atomic(path, data, mode="w"):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, mode) as fh:
        fh.write(data)
    os.replace(tmp, path)


def unpack(src, workdir):
    """The library as a plain file in workdir (Yosys and ABC want it
    uncompressed); returns its path."""
    if not os.path.isfile(src):
        raise LibertyError("%s: no such liberty file" % src)
    if not os.access(src, os.R_OK):
        raise LibertyError("%s: liberty file not readable" % src)
    os.makedirs(workdir, exist_ok=True)
    name = os.path.basename(src)
    if not name.endswith(".gz"):
        return os.path.abspath(src)
    dst = os.path.join(workdir, name[:-3])
    stamp = dst + ".src"
    sig = "%s %d %d" % (os.path.abspath(src), os.stat(src).st_size, int(os.stat(src).st_mtime))
    if os.path.exists(dst) and os.path.exists(stamp) and open(stamp).read() == sig:
        return dst
    try:
        with gzip.open(src, "rb") as fh:
            data = fh.read()
    except (OSError, EOFError) as e:
        raise LibertyError("%s: cannot decompress: %s" % (src, e))
    write_atomic(dst, data, "wb")
    write_atomic(stamp, sig)
    return dst


# ---- a line-oriented Liberty reader -----------------------------------------
# Liberty files written by characterization tools put one attribute or group
# header a line; tables continue over lines ending in a backslash.  That is
# all this reader relies on: it keeps the attributes the flow uses.
GROUP = re.compile(r'^\s*([A-Za-z_][\w.]*)\s*\(\s*"?([^")]*)"?\s*(?:,\s*"?([^")]*)"?\s*)?\)\s*\{\s*$')
ATTR = re.compile(r'^\s*([A-Za-z_][\w.]*)\s*:\s*"?(.*?)"?\s*;\s*$')


def parse(path):
    lib = {"name": "", "attrs": {}, "cells": {}, "wire_loads": []}
    stack = []          # (group type, name)
    cell = pin = None
    cont = ""
    with open(path, errors="replace") as fh:
        text = fh.read()
    # one statement a line, also where a hand-written file puts a group on one
    # line (tables continue over backslash-newlines: joined below)
    text = re.sub(r"\s*([{;])[ \t]*(?!\n)", r"\1\n", text)
    text = re.sub(r"([^\s])[ \t]*\}", r"\1\n}", text)
    if True:
        for lineno, raw in enumerate(text.split("\n"), 1):
            line = cont + raw
            if line.endswith("\\"):
                cont = line[:-1]
                continue
            cont = ""
            s = line.strip()
            if not s or s.startswith("/*") or s.startswith("*") or s.startswith("//"):
                continue
            m = GROUP.match(line)
            if m:
                gtype, gname = m.group(1), m.group(2)
                stack.append((gtype, gname))
                depth = len(stack)
                if gtype == "library" and depth == 1:
                    lib["name"] = gname
                elif gtype == "cell" and depth == 2:
                    cell = lib["cells"].setdefault(gname, {"area": 0.0, "pins": {}, "dont_use": False})
                elif gtype == "pin" and depth == 3 and cell is not None:
                    pin = cell["pins"].setdefault(gname, {})
                elif gtype in ("ff", "latch") and depth == 3 and cell is not None:
                    cell[gtype] = {"vars": [gname, m.group(3) or ""]}
                elif gtype == "wire_load" and depth == 2:
                    lib["wire_loads"].append(gname)
                elif gtype == "bus" and depth == 3 and cell is not None:
                    cell["bus"] = True
                continue
            if s.startswith("}"):
                n = s.count("}")
                for _ in range(n):
                    if not stack:
                        raise LibertyError("%s:%d: '}' closes no group" % (path, lineno))
                    gtype, _ = stack.pop()
                    if gtype == "cell":
                        cell = None
                    elif gtype == "pin":
                        pin = None
                continue
            m = ATTR.match(line)
            if not m:
                continue
            key, val = m.group(1), m.group(2)
            depth = len(stack)
            if depth == 1:
                lib["attrs"][key] = val
            elif cell is not None and depth == 2:
                if key == "area":
                    cell["area"] = float(val)
                elif key == "dont_use":
                    cell["dont_use"] = val.lower() == "true"
            elif cell is not None and depth == 3 and stack[-1][0] in ("ff", "latch"):
                cell[stack[-1][0]][key] = val
            elif pin is not None and depth == 3 and key in ("direction", "function", "capacitance",
                                                            "three_state", "clock"):
                pin[key] = val
    if stack:
        raise LibertyError("%s: unclosed group %s(%s) at the end of the file" % (path, stack[-1][0], stack[-1][1]))
    m = re.search(r'capacitive_load_unit\s*\(\s*([\d.eE+-]+)\s*,\s*"?(\w+)"?\s*\)', text)
    lib["cap_unit_ff"] = float(m.group(1)) * {"pf": 1000.0, "ff": 1.0}.get(m.group(2).lower(), 0.0) if m else 0.0
    if not lib["name"]:
        raise LibertyError("%s: not a Liberty file (no library group)" % path)
    return lib


# ---- boolean functions ---------------------------------------------------------
# Liberty: ! and ' (postfix) negate, & * and juxtaposition are AND, | + are OR,
# ^ XOR, 0/1 constants.  parse_function gives a small tree; to_python writes
# it as an expression over Python integers used as bit vectors (the gate
# simulator), with ~x written as (M ^ x).
TOKEN = re.compile(r"\s*(?:([A-Za-z_][\w\[\]\.]*)|(.))")


def parse_function(text):
    toks = [t for t in TOKEN.findall(text) if t != ("", "")]
    toks = [a or b for a, b in toks if (a or b).strip()]
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take():
        pos[0] += 1
        return toks[pos[0] - 1]

    def atom():
        t = peek()
        if t is None:
            raise ValueError("function '%s' ends early" % text)
        if t == "!":
            take()
            return ("not", atom())
        if t == "(":
            take()
            e = expr_or()
            if take() != ")":
                raise ValueError("function '%s': ')' missing" % text)
            node = e
        elif t in ("0", "1"):
            take()
            node = ("const", int(t))
        elif re.match(r"[A-Za-z_]", t):
            node = ("var", take())
        else:
            raise ValueError("function '%s': unexpected '%s'" % (text, t))
        while peek() == "'":
            take()
            node = ("not", node)
        return node

    def expr_and():
        node = atom()
        while True:
            t = peek()
            if t in ("&", "*"):
                take()
                node = ("and", node, atom())
            elif t is not None and (t in ("!", "(", "0", "1") or re.match(r"[A-Za-z_]", t)):
                node = ("and", node, atom())        # juxtaposition
            else:
                return node

    def expr_xor():
        node = expr_and()
        while peek() == "^":
            take()
            node = ("xor", node, expr_and())
        return node

    def expr_or():
        node = expr_xor()
        while peek() in ("|", "+"):
            take()
            node = ("or", node, expr_xor())
        return node

    e = expr_or()
    if peek() is not None:
        raise ValueError("function '%s': unexpected '%s'" % (text, peek()))
    return e


def variables(node, out=None):
    out = set() if out is None else out
    if node[0] == "var":
        out.add(node[1])
    for n in node[1:]:
        if isinstance(n, tuple):
            variables(n, out)
    return out


def to_python(node, name=lambda v: v):
    k = node[0]
    if k == "var":
        return name(node[1])
    if k == "const":
        return "M" if node[1] else "0"
    if k == "not":
        return "(M ^ %s)" % to_python(node[1], name)
    op = {"and": "&", "or": "|", "xor": "^"}[k]
    return "(%s %s %s)" % (to_python(node[1], name), op, to_python(node[2], name))


# ---- the summary ------------------------------------------------------------------
def read_list(path):
    """The entries of a list file: one a line, '#' starts a comment."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line)
    return out


def dont_use_patterns():
    """scripts/area/dont_use.txt: cells no flow should pick (glob patterns)."""
    return read_list(os.path.join(HERE, "dont_use.txt"))


def cell_kind(c):
    """'comb' with outputs {pin: function}, 'ff', 'latch', or None (no logic)."""
    if "latch" in c:
        return "latch"
    if "ff" in c:
        return "ff"
    outs = {p: d.get("function") for p, d in c["pins"].items() if d.get("direction") == "output"}
    if outs and all(outs.values()) and not c.get("bus") and \
            not any(d.get("three_state") for d in c["pins"].values()):
        return "comb"
    return None


def summarize(lib, path, patterns):
    cells = {}
    for name, c in lib["cells"].items():
        kind = cell_kind(c)
        ent = {"area": c["area"], "kind": kind,
               "dont_use": c["dont_use"] or any(fnmatch.fnmatchcase(name, p) for p in patterns),
               "inputs": sorted(p for p, d in c["pins"].items() if d.get("direction") == "input"),
               "outputs": {p: d.get("function", "") for p, d in c["pins"].items()
                           if d.get("direction") == "output"},
               "cap": {p: float(d["capacitance"]) for p, d in c["pins"].items()
                       if d.get("direction") == "input" and "capacitance" in d}}
        if kind in ("ff", "latch"):
            ent["seq"] = c[kind]
        cells[name] = ent
    return cells


def pick_cells(cells, path):
    """The cells the flow names: the input driver (the smallest buffer), the
    output load (the D pin of the smallest plain D flip-flop), and checks
    that ABC and dfflibmap have what they need."""
    usable = {n: c for n, c in cells.items() if not c["dont_use"]}

    def one_input(c, fn):
        if c["kind"] != "comb" or len(c["inputs"]) != 1 or len(c["outputs"]) != 1:
            return False
        f = next(iter(c["outputs"].values())).replace(" ", "")
        a = c["inputs"][0]
        return f in [x % {"a": a} for x in fn]

    bufs = sorted((c["area"], n) for n, c in usable.items() if one_input(c, ["%(a)s", "(%(a)s)"]))
    invs = sorted((c["area"], n) for n, c in usable.items() if one_input(c, ["!%(a)s", "(!%(a)s)", "%(a)s'"]))
    if not invs:
        raise LibertyError("%s: no inverter (a usable one-input cell whose function is !A): ABC cannot map to "
                           "this library" % path)
    two = [n for n, c in usable.items() if c["kind"] == "comb" and len(c["inputs"]) == 2]
    if not two:
        raise LibertyError("%s: no two-input combinational cell: ABC cannot map to this library" % path)
    dffs = []
    for n, c in usable.items():
        if c["kind"] != "ff":
            continue
        s = c["seq"]
        if s.get("next_state", "").strip("() ") == "D" and not s.get("clear") and not s.get("preset") \
                and not s.get("clocked_on", "").startswith("!") and "D" in c["cap"]:
            dffs.append((c["area"], n))
    dffs.sort()
    out = {"inverter": invs[0][1], "buffer": bufs[0][1] if bufs else "",
           "dff": dffs[0][1] if dffs else ""}
    drv = out["buffer"] or out["inverter"]
    dc = cells[drv]
    out["drive_cell"], out["drive_pin"] = drv, next(iter(dc["outputs"]))
    if out["dff"]:
        out["load"] = cells[out["dff"]]["cap"]["D"]
        out["load_of"] = "%s/D" % out["dff"]
    else:
        ic = cells[invs[0][1]]["cap"]
        out["load"] = 4 * next(iter(ic.values()))
        out["load_of"] = "4 x %s input" % invs[0][1]
    return out


def prepare(src, workdir):
    """Unpack, parse (once per library: the summary is cached by hash) and
    write the copy that ABC and dfflibmap read, with the dont_use cells
    marked.  Returns the summary dict (paths included)."""
    path = unpack(src, workdir)
    sha = sha256_file(path)
    pats = dont_use_patterns()
    key = hashlib.sha256((sha + "\n" + "\n".join(pats) + "\n" + open(__file__).read()).encode()).hexdigest()[:16]
    summ_path = os.path.join(workdir, "liberty-%s.json" % key)
    if os.path.exists(summ_path):
        with open(summ_path) as fh:
            return json.load(fh)
    try:
        lib = parse(path)
    except UnicodeError as e:
        raise LibertyError("%s: not a text Liberty file (%s)" % (path, e))
    cells = summarize(lib, path, pats)
    if not any(c["kind"] == "comb" for c in cells.values()):
        raise LibertyError("%s: no combinational cell with a function: nothing to map to" % path)
    picks = pick_cells(cells, path)
    a = lib["attrs"]
    if not lib["cap_unit_ff"]:
        raise LibertyError("%s: no capacitive_load_unit (pf or ff): loads cannot be stated" % path)
    unit = {"time": a.get("time_unit", ""), "cap_ff": lib["cap_unit_ff"],
            "leakage": a.get("leakage_power_unit", ""), "voltage": a.get("nom_voltage", "")}
    # the copy for ABC and dfflibmap: dont_use marked (ABC skips such cells)
    marked = [n for n, c in cells.items() if c["dont_use"] and not lib["cells"][n]["dont_use"]]
    abc_lib = path
    if marked:
        abc_lib = os.path.join(workdir, "abc-%s.lib" % key)
        if not os.path.exists(abc_lib):
            want = set(marked)
            out = []
            with open(path, errors="replace") as fh:
                for line in fh:
                    out.append(line)
                    m = GROUP.match(line)
                    if m and m.group(1) == "cell" and m.group(2) in want:
                        out.append("        dont_use : true ;\n")
            write_atomic(abc_lib, "".join(out))
    summ = {"source": os.path.abspath(src), "path": path, "abc_lib": abc_lib, "sha256": sha, "key": key,
            "name": lib["name"], "units": unit,
            "default_wire_load": a.get("default_wire_load", "") if a.get("default_wire_load", "") in lib["wire_loads"] else "",
            "dont_use": sorted(marked + [n for n, c in lib["cells"].items() if c["dont_use"]]),
            "picks": picks, "cells": cells}
    write_atomic(summ_path, json.dumps(summ))
    return summ
