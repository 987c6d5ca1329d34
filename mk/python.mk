# mk/python.mk: the Python package (python/mmaref, pyproject.toml, setup.py;
# docs/python.md).  Included by the root Makefile, which defines B and
# builds $(B)/mmaref.
#
#   make python         a virtual environment in $(B)/venv with the pinned
#                       packages below, and the package built into it
#                       (pip install --no-build-isolation: nothing downloaded
#                       but the pins; `pip install .` anywhere else works too)
#   make python-test    (part of make test, under a minute) pytest: the
#                       package against the mmaref command, ml_dtypes and the
#                       H100 captures, bad input
#   make python-bench   unit.dot and matmul speed (part of make bench)
PYTHON ?= python3
PY_VENV := $(B)/venv
PY := $(PY_VENV)/bin/python
# exact versions: the tests compare bits, and cocotb 1.8 is the last series
# that supports Debian bookworm's Verilator 5.006
PY_PINS := numpy==2.4.6 pytest==9.2.0 ml_dtypes==0.6.0 setuptools==84.2.1 cocotb==1.8.1
PY_SRC := pyproject.toml setup.py $(wildcard python/mmaref/*.py python/mmaref/*.c) $(MODEL_SRC) $(MODEL_HDR)
# numpy's OpenBLAS threads spin while idle; the package computes on its own threads
PY_ENV := OPENBLAS_NUM_THREADS=1 MMAREF_CLI=$(B)/mmaref

.PHONY: python python-test python-bench

$(PY_VENV)/pins.txt: mk/python.mk
	$(PYTHON) -m venv $(PY_VENV)
	$(PY) -m pip install -q $(PY_PINS)
	echo "$(PY_PINS)" > $@

$(PY_VENV)/installed: $(PY_VENV)/pins.txt $(PY_SRC)
	$(PY) -m pip install -q --no-build-isolation --no-deps .
	touch $@

python: $(PY_VENV)/installed

python-test: python $(B)/mmaref
	$(PY_ENV) $(PY) -m pytest -q python/tests

python-bench: python $(B)/mmaref
	$(PY_ENV) $(PY) python/benchmarks/bench.py $(B)/mmaref

EXTRA_TESTS += python-test
