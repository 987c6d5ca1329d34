# mk/area.mk: area, delay and power against accuracy (scripts/area/,
# docs/tradeoff.md).  Included by the root Makefile, which defines B and
# builds $(B)/mmaref; mk/rtl.mk builds $(B)/rtl/mmaparams (configuration ->
# RTL parameters).
#
#   make area LIBERTY=<file.lib[.gz]>
#                   the full sweep (scripts/area/points.py) mapped to that
#                   standard-cell library: each point verified (mmaref
#                   verify), synthesized (Yosys + ABC, several delay
#                   targets), timed and powered (OpenSTA); AREA_JOBS points
#                   at a time (default: all cores); cached per stage under
#                   build/area/cache, so a rerun resumes; then the error
#                   metrics, docs/tradeoff.md, its plots, docs/data/area.csv
#                   and docs/data/area_sweep.json.  Without LIBERTY:
#                   NAND2-equivalent figures of generic gates, report in
#                   build/area/report only.  AREA_SET=question: only the
#                   F=13/F=25 points (scripts/area/points.py).
#   make area-test  (part of make test, about 2 minutes on 2 cores) the e4m3
#                   unit at F=13 and F=25 with both fused trees (K=8), one
#                   block-scaled unit, with a 60-cell cut of the SKY130
#                   library committed in tests/area/ (so that it runs on a
#                   machine without the full library): each costed
#                   point verified first, area and delay growing with F;
#                   points the RTL cannot realize reported by name; a
#                   missing liberty file, one without an inverter and a
#                   failing OpenSTA reported by name with a non-zero exit
#   make area-import AREA_RESULTS=<dir>
#                   docs/tradeoff.md, docs/data/area.csv and the plots from
#                   what the device sweep returned (scripts/area/import.sh;
#                   bundle: make area-bundle, docs/tradeoff.md's method)
#   make area-bench points per hour per core: one full-K point (e4m3 K=32
#                   F=13, SKY130) from nothing, and the last sweep's figure

AREA_B        := $(B)/area
AREA_JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
LIBERTY       ?=
AREA_SET      ?= full
# the full library (bench, device bundle, import) and make area-test's cut
# of it (scripts/area/liberty_subset.py, scripts/area/subset_cells.txt)
AREA_FULL_LIB ?= ../shared/pdk/sky130hd_tt.lib.gz
AREA_TEST_LIB ?= tests/area/sky130hd_tt_subset.lib.gz
AREA_PY       := python3 scripts/area/area.py
AREA_DEPS     := $(wildcard scripts/area/*.py scripts/area/*.ys scripts/area/*.abc scripts/area/*.scr \
                   scripts/area/*.tcl scripts/area/*.gp scripts/area/*.txt) \
                 $(B)/rtl/mmaparams $(B)/mmaref $(B)/libmmaref_dpi.a $(wildcard rtl/*.sv)

AREA_RESULTS  ?=
AREA_PUBLISH  ?= docs
AREA_BUNDLE   ?= $(B)/area-bundle

.PHONY: area area-test area-bench area-import area-bundle area-bundle-test

area: $(AREA_DEPS)
	$(AREA_PY) sweep --set $(AREA_SET) --out $(AREA_B) --jobs $(AREA_JOBS) $(if $(LIBERTY),--liberty $(LIBERTY)) \
	    --mmaparams $(B)/rtl/mmaparams --mmaref $(B)/mmaref
	$(AREA_PY) report --area $(AREA_B)/area.csv --mmaref $(B)/mmaref --out $(AREA_B)/report \
	    $(if $(LIBERTY),--publish docs)

area-import: $(AREA_DEPS)
	@test -n "$(AREA_RESULTS)" || { echo "make area-import AREA_RESULTS=<folder the device sweep returned>" >&2; exit 2; }
	sh scripts/area/import.sh $(AREA_RESULTS) $(or $(LIBERTY),$(AREA_FULL_LIB)) $(B) $(AREA_JOBS) $(AREA_PUBLISH)

# the device bundle (scripts/area/bundle.sh) in AREA_BUNDLE, and its test
# with this machine's tools hidden (root: unshare -m)
area-bundle: $(AREA_DEPS)
	sh scripts/area/bundle.sh $(or $(LIBERTY),$(AREA_FULL_LIB)) $(AREA_BUNDLE)

area-bundle-test: area-bundle
	sh scripts/area/test_bundle.sh $(AREA_BUNDLE)

area-test: $(AREA_DEPS)
	sh scripts/area/test_area.sh $(AREA_B)/test $(AREA_TEST_LIB) $(B) $(AREA_FULL_LIB)

area-bench: $(AREA_DEPS)
	$(AREA_PY) bench --liberty $(or $(LIBERTY),$(AREA_FULL_LIB)) --out $(AREA_B)/bench --mmaparams $(B)/rtl/mmaparams \
	    --mmaref $(B)/mmaref --jobs 1

EXTRA_TESTS += area-test

# make area-xcheck (slow: Verilator compiles a flattened netlist, minutes):
# the gate-level simulation's toggle counts against Verilator's toggle
# coverage of the same netlist, net for net (scripts/area/xcheck.py), on
# the e4m3 K=8 F=13 point of make area-test
.PHONY: area-xcheck
area-xcheck: area-test
	MMAREF=$(B)/mmaref python3 scripts/area/xcheck.py $(AREA_B)/test/pts/e4m3_k8_cpa_f13_p0 \
	    $$(ls -t $(AREA_B)/test/lib/liberty-*.json | head -1) $(AREA_B)/xcheck
