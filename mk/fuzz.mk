# mk/fuzz.mk: coverage-guided fuzzing (libFuzzer, clang) of every parser that
# takes user input, under AddressSanitizer and UBSan.  Included by the root
# Makefile, which defines B, WARN and the library's sources.
#
# One target a file: fuzz/<name>.c (LLVMFuzzerTestOneInput), its seed corpus
# in fuzz/corpus/<name>/ and, optionally, a dictionary fuzz/<name>.dict and
# FUZZ_SRC_<name>, sources outside the library that it needs (instrumented
# too).  To add a target: write the file and add its name to FUZZ_TARGETS.
#
#   make test-fuzz   (part of make test) FUZZ_RUNS inputs per target, seed 1,
#                    from the committed corpus (a few seconds each)
#   make fuzz        the long run: FUZZ_TIME seconds per target (default 600),
#                    new inputs kept in build/fuzz/corpus/<name>/, findings
#                    (crash-*, leak-*, timeout-*) in build/fuzz/findings/
#   make fuzz-merge  the long run's corpus minimized into fuzz/corpus/ (commit)
#   make fuzz-repro FUZZ_INPUT=file FUZZ_TARGET=name   replays one input
FUZZ_TARGETS := config vecfile vecfile_xz vecfile_gz dut
FUZZ_SRC_dut := verify/dut.c

FUZZ_CC    ?= clang
FUZZ_B     := $(B)/fuzz
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_RUNS  ?= 10000
FUZZ_TIME  ?= 600
# the compressed targets start a decompressor for every input
FUZZ_RUNS_vecfile_xz ?= 1000
FUZZ_RUNS_vecfile_gz ?= 1000
# libFuzzer: hangs (an input slower than 10 s) and leaks are findings too
FUZZ_OPTS  := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_ENV   := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fuzz_dict   = $(if $(wildcard fuzz/$(1).dict),-dict=fuzz/$(1).dict)

FUZZ_BINS  := $(addprefix $(FUZZ_B)/,$(FUZZ_TARGETS))

.PHONY: test-fuzz fuzz fuzz-merge fuzz-repro

# the library instrumented for coverage and built with the sanitizers
$(FUZZ_B)/libmmaref.a: $(MODEL_SRC) $(MODEL_HDR) fuzz/coverage-ignore.txt
	@$(MAKE) --no-print-directory B=$(FUZZ_B) CC=$(FUZZ_CC) \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link -fsanitize-coverage-ignorelist=$(abspath fuzz/coverage-ignore.txt) $(FUZZ_SAN)" $(FUZZ_B)/libmmaref.a


# $(1) target, $(2) the run's directory under $(FUZZ_B), $(3) libFuzzer
# options, $(4) corpus directories (new inputs go to the first)
define FUZZ_RUN
	@rm -rf $(FUZZ_B)/$(2)/$(1).findings; mkdir -p $(FUZZ_B)/$(2)/$(1).findings $(firstword $(4))
	@$(FUZZ_ENV) $(FUZZ_B)/$(1) $(3) $(FUZZ_OPTS) $(if $(wildcard fuzz/$(1).dict),-dict=fuzz/$(1).dict) \
	  -artifact_prefix=$(FUZZ_B)/$(2)/$(1).findings/ $(4) > $(FUZZ_B)/$(2)/$(1).log 2>&1 \
	  || { tail -40 $(FUZZ_B)/$(2)/$(1).log; echo "FAIL: fuzz target $(1): the input is in $(FUZZ_B)/$(2)/$(1).findings/"; exit 1; }
	@echo "fuzz $(1): $$$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_B)/$(2)/$(1).log) inputs" \
	  "($$$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(FUZZ_B)/$(2)/$(1).log)/s), no crash, no sanitizer report, no hang"
endef

define FUZZ_TARGET_RULES
$(FUZZ_B)/$(1): fuzz/$(1).c fuzz/fuzz.h $(FUZZ_B)/libmmaref.a $(FUZZ_SRC_$(1)) $(wildcard $(addsuffix *.h,$(sort $(dir $(FUZZ_SRC_$(1))))))
	$(FUZZ_CC) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) $(WARN) -Imodel/include $(addprefix -I,$(sort $(dir $(FUZZ_SRC_$(1))))) \
	  fuzz/$(1).c $(FUZZ_SRC_$(1)) $(FUZZ_B)/libmmaref.a -lm -o $$@

test-fuzz-$(1): $(FUZZ_B)/$(1)
	@rm -rf $(FUZZ_B)/test/$(1)
$(call FUZZ_RUN,$(1),test,-runs=$(or $(FUZZ_RUNS_$(1)),$(FUZZ_RUNS)) -seed=1,$(FUZZ_B)/test/$(1) fuzz/corpus/$(1))

fuzz-$(1): $(FUZZ_B)/$(1)
$(call FUZZ_RUN,$(1),findings,-max_total_time=$(FUZZ_TIME),$(FUZZ_B)/corpus/$(1) fuzz/corpus/$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

test-fuzz: $(foreach t,$(FUZZ_TARGETS),test-fuzz-$(t))
fuzz: $(foreach t,$(FUZZ_TARGETS),fuzz-$(t))

fuzz-merge: $(FUZZ_BINS)
	@for t in $(FUZZ_TARGETS); do mkdir -p fuzz/corpus/$$t $(FUZZ_B)/corpus/$$t; \
	  $(FUZZ_B)/$$t -merge=1 fuzz/corpus/$$t $(FUZZ_B)/corpus/$$t > $(FUZZ_B)/merge-$$t.log 2>&1 \
	    || { tail -20 $(FUZZ_B)/merge-$$t.log; exit 1; }; \
	  echo "fuzz-merge $$t: $$(ls fuzz/corpus/$$t | wc -l) inputs"; done

fuzz-repro: $(FUZZ_B)/$(FUZZ_TARGET)
	$(FUZZ_ENV) $(FUZZ_B)/$(FUZZ_TARGET) $(FUZZ_INPUT)

EXTRA_TESTS += test-fuzz
