"""Scaled GEMMs (matmul's scale_a / scale_b / block / promote, quantize,
batches) against an independent reference of the same recipe: each
window's partial sum from the unit's own dot products chained by hand
(Unit.dot, c carried), the scales' product and the FP32 fused
multiply-add computed exactly with Fractions and rounded to FP32 by the
definition (round to nearest, ties to even)."""
from fractions import Fraction

import numpy as np
import pytest

import mmaref

QGMMA = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
rng = np.random.default_rng(7)


def rne32(x: Fraction) -> float:
    """x rounded to the nearest binary32, ties to even (normal and subnormal)"""
    if x == 0:
        return 0.0
    neg, x = x < 0, abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, -126)
    q = x / Fraction(2) ** (e - 23)          # 24 significant bits above the point
    n = q.numerator // q.denominator
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2):
        n += 1
    v = n * 2.0 ** (e - 23)
    assert v < 2.0 ** 128, "overflow (not met in these tests)"
    return -v if neg else v


def f32(x) -> Fraction:
    return Fraction(float(np.float32(x)))


def chain(u, a, b, c=0):
    """the unit's dot products chained over a and b (c carried): the tc mode by hand"""
    d = c
    for s in range(0, len(a), u.K):
        d = int(u.dot(d, a[s:s + u.K], b[s:s + u.K]))
    return d


def ref_scaled(u, qa, qb, xa, xb, w):
    """acc = fmaf(p_window, fp32(sa * sb), acc) per window, the partials chained by hand"""
    M, K = qa.shape
    N = qb.shape[1]
    out = np.empty((M, N), dtype=np.uint32)
    for i in range(M):
        for j in range(N):
            acc = Fraction(0)
            for t in range(K // w):
                p = mmaref.decode(np.uint32(chain(u, qa[i, t * w:(t + 1) * w], qb[t * w:(t + 1) * w, j])), "fp32")
                s = rne32(f32(xa(i, t)) * f32(xb(t, j)))
                acc = Fraction(rne32(Fraction(float(p)) * Fraction(s) + acc))
            out[i, j] = np.float32(float(acc)).view(np.uint32)
    return out


def test_deepseek_recipe_bits():
    u = mmaref.Unit(QGMMA)
    M, K, N = 4, 256, 16
    A, B = rng.standard_normal((M, K)) * 3, rng.standard_normal((K, N)) / 7
    qa, sa = mmaref.quantize(A, "e4m3", (1, 128))
    qb, sb = mmaref.quantize(B, "e4m3", (128, 8))
    assert sa.shape == (M, 2) and sb.shape == (2, 2) and sa.dtype == np.float32
    D = mmaref.matmul(qa, qb, unit=u, scale_a=sa, scale_b=sb, promote=128)
    assert D.dtype == np.uint32
    want = ref_scaled(u, qa, qb, lambda i, t: sa[i, t], lambda t, j: sb[t, j // 8], 128)
    assert (D == want).all()
    # the same from floats, quantized by matmul itself: the same bits as values
    F = mmaref.matmul(A, B, unit=u, block=((1, 128), (128, 8)), promote=128)
    assert (F == mmaref.decode(want, "fp32")).all()


def test_per_tensor_and_per_row_bits():
    u = mmaref.Unit(QGMMA)
    M, K, N = 3, 128, 5
    A, B = rng.standard_normal((M, K)), rng.standard_normal((K, N))
    qa, sa = mmaref.quantize(A, "e4m3")
    qb, sb = mmaref.quantize(B, "e4m3")
    D = mmaref.matmul(qa, qb, unit=u, scale_a=sa[0, 0], scale_b=sb[0, 0])   # tc over all of K, one scale
    want = ref_scaled(u, qa, qb, lambda i, t: sa[0, 0], lambda t, j: sb[0, 0], K)
    assert (D == want).all()
    ra = rng.uniform(0.5, 2, M).astype(np.float32)
    cb = rng.uniform(0.5, 2, N).astype(np.float32)
    D = mmaref.matmul(qa, qb, unit=u, scale_a=ra, scale_b=cb)
    assert (D == ref_scaled(u, qa, qb, lambda i, t: ra[i], lambda t, j: cb[j], K)).all()


def test_quantize():
    x = np.array([[1.0, -2.0, 0.0, 0.0], [448.0 * 3, 5.0, 0.0, 0.0]])
    q, s = mmaref.quantize(x, "e4m3", (1, 2))
    assert s.dtype == np.float32 and s.shape == (2, 2)
    assert s[0, 0] == np.float32(2.0) / np.float32(448) and s[0, 1] == 1 and s[1, 0] == np.float32(1344) / np.float32(448)
    v = mmaref.decode(q, "e4m3")
    assert v[0, 1] == -448 and v[1, 0] == 448 and v[0, 2] == 0
    # every value back within half an e4m3 ulp of x / scale
    y = rng.standard_normal((8, 64)).astype(np.float32)
    q, s = mmaref.quantize(y, "e4m3", (2, 32))
    back = mmaref.decode(q, "e4m3") * np.repeat(np.repeat(s, 2, 0), 32, 1)
    assert np.all(np.abs(back - y) <= np.abs(y) / 16 + 1e-30 + np.repeat(np.repeat(s, 2, 0), 32, 1) * 2.0 ** -9)
    with pytest.raises(ValueError, match="holds Inf or NaN"):
        mmaref.quantize(np.array([[1.0, np.inf]]), "e4m3", (1, 2))
    with pytest.raises(ValueError, match="does not tile"):
        mmaref.quantize(np.zeros((4, 6)), "e4m3", (1, 4))


def test_batched_and_broadcast():
    u = mmaref.Unit(QGMMA)
    A = rng.standard_normal((2, 3, 4, 128))
    B = rng.standard_normal((128, 8))
    D = mmaref.matmul(A, B, unit=u, block=((1, 128), (128, 8)), promote=128)
    assert D.shape == (2, 3, 4, 8)
    assert (D[1, 2] == mmaref.matmul(A[1, 2], B, unit=u, block=((1, 128), (128, 8)), promote=128)).all()
    E = mmaref.matmul(A, B, unit=u)
    assert (E[0, 1] == mmaref.matmul(A[0, 1], B, unit=u)).all()
    with pytest.raises(ValueError, match="do not broadcast"):
        mmaref.matmul(np.zeros((2, 4, 32)), np.zeros((3, 32, 8)), unit=u)


def test_bad_scales():
    u = mmaref.Unit(QGMMA)
    qa, sa = mmaref.quantize(rng.standard_normal((4, 256)), "e4m3", (1, 128))
    qb, sb = mmaref.quantize(rng.standard_normal((256, 8)), "e4m3", (128, 8))
    with pytest.raises(ValueError, match="give promote=128"):
        mmaref.matmul(qa, qb, unit=u, scale_a=sa, scale_b=sb)
    with pytest.raises(ValueError, match="does not match the block"):
        mmaref.matmul(qa, qb, unit=u, scale_a=sa, scale_b=sb, promote=128, block=((1, 64), (128, 8)))
    with pytest.raises(ValueError, match="does not divide"):
        mmaref.matmul(qa, qb, unit=u, scale_a=sa, scale_b=sb, promote=96)
    with pytest.raises(ValueError, match="does not tile"):
        mmaref.matmul(qa, qb, unit=u, scale_a=sa[:3], scale_b=sb, promote=128)
    with pytest.raises(ValueError, match="block: expected"):
        mmaref.matmul(qa, qb, unit=u, scale_a=sa, scale_b=sb, promote=128, block=(1, 128))
    with pytest.raises(TypeError, match="scale_a: expected real numbers"):
        mmaref.matmul(qa, qb, unit=u, scale_a=np.array(["x"]), scale_b=sb, promote=128)
    with pytest.raises(ValueError, match="'exact' takes no scale"):
        mmaref.matmul(qa, qb, unit=u, scale_a=sa, scale_b=sb, mode="exact")
