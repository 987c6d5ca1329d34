# mk/fastpath.mk: the fast path (model/src/fast/) against the reference
# path, bit for bit, for every algorithm family.  Included by the root
# Makefile, which defines B, CC, CFLAGS, WARN and CLI_OBJ.
#
#   make test-fastpath        (part of make test) every catalogue unit and
#                             configurations of every family, on every
#                             `mmaref gen` suite, random bits and a special
#                             mix (FASTPATH_COUNT vectors each), and the first
#                             FASTPATH_FILE_COUNT vectors of every hardware and
#                             peer vector file; best kernel, scalar kernel,
#                             generic vector kernel, impl 0, reference
#   make test-fastpath-sanitize  (part of make test) a shorter run under
#                             AddressSanitizer and UBSan
#   make test-fastpath-full   the same with 2000 vectors a suite and every
#                             vector of every file (a few minutes)
#   make prove-f16-add        (not in make test: about 6 min on this 2-core
#                             machine) the claim in fast_f16add.h: the fp16
#                             closing addition on every pair of finite fp16
#                             encodings (4.03e9), binary64 route to nearest,
#                             F16C route in all four rounding modes, against
#                             the exact sum rounded once; PROVE_STEP=64
#                             checks every 64th x (about 6 s)
FASTPATH_OBJ := $(filter-out $(B)/cli/main.o,$(CLI_OBJ))
FASTPATH_COUNT ?= 120
FASTPATH_FILE_COUNT ?= 1000

.PHONY: test-fastpath test-fastpath-sample test-fastpath-full test-fastpath-sanitize prove-f16-add
PROVE_STEP ?= 1

$(B)/tests/test_fastpath: tests/test_fastpath.c $(FASTPATH_OBJ) $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Icli $< $(FASTPATH_OBJ) $(B)/libmmaref.a $(CLI_SYSLIBS) -o $@

test-fastpath: $(B)/tests/test_fastpath
	$(B)/tests/test_fastpath $(FASTPATH_COUNT) 1 $(FASTPATH_FILE_COUNT) vectors/hw vectors/peer

# a sample for make test-quick: 10 vectors of each suite per unit, 50 of
# each vector file
test-fastpath-sample: $(B)/tests/test_fastpath
	$(B)/tests/test_fastpath 10 1 50 vectors/hw vectors/peer

test-fastpath-full: $(B)/tests/test_fastpath
	$(B)/tests/test_fastpath 2000 7 0 vectors/hw vectors/peer

test-fastpath-sanitize:
	$(MAKE) --no-print-directory B=$(B)/san CFLAGS="-O1 -g $(SAN)" CLI_LIBS="$(CLI_LIBS) $(SAN)" $(B)/san/tests/test_fastpath
	$(B)/san/tests/test_fastpath 20 3 100 vectors/hw vectors/peer

# (-frounding-math: the harness changes the rounding mode between calls)
$(B)/tests/prove_f16_add: tests/prove_f16_add.c model/src/fast/fast_f16add.h $(MODEL_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -frounding-math -Imodel/include -Imodel/src $< -lm -lpthread -o $@

prove-f16-add: $(B)/tests/prove_f16_add
	$(B)/tests/prove_f16_add $(PROVE_STEP)

EXTRA_TESTS += test-fastpath test-fastpath-sanitize
