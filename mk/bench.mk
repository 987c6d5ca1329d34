# mk/bench.mk: speed against the peer model (make bench itself is in the
# Makefile: scripts/bench.sh).  Included by the root Makefile.
#
#   make bench-peer   (on a machine with PyTorch and mmasim 2.1.1, the device
#                     host) mmaref and mmasim on the same vector files, one
#                     thread and all threads each (and mmasim on the GPU if
#                     there is one), the same d for every vector checked;
#                     writes docs/data/bench_peer.tsv and the table in
#                     docs/performance.md
#   make scaling      gen, run, check, bench and metrics at 1, 2, 4, ... cores
.PHONY: bench-peer scaling

bench-peer: all
	python3 scripts/peer/bench_peer.py --mmaref $(B)/mmaref --list scripts/bench_instructions.txt \
	    --dir $(B)/bench-peer --tsv docs/data/bench_peer.tsv --doc docs/performance.md

SCALING_VECTORS ?= 16000000
scaling: all
	sh scripts/scaling.sh $(B)/mmaref $(SCALING_VECTORS)
