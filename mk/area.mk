# mk/area.mk: area against accuracy (scripts/area/, docs/tradeoff.md).
# Included by the root Makefile, which defines B and builds $(B)/mmaref;
# mk/rtl.mk builds $(B)/rtl/mmaparams (configuration -> RTL parameters).
#
#   make area       the full sweep: Yosys synthesis of the RTL unit at every
#                   sweep point (AREA_JOBS at a time), the error metrics of the
#                   same configurations, docs/tradeoff.md, docs/tradeoff.png and
#                   docs/data/area.csv (built under build/area/, then copied)
#   make area-test  (part of make test, about a minute on 2 cores) the e4m3
#                   K=32 unit at F=13 and F=25, which must grow in area, and
#                   two points the RTL cannot take, which must be reported and
#                   marked in the CSV while the sweep goes on

AREA_B    := $(B)/area
AREA_JOBS ?= 2
AREA_PY   := python3 scripts/area/area.py
AREA_DEPS := scripts/area/area.py scripts/area/synth.ys scripts/area/abc.scr $(B)/rtl/mmaparams $(wildcard rtl/*.sv)

.PHONY: area area-test

area: $(AREA_DEPS) scripts/area/tradeoff.gp $(B)/mmaref
	$(AREA_PY) sweep --set full --out $(AREA_B) --jobs $(AREA_JOBS) --mmaparams $(B)/rtl/mmaparams
	$(AREA_PY) report --area $(AREA_B)/area.csv --mmaref $(B)/mmaref --out $(AREA_B)/report --publish docs

area-test: $(AREA_DEPS)
	$(AREA_PY) sweep --set test --out $(AREA_B)/test --jobs $(AREA_JOBS) --mmaparams $(B)/rtl/mmaparams
	$(AREA_PY) check $(AREA_B)/test/area.csv

EXTRA_TESTS += area-test
