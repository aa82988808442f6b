bats_require_minimum_version 1.5.0

# Shared set-up for the bats suites: FWIN is the binary under test (make
# asan points it at the sanitizer build), and each test gets a scratch dir.
export FWIN=${FWIN:-$BATS_TEST_DIRNAME/../fwin}
DATA=$BATS_TEST_DIRNAME/data

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
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
