#!/usr/bin/env bats
# --mode batch and the auto decision (fwin(1): BATCH AND STREAM MODES,
# --mode, --max-memory). Batch output is checked against its definition:
# what --mode stream prints for the same records stably sorted by time.
load common

TRY="Try 'fwin --help' for more information."

# ok ARGS...: run fwin, expect exit 0 and an empty stderr.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# gen SEED N: N shuffled csv records "time,key,value,word": times -20..279
# (some with .5), keys a-e, values integers or 2-decimal numbers (10%
# empty: NULL), words w0..z2. Equal times, values and words are common,
# so ties of first/last/min-by/max-by are exercised.
gen() {
	draws "$2" 7 "$1" | awk '{
		t = int($1 * 300) - 20
		if ($2 < 0.2) t = t ".5"
		k = substr("abcde", int($3 * 5) + 1, 1)
		v = $4 < 0.1 ? "" : $4 < 0.5 ? int($5 * 40) : sprintf("%.2f", $5 * 40)
		w = substr("wxyz", int($6 * 4) + 1, 1) int($7 * 3)
		printf "%s,%s,%s,%s\n", t, k, v, w
	}'
}

# Every aggregate, min-by/max-by with OUT and without (the whole record).
AGGS=(--count --sum 3 --avg 3 --min 3 --max 3 --first 4 --last 4 --distinct 4
	--min-by 3:4 --max-by 3:4 --min-by 3 --max-by 3)

# same SEED ARGS...: on gen SEED 1500, --mode batch over the file prints
# exactly what --mode stream prints over the file stably sorted by time;
# so it does over the sorted file (taken as it is read) and over the
# sorted file with its first record moved to the end (taken so up to
# the last record, then sorted after all). STREAM_ARGS, if set, are
# given to the stream only.
same() {
	local seed=$1 f
	shift
	gen "$seed" 1500 > in
	sort -s -t, -k1,1n in > sorted
	{ sed 1d sorted; head -n 1 sorted; } > lastout
	for f in in sorted lastout; do
		sort -s -t, -k1,1n $f > want.in
		run --separate-stderr fwin --mode stream --csv -t 1 "${STREAM_ARGS[@]}" "$@" "${AGGS[@]}" want.in
		assert_success
		# records in the gaps of a slide are said (in both modes), nothing else
		assert_equal "$(grep -v ' in no window dropped (' <<<"$stderr")" ""
		printf '%s\n' "$output" > want
		[ "$(wc -l < want)" -gt 5 ]
		want_err=$stderr
		run --separate-stderr fwin --mode batch --csv -t 1 "$@" "${AGGS[@]}" $f
		assert_success
		assert_equal "$stderr" "$want_err"
		printf '%s\n' "$output" > got
		cmp got want || { echo "seed $seed, $f: batch differs from sorted stream"; diff got want | head; false; }
	done
}

# ------------------------------------------- batch == stream on sorted input

@test "batch = stream on sorted records: tumble, keyed (seed 101)" {
	same 101 -k 2 --tumble 10s
}

@test "batch = stream on sorted records: tumble, no key, offset (seed 102)" {
	same 102 --tumble 25s --offset 3s
}

@test "batch = stream on sorted records: slide (seed 103)" {
	same 103 -k 2 --slide 20s,5s
}

@test "batch = stream on sorted records: slide with gaps (seed 104)" {
	same 104 -k 2 --slide 3s,7s
}

@test "batch = stream on sorted records: session (seed 105)" {
	# batch mode's watermark stays 1 ns below the largest time, so that
	# sessions that touch merge whatever the order of equal times
	STREAM_ARGS=(-l 1ns)
	same 105 -k 2 --session 2s
}

@test "batch = stream on sorted records: count window (seed 106)" {
	same 106 -k 2 --count-window 7
}

@test "batch = stream on sorted records: sliding count window, --flush (seed 107)" {
	same 107 -k 2 --count-window 7,3 --flush
}

@test "batch = stream on sorted records: rolling, keyed (seed 108)" {
	same 108 -k 2
}

@test "batch = stream on sorted records: rolling, no key (seed 109)" {
	same 109
}

@test "batch = stream on sorted records: json output, two key fields (seed 110)" {
	# (members are named once: min-by and max-by with and without OUT
	# apart, --as)
	AGGS=(--count --sum 3 --avg 3 --min 3 --max 3 --first 4 --last 4
		--distinct 4 --min-by 3:4 --max-by 3:4 --min-by 3 --as min_rec
		--max-by 3 --as max_rec)
	same 110 -k 2,4 --tumble 1m --output-format json
}

# --------------------------------------------------------------- by hand

@test "batch: a file out of time order: no record is late" {
	printf '10 a\n12 b\n16 a\n11 a\n3 b\n' > in
	ok -t 1 -k 2 --tumble 5s in
	assert_output $'0\t5\tb\t1\n10\t15\ta\t2\n10\t15\tb\t1\n15\t20\ta\t1'
	# as a stream, 11 and 3 are late
	ok --mode stream --late-file late -t 1 -k 2 --tumble 5s in
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_equal "$(cat late)" $'11 a\n3 b'
}

@test "batch: equal times keep input order (first, last, min-by ties)" {
	printf '5 x 1\n2 y 1\n5 z 1\n2 w 1\n' > in
	ok -t 1 --tumble 10s --first 2 --last 2 --min-by 3:2 --max-by 3:2 in
	assert_output $'0\t10\ty\tz\ty\ty'
}

@test "batch: count windows and rolling mode follow time order" {
	printf '4 a\n1 a\n3 a\n2 a\n' > in
	ok -t 1 --count-window 2 --first 2 --last 1 in
	assert_output $'a\t2\na\t4'
	ok -t 1 -k 2 --count in
	assert_output $'1\ta\t1\n2\ta\t2\n3\ta\t3\n4\ta\t4'
}

@test "batch: a partial count window fires only with --flush" {
	printf '3 a\n1 a\n2 a\n' > in
	ok -t 1 --count-window 2 --last 1 in
	assert_output '2'
	ok -t 1 --count-window 2 --last 1 --flush in
	assert_output $'2\n3'
}

@test "batch: bad records are reported as read, with FILE:LINE" {
	printf '10 a 1\nzz a 2\n3 a x\n1 a 4\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s --sum 3 in
	assert_success
	assert_output $'0\t5\t4\n10\t15\t1'
	assert_equal "$stderr" 'fwin: in:2: field 1: bad time "zz"; record skipped
fwin: in:3: field 3: not a number "x"; record skipped
fwin: 2 bad records skipped'
}

@test "batch: --strict stops at the first bad record, exit 1, no rows" {
	printf '10 a\n3 a\nzz a\n4 a\n' > in
	run --separate-stderr fwin --strict -t 1 --tumble 5s in
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" 'fwin: in:3: field 1: bad time "zz"'
}

@test "batch: a FILE that cannot be opened: reported, the others aggregated, exit 1" {
	printf '10 x\n' > a
	printf '12 x\n3 x\n' > b
	run --separate-stderr fwin -t 1 --tumble 5s a nosuch b
	assert_failure 1
	assert_output $'0\t5\t1\n10\t15\t2'
	assert_equal "$stderr" "fwin: nosuch: No such file or directory"
}

@test "batch: -H with several FILEs, header row once" {
	printf 'ts,user\n20,a\n5,b\n' > a
	printf 'ts,user\n7,a\n' > b
	ok --csv -H -t ts -k user --tumble 10s a b
	assert_output $'window_start,window_end,user,count\n0,10,a,1\n0,10,b,1\n20,30,a,1'
}

# --------------------------------------------------------- the auto decision

@test "auto: -t and a FILE is batch; --stats says so" {
	planned_only
	printf '10 a\n3 a\n' > in
	run --separate-stderr fwin --stats -t 1 --tumble 5s in
	assert_success
	assert_output $'0\t5\t1\n10\t15\t1'
	assert_regex "$stderr" '^fwin: stats: records 2, bad 0, late 0, .* records/s, mode batch, aggregated as read$'
}

@test "auto: standard input redirected from a file is batch" {
	printf '10 a\n3 a\n' > in
	run --separate-stderr fwin --stats -t 1 --tumble 5s - < in
	assert_success
	assert_output $'0\t5\t1\n10\t15\t1'
	assert_regex "$stderr" ', mode batch$'
	run --separate-stderr fwin --stats -t 1 --tumble 5s < in
	assert_output $'0\t5\t1\n10\t15\t1'
	assert_regex "$stderr" ', mode batch$'
}

@test "auto: a pipe is a stream" {
	printf '10 a\n3 a\n' > in
	run --separate-stderr bash -c 'cat in | "$1" --stats -t 1 --tumble 5s' _ "$FWIN"
	assert_success
	assert_output $'10\t15\t1'
	assert_regex "${stderr%%$'\n'*}" 'late 1, .*, mode stream, aggregated as read$'
}

@test "auto: a pipe among FILEs makes a stream" {
	printf '10 a\n' > a
	printf '3 a\n' > b
	run --separate-stderr bash -c 'cat b | "$1" --stats -t 1 --tumble 5s a -' _ "$FWIN"
	assert_success
	assert_output $'10\t15\t1'
	assert_regex "${stderr%%$'\n'*}" ', mode stream, aggregated as read$'
}

@test "auto: no -t, or a stream-only option, is a stream" {
	printf '10 a\n3 a\n' > in
	run --separate-stderr fwin --stats -k 2 --count-window 2 in
	assert_output 'a	2'
	assert_regex "${stderr%%$'\n'*}" ', mode stream(, keys over workers)?$'
	for opt in "-l 0" "--allowed-lateness 0" "--late-file late" "--idle-timeout 1s" \
		"--state s.ckpt" "--checkpoint c.ckpt" "--no-flush"; do
		rm -f s.ckpt c.ckpt late
		# shellcheck disable=SC2086
		run --separate-stderr fwin --stats -t 1 --tumble 5s $opt in
		assert_success
		# (a stream over a FILE without a checkpoint: a table)
		assert_regex "${stderr%%$'\n'*}" '^fwin: stats: records 2, bad 0, late 1, .*, mode stream(, aggregated as read|, keys over workers)?$'
	done
}

@test "--mode batch on a pipe sorts it too" {
	printf '10 a\n3 a\n' > in
	run --separate-stderr bash -c 'cat in | "$1" --mode batch -t 1 --tumble 5s' _ "$FWIN"
	assert_success
	assert_output $'0\t5\t1\n10\t15\t1'
	assert_equal "$stderr" ""
}

# ----------------------------------------------------------- usage errors

@test "--mode batch: stream-only options are usage errors naming the option" {
	printf '10 a\n' > in
	for opt in "-l 1s:-l/--lateness" "--lateness=1s:-l/--lateness" \
		"--allowed-lateness 1s:--allowed-lateness" "--late-file late:--late-file" \
		"--idle-timeout 1s:--idle-timeout" "--checkpoint c:--checkpoint" \
		"--checkpoint-every 5:--checkpoint-every" "--restore r:--restore" \
		"--state s:--state" "--no-flush:--no-flush"; do
		# shellcheck disable=SC2086
		run --separate-stderr fwin --mode batch -t 1 --tumble 5s ${opt%%:*} in
		assert_failure 2
		assert_output ""
		assert_equal "$stderr" "fwin: ${opt#*:} cannot be used with --mode batch (it is for streams)"$'\n'"$TRY"
	done
	[ ! -e c ] && [ ! -e s ] && [ ! -e late ]
}

@test "--mode batch needs -t; --mode and --max-memory take known values" {
	printf '10 a\n' > in
	run --separate-stderr fwin --mode batch --tumble 5s in
	assert_failure 2
	assert_equal "$stderr" "fwin: --mode batch needs event time (-t)"$'\n'"$TRY"
	run --separate-stderr fwin --mode fast -t 1 --tumble 5s in
	assert_failure 2
	assert_equal "$stderr" "fwin: --mode: unknown mode 'fast' (auto, stream or batch)"$'\n'"$TRY"
	for bad in 0 12X 1.5G "" -1K 99999999999999999999X; do
		run --separate-stderr fwin --max-memory "$bad" -t 1 --tumble 5s in
		assert_failure 2
		assert_equal "$stderr" "fwin: --max-memory: bad size '$bad' (bytes, or a number with K, M, G or T)"$'\n'"$TRY"
	done
	# well formed, past 2^64 bytes
	for big in 99999999999999999999 16777216T 99999999T; do
		run --separate-stderr fwin --max-memory "$big" -t 1 --tumble 5s in
		assert_failure 2
		assert_equal "$stderr" "fwin: --max-memory: '$big' is too large"$'\n'"$TRY"
	done
	ok --max-memory 100k -t 1 --tumble 5s in
	assert_output $'10\t15\t1'
}

# ---------------------------------------------------------------- spilling

@test "spill: --max-memory 64K spills sorted runs; the output is the same bytes (seed 201)" {
	gen 201 20000 > in
	args=(--csv -t 1 -k 2 --slide 30s,10s "${AGGS[@]}")
	mkdir tmp
	ok --mode batch "${args[@]}" -o all.csv in
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats --mode batch --max-memory 64K "${args[@]}" -o small.csv in
	assert_success
	assert_regex "$stderr" '^fwin: stats: records 20000, bad 0, late 0, .*, mode batch, [0-9]+ sorted runs spilled \([0-9]+ bytes\)$'
	runs=$(sed 's/.*mode batch, \([0-9]*\) sorted runs.*/\1/' <<< "$stderr")
	[ "$runs" -gt 20 ]
	cmp small.csv all.csv
	sort -s -t, -k1,1n in | fwin --mode stream "${args[@]}" > stream.csv
	cmp all.csv stream.csv
	# nothing is left in $TMPDIR
	assert_equal "$(ls -A tmp)" ""
}

@test "runs: sorted runs kept in memory, then spilled, at every --max-memory the same bytes (seed 204)" {
	gen 204 20000 > in
	args=(--csv -t 1 -k 2 --slide 30s,10s "${AGGS[@]}")
	mkdir tmp
	ok --mode batch "${args[@]}" -o all.csv in
	sort -s -t, -k1,1n in | fwin --mode stream "${args[@]}" > stream.csv
	cmp all.csv stream.csv
	# a quarter of the budget is sorted at a time: the runs stay in
	# memory while they fit (4M), some do and then all are spilled (1M,
	# 500K), or all are spilled (64K)
	for m in 4M 1M 500K 64K; do
		TMPDIR=$PWD/tmp run --separate-stderr fwin --stats --mode batch --max-memory $m "${args[@]}" -o $m.csv in
		assert_success
		case $m in
		4M) assert_regex "$stderr" ', mode batch$' ;;
		*) assert_regex "$stderr" ', mode batch, [0-9]+ sorted runs spilled \([0-9]+ bytes\)$' ;;
		esac
		cmp $m.csv all.csv || { echo "--max-memory $m differs"; false; }
	done
	assert_equal "$(ls -A tmp)" ""
}

# keys N ORDER: N csv records "time,key,value", each of its own key
# (a permutation of 0..N-1), over two hours: in time order (ORDER
# "sorted") or shuffled by a fixed permutation.
keys() {
	awk -v n="$1" -v order="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			j = order == "sorted" ? i : (i * 7919) % n
			printf "%d,k%d,%d.%02d\n", 1700000000 + int(j * 7200 / n),
			    (i * 2654435761) % n, i % 1000, i % 100
		}
	}'
}

@test "--max-memory 8M: the table of (window, key) groups spills sorted runs; the same bytes at 1, 2 and 4 threads" {
	mkdir tmp
	for order in shuffled sorted; do
		keys 200000 "$order" > in
		rm -f ./*.csv	# (-o appends)
		args=(--csv -t 1 -k 2 --tumble 1h --count --sum 3 --avg 3)
		fwin --mode batch --threads 1 "${args[@]}" -o all.csv in
		# batch is the stream over the records sorted by time
		sort -s -t, -k1,1n in | fwin --mode stream --threads 1 "${args[@]}" > stream.csv
		cmp all.csv stream.csv
		assert_equal "$(wc -l < all.csv)" 200000
		for th in 1 2 4; do
			TMPDIR=$PWD/tmp run --separate-stderr fwin --threads $th --stats --mode batch --max-memory 8M "${args[@]}" -o $th.csv in
			assert_success
			# (the spill is the table's: a forced strategy may sort)
			[ -n "${FWIN_STRATEGY:-}" ] ||
				assert_regex "$stderr" '^fwin: stats: records 200000, bad 0, late 0, .*, mode batch, aggregated as read, [0-9]+ sorted runs spilled \([0-9]+ bytes\)$'
			cmp $th.csv all.csv || { echo "$order, --threads $th differs"; false; }
			assert_equal "$(ls -A tmp)" ""
		done
	done
}

@test "--max-memory: a spill that cannot be written costs only the table: the records are sorted instead, the same bytes" {
	keys 50000 shuffled > in
	args=(--csv -t 1 -k 2 --tumble 1h --count --sum 3)
	fwin --mode batch "${args[@]}" -o all.csv in
	# no $TMPDIR to spill to: the table gives up, and the sort keeps its
	# runs in memory
	TMPDIR=$PWD/none run --separate-stderr fwin --stats --mode batch --max-memory 4M "${args[@]}" -o got.csv in
	assert_success
	assert_regex "$stderr" '^fwin: stats: records 50000, .*, mode batch$'
	cmp got.csv all.csv
	# where they do not fit either, the run ends, exit 1, said once
	TMPDIR=$PWD/none run --separate-stderr fwin --mode batch --max-memory 1M "${args[@]}" -o none.csv in
	assert_failure 1
	assert_equal "$stderr" "fwin: cannot write a spill file in $PWD/none: No such file or directory"
}

@test "runs: input in time order is one sorted run however often the buffer fills (seed 205)" {
	planned_only
	gen 205 20000 | sort -s -t, -k1,1n > sorted
	args=(--csv -t 1 -k 2 --tumble 20s "${AGGS[@]}")
	fwin --mode stream "${args[@]}" sorted > stream.csv
	mkdir tmp
	# through a pipe: the records are kept as they come (a file would
	# be read again if they had to be sorted)
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats --mode batch --max-memory 64K "${args[@]}" -o small.csv < <(cat sorted)
	assert_success
	assert_regex "$stderr" ', mode batch, in time order, 1 sorted run spilled \([0-9]+ bytes\)$'
	cmp small.csv stream.csv
	# a tie across the buffer's fills keeps the order of arrival
	awk 'BEGIN { for (i = 0; i < 30000; i++) printf "5,k,%d,w%d\n", i % 7, i }' > ties
	TMPDIR=$PWD/tmp ok --mode batch --max-memory 64K --csv -t 1 -k 2 --tumble 20s --first 4 --last 4 --min-by 3:4 --max-by 3:4 ties
	assert_output '0,20,k,w0,w29999,w0,w6'
	assert_equal "$(ls -A tmp)" ""
}

@test "runs: a long stretch in time order, then any order, at every --max-memory the same bytes (seed 206)" {
	gen 206 20000 > all
	{ head -n 12000 all | sort -s -t, -k1,1n; tail -n 8000 all; } > in
	args=(--csv -t 1 -k 2 --tumble 20s "${AGGS[@]}")
	sort -s -t, -k1,1n in | fwin --mode stream "${args[@]}" > stream.csv
	mkdir tmp
	for m in 0 4M 1M 64K; do
		if [ $m = 0 ]; then
			ok --mode batch "${args[@]}" -o $m.csv in
		else
			TMPDIR=$PWD/tmp ok --mode batch --max-memory $m "${args[@]}" -o $m.csv in
		fi
		cmp $m.csv stream.csv || { echo "--max-memory $m differs"; false; }
	done
	assert_equal "$(ls -A tmp)" ""
}

@test "spill: records longer than --max-memory, kept whole (seed 202)" {
	{
		gen 202 300
		for t in 50 7 90; do
			printf '%s,a,1,%s\n' "$t" "$(head -c 100000 /dev/zero | tr '\0' q)"
		done
		gen 203 300
	} > in
	args=(--csv -t 1 -k 2 --tumble 20s --max-by 1 --min-by 3:4 --last 4)
	ok --mode batch "${args[@]}" -o all.csv in
	mkdir tmp
	TMPDIR=$PWD/tmp ok --mode batch --max-memory 16K "${args[@]}" -o small.csv in
	cmp small.csv all.csv
	assert_equal "$(ls -A tmp)" ""
}

@test "spill: a spill file that cannot be written: exit 1, a message" {
	gen 204 3000 > in
	TMPDIR=$PWD/nosuch run --separate-stderr fwin --mode batch --max-memory 16K --csv -t 1 --tumble 10s in
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "fwin: cannot write a spill file in $PWD/nosuch: No such file or directory"
}

# spill_open PID: whether fwin PID holds a file open in ./tmp
spill_open() {
	ls -l "/proc/$1/fd" | grep -q "$PWD/tmp/"
}

@test "spill: no spill file stays behind after SIGTERM" {
	gen 205 20000 > in
	mkdir tmp
	mkfifo fifo
	# the run reads the file, then waits on the fifo with runs spilled
	TMPDIR=$PWD/tmp "${DFL_SIGNALS[@]}" "$FWIN" --mode batch --max-memory 16K --csv -t 1 --tumble 10s in fifo > out 3>&- &
	pid=$!
	# fwin opens the fifo once it has read in, and spilled it
	exec 7> fifo
	# the spill file is open, and has no name (with a reading thread the
	# fifo is opened while the records before it are still being kept)
	wait_until 10 spill_open "$pid"
	assert_equal "$(ls -A tmp)" ""
	kill -TERM $pid
	st=0
	# (the fifo stays open until fwin is gone: its end must not come
	# before the signal)
	wait $pid || st=$?
	exec 7>&-
	assert_equal "$st" 143
	assert_equal "$(ls -A tmp)" ""
	# SIGTERM stops a batch run: no row is written (batchorder.bats)
	assert_equal "$(wc -c < out)" 0
}

@test "batch = stream: a sum whose field an earlier aggregate keeps is still exact" {
	draws 300 2 9 | awk '{ i = NR - 1
		printf "%d,k%d,%d.%d\n", int($1 * 600), i % 3, int($2 * 100), i % 10 }' > in
	sort -s -t, -k1,1n in > sorted
	run --separate-stderr fwin --mode stream --csv -t 1 -k 2 --tumble 100s --median 3 --min 3 --sum 3 --avg 3 sorted
	assert_success
	want=$output
	[[ $want == *.* ]]
	run --separate-stderr fwin --mode batch --csv -t 1 -k 2 --tumble 100s --median 3 --min 3 --sum 3 --avg 3 in
	assert_success
	assert_equal "$output" "$want"
}

# ------------------------------------------- aggregated as read (hashagg.h)

# The aggregates whose result does not depend on the order of records.
ANYORDER=(--count --sum 3 --avg 3 --distinct 4 --median 3 --percentile 3:10,90
	--approx-percentile 3:50 --approx-distinct 4)

# hashed SEED ARGS...: same() with only those aggregates, and --stats
# says the shuffled file was aggregated as read.
hashed() {
	local seed=$1
	local -a AGGS=("${ANYORDER[@]}")	# (what same() sees)
	shift
	same "$seed" "$@"
	run --separate-stderr fwin --stats --mode batch --csv -t 1 "$@" "${ANYORDER[@]}" in
	assert_success
	assert_regex "$stderr" ', mode batch, aggregated as read$'
}

@test "aggregated as read = stream on sorted records: tumble, keyed (seed 301)" {
	planned_only
	hashed 301 -k 2 --tumble 10s
}

@test "aggregated as read = stream on sorted records: no key, offset, one thread (seed 302)" {
	planned_only
	hashed 302 --tumble 25s --offset 3s --threads 1
}

@test "aggregated as read = stream on sorted records: two key fields, json (seed 303)" {
	planned_only
	hashed 303 -k 4,2 --tumble 1m --output-format json
}

@test "aggregated as read = stream on sorted records: calendar days in a zone (seed 304)" {
	planned_only
	gen 304 3000 | awk -F, -v OFS=, '{ $1 = 1711000000 + $1 * 1200; print }' > in
	sort -s -t, -k1,1n in > sorted
	args=(--csv -t 1 -k 2 --tumble 1d --tz Europe/Berlin "${ANYORDER[@]}")
	fwin --mode stream "${args[@]}" sorted > want
	[ "$(wc -l < want)" -gt 20 ]
	for th in 1 2; do
		run --separate-stderr fwin --stats --threads $th "${args[@]}" in
		assert_success
		assert_regex "$stderr" ', mode batch, aggregated as read$'
		assert_equal "$output" "$(cat want)"
	done
}

@test "aggregated as read: keys alike in their first 8 bytes sort by the whole key (seed 305)" {
	planned_only
	draws 4000 2 305 | awk '{
		printf "%d,longkeyprefix-%d,%d\n", int($1 * 100), int($2 * 50), NR - 1 }' > in
	sort -s -t, -k1,1n in > sorted
	args=(--csv -t 1 -k 2 --tumble 10s --count --sum 3)
	fwin --mode stream "${args[@]}" sorted > want
	run --separate-stderr fwin --stats "${args[@]}" in
	assert_success
	assert_regex "$stderr" ', mode batch, aggregated as read$'
	assert_equal "$output" "$(cat want)"
}

@test "aggregated as read: a sum's value with an exponent stays; a full table, a pipe: sorted instead, the same bytes" {
	gen 306 3000 > in
	sort -s -t, -k1,1n in > sorted
	args=(--csv -t 1 -k 2 --tumble 10s --count --sum 3 --avg 3)
	# a value with an exponent is summed exactly too, so order cannot
	# show: the table keeps it
	for at in 1 1500 3000; do
		awk -v at=$at -F, -v OFS=, 'NR == at { $3 = "1e1" } { print }' in > e.in
		sort -s -t, -k1,1n e.in | fwin --mode stream "${args[@]}" > want
		grep -q '\.' want
		run --separate-stderr fwin --stats "${args[@]}" e.in
		assert_success
		[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch, aggregated as read$'
		assert_equal "$output" "$(cat want)"
	done
	fwin --mode stream "${args[@]}" sorted > want
	# past half of --max-memory: sorted after all (and spilled)
	mkdir tmp
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats --max-memory 64K "${args[@]}" in
	assert_success
	[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch, [0-9]+ sorted runs? spilled \([0-9]+ bytes\)$'
	assert_equal "$output" "$(cat want)"
	# standard input, a pipe: cannot be read again, so it is kept and sorted
	run --separate-stderr fwin --stats --mode batch "${args[@]}" - < in
	[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch$'
	assert_equal "$output" "$(cat want)"
	# an aggregate whose result depends on the order: sorted
	run --separate-stderr fwin --stats "${args[@]}" --first 3 in
	[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch$'
	# so do --top, --fill and --emit-every's rows
	for opt in "--top 1 --top-by count" --fill; do
		run --separate-stderr fwin --stats "${args[@]}" $opt in
		assert_success
		[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch$'
		assert_equal "$output" "$(fwin --mode stream "${args[@]}" $opt sorted)"
	done
}

@test "aggregated as read: in time order, then not, then a full table: read again twice, nothing said twice" {
	planned_only
	# in time order up to a bad record and a value in exponent form
	# (summed exactly, so order cannot show), then back in time: the
	# table takes over and keeps them all
	many 307 3000 | awk -F, -v OFS=, 'NR == 50 { print "x,k1,1" } NR == 100 { $3 = "1e1" } { print } END { print "5,k7,1000" }' > in
	grep -v '^x' in | sort -s -t, -k1,1n | fwin --mode stream --csv -t 1 -k 2 --tumble 1m --count --sum 3 > want
	run --separate-stderr fwin --stats --csv -t 1 -k 2 --tumble 1m --count --sum 3 in
	assert_success
	assert_equal "$output" "$(cat want)"
	mapfile -t lines <<< "$stderr"
	assert_equal "${#lines[@]}" 3
	assert_equal "${lines[0]}" 'fwin: in:50: field 1: bad time "x"; record skipped'
	assert_regex "${lines[1]}" '^fwin: stats: records 3002, bad 1, .*, mode batch, aggregated as read$'
	# a table past half of --max-memory (its 16000 groups need more than
	# 64K) gives up when it reads the records again, and the batch takes
	# them all, read a second time
	run --separate-stderr fwin --stats --max-memory 128K --csv -t 1 -k 2 --tumble 1m --count --sum 3 in
	assert_success
	assert_equal "$output" "$(cat want)"
	mapfile -t lines <<< "$stderr"
	assert_equal "${#lines[@]}" 3
	assert_equal "${lines[0]}" 'fwin: in:50: field 1: bad time "x"; record skipped'
	assert_regex "${lines[1]}" '^fwin: stats: records 3002, bad 1, .*, mode batch$'
}

@test "aggregated as read: a time whose window is out of range is said once, as a bad record" {
	planned_only
	# (out of time order by more than a window: aggregated as read)
	printf '%s\n' 7300,c,1 20,a,1 9223372036,a,2 10,a,3 5,b,4 > in
	run --separate-stderr fwin --stats --csv -t 1 -k 2 --tumble 1h --count --sum 3 in
	assert_success
	assert_output $'0,3600,a,2,4\n0,3600,b,1,4\n7200,10800,c,1,1'
	mapfile -t lines <<< "$stderr"
	assert_equal "${#lines[@]}" 3
	assert_regex "${lines[0]}" '^fwin: in:3: field 1: window out of range for time "9223372036"'
	assert_regex "${lines[1]}" 'bad 1, .*, mode batch, aggregated as read$'
}

# two threads, two halves (split.h): the same bytes as one thread, and as
# the sorted stream

# big SEED N: N shuffled records "time,key,value" over 3000 s, 40 keys
# (the reading thread reads up to about 40000 records ahead before the
# input is cut: what is cut is what is left, which must be more than
# 256 KB)
big() {
	draws "$2" 4 "$1" | awk '{
		printf "%d.%03d,k%d,%d.%d\n", int($1 * 3000), int($2 * 1000), int($3 * 40), int($4 * 1000), (NR - 1) % 10 }'
}

# mode_of STDERR: its --stats line
mode_of() {
	grep '^fwin: stats: ' <<<"$1"
}

# halves FILE ARGS...: fwin with two threads prints what one prints (the
# same stdout, stderr and status); sets output, stderr and status
halves() {
	local f=$1
	shift
	run --separate-stderr fwin --threads 1 "$@" $f
	local want=$output want_err=${stderr//, [0-9.]* s, [0-9]* records\/s,/}
	local want_status=$status
	run --separate-stderr fwin --stats --threads 2 "$@" $f
	assert_equal "$status" "$want_status"
	assert_equal "$output" "$want"
	assert_equal "$(grep -v '^fwin: stats: ' <<<"$stderr")" "$(grep -v '^fwin: stats: ' <<<"$want_err")"
}

@test "two halves: the second read on a thread of its own, the same bytes (seed 401)" {
	planned_only
	big 401 150000 > in
	args=(--csv -t 1 -k 2 --tumble 1m --count --sum 3 --avg 3)
	sort -s -t, -k1,1n in | fwin --mode stream "${args[@]}" > want
	halves in "${args[@]}"
	assert_success
	assert_equal "$output" "$(cat want)"
	assert_regex "$stderr" ', mode batch, aggregated as read, in two halves$'
	# without a key, and in tsv out of a json file
	halves in --csv -t 1 --tumble 7s --count --sum 3
	assert_regex "$stderr" ', in two halves$'
	awk -F, '{ printf "{\"t\":%s,\"k\":\"%s\",\"v\":%s}\n", $1, $2, $3 }' in > in.jsonl
	halves in.jsonl --json -t t -k k --tumble 1m --count --sum v
	assert_regex "$stderr" ', in two halves$'
	# percentiles and sketches: each half's blocks, folded together at
	# the join
	halves in "${args[@]}" --median 3 --percentile 3:10,99 --approx-percentile 3:50 --approx-distinct 3
	assert_regex "$stderr" ', mode batch, aggregated as read, in two halves$'
	sort -s -t, -k1,1n in | fwin --mode stream "${args[@]}" --median 3 --percentile 3:10,99 --approx-percentile 3:50 --approx-distinct 3 | cmp - <(printf '%s\n' "$output")
	# a set of texts: each half's texts, folded together at the join
	halves in "${args[@]}" --distinct 3 --count
	assert_regex "$stderr" ', mode batch, aggregated as read, in two halves$'
	sort -s -t, -k1,1n in | fwin --mode stream "${args[@]}" --distinct 3 --count | cmp - <(printf '%s\n' "$output")
}

@test "two halves: FILEs with headers, cut in a later one (seed 402)" {
	planned_only
	big 402 30000 | awk 'BEGIN { print "t,k,v" } { print }' > a.csv
	big 403 120000 | awk 'BEGIN { print "t,k,v" } { print }' > b.csv
	big 404 30000 | awk 'BEGIN { print "t,k,v" } { print }' > c.csv
	args=(--csv -H -t t -k k --tumble 1m --count --sum v)
	{ echo t,k,v; tail -q -n +2 a.csv b.csv c.csv | sort -s -t, -k1,1n; } | fwin --mode stream "${args[@]}" > want
	run --separate-stderr fwin --stats --threads 2 "${args[@]}" a.csv b.csv c.csv
	assert_success
	assert_equal "$output" "$(cat want)"
	assert_regex "$stderr" ', in two halves$'
}

@test "two halves: anything to say in the second half is said in its place, as one thread says it (seed 405)" {
	planned_only
	big 405 150000 > in
	args=(--csv -t 1 -k 2 --tumble 1m --count --sum 3)
	# bad records early and late; the late ones make the second half's
	# work go: read again here
	awk 'NR == 100 { print "x,k1,1" } NR == 130000 { print "y,k1,2"; print "5,k1,z" } { print }' in > bad
	halves bad "${args[@]}"
	assert_success
	assert_regex "$stderr" 'bad:100: field 1: bad time "x"'
	assert_regex "$stderr" 'bad:130002: field 3: not a number "z"'
	assert_regex "$(mode_of "$stderr")" ', mode batch, aggregated as read$'
	grep -v '^[xy5],' bad | sort -s -t, -k1,1n | fwin --mode stream "${args[@]}" | cmp - <(printf '%s\n' "$output")
	# a bad record in the first half only: the halves stand
	awk 'NR == 100 { print "x,k1,1" } { print }' in > bad1
	halves bad1 "${args[@]}"
	assert_regex "$stderr" 'bad1:100: field 1: bad time "x"'
	assert_regex "$(mode_of "$stderr")" ', in two halves$'
	# a value in exponent form late: summed exactly, the halves stand,
	# and give the sorted stream's bytes
	awk 'NR == 135000 { $0 = "7,k1,1e1" } { print }' in > expo
	halves expo "${args[@]}"
	assert_success
	assert_regex "$(mode_of "$stderr")" ', in two halves$'
	sort -s -t, -k1,1n expo | fwin --mode stream "${args[@]}" | cmp - <(printf '%s\n' "$output")
	# tables past half of --max-memory: sorted
	halves in --max-memory 256K "${args[@]}"
	assert_success
	assert_regex "$stderr" ', mode batch, [0-9]+ sorted runs? spilled'
}

@test "two halves: a quoted field holding a line end where the input is cut (seed 406)" {
	# every record has one with eight line ends: the cut falls inside a
	# quoted field in most runs; the first half then ends past it, and
	# this thread reads the rest
	big 406 150000 | awk -F, -v OFS=, '{ print $1, $2, $3, "\"a\nb\nc\nd\ne\nf\ng\nh\ni\"" }' > in
	args=(--csv -t 1 -k 2 --tumble 1m --count --sum 3)
	want=$(fwin --threads 1 "${args[@]}" in)
	for i in 1 2 3 4 5 6; do
		run --separate-stderr fwin "${args[@]}" in
		assert_success
		assert_equal "$stderr" ""
		assert_equal "$output" "$want"
	done
	[ "$(wc -l <<<"$want")" -gt 1000 ]
}

# ------------------------------------------------ input already in time order

# many SEED N: N records in time order over 10000 s, 100 keys: many rows
many() {
	draws "$2" 2 "$1" | awk -v n="$2" '{
		printf "%d,k%d,%d\n", int((NR - 1) * 10000 / n), int($1 * 100), int($2 * 1000) }'
}

@test "in time order: taken as read, rows held until the end; --stats says so (seed 207)" {
	planned_only
	many 207 40000 > sorted
	args=(--csv -t 1 -k 2 --tumble 1s --count --sum 3 --first 3)
	fwin --mode stream "${args[@]}" sorted > want
	# more rows than the output's buffer holds: they went through the scratch file
	[ "$(wc -c < want)" -gt 300000 ]
	mkdir tmp
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats "${args[@]}" -o got sorted
	assert_success
	assert_regex "$stderr" ', mode batch, in time order$'
	cmp got want
	assert_equal "$(ls -A tmp)" ""
	# the first record last: held rows dropped at the last record, sorted after all
	{ sed 1d sorted; head -n 1 sorted; } > lastout
	sort -s -t, -k1,1n lastout | fwin --mode stream "${args[@]}" > want2
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats "${args[@]}" -o got2 lastout
	assert_success
	assert_regex "$stderr" ', mode batch$'
	cmp got2 want2
	! cmp -s want want2	# the moved record is first in its window no more
	# no scratch file to be had: sorted as any input, the same bytes, nothing said
	TMPDIR=$PWD/nosuch run --separate-stderr fwin --stats "${args[@]}" -o got3 sorted
	assert_success
	assert_regex "$stderr" '^fwin: stats: .*, mode batch$'
	cmp got3 want
	# state past a quarter of --max-memory (hours of 100 keys): sorted
	# after all, the same bytes
	args=(--csv -t 1 -k 2 --tumble 1h --count --sum 3 --first 3)
	fwin --mode stream "${args[@]}" sorted > want5
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats "${args[@]}" -o got5 sorted
	assert_regex "$stderr" ', mode batch, in time order$'
	cmp got5 want5
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats --max-memory 64K "${args[@]}" -o got4 sorted
	assert_success
	assert_regex "$stderr" ', mode batch, [0-9]+ sorted runs? spilled \([0-9]+ bytes\)$'
	cmp got4 want5
	assert_equal "$(ls -A tmp)" ""
}

@test "in time order: a failed run writes none of the rows held" {
	many 208 40000 > sorted
	printf '9999,k1,x\n' >> sorted
	run --separate-stderr fwin --strict --csv -t 1 -k 2 --tumble 1s --sum 3 sorted
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "fwin: sorted:40001: field 3: not a number \"x\""
}

@test "in time order: SIGTERM stops the run, and the rows held are not written" {
	planned_only
	many 209 40000 > sorted
	mkfifo fifo
	"${DFL_SIGNALS[@]}" "$FWIN" --stats --mode batch --csv -t 1 -k 2 --tumble 1s --count sorted fifo > out 2> err 3>&- &
	pid=$!
	exec 7> fifo
	# fwin has read the file once it opens the fifo
	wait_until 10 sh -c "ls -l /proc/$pid/fd | grep -q fifo"
	kill -TERM $pid
	st=0
	# (the fifo stays open until fwin is gone: its end must not come
	# before the signal)
	wait $pid || st=$?
	exec 7>&-
	assert_equal "$st" 143
	assert_equal "$(wc -c < out)" 0
	assert_equal "$(tail -n 1 err)" "fwin: interrupted after 40000 records; the output is incomplete"
}

@test "in time order, then not: FILEs read again up to there, nothing said twice" {
	# a.csv in time order with a bad record; a missing FILE; b.csv in
	# order up to its last record, which goes back in time
	many 210 3000 | awk 'BEGIN { print "t,k,v" } { print } NR == 100 { print "x,k1,5" }' > a.csv
	{ echo t,k,v; many 211 3000 | awk -F, -v OFS=, '{ $1 += 10000; print }'; echo 5,k7,1000; } > b.csv
	{ tail -n +2 a.csv; tail -n +2 b.csv; } | grep -v '^x' | sort -s -t, -k1,1n > want.in
	{ echo t,k,v; cat want.in; } | fwin --mode stream --csv -H -t t -k k --tumble 1m --count --sum v --first v > want
	run --separate-stderr fwin --stats --csv -H -t t -k k --tumble 1m --count --sum v --first v a.csv nosuch.csv b.csv
	assert_failure 1
	printf '%s\n' "$output" > got
	cmp got want
	mapfile -t lines <<< "$stderr"
	assert_equal "${#lines[@]}" 4
	assert_equal "${lines[0]}" 'fwin: a.csv:102: field t: bad time "x"; record skipped'
	assert_equal "${lines[1]}" 'fwin: nosuch.csv: No such file or directory'
	assert_regex "${lines[2]}" '^fwin: stats: records 6002, bad 1, .*, mode batch$'
	assert_equal "${lines[3]}" 'fwin: 1 bad record skipped'
	# the same as JSON Lines
	for f in a b; do
		awk -F, 'NR > 1 { printf "{\"t\":\"%s\",\"k\":\"%s\",\"v\":%s}\n", $1, $2, $3 }' $f.csv > $f.jsonl
	done
	run --separate-stderr fwin --json --output-format csv -t t -k k --tumble 1m --count --sum v --first v a.jsonl b.jsonl
	assert_success
	printf '%s\n' "$output" > got
	cmp got want
	assert_equal "$stderr" $'fwin: a.jsonl:101: field t: bad time "x"; record skipped\nfwin: 1 bad record skipped'
}

@test "in time order, then not: a FILE that changed before it could be read again is exit 1, said" {
	planned_only
	many 212 1000 > a.csv
	# b.csv takes a while, in time order up to its last record
	awk 'BEGIN { for (i = 0; i < 2000000; i++) printf "%d,k%d,1\n", 20000 + i / 100, i % 7; print "5,k1,1" }' > b.csv
	"$FWIN" --threads 1 --csv -t 1 -k 2 --tumble 1m --count a.csv b.csv 3>&- > out 2> err &
	pid=$!
	wait_until 20 sh -c "ls -l /proc/$pid/fd | grep -q b.csv"
	: > a.csv
	rc=0
	wait $pid || rc=$?
	assert_equal "$rc" 1
	assert_equal "$(cat err)" "fwin: an input changed while it was read: its records could not be read again to be sorted"
	assert_equal "$(cat out)" ""
}

@test "two halves near time order: the table as a stream in which no record may be late, the same bytes (seeds 407, 408)" {
	planned_only
	big 407 150000 | sort -s -t, -k1,1n > in
	args=(--csv -t 1 -k 2 --tumble 1m --count --sum 3 --avg 3)
	fwin --mode stream -l 0 "${args[@]}" < in > want
	halves in "${args[@]}"
	assert_success
	assert_equal "$output" "$(cat want)"
	assert_regex "$(mode_of "$stderr")" ', mode batch, in time order, in two halves$'
	# one record out of order in the second half, then in the first:
	# sorted after all, the same bytes as one thread
	for at in 140000 20000; do
		awk -F, -v OFS=, -v at=$at 'NR == at { $1 = 5 } { print }' in > one
		sort -s -t, -k1,1n one | fwin --mode stream -l 0 "${args[@]}" > want1
		halves one "${args[@]}"
		assert_success
		assert_equal "$output" "$(cat want1)"
		assert_regex "$(mode_of "$stderr")" ', mode batch, aggregated as read'
	done
	# out of order by less than a window (1m): no record is late for the
	# table, whose windows are then those of the sorted records
	draws "$(wc -l < in)" 1 408 > d
	awk -F, -v OFS=, 'NR == FNR { d[NR] = $1; next } { $1 = sprintf("%.3f", $1 - d[FNR] * 30) } { print }' d in > near
	sort -s -t, -k1,1n near | fwin --mode stream -l 0 "${args[@]}" > want2
	halves near "${args[@]}"
	assert_success
	assert_equal "$output" "$(cat want2)"
	assert_regex "$(mode_of "$stderr")" ', mode batch, in time order, in two halves$'
	# an aggregate that keeps blocks of its own: two halves too
	halves in "${args[@]}" --distinct 3
	assert_regex "$(mode_of "$stderr")" ', mode batch, in time order, in two halves$'
}
