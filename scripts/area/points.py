"""The sweep points: data.  A point is a unit configuration of the model
(the accuracy side is a property of the configuration alone), a summation
tree of the RTL, a pipeline depth and F.

Trees (the CSV's `tree` column):
  fused CPA   one fused step; the aligned terms summed by a tree of
              carry-propagate adders (mma_dpa SUM=0, today's RTL)
  fused CSA   one fused step; a carry-save compressor tree and one final
              carry-propagate adder (SUM=1); the model is the same
  chained-2   two fused steps of K/2, the first step's rounded result the
              second's c (Ampere's CoFDA)
  even/odd    CDNA3's GFDRDA: even- and odd-index products fused apart,
              joined with round-down, c added in a second step (F2 = F+7)
Pipeline (`pipe`): internal register stages (mma_dpa STAGES); a pipelined
point also registers its inputs and outputs (PIPE=2), so its delay is a
clock period; pipe 0 is the combinational core (PIPE=0, STAGES=0).

Parameters a point needs that the RTL does not have (SUM, STAGES on RTL
without them) make it a configuration the RTL cannot realize: it is reported
by name and the sweep goes on."""

UNIT = {
    # name: (configuration with {k} {l} {f}, K, the instruction it is at its native F)
    "e4m3": ("fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k={k},l={l},f={f},align=rz,round=rz,p=23,"
             "ezero=-133,nan=canon,zero=pos", 32),
    "bf16": ("fused,a=bf16,b=bf16,c=fp32,d=fp32,k={k},l={l},f={f},align=rz,round=rz,p=23,"
             "ezero=-133,nan=canon,zero=pos", 16),
    # Blackwell MXFP8 (ST-FDPA, ue8m0 scale per 32 elements; F=25 native)
    "mxfp8": ("fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k={k},l={l},f={f},scale=ue8m0,block={k},align=rz,"
              "round=rz,p=23,ezero=-133,nan=canon,zero=pos", 32),
    # Blackwell NVFP4 (GDFS, ue4m3 scale per 16 elements, groups of 16; F=35 native)
    "nvfp4": ("groups,a=e2m1,b=e2m1,c=fp32,d=fp32,k={k},l={k},f={f},g=16,scale=ue4m3,block=16,align=rz,"
              "round=rz,p=23,ezero=-139,nan=canon,zero=pos", 64),
}
# even/odd groups (CDNA3's GFDRDA tree, one step of K products): the c step
# keeps F2 = F+7 fraction bits as CDNA3 does (F=24, F2=31); the output is
# rounded toward zero to FP32 like the other variants, so that only the tree
# differs
EVENODD = ("evenodd,a=e4m3,b=e4m3,c=fp32,d=fp32,k={k},l={k},f={f},f2={f2},cadd=rd,"
           "align=rz,round=rz,p=23,nan=canon,zero=pos")
TREES = {"cpa": "fused CPA", "csa": "fused CSA", "csa42": "fused CSA 4:2", "chain2": "chained-2",
         "evenodd": "even/odd"}
PRESETS = [
    ("hopper_qgmma_e4m3", "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"),
    ("blackwell_f8_e4m3", "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3"),
    ("hopper_hgmma_bf16", "hopper:wgmma.m64n8k16.f32.bf16.bf16"),
    ("ampere_bf16", "ampere:mma.m16n8k16.f32.bf16.bf16.f32"),
    ("cdna3_fp8", "cdna3:v_mfma_f32_16x16x32_fp8_fp8"),
    ("blackwell_mxfp8", "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0"),
    ("blackwell_nvfp4", "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3"),
]


def point(fmt, tree, f, pipe=0, k=None, expect_fail=False, override=None, pid=None, spec=None):
    k = k or UNIT.get(fmt, ("", 32))[1]
    if spec is None:
        if tree == "evenodd":
            spec = EVENODD.format(k=k, f=f, f2=min(f + 7, 40))
        else:
            spec = UNIT[fmt][0].format(k=k, l=k // 2 if tree == "chain2" else k, f=f)
    params = dict(override or {})
    if tree == "csa":
        params["SUM"] = 1
    if tree == "csa42":
        params["SUM"] = 2
    if pipe:
        params["STAGES"] = pipe
        params["PIPE"] = 2
    pid = pid or "%s_k%d_%s_f%d_p%d" % (fmt, k, tree, f, pipe)
    return {"id": pid, "format": fmt, "k": k, "tree": TREES.get(tree, tree), "f": f, "pipe": pipe,
            "spec": spec, "params": params, "expect_fail": expect_fail}


# The structure the full sweep's fused carry-save points use: SUM=1, rows
# of 3:2 counters, which cost less than SUM=2 (4:2 compressors) where a
# carry-save tree is chosen, at the fast end (AREA_SET=calib, e4m3 K=32
# F=13, SKY130, 6 delay targets): 3:2 fastest 18.62 ns / 111,239 um2 and
# 103,064 um2 at 19.59 ns; 4:2 fastest 19.70 ns / 103,938 um2; the adder
# tree's fastest 19.61 ns / 106,226 um2.  Synthesis CPU alike (148 and
# 136 s against the adder tree's 145 s).
CSA = "csa"
STEP2 = tuple(range(10, 31, 2))
STEP4 = (10, 14, 18, 22, 26, 30)
SCAN_TARGETS = ("1.1", "1.2", "1.4")


def preset(pid, instr):
    return {"id": pid, "format": "preset", "k": 0, "tree": "", "f": None, "pipe": 0, "spec": instr,
            "params": {}, "expect_fail": False}


def full():
    """The full sweep (make area AREA_SET=full; the device host's one
    command, scripts/area/device_sweep.sh).  At full K (hours of CPU for
    F=10..30) only the question's units: e4m3 K=32, bf16 K=16 and MXFP8
    K=32 at F=13 and F=25 with both fused trees, and the presets equal to
    them.  The Pareto fronts over F=10..30 at K=8, where a point costs a
    fourth, with delay targets x1.1, x1.2 and x1.4 after the fastest
    mapping: e4m3 with both fused trees at every F; MXFP8 (a scale per 8
    elements) every second F with the adder tree and every fourth with the
    carry-save tree; bf16 (a product four times e4m3's) every fourth F with
    the adder tree, F=13 and F=25 with the carry-save tree; chained-2 (two
    steps of 4) and even/odd every fourth F; pipelines (STAGES 1, 2, 4 with
    registered inputs and outputs) of the e4m3 K=8 unit at F=13 and F=25
    with both trees, and of e4m3 K=32 (STAGES 2) at F=13."""
    pts = []
    for fmt in ("e4m3", "bf16", "mxfp8"):
        for t in ("cpa", CSA):
            for f in (13, 25):
                pts.append(point(fmt, t, f))
    scan = []
    for f in range(10, 31):
        for t in ("cpa", CSA):
            scan.append(point("e4m3", t, f, k=8))
    scan += [point("mxfp8", "cpa", f, k=8) for f in STEP2]
    scan += [point("mxfp8", CSA, f, k=8) for f in STEP4]
    scan += [point("bf16", "cpa", f, k=8) for f in STEP4]
    scan += [point("bf16", CSA, f, k=8) for f in (13, 25)]
    for t in ("chain2", "evenodd"):
        scan += [point("e4m3", t, f, k=8) for f in STEP4]
    for t in ("cpa", CSA):
        for f in (13, 25):
            scan += [point("e4m3", t, f, pipe=s, k=8) for s in (1, 2, 4)]
    for p in scan:
        p["targets"] = SCAN_TARGETS
    pts += scan
    pts.append(point("e4m3", "cpa", 13, pipe=2))
    # presets equal to sweep points: the same unit, taken from the cache
    pts += [preset(pid, instr) for pid, instr in PRESETS[:3] + PRESETS[5:6]]
    return pts


# CPU seconds of one point on this project's 2-core build machine (an AMD
# EPYC), measured: the generic front and the cost stage grow with the
# unit's size, each mapping to the library with it too.  AREA_SET=calib
# (6 delay targets, verify's ~8 s taken off): e4m3 K=8 F=13 CPA 38, CSA
# 42, CSA 4:2 39, chained-2 48, even/odd 44, STAGES=2 37, MXFP8 K=8 44;
# e4m3 K=32 F=13 CPA 156, CSA 165; AREA_SET=question: e4m3 K=32 F=25 201,
# bf16 K=16 F=13 143, F=25 173.  The
# size is K * (F + 24 + M), M the multiplier's share (4x4 bits e4m3, 8x8
# bf16), relative to e4m3 K=32 F=13.
EST = {"front": 43.0, "map": 17.0, "cost": 11.0, "fixed": 0.5}
EST_M = {"e4m3": 10, "mxfp8": 14, "bf16": 57, "nvfp4": 6, "preset": 10}
EST_TREE = {"fused CPA": 1.0, "fused CSA": 1.1, "fused CSA 4:2": 1.05, "chained-2": 1.2, "even/odd": 1.15}
EST_PIPE = 1.0


def estimate(p, ntargets, map_jobs):
    """(CPU seconds, wall seconds with map_jobs mapping processes) of point p
    without verification (mmaref verify adds about 8 CPU s)."""
    k, f = p["k"] or 32, p["f"] or 25
    size = k * (f + 24 + EST_M.get(p["format"], 10)) / (32.0 * (13 + 24 + 10))
    size *= EST_TREE.get(p["tree"], 1.0) * (EST_PIPE if p["pipe"] else 1.0)
    front, mp, cost = EST["front"] * size, EST["map"] * size, EST["cost"] * size
    cpu = EST["fixed"] * (ntargets + 2) + front + mp * ntargets + cost
    rest = ntargets - 1
    wall = EST["fixed"] * 4 + front + mp * (1 + -(-rest // max(1, map_jobs))) + cost
    return cpu, wall


def question():
    """The F=13 against F=25 question alone: e4m3 K=32, bf16 K=16 and MXFP8
    K=32, both fused trees, and the Hopper and Blackwell FP8 presets (a
    short `make area AREA_SET=question`)."""
    pts = [point(fmt, t, f) for fmt in ("e4m3", "bf16", "mxfp8") for t in ("cpa", CSA) for f in (13, 25)]
    return pts + [preset(pid, instr) for pid, instr in PRESETS[:2] + PRESETS[5:6]]


def test():
    """make area-test: F=13 and F=25 of the e4m3 unit with both fused trees
    at K=8, one block-scaled unit (MXFP8's form at K=8, a scale per 8
    elements), and two points that must be reported as failed: F=7, which
    mmaparams refuses, and F=41 forced behind its back (the RTL built with
    F=41, its .dut matched against the F=25 configuration): mmaref verify
    finds the mismatch, and the point is not costed."""
    pts = []
    for f in (13, 25):
        for t in ("cpa", "csa"):
            pts.append(point("e4m3", t, f, k=8))
    pts.append(point("mxfp8", "cpa", 25, k=8))
    pts.append(point("e4m3", "cpa", 7, k=8, expect_fail=True))
    pts.append(point("e4m3", "cpa", 25, k=8, expect_fail=True, override={"F": 41}, pid="e4m3_k8_cpa_f41_p0"))
    return pts


def calib():
    """One point of each structure, for the CPU figures of points.estimate."""
    return [point("e4m3", "csa", 13), point("e4m3", "csa42", 13)] + \
        [point("e4m3", t, 13, k=8) for t in ("cpa", "csa", "csa42", "chain2", "evenodd")] + \
        [point("e4m3", "cpa", 13, pipe=2, k=8), point("mxfp8", "cpa", 13, k=8)]


SETS = {"full": full, "question": question, "test": test, "calib": calib}
