#!/usr/bin/env bats
# Session windows: --session GAP (fwin(1): Session windows).
# Every expected output below is derived by hand from fwin(1).
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr; then assert_output.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# ------------------------------------------------------------- merging

@test "session: records exactly GAP apart touch and merge" {
	printf '0\n10\n20\n' > in
	# [0,10) + [10,20) touch (10 <= 10) -> [0,20); + [20,30) -> [0,30).
	ok -t 1 --session 10s in
	assert_output $'0\t30\t3'
}

@test "session: --offset has no effect (a session is not aligned)" {
	printf '0\n10\n20\n31\n' > in
	ok -t 1 --session 10s --offset 3s in
	assert_output $'0\t30\t3\n31\t41\t1'
}

@test "session: a record more than GAP after the last starts a new session" {
	printf '0\n10\n20\n30.5\n' > in
	# [0,30) and [30.5,40.5) do not touch; 30.5 sets W=30.5 and fires [0,30).
	ok -t 1 --session 10s in
	assert_output $'0\t30\t3\n30.5\t40.5\t1'
}

@test "session: overlapping records merge, sessions are per key" {
	printf '0 a\n3 b\n5 a\n9 a\n14 b\n30 c\n' > in
	# a: [0,10) [5,15) [9,19) -> [0,19); b: [3,13) [14,24) apart.
	# 14 -> W=14 fires b [3,13); 30 -> W=30 fires a [0,19) then b [14,24).
	ok -t 1 -k 2 --session 10s in
	assert_output $'3\t13\tb\t1\n0\t19\ta\t3\n14\t24\tb\t1\n30\t40\tc\t1'
}

@test "session: a bridging record merges two sessions into one" {
	printf '0 a 1\n15 b 2\n8 c 4\n' > in
	# -l 10s: W = -10, 5, 5. [0,10) and [15,25) are apart; 8 makes [8,18),
	# which touches both: [0,25) with all three records.
	ok -t 1 --session 10s -l 10s -c --sum 3 --first 2 --last 2 in
	assert_output $'0\t25\t3\t7\ta\tc'
}

@test "session: without the bridging record the two sessions stay apart" {
	printf '0 a 1\n15 b 2\n' > in
	ok -t 1 --session 10s -l 10s -c --sum 3 --first 2 --last 2 in
	assert_output $'0\t10\t1\t1\ta\ta\n15\t25\t1\t2\tb\tb'
}

# ------------------------------------------------------------ lateness

@test "session: a record behind the watermark that lands in a live session is kept" {
	printf '0\n8\n16\n5\n' > in
	# after 16: session [0,26), W=16. 5 alone is [5,15), end 15 <= W (expired),
	# but merged it is [0,26): not expired, not late.
	ok -t 1 --session 10s --late-file late -c --sum 1 in
	assert_output $'0\t26\t4\t29'
	[ ! -s late ]
}

@test "session: a record behind the watermark with no live session to join is late" {
	printf '0\n30\n5\n' > in
	# 30: W=30 fires [0,10), which is expired (A=0) and purged; 5 alone is
	# [5,15), expired: late.
	ok -t 1 --session 10s --late-file late in
	assert_output $'0\t10\t1\n30\t40\t1'
	assert_equal "$(cat late)" "5"
}

@test "session: allowed lateness re-fires a merged session at once, then purges it" {
	printf '%s\n' 0 15 30 8 12 40 55 14 19 > in
	# A=30s. 15 fires [0,10); 30 fires [15,25). 8 (W=30) makes [8,18), which
	# touches both fired sessions: [0,25), end <= W: fires at once with 3;
	# 12 lands in it: fires again with 4. 40 joins [30,40) -> [30,50).
	# 55: fires [30,50); W = 25+30: [0,25) purged. 14 alone [14,24) is
	# expired (24+30 <= 55): late, not merged into the purged session.
	# 19 alone [19,29) is not expired: a new session, fires at once.
	ok -t 1 --session 10s --allowed-lateness 30s --late-file late in
	assert_output $'0\t10\t1\n15\t25\t1\n0\t25\t3\n0\t25\t4\n30\t50\t2\n19\t29\t1\n55\t65\t1'
	assert_equal "$(cat late)" "14"
}

@test "session: a merged session that ends after W fires when W reaches its end" {
	printf '%s\n' 0 12 5 25 > in
	# A=30s: 12 fires [0,10). 5 makes [5,15): merges the fired [0,10) and the
	# open [12,22) into [0,22), end 22 > W=12: not fired at once.
	# 25: W=25 fires [0,22) with 3.
	ok -t 1 --session 10s --allowed-lateness 30s in
	assert_output $'0\t10\t1\n0\t22\t3\n25\t35\t1'
}

@test "session: without allowed lateness the fired session is purged, not merged" {
	printf '%s\n' 0 12 5 25 > in
	# A=0: [0,10) is purged at W=12; 5 makes [5,15), merges only [12,22).
	ok --mode stream -t 1 --session 10s in
	assert_output $'0\t10\t1\n5\t22\t2\n25\t35\t1'
}

# ---------------------------------------------------------- aggregates

@test "session: first/last by arrival order across merges" {
	printf '20 p\n0 q\n5 r\n12 s\n' > in
	# -l 30s: p [20,30), q [0,10), r joins q -> [0,15), s [12,22) bridges
	# -> [0,30). first is p (arrived first), last is s (arrived last).
	ok -t 1 --session 10s -l 30s --first 2 --last 2 in
	assert_output $'0\t30\tp\ts'
}

@test "session: every aggregate across merges" {
	printf '20 p 5 P\n0 q 2.5 Q\n5 r 7 R\n12 s 1 S\n' > in
	ok -t 1 --session 10s -l 30s --count --sum 3 --avg 3 --min 3 --max 3 \
		--first 2 --last 2 --distinct 4 --min-by 3:2 --max-by 3 --min-by 3 --max-by 3:4 in
	assert_output $'0\t30\t4\t15.5\t3.875\t1\t7\tp\ts\t4\ts\t5 r 7 R\t12 s 1 S\tR'
}

@test "session: ties in min/max/min-by/max-by go to the first to arrive across merges" {
	printf '20 p 1.0\n0 q 1\n12 r 5\n7 s 5.0\n' > in
	# -l 30s: p [20,30), q [0,10), r [12,22) bridges -> [0,30), s joins.
	# min: p (1.0) arrived before q (1); max: r (5) before s (5.0).
	ok -t 1 --session 10s -l 30s --min 3 --max 3 --min-by 3:2 --max-by 3:2 in
	assert_output $'0\t30\t1.0\t5\tp\tr'
}

@test "session: integer sum stays an integer across a merge" {
	printf '0 a 2\n15 a 3\n8 a 4\n' > in
	ok -t 1 -k 2 --session 10s -l 10s --sum 3 --avg 3 in
	assert_output $'0\t25\ta\t9\t3'
}

# ------------------------------------------------------------ ordering

@test "session: sessions of several keys firing together are in (end, start, key) order" {
	printf '%s\n' '5 b' '5 a' '0 c' '5 c' '1 z' '5 ab' '30 a' '30 B' '200 x' > in
	# -l 100s: nothing fires until 200 (W=100). z [1,11); c [0,15);
	# a, ab, b [5,15); B, a [30,40); keys as bytes: B < a < ab < b.
	ok -t 1 -k 2 --session 10s -l 100s in
	assert_output "$(printf '%s\t%s\t%s\t%s\n' 1 11 z 1  0 15 c 2  5 15 a 1  5 15 ab 1 \
		5 15 b 1  30 40 B 1  30 40 a 1  200 210 x 1)"
}

@test "session: open sessions fire at end of input in (end, start, key) order" {
	printf '%s\n' '3 b' '0 a' '3 a' '1 c' > in
	# a [0,13), b [3,13), c [1,11), all open at the end.
	ok -t 1 -k 2 --session 10s -l 1m in
	assert_output $'1\t11\tc\t1\n0\t13\ta\t2\n3\t13\tb\t1'
}

@test "session: --no-flush leaves open sessions unfired" {
	printf '0 a\n5 a\n20 b\n' > in
	# 20: W=20 fires a [0,15); b [20,30) is open at the end.
	ok -t 1 -k 2 --session 10s --no-flush in
	assert_output $'0\t15\ta\t2'
}

@test "session: GAP with units, iso times" {
	printf '%s\n' 2026-11-29T20:00:00Z 2026-11-29T20:04:00Z 2026-11-29T20:09:00Z \
		2026-11-29T20:20:00Z > in
	# 5m gap: 20:00 [..05), 20:04 [..09) merge, 20:09 touches 20:09: [20:00,20:14).
	ok -t 1 --session 5m in
	assert_output $'2026-11-29T20:00:00Z\t2026-11-29T20:14:00Z\t3\n2026-11-29T20:20:00Z\t2026-11-29T20:25:00Z\t1'
}

# --------------------------------------------------------------- output

@test "session: csv output with -H header" {
	printf 'ts,user,amt\n0,ann,5\n5,bob,2\n8,ann,1\n30,ann,4\n' > in
	# ann [0,10) + [8,18) -> [0,18); bob [5,15). 30 fires bob (end 15), ann (18).
	ok --csv -H -t ts -k user --session 10s -c --sum amt in
	assert_output $'window_start,window_end,user,count,sum_amt\n5,15,bob,1,2\n0,18,ann,2,6\n30,40,ann,1,4'
}

@test "session: tsv output with -H header" {
	printf 'ts user amt\n0 ann 5\n8 ann 1\n' > in
	ok -H -t ts -k user --session 10s --sum amt --first amt in
	assert_output $'window_start\twindow_end\tuser\tsum_amt\tfirst_amt\n0\t18\tann\t6\t5'
}

@test "session: json output, with -H and without" {
	printf 'ts,user,amt\n0,ann,5\n5,bob,2\n8,ann,1\n30,ann,4\n' > in
	ok --csv -H -t ts -k user --session 10s -c --sum amt --output-format json in
	assert_output '{"window_start":5,"window_end":15,"user":"bob","count":1,"sum_amt":2}
{"window_start":0,"window_end":18,"user":"ann","count":2,"sum_amt":6}
{"window_start":30,"window_end":40,"user":"ann","count":1,"sum_amt":4}'
	tail -n +2 in > nohdr
	ok --csv -t 1 -k 2 --session 10s -c --last 3 --output-format json nohdr
	# --last is a string in json (fwin(1))
	assert_output '{"window_start":5,"window_end":15,"key1":"bob","count":1,"last_3":"2"}
{"window_start":0,"window_end":18,"key1":"ann","count":2,"last_3":"1"}
{"window_start":30,"window_end":40,"key1":"ann","count":1,"last_3":"4"}'
}

@test "session: json output with iso times as strings" {
	printf '%s\n' 2026-11-29T20:00:00Z 2026-11-29T20:03:00Z > in
	ok -t 1 --session 5m --output-format json in
	assert_output '{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:08:00Z","count":2}'
}
