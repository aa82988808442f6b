#!/usr/bin/env bats
# Aggregates, NULLs, number printing and column names (fwin(1): AGGREGATES, OUTPUT).
# Every expected output below is derived by hand from fwin(1).
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr; then assert_output.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# ------------------------------------------------------- every aggregate

@test "every aggregate, columns in the order given" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	# sum 3+1.50+2.50+10 is floating (not all integers): 17.
	ok -t 1 --tumble 10s --count --sum 3 --avg 3 --min 3 --max 3 --first 2 \
		--last 2 --distinct 2 --min-by 3 --min-by 3:4 --max-by 3 --max-by 3:2 in
	assert_output $'0\t10\t4\t17\t4.25\t1.50\t10\ta\tc\t3\t2  b 1.50 y\ty\t4 c 10 w\tc'
}

@test "aggregates in another order, -c, and repeated" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	ok -t 1 --tumble 10s --max 3 -c --sum 3 --count --last 4 --first 4 in
	assert_output $'0\t10\t10\t4\t17\t4\tw\tx'
}

@test "long options take --opt=VALUE" {
	printf '1 a 3 x\n2  b 1.50 y\n3 a 2.50 z\n4 c 10 w\n' > in
	ok -t 1 --tumble=10s --sum=3 --min-by=3:4 --max-by=3:2 in
	assert_output $'0\t10\t17\ty\tc'
}

@test "default aggregate is --count" {
	printf '1 a\n2 b\n3 a\n11 a\n' > in
	ok -t 1 -k 2 --tumble 10s in
	assert_output $'0\t10\ta\t2\n0\t10\tb\t1\n10\t20\ta\t1'
}

# -------------------------------------------------------------- NULLs

@test "NULL: empty fields with -d , are skipped by every aggregate but count" {
	printf '1,,x\n2,5,\n3,,\n4,7,\n' > in
	ok -d , -t 1 --tumble 10s --count --sum 2 --avg 2 --min 2 --max 2 --first 3 \
		--last 3 --distinct 2 --min-by 2:1 --max-by 2 in
	assert_output $'0\t10\t4\t12\t6\t5\t7\tx\tx\t2\t2\t4,7,'
}

@test "NULL: empty csv fields, quoted or not, are skipped" {
	printf '1,,a\n2,4,\n3,"",b\n' > in
	ok --csv -t 1 --tumble 10s --count --sum 2 --first 3 --last 3 in
	assert_output '0,10,3,4,a,b'
}

@test "NULL: an aggregate that saw only NULLs prints an empty cell" {
	printf '1,\n2,\n' > in
	ok -d , -t 1 --tumble 10s --count --sum 2 --avg 2 --min 2 --max 2 --first 2 \
		--last 2 --min-by 2 --max-by 2:1 in
	assert_output $'0\t10\t2\t\t\t\t\t\t\t\t'
}

@test "NULL: only NULLs in one key's window, values in another's" {
	printf '1,a,\n2,b,3\n3,a,\n' > in
	ok -d , -t 1 -k 2 --tumble 10s --sum 3 --count in
	assert_output $'0\t10\ta\t\t2\n0\t10\tb\t3\t1'
}

@test "NULL: --distinct that saw only NULLs prints 0, a count" {
	printf '1,\n2,\n' > in
	ok -d , -t 1 --tumble 10s --distinct 2 in
	assert_output $'0\t10\t0'
}

@test "NULL: only NULLs print null in json" {
	printf '1,\n2,\n' > in
	ok -d , -t 1 --tumble 10s --count --sum 2 --avg 2 --min 2 --max 2 --first 2 \
		--last 2 --min-by 2 --max-by 2:1 --output-format json in
	assert_output '{"window_start":0,"window_end":10,"count":2,"sum_2":null,"avg_2":null,"min_2":null,"max_2":null,"first_2":null,"last_2":null,"min_by_2":null,"max_by_2":null}'
}

@test "NULL: csv output of an empty cell" {
	printf '1,,a\n' > in
	ok --csv -t 1 --tumble 10s --sum 2 --count --min 2 in
	assert_output '0,10,,1,'
}

# ----------------------------------------------------------------- sum

@test "sum: plain decimals are exact, past int64 too" {
	printf '%s\n' '1 a 1' '1 a 2' '1 b 1' '1 b 2.5' '1 c 0.1' '1 c 0.2' \
		'1 d 9223372036854775807' '1 d 1' '1 e -9223372036854775808' \
		'1 f 9223372036854775806' '1 f 1' '1 g -9223372036854775808' '1 g -1' \
		'1 h 9223372036854775808' '1 i 5' '1 i -3' '1 j 2.0' '1 j 1' > in
	# exact decimal sums: 0.1 + 0.2 is 0.3; 2^63 - 1 + 1 is 2^63; 2.0 + 1 is 3
	ok -t 1 -k 2 --tumble 10s --sum 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 3 b 3.5 c 0.3 \
		d 9223372036854775808 e -9223372036854775808 f 9223372036854775807 \
		g -9223372036854775809 h 9223372036854775808 i 2 j 3)"
}

@test "sum: numbers with sign, exponent and leading point" {
	printf '%s\n' '1 a +3' '1 a .5' '1 b 1e3' '1 b -1' '1 c 1e21' '1 d 0.00001' > in
	# an exponent makes the sum floating (b, c); 0.00001 alone is exact (d)
	ok -t 1 -k 2 --tumble 10s --sum 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 3.5 b 999 c 1e+21 d 0.00001)"
}

@test "sum: a value that is not a number makes the record bad" {
	printf '1 a 5\n2 a x\n3 a 2\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --count --sum 3 in
	assert_success
	assert_output $'0\t10\ta\t2\t7'
	assert_equal "$stderr" $'fwin: in:2: field 3: not a number "x"; record skipped\nfwin: 1 bad record skipped'
}

@test "values read on the common path and the long one give the same bytes" {
	# without an --if, numbers and texts are read as the record is
	# parsed; one --if sends every value the long way
	printf '%s\n' 1,a,+3 1,a,.5 2,a,1e3 2,b,-1 3,b, 3,b,x 3,b 4,b,7 \
		4,c,2.50 5,c,-0 5,a,12345678901 > in
	local -a args=(--csv -t 1 -k 2 --tumble 10s --min 3 --max 3
		--approx-distinct 3 --first 3 --last 3 --sum 3
		--approx-percentile 3:50 --stddev 3)
	run --separate-stderr fwin "${args[@]}" in
	assert_success
	assert_output "0,10,a,.5,12345678901,4,+3,12345678901,12345679904.5,499.213226616043,6172839283.250018
0,10,b,-1,7,2,-1,7,6,3,5.656854249492381
0,10,c,-0,2.50,2,2.50,-0,2.5,1.25,1.7677669529663689"
	printf '%s\n' "$output" > quick.csv
	printf '%s\n' "$stderr" > quick.err
	run --separate-stderr fwin "${args[@]}" --count --if '1 == 1' in
	assert_success
	printf '%s\n' "$output" | cut -d, -f1-11 | cmp quick.csv -
	printf '%s\n' "$stderr" | cmp quick.err -
	assert_equal "$(cat quick.err)" 'fwin: in:6: field 3: not a number "x"; record skipped
fwin: in:7: field 3: missing (record has 2 fields); record skipped
fwin: 2 bad records skipped'
}

# ----------------------------------------------------------------- avg

@test "avg: shortest floating form" {
	printf '%s\n' '1 a 1' '1 a 2' '1 b 2' '1 b 2' '1 c 1' '1 c 2' '1 c 2' \
		'1 d 0.1' '1 d 0.2' '1 e 9223372036854775807' '1 e 9223372036854775807' \
		'1 f -1' '1 f -2' > in
	# d: the exact sum 0.3 divided by 2, rounded once: 0.15
	ok -t 1 -k 2 --tumble 10s --avg 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 1.5 b 2 c 1.6666666666666667 \
		d 0.15 e 9.223372036854776e+18 f -1.5)"
}

@test "avg: plain decimal for exponents -4..15, else exponent form" {
	printf '%s\n' '1 a 1e16' '1 b 1000000000000000' '1 c 0.0001' '1 d 0.00001' \
		'1 e 1e21' '1 f 0.1' '1 g -2.5' > in
	ok -t 1 -k 2 --tumble 10s --avg 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 1e+16 b 1000000000000000 c 0.0001 \
		d 1e-05 e 1e+21 f 0.1 g -2.5)"
}

# ------------------------------------------------------------- min, max

@test "min/max: compared as numbers, printed as written, first kept on ties" {
	printf '%s\n' '1 a 2.50' '1 a 10' '1 a 9' '1 b 1e3' '1 b 999' '1 b -3' \
		'1 c 2' '1 c 2.0' '1 d 2.0' '1 d 2' '1 e +3' '1 e .5' > in
	ok -t 1 -k 2 --tumble 10s --min 3 --max 3 in
	assert_output "$(printf '0\t10\t%s\t%s\t%s\n' a 2.50 10 b -3 1e3 c 2 2 \
		d 2.0 2.0 e .5 +3)"
}

@test "min/max: values of one double compared exactly, in either order, stream and batch" {
	# 1700000000000000001 < 1700000000000000100 and 0.1 <
	# 0.1000000000000000000001, though each pair rounds to one double;
	# 0.10 and 1e-1 are equal, so the first to arrive is kept
	printf '1700000000000000100\n1700000000000000001\n' > big
	printf '1700000000000000001\n1700000000000000100\n' > big2
	for f in big big2; do
		ok --min 1 --max 1 --count-window 2 < $f
		assert_output $'1700000000000000001\t1700000000000000100'
		for mode in stream batch; do
			for n in 1 2; do
				ok --threads $n --mode $mode -t 1 --min 1 --max 1 --tumble 1s $f
				assert_output $'1700000000000000000\t1700000001000000000\t1700000000000000001\t1700000000000000100'
			done
		done
	done
	printf '0.1000000000000000000001\n0.1\n' > small
	printf '0.1\n0.1000000000000000000001\n' > small2
	for f in small small2; do
		ok --min 1 --max 1 --count-window 2 < $f
		assert_output $'0.1\t0.1000000000000000000001'
	done
	printf '%s\n' '1 a 0.10' '2 a 1e-1' '3 a 100000000000000000000000001e-27' \
		'4 b -1700000000000000001' '5 b -1700000000000000100' '6 b -17e17' > in
	for mode in stream batch; do
		for n in 1 2; do
			ok --threads $n --mode $mode -t 1 -k 2 --tumble 10s --min 3 --max 3 in
			assert_output "$(printf '0\t10\t%s\t%s\t%s\n' a 0.10 100000000000000000000000001e-27 \
				b -1700000000000000100 -17e17)"
		done
	done
}

@test "min/max: values of one double compared exactly across slide panes, folds and merged sessions" {
	printf '1 a 1700000000000000100\n6 b 1700000000000000001\n' > in
	ok -t 1 --slide 10s,5s --min 3 --max 3 in
	assert_output $'-5\t5\t1700000000000000100\t1700000000000000100\n0\t10\t1700000000000000001\t1700000000000000100\n5\t15\t1700000000000000001\t1700000000000000001'
	# panes of 1 s: a window's kept fold
	ok -t 1 --slide 10s,1s --min 3 --max 3 in
	assert_equal "$(grep -c $'\t1700000000000000001\t1700000000000000100$' <<< "$output")" 5
	# sessions at 1 and 5 joined by the record at 3
	printf '5 a 1700000000000000001\n1 b 1700000000000000100\n3 c 1700000000000000100\n' > in
	ok -t 1 --session 3s -l 10s --min 3 --max 3 in
	assert_output $'1\t8\t1700000000000000001\t1700000000000000100'
}

@test "min/max in json: numbers when valid JSON, else strings" {
	printf '%s\n' '1 a 2.50' '1 a 10' '1 e +3' '1 e .5' > in
	ok -t 1 -k 2 --tumble 10s --min 3 --max 3 --output-format json in
	assert_output '{"window_start":0,"window_end":10,"key1":"a","min_3":2.50,"max_3":10}
{"window_start":0,"window_end":10,"key1":"e","min_3":".5","max_3":"+3"}'
}

# ----------------------------------------------------- min-by, max-by

@test "min-by/max-by: first record on ties; without OUT the record as read" {
	printf '1 a 5\n2 b 5\n  3   c  1  \n4 d 1\n' > in
	ok -t 1 --tumble 10s --min-by 3:2 --max-by 3:2 --min-by 3 --max-by 3 in
	assert_output $'0\t10\tc\ta\t  3   c  1  \t1 a 5'
}

@test "min-by/max-by: compared as numbers" {
	printf '1 a 9\n2 b 10\n3 c 1e1\n4 d -20\n' > in
	ok -t 1 --tumble 10s --min-by 3:2 --max-by 3:2 in
	assert_output $'0\t10\td\tb'
}

@test "min-by/max-by: values of one double compared exactly, in either order, stream and batch" {
	printf '5 x 0.1000000000000000000001\n5 y 0.1\n' > in
	printf '5 y 0.1\n5 x 0.1000000000000000000001\n' > in2
	for f in in in2; do
		ok -t 1 --min-by 3:2 --max-by 3:2 --count-window 2 < $f
		assert_output $'y\tx'
		for mode in stream batch; do
			for n in 1 2; do
				ok --threads $n --mode $mode -t 1 --time-format s --tumble 10s \
					--min-by 3:2 --max-by 3:2 --min-by 3 --max-by 3 $f
				assert_output $'0\t10\ty\tx\t5 y 0.1\t5 x 0.1000000000000000000001'
			done
		done
	done
	# equal values: the first record to arrive
	printf '1 a 0.10\n2 b 1e-1\n3 c 1700000000000000100\n4 d 1700000000000000001\n' > eq
	ok -t 1 --tumble 10s --min-by 3:2 --max-by 3:2 --min-by 3 eq
	assert_output $'0\t10\ta\tc\t1 a 0.10'
}

@test "min-by/max-by: values of one double compared exactly across slide panes, merged sessions and a checkpoint" {
	printf '1 a 1700000000000000100\n6 b 1700000000000000001\n' > in
	ok -t 1 --slide 10s,5s --min-by 3:2 --max-by 3:2 in
	assert_output $'-5\t5\ta\ta\n0\t10\tb\ta\n5\t15\tb\tb'
	ok -t 1 --slide 10s,1s --min-by 3:2 --max-by 3:2 in
	assert_equal "$(grep -c $'\tb\ta$' <<< "$output")" 5
	printf '5 a 1700000000000000001\n1 b 1700000000000000100\n3 c 1700000000000000100\n' > se
	ok -t 1 --session 3s -l 10s --min-by 3:2 --max-by 3:2 --min-by 3 se
	assert_output $'1\t8\ta\tb\t5 a 1700000000000000001'
	# the value compared is kept in the checkpoint
	printf '1 a 1700000000000000100\n' > growing
	ok -t 1 --tumble 10s --min-by 3:2 --max-by 3:2 --state s.ckpt growing
	assert_output ""
	printf '2 b 1700000000000000001\n3 c 1700000000000000100\n' >> growing
	ok -t 1 --tumble 10s --min-by 3:2 --max-by 3:2 --state s.ckpt --flush growing
	assert_output $'0\t10\tb\ta'
}

@test "min-by without OUT on csv input: the record as read, quoted in csv" {
	printf '1,"a b",5\n2,"x,y",1\n' > in
	ok --csv -t 1 --tumble 10s --min-by 3 --min-by 3:2 --max-by 3 in
	assert_output '0,10,"2,""x,y"",1","x,y","1,""a b"",5"'
}

# ------------------------------------------------ merging slide panes

@test "first/last/min-by/max-by/min by arrival order across slide panes" {
	printf '7 a 1 2.0\n2 b 1 2\n12 c 0 5\n4 d 1 3\n' > in
	ok -t 1 --slide 10s,5s -l 10s --first 2 --last 2 --min-by 3:2 --max-by 3:2 --min 4 in
	assert_output $'-5\t5\tb\td\tb\tb\t2\n0\t10\ta\td\ta\ta\t2.0\n5\t15\ta\tc\tc\ta\t2.0\n10\t20\tc\tc\tc\tc\t5'
}

@test "count/sum/avg/distinct/max merge across slide panes" {
	printf '1 x 1\n6 x 2.5\n6 y 2\n' > in
	ok -t 1 --slide 10s,5s --count --sum 3 --avg 3 --distinct 2 --max 3 in
	assert_output $'-5\t5\t1\t1\t1\t1\t1\n0\t10\t3\t5.5\t1.8333333333333333\t2\t2.5\n5\t15\t2\t4.5\t2.25\t2\t2.5'
}

@test "integer sum past int64 only when slide panes merge stays exact" {
	printf '1 9223372036854775807\n6 1\n' > in
	ok -t 1 --slide 10s,5s --sum 2 in
	assert_output $'-5\t5\t9223372036854775807\n0\t10\t9223372036854775808\n5\t15\t1'
}

# ------------------------------------------------------------ distinct

@test "distinct: counts distinct bytes (1 and 1.0 differ)" {
	printf '1 1\n2 1.0\n3 1\n4 a\n5 01\n' > in
	ok -t 1 --tumble 10s --distinct 2 in
	assert_output $'0\t10\t4'
}

# -------------------------------------------------------------- names

@test "header names with -H, fields by name" {
	printf 'ts user amt\n1 ann 5\n2 bob 2.5\n3 ann 1\n' > in
	ok -H -t ts -k user --tumble 10s --count --sum amt --avg amt --min amt --max amt \
		--first amt --last amt --distinct amt --min-by amt --max-by amt:user in
	assert_output "$(printf '%s\t' window_start window_end user count sum_amt avg_amt \
		min_amt max_amt first_amt last_amt distinct_amt min_by_amt; echo max_by_amt
	printf '0\t10\tann\t2\t6\t3\t1\t5\t5\t1\t2\t3 ann 1\tann\n'
	printf '0\t10\tbob\t1\t2.5\t2.5\t2.5\t2.5\t2.5\t2.5\t1\t2 bob 2.5\tbob')"
}

@test "header names with -H, fields by number: still the header's names" {
	printf 'ts user amt\n1 ann 5\n2 bob 2.5\n3 ann 1\n' > in
	ok -H -t 1 -k 2 --tumble 10s --count --sum 3 --avg 3 --min 3 --max 3 \
		--first 3 --last 3 --distinct 3 --min-by 3 --max-by 3:2 in
	assert_output "$(printf '%s\t' window_start window_end user count sum_amt avg_amt \
		min_amt max_amt first_amt last_amt distinct_amt min_by_amt; echo max_by_amt
	printf '0\t10\tann\t2\t6\t3\t1\t5\t5\t1\t2\t3 ann 1\tann\n'
	printf '0\t10\tbob\t1\t2.5\t2.5\t2.5\t2.5\t2.5\t2.5\t1\t2 bob 2.5\tbob')"
}

@test "csv -H: -k by name and by number give the same output" {
	printf 'ts,user,amt\n1,ann,5\n2,bob,3\n' > in
	ok --csv -H -t ts -k user --sum amt --tumble 10s in
	assert_output $'window_start,window_end,user,sum_amt\n0,10,ann,5\n0,10,bob,3'
	ok --csv -H -t 1 -k 2 --sum 3 --tumble 10s in
	assert_output $'window_start,window_end,user,sum_amt\n0,10,ann,5\n0,10,bob,3'
}

@test "-H with two key fields by name and number" {
	printf 'ts user host\n1 ann h1\n2 ann h2\n3 ann h1\n' > in
	ok -H -t ts -k user,3 --tumble 10s in
	assert_output $'window_start\twindow_end\tuser\thost\tcount\n0\t10\tann\th1\t2\n0\t10\tann\th2\t1'
}

@test "without -H: no header row; json names key1.. and aggregates by number" {
	printf '1 a 5 x\n2 a 2 x\n' > in
	ok -t 1 -k 2,4 --tumble 10s --count --sum 3 --min-by 3:4 --max-by 3 in
	assert_output $'0\t10\ta\tx\t2\t7\tx\t1 a 5 x'
	ok -t 1 -k 2,4 --tumble 10s --count --sum 3 --min-by 3:4 --max-by 3 --output-format json in
	assert_output '{"window_start":0,"window_end":10,"key1":"a","key2":"x","count":2,"sum_3":7,"min_by_3":"x","max_by_3":"1 a 5 x"}'
}

@test "json with -H: no header row, keys are the header names" {
	printf 'ts user amt\n1 ann 5\n3 ann 1\n' > in
	ok -H -t ts -k user --tumble 10s --count --avg amt --output-format json in
	assert_output '{"window_start":0,"window_end":10,"user":"ann","count":2,"avg_amt":3}'
}
