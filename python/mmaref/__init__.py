"""mmaref: bit-exact reference models of GPU matrix-multiply units, from Python.

Every NVIDIA Tensor Core and AMD Matrix Core instruction reduces, per output
element, to a dot-product-accumulate ``d = f(c, a[0..K-1], b[0..K-1])`` whose
rounding is undocumented; mmaref models each one bit for bit (checked against
H100 captures) and measures its error against the exact result.

Bit patterns are the currency: operands and results are NumPy arrays of raw
encodings (unsigned integers, or ml_dtypes arrays such as ``float8_e4m3fn``,
which hold the same bits).  ``encode`` and ``decode`` convert from and to
floats.

    >>> import numpy as np, mmaref
    >>> u = mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    >>> u.K, u.formats["a"].name, u.algorithm
    (32, 'e4m3', 'FDA')
    >>> a = mmaref.encode(np.full(32, 0.1), "e4m3")    # round to nearest even
    >>> d = u.dot(0, a, a)                               # one dot product, encodings
    >>> float(mmaref.decode(d, "fp32"))
    0.3330078125

The pieces:

* ``Unit(name_or_config)``: an instruction or a described unit; ``unit.dot``
  (batches of dot products on all cores), ``unit.exact`` (their exact values).
* ``encode`` / ``decode``: floats to and from every format (RNE, saturation).
* ``matmul(A, B, C, unit=..., mode=...)``: a whole GEMM, instructions chained
  over K as ``mmaref gemm`` chains them (tc, promote every nc, twostage) or
  its exact value; OCP MX block scales for block-scaled units.
* ``metrics`` / ``gemm_metrics``: the error statistics of ``mmaref metrics``
  and ``mmaref gemm``, as dicts.
* ``read_vectors`` / ``write_vectors`` / ``check_vectors``: vector files.
* ``Flag`` (``FLAG_INEXACT`` ... ``FLAG_INVALID``): the IEEE 754 exception
  flags of the ``ieee,...`` units, from ``unit.dot(..., flags=True)``.

Errors: a wrong argument raises TypeError or ValueError naming the argument
and what was expected; what the C library rejects (unknown instruction, bad
configuration string, malformed vector file) raises ``mmaref.Error`` with the
library's message; a vector file that does not match raises
``MismatchError``.  docs/python.md in the repository is the guide.
"""
from __future__ import annotations

import enum
import gzip
import lzma
import math
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _gemm_gpu, _tensors
from ._core import Error

__version__: str = _core.VERSION

__all__ = [
    "Error", "MismatchError", "Format", "FORMATS", "get_format", "Unit", "units",
    "encode", "decode", "matmul", "quantize", "metrics", "gemm_metrics",
    "VectorFile", "CheckResult", "read_vectors", "write_vectors", "check_vectors",
    "Flag", "FLAG_INEXACT", "FLAG_UNDERFLOW", "FLAG_OVERFLOW", "FLAG_INFINITE", "FLAG_INVALID", "cuda_device",
    "plot_metrics", "plot_gemm",
]

cuda_device = _tensors.cuda_device

ArrayLike = Any
UnitLike = Union[str, "Unit"]


class MismatchError(AssertionError):
    """A vector file's d differs from the model's (check_vectors); the
    message lists the first mismatches, ``.result`` holds them all."""

    def __init__(self, message: str, result: "CheckResult"):
        super().__init__(message)
        self.result = result


# ---- exception flags -------------------------------------------------------
class Flag(enum.IntFlag):
    """The IEEE 754 exception flags of a dot product, one bit each as in
    TestFloat's flag byte and RISC-V's fflags (the ``flags`` field of vector
    files, ``mmaref eval --flags``).  Only the ``ieee,...`` units define
    them; a dot product never raises INFINITE (divide by zero)."""

    INEXACT = _core.FLAG_INEXACT
    UNDERFLOW = _core.FLAG_UNDERFLOW
    OVERFLOW = _core.FLAG_OVERFLOW
    INFINITE = _core.FLAG_INFINITE
    INVALID = _core.FLAG_INVALID


FLAG_INEXACT = Flag.INEXACT
FLAG_UNDERFLOW = Flag.UNDERFLOW
FLAG_OVERFLOW = Flag.OVERFLOW
FLAG_INFINITE = Flag.INFINITE
FLAG_INVALID = Flag.INVALID


# ---- formats ---------------------------------------------------------------
@dataclass(frozen=True)
class Format:
    """A number format: its encoding width and fields (fp32, e4m3, ...)."""

    name: str
    id: int
    width: int
    hexdigits: int
    ebits: int
    mbits: int
    bias: int
    emin: int
    has_sign: bool
    has_inf: bool
    max: float
    """the largest finite value"""

    @property
    def dtype(self) -> np.dtype:
        """The unsigned integer dtype that holds one encoding."""
        return np.dtype(np.uint8 if self.width <= 8 else np.uint16 if self.width <= 16
                        else np.uint32 if self.width <= 32 else np.uint64)

    def __repr__(self) -> str:
        return f"Format({self.name!r}, width={self.width}, ebits={self.ebits}, mbits={self.mbits})"


FORMATS: Dict[str, Format] = {f["name"]: Format(**f) for f in _core.formats()}
"""Every format by its mmaref name."""

# NumPy and ml_dtypes dtype names that hold the same bits as an mmaref format
_DTYPE_FORMAT = {
    "float64": "fp64", "float32": "fp32", "float16": "fp16", "bfloat16": "bf16",
    "float8_e4m3fn": "e4m3", "float8_e4m3": "e4m3ieee", "float8_e5m2": "e5m2", "float8_e4m3fnuz": "e4m3fnuz",
    "float8_e5m2fnuz": "e5m2fnuz", "float6_e2m3fn": "e2m3", "float6_e3m2fn": "e3m2",
    "float4_e2m1fn": "e2m1", "float8_e8m0fnu": "ue8m0",
}


def get_format(spec: Union[str, Format, np.dtype, type]) -> Format:
    """The Format named by an mmaref name ("e4m3"), a NumPy or ml_dtypes
    dtype name ("float8_e4m3fn", "bfloat16") or such a dtype."""
    if isinstance(spec, Format):
        return spec
    name = spec if isinstance(spec, str) else None
    if name is None:
        try:
            name = np.dtype(spec).name
        except TypeError:
            raise TypeError(f"format: expected a format name or dtype, got {type(spec).__name__}") from None
    name = _DTYPE_FORMAT.get(name, name)
    if name not in FORMATS:
        raise ValueError(f"format: unknown format {spec!r} (one of: {', '.join(FORMATS)})")
    return FORMATS[name]


def _format_of_dtype(dt: np.dtype) -> Optional[str]:
    return _DTYPE_FORMAT.get(dt.name)


def _as_encodings(x: ArrayLike, fmt: Format, arg: str, check: bool = True) -> np.ndarray:
    """x as an array of encodings of fmt (unsigned integers, or a float
    array of that very format viewed as its bits).  check: that every value
    fits the format's width (dot and exact leave it to the C side, which
    does it without a temporary array)."""
    arr = np.asarray(_tensors.to_numpy(x, arg))
    dt = arr.dtype
    if dt.kind in "ui" and dt != np.bool_:
        if dt.kind == "i":
            if arr.size and arr.min() < 0:
                raise ValueError(f"{arg}: encodings cannot be negative (got {int(arr.min())})")
            arr = arr.astype(np.uint64)
        if check and fmt.width < arr.dtype.itemsize * 8 and arr.size:
            over = (arr >> np.array(fmt.width, dtype=arr.dtype)) != 0
            if over.any():
                i = np.unravel_index(int(np.argmax(over)), arr.shape)
                raise ValueError(f"{arg}: {int(over.sum())} values do not fit {fmt.name}'s {fmt.width} bits "
                                 f"(the first, at index {tuple(int(j) for j in i)}: {int(arr[i]):#x})")
        return arr
    name = _format_of_dtype(dt)
    if name == fmt.name and dt.itemsize * 8 >= fmt.width:
        return arr.view(fmt.dtype) if dt.itemsize == fmt.dtype.itemsize else arr.view(np.dtype(f"u{dt.itemsize}"))
    hint = (f"; round floats into {fmt.name} with mmaref.encode(x, {fmt.name!r})" if dt.kind == "f" or name else "")
    raise TypeError(f"{arg}: expected encodings of {fmt.name} (unsigned integers"
                    f"{', or an array of dtype ' + _dtype_for(fmt.name) if _dtype_for(fmt.name) else ''}), "
                    f"got dtype {dt.name}{hint}")


def _dtype_for(name: str) -> str:
    for k, v in _DTYPE_FORMAT.items():
        if v == name:
            return k
    return ""


def _c_array(x: np.ndarray, dtype: Any = None) -> np.ndarray:
    return np.asarray(x, dtype=dtype, order="C")   # (ascontiguousarray makes 0-d arrays 1-d)


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads: expected a positive integer or None (all cores), got {threads!r}")
    return int(threads)


_OVERFLOW = {False: _core.OVF_NAN, True: _core.OVF_SATURATE, "inf": _core.OVF_INF}


def encode(x: ArrayLike, fmt: Union[str, Format], *, saturate: Union[bool, str] = False) -> np.ndarray:
    """Round floats to nearest (ties to even) into format ``fmt``.

    Returns an array of encodings (the smallest unsigned dtype of the
    format's width), the same shape as ``x``.  Subnormals are kept.  Values
    beyond the largest finite one (and infinities): with ``saturate=False``
    (the OCP non-saturating mode, as ml_dtypes converts) Inf where the format
    has one, else NaN where it has one, else the largest value (fp6, fp4);
    with ``saturate=True`` (OCP saturation mode, PTX ``cvt.satfinite``) the
    largest finite value; ``saturate="inf"`` is the metrics' rule (Inf where
    the format has one, else the largest finite value).  NaN stays NaN (+0
    in formats without NaN).  ``x`` may be any real array, ml_dtypes arrays
    included (their values are taken)."""
    f = get_format(fmt)
    if saturate not in _OVERFLOW:
        raise ValueError(f"saturate: expected False, True or 'inf', got {saturate!r}")
    arr = np.asarray(x)
    if arr.dtype.kind not in "fiub" and not _format_of_dtype(arr.dtype):
        raise TypeError(f"x: expected real numbers, got dtype {arr.dtype.name}")
    v = _c_array(arr.astype(np.float64) if arr.dtype != np.float64 else arr)
    out = np.empty(v.shape, dtype=f.dtype)
    _core.encode(f.id, v.reshape(-1), out.reshape(-1), _OVERFLOW[saturate])
    return out


def decode(e: ArrayLike, fmt: Union[str, Format]) -> np.ndarray:
    """The values of encodings of ``fmt`` as float64 (exact: every format
    fits), the same shape as ``e``; NaN, infinities and -0 kept."""
    f = get_format(fmt)
    enc = _c_array(_as_encodings(e, f, "e"))
    out = np.empty(enc.shape, dtype=np.float64)
    _core.decode(f.id, enc.reshape(-1), out.reshape(-1))
    return out


# ---- units ------------------------------------------------------------------
def units() -> List[str]:
    """Every instruction of the catalogue, as ``<arch>:<qualifier>``."""
    return _core.catalogue()


class Unit:
    """A dot-product-accumulate unit: an instruction of the catalogue
    (``"hopper:wgmma.m64n8k32.f32.e4m3.e4m3"``) or a configuration string
    (``"fused,a=e4m3,b=e4m3,k=32,f=16"``).  Unknown names raise
    ``mmaref.Error`` with the library's message, which suggests the nearest
    names."""

    def __init__(self, spec: UnitLike):
        if isinstance(spec, Unit):
            spec = spec.spec
        if not isinstance(spec, str):
            raise TypeError(f"unit: expected an instruction name or configuration string, got {type(spec).__name__}")
        self.spec: str = spec
        """the text the unit was made from"""
        self._u = _core.Unit(spec)
        self._info: Dict[str, Any] = self._u.info()

    # -- what it is
    @property
    def name(self) -> str:
        """``<arch>:<qualifier>`` for an instruction, "" for a configuration."""
        return self._info["name"]

    @property
    def configuration(self) -> str:
        """The canonical configuration string (parseable by Unit)."""
        return self._info["config"]

    @property
    def algorithm(self) -> str:
        """The MMA-Sim paper's name of what it computes (FDA, CoFDA, GDFS, ...)."""
        return self._info["algorithm"]

    @property
    def K(self) -> int:
        """Products per dot product."""
        return self._info["k"]

    @property
    def F(self) -> int:
        """Fraction bits kept in alignment (fused forms)."""
        return self._info["f"]

    @property
    def formats(self) -> Dict[str, Optional[Format]]:
        """Operand formats: a, b, c, d (the output) and scale (None if unscaled)."""
        return {r: (FORMATS[self._info[r]] if self._info[r] else None) for r in ("a", "b", "c", "d", "scale")}

    @property
    def block(self) -> int:
        """Products per block scale (0 when unscaled)."""
        return self._info["block"] if self._info["scale"] else 0

    @property
    def nscales(self) -> int:
        """Scale fields per operand of one dot product (0 when unscaled)."""
        return self._info["nscales"]

    @property
    def has_flags(self) -> bool:
        """Whether the unit defines IEEE exception flags (the ``ieee,...``
        units): ``dot(..., flags=True)`` returns them."""
        return bool(self._info["has_flags"])

    @property
    def explain(self) -> str:
        """A paragraph on what the unit computes."""
        return self._info["explain"]

    @property
    def fields(self) -> Dict[str, Any]:
        """Every field of the configuration (k, lmax, f, p, tree, ...)."""
        return dict(self._info)

    def __repr__(self) -> str:
        return f"Unit({self.spec!r})"

    def __str__(self) -> str:
        return self.name or self.configuration

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and other.configuration == self.configuration

    def __hash__(self) -> int:
        return hash(self.configuration)

    # -- computing
    def _operands(self, c: ArrayLike, a: ArrayLike, b: ArrayLike, sa: ArrayLike, sb: ArrayLike,
                  depth_multiple: bool) -> Tuple[np.ndarray, ...]:
        fm = self.formats
        a = _as_encodings(a, fm["a"], "a", False)
        b = _as_encodings(b, fm["b"], "b", False)
        if a.ndim < 1:
            raise ValueError(f"a: expected an array whose last axis holds the {self.K} products, got a scalar")
        kk = a.shape[-1]
        if depth_multiple:
            if kk == 0 or kk % self.K:
                raise ValueError(f"a: the last axis ({kk}) must be a positive multiple of {self}'s K={self.K}")
        elif kk != self.K:
            raise ValueError(f"a: the last axis must hold {self}'s K={self.K} products, got shape {a.shape}"
                             + (" (use unit.exact or mmaref.matmul for a deeper sum)" if kk % self.K == 0 else ""))
        if b.shape != a.shape:
            raise ValueError(f"b: shape {b.shape} differs from a's {a.shape}")
        lead = a.shape[:-1]
        cc = _as_encodings(c, fm["c"], "c", False)
        try:
            cc = np.broadcast_to(cc, lead)
        except ValueError:
            raise ValueError(f"c: shape {cc.shape} does not broadcast to the vectors' shape {lead}") from None
        ns = self.nscales * (kk // self.K)
        if ns:
            if sa is None or sb is None:
                raise ValueError(f"sa, sb: {self} is block-scaled: each vector needs {ns} scales of "
                                 f"{fm['scale'].name} per operand (shape {lead + (ns,)})")
            sa = _as_encodings(sa, fm["scale"], "sa", False)
            sb = _as_encodings(sb, fm["scale"], "sb", False)
            for nm, s in (("sa", sa), ("sb", sb)):
                if s.shape != lead + (ns,):
                    raise ValueError(f"{nm}: expected shape {lead + (ns,)} ({ns} scales a vector), got {s.shape}")
            sa, sb = _c_array(sa), _c_array(sb)
        elif sa is not None or sb is not None:
            raise ValueError(f"sa, sb: {self} takes no block scales")
        return _c_array(cc), _c_array(a), _c_array(b), sa, sb, lead

    def dot(self, c: ArrayLike, a: ArrayLike, b: ArrayLike, sa: ArrayLike = None, sb: ArrayLike = None,
            *, flags: bool = False, threads: Optional[int] = None) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
        """Dot products ``d = c + sum_k a[..., k] * b[..., k]`` as the unit
        computes them, bit for bit.

        ``a``, ``b``: encodings of the unit's a and b formats, any leading
        shape, last axis K; ``c``: encodings of its c format, broadcast to the
        leading shape (a scalar 0 is +0); ``sa``, ``sb``: the block scales of
        block-scaled units (leading shape + nscales).  Returns the encodings
        of d (dtype of the output format), leading shape.  The loop runs in C
        without the GIL on ``threads`` threads (all cores by default); the
        result does not depend on the thread count.

        ``flags=True`` (units with ``has_flags``): returns ``(d, flags)``,
        flags a uint8 array of the same shape holding each dot product's
        IEEE exception flags (``Flag`` bits, as ``mmaref eval --flags``).

        PyTorch CPU tensors are taken as NumPy arrays of the same bits.  CUDA
        arrays (PyTorch or CuPy; a and b read in place through DLPack, as
        unsigned integers or the format's own dtype, C-contiguous) are
        computed on their GPU by the CUDA backend, the same bits, queued on
        the framework's current stream: d (and flags) come back as unsigned
        integer arrays of that framework on that device (``d.view(torch.float32)``
        reads an fp32 result as floats).  ``mmaref.cuda_device()`` says
        whether the backend is there."""
        if flags and not self.has_flags:
            raise ValueError(f"flags: {self} defines no exception flags (the ieee units do: ieee,a=...,k=...)")
        if _tensors.on_gpu(a) or _tensors.on_gpu(b):
            return _tensors.dot_gpu(self, c, a, b, sa, sb, flags, _DTYPE_FORMAT.get)
        c, a, b, sa, sb, lead = self._operands(c, a, b, sa, sb, False)
        d = np.empty(lead, dtype=self.formats["d"].dtype)
        fl = np.empty(lead, dtype=np.uint8) if flags else None
        _core.dot(self._u, c.reshape(-1), a.reshape(-1), b.reshape(-1), _flat(sa), _flat(sb), d.reshape(-1),
                  _threads(threads), False, _flat(fl))
        return (d, fl) if flags else d

    def exact(self, c: ArrayLike, a: ArrayLike, b: ArrayLike, sa: ArrayLike = None, sb: ArrayLike = None,
              *, threads: Optional[int] = None) -> np.ndarray:
        """The exact values of ``c + sum_k a[..., k] * b[..., k]`` (times the
        block scales), rounded once to the nearest float64: the reference the
        metrics measure against.  The last axis may be any multiple of K
        (a chained depth; c counted once)."""
        c, a, b, sa, sb, lead = self._operands(c, a, b, sa, sb, True)
        x = np.empty(lead, dtype=np.float64)
        _core.dot(self._u, c.reshape(-1), a.reshape(-1), b.reshape(-1), _flat(sa), _flat(sb), x.reshape(-1),
                  _threads(threads), True)
        return x

    def result_equal(self, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Elementwise: do output encodings x and y match under the unit's
        rules (two NaNs match where its NaN payload is unspecified)?"""
        fd = self.formats["d"]
        xe, ye = _as_encodings(x, fd, "x"), _as_encodings(y, fd, "y")
        xe, ye = np.broadcast_arrays(xe, ye)
        out = np.empty(xe.shape, dtype=np.uint8)
        _core.result_equal(self._u, _c_array(xe).reshape(-1), _c_array(ye).reshape(-1), out.reshape(-1))
        return out.astype(bool)


def _flat(x: Optional[np.ndarray]) -> Optional[np.ndarray]:
    return None if x is None else x.reshape(-1)


def _unit(u: Any, arg: str = "unit") -> Unit:
    if isinstance(u, Unit):
        return u
    if isinstance(u, str):
        return Unit(u)
    raise TypeError(f"{arg}: expected a Unit or an instruction name / configuration string, got {type(u).__name__}")


# ---- GEMM ------------------------------------------------------------------------
_MODES = {"tc": 0, "promote": 1, "twostage": 2}


def _is_encoded(x: np.ndarray, fmt: Format) -> bool:
    """Integers are encodings; floats of the operand's very format too (the
    same bits either way)."""
    return (x.dtype.kind in "ui" and x.dtype != np.bool_) or _format_of_dtype(x.dtype) == fmt.name


def quantize(x: ArrayLike, fmt: Union[str, Format], block: Optional[Tuple[int, int]] = None, *,
             saturate: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """Scaled quantization, as FP8 training and inference recipes do it:
    for each block of ``block = (rows, cols)`` elements of the last two axes
    of ``x`` (None: the whole matrix, one scale; ``(1, 128)``: DeepSeek-V3's
    activation tiles; ``(128, 128)``: its weight blocks), the scale is
    ``amax / fmt_max`` in FP32 (amax the largest magnitude in the block, 1
    for an all-zero block) and each element ``x / scale`` (FP32 division,
    ``x`` taken as FP32) is rounded to the nearest ``fmt`` encoding, ties to
    even, beyond-range values to the largest finite one when ``saturate``.

    Returns ``(q, scales)``: the encodings (unsigned integers, the same
    bits as an ml_dtypes array of the format: ``q.view(ml_dtypes.float8_e4m3fn)``)
    and the FP32 scales, shape ``(..., rows_of_x / rows, cols_of_x / cols)``;
    ``decode(q) * scale`` gives the values back.  A block holding Inf or NaN
    raises ValueError."""
    return _quantize(x, fmt, block, saturate, "x")


def _quantize(x: ArrayLike, fmt: Union[str, Format], block: Optional[Tuple[int, int]], saturate: bool,
              arg: str) -> Tuple[np.ndarray, np.ndarray]:
    f = get_format(fmt)
    v = np.asarray(_tensors.to_numpy(x, arg))
    if v.dtype.kind not in "fiu" and not _format_of_dtype(v.dtype):
        raise TypeError(f"{arg}: expected real numbers, got dtype {v.dtype.name}")
    v = v.astype(np.float32)
    if v.ndim < 2:
        raise ValueError(f"{arg}: expected a matrix (or a stack of them), got shape {v.shape}")
    R, Cc = v.shape[-2:]
    br, bc = (R, Cc) if block is None else block
    if isinstance(br, bool) or isinstance(bc, bool) or not all(isinstance(t, (int, np.integer)) for t in (br, bc)):
        raise TypeError(f"block: expected two integers (rows, cols), got {block!r}")
    if br < 1 or bc < 1 or R % br or Cc % bc:
        raise ValueError(f"block: ({br}, {bc}) does not tile {arg}'s {R} x {Cc}")
    lead = v.shape[:-2]
    t = v.reshape(lead + (R // br, br, Cc // bc, bc))
    amax = np.abs(t).max(axis=(-3, -1))
    if not np.isfinite(amax).all():
        bad = np.argwhere(~np.isfinite(amax))[0]
        raise ValueError(f"{arg}: the block at {tuple(int(i) for i in bad)} holds Inf or NaN: it has no scale")
    scales = np.where(amax > 0, amax / np.float32(f.max), np.float32(1)).astype(np.float32)
    y = (t / scales[..., :, None, :, None]).astype(np.float32).reshape(v.shape)
    return encode(y, f, saturate=saturate), scales


def _scale_grid(s: ArrayLike, arg: str, rows: int, K: int, blk: Optional[Tuple[int, int]], is_b: bool,
                what: str) -> Tuple[np.ndarray, int]:
    """A's scales (or B's, is_b: by column) as an FP32 grid of rows x
    K-blocks, and the K-block length (K when they are constant along K):
    a scalar, a vector (per row of A, per column of B) or a matrix (A's
    (M/bm) x (K/bk), B's (K/bk) x (N/bn)), checked against the block."""
    x = np.asarray(_tensors.to_numpy(s, arg))
    if x.dtype.kind not in "fiu" or x.dtype == np.bool_:
        raise TypeError(f"{arg}: expected real numbers (FP32 scales), got dtype {x.dtype.name}")
    x = x.astype(np.float32)
    if x.ndim > 2:
        raise ValueError(f"{arg}: expected a scalar, a vector or a matrix of scales, got shape {x.shape}")
    g = x.reshape(1, 1) if x.ndim == 0 else x.reshape(-1, 1) if x.ndim == 1 else x.T if is_b else x
    if blk is not None:
        bk, br = (blk[0], blk[1]) if is_b else (blk[1], blk[0])
        if br < 1 or bk < 1 or rows % br or K % bk:
            raise ValueError(f"block: {tuple(blk)} does not tile {what}")
        want = (rows // br, K // bk)
        if g.shape != want:
            raise ValueError(f"{arg}: shape {x.shape} does not match the block {tuple(blk)} of {what} "
                             f"(expected {want[::-1] if is_b else want})")
    nr, nk = g.shape
    if nr == 0 or nk == 0 or rows % nr or K % nk:
        raise ValueError(f"{arg}: shape {x.shape} does not tile {what}")
    return np.repeat(g, rows // nr, axis=0), K // nk


def matmul(A: ArrayLike, B: ArrayLike, C: ArrayLike = None, *, unit: UnitLike, mode: str = "tc", nc: int = 128,
           sa: ArrayLike = None, sb: ArrayLike = None, scale_a: ArrayLike = None, scale_b: ArrayLike = None,
           block: Any = None, promote: Optional[int] = None, saturate: bool = True,
           threads: Optional[int] = None) -> Any:
    """A whole GEMM ``A @ B (+ C)`` through a unit, every output element one
    chain of instruction calls over the depth K, exactly as ``mmaref gemm``
    chains them.

    ``A``: M x K, ``B``: K x N (K a multiple of the unit's K), ``C``: M x N
    (or a scalar, or None for +0); leading axes are a batch, broadcast as
    ``numpy.matmul`` does (``...xMxK @ ...xKxN``).  NumPy arrays, ml_dtypes
    arrays and PyTorch tensors (CPU or CUDA: the result is a tensor on the
    same device; CUDA tensors of unsigned encodings are computed on their GPU
    by the CUDA backend, the same bits, for modes tc, promote and twostage
    of units without block scales whose c and d formats are one, and on the
    CPU otherwise).  Floats are rounded into the unit's
    formats (round to nearest even; ``saturate``: beyond-range values to the
    largest finite value, as FP8 kernels convert); for a block-scaled unit
    (MX, NVFP4) the scales of each block of A's rows and B's columns come
    from the OCP MX rule (ue8m0: 2^(floor(log2 amax) - emax)) or, for ue4m3,
    amax / the element maximum.  Unsigned integers are taken as encodings
    (block-scaled units then need ``sa`` (M x K/block) and ``sb``
    (K/block x N)).

    ``mode``: ``"tc"`` the running sum stays in the accumulator (each call's
    output is the next call's c); ``"promote"`` every ``nc`` products the
    accumulator is added into an FP32 register and restarts from +0
    (DeepSeek-V3's Nc = 128; ``promote=128`` says the same); ``"twostage"``
    every call from +0, its output added in FP32; ``"exact"`` the exact
    result rounded once to float64.

    Scales that the software around the unit applies (any unit; the
    DeepSeek-V3 recipe): ``scale_a`` a scalar (per tensor), an M-vector (per
    row) or an (M/bm) x (K/bk) grid (per block of bm x bk: ``(1, 128)``
    tiles), ``scale_b`` a scalar, an N-vector (per column) or a
    (K/bk) x (N/bn) grid (``(128, 128)`` blocks), as ``quantize`` returns
    them; ``block = ((bm, bk), (bk, bn))`` names the blocks (checked against
    the grids), and with float A and B and no scales quantizes them so.  The
    depth is cut where a scale changes (windows of bk products); each
    window's result (the accumulator's, promoted every ``nc`` products
    within the window when ``promote`` is shorter) is added into the FP32
    register, which starts at C, as ``acc = fmaf(p, scale_a * scale_b, acc)``
    (the scales' product rounded to FP32): what the kernels around a tensor
    core do (DeepGEMM).  Scales that change along K need ``promote``: the
    accumulator cannot apply them.

    Returns float64 values when A or B was given as floats (ml_dtypes arrays
    included), else the result encodings (the unit's d format for tc, fp32
    for promote, twostage and scaled GEMMs; fp64 for fp64-output units)."""
    like = A if _tensors.is_torch(A) else B if _tensors.is_torch(B) else None
    cuda = like is not None and like.is_cuda
    if cuda and _tensors.is_torch(A) and _tensors.is_torch(B) and mode != "exact":
        gm, gnc = ("promote", promote) if isinstance(promote, (int, np.integer)) and not isinstance(promote, bool) \
            else (mode, nc)
        u = _unit(unit)
        if _gemm_gpu.usable(u, gm, A, B, C, scale_a is not None or scale_b is not None or block is not None, sa, sb) \
                and _tensors.cuda_device() is not None:
            if A.shape[1] != B.shape[0]:
                raise ValueError(f"B: expected {A.shape[1]} rows (A is {A.shape[0]} x {A.shape[1]}), got shape "
                                 f"{tuple(B.shape)}")
            if A.shape[1] == 0 or A.shape[1] % u.K:
                raise ValueError(f"A, B: the depth K={A.shape[1]} must be a positive multiple of {u}'s K={u.K}")
            if gm == "promote" and (gnc < 1 or gnc % u.K):
                raise ValueError(f"nc: {gnc} is not a positive multiple of {u}'s K={u.K}")
            if C is not None and tuple(C.shape) != (A.shape[0], B.shape[1]):
                raise ValueError(f"C: expected shape {(A.shape[0], B.shape[1])}, got {tuple(C.shape)}")
            return _gemm_gpu.matmul(u, A.contiguous(), B.contiguous(), C, gm, int(gnc))

    def host(x: Any, arg: str) -> Any:
        if x is None or not _tensors.is_torch(x):
            return x
        return _tensors.to_numpy(x.detach().cpu() if x.is_cuda else x, arg)

    A, B, C, sa, sb = host(A, "A"), host(B, "B"), host(C, "C"), host(sa, "sa"), host(sb, "sb")
    scale_a, scale_b = host(scale_a, "scale_a"), host(scale_b, "scale_b")
    if promote is not None:
        if isinstance(promote, bool) or not isinstance(promote, (int, np.integer)):
            raise TypeError(f"promote: expected an integer (products between promotions), got {promote!r}")
        if mode not in ("tc", "promote"):
            raise ValueError(f"promote: given with mode={mode!r}; promote={promote} is mode='promote', nc={promote}")
        mode, nc = "promote", int(promote)
    A, B = np.asarray(A), np.asarray(B)
    for nm, x in (("A", A), ("B", B)):
        if x.ndim < 2:
            raise ValueError(f"{nm}: expected a 2-D array (or a stack of them), got shape {x.shape}")
    if A.ndim == 2 and B.ndim == 2:
        out = _matmul2d(A, B, C, unit, mode, nc, sa, sb, scale_a, scale_b, block, saturate, threads)
    else:
        M, N = A.shape[-2], B.shape[-1]
        try:
            lead = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
        except ValueError:
            raise ValueError(f"A, B: batch shapes {A.shape[:-2]} and {B.shape[:-2]} do not broadcast") from None
        Ab, Bb = np.broadcast_to(A, lead + A.shape[-2:]), np.broadcast_to(B, lead + B.shape[-2:])
        Cb = None
        if C is not None:
            try:
                Cb = np.broadcast_to(np.asarray(C), lead + (M, N))
            except ValueError:
                raise ValueError(f"C: shape {np.shape(C)} does not broadcast to {lead + (M, N)}") from None

        def per(x: Any, tail: int) -> Any:      # a batch's scales: the stack's, or one for all
            if x is None:
                return None
            x = np.asarray(x)
            return np.broadcast_to(x, lead + x.shape[-tail:]) if x.ndim > tail else None

        outs = []
        for idx in np.ndindex(*lead):
            pa, pb = per(scale_a, 2), per(scale_b, 2)
            outs.append(_matmul2d(Ab[idx], Bb[idx], None if Cb is None else Cb[idx], unit, mode, nc,
                                  None if sa is None else np.broadcast_to(np.asarray(sa), lead + np.shape(sa)[-2:])[idx],
                                  None if sb is None else np.broadcast_to(np.asarray(sb), lead + np.shape(sb)[-2:])[idx],
                                  scale_a if pa is None else pa[idx], scale_b if pb is None else pb[idx],
                                  block, saturate, threads))
        out = np.stack(outs).reshape(lead + (M, N)) if outs else np.empty(lead + (M, N))
    if like is not None:
        import torch
        arr = np.ascontiguousarray(out)
        try:
            t = torch.from_numpy(arr)
        except TypeError:      # (a PyTorch without unsigned 16- to 64-bit tensors: the same bits, signed)
            t = torch.from_numpy(arr.view(np.dtype(f"i{arr.dtype.itemsize}")))
        return t.to(like.device) if cuda else t
    return out


def _matmul2d(A: np.ndarray, B: np.ndarray, C: ArrayLike, unit: UnitLike, mode: str, nc: int, sa: ArrayLike,
              sb: ArrayLike, scale_a: ArrayLike, scale_b: ArrayLike, block: Any, saturate: bool,
              threads: Optional[int]) -> np.ndarray:
    u = _unit(unit)
    if mode not in _MODES and mode != "exact":
        raise ValueError(f"mode: expected 'tc', 'promote', 'twostage' or 'exact', got {mode!r}")
    if isinstance(nc, bool) or not isinstance(nc, (int, np.integer)):
        raise TypeError(f"nc: expected an integer, got {type(nc).__name__}")
    fm = u.formats
    for nm, x in (("A", A), ("B", B)):
        if x.dtype.kind not in "uif" and not _format_of_dtype(x.dtype):
            raise TypeError(f"{nm}: expected real numbers or encodings, got dtype {x.dtype.name}")
    M, K = A.shape
    if B.shape[0] != K:
        raise ValueError(f"B: expected {K} rows (A is {M} x {K}), got shape {B.shape}")
    N = B.shape[1]
    if K == 0 or K % u.K:
        raise ValueError(f"A, B: the depth K={K} must be a positive multiple of {u}'s K={u.K}")
    if mode == "promote" and (nc < 1 or nc % u.K):
        raise ValueError(f"nc: {nc} is not a positive multiple of {u}'s K={u.K}")
    blk_a = blk_b = None
    if block is not None:
        try:
            blk_a, blk_b = (tuple(int(t) for t in b) if b is not None else None for b in block)
            assert blk_a is None or len(blk_a) == 2
            assert blk_b is None or len(blk_b) == 2
        except (TypeError, ValueError, AssertionError):
            raise ValueError(f"block: expected ((bm, bk), (bk, bn)), the blocks of A and B, got {block!r}") from None
    enc_a, enc_b = _is_encoded(A, fm["a"]), _is_encoded(B, fm["b"])
    floats_out = not (A.dtype.kind in "ui" and B.dtype.kind in "ui")
    # the scales applied outside the unit: given, or (floats and a block) made by quantize
    outer = scale_a is not None or scale_b is not None or block is not None
    if outer:
        if mode == "exact":
            raise ValueError("mode: 'exact' takes no scale_a, scale_b or block (scale the exact result yourself)")
        if not enc_a and scale_a is None and blk_a is not None:
            A, scale_a = _quantize(A, fm["a"], blk_a, saturate, "A")
            enc_a = True
        elif not enc_a and scale_a is not None:
            ga, bka = _scale_grid(scale_a, "scale_a", M, K, blk_a, False, f"A ({M} x {K})")
            A = encode(A.astype(np.float32) / np.repeat(ga, bka, axis=1), fm["a"], saturate=bool(saturate))
            enc_a = True
        if not enc_b and scale_b is None and blk_b is not None:
            B, scale_b = _quantize(B, fm["b"], blk_b, saturate, "B")
            enc_b = True
        elif not enc_b and scale_b is not None:
            gb, bkb = _scale_grid(scale_b, "scale_b", N, K, blk_b, True, f"B ({K} x {N})")
            B = encode(B.astype(np.float32) / np.repeat(gb, bkb, axis=1).T, fm["b"], saturate=bool(saturate))
            enc_b = True
    scaled = fm["scale"] is not None
    nb = K // u.block if scaled else 0
    if scaled and (enc_a or enc_b) and (sa is None or sb is None):
        raise ValueError(f"sa, sb: {u} is block-scaled; with encoded A or B, give their scales "
                         f"(sa: {M} x {nb}, sb: {nb} x {N} encodings of {fm['scale'].name})")
    if not scaled and (sa is not None or sb is not None):
        raise ValueError(f"sa, sb: {u} takes no block scales")
    Bt = B.T

    def operand(x: np.ndarray, enc: bool, f: Format, s: ArrayLike, nm: str, sshape: Tuple[int, int]):
        if enc:
            e = _c_array(_as_encodings(x, f, nm), np.uint64)
            if scaled:
                se = _as_encodings(s, fm["scale"], "s" + nm.lower())
                if se.shape != sshape:
                    raise ValueError(f"s{nm.lower()}: expected shape {sshape}, got {se.shape}")
                se = _c_array(se if nm == "A" else se.T, np.uint64)
                return e, se
            return e, None
        v = _c_array(x, np.float64)
        if scaled:
            e = np.empty(v.shape, dtype=np.uint64)
            se = np.empty((v.shape[0], nb), dtype=np.uint64)
            _core.block_quantize(fm["scale"].id, u.block, f.id, K, v.reshape(-1), e.reshape(-1), se.reshape(-1),
                                 _OVERFLOW[bool(saturate)])
            return e, se
        return _c_array(encode(v, f, saturate=bool(saturate)), np.uint64), None

    Ae, sae = operand(A, enc_a, fm["a"], sa, "A", (M, nb))
    Be, sbe = operand(Bt, enc_b, fm["b"], sb, "B", (nb, N))
    Ce = None
    if C is not None:
        Cx = np.asarray(C)
        if Cx.dtype.kind == "f" and _format_of_dtype(Cx.dtype) != fm["c"].name:
            Cx = encode(Cx, fm["c"], saturate="inf")
        Cx = _as_encodings(Cx, fm["c"], "C")
        try:
            Ce = _c_array(np.broadcast_to(Cx, (M, N)), np.uint64)
        except ValueError:
            raise ValueError(f"C: shape {Cx.shape} does not broadcast to {(M, N)}") from None
    t = _threads(threads)
    if outer:
        ga, wa = _scale_grid(1.0 if scale_a is None else scale_a, "scale_a", M, K, blk_a, False, f"A ({M} x {K})")
        gb, wb = _scale_grid(1.0 if scale_b is None else scale_b, "scale_b", N, K, blk_b, True, f"B ({K} x {N})")
        w = math.gcd(wa, wb)
        if w % u.K:
            raise ValueError(f"scale_a, scale_b: they change every {w} products along K, not a multiple of "
                             f"{u}'s K={u.K}")
        inner = mode
        if w < K:
            if mode != "promote":
                raise ValueError(f"scale_a, scale_b: they change along K every {w} products, which the unit's "
                                 f"accumulator cannot apply: give promote={w} (the accumulator promoted to FP32 "
                                 f"where they change)")
            if w % nc:
                raise ValueError(f"promote: {nc} does not divide the scales' blocks of {w} products along K")
            inner = "tc" if nc == w else "promote"
        nw = K // w
        xa = _c_array(np.repeat(ga, wa // w, axis=1)[:, :nw], np.float32)
        xb = _c_array(np.repeat(gb, wb // w, axis=1)[:, :nw], np.float32)
        D = np.empty((M, N), dtype=np.uint64)
        _core.gemm_scaled(u._u, _MODES[inner], nc, w, M, N, K, Ae, Be, sae, sbe, xa, xb, Ce, D, t)
        rf = FORMATS["fp64" if fm["d"].name == "fp64" else "fp32"]
        return decode(D, rf) if floats_out else D.astype(rf.dtype)
    if mode == "exact":
        X = np.empty((M, N), dtype=np.float64)
        _core.gemm(u._u, 0, nc, M, N, K, Ae, Be, sae, sbe, Ce, None, X, t)
        return X
    D = np.empty((M, N), dtype=np.uint64)
    _core.gemm(u._u, _MODES[mode], nc, M, N, K, Ae, Be, sae, sbe, Ce, D, None, t)
    rf = fm["d"] if mode == "tc" else FORMATS["fp64" if fm["d"].name == "fp64" else "fp32"]
    return decode(D, rf) if floats_out else D.astype(rf.dtype)


# ---- metrics -------------------------------------------------------------------------
_DISTS = ("normal", "uniform", "llm", "cancel", "bits")


def _run_args(units_: Sequence[UnitLike], dist: str, scale: float, k: Optional[int], count: int, seed: int,
              quant: Optional[str], threads: Optional[int]) -> Tuple[List[Unit], int, int, int]:
    if not units_:
        raise ValueError("units: give at least one unit")
    us = [_unit(x, "units") for x in units_]
    if dist not in _DISTS:
        raise ValueError(f"dist: unknown distribution {dist!r} (one of: {', '.join(_DISTS)})")
    for nm, v in (("count", count), ("seed", seed)) + ((("k", k),) if k is not None else ()):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if nm == "seed" else 1):
            raise ValueError(f"{nm}: expected a {'non-negative' if nm == 'seed' else 'positive'} integer, got {v!r}")
    if not isinstance(scale, (int, float)) or not scale > 0 or scale == float("inf"):
        raise ValueError(f"scale: expected a positive number, got {scale!r}")
    q = 0
    if quant is not None:
        qf = get_format(quant)
        if qf.width > 32:
            raise ValueError(f"quant: needs an input format (e4m3, fp16, ...), got {quant!r}")
        q = qf.id
    return us, _DISTS.index(dist), q, _threads(threads)


def _out_name(u: Unit) -> str:
    d = u.formats["d"]
    return d.name if u.fields["p"] == d.mbits else f"{d.name}(p={u.fields['p']})"


def _fig(v: float, is_count: bool) -> Optional[Union[int, float]]:
    if v != v:
        return None
    return int(v) if is_count else v


def metrics(*units: UnitLike, dist: str = "normal", count: int = 100000, seed: int = 1, k: Optional[int] = None,
            scale: float = 1.0, zero_c: bool = False, quant: Optional[str] = None,
            threads: Optional[int] = None) -> List[Dict[str, Any]]:
    """Error statistics of units against the exact result, as
    ``mmaref metrics`` computes them (the same numbers as its ``--json``).

    Every unit sees the same drawn vectors (``dist``: normal, uniform, llm,
    cancel or bits; ``count`` vectors from ``seed``), quantized into its own
    formats; a depth ``k`` larger than a unit's K is a chain of K/k calls.
    Returns one dict per unit: unit, config, out, and the figures n, special,
    sp_diff, max_ulp, mean_ulp, p50_ulp ... ne_fp32 (None where undefined).
    docs/accuracy.md says what each figure means."""
    us, di, q, t = _run_args(units, dist, scale, k, count, seed, quant, threads)
    _, _, rows = _core.metrics_run([u._u for u in us], False, di, float(scale), int(k or 0), int(count), int(seed),
                                   bool(zero_c), q, t, (), 128, False)
    out = []
    for u, (config, _mode, _out, _nc, figs) in zip(us, rows):
        r: Dict[str, Any] = {"unit": u.spec, "config": config, "out": _out_name(u)}
        for (name, is_count), v in zip(_core.METRICS_FIGURES, figs):
            r[name] = _fig(v, is_count)
        out.append(r)
    return out


def gemm_metrics(*units: UnitLike, k: int, modes: Sequence[str] = ("tc",), nc: int = 128, dist: str = "normal",
                 count: int = 1000, seed: int = 1, scale: float = 1.0, quant: Optional[str] = None,
                 ntrun: bool = False, threads: Optional[int] = None) -> List[Dict[str, Any]]:
    """GEMM-depth accumulation statistics, as ``mmaref gemm`` computes them
    (the same numbers as its ``--json``): one output element of depth ``k``
    per vector, c = +0, in each of ``modes`` (tc, promote every ``nc``,
    twostage).  Returns one dict per unit and mode (unit, config, mode, out,
    nc, and the figures n, special, agg_rel, mean_rel, ... ne_fp32).

    With ``ntrun=True``, the output-truncation sweep of the blog post "Some
    Matrix Multiplication Engines Are Not As Accurate As We Thought" instead: per unit,
    ``first_change`` and ``sweep``, a list of dicts (ntrun, changed,
    max_rel_change, mean_rel_change)."""
    if isinstance(modes, str):
        modes = modes.split(",")
    ms: List[int] = []
    for m in modes:
        if m not in _MODES:
            raise ValueError(f"modes: unknown mode {m!r} (tc, promote, twostage)")
        if _MODES[m] not in ms:
            ms.append(_MODES[m])
    if not ms:
        raise ValueError("modes: give at least one mode")
    if isinstance(nc, bool) or not isinstance(nc, (int, np.integer)) or nc < 1:
        raise ValueError(f"nc: expected a positive integer, got {nc!r}")
    us, di, q, t = _run_args(units, dist, scale, k, count, seed, quant, threads)
    kk, _tmax, rows = _core.metrics_run([u._u for u in us], True, di, float(scale), int(k), int(count), int(seed),
                                        True, q, t, ms, int(nc), bool(ntrun))
    if ntrun:
        return [{"unit": u.spec, "first_change": first,
                 "sweep": [{"ntrun": tr, "changed": ch, "max_rel_change": mx, "mean_rel_change": me}
                           for tr, ch, mx, me in sweep]}
                for u, (first, sweep) in zip(us, rows)]
    out = []
    for i, (config, mode, outf, ncv, figs) in enumerate(rows):
        u = us[i // len(ms)]
        r: Dict[str, Any] = {"unit": u.spec, "config": config, "mode": mode, "out": outf,
                             "nc": None if mode == "tc" else ncv}
        for (name, is_count), v in zip(_core.GEMM_FIGURES, figs):
            r[name] = _fig(v, is_count)
        out.append(r)
    return out


# ---- vector files -------------------------------------------------------------------------
@dataclass
class VectorFile:
    """The contents of a vector file: the unit and one row per vector
    (arrays of uint64 encodings; sa, sb empty for unscaled units)."""

    unit: Unit
    c: np.ndarray
    a: np.ndarray
    b: np.ndarray
    sa: np.ndarray
    sb: np.ndarray
    d: Optional[np.ndarray]
    """None when the file has no d column"""
    line: np.ndarray
    """the line number of each vector"""
    headers: List[str] = field(default_factory=list)
    """header lines other than the standard ones, verbatim"""
    flags: Optional[np.ndarray] = None
    """the exception flags of each vector (uint8, ``Flag`` bits); None when
    the file has no flags field"""

    def __len__(self) -> int:
        return len(self.c)


def read_vectors(path: Union[str, os.PathLike], instr: Optional[str] = None) -> VectorFile:
    """Read a vector file (plain, .xz or .gz).  ``instr`` overrides the
    file's ``# instr:``.  A malformed file raises mmaref.Error naming file,
    line and field."""
    r = _core.read_vectors(os.fspath(path), instr)
    u = Unit(r["name"] or r["config"])
    n, k, ns = r["n"], u.K, u.nscales

    def arr(key: str, *shape: int) -> np.ndarray:
        return np.frombuffer(r[key], dtype=np.uint64).reshape(shape).copy()

    return VectorFile(u, arr("c", n), arr("a", n, k), arr("b", n, k), arr("sa", n, ns), arr("sb", n, ns),
                      arr("d", n) if r["has_d"] else None, arr("line", n), r["headers"],
                      arr("flags", n).astype(np.uint8) if r["has_flags"] else None)


def _open_out(tmp: str, path: str):
    """tmp, compressed as the name path says"""
    if path.endswith(".xz"):
        return lzma.open(tmp, "wt")
    if path.endswith(".gz"):
        return gzip.open(tmp, "wt")
    return open(tmp, "w")


def write_vectors(path: Union[str, os.PathLike], unit: UnitLike, c: ArrayLike, a: ArrayLike, b: ArrayLike,
                  sa: ArrayLike = None, sb: ArrayLike = None, d: ArrayLike = None, flags: ArrayLike = None,
                  *, threads: Optional[int] = None) -> int:
    """Write vectors to a file (.xz and .gz compressed by name), d computed
    by the unit when not given.  For a unit with exception flags the file
    carries the flags field: the model's with d when neither is given, else
    ``flags`` must come with ``d``.  The file appears whole or not at all (a
    temporary file renamed into place).  Returns the number of vectors."""
    u = _unit(unit)
    cc, aa, bb, ssa, ssb, lead = u._operands(c, a, b, sa, sb, False)
    if flags is not None and not u.has_flags:
        raise ValueError(f"flags: {u} defines no exception flags")
    if d is None:
        if flags is not None:
            raise ValueError("flags: given without d (give both, or neither to have the model compute them)")
        d = u.dot(cc, aa, bb, ssa, ssb, threads=threads, flags=True) if u.has_flags else \
            u.dot(cc, aa, bb, ssa, ssb, threads=threads)
        if u.has_flags:
            d, flags = d
    elif u.has_flags and flags is None:
        raise ValueError(f"flags: {u} defines exception flags: give each vector's flags with d")
    de = np.broadcast_to(_as_encodings(d, u.formats["d"], "d"), lead)
    fe = None
    if flags is not None:
        fa = np.asarray(flags)
        if fa.dtype.kind not in "ui" or (fa.size and (fa.min() < 0 or fa.max() > 0x1f)):
            raise ValueError("flags: expected integers of Flag bits (0 to 0x1f)")
        try:
            fe = np.broadcast_to(fa, lead)
        except ValueError:
            raise ValueError(f"flags: shape {fa.shape} does not broadcast to the vectors' shape {lead}") from None
    u64 = lambda x: None if x is None else _c_array(x, np.uint64).reshape(-1)
    text = _core.format_vectors(u._u, u64(cc), u64(aa), u64(bb), u64(ssa), u64(ssb), u64(de), u64(fe))
    path = os.fspath(path)
    if path.endswith((".bz2", ".lz4", ".lzma", ".zip", ".7z", ".zst")):
        raise ValueError(f"path: {path}: unknown compression (write .vec, .vec.xz or .vec.gz)")
    # a hidden temporary file beside the target, renamed into place: the
    # file appears whole or not at all, and an error names the target
    folder = os.path.dirname(path) or "."
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    except OSError as e:
        raise OSError(e.errno, f"{path}: {e.strerror}") from None
    try:
        os.close(fd)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        try:
            with _open_out(tmp, path) as f:
                f.write(text)
        except OSError as e:
            raise OSError(e.errno, f"{path}: {e.strerror}") from None
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return int(np.prod(lead, dtype=np.int64))


@dataclass
class CheckResult:
    """What check_vectors found: ``count`` vectors, and per mismatch its line,
    the file's d and the model's d (a vector whose flags alone differ is a
    mismatch too); ``flag_mismatches``: per vector whose flags differ, its
    line, the file's flags and the model's."""

    path: str
    count: int
    mismatches: List[Tuple[int, int, int]]
    flag_mismatches: List[Tuple[int, int, int]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def __str__(self) -> str:
        return f"{self.count} vectors, {len(self.mismatches)} mismatches"


def check_vectors(path: Union[str, os.PathLike], instr: Optional[str] = None, *, raise_on_mismatch: bool = True,
                  threads: Optional[int] = None, allow_empty: bool = False) -> CheckResult:
    """Recompute d for every vector of a file and compare bit for bit (NaN
    payloads per the unit's rule), as ``mmaref check`` does.  Any mismatch
    raises MismatchError (listing the first ten) unless
    ``raise_on_mismatch=False``; then the result says what differed.  A
    file with no vectors raises Error (nothing was checked: an empty dump of
    a unit must not pass) unless ``allow_empty``."""
    vf = read_vectors(path, instr)
    if vf.d is None:
        raise Error(f"{os.fspath(path)}: field d: the file has no d column to check")
    if len(vf) == 0 and not allow_empty:
        raise Error(f"{os.fspath(path)}: 0 vectors: nothing was checked (allow_empty=True to accept)")
    u = vf.unit
    sab = (vf.sa, vf.sb) if u.nscales else (None, None)
    cmp_flags = vf.flags is not None and u.has_flags
    if cmp_flags:
        d, fl = u.dot(vf.c, vf.a, vf.b, *sab, flags=True, threads=threads)
        fbad = fl != vf.flags
    else:
        d = u.dot(vf.c, vf.a, vf.b, *sab, threads=threads)
        fbad = np.zeros(len(vf), dtype=bool)
    ok = u.result_equal(d, vf.d.astype(d.dtype)) & ~fbad
    bad = np.flatnonzero(~ok)
    res = CheckResult(os.fspath(path), len(vf), [(int(vf.line[i]), int(vf.d[i]), int(d[i])) for i in bad],
                      [(int(vf.line[i]), int(vf.flags[i]), int(fl[i])) for i in np.flatnonzero(fbad)] if cmp_flags else [])
    if bad.size and raise_on_mismatch:
        hd = u.formats["d"].hexdigits
        fls = {ln: (ff, mf) for ln, ff, mf in res.flag_mismatches}
        lines = "\n".join(f"  {res.path}:{ln}: file d={fd:0{hd}x} model d={md:0{hd}x}"
                          + (f", file flags={fls[ln][0]:02x} model flags={fls[ln][1]:02x}" if ln in fls else "")
                          for ln, fd, md in res.mismatches[:10])
        raise MismatchError(f"{res}\n{lines}", res)
    return res


from .plot import plot_gemm, plot_metrics  # noqa: E402  (they call metrics and gemm_metrics above)
