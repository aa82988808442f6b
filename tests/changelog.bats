#!/usr/bin/env bats
# --changelog (fwin(1): CHANGELOG ROWS): every row starts with op; +I for a
# window's first row, -U with the row printed before and +U with the new
# one when it prints again, -D for a session a merge absorbed.
load common

# in.csv: records of two keys; 3 (user a) comes after the watermark passed
# 10, so with --allowed-lateness the window [0,10) of a fires again, as
# does it for 4 after 25.
setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	printf 'ts,user,n\n1,a,1\n2,b,2\n5,a,3\n11,a,4\n3,a,5\n12,b,6\n25,a,7\n4,a,8\n' > in.csv
}

LATE=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 20s --sum n --mode stream)

@test "allowed lateness: a window that fires again gives -U with its last row, then +U" {
	run --separate-stderr fwin "${LATE[@]}" --changelog in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "op,window_start,window_end,user,sum_n
+I,0,10,a,4
+I,0,10,b,2
-U,0,10,a,4
+U,0,10,a,9
+I,10,20,a,4
+I,10,20,b,6
-U,0,10,a,9
+U,0,10,a,17
+I,20,30,a,7"
}

@test "without --changelog the rows are what they were" {
	run --separate-stderr fwin "${LATE[@]}" in.csv
	assert_success
	assert_output "window_start,window_end,user,sum_n
0,10,a,4
0,10,b,2
0,10,a,9
10,20,a,4
10,20,b,6
0,10,a,17
20,30,a,7"
}

@test "json and tsv carry op too" {
	run --separate-stderr fwin "${LATE[@]}" --changelog --output-format json in.csv
	assert_success
	assert_line --index 0 '{"op":"+I","window_start":0,"window_end":10,"user":"a","sum_n":4}'
	assert_line --index 2 '{"op":"-U","window_start":0,"window_end":10,"user":"a","sum_n":4}'
	assert_line --index 3 '{"op":"+U","window_start":0,"window_end":10,"user":"a","sum_n":9}'
	run --separate-stderr fwin "${LATE[@]}" --changelog --output-format tsv in.csv
	assert_success
	assert_line --index 0 "$(printf 'op\twindow_start\twindow_end\tuser\tsum_n')"
	assert_line --index 3 "$(printf -- '-U\t0\t10\ta\t4')"
}

@test "--emit-every: partial rows, then the final one, as -U/+U pairs" {
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --emit-every 4s --sum n --changelog in.csv
	assert_success
	assert_equal "$stderr" "fwin: 2 late records dropped (the latest by 21s behind the watermark); -l 21s, --late-file or --mode batch keeps them"
	assert_output "op,window_start,window_end,user,sum_n,final
+I,0,10,a,4,0
+I,0,10,b,2,0
-U,0,10,a,4,0
+U,0,10,a,4,1
-U,0,10,b,2,0
+U,0,10,b,2,1
+I,10,20,a,4,0
+I,10,20,b,6,0
-U,10,20,a,4,0
+U,10,20,a,4,1
-U,10,20,b,6,0
+U,10,20,b,6,1
+I,20,30,a,7,0
-U,20,30,a,7,0
+U,20,30,a,7,1"
}

@test "sessions: a session a late record merges into a larger one is -D, the merged one +I" {
	printf '1 a\n20 a\n4 a\n8 a\n40 a\n' > s.txt
	run --separate-stderr fwin -t 1 -k 2 --session 5s --allowed-lateness 30s --mode stream --changelog s.txt
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(printf '%s\n' '+I	1	6	a	1' '-D	1	6	a	1' '+I	1	9	a	2' \
		'-D	1	9	a	2' '+I	1	13	a	3' '+I	20	25	a	1' '+I	40	45	a	1')"
}

@test "rolling mode: a key's later rows are updates, the same in batch and stream mode" {
	printf '1 a 1\n2 b 2\n3 a 5\n4 a 11\n' > r.txt
	run --separate-stderr fwin -t 1 -k 2 --sum 3 --changelog --mode stream r.txt
	assert_success
	assert_output "$(printf '%s\n' '+I	1	a	1' '+I	2	b	2' '-U	1	a	1' '+U	3	a	6' \
		'-U	3	a	6' '+U	4	a	17')"
	local stream=$output
	run --separate-stderr fwin -t 1 -k 2 --sum 3 --changelog --mode batch r.txt
	assert_success
	assert_equal "$output" "$stream"
}

@test "batch mode never fires twice: every row is +I, on every route" {
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --sum n --mode batch in.csv
	assert_success
	local plain=$output
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --sum n --mode batch --changelog in.csv
	assert_success
	assert_equal "$output" "$(printf '%s\n' "$plain" | sed '1s/^/op,/;2,$s/^/+I,/')"
	# the same through a pipe (the sorted replay), with threads and counts
	for t in 1 2 4; do
		run --separate-stderr fwin --threads $t --csv -H -t ts -k user --tumble 10s --sum n --mode batch --changelog < in.csv
		assert_equal "$output" "$(printf '%s\n' "$plain" | sed '1s/^/op,/;2,$s/^/+I,/')"
	done
	run --separate-stderr fwin --csv -H -k user --count-window 2 --sum n --changelog in.csv
	assert_success
	assert_output "op,user,sum_n
+I,a,4
+I,a,9
+I,b,8
+I,a,15"
}

# apply FILE: the table a consumer holds after applying FILE's changelog
# (tsv, no header) in order: a failed -U (not the row it holds) says so.
apply() {
	awk -F '\t' '{
		k = $2 FS $3 FS $4; v = $0; sub(/^[^\t]*\t/, "", v)
		if ($1 == "+I" || $1 == "+U") cur[k] = v
		else if ($1 == "-U" && cur[k] != v) { print "bad -U: " $0; exit 1 }
		else if ($1 == "-D") delete cur[k]
	} END { for (k in cur) print cur[k] }' "$1" | sort
}

@test "applied in order, the changelog holds each window's last row; threads give the same bytes" {
	"$BATS_TEST_DIRNAME/ckpt/gen.sh" 20260301 20000 40 60 > g.csv
	A=(--csv -t 1 -k 2 --tumble 1m -l 20s --allowed-lateness 2m --sum 3 --count --mode stream --output-format tsv)
	threads_alike "1 2 4" "${A[@]}" --changelog g.csv
	printf '%s\n' "$output" > cl.tsv
	grep -c '^-U' cl.tsv
	[ "$(grep -c '^-U' cl.tsv)" -gt 100 ]
	run --separate-stderr fwin "${A[@]}" g.csv
	printf '%s\n' "$output" | awk -F '\t' '{ last[$1 FS $2 FS $3] = $0 } END { for (k in last) print last[k] }' | sort > want
	apply cl.tsv > got
	cmp want got
}

@test "sessions kept for --allowed-lateness: each row's key read while the store makes room" {
	# 16000 records of 5000 keys: the store grows and sweeps while
	# rows fire, in the state's arena, where the rows' keys lie (it
	# read them after making room: a crash, or keys read from freed
	# memory)
	"$BATS_TEST_DIRNAME/../scripts/gen" -n 16000 -k 5000 --seed 7 --disorder 500 > g.csv
	A=(--csv -t 1 -k 2 --session 2s --allowed-lateness 5s --count --mode stream --changelog g.csv)
	threads_alike "1 2 4" "${A[@]}"
	assert_success
	[ "$(grep -c '^-D' out1)" -gt 100 ]
	# applied in order: the sessions of the batch run (no record is
	# late by more than the allowed lateness)
	run --separate-stderr fwin --csv -t 1 -k 2 --session 2s --count --mode batch g.csv
	printf '%s\n' "$output" | sort > want
	awk -F, '{ k = $2 FS $3 FS $4; v = $0; sub(/^[^,]*,/, "", v)
		if ($1 == "+I" || $1 == "+U") cur[k] = v
		else if ($1 == "-D" || $1 == "-U") delete cur[k]
	} END { for (k in cur) print cur[k] }' out1 | sort > got
	cmp want got
}

@test "a restore in the middle gives the bytes of one run, -U rows included" {
	A=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 20s --changelog --sum n)
	fwin "${A[@]}" --mode stream in.csv > ref.csv
	head -6 in.csv > grow.csv
	run --separate-stderr fwin "${A[@]}" --state s.ckpt -o out.csv grow.csv
	assert_success
	cp in.csv grow.csv
	run --separate-stderr fwin "${A[@]}" --state s.ckpt --flush -o out.csv grow.csv
	assert_success
	assert_equal "$stderr" ""
	cmp ref.csv out.csv
}

@test "kill -9 sweep with --changelog: the -o FILE of one uninterrupted run" {
	"$BATS_TEST_DIRNAME/ckpt/gen.sh" 20260101 30000 50 20 > g.csv
	run --separate-stderr "$BATS_TEST_DIRNAME/ckpt/killsweep.sh" 107 12 g.csv -- \
		--csv -t 1 -k 2 --tumble 1m -l 30s --allowed-lateness 2m --count --sum 3 --changelog
	[ "$status" -eq 0 ] || fail "$stderr"
	echo "# $output" >&3
	grep -q '^-U' ref.out
	cmp ref.out out
}

@test "--changelog is part of the pipeline: a checkpoint without it is refused, and one with it" {
	run --separate-stderr fwin "${LATE[@]}" --checkpoint s.ckpt in.csv
	assert_success
	run --separate-stderr fwin "${LATE[@]}" --changelog --restore s.ckpt in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made without --changelog, not with --changelog"
	run --separate-stderr fwin "${LATE[@]}" --changelog --checkpoint c.ckpt in.csv
	assert_success
	run --separate-stderr fwin "${LATE[@]}" --restore c.ckpt in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: c.ckpt was made with --changelog, not without --changelog"
}

@test "--output-time and --output-format are part of the pipeline: a -U row is the row as printed before" {
	A=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 30s --sum n --changelog --state s.ckpt)
	printf 'ts,user,n\n1,a,1\n11,a,4\n' > g.csv
	run --separate-stderr fwin "${A[@]}" g.csv
	assert_success
	assert_output $'op,window_start,window_end,user,sum_n\n+I,0,10,a,1'
	printf '3,a,5\n' >> g.csv
	run --separate-stderr fwin "${A[@]}" --output-time iso g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made without --output-time, not with --output-time iso"
	assert_output ""
	run --separate-stderr fwin "${A[@]}" --output-format json g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made without --output-format, not with --output-format json"
	assert_output ""
	# the input's format, given or not, and auto are what it was made with
	run --separate-stderr fwin "${A[@]}" --output-format csv --output-time auto g.csv
	assert_success
	assert_output $'-U,0,10,a,1\n+U,0,10,a,6'
	rm s.ckpt
	run --separate-stderr fwin "${A[@]}" --output-format tsv --output-time iso g.csv
	assert_success
	run --separate-stderr fwin "${A[@]}" --output-format tsv --output-time s g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --output-time iso, not --output-time s"
	run --separate-stderr fwin "${A[@]}" --output-time iso g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --output-format tsv, not without --output-format"
}

@test "--having: a row that stops passing is -D with the row printed; one that never passed prints nothing" {
	run --separate-stderr fwin "${LATE[@]}" --changelog --having 'sum_n < 10' in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "op,window_start,window_end,user,sum_n
+I,0,10,a,4
+I,0,10,b,2
-U,0,10,a,4
+U,0,10,a,9
+I,10,20,a,4
+I,10,20,b,6
-D,0,10,a,9
+I,20,30,a,7"
	# after a -D the window starts again: its next passing row is +I
	printf '1 a 1\n12 a 5\n3 a 5\n4 a -3\n' > in2
	run fwin -t 1 --time-format s -k 2 --mode stream --tumble 10s \
	    --allowed-lateness 1m --sum 3 --changelog --having 'sum_3 < 5' in2
	assert_success
	assert_output $'+I\t0\t10\ta\t1\n-D\t0\t10\ta\t1\n+I\t0\t10\ta\t3'
}
