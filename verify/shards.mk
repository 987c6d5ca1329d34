# shards.mk: a campaign of mmaref verify split into shards run in parallel
# on one machine, then merged (docs/verify.md; on a cluster, the Slurm job
# array there does the same).
#   make -f <prefix>/share/mmaref/verify/shards.mk DUT=unit.dut N=8 -j8 [ARGS="--random 10000000"]
# Prints the merged report; exit status as mmaref verify's.
DUT     ?= $(error give DUT=<unit.dut>)
N       ?= 4
ARGS    ?=
MMAREF  ?= mmaref
WORKDIR ?= $(basename $(notdir $(DUT))).verify
SHARDS  := $(shell seq 0 $$(($(N) - 1)))

.PHONY: all build
all: $(foreach i,$(SHARDS),$(WORKDIR)/run-$(i)-of-$(N)/results)
	@$(MMAREF) verify --merge $^

# one build before the shards (they share it)
build:
	@$(MMAREF) verify $(DUT) --workdir $(WORKDIR) --build-only $(ARGS) > /dev/null

# a shard's own exit status 1 (mismatches) still leaves its results to merge
$(WORKDIR)/run-%-of-$(N)/results: build
	@$(MMAREF) verify $(DUT) --workdir $(WORKDIR) --shard $*/$(N) $(ARGS) > $(WORKDIR)/shard-$*.log 2>&1; \
	  test $$? -le 1 || { cat $(WORKDIR)/shard-$*.log; exit 2; }
