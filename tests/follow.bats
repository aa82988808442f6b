#!/usr/bin/env bats
# --follow (fwin(1): FOLLOWING FILES): files read to their end and then
# waited on, as tail -F does; logrotate's create (mv and a new file) and
# copytruncate; several files side by side; signals end a follow; a
# restart with --state resumes at the byte where the last run stopped.
#
# fwin runs in the background, its output a FIFO that the test reads with
# bounded waits (live-helper.bash); the files are real files, changed with
# real mv, cp and truncation. A row that fires tells that fwin has read
# what came before it, so no test sleeps to let fwin catch up.
load common
load live-helper

teardown() {
	stop_fwin
}

# start_follow ARGS...: fwin ARGS in the background, stdout the FIFO
# read by expect_row, stderr the file err.
start_follow() {
	rm -f out
	mkfifo out
	"${DFL_SIGNALS[@]}" "$FWIN" "$@" </dev/null >out 2>err 3>&- &
	FWIN_PID=$!
	exec {OUT}<out
}

# stop_with SIG: send SIG, read the rows left, wait for the exit (0).
stop_with() {
	kill -"$1" "$FWIN_PID"
}

# ends_ok: the output ends with no other row and fwin exits 0, having
# said nothing (or exactly $1 on stderr).
ends_ok() {
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	assert_equal "$(cat err)" "${1-}"
}

grep_err() {
	grep -qF -- "$1" err
}

@test "--follow needs a FILE, a named one, and a stream" {
	run --separate-stderr fwin -F
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "fwin: --follow needs at least one FILE"
	run --separate-stderr fwin --follow a.log -
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "fwin: --follow follows named files, not standard input ('-'): standard input is read as it comes without it"
	run --separate-stderr fwin -F --mode batch -t 1 a.log
	assert_equal "$status" 2
	assert_equal "${stderr_lines[0]}" "fwin: -F/--follow cannot be used with --mode batch (it is for streams)"
}

@test "appended lines are read as they come; a partial line waits for its newline" {
	printf '1 a\n2 b\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s f.log
	printf '11 a\n' >>f.log
	expect_row $'0\t10\ta\t1'
	expect_row $'0\t10\tb\t1'
	printf '21 ' >>f.log
	expect_nothing 0.3
	printf 'b\n' >>f.log
	expect_row $'10\t20\ta\t1'
	stop_with TERM
	expect_row $'20\t30\tb\t1'
	ends_ok
}

@test "a signal that ends a follow before a file's end says what it left unread; with --state the next run reads it" {
	printf '1 a\n11 a\n21 b' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s f.log
	expect_row $'0\t10\ta\t1'
	stop_with TERM
	expect_row $'10\t20\ta\t1'
	ends_ok "fwin: f.log: stopped by SIGTERM after line 2 (byte 9 of 13); the rest is not read"
	# with a checkpoint the unfinished line waits for the next run: nothing to say
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt f.log
	expect_row $'0\t10\ta\t1'
	stop_with TERM
	ends_ok
	printf '\n' >>f.log
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --state s.ckpt --flush f.log
	assert_success
	assert_output $'10\t20\ta\t1\n20\t30\tb\t1'
}

@test "a file renamed away and created again: the old one to its end, then the new one" {
	printf '1 a\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s f.log
	printf '11 a\n' >>f.log
	expect_row $'0\t10\ta\t1'
	mv f.log f.log.1
	# the writer has not reopened yet: the old file still grows, and
	# its last line has no newline when the new file appears
	printf '12 a\n13 a' >>f.log.1
	printf '21 b\n' >f.log
	expect_row $'10\t20\ta\t3'
	printf '22 b\n31 c\n' >>f.log
	expect_row $'20\t30\tb\t2'
	stop_with INT
	expect_row $'30\t40\tc\t1'
	ends_ok
}

@test "a file renamed away is kept open until a new one appears" {
	printf '1 a\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s f.log
	printf '11 a\n' >>f.log
	expect_row $'0\t10\ta\t1'
	mv f.log f.log.1
	printf '21 a\n' >>f.log.1
	expect_row $'10\t20\ta\t1'
	printf '31 b\n' >f.log
	expect_row $'20\t30\ta\t1'
	stop_with TERM
	expect_row $'30\t40\tb\t1'
	ends_ok
}

@test "a file truncated in place (copytruncate) is read again from its start, with a warning" {
	printf '1 a\n2 a\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s f.log
	printf '11 a\n' >>f.log
	expect_row $'0\t10\ta\t2'
	cp f.log f.log.1
	: >f.log
	wait_until "$LIVE_WAIT" grep_err "truncated"
	printf '21 b\n' >>f.log
	expect_row $'10\t20\ta\t1'
	stop_with HUP
	expect_row $'20\t30\tb\t1'
	ends_ok "fwin: f.log: truncated; reading it again from its start"
}

@test "-H: after a copytruncate, the first line is skipped when it is the header again, else it is a record" {
	local again
	for again in 't,k\n' ''; do
		printf 't,k\n1,a\n2,a\n' >f.csv
		start_follow -F --csv -H -t t -k k --tumble 10s f.csv
		printf '11,a\n' >>f.csv
		expect_row 'window_start,window_end,k,count'
		expect_row '0,10,a,2'
		cp f.csv f.csv.1
		: >f.csv
		wait_until "$LIVE_WAIT" grep_err "truncated"
		# the writer goes on, writing the header again or not
		printf "${again}12,b\n21,b\n" >>f.csv
		expect_row '10,20,a,1'
		expect_row '10,20,b,1'
		stop_with TERM
		expect_row '20,30,b,1'
		ends_ok "fwin: f.csv: truncated; reading it again from its start"
		stop_fwin
	done
}

@test "several files are read side by side, each with its watermark: the slower holds firing until it moves" {
	printf '1 a\n' >a.log
	printf '2 b\n' >b.log
	start_follow -F -t 1 -k 2 --tumble 10s a.log b.log
	# a.log never ends, yet b.log is read as it grows; the watermark is
	# the smaller of the two files' (2, then 12, then 21): without it,
	# 21 would fire [10,20) at once and b's 12 would be late
	printf '11 a\n21 a\n' >>a.log
	printf '12 b\n' >>b.log
	expect_row $'0\t10\ta\t1'
	expect_row $'0\t10\tb\t1'
	printf '22 b\n' >>b.log
	expect_row $'10\t20\ta\t1'
	expect_row $'10\t20\tb\t1'
	stop_with TERM
	expect_row $'20\t30\ta\t1'
	expect_row $'20\t30\tb\t1'
	ends_ok
}

@test "an input with no record for --idle-timeout is left out of the watermark until it has one" {
	printf '1 a\n' >a.log
	printf '2 b\n' >b.log
	start_follow -F -t 1 -k 2 --tumble 100s --idle-timeout 1s a.log b.log
	# b.log stays silent: after a second it no longer holds the
	# watermark at 2, and a.log's 201 fires the windows it passes
	printf '101 a\n201 a\n' >>a.log
	expect_row $'0\t100\ta\t1'
	expect_row $'0\t100\tb\t1'
	expect_row $'100\t200\ta\t1'
	# b has data again: it counts again (250), and holds a's 301
	printf '250 b\n' >>b.log
	printf '301 a\n' >>a.log
	expect_nothing 0.3
	printf '302 b\n' >>b.log
	expect_row $'200\t300\ta\t1'
	expect_row $'200\t300\tb\t1'
	stop_with TERM
	expect_row $'300\t400\ta\t1'
	expect_row $'300\t400\tb\t1'
	ends_ok
}

@test "--idle-timeout: when every file is idle, the watermark follows the clock from that of the file that went idle last" {
	local threads
	for threads in 1 4; do
		printf '1 a\n' >a.log
		printf '5 b\n' >b.log
		start_follow -F -t 1 -k 2 --tumble 1s --idle-timeout 1s \
		    --threads "$threads" a.log b.log
		# read while a.log, not idle yet, holds the watermark at 1
		printf '1000 b\n' >>b.log
		# a.log idle: the watermark is b.log's, 1000; b.log idle
		# a second later: it follows the clock from 1000, and passes
		# 1001 a second after that, not 999 s later, from a.log's 1
		expect_row $'1\t2\ta\t1'
		expect_row $'5\t6\tb\t1'
		expect_row $'1000\t1001\tb\t1'
		stop_with TERM
		ends_ok
		stop_fwin
	done
}

@test "a file that is not there yet is waited for, and holds the watermark" {
	printf '1 a\n11 a\n' >a.log
	start_follow -F -t 1 -k 2 --tumble 10s a.log later.log
	wait_until "$LIVE_WAIT" grep_err "later.log"
	printf '2 b\n12 b\n' >later.log
	expect_row $'0\t10\ta\t1'
	expect_row $'0\t10\tb\t1'
	stop_with TERM
	expect_row $'10\t20\ta\t1'
	expect_row $'10\t20\tb\t1'
	ends_ok "fwin: later.log: No such file or directory; waiting for it"
}

@test "-H: each file and each new file after a rotation starts with the header" {
	printf 't,k\n1,a\n' >a.csv
	printf 't,k\n2,b\n' >b.csv
	start_follow -F --csv -H -t t -k k --tumble 10s a.csv b.csv
	printf '11,a\n' >>a.csv
	printf '12,b\n' >>b.csv
	expect_row 'window_start,window_end,k,count'
	expect_row '0,10,a,1'
	expect_row '0,10,b,1'
	mv a.csv a.csv.1
	printf 't,k\n13,a\n21,a\n' >a.csv
	printf '22,b\n' >>b.csv
	expect_row '10,20,a,2'
	expect_row '10,20,b,1'
	printf 'time,key\n' >>b.csv.new
	mv b.csv b.csv.1
	mv b.csv.new b.csv
	wait_fwin
	assert_equal "$status" 1
	assert_equal "$(cat err)" "fwin: b.csv: header differs from the first file's: column 1 is 'time', not 't'"
}

@test "--state: a signal saves open windows and the position; a restart resumes at the byte" {
	printf '1 a\n2 a\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt f.log
	printf '11 a\n' >>f.log
	expect_row $'0\t10\ta\t2'
	printf '12 a\n13' >>f.log
	stop_with TERM
	ends_ok
	# written while fwin was stopped: the unfinished line's rest too
	printf ' a\n21 a\n' >>f.log
	stop_fwin
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt f.log
	expect_row $'10\t20\ta\t3'
	stop_with INT
	ends_ok
	# nothing counted twice: a batch run over the file agrees
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s f.log
	assert_equal "$output" $'0\t10\ta\t2\n10\t20\ta\t3\n20\t30\ta\t1'
}

# first_run: a followed f.log with --state, read up to "11 a", then
# stopped; its rows are in rows1.
first_run() {
	printf '1 a\n2 a\n11 a\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt f.log
	expect_row $'0\t10\ta\t2'
	printf '0\t10\ta\t2\n' >rows1
	stop_with TERM
	ends_ok
	stop_fwin
	printf '12 a\n13 b\n' >>f.log
}

# second_run OLD...: the same command again, with --flush so that the
# open windows fire at the signal; every row ever printed must be what
# one batch run over OLD... (the rotated files) and f.log prints. The
# rows of the window 10-20 are SECOND_ROWS (a and b by default).
second_run() {
	local row rows=("${SECOND_ROWS[@]}")
	((${#rows[@]})) || rows=($'10\t20\ta\t2' $'10\t20\tb\t1')
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush f.log
	for row in "${rows[@]}"; do
		expect_row "$row"
		printf '%s\n' "$row" >>rows1
	done
	stop_with TERM
	for row in $'20\t30\ta\t1' $'20\t30\tb\t1'; do
		expect_row "$row"
		printf '%s\n' "$row" >>rows1
	done
	ends_ok
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s "$@" f.log
	assert_equal "$(cat rows1)" "$output"
}

@test "--state: a file rotated while fwin was stopped is read to its end from the rotated file, then the new one" {
	first_run
	mv f.log f.log.1
	printf '21 a\n22 b\n' >f.log
	second_run f.log.1
}

@test "--state: the rotated file is found by its content under a dated name, after a copytruncate" {
	first_run
	cp f.log f.log-20261203
	: >f.log
	printf '21 a\n22 b\n' >>f.log
	second_run f.log-20261203
}

# after_save SECS FILE...: FILE's modification time SECS after now, a
# while after the checkpoint was saved (a rotation while fwin was stopped).
after_save() {
	local secs=$1
	shift
	touch -d "@$(($(date +%s) + secs))" "$@"
}

@test "--state: a rotated file that is gone (compressed) is said, and the new file is read" {
	first_run
	mv f.log f.log.1
	gzip f.log.1
	after_save 60 f.log.1.gz
	printf '21 a\n22 b\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush f.log
	expect_row $'10\t20\ta\t1'
	stop_with TERM
	expect_row $'20\t30\ta\t1'
	expect_row $'20\t30\tb\t1'
	ends_ok "fwin: f.log: rotated while stopped; any bytes written after position 13 of the old file are gone
fwin: f.log: ./f.log.1.gz was rotated since the checkpoint and is compressed; its records are not read"
}

@test "--state: rotated twice while stopped with delaycompress: the checkpoint's file compressed is said, the one rotated after it read whole" {
	first_run
	printf '5 z\n' >f.log.9
	touch -d '2026-11-30 00:00' f.log.9
	mv f.log f.log.1
	printf '14 c\n' >f.log
	# the second rotation: f.log.1 shifted and compressed now, f.log
	# renamed f.log.1, which stays as it is until the next
	mv f.log.1 f.log.2
	gzip f.log.2
	after_save 60 f.log.2.gz
	mv f.log f.log.1
	after_save 120 f.log.1
	printf '21 a\n22 b\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush f.log
	expect_row $'10\t20\ta\t1'
	expect_row $'10\t20\tc\t1'
	stop_with TERM
	expect_row $'20\t30\ta\t1'
	expect_row $'20\t30\tb\t1'
	ends_ok "fwin: f.log: rotated while stopped; any bytes written after position 13 of the old file are gone
fwin: f.log: ./f.log.2.gz was rotated since the checkpoint and is compressed; its records are not read"
}

@test "--state: a file that had no record yet at the checkpoint and was written and rotated while fwin was stopped is read from its start" {
	: >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt f.log
	wait_until "$LIVE_WAIT" test -e s.ckpt
	stop_with TERM
	ends_ok
	stop_fwin
	printf '1 a\n2 a\n11 a\n' >>f.log
	mv f.log f.log.1
	printf '21 a\n22 b\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush f.log
	expect_row $'0\t10\ta\t2'
	expect_row $'10\t20\ta\t1'
	stop_with TERM
	expect_row $'20\t30\ta\t1'
	expect_row $'20\t30\tb\t1'
	ends_ok
}

# rotated_twice_run OLD...: second_run after first_run and two
# rotations while stopped, with "14 c" in the file between: the rest of
# the first rotated file, the second whole, then f.log.
rotated_twice_run() {
	SECOND_ROWS=($'10\t20\ta\t2' $'10\t20\tb\t1' $'10\t20\tc\t1')
	second_run "$@"
}

@test "--state: rotated twice while fwin was stopped (dated names): the first rotated file from the position, the second whole, then the new one" {
	first_run
	# an older rotation, before the checkpoint: not read again; nor a
	# copy a user made, whose records the rotated files hold
	printf '5 z\n' >f.log-20261130
	touch -d '2026-11-30 00:00' f.log-20261130
	cp f.log f.log.bak
	mv f.log f.log-20261201
	touch -d '2026-12-01 00:00' f.log-20261201
	printf '14 c\n' >f.log
	mv f.log f.log-20261202
	touch -d '2026-12-02 00:00' f.log-20261202
	printf '21 a\n22 b\n' >f.log
	rotated_twice_run f.log-20261201 f.log-20261202
}

@test "--state: rotated twice while fwin was stopped (numbered names, shifted): each rotated file once, oldest first" {
	first_run
	printf '5 z\n' >f.log.3
	touch -d '2026-11-30 00:00' f.log.3
	mv f.log f.log.1
	touch -d '2026-12-01 00:00' f.log.1
	printf '14 c\n' >f.log
	# the second rotation shifts the first: f.log.1 becomes f.log.2
	mv f.log.1 f.log.2
	mv f.log f.log.1
	touch -d '2026-12-02 00:00' f.log.1
	printf '21 a\n22 b\n' >f.log
	rotated_twice_run f.log.2 f.log.1
}

@test "--state: a later rotated file that is compressed is said, its records not read" {
	first_run
	mv f.log f.log-20261201
	touch -d '2026-12-01 00:00' f.log-20261201
	printf '14 c\n' >f.log
	mv f.log f.log-20261202
	touch -d '2026-12-02 00:00' f.log-20261202
	gzip f.log-20261202
	printf '21 a\n22 b\n' >f.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush f.log
	expect_row $'10\t20\ta\t2'
	expect_row $'10\t20\tb\t1'
	stop_with TERM
	expect_row $'20\t30\ta\t1'
	expect_row $'20\t30\tb\t1'
	ends_ok "fwin: f.log: ./f.log-20261202.gz was rotated since the checkpoint and is compressed; its records are not read"
}

@test "--progress: each followed file and how far behind its end fwin is, erased at exit" {
	printf '1 a\n' >f.log
	start_follow -F --progress -t 1 -k 2 --tumble 10s f.log none.log
	wait_until "$LIVE_WAIT" grep_err "; f.log: at its end; none.log: not there, "
	stop_with TERM
	expect_row $'0\t10\ta\t1'
	expect_eof
	wait_fwin
	assert_equal "$status" 0
	# the message, then the line (rewritten in place), erased at exit
	assert_equal "$(head -1 err)" "fwin: none.log: No such file or directory; waiting for it"
	[[ $(tail -c 4 err | od -An -c | tr -d ' ') == '\r033[K' ]] ||
		fail "the progress line is not erased: $(cat -v err)"
}

@test "--state with several files: each resumes at its own byte" {
	printf '1 a\n11 a\n' >a.log
	printf '2 b\n12 b\n' >b.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt a.log b.log
	expect_row $'0\t10\ta\t1'
	expect_row $'0\t10\tb\t1'
	stop_with TERM
	ends_ok
	stop_fwin
	printf '13 a\n21 a\n' >>a.log
	printf '14 b\n22 b\n' >>b.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush a.log b.log
	expect_row $'10\t20\ta\t2'
	expect_row $'10\t20\tb\t2'
	stop_with TERM
	expect_row $'20\t30\ta\t1'
	expect_row $'20\t30\tb\t1'
	ends_ok
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s a.log b.log
	assert_equal "$output" $'0\t10\ta\t1\n0\t10\tb\t1\n10\t20\ta\t2\n10\t20\tb\t2\n20\t30\ta\t1\n20\t30\tb\t1'
}

@test "--state: FILEs given in another order each resume where their file was: known by inode, or by name once rotated" {
	printf '1 a\n11 a\n' >a.log
	printf '2 b\n12 b\n' >b.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt a.log b.log
	expect_row $'0\t10\ta\t1'
	expect_row $'0\t10\tb\t1'
	stop_with TERM
	ends_ok
	stop_fwin
	# swapped: each file is the checkpoint's other one, by its inode
	printf '13 a\n21 a\n' >>a.log
	printf '14 b\n21 b\n' >>b.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt b.log a.log
	expect_row $'10\t20\ta\t2'
	expect_row $'10\t20\tb\t2'
	stop_with TERM
	ends_ok
	stop_fwin
	# both rotated while stopped, and given in the first order again:
	# known by their names, each rotated file is read to its end first
	printf '22 a\n' >>a.log
	printf '23 b\n' >>b.log
	mv a.log a.log.1
	mv b.log b.log.1
	printf '31 a\n' >a.log
	printf '32 b\n' >b.log
	start_follow -F -t 1 -k 2 --tumble 10s --state s.ckpt --flush \
	    a.log b.log
	expect_row $'20\t30\ta\t2'
	expect_row $'20\t30\tb\t2'
	stop_with TERM
	expect_row $'30\t40\ta\t1'
	expect_row $'30\t40\tb\t1'
	ends_ok
}
