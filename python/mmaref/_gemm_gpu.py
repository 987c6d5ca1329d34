"""GEMMs of PyTorch CUDA tensors on the GPU: ``matmul`` through the CUDA
backend.  Every output element is the chain of instruction calls that
``mma_gemm`` (model/src/matmul.c) makes on the CPU: the K/k calls of one
step of the chain are one batch of M x N dot products (Unit.dot on CUDA
tensors, the unit's own arithmetic in the backend's kernels), each call's
d the next call's c; with promotion, every ``nc`` products the window's
result is added into an FP32 register with PyTorch's float32 addition
(IEEE 754, round to nearest even: the CPU's ``r += (float)d``).  Translation
only: the arithmetic is the unit's and IEEE's."""
from __future__ import annotations

from typing import Any, Optional

_UINT = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}
_FLOAT = {2: "float16", 4: "float32", 8: "float64"}


def usable(u: Any, mode: str, A: Any, B: Any, C: Any, outer: bool, sa: Any, sb: Any) -> bool:
    """whether this call runs on the GPU: CUDA tensors of unsigned
    encodings, a unit without block scales whose c and d formats are one
    (each d is the next c), no scales applied outside it, 2-D operands"""
    fm = u.formats
    if outer or sa is not None or sb is not None or fm["scale"] is not None or fm["c"].name != fm["d"].name:
        return False
    if mode not in ("tc", "promote", "twostage") or fm["d"].name not in ("fp32", "fp16", "bf16"):
        return False
    for x in (A, B):
        if not (getattr(x, "is_cuda", False) and x.dim() == 2 and str(x.dtype).startswith("torch.uint")):
            return False
    return C is None or (getattr(C, "is_cuda", False) and str(C.dtype).startswith("torch.uint"))


def _fp32_of(torch: Any, d: Any, name: str) -> Any:
    """d's values (encodings of fp32, fp16 or bf16) as float32, exactly"""
    if name == "fp32":
        return d.view(torch.float32)
    return d.view(torch.float16 if name == "fp16" else torch.bfloat16).to(torch.float32)


def matmul(u: Any, A: Any, B: Any, C: Optional[Any], mode: str, nc: int) -> Any:
    """A (M x K) @ B (K x N) (+ C) of unsigned encoding tensors on one GPU:
    the unit's d encodings (tc) or fp32 encodings (promote, twostage)"""
    import torch
    M, K = A.shape
    N = B.shape[1]
    ku = u.K
    fm = u.formats
    dname = fm["d"].name
    ud = getattr(torch, _UINT[fm["d"].dtype.itemsize])
    Bt = B.t().contiguous()
    zero = torch.zeros((M * N,), dtype=ud, device=A.device)
    c0 = zero if C is None else C.reshape(-1).to(ud).contiguous()

    def call(c: Any, t: int) -> Any:
        a = A[:, t * ku:(t + 1) * ku].unsqueeze(1).expand(M, N, ku).reshape(M * N, ku)
        b = Bt[:, t * ku:(t + 1) * ku].unsqueeze(0).expand(M, N, ku).reshape(M * N, ku)
        return u.dot(c, a, b)

    if mode == "tc":
        d = c0
        for t in range(K // ku):
            d = call(d, t)
        return d.reshape(M, N)
    w = ku if mode == "twostage" else nc
    r = _fp32_of(torch, c0, dname).clone()
    for w0 in range(0, K, w):
        d = zero
        for t in range(w0 // ku, min(K, w0 + w) // ku):
            d = call(d, t)
        r = r + _fp32_of(torch, d, dname)
    return r.view(torch.uint32).reshape(M, N)
