"""PyTorch and CuPy arrays in mmaref: CPU tensors become NumPy arrays of the
same bits (ml_dtypes for bfloat16 and the FP8 types), and dot products on
CUDA tensors run on the GPU through the CUDA backend (cuda/mmaref_cuda.h),
the operands read in place through DLPack.  Translation only: the
arithmetic is the library's."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _core

_CUDA: Any = None


def _load_cuda() -> Any:
    """the backend's module, imported on first use (it loads the CUDA
    runtime); Error when it cannot be"""
    global _CUDA
    if _CUDA is None:
        try:
            from . import _cuda
        except ImportError as e:       # built without nvcc, or no CUDA runtime to load
            raise _core.Error(f"the CUDA backend is not there (mmaref._cuda: {e}): install mmaref where nvcc "
                              f"is found (pip install . with nvcc on PATH or in /usr/local/cuda/bin)") from None
        _CUDA = _cuda
    return _CUDA

# DLPack device types (dlpack.h): a CUDA device's memory, managed memory
_DL_CPU, _DL_CUDA, _DL_CUDA_MANAGED = 1, 2, 13
# DLPack dtype codes: signed, unsigned, IEEE float, bfloat
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT = 0, 1, 2, 4


def module_of(x: Any) -> str:
    return type(x).__module__.split(".")[0]


def is_torch(x: Any) -> bool:
    return module_of(x) == "torch" and hasattr(x, "is_cuda")


def on_gpu(x: Any) -> bool:
    """A CUDA array of any DLPack producer (PyTorch, CuPy, JAX, ...)."""
    if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack_device__"):
        return False
    try:
        return int(x.__dlpack_device__()[0]) in (_DL_CUDA, _DL_CUDA_MANAGED)
    except Exception:
        return False


def torch_dtype_name(x: Any) -> str:
    return str(x.dtype).replace("torch.", "")


def to_numpy(x: Any, arg: str) -> Any:
    """A PyTorch CPU tensor as a NumPy array of the same values and bits
    (bfloat16 and FP8 as ml_dtypes arrays); anything else unchanged.  A
    CUDA tensor is refused here: the callers that take one say so."""
    if not is_torch(x):
        return x
    if x.is_cuda:
        raise TypeError(f"{arg}: a CUDA tensor; this function takes CPU arrays (Unit.dot takes CUDA tensors)")
    x = x.detach().contiguous()
    name = torch_dtype_name(x)
    try:
        return x.numpy()
    except TypeError:
        pass
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(f"{arg}: a torch.{name} tensor needs ml_dtypes (pip install ml_dtypes) to be read") from None
    if not hasattr(ml_dtypes, name):
        raise TypeError(f"{arg}: torch.{name} tensors are not supported")
    import torch
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    return x.view(bits).numpy().view(getattr(ml_dtypes, name))


# ---- the GPU path --------------------------------------------------------------------


def _stream(x: Any) -> int:
    """the current stream of x's framework on x's device (0: the default)"""
    m = module_of(x)
    if m == "torch":
        import torch
        return int(torch.cuda.current_stream(x.device).cuda_stream)
    if m == "cupy":
        import cupy
        return int(cupy.cuda.get_current_stream().ptr)
    return 0


class _View:
    """A GPU operand read through DLPack: its pointer, element size, shape
    (the capsule is kept so that the producer keeps the memory)."""

    def __init__(self, x: Any, arg: str, fmt: Any, stream: int, fmt_of_dtype: Any, ours: bool = False):
        name = torch_dtype_name(x) if is_torch(x) else np.dtype(getattr(x, "dtype", "u1")).name
        try:
            # the array API's rule for __dlpack__(stream=): 1 is the legacy default stream
            self.capsule = x.__dlpack__(stream=stream if stream else 1)
            (self.ptr, dev_type, self.device, code, bits, lanes, shape, strides) = _core.dlpack(self.capsule)
        except (BufferError, RuntimeError, TypeError):
            if not is_torch(x):
                raise
            # (PyTorch exports no DLPack for some dtypes, its unsigned ones
            # and the FP8 types among them in some versions: read the tensor)
            self.capsule = x
            self.ptr, dev_type, self.device = int(x.data_ptr()), _DL_CUDA if x.is_cuda else _DL_CPU, x.get_device()
            bits, lanes, shape = x.element_size() * 8, 1, tuple(x.shape)
            strides = None if x.is_contiguous() else tuple(x.stride())
            code = (_DL_UINT if name.startswith("uint") else _DL_INT if name.startswith("int")
                    else _DL_FLOAT)
        self.shape = tuple(shape)
        if dev_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
            raise TypeError(f"{arg}: not on a CUDA device (DLPack device type {dev_type})")
        if lanes != 1 or bits % 8 or bits // 8 not in (1, 2, 4, 8):
            raise TypeError(f"{arg}: elements of {bits} bits x {lanes} lanes cannot hold encodings")
        if strides is not None:
            want, s = [], 1
            for n in reversed(self.shape):
                want.append(s)
                s *= n
            if any(st != w for st, w, n in zip(strides, reversed(want), self.shape) if n > 1):
                raise ValueError(f"{arg}: not contiguous (strides {strides}); call .contiguous() first")
        self.size = bits // 8
        if code == _DL_UINT or (ours and code == _DL_INT):
            pass
        elif code == _DL_INT:
            raise TypeError(f"{arg}: signed integers ({name}) are not taken as encodings on the GPU; "
                            f"use an unsigned dtype or the format's own floating dtype")
        elif fmt_of_dtype(name) != fmt.name:
            raise TypeError(f"{arg}: expected encodings of {fmt.name} (unsigned integers, or the format's own "
                            f"dtype), got {name}; round values into {fmt.name} first")
        if self.size * 8 < fmt.width:
            raise TypeError(f"{arg}: {self.size}-byte elements cannot hold {fmt.name}'s {fmt.width} bits")


def _empty(like: Any, shape: Tuple[int, ...], itemsize: int):
    """an uninitialized array of unsigned integers on like's device, of its framework"""
    m = module_of(like)
    if m == "torch":
        import torch
        dt = {1: torch.uint8, 2: torch.uint16, 4: torch.uint32, 8: torch.uint64}[itemsize]
        t = torch.empty(shape, dtype=dt, device=like.device)
        return t, int(t.data_ptr())
    if m == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            t = cupy.empty(shape, dtype=np.dtype(f"u{itemsize}"))
        return t, int(t.data.ptr)
    raise TypeError(f"CUDA arrays of {m}: mmaref makes its results as PyTorch or CuPy arrays; "
                    f"pass torch or cupy tensors")


def _as_gpu(x: Any, like: Any, shape: Tuple[int, ...], fmt: Any, arg: str):
    """c broadcast to shape on like's device: a scalar or array of c's
    encodings (a CUDA array is taken as it is when already of that shape)"""
    m = module_of(like)
    if on_gpu(x):
        if tuple(x.shape) == shape:
            return x.contiguous() if m == "torch" else x
        if m == "torch":
            return x.expand(shape).contiguous()
        import cupy
        return cupy.ascontiguousarray(cupy.broadcast_to(x, shape))
    arr = np.asarray(x)
    if arr.dtype.kind == "i":
        if arr.size and arr.min() < 0:
            raise ValueError(f"{arg}: encodings cannot be negative (got {int(arr.min())})")
    elif arr.dtype.kind != "u":
        raise TypeError(f"{arg}: expected encodings of {fmt.name} (unsigned integers), got dtype {arr.dtype.name}")
    arr = np.ascontiguousarray(np.broadcast_to(arr.astype(fmt.dtype), shape))
    if m == "torch":
        import torch
        try:
            return torch.from_numpy(arr).to(like.device)
        except TypeError:      # (a PyTorch without unsigned 16- to 64-bit tensors: the same bits, signed)
            return torch.from_numpy(arr.view(np.dtype(f"i{fmt.dtype.itemsize}"))).to(like.device)
    import cupy
    with cupy.cuda.Device(like.device.id):
        return cupy.asarray(arr)


def dot_gpu(unit: Any, c: Any, a: Any, b: Any, sa: Any, sb: Any, flags: bool, fmt_of_dtype: Any):
    """Unit.dot on CUDA arrays: d (and flags) as arrays of a's framework on
    its device, computed on the stream current there (not waited for)."""
    cu = _load_cuda()
    fm = unit.formats
    for nm, x in (("a", a), ("b", b)):
        if not on_gpu(x):
            raise TypeError(f"{nm}: a and b must both be CUDA arrays (got {type(x).__name__})")
    s = _stream(a)
    va = _View(a, "a", fm["a"], s, fmt_of_dtype)
    vb = _View(b, "b", fm["b"], s, fmt_of_dtype)
    if not va.shape or va.shape[-1] != unit.K:
        raise ValueError(f"a: the last axis must hold {unit}'s K={unit.K} products, got shape {va.shape}")
    if vb.shape != va.shape:
        raise ValueError(f"b: shape {vb.shape} differs from a's {va.shape}")
    if vb.device != va.device:
        raise ValueError(f"b: on CUDA device {vb.device}, a on {va.device}")
    lead = va.shape[:-1]
    n = int(np.prod(lead, dtype=np.int64)) if lead else 1
    cc = _as_gpu(c, a, lead, fm["c"], "c")
    vc = _View(cc, "c", fm["c"], s, fmt_of_dtype, ours=not on_gpu(c))
    ns = unit.nscales
    vsa = vsb = None
    if ns:
        if sa is None or sb is None:
            raise ValueError(f"sa, sb: {unit} is block-scaled: each vector needs {ns} scales of "
                             f"{fm['scale'].name} per operand (shape {lead + (ns,)})")
        sa_g = _as_gpu(sa, a, lead + (ns,), fm["scale"], "sa")
        sb_g = _as_gpu(sb, a, lead + (ns,), fm["scale"], "sb")
        vsa = _View(sa_g, "sa", fm["scale"], s, fmt_of_dtype, ours=not on_gpu(sa))
        vsb = _View(sb_g, "sb", fm["scale"], s, fmt_of_dtype, ours=not on_gpu(sb))
        for nm, v in (("sa", vsa), ("sb", vsb)):
            if v.size != vsa.size:
                raise TypeError("sa, sb: elements of one size expected")
    elif sa is not None or sb is not None:
        raise ValueError(f"sa, sb: {unit} takes no block scales")
    d, dp = _empty(a, lead, fm["d"].dtype.itemsize)
    fl, fp = _empty(a, lead, 1) if flags else (None, 0)
    cu.dot(unit.spec, n, va.device, s, vc.ptr, vc.size, va.ptr, va.size, vb.ptr, vb.size,
                   vsa.ptr if vsa else 0, vsa.size if vsa else 1, vsb.ptr if vsb else 0,
                   dp, fm["d"].dtype.itemsize, fp)
    return (d, fl) if flags else d


def cuda_device() -> Optional[str]:
    """The CUDA device the backend would use, or None (built without it, or no device)."""
    try:
        return _load_cuda().device()
    except _core.Error:
        return None
