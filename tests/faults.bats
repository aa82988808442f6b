#!/usr/bin/env bats
# Fault injection: tests/faults/shim.c, an LD_PRELOAD library, makes the
# N-th write, fsync, fdatasync, rename, ftruncate, truncate, msync, mmap,
# mremap, malloc, open, read, close or waitpid fail, and
# tests/faults/sweep sweeps N over a small checkpointed run (see there for
# what each run must satisfy: exit 0-2 with a message, never exit 0 after
# losing output, the previous checkpoint never damaged, exactly-once after
# recovery). fwin(1): CHECKPOINTS, EXIT STATUS.
load common

setup_file() {
	build_shim
}

# whole_or_said_once NS ARGS...: fwin ARGS -o got in, its N-th write
# failing once, or from then on, for each N of NS: either it fails with
# the output's error said once, or (the failure was a scratch file's,
# whose work is done again) got is want, and nothing is said
whole_or_said_once() {
	local ns=$1 mode n
	shift
	for mode in once sticky; do
		for n in $ns; do
			rm -f got
			run --separate-stderr env FAULT_CALL=write FAULT_N=$n FAULT_ERRNO=EIO \
			    FAULT_MODE=$mode LD_PRELOAD=$SHIM "$FWIN" "$@" -o got in
			if ((status == 0)); then
				assert_equal "$stderr" ''
				cmp got want
			else
				assert_failure 1
				assert_equal "$stderr" 'fwin: got: Input/output error'
			fi
		done
	done
}

sweep() {
	run env FWIN="$FWIN" "$BATS_TEST_DIRNAME/faults/sweep" "$@"
	assert_success
	# a sweep to the end: its last N injected nothing
	[ $# -gt 2 ] || assert_line --regexp 'ok\(no fault\) +none'
}

# --- the shim itself ---

@test "shim: counts calls from main() on, and fails the N-th" {
	printf '10 a\n11 b\n' > in
	FAULT_COUNT=$PWD/count LD_PRELOAD=$SHIM fwin -t 1 --tumble 1s -o out in
	run cat count
	assert_output --regexp '^[0-9]+ main .*write=1( |$)'
	run --separate-stderr env FAULT_CALL=write FAULT_N=1 FAULT_ERRNO=ENOSPC \
	    FAULT_LOG=$PWD/log LD_PRELOAD=$SHIM "$FWIN" -t 1 --tumble 1s in
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'fwin: standard output: No space left on device'
	run cat log
	assert_output --regexp '^[0-9]+ main write 1 ENOSPC$'
}

# --- without a checkpoint: output that cannot be written ---

@test "a write error on -o FILE or standard output is exit 1, said once" {
	awk 'BEGIN { for (i = 0; i < 50000; i++) printf "%d k%d\n", 1700000000 + i, i }' > in
	# (one thread: in two halves the N-th write may be the second half's
	# scratch file, which costs only that half's work: see "a stream in
	# two halves" below)
	for n in 1 2 3; do
		run --separate-stderr env FAULT_CALL=write FAULT_N=$n FAULT_ERRNO=EIO \
		    LD_PRELOAD=$SHIM "$FWIN" --threads 1 --mode stream -t 1 -k 2 --tumble 1s -o out in
		assert_failure 1
		assert_equal "$stderr" 'fwin: out: Input/output error'
	done
	# a disk that stays full
	run --separate-stderr env FAULT_CALL=write FAULT_N=2 FAULT_ERRNO=ENOSPC \
	    FAULT_MODE=sticky LD_PRELOAD=$SHIM "$FWIN" --mode stream -t 1 -k 2 --tumble 1s in
	assert_failure 1
	assert_equal "$stderr" 'fwin: standard output: No space left on device'
}

@test "a full disk under -o with checkpoints every 2000 records: the output's error is said once" {
	awk 'BEGIN { for (i = 0; i < 50000; i++) printf "%d k%d\n", 1700000000 + i, i }' > in
	for n in 3 4 5 6 8; do
		rm -f out s.ckpt
		run --separate-stderr env FAULT_CALL=write FAULT_N=$n FAULT_ERRNO=ENOSPC \
		    FAULT_MODE=sticky LD_PRELOAD=$SHIM "$FWIN" --threads 1 --mode stream -t 1 -k 2 \
		    --tumble 1s --state s.ckpt --checkpoint-every 2000 -o out in
		assert_failure 1
		# (a save the full disk hit first says so, once)
		assert_equal "$(grep -vc '^fwin: s.ckpt: cannot write checkpoint: No space left on device$' <<<"$stderr")" 1
		assert_equal "$(grep -v '^fwin: s.ckpt: cannot write' <<<"$stderr")" 'fwin: out: No space left on device'
	done
}

@test "batch, input in time order: a scratch file that cannot be written only costs the sort" {
	awk 'BEGIN { for (i = 0; i < 50000; i++) printf "%d k%d\n", 1700000000 + i, i }' > in
	fwin --mode stream -t 1 -k 2 --tumble 1s in > want
	# the rows held pass the output's buffer: the first write is the
	# scratch file's; failed, the records are read again as any input's
	# (a count: added to their windows as read; a first: sorted)
	run --separate-stderr env FAULT_CALL=write FAULT_N=1 FAULT_ERRNO=ENOSPC \
	    LD_PRELOAD=$SHIM "$FWIN" --stats -t 1 -k 2 --tumble 1s -o out in
	assert_success
	assert_regex "$stderr" ', mode batch, aggregated as read$'
	cmp out want
	fwin --mode stream -t 1 -k 2 --tumble 1s --first 1 in > want
	run --separate-stderr env FAULT_CALL=write FAULT_N=1 FAULT_ERRNO=ENOSPC \
	    LD_PRELOAD=$SHIM "$FWIN" --stats -t 1 -k 2 --tumble 1s --first 1 -o first in
	assert_success
	assert_regex "$stderr" ', mode batch$'
	cmp first want
	# a write error after the rows held is the output's, said once
	run --separate-stderr env FAULT_CALL=write FAULT_N=2 FAULT_ERRNO=EIO \
	    FAULT_MODE=sticky LD_PRELOAD=$SHIM "$FWIN" -t 1 -k 2 --tumble 1s -o out in
	assert_failure 1
	assert_equal "$stderr" 'fwin: out: Input/output error'
}

# close(2) is where NFS and some quota setups report a write that did not
# make it; fwin ignores what close returns for -o FILE and --late-file.
@test "a close error on -o FILE is exit 1" {
	printf '10 a\n11 b\n' > in
	# the closes at exit: in (5), out (4), late (3); one thread, as a
	# reading thread's own descriptors would add closes before them; a
	# second run first looks whether out and late are checkpoints (a
	# close each) and reads out's lock file twice (that it is fwin's,
	# then its owner), four closes more
	run --separate-stderr env FAULT_CALL=close FAULT_N=2 FAULT_ERRNO=EIO \
	    LD_PRELOAD=$SHIM "$FWIN" --threads 1 -t 1 --tumble 1s -o out --late-file late in
	assert_failure 1
	assert_equal "$stderr" 'fwin: out: Input/output error'
	run --separate-stderr env FAULT_CALL=close FAULT_N=7 FAULT_ERRNO=EIO \
	    LD_PRELOAD=$SHIM "$FWIN" --threads 1 -t 1 --tumble 1s -o out --late-file late in
	assert_failure 1
	assert_equal "$stderr" 'fwin: late: Input/output error'
}

@test "short writes and reads lose nothing" {
	awk 'BEGIN { for (i = 0; i < 50000; i++) printf "%d k%d\n", 1700000000 + i, i }' > in
	fwin -t 1 -k 2 --tumble 1s in > want
	for n in 1 2 5; do
		FAULT_CALL=write FAULT_N=$n FAULT_MODE=short LD_PRELOAD=$SHIM \
		    fwin -t 1 -k 2 --tumble 1s in > out
		cmp out want
		FAULT_CALL=read FAULT_N=$n FAULT_MODE=short LD_PRELOAD=$SHIM \
		    fwin -t 1 -k 2 --tumble 1s in > out
		cmp out want
	done
}

@test "short reads of a checkpoint's header restore all the same" {
	awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%d k%d\n", 1700000000 + i, i % 7 }' > in
	fwin -t 1 -k 2 --tumble 1m --checkpoint s.ckpt in > first
	fwin -t 1 -k 2 --tumble 1m --restore s.ckpt --new-input --flush < /dev/null > want
	[ -s want ]
	# the header is the first pread(s) of the restore
	for n in 1 2 3; do
		run --separate-stderr env FAULT_CALL=read FAULT_N=$n FAULT_MODE=short \
		    LD_PRELOAD=$SHIM "$FWIN" -t 1 -k 2 --tumble 1m --restore s.ckpt \
		    --new-input --flush < /dev/null
		assert_success
		assert_equal "$stderr" ""
		assert_equal "$output" "$(cat want)"
	done
}

@test "a read error on an input is reported, the other files are read" {
	printf '10 a\n' > in1
	printf '11 b\n' > in2
	run --separate-stderr env FAULT_CALL=read FAULT_N=1 FAULT_ERRNO=EIO \
	    LD_PRELOAD=$SHIM "$FWIN" -t 1 -k 2 --tumble 1s in1 in2
	assert_failure 1
	assert_output $'11\t12\tb\t1'
	assert_equal "$stderr" 'fwin: in1: Input/output error'
}

# An input FILE that could not be opened had its checkpoint position
# reset to 0 (and device 0, inode 0): the next run read it again from the
# start and counted its records twice.
@test "an input that cannot be opened keeps its checkpoint position" {
	printf '10 a\n11 a\n' > f1
	printf '12 b\n13 b\n' > f2
	fwin -t 1 -k 2 --tumble 1s --state ck -o out f1 f2
	printf '14 a\n' >> f1
	printf '15 b\n' >> f2
	mv f1 f1.away
	run --separate-stderr fwin -t 1 -k 2 --tumble 1s --state ck -o out f1 f2
	assert_failure 1
	assert_equal "$stderr" 'fwin: f1: No such file or directory'
	mv f1.away f1
	printf '16 a\n' >> f1
	run --separate-stderr fwin -t 1 -k 2 --tumble 1s --state ck -o out --flush --stats f1 f2
	assert_success
	# f1 from where the first run left it: 14 (late by now) and 16
	[[ $stderr == 'fwin: stats: records 2, bad 0, late 1, in no window 0, windows fired 2,'* ]]
	run cat out
	assert_output $'10\t11\ta\t1\n11\t12\ta\t1\n12\t13\tb\t1\n13\t14\tb\t1\n15\t16\tb\t1\n16\t17\ta\t1'
}

# --- sweeps over a checkpointed run (tests/faults/sweep) ---

@test "sweep: write fails (ENOSPC, EIO), every N" {
	sweep write ENOSPC
	sweep write EIO
}

@test "sweep: write fails with EINTR, and short writes" {
	sweep write EINTR
	FAULT_MODE=short sweep write EIO
}

@test "sweep: a disk that stays full from the N-th write on" {
	FAULT_MODE=sticky sweep write ENOSPC
}

@test "sweep: fsync and fdatasync fail" {
	sweep fsync EIO
	sweep fdatasync EIO
}

@test "sweep: rename, ftruncate and truncate fail" {
	sweep rename EIO
	sweep ftruncate ENOSPC
	sweep truncate EIO
}

@test "sweep: msync, mmap and mremap fail" {
	sweep msync EIO
	sweep mmap ENOMEM
	sweep mremap ENOMEM
}

@test "sweep: open, read and close fail" {
	sweep open EACCES
	sweep read EIO
	FAULT_MODE=short sweep read EIO
	sweep close EIO
}

@test "sweep: malloc fails (ENOMEM), every N" {
	FWIN_THREADS=1 sweep malloc ENOMEM
}

# GMP allocates for a sum past 320 bits and for the table a double's
# digits come from (num.c), made at the first one printed: each failing
# allocation there ends the run as any other, never in GMP's abort(3).
# (One thread: the start of a reading thread has the sweep below.)
@test "malloc fails (ENOMEM) where GMP allocates: exit 1 with a message, never a crash" {
	local big n=1 oom=0
	big=$(printf '9%.0s' $(seq 110))
	printf '1700000000 a 1.5 %s\n1700000001 b 2.25 %s\n1700000005 b 7 1\n' \
	    "$big" "$big" > in
	while :; do
		rm -f log
		run --separate-stderr env FWIN_THREADS=1 FAULT_CALL=malloc \
		    FAULT_N=$n FAULT_ERRNO=ENOMEM FAULT_LOG=$PWD/log \
		    LD_PRELOAD=$SHIM "$FWIN" -t 1 -k 2 --tumble 2s --avg 3 \
		    --sum 4 in
		[ -s log ] || break	# past the last allocation: a clean run
		if ((status != 0)); then
			assert_failure 1
			[[ $stderr == 'fwin: '* ]]
			if [[ $stderr == 'fwin: out of memory' ]]; then
				oom=$((oom + 1))
			fi
		fi
		n=$((n + 1))
	done
	assert_success
	((oom > 10))
	assert_line --index 0 $'1700000000\t1700000002\ta\t1.5\t1e+110'
	((n > 20))
}

# With a reading thread, its start and its slots allocate too. Not under
# a sanitizer: its runtime allocates as a thread starts, and a failure
# there stops it in its own check, before fwin can say anything.
@test "sweep: malloc fails (ENOMEM) with a reading thread, every N" {
	ldd "$FWIN" | grep -q -e libasan -e libtsan && skip "sanitizer runtime"
	FWIN_THREADS=2 sweep malloc ENOMEM
}

@test "sweep: a forked checkpoint writer's write, fsync and rename fail" {
	FAULT_WHERE=child sweep write ENOSPC
	FAULT_WHERE=child sweep fsync EIO
	FAULT_WHERE=child sweep rename EIO
}

@test "a wait for a background checkpoint writer interrupted by a signal waits again: the run ends whole, nothing said" {
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%d k%d\n", i, i % 7 }' > in
	args=(-t 1 -k 2 --tumble 10s --count --flush)
	fwin "${args[@]}" in > want
	for n in 1 2 3 4; do
		rm -f s.ckpt got
		run --separate-stderr env FAULT_CALL=waitpid FAULT_N=$n FAULT_ERRNO=EINTR \
		    FAULT_LOG=$PWD/log LD_PRELOAD=$SHIM "$FWIN" "${args[@]}" --state s.ckpt \
		    --checkpoint-every 2000 -o got in
		assert_success
		assert_equal "$stderr" ''
		cmp got want
	done
	# the first wait always comes (the end's, at least): that fault was
	# given; the later ones where the run waited as often (its timing)
	grep -q ' waitpid 1 EINTR$' log
}

@test "sweep, big state: write, fsync, rename and ftruncate fail" {
	SCENARIO=big sweep write ENOSPC
	SCENARIO=big sweep fsync EIO
	SCENARIO=big sweep rename EIO
	SCENARIO=big sweep ftruncate EIO
}

@test "sweep, big state: mmap, mremap and malloc fail" {
	SCENARIO=big sweep mmap ENOMEM
	SCENARIO=big sweep mremap ENOMEM
	SCENARIO=big sweep malloc ENOMEM 40
}

@test "a stream in two halves: a write error on the output is said once; on the second half's scratch file it costs that half's work" {
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%.0f,k%d,%d\n", 1700000000000 + i * 20, i % 3000, i % 7 }' > in
	args=(--threads 2 --csv -t 1 -k 2 --tumble 1m -l 1s --count --sum 3)
	fwin "${args[@]}" in > want
	run --separate-stderr fwin --stats "${args[@]}" -o got in
	assert_regex "$stderr" ', mode stream, aggregated as read, in two halves$'
	cmp got want
	# the output's writes and the second half's scratch file's come in
	# an order the two threads' timing decides: either the run fails,
	# said once, or the scratch file's failure had the driver read that
	# half, and the output is whole
	whole_or_said_once "1 2 4 6 9" "${args[@]}"
}

@test "a stream in two halves: a write error while the windows both hold are formatted on two threads is said once, or costs only the second thread's scratch file" {
	draws 400000 1 9 | awk '{ i = NR - 1
		printf "%.0f,k%d,%d\n", 1600000000000 + i * 5, int($1 * 200000), i % 13 }' > in
	args=(--threads 2 --csv -t 1 -k 2 --tumble 1h -l 1s --count --sum 3)
	fwin --threads 1 "${args[@]:2}" in > want
	# (about 32 writes in all, the output's and the two scratch files'
	# in an order the threads' timing decides: a failure in the second
	# thread's file has the rows formatted again on this thread, one in
	# the second half's has this thread read that half)
	whole_or_said_once "1 2 3 5 8 10 13 16 20 24 28 31" "${args[@]}"
}
