# mk/fastpath.mk: the fast path of the fused algorithms (model/src/fast_fused.c)
# against the reference path, bit for bit.  Included by the root Makefile,
# which defines B, CC, CFLAGS, WARN and CLI_OBJ.
#
#   make test-fastpath   (part of make test) every catalogue unit on the fast
#                        path and configurations over F = 8..40, align rz/rd,
#                        fp16/bf16/fp32 outputs, on every `mmaref gen` suite
#                        and random bits; best kernel, scalar kernel, impl 0
FASTPATH_OBJ := $(filter-out $(B)/cli/main.o,$(CLI_OBJ))
FASTPATH_COUNT ?= 200

.PHONY: test-fastpath

$(B)/tests/test_fastpath: tests/test_fastpath.c $(FASTPATH_OBJ) $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Icli $< $(FASTPATH_OBJ) $(B)/libmmaref.a -lm -lpthread -o $@

test-fastpath: $(B)/tests/test_fastpath
	$(B)/tests/test_fastpath $(FASTPATH_COUNT)

EXTRA_TESTS += test-fastpath
