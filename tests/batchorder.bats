#!/usr/bin/env bats
# --mode batch does not depend on the order of its input (fwin(1): BATCH
# AND STREAM MODES): a file and shuffled copies of it print the same bytes
# through every route a batch can take (the input taken as read while in
# time order, the sorted replay, the table of groups, two halves on two
# threads, spilled runs, key groups over workers), and sessions that touch
# merge whatever the order of records with equal times.
load common

# data SEED N: N csv records "time,key,value" from scripts/gen (times in
# ms, out of order by up to 300 ms, 4 records per ms: many equal times),
# 7 keys, integer values below 50.
data() {
	"$BATS_TEST_DIRNAME/../scripts/gen" -n "$2" -k 7 --rate 4000 \
		--seed "$1" --values 50 --disorder 300
}

# shuffles FILE: writes FILE's records in other orders: sorted by time
# (ties in file order: taken as read), sorted by time with the ties in
# the opposite order, and two fixed shuffles (their random bytes from
# scripts/gen with a seed, so that they never change).
shuffles() {
	sort -s -t, -k1,1n "$1" > sorted
	tac "$1" | sort -s -t, -k1,1n > ties
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 50000 --seed 11 > rand1
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 50000 --seed 12 > rand2
	shuf --random-source=rand1 "$1" > shuf1
	shuf --random-source=rand2 "$1" > shuf2
}

# alike FILE ARGS...: fwin --mode batch --csv -t 1 ARGS over FILE is the
# reference; over each of the orders shuffles wrote (as a file, and one
# through a pipe), with a small memory budget (runs spilled) and with 1,
# 2 and 4 threads, it prints the same bytes, exit 0, stderr empty.
alike() {
	local in=$1 f n
	shift
	shuffles "$in"
	mkdir -p tmp
	run --separate-stderr fwin --threads 1 --mode batch --csv -t 1 "$@" "$in"
	assert_success
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > want
	[ "$(wc -l < want)" -gt 3 ]
	for n in 1 2 4; do
		for f in "$in" sorted ties shuf1 shuf2; do
			run --separate-stderr fwin --threads $n --mode batch --csv -t 1 "$@" $f
			assert_success
			assert_equal "$stderr" ""
			printf '%s\n' "$output" > got
			cmp got want || { echo "$f, $n threads: $*"; diff want got | head; false; }
		done
		run --separate-stderr fwin --threads $n --mode batch --csv -t 1 "$@" < <(cat shuf1)
		assert_success
		printf '%s\n' "$output" > got
		cmp got want || { echo "a pipe, $n threads: $*"; diff want got | head; false; }
		TMPDIR=$PWD/tmp run --separate-stderr fwin --threads $n --mode batch --max-memory 64K --csv -t 1 "$@" ties
		assert_success
		printf '%s\n' "$output" > got
		cmp got want || { echo "64K, $n threads: $*"; diff want got | head; false; }
	done
	assert_equal "$(ls -A tmp)" ""
}

# Aggregates whose result does not depend on the order of records with
# equal times (the input is full of them).
ANYORDER=(--count --sum 3 --avg 3 --min 3 --max 3 --distinct 3 --median 3
	--percentile 3:10,90 --approx-percentile 3:50 --approx-distinct 3
	--stddev 3 --var-pop 3)
# The table of groups takes only these.
TABLE=(--count --sum 3 --avg 3 --distinct 3 --median 3 --approx-distinct 3
	--stddev 3 --var-pop 3)
# Aggregates that follow time order, then input order: over records whose
# times are all different, they do not depend on the input's order either.
ORDERED=(--first 3 --last 3 --min-by 3 --max-by 3:2 --count)

@test "shuffled = sorted, equal times: tumble, every aggregate family (seed 21)" {
	data 21 3000 > in
	alike in -k 2 --tumble 100ms "${ANYORDER[@]}"
}

@test "shuffled = sorted, equal times: tumble through the table of groups, no key (seed 22)" {
	data 22 3000 > in
	alike in --tumble 50ms "${TABLE[@]}"
	alike in -k 2 --tumble 50ms "${TABLE[@]}"
}

@test "shuffled = sorted, equal times: slide (seed 23)" {
	data 23 3000 > in
	alike in -k 2 --slide 100ms,25ms "${ANYORDER[@]}"
}

@test "shuffled = sorted, equal times: session, gaps that touch (seed 24)" {
	# times on a 10 ms grid and a gap of 10 ms: sessions touch at
	# every other record
	data 24 3000 | awk -F, -v OFS=, '{ sub(/.$/, "0", $1); print }' > in
	alike in -k 2 --session 10ms "${ANYORDER[@]}"
	alike in -k 2 --session 20ms --count
}

@test "shuffled = sorted, equal times: cumulate, through its table too (seed 25)" {
	data 25 3000 > in
	alike in -k 2 --cumulate 200ms,50ms "${ANYORDER[@]}"
	alike in -k 2 --cumulate 200ms,50ms "${TABLE[@]}"
}

@test "shuffled = sorted, equal times: global (seed 26)" {
	data 26 3000 > in
	alike in -k 2 --global "${ANYORDER[@]}"
}

@test "shuffled = sorted, every time different: order-following aggregates, every window kind (seed 27)" {
	data 27 4000 | awk -F, '!seen[$1]++' > in
	for w in "--tumble 100ms" "--slide 100ms,40ms" "--session 3ms" \
	    "--cumulate 200ms,50ms" "--global" "--count-window 5" \
	    "--count-window 5,2" ""; do
		alike in -k 2 $w "${ORDERED[@]}"
	done
}

# ------------------------------------------------ sessions that touch

@test "batch: sessions that touch merge whatever other keys' records lie between them" {
	printf '0 a\n10 b\n10 a\n' > in
	run --separate-stderr fwin --mode batch -t 1 --time-format s -k 2 --session 10s --count in
	assert_success
	assert_equal "$stderr" ""
	assert_output $'0\t20\ta\t2\n10\t20\tb\t1'
	run --separate-stderr fwin --mode batch -t 1 --time-format s -k 2 --session 10s --count < <(printf '0 a\n10 a\n10 b\n')
	assert_output $'0\t20\ta\t2\n10\t20\tb\t1'
	# as a pipe, with threads and workers
	for n in 1 2 4; do
		run --separate-stderr fwin --threads $n --mode batch -t 1 --time-format s -k 2 --session 10s --count < <(printf '0 a\n10 b\n10 a\n')
		assert_success
		assert_output $'0\t20\ta\t2\n10\t20\tb\t1'
	done
	# a stream keeps Flink's streaming semantics: b's record moved the
	# watermark to 10, and a's session [0,10) fired before a's second
	# record came
	run --separate-stderr fwin --mode stream -t 1 --time-format s -k 2 --session 10s --count in
	assert_success
	assert_output $'0\t10\ta\t1\n10\t20\ta\t1\n10\t20\tb\t1'
}

# islands FILE GAP: the sessions of FILE's "time,key" records (times
# integers) by gaps and islands, as SQL writes it: a record starts a
# session when its key's previous time is more than GAP before it (ties
# by time alone: a window function over (key, time), none of fwin's
# order); a session is [first, last + GAP). Prints start,end,key,count
# sorted as fwin prints its rows.
islands() {
	sqlite3 -csv :memory: <<EOF
CREATE TABLE r(t INTEGER, k TEXT);
.import $1 r
WITH s AS (SELECT t, k, CASE WHEN LAG(t) OVER (PARTITION BY k ORDER BY t)
	>= t - $2 THEN 0 ELSE 1 END AS first FROM r),
  i AS (SELECT t, k, SUM(first) OVER (PARTITION BY k ORDER BY t
	ROWS UNBOUNDED PRECEDING) AS island FROM s)
SELECT MIN(t), MAX(t) + $2, k, COUNT(*) FROM i GROUP BY k, island
ORDER BY MAX(t) + $2, MIN(t), k;
EOF
}

@test "batch sessions = gaps and islands by SQL, on times that touch exactly (seed 28)" {
	command -v sqlite3 || skip "sqlite3 is not installed (scripts/deps installs it)"
	# on a 10 s grid, many a key's times exactly a gap apart
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 6000 -k 40 --rate 1 --seed 28 \
		--disorder 30000 --start 1000000000 | awk -F, -v OFS=, '{ print int($1 / 10000) * 10, $2 }' > in
	[ "$(awk -F, '{ print $1 }' in | sort | uniq -d | wc -l)" -gt 500 ]
	[ "$(sort -t, -k2,2 -k1,1n in | awk -F, '$2 == k && $1 - p == 30 { n++ } { k = $2; p = $1 } END { print n }')" -gt 500 ]
	islands in 30 > want
	[ "$(wc -l < want)" -gt 500 ]
	shuffles in
	for f in in sorted ties shuf1 shuf2; do
		for n in 1 2 4; do
			run --separate-stderr fwin --threads $n --mode batch --csv -t 1 --time-format s -k 2 --session 30s --count $f
			assert_success
			assert_equal "$stderr" ""
			printf '%s\n' "$output" > got
			cmp got want || { echo "$f, $n threads"; diff want got | head; false; }
		done
	done
}
