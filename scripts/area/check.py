"""The assertions of `make area-test` on a sweep's CSV: every point is
costed, refused by name, or meant to fail; every costed point passed
`mmaref verify` first (verified > 0) and its netlist reproduced the model's
d in the gate-level simulation (else it would not be costed); area and
delay grow with F within each unit and tree."""
import csv


def run(path):
    rows = list(csv.DictReader(open(path, newline="")))
    fail = 0
    pts = {}
    for r in rows:
        pts.setdefault(r["id"], []).append(r)
    groups = {}
    lib = any(r.get("area_um2") for r in rows)
    for pid, rs in pts.items():
        r0 = rs[0]
        if r0["expect_fail"] == "1":
            if r0["status"] == "ok":
                print("FAIL: %s should have failed but was costed" % pid)
                fail = 1
            else:
                print("ok: %s marked %s (%s)" % (pid, r0["status"], r0["message"][:160]))
            continue
        if r0["status"] == "unsupported":
            print("ok: %s: the RTL cannot realize it, reported: %s" % (pid, r0["message"][:160]))
            continue
        if r0["status"] != "ok":
            print("FAIL: %s: %s %s" % (pid, r0["status"], r0["message"]))
            fail = 1
            continue
        if not int(r0.get("verified") or 0) > 0:
            print("FAIL: %s was costed without passing mmaref verify (verified=%s)" % (pid, r0.get("verified")))
            fail = 1
            continue
        print("ok: %s verified on %s vectors, 0 mismatches" % (pid, r0["verified"]))
        if lib:
            bad = [r for r in rs if not (float(r["area_um2"]) > 0 and float(r["delay_ns"]) > 0
                                         and float(r["power_mw"]) > 0)]
            if bad:
                print("FAIL: %s has a target without area, delay or power" % pid)
                fail = 1
                continue
            fast = min(rs, key=lambda r: float(r["delay_ns"]))
            fig = (float(fast["area_um2"]), float(fast["delay_ns"]), min(float(r["area_um2"]) for r in rs))
        else:
            fig = (float(r0["nand2eq"]), float(r0["depth"]), float(r0["nand2eq"]))
        groups.setdefault((r0["format"], r0["k"], r0["tree"], r0["pipe"]), []).append((int(r0["f"]), fig))
    npair = 0
    for g, fs in groups.items():
        fs.sort()
        for (f0, a), (f1, b) in zip(fs, fs[1:]):
            npair += 1
            what = ["area (fastest)", "delay (fastest)", "area (smallest)"] if lib else ["NAND2-eq", "depth", "NAND2-eq"]
            for i in (0, 1, 2):
                if b[i] > a[i]:
                    print("ok: %s K=%s %s pipe %s: %s F=%d %.4g < F=%d %.4g (+%.1f%%)" % (
                          g[0], g[1], g[2], g[3], what[i], f0, a[i], f1, b[i], 100 * (b[i] / a[i] - 1)))
                else:
                    print("FAIL: %s K=%s %s: %s does not grow with F: F=%d %.4g, F=%d %.4g" % (
                          g[0], g[1], g[2], what[i], f0, a[i], f1, b[i]))
                    fail = 1
    if npair == 0:
        print("FAIL: no pair of F values to compare")
        fail = 1
    print("area-test: %s" % ("FAILED" if fail else "passed"))
    return fail
