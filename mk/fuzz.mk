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
#   make fuzz-merge  the long run's new inputs that add coverage, into
#                    fuzz/corpus-found.tar.xz (commit)
#   make fuzz-repro FUZZ_INPUT=file FUZZ_TARGET=name   replays one input
#
# fuzz/corpus-found.tar.xz: the inputs that long runs found and that add
# coverage to the seed corpus, one folder a target (one file in git rather
# than a thousand small ones); unpacked into $(FUZZ_B)/found/ and given to
# every run as a second corpus.
FUZZ_TARGETS := config vecfile vecfile_xz vecfile_gz dut cli_args
FUZZ_SRC_dut := verify/dut.c
# the command line: every CLI source but main.c (which the target includes)
FUZZ_SRC_cli_args := $(filter-out cli/main.c,$(CLI_SRC)) $(VERIFY_SRC)
FUZZ_LIBS_cli_args := -llzma -lz -lzstd -lpthread

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
FUZZ_FOUND := $(FUZZ_B)/found/.unpacked

.PHONY: test-fuzz fuzz fuzz-merge fuzz-repro

# the library instrumented for coverage and built with the sanitizers
$(FUZZ_B)/libmmaref.a: $(MODEL_SRC) $(MODEL_HDR) fuzz/coverage-ignore.txt
	@$(MAKE) --no-print-directory B=$(FUZZ_B) CC=$(FUZZ_CC) \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link -fsanitize-coverage-ignorelist=$(abspath fuzz/coverage-ignore.txt) $(FUZZ_SAN)" $(FUZZ_B)/libmmaref.a


$(FUZZ_FOUND): fuzz/corpus-found.tar.xz
	@rm -rf $(FUZZ_B)/found; mkdir -p $(FUZZ_B)/found
	tar -C $(FUZZ_B)/found -xJf fuzz/corpus-found.tar.xz
	@for t in $(FUZZ_TARGETS); do mkdir -p $(FUZZ_B)/found/$$t; done; touch $@

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
	  fuzz/$(1).c $(FUZZ_SRC_$(1)) $(FUZZ_B)/libmmaref.a $(FUZZ_LIBS_$(1)) -lm -o $$@

test-fuzz-$(1): $(FUZZ_B)/$(1) $(FUZZ_FOUND)
	@rm -rf $(FUZZ_B)/test/$(1)
$(call FUZZ_RUN,$(1),test,-runs=$(or $(FUZZ_RUNS_$(1)),$(FUZZ_RUNS)) -seed=1,$(FUZZ_B)/test/$(1) fuzz/corpus/$(1) $(FUZZ_B)/found/$(1))

fuzz-$(1): $(FUZZ_B)/$(1) $(FUZZ_FOUND)
$(call FUZZ_RUN,$(1),findings,-max_total_time=$(FUZZ_TIME),$(FUZZ_B)/corpus/$(1) fuzz/corpus/$(1) $(FUZZ_B)/found/$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

test-fuzz: $(foreach t,$(FUZZ_TARGETS),test-fuzz-$(t))
fuzz: $(foreach t,$(FUZZ_TARGETS),fuzz-$(t))

fuzz-merge: $(FUZZ_BINS) $(FUZZ_FOUND)
	@rm -rf $(FUZZ_B)/merge; for t in $(FUZZ_TARGETS); do m=$(FUZZ_B)/merge/$$t; mkdir -p $$m $(FUZZ_B)/corpus/$$t; \
	  cp fuzz/corpus/$$t/* $(FUZZ_B)/found/$$t/* $$m/ 2>/dev/null; \
	  $(FUZZ_ENV) $(FUZZ_B)/$$t -merge=1 -use_counters=0 $$m $(FUZZ_B)/corpus/$$t > $(FUZZ_B)/merge-$$t.log 2>&1 \
	    || { tail -20 $(FUZZ_B)/merge-$$t.log; exit 1; }; \
	  for f in fuzz/corpus/$$t/*; do rm -f $$m/$${f##*/}; done; \
	  echo "fuzz-merge $$t: $$(ls $$m | wc -l) inputs beside the $$(ls fuzz/corpus/$$t | wc -l) of fuzz/corpus/$$t"; done
	tar -C $(FUZZ_B)/merge --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - $(sort $(FUZZ_TARGETS)) \
	  | xz -9e > fuzz/corpus-found.tar.xz

fuzz-repro: $(FUZZ_B)/$(FUZZ_TARGET)
	$(FUZZ_ENV) $(FUZZ_B)/$(FUZZ_TARGET) $(FUZZ_INPUT)

EXTRA_TESTS += test-fuzz
