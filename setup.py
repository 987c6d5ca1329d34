# The C extension of the Python package (metadata: pyproject.toml).  It
# compiles the library's own sources, so `pip install .` needs only a C
# compiler and Python's headers (Debian: python3-dev), not a prior `make`.
# Hidden visibility: calls inside the library stay direct (through the PLT of
# a shared object, the model's dot products ran at half the speed).
import glob
import os

from setuptools import Extension, setup

setup(
    # beside make's objects in build/; the ~40 sources compiled on every core
    # (one core took 7.5 minutes)
    options={"build": {"build_base": "build/python"},
             "build_ext": {"parallel": max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)}},
    ext_modules=[
        Extension(
            "mmaref._core",
            sources=sorted(glob.glob("model/src/*.c")) + ["python/mmaref/_core.c"],
            include_dirs=["model/include", "model/src"],
            depends=sorted(glob.glob("model/include/*.h") + glob.glob("model/src/*.h")),
            extra_compile_args=["-std=c11", "-D_GNU_SOURCE", "-O2", "-fno-wrapv", "-fno-stack-protector", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-missing-field-initializers"],
            libraries=["m"],
        )
    ]
)
