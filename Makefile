# profviz — build, test, demo and benchmark.
#   make            build ./profviz.so
#   make demo       profile examples/demo, leave prof.dot and prof.svg
#   make check      unit and integration tests (TAP through prove)
#   make bench      hook overhead per call (ns and instructions)
#   make SAN=address|thread check    the same under a sanitizer
#   make deps       install the Debian packages the build and tests need

CC ?= gcc
CXX ?= g++
SAN ?=
V ?= 0

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
# The runtime is never instrumented, exports only what profviz.map lists, and
# keeps its TLS initial-exec so the hooks reach it with one instruction.
RT_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-fno-instrument-functions $(WARN) -Iinclude -Ilib
RT_LDFLAGS := -shared -Wl,--version-script=lib/profviz.map -Wl,-z,now
RT_LIBS := -ldw -lelf -ldl -lpthread -lm

ifeq ($(SAN),address)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
else ifeq ($(SAN),thread)
SAN_FLAGS := -fsanitize=thread
endif

LIB_SRCS := $(wildcard lib/*.c)
RT_SRCS := profviz.c $(LIB_SRCS)
RT_HDRS := $(wildcard lib/*.h) include/profviz.h

all: profviz.so

profviz.so: $(RT_SRCS) $(RT_HDRS) lib/profviz.map | deps
	$(CC) $(RT_CFLAGS) $(RT_LDFLAGS) -o $@ $(RT_SRCS) $(RT_LIBS)

# Unit tests link the runtime's library files directly (not the hooks, nor
# the libc wrappers and signal handlers that need them).
UNIT_LIB_SRCS := $(filter-out lib/interpose.c lib/signals.c,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,build/unit/%,$(UNIT_SRCS))

build/unit/%: tests/unit/%.c $(LIB_SRCS) $(RT_HDRS) tests/unit/tap.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fPIC,$(RT_CFLAGS)) $(SAN_FLAGS) -Itests/unit -o $@ $< $(UNIT_LIB_SRCS) $(RT_LIBS)

unit: $(UNIT_BINS)

check: profviz.so $(UNIT_BINS)
	prove -f $(UNIT_BINS) tests/t_*.py

demo: profviz.so
	$(MAKE) -C examples demo

bench: profviz.so
	./bench/run.sh

# Installs only what is missing, so every target may depend on it.
deps:
	@./.ci/install-deps.sh

clean:
	rm -rf build profviz.so prof.dot prof.svg prof.json
	$(MAKE) -C examples clean

.PHONY: all unit check demo bench deps clean
