# mmaref: `make` builds the library and the tool; `make test` runs every test;
# `make demo` runs the main demonstration; `make bench` prints speed figures.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
PREFIX  ?= /usr/local
B       := build

MODEL_SRC := $(wildcard model/src/*.c)
MODEL_OBJ := $(patsubst model/src/%.c,$(B)/model/%.o,$(MODEL_SRC))
CLI_SRC   := $(wildcard cli/*.c)
CLI_OBJ   := $(patsubst cli/%.c,$(B)/cli/%.o,$(CLI_SRC))

.PHONY: all lib test demo bench install clean deps
all: lib $(B)/mmaref

lib: $(B)/libmmaref.a

$(B)/model/%.o: model/src/%.c model/include/mmaref.h model/src/internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -fPIC -Imodel/include -c $< -o $@

$(B)/libmmaref.a: $(MODEL_OBJ)
	ar rcs $@ $^

$(B)/cli/%.o: cli/%.c $(wildcard cli/*.h) model/include/mmaref.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -Imodel/include -Icli -c $< -o $@

$(B)/mmaref: $(CLI_OBJ) $(B)/libmmaref.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libmmaref.a $(CLI_LIBS) -lm -lpthread

clean:
	rm -rf $(B)
