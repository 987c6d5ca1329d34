# mmaref: `make` builds the library and the tool; `make test` runs every test;
# `make demo` runs the main demonstration; `make bench` prints speed figures;
# `make install PREFIX=...` installs library, headers, pkg-config file, tool.

# ---- first the Debian packages the goals need (scripts/deps.txt) ----------
# Installed when root, else named (and make stops before compiling).  Then
# make runs again for the goals themselves, so that every tool path below and
# in mk/*.mk (Verilator's root, the C++ compiler, SystemC) is found after the
# installation.  MMAREF_DEPS=no skips the check (tools from elsewhere).
DEPS_FREE := clean deps deps-list
ifeq ($(DEPS_DONE)$(MMAREF_DEPS),)
ifneq ($(filter-out $(DEPS_FREE),$(or $(MAKECMDGOALS),all)),)
DEPS_GOALS := $(or $(MAKECMDGOALS),all)
.NOTPARALLEL:
.PHONY: $(DEPS_GOALS) deps-then-goals
deps-then-goals:
	@sh scripts/deps.sh $(filter-out $(DEPS_FREE),$(DEPS_GOALS))
	@$(MAKE) --no-print-directory DEPS_DONE=1 $(MAKECMDGOALS)
$(DEPS_GOALS): deps-then-goals
	@:
DEPS_PHASE := 1
endif
endif
ifndef DEPS_PHASE
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow
PREFIX  ?= /usr/local
B       := build
CLI_LIBS ?=
# the command's compressed output goes through these libraries (cli/outfile.c)
CLI_SYSLIBS := -llzma -lz -lzstd -lm -lpthread

# model/src/<subsystem>/ (docs/architecture.md); a file includes another
# folder's header by its relative path (../core/internal.h)
MODEL_SRC := $(wildcard model/src/*/*.c)
MODEL_OBJ := $(patsubst model/src/%.c,$(B)/model/%.o,$(MODEL_SRC))
MODEL_HDR := $(wildcard model/include/*.h model/src/*/*.h)
CLI_SRC   := $(wildcard cli/*.c)
# the verify flow (verify/) and the results format it shares with the
# harness inside its testbenches (verify/harness/, built into the DPI kit)
VERIFY_SRC := $(wildcard verify/*.c) verify/harness/mmaref_results.c
VERIFY_HDR := $(wildcard verify/*.h) verify/harness/mmaref_results.h
CLI_OBJ   := $(patsubst cli/%.c,$(B)/cli/%.o,$(CLI_SRC)) $(patsubst %.c,$(B)/verify/%.o,$(notdir $(VERIFY_SRC)))

.PHONY: all lib test demo docs-check bench install clean deps deps-list test-unit test-cli test-vectors test-gen-identity test-sanitize test-valgrind
all: lib $(B)/mmaref

# the packages of every target: installed (root) or named
deps:
	@sh scripts/deps.sh test tb bench area plots fuzz
deps-list:
	@sh scripts/deps.sh --list $(or $(GOALS),test tb bench area plots fuzz)

lib: $(B)/libmmaref.a

$(B)/model/%.o: model/src/%.c $(MODEL_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -fPIC -Imodel/include -c $< -o $@

$(B)/libmmaref.a: $(MODEL_OBJ)
	ar rcs $@ $^

$(B)/cli/%.o: cli/%.c $(wildcard cli/*.h) $(MODEL_HDR) $(VERIFY_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Icli -Iverify -c $< -o $@

$(B)/verify/%.o: verify/%.c $(MODEL_HDR) $(VERIFY_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Iverify -Iverify/harness -c $< -o $@

$(B)/verify/mmaref_results.o: verify/harness/mmaref_results.c verify/harness/mmaref_results.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Iverify/harness -c $< -o $@

$(B)/mmaref: $(CLI_OBJ) $(B)/libmmaref.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libmmaref.a $(CLI_LIBS) $(CLI_SYSLIBS)

# ---- tests --------------------------------------------------------------
CHECK_FLAGS = $(shell pkg-config --cflags --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -lpthread)

$(B)/test_model: tests/test_model.c $(B)/libmmaref.a
	$(CC) $(CFLAGS) $(WARN) -Imodel/include $< $(B)/libmmaref.a $(CHECK_FLAGS) -lm -lpthread -o $@

test-unit: $(B)/test_model
	$(B)/test_model

test-cli: $(B)/mmaref
	sh tests/cli_test.sh $(B)/mmaref

test-vectors: $(B)/mmaref
	sh tests/check_vectors.sh $(B)/mmaref vectors/hw vectors/peer

# every gen suite x 20 units x 3 seeds against the SHA-256 manifest recorded
# before the suites moved into the library (30 s)
test-gen-identity: $(B)/mmaref
	sh tests/gen_identity.sh $(B)/mmaref

# The whole library, tool and unit tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer, with a generate-and-check round on every suite.
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-sanitize:
	$(MAKE) --no-print-directory B=$(B)/san CFLAGS="-O1 -g $(SAN)" CLI_LIBS="$(CLI_LIBS) $(SAN)" $(B)/san/mmaref $(B)/san/test_model
	ASAN_OPTIONS=detect_leaks=1 $(B)/san/test_model
	sh tests/cli_test.sh $(B)/san/mmaref quick
	for f in vectors/hw/h100/*.specials.vec.xz vectors/hw/h100/*.ezero.vec.xz; do $(B)/san/mmaref check $$f --show 0 | tail -1 | grep -q ' 0 mismatches$$' || { echo "sanitized check failed: $$f"; exit 1; }; done

# The unit tests and a generate/check round under valgrind (memcheck).  (Not
# the fp64 files: valgrind's emulated fma loses the sign of zero results.)
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
test-valgrind: $(B)/test_model $(B)/mmaref
	CK_FORK=no $(VALGRIND) $(B)/test_model
	$(VALGRIND) $(B)/mmaref gen hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --suite compliance --count 2000 --seed 1 -o $(B)/vg.vec
	$(VALGRIND) $(B)/mmaref check $(B)/vg.vec > $(B)/vg.out && tail -1 $(B)/vg.out
	$(VALGRIND) $(B)/mmaref check vectors/hw/h100/wgmma.m64n8k16.f32.bf16.bf16.specials.vec.xz > $(B)/vg.out && tail -1 $(B)/vg.out
	$(VALGRIND) $(B)/mmaref metrics hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --count 2000 > /dev/null

-include mk/*.mk

# Two lanes side by side (scripts/run_tests.sh): the RTL, Verilator,
# Yosys and Python targets in one, the model's in the other; what both use
# is built first (test-prereqs).  MMAREF_TEST_LANES=1: one after the other.
# Every test target is named test-*; four makefiles still name theirs the
# old way (mk/rtl.mk, mk/variants.mk, mk/area.mk, mk/verify.mk), reached
# here under the test- name.
.PHONY: test-tb test-rtl-variants test-area test-verify-valgrind test-quick test-cli-quick
test-tb: tb-test
test-rtl-variants: rtl-variants
test-area: area-test
test-verify-valgrind: verify-valgrind
TEST_NAME = $(patsubst tb-test,test-tb,$(patsubst rtl-variants,test-rtl-variants,$(patsubst area-test,test-area,$(patsubst verify-valgrind,test-verify-valgrind,$(1)))))
TESTS := $(call TEST_NAME,test-unit test-cli test-vectors test-gen-identity test-sanitize test-valgrind $(EXTRA_TESTS) docs-check)
TEST_LANE2 := $(filter test-tb test-rtl-variants test-verify test-verify-strength test-verify-san test-verify-valgrind test-install \
                test-python test-cocotb test-area,$(TESTS))
TEST_LANE1 := $(filter-out $(TEST_LANE2),$(TESTS))
.PHONY: test-prereqs
test-prereqs: all dpi $(MMAPARAMS) python $(B)/test_model
# ends with the line "<N> passed, <M> failed" over every runner's checks
test: test-prereqs
	@sh scripts/run_tests.sh "$(TEST_LANE1)" "$(TEST_LANE2)"

# The quick tier (under 3 minutes on the 2-core build machine): the unit
# tests, the command's contracts (cli_test.sh quick), the bad-input table,
# the suites' bytes and a sample of the fast path against the reference.
QUICK_TESTS := test-unit test-cli-quick test-bad-input test-gen-identity test-fastpath-sample
test-cli-quick: $(B)/mmaref
	sh tests/cli_test.sh $(B)/mmaref quick
test-quick: $(B)/test_model $(B)/mmaref $(B)/tests/test_fastpath
	@MMAREF_TEST_LANES=1 RUN_NAME="make test-quick" sh scripts/run_tests.sh "$(QUICK_TESTS)"

demo: all
	sh scripts/demo.sh $(B)/mmaref

# the figures of README.md and docs/ against what their commands print now
# (blocks marked <!-- generated: COMMAND -->; scripts/docs_check.sh); DOCS=file.md
# checks only that file
docs-check: all
	sh scripts/docs_check.sh $(DOCS)

EXTRA_BENCH ?= metrics-bench tb-bench verify-bench mutants-bench python-bench probe-bench area-bench
bench: all
	sh scripts/bench.sh $(B)/mmaref $(EXTRA_BENCH)

# The installed library gives the public headers' functions and nothing
# else: the objects linked into one (ld -r, so that the library's own calls
# are resolved) and every other global made local (the fast path's fast_*,
# the metrics' mx_*, the model's internal mma_*).  The archive in build/
# keeps them for the tests.
$(B)/public.syms: $(wildcard model/include/*.h)
	@grep -ohE '\bmma_[a-z0-9_]+[[:space:]]*\(' model/include/*.h | sed 's/[[:space:]]*($$//' | sort -u > $@.tmp && mv $@.tmp $@
$(B)/public/libmmaref.a: $(MODEL_OBJ) $(B)/public.syms
	@mkdir -p $(dir $@)
	ld -r -o $(B)/public/mmaref.o $(MODEL_OBJ)
	objcopy --keep-global-symbols=$(B)/public.syms $(B)/public/mmaref.o
	rm -f $@ && ar rcs $@ $(B)/public/mmaref.o

install: all $(B)/public/libmmaref.a
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(B)/public/libmmaref.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(wildcard model/include/*.h) $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(B)/mmaref $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(shell sed -n 's/#define MMAREF_VERSION "\(.*\)"/\1/p' model/include/mmaref.h)|' \
	    scripts/mmaref.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/mmaref.pc

clean:
	rm -rf $(B)

endif  # DEPS_PHASE
