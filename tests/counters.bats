#!/usr/bin/env bats
# Counters and histograms (fwin(1): COUNTERS AND HISTOGRAMS): --increase
# with resets and the key's previous value, --rate and the length of each
# kind of window, --histogram's cumulative columns and bounds. Generated
# counters are checked against an independent reckoning in awk from the
# records sorted by time, for every window kind, in stream mode (the file
# out of order) and batch mode, with one, two and four threads, and across
# a restore in the middle.
load common

# cgen SEED N: N csv records "time,key,value" of three counters a, b, c
# that grow by 0-9 (a quarter of the steps by .5 more) and reset to 0-4
# one time in 40; a value in 20 is empty (NULL). Times are 0..N/2 (two
# records a second: equal times are common), each record written up to
# 39 s out of time order. A Park-Miller generator: the same bytes on
# every machine.
cgen() {
	awk -v s="$1" -v n="$2" '
	function r(m) { s = (s * 16807) % 2147483647; return s % m }
	BEGIN {
		for (i = 0; i < n; i++) {
			k = substr("abc", r(3) + 1, 1)
			if (r(40) == 0) c[k] = r(5)
			else c[k] += r(10) + (r(4) == 0 ? 0.5 : 0)
			t = int(i / 2)
			printf "%d,%d,%d,%s,%s\n", t + r(40), i, t, k,
			    (r(20) == 0 ? "" : c[k])
		}
	}' | sort -t, -k1,1n -k2,2n | cut -d, -f3-
}

# reckon SORTED ROWS GLOBAL: checks each csv row "start,end,key,increase,
# rate" of ROWS against the records of SORTED (csv "time,key,value",
# stably sorted by time): the increase over the key's values with time in
# [start, end) (GLOBAL 1: [start, end]), counted from the key's last value
# before start, a value below the one before it adding itself; an empty
# cell for a window without values; the rate that increase per second of
# end - start, empty when that is 0. Prints each row that differs.
reckon() {
	awk -F, -v global="$3" '
	NR == FNR {
		if ($3 != "") { n[$2]++; t[$2, n[$2]] = $1; v[$2, n[$2]] = $3 }
		next
	}
	{
		s = $1; e = $2; k = $3; inc = 0; seen = 0; has = 0
		for (i = 1; i <= n[k]; i++) {
			x = v[k, i] + 0
			if (t[k, i] < s) { prev = x; has = 1; continue }
			if (t[k, i] > e || (t[k, i] == e && !global)) break
			if (has) inc += x < prev ? x : x - prev
			prev = x; has = 1; seen = 1
		}
		want = seen ? sprintf("%.10g", inc) : ""
		rate = ""
		if (seen && e > s) rate = inc / (e - s)
		got = $5 == "" ? "" : $5 + 0
		if ($4 != want || (rate == "") != ($5 == "") ||
		    (rate != "" && (got - rate > 1e-9 * (rate < 0 ? -rate : rate) + 1e-12 ||
		    rate - got > 1e-9 * (rate < 0 ? -rate : rate) + 1e-12)))
			print "row " FNR ": " $0 " want " want "," rate
	}' "$1" "$2"
}

ARGS=(--csv -t 1 -k 2 --increase 3 --rate 3)

# ---------------------------------------------------------------- resets

@test "--increase and --rate: a reset adds itself, steps count from the previous window" {
	printf '0 web 10\n5 web 15\n10 web 20\n15 web 3\n20 web 8\n25 web 8\n' > bytes.log
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --increase 3 --rate 3 bytes.log
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf '0\t10\tweb\t5\t0.5\n10\t20\tweb\t8\t0.8\n20\t30\tweb\t5\t0.5')"
}

@test "--increase: exact decimals, the key's first value adds nothing, empty values are skipped" {
	printf '0,a,10.5\n1,a,11.1\n2,a,\n3,a,11.2\n4,b,7\n' > in.csv
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --increase 3 --count in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf '0,10,a,0.7,4\n0,10,b,0,1')"
}

@test "--increase: a key's previous value is kept across windows that hold none of its records" {
	printf '0 a 10\n100 a 15\n105 b 1\n300 a 2\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --increase 3 in
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf '0\t10\ta\t0\n100\t110\ta\t5\n100\t110\tb\t0\n300\t310\ta\t2')"
}

@test "--increase: values out of time order in stream mode count in time order" {
	# arrival order 10 30 20 would count 20 + a reset to 20
	printf '1 a 10\n5 a 30\n3 a 20\n12 a 31\n' > in
	run --separate-stderr fwin --mode stream -t 1 -k 2 --tumble 10s --increase 3 in
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf '0\t10\ta\t20\n10\t20\ta\t1')"
	# equal times: arrival order
	printf '1 a 10\n1 a 5\n1 a 7\n' > ties
	run --separate-stderr fwin --mode stream -t 1 -k 2 --tumble 10s --increase 3 ties
	assert_output "$(printf '0\t10\ta\t7')"
	run --separate-stderr fwin --mode batch -t 1 -k 2 --tumble 10s --increase 3 ties
	assert_output "$(printf '0\t10\ta\t7')"
}

@test "--increase: a window fired again by allowed lateness counts again" {
	printf '1 a 10\n5 a 20\n12 a 25\n7 a 30\n25 a 26\n' > in
	run --separate-stderr fwin --mode stream -t 1 -k 2 --tumble 10s --allowed-lateness 20s --increase 3 in
	assert_success
	assert_equal "$stderr" ""
	# [0,10) fires at 12 (10, 20: 10), again with 30 (20); [10,20) counts
	# from 30, so 25 is a reset
	assert_output "$(printf '0\t10\ta\t10\n0\t10\ta\t20\n10\t20\ta\t25\n20\t30\ta\t1')"
}

@test "--increase and --rate: count windows and rolling mode go by arrival" {
	printf '0 a 10\n5 a 15\n10 a 20\n15 a 3\n20 a 8\n25 a 8\n30 a 10.5\n35 a 11\n' > in
	run --separate-stderr fwin -k 2 --count-window 3 --increase 3 --rate 3 --flush in
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf 'a\t10\t\na\t8\t\na\t3\t')"
	run --separate-stderr fwin -k 2 --count-window 3,2 --increase 3 in
	# the windows of the last 3 records at every 2nd: 10 15 | 10 15 20 3 |
	# 20 3 8 8 | 8 10.5 11, each from the record before it
	assert_output "$(printf 'a\t5\na\t13\na\t8\na\t3')"
	run --separate-stderr fwin -t 1 -k 2 --increase 3 --rate 3 in
	assert_success
	assert_output "$(printf '0\ta\t0\t\n5\ta\t5\t\n10\ta\t10\t\n15\ta\t13\t\n20\ta\t18\t\n25\ta\t18\t\n30\ta\t20.5\t\n35\ta\t21\t')"
}

# --------------------------------------------------------------- --rate

@test "--rate: divided by each kind of window's length, empty where there is none" {
	printf '0 a 10\n5 a 15\n10 a 20\n15 a 3\n20 a 8\n25 a 8\n30 a 10.5\n35 a 11\n' > in
	run fwin -t 1 -k 2 --cumulate 20s,10s --rate 3 in
	assert_output "$(printf '0\t10\ta\t0.5\n0\t20\ta\t0.65\n20\t30\ta\t0.5\n20\t40\ta\t0.4')"
	run fwin -t 1 -k 2 --slide 20s,10s --rate 3 in
	assert_output "$(printf -- '-10\t10\ta\t0.25\n0\t20\ta\t0.65\n10\t30\ta\t0.65\n20\t40\ta\t0.4\n30\t50\ta\t0.15')"
	# sessions: from the first time to the last plus the gap
	run fwin -t 1 -k 2 --session 6s --rate 3 --increase 3 in
	assert_output "$(printf '0\t41\ta\t0.5121951219512195\t21')"
	run fwin -t 1 -k 2 --session 4s --rate 3 --increase 3 in
	assert_output "$(printf '0\t4\ta\t0\t0\n5\t9\ta\t1.25\t5\n10\t14\ta\t1.25\t5\n15\t19\ta\t0.75\t3\n20\t24\ta\t1.25\t5\n25\t29\ta\t0\t0\n30\t34\ta\t0.625\t2.5\n35\t39\ta\t0.125\t0.5')"
	# global: from the earliest time to the latest; none at one instant
	printf '0 a 10\n5 a 15\n35 a 11\n7 b 4\n' > g
	run fwin -t 1 -k 2 --global --rate 3 --increase 3 g
	assert_output "$(printf '7\t7\tb\t\t0\n0\t35\ta\t0.45714285714285713\t16')"
}

@test "--rate: the exact increase divided by the exact length, rounded once" {
	# 21 in 700 ms is 30 a second, 7 in 300 ms the double nearest 70/3;
	# dividing by 0.7 and 0.3, doubles below and above those lengths,
	# gave 30.000000000000004 and 23.333333333333336
	printf '0 a 0\n1 a 21\n700 a 21\n701 a 28\n' > in
	run fwin -t 1 --time-format ms -k 2 --tumble 700ms --increase 3 --rate 3 in
	assert_output "$(printf '0\t700\ta\t21\t30\n700\t1400\ta\t7\t10')"
	run fwin -t 1 --time-format ms -k 2 --tumble 300ms --rate 3 in
	assert_output "$(printf '0\t300\ta\t70\n600\t900\ta\t23.333333333333332')"
	# --over 1ns: 1 in a nanosecond is 1e9 a second
	printf '0 a 0\n1 a 1\n' > ns
	run fwin -t 1 --time-format ns -k 2 --over 1ns --rate 3 ns
	assert_output "$(printf '0\ta\t0\t0\n1\ta\t1\t1000000000')"
}

# ------------------------------------------------------------ --histogram

@test "--histogram: cumulative le columns and le_inf, counts never empty, header and json names" {
	printf 'ts,path,ms\n1,/a,50\n2,/a,100\n3,/a,101\n4,/a,5000\n5,/a,\n11,/b,\n12,/b,250\n' > in.csv
	run --separate-stderr fwin --csv -H -t ts -k path --tumble 10s --histogram ms:100,250.0,1000 --count in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "window_start,window_end,path,ms_le_100,ms_le_250.0,ms_le_1000,ms_le_inf,count
0,10,/a,2,3,3,4,5
10,20,/b,0,1,1,1,2"
	run --separate-stderr fwin --csv -H -t ts -k path --tumble 10s --histogram ms:100 --increase ms --rate ms --output-format json in.csv
	assert_success
	assert_output '{"window_start":0,"window_end":10,"path":"/a","ms_le_100":2,"ms_le_inf":4,"increase_ms":4950,"rate_ms":495}
{"window_start":10,"window_end":20,"path":"/b","ms_le_100":0,"ms_le_inf":1,"increase_ms":0,"rate_ms":0}'
	# a window whose values are all NULL: zeros, and empty counters
	printf '1,a,\n' > nulls.csv
	run fwin --csv -t 1 -k 2 --tumble 10s --histogram 3:-1.5,2 --increase 3 nulls.csv
	assert_output "0,10,a,0,0,0,"
	# --fill: an empty window's histogram is zeros
	printf '1 a 3\n25 a 1\n' > gap
	run fwin -t 1 -k 2 --tumble 10s --fill --histogram 3:2 --increase 3 gap
	assert_output "$(printf '0\t10\ta\t0\t1\t0\n10\t20\ta\t0\t0\t\n20\t30\ta\t1\t1\t1')"
}

@test "--histogram: a value is compared as its nearest double, as Prometheus compares it" {
	printf '1 a 100.0000000000000001
1 a 100.00000000000002
1 a 9007199254740993
' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --histogram 3:100,9007199254740992 in
	assert_success
	assert_output "$(printf '0\t10\ta\t1\t3\t3')"
}

@test "--histogram: bounds must be numbers in ascending order" {
	printf '1 a 3\n' > in
	bad() {
		run --separate-stderr fwin -t 1 --tumble 1s --histogram "$1" in
		assert_failure 2
		assert_output ""
		assert_equal "$stderr" "fwin: --histogram: $2
Try 'fwin --help' for more information."
	}
	bad 3:100,50 "bad bounds '100,50' (bounds must be ascending)"
	bad 3:5,5 "bad bounds '5,5' (bounds must be ascending)"
	bad 3:5,x "bad bounds '5,x' (a bound is not a number)"
	bad 3:5,,6 "bad bounds '5,,6' (a bound is not a number)"
	bad 3: "bad bounds '' (no bound)"
	bad 3 "'3' names no bounds (F:B1,B2,...)"
	run --separate-stderr fwin -t 1 --tumble 1s --histogram 3:-2,1e3 in
	assert_success
	assert_output "$(printf '1\t2\t0\t1\t1')"
	run fwin --help
	assert_output --partial "--increase F"
	assert_output --partial "--histogram F:B[,B...]"
}

@test "--increase and --rate: a value that is not a number makes the record bad" {
	printf '1 a 3\n2 a x\n3 a 5\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --increase 3 in
	assert_success
	assert_output "$(printf '0\t10\ta\t2')"
	assert_equal "$stderr" 'fwin: in:2: field 3: not a number "x"; record skipped
fwin: 1 bad record skipped'
}

# ------------------------------------------- every window kind, reckoned

# check_kind WINDOW...: on cgen 7 3000, each row of --mode stream over the
# file out of order (-l 60s: nothing late), reckoned from the sorted
# records; the same bytes from --mode batch over the file out of order
# and from a stream over the sorted file.
check_kind() {
	cgen 7 3000 > in
	sort -s -t, -k1,1n in > sorted
	run --separate-stderr fwin "${ARGS[@]}" --mode stream -l 60s "$@" in
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > stream
	[ "$(wc -l < stream)" -gt 2 ]
	global=0
	[ "$1" = --global ] && global=1
	run reckon sorted stream $global
	assert_output ""
	fwin "${ARGS[@]}" --mode stream -l 60s "$@" sorted > sorted.out 2> /dev/null
	cmp stream sorted.out
	if [ "$1" != --session ]; then
		# batch mode's sessions merge touching ones, as a stream -l 60s
		# over this file does; others are the same in any case
		fwin "${ARGS[@]}" --mode batch "$@" in > batch 2> /dev/null
		cmp stream batch
	fi
}

@test "every kind of window: increase and rate reckoned from the sorted records, stream = batch" {
	for w in "--tumble 60s" "--tumble 7s" "--slide 60s,20s" "--slide 30s,20s" \
		"--cumulate 60s,20s" "--session 3s" "--global"; do
		check_kind $w || { echo "failed: $w"; false; }
	done
}

@test "consecutive windows add up to the whole increase of each key" {
	cgen 11 3000 > in
	fwin "${ARGS[@]}" --mode stream -l 60s --global in > whole 2> /dev/null
	sort -s -t, -k1,1n in > sorted
	# count windows go by arrival: over the records in time order
	for w in "--tumble 10s in" "--tumble 1m in" "--session 2s in" "--count-window 7 --flush sorted"; do
		fwin "${ARGS[@]}" --mode stream -l 60s $w 2> /dev/null |
			awk -F, -v w="$w" '{ k = w ~ /count/ ? $1 : $3; i = w ~ /count/ ? $2 : $4; s[k] += i }
			END { for (k in s) printf "%s,%.10g\n", k, s[k] }' | sort > parts
		cut -d, -f3,4 whole | sort > want
		cmp parts want || { echo "$w"; diff parts want; false; }
	done
}

@test "the same bytes with 1, 2 and 4 threads, in stream and batch mode" {
	cgen 13 4000 > in
	for w in "--tumble 30s" "--slide 60s,20s" "--session 3s" "--global"; do
		threads_alike "1 2 4" "${ARGS[@]}" --histogram 3:10,100 --mode stream -l 60s $w in
		threads_alike "1 2 4" "${ARGS[@]}" --histogram 3:10,100 --mode batch $w in
	done
	threads_alike "1 2 4" "${ARGS[@]}" --count-window 5,2 in
}

@test "a restore in the middle: a run in two parts writes the bytes of one run" {
	cgen 17 3000 > full
	for w in "--tumble 30s" "--slide 60s,20s" "--session 3s" "--cumulate 60s,20s" "--count-window 4"; do
		rm -f ref.csv out.csv s.ckpt
		fwin "${ARGS[@]}" --histogram 3:20 --mode stream -l 60s $w --flush -o ref.csv full 2> /dev/null
		head -n 1300 full > grow
		fwin "${ARGS[@]}" --histogram 3:20 --mode stream -l 60s $w --state s.ckpt -o out.csv grow 2> /dev/null
		cp full grow
		fwin "${ARGS[@]}" --histogram 3:20 --mode stream -l 60s $w --state s.ckpt --flush -o out.csv grow 2> /dev/null
		cmp ref.csv out.csv || { echo "$w"; diff ref.csv out.csv | head; false; }
	done
}

@test "--explain flink-sql: --increase and --rate exit 2 naming each" {
	printf '1 a 2\n' > in
	run --separate-stderr fwin --explain flink-sql -t 1 -k 2 --tumble 1m --count --rate 3 --increase 3 in
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: --explain flink-sql: the reset rule of --rate 3 and --increase 3 has no Flink SQL counterpart"
	run --separate-stderr fwin --explain flink-sql -t 1 -k 2 --tumble 1m --increase 3 in
	assert_failure 2
	assert_equal "$stderr" "fwin: --explain flink-sql: the reset rule of --increase 3 has no Flink SQL counterpart"
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format s -k 2 --tumble 1m --histogram 3:0.5,10 in
	assert_success
	assert_output --partial "  COUNT(CASE WHEN CAST(\`f3\` AS DOUBLE) <= 0.5 THEN 1 END) AS \`3_le_0.5\`,
  COUNT(CASE WHEN CAST(\`f3\` AS DOUBLE) <= 10 THEN 1 END) AS \`3_le_10\`,
  COUNT(CASE WHEN \`f3\` IS NOT NULL THEN 1 END) AS \`3_le_inf\`
FROM TABLE("
}

@test "--histogram alone: the tables of batch and stream mode give the operator's bytes" {
	cgen 19 200000 > in	# 2.4 MB: two threads read it in halves
	sort -s -t, -k1,1n in > sorted
	run --separate-stderr fwin --threads 2 --csv -t 1 -k 2 --tumble 30s --histogram 3:10,100 --mode batch --stats in
	assert_regex "$stderr" "aggregated as read, in two halves"
	run --separate-stderr fwin --threads 2 --csv -t 1 -k 2 --cumulate 60s,20s --histogram 3:10,100 -l 60s --mode stream --stats in
	assert_regex "$stderr" "mode stream, aggregated as read, in two halves"
	for w in "--tumble 30s" "--cumulate 60s,20s" "--slide 60s,20s"; do
		h=(--csv -t 1 -k 2 $w --histogram 3:10,100,1000 --count)
		fwin "${h[@]}" --mode stream sorted > want
		[ "$(wc -l < want)" -gt 20 ]
		for n in 1 2 4; do
			fwin --threads $n "${h[@]}" --mode batch in > got
			cmp got want
			fwin --threads $n "${h[@]}" --mode stream -l 60s in > got
			cmp got want
		done
	done
}

@test "a damaged counter checkpoint behind a good checksum never crashes fwin" {
	command -v cc > /dev/null || skip "no C compiler"
	cc -O2 -o ckmangle "$BATS_TEST_DIRNAME/ckpt/ckmangle.c" -lxxhash ||
		skip "cannot build ckmangle (libxxhash-dev)"
	# open windows of two keys, values out of order (kept lists), a
	# key's block of dropped values, sessions and histograms
	printf '1,a,5\n7,a,3\n3,a,9\n12,b,1\n25,a,7\n21,a,2\n14,b,4\n' > in.csv
	c=(--csv -t 1 -k 2 --mode stream -l 8s --tumble 10s --increase 3 --rate 3 --histogram 3:2,6)
	fwin "${c[@]}" --checkpoint real.ckpt in.csv > /dev/null
	read -r hdrlen paylen mapcap < <(./ckmangle --info real.ckpt)
	printf '30,a,9\n' > more.csv
	for ((p = hdrlen; p < hdrlen + paylen; p += 7)); do
		./ckmangle real.ckpt bad.ckpt "$p" $(((p / 7) % 2 ? 0x80 : 0x03)) fix
		status=0
		timeout 20 "$FWIN" "${c[@]}" --restore bad.ckpt --new-input more.csv > /dev/null 2> err || status=$?
		((status <= 1)) || fail "byte $p: status $status: $(head -c 500 err)"
		! grep -qE 'Sanitizer|runtime error|Segmentation' err || fail "byte $p: $(head -c 500 err)"
	done
}
