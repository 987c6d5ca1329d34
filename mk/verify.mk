# mk/verify.mk: tests and bench of `mmaref verify` (docs/verify.md).
# Included by the root Makefile.
#
#   make test-verify    descriptions that are wrong (exit 2), units that never
#                       answer, modes of different K on one bus, results out
#                       of order by tag, shards, replays, the time limit
#   make test-install   a fresh make install in a temporary prefix, used from
#                       outside the repository: a copy of examples/ (each
#                       unit passes, each broken variant fails with its
#                       class), docs/dpi.md's testbench (passes, and fails on
#                       a broken unit), the operand-array length check
#   make test-slurm     the Slurm job array of docs/verify.md on a single-node
#                       Slurm started and stopped here (needs root; not in
#                       make test)
#   make verify-bench   vectors per second of our QGMMA unit through mmaref
#                       verify (in make bench, beside tb-bench)

VERIFY_B := $(B)/verify-test
.PHONY: test-verify test-install test-slurm verify-bench

test-verify: $(B)/mmaref dpi
	@sh tests/verify_test.sh $(abspath $(B)/mmaref) $(VERIFY_B)

test-install: all dpi $(MMAPARAMS)
	@T=$$(mktemp -d) && $(MAKE) --no-print-directory install PREFIX=$$T/prefix > $$T/install.log 2>&1 \
	  || { tail -20 $$T/install.log; rm -rf $$T; exit 1; }; \
	  sh tests/install_test.sh $$T/prefix $(MMAPARAMS); rc=$$?; rm -rf $$T; exit $$rc

test-slurm: $(B)/mmaref dpi
	@sh tests/slurm_test.sh $(abspath $(B)/mmaref) $(B)/slurm-test

EXTRA_TESTS += test-verify test-install

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
