bats_require_minimum_version 1.5.0

# Shared set-up for the bats suites: FWIN is the binary under test (make
# asan points it at the sanitizer build), and each test gets a scratch dir.
export FWIN=${FWIN:-$BATS_TEST_DIRNAME/../fwin}
DATA=$BATS_TEST_DIRNAME/data
# The Flink SQL grammar checker, which explain.bats makes from npm
# packages: third-party code, kept in the user's cache, not in the
# repository.
FLINKSQL=${FWIN_FLINKSQL:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fwin/flinksql}

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# Put before "$FWIN" in a command run with & that a test signals: the
# stop signals at their defaults, as a foreground job has them. An
# asynchronous command starts with SIGINT ignored (no job control),
# whoever runs the suite may ignore SIGHUP (nohup(1)), and fwin leaves a
# signal ignored at its start so (fwin(1): Signals).
DFL_SIGNALS=(env --default-signal=HUP,INT,TERM)

# build_shim (from setup_file): tests/faults/shim.c, the LD_PRELOAD
# library that makes a call fail or wait (see there), built as $SHIM.
build_shim() {
	SHIM=$BATS_FILE_TMPDIR/shim.so
	gcc -O1 -g -Wall -Wextra -shared -fPIC -o "$SHIM" \
	    "$BATS_TEST_DIRNAME/faults/shim.c" -ldl
	export SHIM
	# the sanitizer build wants its runtime first; the shim comes first
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
}

# fwin ARGS... : runs the binary (use with `run` / `run --separate-stderr`).
fwin() {
	"$FWIN" "$@"
}

# wait_until SECS CMD...: run CMD every 20 ms until it succeeds; fail after
# SECS seconds.
wait_until() {
	local secs=$1 w
	shift
	for ((w = 0; w < secs * 50; w++)); do
		"$@" && return 0
		sleep 0.02
	done
	fail "timed out after ${secs}s waiting for: $*"
}

# threads_alike "N1 N2 ..." ARGS...: runs fwin --threads N ARGS for each
# N (its standard input the file $ALIKE_IN, if set); stdout, stderr, exit
# status and the file "late" (when made) of each must be the bytes of the
# first N's, kept as out$N, err$N, status$N and late$N.
threads_alike() {
	local ns=$1 n first=
	shift
	for n in $ns; do
		rm -f late
		run --separate-stderr fwin --threads "$n" "$@" < "${ALIKE_IN:-/dev/null}"
		printf '%s\n' "$output" > "out$n"
		printf '%s\n' "$stderr" > "err$n"
		echo "$status" > "status$n"
		[ -e late ] && mv late "late$n"
		if [ -z "$first" ]; then
			first=$n
			continue
		fi
		cmp "out$first" "out$n" || { diff "out$first" "out$n" | head; false; }
		cmp "err$first" "err$n" || { diff "err$first" "err$n" | head; false; }
		cmp "status$first" "status$n"
		[ ! -e "late$first" ] || cmp "late$first" "late$n"
	done
}

# planned_only: the test asserts which strategy the planner chooses
# (--stats' mode, or what a strategy does on its own): make check's runs
# of the suites under a forced strategy (FWIN_STRATEGY, fwin(1): THE
# PLAN) skip it.
planned_only() {
	[ -z "${FWIN_STRATEGY:-}" ] || skip "asserts the planned strategy"
}

# draws N C SEED: N lines of C numbers in [0, 1) drawn from SEED
# (scripts/gen --uniform). Test data takes its randomness from here, never
# from awk's rand(), whose numbers differ between mawk and gawk.
draws() {
	"$BATS_TEST_DIRNAME/../scripts/gen" -n "$1" --uniform "$2" --seed "$3"
}
