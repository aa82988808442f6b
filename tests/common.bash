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
