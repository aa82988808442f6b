#!/usr/bin/env bats
# --threads (fwin(1): --threads, ENVIRONMENT): with a reading thread,
# everything a user sees is the bytes of one thread: rows, the late file,
# messages and their order, exit status, checkpoints. Each test runs the
# same command with --threads 1 and --threads 2 and compares. (make check
# also runs several whole suites with FWIN_THREADS=2.)
load common

TRY="Try 'fwin --help' for more information."

# gen SEED N: N csv records "time,key,value,word", out of time order by up
# to 40 s over a few minutes, keys k0..k49, 10% of values empty (NULL).
gen() {
	draws "$2" 5 "$1" | awk -v n="$2" '{
		t = 1700000000 + int((NR - 1) * 600 / n) - int($1 * 40)
		k = "k" int($2 * 50)
		v = $3 < 0.1 ? "" : sprintf("%.2f", $4 * 100)
		printf "%d,%s,%s,w%d\n", t, k, v, int($5 * 7)
	}'
}

# both ARGS...: fwin ARGS alike with 1, 2 and 4 threads (a reading thread,
# then three key-group workers where the pipeline takes them).
both() {
	threads_alike "1 2 4" "$@"
}

@test "threads: every window kind, stream and batch, the same bytes" {
	gen 1 20000 > in
	local w
	for w in "--tumble 1m" "--slide 2m,30s" "--session 5s" \
	    "--cumulate 1m,10s" "--count-window 7" "--global" ""; do
		# shellcheck disable=SC2086
		both --mode stream --csv -t 1 -k 2 $w -l 10s --late-file late \
		    --count --sum 3 --avg 3 --first 4 --max-by 3:4 \
		    --approx-percentile 3:50 in
		[ "$(wc -l < out1)" -gt 10 ]
		# records were late, so the late file was compared
		[ "$w" != "--tumble 1m" ] || [ -s late1 ]
		# shellcheck disable=SC2086
		[ -z "$w" ] || [ "$w" = "--count-window 7" ] ||
		    both --mode batch --csv -t 1 -k 2 $w --count --sum 3 \
		    --median 3 in
	done
}

@test "threads: bad records, a missing file and the summaries in the same order" {
	gen 2 3000 > a
	{ gen 3 3000; printf '1700000300,k1,abc,w1\nnot a time,k2,1,w2\n'
	  printf '1700000301\n'; gen 4 3000; } > b
	both --mode stream --csv -t 1 -k 2 --tumble 1m --sum 3 a nosuch b
	assert_equal "$(cat status1)" 1
	grep -q "nosuch" err1
	grep -q 'not a number "abc"' err1
	# and past the first ten bad records, only counted
	awk 'BEGIN { for (i = 0; i < 25; i++) printf "x%d,k,1,w\n", i }' >> b
	both --mode stream --csv -t 1 -k 2 --tumble 1m --sum 3 a b
	grep -q '28 bad records skipped' err1
}

@test "threads: --strict stops at the first bad record either way" {
	{ gen 5 5000; echo 'bad,k1,1,w1'; gen 6 5000; } > in
	both --strict --mode stream --csv -t 1 -k 2 --tumble 1m --count in
	assert_equal "$(cat status1)" 1
	grep -q 'in:5001: field 1: bad time "bad"' err1
}

@test "threads: partitions, json and -t F1,F2 read alike" {
	gen 7 4000 > in
	both --partition 2/3 --mode stream --csv -t 1 -k 2 --tumble 1m \
	    --count --sum 3 in
	awk -F, '{ printf "{\"ts\":%s,\"u\":{\"id\":\"%s\"},\"v\":\"%s\"}\n", $1, $2, $3 }' in > in.json
	both --json -t ts -k u.id --tumble 1m --count --sum v in.json
	awk -F, '{ printf "%s %s,%s\n", strftime("%Y-%m-%d", $1, 1), strftime("%H:%M:%S", $1, 1), $2 }' in |
	    tr ' ' , > two
	both --mode stream -d , -t 1,2 -k 3 --tumble 1m --count two
	[ "$(wc -l < out1)" -gt 5 ]
}

@test "threads: a checkpoint holds the same state, and restores with the other count" {
	gen 8 20000 > in
	head -12000 in > part
	local n
	for n in 1 2; do
		cp part "in$n"
		fwin --threads "$n" --csv -t 1 -k 2 --tumble 1m -l 10s --sum 3 \
		    --state "ck$n" -o "out$n" "in$n"
		fwin --inspect "ck$n" | grep -v -e '^file' -e '^saved' \
		    -e '^checksum' -e '^input 1' > "inspect$n"
	done
	cmp inspect1 inspect2
	# each resumes with the other thread count where it stopped
	cp in in1
	cp in in2
	fwin --threads 2 --csv -t 1 -k 2 --tumble 1m -l 10s --sum 3 --flush \
	    --state ck1 -o out1 in1
	fwin --threads 1 --csv -t 1 -k 2 --tumble 1m -l 10s --sum 3 --flush \
	    --state ck2 -o out2 in2
	fwin --threads 1 --csv -t 1 -k 2 --tumble 1m -l 10s --sum 3 in > ref
	cmp out1 ref
	cmp out2 ref
}

@test "threads: checkpoints every N records while reading ahead lose and repeat nothing" {
	gen 9 30000 > in
	fwin --threads 1 --mode stream --csv -t 1 -k 2 --tumble 1m -l 10s \
	    --count --sum 3 in > ref
	fwin --threads 2 --csv -t 1 -k 2 --tumble 1m -l 10s --count --sum 3 \
	    --checkpoint-every 1000 --flush --state ck -o out in
	cmp out ref
}

@test "--threads and FWIN_THREADS: bad values are usage errors" {
	run --separate-stderr fwin --threads 0 -c
	assert_failure 2
	assert_equal "$stderr" "fwin: --threads: '0': N needs 1 <= N <= 256
$TRY"
	run --separate-stderr fwin --threads two -c
	assert_failure 2
	assert_equal "$stderr" "fwin: --threads: 'two' is not a number of threads
$TRY"
	run --separate-stderr env FWIN_THREADS=999 "$FWIN" -c
	assert_failure 2
	assert_equal "$stderr" "fwin: FWIN_THREADS: '999': N needs 1 <= N <= 256
$TRY"
	run --separate-stderr fwin --threads 1 --threads 2 -c
	assert_failure 2
	assert_equal "$stderr" "fwin: --threads may be given only once
$TRY"
	# --threads wins over the environment
	run --separate-stderr env FWIN_THREADS=x "$FWIN" --threads 1 -t 1 \
	    --tumble 1s -c <<<'10 a'
	assert_success
	assert_output "10	11	1"
}

@test "threads: a record's line is right after 70000 blank lines, in the late summary" {
	# (the hand-over writes a record's line as the step from the one
	# before in 16 bits where it can)
	{ echo 1700000000000,a,1
	  yes '' | head -n 70000
	  echo 1900000000000,a,2
	  yes '' | head -n 70000
	  echo 1700000001000,a,3
	  echo 1700000002000,b,3; } > in
	ALIKE_IN=in both --mode stream --csv -t 1 -k 2 --tumble 1s --count
	assert_equal "$(cat out1)" $'1700000000000,1700000001000,a,1\n1900000000000,1900000001000,a,1'
	[[ "$(cat err1)" == "fwin: 2 late records dropped; -:70002 (2030-03-17T17:46:40Z, "* ]]
}

@test "threads: records longer than a slot of the hand-over pass whole, late ones too" {
	gen 10 2000 > in
	# two 3 MB records (the slots are 1 MB): one on time, one late
	{ head -1000 in
	  printf '1700000300,k1,999,'; head -c 3000000 /dev/zero | tr '\0' x; echo
	  sed -n '1001,2000p' in
	  printf '1700000000,k2,6,'; head -c 3000000 /dev/zero | tr '\0' y; echo
	  gen 11 500; } > big
	both --mode stream --csv -t 1 -k 2 --tumble 1m -l 10s --late-file late \
	    --count --max-by 3:4 big
	[ "$(wc -c < late1)" -gt 3000000 ]
	grep -q 'xxxxxxxxxx' out1
}
