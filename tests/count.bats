#!/usr/bin/env bats
# Count windows: --count-window N[,SLIDE] (fwin(1): Count windows).
# Every expected output below is derived by hand from fwin(1).
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr; then assert_output.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# keys a, b, c interleaved: a has 7 records, b 4, c 3.
mkinput() {
	printf '%s\n' 'a 1' 'b 10' 'c 100' 'a 2' 'a 3' 'b 20' 'c 200' 'a 4' 'b 30' \
		'a 5' 'c 300' 'a 6' 'b 40' 'a 7' > in
}

# ------------------------------------------------------------ tumbling N

@test "count N: fires at every N-th record of each key, keys interleaved" {
	mkinput
	# a fires at a3 (1+2+3) and a6 (4+5+6); b at b30; c at c300.
	ok -k 1 --count-window 3 -c --sum 2 in
	assert_output $'a\t3\t6\nb\t3\t60\nc\t3\t600\na\t3\t15'
}

@test "count N: the default aggregate is count; rows have no time columns" {
	printf 'x\ny\nz\nw\nv\n' > in
	ok --count-window 2 in
	assert_output $'2\n2'
}

@test "count N: a partial window does not fire at end of input by default" {
	mkinput
	ok -k 1 --count-window 3 -c --sum 2 --no-flush in
	assert_output $'a\t3\t6\nb\t3\t60\nc\t3\t600\na\t3\t15'
}

@test "count N: --flush fires each partial window once, in key order" {
	mkinput
	# a holds a7, b holds b40; c has nothing unfired: no row.
	ok -k 1 --count-window 3 -c --sum 2 --flush in
	assert_output $'a\t3\t6\nb\t3\t60\nc\t3\t600\na\t3\t15\na\t1\t7\nb\t1\t40'
}

@test "count N: --flush with keys that arrived in reverse byte order" {
	printf '%s\n' 'b 1' 'B 2' 'ab 3' 'a 4' > in
	ok -k 1 --count-window 5 --sum 2 --flush in
	assert_output $'B\t2\na\t4\nab\t3\nb\t1'
}

@test "count N: time options have no effect" {
	printf '50 a\n1 a\n2 b\n99 a\n3 a\n' > in
	ok -t 1 -l 5s --allowed-lateness 1s --offset 3s --late-file late -k 2 \
		--count-window 2 --first 1 --last 1 in
	assert_output $'a\t50\t1\na\t99\t3'
	[ ! -s late ]
}

# ------------------------------------------------------------ sliding N,SLIDE

@test "count N,SLIDE: 4,2 fires at every 2nd record over the last min(seen, 4)" {
	mkinput
	# a: a2 {1,2}, a4 {1..4}, a6 {3..6}; b: b20 {10,20}, b40 {10..40};
	# c: c200 {100,200}. Rows in arrival order of the firing records.
	ok -k 1 --count-window 4,2 -c --sum 2 --first 2 --last 2 in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\n' a 2 3 1 2  b 2 30 10 20  c 2 300 100 200 \
		a 4 10 1 4  a 4 18 3 6  b 4 100 10 40)"
}

@test "count N,SLIDE: --count-window=4,2 form" {
	mkinput
	ok -k 1 --count-window=4,2 --sum 2 in
	assert_output $'a\t3\nb\t30\nc\t300\na\t10\na\t18\nb\t100'
}

@test "count N,SLIDE: --flush fires the window that would fire next, as far as it got" {
	mkinput
	# a after 7: the next window (at a8) holds a5..a8; so far a5..a7.
	# b: 4 records, fired at b40: nothing unfired. c after 3: next window
	# (at c4) holds c1..c4; so far c1..c3.
	ok -k 1 --count-window 4,2 -c --sum 2 --first 2 --last 2 --flush in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\n' a 2 3 1 2  b 2 30 10 20  c 2 300 100 200 \
		a 4 10 1 4  a 4 18 3 6  b 4 100 10 40  a 3 18 5 7  c 3 600 100 300)"
}

@test "count N,SLIDE: no partial window at end of input without --flush" {
	printf 'a\na\na\n' > in
	ok --count-window 4,2 in
	assert_output '2'
}

@test "count N,SLIDE: 3,1 fires at every record, every aggregate" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	ok --count-window 3,1 --count --sum 3 --avg 3 --min 3 --max 3 --first 2 \
		--last 2 --distinct 2 --min-by 3 --min-by 3:4 --max-by 3 --max-by 3:2 in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		1 3 3 3 3 a a 1 '1 a 3 x' x '1 a 3 x' a \
		2 4.5 2.25 1.50 3 a b 2 '2  b 1.50 y' y '1 a 3 x' a \
		3 7 2.3333333333333335 1.50 3 a a 2 '2  b 1.50 y' y '1 a 3 x' a \
		3 14 4.666666666666667 1.50 10 b c 3 '2  b 1.50 y' y '4 c 10 w' c)"
}

@test "count N,SLIDE: integer sum of each window, not of the history" {
	printf '9223372036854775807\n1\n-1\n2\n' > in
	# 2,1: {r1}, {r1,r2} = 2^63 (exact past int64); {r2,r3} = 0; {r3,r4} = 1.
	ok --count-window 2,1 --sum 1 in
	assert_output $'9223372036854775807\n9223372036854775808\n0\n1'
}

@test "count N: every aggregate" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	ok --count-window 4 --count --sum 3 --avg 3 --min 3 --max 3 --first 2 \
		--last 2 --distinct 2 --min-by 3 --min-by 3:4 --max-by 3 --max-by 3:2 in
	assert_output $'4\t17\t4.25\t1.50\t10\ta\tc\t3\t2  b 1.50 y\ty\t4 c 10 w\tc'
}

@test "count N,SLIDE: SLIDE > N leaves records in gaps" {
	printf '%s\n' 'a 1' 'b 10' 'a 2' 'a 3' 'b 20' 'a 4' 'a 5' 'c 100' 'a 6' 'a 7' 'a 8' > in
	# 2,3: fires at every 3rd record over the last 2. a: a3 {2,3}, a6 {5,6};
	# a1, a4, a7 are in no window.
	ok -k 1 --count-window 2,3 -c --sum 2 in
	assert_output $'a\t2\t5\na\t2\t11'
}

@test "count N,SLIDE: SLIDE > N with --flush" {
	printf '%s\n' 'a 1' 'b 10' 'a 2' 'a 3' 'b 20' 'a 4' 'a 5' 'c 100' 'a 6' 'a 7' 'a 8' \
		'd 1' 'd 2' 'd 3' 'd 4' > in
	# at the end: a's next window (a8, a9) holds a8; b's (b2, b3) holds b20;
	# c's (c2, c3) holds nothing; d's (d5, d6) holds nothing (d4 is in a gap):
	# a window with no records never fires.
	ok -k 1 --count-window 2,3 -c --sum 2 --flush in
	assert_output $'a\t2\t5\na\t2\t11\nd\t2\t5\na\t1\t8\nb\t1\t20'
}

@test "count N,SLIDE: SLIDE > N, --flush when the next window holds nothing yet" {
	printf 'a 1\n' > in
	# 2,3: the next window (a2, a3) holds nothing: no row (fwin(1): a window with no records never fires).
	ok -k 1 --count-window 2,3 -c --sum 2 --flush in
	assert_output ''
}

@test "count N,SLIDE: SLIDE = N is the same as N" {
	mkinput
	ok -k 1 --count-window 3,3 -c --sum 2 in
	assert_output $'a\t3\t6\nb\t3\t60\nc\t3\t600\na\t3\t15'
}

# --------------------------------------------------------------- output

@test "count: -H header has no window_start/window_end" {
	printf 'user amt\nann 5\nbob 1\nann 2\n' > in
	ok -H -k user --count-window 2 -c --sum amt in
	assert_output $'user\tcount\tsum_amt\nann\t2\t7'
}

@test "count: csv output with -H, and without keys" {
	printf 'user,amt\nann,5\nbob,1\nann,2\n"x,y",3\n' > in
	ok --csv -H -k user --count-window 2 -c --sum amt --flush in
	assert_output $'user,count,sum_amt\nann,2,7\nbob,1,1\n"x,y",1,3'
	ok --csv -H --count-window 2 -c --max amt in
	assert_output $'count,max_amt\n2,5\n2,3'
}

@test "count: json output, with -H and without" {
	printf 'user,amt\nann,5\nbob,1\nann,2\n' > in
	ok --csv -H -k user --count-window 2 -c --sum amt --output-format json in
	assert_output '{"user":"ann","count":2,"sum_amt":7}'
	tail -n +2 in > nohdr
	ok --csv -k 1 --count-window 2 -c --avg 2 --flush --output-format json nohdr
	assert_output '{"key1":"ann","count":2,"avg_2":3.5}
{"key1":"bob","count":1,"avg_2":1}'
	ok --csv --count-window 3 --output-format json nohdr
	assert_output '{"count":3}'
}

@test "count: tsv output of csv input" {
	printf 'ann,5\nann,2\n' > in
	ok --csv -k 1 --count-window 2 --sum 2 --output-format tsv in
	assert_output $'ann\t7'
}
