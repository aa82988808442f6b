#!/usr/bin/env bats
# Adversarial input: huge lines, NUL bytes, invalid UTF-8, CR line ends,
# unterminated quotes, a million keys, ten thousand fields, times at the
# int64 limits, durations that overflow, empty input, no final newline.
# Each has a defined result or a clear message, the exit status of fwin(1) EXIT STATUS,
# and the records around it are not lost. Big inputs are generated into the
# test's scratch dir and compared with cmp, never held in a bash variable.
load common

BIG=100000000	# 100 MB

# bytes N CHAR: N copies of CHAR on stdout
bytes() {
	head -c "$1" /dev/zero | tr '\0' "$2"
}

# --- a 100 MB line ---

@test "100 MB line: a bad time, one message, the records around it kept" {
	{ printf '1700000000 x\n'; bytes $BIG a; printf '\n1700000001 y\n'; } > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_success
	assert_output $'1700000000\t1700000001\t1\n1700000001\t1700000002\t1'
	assert_equal "$stderr" 'fwin: in:2: field 1: bad time "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."; record skipped
fwin: 1 bad record skipped'
}

@test "100 MB line: as a key, printed whole, with its count" {
	{ printf '1700000000 '; bytes $BIG a; printf '\n1700000000 b\n1700000000 '
	  bytes $BIG a; printf '\n'; } > in
	{ printf '1700000000\t1700000001\t'; bytes $BIG a
	  printf '\t2\n1700000000\t1700000001\tb\t1\n'; } > want
	fwin -t 1 -k 2 --tumble 1s in > out 2> err
	cmp out want
	[ ! -s err ]
}

@test "100 MB line: csv, a quoted field that is never closed" {
	{ printf 'ts,k\n1700000000,a\n1700000001,"'; bytes $BIG x; } > in
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1s in
	assert_success
	assert_output $'window_start,window_end,k,count\n1700000000,1700000001,a,1'
	assert_equal "$stderr" $'fwin: in:3: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
}

@test "100 MB line: csv, a quoted 100 MB key" {
	{ printf '1700000000,"'; bytes $BIG x; printf '"\n1700000000,y\n'; } > in
	{ printf '1700000000,1700000001,'; bytes $BIG x
	  printf ',1\n1700000000,1700000001,y,1\n'; } > want
	fwin --csv -t 1 -k 2 --tumble 1s in > out 2> err
	cmp out want
	[ ! -s err ]
}

# --- NUL bytes ---

@test "NUL bytes: ordinary bytes in keys, in every format" {
	printf '1700000000 a\0b 5\n1700000000 a\0b 7\n1700000001 \0 1\n' > in
	fwin -t 1 -k 2 --tumble 1s --sum 3 in > out
	printf '1700000000\t1700000001\ta\0b\t12\n1700000001\t1700000002\t\0\t1\n' > want
	cmp out want
	run fwin -t 1 -k 2 --tumble 1s --sum 3 --output-format json in
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"key1":"a\u0000b","sum_3":12}
{"window_start":1700000001,"window_end":1700000002,"key1":"\u0000","sum_3":1}'
	printf 'ts,k\n1700000000,"a\0b"\n1700000000,a\0b\n' > in.csv
	run fwin --csv -H -t ts -k k --tumble 1s --output-format json in.csv
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"k":"a\u0000b","count":2}'
	printf '1700000000\ta\0b\n' > in.tsv
	fwin --tsv -t 1 -k 2 --tumble 1s in.tsv > out
	printf '1700000000\t1700000001\ta\0b\t1\n' > want
	cmp out want
}

@test "NUL bytes: in a time or a number, a bad record shown with '?'" {
	printf '1700000000 a 1\n17000\00000000 a 1\n1700000000 a 2\0\n1700000000 a 3\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s --sum 3 in
	assert_success
	assert_output $'1700000000\t1700000001\t4'
	assert_equal "$stderr" 'fwin: in:2: field 1: bad time "17000?00000"; record skipped
fwin: in:3: field 3: not a number "2?"; record skipped
fwin: 2 bad records skipped'
}

@test "NUL bytes: a file of nothing but NULs is one bad record" {
	bytes 100000 '\0' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'fwin: in:1: field 1: bad time "????????????????????????????????????????..."; record skipped
fwin: all 1 record was bad; see the messages above'
}

# --- invalid UTF-8 ---

@test "invalid UTF-8: json output is valid, each bad byte a U+FFFD" {
	printf '1700000000 \xff\xfe\n1700000000 \xc0\xaf\n1700000000 \xed\xa0\x80\n1700000000 caf\xc3\xa9\n1700000000 \xe2\x82\n1700000000 \xf4\x90\x80\x80\n' > in
	run fwin -t 1 -k 2 --tumble 1s --first 2 --output-format json in
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"key1":"café","first_2":"café"}
{"window_start":1700000000,"window_end":1700000001,"key1":"\ufffd\ufffd","first_2":"\ufffd\ufffd"}
{"window_start":1700000000,"window_end":1700000001,"key1":"\ufffd\ufffd","first_2":"\ufffd\ufffd"}
{"window_start":1700000000,"window_end":1700000001,"key1":"\ufffd\ufffd\ufffd","first_2":"\ufffd\ufffd\ufffd"}
{"window_start":1700000000,"window_end":1700000001,"key1":"\ufffd\ufffd\ufffd\ufffd","first_2":"\ufffd\ufffd\ufffd\ufffd"}
{"window_start":1700000000,"window_end":1700000001,"key1":"\ufffd\ufffd","first_2":"\ufffd\ufffd"}'
	# and where a JSON parser is at hand, it agrees
	if command -v python3 > /dev/null; then
		fwin -t 1 -k 2 --tumble 1s --first 2 --output-format json in |
		    python3 -c 'import json, sys
for l in sys.stdin.buffer: json.loads(l.decode("utf-8"))'
	fi
}

@test "invalid UTF-8: tsv and csv output keep the bytes as they are" {
	printf '1700000000 \xff\x80\n1700000000 \xff\x80\n' > in
	fwin -t 1 -k 2 --tumble 1s in > out
	printf '1700000000\t1700000001\t\xff\x80\t2\n' > want
	cmp out want
	fwin -t 1 -k 2 --tumble 1s --output-format csv in > out
	printf '1700000000,1700000001,\xff\x80,2\n' > want
	cmp out want
}

@test "UTF-8 in a message: its characters shown, a bad byte as '?', none cut at 40 bytes" {
	# a bad time and a bad number: UTF-8 kept, \xff shown as '?'; a
	# value of 39 ASCII bytes and a 2-byte character is cut before it
	{ printf '2026\xe5\xb9\xb4 5\n1700000000 caf\xc3\xa9\xff\n'
	  printf '%s\xc3\xa9x 1\n' 123456789012345678901234567890123456789; } > in
	run --separate-stderr fwin -t 1 --tumble 1s --sum 2 in
	assert_failure 1
	assert_equal "$stderr" "$(printf 'fwin: in:1: field 1: bad time "2026\xe5\xb9\xb4"; record skipped
fwin: in:2: field 2: not a number "caf\xc3\xa9?"; record skipped
fwin: in:3: field 1: bad time "123456789012345678901234567890123456789..."; record skipped
fwin: all 3 records were bad; see the messages above')"
}

# --- CR-only line ends ---

@test "CR-only line ends: lines, one long line where CR is not a blank" {
	printf '1700000000 a\r1700000001 b\r1700000002 c\r' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 1s --last 3 --output-format json in
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"key1":"a\r1700000001","last_3":"b\r1700000002"}'
	assert_equal "$stderr" ''
	run --separate-stderr fwin -k 1 --count in
	assert_success
	assert_output $'1700000000\t1'
}

@test "CR-only line ends: csv and tsv, one record of one line" {
	printf '1700000000,a\r1700000001,b\r1700000002,c\r' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1s --output-format json in
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"key1":"a\r1700000001","count":1}'
	assert_equal "$stderr" ''
	printf '1700000000\ta\r1700000001\tb\r' > in
	run --separate-stderr fwin --tsv -t 1 -k 2 --tumble 1s --output-format json in
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"key1":"a\r1700000001","count":1}'
}

@test "CR-only line ends: a bad time names line 1, rest of the file kept" {
	printf 'x\ry\rz\r\n1700000000 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_success
	assert_output $'1700000000\t1700000001\t1'
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "x?y?z"; record skipped\nfwin: 1 bad record skipped'
}

@test "CR-only line ends: a csv header of one line lacks the later names" {
	printf 'ts,k\r1700000000,a\r' > in
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1s in
	assert_failure 2
	assert_output ''
	assert_equal "$stderr" "fwin: no field 'k' in the header"
}

# --- unterminated quotes ---

@test "unterminated quote at EOF: one bad record, earlier rows kept" {
	printf '1700000000,a\n1700000001,"b\n1700000002,c\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1s in
	assert_success
	# reading resumes at the line after the one the bad record began on
	assert_output $'1700000000,1700000001,a,1\n1700000002,1700000003,c,1'
	assert_equal "$stderr" $'fwin: in:2: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
	# no newline at the end; an escaped quote does not close it
	printf '1700000000,a\n1700000001,"b""' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1s in
	assert_success
	assert_output '1700000000,1700000001,a,1'
	assert_equal "$stderr" $'fwin: in:2: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
	# a quote that opens the first field
	printf '1700000000,a\n"1700000001,b\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1s in
	assert_success
	assert_output '1700000000,1700000001,a,1'
	assert_equal "$stderr" $'fwin: in:2: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
}

@test "unterminated quote at EOF: --strict is exit 1, no row" {
	printf '1700000000,a\n1700000001,"b\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1s --strict in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'fwin: in:2: unterminated quoted field'
}

@test "unterminated quote in the first of two files: the second is read" {
	printf 'ts,k\n1700000000,a\n1700000001,"b\n' > in1
	printf 'ts,k\n1700000002,c\n' > in2
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1s in1 in2
	assert_success
	assert_output $'window_start,window_end,k,count\n1700000000,1700000001,a,1\n1700000002,1700000003,c,1'
	assert_equal "$stderr" $'fwin: in1:3: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
}

@test "a stray quote that closes an earlier open one: the record on its line still spans lines" {
	# line 2 opens a quote that the '"' of line 4 closes, stray: line 2
	# is the bad record, and line 4 begins a record of its own, whose
	# quoted field holds a newline and a doubled quote
	printf '1,a,1\n2,"open,1\n3,b,1\n4,"q""x\n""z",1\n5,c,1\n' > in
	want=$'0,10,a,1\n0,10,b,1\n0,10,c,1\n0,10,"q""x\n""z",1'
	for args in "--threads 1" "--threads 2" "--threads 4 --mode stream" "--threads 1 --mode stream"; do
		run --separate-stderr fwin $args --csv -t 1 -k 2 --tumble 10s --bad-file bad in
		assert_success
		assert_equal "$output" "$want"
		assert_equal "$stderr" $'fwin: in:2: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
		assert_equal "$(cat bad)" '2,"open,1'
		rm bad
	done
	# read from a pipe alike
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s < <(cat in)
	assert_equal "$output" "$want"
	assert_equal "$stderr" $'fwin: -:2: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
	# the quote of line 2 still open when its 1 MiB runs out on line 4:
	# line 4 begins a record that ends on line 5
	{
		printf '1,a,1\n2,"open,1\n'
		head -c 1048560 /dev/zero | tr '\0' X
		printf '\n4,"x","y\nz",1\n6,c,1\n'
	} > in
	for n in 1 2; do
		run --separate-stderr fwin --threads $n --csv -t 1 -k 2 --tumble 10s in
		assert_success
		assert_output $'0,10,a,1\n0,10,c,1\n0,10,x,1'
		assert_equal "$stderr" $'fwin: in:2: unterminated quoted field; record skipped\nfwin: in:3: field 2: missing (record has 1 field); record skipped\nfwin: 2 bad records skipped'
	done
}

# --- a header that arrives late on a pipe ---

# The wait hook ran before the state existed and crashed (SIGSEGV) when
# the header had to wait for input.
@test "a header that is slow to arrive on a pipe" {
	run --separate-stderr bash -c '{ sleep 0.3; printf "ts,k\n1700000000,a\n"; sleep 0.2
	    printf "1700000002,b\n"; } | "$0" --csv -H -t ts -k k --tumble 1s' "$FWIN"
	assert_success
	assert_output $'window_start,window_end,k,count\n1700000000,1700000001,a,1\n1700000002,1700000003,b,1'
	run --separate-stderr bash -c '{ sleep 0.3; printf "k\na\n"; } |
	    "$0" --csv -H -k k --tumble 1h' "$FWIN"
	assert_success
	assert_line --index 0 'window_start,window_end,k,count'
	assert_line --index 1 --regexp ',a,1$'
}

# --- a million keys ---

@test "1M distinct keys: a row each, counts add up, keys in order" {
	awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "1700000000 k%07d\n", i
		print "1700000001 last" }' > in
	fwin -t 1 -k 2 --tumble 1s in > out
	run awk -F'\t' '$1 == 1700000000 { n++; s += $4 } END { print NR, n, s }' out
	assert_output '1000001 1000000 1000000'
	run head -n 1 out
	assert_output $'1700000000\t1700000001\tk0000000\t1'
	run tail -n 2 out
	assert_output $'1700000000\t1700000001\tk0999999\t1\n1700000001\t1700000002\tlast\t1'
}

# --- ten thousand fields ---

@test "10,000 fields: field 10000 as key, 9999 as a number, 10001 missing" {
	awk 'BEGIN { for (r = 0; r < 3; r++) { printf "1700000000"
		for (i = 2; i <= 10000; i++) printf " %d", i + r; printf "\n" } }' > in
	run --separate-stderr fwin -t 1 -k 10000 --sum 9999 --tumble 1s in
	assert_success
	assert_output $'1700000000\t1700000001\t10000\t9999\n1700000000\t1700000001\t10001\t10000\n1700000000\t1700000001\t10002\t10001'
	run --separate-stderr fwin -t 1 -k 10001 --tumble 1s in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'fwin: in:1: field 10001: missing (record has 10000 fields); record skipped
fwin: in:2: field 10001: missing (record has 10000 fields); record skipped
fwin: in:3: field 10001: missing (record has 10000 fields); record skipped
fwin: all 3 records were bad; see the messages above'
}

@test "10,000 fields: csv and tsv, by number and by name" {
	awk 'BEGIN { printf "ts"; for (i = 2; i <= 10000; i++) printf ",c%d", i; printf "\n"
		for (r = 0; r < 2; r++) { printf "1700000000"
		for (i = 2; i <= 10000; i++) printf ",%d", i; printf "\n" } }' > in.csv
	run --separate-stderr fwin --csv -H -t ts -k c10000 --sum c9999 --tumble 1s in.csv
	assert_success
	assert_output $'window_start,window_end,c10000,sum_c9999\n1700000000,1700000001,10000,19998'
	tail -n +2 in.csv | tr , '\t' > in.tsv
	run --separate-stderr fwin --tsv -t 1 -k 10000 --max 9999 --tumble 1s in.tsv
	assert_success
	assert_output $'1700000000\t1700000001\t10000\t9999'
}

# --- times at the int64 limits, and before 1970 ---

@test "int64 limits: ns INT64_MAX and INT64_MIN with --tumble 1s are bad records" {
	printf '1700000000000000000 a\n9223372036854775807 a\n-9223372036854775808 a\n1700000000000000001 a\n' > in
	run --separate-stderr fwin -t 1 --time-format ns --tumble 1s in
	assert_success
	assert_output $'1700000000000000000\t1700000001000000000\t2'
	assert_equal "$stderr" 'fwin: in:2: field 1: window out of range for time "9223372036854775807"; record skipped
fwin: in:3: field 1: window out of range for time "-9223372036854775808"; record skipped
fwin: 2 bad records skipped'
}

@test "int64 limits: one past them does not parse, and is said to be out of range" {
	printf '9223372036854775808 a\n-9223372036854775809 a\n99999999999999999999 a\n0 a\n' > in
	run --separate-stderr fwin -t 1 --time-format ns --tumble 1ns in
	assert_success
	assert_output $'0\t1\t1'
	assert_equal "$stderr" 'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "9223372036854775808"; record skipped
fwin: in:2: field 1: time out of range (1677-09-21 to 2262-04-11) "-9223372036854775809"; record skipped
fwin: in:3: field 1: time out of range (1677-09-21 to 2262-04-11) "99999999999999999999"; record skipped
fwin: 3 bad records skipped'
}

@test "int64 limits: the last and first whole windows are kept" {
	printf '%s\n' -9223372036000000000 9223372035999999999 > in
	run --separate-stderr fwin -t 1 --time-format ns --tumble 1s in
	assert_success
	assert_output $'-9223372036000000000\t-9223372035000000000\t1\n9223372035000000000\t9223372036000000000\t1'
	printf '%s\n' -9223372036854775808 9223372036854775805 > in
	run --separate-stderr fwin -t 1 --time-format ns --tumble 1ns in
	assert_success
	assert_output $'-9223372036854775808\t-9223372036854775807\t1\n9223372036854775805\t9223372036854775806\t1'
	assert_equal "$stderr" ''
}

# A window ending at INT64_MAX could never fire (INT64_MAX is "no time"):
# its records were dropped without a word.
@test "int64 limits: a window ending at INT64_MAX is out of range, not lost" {
	printf '%s\n' 9223372036854775806 > in
	for w in '--tumble 1ns' '--tumble 2ns --offset 1ns' '--slide 2ns,1ns'; do
		run --separate-stderr fwin -t 1 --time-format ns $w in
		assert_failure 1
		assert_output ''
		assert_equal "$stderr" 'fwin: in:1: field 1: window out of range for time "9223372036854775806"; record skipped
fwin: all 1 record was bad; see the messages above'
	done
	printf '0\n' > in
	run --separate-stderr fwin -t 1 --time-format ns --tumble 9223372036854775807ns in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'fwin: in:1: field 1: window out of range for time "0"; record skipped
fwin: all 1 record was bad; see the messages above'
}

# A session ending at INT64_MAX (T_NONE, "no time") or past it would never
# fire: its records were dropped without a word.
@test "int64 limits: a session that would end at or past INT64_MAX is out of range" {
	printf '%s\n' 9223372034000000000 9223372035999999999 9223372035854775807 \
	    9223372035854775806 > in
	run --separate-stderr fwin -t 1 --time-format ns --session 1s in
	assert_success
	assert_output $'9223372034000000000\t9223372035000000000\t1\n9223372035854775806\t9223372036854775806\t1'
	assert_equal "$stderr" 'fwin: in:2: field 1: window out of range for time "9223372035999999999"; record skipped
fwin: in:3: field 1: window out of range for time "9223372035854775807"; record skipped
fwin: 2 bad records skipped'
}

@test "int64 limits: a late record at INT64_MIN is behind the watermark by INT64_MAX at most" {
	printf '%s\n' 5 -9223372036854775808 > in
	run --separate-stderr fwin --mode stream -t 1 --time-format ns --tumble 1ns in
	assert_success
	assert_output $'5\t6\t1'
	assert_equal "$stderr" 'fwin: 1 late record dropped (the latest by 15250w1d23h47m16.854775807s behind the watermark); -l 15250w1d23h47m16.854775807s, --late-file or --mode batch keeps them'
	run --separate-stderr fwin --mode stream --threads 3 -t 1 --time-format ns --tumble 1ns in
	assert_output $'5\t6\t1'
	[[ "$stderr" == *"the latest by 15250w1d23h47m16.854775807s behind"* ]]
}

@test "int64 limits: the same in seconds and iso" {
	printf '%s\n' 9223372036.854775807 -9223372036.854775808 9223372036.854775808 0 > in
	run --separate-stderr fwin -t 1 --time-format s --tumble 1s in
	assert_success
	assert_output $'0\t1\t1'
	assert_equal "$stderr" 'fwin: in:1: field 1: window out of range for time "9223372036.854775807"; record skipped
fwin: in:2: field 1: window out of range for time "-9223372036.854775808"; record skipped
fwin: in:3: field 1: time out of range (1677-09-21 to 2262-04-11) "9223372036.854775808"; record skipped
fwin: 3 bad records skipped'
	printf '%s\n' 1677-09-21T00:12:43.145224191Z 2262-04-11T23:47:16.854775808Z 2262-04-11T23:47:16.854775807Z 2000-01-01T00:00:00Z > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_success
	assert_output $'2000-01-01T00:00:00Z\t2000-01-01T00:00:01Z\t1'
	assert_equal "$stderr" 'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "1677-09-21T00:12:43.145224191Z"; record skipped
fwin: in:2: field 1: time out of range (1677-09-21 to 2262-04-11) "2262-04-11T23:47:16.854775808Z"; record skipped
fwin: in:3: field 1: window out of range for time "2262-04-11T23:47:16.854775807Z"; record skipped
fwin: 3 bad records skipped'
}

@test "before 1970: negative times fall in floor-divided windows" {
	printf '%s\n' -86400 -1.5 -1 -0.5 0 > in
	run --separate-stderr fwin -t 1 --time-format s --tumble 1s in
	assert_success
	assert_output $'-86400\t-86399\t1\n-2\t-1\t1\n-1\t0\t2\n0\t1\t1'
	run --separate-stderr fwin -t 1 --time-format s --tumble 1s --output-time iso in
	assert_success
	assert_output $'1969-12-31T00:00:00Z\t1969-12-31T00:00:01Z\t1\n1969-12-31T23:59:58Z\t1969-12-31T23:59:59Z\t1\n1969-12-31T23:59:59Z\t1970-01-01T00:00:00Z\t2\n1970-01-01T00:00:00Z\t1970-01-01T00:00:01Z\t1'
	printf '%s\n' 1677-09-21T00:12:43.145224192Z 1900-01-01T00:00:00Z 1969-12-31T23:59:59.5Z > in
	run --separate-stderr fwin -t 1 --tumble 1d in
	assert_success
	assert_output $'1900-01-01T00:00:00Z\t1900-01-02T00:00:00Z\t1\n1969-12-31T00:00:00Z\t1970-01-01T00:00:00Z\t1'
	# the earliest time there is, but its day starts before it
	assert_equal "$stderr" 'fwin: in:1: field 1: window out of range for time "1677-09-21T00:12:43.145224192Z"; record skipped
fwin: 1 bad record skipped'
}

# --- durations that overflow ---

@test "durations that overflow are usage errors (exit 2) that say too large" {
	for d in 99999999999999999999s 9223372036854775808ns 9223372037s 106752d \
	    15251w 2562048h 153722868m 9223372036s854775808ns 99999999y; do
		run --separate-stderr fwin --tumble "$d" /dev/null
		assert_failure 2
		assert_output ''
		assert_equal "$stderr" "fwin: --tumble: '$d' is too large
Try 'fwin --help' for more information."
	done
	run --separate-stderr fwin --tumble 1e30s /dev/null
	assert_failure 2
	assert_equal "$stderr" "fwin: --tumble: bad duration '1e30s' (units: ns us ms s m h d w mo q y)
Try 'fwin --help' for more information."
	for o in '--slide 1s,99999999999999999999s' '--session 99999999999999999999s' \
	    '-l 99999999999999999999s' '--allowed-lateness 99999999999999999999s' \
	    '--offset -99999999999999999999s' '--idle-timeout 99999999999999999999s'; do
		run --separate-stderr fwin $o /dev/null
		assert_failure 2
		assert_output ''
		[[ $stderr == "fwin: "*": '"*"' is too large
Try 'fwin --help' for more information." ]]
	done
}

@test "durations at the int64 limit are accepted" {
	printf '0 a\n1 b\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s -l 9223372036854775807ns in
	assert_success
	assert_output $'0\t1\t1\n1\t2\t1'
	run --separate-stderr fwin -t 1 --tumble 1s --offset -9223372036854775807ns in
	assert_success
	assert_output $'-0.854775807\t0.145224193\t1\n0.145224193\t1.145224193\t1'
}

# --- empty input ---

@test "empty input: every format, with and without -H, nothing and exit 0" {
	: > in
	for fmt in lines csv tsv; do
		for h in '' -H; do
			for w in '--tumble 1s' '--session 1s' '--count-window 2' ''; do
				run --separate-stderr fwin --format $fmt $h -t 1 $w in
				assert_success
				assert_output ''
				assert_equal "$stderr" ''
				run --separate-stderr fwin --format $fmt $h -t 1 $w --output-format json < in
				assert_success
				assert_output ''
			done
		done
	done
}

@test "empty input: blank lines only, and a header only" {
	printf '\n\n\r\n' > in
	run --separate-stderr fwin -t 1 --tumble 1s in
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
	printf 'ts,k\n' > in
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1s in
	assert_success
	assert_output 'window_start,window_end,k,count'
	printf 'ts,k' > in
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1s in
	assert_success
	assert_output 'window_start,window_end,k,count'
}

# --- no newline at the end ---

@test "no final newline: the last record counts, in every format" {
	printf '1700000000 a\n1700000001 b' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 1s in
	assert_success
	assert_output $'1700000000\t1700000001\ta\t1\n1700000001\t1700000002\tb\t1'
	printf '1700000000 a\n1700000001 b\r' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 1s --output-format json in
	assert_success
	assert_output '{"window_start":1700000000,"window_end":1700000001,"key1":"a","count":1}
{"window_start":1700000001,"window_end":1700000002,"key1":"b","count":1}'
	printf 'ts,k\n1700000000,a\n1700000001,"b,c"' > in
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1s in
	assert_success
	assert_output $'window_start,window_end,k,count\n1700000000,1700000001,a,1\n1700000001,1700000002,"b,c",1'
	printf 'ts\tk\n1700000000\ta\n1700000001\tb' > in
	run --separate-stderr fwin --tsv -H -t ts -k k --tumble 1s in
	assert_success
	assert_output $'window_start\twindow_end\tk\tcount\n1700000000\t1700000001\ta\t1\n1700000001\t1700000002\tb\t1'
	assert_equal "$stderr" ''
}

@test "no final newline: from a pipe, and in rolling mode" {
	run --separate-stderr bash -c 'printf "a 1\na 2\nb 3" | "$0" -k 1 --sum 2' "$FWIN"
	assert_success
	assert_output $'a\t1\na\t3\nb\t3'
	assert_equal "$stderr" ''
}

@test "one record in millions of windows (--slide 2h,1ms): they stream out in bounded memory" {
	if [[ $FWIN == *asan* || $FWIN == *valgrind* ]] ||
	    ldd "$FWIN" 2>/dev/null | grep -q libasan; then
		skip "the sanitizers' shadow memory does not fit a memory limit"
	fi
	printf '5 a\n5 b\n7 a\n' > in
	# 7.2M windows of each key; held all at once they need about 400 MB
	run bash -c 'ulimit -v 250000; "$0" -t 1 --time-format ms --mode stream --slide 2h,1ms --count in | wc -l' "$FWIN"
	assert_success
	assert_output 7200002
}
