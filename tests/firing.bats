#!/usr/bin/env bats
# New ways to fire (fwin(1): Windows, Watermark and lateness): the global
# window, --fill, --top and --top-by, --emit-every. Every expected output
# is derived by hand from the manual.
load common

# ---------------------------------------------------------------- --global

@test "--global: one window per key, fired at the end, bounds the key's times, in (end, start, key) order" {
	printf '1,a,5\n2,b,7\n3,a,1\n4,c,7\n6,a,2\n12,b,1\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --global --count --sum 3 in
	assert_success
	assert_output $'4,4,c,1,7\n1,6,a,3,8\n2,12,b,2,8'
	assert_equal "$stderr" ""
}

@test "--global with a checkpoint: held across runs, fired by the run with --flush" {
	printf '1,a,5\n2,b,7\n3,a,1\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --global --count --state s.ckpt in
	assert_success
	assert_output ""
	printf '20,a,1\n' >> in
	run --separate-stderr fwin --csv -t 1 -k 2 --global --count --state s.ckpt --flush in
	assert_success
	assert_output $'2,2,b,1\n1,20,a,3'
}

@test "--global and processing time: the run's bounds, every key's the same" {
	t0=$(date +%s)
	run --separate-stderr fwin -k 1 --global --count --output-time s <<<$'a\nb\na'
	assert_success
	t1=$(date +%s)
	[ "${#lines[@]}" -eq 2 ]
	IFS=$'\t' read -r s1 e1 k1 c1 <<<"${lines[0]}"
	IFS=$'\t' read -r s2 e2 k2 c2 <<<"${lines[1]}"
	assert_equal "$k1 $c1 $k2 $c2" "a 2 b 1"
	assert_equal "$s1 $e1" "$s2 $e2"
	((${s1%.*} >= t0 && ${e1%.*} <= t1 + 1))
}

# ------------------------------------------------------------------ --fill

@test "--fill: empty windows print 0 and empty cells, every key from its first window to the last one with data" {
	printf '3 a 1\n4 b 2\n12 a 3\n27 a 4\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s --fill --count --sum 3 in
	assert_success
	assert_output "$(printf '%s\n' \
		$'0\t5\ta\t1\t1' $'0\t5\tb\t1\t2' \
		$'5\t10\ta\t0\t' $'5\t10\tb\t0\t' \
		$'10\t15\ta\t1\t3' $'10\t15\tb\t0\t' \
		$'15\t20\ta\t0\t' $'15\t20\tb\t0\t' \
		$'20\t25\ta\t0\t' $'20\t25\tb\t0\t' \
		$'25\t30\ta\t1\t4' $'25\t30\tb\t0\t')"
}

@test "--fill: a key starts at its first window; sliding windows fill too" {
	printf '3 a\n14 b\n27 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --slide 10s,5s --fill --count in
	assert_success
	assert_output "$(printf '%s\n' \
		$'-5\t5\ta\t1' $'0\t10\ta\t1' $'5\t15\ta\t0' $'5\t15\tb\t1' \
		$'10\t20\ta\t0' $'10\t20\tb\t1' $'15\t25\ta\t0' $'15\t25\tb\t0' \
		$'20\t30\ta\t1' $'20\t30\tb\t0' $'25\t35\ta\t1' $'25\t35\tb\t0')"
}

@test "--fill under --allowed-lateness: a key whose first windows fire at once fills from them on" {
	# 141,b comes after W = 142: its window [140,142) is kept by the
	# allowed lateness and fires at once; b's empty windows follow as W
	# passes them (147), and at the end up to the window of 147
	printf '142,a\n141,b\n147,a\n' > in
	for n in 1 2 4; do
		run --separate-stderr fwin --threads $n --csv --time-format ms --mode stream -t 1 -k 2 --tumble 2ms --allowed-lateness 5ms --fill --count in
		assert_success
		assert_equal "$stderr" ""
		assert_output $'140,142,b,1\n142,144,a,1\n142,144,b,0\n144,146,a,0\n144,146,b,0\n146,148,a,1\n146,148,b,0'
	done
	# W far past the late key's window: its empty windows up to W fire
	# when W next moves, in (end, start, key) order with a's
	printf '150,a\n141,b\n153,a\n' > in
	run --separate-stderr fwin --csv --time-format ms --mode stream -t 1 -k 2 --tumble 2ms --allowed-lateness 10ms --fill --count in
	assert_success
	assert_output $'140,142,b,1\n142,144,b,0\n144,146,b,0\n146,148,b,0\n148,150,b,0\n150,152,a,1\n150,152,b,0\n152,154,a,1\n152,154,b,0'
	# a key with a window due: a record kept by the allowed lateness
	# re-fires its own window, and no filled window fires twice
	printf '100,a\n105,a\n101,a\n' > in
	run --separate-stderr fwin --csv --time-format ms --mode stream -t 1 -k 2 --tumble 2ms --allowed-lateness 10ms --fill --count in
	assert_success
	assert_output $'100,102,a,1\n102,104,a,0\n100,102,a,2\n104,106,a,1'
}

@test "--fill needs --tumble or --slide" {
	run --separate-stderr fwin -t 1 --session 5s --fill in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --fill needs --tumble, --slide or --cumulate"
}

# ------------------------------------------------------------------- --top

@test "--top: a window's first N rows by the --top-by column, largest first, ties to the smaller key, empty last" {
	printf '1,a,\n2,b,3\n3,c,3\n4,d,9\n11,a,1\n12,b,2\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --top 3 --top-by sum_3 --count --sum 3 in
	assert_success
	assert_output $'0,10,d,1,9\n0,10,b,1,3\n0,10,c,1,3\n10,20,b,1,2\n10,20,a,1,1'
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --top 2 --top-by sum_3:asc --count --sum 3 in
	assert_success
	assert_output $'0,10,b,1,3\n0,10,c,1,3\n10,20,a,1,1\n10,20,b,1,2'
	# largest first is the default, and the only other order is :asc
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --top 2 --top-by sum_3:desc --count --sum 3 in
	assert_failure 2
	assert_equal "$stderr" "fwin: --top-by: 'sum_3:desc': the largest rank first unless ':asc' follows the name; there is no ':desc'
Try 'fwin --help' for more information."
}

@test "--top: values of one double ranked exactly, in either order, stream and batch" {
	# exact sums 1700000000000000100 > 1700000000000000001, one double;
	# 1.7e+18 (a sum of exponents, printed as a double) is less than both
	printf '1 a 1700000000000000001\n1 b 1700000000000000100\n' > in
	printf '1 b 1700000000000000100\n1 a 1700000000000000001\n' > in2
	for f in in in2; do
		run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10s --sum 3 --top 1 < $f
		assert_success
		assert_equal "$stderr" ""
		assert_output $'0\t10\tb\t1700000000000000100'
		for mode in stream batch; do
			for n in 1 2; do
				run --separate-stderr fwin --threads $n --mode $mode -t 1 --time-format s -k 2 \
					--tumble 10s --sum 3 --top 1 $f
				assert_success
				assert_output $'0\t10\tb\t1700000000000000100'
				run --separate-stderr fwin --threads $n --mode $mode -t 1 --time-format s -k 2 \
					--tumble 10s --sum 3 --top 1 --top-by sum_3:asc $f
				assert_success
				assert_output $'0\t10\ta\t1700000000000000001'
			done
		done
	done
	printf '%s\n' '1 a 1700000000000000001' '1 b 1700000000000000100' '1 c 1.7e18' \
		'1 d 1700000000000000100' '1 e 0.10' '1 f 1e-1' > in
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10s --max 3 --top 6 in
	assert_success
	assert_output "$(printf '0\t10\t%s\t%s\n' b 1700000000000000100 d 1700000000000000100 \
		a 1700000000000000001 c 1.7e18 e 0.10 f 1e-1)"
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10s --sum 3 --top 3 --top-by sum_3:asc in
	assert_success
	assert_output "$(printf '0\t10\t%s\t%s\n' e 0.1 f 0.1 c 1.7e+18)"
}

@test "--top: the first aggregate by default; with --global, of all rows" {
	printf '1,a\n2,b\n3,a\n4,c\n5,a\n6,c\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --global --top 2 --count in
	assert_success
	assert_output $'1,5,a,3\n4,6,c,2'
}

@test "--top with --global: ties go to the smaller key, not to the earlier window" {
	# k5's window [792,792] ends before k1's [1126,1126]: the key decides
	printf '792,k5,-50\n1126,k1,-50\n' > in
	for mode in stream batch; do
		for n in 1 2 4; do
			run --separate-stderr fwin --threads $n --csv --time-format ms --mode $mode -t 1 -k 2 --global --top 1 --min 3 in
			assert_success
			assert_equal "$stderr" ""
			assert_output '1126,1126,k1,-50'
		done
	done
	# rank order, ties in key order
	printf '792,k5,-50\n1126,k1,-50\n900,k3,-49\n5,k2,-50\n' > in
	run --separate-stderr fwin --csv --time-format ms --mode stream -t 1 -k 2 --global --top 3 --min 3 in
	assert_success
	assert_output $'900,900,k3,-49\n1126,1126,k1,-50\n5,5,k2,-50'
	run --separate-stderr fwin --csv --time-format ms --mode stream -t 1 -k 2 --global --top 4 --top-by min_3:asc --min 3 in
	assert_output $'1126,1126,k1,-50\n5,5,k2,-50\n792,792,k5,-50\n900,900,k3,-49'
}

@test "--top: usage errors" {
	printf '1,a\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --top 2 --top-by nope --count in
	assert_failure 2
	assert_equal "$stderr" "fwin: --top-by: no aggregate column 'nope'"
	# a near miss names the columns it may mean, as -k and --having do
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --top 2 --sum 1 --count --eval 'total=count' --top-by totl in
	assert_failure 2
	assert_equal "$stderr" "fwin: --top-by: no aggregate column 'totl'; did you mean 'total'?"
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --top 2 --top-by sum --sum 1 in
	assert_failure 2
	assert_equal "$stderr" "fwin: --top-by: no aggregate column 'sum'; did you mean 'sum_1'?"
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --top 2 --top-by first_2 --first 2 in
	assert_failure 2
	assert_equal "$stderr" "fwin: --top-by: 'first_2' is text, not a number"
	run --separate-stderr fwin --csv -t 1 --session 5s --top 2 in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --top needs --tumble, --slide, --cumulate or --global"
	run --separate-stderr fwin --csv -t 1 --tumble 5s --allowed-lateness 1s --top 2 in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --top and --allowed-lateness cannot be used together: a window's rows fire again one by one"
	run --separate-stderr fwin --csv -t 1 --tumble 5s --top-by count in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --top-by needs --top"
}

# ------------------------------------------------------------ --emit-every

@test "--emit-every: a partial row when the watermark passes a multiple, if the result changed; final rows at the end" {
	printf '1 a\n2 a\n3 b\n6 a\n7 a\n8 a\n11 a\n12 b\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --emit-every 2s in
	assert_success
	# W passes 2 (a: 2 records), 6 (a: 3, b: 1 in order of key), 8 (a: 5;
	# b unchanged: no row), 10 (the window ends: final rows; [10, 20)
	# does not hold 10 inside), 12 (a: 1, b: 1); the end prints finals
	assert_output "$(printf '%s\n' \
		$'0\t10\ta\t2\t0' $'0\t10\ta\t3\t0' $'0\t10\tb\t1\t0' \
		$'0\t10\ta\t5\t0' $'0\t10\ta\t5\t1' $'0\t10\tb\t1\t1' \
		$'10\t20\ta\t1\t0' $'10\t20\tb\t1\t0' \
		$'10\t20\ta\t1\t1' $'10\t20\tb\t1\t1')"
	assert_equal "$stderr" ""
}

@test "--emit-every: at most one partial row per window when the watermark jumps past several multiples" {
	printf '1 a\n9 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 10s --emit-every 2s --output-format csv in
	assert_success
	assert_output $'0,10,2,0\n0,10,2,1'
}

@test "--emit-every: an unchanged result prints no partial row (max)" {
	printf '1 9\n3 2\n5 1\n' > in
	run --separate-stderr fwin -t 1 --tumble 10s --emit-every 1s --max 2 in
	assert_success
	assert_output $'0\t10\t9\t0\n0\t10\t9\t1'
}

@test "--emit-every with --global and a json header: the final column" {
	printf '1 a\n2 a\n6 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --global --emit-every 5s --count --output-format json in
	assert_success
	assert_output "$(printf '%s\n' \
		'{"window_start":1,"window_end":1,"key1":"a","count":1,"final":0}' \
		'{"window_start":1,"window_end":6,"key1":"a","count":3,"final":0}' \
		'{"window_start":1,"window_end":6,"key1":"a","count":3,"final":1}')"
}

@test "--emit-every with --global: every multiple lies inside the window; each key whose result changed prints a partial row" {
	# 1 a: W from none to 1 passes 0: a's first partial row; 12 b:
	# W passes 10: a (3 now) and b (new) print; 13 a: no multiple;
	# 25 a: W passes 20: a changed (5), b did not; the end: final rows
	printf '1 a\n2 a\n5 a\n12 b\n13 a\n25 a\n' > in
	run --separate-stderr fwin --mode stream -t 1 --time-format s -k 2 --global --emit-every 10s --count in
	assert_success
	assert_equal "$stderr" ""
	assert_output $'1\t1\ta\t1\t0\n1\t5\ta\t3\t0\n12\t12\tb\t1\t0\n1\t25\ta\t5\t0\n12\t12\tb\t1\t1\n1\t25\ta\t5\t1'
	# with --offset 5s the multiples are 5, 15, 25: W reaching 5 at
	# 5 a passes it (a: 3); 12 b passes none; 25 a passes 15 and 25,
	# one partial row per advance (a: 5, b: 1)
	run --separate-stderr fwin --mode stream -t 1 --time-format s -k 2 --global --emit-every 10s --offset 5s --count in
	assert_success
	assert_output $'1\t1\ta\t1\t0\n1\t5\ta\t3\t0\n12\t12\tb\t1\t0\n1\t25\ta\t5\t0\n12\t12\tb\t1\t1\n1\t25\ta\t5\t1'
}

@test "--emit-every: the same bytes through a checkpoint and restore" {
	draws 400 3 3 | awk '{ i = NR - 1
		printf "%d,k%d,%d\n", 1000 + i * 3 + int($1 * 4), int($2 * 5), int($3 * 9) }' > all.csv
	args=(--csv -t 1 -k 2 --slide 60s,20s -l 5s --emit-every 7s --count --max 3)
	run --separate-stderr fwin "${args[@]}" all.csv
	assert_success
	want=$output
	head -n 211 all.csv > part.csv
	fwin "${args[@]}" --state s.ckpt -o out.csv part.csv 2>/dev/null
	cp all.csv part.csv
	fwin "${args[@]}" --state s.ckpt -o out.csv --flush part.csv 2>/dev/null
	assert_equal "$(cat out.csv)" "$want"
}

@test "--emit-every: usage errors" {
	run --separate-stderr fwin -t 1 --session 5s --emit-every 1s in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --emit-every needs --tumble, --slide, --cumulate or --global"
	run --separate-stderr fwin -t 1 --tumble 5s --emit-every 1s --top 2 in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --top and --emit-every cannot be used together"
}

@test "--fill and --top with --cumulate: every cumulating window, filled, and its top rows" {
	printf '1 a\n2 b\n23 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --cumulate 10s,5s --fill --count in
	assert_success
	assert_output "$(printf '%s\n' \
		$'0\t5\ta\t1' $'0\t5\tb\t1' $'0\t10\ta\t1' $'0\t10\tb\t1' \
		$'10\t15\ta\t0' $'10\t15\tb\t0' $'10\t20\ta\t0' $'10\t20\tb\t0' \
		$'20\t25\ta\t1' $'20\t25\tb\t0' $'20\t30\ta\t1' $'20\t30\tb\t0')"
	printf '1 a\n2 b\n3 b\n12 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --cumulate 10s,5s --top 1 --count in
	assert_success
	assert_output $'0\t5\tb\t2\n0\t10\tb\t2\n10\t15\ta\t1\n10\t20\ta\t1'
}

@test "--emit-every with --cumulate: each window a multiple lies inside prints a partial row" {
	printf '1 a\n3 a\n4 a\n12 a\n' > in
	run --separate-stderr fwin --mode stream -t 1 -k 2 --cumulate 10s,5s --emit-every 2s --count in
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\n' \
		0 5 a 2 0   0 10 a 2 0   0 5 a 3 0   0 10 a 3 0 \
		0 5 a 3 1   0 10 a 3 1 \
		10 15 a 1 0   10 20 a 1 0   10 15 a 1 1   10 20 a 1 1)"
}
