# The C extension of the Python package (metadata: pyproject.toml).  It
# compiles the library's own sources, so `pip install .` needs only a C
# compiler and Python's headers (Debian: python3-dev), not a prior `make`.
# Hidden visibility: calls inside the library stay direct (through the PLT of
# a shared object, the model's dot products ran at half the speed).
#
# Where nvcc is found (NVCC, PATH, /usr/local/cuda/bin; MMAREF_CUDA=0 turns
# this off), a second extension, mmaref._cuda: the CUDA backend
# (cuda/batch_cuda.cu, compiled with the flags of cuda/nvcc.flags, as make
# does), imported only when Unit.dot is given CUDA tensors.
import glob
import os
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def find_nvcc():
    if os.environ.get("MMAREF_CUDA") == "0":
        return None
    nv = os.environ.get("NVCC") or shutil.which("nvcc")
    if not nv and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        nv = "/usr/local/cuda/bin/nvcc"
    return nv


class BuildExt(build_ext):
    def build_extension(self, ext):
        if ext.name == "mmaref._cuda":
            nv = find_nvcc()
            os.makedirs(self.build_temp, exist_ok=True)
            obj = os.path.join(self.build_temp, "batch_cuda.o")
            # MMAREF_CUDA_OBJ: an object make built from these sources
            # (build/cuda/batch_cuda.o, -fPIC), linked instead of compiling
            # the one translation unit again (minutes on one core)
            pre = os.environ.get("MMAREF_CUDA_OBJ")
            if pre:
                if not os.path.isfile(pre):
                    raise SystemExit(f"MMAREF_CUDA_OBJ={pre}: no such file")
                obj = pre
            else:
                with open("cuda/nvcc.flags") as f:
                    flags = shlex.split(f.read())
                cmd = [nv, *flags, "-Imodel/include", "-Imodel/src", "-Icuda", "-c", "cuda/batch_cuda.cu", "-o", obj]
                print(" ".join(cmd), flush=True)
                subprocess.run(cmd, check=True)
            lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nv))), "lib64")
            ext.extra_objects.append(obj)
            ext.library_dirs.append(lib)
            ext.runtime_library_dirs.append(lib)
        super().build_extension(ext)


MODEL = sorted(glob.glob("model/src/*.c"))
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-O2", "-fno-wrapv", "-fno-stack-protector", "-fvisibility=hidden", "-Wall",
          "-Wextra", "-Wno-missing-field-initializers"]
DEPENDS = sorted(glob.glob("model/include/*.h") + glob.glob("model/src/*.h"))
extensions = [
    Extension("mmaref._core", sources=MODEL + ["python/mmaref/_core.c"], include_dirs=["model/include", "model/src"],
              depends=DEPENDS, extra_compile_args=CFLAGS, libraries=["m"])
]
if find_nvcc():
    # (the runtime linked dynamically, found where the toolkit is: see _cuda.c)
    extensions.append(
        Extension("mmaref._cuda", sources=MODEL + ["python/mmaref/_cuda.c"],
                  include_dirs=["model/include", "model/src", "cuda"], depends=DEPENDS + sorted(glob.glob("cuda/*")),
                  extra_compile_args=CFLAGS, libraries=["cudart", "stdc++", "m"]))

setup(
    # beside make's objects in build/; the ~40 sources compiled on every core
    # (one core took 7.5 minutes)
    options={"build": {"build_base": "build/python"},
             "build_ext": {"parallel": max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)}},
    cmdclass={"build_ext": BuildExt},
    ext_modules=extensions,
)
