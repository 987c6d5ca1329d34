# mk/variants.mk: the structural variants of the candidate RTL (docs/rtl.md:
# carry-save sums, register cuts inside the steps, the block-scaled units),
# each proved bit-exact against the model by `mmaref verify` before it is
# costed (scripts/area/).  Included by the root Makefile.
#
#   make rtl-variants   (part of make test, about 2 minutes on 2 cores) the
#                       SAT proof of mma_csa_tree, then every description of
#                       VARIANT_DUTS through mmaref verify: VARIANT_COUNT
#                       vectors of each suite and VARIANT_RANDOM
#                       constrained-random ones, 0 mismatches; the broken
#                       variants (broken:) must be caught
#   make rtl-variants VARIANT_COUNT=20000 VARIANT_RANDOM=1000000   a longer run

VARIANT_COUNT  ?= 1000
VARIANT_RANDOM ?= 20000
VARIANT_SEED   ?= 1
VARIANT_DUTS   := tb/mma_dpa_csa.dut broken:tb/mma_dpa_csa_broken.dut tb/mma_dpa_pipe.dut \
                  tb/mma_dpa_exact.dut tb/mma_mxf8.dut tb/mma_nvf4.dut broken:tb/mma_nvf4_broken.dut

.PHONY: rtl-variants

rtl-variants: $(B)/mmaref dpi
	@YOSYS=$(YOSYS) sh tb/csa_equiv.sh
	@sh tb/variants.sh $(abspath $(B)/mmaref) $(B)/variants $(VARIANT_COUNT) $(VARIANT_RANDOM) $(VARIANT_SEED) $(VARIANT_DUTS)

EXTRA_TESTS += rtl-variants
