# fwin — windowed aggregation for Unix pipelines.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1

CC = gcc
# -O3: 5% less time than -O2 on BENCH.md's headline, alone and in threads
CFLAGS ?= -O3 -g
WARNFLAGS = -Wall -Wextra
CPPFLAGS += -D_GNU_SOURCE -Isrc
LDLIBS = -lcsv -lxxhash -lsqlite3 -lgmp -lm -pthread

# src/ in folders, one layer each (doc/ARCHITECTURE.md); main.c on top.
SRCS := src/main.c $(wildcard src/*/*.c)
HDRS := $(wildcard src/*/*.h)
LIBSRCS := $(filter-out src/main.c,$(SRCS))
OBJS := $(SRCS:.c=.o)
LIBOBJS := $(LIBSRCS:.c=.o)
UNITSRCS := $(wildcard tests/unit/test_*.c)
UNITS := $(UNITSRCS:.c=)

ASANDIR = build-asan
ASANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
TSANDIR = build-tsan
TSANFLAGS = -O1 -g -fsanitize=thread -fno-omit-frame-pointer

# The suites that --threads can change (reading, parsing, messages, the
# late file, checkpoints and resuming, live input, kills): `make bats`
# runs every suite with one thread, then these again with two.
THREADSUITES = tests/threads.bats tests/windows.bats tests/batch.bats \
	tests/checkpoint.bats tests/crash.bats tests/cron.bats tests/live.bats \
	tests/errors.bats tests/messages.bats tests/json.bats \
	tests/partition.bats tests/progress.bats tests/faults.bats \
	tests/changelog.bats tests/sqlite.bats tests/counters.bats \
	tests/expr.bats tests/follow.bats

# The suites whose streams key-group workers (--threads 3 or more) take
# most, run again with four threads (a reading thread, three workers).
WORKERSUITES = tests/windows.bats tests/live.bats tests/errors.bats \
	tests/messages.bats tests/progress.bats tests/changelog.bats \
	tests/sqlite.bats tests/counters.bats tests/expr.bats \
	tests/follow.bats

# The behaviour suites again under each strategy (fwin(1): THE PLAN) but
# halves, which two threads already run where it fits: NAME:THREADS, and
# the suites whose pipelines it can take. FWIN_STRATEGY_SOFT=1: a test
# whose pipeline the strategy cannot run runs as planned; a test about
# which strategy ran says planned_only (tests/common.bash) and is skipped.
STRATEGYRUNS = ordered:1 keyed:4 streamtable:1 table:2 straight:1 sorted:2
SUITES_ordered = tests/windows.bats tests/streamagg.bats tests/aggregates.bats \
	tests/live.bats
SUITES_keyed = tests/windows.bats tests/streamagg.bats
SUITES_streamtable = tests/windows.bats tests/aggregates.bats
SUITES_table = tests/windows.bats tests/batch.bats tests/aggregates.bats
SUITES_straight = $(SUITES_table)
SUITES_sorted = $(SUITES_table)

# The suites most of whose tests compute their data with awk (from
# scripts/gen's seeded draws), run again with gawk as awk (Debian's awk is
# mawk): the data, and so every expected output, must be the same bytes
# whichever awk a machine has. (calendar, windows, firing and checkpoint
# have a few such tests too, and pass with gawk: AWKSUITES="..." runs
# them.)
AWKSUITES = tests/batch.bats tests/streamagg.bats tests/threads.bats \
	tests/workers.bats tests/slide.bats tests/cron.bats

.PHONY: all check unit bats bats-gawk strategies asan tsan asan-built tsan-built \
	asan-suite tsan-suite suites-asan suites-tsan sanitized clean-sanitizers \
	demo install uninstall clean deps

all: fwin

fwin: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

src/%.o: src/%.c $(HDRS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNFLAGS) -c -o $@ $<

tests/unit/test_%: tests/unit/test_%.c tests/unit/unit.h tests/unit/memout.h $(LIBOBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNFLAGS) -Isrc -o $@ $< $(LIBOBJS) $(LDLIBS)

deps:
	@./scripts/deps

# bats runs this many tests at once (through GNU parallel): a test waits
# on sleeps, locks, signals and child processes as much as it computes.
# BATS_JOBS=1 runs them one at a time.
BATS_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))
BATS = bats --jobs $(BATS_JOBS)

unit: $(UNITS)
	@set -e; for t in $(UNITS); do ./$$t; done

bats: fwin
	FWIN_THREADS=1 $(BATS) tests
	FWIN_THREADS=2 $(BATS) $(THREADSUITES)
	FWIN_THREADS=4 $(BATS) $(WORKERSUITES)
	$(MAKE) strategies

strategies: fwin
	@set -e; $(foreach r,$(STRATEGYRUNS),\
		echo "FWIN_STRATEGY=$(word 1,$(subst :, ,$(r))) FWIN_THREADS=$(word 2,$(subst :, ,$(r)))"; \
		FWIN_STRATEGY=$(word 1,$(subst :, ,$(r))) FWIN_STRATEGY_SOFT=1 \
		FWIN_THREADS=$(word 2,$(subst :, ,$(r))) \
		$(BATS) $(SUITES_$(word 1,$(subst :, ,$(r))));)

check: deps
	$(MAKE) fwin
	./scripts/layers
	$(MAKE) unit
	$(MAKE) bats
	$(MAKE) bats-gawk
	$(MAKE) fuzz-replay

# AWKSUITES with an `awk` that is gawk first in PATH.
bats-gawk: fwin
	rm -rf build-gawk
	mkdir -p build-gawk
	ln -s "$$(command -v gawk)" build-gawk/awk
	build-gawk/awk --version | grep -q '^GNU Awk'
	PATH="$(CURDIR)/build-gawk:$$PATH" FWIN_THREADS=1 $(BATS) $(AWKSUITES)

# The whole suite again, with every object built under AddressSanitizer and
# UndefinedBehaviorSanitizer (LeakSanitizer comes with ASan), two threads.
ASANSUITES = $(wildcard tests/*.bats)
asan: asan-built
	$(MAKE) asan-suite SUITE="$(ASANSUITES)"

# The suites --threads can change, with two threads under ThreadSanitizer
# (not faults.bats: its LD_PRELOAD shim and TSan's interceptors clash),
# and streamagg.bats and workers.bats, whose runs choose their threads
# themselves (threads.bats' too: 1, 2 and 4).
# No thread leak reports: a background checkpoint's fork(2) child has no
# reading thread, yet TSan counts the parent's as leaked when the child
# exits; the parent always joins it.
TSANSUITES = $(filter-out tests/faults.bats,$(THREADSUITES)) \
	tests/streamagg.bats tests/workers.bats
tsan: tsan-built
	$(MAKE) tsan-suite SUITE="$(TSANSUITES)"

# The steps of asan and tsan: fwin and the unit tests built (ASan's unit
# tests run), then SUITE, some of the suites above, run with that fwin.
# scripts/sanitize takes them one suite at a time (CI, within its time).
asan-built: deps
	$(MAKE) SANDIR=$(ASANDIR) SANFLAGS="$(ASANFLAGS)" \
		SANLDFLAGS="-fsanitize=address,undefined" sanitized
	@set -e; for t in $(UNITS:tests/unit/%=$(ASANDIR)/tests/unit/%); do ./$$t; done

tsan-built: deps
	$(MAKE) SANDIR=$(TSANDIR) SANFLAGS="$(TSANFLAGS)" \
		SANLDFLAGS="-fsanitize=thread" sanitized

asan-suite:
	FWIN_THREADS=2 FWIN=$(CURDIR)/$(ASANDIR)/fwin bats $(SUITE)

tsan-suite:
	FWIN_THREADS=2 \
		TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_thread_leaks=0" \
		FWIN=$(CURDIR)/$(TSANDIR)/fwin bats $(SUITE)

# The suites each runs, a line: scripts/sanitize reads them.
suites-asan:
	@echo $(ASANSUITES)

suites-tsan:
	@echo $(TSANSUITES)

# (for asan and tsan) fwin and the unit tests built in $(SANDIR) with
# $(SANFLAGS).
sanitized:
	rm -rf $(SANDIR)
	mkdir -p $(SANDIR)/src $(SANDIR)/tests/unit
	$(MAKE) CFLAGS="$(SANFLAGS)" LDFLAGS="$(SANLDFLAGS)" \
		OBJS="$(SRCS:src/%.c=$(SANDIR)/src/%.o)" \
		LIBOBJS="$(LIBSRCS:src/%.c=$(SANDIR)/src/%.o)" \
		$(SANDIR)/fwin $(UNITS:tests/unit/%=$(SANDIR)/tests/unit/%)

ifdef SANDIR
$(SANDIR)/fwin: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(SANDIR)/src/%.o: src/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNFLAGS) -c -o $@ $<

$(SANDIR)/tests/unit/test_%: tests/unit/test_%.c tests/unit/unit.h tests/unit/memout.h $(LIBOBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNFLAGS) $(LDFLAGS) -Isrc -o $@ $< $(LIBOBJS) $(LDLIBS)
endif

clean-sanitizers:
	rm -rf $(ASANDIR) $(TSANDIR)

demo: deps fwin
	@echo '$$ ./fwin --csv -H -t ts -k host --tumble 1m --count --sum bytes --max latency_ms tests/data/access.csv'
	@./fwin --csv -H -t ts -k host --tumble 1m --count --sum bytes --max latency_ms tests/data/access.csv
	@echo
	@echo '$$ ./fwin --csv -H -t ts -k host --slide 2m,1m -l 30s --avg latency_ms --output-format json tests/data/access.csv'
	@./fwin --csv -H -t ts -k host --slide 2m,1m -l 30s --avg latency_ms --output-format json tests/data/access.csv

install: fwin
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 fwin $(DESTDIR)$(BINDIR)/fwin
	install -m 644 man/fwin.1 $(DESTDIR)$(MANDIR)/fwin.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fwin $(DESTDIR)$(MANDIR)/fwin.1

clean: clean-sanitizers
	rm -rf fwin $(OBJS) $(UNITS) build-gawk

# Fuzzing (tests/fuzz/, scripts/fuzz). Each target tests/fuzz/fuzz_NAME.c
# links every src/ object but main.o (it calls fwin_cli()). build-fuzz/fuzz_NAME
# is the libFuzzer binary (clang); build-fuzz/replay_NAME runs files through
# the same target once, without libFuzzer (gcc): `make fuzz-replay` feeds it
# every seed and every saved crasher, as regression inputs.
FUZZDIR = build-fuzz
FUZZTARGETS = input time num engine ckpt json expr
FUZZCC = clang
FUZZFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
FUZZHDRS = tests/fuzz/fuzz.h $(HDRS)
FUZZLFOBJS = $(LIBSRCS:src/%.c=$(FUZZDIR)/lf/%.o)
FUZZRPOBJS = $(LIBSRCS:src/%.c=$(FUZZDIR)/rp/%.o)

.PHONY: fuzz fuzz-replay clean-fuzz
.SECONDARY: $(FUZZLFOBJS) $(FUZZRPOBJS)

fuzz: $(FUZZTARGETS:%=$(FUZZDIR)/fuzz_%)

fuzz-replay: $(FUZZTARGETS:%=$(FUZZDIR)/replay_%)
	@set -e; for t in $(FUZZTARGETS); do \
		./$(FUZZDIR)/replay_$$t tests/fuzz/corpus tests/fuzz/crashers; \
	done

$(FUZZDIR)/lf/%.o: src/%.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZCC) $(CPPFLAGS) $(FUZZFLAGS) -fsanitize=fuzzer-no-link \
		$(WARNFLAGS) -c -o $@ $<

$(FUZZDIR)/rp/%.o: src/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(FUZZFLAGS) $(WARNFLAGS) -c -o $@ $<

$(FUZZDIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZHDRS) $(FUZZLFOBJS)
	$(FUZZCC) $(CPPFLAGS) $(FUZZFLAGS) -fsanitize=fuzzer $(WARNFLAGS) \
		-Isrc -o $@ $< $(FUZZLFOBJS) $(LDLIBS)

$(FUZZDIR)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZHDRS) \
    $(FUZZRPOBJS)
	$(CC) $(CPPFLAGS) $(FUZZFLAGS) $(WARNFLAGS) -Isrc -o $@ $< \
		tests/fuzz/replay.c $(FUZZRPOBJS) $(LDLIBS)

clean-fuzz:
	rm -rf $(FUZZDIR)

# Hardening beyond check (scripts/lint, tests/valgrind-wrapper,
# scripts/membound). lint: cppcheck and clang-tidy (the checks chosen in
# .clang-tidy) over src/, clean or failing. valgrind: the bats suite with
# every fwin run under memcheck, a memory error or leak failing its test
# and, reported in a log, the target; slow, so not part of check, and
# without tests/faults.bats, whose LD_PRELOAD malloc and valgrind's do not
# mix. membound: peak RSS must stay flat while the input grows 10x (a
# measurement, not a test).
.PHONY: lint valgrind membound

lint:
	./scripts/lint

valgrind: fwin
	@logs=$$(mktemp -d) && status=0 && \
	FWIN=$(CURDIR)/tests/valgrind-wrapper VALGRIND_LOGS=$$logs \
		bats $(filter-out tests/faults.bats,$(wildcard tests/*.bats)) || \
		status=1; \
	for f in $$logs/*.log; do \
		[ -s "$$f" ] && { cat "$$f"; status=1; }; \
	done; \
	rm -rf "$$logs"; exit $$status

membound: fwin
	./scripts/membound
