#!/usr/bin/env bats
# A batch run stopped by SIGINT, SIGTERM or SIGHUP says so (fwin(1): BATCH
# AND STREAM MODES): no row is started after the signal, spill files go,
# a message says how far the run came, and the exit status is 128 + the
# signal's number. A stream still ends its input and exits 0.
load common

gen() {
	"$BATS_TEST_DIRNAME/../scripts/gen" "$@"
}

# stop_reading SIG STATUS THREADS: the run reads a file, then waits on a
# fifo that is never written; SIG stops it there.
stop_reading() {
	local sig=$1 want=$2 n=$3 st=0
	gen -n 20000 -k 50 --seed 31 > in
	mkdir -p tmp
	rm -f fifo out err
	mkfifo fifo
	TMPDIR=$PWD/tmp "${DFL_SIGNALS[@]}" "$FWIN" --threads $n --mode batch --max-memory 64K --csv -t 1 -k 2 --session 1s --count in fifo > out 2> err 3>&- &
	pid=$!
	exec 7> fifo
	# it has read in and spilled once it opens the fifo
	wait_until 10 sh -c "ls -l /proc/$pid/fd | grep -q fifo"
	kill -$sig $pid
	# (the fifo stays open until fwin is gone: its end must not come
	# before the signal)
	wait $pid || st=$?
	exec 7>&-
	assert_equal "$st" "$want"
	assert_equal "$(wc -c < out)" 0
	# the fifo is not a regular file: no share of the input's bytes
	assert_equal "$(cat err)" "fwin: interrupted after 20000 records; the output is incomplete"
	assert_equal "$(ls -A tmp)" ""
}

@test "batch stopped while reading: SIGINT 130, SIGTERM 143, SIGHUP 129; nothing written, spills removed" {
	for n in 1 2 4; do
		stop_reading INT 130 $n
		stop_reading TERM 143 $n
		stop_reading HUP 129 $n
	done
}

# fd_pos PID FD: the file offset of PID's FD.
fd_pos() {
	awk '$1 == "pos:" { print $2 }' "/proc/$1/fdinfo/$2"
}

@test "batch stopped while reading regular files: the share of their bytes read" {
	gen -n 3000000 -k 1000 --seed 34 > big
	size=$(wc -c < big)
	for n in 1 2; do
		"${DFL_SIGNALS[@]}" "$FWIN" --threads $n --mode batch --csv -t 1 -k 2 --session 1s --count 3>&- < big > out 2> err &
		pid=$!
		# stopped once it has begun to read: then the signal comes
		# before the end of its input, however fast it reads
		wait_until 20 sh -c "[ \"\$(awk '\$1 == \"pos:\" { print \$2 }' /proc/$pid/fdinfo/0)\" -gt 0 ]"
		kill -STOP $pid
		pos=$(fd_pos $pid 0)
		if [ "$pos" -ge "$size" ]; then
			kill -KILL $pid
			skip "the input was read before fwin could be stopped"
		fi
		kill -INT $pid
		kill -CONT $pid
		st=0
		wait $pid || st=$?
		assert_equal "$st" 130
		assert_equal "$(wc -c < out)" 0
		assert_regex "$(cat err)" '^fwin: interrupted after [0-9]+ records? \([0-9]+% of the input\); the output is incomplete$'
	done
}

# stop_writing THREADS ARGS...: the run's output is a fifo that is read
# only after SIG: it blocks in the sorted replay (or the table's firing)
# with rows still to write, so the signal always comes before the end.
# What it wrote is a prefix of a whole run's output, of whole rows, and
# shorter; the message gives how many records went through the windows.
stop_writing() {
	local n=$1 st=0
	shift
	fwin --threads 1 --mode batch --csv -t 1 "$@" big > full
	rm -f ofifo got err
	mkfifo ofifo
	"${DFL_SIGNALS[@]}" "$FWIN" --threads $n --mode batch --csv -t 1 "$@" big 3>&- > ofifo 2> err &
	pid=$!
	exec 8< ofifo
	head -c 1 <&8 > got
	kill -TERM $pid
	cat <&8 >> got
	exec 8<&-
	wait $pid || st=$?
	assert_equal "$st" 143
	assert_regex "$(cat err)" '^fwin: interrupted after [0-9]+ of 400000 records \([0-9]+%\); the output is incomplete$'
	[ "$(wc -c < got)" -lt "$(wc -c < full)" ]
	cmp -n "$(wc -c < got)" got full
	[ "$(tail -c 1 got | od -An -c | tr -d ' ')" = '\n' ]
}

@test "batch stopped while its rows are written: no row after the signal, a prefix of whole rows, exit 143" {
	# out of time order: sorted, then replayed (sessions), or the
	# table's groups fired (tumbling windows, count)
	gen -n 400000 -k 20000 --seed 33 --disorder 100000 > big
	for n in 1 2 4; do
		stop_writing $n -k 2 --session 1s --count --sum 3
		stop_writing $n -k 2 --tumble 1s --count
	done
}

@test "stream mode: a signal still ends the input, fires what is open, exit 0" {
	mkfifo fifo
	"${DFL_SIGNALS[@]}" "$FWIN" --mode stream -t 1 --time-format s -k 2 --tumble 10s --count 3>&- < fifo > out 2> err &
	pid=$!
	exec 7> fifo
	printf '1 a\n12 b\n' >&7
	wait_until 10 grep -q a out
	kill -TERM $pid
	st=0
	wait $pid || st=$?
	exec 7>&-
	assert_equal "$st" 0
	assert_equal "$(cat out)" $'0\t10\ta\t1\n10\t20\tb\t1'
	assert_equal "$(cat err)" ""
}

# holding PID: PID has a file in tmp/ (a spill, or the rows held while the
# input is in time order) that holds something.
holding() {
	local f
	for f in /proc/$1/fd/*; do
		case $(readlink "$f") in
		"$PWD/tmp/"*) [ "$(stat -L -c %s "$f")" -gt 0 ] && return 0 ;;
		esac
	done
	return 1
}

# stop_firing WAIT ARGS...: a run whose windows are more than any run
# could print (one record of trillions of sliding windows, or --fill over
# a century of milliseconds) gets SIGTERM once it has written a row (WAIT
# out) or held one in tmp/ (WAIT held); it stops within seconds, as any
# batch run, with exit status 143.
stop_firing() {
	local wait=$1 st=0
	shift
	rm -rf ofifo got err tmp
	mkdir tmp
	mkfifo ofifo
	TMPDIR=$PWD/tmp "${DFL_SIGNALS[@]}" "$FWIN" "$@" 3>&- > ofifo 2> err &
	pid=$!
	exec 8< ofifo
	if [ "$wait" = out ]; then
		head -c 1 <&8 > got
	else
		wait_until 10 holding $pid
	fi
	kill -TERM $pid
	cat <&8 >> got 3>&- &
	for ((i = 0; i < 500; i++)); do
		kill -0 $pid 2> /dev/null || break
		sleep 0.02
	done
	kill -0 $pid 2> /dev/null && kill -KILL $pid
	exec 8<&-
	wait $pid || st=$?
	assert_equal "$st" 143
	assert_regex "$(cat err)" '^fwin: interrupted after [12] (of [12] )?records? \([0-9]+%( of the input)?\); the output is incomplete$'
	assert_equal "$(ls -A tmp)" ""
}

@test "batch stopped while windows without end fire: it stops at once, exit 143" {
	printf '0,a\n' > one
	printf '0,a\n3000000000,b\n' > inorder
	printf '3000000000,b\n0,a\n' > unordered
	for n in 1 2; do
		for s in "" straight sorted; do
			FWIN_STRATEGY=$s stop_firing out --threads $n --mode batch --csv -t 1 -k 2 --slide 2400000h,1ms one
			FWIN_STRATEGY=$s stop_firing out --threads $n --mode batch --csv -t 1 -k 2 --tumble 1ms --fill unordered
		done
		FWIN_STRATEGY=straight stop_firing held --threads $n --mode batch --csv -t 1 -k 2 --tumble 1ms --fill inorder
	done
}
