"""Unit.dot on CUDA tensors (PyTorch, CuPy) through the CUDA backend: the
same bits as the CPU path on every dtype route (unsigned encodings, the
format's own dtype), flags, block scales; bad input refused with the
argument named.  Skipped where there is no GPU, no backend module
(mmaref._cuda, built where nvcc is found) or no PyTorch; PyTorch CPU
tensors are checked wherever PyTorch is installed."""
import numpy as np
import pytest

import mmaref

torch = pytest.importorskip("torch")

GPU = torch.cuda.is_available() and mmaref.cuda_device() is not None
needs_gpu = pytest.mark.skipif(not GPU, reason="no CUDA device, or mmaref built without its CUDA backend")

rng = np.random.default_rng(31)

UNITS = [
    "hopper:wgmma.m64n8k32.f32.e4m3.e4m3",
    "hopper:wgmma.m64n8k16.f32.bf16.bf16",
    "ampere:mma.m16n8k16.f32.f16.f16.f32",
    "cdna3:v_mfma_f32_16x16x32_fp8_fp8",
    "cdna2:v_mfma_f32_16x16x16f16",
    "hopper:mma.m8n8k4.f64.f64.f64.f64",
    "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0",
    "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3",
    "cdna1:v_mfma_f32_16x16x16f16",
    "ieee,a=fp16,c=fp32,k=8",
]


def bits(fmt, shape):
    f = mmaref.get_format(fmt)
    hi = 1 << f.width
    return rng.integers(0, hi, size=shape, dtype=np.uint64).astype(f.dtype)


def operands(u, n):
    fm = u.formats
    c, a, b = bits(fm["c"].name, (n,)), bits(fm["a"].name, (n, u.K)), bits(fm["b"].name, (n, u.K))
    sa = sb = None
    if u.nscales:
        sa, sb = bits(fm["scale"].name, (n, u.nscales)), bits(fm["scale"].name, (n, u.nscales))
    return c, a, b, sa, sb


def to_cuda(x):
    if x is None:
        return None
    t = torch.from_numpy(x.view(np.dtype(f"i{x.dtype.itemsize}")) if x.dtype.itemsize > 1 else x)
    return t.cuda()


def back(t, dtype):
    t = t.cpu()
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]).numpy().view(dtype)


@needs_gpu
@pytest.mark.parametrize("name", UNITS)
def test_gpu_matches_cpu(name):
    u = mmaref.Unit(name)
    c, a, b, sa, sb = operands(u, 20000)
    want = u.dot(c, a, b, sa, sb)
    ga, gb = to_cuda(a), to_cuda(b)
    # (signed views of the bits above are refused: the unsigned ones are the encodings)
    if ga.dtype != torch.uint8:
        ga, gb = ga.view(getattr(torch, f"uint{8 * a.dtype.itemsize}")), gb.view(getattr(torch, f"uint{8 * b.dtype.itemsize}"))
    gsa = gsb = None
    if sa is not None:
        gsa, gsb = to_cuda(sa), to_cuda(sb)
    d = u.dot(c, ga, gb, gsa, gsb)
    assert d.is_cuda and tuple(d.shape) == want.shape
    got = back(d, want.dtype)
    same = got == want
    assert (same | u.result_equal(got, want)).all()
    if not u.fields["nan_any"]:       # (else a NaN may carry another payload, as on the CPU's two paths)
        assert same.all(), f"{name}: {int((~same).sum())} results differ"


@needs_gpu
def test_gpu_format_dtypes_and_flags():
    u = mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    c, a, b, _, _ = operands(u, 4096)
    want = u.dot(c, a, b)
    ga = torch.from_numpy(a).cuda().view(torch.float8_e4m3fn)     # the format's own dtype
    gb = torch.from_numpy(b).cuda().view(torch.float8_e4m3fn)
    d = u.dot(torch.from_numpy(c.view(np.int32)).cuda().view(torch.uint32), ga, gb)
    assert (back(d, np.uint32) == want).all()
    f = mmaref.Unit("ieee,a=fp16,c=fp32,k=8")
    c, a, b, _, _ = operands(f, 4096)
    wd, wf = f.dot(c, a, b, flags=True)
    gd, gf = f.dot(c, torch.from_numpy(a.view(np.int16)).cuda().view(torch.float16),
                   torch.from_numpy(b.view(np.int16)).cuda().view(torch.float16), flags=True)
    assert (back(gd, np.uint32) == wd).all() and (gf.cpu().numpy() == wf).all()


@needs_gpu
def test_gpu_cupy():
    cupy = pytest.importorskip("cupy")
    u = mmaref.Unit("ampere:mma.m16n8k16.f32.bf16.bf16.f32")
    c, a, b, _, _ = operands(u, 5000)
    d = u.dot(cupy.asarray(c), cupy.asarray(a), cupy.asarray(b))
    assert isinstance(d, cupy.ndarray)
    assert (cupy.asnumpy(d) == u.dot(c, a, b)).all()


@needs_gpu
def test_gpu_bad_input():
    u = mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    a = torch.zeros((10, 32), dtype=torch.uint8, device="cuda")
    with pytest.raises(TypeError, match="a: signed integers"):
        u.dot(0, a.view(torch.int8), a)
    with pytest.raises(TypeError, match="a: expected encodings of e4m3"):
        u.dot(0, torch.zeros((10, 32), dtype=torch.float32, device="cuda"), a)
    with pytest.raises(ValueError, match="a: the last axis must hold"):
        u.dot(0, a[:, :16].contiguous(), a[:, :16].contiguous())
    with pytest.raises(ValueError, match="b: shape"):
        u.dot(0, a, a[:5])
    with pytest.raises(ValueError, match="not contiguous"):
        u.dot(0, torch.zeros((32, 10), dtype=torch.uint8, device="cuda").T, a)
    with pytest.raises(TypeError, match="b: a and b must both be CUDA arrays"):
        u.dot(0, a, a.cpu())


def test_torch_cpu_tensors():
    u = mmaref.Unit("hopper:wgmma.m64n8k16.f32.bf16.bf16")
    c, a, b, _, _ = operands(u, 1000)
    ta = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)   # bfloat16 tensors: the same bits
    tb = torch.from_numpy(b.view(np.int16)).view(torch.bfloat16)
    assert (u.dot(c, ta, tb) == u.dot(c, a, b)).all()
    with pytest.raises(TypeError, match="a: expected encodings of bf16"):
        u.dot(c, ta.to(torch.float16), tb)
    A = torch.randn(64, 128, dtype=torch.float32)
    B = torch.randn(128, 32, dtype=torch.float32)
    q = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
    D = mmaref.matmul(A, B, unit=q, block=((1, 128), (128, 32)), promote=128)
    assert isinstance(D, torch.Tensor) and D.dtype == torch.float64
    assert (D.numpy() == mmaref.matmul(A.numpy(), B.numpy(), unit=q, block=((1, 128), (128, 32)), promote=128)).all()


def ucuda(x):
    """x's encodings as an unsigned CUDA tensor of its width"""
    x = np.ascontiguousarray(x)
    return to_cuda(x).view(getattr(torch, f"uint{8 * x.dtype.itemsize}"))


@needs_gpu
@pytest.mark.parametrize("name,mode", [("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "tc"),
                                       ("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "promote"),
                                       ("blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3", "tc"),
                                       ("ampere:mma.m16n8k16.f32.f16.f16.f32", "twostage"),
                                       ("hopper:wgmma.m64n8k16.f16.f16.f16", "promote")])
def test_gpu_matmul_matches_cpu(name, mode):
    """matmul of CUDA encodings runs on the GPU (the chain of calls as K/k
    batches, FP32 promotion in PyTorch): the CPU's bits, C included"""
    u = mmaref.Unit(name)
    fm = u.formats
    M, K, N = 48, 8 * 32, 40
    A, B = bits(fm["a"].name, (M, K)), bits(fm["b"].name, (K, N))
    C = bits(fm["c"].name, (M, N))
    for c in (None, C):
        want = mmaref.matmul(A, B, c, unit=name, mode=mode, nc=64)
        got = mmaref.matmul(ucuda(A), ucuda(B), None if c is None else ucuda(c), unit=name, mode=mode, nc=64)
        assert got.is_cuda and tuple(got.shape) == (M, N)
        assert (back(got, want.dtype) == want).all()
    with pytest.raises(ValueError, match="the depth K=40"):
        mmaref.matmul(ucuda(A[:, :40]), ucuda(B[:40]), unit=name, mode=mode)
