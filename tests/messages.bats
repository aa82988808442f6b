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
