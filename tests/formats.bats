#!/usr/bin/env bats
# Input formats (lines, tsv, csv), -d, -H, and the output formats (tsv, csv,
# json). fwin(1): OPTIONS (Records), OUTPUT.
load common

# --- lines ---

@test "lines: runs of blanks, leading and trailing blanks, tabs" {
	printf '  10 \t a\n12\t\tb\n\t16   a  \n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_equal "$stderr" ""
}

@test "lines: -d makes every delimiter separate, so fields may be empty" {
	printf '10,,x\n11,a,y\n12,,z,\n' > in
	run --separate-stderr fwin -d , -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\t\t2\n10\t15\ta\t1'
	assert_equal "$stderr" ""
	printf '10,a,\n11,a,b\n' > in
	run --separate-stderr fwin -d , -t 1 -k 3 --tumble 5s in
	assert_success
	assert_output $'10\t15\t\t1\n10\t15\tb\t1'
	assert_equal "$stderr" ""
}

@test "lines: -d ' ' does not merge runs of spaces" {
	printf '10  a\n11 b\n' > in
	run --separate-stderr fwin -d ' ' -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\t\t1\n10\t15\tb\t1'
	assert_equal "$stderr" ""
}

@test "lines: -d '\\t' (two characters) is a TAB" {
	printf '10\t\tx\n11\ta b\tx\n' > in
	run --separate-stderr fwin -d '\t' -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\t\t1\n10\t15\ta b\t1'
	assert_equal "$stderr" ""
}

@test "lines: CRLF line ends, the CR is dropped" {
	printf '10 a\r\n12 a\r\n16 b\r\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t2\n15\t20\tb\t1'
	assert_equal "$stderr" ""
}

@test "lines: empty lines are no records, but count as lines" {
	printf '\n10 a\n\n\nx a\n12 a\n\r\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" $'fwin: in:5: field 1: bad time "x"; record skipped\nfwin: 1 bad record skipped'
}

@test "lines: a line of blanks only is no record either, but counts as a line; with -d it is one" {
	# it was a record of no fields: bad under -t ('missing (record has 0
	# fields)', fatal with --strict), counted in rolling mode
	printf '10 a\n   \n\t \r\nx a\n12 a\n  ' > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" $'fwin: in:4: field 1: bad time "x"; record skipped\nfwin: 1 bad record skipped'
	printf '10 a\n \n12 a\n' > in
	run --separate-stderr fwin --strict -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" ''
	printf 'a\n   \nb\n' > in
	run --separate-stderr fwin --count in
	assert_success
	assert_output $'1\n2'
	run --separate-stderr fwin -d ' ' --count in
	assert_success
	assert_output $'1\n2\n3'
}

@test "lines: a last line without a newline is a record" {
	printf '10 a\n16 a' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t1\n15\t20\ta\t1'
	assert_equal "$stderr" ""
}

@test "lines: a NUL byte is an ordinary byte, in a key or in a (bad) time" {
	printf '10 a\000b\n12 c\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s -o out in
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	printf '10\t15\ta\000b\t1\n10\t15\tc\t1\n' > want
	cmp out want
	printf '10 a\n1\0001 a\n12 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" $'fwin: in:2: field 1: bad time "1?1"; record skipped\nfwin: 1 bad record skipped'
}

# --- tsv ---

@test "tsv: TAB-separated, spaces and quotes are data" {
	printf '10\ta b\tx\n11\t"q"\ty\n12\t\tz\n' > in
	run --separate-stderr fwin --tsv -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\t\t1\n10\t15\t"q"\t1\n10\t15\ta b\t1'
	assert_equal "$stderr" ""
}

@test "tsv: --format tsv is --tsv, CRLF dropped, header by name" {
	printf 'ts\tuser\r\n10\ta\r\n11\ta\r\n' > in
	run --separate-stderr fwin --format tsv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output $'window_start\twindow_end\tuser\tcount\n10\t15\ta\t2'
	assert_equal "$stderr" ""
}

# --- csv ---

@test "csv: quotes, doubled quotes, delimiter and newline inside quotes" {
	printf 'ts,user,note\n10,"a,b",x\n11,"say ""hi""",y\n12,"multi\nline",z\n13,plain,"w"\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output 'window_start,window_end,user,count
10,15,"a,b",1
10,15,"multi
line",1
10,15,plain,1
10,15,"say ""hi""",1'
	assert_equal "$stderr" ""
}

@test "csv: a '\"' inside an unquoted field is data; with -H a record's fields are counted as they are read" {
	printf 'ts,k,v\n1,x"y,2\n2,x"y,3,4\n3,"q"r,s",5\n4,x"y,7\n' > in
	for mode in stream batch; do
		run --separate-stderr fwin --mode $mode --csv -H -t ts -k k \
		    --tumble 10s --sum v in
		assert_success
		assert_output $'window_start,window_end,k,sum_v\n0,10,"q""r,s",5\n0,10,"x""y",9'
		assert_equal "$stderr" $'fwin: in:3: 4 fields, the header has 3; record skipped\nfwin: 1 bad record skipped'
	done
	# a -d byte above 0x7f, after a quoted field
	printf 'ts\247k\247v\n1\247"a"\2472\2479\n2\247"b"\2473\n' > in
	run --separate-stderr fwin --csv -d $'\247' -H -t ts -k k --tumble 10s \
	    --sum v in
	assert_success
	assert_output $'window_start,window_end,k,sum_v\n0,10,b,3'
	assert_equal "$stderr" $'fwin: in:2: 4 fields, the header has 3; record skipped\nfwin: 1 bad record skipped'
}

@test "csv: a key holding a comma and a newline comes out quoted in csv, as is in tsv" {
	printf '10,"x,\ny"\n11,"x,\ny"\n12,z\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output '10,15,"x,
y",2
10,15,z,1'
	assert_equal "$stderr" ""
	printf '10,"x,\ny"\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --output-format tsv in
	assert_success
	assert_output $'10\t15\tx,\ny\t1'
	assert_equal "$stderr" ""
}

@test "csv: a quoted time field, and spaces are data" {
	printf '"10", a\n"11",a\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"key1":" a","count":1}
{"window_start":10,"window_end":15,"key1":"a","count":1}'
	assert_equal "$stderr" ""
}

@test "csv: CRLF line ends, a CRLF inside quotes is data" {
	printf 'ts,user\r\n10,a\r\n11,"b\r\nc"\r\n12,a\r\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"user":"a","count":2}
{"window_start":10,"window_end":15,"user":"b\r\nc","count":1}'
	assert_equal "$stderr" ""
}

@test "csv: -d ';'" {
	printf 'ts;user\n10;"a;b"\n11;x,y\n12;plain\n' > in
	run --separate-stderr fwin --csv -d ';' -H -t ts -k user --tumble 5s in
	assert_success
	assert_output 'window_start,window_end,user,count
10,15,a;b,1
10,15,plain,1
10,15,"x,y",1'
	assert_equal "$stderr" ""
}

@test "csv: a last line without a newline, quoted or not" {
	printf '10,a\n11,"b"' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10,15,a,1\n10,15,b,1'
	assert_equal "$stderr" ""
	printf '10,a\n11,b' > in2
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s in2
	assert_success
	assert_output $'10,15,a,1\n10,15,b,1'
	assert_equal "$stderr" ""
}

@test "csv: empty lines are no records" {
	printf 'ts,user\n\n10,a\n\n11,a\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,user,count\n10,15,a,2'
	assert_equal "$stderr" ""
}

@test "csv: a NUL byte inside a quoted field does not crash" {
	printf '10,"a\000b"\n11,c\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s -o out in
	assert_success
	assert_equal "$stderr" ""
	printf '10,15,a\000b,1\n10,15,c,1\n' > want
	cmp out want
}

# --- -H ---

@test "-H: fields by name and by number; the header row uses the names" {
	printf 'ts,user,amount\n10,a,1\n11,a,2\n12,b,5\n' > in
	run --separate-stderr fwin --csv -H -t 1 -k 2 -c --sum 3 --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,user,count,sum_amount\n10,15,a,2,3\n10,15,b,1,5'
	assert_equal "$stderr" ""
	run --separate-stderr fwin --csv -H -t ts -k user -c --sum amount --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,user,count,sum_amount\n10,15,a,2,3\n10,15,b,1,5'
	assert_equal "$stderr" ""
}

@test "-H: header row in tsv output, from csv and from lines input" {
	printf 'ts,user\n10,a\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s --output-format tsv in
	assert_success
	assert_output $'window_start\twindow_end\tuser\tcount\n10\t15\ta\t1'
	assert_equal "$stderr" ""
	printf 'ts  user\n10 a\n' > in
	run --separate-stderr fwin -H -t ts -k user --tumble 5s in
	assert_success
	assert_output $'window_start\twindow_end\tuser\tcount\n10\t15\ta\t1'
	assert_equal "$stderr" ""
}

@test "-H: no header row in json" {
	printf 'ts,user\n10,a\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"user":"a","count":1}'
	assert_equal "$stderr" ""
}

@test "-H: empty input prints nothing, exit 0" {
	: > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s < /dev/null
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
}

@test "-H: a header and no records prints the header row only" {
	printf 'ts,user\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output 'window_start,window_end,user,count'
	assert_equal "$stderr" ""
}

@test "-H: several FILEs with the same header are one stream" {
	printf 'ts,user\n10,a\n' > a
	printf 'ts,user\n11,a\n16,b\n' > b
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s a b
	assert_success
	assert_output $'window_start,window_end,user,count\n10,15,a,2\n15,20,b,1'
	assert_equal "$stderr" ""
}

@test "-H: a FILE whose header differs: exit 1" {
	printf 'ts,user\n10,a\n16,a\n' > a
	printf 'ts,name\n20,b\n' > b
	run --separate-stderr fwin --mode stream --csv -H -t ts -k user --tumble 5s a b
	assert_failure 1
	assert_output $'window_start,window_end,user,count\n10,15,a,1'
	assert_equal "$stderr" "fwin: b: header differs from the first file's: column 2 is 'name', not 'user'"
}

@test "-H: a FILE whose header differs names the first column that differs" {
	printf 'ts,user,v\n10,a,1\n' > a
	printf 'ts,user\n20,b\n' > fewer
	printf 'ts,user,v,w\n20,b,1,2\n' > more
	printf '"ts","us\ner",v\n20,b,1\n' > nl
	for mode in stream batch; do
		run --separate-stderr fwin --mode $mode --csv -H -t ts --tumble 5s a fewer
		assert_failure 1
		assert_equal "$stderr" "fwin: fewer: header differs from the first file's: column 3 is missing, not 'v'"
		run --separate-stderr fwin --mode $mode --csv -H -t ts --tumble 5s a more
		assert_failure 1
		assert_equal "$stderr" "fwin: more: header differs from the first file's: column 4 is 'w', an extra one"
		run --separate-stderr fwin --mode $mode --csv -H -t ts --tumble 5s a nl
		assert_failure 1
		assert_equal "$stderr" "fwin: nl: header differs from the first file's: column 2 is 'us?er', not 'user'"
	done
}

# --- output formats ---

@test "output: csv is the default for csv input, tsv for lines" {
	printf '10,a\n' > in
	run --separate-stderr fwin --format csv -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output '10,15,a,1'
	printf '10 a\n' > in2
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s in2
	assert_success
	assert_output $'10\t15\ta\t1'
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s --output-format csv in2
	assert_success
	assert_output '10,15,a,1'
}

@test "output: csv quotes only the fields that need it" {
	printf '10\ta"b\n10\tc,d\n10\te f\n10\tg\rh\n10\t\n10\tplain\n' > in
	run --separate-stderr fwin --tsv -t 1 -k 2 --tumble 5s --output-format csv in
	assert_success
	assert_output $'10,15,,1\n10,15,"a""b",1\n10,15,"c,d",1\n10,15,e f,1\n10,15,"g\rh",1\n10,15,plain,1'
	assert_equal "$stderr" ""
}

@test "output: a row written in one piece (csv, tsv: numeric bounds, one key, integer counts and sums) is the bytes of one written a cell at a time" {
	# the rows that need no quotes and no decimal are written whole
	# (sink.c: write_row_whole), the others a cell at a time (as
	# --having makes every row): quotes, an empty key, a decimal, an
	# empty sum, exponents (a sum of one prints as a double), 64 bits and
	# a sum past them side by side
	printf '%s\n' 1,a,1 1,b,2.5 1,'"c,d"',3 1,e, 2,a,-4 2,,7 \
		3,f,9223372036854775807 3,g,9223372036854775807 3,g,1 \
		4,h,1e3 4,i,-9223372036854775808 5,j,1e18 > in.csv
	local want_csv='0,2,a,1,1
0,2,b,1,2.5
0,2,"c,d",1,3
0,2,e,1,
2,4,,1,7
2,4,a,1,-4
2,4,f,1,9223372036854775807
2,4,g,2,9223372036854775808
4,6,h,1,1000
4,6,i,1,-9223372036854775808
4,6,j,1,1e+18'
	for fmt in csv tsv; do
		run --separate-stderr fwin --csv -t 1 -k 2 --tumble 2s --count \
			--sum 3 --output-format $fmt in.csv
		assert_success
		local whole=$output
		run --separate-stderr fwin --csv -t 1 -k 2 --tumble 2s --count \
			--sum 3 --output-format $fmt --having 'count >= 0' in.csv
		assert_success
		assert_equal "$whole" "$output"
	done
	run fwin --csv -t 1 -k 2 --tumble 2s --count --sum 3 in.csv
	assert_output "$want_csv"
}

@test "output: json, two windows, numbers bare and key fields as strings" {
	printf '10 200 3\n12 404 2.5\n16 200 1\n' > in
	run --separate-stderr fwin -t 1 -k 2 -c --sum 3 --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"key1":"200","count":1,"sum_3":3}
{"window_start":10,"window_end":15,"key1":"404","count":1,"sum_3":2.5}
{"window_start":15,"window_end":20,"key1":"200","count":1,"sum_3":1}'
	assert_equal "$stderr" ""
}

@test "output: json without keys, several key fields without -H" {
	printf '10 a x\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"count":1}'
	run --separate-stderr fwin -t 1 -k 2,3 --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"key1":"a","key2":"x","count":1}'
}

@test "output: json with iso times as strings and header names as keys" {
	printf 'ts,user,amount\n2026-11-29T20:00:05Z,ann,12.50\n2026-11-29T20:00:40Z,ann,3\n2026-11-29T20:01:10Z,bob,7\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 1m --sum amount --max amount --output-format json in
	assert_success
	assert_output '{"window_start":"2026-11-29T20:00:00Z","window_end":"2026-11-29T20:01:00Z","user":"ann","sum_amount":15.5,"max_amount":12.50}
{"window_start":"2026-11-29T20:01:00Z","window_end":"2026-11-29T20:02:00Z","user":"bob","sum_amount":7,"max_amount":7}'
	assert_equal "$stderr" ""
}

@test "output: NULL is an empty cell in tsv and csv, null in json" {
	printf '10,a,\n11,a,\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 -c --sum 3 --tumble 5s in
	assert_success
	assert_output '10,15,a,2,'
	run --separate-stderr fwin --csv -t 1 -k 2 -c --sum 3 --tumble 5s --output-format tsv in
	assert_success
	assert_output $'10\t15\ta\t2\t'
	run --separate-stderr fwin --csv -t 1 -k 2 -c --sum 3 --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"key1":"a","count":2,"sum_3":null}'
	assert_equal "$stderr" ""
}

@test "output: json escapes control characters and quotes, replaces invalid UTF-8" {
	printf '10\t\xffx\n11\tcaf\xc3\xa9\n12\ta"b\\c\n13\tt\001\n' > in
	run --separate-stderr fwin --tsv -t 1 -k 2 --tumble 5s --output-format json in
	assert_success
	assert_output $'{"window_start":10,"window_end":15,"key1":"a\\"b\\\\c","count":1}\n{"window_start":10,"window_end":15,"key1":"caf\xc3\xa9","count":1}\n{"window_start":10,"window_end":15,"key1":"t\\u0001","count":1}\n{"window_start":10,"window_end":15,"key1":"\\ufffdx","count":1}'
	assert_equal "$stderr" ""
}

@test "output: json, a newline and a TAB in a key are escaped" {
	printf '10,"a\nb\tc"\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --output-format json in
	assert_success
	assert_output '{"window_start":10,"window_end":15,"key1":"a\nb\tc","count":1}'
	assert_equal "$stderr" ""
}
