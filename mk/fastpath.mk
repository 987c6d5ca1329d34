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
FASTPATH_OBJ := $(filter-out $(B)/cli/main.o,$(CLI_OBJ))
FASTPATH_COUNT ?= 120
FASTPATH_FILE_COUNT ?= 1000

.PHONY: test-fastpath test-fastpath-sample test-fastpath-full test-fastpath-sanitize

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

EXTRA_TESTS += test-fastpath test-fastpath-sanitize
