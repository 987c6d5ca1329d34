# mk/ieee.mk: the IEEE semantics of the model against an independent oracle
# (tests/ieee/test_ieee.c: formats decoded from their definitions, GNU MPFR
# sums and roundings, the host's fmaf/fma).  Included by the root Makefile,
# which defines B, CC, CFLAGS, WARN and CLI_OBJ.
#
#   make test-ieee        (part of make test, seconds) every 6- and 4-bit
#                         format whole at K = 1, samples of the rest
#   make test-ieee-full   every (a, b, c) of the 8-bit formats at K = 1, every
#                         (a0, a1) at K = 2, thousands of vectors per unit and
#                         option set, 32 million host fma cases (minutes; all cores)
MPFR_LIBS ?= -lmpfr -lgmp

.PHONY: test-ieee test-ieee-full

# -frounding-math: the host fma runs under fesetround
$(B)/tests/test_ieee: tests/ieee/test_ieee.c $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -frounding-math $(WARN) -Imodel/include $< $(B)/libmmaref.a $(MPFR_LIBS) -lm -lpthread -o $@

test-ieee: $(B)/tests/test_ieee
	$(B)/tests/test_ieee quick

test-ieee-full: $(B)/tests/test_ieee
	$(B)/tests/test_ieee full

EXTRA_TESTS += test-ieee
