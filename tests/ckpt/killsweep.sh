#!/bin/bash
# killsweep.sh SEED KILLS INPUT -- ARGS...
#
# The kill -9 harness of tests/crash.bats. In the current directory:
#
#  1. ref.out: one uninterrupted run, "$FWIN ARGS --flush -o ref.out INPUT"
#     (no checkpoint); and T, the time a run with checkpoints takes over
#     INPUT, less S (below);
#  2. again and again "$FWIN ARGS --state s.ckpt --checkpoint-every E -o out
#     INPUT" in the background, each killed with SIGKILL after a delay,
#     until KILLS kills have landed on a running fwin; E is drawn from EVERY
#     (counts or durations; "1" keeps a save going all the time, so that
#     kills land in the middle of writes) and the delay from S to S + 1.6 T
#     / KILLS, where S is the time fwin takes to start and end on no input,
#     or, one in five, from 0 to S, to hit the start and the restore; all
#     drawn from SEED by scripts/gen, so a sweep is the same but for timing;
#  3. a last run with --flush, not killed;
#  4. out must be byte-identical to ref.out (and out.late to ref.late with
#     LATE=1, which adds --late-file to every run).
#
# When a run gets to the end of its input before its kill, the round ends
# there (3 and 4), and a new round starts from nothing with delays half as
# long, until KILLS kills have landed in all (at most 10 rounds).
#
# SQLITE=1 writes with -o sqlite:ref.db and -o sqlite:out.db instead, and
# compares the two tables (fwin(1): -o sqlite:), read back with sqlite3(1).
#
# PIPE=1 feeds INPUT through a pipe (cat INPUT | fwin) instead of naming
# it. Every run that is not killed must exit 0 with an empty stderr, and a
# killed one must have said nothing. DEBUG=1 logs each run and the
# checkpoint it left to sweep.log.
#
# Prints one line, "kills K in R rounds (M during a save, E in the first
# 15 ms), N runs, records read before the last run of each round: X of Y,
# T t ms, S s ms", and exits 0; or says what went wrong, exits 1.
set -u
FWIN=${FWIN:?FWIN is the binary under test}
EVERY=${EVERY:-1 7 500 500 2000 20ms}
seed=$1 kills=$2 input=$3
shift 3
[[ ${1:-} == -- ]] && shift
args=("$@")

die() {
	echo "killsweep: $*" >&2
	exit 1
}

late_ref=() late_out=()
if [[ ${LATE:-0} == 1 ]]; then
	late_ref=(--late-file ref.late)
	late_out=(--late-file out.late)
fi

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# run_fwin ARGS...: fwin in the background, its input INPUT named or piped;
# sets pid.
run_fwin() {
	if [[ ${PIPE:-0} == 1 ]]; then
		"$FWIN" "$@" < <(cat "$input") 3>&- &
	else
		"$FWIN" "$@" "$input" 3>&- &
	fi
	pid=$!
}

# wait_fwin: waits for it (quietly: no "Killed" line); sets st.
wait_fwin() {
	st=0
	wait "$pid" 2>/dev/null || st=$?
	wait 2>/dev/null	# the cat of a pipe
}

ref=ref.out out=out tout=t.out
if [[ ${SQLITE:-0} == 1 ]]; then
	ref=sqlite:ref.db out=sqlite:out.db tout=sqlite:t.out
fi
# same FILE FILE: whether the two outputs hold the same rows
same() {
	if [[ ${SQLITE:-0} == 1 ]]; then
		cmp <(sqlite3 ref.db '.dump fwin' | sort) <(sqlite3 out.db '.dump fwin' | sort) >/dev/null
	else
		cmp ref.out out >/dev/null
	fi
}

rm -f ref.out ref.late out out.late s.ckpt .s.ckpt.tmp.* t.ckpt t.out err.* sweep.log ref.db out.db*
"$FWIN" "${args[@]}" --flush -o "$ref" "${late_ref[@]}" "$input" 2>err.ref ||
	die "the reference run failed: $(head -c 500 err.ref)"
# the exit summary of late records the shuffled data holds is not news
unlate() { sed -i '/^fwin: [0-9]* late records* dropped (the latest by /d' "$@"; }
unlate err.ref
[[ -s err.ref ]] && die "the reference run said: $(head -c 500 err.ref)"
[[ -s ref.out || -s ref.db ]] || die "the reference run wrote nothing"

t0=$(now_ms)
"$FWIN" "${args[@]}" --checkpoint t.ckpt --checkpoint-every 500 -o "$tout" "$input" 2>/dev/null ||
	die "the timing run failed"
t_ms=$(($(now_ms) - t0))
rm -f t.ckpt t.out t.out.lock
# S, the time to start and end on no input (more under the sanitizers):
# the least of three, the machine may be busy
: > empty
s_ms=
for _ in 1 2 3; do
	rm -f t.ckpt t.out t.out.lock
	t0=$(now_ms)
	"$FWIN" "${args[@]}" --checkpoint t.ckpt -o "$tout" empty 2>/dev/null ||
		die "the run on no input failed"
	t1=$(($(now_ms) - t0))
	[[ -z $s_ms ]] || ((t1 < s_ms)) && s_ms=$t1
done
rm -f t.ckpt t.out t.out.lock empty
t_ms=$((t_ms - s_ms))
((t_ms < 20)) && t_ms=20

# the draws, each "EVERY DELAY_US" (the delay of the first round)
mapfile -t draws < <("$(dirname "$0")/../../scripts/gen" -n $((kills * 12 + 50)) \
	--uniform 3 --seed "$seed" | awk -v every="$EVERY" -v span="$t_ms" \
	-v start="$s_ms" -v kills="$kills" 'BEGIN { ne = split(every, ev, " ") } {
	e = ev[int($1 * ne) + 1]
	if ($2 < 0.2)
		d = $3 * start * 1000
	else
		d = start * 1000 + $3 * 1.6 * span * 1000 / kills
	printf "%s %d\n", e, d
}')

# tmp_left: a save's temporary file is there that was not before the run
# (its save was cut short; the next save removes it)
tmp_left() {
	local f
	for f in .s.ckpt.tmp.*; do
		[[ -e $f && " $tmp_before " != *" $f "* ]] && return 0
	done
	return 1
}

# said FILE: what a run said in FILE, but for the note of a restore from
# a pipe that the bytes processed before are skipped
said() {
	grep -v -e '^fwin: skipping [0-9]* bytes of standard input already processed (--new-input reads it all)$' \
	    -e '^fwin: [0-9]* late records* dropped (the latest by ' "$1" || true
}

total=0 midsave=0 early=0 runs=0 i=0 round=0 reached=
while ((total < kills)); do
	round=$((round + 1))
	((round <= 10)) || die "only $total kills landed in 10 rounds"
	rm -f out out.late s.ckpt .s.ckpt.tmp.* out.db*
	while ((total < kills)); do
		((i < ${#draws[@]})) || die "out of draws after $runs runs, $total kills"
		read -r every delay_us <<<"${draws[i]}"
		i=$((i + 1))
		delay_us=$((delay_us >> (round - 1)))
		runs=$((runs + 1))
		tmp_before=$(echo .s.ckpt.tmp.*)
		run_fwin "${args[@]}" --state s.ckpt --checkpoint-every "$every" -o "$out" \
			"${late_out[@]}" 2>"err.$runs"
		started=$(now_ms)
		sleep "$(printf '%d.%06d' $((delay_us / 1000000)) $((delay_us % 1000000)))"
		kill -KILL "$pid" 2>/dev/null
		wait_fwin
		if [[ ${DEBUG:-0} == 1 ]]; then
			echo "round $round run $runs every $every delay ${delay_us}us status $st" \
				"tmp $(tmp_left && echo yes || echo no) out $(stat -c %s out 2>/dev/null)" >>sweep.log
			"$FWIN" --inspect s.ckpt 2>&1 | grep -E '^(generation|records|input|output)' >>sweep.log
		fi
		if ((st == 137)); then
			total=$((total + 1))
			# a save was being written: its temporary file is left
			tmp_left && midsave=$((midsave + 1))
			(($(now_ms) - started < 15)) && early=$((early + 1))
			# a killed run can only have been cut short: no message
			if [[ -n $(said "err.$runs") ]]; then
				die "run $runs (killed) said: $(head -c 1000 "err.$runs")"
			fi
		elif ((st == 0)); then
			[[ -n $(said "err.$runs") ]] && die "run $runs said: $(head -c 1000 "err.$runs")"
			# at the end of the input before its kill: the round ends
			break
		else
			die "run $runs (checkpoint-every $every) exited $st: $(head -c 1000 "err.$runs")"
		fi
	done
	# how far the killed runs of the round got
	got=$("$FWIN" --inspect s.ckpt 2>/dev/null | sed -n 's/^records *\([0-9]*\) read.*/\1/p')
	reached="$reached ${got:-0}"
	runs=$((runs + 1))
	run_fwin "${args[@]}" --state s.ckpt --flush -o "$out" "${late_out[@]}" 2>"err.$runs"
	wait_fwin
	((st == 0)) || die "the last run of round $round exited $st: $(head -c 1000 "err.$runs")"
	[[ -n $(said "err.$runs") ]] && die "the last run of round $round said: $(head -c 1000 "err.$runs")"
	tmp_before=
	tmp_left && die "round $round: a killed save's temporary file was not removed: $(echo .s.ckpt.tmp.*)"
	same || die "round $round: $out differs from the uninterrupted run's"

	if [[ ${LATE:-0} == 1 ]]; then
		cmp ref.late out.late >/dev/null ||
			die "round $round: out.late differs from the uninterrupted run's: $(cmp ref.late out.late 2>&1)"
	fi
done
echo "kills $total in $round rounds ($midsave during a save, $early in the first 15 ms)," \
	"$runs runs, records read before the last run of each round:$reached of $(wc -l <"$input")," \
	"T $t_ms ms, S $s_ms ms"
exit 0
