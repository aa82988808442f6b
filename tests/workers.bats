#!/usr/bin/env bats
# Key-group workers (fwin(1): --threads): with --threads 3 or
# more a stream's keys are spread over worker threads by key group, and
# everything a user sees is still the bytes of one thread. Input comes
# on a pipe here. The planner prefers a table of groups for a tumbling
# window (fwin(1): THE PLAN), so the workers are asked for where they fit
# (FWIN_STRATEGY_SOFT: elsewhere the run goes as planned, one thread
# included). make check also runs whole suites with FWIN_THREADS=4.
load common

export FWIN_STRATEGY=keyed FWIN_STRATEGY_SOFT=1

# gen SEED N KEYS: N csv records "time,key,value,word" over about ten
# minutes, out of time order by up to 40 s, KEYS keys, 10% of values
# empty; times repeat, so arrival order breaks ties of first and last.
gen() {
	draws "$2" 5 "$1" | awk -v n="$2" -v nk="$3" '{
		t = 1700000000 + int((NR - 1) * 600 / n) - int($1 * 40)
		k = "k" int($2 * nk)
		v = $3 < 0.1 ? "" : sprintf("%.2f", $4 * 100)
		printf "%d,%s,%s,w%d\n", t, k, v, int($5 * 7)
	}'
}

# same IN ARGS...: fwin ARGS on standard input IN alike with 1, 3 and 5
# threads (no workers, two, four).
same() {
	ALIKE_IN=$1 threads_alike "1 3 5" "${@:2}"
}

@test "workers: every window kind that takes them, rows merged in one order" {
	gen 1 30000 500 > in
	local w
	for w in "--tumble 1m" "--slide 2m,30s" "--cumulate 2m,20s" \
	    "--session 20s" "--tumble 1m --fill" "--tumble 1d --tz Europe/Berlin" \
	    "--count-window 5" "--count-window 5,2 --flush" "--global" ""; do
		# shellcheck disable=SC2086
		same in --csv -t 1 -k 2 $w -l 10s --late-file late \
		    --count --sum 3 --avg 3 --first 4 --last 4 --max-by 3:4 \
		    --approx-percentile 3:50
		[ "$(wc -l < out1)" -gt 10 ]
	done
	# late records, kept in input order, or counted and said
	same in --csv -t 1 -k 2 --tumble 1m -l 5s --late-file late --count
	[ -s late1 ]
	same in --csv -t 1 -k 2 --tumble 1m -l 5s --count
	grep -q 'late records dropped' err1
}

@test "workers: windows kept by --allowed-lateness fire again at once, in place" {
	gen 2 20000 200 > in
	same in --csv -t 1 -k 2 --session 10s -l 2s --allowed-lateness 10s \
	    --late-file late --count --sum 3
	[ -s late1 ]
	same in --csv -t 1 -k 2 --slide 1m,20s -l 2s --allowed-lateness 30s \
	    --late-file late --count --sum 3
	# rows fired again for late records came out among the others
	[ "$(sort out1 | uniq -d | wc -l)" -eq 0 ]
	[ "$(cut -d, -f1-3 out1 | sort | uniq -d | wc -l)" -gt 0 ]
}

@test "workers: keys of many fields and json output" {
	gen 3 20000 300 > in
	same in --csv -t 1 -k 2,4 --tumble 1m -l 10s --count --sum 3 \
	    --output-format json
	same in --csv -t 1 -k 4 --tumble 2m --count --output-format csv
}

@test "workers: --stats says so; what they do not take runs as before" {
	gen 4 5000 50 > in
	run --separate-stderr fwin --threads 3 --stats --csv -t 1 -k 2 \
	    --tumble 1m -l 10s --count < in
	assert_success
	assert_regex "${stderr%%$'\n'*}" ', mode stream, keys over workers$'
	local w
	for w in "--tumble 1m --top 2 --top-by count" \
	    "--tumble 1m --emit-every 30s"; do
		# shellcheck disable=SC2086
		run --separate-stderr fwin --threads 3 --stats --csv -t 1 -k 2 \
		    $w -l 10s --count < in
		assert_success
		assert_regex "${stderr%%$'\n'*}" ', mode stream$'
		# shellcheck disable=SC2086
		same in --csv -t 1 -k 2 $w -l 10s --count --sum 3
	done
	# a checkpoint keeps its keys on one thread: the state is one file
	run --separate-stderr fwin --threads 3 --stats --csv -t 1 -k 2 \
	    --tumble 1m -l 10s --count --state ck -o out < in
	assert_success
	assert_regex "${stderr%%$'\n'*}" ', mode stream$'
}

@test "workers: bad records and --strict stop at the same row" {
	{ gen 5 5000 100; echo 'bad,k1,1,w1'; gen 6 5000 100; } > in
	same in --csv -t 1 -k 2 --tumble 1m -l 10s --count --sum 3
	grep -q 'bad record' err1
	same in --strict --csv -t 1 -k 2 --tumble 1m -l 10s --count --sum 3
	assert_equal "$(cat status1)" 1
	[ -s out1 ]
}

@test "workers: a session time whose window passes the range of times is a bad record, as with one thread" {
	# [t, t + 5s) of 9223372036 s passes 2262-04-11: the record is bad,
	# said and kept in --bad-file; the run goes on and prints its rows
	printf '1700000000,a,1\n9223372036,b,2\n1700000001,a,3\n' > in
	for n in 1 3 5; do
		rm -f bad
		run --separate-stderr fwin --threads $n --mode stream --csv -t 1 -k 2 --session 5s --sum 3 --bad-file bad < in
		assert_success
		assert_output '1700000000,1700000006,a,4'
		assert_equal "$stderr" $'fwin: -:2: field 1: window out of range for time "9223372036"; record skipped\nfwin: 1 bad record skipped'
		assert_equal "$(cat bad)" '9223372036,b,2'
	done
	same in --csv -t 1 -k 2 --session 5s --sum 3 --late-file late
}

@test "workers: a window of millions of rows streams out in bounded memory" {
	if [[ $FWIN == *asan* || $FWIN == *valgrind* || $FWIN == *tsan* ]] ||
	    ldd "$FWIN" 2>/dev/null | grep -q -e libasan -e libtsan; then
		skip "the sanitizers' shadow memory does not fit a memory limit"
	fi
	printf '5 a\n5 b\n5 c\n7 a\n' > in
	# 7.2M windows of each of three keys, on three workers, merged by
	# (end, start, key): held all at once they would need about 1 GB
	run bash -c 'ulimit -v 300000; "$0" --threads 4 -t 1 --time-format ms --mode stream --slide 2h,1ms --count < in | md5sum' "$FWIN"
	assert_success
	local want
	want=$(fwin --threads 1 -t 1 --time-format ms --mode stream \
	    --slide 2h,1ms --count < in | md5sum)
	assert_output "$want"
}

@test "workers: a sweep of window kinds, aggregates and options, ISO times" {
	draws 8000 7 7 | awk '{
		t = 1700000000 + int((NR - 1) * 900 / 8000) - int($1 * 60)
		v = $2 < 0.1 ? "" : sprintf("%.3f", $3 * 100 - 20)
		printf "%s,k%d,%s,w%d,u%d\n", strftime("%Y-%m-%dT%H:%M:%SZ", t, 1),
		    int($4 * 300), v, int($5 * 7), int($6 * 3)
	}' > in
	local w a o
	for w in "--tumble 1m" "--slide 3m,1m" "--slide 1m,3m" "--cumulate 5m,1m" \
	    "--session 20s" \
	    "--tumble 1m --fill" "--count-window 4,3 --flush" "--global" "" \
	    "--tumble 1d --tz America/New_York"; do
		for a in "--count --sum 3 --min 3 --stddev 3 --median 3" \
		    "--first 4 --last 4 --min-by 3:4 --approx-distinct 4 --percentile 3:25"; do
			for o in "-k 2 -l 5s" \
			    "-k 2 -l 30s --allowed-lateness 20s --late-file late" \
			    "-k 2 -l 0 --partition 1/2" \
			    "-k 2,5 -l 10s --output-format json"; do
				# shellcheck disable=SC2086
				ALIKE_IN=in threads_alike "1 4" --csv -t 1 $w $a $o
			done
		done
	done
}
