#!/usr/bin/env bats
# Sums never depend on the order of additions and never silently lose
# digits (fwin(1): AGGREGATES): exact past 38 digits, values with
# exponents summed exactly and rounded once, the same bytes whatever the
# threads, mode, route, windows merged or restores.
load common

# evals N: N records "ms,key,value" 9 ms apart, three keys, values written
# as printf's %e, from 1e-4 to 1e4 in size, a fifth of them negative (a
# fixed arithmetic of the line number, no random draw: the same bytes from
# every awk)
evals() {
	seq 1 "$1" | awk '{ printf "%d,k%d,%e\n", $1 * 9, $1 % 3, ($1 * 7919 % 100003) / 997.3 * 10 ^ ($1 % 9 - 4) * ($1 % 5 == 0 ? -1 : 1) }'
}

# shuffled FILE: its lines in another fixed order
shuffled() {
	awk '{ printf "%d\t%s\n", (NR * 7919) % 1000003, $0 }' "$1" | sort -n | cut -f2-
}

# routes FILE ARGS...: fwin ARGS on FILE by every route of a batch run and
# a stream, one to four threads: each must print the stream's bytes
# (stdout, stderr, status); the stream on the time-sorted FILE is want
routes() {
	local f=$1 t
	shift
	sort -s -t, -k1,1n "$f" > sorted.in
	run --separate-stderr fwin --threads 1 --mode stream "$@" sorted.in
	assert_success
	local want=$output want_err=$stderr
	for t in 1 2 4; do
		# stream, on the sorted records (through the reading thread
		# and workers with more threads)
		run --separate-stderr fwin --threads $t --mode stream "$@" - < sorted.in
		assert_equal "$output" "$want"
		assert_equal "$stderr" "$want_err"
		# batch: aggregated as read (in two halves with threads)
		run --separate-stderr fwin --threads $t "$@" "$f"
		assert_equal "$output" "$want"
		assert_equal "$stderr" "$want_err"
		# batch: in time order as read
		run --separate-stderr fwin --threads $t "$@" sorted.in
		assert_equal "$output" "$want"
		# batch: a pipe, kept and sorted; and sorted runs spilled
		run --separate-stderr fwin --threads $t --mode batch "$@" - < "$f"
		assert_equal "$output" "$want"
		mkdir -p tmp
		TMPDIR=$PWD/tmp run --separate-stderr fwin --threads $t --max-memory 64K "$@" "$f"
		assert_equal "$output" "$want"
	done
}

@test "sum: 400000 values written as %e, the correctly rounded exact sum by every route" {
	evals 400000 > e.in
	shuffled e.in > shuf.in
	args=(--csv --time-format ms -t 1 -k 2 --tumble 1h --count --sum 3 --avg 3)
	# Python: float(sum(Fraction(Decimal(v)) for v in values)), and / n
	ok() { run --separate-stderr fwin "$@"; assert_success; }
	ok --threads 1 "${args[@]}" e.in
	assert_output '0,3600000,k0,133333,133834608.2094582,1003.762070976114
0,3600000,k1,133333,1338189201.3958027,10036.444101578774
0,3600000,k2,133333,13381330628.933214,100360.23061757565
3600000,7200000,k1,1,-4.988469,-4.988469'
	want=$output
	routes shuf.in "${args[@]}"
	assert_equal "$want" "$output"
}

@test "sum: 200000 copies of 10^35 - 1 print every digit, by every route" {
	# two keys, 100000 values each, times shuffled over a day
	seq 0 199999 | awk '{ printf "%d,k%d,99999999999999999999999999999999999\n", ($1 * 7919) % 86400, $1 % 2 }' > big.in
	args=(--csv --time-format s -t 1 -k 2 --tumble 1d --count --sum 3 --avg 3)
	routes big.in "${args[@]}"
	assert_output '0,86400,k0,100000,9999999999999999999999999999999999900000,1e+35
0,86400,k1,100000,9999999999999999999999999999999999900000,1e+35'
	# written with an exponent: the double of the exact sum
	sed 's/,9*$/,9.9999999999999999999999999999999999e34/' big.in > bige.in
	routes bige.in "${args[@]}"
	assert_output '0,86400,k0,100000,1e+40,1e+35
0,86400,k1,100000,1e+40,1e+35'
}

@test "sum: values 600 orders of magnitude apart, past 320 bits and back, exact" {
	# 1e300 - 1e300 leaves the small ones; k2 ends with 1e300
	printf '%s\n' 1,k1,1e300 2,k1,2.5e-300 3,k2,1e300 4,k1,-1e300 5,k2,1 \
		6,k1,0.1 7,k3,1e308 8,k3,1e308 9,k3,-1e308 > in
	run --separate-stderr fwin --csv --time-format s -t 1 -k 2 --tumble 1m --sum 3 --avg 3 in
	assert_success
	assert_output '0,60,k1,0.1,0.025
0,60,k2,1e+300,5e+299
0,60,k3,1e+308,3.333333333333333e+307'
	assert_equal "$stderr" ''
}

@test "sum: beyond the doubles: an empty cell and one message, never inf" {
	printf '%s\n' 1,a,1e308 2,a,1e308 3,b,-1.5e308 4,b,-1e308 5,c,1 > in
	run --separate-stderr fwin --csv --time-format s -t 1 -k 2 --tumble 1m --count --sum 3 --avg 3 in
	assert_success
	assert_output '0,60,a,2,,1e+308
0,60,b,2,,-1.25e+308
0,60,c,1,1,1'
	assert_equal "$stderr" 'fwin: --sum 3: a result is beyond the range of doubles (about 1.8e308): its cell is empty'
}

@test "sum: 0.1 + 2e-1 is 0.3; a value of 39 digits is read as its double; one past the doubles is bad" {
	printf '%s\n' 1,a,0.1 2,a,2e-1 3,b,1E+21 4,b,-1e21 5,b,0.5 \
		6,c,123456789012345678901234567890123456789 7,c,1 \
		8,d,1.5e309 9,d,1e-5000 > in
	run --separate-stderr fwin --csv --time-format s -t 1 -k 2 --tumble 1m --sum 3 in
	assert_success
	assert_output '0,60,a,0.3
0,60,b,0.5
0,60,c,1.2345678901234568e+38
0,60,d,0'
	assert_equal "$stderr" 'fwin: in:8: field 3: a number beyond the range of doubles "1.5e309"; record skipped
fwin: 1 bad record skipped'
}

# mixed [N [SPAN]]: N (6000) values for window merges: exponents near and
# far, big plain decimals, over SPAN (2000) seconds and 5 keys, out of
# order
mixed() {
	seq 1 "${1:-6000}" | awk -v span="${2:-2000}" '{ k = $1 % 5
		if ($1 % 7 == 0) v = sprintf("%de%d", $1 % 10 - 5, ($1 * 37) % 601 - 300)
		else if ($1 % 7 == 1) v = "99999999999999999999999999999999999.99"
		else if ($1 % 7 == 2) v = sprintf("%e", $1 / 7.0)
		else v = sprintf("%d.%02d", $1 % 1000, $1 % 100)
		printf "%d,k%d,%s\n", ($1 * 331) % span, k, v }'
}

@test "sum: sliding panes, cumulating steps and merged sessions: the same bytes with 1, 2 and 4 threads" {
	mixed > in
	base=(--csv --time-format s -t 1 -k 2 -l 2000s --sum 3 --avg 3 --count)
	for w in "--slide 400s,100s" "--cumulate 400s,50s" "--session 3s" "--tumble 400s"; do
		ALIKE_IN=in threads_alike "1 2 4" "${base[@]}" $w -
		ALIKE_IN=/dev/null threads_alike "1 2" "${base[@]}" $w in
		cmp out1 <(fwin --threads 1 "${base[@]}" $w - < in)
	done
	# a sliding window that starts on the grid is the tumbling window
	fwin "${base[@]}" --tumble 400s in > tumble
	fwin "${base[@]}" --slide 400s,100s in | awk -F, '$1 % 400 == 0' > slide
	cmp tumble slide
	# sessions merged out of order give the tumbling bytes of one
	# session holding everything
	fwin "${base[@]}" --session 3000s in > session
	fwin "${base[@]}" --tumble 4000s in | cut -d, -f3- > all
	cmp <(cut -d, -f3- session) all
}

@test "sum: restored in the middle, big sums and exponents: the bytes of a run that never stopped" {
	mixed > in
	head -3000 in > a.in
	tail -n +3001 in > b.in
	args=(--csv --time-format s -t 1 -k 2 -l 2000s --sum 3 --avg 3)
	for w in "--tumble 400s" "--slide 400s,100s" "--session 3s"; do
		rm -f s.ckpt	# (another pipeline's: fwin would not overwrite it)
		want=$(fwin $w "${args[@]}" in)
		fwin $w "${args[@]}" --checkpoint s.ckpt a.in > first
		run --separate-stderr fwin $w "${args[@]}" --restore s.ckpt --new-input b.in
		assert_success
		assert_equal "$(cat first; printf '%s\n' "$output")" "$want"
		run fwin --inspect s.ckpt
		assert_success
		assert_line --index 1 'format version   8'
	done
}

@test "sum: two halves' tables hold sums past 320 bits, folded and stored across them: the operator's bytes" {
	mixed 80000 20000 > in
	[ "$(wc -c < in)" -gt 1000000 ]
	for w in "-l 20000s --tumble 400s" "-l 20000s --cumulate 400s,50s" "--tumble 400s"; do
		args=(--csv --time-format s -t 1 -k 2 --count --sum 3 --avg 3 $w)
		late=(-l 20000s)	# (-l may be given once)
		[[ $w == -l* ]] && late=()
		want=$(fwin --threads 1 --mode stream "${late[@]}" "${args[@]}" - < in)
		run --separate-stderr fwin --stats --threads 2 "${args[@]}" in
		assert_success
		assert_regex "$stderr" 'in two halves$'
		assert_equal "$output" "$want"
	done
}

@test "increase: values with exponents add their doubles' exact values; too far apart in size, an empty cell said once" {
	printf '%s\n' 1,a,1e-300 2,a,1e300 3,a,5 4,b,1.5e3 5,b,2e3 6,c,0.1 7,c,2e-1 > in
	run --separate-stderr fwin --csv --time-format s -t 1 -k 2 --tumble 1m --increase 3 --rate 3 in
	assert_success
	# c: 0.1, then 2e-1 read as its double, 0.2000000000000000111...:
	# the exact increase 0.1000000000000000111... is nearest 0.1
	assert_output '0,60,a,,
0,60,b,500,8.333333333333334
0,60,c,0.1,0.0016666666666666668'
	assert_equal "$stderr" 'fwin: --increase 3: values too far apart in size to sum exactly: a cell is empty'
}

@test "sum: a table past --max-memory spills sorted runs, but not a sum past 320 bits: it gives up, the same bytes" {
	# 50000 keys; k77's two values 600 orders apart come together in its
	# group, which then names a block of the table's arena
	seq 1 200000 | awk '{ k = $1 % 50000; t = ($1 * 7919) % 200000
		if ($1 == 50077) { k = 77; t = 9763 }
		printf "%d,k%d,%s\n", t, k, ($1 == 77 ? "1e300" : ($1 == 50077 ? "1e-300" : $1 % 100)) }' > in
	args=(--csv --time-format s -t 1 -k 2 --tumble 1d --count --sum 3)
	want=$(fwin --mode stream -l 3d "${args[@]}" - < in)
	grep -q '^0,86400,k77,3,1e+300$' <<<"$want"
	mkdir tmp
	# (one thread: with a reading thread the table may spill k77's group
	# before its second value comes, and the runs' merge sums the two)
	TMPDIR=$PWD/tmp run --separate-stderr fwin --threads 1 --stats --max-memory 16M "${args[@]}" in
	assert_success
	[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch$'
	assert_equal "$output" "$want"
	TMPDIR=$PWD/tmp run --separate-stderr fwin --threads 2 --max-memory 16M "${args[@]}" in
	assert_equal "$output" "$want"
	# without values so far apart the table spills
	sed 's/,1e-300$/,1/; s/,1e300$/,5/' in > in2
	want=$(fwin --mode stream -l 3d "${args[@]}" - < in2)
	TMPDIR=$PWD/tmp run --separate-stderr fwin --stats --max-memory 16M "${args[@]}" in2
	assert_success
	[ -n "${FWIN_STRATEGY:-}" ] || assert_regex "$stderr" ', mode batch, aggregated as read, [0-9]+ sorted runs spilled'
	assert_equal "$output" "$want"
}

@test "sum: a value reads alike beside any other: plain, empty, signed, with an exponent, bad or missing, on every route" {
	# the records of one key in one window: 5 + 1000 - 2 + 7 + 7 + 1.5,
	# over the 6 values that are not NULL; line 2's empty value is NULL
	# (its record still counts), lines 5 and 6 are bad
	printf '%s\n' 1,a,5 2,a, 3,a,1e3 4,a,-2 5,a,x 6,a 7,a,+7 8,a,007 \
		9,a,1.5 10,b,2 > in
	args=(--csv -t 1 -k 2 --tumble 1m --count --sum 3 --avg 3)
	for t in 1 2 4; do
		for mode in stream batch; do
			for name in in -; do
				run --separate-stderr fwin --threads $t --mode $mode \
					"${args[@]}" "$name" < in
				assert_success
				assert_output $'0,60,a,7,1018.5,169.75\n0,60,b,1,2,2'
				assert_equal "$stderr" "fwin: $name:5: field 3: not a number \"x\"; record skipped
fwin: $name:6: field 3: missing (record has 2 fields); record skipped
fwin: 2 bad records skipped"
			done
		done
	done
}

@test "sum: a number beyond the range of doubles makes its record bad, and says so; in an expression, a usage error" {
	printf '%s\n' 1,a,2 2,a,1e400 3,a,-1e309 4,a,1e308 > in
	for t in 1 2; do
		run --separate-stderr fwin --threads $t --csv -t 1 -k 2 --tumble 1m --sum 3 in
		assert_success
		assert_output '0,60,a,1e+308'
		assert_equal "$stderr" 'fwin: in:2: field 3: a number beyond the range of doubles "1e400"; record skipped
fwin: in:3: field 3: a number beyond the range of doubles "-1e309"; record skipped
fwin: 2 bad records skipped'
	done
	run --separate-stderr fwin --csv -t 1 --tumble 1m --where '$3 < 1e400' in
	assert_failure 2
	assert_equal "${lines[0]-}${stderr%%$'\n'*}" "fwin: --where: at 6: bad number '1e400' (beyond the range of doubles)"
}
