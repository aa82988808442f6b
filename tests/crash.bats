#!/usr/bin/env bats
# kill -9 at random moments (fwin(1): CHECKPOINTS): a run that is killed again
# and again, restored each time with --state, and finished with --flush,
# writes with -o exactly the bytes of a run that never stopped. The harness
# is tests/ckpt/killsweep.sh; the input, ~100k records with times out of
# order within -l, comes from tests/ckpt/gen.sh. Seeds are fixed, so each
# sweep draws the same checkpoint intervals and kill delays every time;
# only where the kills land in fwin's work depends on the machine. At least
# 20 kills land on a running fwin in every sweep, many of them while a
# checkpoint is being written (--checkpoint-every 1 keeps one going).
load common

SWEEP=$BATS_TEST_DIRNAME/ckpt/killsweep.sh
KILLS=20

# Under the sanitizers (or valgrind) fwin starts and runs several times
# slower: a smaller input keeps the file's time in bounds.
sanitized() {
	[[ $FWIN == *asan* || $FWIN == *valgrind* ]] ||
		ldd "$FWIN" 2>/dev/null | grep -q libasan
}

setup_file() {
	local n=100000
	# A kill that lands while LeakSanitizer checks at exit makes it
	# complain of threads it cannot stop; leaks are the other suites'
	# business, this one compares output.
	sanitized && n=30000 && export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	"$BATS_TEST_DIRNAME/ckpt/gen.sh" 20260101 "$n" 50 20 > "$BATS_FILE_TMPDIR/in.csv"
	export IN=$BATS_FILE_TMPDIR/in.csv
}

# sweep SEED ARGS...: the harness over $IN, in this test's directory; its
# summary line goes to the TAP output.
sweep() {
	local seed=$1
	shift
	run --separate-stderr "$SWEEP" "$seed" "$KILLS" "$IN" -- "$@"
	if ((status != 0)); then
		fail "killsweep $seed $*: $stderr"
	fi
	echo "# $output" >&3
	assert_regex "$output" "^kills ([2-9][0-9]|[1-9][0-9]{2,}) in "
	cmp ref.out out
}

@test "kill -9 sweep: tumbling windows, --sum, --distinct, --first, a late file" {
	LATE=1 sweep 101 --csv -t 1 -k 2 --tumble 1m -l 30s --count --sum 3 --distinct 3 --first 3
	[ -s ref.late ]
	cmp ref.late out.late
}

@test "kill -9 sweep: sliding windows" {
	sweep 102 --csv -t 1 -k 2 --slide 2m,30s -l 30s --count --max 3 --avg 3
}

@test "kill -9 sweep: session windows" {
	sweep 103 --csv -t 1 -k 2 --session 30s -l 30s --count --sum 3 --last 3
}

@test "kill -9 sweep: count windows (the last run with --flush)" {
	sweep 104 --csv -k 2 --count-window 10,5 --sum 3 --min 3
}

@test "kill -9 sweep: tumbling windows through a pipe (cat in | fwin)" {
	PIPE=1 sweep 105 --csv -t 1 -k 2 --tumble 1m -l 30s --count --sum 3
}

@test "kill -9 sweep: session windows through a pipe" {
	PIPE=1 sweep 106 --csv -t 1 -k 2 --session 30s -l 30s --count --max-by 3:2
}

@test "kill -9 sweep: OVER windows, a key's records of one second held together" {
	sweep 107 --csv -t 1 -k 2 --over 1m -l 30s --count --sum 3 --last 3
}
