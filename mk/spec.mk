# mk/spec.mk: the presets that rest on a specification only (Arm BF16 and
# FP8, RISC-V RVBNA, the x86 forms, AMD CDNA4) against oracles written from
# the documents' pseudo-code (tests/spec/test_spec.c, GNU MPFR).  Included
# by the root Makefile, which defines B, CC, CFLAGS and WARN.
#
#   make test-spec          (part of make test, seconds) directed vectors of
#                           each rule and 20,000 random vectors a preset
#   make test-spec-mutants  every preset replaced by a unit one rule away
#                           (round-to-odd by RNE, no flush, no saturation,
#                           other scaling, ...): each must be caught
MPFR_LIBS ?= -lmpfr -lgmp
SPEC_COUNT ?= 20000

.PHONY: test-spec test-spec-mutants

$(B)/tests/test_spec: tests/spec/test_spec.c $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include $< $(B)/libmmaref.a $(MPFR_LIBS) -lm -lpthread -o $@

test-spec: $(B)/tests/test_spec
	$(B)/tests/test_spec $(SPEC_COUNT)

test-spec-mutants: $(B)/tests/test_spec
	$(B)/tests/test_spec 4000 --mutate

EXTRA_TESTS += test-spec
