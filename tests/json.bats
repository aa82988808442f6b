#!/usr/bin/env bats
# JSON Lines input, --json (fwin(1): OPTIONS, Records; JSON LINES): paths,
# values, NULLs, duplicates, odd text, bad lines, and the rest of fwin
# (checkpoints, --late-file, min-by) over it. Every expected output below
# is derived by hand from fwin(1).
load common
load live-helper

teardown() {
	stop_fwin
}

# ok ARGS...: run fwin, expect exit 0 and an empty stderr.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# ------------------------------------------------------- paths and values

@test "json: the README's example, default output json, keys the paths" {
	cat > app.jsonl <<'EOF'
{"ts":"2026-11-29T20:37:03Z","user":{"id":7,"name":"ann"},"latency_ms":12.5}
{"ts":"2026-11-29T20:37:10Z","user":{"id":7},"latency_ms":30}
{"ts":"2026-11-29T20:37:40Z","user":{"id":8},"latency_ms":5}
{"ts":"2026-11-29T20:38:10Z","user":{"id":7},"latency_ms":100}
EOF
	ok --json -t ts -k user.id --tumble 1m --count --max latency_ms app.jsonl
	assert_output - <<'EOF'
{"window_start":"2026-11-29T20:37:00Z","window_end":"2026-11-29T20:38:00Z","user.id":"7","count":2,"max_latency_ms":30}
{"window_start":"2026-11-29T20:37:00Z","window_end":"2026-11-29T20:38:00Z","user.id":"8","count":1,"max_latency_ms":5}
{"window_start":"2026-11-29T20:38:00Z","window_end":"2026-11-29T20:39:00Z","user.id":"7","count":1,"max_latency_ms":100}
EOF
	# --format json is the same
	run --separate-stderr fwin --format json -t ts -k user.id --tumble 1m --count --max latency_ms app.jsonl
	assert_success
	assert_equal "$(fwin --json -t ts -k user.id --tumble 1m --count --max latency_ms app.jsonl)" "$output"
}

@test "json: string escapes are undone" {
	printf '%s\n' '{"t":1,"k":"a\"b\\c\/d\te\u0041\n"}' > in
	ok --json -t t -k k --tumble 10s in
	assert_output '{"window_start":0,"window_end":10,"k":"a\"b\\c/d\teA\n","count":1}'
	ok --json -t t -k k --tumble 10s --output-format csv in
	assert_output $'window_start,window_end,k,count\n0,10,"a""b\\c/d\teA\n",1'
}

@test "json: unicode escapes, surrogate pairs, lone surrogates, raw UTF-8, invalid UTF-8" {
	printf '%s\n' '{"t":1,"k":"\u00e9\ud83d\ude00"}' '{"t":2,"k":"é😀"}' \
		'{"t":3,"k":"\ud800x"}' '{"t":4,"k":"\udc00"}' > in
	printf '{"t":5,"k":"\xff\xfe"}\n' >> in
	ok --json -t t -k k --tumble 10s --output-format tsv in
	# é😀 twice (escaped and raw are the same text); a lone surrogate is
	# U+FFFD; invalid UTF-8 passes through as it is; keys in byte order
	assert_output $'window_start\twindow_end\tk\tcount\n0\t10\té😀\t2\n0\t10\t\xef\xbf\xbd\t1\n0\t10\t\xef\xbf\xbdx\t1\n0\t10\t\xff\xfe\t1'
}

@test "json: nested paths, dotted member names, paths through non-objects" {
	printf '%s\n' '{"t":1,"a":{"b":{"c":"deep"}},"http.method":"GET"}' \
		'{"t":2,"a":{"b":"flat"},"http":{"method":"PUT"}}' \
		'{"t":3,"a":[{"b":1}],"http":"x"}' > in
	ok --json -t t -k a.b.c,http.method --tumble 10s --output-format csv in
	assert_output $'window_start,window_end,a.b.c,http.method,count\n0,10,,,1\n0,10,,PUT,1\n0,10,deep,GET,1'
}

@test "json: objects and arrays are their text, verbatim" {
	printf '%s\n' '{"t":1,"tags":[1, "a" ,{"x":null}],"o":{ "p" : 1 }}' > in
	ok --json -t t -k tags,o --tumble 10s in
	assert_output '{"window_start":0,"window_end":10,"tags":"[1, \"a\" ,{\"x\":null}]","o":"{ \"p\" : 1 }","count":1}'
}

@test "json: numbers in every form are their text; aggregates read them" {
	# (first and last are text aggregates: json strings)
	printf '%s\n' '{"t":1,"v":-0}' '{"t":2,"v":1.5E-3}' '{"t":3,"v":1e2}' \
		'{"t":4,"v":-12.50}' '{"t":5,"v":0.25e+1}' '{"t":6,"v":7}' > in
	ok --json -t t --tumble 10s --count --sum v --min v --max v --first v --last v in
	assert_output '{"window_start":0,"window_end":10,"count":6,"sum_v":97.0015,"min_v":-12.50,"max_v":1e2,"first_v":"-0","last_v":"7"}'
}

@test "json: true, false, null and missing members; a missing key is an empty key" {
	printf '%s\n' '{"t":1,"k":true,"v":1}' '{"t":2,"k":false,"v":null}' \
		'{"t":3,"k":null,"v":2}' '{"t":4,"v":3}' '{"t":5,"k":"","v":4}' > in
	ok --json -t t -k k --tumble 10s --count --sum v --output-format csv in
	assert_output $'window_start,window_end,k,count,sum_v\n0,10,,3,9\n0,10,false,1,\n0,10,true,1,1'
}

@test "json: a FIELD of digits is a member name, not a column" {
	printf '%s\n' '{"1":"one","t":1}' > in
	ok --json -t t -k 1 --tumble 10s in
	assert_output '{"window_start":0,"window_end":10,"1":"one","count":1}'
}

@test "json: whitespace around and inside objects, blank lines, CRLF" {
	printf ' \t{ "t" :1 ,\t"k": "a" } \r\n\n \t \r\n{"t":2,"k":"a"}\r\n' > in
	ok --json -t t -k k --tumble 10s in
	assert_output '{"window_start":0,"window_end":10,"k":"a","count":2}'
	# {} is a record whose fields are empty: here, no time at all; a
	# null one is none either, and "" is a time that is not one
	printf '{}\r\n{"t":null,"k":"a"}\n{"t":"","k":"a"}\n' >> in
	run --separate-stderr fwin --json -t t -k k --tumble 10s in
	assert_success
	assert_output '{"window_start":0,"window_end":10,"k":"a","count":2}'
	assert_equal "$stderr" $'fwin: in:5: field t: missing or null; record skipped\nfwin: in:6: field t: missing or null; record skipped\nfwin: in:7: field t: bad time ""; record skipped\nfwin: 3 bad records skipped'
}

@test "json: a line of 2 MB" {
	{
		printf '{"t":1,"k":"x","pad":"'
		head -c 2000000 /dev/zero | tr '\0' 'y'
		printf '","v":5}\n{"t":2,"k":"x","v":1}\n'
	} > in
	ok --json -t t -k k --tumble 10s --sum v in
	assert_output '{"window_start":0,"window_end":10,"k":"x","sum_v":6}'
}

@test "json: a UTF-8 byte order mark at the start is skipped" {
	printf '\xef\xbb\xbf{"t":1,"k":"a"}\n' > in
	ok --json -t t -k k --tumble 10s in
	assert_output '{"window_start":0,"window_end":10,"k":"a","count":1}'
}

# ----------------------------------------------------------- bad lines

@test "json: lines that are not one object are bad records, with what and where" {
	printf '%s\n' '{"a":1' '[1,2]' '1' '"s"' 'null' '{"a":1}{"b":2}' \
		'{"a":1} x' '{"a":}' '{a:1}' '{"a":1,}' '{"k":"ok"}' > in
	run --separate-stderr fwin --json -k k --count-window 10 --flush in
	assert_success
	assert_output '{"k":"ok","count":1}'
	assert_equal "$stderr" "$(cat <<'EOF'
fwin: in:1: not a JSON object: expected ',' or '}' at byte 7 (end of line); record skipped
fwin: in:2: not a JSON object: expected '{' at byte 1; record skipped
fwin: in:3: not a JSON object: expected '{' at byte 1; record skipped
fwin: in:4: not a JSON object: expected '{' at byte 1; record skipped
fwin: in:5: not a JSON object: expected '{' at byte 1; record skipped
fwin: in:6: not a JSON object: trailing characters after the object at byte 8; record skipped
fwin: in:7: not a JSON object: trailing characters after the object at byte 9; record skipped
fwin: in:8: not a JSON object: expected a value at byte 6; record skipped
fwin: in:9: not a JSON object: expected a member name or '}' at byte 2; record skipped
fwin: in:10: not a JSON object: expected a member name at byte 8; record skipped
fwin: 10 bad records skipped
EOF
)"
}

@test "json: truncated strings and words, bad numbers, raw control characters" {
	printf '%s\n' '{"a":"x' '{"a":tru}' '{"a":01}' '{"a":.5}' '{"a":1.}' '{"a":+1}' > in
	printf '{"a":"\x01"}\n' >> in
	run --separate-stderr fwin --json -k a --count-window 10 --flush in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "$(cat <<'EOF'
fwin: in:1: not a JSON object: unterminated string at byte 6; record skipped
fwin: in:2: not a JSON object: expected a value at byte 6; record skipped
fwin: in:3: not a JSON object: bad number (a leading zero) at byte 6; record skipped
fwin: in:4: not a JSON object: expected a value at byte 6; record skipped
fwin: in:5: not a JSON object: bad number at byte 6; record skipped
fwin: in:6: not a JSON object: expected a value at byte 6; record skipped
fwin: in:7: not a JSON object: control character in a string at byte 7; record skipped
fwin: all 7 records were bad; see the messages above
EOF
)"
}

@test "json: records read a block at a time: a string with escapes or a bad line ends a block, and each reads as it does alone" {
	# good lines before and after, framed together from the bytes already
	# read (fwin(1): --checkpoint-every: a block of up to 32); a key with
	# escapes (undone into the scanner's own buffer), lines that are not
	# objects, one after another, among them (--max-future far ahead
	# takes every record the long way, one at a time)
	{
		for i in $(seq 10 49); do
			printf '{"t":17000000%s,"k":"a","v":%s}\n' $i $i
		done
		printf '%s\n' '{"t":1700000050,' '[1]' \
			'{"t":1700000051,"k":"b\u0041","v":1}' \
			'{"t":1700000052,"k":"c\"d","v":2}' \
			'{"t":1700000053,"k":"bA","v":3}'
		for i in $(seq 54 99); do
			printf '{"t":17000000%s,"k":"b","v":%s}\n' $i $i
		done
	} > in.jsonl
	local want_err='fwin: in.jsonl:41: not a JSON object: expected a member name at byte 17 (end of line); record skipped
fwin: in.jsonl:42: not a JSON object: expected '"'{'"' at byte 1; record skipped
fwin: 2 bad records skipped'
	for t in 1 2; do
		args=(--threads $t --json -t t -k k --tumble 10s --count --sum v)
		run --separate-stderr fwin "${args[@]}" --max-future 100000d \
			in.jsonl
		local want=$output
		run --separate-stderr fwin "${args[@]}" in.jsonl
		assert_success
		assert_equal "$output" "$want"
		assert_equal "$stderr" "$want_err"
	done
	assert_line --partial '"k":"bA","count":2,"sum_v":4'
	assert_line --partial '"k":"c\"d","count":1,"sum_v":2'
}

@test "json: --strict stops at the first line that is not an object" {
	printf '%s\n' '{"k":"a"}' 'oops' '{"k":"b"}' > in
	run --separate-stderr fwin --json -k k --count-window 10 --flush --strict in
	assert_failure 1
	assert_equal "$stderr" "fwin: in:2: not a JSON object: expected '{' at byte 1"
}

@test "json: duplicate members: the least deep, then the last, wins" {
	printf '%s\n' '{"t":1,"u":{"id":1},"u":{"n":2}}' '{"t":2,"a.b":"x","a":{"b":"y"}}' \
		'{"t":3,"a":{"b":"y"},"a.b":"x"}' '{"t":4,"a":{"b":"p"},"a":{"b":"q"}}' \
		'{"t":5,"k":"first","k":"last"}' > in
	ok --json -t t -k u.id,a.b,k --tumble 10s --output-format csv in
	assert_output $'window_start,window_end,u.id,a.b,k,count\n0,10,,,last,1\n0,10,,q,,1\n0,10,,x,,2\n0,10,1,,,1'
}

# -------------------------------------------------------- usage errors

@test "json: -H and -d have no meaning" {
	run --separate-stderr fwin --json -H -k a
	assert_failure 2
	assert_equal "$stderr" $'fwin: -H has no meaning with --json (members name the fields)\nTry \'fwin --help\' for more information.'
	run --separate-stderr fwin --format json -d , -k a
	assert_failure 2
	assert_equal "$stderr" $'fwin: -d has no meaning with --json\nTry \'fwin --help\' for more information.'
	run --separate-stderr fwin --format jsn -k a
	assert_failure 2
	assert_equal "$stderr" $'fwin: --format: unknown format \'jsn\'\nTry \'fwin --help\' for more information.'
}

# ------------------------------------------------ the same as csv input

@test "json: the same records as csv and as json give the same rows" {
	cat > in.csv <<'EOF'
ts,user,host,ms
2026-11-29T20:37:03Z,ann,a,12.5
2026-11-29T20:37:09Z,bob,b,3
2026-11-29T20:37:30Z,ann,,7
2026-11-29T20:38:02Z,ann,a,1e1
2026-11-29T20:38:05Z,"b,c",b,-0.5
EOF
	cat > in.jsonl <<'EOF'
{"ts":"2026-11-29T20:37:03Z","user":"ann","host":"a","ms":12.5}
{"ms":3,"host":"b","user":"bob","ts":"2026-11-29T20:37:09Z"}
{"ts":"2026-11-29T20:37:30Z","user":"ann","ms":7}
{"ts":"2026-11-29T20:38:02Z","user":"ann","host":"a","ms":1e1}
{"ts":"2026-11-29T20:38:05Z","user":"b,c","host":"b","ms":-0.5}
EOF
	local args=(-t ts -k user --slide 1m,30s --count --sum ms --avg ms --min-by ms:host --distinct host)
	ok --csv -H "${args[@]}" in.csv
	local csv=$output
	ok --json "${args[@]}" --output-format csv in.jsonl
	assert_output "$csv"
	assert_line --index 0 'window_start,window_end,user,count,sum_ms,avg_ms,min_by_ms,distinct_host'
	assert_line --index 1 '2026-11-29T20:36:30Z,2026-11-29T20:37:30Z,ann,1,12.5,12.5,a,1'
}

# ------------------------------------------- the line, where one is kept

@test "json: --late-file and min-by without OUT keep the line as read" {
	printf '%s\r\n' '{"t":20, "k":"a","v":2}' '{"t":1,"k":"a","v":1}' '{"t":21,"k":"a","v":0.5}' > in
	ok --json -t t -k k --tumble 10s --min-by v --late-file late in
	assert_output '{"window_start":20,"window_end":30,"k":"a","min_by_v":"{\"t\":21,\"k\":\"a\",\"v\":0.5}"}'
	assert_equal "$(cat late)" '{"t":1,"k":"a","v":1}'
}

# --------------------------------------------------------- checkpoints

@test "json: a run split by a checkpoint writes the bytes of a whole run" {
	for i in 1 2 3 4 5 6 7 8; do
		printf '{"t":%d,"k":"%s","v":%d}\n' $((i * 7)) "k$((i % 3))" "$i"
	done > all
	ok --json -t t -k k --tumble 10s --sum v -o whole.json all
	head -n 3 all > grow
	ok --json -t t -k k --tumble 10s --sum v --state s.ckpt -o split.json grow
	tail -n +4 all >> grow
	ok --json -t t -k k --tumble 10s --sum v --state s.ckpt --flush -o split.json grow
	assert_equal "$(cat split.json)" "$(cat whole.json)"
	assert_equal "$(head -n 1 whole.json)" '{"window_start":0,"window_end":10,"k":"k1","sum_v":1}'
	# the checkpoint names the format
	run --separate-stderr fwin --csv -t t -k k --tumble 10s --sum v --restore s.ckpt grow
	assert_failure 2
	assert_equal "$stderr" 'fwin: s.ckpt was made with --format json, not --format csv'
}

@test "json: the README's example over tests/data/app.jsonl" {
	ok --json -t ts -k user.id --tumble 1m --count --max latency_ms "$DATA/app.jsonl"
	assert_output - <<'EOF2'
{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:01:00Z","user.id":"","count":1,"max_latency_ms":1}
{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:01:00Z","user.id":"17","count":2,"max_latency_ms":311}
{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:01:00Z","user.id":"23","count":1,"max_latency_ms":18}
{"window_start":"2026-11-29T20:01:00Z","window_end":"2026-11-29T20:02:00Z","user.id":"17","count":1,"max_latency_ms":1500}
{"window_start":"2026-11-29T20:01:00Z","window_end":"2026-11-29T20:02:00Z","user.id":"23","count":1,"max_latency_ms":96.5}
{"window_start":"2026-11-29T20:01:00Z","window_end":"2026-11-29T20:02:00Z","user.id":"42","count":1,"max_latency_ms":12}
{"window_start":"2026-11-29T20:02:00Z","window_end":"2026-11-29T20:03:00Z","user.id":"17","count":1,"max_latency_ms":35}
EOF2
}

@test "json: live input through a FIFO, a line split across writes" {
	start_fwin --json -t t -k k --tumble 10s
	put '{"t":1,"k":"a"}\n{"t":12,'
	put '"k":"b"}\n'
	# the record at 12 moves the watermark past 10: the first window fires
	# while the input is still open
	expect_row '{"window_start":0,"window_end":10,"k":"a","count":1}'
	assert_running
	close_input
	expect_row '{"window_start":10,"window_end":20,"k":"b","count":1}'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

# ------------------------------------------------- columns named alike

# alike MESSAGE ARGS...: fwin ARGS is refused before any row: exit 2, no
# output, "fwin: JSON output: MESSAGE" alone on stderr.
alike() {
	local msg=$1
	shift
	run --separate-stderr fwin "$@"
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: JSON output: $msg"
}

@test "json output: a key named op or final meets --changelog's op or --emit-every's final; the hint is what renames one" {
	printf 'ts,window_start,op,final,count,p50_v,v\n1,a,x,y,z,w,2\n' > c.csv
	local csv=(--csv -H -t ts --tumble 10s --output-format json)
	alike "two columns are named 'op'; CSV and TSV output keep both" "${csv[@]}" -k op --count --changelog c.csv
	alike "two columns are named 'window_start'; CSV and TSV output keep both" "${csv[@]}" -k window_start --count --changelog c.csv
	alike "two columns are named 'final'; CSV and TSV output keep both" "${csv[@]}" --mode stream -k final --count --emit-every 1s c.csv
	alike "two columns are named 'final'; give the --eval column another name" "${csv[@]}" --mode stream --count --emit-every 1s --eval final=1 c.csv
	alike "two columns are named 'op'; give the --eval column another name" "${csv[@]}" --count --changelog --eval op=1 c.csv
	# --as names an aggregate's column, but not one of a list of percentiles
	alike "two columns are named 'count'; name --count's column with --as" "${csv[@]}" -k count --count c.csv
	alike "two columns are named 'p50_v'; ask for each percentile once" "${csv[@]}" --percentile v:50,50.0 c.csv
	alike "two columns are named 'p50_v'; ask for that percentile with a --percentile of its own, and name it with --as" "${csv[@]}" -k p50_v --percentile v:50,90 c.csv
	# CSV keeps both; --as renames the aggregate's column
	run --separate-stderr fwin --csv -H -t ts --tumble 10s -k op --count --changelog c.csv
	assert_success
	assert_output $'op,window_start,window_end,op,count\n+I,0,10,x,1'
	run --separate-stderr fwin "${csv[@]}" -k count --count --as n c.csv
	assert_success
	assert_output '{"window_start":0,"window_end":10,"count":"z","n":1}'
}
