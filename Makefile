# SPDX-License-Identifier: MIT
# profviz — build, test, demo and benchmark.
#   make            build ./profviz.so and the ./profviz command (installs nothing)
#   make demo       profile examples/wordfreq, leave prof.dot, prof.svg and prof.html
#   make pictures   the README's pictures drawn again from the demo (viz/)
#   make check      unit tests and the integration tests that need no download
#   make check-real real programs built from Debian source packages
#   make fuzz       libFuzzer on the parsers, FUZZ_SECONDS each
#   make bench      hook overhead per call (ns and instructions)
#   make bench-inlined  README-flag builds (inlining kept) against their native twins
#   make bench-server   redis under redis-benchmark: shares against perf on its native twin
#   make bench-sampler  the sampler candidates: rate, accuracy, cost, safety
#   make bench-hotlines what hot lines (sampled PCs) cost, and their 3:1 split
#   make bench-cpu  sampled CPU time on bursty threads and short runs (CPU_PRELOAD=,
#                   CPU_WITHOUT_PERF=1: where perf_event_open is refused)
#   make SAN=address|thread check    the same under a sanitizer
#   make WERROR=1 ...                warnings are errors (CI)
#   make deps       install the Debian packages the build and tests need
#   make install    profviz, its runtime, header, man page and bash completion
#                   (PREFIX=/usr/local, DESTDIR, BINDIR, LIBDIR, ...: below)
#   make uninstall  the files make install put there, with the same variables
#   make man        the man page alone, build/man/profviz.1 (help2man)
# demo, pictures, check, check-real and fuzz install what is missing first; nothing
# else runs apt-get.

CC ?= gcc
CXX ?= g++
SAN ?=
V ?= 0

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
# The runtime is never instrumented (said explicitly where the compiler has
# the flag), exports only what its sources mark for export (profviz.map
# versions its own interface; tests/t_exports.py checks the set), and keeps
# its TLS initial-exec so the hooks reach it without a call: in a shared
# object, a load of its offset from the GOT and an %fs-relative access.
NO_INSTRUMENT := $(shell $(CC) -fno-instrument-functions -E -x c /dev/null >/dev/null 2>&1 \
	&& echo -fno-instrument-functions)
# WERROR=1: every C compile of the project (runtime, unit tests, fuzz
# targets, bench, demo) treats warnings as errors.
WERROR_FLAG := $(if $(filter 1,$(WERROR)),-Werror)
RT_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	$(NO_INSTRUMENT) $(WARN) $(WERROR_FLAG) -Iinclude -Ilib
RT_LDFLAGS := -shared -Wl,--version-script=lib/runtime/profviz.map -Wl,-z,now
# The plain runtime is linked with every symbol it uses resolved: a shared
# object would otherwise link with a function no one defines, and fail only
# when preloaded. (A sanitizer's runtime is the preloaded library's to find.)
RT_NO_UNDEFINED := -Wl,-z,defs
RT_LIBS := -ldw -lelf -lz -ldl -lpthread -lm

# lib/ in layers, each built into an archive of its own per flavour
# (build/FLAVOUR/libLAYER.a), each layer using only those below it
# (lib/README.md; tests/t_layers.py holds the rule):
#   base     libc only
#   model    the profile as data
#   output   configuration, file naming, the writers
#   runtime  the preloaded profviz.so: its entry (lib/runtime/runtime.c, the
#            hooks, start-up, threads; dump.c; unload.c) and its libc wrappers
#            (lib/runtime/wrap/)
#            are linked into it alone; the rest is libruntime.a, which the
#            unit tests and the bench link too
#   cmd      the command (profviz.c, lib/cmd/), the only code that links
#            libjansson; never the runtime
LAYERS := base model output runtime
# The runtime's entry: start-up, threads and fork (runtime.c), its dumps
# (dump.c), dlclose (unload.c) and windows of the run (window.c), which
# share the process-wide state.
RUNTIME_ENTRY := lib/runtime/runtime.c lib/runtime/dump.c lib/runtime/unload.c \
	lib/runtime/window.c
WRAPPERS := $(wildcard lib/runtime/wrap/*.c)
# Wrappers that cannot be C (functions that return twice).
ASM_WRAPPERS := $(wildcard lib/runtime/wrap/*.S)
LAYER_SRCS_base := $(wildcard lib/base/*.c)
LAYER_SRCS_model := $(wildcard lib/model/*.c)
LAYER_SRCS_output := $(wildcard lib/output/*.c)
LAYER_SRCS_runtime := $(filter-out $(RUNTIME_ENTRY),$(wildcard lib/runtime/*.c))
LIB_SRCS := $(foreach l,$(LAYERS),$(LAYER_SRCS_$(l)))
# Archives in link order: a layer before those it uses.
archives = $(foreach l,$(2),build/$(1)/lib$(l).a)
ALL_LAYERS = runtime output model base
CMD_LAYERS = output model base

# Flavours, each in a directory of its own under build/, so that a
# sanitized build never links a stale plain object, nor the reverse.
SAN_plain :=
SAN_san-address := -fsanitize=address,undefined -fno-sanitize-recover=undefined
SAN_san-thread := -fsanitize=thread
COMPILE_plain = $(CC) $(RT_CFLAGS) $(SAN_plain)
COMPILE_san-address = $(CC) $(RT_CFLAGS) $(SAN_san-address)
COMPILE_san-thread = $(CC) $(RT_CFLAGS) $(SAN_san-thread)

# profviz's version, one string for the command, the runtime, the JSON and
# the man page (lib/base/version.c): git describe of this checkout, from a
# release tag vX.Y.Z, or VERSION and the commit before the first tag; VERSION
# alone where the source is no git checkout of its own (a tarball).
GIT_DESCRIBE := $(shell test -z "$$(git rev-parse --show-prefix 2>/dev/null || echo none)" && \
	git describe --always --dirty --abbrev=7 --match 'v[0-9]*' 2>/dev/null)
VERSION_BASE := $(strip $(file <VERSION))
PV_VERSION := $(if $(filter v%,$(GIT_DESCRIBE)),$(GIT_DESCRIBE:v%=%),$(VERSION_BASE)$(GIT_DESCRIBE:%=-g%))

# Installing, with the GNU conventions: `make install PREFIX=/usr DESTDIR=...`.
# The command finds the runtime relative to itself (RUNTIME_FROM_BIN), so a
# prefix moved elsewhere still works, and DESTDIR is in no installed file.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL)
INSTALL_DATA ?= $(INSTALL) -m 644
RUNTIME_DIR := $(LIBDIR)/profviz
RUNTIME_FROM_BIN := $(shell realpath -m --relative-to='$(BINDIR)' '$(RUNTIME_DIR)')

FLAVOUR := $(if $(SAN),san-$(SAN),plain)
ifeq ($(filter plain san-address san-thread,$(FLAVOUR)),)
$(error SAN=$(SAN): use SAN=address or SAN=thread)
endif

# Compiles wait for deps only when the goal is one that may install.
ifneq ($(filter demo pictures check check-real fuzz deps,$(MAKECMDGOALS)),)
DEPS := deps
endif

all: profviz.so profviz

# The command (profviz.c, lib/cmd/): works on saved profiles with the
# runtime's own writers, from the plain core.
CMD_SRCS := profviz.c $(wildcard lib/cmd/*.c)
# The command never links the runtime, and so needs neither libdw nor libelf.
CMD_LIBS := -ljansson -lz -lm
profviz: $(CMD_SRCS:%.c=build/plain/%.o) build/plain/lib/cmd/viz_assets.o \
		$(call archives,plain,$(CMD_LAYERS))
	$(CC) -o $@ $(filter %.o,$^) $(call archives,plain,$(CMD_LAYERS)) $(CMD_LIBS)
# The page of `profviz html`, built in from viz/ (.incbin: no -MMD for them).
build/plain/lib/cmd/viz_assets.o: $(wildcard viz/*.html viz/*.css viz/*.js)
# Where `profviz run` looks for the runtime it was installed with, from its
# own directory.
build/plain/lib/cmd/run.o: OBJ_FLAGS = -DPV_RUNTIME_FROM_BIN='"$(RUNTIME_FROM_BIN)"'
build/plain/lib/cmd/run.o: build/runtime-from-bin

# Stamps that change only when what they record does, so that what depends
# on them is rebuilt then and only then.
build/version: FORCE
	@mkdir -p $(@D)
	@echo '$(PV_VERSION)' | cmp -s - $@ || echo '$(PV_VERSION)' > $@
build/runtime-from-bin: FORCE
	@mkdir -p $(@D)
	@echo '$(RUNTIME_FROM_BIN)' | cmp -s - $@ || echo '$(RUNTIME_FROM_BIN)' > $@
# The directories the man page names.
MAN_DIRS := $(RUNTIME_DIR) $(INCLUDEDIR) $(BASHCOMPDIR)
build/man/dirs: FORCE
	@mkdir -p $(@D)
	@echo '$(MAN_DIRS)' | cmp -s - $@ || echo '$(MAN_DIRS)' > $@

# The man page, made by help2man from `profviz help all` (every command's
# --help and the PROFVIZ_* variables) and lib/cmd/profviz.h2m (the prose
# around them, with the install's directories filled in).
MAN_PAGE := build/man/profviz.1
$(MAN_PAGE): profviz lib/cmd/profviz.h2m build/man/dirs
	@command -v help2man >/dev/null || \
		{ echo "the man page needs help2man: make deps installs it" >&2; exit 1; }
	@mkdir -p $(@D)
	sed -e 's|@RUNTIME_DIR@|$(RUNTIME_DIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
		-e 's|@BASHCOMPDIR@|$(BASHCOMPDIR)|g' lib/cmd/profviz.h2m > build/man/profviz.h2m
	help2man --no-info --section=1 --help-option='help all' --version-option=--version \
		--include=build/man/profviz.h2m --output=$@.tmp ./profviz
	mv $@.tmp $@
man: $(MAN_PAGE)

install: profviz profviz.so $(MAN_PAGE)
	$(INSTALL) -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(RUNTIME_DIR)' '$(DESTDIR)$(INCLUDEDIR)' \
		'$(DESTDIR)$(MANDIR)/man1' '$(DESTDIR)$(BASHCOMPDIR)'
	$(INSTALL_PROGRAM) profviz '$(DESTDIR)$(BINDIR)/profviz'
	$(INSTALL_DATA) profviz.so '$(DESTDIR)$(RUNTIME_DIR)/profviz.so'
	$(INSTALL_DATA) include/profviz.h '$(DESTDIR)$(INCLUDEDIR)/profviz.h'
	$(INSTALL_DATA) $(MAN_PAGE) '$(DESTDIR)$(MANDIR)/man1/profviz.1'
	$(INSTALL_DATA) lib/cmd/profviz.bash '$(DESTDIR)$(BASHCOMPDIR)/profviz'

# The files, then each directory install made that is empty now, up to the
# prefix (not the prefix itself): a prefix of profviz's own is left empty,
# a shared one (/usr/local) keeps every directory with something else in it.
uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/profviz' '$(DESTDIR)$(RUNTIME_DIR)/profviz.so' \
		'$(DESTDIR)$(INCLUDEDIR)/profviz.h' '$(DESTDIR)$(MANDIR)/man1/profviz.1' \
		'$(DESTDIR)$(BASHCOMPDIR)/profviz'
	for d in '$(BINDIR)' '$(RUNTIME_DIR)' '$(INCLUDEDIR)' '$(MANDIR)/man1' '$(BASHCOMPDIR)'; do \
		while [ "$$d" != '$(PREFIX)' ] && [ "$${d#$(PREFIX)/}" != "$$d" ] && \
		      rmdir '$(DESTDIR)'"$$d" 2>/dev/null; do d=$${d%/*}; done; \
	done

# flavour(NAME): objects of any source under build/NAME (with their header
# dependencies), build/NAME/libLAYER.a, and the unit tests. build/NAME/cflags
# records how the objects were compiled, so that other flags rebuild them.
define flavour
build/$(1)/%.o: %.c build/$(1)/cflags | $$(DEPS)
	@mkdir -p $$(@D)
	$$(filter-out $$(NOT_HERE),$$(COMPILE_$(1))) $$(OBJ_FLAGS) -MMD -MP -c $$< -o $$@

build/$(1)/%.o: %.S build/$(1)/cflags | $$(DEPS)
	@mkdir -p $$(@D)
	$$(filter-out $$(NOT_HERE),$$(COMPILE_$(1))) -MMD -MP -c $$< -o $$@

# Rebuilt from scratch when the list of sources changes (members records
# it), so that a source removed from lib/ leaves no stale member behind.
$$(foreach l,$$(LAYERS),$$(eval $$(call layer_archive,$(1),$$(l))))

build/$(1)/unit/%: tests/unit/%.c $$(call archives,$(1),$$(ALL_LAYERS)) build/$(1)/cflags | $$(DEPS)
	@mkdir -p $$(@D)
	$$(filter-out -fPIC,$$(COMPILE_$(1))) -Itests/unit -MMD -MP -o $$@ $$< \
		$$(call archives,$(1),$$(ALL_LAYERS)) $$(RT_LIBS)

build/$(1)/cflags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(COMPILE_$(1))' | cmp -s - $$@ || echo '$$(COMPILE_$(1))' > $$@

build/$(1)/members: FORCE
	@mkdir -p $$(@D)
	@echo '$$(LIB_SRCS)' | cmp -s - $$@ || echo '$$(LIB_SRCS)' > $$@

# The version, given to the one file that holds it, rebuilt when it changes.
build/$(1)/lib/base/version.o: OBJ_FLAGS = -DPV_VERSION='"$$(PV_VERSION)"'
build/$(1)/lib/base/version.o: build/version

-include $$(wildcard build/$(1)/*.d build/$(1)/lib/*/*.d build/$(1)/lib/runtime/wrap/*.d \
	build/$(1)/unit/*.d)
endef

# layer_archive(FLAVOUR, LAYER)
define layer_archive
build/$(1)/lib$(2).a: $(LAYER_SRCS_$(2):%.c=build/$(1)/%.o) build/$(1)/members
	@rm -f $$@
	$$(AR) rcs $$@ $$(filter %.o,$$^)
endef

# runtime(NAME, OUTPUT): the preloaded runtime of a flavour: its own archive
# whole whether or not the hooks reach it, and what it uses of the layers
# below (the command's parts of them, a diff's say, stay out).
define runtime
$(2): $(RUNTIME_ENTRY:%.c=build/$(1)/%.o) $(WRAPPERS:%.c=build/$(1)/%.o) \
		$(ASM_WRAPPERS:%.S=build/$(1)/%.o) $(call archives,$(1),$(ALL_LAYERS)) \
		lib/runtime/profviz.map
	$$(CC) $$(SAN_$(1)) $$(RT_LDFLAGS) $(if $(filter plain,$(1)),$$(RT_NO_UNDEFINED)) -o $$@ $$(filter %.o,$$^) \
		-Wl,--whole-archive build/$(1)/libruntime.a -Wl,--no-whole-archive \
		$(call archives,$(1),output model base) $$(RT_LIBS)
endef

$(foreach f,plain san-address san-thread,$(eval $(call flavour,$(f))))
$(eval $(call runtime,plain,profviz.so))
$(eval $(call runtime,san-address,build/san-address/profviz.so))
$(eval $(call runtime,san-thread,build/san-thread/profviz.so))

# TSan's start-up calls "the next" sigaction, i.e. profviz's wrapper, before
# it can run instrumented code: the libc wrappers are built without it.
$(WRAPPERS:%.c=build/san-thread/%.o): NOT_HERE := -fsanitize=thread
# The sampler's thread is the kernel's only (sampler.c): no sanitizer knows it.
build/san-thread/lib/runtime/sampler.o: NOT_HERE := -fsanitize=thread
build/san-address/lib/runtime/sampler.o: NOT_HERE := $(SAN_san-address)
# What the sampler's thread calls of the rings' and the threads' (a ring's
# attaching to its thread, cpusamples.c; its timing begun, timedstart.c;
# a sample's cost measured, samplecost.c)
# likewise.
SAMPLER_SIDE := pcring hotpcs cpusamples timedstart samplecost
$(SAMPLER_SIDE:%=build/san-thread/lib/runtime/%.o): NOT_HERE := -fsanitize=thread
$(SAMPLER_SIDE:%=build/san-address/lib/runtime/%.o): NOT_HERE := $(SAN_san-address)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,build/$(FLAVOUR)/unit/%,$(UNIT_SRCS))

unit: $(UNIT_BINS)

# With SAN=address or SAN=thread, the integration tests preload a runtime
# built with that sanitizer, behind the sanitizer's own library.
ifneq ($(SAN),)
SAN_SO := build/$(FLAVOUR)/profviz.so
SAN_LIB := $(shell $(CC) -print-file-name=$(if $(filter thread,$(SAN)),libtsan.so,libasan.so))
# The sanitizers' own fatal-signal reports would change how the test programs
# die: leave those signals to the program (and to profviz's handler).
# die_after_fork=0: a forked child starts its own sampler thread, which
# TSan otherwise refuses after a fork of a threaded process (the sampler is
# a thread from the first instrumented call on).
SAN_SIGNALS := handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0
TEST_ENV := PROFVIZ_TEST_PRELOAD="$(SAN_LIB) $(abspath $(SAN_SO))" PROFVIZ_TEST_SAN=$(SAN) \
	ASAN_OPTIONS=detect_leaks=0:disable_coredump=0:$(SAN_SIGNALS) \
	TSAN_OPTIONS=report_signal_unsafe=0:disable_coredump=0:die_after_fork=0:$(SAN_SIGNALS):suppressions=$(abspath tests/tsan.supp)
endif

# Test tiers, each ending in prove's summary; failures and skips are shown
# with their reasons (--directives). check: fast, nothing to
# download. check-real: programs built from Debian source packages.
REAL_TESTS := $(wildcard tests/t_real_*.py)
FUZZ_TESTS := tests/t_fuzz.py
CHECK_TESTS := $(filter-out $(REAL_TESTS) $(FUZZ_TESTS),$(wildcard tests/t_*.py))

check: profviz.so profviz $(UNIT_BINS) $(SAN_SO) | $(DEPS)
	$(TEST_ENV) prove -f --directives $(UNIT_BINS) $(CHECK_TESTS)

check-real: profviz.so profviz $(SAN_SO) | $(DEPS)
	$(TEST_ENV) prove -f --directives $(REAL_TESTS)

demo: profviz.so profviz | $(DEPS)
	$(MAKE) -C examples demo

# The README's pictures, from the demo itself (examples/Makefile).
pictures: profviz.so profviz | $(DEPS)
	$(MAKE) -C examples pictures

bench:
	./bench/run.sh

# Shares against perf sampling (needs perf; fetches zlib's source once).
bench-truth: profviz.so | $(DEPS)
	python3 bench/truth_table.py

# The real programs built with the README's gcc flags (inlining kept) against
# their native twins: shares, top five, the share of inlined bodies, time,
# and exact counts against callgrind (needs perf and valgrind). INLINED_BASE=
# another profviz.so measures it too, on the same runs, first.
bench-inlined: profviz.so | $(DEPS)
	python3 bench/inlined_truth.py $(if $(INLINED_BASE),--preload before=$(INLINED_BASE) \
		--preload this=profviz.so)

# redis (Debian's source, README's gcc flags) serving redis-benchmark on
# 127.0.0.1, against perf on its native twin: aeApiPoll's share, the top ten
# and the self-share TVD, 3 runs (needs perf; fetches redis's source once,
# builds cached in build/progs). SERVER_PRELOAD="LABEL=PATH ..." measures
# those runtimes on the same builds instead of this checkout's profviz.so.
bench-server: profviz.so
	python3 bench/server.py $(foreach p,$(SERVER_PRELOAD),--preload $(p))

# The sampler candidates side by side (issue 18): standalone C programs under
# bench/sampler/, rate, accuracy, cost and what each breaks; not in make check.
bench-sampler:
	python3 bench/sampler/run.py

# Hot lines (issue 18): the PC rings' and table's extra CPU at 1 and 10 kHz
# beside the sampler thread, and a 3:1 split; not in make check.
bench-hotlines: build/bench/hotlines
	python3 bench/hotlines.py

# Sampled CPU time against perf and the programs' own clocks, on threads that
# work in bursts between waits and on runs of 20 and 2 ms (bench/cpu/; needs
# perf, else the programs' clocks alone); not in make check. CPU_PRELOAD=
# "before=other/profviz.so this=profviz.so" measures each runtime on the same
# runs.
bench-cpu: profviz.so
	python3 bench/cpu_time.py $(foreach p,$(CPU_PRELOAD),--preload $(p))

# The bench's workloads (every call a real call), and the counter-read
# micro-benchmark on the plain core.
BENCH_CFLAGS := -O2 -g -finstrument-functions -fno-inline -fno-optimize-sibling-calls \
	-fno-ipa-cp $(WERROR_FLAG)
BENCH_PROGS := build/bench/fib build/bench/mixed build/bench/dispatch build/bench/inlined \
	build/bench/readcost
build/bench/%: bench/%.c build/bench/cflags
	$(CC) $(BENCH_CFLAGS) -o $@ $<
build/bench/readcost: bench/readcost.c $(call archives,plain,$(ALL_LAYERS)) build/bench/cflags
	$(CC) -O2 -g $(WERROR_FLAG) -Ilib -o $@ $< $(call archives,plain,$(ALL_LAYERS)) $(RT_LIBS)
# What hot lines cost and how well they split, on the runtime's own ring
# and PC table (bench/hotlines.py, make bench-hotlines).
build/bench/hotlines: bench/hotlines.c $(call archives,plain,$(ALL_LAYERS)) build/bench/cflags
	$(CC) -O2 -g $(WARN) $(WERROR_FLAG) -Ilib -o $@ $< $(call archives,plain,$(ALL_LAYERS)) \
		$(RT_LIBS)
build/bench/cflags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(BENCH_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(BENCH_CFLAGS)' > $@
bench-progs: $(BENCH_PROGS)

# Installs only what is missing: cheap to run before every test tier.
deps:
	@./.ci/install-deps.sh

clean:
	rm -rf build profviz profviz.so prof.dot prof.svg prof.json prof.folded prof.html
	$(MAKE) -C examples clean

FORCE:

.PHONY: all unit check demo pictures bench bench-truth bench-inlined bench-server bench-sampler \
	bench-hotlines bench-cpu bench-progs deps clean FORCE man install uninstall

# Fuzz the configuration and event-name parsers (libFuzzer, ASan, UBSan).
# The targets link clang-built archives of the same layers, with coverage
# instrumentation, so they need no list of what the parsers depend on.
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
COMPILE_fuzz = clang -std=gnu11 -O1 -g -fPIC -fvisibility=hidden $(WARN) $(WERROR_FLAG) \
	-Iinclude -Ilib -fsanitize=fuzzer-no-link $(FUZZ_SAN)
$(eval $(call flavour,fuzz))
FUZZ_TARGETS := build/fuzz/fuzz_config build/fuzz/fuzz_events build/fuzz/fuzz_load
# The loader target takes the command's reader and views with it.
FUZZ_EXTRA_fuzz_load := lib/cmd/load.c lib/cmd/common.c -ljansson

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(call archives,fuzz,$(ALL_LAYERS)) build/fuzz/cflags \
		$(wildcard lib/cmd/*.[ch]) | $(DEPS)
	clang -g -O1 $(WARN) $(WERROR_FLAG) -fsanitize=fuzzer $(FUZZ_SAN) -Ilib -MMD -MP -o $@ $< \
		$(FUZZ_EXTRA_fuzz_$*) $(call archives,fuzz,$(ALL_LAYERS)) $(RT_LIBS)

# The third tier: each target from its seeds on, through prove like the others.
fuzz: $(FUZZ_TARGETS) | $(DEPS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) prove -f --directives $(FUZZ_TESTS)

.PHONY: fuzz check-real
