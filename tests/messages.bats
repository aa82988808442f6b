#!/usr/bin/env bats
# Messages that help (fwin(1): DIAGNOSTICS), and the small input and
# output rules that come with them: hints for unknown fields and options,
# options given twice, a UTF-8 byte order mark, -t F1,F2 (an access log),
# a csv row of one empty cell, -o under another header. Every expected
# output below is derived by hand from fwin(1).
load common

TRY="Try 'fwin --help' for more information."

# ok ARGS...: run fwin, expect exit 0 and an empty stderr.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# usage MESSAGE ARGS...: fwin ARGS is a usage error: exit 2, no output,
# "fwin: MESSAGE" and the --help line on stderr.
usage() {
	local msg=$1
	shift
	run --separate-stderr fwin "$@"
	assert_failure 2
	assert_output ''
	assert_equal "$stderr" "fwin: $msg"$'\n'"$TRY"
}

# nofield MESSAGE ARGS...: fwin ARGS stops at the header: exit 2, no
# output, "fwin: MESSAGE" alone on stderr.
nofield() {
	local msg=$1
	shift
	run --separate-stderr fwin "$@"
	assert_failure 2
	assert_output ''
	assert_equal "$stderr" "fwin: $msg"
}

# ----------------------------------------------------- unknown fields

@test "an unknown field names the closest header name" {
	printf 'day,temp_max,temp_min\n1,20,10\n' > in
	nofield "no field 'temp_mx' in the header; did you mean 'temp_max'?" \
		--csv -H -k temp_mx in
	nofield "no field 'Day' in the header; did you mean 'day'?" --csv -H -k Day in
	# a swap of two letters is one edit
	nofield "no field 'tmep_min' in the header; did you mean 'temp_min'?" \
		--csv -H --sum tmep_min in
	nofield "no field 'wind' in the header" --csv -H -t wind in
}

@test "an unknown field names up to three names, equally close, in header order" {
	printf 'host_a,host_b,host_c,host_d,port\n' > in
	nofield "no field 'host' in the header; did you mean 'host_a', 'host_b' or 'host_c'?" \
		--csv -H -k host in
	printf 'host_a,host_b,size\n' > in
	nofield "no field 'host' in the header; did you mean 'host_a' or 'host_b'?" \
		--csv -H -k host in
}

@test "a name two header columns share: an error only where an option names it" {
	printf 'ts,host,host,v\n1,a,b,5\n' > in
	nofield "'host' names two columns of the header, 2 and 3; name the one meant by its number" \
		--csv -H -t ts -k host --tumble 1m in
	nofield "'host' names two columns of the header, 2 and 3; name the one meant by its number" \
		--csv -H -t ts --tumble 1m --max host in
	nofield "--where: at 1: 'host' names two columns of the header, \$2 and \$3; name the one meant by its number" \
		--csv -H -t ts --tumble 1m --where 'host == "a"' in
	# a duplicate no option names is no error, nor one named by number
	ok --csv -H -t ts -k 3 --tumble 1m --sum v in
	assert_output $'window_start,window_end,host,sum_v\n0,60,b,5'
	ok --csv -H -t ts --tumble 1m --where '$2 == "a"' --sum v in
	assert_output $'window_start,window_end,sum_v\n0,60,5'
}

@test "a close header name holding a line end is hinted with '?' for it" {
	printf '"ts","tem\np",v\n1,2,3\n' > in
	nofield "no field 'temp' in the header; did you mean 'tem?p'?" \
		--csv -H -t ts -k temp --tumble 1m in
	nofield "--where: at 1: no field 'temp' in the header; did you mean 'tem?p'?" \
		--csv -H -t ts --tumble 1m --where 'temp > 1' in
}

@test "a header of one field that another format would split says so" {
	printf 'ts,v\n1,2\n' > in
	nofield "no field 'ts' in the header; the header is one field; did you mean --csv?" \
		-H -t ts in
	nofield "no field 'ts' in the header; the header is one field; did you mean --csv?" \
		--tsv -H -t ts in
	printf 'ts\tv\n1\t2\n' > in
	nofield "no field 'ts' in the header; the header is one field; did you mean --tsv?" \
		--csv -H -t ts in
	# a header that is one field with nothing to split: no hint
	printf 'ts;v\n' > in
	nofield "no field 'ts' in the header" --csv -H -t ts in
}

# ---------------------------------------------------- unknown options

@test "an unknown option names the closest one" {
	usage "unknown option '--cnt'; did you mean '--count'?" --cnt
	usage "unknown option '--tumbel'; did you mean '--tumble'?" --tumbel 1m
	usage "unknown option '--chekpoint'; did you mean '--checkpoint'?" --chekpoint=x
	usage "unknown option '--sesion'; did you mean '--session'?" --sesion 1m
	usage "unknown option '--frobnicate'" --frobnicate
	usage "unknown option '-x'" -x
	usage "option '--csv' takes no value" --csv=1
}

# ------------------------------------------------ options given twice

@test "options that make sense once are refused twice" {
	usage "-t may be given only once" -t 1 -t 2
	usage "-t may be given only once" --time 1 -t 2
	usage "--tumble may be given only once" --tumble 1m --tumble 2m
	usage "--tumble and --slide cannot be used together" --tumble 1m --slide 2m,1m
	usage "--format may be given only once" --format csv --format csv
	usage "--csv and --tsv cannot be used together" --csv --tsv
	usage "--json and --format cannot be used together" --json --format json
	usage "--output-format may be given only once" --output-format csv --output-format json
	usage "-o may be given only once" -o a -o b
	usage "--time-format may be given only once" --time-format s --time-format ms
	usage "--output-time may be given only once" --output-time s --output-time iso
	usage "-d may be given only once" -d , -d ';'
	[[ ! -e a && ! -e b ]]
}

@test "keys and aggregates stay repeatable" {
	printf '1 a x 2\n2 a y 3\n' > in
	ok -t 1 -k 2 -k 3 --tumble 10s --sum 4 --sum 4 -c -c in
	assert_output $'0\t10\ta\tx\t2\t2\t1\t1\n0\t10\ta\ty\t3\t3\t1\t1'
}

# ----------------------------------------------------- byte order mark

@test "a UTF-8 byte order mark at the start of each input is skipped" {
	printf '\xef\xbb\xbfts,v\n1,2\n' > a.csv
	printf '\xef\xbb\xbfts,v\n3,4\n' > b.csv
	ok --csv -H -t ts --tumble 10s --sum v a.csv b.csv
	assert_output $'window_start,window_end,sum_v\n0,10,6'
	printf '\xef\xbb\xbf1 2\n' > c
	ok -t 1 --tumble 10s --sum 2 c
	assert_output $'0\t10\t2'
	# only at the start: elsewhere it is data
	printf '1 \xef\xbb\xbfx\n' > d
	ok -t 1 -k 2 --tumble 10s d
	assert_output $'0\t10\t\xef\xbb\xbfx\t1'
}

@test "a byte order mark counts in the checkpoint's byte position" {
	printf '\xef\xbb\xbfts,v\n1,2\n' > in.csv
	ok --csv -H -t ts --tumble 10s --sum v --state s.ckpt -o out in.csv
	printf '12,5\n' >> in.csv
	ok --csv -H -t ts --tumble 10s --sum v --state s.ckpt -o out in.csv
	assert_equal "$(cat out)" $'window_start,window_end,sum_v\n0,10,2'
}

# --------------------------------------------------------- -t F1,F2

@test "-t F1,F2: an access log's time split on blanks, with its offset" {
	cat > access.log <<'EOF'
127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326
127.0.0.1 - frank [10/Oct/2000:13:58:01 -0700] "GET /b.gif HTTP/1.0" 200 100
10.0.0.2 - - [10/Oct/2000:21:10:00 +0000] "GET / HTTP/1.0" 404 7
EOF
	# 13:55:36 -0700 is 20:55:36 UTC
	ok -t 4,5 --time-format '[%d/%b/%Y:%H:%M:%S %z]' -k 1 --tumble 1h --count --sum 10 access.log
	assert_output $'2000-10-10T20:00:00Z\t2000-10-10T21:00:00Z\t127.0.0.1\t2\t2426\n2000-10-10T21:00:00Z\t2000-10-10T22:00:00Z\t10.0.0.2\t1\t7'
}

@test "-t F1,F2 with header names, and its messages" {
	printf 'date time v\n2026-11-29 20:37:03 1\n2026-11-29 20:37:13 2\n2026-11-29\n2026-11-29 x 3\n' > in
	run --separate-stderr fwin -H -t date,time --tumble 10s --sum v in
	assert_success
	assert_output $'window_start\twindow_end\tsum_v\n2026-11-29T20:37:00Z\t2026-11-29T20:37:10Z\t1\n2026-11-29T20:37:10Z\t2026-11-29T20:37:20Z\t2'
	assert_equal "$stderr" "$(cat <<'EOF'
fwin: in:4: field time: missing (record has 1 field); record skipped
fwin: in:5: field date,time: bad time "2026-11-29 x"; record skipped
fwin: 2 bad records skipped
EOF
)"
	nofield "no field 'tme' in the header; did you mean 'time'?" -H -t date,tme in
}

@test "-t F1,F2 is part of the pipeline a checkpoint records" {
	printf '2026-11-29 20:37:03\n' > in
	ok -t 1,2 --tumble 1m --state s.ckpt in
	run --separate-stderr fwin -t 1 --tumble 1m --state s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --time 1,2, not --time 1"
}

@test "a checkpoint's other pipeline is said as a shell takes it: a text with a ' in \"...\", or with '\\''" {
	printf "1'a\n" > in
	ok -d "'" -t 1 -k 2 --tumble 1s --state s.ckpt in
	run --separate-stderr fwin -d , -t 1 -k 2 --tumble 1s --state s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --delimiter \"'\", not --delimiter ','"
	printf 'k\na\n' > in
	ok --csv -H -k k --where "k == 'a'" --count --state w.ckpt in
	run --separate-stderr fwin --csv -H -k k --where "k == '\$x'" --count --state w.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: w.ckpt was made with --where \"k == 'a'\", not --where 'k == '\\''\$x'\\'''"
}

# -------------------------------------------------------------- output

@test "csv: a row of one empty cell is written \"\"" {
	printf 'a,\nb,x\nc,\n' > in
	ok --csv --count-window 1 --first 2 in
	assert_output $'""\nx\n""'
	# tsv writes the cell as it is
	printf 'a,\n' > in
	ok --csv --first 2 --output-format tsv in
	assert_output ''
	assert_equal "$(fwin --csv --first 2 --output-format tsv in | od -An -c | tr -d ' ')" '\n'
}

@test "-o FILE with a header: appending under another header is refused" {
	printf 'ts,v\n1,2\n' > in
	ok --csv -H -t ts --tumble 10s --sum v -o out.csv in
	ok --csv -H -t ts --tumble 10s --sum v -o out.csv in
	# the same header: rows appended under it, no second header
	assert_equal "$(cat out.csv)" $'window_start,window_end,sum_v\n0,10,2\n0,10,2'
	run --separate-stderr fwin --csv -H -t ts --tumble 10s --count -o out.csv in
	assert_failure 2
	assert_output ''
	assert_equal "$stderr" "fwin: out.csv holds rows of another pipeline: its header is 'window_start,window_end,sum_v', this run's is 'window_start,window_end,count'"
	assert_equal "$(cat out.csv)" $'window_start,window_end,sum_v\n0,10,2\n0,10,2'
	# tsv rows under a csv header (a control character is shown as ?) are another pipeline's too
	run --separate-stderr fwin --csv -H -t ts --tumble 10s --sum v --output-format tsv -o out.csv in
	assert_failure 2
	assert_equal "$stderr" "fwin: out.csv holds rows of another pipeline: its header is 'window_start,window_end,sum_v', this run's is 'window_start?window_end?sum_v'"
	# a header that only starts like this run's is another one
	printf 'window_start,window_end,sum_v,n\n' > other.csv
	run --separate-stderr fwin --csv -H -t ts --tumble 10s --sum v -o other.csv in
	assert_failure 2
	assert_equal "$stderr" "fwin: other.csv holds rows of another pipeline: its header is 'window_start,window_end,sum_v,n', this run's is 'window_start,window_end,sum_v'"
	# without -H there is no header to compare
	printf '1,2\n' > in2
	ok --csv -t 1 --tumble 10s --sum 2 -o out.csv in2
	assert_equal "$(tail -n 1 out.csv)" '0,10,2'
}

@test "-t 4,5: the README's access log example over tests/data/access.log" {
	ok -t 4,5 --time-format '[%d/%b/%Y:%H:%M:%S %z]' -k 1 --tumble 1m --count --sum 10 "$DATA/access.log"
	assert_output - <<'EOF2'
2026-11-29T20:00:00Z	2026-11-29T20:01:00Z	192.0.2.10	1	5120
2026-11-29T20:00:00Z	2026-11-29T20:01:00Z	198.51.100.7	1	312
2026-11-29T20:01:00Z	2026-11-29T20:02:00Z	192.0.2.10	1	20480
2026-11-29T20:01:00Z	2026-11-29T20:02:00Z	198.51.100.7	1	734
2026-11-29T20:01:00Z	2026-11-29T20:02:00Z	203.0.113.5	1	153
2026-11-29T20:02:00Z	2026-11-29T20:03:00Z	192.0.2.10	1	0
2026-11-29T20:02:00Z	2026-11-29T20:03:00Z	203.0.113.5	1	5120
EOF2
}

# ------------------------------------------ hints for the first hour

@test "hint: an 8-digit date read as seconds is said once, with the format that reads it" {
	printf '20240101,a\n20240102,a\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1d --count in
	assert_success
	# 20240101 s is 234 days, 6:15:01 after the epoch
	assert_output '20217600,20304000,a,2'
	assert_equal "$stderr" "fwin: in:1: time 20240101 read as seconds since 1970 (1970-08-23T06:15:01Z); for a date, give --time-format %Y%m%d"
	# the format it names reads the dates
	ok --csv -t 1 -k 2 --tumble 1d --count --time-format %Y%m%d in
	assert_output $'2024-01-01T00:00:00Z,2024-01-02T00:00:00Z,a,1\n2024-01-02T00:00:00Z,2024-01-03T00:00:00Z,a,1'
	# standard input, as the manual shows it
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1d --count < in
	assert_equal "$stderr" "fwin: -:1: time 20240101 read as seconds since 1970 (1970-08-23T06:15:01Z); for a date, give --time-format %Y%m%d"
}

@test "hint: a 4-digit year read as seconds names %Y" {
	printf '2024 a\n2025 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 1h --count in
	assert_success
	assert_output $'0\t3600\ta\t2'
	assert_equal "$stderr" "fwin: in:1: time 2024 read as seconds since 1970 (1970-01-01T00:33:44Z); for a year, give --time-format %Y"
}

@test "hint: only the time that sets the format, and only what looks like a date" {
	# the first time read sets auto's format: a date-like time after it
	# is seconds as the format says, without a word
	printf '1700000000\n20240101\n' > in
	ok -t 1 --tumble 1d --count in
	# not a date: month 13, February 30, outside 1900-2100, 9 digits, a
	# fraction, a sign; nor a year below 1900 or past 2100
	for t in 20241301 20240230 18991231 21010101 202401011 20240101.5 \
	    +20240101 1899 2101 999 19000 ; do
		ok -t 1 --tumble 1d --count <<< "$t"
	done
	# 29 February of a leap year is a date; of 1900 and 2100 not
	run --separate-stderr fwin -t 1 --tumble 1d --count <<< 20240229
	assert_equal "$stderr" "fwin: -:1: time 20240229 read as seconds since 1970 (1970-08-23T06:17:09Z); for a date, give --time-format %Y%m%d"
	ok -t 1 --tumble 1d --count <<< 19000229
	ok -t 1 --tumble 1d --count <<< 21000229
	# the bounds are dates and years
	run --separate-stderr fwin -t 1 --tumble 1d --count <<< 19000101
	assert_equal "$stderr" "fwin: -:1: time 19000101 read as seconds since 1970 (1970-08-08T21:48:21Z); for a date, give --time-format %Y%m%d"
	run --separate-stderr fwin -t 1 --tumble 1d --count <<< 2100
	assert_equal "$stderr" "fwin: -:1: time 2100 read as seconds since 1970 (1970-01-01T00:35:00Z); for a year, give --time-format %Y"
	# a format given is the user's word: no hint
	ok -t 1 --time-format s --tumble 1d --count <<< 20240101
}

@test "hint: the date hint after bad records, in its place among their messages" {
	printf 'x a\n20240101 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 1d --count in
	assert_success
	assert_equal "$stderr" "$(cat <<'EOF2'
fwin: in:1: field 1: bad time "x"; record skipped
fwin: in:2: time 20240101 read as seconds since 1970 (1970-08-23T06:15:01Z); for a date, give --time-format %Y%m%d
fwin: 1 bad record skipped
EOF2
)"
}

# log N TIME...: N lines "host TIME", cycling through the times.
log() {
	local n=$1 i
	shift
	local times=("$@")
	for ((i = 0; i < n; i++)); do
		printf 'h%d|%s\n' $((i % 3)) "${times[i % ${#times[@]}]}"
	done
}

@test "hint: access log times that fail name the format; the hint follows the tenth record's message" {
	log 12 '29/Nov/2026:20:37:03 +0000' '29/Nov/2026:20:38:14 +0000' > in
	run --separate-stderr fwin -d '|' -t 2 -k 1 --tumble 1m --count in
	assert_failure 1
	assert_output ''
	{
		for i in 1 3 5 7 9; do
			echo "fwin: in:$i: field 2: bad time \"29/Nov/2026:20:37:03 +0000\"; record skipped"
			echo "fwin: in:$((i + 1)): field 2: bad time \"29/Nov/2026:20:38:14 +0000\"; record skipped"
		done
		echo "fwin: in:1: time '29/Nov/2026:20:37:03 +0000' does not parse as auto; --time-format '%d/%b/%Y:%H:%M:%S %z' reads it"
		echo "fwin: all 12 records were bad; see the messages above"
	} > want
	assert_equal "$stderr" "$(cat want)"
	# what it names reads them
	ok -d '|' -t 2 -k 1 --tumble 1m --count --time-format '%d/%b/%Y:%H:%M:%S %z' in
	assert_output - <<'EOF2'
2026-11-29T20:37:00Z	2026-11-29T20:38:00Z	h0	2
2026-11-29T20:37:00Z	2026-11-29T20:38:00Z	h1	2
2026-11-29T20:37:00Z	2026-11-29T20:38:00Z	h2	2
2026-11-29T20:38:00Z	2026-11-29T20:39:00Z	h0	2
2026-11-29T20:38:00Z	2026-11-29T20:39:00Z	h1	2
2026-11-29T20:38:00Z	2026-11-29T20:39:00Z	h2	2
EOF2
}

@test "hint: fewer than ten records, all failing: the hint comes at the end, before the summary" {
	printf '%s\n' '1.2.3.4 - - [29/Nov/2026:20:37:03 +0000] "GET / HTTP/1.1" 200 12' \
	    '1.2.3.4 - - [29/Nov/2026:20:37:04 +0000] "GET / HTTP/1.1" 200 12' > in
	run --separate-stderr fwin -t 4,5 --tumble 1m --count in
	assert_failure 1
	assert_equal "$stderr" "$(cat <<'EOF2'
fwin: in:1: field 4,5: bad time "[29/Nov/2026:20:37:03 +0000]"; record skipped
fwin: in:2: field 4,5: bad time "[29/Nov/2026:20:37:04 +0000]"; record skipped
fwin: in:1: time '[29/Nov/2026:20:37:03 +0000]' does not parse as auto; --time-format '[%d/%b/%Y:%H:%M:%S %z]' reads it
fwin: all 2 records were bad; see the messages above
EOF2
)"
	# the time alone (-t 4) has no offset: the format without %z
	run --separate-stderr fwin -t 4 --tumble 1m --count --mode stream < in
	assert_failure 1
	assert_equal "$(sed -n 3p <<< "$stderr")" "fwin: -:1: time '[29/Nov/2026:20:37:03' does not parse as auto; --time-format '[%d/%b/%Y:%H:%M:%S' reads it"
	ok -t 4 --time-format '[%d/%b/%Y:%H:%M:%S' --tumble 1m --count in
	assert_output $'2026-11-29T20:37:00Z\t2026-11-29T20:38:00Z\t2'
	# --strict stops at the first: the hint still comes
	run --separate-stderr fwin -t 4,5 --tumble 1m --count --strict in
	assert_failure 1
	assert_equal "$stderr" "$(cat <<'EOF2'
fwin: in:1: field 4,5: bad time "[29/Nov/2026:20:37:03 +0000]"
fwin: in:1: time '[29/Nov/2026:20:37:03 +0000]' does not parse as auto; --time-format '[%d/%b/%Y:%H:%M:%S %z]' reads it
EOF2
)"
}

@test "hint: after a restore, a time auto's fixed format does not read sends the user to a run of its own, not to --time-format auto" {
	printf '1700000000|x\n' > in
	run --separate-stderr fwin -d '|' -t 1 --tumble 1h --state s.ckpt in
	assert_success
	# TIME=the format a run of its own reads it with
	local tg t
	for tg in "1700000000123=auto" "2026/11/29 20:37:03='%Y/%m/%d %H:%M:%S'"; do
		t=${tg%%=*}
		printf '%s|x\n' "$t" > in2
		run --separate-stderr fwin -d '|' -t 1 --tumble 1h --state s.ckpt --new-input in2
		assert_failure 1
		assert_equal "$(sed -n 2p <<< "$stderr")" "fwin: in2:1: time '$t' does not parse as s, the format --time-format auto fixed when s.ckpt's run began; a run that does not restore s.ckpt reads it with --time-format ${tg#*=}"
	done
}

@test "hint: each common format is named for its times" {
	check() {	# TIME FORMAT [AS --time-format GIVEN]: GIVEN (auto) fails, FORMAT reads
		local t=$1 f=$2 as=${3:-auto}
		shift 2
		[ $# -eq 0 ] || shift
		printf '%s|x\n' "$t" > in
		run --separate-stderr fwin -d '|' -t 1 --tumble 1h "$@" in
		assert_failure 1
		assert_equal "$stderr" "fwin: in:1: field 1: bad time \"$t\"; record skipped
fwin: in:1: time '$t' does not parse as $as; --time-format $f reads it
fwin: all 1 record was bad; see the messages above"
	}
	check '29/Nov/2026:20:37:03 +0000' "'%d/%b/%Y:%H:%M:%S %z'"
	check '[29/Nov/2026:20:37:03 +0000]' "'[%d/%b/%Y:%H:%M:%S %z]'"
	check 'Nov 29 20:37:03' "'%b %d %H:%M:%S'"
	check 'Nov  3 20:37:03' "'%b %d %H:%M:%S'"
	check '2026/11/29 20:37:03' "'%Y/%m/%d %H:%M:%S'"
	check '11/29/2026 20:37' "'%m/%d/%Y %H:%M'"
	check '11/29/2026 20:37:03' "'%m/%d/%Y %H:%M:%S'"
	check '29.11.2026 20:37:03' "'%d.%m.%Y %H:%M:%S'"
	check 'Sun, 29 Nov 2026 20:37:03 +0000' "'%a, %d %b %Y %H:%M:%S %z'"
	check '29 Nov 2026 20:37:03 +0000' "'%d %b %Y %H:%M:%S %z'"
	# a format given that fails: the hint names it, and auto when auto reads the times
	check '2026/11/29 20:37:03' "'%Y/%m/%d %H:%M:%S'" "'%Y-%m-%d %H:%M:%S'" \
	    --time-format '%Y-%m-%d %H:%M:%S'
	check '2026-11-29 20:37:03' auto s --time-format s
	check '1700000000' auto iso --time-format iso
	# auto comes first: it also reads what a strptime format would
	check '2026-11-29 20:37:03' auto "'%Y/%m/%d %H:%M:%S'" --time-format '%Y/%m/%d %H:%M:%S'
}

@test "hint: none when no common format reads them all, or a time parses among the first ten" {
	# no format reads it: the messages alone
	printf 'yesterday|x\n' > in
	run --separate-stderr fwin -d '|' -t 1 --tumble 1h in
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "yesterday"; record skipped\nfwin: all 1 record was bad; see the messages above'
	# two formats among the failing times: no one format reads them all
	printf '%s|x\n' '29/Nov/2026:20:37:03 +0000' 'Nov 29 20:37:03' > in
	run --separate-stderr fwin -d '|' -t 1 --tumble 1h in
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "29/Nov/2026:20:37:03 +0000"; record skipped\nfwin: in:2: field 1: bad time "Nov 29 20:37:03"; record skipped\nfwin: all 2 records were bad; see the messages above'
	# the tenth record parses: the nine bad ones were bad luck, not a wrong format
	{ log 9 '29/Nov/2026:20:37:03 +0000'; echo 'h0|1700000000'; log 3 '29/Nov/2026:20:37:03 +0000'; } > in
	run --separate-stderr fwin -d '|' -t 2 -k 1 --tumble 1m --count in
	assert_success
	[[ $stderr != *'does not parse'* ]]
	assert_equal "$(printf '%s\n' "$stderr" | tail -n 1)" 'fwin: 12 bad records skipped'
	# a record bad for another reason (its key is missing) among the first ends the watch
	{ echo 'only'; log 11 'Nov 29 20:37:03'; } > in
	run --separate-stderr fwin -d '|' -t 2 -k 1 --tumble 1m --count in
	assert_failure 1
	[[ $stderr != *'does not parse'* ]]
}

@test "hint: the same messages in the same order with 1, 2 and 4 threads, stream and batch" {
	{ log 14 '[29/Nov/2026:20:37:03 +0000]'; echo 'h9|20240101'; } > in
	for mode in stream batch; do
		threads_alike "1 2 4" -d '|' -t 2 -k 1 --tumble 1m --count --mode $mode in
		assert_equal "$(sed -n 11p err1)" "fwin: in:1: time '[29/Nov/2026:20:37:03 +0000]' does not parse as auto; --time-format '[%d/%b/%Y:%H:%M:%S %z]' reads it"
		assert_equal "$(sed -n 12p err1)" "fwin: in:15: time 20240101 read as seconds since 1970 (1970-08-23T06:15:01Z); for a date, give --time-format %Y%m%d"
		assert_equal "$(sed -n 13,99p err1)" 'fwin: 14 bad records skipped'
		ALIKE_IN=in threads_alike "1 2 4" -d '|' -t 2 -k 1 --tumble 1m --count --mode $mode
		assert_equal "$(sed -n 12p err1)" "fwin: -:15: time 20240101 read as seconds since 1970 (1970-08-23T06:15:01Z); for a date, give --time-format %Y%m%d"
	done
	# a partition watches the records of its keys
	{ log 30 '[29/Nov/2026:20:37:03 +0000]'; echo 'h9|20240101'; } > in
	threads_alike "1 2 4" -d '|' -t 2 -k 1 --tumble 1m --count --partition 2/2 in
	grep -qF "does not parse as auto; --time-format '[%d/%b/%Y:%H:%M:%S %z]' reads it" err1
}

# ------------------------------------------- rows and messages in one file

@test "2>&1: the summary at the end comes after every row" {
	printf '1 a\n2 a\n12 a\nbad\n13 a\n' > in
	# bats' run gives standard output and standard error one pipe
	run fwin --mode stream -t 1 -k 2 --tumble 10s --count in
	assert_success
	assert_output $'fwin: in:4: field 2: missing (record has 1 field); record skipped\n0\t10\ta\t2\n10\t20\ta\t2\nfwin: 1 bad record skipped'
	# apart, each stream holds what it held
	run --separate-stderr fwin --mode stream -t 1 -k 2 --tumble 10s --count in
	assert_output $'0\t10\ta\t2\n10\t20\ta\t2'
	assert_equal "$stderr" $'fwin: in:4: field 2: missing (record has 1 field); record skipped\nfwin: 1 bad record skipped'
}

@test "2>&1: a message never splits a row, whatever the threads" {
	# 20000 rows fill the output's buffer several times over
	{ seq 1 20000 | sed 's/$/ abc/'; echo '5 abc'; echo 'bad'; } > in
	for t in 1 2 3; do
		fwin --mode stream --threads $t -t 1 -k 2 --tumble 1s --changelog in > out$t 2>&1
		# every line is a whole row or a whole message
		run grep -cvE $'^(\\+I\t[0-9]+\t[0-9]+\tabc\t1|fwin: .*)$' out$t
		assert_output 0
		assert_equal "$(tail -n 3 out$t)" $'+I\t20000\t20001\tabc\t1\nfwin: 1 late record dropped (the latest by 5h33m15s behind the watermark); -l 5h33m15s, --late-file or --mode batch keeps them\nfwin: 1 bad record skipped'
	done
	cmp out1 out2
	cmp out1 out3
}
