#!/usr/bin/env bats
# --progress (fwin(1): OPTIONS, Miscellaneous): one line on stderr,
# rewritten in place, on by default only when stderr is a terminal, the
# output is not, and the run lasts over a second; erased at exit. The
# terminal is script(1)'s pseudo-terminal.
load common

need_script() {
	command -v script >/dev/null || skip "no script(1)"
}

# data N: N records, one a millisecond
data() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%.0f,k%d,1\n", 1700000000000 + i, i % 7 }'
}

@test "--progress: a line of bytes, records/s, watermark, windows and keys, erased at exit" {
	data 20000 > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1m --mode stream --progress in
	assert_success
	# shown (the first after a quarter second: this run may be quicker)
	# or not, but never left: whatever was written ends erased
	[[ -z $stderr || $stderr == *$'\r\033[K' ]]
	# a slow input shows it
	run --separate-stderr bash -c '{ cat in; sleep 0.6; cat in; } | "$0" --csv -t 1 -k 2 --tumble 1m --mode stream --progress' "$FWIN"
	assert_success
	re=$'\r''fwin: [0-9.]+ MB, [0-9]+ records/s, watermark 2023-11-14T[0-9:.]+Z, [0-9]+ open windows, 7 keys'
	[[ $stderr =~ $re ]] || fail "no progress line: $(cat -v <<<"$stderr")"
	[[ $stderr == *$'\r\033[K' ]]
}

@test "--progress: a message said while the line is shown erases the line first" {
	# a bad record's message ran on from the progress line, and stayed
	# on the terminal (and in a log) joined to it
	run --separate-stderr bash -c '{ echo "1 a"; sleep 0.3; echo "2 a"; sleep 0.4; echo "x a"; sleep 0.3; echo "3 a"; } | "$0" -t 1 -k 2 --tumble 10s --mode stream --progress' "$FWIN"
	assert_success
	assert_output $'0\t10\ta\t3'
	re=$'keys\033\\[K\r\033\\[Kfwin: -:3: field 1: bad time "x"; record skipped\n'
	[[ $stderr =~ $re ]] || fail "not erased first: $(cat -v <<<"$stderr")"
	[[ $stderr == *$'\r\033[Kfwin: 1 bad record skipped' ]] ||
	    fail "the summary: $(cat -v <<<"$stderr")"
}

@test "--progress while a batch run writes its rows to a slow reader: the rows written so far" {
	awk 'BEGIN { for (i = 0; i < 400000; i++) printf "%d,k%d,1\n", 1700000000 + i, i % 50 }' > in
	# the reader takes nothing for a second: the rows wait for it
	fwin --csv -t 1 -k 2 --tumble 1s --count --mode batch --progress in 2> err | { sleep 1.2; cat > out; }
	re=$'\r''fwin: all input read; [0-9]+ rows written so far'
	[[ $(cat err) =~ $re ]] || fail "no progress line: $(cat -v err)"
	[[ $(cat err) == *$'\r\033[K' ]]
	[ "$(wc -l < out)" = 400000 ]
}

# slow_reader: takes its input 64 KiB at a time, 20 times a second (about
# 1.3 MB/s): the rows wait for it while they are written
slow_reader() {
	while [ "$(dd bs=65536 count=1 status=none | wc -c)" -gt 0 ]; do
		sleep 0.05
	done
}

@test "--progress with two halves of a file: both halves' bytes and records, the first half's keys, and the second's rows counted as they are copied" {
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 300000 -k 3000 --seed 7 > in
	rows=$(fwin --csv -t 1 -k 2 --tumble 10s -l 2s --count in | wc -l)
	run --separate-stderr fwin --threads 2 --explain plan --csv -t 1 -k 2 --tumble 10s -l 2s --count in
	assert_line --index 1 --regexp '^strategy: halves '
	fwin --threads 2 --csv -t 1 -k 2 --tumble 10s -l 2s --count --progress in 2> err | slow_reader
	# while the first half is read: its table's windows and keys, and the
	# bytes both halves have read (the first alone stops near 60%: it
	# begins past the bytes read before the cut)
	re=', [1-9][0-9]* open windows, [1-9][0-9]* keys'
	[[ $(cat err) =~ $re ]] || fail "no keys: $(cat -v err)"
	re=' of 7\.1 MB \(([89][0-9]|100)%'
	[[ $(cat err) =~ $re ]] || fail "the second half's bytes left out: $(cat -v err)"
	# the second half's rows, formatted on its thread, are copied after
	# the first's (over half of them): counted as they go, not at the end
	most=$(tr '\r' '\n' < err | sed -n 's/.*all input read; \([0-9]*\) rows.*/\1/p' | sort -n | tail -1)
	[ -n "$most" ] || fail "no rows written: $(cat -v err)"
	(( most * 4 >= rows * 3 )) || fail "$most rows of $rows shown"
	[[ $(cat err) == *$'\r\033[K' ]]
}

@test "--progress with key-group workers: the rows they fire, written by the main thread, counted as it writes them" {
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 150000 -k 50000 --seed 7 > in
	rows=$(fwin --csv -t 1 -k 2 --session 1h --count in | wc -l)
	run --separate-stderr bash -c 'cat in | "$0" --explain plan --threads 3 --csv -t 1 -k 2 --session 1h --count' "$FWIN"
	assert_line --index 1 --regexp '^strategy: keyed '
	# every session ends with the input: its rows wait for the reader
	cat in | fwin --threads 3 --csv -t 1 -k 2 --session 1h --count --progress 2> err | slow_reader
	# (every row is a worker's: the count is theirs alone)
	most=$(tr '\r' '\n' < err | sed -n 's/.*all input read; \([0-9]*\) rows.*/\1/p' | sort -n | tail -1)
	[ -n "$most" ] || fail "no rows written: $(cat -v err)"
	(( most > 0 && most <= rows )) || fail "$most rows of $rows shown"
	[[ $(cat err) == *$'\r\033[K' ]]
}

@test "--progress on a file says the total, the percent and the time left" {
	data 20000 > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1m --mode stream --progress in in in
	assert_success
	# three copies of the file: a total is known; a quick run may show none
	re=' of [0-9.]+ MB \([0-9]+%, [0-9]+:[0-9]+ left\)'
	[[ -z $stderr || $stderr =~ $re ]] || fail "$(cat -v <<<"$stderr")"
}

@test "progress by default: only on a terminal, with the output elsewhere, after a second" {
	need_script
	data 20000 > in
	# stderr is a terminal, the output a file, the run over a second
	script -qec "{ cat in; sleep 1.3; cat in; } | $FWIN --csv -t 1 -k 2 --tumble 1m --mode stream > out" /dev/null > tty.log
	grep -q 'records/s' tty.log
	# erased at the end: the last bytes clear the line
	[[ $(tail -c 4 tty.log | od -An -c | tr -d ' ') == *'\r033[K'* ]]
	# --no-progress: nothing
	script -qec "{ cat in; sleep 1.3; cat in; } | $FWIN --csv -t 1 -k 2 --tumble 1m --mode stream --no-progress > out" /dev/null > tty.log
	! grep -q 'records/s' tty.log
	# the output on the terminal too: nothing (it would be torn)
	script -qec "{ cat in; sleep 1.3; cat in; } | $FWIN --csv -t 1 -k 2 --tumble 1m --mode stream" /dev/null > tty.log
	! grep -q 'records/s' tty.log
	# stderr not a terminal (captured, as in a log): nothing stays
	run --separate-stderr bash -c '{ cat in; sleep 1.3; cat in; } | "$0" --csv -t 1 -k 2 --tumble 1m --mode stream > out' "$FWIN"
	assert_success
	assert_equal "$stderr" ""
}
