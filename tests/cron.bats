#!/usr/bin/env bats
# Safe to run from cron (fwin(1), "Checkpoints"): one writer per checkpoint
# and per -o file, the temporary files of saves, the modes and owners of
# checkpoints, input identity across rotations, standard input replayed,
# output ownership, unfinished records, stray CSV quotes, and sparse
# checkpoints. Each test makes the situation for real (two processes, a
# planted link, a rotation) rather than imitating its effect.
load common

GEN=$BATS_TEST_DIRNAME/ckpt/gen.sh
ARGS=(--csv -t 1 -k 2 --tumble 1h -l 300s --count --sum 3)

setup_file() {
	build_shim
}

BG_PID=
teardown() {
	if [[ -n $BG_PID ]]; then
		kill -KILL "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
	exec 5>&- 2>/dev/null || true
}

# holds_lock FILE PID: FILE.lock names PID as its holder.
holds_lock() {
	[[ -e $1.lock && $(head -n 1 "$1.lock") == "$2" ]]
}

# start_holder ARGS...: fwin ARGS in the background, its last FILE the FIFO
# "fifo" (held open on fd 5).
start_holder() {
	mkfifo fifo
	"$FWIN" "$@" fifo >bg.out 2>bg.err 3>&- &
	BG_PID=$!
	exec 5<>fifo
}

# end_holder: end of input for the background fwin; wait for it.
end_holder() {
	exec 5>&-
	status=0
	wait "$BG_PID" || status=$?
	BG_PID=
}

inspect_value() {
	"$FWIN" --inspect "$2" | sed -n "s/^$1  *//p"
}

# ---------------------------------------------------------- one writer

@test "one writer: a second run on the same --state exits 1 at once, reading and writing nothing" {
	"$GEN" 1 3000 6 > full.csv
	head -n 1000 full.csv > in.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	# a run that holds on: it reads in.csv, then waits on a FIFO
	start_holder "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	wait_until 10 holds_lock s.ckpt "$BG_PID"
	wait_until 10 holds_lock out.csv "$BG_PID"
	cp s.ckpt s.before
	cp out.csv out.before
	sed -n '1001,2000p' full.csv >> in.csv
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "fwin: s.ckpt: in use by another fwin (pid $BG_PID)"
	cmp s.ckpt s.before
	cmp out.csv out.before
	# the -o file alone is locked too
	run --separate-stderr fwin "${ARGS[@]}" --state t.ckpt -o out.csv in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv: in use by another fwin (pid $BG_PID)"
	[ ! -e t.ckpt ]
	cmp out.csv out.before
	# the holder goes on, reading nothing new, and ends
	end_holder
	assert_equal "$status" 0
	# once it is gone the next run goes ahead: nothing lost or doubled
	sed -n '2001,$p' full.csv >> in.csv
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv --flush in.csv
	assert_success
	cmp out.csv ref.csv
}

@test "one writer: overlapping cron runs on a growing file give one run's out.csv" {
	"$GEN" 2 20000 20 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	: > in.csv
	prev=0 refused=0
	for upto in 3000 7000 12000 16000 20000; do
		sed -n "$((prev + 1)),${upto}p" full.csv >> in.csv
		prev=$upto
		# two runs at once, as cron starts one while the last still runs
		"$FWIN" "${ARGS[@]}" --state s.ckpt -o out.csv in.csv 2>a.err & a=$!
		"$FWIN" "${ARGS[@]}" --state s.ckpt -o out.csv in.csv 2>b.err & b=$!
		sa=0 sb=0
		wait $a || sa=$?
		wait $b || sb=$?
		for x in "a $sa" "b $sb"; do
			read -r n st <<<"$x"
			if ((st == 1)); then
				refused=$((refused + 1))
				[[ $(<"$n.err") =~ ^fwin:\ (s\.ckpt|out\.csv):\ in\ use\ by\ another\ fwin\ \(pid\ [0-9]+\)$ ]] ||
					fail "run $n: $(<"$n.err")"
			else
				((st == 0)) || fail "run $n exited $st: $(<"$n.err")"
				[[ ! -s $n.err ]] || fail "run $n said: $(<"$n.err")"
			fi
		done
	done
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv --flush in.csv
	cmp out.csv ref.csv
	echo "# $refused of 10 runs refused" >&3
}

@test "one writer: --state looks for its checkpoint under its lock: a run that began before another made it continues it" {
	"$GEN" 2 20000 20 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	head -n 3000 full.csv > in.csv
	# b finds no checkpoint yet, and waits before taking its lock ...
	env LD_PRELOAD="$SHIM" FAULT_CALL=open FAULT_PATH=s.ckpt.lock FAULT_N=1 \
	    FAULT_MODE=pause FAULT_GO=go FAULT_LOG=paused \
	    "$FWIN" "${ARGS[@]}" --state s.ckpt -o out.csv in.csv 2>b.err 3>&- &
	BG_PID=$!
	wait_until 10 test -s paused
	# ... while a makes the first checkpoint, and ends
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	assert_success
	cp out.csv out.a
	# b restores a's checkpoint: nothing new to read, nothing written
	# again (it read its input from the start, its rows after a's)
	touch go
	wait "$BG_PID"
	BG_PID=
	assert_equal "$(<b.err)" ""
	cmp out.csv out.a
	sed -n '3001,$p' full.csv >> in.csv
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv --flush in.csv
	assert_success
	cmp out.csv ref.csv
}

# Two runs at once, and kill -9 at a random moment to one or both: the
# lock keeps one writer, a killed save leaves the last checkpoint whole,
# so a last run with --flush gives one run's rows whatever happened.
@test "one writer: racing runs killed at random moments (kill -9) give one run's out.csv" {
	"$GEN" 4 20000 20 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	: > in.csv
	prev=0
	for upto in 2000 4000 6000 8000 10000 12000 14000 16000 18000 20000; do
		sed -n "$((prev + 1)),${upto}p" full.csv >> in.csv
		prev=$upto
		"$FWIN" "${ARGS[@]}" --state s.ckpt --checkpoint-every 100 -o out.csv in.csv 2>a.err & a=$!
		"$FWIN" "${ARGS[@]}" --state s.ckpt --checkpoint-every 100 -o out.csv in.csv 2>b.err & b=$!
		sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
		case $((RANDOM % 3)) in
		0) kill -KILL "$a" 2>/dev/null || true ;;
		1) kill -KILL "$b" 2>/dev/null || true ;;
		2) kill -KILL "$a" "$b" 2>/dev/null || true ;;
		esac
		for n in a b; do
			st=0
			wait "${!n}" 2>/dev/null || st=$?
			# done, refused (the lock), or killed: nothing else
			((st == 0 || st == 1 || st == 137)) || fail "exit $st: $(cat a.err b.err)"
			# Under ASan, a kill during the leak check at exit leaves
			# its tracer's "==PID== Unable to get registers": only a
			# killed run's stderr is excused that line.
			if ((st == 137)); then
				grep -v '^==[0-9]*==' "$n.err" > "$n.kept" || true
				mv "$n.kept" "$n.err"
			fi
		done
		grep -hv -e 'in use by another fwin (pid [0-9]*)$' a.err b.err > other.err || true
		[[ ! -s other.err ]] || fail "said: $(cat other.err)"
	done
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv --flush in.csv
	cmp out.csv ref.csv
}

@test "one writer: --inspect takes no lock and reads whole checkpoints while they are replaced" {
	"$GEN" 3 3000 30 > full.csv
	start_holder "${ARGS[@]}" --checkpoint s.ckpt --checkpoint-every 1 -o out.csv
	wait_until 10 holds_lock s.ckpt "$BG_PID"
	wait_until 10 test -e s.ckpt
	for ((part = 0; part < 30; part++)); do
		sed -n "$((part * 100 + 1)),$((part * 100 + 100))p" full.csv >&5
		run --separate-stderr fwin --inspect s.ckpt
		assert_success
		assert_equal "$stderr" ""
		assert_line --regexp '^checksum         ok '
	done
	end_holder
	assert_equal "$status" 0
	assert_equal "$(inspect_value records s.ckpt | sed 's/ read,.*//')" 3000
}

# ------------------------------------------------------ temporary files

@test "temporary files: a link planted at the old fixed name or a leftover's is not followed" {
	printf '1,a,1\n2,b,2\n' > in.csv
	fwin "${ARGS[@]}" --state s.ckpt in.csv
	echo precious > victim
	ln -s victim s.ckpt.tmp
	ln -s victim .s.ckpt.tmp.999999999.0badf00d
	printf '3,a,1\n' >> in.csv
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt in.csv
	assert_success
	assert_equal "$(cat victim)" precious
	# the leftover's name (its writer is gone) is removed, not its target
	[ ! -L .s.ckpt.tmp.999999999.0badf00d ]
	[ -L s.ckpt.tmp ]
	run --separate-stderr fwin --inspect s.ckpt
	assert_success
}

@test "temporary files: one left by a killed save is removed by the next save; a live writer's is kept" {
	printf '1,a,1\n2,b,2\n' > in.csv
	fwin "${ARGS[@]}" --state s.ckpt in.csv
	# a writer that is gone (a pid that is not running), and one that runs
	sleep 100 & live=$!
	dead=$(sh -c 'echo $$')
	: > ".s.ckpt.tmp.$dead.12345678"
	: > ".s.ckpt.tmp.$live.12345678"
	: > ".other.ckpt.tmp.$dead.12345678"
	printf '3,a,1\n' >> in.csv
	fwin "${ARGS[@]}" --state s.ckpt in.csv
	kill "$live"
	[ ! -e ".s.ckpt.tmp.$dead.12345678" ]
	[ -e ".s.ckpt.tmp.$live.12345678" ]
	[ -e ".other.ckpt.tmp.$dead.12345678" ]
	# and no save of its own is left behind
	run compgen -G '.s.ckpt.tmp.*'
	assert_output ".s.ckpt.tmp.$live.12345678"
}

@test "modes: a new checkpoint is 0666 & ~umask; a replaced one keeps its mode (0600) and owner" {
	printf '1,a,1\n2,b,2\n' > in.csv
	(umask 027 && "$FWIN" "${ARGS[@]}" --state s.ckpt in.csv)
	assert_equal "$(stat -c %a s.ckpt)" 640
	chmod 600 s.ckpt
	for t in 3 4 5; do
		printf '%s,a,1\n' "$t" >> in.csv
		(umask 0 && "$FWIN" "${ARGS[@]}" --state s.ckpt in.csv)
		assert_equal "$(stat -c %a s.ckpt)" 600
	done
	# root keeps the owner too
	if [[ $(id -u) == 0 ]] && id nobody >/dev/null 2>&1; then
		chown nobody s.ckpt
		printf '6,a,1\n' >> in.csv
		fwin "${ARGS[@]}" --state s.ckpt in.csv
		assert_equal "$(stat -c %U:%a s.ckpt)" nobody:600
	fi
}

# ------------------------------------------------------- input identity

# rotate_run FILE: a cron run over FILE; stderr in $stderr.
cron_run() {
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv "$@"
	assert_success
}

@test "input identity: copytruncate, then growth past the old position: the new lines are read, with a warning" {
	"$GEN" 4 6000 10 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	sed -n '1,2800p' full.csv > app.log
	cron_run app.log
	assert_equal "$stderr" ""
	ino=$(stat -c %i app.log)
	# logrotate's copytruncate, then the application writes on: more
	# bytes than the checkpoint's position, in the same inode
	cp app.log app.log.1
	: > app.log
	sed -n '2801,$p' full.csv >> app.log
	assert_equal "$(stat -c %i app.log)" "$ino"
	(($(stat -c %s app.log) > $(stat -c %s app.log.1)))
	cron_run --flush app.log
	assert_equal "$stderr" "fwin: app.log: not the file of the checkpoint (the same inode, but its first bytes differ: copy-truncated and written again, or recreated); reading it from the start"
	cmp out.csv ref.csv
}

@test "input identity: rename and recreate, the old inode freed and reused: nothing skipped" {
	"$GEN" 5 7000 10 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	sed -n '1,3000p' full.csv > app.log
	cron_run app.log
	ino=$(stat -c %i app.log)
	# rotated away (and read to its end by a run given both), then
	# removed; the new file may get the freed inode
	mv app.log app.log.1
	cron_run app.log.1
	rm app.log.1
	# the new file gets the freed inode (files that get a lower free one
	# first are set aside)
	for ((t = 0; t < 50; t++)); do
		sed -n '3001,$p' full.csv > app.log
		[[ $(stat -c %i app.log) == "$ino" ]] && break
		mv app.log "aside.$t"
	done
	[[ $(stat -c %i app.log) == "$ino" ]] || skip "this file system gave the freed inode to no new file"
	(($(stat -c %s app.log) > $(($(sed -n '1,3000p' full.csv | wc -c)))))
	cron_run --flush app.log
	assert_equal "$stderr" "fwin: app.log: not the file of the checkpoint (the same inode, but its first bytes differ: copy-truncated and written again, or recreated); reading it from the start"
	cmp out.csv ref.csv
}

@test "input identity: the same first bytes, rewritten before the position: read from the start" {
	"$GEN" 6 4000 10 > full.csv
	sed -n '1,3000p' full.csv > app.log
	cron_run app.log
	# in place (same inode), the first 1000 lines kept, the rest new
	{ sed -n '1,1000p' full.csv; sed -n '3001,$p' full.csv; sed -n '1001,3000p' full.csv | sed 's/,k/,z/'; } > new.log
	cat new.log > app.log
	cron_run app.log
	# the rewritten lines come after later ones: some are late
	assert_equal "$(grep -v '^fwin: [0-9]* late records* dropped (the latest by ' <<<"$stderr")" \
	    "fwin: app.log: not the file of the checkpoint (its bytes before the checkpoint position differ: rewritten); reading it from the start"
	assert_equal "$(inspect_value records s.ckpt | sed 's/ read,.*//')" $((3000 + 4000))
}

@test "input identity: a rotated file given before the log, then the log alone, then both again: each line read once" {
	"$GEN" 8 6000 10 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	sed -n '1,1500p' full.csv > app.log
	cron_run app.log
	assert_equal "$stderr" ""
	# renamed and created again: the lines written before the rotation
	# are read from the rotated file, given first (the checkpoint's
	# FILE 1, by its inode)
	sed -n '1501,2000p' full.csv >> app.log
	mv app.log app.log.1
	sed -n '2001,3000p' full.csv > app.log
	cron_run app.log.1 app.log
	assert_equal "$stderr" ""
	# the log alone: it resumes as the checkpoint's FILE 2
	sed -n '3001,3500p' full.csv >> app.log
	cron_run app.log
	assert_equal "$stderr" ""
	# copy-truncated: the copy is the checkpoint's file by its content
	sed -n '3501,4000p' full.csv >> app.log
	cp app.log app.log.1
	: > app.log
	sed -n '4001,5000p' full.csv >> app.log
	cron_run app.log.1 app.log
	assert_equal "$stderr" ""
	sed -n '5001,$p' full.csv >> app.log
	cron_run --flush app.log.1 app.log
	assert_equal "$stderr" ""
	cmp out.csv ref.csv
}

@test "input identity: a FILE is known whatever path reaches it: ./app.log.1, \$PWD/app.log, app.log" {
	"$GEN" 8 6000 10 > full.csv
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	sed -n '1,1500p' full.csv > app.log
	cron_run "$PWD/app.log"
	# copy-truncated, the copy named another way than the log was
	sed -n '1501,3000p' full.csv >> app.log
	cp app.log app.log.1
	: > app.log
	sed -n '3001,4000p' full.csv >> app.log
	cron_run ./app.log.1 app.log
	assert_equal "$stderr" ""
	sed -n '4001,$p' full.csv >> app.log
	cron_run --flush "$PWD/app.log"
	assert_equal "$stderr" ""
	cmp out.csv ref.csv
}

@test "input identity: --inspect shows the fingerprints" {
	printf '1,a,1\n2,b,2\n' > in.csv
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	h=$(printf '1,a,1\n2,b,2\n' | xxhsum -H1 2>/dev/null | cut -d' ' -f1) || true
	run fwin --inspect s.ckpt
	assert_line --regexp '^fingerprint 1    XXH3-64 [0-9a-f]{16} of its first bytes, [0-9a-f]{16} of those before its position$'
	assert_line --regexp '^output hash      XXH3-64 [0-9a-f]{16} of the bytes before it$'
	if [[ -n $h ]]; then
		assert_line --partial "XXH3-64 $h of its first bytes"
	fi
}

# ------------------------------------------------------- standard input

@test "standard input: a tail-like restart says how much it skips, and warns when the input ends first" {
	"$GEN" 7 3000 10 > full.csv
	head -n 2000 full.csv > app.log
	tail -n +1 app.log | fwin "${ARGS[@]}" --state s.ckpt -o out.csv
	n=$(wc -c < app.log)
	sed -n '2001,$p' full.csv >> app.log
	# restarted the way tail -F restarts: only the last lines come again
	run --separate-stderr bash -c 'tail -n 10 app.log | "$0" "$@"' "$FWIN" "${ARGS[@]}" --state s.ckpt -o out.csv
	assert_success
	assert_equal "$stderr" "fwin: skipping $n bytes of standard input already processed (--new-input reads it all)
fwin: -: ended before its checkpoint position ($(tail -n 10 app.log | wc -c) of $n bytes skipped)"
	# replayed whole (tail -n +1 -F), nothing is lost or doubled
	fwin "${ARGS[@]}" --flush -o ref.csv full.csv
	head -n 2000 full.csv > app.log
	rm s.ckpt out.csv
	tail -n +1 app.log | fwin "${ARGS[@]}" --state s.ckpt -o out.csv
	sed -n '2001,$p' full.csv >> app.log
	run --separate-stderr bash -c 'tail -n +1 app.log | "$0" "$@"' "$FWIN" "${ARGS[@]}" --state s.ckpt -o out.csv --flush
	assert_success
	assert_equal "$stderr" "fwin: skipping $n bytes of standard input already processed (--new-input reads it all)"
	cmp out.csv ref.csv
}

# ------------------------------------------------------ output ownership

@test "output ownership: a second pipeline on the same -o is refused, nothing written" {
	printf '1,a,1\n2,b,2\n7200,a,1\n' > in.csv
	fwin "${ARGS[@]}" --state a.ckpt -o out.csv in.csv
	cp out.csv out.before
	run --separate-stderr fwin "${ARGS[@]}" --state b.ckpt -o out.csv --flush in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv belongs to the checkpoint a.ckpt"
	assert_output ""
	cmp out.csv out.before
	[ ! -e b.ckpt ]
	# its owner's state saved elsewhere takes the file along
	run --separate-stderr fwin "${ARGS[@]}" --restore a.ckpt --checkpoint c.ckpt -o out.csv in.csv
	assert_success
	run --separate-stderr fwin "${ARGS[@]}" --state a.ckpt -o out.csv in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv belongs to the checkpoint c.ckpt"
	# from another directory the owner is named by its full path
	mkdir sub
	run --separate-stderr bash -c 'cd sub && "$0" "$@"' "$FWIN" "${ARGS[@]}" --state b.ckpt -o ../out.csv ../in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: ../out.csv belongs to the checkpoint $PWD/c.ckpt"
	# an owner whose checkpoint is gone has given the file up
	rm c.ckpt
	run --separate-stderr fwin "${ARGS[@]}" --state b.ckpt -o out.csv in.csv
	assert_success
}

@test "output ownership: restore refuses to truncate an -o file replaced or rewritten since" {
	"$GEN" 8 3000 10 > full.csv
	head -n 1500 full.csv > in.csv
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	len=$(wc -c < out.csv)
	# rows appended after the checkpoint are cut (a killed run's, which
	# left its lock: its pid, the owner, no mark of an end)
	printf 'after,the,checkpoint\n' >> out.csv
	printf '%s\n%s\n' 99999999 "$(pwd -P)/s.ckpt" > out.csv.lock
	cp s.ckpt s.orig
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	assert_equal "$(wc -c < out.csv)" "$len"
	# another writer's file of the same name: not cut
	cp s.orig s.ckpt
	{ sed 's/^/x/' out.csv; echo more; } > other
	mv other out.csv
	cp out.csv out.before
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv: not the file that s.ckpt was saved with (its bytes before length $len differ: replaced or rewritten since); not truncating it"
	cmp out.csv out.before
	cmp s.ckpt s.orig
}

# ------------------------------------------------------ unfinished records

@test "unfinished record: a last line without its newline is left for the next run, which says so" {
	printf '1,a,1\n2,b,2\n3,a' > in.csv
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt in.csv
	assert_success
	assert_equal "$stderr" "fwin: in.csv:3: unfinished record of 3 bytes left for the next run"
	printf ',5\n' >> in.csv
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt --flush in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output $'0,3600,a,2,6\n0,3600,b,1,2'
}

# -------------------------------------------------------- stray quotes

# stray_csv N L: N records "T,kK,1", T = 1..N, line L with a stray quote
stray_csv() {
	awk -v n="$1" -v l="$2" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf i == l ? "%d,\"k%d,1\n" : "%d,k%d,1\n", i, i % 7
	}'
}

@test "stray quote: one bad record in a 100,000-line CSV, 99,999 good" {
	stray_csv 100000 50 > in.csv
	(($(stat -c %s in.csv) > 1048576))
	run --separate-stderr fwin --csv -t 1 --tumble 1000d --count in.csv
	assert_success
	assert_equal "$stderr" $'fwin: in.csv:50: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
	assert_output "0,86400000,99999"
	# near the end: open at the end of input
	stray_csv 100000 99990 > in.csv
	run --separate-stderr fwin --csv -t 1 --tumble 1000d --count in.csv
	assert_equal "$stderr" $'fwin: in.csv:99990: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
	assert_output "0,86400000,99999"
}

@test "stray quote: on a growing file with --state it holds the runs only until 1 MiB has passed" {
	stray_csv 120000 2000 > full.csv
	: > in.csv
	prev=0
	for upto in 1000 2005 40000 120000; do
		sed -n "$((prev + 1)),${upto}p" full.csv >> in.csv
		prev=$upto
		run --separate-stderr fwin --csv -t 1 --tumble 1000d --count --state s.ckpt in.csv
		assert_success
		case $upto in
		2005 | 40000)	# the open quote is held, and said so
			assert_regex "$stderr" '^fwin: in\.csv:2000: unfinished record of [0-9]+ bytes left for the next run$' ;;
		120000)		# past 1 MiB: one bad record, the rest read
			assert_equal "$stderr" $'fwin: in.csv:2000: unterminated quoted field; record skipped\nfwin: 1 bad record skipped' ;;
		*)
			assert_equal "$stderr" "" ;;
		esac
	done
	run --separate-stderr fwin --csv -t 1 --tumble 1000d --count --state s.ckpt --flush in.csv
	assert_output "0,86400000,119999"
}

# ---------------------------------------------------- sparse checkpoints

@test "sparse checkpoint: a header claiming 4 GiB over holes is refused by --inspect and restore, reading none of them" {
	printf '1,a,1\n2,b,2\n' > in.csv
	fwin "${ARGS[@]}" --checkpoint real.ckpt in.csv
	hdrlen=$(od -An -tu4 -j12 -N4 real.ckpt | tr -d ' ')
	cp real.ckpt big.ckpt
	# paylen (u64 at 32) and mapcap (u64 at 40): 4 GiB, and the file
	# made that long with a hole
	big=$((4 << 30))
	for off in 32 40; do
		printf "$(printf '\\%03o' $((big & 255)) $((big >> 8 & 255)) $((big >> 16 & 255)) $((big >> 24 & 255)) $((big >> 32 & 255)) 0 0 0)" |
			dd of=big.ckpt bs=1 seek=$off conv=notrunc status=none
	done
	truncate -s $((hdrlen + big)) big.ckpt
	(($(du -k big.ckpt | cut -f1) < 10240))
	want="fwin: big.ckpt: checksum mismatch: the file is damaged (sparse: "
	run --separate-stderr fwin --inspect big.ckpt
	assert_failure 1
	assert_regex "$stderr" "^fwin: big\\.ckpt: checksum mismatch: the file is damaged \\(sparse: [0-9]+ of its $big bytes of state are holes\\)\$"
	run --separate-stderr fwin "${ARGS[@]}" --restore big.ckpt in.csv
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" "^fwin: big\\.ckpt: checksum mismatch: the file is damaged \\(sparse: "
	# still all holes: nothing was written into it
	(($(du -k big.ckpt | cut -f1) < 10240))
	# one cut short of what its header claims is refused before any read
	truncate -s $((hdrlen + 8192)) big.ckpt
	run --separate-stderr fwin --inspect big.ckpt
	assert_failure 1
	assert_equal "$stderr" "fwin: big.ckpt: truncated or extended: the length does not match the header"
}
