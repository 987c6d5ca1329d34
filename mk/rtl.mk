# mk/rtl.mk: RTL, DPI-C and testbench rules (docs/rtl.md).  Included by the
# root Makefile, which defines B (the build directory) and builds
# $(B)/libmmaref.a and $(B)/mmaref.
#
#   make tb         every preset: 1,000,000 constrained-random vectors, every
#                   vector suite of `mmaref gen`, the H100 files of
#                   vectors/hw/h100/ for the hopper presets, the broken
#                   variant, the SystemC testbench, lint and Yosys checks;
#                   the structural variants (VAR_PRESETS: SUM, STAGES) too
#   make tb-test    the shorter run of `make test`: 100,000 random vectors
#                   and 2,000 of every suite per preset, the rest as above
#   make tb-bench   vectors per second through the Verilator testbench with
#                   the DPI scoreboard, hopper QGMMA e4m3 preset
#   make tb-broken  the F-1 variant of the QGMMA preset must show mismatches
#   make tb-sc      the SystemC testbench (verilator --sc)
#   make rtl-check  Verilator -Wall lint and Yosys read/synth of every preset,
#                   and the elaboration errors of bad parameters

B         ?= build
RTL_B     := $(B)/rtl
VERILATOR ?= verilator
YOSYS     ?= yosys
RTL_CC    ?= cc
# the C++ of the Verilated models: clang++ where there is one (the RTL
# evaluates about twice as fast as with g++ here), else g++
RTL_CXX   ?= $(shell command -v clang++ >/dev/null 2>&1 && echo clang++ || echo g++)
# found when the rules run (the root Makefile installs the packages first)
VLTSTD     = $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)/include/vltstd

# the package first: the modules refer to it
RTL_SRC   := rtl/mma_pkg.sv $(filter-out rtl/mma_pkg.sv,$(sort $(wildcard rtl/*.sv)))
TB_SV     := dpi/mmaref_pkg.sv tb/tb_top.sv
TBKIT_OBJ := $(RTL_B)/obj/mmaref_dpi.o $(RTL_B)/obj/mmaref_tbkit.o
MMAPARAMS := $(RTL_B)/mmaparams

# the presets: tag -> instruction
RTL_PRESETS := qgmma_e4m3 qgmma_e5m2 hgmma_bf16 hgmma_f16 bw_f8_e4m3 ampere_bf16 cdna3_fp8
I_qgmma_e4m3  := hopper:wgmma.m64n8k32.f32.e4m3.e4m3
I_qgmma_e5m2  := hopper:wgmma.m64n8k32.f32.e5m2.e5m2
I_hgmma_bf16  := hopper:wgmma.m64n8k16.f32.bf16.bf16
I_hgmma_f16   := hopper:wgmma.m64n8k16.f32.f16.f16
I_bw_f8_e4m3  := blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3
I_ampere_bf16 := ampere:mma.m16n8k16.f32.bf16.bf16.f32
I_cdna3_fp8   := cdna3:v_mfma_f32_16x16x32_fp8_fp8
HW_PRESETS    := qgmma_e4m3 qgmma_e5m2 hgmma_bf16 hgmma_f16
# the pipelined unit (PIPE=2: results three cycles after their operands),
# simulated too, not only linted
PIPE_PRESETS  := qgmma_e4m3_pipe2 cdna3_fp8_pipe2
I_qgmma_e4m3_pipe2 := $(I_qgmma_e4m3)
I_cdna3_fp8_pipe2  := $(I_cdna3_fp8)
# the structural variants (docs/rtl.md): the sum as a carry-save tree
# (SUM=1 3:2 counters, SUM=2 4:2 compressors) and register cuts inside the
# steps (STAGES), each the same arithmetic as its preset
VAR_PRESETS := qgmma_e4m3_csa32 qgmma_e4m3_csa42_st4 cdna3_fp8_csa32_st2 cdna3_fp8_csa42_st4 \
               ampere_bf16_csa42_st3 hgmma_bf16_st1
I_qgmma_e4m3_csa32       := $(I_qgmma_e4m3)
G_qgmma_e4m3_csa32       := -GSUM=1
I_qgmma_e4m3_csa42_st4   := $(I_qgmma_e4m3)
G_qgmma_e4m3_csa42_st4   := -GSUM=2 -GSTAGES=4 -GPIPE=2
I_cdna3_fp8_csa32_st2    := $(I_cdna3_fp8)
G_cdna3_fp8_csa32_st2    := -GSUM=1 -GSTAGES=2
I_cdna3_fp8_csa42_st4    := $(I_cdna3_fp8)
G_cdna3_fp8_csa42_st4    := -GSUM=2 -GSTAGES=4 -GPIPE=1
I_ampere_bf16_csa42_st3  := $(I_ampere_bf16)
G_ampere_bf16_csa42_st3  := -GSUM=2 -GSTAGES=3
I_hgmma_bf16_st1         := $(I_hgmma_bf16)
G_hgmma_bf16_st1         := -GSTAGES=1

# further units (`make tb`, `make tb-configs`): more catalogue instructions,
# among them H100-captured ones, and generic configuration strings that
# reach the parameters the presets leave alone (FP16/BF16 output, RNE/RD/RU,
# RD alignment, F=8 and F=40, fp4/fp6 inputs, flush-to-zero, IEEE NaN/zero)
RTL_CONFIGS := ada_qmma_e4m3 qgmma_f16_e4m3 qgmma_e4m3_e5m2 hgmma_f16_f16 volta_f16 \
               cdna3_bf16 cdna3_bf8_fp8 gen_fp4_fp6 gen_bf16_f40 gen_f16_bf16out \
               gen_evenodd_rd gen_e2m3_f16 cdna1_f16_exact cdna1_bf16_exact
I_ada_qmma_e4m3   := ada:mma.m16n8k32.f32.e4m3.e4m3.f32
I_qgmma_f16_e4m3  := hopper:wgmma.m64n8k32.f16.e4m3.e4m3
I_qgmma_e4m3_e5m2 := hopper:wgmma.m64n8k32.f32.e4m3.e5m2
I_hgmma_f16_f16   := hopper:wgmma.m64n8k16.f16.f16.f16
I_volta_f16       := volta:mma.m8n8k4.f32.f16.f16.f32
I_cdna3_bf16      := cdna3:v_mfma_f32_16x16x16_bf16
I_cdna3_bf8_fp8   := cdna3:v_mfma_f32_16x16x32_bf8_fp8
I_gen_fp4_fp6     := fused,a=e2m1,b=e3m2,c=fp32,d=fp32,k=16,f=8,align=rd,round=rne,ezero=none
I_gen_bf16_f40    := fused,a=bf16,b=bf16,c=fp32,d=fp32,k=8,l=2,f=40,round=rd,ftz=in,nan=default,zero=fixed,ezero=none
I_gen_f16_bf16out := fused,a=fp16,b=fp16,c=fp32,d=bf16,k=16,f=20,round=ru,ezero=-140
I_gen_evenodd_rd  := evenodd,a=e5m2fnuz,b=e4m3fnuz,c=fp32,d=fp32,k=16,l=8,f=20,f2=30,cadd=rd,round=rne
I_gen_e2m3_f16    := fused,a=e2m3,b=e2m3,c=fp16,d=fp16,k=32,f=12,align=rd,round=rne,ezero=none
I_cdna1_f16_exact := cdna1:v_mfma_f32_16x16x16f16
I_cdna1_bf16_exact := cdna1:v_mfma_f32_16x16x8bf16
SC_TEST_PRESETS := qgmma_e4m3 cdna3_fp8

TB_SUITES     := random normal cancel order precision rounding specials compliance
TB_N_FULL     ?= 1000000
TB_N_TEST     ?= 100000
TB_SUITE_FULL ?= 20000
TB_SUITE_TEST ?= 2000
TB_N_CONFIG   ?= 200000
TB_SEED       ?= 1
TB_BENCH_N    ?= 3000000

VFLAGS := --cc --exe -O3 --x-assign fast --x-initial fast --no-timing \
          -Wall -Wno-UNUSEDSIGNAL -Wno-DECLFILENAME -Wno-BLKSEQ
VCFLAGS ?= -O3 -march=native
# the DPI layer and the testbench kit: the stimulus loops vectorize at -O3
DPI_CFLAGS ?= -O3 -march=native

.PHONY: FORCE tb tb-test tb-bench tb-broken tb-sc tb-valgrind rtl-check tb-bins tb-sc-bins tb-configs tb-config-bins tb-var-bins

$(RTL_B)/obj/mmaref_dpi.o: dpi/mmaref_dpi.c dpi/mmaref_tbkit.h model/include/mmaref.h model/include/mmaref_vec.h
	@mkdir -p $(dir $@)
	@test -f $(VLTSTD)/svdpi.h || { echo "rtl: no svdpi.h in '$(VLTSTD)': is $(VERILATOR) installed (Debian: verilator)?"; exit 1; }
	$(RTL_CC) -std=c11 -D_GNU_SOURCE $(DPI_CFLAGS) -g -Wall -Wextra -Werror -Imodel/include -Idpi -I$(VLTSTD) -c $< -o $@

$(RTL_B)/obj/mmaref_tbkit.o: dpi/mmaref_tbkit.c dpi/mmaref_tbkit.h model/include/mmaref.h
	@mkdir -p $(dir $@)
	$(RTL_CC) -std=c11 -D_GNU_SOURCE $(DPI_CFLAGS) -g -Wall -Wextra -Werror -Imodel/include -c $< -o $@

$(MMAPARAMS): tb/mmaparams.c $(RTL_B)/obj/mmaref_tbkit.o $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(RTL_CC) -std=c11 -O2 -Wall -Wextra -Werror -Imodel/include -Idpi $< $(RTL_B)/obj/mmaref_tbkit.o $(B)/libmmaref.a -lm -o $@

# one Verilator build per preset, reused by every run of it.  Verilating
# (SystemVerilog -> C++) depends on the RTL and the parameters; compiling and
# linking on the C side too, so that a change of the model or of the DPI
# layer only recompiles what changed and relinks.
# $(1) tag, $(2) instruction, $(3) extra mmaparams options, $(4) extra verilator options
define TB_BUILD
$(RTL_B)/$(1)/params: $(MMAPARAMS) FORCE
	@mkdir -p $(RTL_B)/$(1)
	@$(MMAPARAMS) $(3) '$(2)' > $$@.tmp && { cmp -s $$@.tmp $$@ || mv $$@.tmp $$@; }; rm -f $$@.tmp

$(RTL_B)/$(1)/Vtb_top.mk: $(RTL_B)/$(1)/params $(RTL_SRC) $(TB_SV) mk/rtl.mk
	@echo "  VERILATE $(1): $(2) $(3)"
	@$(VERILATOR) $(VFLAGS) $(4) --top-module tb_top $$$$(cat $(RTL_B)/$(1)/params) \
	  -Mdir $(RTL_B)/$(1) -CFLAGS "$(VCFLAGS)" -MAKEFLAGS "CXX=$(RTL_CXX)" \
	  -LDFLAGS "$(abspath $(TBKIT_OBJ)) $(abspath $(B)/libmmaref.a) -lm" \
	  $(RTL_SRC) $(TB_SV) $(abspath tb/tb_main.cpp) > $(RTL_B)/$(1)/build.log 2>&1 \
	  || { tail -40 $(RTL_B)/$(1)/build.log; exit 1; }
	@touch $$@

$(RTL_B)/$(1)/Vtb_top: $(RTL_B)/$(1)/Vtb_top.mk tb/tb_main.cpp $(TBKIT_OBJ) $(B)/libmmaref.a
	@echo "  BUILD    $(1)"
	@rm -f $$@
	@$(MAKE) --no-print-directory -C $(RTL_B)/$(1) -f Vtb_top.mk CXX=$(RTL_CXX) >> $(RTL_B)/$(1)/build.log 2>&1 \
	  || { tail -40 $(RTL_B)/$(1)/build.log; exit 1; }
endef
$(foreach p,$(RTL_PRESETS) $(RTL_CONFIGS),$(eval $(call TB_BUILD,$(p),$(I_$(p)),,)))
$(eval $(call TB_BUILD,qgmma_e4m3_broken,$(I_qgmma_e4m3),--f-delta -1,--trace-fst -DTB_TRACE))
$(foreach p,$(PIPE_PRESETS),$(eval $(call TB_BUILD,$(p),$(I_$(p)),,-GPIPE=2)))
$(foreach p,$(VAR_PRESETS),$(eval $(call TB_BUILD,$(p),$(I_$(p)),,$(G_$(p)))))

FORCE:

tb-bins: $(foreach p,$(RTL_PRESETS) $(PIPE_PRESETS),$(RTL_B)/$(p)/Vtb_top)
tb-config-bins: $(foreach p,$(RTL_CONFIGS),$(RTL_B)/$(p)/Vtb_top)
tb-var-bins: $(foreach p,$(VAR_PRESETS),$(RTL_B)/$(p)/Vtb_top)

# ---- runs -------------------------------------------------------------------
PAIRS    = $(foreach p,$(1),$(p)='$(I_$(p))')

tb-test: rtl-check tb-bins $(B)/mmaref
	@sh tb/run.sh random $(RTL_B) $(TB_N_TEST) $(TB_SEED) $(call PAIRS,$(RTL_PRESETS) $(PIPE_PRESETS))
	@sh tb/run.sh suites $(RTL_B) $(B)/mmaref $(TB_SUITE_TEST) $(TB_SEED) "$(TB_SUITES)" $(call PAIRS,$(RTL_PRESETS))
	@sh tb/run_hw.sh $(RTL_B) $(MMAPARAMS) $(call PAIRS,$(HW_PRESETS))
	@$(MAKE) --no-print-directory tb-broken
	@$(MAKE) --no-print-directory tb-sc TB_SC_PRESETS="$(SC_TEST_PRESETS)" TB_SC_N=50000
	@$(MAKE) --no-print-directory tb-valgrind

tb: rtl-check tb-bins tb-config-bins tb-var-bins $(B)/mmaref
	@sh tb/run.sh random $(RTL_B) $(TB_N_FULL) $(TB_SEED) $(call PAIRS,$(RTL_PRESETS) $(PIPE_PRESETS) $(VAR_PRESETS))
	@sh tb/run.sh suites $(RTL_B) $(B)/mmaref $(TB_SUITE_FULL) $(TB_SEED) "$(TB_SUITES)" $(call PAIRS,$(RTL_PRESETS))
	@sh tb/run.sh random $(RTL_B) $(TB_N_CONFIG) $(TB_SEED) $(call PAIRS,$(RTL_CONFIGS))
	@sh tb/run_hw.sh $(RTL_B) $(MMAPARAMS) $(call PAIRS,$(HW_PRESETS) $(RTL_CONFIGS))
	@$(MAKE) --no-print-directory tb-broken
	@$(MAKE) --no-print-directory tb-sc TB_SC_PRESETS="$(RTL_PRESETS)" TB_SC_N=200000

tb-configs: tb-config-bins
	@sh tb/run.sh random $(RTL_B) $(TB_N_CONFIG) $(TB_SEED) $(call PAIRS,$(RTL_CONFIGS))
	@sh tb/run_hw.sh $(RTL_B) $(MMAPARAMS) $(call PAIRS,$(RTL_CONFIGS))

# the deliberately broken variant: F one short; mismatches are expected, and
# the first one is replayed into an FST trace
tb-broken: $(RTL_B)/qgmma_e4m3_broken/Vtb_top
	@echo "== qgmma_e4m3_broken (F=12 RTL against the F=13 model): mismatches expected"
	@$(RTL_B)/qgmma_e4m3_broken/Vtb_top +instr='$(I_qgmma_e4m3)' +n=100000 +seed=$(TB_SEED) \
	  +allow_param_diff +quiet > $(RTL_B)/qgmma_e4m3_broken/random.log 2>&1; \
	  grep -E "RTL parameter|vectors, .* mismatches" $(RTL_B)/qgmma_e4m3_broken/random.log; \
	  n=$$(sed -n 's/^[0-9]* vectors, \([0-9]*\) mismatches$$/\1/p' $(RTL_B)/qgmma_e4m3_broken/random.log); \
	  test -n "$$n" && test "$$n" -gt 0 || { echo "FAIL: the broken variant was not caught"; exit 1; }
	@$(RTL_B)/qgmma_e4m3_broken/Vtb_top +instr='$(I_qgmma_e4m3)' +n=100000 +seed=$(TB_SEED) \
	  +allow_param_diff +quiet +fst=$(RTL_B)/qgmma_e4m3_broken/first_mismatch.fst \
	  > $(RTL_B)/qgmma_e4m3_broken/fst.log 2>&1; \
	  grep -E "replayed|dut d=" $(RTL_B)/qgmma_e4m3_broken/fst.log | head -3; \
	  test -s $(RTL_B)/qgmma_e4m3_broken/first_mismatch.fst || { echo "FAIL: no FST trace"; exit 1; }
	@echo "PASS: the broken variant is caught"

# tb-bench: the QGMMA preset, mix stimulus, one process; three runs, each
# line with the wall-clock rate and the CPU-time rate (on a shared machine
# the CPU time is the steadier measure); then one run without the
# scoreboard (the model not called) for the breakdown
TB_BENCH_SED := s/^tb_main: \([0-9]*\) vectors in \([0-9.]*\) s: \([0-9]*\) vectors\/s (CPU \([0-9.]*\) s: \([0-9]*\) vectors\/s.*/\3 vectors\/s wall, \5 vectors\/s CPU/p
tb-bench: $(RTL_B)/qgmma_e4m3/Vtb_top
	@echo "== tb-bench: $(I_qgmma_e4m3), $(TB_BENCH_N) constrained-random vectors (mix), one core"
	@for r in 1 2 3; do \
	  $(RTL_B)/qgmma_e4m3/Vtb_top +instr='$(I_qgmma_e4m3)' +n=$(TB_BENCH_N) +seed=$$r +mode=mix +quiet > $(RTL_B)/tb-bench.log || exit 1; \
	  echo "tb-bench: run $$r: $$(sed -n 's/ mismatches$$//p' $(RTL_B)/tb-bench.log | head -1) mismatches;" \
	    "$$(sed -n '$(TB_BENCH_SED)' $(RTL_B)/tb-bench.log) through the Verilator testbench with the DPI scoreboard"; \
	done
	@$(RTL_B)/qgmma_e4m3/Vtb_top +instr='$(I_qgmma_e4m3)' +n=$(TB_BENCH_N) +seed=$(TB_SEED) +mode=mix +quiet +nomodel \
	  | sed -n '$(TB_BENCH_SED)' | sed 's/^/tb-bench: without the scoreboard (stimulus and RTL only): /'

# tb-valgrind (in tb-test): the QGMMA testbench, DPI layer and scoreboard
# queue included, under valgrind memcheck: constrained-random stimulus and a
# hardware vector file (its end included).  A build of its own: portable
# code (valgrind knows no AVX-512) with DWARF 4 debug information.
TB_VG_B := $(B)/vg
tb-valgrind:
	@$(MAKE) --no-print-directory B=$(TB_VG_B) VCFLAGS="-O1 -gdwarf-4" DPI_CFLAGS="-O1 -gdwarf-4" \
	  $(TB_VG_B)/rtl/qgmma_e4m3/Vtb_top
	@valgrind -q --error-exitcode=9 $(TB_VG_B)/rtl/qgmma_e4m3/Vtb_top +instr='$(I_qgmma_e4m3)' +n=2000 \
	  +seed=$(TB_SEED) +mode=mix +quiet > $(TB_VG_B)/random.log 2>&1 \
	  || { cat $(TB_VG_B)/random.log; echo "FAIL: tb-valgrind (random)"; exit 1; }
	@grep -E "vectors, .* mismatches" $(TB_VG_B)/random.log | sed 's/^/== valgrind, random: /'
	@valgrind -q --error-exitcode=9 $(TB_VG_B)/rtl/qgmma_e4m3/Vtb_top \
	  +vec=vectors/hw/h100/wgmma.m64n8k32.f32.e4m3.e4m3.specials.vec.xz +quiet > $(TB_VG_B)/file.log 2>&1 \
	  || { cat $(TB_VG_B)/file.log; echo "FAIL: tb-valgrind (vector file)"; exit 1; }
	@grep -E "vectors, .* mismatches" $(TB_VG_B)/file.log | sed 's/^/== valgrind, H100 file: /'

# ---- SystemC testbench (verilator --sc; the model called directly) ---------
TB_SC_PRESETS ?= $(SC_TEST_PRESETS)
TB_SC_N       ?= 50000
SC_ENV  = SYSTEMC_INCLUDE=/usr/include SYSTEMC_LIBDIR=/usr/lib/$(shell gcc -print-multiarch 2>/dev/null)

# $(1) tag, $(2) instruction
define SC_BUILD
$(RTL_B)/sc_$(1)/Vsc: $(RTL_B)/$(1)/params $(RTL_SRC) tb/sc_main.cpp $(RTL_B)/obj/mmaref_tbkit.o $(B)/libmmaref.a mk/rtl.mk
	@mkdir -p $(RTL_B)/sc_$(1)
	@echo "  VERILATE --sc $(1): $(2)"
	@P="$$$$(cat $(RTL_B)/$(1)/params)"; \
	  k=$$$$(echo "$$$$P" | sed 's/.*-GK=\([0-9]*\).*/\1/'); \
	  ab=$$$$(echo "$$$$P" | sed 's/.*-GA_EB=\([0-9]*\) -GA_MB=\([0-9]*\).*/\1 \2/' | awk -v k=$$$$k '{print k*(1+$$$$1+$$$$2)}'); \
	  bb=$$$$(echo "$$$$P" | sed 's/.*-GB_EB=\([0-9]*\) -GB_MB=\([0-9]*\).*/\1 \2/' | awk -v k=$$$$k '{print k*(1+$$$$1+$$$$2)}'); \
	  $(SC_ENV) $(VERILATOR) --sc --exe --build -j 2 -O3 --x-assign fast --x-initial fast --no-timing \
	    -Wno-fatal --top-module mma_dpa $$$$P -o Vsc -Mdir $(RTL_B)/sc_$(1) \
	    -CFLAGS "-O2 -DTB_AB=$$$$ab -DTB_BB=$$$$bb -I$(abspath model/include) -I$(abspath dpi)" \
	    -LDFLAGS "$(abspath $(RTL_B)/obj/mmaref_tbkit.o) $(abspath $(B)/libmmaref.a) -lsystemc -lm" \
	    $(RTL_SRC) $(abspath tb/sc_main.cpp) > $(RTL_B)/sc_$(1)/build.log 2>&1 \
	  || { tail -40 $(RTL_B)/sc_$(1)/build.log; exit 1; }
endef
$(foreach p,$(RTL_PRESETS),$(eval $(call SC_BUILD,$(p),$(I_$(p)))))

tb-sc-bins: $(foreach p,$(TB_SC_PRESETS),$(RTL_B)/sc_$(p)/Vsc)

tb-sc: tb-sc-bins
	@sh tb/run.sh sc $(RTL_B) $(TB_SC_N) $(TB_SEED) $(call PAIRS,$(TB_SC_PRESETS))

EXTRA_TESTS += tb-test

# rtl/mma_pkg.sv, the RTL's mode enums, is generated from the C side
# (scripts/rtl_pkg.py): rtl-pkg writes it, rtl-pkg-check (in rtl-check)
# fails when the committed file is not what the generator makes
.PHONY: rtl-pkg rtl-pkg-check
rtl-pkg:
	python3 scripts/rtl_pkg.py rtl/mma_pkg.sv
rtl-pkg-check:
	@python3 scripts/rtl_pkg.py --check rtl/mma_pkg.sv

rtl-check: $(MMAPARAMS) rtl-pkg-check
	@VERILATOR=$(VERILATOR) YOSYS=$(YOSYS) sh tb/rtl_check.sh $(MMAPARAMS) $(call PAIRS,$(RTL_PRESETS) $(RTL_CONFIGS))

# our RTL (docs/rtl.md) and mmaparams, which gives its parameters for a unit:
# docs/dpi.md's example from an installation alone
.PHONY: install-rtl
install: install-rtl
install-rtl: $(MMAPARAMS)
	install -d $(DESTDIR)$(PREFIX)/bin $(KIT_DATA)/rtl
	install -m 755 $(MMAPARAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(RTL_SRC) $(KIT_DATA)/rtl/
	printf '$(PREFIX)/share/mmaref/rtl/%s\n' $(notdir $(RTL_SRC)) > $(KIT_DATA)/rtl/mma_dpa.f
