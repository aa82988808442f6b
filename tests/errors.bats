#!/usr/bin/env bats
# Bad records, --strict, -o and write errors, --stats. fwin(1): OUTPUT, EXIT STATUS, DIAGNOSTICS.
load common

STATS_TAIL='peak state [0-9]+ bytes, [0-9]+(\.[0-9]+)? s, [0-9]+(\.[0-9]+)? records/s, mode '

# --- bad records ---

@test "standard input or output closed by whoever started fwin: said, exit 1, and no file fwin opens takes its place" {
	printf '1 a\n7 b\n' > in
	# (a reading thread's pipe took fd 0 and was read as the input: the
	# run waited forever)
	run --separate-stderr timeout 10 bash -c '"$0" -t 1 --tumble 5s <&-' "$FWIN"
	assert_failure 1
	assert_equal "$stderr" "fwin: -: Bad file descriptor"
	run --separate-stderr timeout 10 bash -c '"$0" -t 1 --tumble 5s in >&-' "$FWIN"
	assert_failure 1
	assert_equal "$stderr" "fwin: standard output: Bad file descriptor"
	# with -o the run goes on; its checkpoint's files stay its own
	run --separate-stderr timeout 10 bash -c '"$0" -t 1 --tumble 5s --checkpoint c.ckpt -o out in >&-' "$FWIN"
	assert_success
	assert_equal "$(cat out)" $'0\t5\t1'
	run fwin --inspect c.ckpt
	assert_success
}

@test "bad record: a missing field" {
	printf '10 a 1 5\n11 a 2\n12 a 3 7\n' > in
	run --separate-stderr fwin -t 1 -k 2 --sum 4 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t12'
	assert_equal "$stderr" $'fwin: in:2: field 4: missing (record has 3 fields); record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: a missing key field, the record has one field" {
	printf '10 a\n11\n12 a\n' > in
	run --separate-stderr fwin -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t2'
	assert_equal "$stderr" $'fwin: in:2: field 2: missing (record has 1 field); record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: a missing field is named from the header with -H" {
	printf 'ts,user,amount\n10,a,1\n11,a\n12,b,2\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --sum amount --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,user,sum_amount\n10,15,a,1\n10,15,b,2'
	assert_equal "$stderr" $'fwin: in:3: field amount: missing (record has 2 fields); record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: a bad time" {
	printf '10 a\nabc a\n12 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" $'fwin: in:2: field 1: bad time "abc"; record skipped\nfwin: 1 bad record skipped'
	printf 'abc a\n10 a\n12 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "abc"; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: a bad time, by name with -H, header is line 1" {
	printf 'ts,user\n10,a\nsoon,b\n11,a\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,user,count\n10,15,a,2'
	assert_equal "$stderr" $'fwin: in:3: field ts: bad time "soon"; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: the value shown is cut at 40 bytes" {
	printf '10 a\nabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t1'
	assert_equal "$stderr" $'fwin: in:2: field 1: bad time "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN..."; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: not a number" {
	printf '10 a 1\n11 a x1\n12 a 2\n' > in
	run --separate-stderr fwin -t 1 -c --sum 3 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2\t3'
	assert_equal "$stderr" $'fwin: in:2: field 3: not a number "x1"; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: not a number, by name with -H" {
	printf 'ts,amount\n10,1\n11,abc\n12,2.5\n' > in
	run --separate-stderr fwin --csv -H -t ts --sum amount --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,sum_amount\n10,15,3.5'
	assert_equal "$stderr" $'fwin: in:3: field amount: not a number "abc"; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: an unterminated quoted field at end of input" {
	printf 'ts,user\n10,a\n11,"b\n12,c\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	# reading resumes at the line after the one the bad record began on
	assert_output $'window_start,window_end,user,count\n10,15,a,1\n10,15,c,1'
	assert_equal "$stderr" $'fwin: in:3: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
	printf '10,a\n11,"b' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output '10,15,a,1'
	assert_equal "$stderr" $'fwin: in:2: unterminated quoted field; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: an undoubled quote that leaves a quoted field open at the line end" {
	# '"a"b' and '"a" ' (a blank after the closing quote) leave the
	# field open: read on, it took every line up to the next '"' into
	# one record, and no message said so
	printf 'ts,k,v\n1,"a"b,2\n\n3,"",3\n4,c,4\n5,"a" \r\n6,"d",6\n7,"q"r,s",7\n' > in
	for mode in stream batch; do
		run --separate-stderr fwin --mode $mode --csv -H -t ts -k k \
		    --tumble 10s --sum v --bad-file bad in
		assert_success
		assert_output $'window_start,window_end,k,sum_v\n0,10,,3\n0,10,c,4\n0,10,d,6\n0,10,"q""r,s",7'
		assert_equal "$stderr" $'fwin: in:2: a \'"\' inside a quoted field is not doubled; record skipped\nfwin: in:6: a \'"\' inside a quoted field is not doubled; record skipped\nfwin: 2 bad records skipped'
		assert_equal "$(cat bad)" $'1,"a"b,2\n5,"a" '
		rm bad
	done
	run --separate-stderr fwin --strict --csv -H -t ts -k k --tumble 10s in
	assert_failure 1
	assert_output 'window_start,window_end,k,count'
	assert_equal "$stderr" $'fwin: in:2: a \'"\' inside a quoted field is not doubled'
}

@test "bad record: a header name with a line end or a TAB shows them as '?', so that each message is one line" {
	printf '"t\ns",k,"v\tw"\r\n1,a,1\r\nx,b,1\r\n2,c,z\r\n3,d\r\n' > in
	run --separate-stderr fwin --csv -H -t 1 -k k --sum 3 --tumble 10s in
	assert_success
	assert_output $'window_start,window_end,k,sum_v\tw\n0,10,a,1'
	assert_equal "$stderr" $'fwin: in:4: field t?s: bad time "x"; record skipped\nfwin: in:5: field v?w: not a number "z"; record skipped\nfwin: in:6: field v?w: missing (record has 2 fields); record skipped\nfwin: 3 bad records skipped'
}

@test "bad record: LINE is the physical line, after a record spanning lines" {
	printf 'ts,user\n10,"a\nb"\nxx,c\n11,d\n' > in
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 5s in
	assert_success
	assert_output 'window_start,window_end,user,count
10,15,"a
b",1
10,15,d,1'
	assert_equal "$stderr" $'fwin: in:4: field ts: bad time "xx"; record skipped\nfwin: 1 bad record skipped'
}

@test "bad record: FILE and LINE of the file it is in, among several" {
	printf '10 a\nq a\n' > a
	printf '11 a\nzz a\n12 a\n' > b
	run --separate-stderr fwin -t 1 --tumble 5s a - b < a
	assert_success
	assert_output $'10\t15\t4'
	assert_equal "$stderr" $'fwin: a:2: field 1: bad time "q"; record skipped\nfwin: -:2: field 1: bad time "q"; record skipped\nfwin: b:2: field 1: bad time "zz"; record skipped\nfwin: 3 bad records skipped'
}

@test "bad records: at most 10 messages, then the count; the rest is processed" {
	{
		printf '10 a\n'
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf 'x%d a\n' "$i"; done
		printf '12 a\n16 a\n'
	} > in
	run --separate-stderr fwin -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2\n15\t20\t1'
	local want="" i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		want+="fwin: in:$((i + 1)): field 1: bad time \"x$i\"; record skipped"$'\n'
	done
	want+="fwin: 12 bad records skipped"
	assert_equal "$stderr" "$want"
}

@test "bad records: mixed kinds, each message and the plural count" {
	printf '10 a 1\n11 a\n12 a b\nzz a 1\n13 a 2\n' > in
	run --separate-stderr fwin -t 1 -k 2 --sum 3 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t3'
	assert_equal "$stderr" 'fwin: in:2: field 3: missing (record has 2 fields); record skipped
fwin: in:3: field 3: not a number "b"; record skipped
fwin: in:4: field 1: bad time "zz"; record skipped
fwin: 3 bad records skipped'
}

# --- --strict ---

@test "bad record: with -H, more fields than the header (values shifted)" {
	# the first record's value 1,5 lost its quotes: no field of it is
	# taken, not even the time and key before the shift
	printf 'ts,k,v\n2026-01-01T00:00:01Z,a,1,5\n2026-01-01T00:00:02Z,a,2\n' > in
	for mode in stream batch; do
		run --separate-stderr fwin --mode $mode --csv -H -t ts -k k --tumble 1m --sum v in
		assert_success
		assert_output $'window_start,window_end,k,sum_v\n2026-01-01T00:00:00Z,2026-01-01T00:01:00Z,a,2'
		assert_equal "$stderr" $'fwin: in:2: 4 fields, the header has 3; record skipped\nfwin: 1 bad record skipped'
	done
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 1m --sum v --strict in
	assert_failure 1
	assert_equal "$stderr" "fwin: in:2: 4 fields, the header has 3"
	# quoted delimiters are one field; tsv counts tabs; fewer fields
	# are bad only when a referenced one is missing; the count is of
	# all the record's fields
	printf 'ts,k,v,w,x\n1,a,"1,5",,\n2,a,3,4,5,6,7\n3,a,4\n4,a\n' > in
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 10s --sum v in
	assert_success
	assert_output $'window_start,window_end,k,sum_v\n0,10,a,4'
	assert_equal "$stderr" $'fwin: in:2: field v: not a number "1,5"; record skipped\nfwin: in:3: 7 fields, the header has 5; record skipped\nfwin: in:5: field v: missing (record has 2 fields); record skipped\nfwin: 3 bad records skipped'
	printf 'ts\tk\n1\ta\n2\ta\tb\n' > in
	run --separate-stderr fwin --tsv -H -t ts -k k --tumble 10s in
	assert_output $'window_start\twindow_end\tk\tcount\n0\t10\ta\t1'
	assert_equal "$stderr" $'fwin: in:3: 3 fields, the header has 2; record skipped\nfwin: 1 bad record skipped'
	# without -H the fields are not counted
	printf '1,a,1,5\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --sum 3 in
	assert_output '0,10,a,1'
}

@test "--bad-file: every bad record appended as read, at any thread count" {
	{
		printf 'ts,k,v\n'
		for i in $(seq 1 30); do
			printf '%d,a,%d\n' $i $i
			printf '%d,b,"x\ny"\n' $i
			printf '%d,c,1,2\n' $i
		done
		printf 'zz,a,1\n'
	} > in
	printf 'kept from before\n' > badref
	{
		cat badref
		grep -v -e '^[0-9]*,a,[0-9]*$' -e '^ts,' in
	} > want
	for n in 1 2 4; do
		for mode in stream batch; do
			cp badref bad
			run --separate-stderr fwin --threads $n --mode $mode --csv -H -t ts -k k --tumble 100s --sum v --bad-file bad in
			assert_success
			assert_output $'window_start,window_end,k,sum_v\n0,100,a,465'
			assert_equal "$(tail -n 1 <<<"$stderr")" "fwin: 61 bad records skipped"
			cmp bad want || { diff bad want | head; false; }
		done
	done
	# a new file is created; --strict writes the record that ends the run
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 100s --sum v --strict --bad-file new in
	assert_failure 1
	assert_equal "$(cat new)" $'1,b,"x\ny"'
}

@test "--bad-file: a record past 1 GiB, read past and not kept, is said so and leaves no line" {
	# (made as read: a file of it would take a GiB of the disk)
	printf '%s\n' 'import sys' 'w = sys.stdout.buffer' \
	    'w.write(b"1 a\nx y\n")' \
	    'for _ in range(1025): w.write(b"x" * (1 << 20))' \
	    'w.write(b"\n2 b\n")' > long.py
	for n in 1 2; do
		rm -f bad
		run --separate-stderr fwin --threads $n -t 1 -k 2 --tumble 10s --bad-file bad < <(python3 long.py)
		assert_success
		assert_output $'0\t10\ta\t1\n0\t10\tb\t1'
		assert_equal "$stderr" 'fwin: -:2: field 1: bad time "x"; record skipped
fwin: -:3: record longer than 1 GiB; record skipped, not kept in --bad-file
fwin: 2 bad records skipped'
		assert_equal "$(cat bad)" 'x y'
	done
}

@test "--bad-file: not an input, -o, the late file or the checkpoint; once only" {
	printf '1 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s --bad-file in in
	assert_failure 2
	assert_equal "$stderr" $'fwin: --bad-file names the input in\nTry \'fwin --help\' for more information.'
	ln -s in link
	run --separate-stderr fwin -t 1 --tumble 5s --bad-file ./link in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --bad-file names the input in"
	run --separate-stderr fwin -t 1 --tumble 5s --bad-file out -o out in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: -o and --bad-file both name out"
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s --bad-file late --late-file late in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --late-file and --bad-file both name late"
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s --bad-file s.ckpt --state s.ckpt in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --state and --bad-file both name s.ckpt"
	run --separate-stderr fwin -t 1 --tumble 5s --bad-file a --bad-file b in
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "fwin: --bad-file may be given only once"
	[ ! -e a ] && [ ! -e out ]
}

@test "--strict: the first bad record is fatal, exit 1, no count" {
	printf '10 a\n16 a\nabc a\n20 a\nxyz a\n' > in
	run --separate-stderr fwin --mode stream --strict -t 1 --tumble 5s in
	assert_failure 1
	assert_output $'10\t15\t1'
	assert_equal "$stderr" 'fwin: in:3: field 1: bad time "abc"'
}

@test "--strict: an unterminated quote" {
	printf 'ts,user\n10,a\n11,"b\n' > in
	run --separate-stderr fwin --strict --csv -H -t ts -k user --tumble 5s in
	assert_failure 1
	assert_output 'window_start,window_end,user,count'
	assert_equal "$stderr" 'fwin: in:3: unterminated quoted field'
}

@test "--strict: no bad record, exit 0" {
	printf '10 a\n12 a\n' > in
	run --separate-stderr fwin --strict -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" ""
}

# --- -o ---

@test "-o FILE: rows go to FILE, which is created, then appended to" {
	printf '10 a\n16 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s -o out in
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	assert_equal "$(cat out)" $'10\t15\t1\n15\t20\t1'
	printf 'old\n' > out
	printf '10 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s -o out in
	assert_success
	run --separate-stderr fwin -t 1 --tumble 5s --output=out in
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
	assert_equal "$(cat out)" $'old\n10\t15\t1\n10\t15\t1'
}

@test "-o FILE in a directory that does not exist: exit 1" {
	printf '10 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s -o nodir/out in
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "fwin: nodir/out: No such file or directory"
}

@test "-o /dev/full and > /dev/full: exit 1, 'No space left on device'" {
	printf '10 a\n16 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s -o /dev/full in
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" '^fwin: [^'$'\n'']*No space left on device$'
	printf '10 a\n16 a\n' > in
	run --separate-stderr bash -c '"$1" -t 1 --tumble 5s in > /dev/full' _ "$FWIN"
	assert_failure 1
	assert_regex "$stderr" '^fwin: [^'$'\n'']*No space left on device$'
}

@test "a run whose rows cannot be written stops reading and firing: exit 1, 'No space left on device', the rest not read" {
	seq 1 200000 | awk '{ print $1 " k" ($1 % 7) }' > in
	for n in 1 2; do
		for s in "" ordered; do
			FWIN_STRATEGY=$s run --separate-stderr bash -c '"$1" --threads '$n' --mode stream --stats -t 1 -k 2 --tumble 1s -o /dev/full in' _ "$FWIN"
			assert_failure 1
			assert_equal "$(grep -c 'No space left on device$' <<<"$stderr")" 1
			# (a row a record: it stopped once its buffer was written)
			local read
			read=$(sed -n 's/^fwin: stats: records \([0-9]*\),.*/\1/p' <<<"$stderr")
			[ "$read" -lt 100000 ] || fail "read $read records after the write failed"
		done
	done
	# a window that fires more rows than could be printed (--fill, a
	# millisecond each for 11 days, 23 days) stops making them, whether
	# a record or the end of input fires it (timeout: it did not); a
	# batch run's are written at the end (its input out of order: not
	# held in a scratch file while it reads)
	printf '0,a\n1000000,b\n2000000,c\n' > stream.in
	printf '1000000,b\n0,a\n' > batch.in
	for mode in stream batch; do
		for n in 1 2; do
			run --separate-stderr timeout 60 "$FWIN" --threads $n --mode $mode --csv -t 1 -k 2 --tumble 1ms --fill -o /dev/full $mode.in
			assert_failure 1
			assert_equal "$stderr" "fwin: /dev/full: No space left on device"
		done
	done
}

# --- --stats ---

@test "--stats: one line on stderr with the counts" {
	printf '10 a\n12 b\n16 a\n11 a\n' > in
	# the window operator: K counts keys
	FWIN_STRATEGY=ordered run --separate-stderr fwin --mode stream --stats -t 1 -k 2 --tumble 5s < in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_regex "${stderr%$'\n'*}" "^fwin: stats: records 4, bad 0, late 1, in no window 0, windows fired 3, open windows 0, keys 2, ${STATS_TAIL}stream$"
	assert_equal "${stderr#*$'\n'}" "fwin: 1 late record dropped (the latest by 5s behind the watermark); -l 5s, --late-file or --mode batch keeps them"
	# a FILE, or standard input: aggregated as read, K counts (window,
	# key) groups
	run --separate-stderr fwin --mode stream --stats -t 1 -k 2 --tumble 5s in
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_regex "${stderr%$'\n'*}" "^fwin: stats: records 4, bad 0, late 1, in no window 0, windows fired 3, open windows 0, keys 3, ${STATS_TAIL}stream, aggregated as read$"
	run --separate-stderr fwin --mode stream --stats -t 1 -k 2 --tumble 5s < in
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_regex "${stderr%$'\n'*}" "^fwin: stats: records 4, bad 0, late 1, in no window 0, windows fired 3, open windows 0, keys 3, ${STATS_TAIL}stream, aggregated as read$"
	assert_equal "${stderr#*$'\n'}" "fwin: 1 late record dropped (the latest by 5s behind the watermark); -l 5s, --late-file or --mode batch keeps them"
}

@test "late records dropped are said at exit, with the largest distance" {
	printf '10 a\n30 a\n11 a\n5 a\n' > in
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t1\n30\t35\t1'
	assert_equal "$stderr" "fwin: 2 late records dropped (the latest by 25s behind the watermark); -l 25s, --late-file or --mode batch keeps them"
	# in batch mode none is late
	run --separate-stderr fwin --mode batch -t 1 --tumble 5s in
	assert_success
	assert_output $'5\t10\t1\n10\t15\t2\n30\t35\t1'
	assert_equal "$stderr" ""
	# with -l 25s they are kept
	run --separate-stderr fwin -t 1 --tumble 5s -l 25s in
	assert_success
	assert_output $'5\t10\t1\n10\t15\t2\n30\t35\t1'
	assert_equal "$stderr" ""
	# a late file takes them: nothing is said
	run --separate-stderr fwin -t 1 --tumble 5s --late-file late in
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(cat late)" $'11 a\n5 a'
}

@test "late records dropped under a checkpoint: the summary offers -l and --late-file, not --mode batch, which takes no checkpoint" {
	printf '10 a\n30 a\n11 a\n5 a\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s --checkpoint c.ckpt in
	assert_success
	assert_output $'10\t15\t1'
	assert_equal "$stderr" "fwin: 2 late records dropped (the latest by 25s behind the watermark); -l 25s or --late-file keeps them"
	printf '12 a\n' >> in
	run --separate-stderr fwin -t 1 --tumble 5s --restore c.ckpt in
	assert_success
	assert_output $'30\t35\t1'
	assert_equal "$stderr" "fwin: 1 late record dropped (the latest by 18s behind the watermark); -l 18s or --late-file keeps them"
}

@test "--stats: records in a gap between sliding windows" {
	printf '10 a\n13 a\n16 a\n' > in
	run --separate-stderr fwin --stats -t 1 --slide 2s,5s in
	assert_success
	assert_output $'10\t12\t1\n15\t17\t1'
	assert_regex "${stderr%$'\n'*}" "^fwin: stats: records 3, bad 0, late 0, in no window 1, windows fired 2, open windows 0, keys 1, ${STATS_TAIL}batch, in time order$"
	assert_equal "${stderr#*$'\n'}" "fwin: 1 record in no window dropped (between --slide windows whose step passes their size)"
}

@test "--stats: --no-flush leaves windows open" {
	printf '10 a\n12 b\n16 a\n' > in
	run --separate-stderr fwin --stats --no-flush -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1'
	assert_regex "$stderr" "^fwin: stats: records 3, bad 0, late 0, in no window 0, windows fired 2, open windows 1, keys 2, ${STATS_TAIL}stream(, keys over workers)?$"
}

@test "--stats: bad records are counted among the records read" {
	printf '10 a\nabc a\n12 a\n' > in
	run --separate-stderr fwin --stats -t 1 --tumble 5s in
	assert_success
	assert_output $'10\t15\t2'
	local lines
	mapfile -t lines <<< "$stderr"
	assert_equal "${#lines[@]}" 3
	assert_equal "${lines[0]}" 'fwin: in:2: field 1: bad time "abc"; record skipped'
	# the stats line and the count, in either order
	if [[ ${lines[1]} == "fwin: 1 bad record skipped" ]]; then
		assert_regex "${lines[2]}" "^fwin: stats: records 3, bad 1, late 0, in no window 0, windows fired 1, open windows 0, keys 1, ${STATS_TAIL}batch, in time order$"
	else
		assert_equal "${lines[2]}" "fwin: 1 bad record skipped"
		assert_regex "${lines[1]}" "^fwin: stats: records 3, bad 1, late 0, in no window 0, windows fired 1, open windows 0, keys 1, ${STATS_TAIL}batch, in time order$"
	fi
}

@test "--stats with an empty input" {
	run --separate-stderr fwin --stats -t 1 --tumble 5s < /dev/null
	assert_success
	assert_output ""
	assert_regex "$stderr" "^fwin: stats: records 0, bad 0, late 0, in no window 0, windows fired 0, open windows 0, keys 0, ${STATS_TAIL}stream, aggregated as read$"
}

@test "every record bad: exit 1, said at the end" {
	printf 'x a\ny b\n' > in
	run --separate-stderr fwin -t 1 --mode stream --tumble 1h in
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" $'fwin: in:1: field 1: bad time "x"; record skipped\nfwin: in:2: field 1: bad time "y"; record skipped\nfwin: all 2 records were bad; see the messages above'
	# one good record is enough for exit 0
	printf '1700000000 c\n' >> in
	run --separate-stderr fwin -t 1 --mode stream --tumble 1h in
	assert_success
	assert_equal "${lines[0]}" $'1699999200\t1700002800\t1'
}

@test "--max-future: a time too far ahead of the clock is bad, and moves no watermark" {
	printf '1700000000 a\n9000000000 b\n1700000100 a\n' > in
	run --separate-stderr fwin -t 1 --mode stream --tumble 1h --max-future 1d in
	assert_success
	assert_output $'1699999200\t1700002800\t2'
	assert_equal "$stderr" $'fwin: in:2: time 2255-03-14T16:00:00Z is 228 years in the future; record skipped\nfwin: 1 bad record skipped'
	# without it, that time closes the window and the last record is late:
	# the summary names the record that moved the watermark
	run --separate-stderr fwin -t 1 --mode stream --tumble 1h in
	assert_success
	assert_output $'1699999200\t1700002800\t1\n9000000000\t9000003600\t1'
	assert_equal "$stderr" "fwin: 1 late record dropped; in:2 (2255-03-14T16:00:00Z, $(years_until 9000000000) ahead of the clock) moved the watermark; --max-future 1d makes such records bad"
}

# years_until T: "N years" from now to the time T (seconds), in whole
# years of 365 days, as fwin says it.
years_until() {
	echo "$(( ($1 - $(date +%s)) / (365 * 86400) )) years"
}

# iso_times FROM TO: the ISO times of the seconds FROM..TO, one a line.
iso_times() {
	seq "$1" "$2" | sed 's/^/@/' | date -u -f - +%Y-%m-%dT%H:%M:%SZ
}

@test "late summary: one far-future time among today's records is named, with --max-future" {
	now=$(date +%s)
	{
		iso_times $((now - 2000)) $((now - 1985))
		echo 2255-03-14T16:00:00Z
		iso_times $((now - 1984)) $((now - 996))
	} | sed 's/$/ a/' > in
	assert_equal "$(wc -l < in)" 1006
	for th in 1 2 4; do
		run --separate-stderr bash -c '"$0" "$@" < in' "$FWIN" --threads $th -t 1 -k 2 --mode stream --tumble 1h
		assert_success
		assert_equal "$stderr" "fwin: 989 late records dropped; -:17 (2255-03-14T16:00:00Z, $(years_until 9000000000) ahead of the clock) moved the watermark; --max-future 1d makes such records bad"
	done
	# a named file, aggregated as read
	run --separate-stderr fwin -t 1 -k 2 --mode stream --tumble 1h in
	assert_success
	assert_equal "$stderr" "fwin: 989 late records dropped; in:17 (2255-03-14T16:00:00Z, $(years_until 9000000000) ahead of the clock) moved the watermark; --max-future 1d makes such records bad"
	# what the hint says: with --max-future 1d that record is bad, none late
	run --separate-stderr fwin -t 1 -k 2 --mode stream --tumble 1h --max-future 1d in
	assert_success
	assert_equal "$stderr" "fwin: in:17: time 2255-03-14T16:00:00Z is $(years_until 9000000000) in the future; record skipped
fwin: 1 bad record skipped"
	# a time less than a day ahead is no corrupt time: the usual summary
	{ iso_times $((now - 100)) $((now - 90)); iso_times $((now + 3600)) $((now + 3600)); iso_times $((now - 89)) $((now - 80)); } |
	    sed 's/$/ a/' > near
	run --separate-stderr fwin -t 1 -k 2 --mode stream --tumble 1h near
	assert_success
	assert_regex "$stderr" '^fwin: 10 late records dropped \(the latest by [0-9hms]+ behind the watermark\); -l [0-9hms]+, --late-file or --mode batch keeps them$'
}

@test "late summary: sessions judged over workers name a far-future time only when it came before the late records" {
	# the late record comes before the far-future one (in): the usual
	# summary; after it (in2): that record is named; whatever the
	# threads (with 3 or more, workers judge sessions)
	printf '100 a\n200 a\n50 a\n9000000000 a\n' > in
	printf '100 a\n9000000000 a\n50 a\n' > in2
	for th in 1 2 4; do
		run --separate-stderr fwin --threads $th -t 1 -k 2 --mode stream --session 10s in
		assert_success
		assert_equal "$stderr" "fwin: 1 late record dropped (the latest by 2m30s behind the watermark); -l 2m30s, --late-file or --mode batch keeps them"
		run --separate-stderr fwin --threads $th -t 1 -k 2 --mode stream --session 10s in2
		assert_equal "$stderr" "fwin: 1 late record dropped; in2:2 (2255-03-14T16:00:00Z, $(years_until 9000000000) ahead of the clock) moved the watermark; --max-future 1d makes such records bad"
	done
}

@test "late summary: the far-future time named is the last one before the late records, not one after them" {
	# 9000000000 moved the watermark, 50 was dropped, 9100000000 came
	# after: the first is named, whatever the window or the threads
	printf '100 a\n9000000000 a\n50 a\n9100000000 a\n' > in
	for w in "--tumble 10s" "--session 10s"; do
		for th in 1 2 4; do
			run --separate-stderr fwin --threads $th -t 1 -k 2 --mode stream $w in
			assert_success
			assert_equal "$stderr" "fwin: 1 late record dropped; in:2 (2255-03-14T16:00:00Z, $(years_until 9000000000) ahead of the clock) moved the watermark; --max-future 1d makes such records bad"
		done
	done
}

@test "late summary: the -l it suggests is the current lateness plus the largest distance" {
	printf '10 a\n20 a\n5 a\n' > in
	run --separate-stderr fwin --mode stream -t 1 -l 1s --tumble 10s in
	assert_success
	assert_output $'10\t20\t1\n20\t30\t1'
	assert_equal "$stderr" "fwin: 1 late record dropped (the latest by 14s behind the watermark); -l 15s, --late-file or --mode batch keeps them"
	# which keeps them
	run --separate-stderr fwin --mode stream -t 1 -l 15s --tumble 10s in
	assert_success
	assert_output $'0\t10\t1\n10\t20\t1\n20\t30\t1'
	assert_equal "$stderr" ""
	# a larger -l that still drops it is told the same one
	run --separate-stderr fwin --mode stream -t 1 -l 10s --tumble 10s in
	assert_success
	assert_equal "$stderr" "fwin: 1 late record dropped (the latest by 5s behind the watermark); -l 15s, --late-file or --mode batch keeps them"
}

@test "times outside 1677-2262 are said to be out of range, not bad" {
	printf '2300-01-01T00:00:00Z a\n1600-06-01T00:00:00Z a\n2000-01-01T00:00:00Z a\nnot-a-time a\n' > in
	run --separate-stderr fwin -t 1 --tumble 1h in
	assert_success
	assert_output $'2000-01-01T00:00:00Z\t2000-01-01T01:00:00Z\t1'
	assert_equal "$stderr" 'fwin: in:1: field 1: time out of range (1677-09-21 to 2262-04-11) "2300-01-01T00:00:00Z"; record skipped
fwin: in:2: field 1: time out of range (1677-09-21 to 2262-04-11) "1600-06-01T00:00:00Z"; record skipped
fwin: in:4: field 1: bad time "not-a-time"; record skipped
fwin: 3 bad records skipped'
	printf '2300-01-01 00:00:00\n' > in
	run --separate-stderr fwin -t 1,2 --time-format '%Y-%m-%d %H:%M:%S' --tumble 1h in
	assert_failure 1
	assert_equal "$stderr" 'fwin: in:1: field 1,2: time out of range (1677-09-21 to 2262-04-11) "2300-01-01 00:00:00"; record skipped
fwin: all 1 record was bad; see the messages above'
}

@test "--max-memory in stream mode: state past it stops the run, exit 1, the last checkpoint kept" {
	awk 'BEGIN { for (i = 0; i < 50000; i++) printf "%d,k%d,1\n", 1700000000 + i, i }' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1d --mode stream --max-memory 1M --state s.ckpt in
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" '^fwin: state would pass --max-memory 1M \([0-9]+ keys, [0-9]+ open windows\)$'
	# the checkpoint is the one made before the first record
	assert_regex "$("$FWIN" --inspect s.ckpt | grep '^records')" '^records +0 read'
	# enough memory: the same command runs
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1d --mode stream --max-memory 1G in
	assert_success
	assert_equal "${#lines[@]}" 50000
}

@test "bad record: bad records one after another among good ones, read a block at a time, each said with its own line and text, on every route" {
	# good records before and after, enough that the bad ones are framed
	# with the good ones from the bytes already read (fwin(1):
	# --checkpoint-every: a block of up to 32), where a block ends at the
	# first record read the long way
	{
		for i in $(seq 10 49); do echo "17000000$i,a,$i"; done
		printf '%s\n' abc,a,1 ,b,2 1700000060x,c,3
		for i in $(seq 10 49); do echo "17000001$i,b,$i"; done
		printf '%s\n' 1700000200,a 1700000201,,5
		for i in $(seq 10 49); do echo "17000002$i,c,$i"; done
	} > in.csv
	want_err='fwin: in.csv:41: field 1: bad time "abc"; record skipped
fwin: in.csv:42: field 1: bad time ""; record skipped
fwin: in.csv:43: field 1: bad time "1700000060x"; record skipped
fwin: in.csv:84: field 3: missing (record has 2 fields); record skipped
fwin: 4 bad records skipped'
	for t in 1 2; do
		for mode in stream batch; do
			args=(--threads $t --mode $mode --csv -t 1 -k 2 --tumble 10s
			    --count --sum 3)
			run --separate-stderr fwin "${args[@]}" --max-future 100000d \
				in.csv
			local want=$output
			assert_equal "$stderr" "$want_err"
			run --separate-stderr fwin "${args[@]}" in.csv
			assert_success
			assert_equal "$output" "$want"
			assert_equal "$stderr" "$want_err"
			run --separate-stderr fwin "${args[@]}" - < in.csv
			assert_equal "$output" "$want"
			assert_equal "$stderr" "${want_err//in.csv:/-:}"
		done
	done
	# the empty key is a key: its record counts
	run fwin --csv -t 1 -k 2 --tumble 10s --count in.csv
	assert_line '1700000200,1700000210,,1'
}

@test "bad record: where a bad record ends a block, the records framed after it are read again, and a resumed run goes on from the last record taken" {
	# a bad record in the middle of a block: the block ends with it and
	# the good records framed after it are framed again by the next read,
	# so that the position a checkpoint keeps is the last record's end
	{
		for i in $(seq 10 29); do echo "17000000$i,a,$i"; done
		echo 1700000030,b,x
		for i in $(seq 31 59); do echo "17000000$i,b,$i"; done
	} > all.csv
	head -n 40 all.csv > in.csv
	args=(--threads 1 --csv -t 1 -k 2 --tumble 10s --count --sum 3)
	run --separate-stderr fwin "${args[@]}" all.csv
	assert_success
	local want=$output
	assert_equal "$stderr" 'fwin: all.csv:21: field 3: not a number "x"; record skipped
fwin: 1 bad record skipped'
	run --separate-stderr fwin "${args[@]}" --state s.ckpt -o out.csv in.csv
	assert_success
	tail -n +41 all.csv >> in.csv
	run --separate-stderr fwin "${args[@]}" --state s.ckpt --flush \
		-o out.csv in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(cat out.csv)" "$want"
}

@test "bad record: a record read in one pass (one key, a counted time, sums) reads as the long way reads it, with -H and without, on every route" {
	# each line a shape the one-pass reading must take or leave to the
	# long way (--max-future, here far ahead of every time, takes every
	# record the long way; --where and --if take the one pass as the
	# rest does): times bad, empty, too long or out of range; keys empty or
	# missing; values signed, padded, with exponents, past 38 digits,
	# past 64 bits, empty, not numbers; too few and too many fields
	printf '%s\n' 'ts,k,v,w' 1700000000,a,5,1 1700000001,a,,2 \
		1700000002,a,-2,+3 1700000003,b,007,1.5 1700000004,b,1e3,x \
		abc,a,1,1 ,a,1,1 17000000050000000000000,a,1,1 \
		1700000006x,a,1,1 1700000007,,4,4 1700000008,a \
		1700000009,a,3,4,extra 1700000010,a,' 4',1 1700000011,a,'4 ',1 \
		1700000012,c,99999999999999999999999999999999999999999,1 \
		1700000013,c,18446744073709551616,2 1700000014,c,.5,3. \
		1700000015,c,-0,1E-2 1700000016,c,inf,1 1700000017,d,12,34 \
		1700000018 > in.csv
	tail -n +2 in.csv > bare.csv
	for t in 1 2 4; do
		for mode in stream batch; do
			for f in in.csv bare.csv; do
				h=; [ "$f" = in.csv ] && h=-H
				for aggs in '--count --sum 3 --avg 4' --count; do
					# shellcheck disable=SC2206
					args=(--threads $t --mode $mode --csv $h -t 1
					    -k 2 --tumble 10s $aggs)
					run --separate-stderr fwin "${args[@]}" \
						--max-future 100000d "$f"
					local want=$output want_err=$stderr
					run --separate-stderr fwin "${args[@]}" "$f"
					assert_success
					assert_equal "$output" "$want"
					assert_equal "$stderr" "$want_err"
					run --separate-stderr fwin "${args[@]}" \
						--where '1 == 1' "$f"
					assert_equal "$output" "$want"
					assert_equal "$stderr" "$want_err"
					run --separate-stderr fwin "${args[@]}" - < "$f"
					assert_equal "$output" "$want"
					assert_equal "$stderr" \
						"${want_err//fwin: $f:/fwin: -:}"
					# a --where that drops some, and an --if
					run --separate-stderr fwin "${args[@]}" \
						--where '$3 > 2' --count --if '$4 >= 2' \
						--max-future 100000d "$f"
					want=$output want_err=$stderr
					run --separate-stderr fwin "${args[@]}" \
						--where '$3 > 2' --count --if '$4 >= 2' "$f"
					assert_equal "$output" "$want"
					assert_equal "$stderr" "$want_err"
				done
			done
		done
	done
	# and what it reads, by hand: a's 5 and -2 over three records (its
	# second value NULL), b's 7 (its 1e3 comes with w's x: bad), the
	# empty key's 4; c's value of 41 digits read as its double, so its
	# sum is written as one; its inf is bad
	run --separate-stderr fwin --csv -H -t 1 -k 2 --tumble 10s --count \
		--sum 3 --avg 4 in.csv
	assert_success
	assert_output 'window_start,window_end,k,count,sum_v,avg_w
1700000000,1700000010,,1,4,4
1700000000,1700000010,a,3,3,2
1700000000,1700000010,b,1,7,1.5
1700000010,1700000020,c,4,1e+41,1.5025
1700000010,1700000020,d,1,12,34'
	[ "$(printf '%s\n' "$stderr" | tail -n 1)" = \
		"fwin: 11 bad records skipped" ]
}
