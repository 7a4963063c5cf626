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
# The runtime is never instrumented (said explicitly where the compiler has
# the flag), exports only what profviz.map lists, and keeps its TLS
# initial-exec so the hooks reach it with one instruction.
NO_INSTRUMENT := $(shell $(CC) -fno-instrument-functions -E -x c /dev/null >/dev/null 2>&1 \
	&& echo -fno-instrument-functions)
RT_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	$(NO_INSTRUMENT) $(WARN) -Iinclude -Ilib
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
# Sanitized unit tests get a directory of their own, never a stale plain build.
UNIT_DIR := build/unit$(if $(SAN),-$(SAN))
UNIT_BINS := $(patsubst tests/unit/%.c,$(UNIT_DIR)/%,$(UNIT_SRCS))

$(UNIT_DIR)/%: tests/unit/%.c $(LIB_SRCS) $(RT_HDRS) tests/unit/tap.h tests/unit/messages.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fPIC,$(RT_CFLAGS)) $(SAN_FLAGS) -Itests/unit -o $@ $< $(UNIT_LIB_SRCS) $(RT_LIBS)

unit: $(UNIT_BINS)

# With SAN=address or SAN=thread, the integration tests preload a runtime
# built with that sanitizer, behind the sanitizer's own library.
ifneq ($(SAN),)
SAN_SO := build/profviz-$(SAN).so
SAN_LIB := $(shell $(CC) -print-file-name=$(if $(filter thread,$(SAN)),libtsan.so,libasan.so))
# The sanitizers' own fatal-signal reports would change how the test programs
# die: leave those signals to the program (and to profviz's handler).
SAN_SIGNALS := handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0
TEST_ENV := PROFVIZ_TEST_PRELOAD="$(SAN_LIB) $(abspath $(SAN_SO))" PROFVIZ_TEST_SAN=$(SAN) \
	ASAN_OPTIONS=detect_leaks=0:disable_coredump=0:$(SAN_SIGNALS) \
	TSAN_OPTIONS=report_signal_unsafe=0:disable_coredump=0:$(SAN_SIGNALS):suppressions=$(abspath tests/tsan.supp)
endif

# TSan's start-up calls "the next" sigaction, i.e. profviz's wrapper, before
# it can run instrumented code: the libc wrappers are built without it.
WRAPPERS := lib/interpose.c lib/signals.c
WRAPPER_SAN_FLAGS := $(if $(filter thread,$(SAN)),,$(SAN_FLAGS))

$(SAN_SO): $(RT_SRCS) $(RT_HDRS) lib/profviz.map | deps
	@mkdir -p build/san-$(SAN)
	$(CC) $(RT_CFLAGS) $(WRAPPER_SAN_FLAGS) -c lib/interpose.c -o build/san-$(SAN)/interpose.o
	$(CC) $(RT_CFLAGS) $(WRAPPER_SAN_FLAGS) -c lib/signals.c -o build/san-$(SAN)/signals.o
	$(CC) $(RT_CFLAGS) $(SAN_FLAGS) $(RT_LDFLAGS) -o $@ \
		$(filter-out $(WRAPPERS),$(RT_SRCS)) build/san-$(SAN)/*.o $(RT_LIBS)

check: profviz.so $(UNIT_BINS) $(SAN_SO)
	$(TEST_ENV) prove -f $(UNIT_BINS) tests/t_*.py

demo: profviz.so
	$(MAKE) -C examples demo

bench: profviz.so
	./bench/run.sh

# Installs only what is missing, so every target may depend on it.
deps:
	@./.ci/install-deps.sh

clean:
	rm -rf build profviz.so prof.dot prof.svg prof.json prof.folded
	$(MAKE) -C examples clean

.PHONY: all unit check demo bench deps clean

# Fuzz the configuration and event-name parsers (libFuzzer, ASan, UBSan).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := build/fuzz/fuzz_config build/fuzz/fuzz_events
build/fuzz/fuzz_config: tests/fuzz/fuzz_config.c lib/config.c lib/log.c | deps
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilib -o $@ $^ -lm
build/fuzz/fuzz_events: tests/fuzz/fuzz_events.c lib/events.c lib/log.c | deps
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilib -o $@ $^ -ldl

fuzz: $(FUZZ_TARGETS)
	for t in config events; do \
		mkdir -p build/fuzz/corpus_$$t && cp tests/fuzz/corpus_$$t/* build/fuzz/corpus_$$t/; \
		build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) build/fuzz/corpus_$$t || exit 1; \
	done

.PHONY: fuzz
