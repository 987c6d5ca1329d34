#!/usr/bin/env python3
"""Fill the `d` column of mmaref vector files with the peer model mmasim.

mmasim (PyPI `mmasim` 2.x, github peichenxie/MMA-Sim) is the Python reference
code of the paper "Bit-Accurate Modeling of GPU Matrix Multiply-Accumulate
Units".  This script only *calls* it: every vector of a file goes through one
`dpa()` call per chunk, operands built from the raw bit patterns by integer
views (never through host floats), the result read back through an integer
view.

    mmasim_fill.py FILE...              rewrite each FILE in place
    mmasim_fill.py IN -o OUT            write OUT instead (.xz/.gz by name)
    mmasim_fill.py --check FILE...      compare d with mmasim, write nothing
    mmasim_fill.py --list               every instruction mmasim supports,
                                        in mmaref's naming (wgmma, tcgen05: N=8)
    mmasim_fill.py --list-all           the same with every shape mmasim lists

Exit status: 0 success, 1 mismatches (--check) or internal failure,
2 bad input (message names file, line and field; nothing is written).
See docs/peer.md.
"""

from __future__ import annotations

import argparse
import gzip
import logging
import lzma
import os
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field

PYPI_NAME = "mmasim"
DEFAULT_CHUNK = 65536

# ---------------------------------------------------------------------------
# names

ARCHS = {
    "volta": "Volta",
    "turing": "Turing",
    "ampere": "Ampere",
    "ada": "Ada Lovelace",
    "hopper": "Hopper",
    "blackwell": "Blackwell",
    "rtx-blackwell": "RTX Blackwell",
    "cdna1": "CDNA1",
    "cdna2": "CDNA2",
    "cdna3": "CDNA3",
}
ARCH_OF_MMASIM = {v: k for k, v in ARCHS.items()}
NV_ARCHS = [a for a in ARCHS if not a.startswith("cdna")]

# Operand formats: name -> hex digits in a vector file.  The tensor each one
# becomes is decided in `_to_tensor`.
DIGITS = {
    "f64": 16,
    "f32": 8,
    "tf32": 8,
    "xf32": 8,
    "f16": 4,
    "bf16": 4,
    "e4m3": 2,
    "e5m2": 2,
    "fp8": 2,  # AMD e4m3fnuz
    "bf8": 2,  # AMD e5m2fnuz
    "e3m2": 2,  # 6-bit code, < 0x40
    "e2m3": 2,  # 6-bit code, < 0x40
    "e2m1": 1,  # 4-bit code
    "ue8m0": 2,
    "ue4m3": 2,
}
# largest code a field may hold where the format is narrower than its digits
CODE_LIMIT = {"e3m2": 0x3F, "e2m3": 0x3F}


class BadInput(Exception):
    """Malformed vector file or unknown instruction (exit status 2)."""


_torch = None


def _import_torch():
    """Import torch and mmasim quietly (mmasim builds a small C++ extension
    with g++/ninja on first import)."""
    global _torch
    if _torch is None:
        warnings.filterwarnings("ignore", message=".*NumPy.*")
        logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
        try:
            import torch
            import mmasim.nv_ptx  # noqa: F401
            import mmasim.amd  # noqa: F401
        except ImportError as e:
            sys.exit(
                f"mmasim_fill: cannot import the peer ({e}); "
                f"install it with: pip install {PYPI_NAME}==2.1.1 (see docs/peer.md)"
            )
        _torch = torch
    return _torch


def mmasim_version() -> str:
    from importlib.metadata import version

    return version(PYPI_NAME)


@dataclass
class Spec:
    """One instruction, as a dot-product-add the peer can run."""

    name: str  # mmaref name, <arch>:<qualifier>
    op: object  # the mmasim operation object
    k: int
    c_fmt: str
    a_fmt: str
    b_fmt: str
    d_fmt: str
    s_fmt: str | None = None  # block scale format (block-scaled only)
    s_count: int = 0  # scales per operand vector, K / block size
    packed_fp4: bool = False  # mmasim takes two fp4 codes per byte
    fields: list = field(default_factory=list)  # (label, fmt, count)

    @property
    def block_scaled(self) -> bool:
        return self.s_fmt is not None

    def field_line(self) -> str:
        parts = []
        for label, _fmt, n in self.fields:
            parts.append(label if n == 0 else f"{label}[0..{n - 1}]")
        return " ".join(parts)


def _fmt_of_dtype(dt) -> str:
    torch = _import_torch()
    return {
        torch.float64: "f64",
        torch.float32: "f32",
        torch.float16: "f16",
        torch.bfloat16: "bf16",
        torch.float8_e4m3fnuz: "fp8",
        torch.float8_e5m2fnuz: "bf8",
    }[dt]


def resolve(name: str) -> Spec:
    """Map `<arch>:<qualifier>` to an mmasim operation.  Raises BadInput."""
    _import_torch()
    from mmasim.nv_ptx import (
        MMA,
        MMABlockScale,
        WGMMA,
        TCGen05MMA,
        TCGen05MMABlockScale,
    )
    from mmasim.amd import MFMA

    arch, sep, qual = name.partition(":")
    if not sep or arch not in ARCHS:
        raise BadInput(
            f"unknown instruction '{name}': expected <arch>:<qualifier> with "
            f"arch in {' '.join(ARCHS)}"
        )
    march = ARCHS[arch]
    try:
        if arch.startswith("cdna"):
            if not qual.startswith("v_mfma_"):
                raise BadInput(f"unknown instruction '{name}': AMD names start with v_mfma_")
            suffix = qual[len("v_mfma_"):]
            op = MFMA(march, suffix)
            ab = _fmt_of_dtype(op.a_type)
            bb = _fmt_of_dtype(op.b_type)
            if suffix.endswith("xf32"):
                ab = bb = "xf32"
            spec = Spec(name, op, op.k, _fmt_of_dtype(op.c_type), ab, bb,
                        _fmt_of_dtype(op.d_type))
        else:
            if qual.startswith("mma."):
                s = qual[len("mma."):]
                cls = MMABlockScale if ".block" in s else MMA
            elif qual.startswith("wgmma."):
                s = qual[len("wgmma."):]
                cls = WGMMA
            elif qual.startswith("tcgen05.mma."):
                s = qual[len("tcgen05.mma."):]
                cls = TCGen05MMABlockScale if ".block" in s else TCGen05MMA
            else:
                raise BadInput(
                    f"unknown instruction '{name}': NVIDIA qualifiers start with "
                    "mma., wgmma. or tcgen05.mma."
                )
            op = cls(march, s)
            spec = Spec(name, op, op.k, _fmt_of_dtype(op.c_type), op.a_type_ptx,
                        op.b_type_ptx, _fmt_of_dtype(op.d_type))
            if hasattr(op, "block_size"):
                spec.s_fmt = s.split(".")[-1]
                spec.s_count = op.k // op.block_size
                spec.packed_fp4 = getattr(op, "packing", 1) == 2
    except AssertionError as e:
        first = str(e).splitlines()[0] if str(e) else "not supported by mmasim"
        raise BadInput(f"unknown instruction '{name}': {first}") from None
    for f in (spec.a_fmt, spec.b_fmt, spec.c_fmt, spec.d_fmt, spec.s_fmt):
        if f is not None and f not in DIGITS:
            raise BadInput(f"instruction '{name}': operand format {f} not handled")
    spec.fields = [("c", spec.c_fmt, 0), ("a", spec.a_fmt, spec.k), ("b", spec.b_fmt, spec.k)]
    if spec.block_scaled:
        spec.fields += [("sa", spec.s_fmt, spec.s_count), ("sb", spec.s_fmt, spec.s_count)]
    spec.fields.append(("d", spec.d_fmt, 0))
    return spec


def list_instructions(all_shapes: bool = False) -> list[str]:
    """Every instruction mmasim 2.x accepts, in mmaref naming.  wgmma and
    tcgen05.mma: N=8 only (the arithmetic does not depend on N) unless
    all_shapes."""
    _import_torch()
    from mmasim.nv_ptx import isa_mma, isa_wgmma, isa_tcgen05mma
    from mmasim.amd import isa_mfma

    n8 = re.compile(r"^m\d+n8k" if not all_shapes else r"")
    out = []
    for march, lst in isa_mma.mma_shape_and_type.items():
        out += [f"{ARCH_OF_MMASIM[march]}:mma.{s}" for s in lst]
    for march, lst in isa_mma.mma_block_scale_shape_and_type.items():
        out += [f"{ARCH_OF_MMASIM[march]}:mma.{s}" for s in lst]
    for march, lst in isa_wgmma.wgmma_shape_and_type.items():
        out += [f"{ARCH_OF_MMASIM[march]}:wgmma.{s}" for s in lst if n8.match(s)]
    for march, lst in isa_tcgen05mma.tcgen05mma_shape_and_type.items():
        out += [f"{ARCH_OF_MMASIM[march]}:tcgen05.mma.{s}" for s in lst if n8.match(s)]
    for march, lst in isa_tcgen05mma.tcgen05mma_block_scale_shape_and_type.items():
        out += [f"{ARCH_OF_MMASIM[march]}:tcgen05.mma.{s}" for s in lst if n8.match(s)]
    for march, lst in isa_mfma.arch_mfma_suffix.items():
        out += [f"{ARCH_OF_MMASIM[march]}:v_mfma_{s}" for s in lst]
    order = {a: i for i, a in enumerate(ARCHS)}
    seen, res = set(), []
    for n in sorted(out, key=lambda n: order[n.split(":")[0]]):  # stable
        if n not in seen:
            seen.add(n)
            res.append(n)
    return res


# ---------------------------------------------------------------------------
# bits <-> tensors

_LUT = None


def _hex_lut():
    global _LUT
    if _LUT is None:
        torch = _import_torch()
        lut = torch.full((256,), 255, dtype=torch.uint8)
        for i, ch in enumerate(b"0123456789abcdef"):
            lut[ch] = i
        _LUT = lut
    return _LUT


def _nibbles_to_int(nib, w: int):
    """nib: [N, n, w] uint8 nibbles -> [N, n] int64 raw bits.  w == 16 gives
    the 64-bit pattern as a (wrapping) signed int64."""
    torch = _import_torch()
    x = nib.to(torch.int64)
    if w <= 8:
        v = torch.zeros(x.shape[:-1], dtype=torch.int64)
        for j in range(w):
            v = (v << 4) | x[..., j]
        return v
    hi = _nibbles_to_int(nib[..., : w - 8], w - 8)
    lo = _nibbles_to_int(nib[..., w - 8:], 8)
    hi = (hi ^ 0x80000000) - 0x80000000  # signed 32-bit, so *2^32 cannot overflow
    return (hi << 32) | lo


def _to_tensor(v, fmt: str, packed_fp4: bool = False):
    """Raw bits (int64 tensor) -> the tensor mmasim expects for fmt."""
    torch = _import_torch()
    if fmt == "f64":
        return v.view(torch.float64) if v.dtype == torch.int64 else v
    if fmt in ("f32", "tf32", "xf32"):
        return ((v ^ 0x80000000) - 0x80000000).to(torch.int32).view(torch.float32)
    if fmt in ("f16", "bf16"):
        i16 = ((v ^ 0x8000) - 0x8000).to(torch.int16)
        return i16.view(torch.float16 if fmt == "f16" else torch.bfloat16)
    u8 = v.to(torch.uint8)
    if fmt in ("e3m2", "e2m3"):
        return u8  # code in bits 5:0
    if fmt == "e2m1":
        if packed_fp4:  # element 2i in the high nibble, 2i+1 in the low one
            return (u8[..., 0::2] << 4) | u8[..., 1::2]
        return u8 << 2  # code in bits 5:2
    dt = {
        "e4m3": torch.float8_e4m3fn,
        "e5m2": torch.float8_e5m2,
        "fp8": torch.float8_e4m3fnuz,
        "bf8": torch.float8_e5m2fnuz,
        "ue8m0": torch.float8_e8m0fnu,
        "ue4m3": torch.float8_e4m3fn,
    }[fmt]
    return u8.view(dt)


def _from_tensor(d, fmt: str) -> list[int]:
    """Result tensor -> raw bits as Python ints."""
    torch = _import_torch()
    d = d.cpu()
    if fmt == "f64":
        return [x & 0xFFFFFFFFFFFFFFFF for x in d.to(torch.float64).view(torch.int64).tolist()]
    if fmt == "f32":
        return [x & 0xFFFFFFFF for x in d.to(torch.float32).view(torch.int32).tolist()]
    if fmt == "f16":
        return [x & 0xFFFF for x in d.to(torch.float16).view(torch.int16).tolist()]
    raise BadInput(f"result format {fmt} not handled")


# ---------------------------------------------------------------------------
# vector files

def _open_read(path: str):
    if path.endswith(".xz"):
        return lzma.open(path, "rb")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def _open_write(fobj, path: str):
    if path.endswith(".xz"):
        return lzma.open(fobj, "wb", preset=6)
    if path.endswith(".gz"):
        return gzip.GzipFile(filename="", mode="wb", fileobj=fobj, mtime=0)
    return fobj


_HDR = re.compile(rb"^#\s*([A-Za-z0-9_.-]+)\s*:\s*(.*?)\s*$")


class _Layout:
    """Per-instruction line layout: field widths and column -> field maps."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.labels, self.widths, self.fmts = [], [], []
        for label, fmt, n in spec.fields:
            for i in range(max(n, 1)):
                self.labels.append(label if n == 0 else f"{label}[{i}]")
                self.widths.append(DIGITS[fmt])
                self.fmts.append(fmt)
        self.nfields = len(self.widths)
        self.chars = sum(self.widths)
        self.col_field = []
        for idx, w in enumerate(self.widths):
            self.col_field += [idx] * w
        # field groups: (label, fmt, count, width, column offset)
        self.groups, off = [], 0
        for label, fmt, n in spec.fields:
            cnt = max(n, 1)
            self.groups.append((label, fmt, cnt, DIGITS[fmt], off))
            off += cnt * DIGITS[fmt]

    def describe(self, idx: int) -> str:
        return f"field {idx + 1} ({self.labels[idx]}, {self.fmts[idx]}, {self.widths[idx]} hex digits)"


class Filler:
    def __init__(self, device: str = "cpu", chunk: int = DEFAULT_CHUNK):
        self.device = device
        self.chunk = chunk
        self._specs: dict[str, Spec] = {}
        self.dpa_seconds = 0.0

    def spec(self, name: str) -> Spec:
        if name not in self._specs:
            self._specs[name] = resolve(name)
        return self._specs[name]

    # -- compute ------------------------------------------------------------
    def compute(self, lay: _Layout, rows: list[bytes], linenos: list[int], path: str):
        """rows: compacted data lines (fields joined, no blanks).  Returns the
        d bit patterns as Python ints."""
        torch = _import_torch()
        spec = lay.spec
        n = len(rows)
        buf = bytearray(b"".join(rows))
        arr = torch.frombuffer(buf, dtype=torch.uint8).view(n, lay.chars)
        nib = _hex_lut()[arr.to(torch.int64)]
        bad = nib == 255
        if bool(bad.any()):
            r, col = [int(x) for x in bad.nonzero()[0]]
            raise BadInput(
                f"{path}:{linenos[r]}: {lay.describe(lay.col_field[col])}: "
                "not lowercase hex"
            )
        vals = {}
        for label, fmt, cnt, w, off in lay.groups:
            if label == "d":
                continue
            v = _nibbles_to_int(nib[:, off: off + cnt * w].reshape(n, cnt, w), w)
            lim = CODE_LIMIT.get(fmt)
            if lim is not None and bool((v > lim).any()):
                r, i = [int(x) for x in (v > lim).nonzero()[0]]
                idx = lay.labels.index(f"{label}[{i}]" if cnt > 1 or label in ("a", "b") else label)
                raise BadInput(
                    f"{path}:{linenos[r]}: {lay.describe(idx)}: value "
                    f"0x{int(v[r, i]):02x} exceeds the {fmt} code range (max 0x{lim:02x})"
                )
            vals[label] = v
        dev = self.device
        c = _to_tensor(vals["c"][:, 0], spec.c_fmt).to(dev)
        a = _to_tensor(vals["a"], spec.a_fmt, spec.packed_fp4).to(dev)
        b = _to_tensor(vals["b"], spec.b_fmt, spec.packed_fp4).to(dev)
        t0 = time.perf_counter()
        with torch.no_grad():
            if spec.block_scaled:
                sa = _to_tensor(vals["sa"], spec.s_fmt).to(dev)
                sb = _to_tensor(vals["sb"], spec.s_fmt).to(dev)
                d = spec.op.dpa(a, b, c, sa, sb)
            else:
                d = spec.op.dpa(a, b, c)
        if dev != "cpu":
            torch.cuda.synchronize()
        self.dpa_seconds += time.perf_counter() - t0
        if tuple(d.shape) != (n,):
            raise RuntimeError(f"mmasim returned shape {tuple(d.shape)} for {n} vectors")
        return _from_tensor(d, spec.d_fmt)

    # -- one file -----------------------------------------------------------
    def process(self, path: str, out_path: str | None, check: bool = False) -> int:
        """Fill (or with check=True compare) one file.  Returns the number of
        mismatching vectors in check mode, else 0."""
        try:
            with _open_read(path) as f:
                data = f.read()
        except (OSError, EOFError, lzma.LZMAError) as e:
            raise BadInput(f"{path}: cannot read: {e}") from None
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if not lines or lines[0].strip() != b"# mmavec 1":
            raise BadInput(f"{path}:1: first line must be '# mmavec 1'")

        out = []  # output lines (bytes); data lines filled in per chunk
        hdr = {}
        hdr_line = {}
        in_header = True
        source_idx = None
        last_hdr_idx = 0
        spec = lay = None
        instr = None
        pending_rows, pending_lines, pending_out = [], [], []
        mismatches = 0
        dhex = None
        first_mismatch = None

        def flush():
            nonlocal mismatches, first_mismatch
            if not pending_rows:
                return
            ds = self.compute(lay, pending_rows, pending_lines, path)
            for j, (oi, d) in enumerate(zip(pending_out, ds)):
                line = out[oi]
                head, old = line.rsplit(None, 1)
                new = dhex % d
                if check:
                    if old.decode() != new and not _both_nan(old.decode(), new, spec.d_fmt):
                        mismatches += 1
                        if first_mismatch is None:
                            first_mismatch = (pending_lines[j], old.decode(), new)
                else:
                    out[oi] = head + b" " + new.encode()
            pending_rows.clear()
            pending_lines.clear()
            pending_out.clear()

        def start_data(lineno):
            nonlocal spec, lay, instr, dhex
            if "instr" not in hdr:
                raise BadInput(f"{path}:{lineno}: no '# instr:' header before the first vector")
            name = hdr["instr"]
            arch = hdr.get("arch")
            if ":" not in name:
                if arch is None:
                    raise BadInput(
                        f"{path}:{hdr_line['instr']}: field instr: '{name}' has no "
                        "<arch>: prefix and there is no '# arch:' header"
                    )
                name = f"{arch}:{name}"
            elif arch is not None and name.split(":", 1)[0] != arch:
                raise BadInput(
                    f"{path}:{hdr_line['arch']}: field arch: '{arch}' disagrees "
                    f"with instr '{name}'"
                )
            try:
                spec = self.spec(name)
            except BadInput as e:
                raise BadInput(f"{path}:{hdr_line['instr']}: field instr: {e}") from None
            instr = name
            lay = _Layout(spec)
            if "k" in hdr and hdr["k"] != str(spec.k):
                raise BadInput(
                    f"{path}:{hdr_line['k']}: field k: '{hdr['k']}' but {name} has K={spec.k}"
                )
            if "fields" in hdr and hdr["fields"].split() != spec.field_line().split():
                raise BadInput(
                    f"{path}:{hdr_line['fields']}: field fields: '{hdr['fields']}', "
                    f"expected '{spec.field_line()}'"
                )
            dhex = "%0" + str(DIGITS[spec.d_fmt]) + "x"
            src = f"# source: mmasim {mmasim_version()} (PyPI)".encode()
            if not check:
                if source_idx is not None:
                    out[source_idx] = src
                else:  # after the last '#' line of the leading header
                    out.insert(last_hdr_idx + 1, src)

        for lineno, raw in enumerate(lines, 1):
            line = raw.rstrip(b"\r")
            s = line.strip()
            if s.startswith(b"#") or not s:
                if s.startswith(b"#"):
                    m = _HDR.match(s)
                    if m:
                        key = m.group(1).decode("ascii", "replace").lower()
                        val = m.group(2).decode("utf-8", "replace")
                        if in_header:
                            if key in hdr and key in ("instr", "arch", "k", "fields"):
                                raise BadInput(f"{path}:{lineno}: field {key}: repeated header")
                            hdr.setdefault(key, val)
                            hdr_line.setdefault(key, lineno)
                            if key == "source" and source_idx is None:
                                source_idx = len(out)
                        elif key == "instr" and val != hdr.get("instr"):
                            raise BadInput(
                                f"{path}:{lineno}: field instr: instruction changes "
                                "mid-file; split the file"
                            )
                if in_header and s.startswith(b"#"):
                    last_hdr_idx = len(out)
                out.append(line)
                continue
            if in_header:
                start_data(lineno)
                in_header = False
            fields = line.split()
            if len(fields) != lay.nfields:
                raise BadInput(
                    f"{path}:{lineno}: {len(fields)} fields, {instr} needs "
                    f"{lay.nfields} ({spec.field_line()})"
                )
            row = b"".join(fields)
            if len(row) != lay.chars:
                for idx, (fv, w) in enumerate(zip(fields, lay.widths)):
                    if len(fv) != w:
                        raise BadInput(
                            f"{path}:{lineno}: {lay.describe(idx)}: "
                            f"'{fv.decode('utf-8', 'replace')}' has {len(fv)} digits"
                        )
            pending_rows.append(row)
            pending_lines.append(lineno)
            pending_out.append(len(out))
            out.append(line)
            if len(pending_rows) >= self.chunk:
                flush()
        if in_header:  # header only, no vectors
            start_data(len(lines) + 1)
        flush()

        if check:
            if first_mismatch:
                ln, old, new = first_mismatch
                print(f"{path}:{ln}: d={old}, mmasim gives {new} "
                      f"({mismatches} mismatching vectors)", file=sys.stderr)
            return mismatches
        _atomic_write(out_path or path, b"\n".join(out) + b"\n")
        return 0


def _both_nan(x: str, y: str, fmt: str) -> bool:
    def isnan(h):
        v = int(h, 16)
        if fmt == "f32":
            return (v & 0x7F800000) == 0x7F800000 and (v & 0x7FFFFF) != 0
        if fmt == "f16":
            return (v & 0x7C00) == 0x7C00 and (v & 0x3FF) != 0
        if fmt == "f64":
            return (v >> 52 & 0x7FF) == 0x7FF and (v & ((1 << 52) - 1)) != 0
        return False

    return isnan(x) and isnan(y)


def _atomic_write(path: str, payload: bytes):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw:
            w = _open_write(raw, path)
            w.write(payload)
            if w is not raw:
                w.close()
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="Fill d of mmaref vector files with the peer model mmasim (PyPI).")
    ap.add_argument("files", nargs="*", help="vector files (.vec, .vec.xz, .vec.gz)")
    ap.add_argument("-o", "--output", help="output file (one input only); default: rewrite in place")
    ap.add_argument("--check", action="store_true",
                    help="compare each d with mmasim's, write nothing; exit 1 on mismatch")
    ap.add_argument("--list", action="store_true",
                    help="print every instruction mmasim supports, in mmaref naming")
    ap.add_argument("--list-all", action="store_true",
                    help="the same, with every wgmma and tcgen05 shape mmasim lists")
    ap.add_argument("--device", default="cpu", help="torch device for mmasim (default cpu)")
    ap.add_argument("--chunk", type=int, default=DEFAULT_CHUNK,
                    help=f"vectors per dpa() call (default {DEFAULT_CHUNK})")
    ap.add_argument("--quiet", "-q", action="store_true")
    args = ap.parse_args(argv)

    if args.list or args.list_all:
        for n in list_instructions(args.list_all):
            print(n)
        return 0
    if not args.files:
        ap.error("no input file")
    if args.output and len(args.files) != 1:
        ap.error("-o takes exactly one input file")
    if args.chunk < 1:
        ap.error("--chunk must be positive")
    filler = Filler(args.device, args.chunk)
    status = 0
    for path in args.files:
        t0 = time.perf_counter()
        try:
            bad = filler.process(path, args.output, check=args.check)
        except BadInput as e:
            print(f"mmasim_fill: {e}", file=sys.stderr)
            return 2
        if bad:
            status = 1
        if not args.quiet:
            what = f"{bad} mismatches" if args.check else f"-> {args.output or path}"
            print(f"mmasim_fill: {path} {what} ({time.perf_counter() - t0:.2f} s)",
                  file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
