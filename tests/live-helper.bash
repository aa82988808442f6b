# Helpers for tests/live.bats: run fwin as a live filter, its input and
# output each a FIFO held open by the test, so that the test decides when
# input arrives and when it ends, and reads rows with bounded waits.
#
#   start_fwin ARGS...   start "$FWIN ARGS..." in the background
#   put STRING           write STRING (printf %b escapes) to its input
#   put_file FILE        copy FILE to its input in the background (a
#                        writer that may block on a full pipe); wait_put
#                        waits (bounded) for it to finish
#   close_input          end its input
#   expect_row WANT      the next row is WANT (waits up to $LIVE_WAIT s)
#   expect_nothing SECS  no row comes within SECS s, fwin still running
#   expect_eof           its output ends (fwin closed it) with no more rows
#   wait_fwin            wait (bounded) for fwin to exit; status in $status
#   running              fwin has not exited yet
#   assert_running       fail, with fwin's status and stderr, if it exited
#   stop_fwin            teardown: kill fwin if still there, close the FIFOs

# Generous upper bound, in seconds, on any wait for something that should
# happen (a row, end of output, exit): a loaded machine only makes it slow.
LIVE_WAIT=${LIVE_WAIT:-5}

FWIN_PID=
PUT_PID=
IN=
OUT=

start_fwin() {
	mkfifo in out
	# fd 3 closed: bats waits for whoever holds it. The child opens the
	# FIFOs in order (in, then out), as we do, so neither side deadlocks.
	"${DFL_SIGNALS[@]}" "$FWIN" "$@" <in >out 2>err 3>&- &
	FWIN_PID=$!
	exec {IN}>in
	exec {OUT}<out
}

# Write in a subshell: if fwin is gone, SIGPIPE ends only the subshell and
# the test fails on put's status instead of the test shell being killed.
put() {
	(printf '%b' "$1" >&"$IN")
}

put_file() {
	cat "$1" >&"$IN" 3>&- &
	PUT_PID=$!
}

wait_put() {
	local i
	for ((i = 0; i < LIVE_WAIT * 20; i++)); do
		kill -0 "$PUT_PID" 2>/dev/null || break
		[[ $(ps -o stat= -p "$PUT_PID" 2>/dev/null) == Z* ]] && break
		sleep 0.05
	done
	wait "$PUT_PID" || fail "writing the input failed or took over ${LIVE_WAIT}s"
	PUT_PID=
}

close_input() {
	if [[ -n $IN ]]; then
		exec {IN}>&-
		IN=
	fi
}

running() {
	local st
	st=$(ps -o stat= -p "$FWIN_PID" 2>/dev/null) || return 1
	[[ -n $st && $st != Z* ]]
}

assert_running() {
	local st=0
	running && return 0
	wait "$FWIN_PID" || st=$?
	FWIN_PID=
	fail "fwin exited, status $st, stderr: $(cat err)"
}

expect_row() {
	local line rc=0
	IFS= read -r -t "$LIVE_WAIT" line <&"$OUT" || rc=$?
	if ((rc > 128)); then
		fail "no row within ${LIVE_WAIT}s, expected: $1"
	elif ((rc != 0)); then
		fail "fwin's output ended, expected: $1 (stderr: $(cat err))"
	fi
	assert_equal "$line" "$1"
}

expect_nothing() {
	local line rc=0
	IFS= read -r -t "$1" line <&"$OUT" || rc=$?
	if ((rc == 0)); then
		fail "unexpected row within $1 s: $line"
	elif ((rc <= 128)); then
		fail "fwin's output ended (stderr: $(cat err))"
	fi
	assert_running
}

expect_eof() {
	local line rc=0
	IFS= read -r -t "$LIVE_WAIT" line <&"$OUT" || rc=$?
	if ((rc == 0)); then
		fail "unexpected row: $line"
	elif ((rc > 128)); then
		fail "fwin's output did not end within ${LIVE_WAIT}s"
	elif [[ -n $line ]]; then
		fail "output ends with a partial row: $line"
	fi
}

wait_fwin() {
	local i
	for ((i = 0; i < LIVE_WAIT * 20; i++)); do
		running || break
		sleep 0.05
	done
	running && fail "fwin did not exit within ${LIVE_WAIT}s"
	status=0
	wait "$FWIN_PID" || status=$?
	FWIN_PID=
}

stop_fwin() {
	if [[ -n $PUT_PID ]]; then
		kill -KILL "$PUT_PID" 2>/dev/null || true
		wait "$PUT_PID" 2>/dev/null || true
		PUT_PID=
	fi
	close_input
	if [[ -n $OUT ]]; then
		exec {OUT}<&-
		OUT=
	fi
	if [[ -n $FWIN_PID ]]; then
		kill -KILL "$FWIN_PID" 2>/dev/null || true
		wait "$FWIN_PID" 2>/dev/null || true
		FWIN_PID=
	fi
}
