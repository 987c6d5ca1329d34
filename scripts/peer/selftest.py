#!/usr/bin/env python3
"""Self-test of mmasim_fill.py: hand-checked dot products, special values,
compression, and bad input.  Needs mmasim installed (docs/peer.md).

    python3 scripts/peer/selftest.py
Prints one line per case and 'N passed, N failed'; exit 1 on any failure.
"""

import gzip
import lzma
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILL = os.path.join(HERE, "mmasim_fill.py")
sys.path.insert(0, HERE)
import mmasim_fill as mf  # noqa: E402
import mmasim_gen as mg  # noqa: E402


def h16(x):
    return "%04x" % struct.unpack("<H", struct.pack("<e", x))[0]


def h32(x):
    return "%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def h64(x):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


def bf16(x):
    return h32(x)[:4]  # exact for the values used here


def row(spec, c, a, b, sa=(), sb=()):
    """a, b: dict k -> hex (others zero) or full lists."""
    def full(vals, fmt, n):
        z = "0" * mf.DIGITS[fmt]
        if isinstance(vals, dict):
            return [vals.get(i, z) for i in range(n)]
        return list(vals)

    parts = [c] + full(a, spec.a_fmt, spec.k) + full(b, spec.b_fmt, spec.k)
    if spec.block_scaled:
        parts += full(sa, spec.s_fmt, spec.s_count) + full(sb, spec.s_fmt, spec.s_count)
    parts.append("0" * mf.DIGITS[spec.d_fmt])
    return " ".join(parts)


# (instruction, c, a, b, sa, sb, expected d, what)
def cases():
    ones16 = [h16(1.0)] * 16
    ints16 = [h16(float(i)) for i in range(1, 17)]
    yield ("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", h32(0), {0: "38"}, {0: "40"}, (), (),
           h32(2.0), "1.0*2.0 e4m3")
    yield ("ampere:mma.m16n8k16.f32.f16.f16.f32", h32(0), ints16, ones16, (), (),
           h32(136.0), "fp16 sum 1..16")
    yield ("ampere:mma.m16n8k16.f16.f16.f16.f16", h16(0), ints16, ones16, (), (),
           h16(136.0), "fp16 sum 1..16, fp16 out")
    yield ("ampere:mma.m16n8k16.f32.bf16.bf16.f32", h32(1.0), [bf16(2.0)] * 16,
           [bf16(0.5)] * 16, (), (), h32(17.0), "bf16 16*(2*0.5)+1")
    yield ("hopper:wgmma.m64n8k8.f32.tf32.tf32", h32(0.25), {0: "40401fff"}, {0: h32(1.5)},
           (), (), h32(4.75), "tf32 ignores low 13 bits")
    yield ("ampere:mma.m8n8k4.f64.f64.f64.f64", h64(0.5), [h64(x) for x in (1, 2, 3, 4)],
           [h64(1.0)] * 4, (), (), h64(10.5), "f64 fma chain")
    yield ("volta:mma.m8n8k4.f32.f16.f16.f16", h16(1.0), [h16(1.0)] * 4,
           [h16(x) for x in (1, 2, 3, 4)], (), (), h32(11.0), "fp16 c, f32 d")
    yield ("blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e3m2.e2m3", h32(0),
           {0: "0c"}, {0: "0c"}, (), (), h32(1.5), "e3m2 1.0 * e2m3 1.5")
    yield ("blackwell:tcgen05.mma.m64n8k32.kind::f8f6f4.f32.e2m1.e2m1", h32(0),
           {0: "7", 1: "5"}, {0: "6", 1: "9"}, (), (), h32(22.5), "e2m1 6*4 + 3*-0.5")
    yield ("rtx-blackwell:mma.m16n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.f32.ue8m0",
           h32(0), {0: "38"}, {0: "40"}, ["80"], ["81"], h32(16.0), "mx scales 2*4")
    yield ("rtx-blackwell:mma.m16n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.f32.ue8m0",
           h32(0), {0: "38"}, {0: "40"}, ["80"], ["7e"], h32(2.0), "mx scales 2*0.5")
    yield ("rtx-blackwell:mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3",
           h32(0), {0: "2", 17: "5"}, {0: "4", 17: "2"}, ["38", "c0", "38", "38"],
           ["38"] * 4, h32(8.0), "nvfp4 blocks, ue4m3 top bit ignored")
    yield ("blackwell:tcgen05.mma.m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0",
           h32(1.0), {63: "7"}, {63: "7"}, ["7f", "80"], ["7f", "7f"], h32(73.0),
           "mxfp4 last element in 2nd block")
    yield ("cdna3:v_mfma_f32_16x16x32_fp8_fp8", h32(0), {0: "40"}, {0: "48"}, (), (),
           h32(2.0), "AMD fp8 (fnuz) 1*2")
    yield ("cdna3:v_mfma_f32_16x16x32_bf8_fp8", h32(0.5), {31: "42"}, {31: "40"}, (), (),
           h32(2.0), "AMD bf8 1.5 * fp8 1.0 + 0.5")
    yield ("cdna1:v_mfma_f32_32x32x8f16", h32(0), [h16(x) for x in range(8)],
           [h16(2.0)] * 8, (), (), h32(56.0), "CDNA1 fp16")
    yield ("cdna2:v_mfma_f32_32x32x8bf16_1k", h32(3.0), [bf16(1.0)] * 8,
           [bf16(1.0)] * 8, (), (), h32(11.0), "CDNA2 bf16_1k")
    yield ("cdna3:v_mfma_f64_16x16x4_f64", h64(1.0), [h64(0.5)] * 4, [h64(4.0)] * 4,
           (), (), h64(9.0), "CDNA3 f64")
    yield ("cdna3:v_mfma_f32_16x16x8_xf32", h32(0), [h32(1.0)] * 8, [h32(0.25)] * 8,
           (), (), h32(2.0), "CDNA3 xf32")
    # special values as mmasim 2.1.1 gives them (not hardware claims)
    yield ("hopper:wgmma.m64n8k16.f32.f16.f16", "80000000", {}, {}, (), (), "00000000",
           "-0 + zeros gives +0")
    yield ("hopper:wgmma.m64n8k16.f32.f16.f16", "7fc00001", {}, {}, (), (), "7fffffff",
           "NaN c gives canonical NaN")
    yield ("hopper:wgmma.m64n8k16.f16.f16.f16", h16(0), {0: "7c00"}, {0: "0000"}, (), (),
           "7fff", "Inf*0 gives canonical fp16 NaN")
    yield ("hopper:wgmma.m64n8k16.f32.f16.f16", h32(1.0), {0: "7c00"}, {0: h16(-2.0)}, (), (),
           "ff800000", "Inf product gives -Inf")


def run(cmd):
    return subprocess.run([sys.executable, FILL] + cmd, capture_output=True, text=True)


def main():
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="peer_selftest_")

    def report(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
        print(f"{'PASS' if ok else 'FAIL'}: {what}{'  ' + detail if detail and not ok else ''}")

    # 1. hand-checked values, all through one process per case file
    filler = mf.Filler()
    for i, (instr, c, a, b, sa, sb, want, what) in enumerate(cases()):
        spec = mf.resolve(instr)
        path = os.path.join(tmp, f"case{i}.vec")
        mg.write_file(path, spec, [row(spec, c, a, b, sa, sb)])
        filler.process(path, None)
        got = open(path).read().splitlines()[-1].split()[-1]
        report(got == want, f"{instr}: {what}", f"got {got}, want {want}")

    # 2. header kept, source line added once / replaced, compression
    spec = mf.resolve("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    rows = mg.random_lines(spec, 50, 7)
    plain = os.path.join(tmp, "r.vec")
    mg.write_file(plain, spec, rows, ["# seed: 7", "# source: somewhere else"])
    r = run([plain, "-q"])
    text = open(plain).read()
    hdr = [ln for ln in text.splitlines() if ln.startswith("#")]
    report(r.returncode == 0 and hdr.count("# source: mmasim %s (PyPI)" % mf.mmasim_version()) == 1
           and "# seed: 7" in hdr and not any("somewhere" in h for h in hdr)
           and len(text.splitlines()) == 50 + len(hdr), "headers kept, source replaced",
           r.stderr)
    for ext, opener in ((".xz", lzma.open), (".gz", gzip.open)):
        zpath = os.path.join(tmp, "r.vec" + ext)
        mg.write_file(os.path.join(tmp, "u.vec"), spec, rows, ["# seed: 7"])
        r = run([os.path.join(tmp, "u.vec"), "-o", zpath, "-q"])
        ztext = opener(zpath, "rt").read() if r.returncode == 0 else ""
        r2 = run([zpath, "-q"])  # in place, compressed
        ztext2 = opener(zpath, "rt").read() if r2.returncode == 0 else ""
        data = [ln for ln in text.splitlines() if not ln.startswith("#")]
        zdata = [ln for ln in ztext.splitlines() if not ln.startswith("#")]
        report(r.returncode == 0 and zdata == data and ztext2 == ztext,
               f"{ext} output and in-place rewrite", r.stderr + r2.stderr)
    r = run(["--check", plain])
    report(r.returncode == 0, "--check agrees with its own output", r.stderr)
    lines = open(plain).read().splitlines()
    lines[-1] = lines[-1][:-8] + ("00000001" if lines[-1][-8:] != "00000001" else "00000002")
    open(plain, "w").write("\n".join(lines) + "\n")
    r = run(["--check", plain])
    report(r.returncode == 1 and "1 mismatching" in r.stderr, "--check finds a changed d", r.stderr)

    # 3. bad input: exit 2, message names file/line/field, file untouched
    good = mg.random_lines(spec, 3, 1)
    f = good[1].split()
    bad_cases = [
        ("wrong field count", good[:1] + [" ".join(f[:-1])] + good[2:], [], "fields"),
        ("wrong width", good[:1] + [" ".join(f[:3] + ["abc"] + f[4:])] + good[2:], [],
         "field 4 (a[2]"),
        ("non-hex", good[:1] + [" ".join(f[:5] + ["zz"] + f[6:])] + good[2:], [],
         "field 6 (a[4]"),
        ("uppercase hex", good[:1] + [" ".join(f[:5] + ["AB"] + f[6:])] + good[2:], [],
         "field 6 (a[4]"),
    ]
    for what, body, extra, needle in bad_cases:
        p = os.path.join(tmp, "bad.vec")
        mg.write_file(p, spec, body, extra)
        before = open(p, "rb").read()
        r = run([p])
        ok = (r.returncode == 2 and f"{p}:7:" in r.stderr and needle in r.stderr
              and open(p, "rb").read() == before)
        report(ok, f"bad input: {what}", f"rc={r.returncode} {r.stderr.strip()}")
    p = os.path.join(tmp, "badinstr.vec")
    open(p, "w").write("# mmavec 1\n# instr: hopper:wgmma.m64n8k32.f32.e4m3.e9m9\n"
                       "# k: 32\n00\n")
    r = run([p])
    report(r.returncode == 2 and f"{p}:2: field instr" in r.stderr, "bad input: unknown instruction",
           r.stderr.strip())
    p = os.path.join(tmp, "badfields.vec")
    mg.write_file(p, spec, good)
    t = open(p).read().replace("# k: 32", "# k: 16")
    open(p, "w").write(t)
    r = run([p])
    report(r.returncode == 2 and f"{p}:4: field k" in r.stderr, "bad input: wrong k header",
           r.stderr.strip())
    sp6 = mf.resolve("blackwell:tcgen05.mma.m64n8k32.kind::f8f6f4.f32.e3m2.e2m3")
    r6 = mg.random_lines(sp6, 2, 3)
    g = r6[1].split()
    g[40] = "40"
    p = os.path.join(tmp, "badfp6.vec")
    mg.write_file(p, sp6, [r6[0], " ".join(g)])
    r = run([p])
    report(r.returncode == 2 and "field 41 (b[7]" in r.stderr and f"{p}:7:" in r.stderr,
           "bad input: fp6 code >= 0x40", r.stderr.strip())
    leftovers = [x for x in os.listdir(tmp) if x.endswith(".tmp")]
    report(not leftovers, "no temporary files left", str(leftovers))

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
