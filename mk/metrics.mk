# mk/metrics.mk: error metrics and the accumulator study (the library's
# model/src/metrics/, the commands cli/metrics.c and cli/gemm.c;
# docs/accuracy.md).  Included by the root Makefile, which defines B, CC,
# CFLAGS, WARN and builds $(B)/libmmaref.a and $(B)/mmaref.
#
#   make test-metrics   (part of make test, about 30 s on 2 cores) the exact
#                       reference against GNU MPFR and the model, then the
#                       command-level checks of tests/metrics/run.sh
#   make metrics-bench  metric evaluations per second per core, K=32 FP8
#   make plots          regenerates docs/accuracy_*.png (gnuplot) and the
#                       measured tables of docs/accuracy.md (about a minute)
#
# The mmaref command needs no extra library; the MPFR test links these:
MPFR_LIBS ?= -lmpfr -lgmp
METRICS_B := $(B)/tests/metrics

.PHONY: test-metrics metrics-bench plots

# the tests reach the library's internals (model/src/metrics/metrics_internal.h)
$(METRICS_B)/test_exact: tests/metrics/test_exact.c $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Imodel/src/metrics -Imodel/src/core $< $(B)/libmmaref.a $(MPFR_LIBS) -lm -lpthread -o $@

$(METRICS_B)/bench_metrics: tests/metrics/bench_metrics.c $(B)/libmmaref.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Imodel/src/metrics -Imodel/src/core $< $(B)/libmmaref.a $(MPFR_LIBS) -lm -lpthread -o $@

test-metrics: $(METRICS_B)/test_exact $(B)/mmaref
	$(METRICS_B)/test_exact 1000
	sh tests/metrics/run.sh $(B)/mmaref

metrics-bench: $(METRICS_B)/bench_metrics $(B)/mmaref
	$(METRICS_B)/bench_metrics

plots: $(B)/mmaref
	PLOT_WORK=$(B)/plots sh scripts/plots/plots.sh $(B)/mmaref docs

EXTRA_TESTS += test-metrics
