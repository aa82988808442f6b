#!/usr/bin/env bats
# Expressions (fwin(1), EXPRESSIONS): --where, --if, --as, --having and
# --eval through the binary, for each input format, in stream and batch
# mode, on every route a record can take (threads, the table aggregated
# as read, the two halves, the sorted replay, key-group workers); a
# random comparison of --where with the same records filtered by awk.
load common

GEN=$BATS_TEST_DIRNAME/../scripts/gen

# flink_grammar FILE...: each script read by a Flink SQL grammar (the
# one explain.bats installs; skipped without it)
flink_grammar() {
	[ -s "$FLINKSQL/check.cjs" ] || skip "Flink SQL grammar check: explain.bats installs it"
	run node "$FLINKSQL/check.cjs" "$@"
	assert_success
	assert_output ""
}

# The access log of the man page's EXPRESSIONS.
access() {
	cat > access.csv <<'EOF'
ts,host,status,bytes,path
2026-11-29T20:00:01Z,web1,200,512,/
2026-11-29T20:00:02Z,web2,200,2048,/api/orders
2026-11-29T20:00:09Z,web1,503,0,/api/orders
2026-11-29T20:00:15Z,web1,200,730,/login
2026-11-29T20:00:31Z,web2,404,120,/favicon.ico
2026-11-29T20:00:48Z,web1,200,512,/
2026-11-29T20:01:03Z,web2,500,0,/api/orders
2026-11-29T20:01:05Z,web2,502,0,/api/orders
2026-11-29T20:01:20Z,web1,200,512,/
2026-11-29T20:01:44Z,web2,200,1024,/api/orders
EOF
}

# A small log in seconds: ts,host,status,bytes (one status empty).
small() {
	printf 'ts,host,status,bytes\n0,a,200,10\n5,b,500,20\n10,a,503,5\n20,c,,7\n65,a,200,7\n70,b,404,1\n' > log.csv
}

# The --stats line without its timing.
stats_of() {
	grep '^fwin: stats: ' <<<"$1" | sed 's/, [0-9.]* s, [0-9]* records\/s,/,/'
}

@test "--where over csv: only the records it is true for enter windows; --stats counts the others" {
	small
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --sum bytes --where 'status >= 400' --stats log.csv
	assert_success
	assert_output "window_start,window_end,host,count,sum_bytes
0,60,a,1,5
0,60,b,1,20
60,120,b,1,1"
	assert_regex "$(stats_of "$stderr")" "^fwin: stats: records 6, bad 0, filtered 3, late 0, in no window 0, windows fired 3, open windows 0, keys 3, peak state [0-9]+ bytes, mode batch, in time order$"
	# without --where, no filtered count
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --stats log.csv
	assert_regex "$stderr" '^fwin: stats: records 6, bad 0, late 0,'
}

@test "--where over tsv, lines (\$N) and json (paths)" {
	small
	tr , '\t' < log.csv > log.tsv
	run --separate-stderr fwin --tsv -H -t ts -k host --tumble 1m --where 'host in ("a", "c") && status is null || status ~ "^5"' log.tsv
	assert_success
	assert_equal "$stderr" ""
	assert_output "window_start	window_end	host	count
0	60	a	1
0	60	b	1
0	60	c	1"
	tail -n +2 log.csv | tr , ' ' > log.txt
	# lines split on runs of blanks: "20 c  7" has no fourth field
	run --separate-stderr fwin -t 1 -k 2 --tumble 1m --where '$4 > 6 and not $3 == 200' log.txt
	assert_success
	assert_output "0	60	b	1"
	printf '%s\n' '{"t":0,"u":{"id":"x"},"s":500}' '{"t":1,"u":{"id":"y"},"s":200}' \
		'{"t":2,"u":{"id":"x"},"s":null}' '{"t":3,"u":{"id":"x"},"s":502}' \
		'{"t":4,"u":{"id":"z"}}' > log.json
	run --separate-stderr fwin --json -t t -k u.id --tumble 1m --count --if 's >= 500' --as errors --where 'u.id != "y" && ${u.id} != "z"' log.json
	assert_success
	assert_equal "$stderr" ""
	assert_output '{"window_start":0,"window_end":60,"u.id":"x","errors":2}'
}

@test "--where: a record it rejects still moves the watermark, on every route" {
	printf '0 a 1\n70 a 0\n30 b 1\n90 b 1\n' > wm.txt
	want="0	60	a	1
60	120	b	1"
	late="fwin: 1 late record dropped (the latest by 40s behind the watermark); -l 40s, --late-file or --mode batch keeps them"
	for th in 1 2 4; do
		# a file, or input read once: the table aggregated as read
		run --separate-stderr fwin --threads $th --mode stream -t 1 -k 2 --tumble 1m --where '$3 > 0' wm.txt
		assert_success
		assert_output "$want"
		assert_equal "$stderr" "$late"
		run --separate-stderr fwin --threads $th --mode stream -t 1 -k 2 --tumble 1m --where '$3 > 0' --stats < wm.txt
		assert_output "$want"
		assert_equal "$(grep -v '^fwin: stats' <<<"$stderr")" "$late"
		assert_regex "$stderr" 'filtered 1, late 1,'
	done
	# the operator, and the key-group workers
	for s in ordered keyed; do
		FWIN_STRATEGY=$s run --separate-stderr fwin --threads 4 --mode stream -t 1 -k 2 --tumble 1m --where '$3 > 0' --stats < wm.txt
		assert_output "$want"
		assert_equal "$(grep -v '^fwin: stats' <<<"$stderr")" "$late"
		assert_regex "$stderr" 'filtered 1, late 1,'
	done
	assert_regex "$stderr" 'keys over workers'
	# batch mode: nothing is late
	run --separate-stderr fwin --mode batch -t 1 -k 2 --tumble 1m --where '$3 > 0' wm.txt
	assert_success
	assert_output "0	60	a	1
0	60	b	1
60	120	b	1"
}

@test "--where: a bad time, key or value is bad whatever it says; a field it alone names is never bad" {
	printf 'ts,host,status\n0,a,200\nx,a,200\n2,b,\n3,,500\n' > bad.csv
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --where 'status >= 400 && $9 is null' --sum status bad.csv
	assert_success
	assert_output "window_start,window_end,host,sum_status
0,60,,500"
	assert_equal "$stderr" "fwin: bad.csv:3: field ts: bad time \"x\"; record skipped
fwin: 1 bad record skipped"
	# -H names: a field the header lacks is a usage error, with the place
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --where 'status >= 400 && stauts < 600' bad.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --where: at 18: no field 'stauts' in the header; did you mean 'status'?"
	run --separate-stderr fwin -t 1 --tumble 1m --where 'status' bad.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --where: at 1: field name 'status' needs -H (a header row)"
}

@test "NULL is unknown, text compares as bytes, numbers as numbers" {
	small
	f() { fwin --csv -H -t ts --tumble 1h --count --where "$1" log.csv | tail -n +2 | cut -d, -f3; }
	# status: 200 500 503 "" 200 404
	assert_equal "$(f 'status != 200')" 3
	assert_equal "$(f '!(status == 200)')" 3
	assert_equal "$(f 'status is null || status != 200')" 4
	assert_equal "$(f 'not status is not null')" 1
	assert_equal "$(f 'status > 450')" 2
	# a quoted literal is text: "503" > "5" and "500" > "5" as bytes, and "404" < "5"
	assert_equal "$(f 'status > "5"')" 2
	assert_equal "$(f 'status < "5"')" 3
	assert_equal "$(f 'status == ""')" ""
	assert_equal "$(f 'coalesce(status, 0) == 0')" 1
	assert_equal "$(f 'status % 100 == 0 && status / 100 in (2, 5)')" 3
	assert_equal "$(f 'host ~ "^[ab]$" && host !~ "b"')" 3
	# at the bound of what a regular expression may repeat (EXPRESSIONS)
	assert_equal "$(f 'host ~ "^a{1,4000}$" && host ~ "^x{0,2000}y{0,2000}a$"')" 3
	assert_equal "$(f 'ts >= 5 and ts < 65 or bytes == 1')" 4
}

@test "in a boolean place JSON's false is false, as the text false in any case; other text is true" {
	printf '%s\n' '{"ts":1,"k":"a","b":false}' '{"ts":2,"k":"a","b":true}' \
	    '{"ts":3,"k":"a","b":"FALSE"}' '{"ts":4,"k":"a","b":"no"}' \
	    '{"ts":5,"k":"a","b":0}' '{"ts":6,"k":"a","b":null}' > b.jsonl
	run fwin --json -t ts -k k --tumble 1m --count --where 'b' b.jsonl
	assert_success
	assert_output '{"window_start":0,"window_end":60,"k":"a","count":2}'
	run fwin --json -t ts -k k --tumble 1m --count --where '!b' b.jsonl
	assert_output '{"window_start":0,"window_end":60,"k":"a","count":3}'
	run fwin --json -t ts -k k --over-rows 1 --count --eval 'v=b && 1' b.jsonl
	assert_output '{"ts":1,"k":"a","b":false,"count":1,"v":0}
{"ts":2,"k":"a","b":true,"count":1,"v":1}
{"ts":3,"k":"a","b":"FALSE","count":1,"v":0}
{"ts":4,"k":"a","b":"no","count":1,"v":1}
{"ts":5,"k":"a","b":0,"count":1,"v":0}
{"ts":6,"k":"a","b":null,"count":1,"v":null}'
}

@test "the literal -9223372036854775808 is the least integer, as SQL reads it" {
	printf 'ts,k\n0,a\n' > li.csv
	run --separate-stderr fwin --csv -H -t ts --over-rows 1 --count \
	    --eval 'r=-9223372036854775808' --eval 'p=-9223372036854775808 + 1' \
	    --eval 'q=-9223372036854775808 - 1' --eval 'n=-(9223372036854775808)' li.csv
	assert_success
	assert_output "ts,k,count,r,p,q,n
0,a,1,-9223372036854775808,-9223372036854775807,-9.223372036854776e+18,-9.223372036854776e+18"
}

@test "an integer and a decimal compare exactly, past the 53 bits of a double" {
	# 2^53 + 1 and 2^63 - 1 are not the doubles they round to
	printf 'ts,k,i,d\n0,a,9007199254740993,9007199254740992.0\n0,b,9223372036854775807,9223372036854775808.0\n0,c,-9223372036854775807,-9223372036854775808.0\n0,d,12,12.0\n' > big.csv
	run fwin --csv -H -t ts -k k --over-rows 1 --count --eval 'eq=i == d' \
	    --eval 'lt=i < d' --eval 'gt=i > d' --eval 'hi=max(i, d)' \
	    --eval 'in=d in (i)' big.csv
	assert_success
	assert_output "ts,k,i,d,count,eq,lt,gt,hi,in
0,a,9007199254740993,9007199254740992.0,1,0,0,1,9007199254740993,0
0,b,9223372036854775807,9223372036854775808.0,1,0,1,0,9.223372036854776e+18,0
0,c,-9223372036854775807,-9223372036854775808.0,1,0,0,1,-9223372036854775807,0
0,d,12,12.0,1,1,0,0,12,1"
	run fwin --csv -H -t ts --tumble 1m --count --where 'i != d' big.csv
	assert_output "window_start,window_end,count
0,60,3"
}

@test "round() to more places than a number has keeps it; to fewer than its size makes 0" {
	printf 'ts,a\n0,1.25\n0,-2.5e-7\n' > r.csv
	run --separate-stderr fwin --csv -H -t ts --over-rows 1 --count \
	    --eval 'p=round(a, 400)' --eval 'q=round(a, 301)' \
	    --eval 'n=round(a, -400)' --eval 'm=round(1e300, -400)' \
	    --eval 'x=round(a, 9223372036854775807)' --eval 's=round(1e-310, 310)' r.csv
	assert_success
	assert_output "ts,a,count,p,q,n,m,x,s
0,1.25,1,1.25,1.25,0,0,1.25,1e-310
0,-2.5e-7,1,-2.5e-07,-2.5e-07,0,0,-2.5e-07,1e-310"
}

@test "--if and --as: an aggregate of the records its condition is true for" {
	small
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --count --if 'status >= 500' --as errors --sum bytes --if 'status == 404' --as errors404 --max bytes --as 'max bytes' --if 'status < 300' --distinct status --if 'status > 999' log.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "window_start,window_end,host,count,errors,errors404,max bytes,distinct_status
0,60,a,2,1,,10,0
0,60,b,1,1,,,0
0,60,c,1,0,,,0
60,120,a,1,0,,7,0
60,120,b,1,0,1,,0"
	# json keys; the same on every route
	for th in 1 2 4; do
		for m in stream batch; do
			run --separate-stderr fwin --threads $th --mode $m --csv -H -t ts -k host --tumble 1m --output-format json --count --if 'bytes > 5' --as big --sum bytes --as total log.csv
			assert_success
			assert_output '{"window_start":0,"window_end":60,"host":"a","big":1,"total":15}
{"window_start":0,"window_end":60,"host":"b","big":1,"total":20}
{"window_start":0,"window_end":60,"host":"c","big":1,"total":7}
{"window_start":60,"window_end":120,"host":"a","big":1,"total":7}
{"window_start":60,"window_end":120,"host":"b","big":0,"total":1}'
		done
	done
}

@test "--if, --as: usage errors" {
	small
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --if 'status > 1' --count log.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --if needs an aggregate option before it (--count --if ...)
Try 'fwin --help' for more information."
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --count --if 'a' --if 'b' log.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --if: --count has one already (join conditions with &&)
Try 'fwin --help' for more information."
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --as host log.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --as: the output has two columns named 'host'"
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --count --sum bytes --as count log.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --as: the output has two columns named 'count'"
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --percentile bytes:50,99 --as p log.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --as: --percentile has a column per percentile; name one percentile per option
Try 'fwin --help' for more information."
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --count --as 'a}b' log.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --as: 'a}b': a name cannot hold '}', a tab or a newline
Try 'fwin --help' for more information."
}

@test "--eval appends columns, each seeing the ones before; --having keeps rows; both before --top" {
	access
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --as requests --count --if 'status >= 500' --as errors --eval 'error_rate=errors/requests' --having 'error_rate > 0.05' access.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "window_start,window_end,host,requests,errors,error_rate
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web1,4,1,0.25
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,3,2,0.6666666666666666"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --sum bytes --as bytes --eval 'kb=round(bytes / 1024, 1)' --eval 'big=kb > 2' --eval 'label=if(big, upper(host), lower("SMALL"))' --eval 'none=substr(host, 9)' --output-format json access.csv
	assert_success
	assert_output '{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:01:00Z","host":"web1","bytes":1754,"kb":1.7,"big":0,"label":"small","none":null}
{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:01:00Z","host":"web2","bytes":2168,"kb":2.1,"big":1,"label":"WEB2","none":null}
{"window_start":"2026-11-29T20:01:00Z","window_end":"2026-11-29T20:02:00Z","host":"web1","bytes":512,"kb":0.5,"big":0,"label":"small","none":null}
{"window_start":"2026-11-29T20:01:00Z","window_end":"2026-11-29T20:02:00Z","host":"web2","bytes":1024,"kb":1,"big":0,"label":"small","none":null}'
	# --having before --top: of the rows it keeps, the first by --top-by
	# (an --eval column); without it, web2 would rank first both times
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --sum bytes --eval 'kb=sum_bytes/1024' --having 'count >= 3' --top 1 --top-by kb access.csv
	assert_success
	assert_output "window_start,window_end,host,count,sum_bytes,kb
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web1,4,1754,1.712890625
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,3,1024,1"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --top 1 --top-by kb access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --top-by: no aggregate column 'kb'"
	# window_start as printed, \$N columns
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --output-time s --having 'window_start > 1795982400 && $3 == "web2"' access.csv
	assert_success
	assert_output "window_start,window_end,host,count
1795982460,1795982520,web2,3"
}

@test "--eval: a zero prints 0, never -0, as an aggregate prints it; --having compares it as before" {
	printf 'ts,a,b\n1,-0.04,-0.0\n2,0.0,-0.5\n' > z.csv
	# the sum of -0.0 prints 0; so do round(-0.04, 1), -0.5 * 0, -(0.0),
	# round(-0.001, 2), and a zero as text to a function or a later --eval
	run --separate-stderr fwin --csv -H -t ts --time-format s --over-rows 1 --sum b --eval 'r=round(a,1)' --eval 'm=b*0' --eval 'n=-a' --eval 'c=round(-0.001,2)' --eval 't=substr(a*0,1)' --eval 'u=substr(r,1)' z.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "ts,a,b,sum_b,r,m,n,c,t,u
1,-0.04,-0.0,0,0,0,0.04,0,0,0
2,0.0,-0.5,-0.5,0,0,0,0,0,0"
	run --separate-stderr fwin --csv -H -t ts --time-format s --over-rows 1 --count --eval 'r=round(a,1)' --having 'r = 0 && r >= 0 && r <= 0' z.csv
	assert_success
	assert_output "ts,a,b,count,r
1,-0.04,-0.0,1,0
2,0.0,-0.5,1,0"
	run --separate-stderr fwin --csv -H -t ts --time-format s --over-rows 1 --count --eval 'r=round(a,1)' --having 'r < 0 || r > 0 || r != 0' z.csv
	assert_success
	assert_output "ts,a,b,count,r"
	# of a window's aggregates, in every output format
	printf '1 a -0.001\n2 b 0.0\n' > z.txt
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10s --sum 3 --min 3 --eval 'r=round(sum_3,2)' --eval 's=-min_3' z.txt
	assert_success
	assert_output $'0\t10\ta\t-0.001\t-0.001\t0\t0.001\n0\t10\tb\t0\t0.0\t0\t0'
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10s --sum 3 --min 3 --eval 'r=round(sum_3,2)' --eval 's=-min_3' --output-format json z.txt
	assert_success
	assert_output '{"window_start":0,"window_end":10,"key1":"a","sum_3":-0.001,"min_3":-0.001,"r":0,"s":0.001}
{"window_start":0,"window_end":10,"key1":"b","sum_3":0,"min_3":0.0,"r":0,"s":0}'
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10s --sum 3 --eval 'r=round(sum_3,2)' --having 'r = 0' --output-format csv z.txt
	assert_success
	assert_output "0,10,a,-0.001,0
0,10,b,0,0"
}

@test "--having and --eval: unknown columns name the closest; \$N past the row" {
	access
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --having 'cnt > 1' access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --having: at 1: no column 'cnt'; did you mean 'count'?"
	# an --eval sees only the columns before it
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --eval 'a=b' --eval 'b=1' access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: at 1: no column 'b' yet: its --eval comes later (an --eval reads only the columns before its own)"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --eval 'x=$5' access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: at 1: no column \$5 (a row has 4 here)"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --eval 'count=1' access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: the output has two columns named 'count'"
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --eval 'x' access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: 'x' is not NAME=EXPR
Try 'fwin --help' for more information."
}

@test "--having and --eval: a name of two columns is a usage error, not the first or last of them" {
	printf 'ts,k,count\n1,a,5\n2,a,6\n' > dup.csv
	run --separate-stderr fwin --csv -H -t ts --time-format s -k k --over 5 --count --having 'count > 5' dup.csv
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: --having: at 1: 'count' names two columns, \$3 and \$4; name one apart with --as, or write \$N"
	run --separate-stderr fwin --csv -H -t ts --time-format s -k k --over 5 --count --as n --eval 'x=count+n' --having '$4 > 1' dup.csv
	assert_success
	assert_output $'ts,k,count,n,x\n2,a,6,2,8'
	# two aggregates named alike by default
	run --separate-stderr fwin --csv -H -t ts --time-format s -k k --tumble 5 --count --if 'count > 5' --count --eval 'r=count/2' dup.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: at 1: 'count' names two columns, \$4 and \$5; name one apart with --as, or write \$N"
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --time-format s -k k --over 5 --count --having 'count > 5' dup.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --having: at 1: 'count' names two columns, \$3 and \$4; name one apart with --as, or write \$N"
}

@test "--having reads --emit-every's final column, by name and \$N; --eval does not" {
	printf '5 a 1\n3 a 2\n5 a 3\n7 a 4\n4 a 9\n' > l.txt
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10 \
		--emit-every 4 --count --having 'final == 1' --mode stream l.txt
	assert_success
	assert_equal "$stderr" ""
	assert_output $'0\t10\ta\t5\t1'
	# final follows the --eval columns
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10 \
		--emit-every 4 --count --eval 'x=count*2' --having '$6 == 0 && x > 0' \
		--mode stream l.txt
	assert_success
	assert_output $'0\t10\ta\t1\t2\t0'
	run --separate-stderr fwin -t 1 --time-format s -k 2 --tumble 10 \
		--emit-every 4 --count --eval 'x=final' l.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: at 1: no column 'final' yet: --emit-every's 'final' comes after the --eval columns (an --eval reads only the columns before its own)"
	# the Flink SQL script's rows are all final
	run --separate-stderr fwin --explain flink-sql -t 1 --time-format s -k 2 \
		--tumble 10 --emit-every 4 --count --having 'final == 1' l.txt
	assert_success
	assert_line "WHERE (CAST('1' AS DOUBLE) = 1);"
	assert_line "--   script prints them, without the final column (--having reads it as 1)."
}

@test "parse errors say where, at start, with exit status 2" {
	e() {
		run --separate-stderr fwin --csv -H -t ts --tumble 1m "$@" /nonexistent
		assert_failure 2
		assert_output ""
	}
	e --where 'status > 0 && lenght(path) > 3'
	assert_equal "$stderr" "fwin: --where: at 15: unknown function 'lenght'; did you mean 'len'?
Try 'fwin --help' for more information."
	e --count --if 'substr(path)'
	assert_equal "$stderr" "fwin: --if: at 1: substr takes 2 or 3 arguments, not 1
Try 'fwin --help' for more information."
	e --having 'count > > 1'
	assert_equal "$stderr" "fwin: --having: at 9: expected a value, found '>'
Try 'fwin --help' for more information."
	e --eval 'r=(a + b'
	assert_equal "$stderr" "fwin: --eval: at 7: expected ')', found the end
Try 'fwin --help' for more information."
	e --where 'path ~ "(x"'
	assert_equal "$stderr" "fwin: --where: at 8: bad regular expression '(x': Unmatched ( or \\(
Try 'fwin --help' for more information."
	# (repetitions that would compile to gigabytes)
	e --where 'path ~ "a++++++++++++++++++++++"'
	assert_equal "$stderr" "fwin: --where: at 8: bad regular expression 'a++++++++++++++++++++++': its repetitions stack or nest past 100000 copies of its parts
Try 'fwin --help' for more information."
	e --where 'path !~ "((((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+"'
	[[ "$stderr" == *"its repetitions stack or nest past 100000 copies"* ]]
	e --count --if 'path ~ "(((a){1,100}){1,100}){1,100}"'
	[[ "$stderr" == *"its repetitions stack or nest past 100000 copies"* ]]
	# (runs of parts that can match the empty string: minutes to compile)
	e --where 'path ~ "a*??++++++++"'
	assert_equal "$stderr" "fwin: --where: at 8: bad regular expression 'a*??++++++++': its parts that can match the empty string run past 4000 copies in a row
Try 'fwin --help' for more information."
	e --where 'path ~ "x{1,32767}"'
	[[ "$stderr" == *"'x{1,32767}': its parts that can match the empty string run past 4000 copies in a row"* ]]
	e --where 'path ~ "x{1,32767"'
	[[ "$stderr" == *"'x{1,32767': Unmatched \{"* ]]
	e --having 'path !~ "([a-z]{0,3999}x){1,20}"'
	[[ "$stderr" == *"run past 4000 copies in a row"* ]]
	e --where 'a < b < c'
	assert_equal "$stderr" "fwin: --where: at 7: unexpected '<'
Try 'fwin --help' for more information."
	# nesting past 1000 levels (the parser's stack), however it nests
	deep=$(printf '%*s' 20000 '' | tr ' ' '('; printf 1; printf '%*s' 20000 '' | tr ' ' ')')
	e --where "$deep"
	assert_equal "$stderr" "fwin: --where: at 1001: nested more than 1000 levels deep
Try 'fwin --help' for more information."
	e --having "$(printf '%*s' 20000 '' | sed 's/ /abs(/g'; printf 1)"
	assert_equal "$stderr" "fwin: --having: at 4001: nested more than 1000 levels deep
Try 'fwin --help' for more information."
	e --count --if "$(printf '%*s' 20000 '' | tr ' ' '-')1"
	[[ "$stderr" == "fwin: --if: at 1001: nested more than 1000 levels deep"* ]]
	e --eval "x=$(printf 'not !%.0s' $(seq 10000))1"
	[[ "$stderr" == "fwin: --eval: at 2501: nested more than 1000 levels deep"* ]]
	# 1000 levels are read, evaluated and written as SQL
	deep=$(printf '%*s' 500 '' | sed 's/ /-(/g'; printf 2; printf '%*s' 500 '' | tr ' ' ')')
	printf 'ts,n\n2026-01-01T00:00:00Z,1\n' > in.csv
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --where "$deep == 2" in.csv
	assert_success
	assert_output $'window_start,window_end,count\n2026-01-01T00:00:00Z,2026-01-01T00:01:00Z,1'
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --tumble 1m --where "$deep == 2" in.csv
	assert_success
	e --where 'host == "web'
	assert_equal "$stderr" "fwin: --where: at 9: unterminated string
Try 'fwin --help' for more information."
	e --where 'a' --where 'b'
	assert_equal "$stderr" "fwin: --where may be given only once (join conditions with &&)
Try 'fwin --help' for more information."
}

@test "rolling mode and count windows" {
	small
	run --separate-stderr fwin --csv -H -k host --where 'bytes > 5' --count --eval 'two=count*2' --having 'count < 2' log.csv
	assert_success
	assert_output "host,count,two
a,1,2
b,1,2
c,1,2"
	run --separate-stderr fwin --csv -H -k host --count-window 2 --count --if 'status >= 500' --as errors --sum bytes log.csv
	assert_success
	assert_output "host,errors,sum_bytes
a,1,15
b,1,21"
}

@test "a checkpoint holds the expressions: another is refused" {
	small
	fwin --csv -H -t ts -k host --tumble 1m --where 'status >= 400' --state s.ckpt log.csv > /dev/null
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --where 'status >= 500' --state s.ckpt log.csv
	assert_failure 2
	assert_regex "$stderr" "--where 'status >= 400'"
	assert_regex "$stderr" "--where 'status >= 500'"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --where 'status >= 400' --count --as n --state s.ckpt log.csv
	assert_failure 2
	assert_regex "$stderr" "--as n"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --where 'status >= 400' --state s.ckpt log.csv
	assert_success
}

# route ARGS...: over a generated file, stream and batch mode and 1, 2
# and 4 threads print the same rows; the routes taken are in modes.
route() {
	local th m
	: > modes
	for m in stream batch; do
		for th in 1 2 4; do
			run --separate-stderr fwin --stats --threads $th --mode $m "$@"
			assert_success
			printf '%s\n' "$output" > "out.$m.$th"
			cmp out.stream.1 "out.$m.$th"
			stats_of "$stderr" | sed 's/.*, mode //' >> modes
		done
	done
	[ "$(wc -l < out.stream.1)" -gt 10 ]
}

@test "every route gives the same bytes: time-ordered input, stream and batch, 1, 2 and 4 threads" {
	"$GEN" -n 60000 -k 50 --seed 31 --disorder 0 > in.csv
	x=(--where '$3 >= 100 && $2 !~ "7$"' --having 'count > 10' --eval 'avg=sum_3/count')
	route --csv -t 1 -k 2 --tumble 5s --count --sum 3 "${x[@]}" in.csv
	grep -q '^stream, aggregated as read' modes
	grep -q '^batch, in time order' modes
	mv out.stream.1 first
	route --csv -t 1 -k 2 --tumble 5s --count --sum 3 --if '$3 < 500' --first 3 --if '$3 > 900' --last 3 "${x[@]}" in.csv
	# from a pipe: the table, the operator, and with 4 threads the
	# key-group workers
	for th in 1 2 4; do
		run --separate-stderr fwin --stats --threads $th --mode stream --csv -t 1 -k 2 --tumble 5s --count --sum 3 "${x[@]}" < in.csv
		assert_output "$(cat first)"
		assert_regex "$stderr" 'aggregated as read$'
		FWIN_STRATEGY=ordered run --separate-stderr fwin --stats --threads $th --mode stream --csv -t 1 -k 2 --tumble 5s --count --sum 3 "${x[@]}" < in.csv
		assert_output "$(cat first)"
		assert_regex "$stderr" 'mode stream$'
	done
	FWIN_STRATEGY=keyed run --separate-stderr fwin --stats --threads 4 --mode stream --csv -t 1 -k 2 --tumble 5s --count --sum 3 "${x[@]}" < in.csv
	assert_output "$(cat first)"
	assert_regex "$stderr" 'keys over workers$'
}

@test "every route gives the same bytes: input out of order in batch mode (table, halves, sorted replay)" {
	"$GEN" -n 60000 -k 50 --seed 32 --disorder 30000 > in.csv
	x=(--where '$3 % 3 != 0 || $2 in ("k1", "k2")' --eval 'k=upper(key1)' --having 'k ~ "[13579]$"')
	for a in "--count --sum 3" "--count --if \$3<10 --sum 3 --if \$3>10 --as s" "--first 3 --last 3 --min-by 3"; do
		: > modes
		for th in 1 2 4; do
			run --separate-stderr fwin --stats --threads $th --mode batch --csv -t 1 -k 2 --tumble 10s $a "${x[@]}" in.csv
			assert_success
			printf '%s\n' "$output" > "out.$th"
			cmp out.1 "out.$th"
			stats_of "$stderr" | sed 's/.*, mode //' >> modes
		done
		# what stream mode prints over the same records sorted by time
		sort -s -t, -k1,1n in.csv | fwin --mode stream --csv -t 1 -k 2 --tumble 10s $a "${x[@]}" > want
		cmp want out.1
	done
	# the routes: the table (in two halves with threads), the replay
	run --separate-stderr fwin --stats --threads 2 --mode batch --csv -t 1 -k 2 --tumble 10s --count --sum 3 "${x[@]}" in.csv
	assert_regex "$stderr" 'mode batch, aggregated as read, in two halves$'
	run --separate-stderr fwin --stats --threads 1 --mode batch --csv -t 1 -k 2 --tumble 10s --first 3 "${x[@]}" in.csv
	assert_regex "$stderr" 'mode batch$'
}

# reference SEED: --where against the same records filtered by awk, then
# aggregated by fwin without it: the same bytes, in batch mode and in
# stream mode (time order: nothing is late either way).
reference() {
	"$GEN" -n 20000 -k 200 --seed "$1" --disorder "$2" > in.csv
	awk -F, '$3 >= 250 && $3 < 900 && ($2 ~ /^k1/ || $3 % 7 == 0)' in.csv > ref.csv
	[ "$(wc -l < ref.csv)" -gt 1000 ]
	[ "$(wc -l < ref.csv)" -lt 15000 ]
	for m in batch stream; do
		if [ $m = stream ] && [ "$2" != 0 ]; then
			continue
		fi
		args=(--mode $m --csv -t 1 -k 2 --tumble 3s --count --sum 3 --min 3)
		fwin "${args[@]}" ref.csv > want
		run --separate-stderr fwin "${args[@]}" --where '$3 >= 250 && $3 < 900 && ($2 ~ "^k1" || $3 % 7 == 0)' --stats in.csv
		assert_success
		assert_equal "$output" "$(cat want)"
		assert_regex "$stderr" "filtered $(( $(wc -l < in.csv) - $(wc -l < ref.csv) )),"
		# --if: the filtered aggregates beside the whole ones
		run --separate-stderr fwin "${args[@]}" --count --if '$3 >= 250 && $3 < 900 && ($2 ~ "^k1" || $3 % 7 == 0)' in.csv
		assert_success
	done
}

@test "random: --where against the records filtered by awk (seeds 41-44)" {
	reference 41 0
	reference 42 0
	reference 43 5000
	reference 44 60000
}

@test "random: --having against the rows filtered by awk (seed 45)" {
	"$GEN" -n 20000 -k 30 --seed 45 --disorder 0 > in.csv
	args=(--csv -t 1 -k 2 --tumble 2s --count --sum 3 --eval 'mean=sum_3/count')
	fwin "${args[@]}" in.csv > all
	awk -F, '$3 ~ /^k[12]/ && $4 >= 60 && ($5 / $4 > 500 || $4 > 70)' all > want
	run --separate-stderr fwin "${args[@]}" --having 'key1 ~ "^k[12]" && count >= 60 && (mean > 500 || count > 70)' in.csv
	assert_success
	[ "$(wc -l < want)" -gt 50 ]
	[ "$(wc -l < want)" -lt "$(grep -c ',k[12]' all)" ]
	assert_equal "$output" "$(cat want)"
}

@test "--explain flink-sql: WHERE, the aggregates' conditions, names, computed columns, HAVING" {
	access
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host --tumble 1m --count --as requests --count --if 'status >= 500' --as errors --sum bytes --if 'path ~ "^/api"' --eval 'error_rate=errors/requests' --having 'error_rate > 0.05' --where 'len(lower(path)) > 1 or not host in ("web3", "web4")' --top 1 --top-by error_rate access.csv
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > s.sql
	grep -qF "COUNT(CASE WHEN (CAST(\`status\` AS DOUBLE) >= 500) THEN 1 END) AS \`errors\`" s.sql
	grep -qF "SUM(CAST(CASE WHEN REGEXP(\`path\`, '^/api') THEN \`bytes\` END AS DOUBLE)) AS \`sum_bytes\`" s.sql
	grep -qF "WHERE (((POSITION(CHR(0) IN CONCAT(LOWER(\`path\`), CHR(0))) - 1) > 1) OR (NOT (\`host\` IN ('web3', 'web4'))))" s.sql
	grep -qF "SELECT *, (CAST(\`errors\` AS DOUBLE) / NULLIF(CAST(\`requests\` AS DOUBLE), 0)) AS \`error_rate\`" s.sql
	grep -qF "WHERE (CAST(\`error_rate\` AS DOUBLE) > 0.05)" s.sql
	grep -qF '  `error_rate` DOUBLE' s.sql
	grep -qF -- "--   --where 'len(lower(path)) > 1 or not host in (\"web3\", \"web4\")'" s.sql
	fwin --explain flink-sql --csv -H -t ts -k host --slide 2m,1m --max-by bytes:path --if 'status == 200' --where 'status is not null' --eval 'x=upper(host)' --eval 'y=coalesce(x, "-")' access.csv > s2.sql
	fwin --explain flink-sql --csv -H -t ts --session 1m --count --if 'min(status, 300) % 2 == 0' --having 'abs($3 - 1) >= 1' access.csv > s3.sql
	flink_grammar s.sql s2.sql s3.sql
}

@test "--explain flink-sql: division is true division; window bounds in --having and --eval are read as the row prints them" {
	access
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host --tumble 1m --count --output-time s --eval 'h=7/2' --eval 'mid=(window_start+window_end)/2' --having 'window_start >= 0' access.csv
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > s.sql
	grep -qF -- "-- * --eval: a number is a DOUBLE column, which Flink prints with a fraction" s.sql
	# INT / INT would divide as integers
	grep -qF "SELECT *, (CAST(7 AS DOUBLE) / NULLIF(2, 0)) AS \`h\`" s.sql
	# SQL's MOD takes exact numbers: a DOUBLE's remainder is C's fmod()'s
	fwin --explain flink-sql --csv -H -t ts -k host --tumble 1m --count --eval 'r=count % 2' --eval 'q=7 % 2' access.csv > s4.sql
	grep -qF "(CAST(\`count\` AS DOUBLE) - 2 * CAST(CAST(\`count\` AS DOUBLE) / NULLIF(2, 0) AS BIGINT)) AS \`r\`" s4.sql
	grep -qF "MOD(7, NULLIF(2, 0)) AS \`q\`" s4.sql
	# the row's bounds in epoch seconds, their milliseconds a fraction
	ms='(UNIX_TIMESTAMP(DATE_FORMAT(`window_start`, '"'yyyy-MM-dd HH:mm:ss'"')) * 1000 + CAST(DATE_FORMAT(`window_start`, '"'SSS'"') AS BIGINT))'
	grep -qF "WHERE ((CAST($ms AS DOUBLE) / 1000) >= 0)" s.sql
	grep -qF "SELECT *, (((CAST($ms AS DOUBLE) / 1000) + (CAST(${ms//window_start/window_end} AS DOUBLE) / 1000)) / NULLIF(2, 0)) AS \`mid\`" s.sql
	# in milliseconds, and as ISO text (the access log's times)
	fwin --explain flink-sql --csv -H -t ts -k host --tumble 1m --count --output-time ms --having 'window_start >= 0' access.csv > s2.sql
	grep -qF "WHERE (CAST($ms AS DOUBLE) >= 0)" s2.sql
	fwin --explain flink-sql --csv -H -t ts -k host --tumble 1m --count --having 'window_end > "2026"' access.csv > s3.sql
	grep -qF "WHERE (CONCAT(DATE_FORMAT(\`window_end\`, 'yyyy-MM-dd''T''HH:mm:ss'), IF(DATE_FORMAT(\`window_end\`, 'SSS') = '000', '', CONCAT('.', DATE_FORMAT(\`window_end\`, 'SSS'))), 'Z') > '2026')" s3.sql
	flink_grammar s.sql s2.sql s3.sql s4.sql
}

@test "--explain flink-sql: with --tz, a window bound's ISO text in --having carries the zone's offset, as the row prints it" {
	access
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts -k host --tz America/New_York --tumble 1m --count --having 'window_end > "2026-11-29T15:01:00-05:00"' access.csv
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > s.sql
	wall="DATE_FORMAT(\`window_end\`, 'yyyy-MM-dd HH:mm:ss')"
	off="TIMESTAMPDIFF(SECOND, TO_TIMESTAMP(CONVERT_TZ($wall, 'America/New_York', 'UTC')), TO_TIMESTAMP($wall))"
	grep -qF "IF(DATE_FORMAT(\`window_end\`, 'SSS') = '000', '', CONCAT('.', DATE_FORMAT(\`window_end\`, 'SSS'))), IF($off < 0, '-', '+'), DATE_FORMAT(TIMESTAMPADD(SECOND, ABS($off), TIMESTAMP '1970-01-01 00:00:00'), IF(MOD($off, 60) = 0, 'HH:mm', 'HH:mm:ss'))) > '2026-11-29T15:01:00-05:00')" s.sql
	grep -qF -- "--   --eval read a bound's ISO text with the offset of its wall clock time" s.sql
	# what the run compares: the bound with its offset
	run --separate-stderr fwin --csv -H -t ts -k host --tz America/New_York --tumble 1m --count --having 'window_end > "2026-11-29T15:01:00-05:00"' access.csv
	assert_success
	assert_line --index 1 --partial -- "-05:00,"
	flink_grammar s.sql
}

@test "--explain flink-sql: in() whose value holds a comma (a call, a string) keeps it whole" {
	access
	run --separate-stderr fwin --explain flink-sql --csv -H -t ts --tumble 1m --count --where 'coalesce(host, path) in ("web1", "web2") or substr(path, 1, 4) in ("/api") or "a, b" in (path)' access.csv
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > s.sql
	grep -qF "(COALESCE(\`host\`, \`path\`) IN ('web1', 'web2'))" s.sql
	grep -qF "(SUBSTR(\`path\`, 1, 4) IN ('/api'))" s.sql
	grep -qF "('a, b' IN (\`path\`))" s.sql
	flink_grammar s.sql
}

@test "the README's example over tests/data/access.csv" {
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 2m --count --if 'latency_ms > 150' --as slow --count --as requests --eval 'slow_pct=round(100 * slow / requests)' --having 'slow_pct >= 30' "$DATA/access.csv"
	assert_success
	assert_equal "$stderr" ""
	assert_output "window_start,window_end,host,slow,requests,slow_pct
2026-11-29T20:00:00Z,2026-11-29T20:02:00Z,api,3,6,50
2026-11-29T20:02:00Z,2026-11-29T20:04:00Z,db,4,8,50
2026-11-29T20:02:00Z,2026-11-29T20:04:00Z,web,1,3,33
2026-11-29T20:04:00Z,2026-11-29T20:06:00Z,db,2,5,40"
}

@test "the man page's EXPRESSIONS examples" {
	access
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --if 'status >= 500' --as errors access.csv
	assert_success
	assert_output "window_start,window_end,host,errors
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web1,1
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web2,0
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web1,0
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,2"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --where 'path ~ "^/api/" && status != 404' --count --avg bytes access.csv
	assert_success
	assert_output "window_start,window_end,host,count,avg_bytes
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web1,1,0
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web2,1,2048
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,3,341.3333333333333"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --sum bytes --as bytes --eval 'kb=round(bytes / 1024, 1)' --top 1 --top-by kb access.csv
	assert_success
	assert_output "window_start,window_end,host,bytes,kb
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web2,2168,2.1
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,1024,1"
}

@test "with the other row options: a histogram's --as prefix, --eval in changelog rows, --having with a changelog, --eval with --over needs -H" {
	access
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --histogram bytes:100,1000 --as size --if 'path != "/"' --count access.csv
	assert_success
	assert_output "window_start,window_end,host,size_le_100,size_le_1000,size_le_inf,count
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web1,1,2,2,4
2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web2,0,1,2,2
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web1,0,0,0,1
2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,2,2,3,3"
	run --separate-stderr fwin --csv -H -t ts -k host --tumble 1m --count --eval 'x=count*2' --changelog access.csv
	assert_success
	assert_output "op,window_start,window_end,host,count,x
+I,2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web1,4,8
+I,2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,web2,2,4
+I,2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web1,1,2
+I,2026-11-29T20:01:00Z,2026-11-29T20:02:00Z,web2,3,6"
	# --having with a changelog: rows that pass are +I (a row that stops
	# passing is -D: changelog.bats)
	run --separate-stderr fwin --csv -H -t ts --tumble 1m --count --having 'count > 5' --changelog access.csv
	assert_success
	assert_output "op,window_start,window_end,count
+I,2026-11-29T20:00:00Z,2026-11-29T20:01:00Z,6"
	run --separate-stderr fwin --csv -H -t ts --over 1m --count --eval 'x=1' access.csv
	assert_success
	# without -H the record's fields have no names: $N is refused
	run --separate-stderr fwin --csv -t 1 --over 1m --count --eval 'x=$1' access.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --eval: at 1: no column \$1: without -H a record's fields have no names and no fixed number; name an aggregate's column, or give -H"
}
