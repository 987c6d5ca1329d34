# mk/x86.mk: x86 silicon (hw/xeon/, docs/hardware.md "x86").  Included by the
# root Makefile, which defines B, CC, CFLAGS, WARN, CLI_OBJ and CLI_SYSLIBS.
#
#   make static           build/static/mmaref: the tool linked statically
#                         (liblzma, zlib, libzstd from their -dev packages'
#                         .a files), stripped, for machines without our
#                         libraries (the device machine)
#   make x86-static       the static tool and build/x86/capture_x86.static,
#                         xz-compressed (1.3 MB: the working tree that
#                         travels to the device machine is limited to 64
#                         MiB), with scripts/device_x86_capture.sh, into
#                         X86WORK (default .x86work, ignored): the folder a
#                         device run carries
#   make test-x86-live    (part of make test) a short capture on this
#                         machine's CPU, judged by the model, when it runs
#                         VDPBF16PS (AVX512-BF16) or TDPBF16PS (AMX, with the
#                         kernel's permission); a pass saying so otherwise
X86WORK ?= .x86work
X86_LIVE_COUNT ?= 20000

.PHONY: static x86-static test-x86-live

$(B)/x86/capture_x86: hw/xeon/capture_x86.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) $< -o $@

$(B)/x86/capture_x86.static: hw/xeon/capture_x86.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -static -s $< -o $@

$(B)/static/mmaref: $(CLI_OBJ) $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -s -o $@ $(CLI_OBJ) $(B)/libmmaref.a $(CLI_LIBS) $(CLI_SYSLIBS)

static: $(B)/static/mmaref

x86-static: $(B)/static/mmaref $(B)/x86/capture_x86.static scripts/device_x86_capture.sh
	@mkdir -p $(X86WORK)
	rm -f $(X86WORK)/mmaref $(X86WORK)/capture_x86
	xz -9e -c $(B)/static/mmaref > $(X86WORK)/mmaref.xz
	xz -9e -c $(B)/x86/capture_x86.static > $(X86WORK)/capture_x86.xz
	cp scripts/device_x86_capture.sh $(X86WORK)/device_x86_capture.sh
	@ls -l $(X86WORK)

test-x86-live: $(B)/x86/capture_x86 $(B)/mmaref
	sh tests/x86_live.sh $(B)/x86/capture_x86 $(B)/mmaref $(X86_LIVE_COUNT)

EXTRA_TESTS += test-x86-live
