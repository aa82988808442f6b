#!/usr/bin/env bats
# Live streams (fwin(1): LIVE STREAMS): processing time fires windows by the
# wall clock, --idle-timeout moves an idle event-time watermark, rows are
# flushed before fwin waits, partial lines wait for their newline, signals
# end the input, a closed downstream ends fwin quietly.
#
# fwin runs in the background between two FIFOs held open by the test (see
# live-helper.bash). Every wait has a generous upper bound and no timing is
# asserted exactly; "nothing happens" is checked over a short, fixed wait.
load common
load live-helper

teardown() {
	stop_fwin
}

# iso_ns ISO: epoch nanoseconds of an ISO-8601 UTC time.
iso_ns() {
	date -u -d "$1" +%s%N
}

# now_ns: the wall clock, epoch nanoseconds.
now_ns() {
	date +%s%N
}

MS=1000000
# ISO UTC, a fraction only when non-zero, with 3, 6 or 9 digits (fwin(1): TIME FORMATS)
ISO='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{3}|\.[0-9]{6}|\.[0-9]{9})?Z'

# check_iso_row ROW SIZE REST T0 T1: ROW is "start<TAB>end<TAB>REST" with
# ISO bounds, end - start = SIZE, and the window overlaps [T0, T1] (the
# record was read between T0 and T1). All times in epoch ns; sets START
# and END.
check_iso_row() {
	local re="^($ISO)"$'\t'"($ISO)"$'\t'"(.*)\$"
	[[ $1 =~ $re ]] || fail "not an ISO row: $1"
	assert_equal "${BASH_REMATCH[5]}" "$3"
	START=$(iso_ns "${BASH_REMATCH[1]}")
	END=$(iso_ns "${BASH_REMATCH[3]}")
	assert_equal $((END - START)) "$2"
	((END > $4 && START <= $5)) ||
		fail "window [$START, $END) misses the read time [$4, $5]: $1"
}

# next_row: read the next row into ROW (bounded wait).
next_row() {
	local rc=0
	ROW=
	IFS= read -r -t "$LIVE_WAIT" ROW <&"$OUT" || rc=$?
	((rc == 0)) || fail "no row within ${LIVE_WAIT}s (status $rc)"
}

finish_ok() {
	close_input
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

# -------------------------------------------------------- processing time

@test "processing time: a tumbling window fires by the clock, input still open" {
	start_fwin --tumble 300ms --count
	t0=$(now_ns)
	put 'x\n'
	next_row
	t1=$(now_ns)
	assert_running
	check_iso_row "$ROW" $((300 * MS)) 1 "$t0" "$t1"
	# aligned to the epoch
	assert_equal $((START % (300 * MS))) 0
	# it fired once: nothing more, not even at end of input
	finish_ok
}

@test "processing time: a session closes GAP after its last record, by the clock" {
	start_fwin --session 300ms -k 1
	t0=$(now_ns)
	put 'a\n'
	next_row
	t1=$(now_ns)
	assert_running
	# one record at t: the session is [t, t + gap)
	check_iso_row "$ROW" $((300 * MS)) $'a\t1' "$t0" "$t1"
	finish_ok
}

@test "processing time: both sliding windows of a record fire by the clock" {
	start_fwin --slide 400ms,200ms
	t0=$(now_ns)
	put 'x\n'
	next_row
	first=$ROW
	next_row
	t1=$(now_ns)
	assert_running
	check_iso_row "$first" $((400 * MS)) 1 "$t0" "$t1"
	s1=$START
	check_iso_row "$ROW" $((400 * MS)) 1 "$t0" "$t1"
	assert_equal $((START - s1)) $((200 * MS))
	finish_ok
}

# ----------------------------------------------------------- idle timeout

@test "--idle-timeout: an idle event-time watermark follows the clock and fires" {
	start_fwin -t 1 --tumble 1s --idle-timeout 300ms
	put '10.0\n10.9\n'
	# W = 10.9; after 300 ms idle it grows with the clock and passes 11
	expect_row $'10\t11\t2'
	assert_running
	# W is now a little past 11 (seconds of wall time at most): a record
	# far ahead is on time and counted
	put '1000\n'
	close_input
	expect_row $'1000\t1001\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "--idle-timeout: no watermark to advance before the first record" {
	start_fwin -t 1 --tumble 1s --idle-timeout 300ms
	# idle for longer than D before any record: W stays -inf, so these
	# small times are not late
	expect_nothing 0.4
	put '0.1\n0.9\n'
	expect_row $'0\t1\t2'
	assert_running
	finish_ok
}

@test "--idle-timeout: a record that comes after a pause meets the watermark the clock has moved" {
	start_fwin -t 1 -k 2 --tumble 1s --count --idle-timeout 200ms
	put '10.5 a\n'
	# W passes 11 by the clock: the window fires, and no window is open
	expect_row $'10\t11\ta\t1'
	# the clock goes on moving W while nothing is due: a second and a
	# half later W is past 12, so the window [11,12) has expired
	sleep 1.5
	put '11.2 b\n'
	close_input
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	[[ $(cat err) == "fwin: 1 late record dropped (the latest by "* ]] ||
		fail "stderr: $(cat err)"
}

@test "no --idle-timeout: an idle event-time window waits for end of input" {
	start_fwin -t 1 --tumble 1s
	put '10.0\n10.9\n'
	expect_nothing 0.5
	close_input
	expect_row $'10\t11\t2'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

# --------------------------------------------------------- prompt output

@test "output: a fired row is readable before end of input" {
	start_fwin -t 1 --tumble 5s
	put '1\n7\n'
	expect_row $'0\t5\t1'
	assert_running
	close_input
	expect_row $'5\t10\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "output: every row of a burst is written, and flushed when fwin waits" {
	start_fwin -t 1 --tumble 1s
	# 30000 records fire 29999 windows: over 300 KB of rows, more than the
	# output buffer and the pipe hold, written while fwin still reads.
	# Every row must be readable while the input is still open.
	seq 0 29999 > burst
	seq 0 29998 | awk '{ print $1 "\t" $1 + 1 "\t1" }' > want
	put_file burst
	timeout "$LIVE_WAIT" head -n 29999 <&"$OUT" > got ||
		fail "not all rows within ${LIVE_WAIT}s: got $(wc -l < got)"
	cmp got want
	wait_put
	expect_nothing 0.2
	close_input
	expect_row $'29999\t30000\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "input: a pipe's buffer is widened to 1 MiB (fwin(1): LIVE STREAMS)" {
	command -v python3 > /dev/null || skip "python3 is needed to read a pipe's size"
	start_fwin -t 1 --tumble 5s
	put '1\n'
	# F_GETPIPE_SZ (1032) on our end of the pipe fwin reads
	local i size
	for ((i = 0; i < LIVE_WAIT * 10; i++)); do
		size=$(python3 -c 'import fcntl, sys; print(fcntl.fcntl(int(sys.argv[1]), 1032))' "$IN")
		[ "$size" = 1048576 ] && break
		sleep 0.1
	done
	assert_equal "$size" 1048576
	close_input
	expect_row $'0\t5\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "input: a partial line waits for its newline" {
	start_fwin -t 1 --tumble 5s
	put '1\n7'
	# "7" alone would fire [0,5): it must not be processed yet
	expect_nothing 0.4
	# the line is "72": W = 72 fires [0,5)
	put '2\n'
	expect_row $'0\t5\t1'
	assert_running
	close_input
	expect_row $'70\t75\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "input: a partial line at end of input is a record" {
	start_fwin -t 1 --tumble 5s
	put '1\n7'
	expect_nothing 0.2
	close_input
	expect_row $'0\t5\t1'
	expect_row $'5\t10\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

# --------------------------------------------------------------- signals

# signal_mid_stream SIG: records 1 2 7 (W=7 fired [0,5) so fwin has read
# them all), then SIG: [5,10) is open and fires as at end of input.
signal_mid_stream() {
	start_fwin -t 1 --tumble 5s
	put '1\n2\n7\n'
	expect_row $'0\t5\t2'
	assert_running
	kill -"$1" "$FWIN_PID"
	expect_row $'5\t10\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "SIGTERM mid-stream: open windows fire, output flushed, exit 0" {
	signal_mid_stream TERM
}

@test "SIGINT mid-stream: open windows fire, output flushed, exit 0" {
	signal_mid_stream INT
}

@test "SIGHUP mid-stream: open windows fire, output flushed, exit 0" {
	signal_mid_stream HUP
}

@test "a second SIGTERM while a stream finishes after the first ends it at once, by the signal" {
	# a window a millisecond for 11 days, --fill: more rows than anyone
	# waits for, fired after the first signal as at end of input
	start_fwin -t 1 -k 2 --tumble 1ms --fill
	put '0 a\n1000000 b\n'
	expect_row $'0\t0.001\ta\t1'
	kill -TERM "$FWIN_PID"
	sleep 0.2
	assert_running
	kill -TERM "$FWIN_PID"
	wait_fwin
	assert_equal "$status" 143
}

@test "a signal ignored by whoever started fwin stays ignored (nohup): SIGHUP is not the end of input" {
	# start_fwin as it is, but with SIGHUP ignored, as nohup(1) leaves it
	mkfifo in out
	"${DFL_SIGNALS[@]}" --ignore-signal=HUP "$FWIN" -t 1 --tumble 5s <in >out 2>err 3>&- &
	FWIN_PID=$!
	exec {IN}>in
	exec {OUT}<out
	put '1\n2\n7\n'
	expect_row $'0\t5\t2'
	kill -HUP "$FWIN_PID"
	put '8\n11\n'
	expect_row $'5\t10\t2'
	assert_running
	kill -TERM "$FWIN_PID"
	expect_row $'10\t15\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "SIGTERM: a partial line pending at the signal is not processed" {
	start_fwin -t 1 --tumble 5s
	put '1\n6\n'
	expect_row $'0\t5\t1'
	put '8'
	# give fwin a moment to read the "8" (if it has not, the outcome
	# must be the same)
	sleep 0.2
	kill -TERM "$FWIN_PID"
	expect_row $'5\t10\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
}

@test "SIGTERM in processing time: the open windows fire at once, exit 0" {
	start_fwin --slide 2s,250ms
	t0=$(now_ns)
	put 'x\n'
	# the record is in 8 windows; the first fires within 250 ms (and
	# shows that fwin is up, its handlers installed); the signal fires
	# the rest
	next_row
	rows=("$ROW")
	kill -TERM "$FWIN_PID"
	while IFS= read -r -t "$LIVE_WAIT" ROW <&"$OUT"; do
		rows+=("$ROW")
	done
	t1=$(now_ns)
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" ""
	assert_equal "${#rows[@]}" 8
	for ((i = 0; i < 8; i++)); do
		check_iso_row "${rows[i]}" $((2000 * MS)) 1 "$t0" "$t1"
		((i == 0)) || assert_equal $((START - prev)) $((250 * MS))
		prev=$START
	done
}

# ------------------------------------------------------ downstream closed

@test "downstream closed (| head -1): fwin exits quietly, killed by SIGPIPE" {
	seq 1 1000000 | fwin -t 1 --tumble 1s 2>err | head -1 >out
	st=("${PIPESTATUS[@]}")
	assert_equal "$(cat out)" $'1\t2\t1'
	assert_equal "$(cat err)" ""
	assert_equal "${st[1]}" 141
	assert_equal "${st[2]}" 0
}

@test "downstream closed with SIGPIPE ignored: fwin still exits quietly" {
	# as under a parent that ignores SIGPIPE: fwin sees EPIPE instead
	(
		trap '' PIPE
		seq 1 100000 | "$FWIN" -t 1 --tumble 1s 2>err | head -1 >out
		echo "${PIPESTATUS[1]}" >st
	)
	assert_equal "$(cat out)" $'1\t2\t1'
	assert_equal "$(cat err)" ""
	[ "$(cat st)" -ne 0 ]
}

# -------------------------------------------------- early and filled rows

@test "--emit-every, processing time: the open window's partial row comes by the clock, input silent" {
	start_fwin --tumble 1h --emit-every 200ms --count
	put 'x\n'
	# [hour, hour + 1h): the clock passed a multiple of 200ms since the
	# record came: a partial row (final 0)
	next_row
	assert_running
	[[ $ROW =~ ^[^$'\t']*$'\t'[^$'\t']*$'\t'1$'\t'0$ ]] || fail "not a partial row: $ROW"
	put 'x\n'
	next_row
	[[ $ROW =~ $'\t'2$'\t'0$ ]] || fail "not a partial row of 2: $ROW"
	# unchanged since: no more partial rows
	expect_nothing 0.6
	close_input
	next_row
	[[ $ROW =~ $'\t'2$'\t'1$ ]] || fail "not the final row: $ROW"
	expect_eof
	wait_fwin
	assert_equal "$status" 0
}

@test "--fill, processing time: a key's empty windows print zeros while the input is silent" {
	start_fwin -k 1 --tumble 300ms --fill --count
	put 'a\n'
	next_row
	[[ $ROW =~ $'\t'a$'\t'1$ ]] || fail "not a's window: $ROW"
	next_row
	[[ $ROW =~ $'\t'a$'\t'0$ ]] || fail "not an empty window of a: $ROW"
	assert_running
	close_input
	wait_fwin
	assert_equal "$status" 0
}
