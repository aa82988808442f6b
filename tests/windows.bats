#!/usr/bin/env bats
# Time windows, watermarks, lateness and time formats (fwin(1): TIME FORMATS, WINDOWS AND WATERMARKS).
# Every expected output below is derived by hand from fwin(1).
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr; then assert_output.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# ---------------------------------------------------------------- tumble, keys

@test "tumble: lines input, -t 1 in seconds, one key, rows in key byte order" {
	printf '1 b\n2 a\n3 B\n4 ab\n5 a\n12 a\n' > in
	# At 12, W=12 fires [0,10) for every key; keys as bytes: B < a < ab < b.
	ok -t 1 -k 2 --tumble 10s in
	assert_output $'0\t10\tB\t1\n0\t10\ta\t2\n0\t10\tab\t1\n0\t10\tb\t1\n10\t20\ta\t1'
}

@test "tumble: rows that fire together are ordered by end, then key" {
	printf '15 b\n3 c\n12 a\n7 a\n200 x\n' > in
	# -l 100: nothing fires until 200 (W=100), then [0,10) and [10,20) together.
	ok -t 1 -k 2 --tumble 10s -l 100s in
	assert_output $'0\t10\ta\t1\n0\t10\tc\t1\n10\t20\ta\t1\n10\t20\tb\t1\n200\t210\tx\t1'
}

@test "tumble: two key fields are compared field by field as bytes" {
	printf '1 a z\n2 ab a\n3 B z\n4 a b\n5 a a\n6 a z\n' > in
	ok -t 1 -k 2,3 --tumble 10s in
	assert_output $'0\t10\tB\tz\t1\n0\t10\ta\ta\t1\n0\t10\ta\tb\t1\n0\t10\ta\tz\t2\n0\t10\tab\ta\t1'
}

@test "tumble: -k repeated adds up key fields; --tumble=SIZE form" {
	printf '1 a z\n2 ab a\n3 B z\n4 a b\n5 a a\n6 a z\n' > in
	ok -t 1 -k 2 -k 3 --tumble=10s in
	assert_output $'0\t10\tB\tz\t1\n0\t10\ta\ta\t1\n0\t10\ta\tb\t1\n0\t10\ta\tz\t2\n0\t10\tab\ta\t1'
}

@test "tumble: a record at exactly the window end belongs to the next window" {
	printf '0\n9.999\n10\n19\n20\n' > in
	ok -t 1 --tumble 10s in
	assert_output $'0\t10\t2\n10\t20\t2\n20\t30\t1'
}

# ------------------------------------------------------------ seed example

@test "seed: 11 after 16 with 5s tumbling windows is counted with -l 5s" {
	printf '10 a\n12 b\n16 a\n11 a\n22 b\n' > in
	# W: 5, 7, 11; 11 is in [10,15), end 15 > W=11: kept. 22 -> W=17 fires [10,15).
	ok -t 1 --tumble 5s -l 5s --late-file late in
	assert_output $'10\t15\t3\n15\t20\t1\n20\t25\t1'
	[ ! -s late ]
}

@test "seed: 11 after 16 with 5s tumbling windows goes to --late-file with -l 0" {
	printf '10 a\n12 b\n16 a\n11   a  \n22 b\n' > in
	ok -t 1 --tumble 5s -l 0 --late-file late in
	assert_output $'10\t15\t2\n15\t20\t1\n20\t25\t1'
	# verbatim, blanks included, plus a newline
	printf '11   a  \n' > want
	cmp late want
}

@test "seed: --late-file appends to an existing file" {
	printf 'old\n' > late
	printf '10 a\n16 a\n11 a\n12 b\n' > in
	ok -t 1 --tumble 5s --late-file late in
	assert_output $'10\t15\t1\n15\t20\t1'
	assert_equal "$(cat late)" $'old\n11 a\n12 b'
}

# ----------------------------------------------------------- watermark

@test "watermark: a record at W is not late; one before an expired end is" {
	printf '5\n10\n10\n9\n' > in
	# 10 sets W=10 and fires [0,10); the second 10 (t == W) goes to [10,20);
	# 9 is in [0,10), end 10 <= W=10: expired, late.
	ok -t 1 --tumble 10s --late-file late in
	assert_output $'0\t10\t1\n10\t20\t2'
	assert_equal "$(cat late)" "9"
}

@test "watermark: with -l 2s a window fires when W reaches its end exactly" {
	printf '5\n11\n9\n12\n9\n' > in
	# W: 3, 9; 9 is in time (end 10 > W=9); 12 -> W=10 fires [0,10) with 2;
	# the last 9 sees W=10 = end: late.
	ok -t 1 --tumble 10s -l 2s --late-file late in
	assert_output $'0\t10\t2\n10\t20\t2'
	assert_equal "$(cat late)" "9"
}

@test "watermark: -l does not fire a window before W reaches its end" {
	printf '1\n11\n' > in
	# W after 11 is 9 < 10: [0,10) fires only at end of input.
	ok -t 1 --tumble 10s -l 2s --no-flush in
	assert_output ''
}

@test "watermark: W never goes back" {
	printf '1\n30\n12\n25\n' > in
	# after 30, W=30; 12 and 25 are in [10,20) and [20,30), both expired.
	ok -t 1 --tumble 10s --late-file late in
	assert_output $'0\t10\t1\n30\t40\t1'
	assert_equal "$(cat late)" $'12\n25'
}

# ---------------------------------------------------- allowed lateness

@test "allowed-lateness: a late-but-allowed record re-fires the window at once" {
	printf '1\n2\n12\n3\n14\n4\n15\n5\n' > in
	# [0,10) fires at 12 (2), again at 3 (3) and at 4 (4); at 15, W = end + A:
	# purged, so 5 is late.
	ok -t 1 --tumble 10s --allowed-lateness 5s --late-file late in
	assert_output $'0\t10\t2\n0\t10\t3\n0\t10\t4\n10\t20\t3'
	assert_equal "$(cat late)" "5"
}

@test "allowed-lateness: a window of a key that never fired fires at once" {
	printf '1 a\n12 a\n3 b\n16 a\n4 b\n' > in
	# 3 b: ([0,10), b) is new, end 10 <= W=12 but 15 > 12: added, fires at once.
	ok -t 1 -k 2 --tumble 10s --allowed-lateness 5s --late-file late in
	assert_output $'0\t10\ta\t1\n0\t10\tb\t1\n10\t20\ta\t2'
	assert_equal "$(cat late)" "4 b"
}

@test "allowed-lateness: with -l, purge once W >= end + A" {
	printf '1\n12\n5\n14\n6\n15\n7\n' > in
	# -l 2, A 3: fire at W=10 (t=12), purge at W=13 (t=15).
	ok -t 1 --tumble 10s -l 2s --allowed-lateness 3s --late-file late in
	assert_output $'0\t10\t1\n0\t10\t2\n0\t10\t3\n10\t20\t3'
	assert_equal "$(cat late)" "7"
}

@test "allowed-lateness: the re-fired row comes before rows that W fires" {
	printf '1\n12\n3\n25\n' > in
	# 3 re-fires [0,10) at once (step 3); 25 fires [10,20) (step 4) and then
	# [0,10) is purged (W=25 >= 10+5).
	ok -t 1 --tumble 10s --allowed-lateness 5s in
	assert_output $'0\t10\t1\n0\t10\t2\n10\t20\t1\n20\t30\t1'
}

# ------------------------------------------------------------- sliding

@test "slide 10s,5s: each record in two windows, rows in (end, key) order" {
	printf '1 a\n7 b\n12 a\n' > in
	# 1 -> [-5,5) [0,10); 7 -> [0,10) [5,15); 12 -> [5,15) [10,20)
	ok -t 1 -k 2 --slide 10s,5s in
	assert_output $'-5\t5\ta\t1\n0\t10\ta\t1\n0\t10\tb\t1\n5\t15\ta\t1\n5\t15\tb\t1\n10\t20\ta\t1'
}

@test "slide 15s,5s: each record in three windows" {
	printf '1\n2\n6\n11\n' > in
	ok -t 1 --slide 15s,5s in
	assert_output $'-10\t5\t2\n-5\t10\t3\n0\t15\t4\n5\t20\t2\n10\t25\t1'
}

@test "slide: a record is added only to its windows that are not expired" {
	printf '3\n16\n12\n' > in
	# 12 -> [5,15) (expired at W=16, and empty: never fires) and [10,20).
	ok -t 1 --slide 10s,5s --late-file late in
	assert_output $'-5\t5\t1\n0\t10\t1\n10\t20\t2\n15\t25\t1'
	[ ! -s late ]
}

@test "slide STEP > SIZE: records in gaps produce nothing and are not late" {
	printf '0\n1\n3\n4\n5\n8\n3\n6\n11\n' > in
	# windows [0,2) [5,7) [10,12); 3, 4, 8 and the second 3 are in gaps;
	# 6 is in [5,7), expired at W=8: late.
	run --separate-stderr fwin -t 1 --slide 2s,5s --late-file late in
	assert_success
	assert_output $'0\t2\t2\n5\t7\t1\n10\t12\t1'
	assert_equal "$(cat late)" "6"
	assert_equal "$stderr" "fwin: 4 records in no window dropped (between --slide windows whose step passes their size)"
}

@test "slide STEP > SIZE: a record in a gap still advances the watermark" {
	printf '0\n3\n1\n5\n' > in
	# 3 (gap) sets W=3, so 1 in [0,2) is late.
	run --separate-stderr fwin -t 1 --slide 2s,5s --late-file late in
	assert_success
	assert_output $'0\t2\t1\n5\t7\t1'
	assert_equal "$(cat late)" "1"
	assert_equal "$stderr" "fwin: 1 record in no window dropped (between --slide windows whose step passes their size)"
}

@test "slide with -l: out-of-order records counted in windows not yet expired" {
	printf '1\n7\n12\n4\n16\n3\n22\n' > in
	# -l 5: 4 arrives at W=7: [-5,5) expired, [0,10) open; 3 at W=11: late.
	ok -t 1 --slide 10s,5s -l 5s --late-file late in
	assert_output $'-5\t5\t1\n0\t10\t3\n5\t15\t2\n10\t20\t2\n15\t25\t2\n20\t30\t1'
	assert_equal "$(cat late)" "3"
}

@test "slide with --offset" {
	printf '1\n3\n' > in
	# STEP 5 offset 2: starts ... -3, 2; 1 -> [-8,2) [-3,7); 3 -> [-3,7) [2,12)
	ok -t 1 --slide 10s,5s --offset 2s in
	assert_output $'-8\t2\t1\n-3\t7\t2\n2\t12\t1'
}

# -------------------------------------------------------------- offset

@test "offset: --tumble 1d --offset -8h gives days of UTC+8 (iso times)" {
	printf '%s\n' '2026-11-29T15:30:00Z shop1 100' '2026-11-29T16:10:00Z shop1 40' \
		'2026-11-30T09:00:00+08:00 shop2 25' '2026-11-30T23:59:59+08:00 shop1 5' \
		'2026-12-01T00:00:00+08:00 shop1 7' > sales.txt
	ok -t 1 -k 2 --tumble 1d --offset -8h --sum 3 sales.txt
	assert_output "$(printf '%s\t%s\t%s\t%s\n' \
		2026-11-28T16:00:00Z 2026-11-29T16:00:00Z shop1 100 \
		2026-11-29T16:00:00Z 2026-11-30T16:00:00Z shop1 45 \
		2026-11-29T16:00:00Z 2026-11-30T16:00:00Z shop2 25 \
		2026-11-30T16:00:00Z 2026-12-01T16:00:00Z shop1 7)"
}

@test "offset: --tumble 10s --offset 3s with seconds" {
	printf '2\n3\n12\n13\n22\n' > in
	ok -t 1 --tumble 10s --offset 3s in
	assert_output $'-7\t3\t1\n3\t13\t2\n13\t23\t2'
}

@test "offset: negative offset, as --offset=-3s and --offset -3s" {
	printf '6\n7\n' > in
	ok -t 1 --tumble 10s --offset=-3s in
	assert_output $'-3\t7\t1\n7\t17\t1'
	ok -t 1 --tumble 10s --offset -3s in
	assert_output $'-3\t7\t1\n7\t17\t1'
}

# ------------------------------------------------------ negative times

@test "negative times: floor division puts -7 in [-10,-5) and -5, -1 in [-5,0)" {
	printf -- '-7\n-5\n-1\n' > in
	ok -t 1 --tumble 5s in
	assert_output $'-10\t-5\t1\n-5\t0\t2'
}

@test "negative times: a fractional negative second" {
	printf -- '-0.5\n-0.000000001\n0\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'-1\t0\t2\n0\t1\t1'
}

@test "negative times: iso input before 1970" {
	printf '1969-12-31T23:59:58Z\n1969-12-31T23:59:59.5Z\n1970-01-01T00:00:00Z\n' > in
	ok -t 1 --tumble 5s in
	assert_output $'1969-12-31T23:59:55Z\t1970-01-01T00:00:00Z\t2\n1970-01-01T00:00:00Z\t1970-01-01T00:00:05Z\t1'
}

@test "negative times: 1960 in a day window, in iso and in s" {
	printf '1960-01-01T12:00:00Z\n' > in
	ok -t 1 --tumble 1d in
	assert_output $'1960-01-01T00:00:00Z\t1960-01-02T00:00:00Z\t1'
	ok -t 1 --tumble 1d --output-time s in
	assert_output $'-315619200\t-315532800\t1'
}

# --------------------------------------------------------- end of input

@test "end of input: open windows fire by default" {
	printf '1\n2\n11\n' > in
	ok -t 1 --tumble 10s in
	assert_output $'0\t10\t2\n10\t20\t1'
}

@test "end of input: --flush fires open windows" {
	printf '1\n2\n11\n' > in
	ok -t 1 --tumble 10s --flush in
	assert_output $'0\t10\t2\n10\t20\t1'
}

@test "end of input: --no-flush prints only windows the watermark passed" {
	printf '1\n2\n11\n' > in
	ok -t 1 --tumble 10s --no-flush in
	assert_output $'0\t10\t2'
}

@test "end of input: --no-flush with -l and slide" {
	printf '1\n7\n16\n' > in
	# -l 5: W=11 at the end: [-5,5) and [0,10) fired; [5,15) [10,20) [15,25) not.
	ok -t 1 --slide 10s,5s -l 5s --no-flush in
	assert_output $'-5\t5\t1\n0\t10\t2'
}

@test "end of input: flushed rows are in (end, key) order" {
	printf '1 b\n7 a\n3 a\n' > in
	ok -t 1 -k 2 --slide 10s,5s -l 1m in
	assert_output $'-5\t5\ta\t1\n-5\t5\tb\t1\n0\t10\ta\t2\n0\t10\tb\t1\n5\t15\ta\t1'
}

# ---------------------------------------------------- input time formats

@test "time format s: fractions" {
	printf '1700000000.25\n1700000000.75\n1700000001.5\n' > in
	ok -t 1 --time-format s --tumble 1s in
	assert_output $'1700000000\t1700000001\t2\n1700000001\t1700000002\t1'
}

@test "time format s: nanosecond fraction and a 1ns window" {
	printf '1700000000.000000001\n' > in
	ok -t 1 --tumble 1ns in
	assert_output $'1700000000.000000001\t1700000000.000000002\t1'
}

@test "time format ms, us, ns (explicit)" {
	printf '1700000000123\n1700000000999\n1700000001000\n' > in
	ok -t 1 --time-format ms --tumble 1s in
	assert_output $'1700000000000\t1700000001000\t2\n1700000001000\t1700000002000\t1'
	printf '1700000000123456\n1700000001000000\n' > in
	ok -t 1 --time-format us --tumble 1s in
	assert_output $'1700000000000000\t1700000001000000\t1\n1700000001000000\t1700000002000000\t1'
	printf '1700000000123456789\n1700000001000000000\n' > in
	ok -t 1 --time-format ns --tumble 1s in
	assert_output $'1700000000000000000\t1700000001000000000\t1\n1700000001000000000\t1700000002000000000\t1'
}

@test "time format: explicit unit overrides magnitude (small ms values)" {
	printf '1\n999\n1000\n' > in
	ok -t 1 --time-format ms --tumble 1s in
	assert_output $'0\t1000\t2\n1000\t2000\t1'
}

@test "time format: an explicit format refuses another format's text" {
	printf '1700000000000\n2026-11-29T00:00:00Z\n5\n' > in
	# as s, 1700000000000 is beyond 2262; iso text is not s.
	run --separate-stderr fwin -t 1 --time-format s --tumble 1s in
	assert_success
	assert_output $'5\t6\t1'
	assert_equal "$stderr" $'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "1700000000000"; record skipped\nfwin: in:2: field 1: bad time "2026-11-29T00:00:00Z"; record skipped\nfwin: 2 bad records skipped'
	printf '1700000000\n2026-11-29T00:00:00Z\n' > in
	run --separate-stderr fwin -t 1 --time-format iso --tumble 1s in
	assert_success
	assert_output $'2026-11-29T00:00:00Z\t2026-11-29T00:00:01Z\t1'
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "1700000000"; record skipped\nfwin: 1 bad record skipped'
}

@test "time format auto: s below 1e11" {
	printf '1700000000\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'1700000000\t1700000001\t1'
	# 99999999999 is s, hence beyond 2262 (were it ms it would parse): bad
	printf '99999999999\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" $'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "99999999999"; record skipped\nfwin: all 1 record was bad; see the messages above'
}

@test "time format auto: ms from 1e11 to below 1e14" {
	printf '100000000000\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'100000000000\t100000001000\t1'
	printf '1700000000123\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'1700000000000\t1700000001000\t1'
	# 99999999999999 is ms, i.e. 1e11 s: out of range (as us it would parse)
	printf '99999999999999\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" $'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "99999999999999"; record skipped\nfwin: all 1 record was bad; see the messages above'
}

@test "time format auto: us from 1e14 to below 1e17" {
	printf '100000000000000\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'100000000000000\t100000001000000\t1'
	printf '1700000000123456\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'1700000000000000\t1700000001000000\t1'
	printf '99999999999999999\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" $'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "99999999999999999"; record skipped\nfwin: all 1 record was bad; see the messages above'
}

@test "time format auto: ns from 1e17" {
	printf '100000000000000000\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'100000000000000000\t100000001000000000\t1'
	printf '1700000000000000000\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'1700000000000000000\t1700000001000000000\t1'
}

@test "time format auto: negative magnitude is detected without the sign" {
	printf -- '-1700000000000\n' > in
	ok -t 1 --tumble 1s in
	assert_output $'-1700000000000\t-1699999999000\t1'
}

@test "time format auto: fixed by the first record, a later misfit is bad" {
	printf '1700000000\n1700000000500\n1700000000.5\n' > in
	# fixed to s; 1700000000500 s is beyond year 2262: bad record.
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_success
	assert_output $'1700000000\t1700000001\t2'
	assert_equal "$stderr" $'fwin: in:2: field 1: time out of range (1677-09-21 to 2262-04-11) "1700000000500"; record skipped\nfwin: 1 bad record skipped'
}

@test "time format auto: a record whose time does not parse does not fix it" {
	printf 'x\n1700000000000\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_success
	assert_output $'1700000000000\t1700000001000\t1'
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "x"; record skipped\nfwin: 1 bad record skipped'
}

@test "time format iso: Z, offsets, space separator, fractions" {
	printf '%s\n' '2026-11-29T12:37:03.125+08:00' '2026-11-29 05:00:00' \
		'2026-11-29T06:30:00.5-01:30' '2026-11-29T20:37:03Z' > in
	ok --tsv -t 1 --tumble 1s in
	assert_output "$(printf '%s\t%s\t1\n' \
		2026-11-29T04:37:03Z 2026-11-29T04:37:04Z \
		2026-11-29T05:00:00Z 2026-11-29T05:00:01Z \
		2026-11-29T08:00:00Z 2026-11-29T08:00:01Z \
		2026-11-29T20:37:03Z 2026-11-29T20:37:04Z)"
	ok --tsv -t 1 --time-format iso --tumble 1s in
	assert_output "$(printf '%s\t%s\t1\n' \
		2026-11-29T04:37:03Z 2026-11-29T04:37:04Z \
		2026-11-29T05:00:00Z 2026-11-29T05:00:01Z \
		2026-11-29T08:00:00Z 2026-11-29T08:00:01Z \
		2026-11-29T20:37:03Z 2026-11-29T20:37:04Z)"
}

@test "time format iso: date alone, lower-case t and z, +HHMM and +HH zones" {
	printf '%s\n' '2026-11-29' '2026-11-29t10:00:00z' '2026-11-29T16:00:00+0530' \
		'2026-11-29T17:00:00+05' > in
	ok -t 1 --tumble 1h in
	assert_output "$(printf '%s\t%s\t%s\n' \
		2026-11-29T00:00:00Z 2026-11-29T01:00:00Z 1 \
		2026-11-29T10:00:00Z 2026-11-29T11:00:00Z 2 \
		2026-11-29T12:00:00Z 2026-11-29T13:00:00Z 1)"
}

@test "time format strptime: '%d/%m/%Y %H:%M:%S' prints iso bounds" {
	printf '%s\n' '29/11/2026 20:37:03' '29/11/2026 20:37:59' '29/11/2026 20:38:00' > in
	ok --tsv -t 1 --time-format '%d/%m/%Y %H:%M:%S' --tumble 1m in
	assert_output $'2026-11-29T20:37:00Z\t2026-11-29T20:38:00Z\t2\n2026-11-29T20:38:00Z\t2026-11-29T20:39:00Z\t1'
	ok --tsv -t 1 --time-format '%d/%m/%Y %H:%M:%S' --tumble 1m --output-time s in
	assert_output $'1795984620\t1795984680\t2\n1795984680\t1795984740\t1'
}

# --------------------------------------------------- output time formats

@test "output time auto and s: shortest exact fraction for 0.5s windows" {
	printf '1700000000.25\n1700000000.75\n' > in
	ok -t 1 --tumble 500ms in
	assert_output $'1700000000\t1700000000.5\t1\n1700000000.5\t1700000001\t1'
	ok -t 1 --tumble 500ms --output-time s in
	assert_output $'1700000000\t1700000000.5\t1\n1700000000.5\t1700000001\t1'
	ok -t 1 --tumble 500ms --output-time auto in
	assert_output $'1700000000\t1700000000.5\t1\n1700000000.5\t1700000001\t1'
}

@test "output time s: 250ms windows print .25 and .75" {
	printf '1700000000.25\n1700000000.8\n' > in
	ok -t 1 --tumble 250ms in
	assert_output $'1700000000.25\t1700000000.5\t1\n1700000000.75\t1700000001\t1'
}

@test "output time ms, us, ns" {
	printf '1700000000.25\n1700000000.75\n' > in
	ok -t 1 --tumble 500ms --output-time ms in
	assert_output $'1700000000000\t1700000000500\t1\n1700000000500\t1700000001000\t1'
	ok -t 1 --tumble 500ms --output-time us in
	assert_output $'1700000000000000\t1700000000500000\t1\n1700000000500000\t1700000001000000\t1'
	ok -t 1 --tumble 500ms --output-time ns in
	assert_output $'1700000000000000000\t1700000000500000000\t1\n1700000000500000000\t1700000001000000000\t1'
}

@test "output time ms of a bound that is not a whole ms" {
	printf '1\n' > in
	ok -t 1 --time-format ms --tumble 1500us in
	assert_output $'0\t1.5\t1'
}

@test "output time auto (ms input) of a bound that is not a whole ms" {
	printf '1700000000001\n' > in
	# 1700000000001 ms = 1133333333334 x 1.5 ms exactly
	ok -t 1 --tumble 1500us in
	assert_output $'1700000000001\t1700000000002.5\t1'
}

@test "output time iso: fraction only when non-zero" {
	printf '1700000000.25\n1700000000.75\n' > in
	ok -t 1 --tumble 500ms --output-time iso in
	assert_output $'2023-11-14T22:13:20Z\t2023-11-14T22:13:20.500Z\t1\n2023-11-14T22:13:20.500Z\t2023-11-14T22:13:21Z\t1'
}

@test "output time iso: 3, 6 or 9 fraction digits as needed" {
	printf '2026-11-29T20:37:03.7Z\n' > in
	ok -t 1 --tumble 1ms in
	assert_output $'2026-11-29T20:37:03.700Z\t2026-11-29T20:37:03.701Z\t1'
	printf '2026-11-29T20:37:03.0003Z\n' > in
	ok -t 1 --tumble 1us in
	assert_output $'2026-11-29T20:37:03.000300Z\t2026-11-29T20:37:03.000301Z\t1'
	printf '2026-11-29T20:37:03.000000002Z\n' > in
	ok -t 1 --tumble 1ns in
	assert_output $'2026-11-29T20:37:03.000000002Z\t2026-11-29T20:37:03.000000003Z\t1'
}

@test "output time from iso input: s and ms" {
	printf '2023-11-14T22:13:20.25Z\n' > in
	ok -t 1 --tumble 500ms --output-time s in
	assert_output $'1700000000\t1700000000.5\t1'
	ok -t 1 --tumble 500ms --output-time ms in
	assert_output $'1700000000000\t1700000000500\t1'
}

@test "output time auto follows ms and us input" {
	printf '1700000000250\n' > in
	ok -t 1 --tumble 500ms in
	assert_output $'1700000000000\t1700000000500\t1'
	printf '1700000000250000\n' > in
	ok -t 1 --tumble 500ms in
	assert_output $'1700000000000000\t1700000000500000\t1'
}

# ------------------------------------------------------ processing time

@test "processing time: no -t, bounds are iso hours, counts sum to 2" {
	run --separate-stderr bash -c 'printf "a\nb\n" | "$0" --tumble 1h --count' "$FWIN"
	assert_success
	assert_equal "$stderr" ""
	local re=$'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00Z\t[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00Z\t[12]$'
	local total=0 n=0 line s e c
	while IFS= read -r line; do
		[[ $line =~ $re ]] || fail "row does not match: $line"
		IFS=$'\t' read -r s e c <<<"$line"
		assert_equal "$(($(date -u -d "$e" +%s) - $(date -u -d "$s" +%s)))" 3600
		total=$((total + c)) n=$((n + 1))
	done <<<"$output"
	assert [ "$n" -ge 1 ] && assert [ "$n" -le 2 ]
	assert_equal "$total" 2
}

# ------------------------------------------------------------ durations

@test "durations: 1h30m as a window size" {
	printf '0\n5399\n5400\n' > in
	ok -t 1 --tumble 1h30m in
	assert_output $'0\t5400\t2\n5400\t10800\t1'
}

@test "durations: terms add up in any order (30m1h, 1m30s, 90s)" {
	printf '0\n5399\n5400\n' > in
	ok -t 1 --tumble 30m1h in
	assert_output $'0\t5400\t2\n5400\t10800\t1'
	printf '0\n89\n90\n' > in
	ok -t 1 --tumble 1m30s in
	assert_output $'0\t90\t2\n90\t180\t1'
	ok -t 1 --tumble 90s in
	assert_output $'0\t90\t2\n90\t180\t1'
}

@test "durations: bare number is seconds" {
	printf '0\n89\n90\n' > in
	ok -t 1 --tumble 90 in
	assert_output $'0\t90\t2\n90\t180\t1'
}

@test "durations: 1.5s" {
	printf '0\n1.4\n1.5\n3.1\n' > in
	ok -t 1 --tumble 1.5s in
	assert_output $'0\t1.5\t2\n1.5\t3\t1\n3\t4.5\t1'
}

@test "durations: 250ms" {
	printf '0.1\n0.25\n0.6\n' > in
	ok -t 1 --tumble 250ms in
	assert_output $'0\t0.25\t1\n0.25\t0.5\t1\n0.5\t0.75\t1'
}

@test "durations: d and w (weeks start on Monday, 1969-12-29 for the epoch)" {
	printf '86399\n86400\n' > in
	ok -t 1 --tumble 1d in
	assert_output $'0\t86400\t1\n86400\t172800\t1'
	ok -t 1 --tumble 1w in
	assert_output $'-259200\t345600\t2'
	ok -t 1 --tumble 168h in
	assert_output $'0\t604800\t2'
}

@test "durations: -l and --allowed-lateness take units" {
	printf '0\n70\n30\n' > in
	ok -t 1 --tumble 1m -l 1m in
	assert_output $'0\t60\t2\n60\t120\t1'
	ok -t 1 --tumble 1m --allowed-lateness 0.5m in
	assert_output $'0\t60\t1\n0\t60\t2\n60\t120\t1'
}

# ------------------------------------------------------------ many files

@test "files: several FILEs are one stream; the watermark carries across" {
	printf '1\n12\n' > f1
	printf '5\n15\n' > f2
	ok -t 1 --tumble 10s --late-file late f1 f2
	assert_output $'0\t10\t1\n10\t20\t2'
	assert_equal "$(cat late)" "5"
}

@test "files: - reads standard input among files" {
	printf '1\n' > f1
	printf '12\n' > f2
	run --separate-stderr fwin -t 1 --tumble 10s f1 - f2 < <(printf '3\n')
	assert_success
	assert_equal "$stderr" ""
	assert_output $'0\t10\t2\n10\t20\t1'
}

@test "files: no FILE reads standard input" {
	run --separate-stderr fwin -t 1 --tumble 10s < <(printf '3\n14\n')
	assert_success
	assert_equal "$stderr" ""
	assert_output $'0\t10\t1\n10\t20\t1'
}

@test "tumble: hundreds of keys firing together are in byte order, shared prefixes and all" {
	# keys of one window: equal first 8 bytes, prefixes of each other,
	# bytes above 0x7f, lengths 1 to 20; two key fields as well
	LC_ALL=C awk 'BEGIN {
		for (i = 0; i < 400; i++) {
			k = sprintf("%c", 97 + i % 3)
			if (i % 4 == 1) k = "sameprefix" i % 17
			if (i % 4 == 2) k = sprintf("%c%c", 200 + i % 50, 65 + i % 7)
			if (i % 4 == 3) k = substr("abcdefghijklmnopqrst", 1, 1 + i % 20)
			printf "%d,%s,%s\n", i % 10, k, (i * 7) % 5
		}
		print "100,z,0"
	}' > in.csv
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s in.csv
	assert_success
	head -n -1 <<<"$output" | cut -d, -f3 > got
	cut -d, -f2 in.csv | head -n -1 | LC_ALL=C sort -u > want
	[ "$(wc -l < want)" -gt 64 ]
	cmp want got
	run --separate-stderr fwin --csv -t 1 -k 2,3 --tumble 10s in.csv
	assert_success
	head -n -1 <<<"$output" | cut -d, -f3,4 > got
	# field by field: the first field's bytes, then the second's
	cut -d, -f2,3 in.csv | head -n -1 | LC_ALL=C sort -t, -k1,1 -k2,2 -u > want
	cmp want got
}

@test "out of order within -l: a record far back in its key's windows finds its pane (shuffled = sorted)" {
	# 3000 records over 600 hours, 3 keys; every key holds hundreds of
	# open panes, so a record's pane is found through the pane index
	draws 3000 2 7 | awk '{
		printf "%d,k%d,%d\n", 1700000000 + int($1 * 600 * 3600),
		    (NR - 1) % 3, int($2 * 100) }' > sorted.csv
	sort -t, -k1,1n -s sorted.csv -o sorted.csv
	draws 3000 1 8 | paste - sorted.csv | sort -k1,1 | cut -f2- > shuffled.csv
	for w in "--tumble 1h" "--slide 3h,1h"; do
		run --separate-stderr fwin --csv -t 1 -k 2 $w -l 30d --count --sum 3 --first 3 sorted.csv
		assert_success
		want=$output
		[ "$(wc -l <<<"$want")" -gt 500 ]
		run --separate-stderr fwin --csv -t 1 -k 2 $w -l 30d --count --sum 3 --first 3 shuffled.csv
		assert_success
		assert_equal "$stderr" ""
		# first differs: it is the first to arrive, not the earliest
		assert_equal "$(cut -d, -f1-5 <<<"$output")" "$(cut -d, -f1-5 <<<"$want")"
	done
}
