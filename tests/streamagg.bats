#!/usr/bin/env bats
# --mode stream aggregated as read (fwin(1): BATCH AND STREAM MODES, "A
# stream aggregated as read"): a tumbling window over named regular FILEs
# goes to a table of (window, key) groups, with one thread or two (the
# FILEs cut in two halves). What it prints is defined by the operator's
# run over the same records, which reading standard input gives: the
# same stdout, stderr (late records said the same way) and status; a
# checkpoint (--state, with --flush) keeps the operator.
load common

# disordered SEED N JITTER_MS: N records "time,key,value" (ms) 20 ms apart,
# each up to JITTER_MS ms earlier than its place, 300 keys (a Zipf-like
# few common), values integers or 2-decimal numbers
disordered() {
	draws "$2" 5 "$1" | awk -v j="$3" '{
		t = 1600000000000 + (NR - 1) * 20 - int($1 * j)
		k = int(300 * $2 * $3)
		v = $4 < 0.5 ? int($5 * 100) : sprintf("%.2f", $5 * 100)
		printf "%.0f,k%d,%s\n", t, k, v
	}'
}

# late_of FILE TUMBLE_MS LATENESS_MS: what the operator says of FILE's late
# records, worked out here: a record is late when its window's end is at
# or before the watermark (the largest time before it, less -l)
late_of() {
	awk -F, -v size="$2" -v l="$3" 'NR > 1 && (t = $1 + 0) - t % size + size <= max - l {
			n++
			if (max - l - t > by) by = max - l - t
		}
		NR == 1 || $1 + 0 > max { max = $1 + 0 }
		END { printf "%d %d\n", n, by }' "$1"
}

# mode_of STDERR: its --stats line's mode
mode_of() {
	grep '^fwin: stats: ' <<<"$1" | sed 's/.* records\/s, //; s/, keys over workers$//'
}

# alike FILE ARGS...: fwin over FILE with one and with two threads prints
# what the operator prints; the modes of the two runs in $mode1 and $mode2
alike() {
	local f=$1 n
	shift
	run --separate-stderr fwin --threads 1 --state ref.ckpt --flush "$@" "$f"
	rm -f ref.ckpt
	# (under a checkpoint the late summary offers no --mode batch)
	local want=$output want_status=$status
	local want_err=${stderr//' or --late-file keeps them'/', --late-file or --mode batch keeps them'}
	for n in 1 2; do
		run --separate-stderr fwin --stats --threads $n "$@" "$f"
		assert_equal "$status" "$want_status"
		assert_equal "$output" "$want"
		assert_equal "$(grep -v '^fwin: stats: ' <<<"$stderr")" "$want_err"
		printf -v "mode$n" '%s' "$(mode_of "$stderr")"
	done
}

# waited FILE ARGS...: fwin with ARGS, one and two threads, reading
# FILE's records from a FIFO on which it waited first, as on tail -f
# (the table fires what is due while its input waits, before any record
# has made a watermark), prints what it prints reading FILE
waited() {
	local f=$1 n i pid want
	shift
	want=$("$FWIN" --threads 1 "$@" "$f" 2> /dev/null)
	rm -f fifo
	mkfifo fifo
	for n in 1 2; do
		"$FWIN" --threads $n "$@" 3>&- < fifo > waited.out 2> /dev/null &
		pid=$!
		exec 7> fifo
		for i in $(seq 100); do	# (until it waits in poll(2))
			grep -q poll "/proc/$pid/wchan" 2> /dev/null && break
			sleep 0.05
		done
		cat "$f" >&7
		exec 7>&-
		wait "$pid"
		assert_equal "$(cat waited.out)" "$want"
	done
}

@test "stream aggregated as read: the operator's bytes, one thread and two halves (seeds 501-503)" {
	planned_only
	disordered 501 200000 3000 > in
	alike in --csv -t 1 -k 2 --tumble 1m -l 2s --count --sum 3 --avg 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	[ -n "$(grep -c . <<<"$output")" ]
	waited in --csv -t 1 -k 2 --tumble 1m -l 2s --count --sum 3 --avg 3
	# -l 0: most records late; short windows; no key
	alike in --csv -t 1 -k 2 --tumble 10s -l 0 --count --sum 3
	read -r n by < <(late_of in 10000 0)
	[ "$n" -gt 10000 ]
	assert_equal "$(tail -n 1 <<<"$stderr")" "fwin: $n late records dropped (the latest by ${by}ms behind the watermark); -l ${by}ms, --late-file or --mode batch keeps them"
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	disordered 502 200000 60000 > in2
	alike in2 --csv -t 1 --tumble 7s -l 10s --count --avg 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	# aggregates that keep blocks of their own: percentiles, sketches and
	# sets of texts in two halves
	disordered 503 50000 5000 > in3
	alike in3 --csv -t 1 -k 2 --tumble 30s -l 1s --count --median 3 --percentile 3:90 --approx-percentile 3:50,99 --approx-distinct 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	alike in3 --csv -t 1 -k 2 --tumble 30s -l 1s --count --distinct 3 --median 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	# calendar windows in a zone; JSON input
	alike in --csv -t 1 -k 2 --tumble 1d --tz Europe/Berlin -l 1s --count --sum 3
	awk -F, '{ printf "{\"t\":%s,\"k\":\"%s\",\"v\":%s}\n", $1, $2, $3 }' in > in.jsonl
	alike in.jsonl --json -t t -k k --tumble 1m -l 1s --count --sum v
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
}

@test "stream aggregated as read: records late only by the first half's watermark, and late in the second (seed 504)" {
	planned_only
	disordered 504 200000 500 > in
	# after the middle: records of windows the first half's watermark
	# has passed (late in the whole input, not in the second half), and
	# further on ones late by the second half's own
	awk -F, -v OFS=, 'NR > 100000 && NR < 100050 { printf "%.0f,%s,1\n", $1 - 540000, $2 }
		NR > 150000 && NR < 150030 { printf "%.0f,%s,2\n", $1 - 70000, $2 } { print }' in > late
	alike late --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	# the 49 and 29 records put behind, and the ones the jitter made late
	read -r n by < <(late_of late 60000 1000)
	[ "$n" -ge 78 ]
	assert_regex "$(tail -n 1 <<<"$stderr")" "^fwin: $n late records dropped \\(the latest by $((by / 60000))m$((by % 60000))ms behind"
	# the second half fires on its thread the windows past the first
	# half's reach, guessed from its first record; a first half that
	# reaches further (a time an hour ahead just before the cut) drops
	# that work, and this thread reads the second half itself
	awk -F, -v OFS=, 'NR == 99990 { printf "%.0f,%s,4\n", $1 + 3600000, $2 } { print }' in > ahead
	alike ahead --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read"
	assert_regex "$(tail -n 1 <<<"$stderr")" '^fwin: [0-9]+ late records dropped'
	# a late record as the second half's very first
	awk -F, -v OFS=, 'NR == 100001 { print 1600000000000, $2, 3 } { print }' in > first
	alike first --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
}

@test "stream aggregated as read: --late-file gets the operator's lines, in order (one table)" {
	planned_only
	disordered 505 200000 3000 > in
	fwin --threads 1 --state s.ckpt --flush --csv -t 1 -k 2 --tumble 1m -l 1s --count --late-file want.late in > want
	for n in 1 2; do
		run --separate-stderr fwin --stats --threads $n --csv -t 1 -k 2 --tumble 1m -l 1s --count --late-file got.late in
		assert_success
		assert_equal "$output" "$(cat want)"
		assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
		cmp want.late got.late
		rm got.late
	done
	[ -s want.late ]
}

@test "stream aggregated as read: --strict stops at a bad record with the rows the watermark had passed" {
	planned_only
	disordered 506 200000 3000 > in
	awk 'NR == 60000 { print "x,k1,1" } { print }' in > bad
	alike bad --strict --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
	assert_failure
	assert_regex "$stderr" 'bad:60000: field 1: bad time "x"'
	[ "$(grep -c . <<<"$output")" -gt 100 ]
	# not strict: said, skipped, and the halves stand
	alike bad --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
	assert_success
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
}

@test "stream aggregated as read: a table past its budget hands over to the operator, no row written twice" {
	planned_only
	# 20000 keys in each 1-minute window, a window's worth held open
	draws 300000 2 507 | awk '{ i = NR - 1
		printf "%.0f,k%d,%d\n", 1600000000000 + i * 2 - int($1 * 50), int($2 * 20000), i % 7 }' > many
	# (a table fires about a window's groups at a time, about 1 MB;
	# the halves' share half of it)
	for b in 500000 1000000 2000000; do
		FWIN_TABLE_BUDGET=$b alike many --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
		assert_success
		[ "$b" = 2000000 ] || assert_equal "$mode1" "mode stream"
		assert_equal "$mode2" "mode stream"
	done
	assert_equal "$mode1" "mode stream, aggregated as read"
	# the same, with room
	alike many --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	[ "$(grep -c . <<<"$output")" -gt 100000 ]
}

@test "stream aggregated as read: input read once (a pipe) gives the operator's bytes, late file and messages included, one and two threads" {
	disordered 514 60000 4000 > in
	local a n
	for a in "--tumble 1m -l 2s --count --sum 3 --avg 3" \
	    "--tumble 10s -l 0 --count --late-file late" \
	    "--tumble 1m -l 1s --count --distinct 3 --median 3" \
	    "--cumulate 1m,10s -l 1s --count --sum 3"; do
		# shellcheck disable=SC2086
		FWIN_STRATEGY=ordered run --separate-stderr bash -c 'cat in | "$0" --threads 1 --csv -t 1 -k 2 "$@"' "$FWIN" $a
		local want=$output want_err=$stderr want_status=$status
		[ ! -e late ] || mv late want.late
		for n in 1 2; do
			rm -f late	# (--late-file appends)
			# shellcheck disable=SC2086
			run --separate-stderr bash -c 'cat in | "$0" --stats --threads '$n' --csv -t 1 -k 2 "$@"' "$FWIN" $a
			assert_equal "$status" "$want_status"
			assert_equal "$output" "$want"
			assert_equal "$(grep -v '^fwin: stats: ' <<<"$stderr")" "$want_err"
			[ ! -e want.late ] || cmp want.late late
			[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
		done
		rm -f want.late late
	done
}

@test "stream aggregated as read: aggregates of arrival order (first, last, min-by) give the operator's bytes, one table; variances in two halves" {
	disordered 515 60000 3000 > in
	alike in --csv -t 1 -k 2 --tumble 1m -l 1s --first 3 --last 3 --min-by 3:2 --stddev 3 --var-pop 3
	[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$mode2" "mode stream, aggregated as read"
	[ "$(grep -c . <<<"$output")" -gt 100 ]
	alike in --csv -t 1 --tumble 10s -l 0 --last 3 --stddev 3
	grep -q 'late records dropped' <<<"$stderr"
	# variances from exact sums: the same bytes in any grouping
	alike in --csv -t 1 -k 2 --tumble 1m -l 1s --stddev 3 --var 3 --stddev-pop 3 --var-pop 3
	[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	awk -F, -v OFS=, '{ $3 = int($3) "." NR % 7 "e-3"; print }' in > frac
	alike frac --csv -t 1 -k 2 --cumulate 10m,1m -l 1s --stddev 3 --var-pop 3
	[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
}

@test "stream aggregated as read: not for what the operator must do (checkpoints, slides of a --max or a STEP that does not divide, allowed lateness, counters, a cumulating median); input read once and aggregates of order too" {
	planned_only
	disordered 508 3000 3000 > in
	args=(--csv -t 1 -k 2 -l 1s --count)
	run --separate-stderr fwin --stats "${args[@]}" --tumble 1m --state s.ckpt in
	assert_equal "$(mode_of "$stderr")" "mode stream"
	run --separate-stderr fwin --stats "${args[@]}" --tumble 1m - < in
	assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
	run --separate-stderr fwin --stats "${args[@]}" --slide 1m,10s in
	assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
	# (a maximum cannot leave a running fold; nor can a pane of 10s
	# leave a window every 25s)
	run --separate-stderr fwin --stats "${args[@]}" --slide 1m,10s --max 3 in
	assert_equal "$(mode_of "$stderr")" "mode stream"
	run --separate-stderr fwin --stats "${args[@]}" --slide 1m,25s in
	assert_equal "$(mode_of "$stderr")" "mode stream"
	run --separate-stderr fwin --stats "${args[@]}" --tumble 1m --allowed-lateness 5s in
	assert_equal "$(mode_of "$stderr")" "mode stream"
	run --separate-stderr fwin --stats "${args[@]}" --tumble 1m --increase 3 in
	assert_equal "$(mode_of "$stderr")" "mode stream"
	# (records come in input order, as the operator adds them; one table:
	# two halves would not keep it)
	run --separate-stderr fwin --stats "${args[@]}" --tumble 1m --first 3 --stddev 3 in
	assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
	# (a fold that is no block the table can keep running)
	run --separate-stderr fwin --stats "${args[@]}" --cumulate 10m,1m --median 3 in
	assert_equal "$(mode_of "$stderr")" "mode stream"
	# (exact sums, the same bytes in any grouping)
	run --separate-stderr fwin --stats "${args[@]}" --cumulate 10m,1m --stddev 3 in
	assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
	run --separate-stderr fwin --stats "${args[@]}" --tumble 1m in
	assert_equal "$(mode_of "$stderr")" "mode stream, aggregated as read"
}

@test "stream aggregated as read: --slide, the operator's bytes from a file and a pipe (seeds 514-516)" {
	planned_only
	# jitter past -l: records whose first windows have fired join the
	# running folds of those still to fire; those whose last window has
	# ended are late
	disordered 514 200000 90000 > in
	alike in --csv -t 1 -k 2 --slide 1m,5s -l 2s --count --sum 3 --avg 3 \
	    --stddev 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	assert_equal "$mode2" "mode stream, aggregated as read"
	assert_regex "$(tail -n 1 <<<"$stderr")" '^fwin: [0-9]+ late records dropped'
	want=$output
	run --separate-stderr bash -c 'cat in | "$FWIN" --csv -t 1 -k 2 --slide 1m,5s -l 2s --count --sum 3 --avg 3 --stddev 3'
	assert_equal "$output" "$want"
	# a pipe that waits before its first record
	waited in --csv -t 1 -k 2 --slide 1m,5s -l 2s --count --sum 3 --avg 3 \
	    --stddev 3
	# one pane a window; no key; an offset; -l 0
	alike in --csv -t 1 -k 2 --slide 10s,10s -l 1s --count --var 3
	alike in --csv -t 1 --slide 2m,1s --offset 300ms -l 0 --count --sum 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	# values written with an exponent (their sums print as doubles, and
	# cannot be taken back out: the running fold is made again from its
	# panes), sums past 38 digits, empty values
	disordered 515 50000 20000 | awk -F, 'BEGIN { OFS = "," }
		NR % 7 == 1 { $3 = $3 "e-2" } NR % 11 == 2 { $3 = "" }
		NR % 13 == 3 { $3 = "1e300" } NR % 13 == 4 { $3 = "-1e300" }
		NR % 17 == 5 { $3 = "123456789012345678901234567890.5" }
		{ print }' > in
	alike in --csv -t 1 -k 2 --slide 30s,2s -l 1s --count --sum 3 --avg 3 \
	    --var-pop 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	grep -q 'e+' <<<"$output"
	want=$output
	run --separate-stderr bash -c 'cat in | "$FWIN" --csv -t 1 -k 2 --slide 30s,2s -l 1s --count --sum 3 --avg 3 --var-pop 3'
	assert_equal "$output" "$want"
}

@test "stream aggregated as read: --slide in two halves, the operator's bytes (seeds 517, 518)" {
	planned_only
	# jitter within -l: the second half's table fires its windows from
	# where the first half cannot reach, and keeps the panes the windows
	# before that need for the first half's table
	disordered 517 200000 1500 > in
	alike in --csv -t 1 -k 2 --slide 1m,5s -l 2s --count --sum 3 --avg 3 \
	    --stddev 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	# 20 keys, windows of 600 panes: the second half's table fires them
	# a few panes at a time while it holds those the first half needs
	awk -F, -v OFS=, '{ sub(/^k/, "", $2); $2 = "k" int($2 / 15); print }' in > few
	alike few --csv -t 1 -k 2 --slide 10m,1s --offset 300ms -l 2s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	# records late only by the first half's watermark: 5000 records 9
	# minutes behind across the cut (near record 103600), the second
	# half's first ones; they join the 10-minute windows still to fire
	# (a pane that the first half's table has too), and are late for
	# the 5-minute ones
	awk -F, -v OFS=, 'NR >= 100000 && NR < 105000 { $1 = sprintf("%.0f", $1 - 540000) } { print }' in > late
	alike late --csv -t 1 -k 2 --slide 10m,1m -l 2s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	alike late --csv -t 1 -k 2 --slide 5m,30s -l 2s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	assert_regex "$(tail -n 1 <<<"$stderr")" '^fwin: [0-9]+ late records dropped'
	# a first half that reaches past the second's guess (an hour ahead
	# just before the cut): one table reads it all
	awk -F, -v OFS=, 'NR == 99990 { printf "%.0f,%s,4\n", $1 + 3600000, $2 } { print }' in > ahead
	alike ahead --csv -t 1 -k 2 --slide 10m,1m -l 1s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read"
	# values with an exponent: running folds made again from their
	# panes, in either half's table
	disordered 518 100000 1000 | awk -F, 'BEGIN { OFS = "," }
		NR % 7 == 1 { $3 = $3 "e-2" } NR % 13 == 3 { $3 = "1e300" }
		NR % 13 == 4 { $3 = "-1e300" } { print }' > expo
	alike expo --csv -t 1 -k 2 --slide 30s,2s -l 1s --count --sum 3 --avg 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	grep -q 'e+' <<<"$output"
}

@test "stream aggregated as read: --cumulate, the operator's bytes, one table and two halves (seeds 511-513)" {
	planned_only
	# jitter past -l: records whose pane has fired join the windows
	# still to fire; those whose window of the size has ended are late
	disordered 511 200000 5000 > in
	alike in --csv -t 1 -k 2 --cumulate 10m,1m -l 2s --count --sum 3 --avg 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	assert_regex "$(tail -n 1 <<<"$stderr")" '^fwin: [0-9]+ late records dropped'
	waited in --csv -t 1 -k 2 --cumulate 10m,1m -l 2s --count --sum 3 --avg 3
	alike in --csv -t 1 -k 2 --cumulate 5m,10s -l 0 --count --min 3 --max 3
	assert_equal "$mode1" "mode stream, aggregated as read"
	# no key; a step that does not divide the hour evenly into the size
	alike in --csv -t 1 --cumulate 7m,90s -l 1s --count --sum 3
	# aggregates that keep blocks (first, last, min-by): one table
	alike in --csv -t 1 -k 2 --cumulate 10m,1m -l 1s --first 3 --last 3 --max-by 3:2
	assert_equal "$mode2" "mode stream, aggregated as read"
	# records late only by the first half's watermark: 5000 records 9
	# minutes behind across the cut (near record 103600), the second
	# half's first ones, whose panes the first half has fired: they
	# join its windows still to fire; and a first half that reaches
	# past the second's guess (an hour ahead just before the cut)
	awk -F, -v OFS=, 'NR >= 100000 && NR < 105000 { $1 = sprintf("%.0f", $1 - 540000) } { print }' in > late
	alike late --csv -t 1 -k 2 --cumulate 10m,1m -l 1s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	awk -F, -v OFS=, 'NR == 99990 { printf "%.0f,%s,4\n", $1 + 3600000, $2 } { print }' in > ahead
	alike ahead --csv -t 1 -k 2 --cumulate 10m,1m -l 1s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read"
	# local days by the hour across both DST changes of 2020 in Berlin
	# and Sydney (records every 2 s for three days around each: a file
	# large enough that the reading thread has not read it all before
	# the cut)
	for d in 1585443600000 1603580400000; do
		draws 130000 2 512 | awk -v d=$d '{ i = NR - 1
			printf "%.0f,k%d,%d\n", d + i * 2000 - int($1 * 8000), int($2 * 20), i % 9 }' > dst
		alike dst --csv -t 1 -k 2 --cumulate 1d,1h --tz Europe/Berlin -l 5s --count --sum 3
		assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
		alike dst --csv -t 1 -k 2 --cumulate 1d,2h --tz Australia/Sydney -l 5s --count
	done
	# months by the day
	draws 30000 2 513 | awk '{ i = NR - 1
		printf "%.0f,k%d,%d\n", 1580000000000 + i * 600000 - int($1 * 3000000), int($2 * 5), i % 4 }' > months
	alike months --csv -t 1 -k 2 --cumulate 1mo,1d -l 1h --count --sum 3
}

@test "stream aggregated as read: --cumulate keeps the table for sums with exponents and past 38 digits, the operator's bytes (seed 514)" {
	disordered 514 100000 1000 > in
	# a value with an exponent: summed exactly, grouping cannot show
	awk -F, -v OFS=, 'NR == 30000 { print $1, $2, "1e3" } { print }' in > float
	alike float --csv -t 1 -k 2 --cumulate 10m,1m -l 2s --count --sum 3
	[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$mode1" "mode stream, aggregated as read"
	[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	# plain decimals whose exact sum passes 38 digits (38 digits before
	# the point, then one with 38 after it): in the middle, in the second
	# half, and in the last window, fired at the end of input
	for at in 30000 80000 99995; do
		awk -F, -v OFS=, -v at=$at 'NR >= at && NR < at + 5 { print $1, "big", "99999999999999999999999999999999999999" }
			NR == at + 5 { print $1, "big", "0.00000000000000000000000000000000000001" } { print }' in > big
		alike big --csv -t 1 -k 2 --cumulate 10m,1m -l 2s --count --sum 3
		[ -n "${FWIN_STRATEGY:-}" ] || assert_equal "$mode1" "mode stream, aggregated as read"
		grep -q '^.*,big,6,499999999999999999999999999999999999995.00000000000000000000000000000000000001$' <<<"$output"
	done
}

@test "stream aggregated as read: the windows both halves hold, formatted on two threads when they are many, the operator's bytes" {
	planned_only
	# 400000 records of 200000 keys in one hour: the window the cut
	# falls in has about 175000 rows, merged from both halves' groups
	draws 400000 2 515 | awk '{ i = NR - 1
		printf "%.0f,k%d,%d\n", 1600000000000 + i * 5 - int($1 * 2000), int($2 * 200000), i % 13 }' > wide
	alike wide --csv -t 1 -k 2 --tumble 1h -l 1s --count --sum 3
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	[ "$(grep -c . <<<"$output")" -gt 150000 ]
	# percentiles and sketches: a table past what the cache holds, whose
	# records wait while their groups and blocks are fetched
	alike wide --csv -t 1 -k 2 --tumble 1h -l 1s --median 3 --approx-percentile 3:10,90
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
	alike wide --csv -t 1 -k 2 --tumble 1h -l 1s --approx-distinct 3 --stddev 3
	# keys longer than 8 bytes (compared beyond their prefix), JSON
	sed 's/,k/,key-number-/' wide > wide2
	alike wide2 --csv -t 1 -k 2 --tumble 1h -l 1s --count --avg 3 --output-format json
	assert_equal "$mode2" "mode stream, aggregated as read, in two halves"
}
