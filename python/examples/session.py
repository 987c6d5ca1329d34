"""The session of docs/python.md: run it to see the same output
(python python/examples/session.py, from a directory where mine.vec may be written)."""
import numpy as np, mmaref
u = mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
print(u.K, u.F, u.algorithm, u.formats["a"], u.formats["d"].name)
print(u.configuration)
a = np.array([0x38] * 16 + [0xb0] * 16, dtype=np.uint8)    # 1.0 x16, -0.5 x16
b = np.full(32, 0x34, dtype=np.uint8)                      # 0.75
d = u.dot(0x3f800000, a, b)                                # c = 1.0
print(hex(d), mmaref.decode(d, "fp32"))
x = mmaref.encode([0.1, 300.0, 500.0, -1e-9], "e4m3")
print(x, mmaref.decode(x, "e4m3"))
print(mmaref.encode([500.0], "e4m3", saturate=True), mmaref.encode([500.0], "e5m2"))
import ml_dtypes
rng = np.random.default_rng(1)
A8 = rng.standard_normal((4096, 32)).astype(ml_dtypes.float8_e4m3fn)
B8 = rng.standard_normal((4096, 32)).astype(ml_dtypes.float8_e4m3fn)
D = u.dot(0, A8, B8)                                      # 4096 dot products, all cores
E = u.exact(0, A8, B8)
err = np.abs(mmaref.decode(D, "fp32") - E) / np.abs(E)
print(D.shape, D.dtype, f"median relative error {np.median(err):.2e}, max {err.max():.2e}")
A, B = rng.standard_normal((512, 4096)) * 0.5, rng.standard_normal((4096, 256)) * 0.5
X = mmaref.matmul(A, B, unit=u, mode="exact")
for mode in ("tc", "promote"):
    Y = mmaref.matmul(A, B, unit=u, mode=mode, nc=128)
    print(mode, f"{np.abs(Y - X).sum() / np.abs(X).sum():.3g}")
bw = "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3"
for r in mmaref.metrics(u, bw, dist="llm", count=20000, seed=7):
    print(f"{r['unit'][:40]:40} mean_ulp={r['mean_ulp']:.4g} p99_ulp={r['p99_ulp']:.4g} not_cr={r['not_cr']:.3g}")
print(mmaref.write_vectors("mine.vec", u, 0, A8.view(np.uint8)[:100], B8.view(np.uint8)[:100]))
print(mmaref.check_vectors("mine.vec"))
try:
    u.dot(0, rng.standard_normal((8, 32)), B8[:8])
except TypeError as e:
    print("TypeError:", e)
try:
    mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m4")
except mmaref.Error as e:
    print("mmaref.Error:", e)
