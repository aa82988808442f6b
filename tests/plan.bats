#!/usr/bin/env bats
# The plan (fwin(1): THE PLAN): --explain plan for representative
# pipelines, exact; FWIN_STRATEGY forcing a strategy and refusing one
# that cannot run the pipeline; and a property: for pipelines and inputs
# drawn from a seeded generator, every strategy the plan calls possible
# prints the bytes the chosen one prints (stdout, stderr, exit status).
load common

unset FWIN_STRATEGY FWIN_STRATEGY_SOFT

GENSH=$BATS_TEST_DIRNAME/../scripts/gen

# The reasons that come back in many plans.
SONLY='stream mode only (batch mode takes records in any order, and none is late)'
BONLY='batch mode only (a stream takes records as they come, and drops late ones)'
NOTFILES='the input is not named regular FILEs (should the table give up, they are read again)'
NOTHALVES='the input is not named regular FILEs (the second half is read from a file'"'"'s middle)'
FB_TABLE='fallback: sorted: when the table passes half the memory budget and cannot spill: the FILEs are read again into sorted runs'
FB_STREAMTABLE='fallback: ordered: when the table passes its budget: the FILEs are read again through the window operator, no row written twice'
FB_STRAIGHT='fallback: sorted: at the first record out of time order, or past a quarter of the memory budget: the FILEs are read again, or a pipe'"'"'s records were kept'

# big FILE: records enough (about 330 KB) for the file to be cut in halves,
# over 25 minutes
big() {
	"$GENSH" -n 15000 -k 50 --seed 7 --rate 10 > "$1"
}

@test "explain plan: a stream from a pipe, one thread: the table, with no fallback (the input is read once)" {
	run --separate-stderr bash -c 'printf "1,a\n" | "$FWIN" --explain plan --threads 1 --csv -t 1 -k 2 --tumble 1m --count'
	assert_success
	assert_equal "$stderr" ""
	assert_output "mode: stream (standard input is not a regular file)
strategy: streamtable — each record added as read to its (window, key) group, a window's groups fired as the watermark passes its end
possible: ordered
rejected: keyed: --threads 1: workers need 3 or more (a reading thread and two workers)
rejected: halves: $NOTHALVES
rejected: table: $BONLY
rejected: straight: $BONLY
rejected: sorted: $BONLY
threads: 1
memory: no limit (a stream without --max-memory)"
}

@test "explain plan: a stream from a pipe, four threads: the table, else keyed; --max-memory, --top and --state keep the one operator" {
	run --separate-stderr bash -c 'printf "1,a\n" | "$FWIN" --explain plan --threads 4 --csv -t 1 -k 2 --tumble 1m -l 2s --count'
	assert_success
	assert_output "mode: stream (-l/--lateness is given, which is for streams)
strategy: streamtable — each record added as read to its (window, key) group, a window's groups fired as the watermark passes its end
possible: ordered
possible: keyed
rejected: halves: $NOTHALVES
rejected: table: $BONLY
rejected: straight: $BONLY
rejected: sorted: $BONLY
threads: 4
memory: no limit (a stream without --max-memory)"
	run --separate-stderr bash -c 'printf "1,a\n" | "$FWIN" --explain plan --threads 4 --csv -t 1 -k 2 --slide 1m,10s -l 2s --count'
	assert_success
	assert_line --index 1 --regexp '^strategy: streamtable '
	run --separate-stderr bash -c 'printf "1,a,3\n" | "$FWIN" --explain plan --threads 4 --csv -t 1 -k 2 --slide 1m,10s -l 2s --max 3'
	assert_success
	assert_output "mode: stream (-l/--lateness is given, which is for streams)
strategy: keyed — the keys spread by key group over worker threads, each a window operator of its own; the records read on a thread of their own
possible: ordered
rejected: streamtable: --max: with --slide the table takes the pane that leaves a window back out of a running fold, which counts and exact sums can, and it cannot
rejected: halves: --max: with --slide the table takes the pane that leaves a window back out of a running fold, which counts and exact sums can, and it cannot
rejected: table: $BONLY
rejected: straight: $BONLY
rejected: sorted: $BONLY
threads: 4
memory: no limit (a stream without --max-memory)"
	run --separate-stderr bash -c 'printf "1,a\n" | "$FWIN" --explain plan --threads 4 --max-memory 64M --csv -t 1 -k 2 --tumble 1m --count'
	assert_success
	assert_line --index 1 --regexp '^strategy: ordered '
	assert_line "rejected: keyed: --max-memory: the state it bounds is one operator's"
	assert_line "memory: 64M (--max-memory)"
	run --separate-stderr bash -c 'printf "1,a\n" | "$FWIN" --explain plan --threads 4 --csv -t 1 -k 2 --tumble 1m --count --top 1'
	assert_line "rejected: keyed: --top: a window's rows are ranked across keys"
	printf '1,a\n' > in
	run --separate-stderr fwin --explain plan --threads 4 --state st --csv -t 1 -k 2 --tumble 1m --count in
	assert_success
	assert_line --index 0 "mode: stream (--state is given, which is for streams)"
	assert_line --index 1 --regexp '^strategy: ordered '
	assert_line "rejected: keyed: --checkpoint, --restore or --state: a checkpoint is one operator's state"
	assert_line "rejected: streamtable: --checkpoint, --restore or --state: a checkpoint holds the window operator's state"
	[ ! -e st ]	# nothing run, nothing saved
}

@test "explain plan: batch on a small file: table with one thread and with two (too small for halves)" {
	printf '1,a,3\n2,b,4\n' > in.csv
	run --separate-stderr fwin --explain plan --threads 1 --max-memory 1G --csv -t 1 -k 2 --tumble 1m --count --sum 3 in.csv
	assert_success
	assert_output "mode: batch (every input is a regular file and -t is given)
strategy: table — each record added as read to its (window, key) group, in any order; while no record is a window out of time order, each window fires as the input passes it
$FB_TABLE
possible: straight
possible: sorted
rejected: ordered: $SONLY
rejected: keyed: $SONLY
rejected: streamtable: $SONLY
rejected: halves: --threads 1: the second half needs a thread of its own
threads: 1
memory: 1G (--max-memory)"
	run --separate-stderr fwin --explain plan --threads 2 --csv -t 1 -k 2 --tumble 1m --count --sum 3 in.csv
	assert_success
	assert_line --index 1 --regexp '^strategy: table '
	assert_line "rejected: halves: the input is 12 bytes: less than 256 K is not worth a thread"
	assert_line --regexp '^memory: [0-9]+[KMGT]? ?(bytes)? \(a quarter of physical memory\)$'
}

@test "explain plan: batch on a big file with two and four threads: halves, --distinct too; --first cannot fold two tables" {
	big in.csv
	for n in 2 4; do
		run --separate-stderr fwin --explain plan --threads $n --csv -t 1 -k 2 --tumble 1m --count --sum 3 in.csv
		assert_success
		assert_line --index 0 "mode: batch (every input is a regular file and -t is given)"
		assert_line --index 1 "strategy: halves — the file cut at a line end near its middle, each half read into a (window, key) table on a thread of its own, the two tables fired together"
		assert_line --index 2 "fallback: table: when the second half has anything to say, its table passes its budget, the cut falls in a quoted field, or the first record gives no time format: one table reads it all"
		assert_line --index 3 "$FB_TABLE"
		assert_line --index 4 "possible: table"
		assert_line --index 5 "possible: straight"
		assert_line --index 6 "possible: sorted"
		assert_line "threads: $n"
	done
	run --separate-stderr fwin --explain plan --threads 2 --csv -t 1 -k 2 --tumble 1m --distinct 3 in.csv
	assert_line --index 1 --regexp '^strategy: halves '
	run --separate-stderr fwin --explain plan --threads 2 --mode stream -l 1s --csv -t 1 -k 2 --tumble 1m --first 3 in.csv
	assert_line --index 1 --regexp '^strategy: streamtable '
	assert_line "rejected: halves: --first: its fold names the texts of its table's arena, which two tables do not share"
	run --separate-stderr fwin --explain plan --threads 2 --csv -t 1 -k 2 --tumble 1m --median 3 --approx-distinct 3 in.csv
	assert_line --index 1 --regexp '^strategy: halves '
}

@test "explain plan: a stream of a big file: halves, streamtable, keyed and ordered; a late file keeps one table" {
	big in.csv
	run --separate-stderr fwin --explain plan --threads 4 --csv -t 1 -k 2 --tumble 1m -l 2s --count --sum 3 in.csv
	assert_success
	assert_output "mode: stream (-l/--lateness is given, which is for streams)
strategy: halves — the file cut at a line end near its middle, each half read into a (window, key) table on a thread of its own, the two tables fired together
fallback: streamtable: when the second half has anything to say, its table passes its budget, the cut falls in a quoted field, the first half's times reach windows the second fired, or the first record gives no time format: one table reads it all
$FB_STREAMTABLE
possible: ordered
possible: keyed
possible: streamtable
rejected: table: $BONLY
rejected: straight: $BONLY
rejected: sorted: $BONLY
threads: 4
memory: no limit (a stream without --max-memory)"
	run --separate-stderr fwin --explain plan --threads 2 --late-file late --csv -t 1 -k 2 --tumble 1m --count in.csv
	assert_line --index 1 --regexp '^strategy: streamtable '
	assert_line "rejected: keyed: --threads 2: workers need 3 or more (a reading thread and two workers)"
	assert_line "rejected: halves: --late-file: the second half's late records would be written after the first half's"
	[ ! -e late ]
}

@test "explain plan: what the table cannot take: sessions, count windows, --first, --fill, --cumulate with --median" {
	printf '1,a,3\n' > in.csv
	run --separate-stderr fwin --explain plan --threads 1 --csv -t 1 -k 2 --session 1m --count in.csv
	assert_line --index 1 "strategy: straight — one pass through the window operator while the records come in time order, the rows held until the end shows they did; at the first record out of order, sorted"
	assert_line --index 2 "$FB_STRAIGHT"
	assert_line --index 3 "possible: sorted"
	assert_line "rejected: table: --session windows: the table holds tumbling windows only"
	run --separate-stderr fwin --explain plan --threads 1 --csv -t 1 -k 2 --count-window 10 --count in.csv
	assert_line "rejected: table: --count-window windows: the table holds tumbling windows only"
	run --separate-stderr fwin --explain plan --threads 1 --csv -t 1 -k 2 --tumble 1m --first 3 in.csv
	assert_line "rejected: table: --first: its result depends on the order of the records"
	run --separate-stderr fwin --explain plan --threads 1 --csv -t 1 -k 2 --tumble 1m --fill --count in.csv
	assert_line "rejected: table: --fill: empty windows fire too"
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --cumulate 1m,10s --first 3 in.csv
	assert_line --index 1 --regexp '^strategy: streamtable '
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --cumulate 1m,10s --median 3 in.csv
	assert_line --index 1 --regexp '^strategy: ordered '
	assert_line "rejected: streamtable: --median: with --cumulate the table keeps a running fold per key, and its fold is no block the table can keep"
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --cumulate 1m,10s --stddev 3 in.csv
	assert_line --index 1 --regexp '^strategy: streamtable '
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --slide 1m,10s --count in.csv
	assert_line --index 1 --regexp '^strategy: streamtable '
	run --separate-stderr fwin --explain plan --threads 2 --mode stream --csv -t 1 -k 2 --slide 1m,10s --count in.csv
	assert_line --index 1 --regexp '^strategy: streamtable '
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --slide 1m,25s --count in.csv
	assert_line "rejected: streamtable: --slide: the table holds slides whose STEP divides their SIZE, in units of fixed length"
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --slide 7d,1d --tz Europe/Berlin --count in.csv
	assert_line "rejected: streamtable: --slide: the table holds slides whose STEP divides their SIZE, in units of fixed length"
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 -k 2 --slide 1m,10s --median 3 in.csv
	assert_line "rejected: streamtable: --median: with --slide the table takes the pane that leaves a window back out of a running fold, which counts and exact sums can, and it cannot"
	run --separate-stderr fwin --explain plan --threads 1 --mode batch --csv -t 1 -k 2 --slide 1m,10s --count in.csv
	assert_line "rejected: table: --slide windows: the table holds tumbling windows only"
}

@test "explain plan: modes and their reasons; processing time; count windows take workers" {
	printf '1,a,3\n' > in.csv
	run --separate-stderr fwin --explain plan --threads 4 --csv -k 2 --tumble 1m --count in.csv
	assert_line --index 0 "mode: stream (no -t: windows in processing time)"
	assert_line "rejected: keyed: no -t: the clock moves the watermark"
	assert_line "rejected: streamtable: no -t: windows in processing time"
	run --separate-stderr fwin --explain plan --threads 4 --csv -k 2 --count-window 5 --count in.csv
	assert_line --index 1 --regexp '^strategy: keyed '
	run --separate-stderr fwin --explain plan --threads 1 --mode stream --csv -t 1 --tumble 1m --count in.csv
	assert_line --index 0 "mode: stream (--mode stream)"
	assert_line --index 1 --regexp '^strategy: streamtable '
	run --separate-stderr bash -c 'printf "1,a\n" | "$FWIN" --explain plan --mode batch --threads 1 --csv -t 1 --tumble 1m --count'
	assert_line --index 0 "mode: batch (--mode batch)"
	assert_line --index 1 --regexp '^strategy: straight '
	assert_line "rejected: table: $NOTFILES"
	mkfifo fifo
	# nothing is read: a FIFO no one writes to does not hold it up
	run --separate-stderr timeout 10 "$FWIN" --explain plan --threads 1 --csv -t 1 --tumble 1m --count fifo
	assert_success
	assert_line --index 0 "mode: stream (fifo is not a regular file)"
	run --separate-stderr fwin --explain plans --tumble 1m in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --explain: unknown explanation 'plans' (flink-sql or plan)
Try 'fwin --help' for more information."
}

@test "--stats: K counts keys held at once by the operator, each window's key apart in a table of groups (K is F)" {
	printf '10 a\n20 a\n30 a\n' > in
	FWIN_STRATEGY=ordered run --separate-stderr fwin -t 1 -k 2 --tumble 10s --mode stream --stats in
	assert_success
	assert_regex "$stderr" '^fwin: stats: records 3, bad 0, late 0, in no window 0, windows fired 3, open windows 0, keys 1, .*, mode stream$'
	FWIN_STRATEGY=streamtable run --separate-stderr fwin -t 1 -k 2 --tumble 10s --mode stream --stats in
	assert_success
	assert_regex "$stderr" '^fwin: stats: records 3, bad 0, late 0, in no window 0, windows fired 3, open windows 0, keys 3, .*, mode stream, aggregated as read$'
}

@test "FWIN_STRATEGY: forces a strategy that can run the pipeline, the same bytes; --stats says how it ran" {
	# out of time order by up to 2 s: within a window for the table,
	# not for the operator
	"$GENSH" -n 3000 -k 20 --seed 3 --disorder 2000 > in.csv
	run --separate-stderr fwin --threads 1 --stats --csv -t 1 -k 2 --tumble 10s --count --sum 3 in.csv
	assert_success
	printf '%s\n' "$output" > want
	assert_regex "$stderr" ', mode batch, in time order$'
	for s in table straight sorted; do
		FWIN_STRATEGY=$s run --separate-stderr fwin --threads 1 --stats --csv -t 1 -k 2 --tumble 10s --count --sum 3 in.csv
		assert_success
		cmp want <(printf '%s\n' "$output")
		case $s in
		table) assert_regex "$stderr" ', mode batch, in time order$' ;;
		*) assert_regex "$stderr" ', mode batch$' ;;	# (straight fell back)
		esac
	done
	FWIN_STRATEGY=sorted run --separate-stderr fwin --explain plan --threads 1 --csv -t 1 -k 2 --tumble 10s --count in.csv
	assert_line --index 1 'strategy: sorted — the records sorted by time in runs (spilled to $TMPDIR past the memory budget), merged and replayed through the window operator (FWIN_STRATEGY)'
	assert_line --index 2 'possible: table'	# (sorted falls back to nothing)
	FWIN_STRATEGY=keyed run --separate-stderr fwin --threads 4 --stats --mode stream -l 3s --csv -t 1 -k 2 --tumble 10s --count --sum 3 in.csv
	assert_success
	cmp want <(printf '%s\n' "$output")
	assert_regex "$stderr" ', mode stream, keys over workers$'
	FWIN_STRATEGY=ordered run --separate-stderr fwin --threads 4 --stats --mode stream -l 3s --csv -t 1 -k 2 --tumble 10s --count --sum 3 in.csv
	cmp want <(printf '%s\n' "$output")
	assert_regex "$stderr" ', mode stream$'
	# a stream of a file big enough for halves to stand (they fall back
	# to one table where the second half's windows reach back into the
	# first's): the table in halves, in one piece, or the operator
	"$GENSH" -n 200000 -k 50 --seed 9 > big.csv
	run --separate-stderr fwin --threads 2 --stats -l 3s --csv -t 1 -k 2 --tumble 10s --count --sum 3 big.csv
	assert_success
	printf '%s\n' "$output" > want
	assert_regex "$stderr" ', mode stream, aggregated as read, in two halves$'
	for s in halves streamtable ordered; do
		FWIN_STRATEGY=$s run --separate-stderr fwin --threads 2 --stats -l 3s --csv -t 1 -k 2 --tumble 10s --count --sum 3 big.csv
		assert_success
		cmp want <(printf '%s\n' "$output")
		case $s in
		halves) assert_regex "$stderr" ', mode stream, aggregated as read, in two halves$' ;;
		streamtable) assert_regex "$stderr" ', mode stream, aggregated as read$' ;;
		ordered) assert_regex "$stderr" ', mode stream$' ;;
		esac
	done
}

@test "FWIN_STRATEGY: one that cannot run the pipeline is a usage error saying why; an unknown name lists the names; FWIN_STRATEGY_SOFT plans as usual" {
	printf '1,a,3\n' > in.csv
	FWIN_STRATEGY=table run --separate-stderr fwin --csv -t 1 -k 2 --session 1m --count in.csv
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: FWIN_STRATEGY=table cannot run this pipeline: --session windows: the table holds tumbling windows only
Try 'fwin --help' for more information."
	FWIN_STRATEGY=keyed run --separate-stderr fwin --threads 2 --csv -t 1 -k 2 --tumble 1m --count in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: FWIN_STRATEGY=keyed cannot run this pipeline: stream mode only (batch mode takes records in any order, and none is late)
Try 'fwin --help' for more information."
	FWIN_STRATEGY=fast run --separate-stderr fwin --csv -t 1 --tumble 1m in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: FWIN_STRATEGY: unknown strategy 'fast' (ordered, keyed, streamtable, halves, table, straight or sorted)
Try 'fwin --help' for more information."
	FWIN_STRATEGY=table FWIN_STRATEGY_SOFT=1 run --separate-stderr fwin --explain plan --threads 1 --csv -t 1 -k 2 --session 1m --count in.csv
	assert_success
	assert_line --index 1 --regexp '^strategy: straight — .*sorted$'
	FWIN_STRATEGY=table FWIN_STRATEGY_SOFT=1 run --separate-stderr fwin --threads 1 --csv -t 1 -k 2 --session 1m --count in.csv
	assert_success
	assert_output "1,61,a,1"
	# (an empty FWIN_STRATEGY forces nothing)
	FWIN_STRATEGY= run --separate-stderr fwin --threads 1 --csv -t 1 -k 2 --session 1m --count in.csv
	assert_success
}

# --- the property: every possible strategy prints the same bytes ---

# A linear congruential generator, so that a seed gives the same cases
# on any bash: rnd N sets R to a number in [0, N).
rnd() {
	S=$(( (S * 1103515245 + 12345) & 0x7fffffff ))
	R=$(( (S >> 8) % $1 ))
}

WINDOWS=("--tumble 1m" "--tumble 10s" "--tumble 2s" "--slide 1m,20s"
	"--session 3s" "--count-window 50" "--cumulate 1m,20s" "--global"
	"--tumble 1s --fill" "--tumble 10s --top 2")
AGGS=("--count" "--sum 3" "--avg 3" "--min 3" "--max 3" "--first 3"
	"--last 3" "--distinct 3" "--median 3" "--approx-distinct 3"
	"--max-by 3:2" "--stddev 3")
MODES=("" "" "--mode stream" "--mode stream -l 2s" "--mode batch")

# draw SEED: a pipeline (ARGS), an input (the file in, or a pipe when
# PIPE=1: INPUT 0 in time order, 1 out of it by up to 3 s, 2 shuffled, 3
# piped) and threads. One case in three is of what the table takes
# (tumbling windows, flat aggregates, a file big enough for halves, or a
# pipe), so that every strategy has cases.
draw() {
	local n na i tbl
	S=$1
	rnd 3; tbl=$((R == 0))
	rnd $((tbl ? 3 : ${#WINDOWS[@]})); ARGS="--csv -t 1 ${WINDOWS[R]}"
	rnd 3; [ "$R" -gt 0 ] && ARGS="$ARGS -k 2"
	rnd 2; na=$((R + 1))
	for ((i = 0; i < na; i++)); do
		rnd $((tbl ? 3 : ${#AGGS[@]})); ARGS="$ARGS ${AGGS[R]}"
	done
	rnd ${#MODES[@]}; ARGS="$ARGS ${MODES[R]}"
	rnd 3; THREADS=$((R == 0 ? 1 : R == 1 ? 2 : 4))
	rnd 2; n=$((R == 0 && !tbl ? 3000 : 15000))
	rnd 4; INPUT=$R
	"$GENSH" -n $n -k 40 --seed "$1" --disorder $((INPUT == 0 ? 0 : 3000)) > in
	PIPE=0
	case $INPUT in
	2) shuf --random-source=<(yes) in > in.tmp && mv in.tmp in ;;
	3) PIPE=1 ;;
	esac
}

# runs fwin with ARGS over the drawn input; FWIN_STRATEGY as given
run_drawn() {
	# shellcheck disable=SC2086
	if [ "$PIPE" = 1 ]; then
		cat in | "$FWIN" --threads "$THREADS" $ARGS
	else
		"$FWIN" --threads "$THREADS" $ARGS in
	fi
}

# alike_strategies FROM TO: the cases of seeds FROM..TO; every strategy
# compared is appended to the file "seen"
alike_strategies() {
	local seed s chosen possible
	for ((seed = $1; seed <= $2; seed++)); do
		draw "$seed"
		# shellcheck disable=SC2086
		if [ "$PIPE" = 1 ]; then
			cat in | "$FWIN" --explain plan --threads "$THREADS" $ARGS > plan
		else
			"$FWIN" --explain plan --threads "$THREADS" $ARGS in > plan
		fi
		chosen=$(sed -n 's/^strategy: \([a-z]*\) .*/\1/p' plan)
		possible=$(sed -n 's/^possible: //p' plan)
		[ -n "$chosen" ] || { cat plan; echo "seed $seed: no strategy"; return 1; }
		run_drawn > out 2> err && echo 0 > st || echo $? > st
		echo "$chosen" >> seen
		for s in $possible; do
			FWIN_STRATEGY=$s run_drawn > "out.$s" 2> "err.$s" && echo 0 > "st.$s" || echo $? > "st.$s"
			if ! cmp -s out "out.$s" || ! cmp -s err "err.$s" || ! cmp -s st "st.$s"; then
				echo "seed $seed: --threads $THREADS $ARGS (input $INPUT, pipe $PIPE): $s differs from $chosen"
				diff out "out.$s" | head -5
				diff err "err.$s" | head -5
				return 1
			fi
			echo "$s" >> seen
		done
	done
}

@test "every possible strategy prints the chosen one's bytes: random pipelines and inputs (seeds 1-20)" {
	alike_strategies 1 20
}

@test "every possible strategy prints the chosen one's bytes: random pipelines and inputs (seeds 21-40)" {
	alike_strategies 21 40
}

@test "every possible strategy prints the chosen one's bytes: random pipelines and inputs (seeds 61-80), every strategy among them" {
	alike_strategies 61 80
	# (that these seeds try each of the seven is part of the test)
	for s in ordered keyed streamtable halves table straight sorted; do
		grep -qx "$s" seen || { echo "no case ran $s"; sort seen | uniq -c; false; }
	done
}
