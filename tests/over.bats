#!/usr/bin/env bats
# Per-record windows: --over D and --over-rows N (fwin(1): OVER WINDOWS).
# Expected outputs are derived by hand from fwin(1), or by SQLite's window
# functions over the same records.
load common

ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# a key's records out of time order, peers at equal times, a late one
in_disorder() {
	printf '1 a 10\n3 a 30\n2 a 20\n2 a 21\n2 b 5\n0 a 99\n5 a 1\n9 b 7\n' > in
}

@test "over: RANGE includes the bound t - D and every peer of equal time" {
	printf '1 a 10\n2 a 20\n2 b 5\n3 a 30\n5 a 1\n9 b 7\n' > in
	ok -t 1 --time-format s -k 2 --over 2s --count --sum 3 in
	assert_output "$(printf '%s\n' '1	a	10	1	10' '2	a	20	2	30' \
	    '2	b	5	1	5' '3	a	30	3	60' '5	a	1	2	31' '9	b	7	1	7')"
	# [3, 5] holds 3: the lower bound is inclusive; peers both count
	printf '1 a 1\n1 a 2\n2 a 4\n' > in2
	ok -t 1 --time-format s -k 2 --over 0s --count --sum 3 in2
	assert_output $'1\ta\t1\t2\t3\n1\ta\t2\t2\t3\n2\ta\t4\t1\t4'
}

@test "over: rows come out in event-time order once the watermark passes; late ones are dropped" {
	in_disorder
	run --separate-stderr fwin --mode stream -t 1 --time-format s -k 2 \
	    -l 2s --over 1s --count --sum 3 --first 3 --last 3 --late-file late in
	assert_success
	assert_output "$(printf '%s\n' '1	a	10	1	10	10	10' \
	    '2	a	20	3	51	10	21' '2	a	21	3	51	10	21' \
	    '2	b	5	1	5	5	5' '3	a	30	3	71	20	30' \
	    '5	a	1	1	1	1	1' '9	b	7	1	7	7	7')"
	assert_equal "$(cat late)" '0 a 99'
	assert_equal "$stderr" ''
}

@test "over: first and last follow event time, not arrival" {
	printf '5 a x\n3 a y\n4 a z\n' > in
	ok --mode stream -t 1 --time-format s -k 2 -l 5s --over 10s \
	    --first 3 --last 3 in
	assert_output $'3\ta\ty\ty\ty\n4\ta\tz\ty\tz\n5\ta\tx\ty\tx'
}

@test "over-rows: the key's last N records, in event-time order" {
	printf '1 a 1\n2 a 2\n3 b 100\n3 a 3\n4 a 4\n' > in
	ok -t 1 --time-format s -k 2 --over-rows 2 --sum 3 --count in
	assert_output "$(printf '%s\n' '1	a	1	1	1' '2	a	2	3	2' \
	    '3	b	100	100	1' '3	a	3	5	2' '4	a	4	7	2')"
}

@test "over: csv with a header keeps the record as read, header and all" {
	printf 'ts,host,lat\n2026-01-01T00:00:00Z,web,10\n2026-01-01T00:00:30Z,web,30\n2026-01-01T00:01:10Z,db,"5"\n2026-01-01T00:01:20Z,web,200\n' > in.csv
	ok --csv -H -t ts -k host --over 1m --avg lat --max lat in.csv
	assert_output "$(printf '%s\n' 'ts,host,lat,avg_lat,max_lat' \
	    '2026-01-01T00:00:00Z,web,10,10,10' \
	    '2026-01-01T00:00:30Z,web,30,20,30' \
	    '2026-01-01T00:01:10Z,db,"5",5,5' \
	    '2026-01-01T00:01:20Z,web,200,115,200')"
}

@test "over: with -H a row has the header's cells: missing fields empty, a lines record's extra ones left out" {
	printf 'ts,k,v\n1,a\n2,"a,b"\n3,a,"x,y"\n' > in.csv
	ok --csv -H -t ts --time-format s -k k --over 10 --count in.csv
	assert_output $'ts,k,v,count\n1,a,,1\n2,"a,b",,1\n3,a,"x,y",2'
	printf 'ts\tk\tv\n1\ta\n2\ta\t7\n' > in.tsv
	ok --tsv -H -t ts --time-format s -k k --over-rows 2 --count in.tsv
	assert_output $'ts\tk\tv\tcount\n1\ta\t\t1\n2\ta\t7\t2'
	printf 'ts k v\n1 a\n2 a 7 8\n' > in
	ok -H -t ts --time-format s -k k --over 10 --count in
	assert_output $'ts\tk\tv\tcount\n1\ta\t\t1\n2\ta\t7\t2'
}

@test "over: with -H a '\"' inside an unquoted csv field is data: the record as read, the aggregates under their names" {
	printf 'ts,a,b\n3,x"yz,2\n4,ok,5\n' > in.csv
	ok --csv -H -t ts --time-format s --over-rows 1 --count --sum b in.csv
	assert_output $'ts,a,b,count,sum_b\n3,x"yz,2,1,2\n4,ok,5,1,5'
	# in the first field, the last, several and several times; --over
	# alike
	printf 'a,ts,c,b\nx"yz,3,p"q"r,2\ny,4,p"q,5\n' > in.csv
	ok --csv -H -t ts --time-format s --over 10s --count --sum b in.csv
	assert_output $'a,ts,c,b,count,sum_b\nx"yz,3,p"q"r,2,1,2\ny,4,p"q,5,2,7'
	printf 'ts,b,a\n3,2,x"yz\n' > in.csv
	ok --csv -H -t ts --time-format s --over-rows 1 --count --sum b in.csv
	assert_output $'ts,b,a,count,sum_b\n3,2,x"yz,1,2'
	# a quoted field goes on past a '"' that no delimiter follows; CRLF
	printf 'ts,a,b\r\n3,"q"r,s",2\r\n4,x"y,5\r\n' > in.csv
	ok --csv -H -t ts --time-format s --over-rows 2 --count --sum b in.csv
	assert_output $'ts,a,b,count,sum_b\n3,"q"r,s",2,1,2\n4,x"y,5,2,7'
}

@test "over: with -H a csv record with a '\"' inside a field and fewer fields than the header gets empty cells; one with more is bad" {
	printf 'ts,a,b,c\n3,x"yz,2\n4,x"yz,5,6,7\n5,ok,8,9\n6,x"y,3\n' > in.csv
	run --separate-stderr fwin --csv -H -t ts --time-format s \
	    --over-rows 2 --count --sum b in.csv
	assert_success
	assert_output $'ts,a,b,c,count,sum_b\n3,x"yz,2,,1,2\n5,ok,8,9,2,10\n6,x"y,3,,2,11'
	assert_equal "$stderr" $'fwin: in.csv:3: 5 fields, the header has 4; record skipped\nfwin: 1 bad record skipped'
}

@test "over: --having and --eval read a csv record's fields as the reader frames them" {
	printf 'ts,a,b\n3,x"yz,2\n4,"q"r,s",5\n5,ok,7\n' > in.csv
	ok --csv -H -t ts --time-format s --over-rows 1 --count \
	    --eval 'z=a' --eval 'y=b*10' in.csv
	assert_output $'ts,a,b,count,z,y\n3,x"yz,2,1,"x""yz",20\n4,"q"r,s",5,1,"q""r,s",50\n5,ok,7,1,ok,70'
	ok --csv -H -t ts --time-format s --over-rows 1 --count \
	    --having 'a == "x\"yz" or a == "q\"r,s"' in.csv
	assert_output $'ts,a,b,count\n3,x"yz,2,1\n4,"q"r,s",5,1'
}

@test "over: a '\"' inside a field of tsv, lines, json, or csv without -H: the record as read" {
	printf 'ts\ta\tb\n3\tx"yz\t2\n' > in.tsv
	ok --tsv -H -t ts --time-format s --over-rows 1 --count --sum b in.tsv
	assert_output $'ts\ta\tb\tcount\tsum_b\n3\tx"yz\t2\t1\t2'
	printf 'ts a b\n3 x"yz 2\n' > in
	ok -H -t ts --time-format s --over-rows 1 --count --sum b in
	assert_output $'ts\ta\tb\tcount\tsum_b\n3\tx"yz\t2\t1\t2'
	printf '{"ts":3,"a":"x\\"yz","b":2}\n' > in.json
	ok --json -t ts --time-format s --over-rows 1 --count --sum b in.json
	assert_output '{"ts":3,"a":"x\"yz","b":2,"count":1,"sum_b":2}'
	printf '3,x"yz,2\n4,x"y,5,6\n' > in.csv
	ok --csv -t 1 --time-format s --over-rows 1 --count --sum 3 in.csv
	assert_output $'3,x"yz,2,1,2\n4,x"y,5,6,1,5'
}

@test "over: json records get the aggregates as members" {
	printf '{"ts":1,"h":"a","v":2}\n{"ts":2,"h":"a","v":4, "x":{"y":1}}\n{"ts":3,"h":"b","v":null}\n' > in.json
	ok --json -t ts --time-format s -k h --over-rows 5 --sum v --count in.json
	assert_output "$(printf '%s\n' '{"ts":1,"h":"a","v":2,"sum_v":2,"count":1}' \
	    '{"ts":2,"h":"a","v":4, "x":{"y":1},"sum_v":6,"count":2}' \
	    '{"ts":3,"h":"b","v":null,"sum_v":null,"count":1}')"
	run fwin --json --over-rows 5 --count <<<$'{}\n{ }'
	assert_output $'{"count":1}\n{ "count":2}'
	# the record is no column of a name: any name is free for --as
	ok --json --over-rows 5 --count --as record <<<'{"a":1}'
	assert_output '{"a":1,"record":1}'
	ok --over-rows 5 --count --as record <<<'a b'
	assert_output $'a\tb\t1'
}

@test "over: a json record with a member named as a column the row adds is warned of, once" {
	printf '{"t":1,"k":"a","count":5}\n{"t":2,"k":"a","count":6,"e":null}\n' > in.json
	run --separate-stderr fwin --json -t t --time-format s -k k --over 5 --count --eval 'e=1' in.json
	assert_success
	assert_output $'{"t":1,"k":"a","count":5,"count":1,"e":1}\n{"t":2,"k":"a","count":6,"e":null,"count":2,"e":1}'
	assert_equal "$stderr" "fwin: a record has a member 'count', as a column of the output is named: its row holds the name twice; name the column apart (--as)"
	# a name in a value, or in a nested object, is no member of the row
	printf '{"t":1,"k":"a","x":"count","y":{"count":1}}\n' > v.json
	ok --json -t t --time-format s -k k --over 5 --count v.json
	assert_output '{"t":1,"k":"a","x":"count","y":{"count":1},"count":1}'
	ok --json -t t --time-format s -k k --over 5 --count --as n in.json
	# any of the names, wherever it stands in the record
	printf '{"e":0,"t":1,"k":"a"}\n' > e.json
	run --separate-stderr fwin --json -t t --time-format s -k k --over 5 --count --eval 'e=1' e.json
	assert_success
	assert_equal "$stderr" "fwin: a record has a member 'e', as a column of the output is named: its row holds the name twice; name the column apart (--as)"
}

@test "over: lines are split as read into tsv cells" {
	printf 'a  b\tc\n' > in
	ok --over-rows 1 --count in
	assert_output $'a\tb\tc\t1'
	printf '1:a:\n' > in2
	ok -d : -t 1 --time-format s -k 2 --over 1s --count in2
	assert_output $'1\ta\t\t1'
}

@test "over: processing time prints each record as it comes" {
	printf 'a 1\nb 2\na 3\n' > in
	ok --mode stream -k 1 --over 1h --sum 2 in
	assert_output $'a\t1\t1\nb\t2\t2\na\t3\t4'
}

@test "over: batch mode on a shuffled file prints what stream mode prints sorted" {
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 3000 -k 7 --seed 41 --disorder 5000 \
	    --format csv > in
	sort -t, -k1,1n -s in > sorted
	for o in "--over 2s" "--over-rows 3" "--over 0s"; do
		run fwin --mode stream --csv -t 1 -k 2 $o --count --sum 3 \
		    --min 3 --first 3 --last 3 sorted
		assert_success
		echo "$output" > want
		for th in 1 2 4; do
			run fwin --threads $th --mode batch --csv -t 1 -k 2 $o \
			    --count --sum 3 --min 3 --first 3 --last 3 in
			assert_success
			echo "$output" > got
			cmp want got
		done
		# every strategy that takes it (fwin(1): THE PLAN), on the
		# sorted file and the shuffled one
		for st in straight sorted; do
			for f in sorted in; do
				FWIN_STRATEGY=$st run fwin --mode batch --csv -t 1 \
				    -k 2 $o --count --sum 3 --min 3 --first 3 \
				    --last 3 $f
				assert_success
				echo "$output" | cmp want -
			done
		done
		FWIN_STRATEGY=ordered run fwin --mode stream --csv -t 1 -k 2 $o \
		    --count --sum 3 --min 3 --first 3 --last 3 sorted
		echo "$output" | cmp want -
	done
}

@test "over: the same rows as SQLite's window functions" {
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 2000 -k 9 --seed 7 --disorder 3000 \
	    --format csv > in
	{
		echo 'CREATE TABLE r(ts INTEGER, k TEXT, v INTEGER);'
		echo '.mode csv'
		echo '.import in r'
		echo '.mode list'
		echo '.separator ,'
		echo 'SELECT ts, k, v, COUNT(*) OVER w, SUM(v) OVER w, MIN(v) OVER w,'
		echo '  MAX(v) OVER w FROM r WINDOW w AS (PARTITION BY k ORDER BY ts'
		echo '  RANGE BETWEEN 1500 PRECEDING AND CURRENT ROW)'
		echo '  ORDER BY ts, rowid;'
	} > range.sql
	sqlite3 < range.sql > want
	run fwin --mode batch --csv -t 1 --time-format ms -k 2 --over 1500ms \
	    --count --sum 3 --min 3 --max 3 in
	assert_success
	echo "$output" | cmp - want
	sed -i 's/RANGE BETWEEN 1500 PRECEDING/ROWS BETWEEN 4 PRECEDING/' range.sql
	sed -i 's/ORDER BY ts$/ORDER BY ts, rowid/' range.sql
	sqlite3 < range.sql > want
	run fwin --mode batch --csv -t 1 --time-format ms -k 2 --over-rows 5 \
	    --count --sum 3 --min 3 --max 3 in
	assert_success
	echo "$output" | cmp - want
	# a distinct count keeps no fold: frames folded record by record
	run fwin --mode batch --csv -t 1 --time-format ms -k 2 --over-rows 5 \
	    --count --sum 3 --min 3 --max 3 --distinct 3 in
	assert_success
	echo "$output" | cut -d, -f1-7 | cmp - want
}

@test "over: a run in two parts with --state prints the bytes of one run" {
	seq 1 60 | awk '{ printf "%d k%d %d\n", $1 - ($1 % 3 == 0), $1 % 3, $1 * 7 }' > all
	# with kept folds (the first two), and record by record
	for o in "--over 5s" "--over-rows 4" "--over 5s --percentile 3:50" \
	    "--over-rows 4 --percentile 3:50"; do
		rm -f s.ckpt out log
		head -23 all > log
		run fwin -t 1 --time-format s -k 2 -l 1s $o --count --sum 3 \
		    --first 3 --last 3 --stddev 3 --state s.ckpt -o out log
		assert_success
		cat all > log
		run fwin -t 1 --time-format s -k 2 -l 1s $o --count --sum 3 \
		    --first 3 --last 3 --stddev 3 --state s.ckpt -o out --flush log
		assert_success
		run fwin --mode stream -t 1 --time-format s -k 2 -l 1s $o --count \
		    --sum 3 --first 3 --last 3 --stddev 3 all
		echo "$output" | cmp - out
	done
}

@test "over: records of one key and one time restore from a checkpoint that holds them" {
	# (a key's panes of one time follow each other by arrival: a
	# checkpoint taken among them was refused as "bad window list order")
	printf '1 a 1\n1 a 2\n2 a 3\n2 a 4\n2 b 5\n3 a 6\n3 a 7\n9 a 8\n' > all
	for o in "--over 5s" "--over-rows 2"; do
		rm -f s.ckpt out log
		head -5 all > log
		run --separate-stderr fwin -t 1 --time-format s -k 2 $o --count --sum 3 --first 3 --last 3 --state s.ckpt -o out log
		assert_success
		cat all > log
		run --separate-stderr fwin -t 1 --time-format s -k 2 $o --count --sum 3 --first 3 --last 3 --state s.ckpt -o out --flush log
		assert_success
		assert_equal "$stderr" ""
		run fwin --mode stream -t 1 --time-format s -k 2 $o --count --sum 3 --first 3 --last 3 all
		echo "$output" | cmp - out
	done
	# (--over-rows 2: each record with its key's last two)
	assert_equal "$(tr '\t' ' ' < out)" '1 a 1 1 1 1 1
1 a 2 2 3 1 2
2 a 3 2 5 2 3
2 a 4 2 7 3 4
2 b 5 1 5 5 5
3 a 6 2 10 4 6
3 a 7 2 13 6 7
9 a 8 2 15 7 8'
}

@test "over: --over-rows restores a checkpoint taken among times before 1970" {
	# (a key's records already added hold their place, 0, 1, 2..., and
	# those still waiting their time, which before 1970 lies below a
	# place: such a checkpoint was refused as "bad window list order")
	printf -- '-5 a 1\n-4 a 2\n-3 a 4\n-2 a 8\n-1 b 16\n' > all
	for o in "--over-rows 2" "--over-rows 3 --percentile 3:50"; do
		rm -f s.ckpt out log
		head -2 all > log
		run --separate-stderr fwin -t 1 --time-format s -k 2 $o --count --sum 3 --state s.ckpt -o out log
		assert_success
		cat all > log
		run --separate-stderr fwin -t 1 --time-format s -k 2 $o --count --sum 3 --state s.ckpt -o out --flush log
		assert_success
		assert_equal "$stderr" ""
		run fwin --mode stream -t 1 --time-format s -k 2 $o --count --sum 3 all
		echo "$output" | cmp - out
	done
}

@test "over: --over-rows among times before 1970: each frame its last N records, none still waiting" {
	# (a place is not comparable to a waiting record's time, which
	# before 1970 lies below every place: the kept folds took those
	# records into the frame)
	printf -- '-5 1\n-4 2\n-3 4\n-2 8\n' > in
	want=$'-5\t1\t1\t1\n-4\t2\t3\t2\n-3\t4\t6\t2\n-2\t8\t12\t2'
	run fwin --mode stream -t 1 --over-rows 2 --sum 2 --count in
	assert_success
	assert_output "$want"
	# the same frames from times after 1970
	printf -- '5 1\n6 2\n7 4\n8 8\n' > in
	run fwin --mode stream -t 1 --over-rows 2 --sum 2 --count in
	assert_output $'5\t1\t1\t1\n6\t2\t3\t2\n7\t4\t6\t2\n8\t8\t12\t2'
}

@test "over: state follows the range, not the stream" {
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 200000 -k 50 --seed 3 --disorder 0 \
	    --format csv > in
	# about 1000 records a second: a second's range holds about a
	# thousand of them, not the 200,000 read
	run fwin --mode stream --csv -t 1 -k 2 --over 1s --count \
	    --checkpoint c.ckpt --no-flush in
	assert_success
	run fwin --inspect c.ckpt
	assert_success
	open=$(awk '/^open windows/ { print $3 }' <<<"$output")
	[ "$open" -gt 500 ] && [ "$open" -lt 2000 ]
}

@test "over: what does not apply is a usage error" {
	for bad in "--top 1" "--fill" "--emit-every 1s" "--allowed-lateness 1s" \
	    "--offset 1s" "--output-format json"; do
		run --separate-stderr fwin -t 1 -k 2 --over 1s $bad /dev/null
		assert_failure 2
	done
	run --separate-stderr fwin -t 1 --over 1s --tumble 1s /dev/null
	assert_failure 2
	assert_equal "$stderr" $'fwin: --over and --tumble cannot be used together\nTry \'fwin --help\' for more information.'
	run --separate-stderr fwin -t 1 --over 1s --output-format json /dev/null
	assert_equal "${stderr%%$'\n'*}" "fwin: --over prints each record as read: its output format is the input's"
	run --separate-stderr fwin --csv -d ';' -t 1 --over-rows 2 /dev/null
	assert_equal "${stderr%%$'\n'*}" "fwin: --over-rows prints each record as read: not with -d"
	run --separate-stderr fwin -t 1 --over-rows 0 /dev/null
	assert_failure 2
	run --separate-stderr fwin -t 1 --over 1s --changelog /dev/null
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --over prints each record once, as read: not with --changelog"
	run --separate-stderr fwin -t 1 --over 1s -o sqlite:x.db /dev/null
	assert_failure 2
	[ ! -e x.db ]
}

@test "over: a checkpoint of another window kind is refused, naming --over" {
	printf '1 a\n' > in
	run fwin -t 1 --time-format s -k 2 --tumble 1s --checkpoint c.ckpt in
	assert_success
	run --separate-stderr fwin -t 1 --time-format s -k 2 --over 1s --restore c.ckpt in
	assert_failure 2
	assert_output --partial ''
	[[ "$stderr" == *"--over 1s"* ]]
}

@test "over: counters count from the key's value before the frame; rate by D; histograms" {
	printf '1 a 10\n2 a 15\n3 a 4\n4 a 9\n6 a 20\n' > in
	ok -t 1 --time-format s -k 2 --over 2s --increase 3 --rate 3 \
	    --histogram 3:5,10 in
	assert_output "$(printf '%s\n' '1	a	10	0	0	0	1	1' \
	    '2	a	15	5	2.5	0	1	2' '3	a	4	9	4.5	1	2	3' \
	    '4	a	9	14	7	1	2	3' '6	a	20	16	8	0	1	2')"
	# rows have no length: --rate is empty
	ok -t 1 --time-format s -k 2 --over-rows 2 --increase 3 --rate 3 in
	assert_output $'1\ta\t10\t0\t\n2\ta\t15\t5\t\n3\ta\t4\t9\t\n4\ta\t9\t9\t\n6\ta\t20\t16\t'
	# shuffled, in batch mode: the same
	printf '4 a 9\n1 a 10\n6 a 20\n3 a 4\n2 a 15\n' > shuffled
	run fwin --mode batch -t 1 --time-format s -k 2 --over-rows 2 \
	    --increase 3 --rate 3 shuffled
	assert_output $'1\ta\t10\t0\t\n2\ta\t15\t5\t\n3\ta\t4\t9\t\n4\ta\t9\t9\t\n6\ta\t20\t16\t'
}

@test "over: a counter counts from the key's last value before the frame, past records its --if rejects or that hold none" {
	# 48 holds the key's last accepted value before 150's frame [50, 150];
	# 49 has none (empty, or rejected by --if); while it is still kept
	# (-l holds the key's records), the step to 10 is from 7
	printf 'ts,k,v\n0,k,5\n48,k,7\n49,k,\n150,k,10\n' > in.csv
	for route in '--mode batch' '--mode stream' '--mode stream -l 1s'; do
		ok $route --csv -H -t ts --time-format ms -k k --over 100ms \
		    --increase v in.csv
		assert_output "ts,k,v,increase_v
0,k,5,0
48,k,7,2
49,k,,2
150,k,10,3"
	done
	printf '0 k 5\n48 k 7\n49 k 1\n150 k 10\n' > in
	for route in '--mode batch' '--mode stream -l 1s'; do
		ok $route -t 1 --time-format ms -k 2 --over 100ms --increase 3 \
		    --if '$3 > 2' in
		assert_output $'0\tk\t5\t0\n48\tk\t7\t2\n49\tk\t1\t2\n150\tk\t10\t3'
		ok $route -t 1 --time-format ms -k 2 --over-rows 1 \
		    --increase 3 --if '$3 > 2' in
		assert_output $'0\tk\t5\t0\n48\tk\t7\t2\n49\tk\t1\t\n150\tk\t10\t3'
	done
}

@test "over: --having and --eval read the record's fields and its frame's aggregates" {
	printf 'ts,host,lat\n1,web,10\n2,web,12\n3,"we""b",11\n4,web,90\n5,web,11\n' > in.csv
	# the outliers: more than a standard deviation over the hour's mean
	ok --csv -H -t ts --time-format s -k host --over 1h --avg lat \
	    --stddev lat --having 'lat > avg_lat + 1 * stddev_lat' in.csv
	assert_output $'ts,host,lat,avg_lat,stddev_lat\n4,web,90,37.333333333333336,45.62163229580166'
	ok --csv -H -t ts --time-format s -k host --over-rows 2 --avg lat \
	    --eval 'jump=lat-avg_lat' --having 'host == "we\"b" or jump > 10' in.csv
	assert_output $'ts,host,lat,avg_lat,jump\n3,"we""b",11,11,0\n4,web,90,51,39'
	printf 'ts host lat\n1 a 5\n2 a 7\n' > in
	ok -H -t ts --time-format s -k host --over 1h --sum lat --eval 'x=lat*2' in
	assert_output $'ts\thost\tlat\tsum_lat\tx\n1\ta\t5\t5\t10\n2\ta\t7\t12\t14'
	# the record's fields are named by the header: without one, only
	# the aggregates' and --eval's columns are named, and $N is refused
	printf '1 a 10\n2 a 20\n3 b 5\n' > in
	ok -t 1 --time-format s -k 2 --over 2s --count --sum 3 --having 'count > 1' in
	assert_output $'2\ta\t20\t2\t30'
	ok -t 1 --time-format s -k 2 --over-rows 2 --sum 3 --eval 'h=sum_3/2' --having 'h >= 10' in
	assert_output $'2\ta\t20\t30\t15'
	printf '1,a,10\n2,a,20\n' | fwin --csv -t 1 --time-format s -k 2 --over 2s --count --eval 'twice=count*2' > out
	assert_equal "$(cat out)" $'1,a,10,1,2\n2,a,20,2,4'
	run --separate-stderr fwin -t 1 --time-format s -k 2 --over 1h --count --having '$1 > 0' in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --having: at 1: no column \$1: without -H a record's fields have no names and no fixed number; name an aggregate's column, or give -H"
	run --separate-stderr fwin -t 1 --time-format s -k 2 --over 1h --count --eval 'x=ts' in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --eval: at 1: no column 'ts'"
}

@test "over: with json input --having and --eval read the record's members by their paths, and the aggregates" {
	printf '{"t":1,"h":"a","v":1,"x":{"y":"q"}}\n{"t":2,"h":"a","v":5}\n{"t":3,"h":"a","v":null}\n{"t":4,"h":"b","v":"7"}\n' > in.json
	ok --json -t t --time-format s -k h --over 2 --count --having 'count > 1' in.json
	assert_output $'{"t":2,"h":"a","v":5,"count":2}\n{"t":3,"h":"a","v":null,"count":3}'
	ok --json -t t --time-format s -k h --over 2 --avg v --eval 'd=v-avg_v' \
	    --eval 'y=coalesce(x.y, "-")' --having 'v is null or d >= 0' in.json
	assert_output "$(printf '%s\n' '{"t":1,"h":"a","v":1,"x":{"y":"q"},"avg_v":1,"d":0,"y":"q"}' \
	    '{"t":2,"h":"a","v":5,"avg_v":3,"d":2,"y":"-"}' \
	    '{"t":3,"h":"a","v":null,"avg_v":3,"d":null,"y":"-"}' \
	    '{"t":4,"h":"b","v":"7","avg_v":7,"d":0,"y":"-"}')"
	# an aggregate's name is the aggregate's, whatever the record holds
	printf '{"t":1,"h":"a","count":7}\n' > c.json
	ok --json -t t --time-format s -k h --over 2 --count --having 'count > 5' c.json
	assert_output ""
	# members have no order: no $N; ${N} names one
	run --separate-stderr fwin --json -t t --time-format s -k h --over 2 --count --having '$3 > 1' in.json
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: --having: at 1: no column \$3: a JSON record's members have no order; name them (\${3} for one named 3)"
	printf '{"t":1,"h":"a","3":1}\n{"t":2,"h":"a"}\n' > n.json
	ok --json -t t --time-format s -k h --over-rows 2 --count --having '${3} > 0' n.json
	assert_output '{"t":1,"h":"a","3":1,"count":1}'
}
