# mk/cuda.mk: the CUDA backend (cuda/: mmaref_cuda.h, libmmaref_cuda.a;
# docs/cuda.md).  Included by the root Makefile, which defines B, CC,
# CFLAGS, WARN and CLI_OBJ.  The main library keeps no CUDA dependency:
# only these targets, and MMAREF_CUDA=1, use nvcc.
#
#   make MMAREF_CUDA=1   the library and the mmaref command with the CUDA
#                        backend (gen, check, bench --device cuda); needs nvcc
#   make cuda            $(B)/libmmaref_cuda.a (where nvcc is found)
#   make test-cuda       (part of make test) every suite of every catalogue
#                        unit and of configurations of every family, and every
#                        file under vectors/hw and vectors/peer, through the
#                        GPU, bit for bit against the CPU library
#                        (tests/test_cuda.c).  No GPU: the GPU part is skipped
#                        with a message, and the kernel's body compiled for
#                        the host is checked on 20 vectors a suite and the
#                        first 200 of each file (about a minute here);
#                        no nvcc: says so and skips
#   make MMAREF_CUDA=1 bench-cuda   mmaref bench --device cuda on the
#                        instructions of scripts/bench_instructions.txt (a GPU
#                        machine; scripts/cuda/device_run.sh runs it all there)
#   make install-cuda    libmmaref_cuda.a and cuda/mmaref_cuda.h into PREFIX

# nvcc: on PATH, else CUDA's usual place
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# The flags (cuda/nvcc.flags, which setup.py reads too): Hopper machine
# code (sm_90a) and PTX for compute capability 8.0, which the driver
# compiles for any later GPU (Ampere, Ada, Blackwell); --fmad=false and
# -ffp-contract=off, so that the model's float operations (the pairwise
# and fma trees) are the IEEE operations the source writes, never
# contracted into an fma; warning 20040 silenced: the public mma_format and
# mma_decode, declared host-only in mmaref.h, are defined __host__
# __device__.  NVCC_FLAGS: more of them.
NVCC_FLAGS ?=
NVCC_ALL := $(shell cat cuda/nvcc.flags) $(NVCC_FLAGS)
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
# the model's sources the device compiles (cuda/batch_cuda.cu includes them)
CUDA_MODEL := $(addprefix model/src/,format.c term.c round.c fused_sum.c specials.c kacc.c alg_fused.c alg_amd.c \
                alg_groups.c alg_ieee.c alg_exact.c alg_chains.c internal.h)

.PHONY: cuda test-cuda bench-cuda install-cuda

$(B)/cuda/batch_cuda.o: cuda/batch_cuda.cu cuda/mmaref_cuda.h cuda/nvcc.flags $(CUDA_MODEL) $(MODEL_HDR)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -Imodel/include -Imodel/src -Icuda -c $< -o $@

$(B)/libmmaref_cuda.a: $(B)/cuda/batch_cuda.o
	ar rcs $@ $^

TEST_CUDA_OBJ := $(filter-out $(B)/cli/main.o,$(CLI_OBJ))
$(B)/tests/test_cuda: tests/test_cuda.c $(TEST_CUDA_OBJ) $(B)/libmmaref_cuda.a $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Icli -Icuda $< $(TEST_CUDA_OBJ) $(B)/libmmaref_cuda.a $(B)/libmmaref.a \
	    $(CLI_SYSLIBS) $(CUDA_LIBS) -o $@

# The command's --device shim (cli/device.c): with the backend under
# MMAREF_CUDA=1, else the stub that says how to build it.  The mode it was
# built in is kept in a stamp, so that a change of mode rebuilds it (and
# relinks the command).
DEVICE_MODE := cuda=$(MMAREF_CUDA)
$(B)/cli/device.o: $(B)/cli/device.mode
$(B)/cli/device.mode: cuda-mode-force
	@mkdir -p $(dir $@)
	@echo '$(DEVICE_MODE)' | cmp -s - $@ || echo '$(DEVICE_MODE)' > $@
.PHONY: cuda-mode-force
ifeq ($(MMAREF_CUDA),1)
ifeq ($(NVCC),)
$(error MMAREF_CUDA=1: no nvcc on PATH or in /usr/local/cuda/bin)
endif
$(B)/cli/device.o: CFLAGS += -DMMAREF_CUDA -Icuda
# (every link of the command's objects needs the backend: built first)
$(B)/cli/device.o: $(B)/libmmaref_cuda.a
CLI_SYSLIBS := $(B)/libmmaref_cuda.a $(B)/libmmaref.a $(CUDA_LIBS) $(CLI_SYSLIBS)
endif

ifeq ($(NVCC),)
cuda:
	@echo "make cuda: no nvcc (PATH, /usr/local/cuda/bin): the CUDA backend is not built"
test-cuda:
	@echo "make test-cuda: SKIPPED: no nvcc (PATH, /usr/local/cuda/bin), so no CUDA backend to test"
else
cuda: $(B)/libmmaref_cuda.a
TEST_CUDA_ARGS ?= $(if $(shell nvidia-smi -L 2>/dev/null | grep -q GPU && echo gpu),,--count 20 --file-count 200)
test-cuda: $(B)/tests/test_cuda
	$(B)/tests/test_cuda $(TEST_CUDA_ARGS) vectors/hw vectors/peer
endif

bench-cuda: all
	$(B)/mmaref bench --device cuda --suite random $$(grep -v '^#' scripts/bench_instructions.txt)

install-cuda: cuda
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 644 $(B)/libmmaref_cuda.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 cuda/mmaref_cuda.h $(DESTDIR)$(PREFIX)/include/

EXTRA_TESTS += test-cuda
