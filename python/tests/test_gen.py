"""mmaref.gen: the library's vector suites, the same vectors `mmaref gen`
writes for the same unit, suite and seed."""
import os

import numpy as np
import pytest

import mmaref

UNITS = ["hopper:wgmma.m64n8k32.f32.e4m3.e4m3",
         "blackwell:tcgen05.mma.m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0",
         "ieee,a=fp16,c=fp32,k=4,round=rd"]


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("suite", ["compliance", "specials", "ieee-sticky"])
def test_gen_matches_cli(cli, tmp_path, unit, suite):
    path = os.path.join(tmp_path, "g.vec")
    cli("gen", unit, "--suite", suite, "--count", 200, "--seed", 18446744073709551615, "-o", path)
    f = mmaref.read_vectors(path)
    g = mmaref.gen(unit, suite, 200, 18446744073709551615)
    assert len(g) == 200
    for key in ("c", "a", "b", "sa", "sb", "d"):
        assert np.array_equal(getattr(g, key), getattr(f, key)), key
    if f.flags is not None:
        assert np.array_equal(g.flags, f.flags)


def test_suites_and_bad_arguments():
    names = [n for n, _ in mmaref.suites()]
    assert names[:3] == ["random", "normal", "cancel"] and len(names) == 16 and names[-1] == "neighbours"
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        mmaref.gen(UNITS[0], "nope", 1)
    with pytest.raises(ValueError, match="seed"):
        mmaref.gen(UNITS[0], "normal", 1, -1)
    with pytest.raises(ValueError, match="count"):
        mmaref.gen(UNITS[0], "normal", -1)
    assert len(mmaref.gen(UNITS[0], "normal", 0)) == 0
