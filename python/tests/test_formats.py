"""encode / decode against ml_dtypes and NumPy's own conversions (an
independent implementation of round-to-nearest-even into each format).

ml_dtypes converts a float64 through float32 (two roundings: 431.99999999999994
becomes 432.0, a tie, then 448 in e4m3, where one rounding gives 416), so the
narrow formats are compared on float32 inputs, where both round once; that
the double rounding into every format is single and correct is checked
against GNU MPFR by tests/metrics/test_exact.c."""
import numpy as np
import pytest

import mmaref

ml = pytest.importorskip("ml_dtypes")

PAIRS = [("e4m3", "float8_e4m3fn"), ("e4m3ieee", "float8_e4m3"), ("e5m2", "float8_e5m2"), ("e4m3fnuz", "float8_e4m3fnuz"),
         ("e5m2fnuz", "float8_e5m2fnuz"), ("bf16", "bfloat16"), ("e2m3", "float6_e2m3fn"),
         ("e3m2", "float6_e3m2fn"), ("e2m1", "float4_e2m1fn"), ("fp16", "float16"), ("fp32", "float32")]


def dtype_of(name):
    return np.dtype(getattr(ml, name)) if hasattr(ml, name) else np.dtype(name)


def probes(fmt, rng):
    """values around every representable one: exact values, midpoints (ties),
    just above and below them, subnormals, beyond the range, random ones"""
    f = mmaref.FORMATS[fmt]
    n = 1 << min(f.width, 16)
    enc = np.arange(n, dtype=np.uint64) if f.width <= 16 else rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64)
    v = mmaref.decode(enc.astype(f.dtype), fmt)
    v = np.unique(v[np.isfinite(v)])
    mids = (v[1:] + v[:-1]) / 2
    x = np.concatenate([v, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf), v * 1.0000001,
                        rng.standard_normal(20000) * f.max / 4, rng.standard_normal(5000) * 2.0 ** (f.emin - 1),
                        [f.max * 1.01, f.max * 2, -f.max * 3, 1e300, np.inf, -np.inf, 0.0, -0.0]])
    if fmt != "fp32":
        with np.errstate(over="ignore"):
            x = x.astype(np.float32)
        x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])
    return x


@pytest.mark.parametrize("fmt,dt", PAIRS)
def test_encode_matches_ml_dtypes(fmt, dt):
    rng = np.random.default_rng(1)
    x = probes(fmt, rng)
    with np.errstate(over="ignore"):
        ref = x.astype(dtype_of(dt))
    ref = ref.view(mmaref.FORMATS[fmt].dtype if dtype_of(dt).itemsize == mmaref.FORMATS[fmt].dtype.itemsize else np.uint8)
    got = mmaref.encode(x, fmt)
    assert np.array_equal(got, ref), f"{fmt}: {np.sum(got != ref)} of {x.size} differ, first at x={x[np.argmax(got != ref)]!r}"


@pytest.mark.parametrize("fmt,dt", PAIRS)
def test_decode_matches_ml_dtypes(fmt, dt):
    f = mmaref.FORMATS[fmt]
    rng = np.random.default_rng(3)
    # every encoding up to 16 bits, 2^16 random ones of fp32
    enc = (np.arange(1 << f.width, dtype=np.uint64) if f.width <= 16
           else rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64)).astype(f.dtype)
    with np.errstate(invalid="ignore"):
        ref = enc.view(dtype_of(dt)).astype(np.float64) if dtype_of(dt).itemsize == f.dtype.itemsize else \
        enc.astype(np.uint8).view(dtype_of(dt)).astype(np.float64)
    got = mmaref.decode(enc, fmt)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    assert same.all() and np.array_equal(np.signbit(got[got == 0]), np.signbit(ref[got == 0]))
    # ml_dtypes arrays are taken as the bits they hold
    assert np.array_equal(mmaref.decode(enc.view(dtype_of(dt)) if dtype_of(dt).itemsize == f.dtype.itemsize
                                        else enc.astype(np.uint8).view(dtype_of(dt)), fmt)[~np.isnan(got)],
                          got[~np.isnan(got)])


def test_saturate():
    x = np.array([500.0, -1e9, np.inf, -np.inf, 448.0, 464.0, np.nan])
    e = mmaref.encode(x, "e4m3", saturate=True)
    assert list(mmaref.decode(e, "e4m3")[:6]) == [448, -448, 448, -448, 448, 448] and np.isnan(mmaref.decode(e, "e4m3")[6])
    e = mmaref.encode([1e6, -np.inf], "e5m2", saturate=True)
    assert list(mmaref.decode(e, "e5m2")) == [57344, -57344]
    assert list(mmaref.decode(mmaref.encode([1e6, np.inf], "e5m2"), "e5m2")) == [np.inf, np.inf]
    assert list(mmaref.decode(mmaref.encode([7.0, 1e9], "e2m1"), "e2m1")) == [6, 6]


def test_fp64_and_scales():
    x = np.array([1 / 3, -2.0 ** -1074, 1e308])
    assert np.array_equal(mmaref.decode(mmaref.encode(x, "fp64"), "fp64"), x)
    assert list(mmaref.decode(mmaref.encode([1.0, 2.0 ** 10, 0.75], "ue8m0"), "ue8m0")) == [1.0, 1024.0, 1.0]
