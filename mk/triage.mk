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
#   make probe-h100    the probe on every instruction of vectors/hw/h100/
#                      (docs/triage.md's table)

.PHONY: test-triage probe-h100

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

test-triage: $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken/Vmma_dpa
	@sh tests/triage_test.sh $(B)/mmaref $(RTL_B)/out_qgmma_e4m3_broken

probe-h100: $(B)/mmaref
	@sh scripts/probe_h100.sh $(B)/mmaref

EXTRA_TESTS += test-triage
