# mk/threads.mk: the library called from many threads at once.
#
#   make test-threads   tests/test_threads.c: 16 threads making their first
#                       calls at the same moment (catalogue, fast-path
#                       plans, exact reference, metrics, triage), in fresh
#                       processes, built with ThreadSanitizer (any data race
#                       fails the run) and again without it (more rounds,
#                       at full speed)

.PHONY: test-threads
TSAN := -fsanitize=thread -fno-omit-frame-pointer

$(B)/test_threads: tests/test_threads.c $(B)/libmmaref.a
	$(CC) $(CFLAGS) $(WARN) -Imodel/include $< $(B)/libmmaref.a -lm -lpthread -o $@

test-threads: $(B)/test_threads
	$(MAKE) --no-print-directory B=$(B)/tsan CFLAGS="-O1 -g $(TSAN)" $(B)/tsan/libmmaref.a
	$(CC) -O1 -g $(TSAN) $(WARN) -Imodel/include tests/test_threads.c $(B)/tsan/libmmaref.a -lm -lpthread -o $(B)/tsan/test_threads
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(B)/tsan/test_threads 4
	$(B)/test_threads 100

EXTRA_TESTS += test-threads

# ---- the bad-input contract -------------------------------------------------
#   make test-bad-input  tests/bad_inputs.tsv through tests/bad_input_test.sh:
#                        every command on bad arguments, options and files
#                        (exit status, a message naming the argument or
#                        file:line:field, nothing created or changed); about
#                        30 s
.PHONY: test-bad-input
test-bad-input: $(B)/mmaref
	sh tests/bad_input_test.sh $(B)/mmaref tests/bad_inputs.tsv

EXTRA_TESTS += test-bad-input
