#!/usr/bin/env bats
# Rolling mode: no window option (fwin(1): Rolling mode).
# Every expected output below is derived by hand from fwin(1).
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr; then assert_output.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# ------------------------------------------------------ -t and -k or not

@test "rolling: without -t and -k, one row per record with the running aggregate" {
	printf 'x 1\ny 2\nz 3\n' > in
	ok in
	assert_output $'1\n2\n3'
	ok --sum 2 -c in
	assert_output $'1\t1\n3\t2\n6\t3'
}

@test "rolling: -k without -t, running aggregates per key" {
	printf 'a 1\nb 5\na 2\na 4\nb 1.5\n' > in
	ok -k 1 -c --sum 2 in
	assert_output $'a\t1\t1\nb\t1\t5\na\t2\t3\na\t3\t7\nb\t2\t6.5'
}

@test "rolling: -t without -k, the record's time leads" {
	printf '10 1\n5 2\n12 3\n' > in
	ok --mode stream -t 1 --sum 2 in
	assert_output $'10\t1\n5\t3\n12\t6'
}

@test "rolling: -t and -k, times out of order are neither late nor reordered" {
	printf '10 a 1\n5 b 2\n12 a 3\n1 a 4\n' > in
	ok -t 1 -k 2 --sum 3 -l 0 --late-file late in
	assert_output $'10\ta\t1\n5\tb\t2\n12\ta\t4\n1\ta\t8'
	[ ! -s late ]
}

@test "rolling: two key fields" {
	printf 'a x\na y\na x\nb x\n' > in
	ok -k 1,2 in
	assert_output $'a\tx\t1\na\ty\t1\na\tx\t2\nb\tx\t1'
}

# ------------------------------------------------------------- time column

@test "rolling: time printed in the input's format (auto): iso in UTC, s, ms" {
	printf '%s\n' '2026-11-29T12:37:03.125+08:00,a' '2026-11-29 05:00:00,b' > in
	ok -d , -t 1 in
	assert_output $'2026-11-29T04:37:03.125Z\t1\n2026-11-29T05:00:00Z\t2'
	printf '1700000000.25\n1700000001\n' > in
	ok -t 1 in
	assert_output $'1700000000.25\t1\n1700000001\t2'
	printf '1700000000123\n' > in
	ok -t 1 in
	assert_output $'1700000000123\t1'
}

@test "rolling: --output-time s, ms, iso" {
	printf '%s\n' '2026-11-29T12:37:03.125+08:00' > in
	ok -t 1 --output-time s in
	assert_output $'1795927023.125\t1'
	ok -t 1 --output-time ms in
	assert_output $'1795927023125\t1'
	printf '1700000000123\n' > in
	ok -t 1 --output-time iso in
	assert_output $'2023-11-14T22:13:20.123Z\t1'
	ok -t 1 --output-time s in
	assert_output $'1700000000.123\t1'
}

@test "rolling: strptime input prints iso times" {
	printf '%s\n' '29/11/2026 20:37:03' > in
	ok -d , -t 1 --time-format '%d/%m/%Y %H:%M:%S' in
	assert_output $'2026-11-29T20:37:03Z\t1'
}

# ------------------------------------------------------------- bad records

@test "rolling: a bad time is skipped, reported, and emits nothing" {
	printf '10 a\nabc a\n12 a\n' > in
	run --separate-stderr fwin -t 1 in
	assert_success
	assert_output $'10\t1\n12\t2'
	assert_equal "$stderr" $'fwin: in:2: field 1: bad time "abc"; record skipped\nfwin: 1 bad record skipped'
}

@test "rolling: a bad number and a missing key field emit nothing" {
	printf 'a 1\nb x\na 2\n\nc\na 4\n' > in
	run --separate-stderr fwin -k 1 -c --sum 2 in
	assert_success
	assert_output $'a\t1\t1\na\t2\t3\na\t3\t7'
	assert_equal "$stderr" $'fwin: in:2: field 2: not a number "x"; record skipped\nfwin: in:5: field 2: missing (record has 1 field); record skipped\nfwin: 2 bad records skipped'
}

@test "rolling: --strict stops at the first bad record, after the rows before it" {
	printf 'a 1\nb x\na 2\n' > in
	run --separate-stderr fwin -k 1 --sum 2 --strict in
	assert_failure 1
	assert_output $'a\t1'
	assert_equal "$stderr" 'fwin: in:2: field 2: not a number "x"'
}

# -------------------------------------------------------------- aggregates

@test "rolling: every aggregate, with -t" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	ok -t 1 --count --sum 3 --avg 3 --min 3 --max 3 --first 2 --last 2 --distinct 2 \
		--min-by 3 --min-by 3:4 --max-by 3 --max-by 3:2 in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		1 1 3 3 3 3 a a 1 '1 a 3 x' x '1 a 3 x' a \
		2 2 4.5 2.25 1.50 3 a b 2 '2  b 1.50 y' y '1 a 3 x' a \
		3 3 7 2.3333333333333335 1.50 3 a a 2 '2  b 1.50 y' y '1 a 3 x' a \
		4 4 17 4.25 1.50 10 a c 3 '2  b 1.50 y' y '4 c 10 w' c)"
}

@test "rolling: every aggregate, with -k and without -t" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	ok -k 2 --count --sum 3 --avg 3 --min 3 --max 3 --first 4 --last 4 --distinct 4 \
		--min-by 3 --max-by 3:4 in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		a 1 3 3 3 3 x x 1 '1 a 3 x' x \
		b 1 1.5 1.5 1.50 1.50 y y 1 '2  b 1.50 y' y \
		a 2 5.5 2.75 2.50 3 x z 2 '3 a 2.50 z' x \
		c 1 10 10 10 10 w w 1 '4 c 10 w' w)"
}

@test "rolling: NULLs are skipped; an aggregate that saw only NULLs is empty" {
	printf '1,,x\n2,5,\n3,,y\n' > in
	ok -d , -t 1 -c --sum 2 --last 3 in
	assert_output $'1\t1\t\tx\n2\t2\t5\tx\n3\t3\t5\ty'
}

# ------------------------------------------------------------------ output

@test "rolling: -H header row: time, key names, aggregate names" {
	printf 'ts user amt\n10 ann 5\n11 bob 2\n12 ann 1\n' > in
	ok -H -t ts -k user -c --sum amt in
	assert_output $'time\tuser\tcount\tsum_amt\n10\tann\t1\t5\n11\tbob\t1\t2\n12\tann\t2\t6'
	ok -H -k user --max amt in
	assert_output $'user\tmax_amt\nann\t5\nbob\t2\nann\t5'
	ok -H in
	assert_output $'count\n1\n2\n3'
}

@test "rolling: csv output with -H, a key that needs quoting" {
	printf 'ts,user,amt\n10,ann,5\n11,"b,c",2\n12,ann,1\n' > in
	ok --csv -H -t ts -k user -c --sum amt in
	assert_output $'time,user,count,sum_amt\n10,ann,1,5\n11,"b,c",1,2\n12,ann,2,6'
	ok --csv -H -k 2 --sum 3 in
	assert_output $'user,sum_amt\nann,5\n"b,c",2\nann,6'
}

@test "rolling: csv output of lines input" {
	printf '10 a"b 1\n' > in
	ok -t 1 -k 2 --sum 3 --output-format csv in
	assert_output '10,"a""b",1'
}

@test "rolling: json output: time, key names or key1.., aggregate names" {
	printf 'ts,user,amt\n10,ann,5\n11,bob,2.5\n12,ann,1\n' > in
	ok --csv -H -t ts -k user -c --sum amt --output-format json in
	assert_output '{"time":10,"user":"ann","count":1,"sum_amt":5}
{"time":11,"user":"bob","count":1,"sum_amt":2.5}
{"time":12,"user":"ann","count":2,"sum_amt":6}'
	tail -n +2 in > nohdr
	ok --csv -k 2 --avg 3 --output-format json nohdr
	assert_output '{"key1":"ann","avg_3":5}
{"key1":"bob","avg_3":2.5}
{"key1":"ann","avg_3":3}'
	ok --csv --output-format json nohdr
	assert_output '{"count":1}
{"count":2}
{"count":3}'
}

@test "rolling: json output with iso time as a string" {
	printf '2026-11-29T20:37:03Z a\n' > in
	ok -t 1 -k 2 --output-format json in
	assert_output '{"time":"2026-11-29T20:37:03Z","key1":"a","count":1}'
}
