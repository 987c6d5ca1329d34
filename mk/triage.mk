# mk/triage.mk: tests of the mismatch triage and the black-box probe
# (docs/triage.md).  Included by the root Makefile after mk/rtl.mk (RTL_B,
# MMAPARAMS, VERILATOR, RTL_SRC).
#
#   make test-triage   known answers: model units that flush subnormal
#                      inputs, round RNE instead of RZ, chain in halves;
#                      the deliberately broken F=12 RTL of tb-broken run on
#                      the H100 QGMMA vectors (check --explain and probe
#                      must both name f=12); the probe on a set of H100
#                      instructions must rediscover the catalogue's unit
#   make probe-bench   seconds the probe takes on one core (part of make bench)
#   make docs-triage   the probe on every instruction of vectors/hw/h100/
#                      and the example outputs: docs/triage.md must hold
#                      what they give now (docs-triage-update rewrites it)

.PHONY: test-triage docs-triage docs-triage-update probe-bench

# the combinational mma_dpa of a parameter set, run over a vector file
# $(1) tag, $(2) instruction, $(3) mmaparams options
define RTL_OUT_BUILD
$(RTL_B)/out_$(1)/Vmma_dpa: $(MMAPARAMS) $(RTL_SRC) tests/rtl_outputs.cpp $(B)/libmmaref.a mk/triage.mk
	@mkdir -p $(RTL_B)/out_$(1)
	@$(MMAPARAMS) $(3) '$(2)' > $(RTL_B)/out_$(1)/params
	@echo "  VERILATE rtl_outputs $(1): $(2) $(3)"
	@$(VERILATOR) --cc --exe --build -j 2 -O2 --x-assign fast --x-initial fast --no-timing -Wno-fatal \
	  --top-module mma_dpa $$$$(cat $(RTL_B)/out_$(1)/params) -Mdir $(RTL_B)/out_$(1) \
	  -CFLAGS "-O2 -I$(abspath model/include)" -MAKEFLAGS "CXX=$(RTL_CXX)" \
	  -LDFLAGS "$(abspath $(B)/libmmaref.a) -lm" $(RTL_SRC) $(abspath tests/rtl_outputs.cpp) \
	  > $(RTL_B)/out_$(1)/build.log 2>&1 || { tail -30 $(RTL_B)/out_$(1)/build.log; exit 1; }
endef
$(eval $(call RTL_OUT_BUILD,qgmma_e4m3_broken,$(I_qgmma_e4m3),--f-delta -1))

$(B)/test_triage: tests/test_triage.c $(B)/libmmaref.a
	$(CC) $(CFLAGS) $(WARN) -Imodel/include $< $(B)/libmmaref.a $(CHECK_FLAGS) $(CLI_LIBS) -lm -lpthread -o $@

# the unit tests again under AddressSanitizer and UBSan (the library of
# test-sanitize, built once for both), the tests of triage_test.sh, and a
# check --explain under valgrind
test-triage: $(B)/mmaref $(B)/test_triage $(RTL_B)/out_qgmma_e4m3_broken/Vmma_dpa
	$(B)/test_triage
	$(MAKE) --no-print-directory B=$(B)/san CFLAGS="-O1 -g $(SAN)" CLI_LIBS="$(CLI_LIBS) $(SAN)" $(B)/san/test_triage
	ASAN_OPTIONS=detect_leaks=1 $(B)/san/test_triage
	@sh tests/triage_test.sh $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken
	$(B)/mmaref gen 'fused,a=bf16,k=16,f=25,ezero=-133,round=rne' --suite compliance --count 1000 --seed 2 -o $(B)/vg-triage.vec
	$(VALGRIND) $(B)/mmaref check $(B)/vg-triage.vec --instr hopper:wgmma.m64n8k16.f32.bf16.bf16 --explain --show 0 \
	  | grep -q 'behaves as round=rne instead of rz on 100.0%' || { echo "FAIL: check --explain under valgrind"; exit 1; }

docs-triage: $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken/Vmma_dpa
	@sh scripts/triage_doc.sh $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken --check docs/triage.md

docs-triage-update: $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken/Vmma_dpa
	@sh scripts/triage_doc.sh $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken --update docs/triage.md

EXTRA_TESTS += test-triage

# the probe on one core: a natively fused instruction (the fast path) and
# the emulated fp8 mma.sync (interleaved steps, c added after)
PROBE_BENCH := wgmma.m64n8k32.f32.e4m3.e4m3 mma.m16n8k32.f32.e4m3.e4m3.f32
probe-bench: $(B)/mmaref
	@for f in $(PROBE_BENCH); do \
	  bash -c 'TIMEFORMAT="%R s wall, %U s CPU"; time $(B)/mmaref probe --threads 1 vectors/hw/h100/'$$f'.*.vec.xz > /dev/null' 2> $(B)/probe-bench.log; \
	  echo "probe $$f, one core: $$(sed -n 's/^probe: \(.*\) in .*/\1/p' $(B)/probe-bench.log), $$(tail -1 $(B)/probe-bench.log)"; \
	done
