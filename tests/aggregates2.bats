#!/usr/bin/env bats
# The aggregates of fwin(1) AGGREGATES beyond the first ten: exact decimal
# sums, --stddev/--var (sample and population), --median, --percentile,
# --approx-percentile, --approx-distinct, and counts that are never empty.
# Expected values are derived by hand in the comments (percentiles by R
# type 7: h = (n - 1) P / 100, x[floor h] + (h - floor h) (x[floor h + 1] -
# x[floor h]), ranks from 0 in ascending order), or computed by awk in the
# test from the same records.
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# ------------------------------------------------------------ exact sums

@test "sum: plain decimals are exact, trailing zeros dropped" {
	# a: 1.11 + 2.22 + 2.22 + 5.55 = 11.10 -> 11.1 (a double sum gives
	# 11.100000000000001); b: 0.1 + 0.2 = 0.3; c: 2.50 + 0.50 = 3.00 -> 3;
	# d: -0.1 + 0.1 = 0 (never -0); e: integers and decimals, 1 + 2.5 - 3 =
	# 0.5; f: -1.25 - 0.75 = -2
	printf '%s\n' '1 a 1.11' '1 a 2.22' '1 a 2.22' '1 a 5.55' '1 b 0.1' '1 b 0.2' \
		'1 c 2.50' '1 c 0.50' '1 d -0.1' '1 d 0.1' '1 e 1' '1 e 2.5' '1 e -3' \
		'1 f -1.25' '1 f -0.75' > in
	ok -t 1 -k 2 --tumble 10s --sum 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 11.1 b 0.3 c 3 d 0 e 0.5 f -2)"
}

@test "sum: exact past 38 digits; an exponent gives the double of the exact sum" {
	# a: 10^36 + 0.5, 38 digits; b: (10^38 - 1) + 1 = 10^38, 39 digits,
	# exact; c: an exponent, 1e3 + 0.5 = 1000.5 as a double; d: 0.1 +
	# 2e-1, exactly 0.3 (never the double sum 0.30000000000000004); e: a
	# value of 39 significant digits is read as its double
	printf '%s\n' '1 a 1000000000000000000000000000000000000' '1 a 0.5' \
		'1 b 99999999999999999999999999999999999999' '1 b 1' \
		'1 c 1e3' '1 c 0.5' '1 d 0.1' '1 d 2e-1' \
		'1 e 123456789012345678901234567890123456789' '1 e 1' > in
	ok -t 1 -k 2 --tumble 10s --sum 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 1000000000000000000000000000000000000.5 \
		b 100000000000000000000000000000000000000 c 1000.5 d 0.3 \
		e 1.2345678901234568e+38)"
}

@test "avg: the exact sum divided by the count, rounded once" {
	# a: 0.3 / 2 = 0.15 (the double mean of the doubles: 0.15000000000000002);
	# b: 0.7 / 3 = 0.2333..., the nearest double 0.23333333333333334;
	# c: (1.11 + 2.22 + 2.22 + 5.55) / 4 = 11.1 / 4 = 2.775
	printf '%s\n' '1 a 0.1' '1 a 0.2' '1 b 0.1' '1 b 0.2' '1 b 0.4' \
		'1 c 1.11' '1 c 2.22' '1 c 2.22' '1 c 5.55' > in
	ok -t 1 -k 2 --tumble 10s --avg 3 in
	assert_output "$(printf '0\t10\t%s\t%s\n' a 0.15 b 0.23333333333333334 c 2.775)"
}

# The same four values, 1.11 2.22 2.22 5.55, reach their window by every
# path: a double sum would depend on the order of additions (11.1 and
# 11.100000000000001), the exact sum is 11.1 whichever.
@test "sum: the same bytes through tumbling, sliding, session, count windows and rolling mode" {
	printf '%s\n' '1 5.55' '2 2.22' '3 1.11' '4 2.22' > in
	ok -t 1 --tumble 10s --sum 2 --avg 2 in
	assert_output $'0\t10\t11.1\t2.775'
	# 10 panes of 1 s per window: kept folds; the windows holding all four
	# start at -5 to 1 (start <= 1 and start + 10 > 4): 7 of them
	ok -t 1 --slide 10s,1s --sum 2 in
	assert_equal "$(grep -c $'\t11.1$' <<< "$output")" 7
	run ! grep -q 11.100000000000001 <<< "$output"
	# sessions: out of order, so that sessions merge (4, then 1: two
	# sessions; 2 and 3 join them)
	printf '%s\n' '4 2.22' '1 5.55' '3 1.11' '2 2.22' > in2
	ok -t 1 --session 1500ms -l 10s --sum 2 in2
	assert_output $'1\t5.5\t11.1'
	ok --count-window 4 --sum 2 in
	assert_output '11.1'
	ok -t 1 --sum 2 in
	assert_output $'1\t5.55\n2\t7.77\n3\t8.88\n4\t11.1'
}

@test "sum, avg: the same bytes across a checkpoint and restore" {
	printf '%s\n' '1 a 5.55' '2 b 0.1' '3 a 2.22' > part1
	printf '%s\n' '4 b 0.2' '5 a 1.11' '6 a 2.22' '7 b 0.4' > part2
	cat part1 part2 > whole
	args=(-t 1 -k 2 --session 5s --sum 3 --avg 3)
	ok "${args[@]}" whole
	whole_out=$output
	assert_output $'1\t11\ta\t11.1\t2.775\n2\t12\tb\t0.7\t0.23333333333333334'
	cp part1 growing
	ok "${args[@]}" --state s.ckpt growing
	assert_output ""
	cat part2 >> growing
	ok "${args[@]}" --state s.ckpt --flush growing
	assert_output "$whole_out"
}

# ------------------------------------------------------- stddev and var

@test "stddev, var, stddev-pop, var-pop" {
	# 2 4 4 4 5 5 7 9: mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32;
	# var 32/7 = 4.571428571428571, stddev sqrt(32/7) = 2.138089935299395;
	# var-pop 32/8 = 4, stddev-pop 2
	printf '1 %s\n' 2 4 4 4 5 5 7 9 > in
	ok -t 1 --tumble 10s --stddev 2 --var 2 --stddev-pop 2 --var-pop 2 in
	assert_output $'0\t10\t2.138089935299395\t4.571428571428571\t2\t4'
}

@test "stddev, var: one value, only NULLs, NULLs skipped" {
	# a: one value: sample forms empty (below 2 values), population 0;
	# b: only NULLs: every cell empty; c: 1, NULL, 3: var 2, var-pop 1
	printf '%s\n' '1,a,7' '1,b,' '1,c,1' '1,c,' '1,c,3' > in
	ok -d , -t 1 -k 2 --tumble 10s --stddev 3 --var 3 --stddev-pop 3 --var-pop 3 in
	assert_output $'0\t10\ta\t\t\t0\t0\n0\t10\tb\t\t\t\t\n0\t10\tc\t1.4142135623730951\t2\t1\t1'
}

@test "stddev, var: values near the largest double never print inf: scaled before squaring; a variance past it is an empty cell and a warning" {
	# 1e308 and 1: stddev (1e308 - 1) / sqrt(2) = 7.071067811865476e+307
	# and stddev-pop 5e+307 (correctly rounded, by Python's decimal);
	# var 5e615 and var-pop 2.5e615 are past the largest double
	printf '1 %s\n' 1e308 1 > in
	for n in 1 2 4; do
		for mode in stream batch; do
			run --separate-stderr fwin --threads $n --mode $mode -t 1 --tumble 10s --stddev 2 --var 2 --stddev-pop 2 --var-pop 2 in
			assert_success
			assert_output $'0\t10\t7.071067811865476e+307\t\t5e+307\t'
			assert_equal "$stderr" $'fwin: --var 2: a result past the largest double (1.8e+308) is an empty cell\nfwin: --var-pop 2: a result past the largest double (1.8e+308) is an empty cell'
		done
	done
	# merged from panes (a sliding window), keyed, json: the same; a
	# stddev truly past the largest double is empty too
	printf '%s\n' '1 a 1e308' '1 b 1.7e308' '6 a 1' '6 b -1.7e308' > in
	run --separate-stderr fwin --mode stream -t 1 -k 2 --slide 10s,5s --stddev 3 --stddev-pop 3 --output-format json in
	assert_success
	assert_output '{"window_start":-5,"window_end":5,"key1":"a","stddev_3":null,"stddev_pop_3":0}
{"window_start":-5,"window_end":5,"key1":"b","stddev_3":null,"stddev_pop_3":0}
{"window_start":0,"window_end":10,"key1":"a","stddev_3":7.071067811865476e+307,"stddev_pop_3":5e+307}
{"window_start":0,"window_end":10,"key1":"b","stddev_3":null,"stddev_pop_3":1.7e+308}
{"window_start":5,"window_end":15,"key1":"a","stddev_3":null,"stddev_pop_3":0}
{"window_start":5,"window_end":15,"key1":"b","stddev_3":null,"stddev_pop_3":0}'
	assert_equal "$stderr" "fwin: --stddev 3: a result past the largest double (1.8e+308) is an empty cell"
	# each aggregate is named by its field, once, whichever thread
	# printed its rows
	printf '%s\n' ts,a,b 1,1e308,5 1,1,5 12,1e308,1 12,1,1 > in.csv
	for n in 1 2 4; do
		run --separate-stderr fwin --threads $n --csv -H -t ts --tumble 10s --var a --var b --stddev a in.csv
		assert_success
		assert_output $'window_start,window_end,var_a,var_b,stddev_a\n0,10,,0,7.071067811865476e+307\n10,20,,0,7.071067811865476e+307'
		assert_equal "$stderr" "fwin: --var a: a result past the largest double (1.8e+308) is an empty cell"
	done
}

@test "stddev: a group whose exact sums outgrow the fixed width prints as one beside it that does not, on every route" {
	# a: 1e300 and 1, stddev (1e300 - 1) / sqrt(2) = 7.071067811865476e+299
	# (Python's decimal), its sums past 320 bits; b: 2 4 4 4 5 5 7 9,
	# sqrt(32/7) = 2.138089935299395 (a row printed from its accumulator)
	printf '%s\n' '1 a 1e300' '1 a 1' '1 b 2' '1 b 4' '1 b 4' '1 b 4' \
		'1 b 5' '1 b 5' '1 b 7' '1 b 9' > in
	for n in 1 2; do
		for mode in stream batch; do
			for of in tsv csv; do
				sep=$'\t'
				[ $of = tsv ] || sep=,
				ok --threads $n --mode $mode -t 1 -k 2 --tumble 10s --stddev 3 --output-format $of in
				assert_output "0${sep}10${sep}a${sep}7.071067811865476e+299
0${sep}10${sep}b${sep}2.138089935299395"
			done
		done
	done
}

@test "stddev: values near 1e9 with small differences lose nothing" {
	# 1e9 + 0.25, 0.5, 0.75, 1 (exact doubles): mean 1e9 + 0.625, squared
	# deviations 0.140625 + 0.015625 + 0.015625 + 0.140625 = 0.3125;
	# var 0.3125/3 = 0.10416666666666667, var-pop 0.078125, stddev-pop
	# sqrt(0.078125) = 0.2795084971874737. (The sum of squares minus the
	# squared sum loses all of it: 1e18 has 128 between doubles.)
	printf '1 %s\n' 1000000000.25 1000000000.5 1000000000.75 1000000001 > in
	ok -t 1 --tumble 10s --var 2 --var-pop 2 --stddev-pop 2 in
	assert_output $'0\t10\t0.10416666666666667\t0.078125\t0.2795084971874737'
	# the same four merged from one-value panes: [1, 5) holds them all
	# (each merge's mean and squared deviations are exact doubles here)
	printf '%s\n' '1 1000000000.25' '2 1000000000.5' '3 1000000000.75' \
		'4 1000000001' > in2
	ok -t 1 --slide 4s,1s --var-pop 2 in2
	assert_line --index 3 $'1\t5\t0.078125'
	# and from two sessions, [10, 40) and [50, 80) with a gap of 20s, that
	# a record at 35 with a NULL value joins: the two halves' means 1e9 +
	# 0.375 and 1e9 + 0.875, squared deviations 0.03125 each, merge
	# exactly into 1e9 + 0.625 and 0.03125 * 2 + 0.5^2 * 2 * 2 / 4 = 0.3125
	printf '%s\n' '10,1000000000.25' '20,1000000000.5' '50,1000000000.75' \
		'60,1000000001' '35,' > in3
	ok -d , -t 1 --session 20s -l 100s --var 2 --var-pop 2 --count in3
	assert_output $'10\t80\t0.10416666666666667\t0.078125\t5'
}

# ---------------------------------------------------------- percentiles

@test "median, percentile: R type 7 on values in any order" {
	# sorted 15 20 35 40 50 (n = 5): P0 15, P25 h=1: 20, P50 h=2: 35,
	# P95 h=3.8: 40 + 0.8 * 10 = 48, P100 50
	printf '1 %s\n' 40 15 50 20 35 > in
	ok -t 1 --tumble 10s --median 2 --percentile 2:0,25,50,95,100 in
	assert_output $'0\t10\t35\t15\t20\t35\t48\t50'
}

@test "percentile: ties, one value, negatives, integers and decimals mixed" {
	# a: 1 2 2 2 3: P25 h=1: 2, P50 2, P75 h=3: 2, P90 h=3.6: 2 + 0.6 = 2.6
	# b: one value 7: 7 for every P
	# c: -3 -1 2: P25 h=0.5: -3 + 0.5 * 2 = -2, P50 -1, P75 h=1.5: -1 +
	#    0.5 * 3 = 0.5, P90 h=1.8: 2 - 0.2 * 3 = 1.4, in doubles as numpy
	#    computes it (h = 1.8000000000000000444, 1 - 0.8000000000000000444
	#    = 0.19999999999999996): 1.4000000000000001
	# d: 1 2.5 10: P25 h=0.5: 1.75, P50 2.5, P75 h=1.5: 2.5 + 0.5 * 7.5 =
	#    6.25, P90 h=1.8: 10 - 0.2 * 7.5 = 8.5
	printf '%s\n' '1 a 2' '1 a 3' '1 a 2' '1 a 1' '1 a 2' '1 b 7' \
		'1 c 2' '1 c -3' '1 c -1' '1 d 10' '1 d 1' '1 d 2.5' > in
	ok -t 1 -k 2 --tumble 10s --median 3 --percentile 3:25,75,90 in
	assert_output "$(printf '0\t10\t%s\t%s\t%s\t%s\t%s\n' a 2 2 2 2.6 b 7 7 7 7 \
		c -1 -2 0.5 1.4000000000000001 d 2.5 1.75 6.25 8.5)"
}

@test "percentile: NULLs are skipped; only NULLs give empty cells, null in json" {
	# a: 4, NULL, 6: median 5; b: only NULLs
	printf '%s\n' 't,k,v' '1,a,4' '1,a,' '1,b,' '1,a,6' > in
	ok --csv -H -t t -k k --tumble 10s --median v --percentile v:0,100 \
		--approx-percentile v:50 --count in
	assert_output $'window_start,window_end,k,median_v,p0_v,p100_v,approx_p50_v,count\n0,10,a,5,4,6,5,3\n0,10,b,,,,,1'
	ok --csv -H -t t -k k --tumble 10s --median v --percentile v:99.9 \
		--approx-percentile v:50 --output-format json in
	assert_output '{"window_start":0,"window_end":10,"k":"a","median_v":5,"p99.9_v":5.998,"approx_p50_v":5}
{"window_start":0,"window_end":10,"k":"b","median_v":null,"p99.9_v":null,"approx_p50_v":null}'
}

@test "percentile: column names from P as written, without its + and zeros" {
	printf 't,v\n1,5\n' > in
	ok --csv -H -t t --tumble 10s --percentile v:+07.50,100.0,.5,99.9 \
		--approx-percentile v:95 --median v in
	assert_line --index 0 'window_start,window_end,p7.5_v,p100_v,p0.5_v,p99.9_v,approx_p95_v,median_v'
	assert_line --index 1 '0,10,5,5,5,5,5,5'
}

@test "percentile: a bad P list is a usage error" {
	for a in v:101 v:-1 v:abc v: v:5, v:1e2; do
		run --separate-stderr fwin --csv -H -t t --tumble 10s --percentile "$a" /dev/null
		assert_failure 2
		assert_equal "${stderr%%$'\n'*}" "fwin: --percentile: bad percentile list '${a#v:}' ($(
			[[ $a == v: || $a == v:5, ]] && echo 'a percentile is empty' ||
			echo 'a percentile must be a number from 0 to 100'))"
	done
	run --separate-stderr fwin --csv -H -t t --tumble 10s --approx-percentile v /dev/null
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --approx-percentile: 'v' names no percentile (F:P[,P...])"
}

@test "percentile: sliding windows, sessions, count windows and rolling mode" {
	printf '%s\n' '1 4' '2 1' '3 3' '4 2' > in
	# [-2, 2) holds 4; [-1, 3) 4 1 (2.5); [0, 4) 4 1 3 (3); [1, 5) 4 1 3 2
	# (h = 1.5: 2 + 0.5 * 1 = 2.5); [2, 6) 1 3 2 (2); [3, 7) 3 2 (2.5);
	# [4, 8) 2
	ok -t 1 --slide 4s,1s --median 2 in
	assert_output $'-2\t2\t4\n-1\t3\t2.5\n0\t4\t3\n1\t5\t2.5\n2\t6\t2\n3\t7\t2.5\n4\t8\t2'
	# sessions merged out of order: 1 and 4 first, 2 and 3 join them
	printf '%s\n' '1 4' '4 2' '2 1' '3 3' > in2
	ok -t 1 --session 1500ms -l 10s --median 2 --percentile 2:0,100 in2
	assert_output $'1\t5.5\t2.5\t1\t4'
	# count windows of 3 sliding by 1: {4}, {4 1}, {4 1 3}, {1 3 2}
	ok --count-window 3,1 --median 2 in
	assert_output $'4\n2.5\n3\n2'
	ok -t 1 --median 2 in
	assert_output $'1\t4\n2\t2.5\n3\t3\n4\t2.5'
}

@test "percentile, sketches, stddev: the same rows across a checkpoint and restore" {
	awk 'BEGIN { for (i = 0; i < 400; i++) printf "%d,%s,%d.%d\n", i * 3, (i % 3 ? "a" : "b"), (i * 7919) % 1000, i % 10 }' > whole
	head -n 250 whole > growing
	tail -n +251 whole > rest
	# sessions of key a: records 3 s and 6 s apart, a gap of 5 s
	for win in '--tumble 100s' '--slide 300s,50s' '--session 5s'; do
		read -ra w <<< "$win"
		args=(--csv -t 1 -k 2 "${w[@]}" --median 3 --percentile 3:10,99.9
			--approx-percentile 3:50,90 --approx-distinct 3 --distinct 3
			--stddev 3 --sum 3)
		ok "${args[@]}" whole
		whole_out=$output
		[ "${#whole_out}" -gt 1000 ]
		head -n 250 whole > growing
		rm -f s.ckpt
		ok "${args[@]}" --state s.ckpt growing
		first=$output
		cat rest >> growing
		ok "${args[@]}" --state s.ckpt --flush growing
		assert_equal "$first${first:+$'\n'}$output" "$whole_out"
	done
}

@test "percentile: the P list is part of the pipeline's fingerprint" {
	printf '1,5\n' > in
	ok --csv -t 1 --tumble 10s --percentile 2:50,95 --checkpoint s.ckpt in
	run --separate-stderr fwin --csv -t 1 --tumble 10s --percentile 2:50,99 --restore s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with aggregates --percentile 2:50,95, not aggregates --percentile 2:50,99"
	# the same list written otherwise is the same pipeline
	ok --csv -t 1 --tumble 10s --percentile 2:50.0,+95 --restore s.ckpt in
}

# ------------------------------------------------------ approx-percentile

# skewed N SEED: N values spread over 6 decades (exp of a uniform, from an
# LCG), with repeats, one per line as "time,key,value".
skewed() {
	awk -v n="$1" -v s="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			s = (s * 1103515245 + 12345) % 2147483648
			u = s / 2147483648
			v = exp(14 * u * u) / 1000
			if (i % 7 == 0) v = 42	# ties
			printf "%d,%s,%.6f\n", i, (i % 2 ? "x" : "y"), v
		}
	}'
}

# within_1pct: the rows on stdin hold exact values then approximate ones,
# halves of the fields after the first skip; every approximate value is
# within 1% of its exact one.
within_1pct() {
	awk -F, -v skip="$1" '{
		m = (NF - skip) / 2
		for (j = 1; j <= m; j++) {
			e = $(skip + j); a = $(skip + m + j)
			d = a - e; if (d < 0) d = -d
			if (e < 0) e = -e
			if (d > 0.01 * e) { printf "row %d: exact %s approx %s\n", NR, $(skip + j), a; bad = 1 }
			n++
		}
	} END { if (n == 0) { print "no values"; exit 1 } exit bad }'
}

@test "approx-percentile: within 1% of the exact percentile over thousands of skewed values" {
	skewed 4000 7 > in
	P=0,1,5,25,50,75,90,95,99,99.9,100
	ok --csv -t 1 --tumble 2h --percentile 3:$P --approx-percentile 3:$P in
	[ "${#lines[@]}" -eq 1 ]
	within_1pct 2 <<< "$output"
	# the values span 6 decades: the bound is relative, not absolute
	run awk -F, '{ print ($3 < 0.002 && $13 > 1000) }' <<< "$output"
	assert_output 1
}

@test "approx-percentile: within 1% when merged across slices, keys and sessions" {
	skewed 3000 11 > in
	P=1,50,90,99,100
	ok --csv -t 1 -k 2 --slide 1000s,100s --percentile 3:$P --approx-percentile 3:$P in
	[ "${#lines[@]}" -gt 20 ]
	within_1pct 3 <<< "$output"
	ok --csv -t 1 -k 2 --session 5s --percentile 3:$P --approx-percentile 3:$P in
	within_1pct 3 <<< "$output"
	# two sessions of about 1000 values each (the records from 1400 to
	# 1419 held back: a gap) that the held-back records, arriving last,
	# merge into one
	awk -F, '$1 < 1400 || $1 >= 1420' in > gap
	awk -F, '$1 >= 1400 && $1 < 1420' in >> gap
	ok --csv -t 1 --session 10s -l 2000s --count --percentile 3:$P --approx-percentile 3:$P gap
	assert_equal "$(cut -d, -f1-3 <<< "$output")" '0,3009,3000'
	within_1pct 3 <<< "$output"
	# rolling mode: every record's row
	ok --csv -k 2 --percentile 3:50 --approx-percentile 3:50 in
	[ "${#lines[@]}" -eq 3000 ]
	within_1pct 1 <<< "$output"
}

@test "approx-percentile: negatives, zeros, one value" {
	# a: one value -2.5 for every P; b: -10 0 0 10: P50 h=1.5: 0, P0 -10,
	# P100 10 (the minimum and maximum are kept exactly)
	printf '%s\n' '1 a -2.5' '1 b -10' '1 b 0' '1 b 0' '1 b 10' > in
	ok -t 1 -k 2 --tumble 10s --approx-percentile 3:0,50,100 in
	assert_output $'0\t10\ta\t-2.5\t-2.5\t-2.5\n0\t10\tb\t-10\t0\t10'
}

@test "approx-percentile: a rank between values of opposite sign is within 1% of the interpolated magnitudes" {
	# -1000 -3 5 2000, P40: rank 1.2, between -3 and 5 (f = 0.2): exact
	# -1.4; the bound is 1% of 0.8 * 3 + 0.2 * 5 = 0.034, not 1% of 1.4
	printf '1 %s\n' -1000 -3 5 2000 > in
	ok -t 1 --tumble 10s --percentile 2:40 --approx-percentile 2:40 in
	assert_output $'0\t10\t-1.3999999999999986\t-1.4186231765311381'
	# -100 100, P50: exact 0, the bound 1
	printf '1 %s\n' -100 100 > in
	ok -t 1 --tumble 10s --approx-percentile 2:50 in
	assert_output $'0\t10\t0'
	# thousands of values of both signs (scripts/gen, fixed seed): at
	# every P, |approx - exact| <= 0.01 * ((1 - f) |lo| + f |hi|), lo
	# and hi the values around the rank, taken from the sorted values
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 3001 -k 1 --seed 41 --values 2001 |
		awk -F, '$3 != 1000 { printf "1 %d\n", $3 - 1000 }' > in
	# and the ranks a quarter, half and three quarters of the way from
	# the largest negative value to the smallest positive one
	P=$(cut -d' ' -f2 in | awk '$1 < 0 { k++ } END {
		for (q = 0.25; q < 1; q += 0.25)
			printf ",%.6f", (k - 1 + q) / (NR - 1) * 100 }')
	P=0.5,1,10,25,40,49.9,50,50.1,60,75,90,99,99.5$P
	ok -t 1 --tumble 10s --approx-percentile 2:$P in
	printf '%s\n' "$output" | tr '\t' '\n' | tail -n +3 > approx
	cut -d' ' -f2 in | sort -n > sorted
	run awk -v P="$P" 'NR == FNR { v[n++] = $1; next } {
		split(P, p, ",")
		pos = p[FNR] / 100 * (n - 1); r = int(pos); f = pos - r
		lo = v[r]; hi = v[r + (f > 0)]
		exact = lo + f * (hi - lo)
		bound = 0.01 * ((1 - f) * (lo < 0 ? -lo : lo) + f * (hi < 0 ? -hi : hi))
		d = $1 - exact; if (d < 0) d = -d
		if (d > bound) { printf "P%s: exact %s approx %s bound %s\n", p[FNR], exact, $1, bound; bad = 1 }
		if (lo < 0 && hi > 0) opposite++
	} END { print opposite + 0; exit bad }' sorted approx
	assert_success
	[ "$output" -ge 1 ]
}

# ---------------------------------------------- counts and approx-distinct

@test "count, distinct, approx-distinct over only NULLs print 0" {
	printf '1,a,\n1,a,\n1,b,x\n' > in
	ok -d , -t 1 -k 2 --tumble 10s --count --distinct 3 --approx-distinct 3 in
	assert_output $'0\t10\ta\t2\t0\t0\n0\t10\tb\t1\t1\t1'
	ok -d , -t 1 -k 2 --tumble 10s --distinct 3 --approx-distinct 3 --output-format json in
	assert_output $'{"window_start":0,"window_end":10,"key1":"a","distinct_3":0,"approx_distinct_3":0}\n{"window_start":0,"window_end":10,"key1":"b","distinct_3":1,"approx_distinct_3":1}'
}

@test "approx-distinct: exact while small, text as written" {
	# 300 distinct values, each three times, and "1" and "1.0" are two values
	awk 'BEGIN { for (r = 0; r < 3; r++) for (i = 0; i < 300; i++) print 1, "v" i; print 1, "1"; print 1, "1.0" }' > in
	ok -t 1 --tumble 10s --distinct 2 --approx-distinct 2 in
	assert_output $'0\t10\t302\t302'
}

@test "approx-distinct: within 5% over thousands of values, merged across slices" {
	# 20000 records of 6000 distinct values (each about 3 times, skewed);
	# standard error 1.6%: 5% is three of them
	awk 'BEGIN { s = 3; for (i = 0; i < 20000; i++) {
		s = (s * 1103515245 + 12345) % 2147483648
		printf "%d,k%d\n", i, (i < 6000 ? i : int(6000 * (s / 2147483648) ^ 2)) } }' > in
	ok --csv -t 1 --tumble 1d --distinct 2 --approx-distinct 2 in
	run awk -F, '{ d = $4 - $3; if (d < 0) d = -d; print $3, (d <= 0.05 * $3) }' <<< "$output"
	assert_output '6000 1'
	# sliding: 20 panes per window, each window checked against --distinct
	ok --csv -t 1 --slide 10000s,500s --distinct 2 --approx-distinct 2 in
	run awk -F, '{ d = $4 - $3; if (d < 0) d = -d; if (d > 0.05 * $3) bad++; n++ }
		END { print n, bad + 0 }' <<< "$output"
	assert_output '59 0'
	# sessions that merge: the records from 10000 to 10019 held back
	awk -F, '$1 < 10000 || $1 >= 10020' in > gap
	awk -F, '$1 >= 10000 && $1 < 10020' in >> gap
	ok --csv -t 1 --session 30s -l 20000s --distinct 2 --approx-distinct 2 gap
	run awk -F, '{ d = $4 - $3; if (d < 0) d = -d; print $1, $2, $3, (d <= 0.05 * $3) }' <<< "$output"
	assert_output '0 20029 6000 1'
}

# ------------------------------------------------------- restored state

@test "restore: bytes changed in percentile and sketch blocks behind a good checksum never crash fwin" {
	command -v cc >/dev/null || skip "no C compiler"
	cc -O2 -o ckmangle "$BATS_TEST_DIRNAME/ckpt/ckmangle.c" -lxxhash ||
		skip "cannot build ckmangle (libxxhash-dev)"
	awk 'BEGIN { for (i = 0; i < 120; i++) printf "%d,k%d,%d.%d\n", i, i % 3, (i * 7919) % 1000, i % 10 }' > in.csv
	printf '400,k1,5\n' > more.csv
	args=(--csv -t 1 -k 2 --session 500s --median 3 --percentile 3:5,95
		--approx-percentile 3:50 --approx-distinct 3 --var 3 --sum 3)
	fwin "${args[@]}" --checkpoint real.ckpt in.csv	# the sessions stay open
	read -r hdrlen paylen mapcap < <(./ckmangle --info real.ckpt)
	n=0 refused_n=0
	for ((p = hdrlen; p < hdrlen + paylen; p += 61)); do
		./ckmangle real.ckpt bad.ckpt "$p" $(((p / 61) % 2 ? 0x80 : 0x04)) fix
		status=0
		timeout 20 "$FWIN" "${args[@]}" --restore bad.ckpt --new-input more.csv \
			>try.out 2>try.err || status=$?
		case $(<try.err) in
		*Segmentation* | *Sanitizer* | *"runtime error"* | *Aborted* | *Assertion*)
			fail "byte $p: $(<try.err)" ;;
		esac
		((status <= 1)) || fail "byte $p: status $status: $(<try.err)"
		((status == 0)) || refused_n=$((refused_n + 1))
		n=$((n + 1))
	done
	echo "# $n changes, $refused_n refused" >&3
	((refused_n > 0))
	# the undamaged state restores and ends as a whole run would
	ok "${args[@]}" --restore real.ckpt --new-input more.csv
	restored=$output
	cat in.csv more.csv > all.csv
	ok "${args[@]}" all.csv
	assert_equal "$restored" "$output"
}

# offset_of FILE HEX: the first byte offset of the bytes HEX in FILE.
offset_of() {
	od -An -v -tx1 "$1" | tr -d ' \n' | grep -bo "$2" | head -1 |
		awk -F: '{ print $1 / 2 }'
}

@test "restore: a percentile block, a sum or a sketch that is not sound is refused" {
	command -v cc >/dev/null || skip "no C compiler"
	cc -O2 -o ckmangle "$BATS_TEST_DIRNAME/ckpt/ckmangle.c" -lxxhash ||
		skip "cannot build ckmangle (libxxhash-dev)"
	printf '1,a,12345.678\n' > in.csv
	printf '2,a,1\n' > more.csv
	args=(--csv -t 1 -k 2 --tumble 10s --median 3)
	fwin "${args[@]}" --checkpoint s.ckpt in.csv
	# the block: count 1, capacity 6, then the double 12345.678
	# (0x40C81CD6C8B43958, little-endian)
	v=$(offset_of s.ckpt 5839b4c8d61cc840)
	[ -n "$v" ]
	assert_equal "$(od -An -tu8 -j$((v - 16)) -N16 s.ckpt | xargs)" '1 6'
	# count 7 > capacity 6
	./ckmangle s.ckpt bad.ckpt $((v - 16)) 0x06 fix
	run --separate-stderr fwin "${args[@]}" --restore bad.ckpt --new-input more.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: bad.ckpt: corrupt state: bad percentile values"
	# the value made a NaN (exponent bits all ones)
	./ckmangle s.ckpt t.ckpt $((v + 7)) 0x3f
	./ckmangle t.ckpt bad.ckpt $((v + 6)) 0x30 fix
	run --separate-stderr fwin "${args[@]}" --restore bad.ckpt --new-input more.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: bad.ckpt: corrupt state: bad percentile value"
	# a sum's scale (3, after its five words: 12345678, 0, 0, 0, 0) past
	# 38: plain values have at most 38 places
	args=(--csv -t 1 -k 2 --tumble 10s --sum 3)
	rm s.ckpt	# (another pipeline's: fwin would refuse to replace it)
	fwin "${args[@]}" --checkpoint s.ckpt in.csv
	v=$(offset_of s.ckpt 4e61bc0000000000)
	assert_equal "$(od -An -tu4 -j$((v + 40)) -N4 s.ckpt | xargs)" 3
	./ckmangle s.ckpt bad.ckpt $((v + 40)) 0x80 fix
	run --separate-stderr fwin "${args[@]}" --restore bad.ckpt --new-input more.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: bad.ckpt: corrupt state: bad sum in an accumulator"
	ok "${args[@]}" --restore s.ckpt --new-input more.csv
	assert_output '0,10,a,12346.678'
	# sketches: a byte of the magic number ("DDS1", "HLL1") changed
	for agg in --approx-percentile=3:50 --approx-distinct=3; do
		args=(--csv -t 1 -k 2 --tumble 10s "$agg")
		rm s.ckpt
		fwin "${args[@]}" --checkpoint s.ckpt in.csv
		m=$(offset_of s.ckpt "$([[ $agg == *percentile* ]] && echo 44445331 || echo 484c4c31)")
		[ -n "$m" ]
		./ckmangle s.ckpt bad.ckpt "$m" 0x01 fix
		run --separate-stderr fwin "${args[@]}" --restore bad.ckpt --new-input more.csv
		assert_failure 1
		assert_equal "$stderr" "fwin: bad.ckpt: corrupt state: bad sketch in an accumulator"
		# unchanged, it restores
		ok "${args[@]}" --restore s.ckpt --new-input more.csv
	done
}
