#!/usr/bin/env bats
# -o sqlite:DB[:TABLE] (fwin(1): THE SQLITE SINK): rows upserted into a
# table of a SQLite database, read back here with the sqlite3 command.
load common

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	command -v sqlite3 >/dev/null || skip "no sqlite3 command (scripts/deps installs it)"
	printf 'ts,user,n\n1,a,1\n2,b,2\n5,a,3\n11,a,4\n3,a,5\n12,b,6\n25,a,7\n4,a,8\n' > in.csv
}

# release_hold: ends the lock holder's `cat hold`, if it is waiting (a
# FIFO opened read-write does not wait for a reader).
release_hold() {
	[ -p hold ] || return 0
	exec 5<>hold
	echo >&5
	exec 5>&-
	rm -f hold
}

teardown() {
	release_hold
}

LATE=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 20s --sum n --mode stream)

# rows DB [TABLE]: the table's rows in key order, one per line, "|" between
# cells, each cell's storage class after it.
rows() {
	sqlite3 "$1" "SELECT window_start, window_end, user, sum_n, typeof(sum_n) FROM ${2:-fwin} ORDER BY 1, 2, 3"
}

@test "the table holds each window's last row, typed; fwin's own table has the commit position" {
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:db in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output ""
	run rows db
	assert_output "0|10|a|17|integer
0|10|b|2|integer
10|20|a|4|integer
10|20|b|6|integer
20|30|a|7|integer"
	run sqlite3 db .schema
	assert_output 'CREATE TABLE fwin_checkpoint (tbl TEXT PRIMARY KEY, generation INTEGER NOT NULL, checkpoint TEXT);
CREATE TABLE IF NOT EXISTS "fwin" ("window_start" INTEGER, "window_end" INTEGER, "user" TEXT, "sum_n" NUMERIC, PRIMARY KEY ("window_start", "window_end", "user"));'
	run sqlite3 db 'SELECT * FROM fwin_checkpoint'
	assert_output "fwin|1|"
}

@test "the same table from a plain run's last row per window, with threads and in batch mode" {
	"$BATS_TEST_DIRNAME/ckpt/gen.sh" 20260301 20000 40 60 > g.csv
	A=(--csv -t 1 -k 2 --tumble 1m -l 20s --allowed-lateness 2m --count --sum 3 --mode stream)
	fwin "${A[@]}" g.csv 2>/dev/null |
		awk -F , '{ last[$1 FS $2 FS $3] = $0 } END { for (k in last) print last[k] }' |
		sort > want
	for t in 1 2 4; do
		run --separate-stderr fwin --threads $t "${A[@]}" -o "sqlite:t$t.db" g.csv
		assert_success
		sqlite3 -separator , "t$t.db" 'SELECT * FROM fwin' | sort > got
		cmp want got
	done
	fwin --csv -t 1 -k 2 --tumble 1m --count --sum 3 --mode batch g.csv | sort > want
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 1m --count --sum 3 --mode batch -o sqlite:b.db g.csv
	assert_success
	sqlite3 -separator , b.db 'SELECT * FROM fwin' | sort > got
	cmp want got
}

@test "types: ISO times and keys TEXT, counts INTEGER, sums NUMERIC; an exact sum past a double kept as its text" {
	printf 'ts,user,amount,item\n2026-01-01T00:00:01Z,alice,12345678901234567890.125,x\n2026-01-01T00:00:02Z,alice,0.1,y\n2026-01-01T00:00:03Z,bob,2.50,z\n' > m.csv
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 1m --count --sum amount --last item -o sqlite:m.db:daily m.csv
	assert_success
	run sqlite3 m.db '.schema daily'
	assert_output 'CREATE TABLE IF NOT EXISTS "daily" ("window_start" TEXT, "window_end" TEXT, "user" TEXT, "count" INTEGER, "sum_amount" NUMERIC, "last_item" TEXT, PRIMARY KEY ("window_start", "window_end", "user"));'
	run sqlite3 m.db 'SELECT *, typeof(window_start), typeof(count), typeof(sum_amount), CAST(sum_amount AS TEXT) FROM daily'
	assert_output "2026-01-01T00:00:00Z|2026-01-01T00:01:00Z|alice|2|12345678901234567890.225|y|text|integer|blob|12345678901234567890.225
2026-01-01T00:00:00Z|2026-01-01T00:01:00Z|bob|1|2.5|z|text|integer|real|2.5"
}

@test "a decimal of 16 or 17 significant digits is kept as its exact text, one of 15 (an exponent too) as a number; a floating result is a real" {
	printf 'ts,k,v\n1,a,12345678901234.56\n1,b,1.234567890123456\n1,c,99999999999999.99\n1,d,1234567890123.45\n1,e,1.5e3\n' > d.csv
	run --separate-stderr fwin --csv -H -t ts -k k --tumble 10s --sum v --max v --avg v -o sqlite:d.db d.csv
	assert_success
	run sqlite3 d.db 'SELECT k, CAST(sum_v AS TEXT), typeof(sum_v), CAST(max_v AS TEXT), typeof(max_v), typeof(avg_v) FROM fwin ORDER BY k'
	assert_output "a|12345678901234.56|blob|12345678901234.56|blob|real
b|1.234567890123456|blob|1.234567890123456|blob|real
c|99999999999999.99|blob|99999999999999.99|blob|real
d|1234567890123.45|real|1234567890123.45|real|real
e|1500|integer|1500|integer|integer"
	# the average is the double fwin prints
	run sqlite3 d.db "SELECT k FROM fwin WHERE avg_v = 12345678901234.56 OR avg_v = 99999999999999.98"
	assert_output "a
c"
}

@test "--changelog: -D deletes the row of a session a merge absorbed" {
	printf '1 a\n20 a\n4 a\n8 a\n40 a\n' > s.txt
	run --separate-stderr fwin -t 1 -k 2 --session 5s --allowed-lateness 30s --mode stream --changelog -o sqlite:s.db s.txt
	assert_success
	run sqlite3 s.db 'SELECT * FROM fwin ORDER BY 1'
	assert_output "1|13|a|3
20|25|a|1
40|45|a|1"
}

@test "another writer's tables are never touched; one DB holds several pipelines' tables" {
	sqlite3 db 'CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('"'"'keep me'"'"')'
	sqlite3 db .dump > before
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:db:late in.csv
	assert_success
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --count -o sqlite:db:counts in.csv
	assert_success
	run sqlite3 db 'SELECT * FROM notes' 'SELECT count(*) FROM late' 'SELECT * FROM counts ORDER BY 1, 3'
	assert_output "keep me
5
0|10|a|4
0|10|b|1
10|20|a|1
10|20|b|1
20|30|a|1"
	# a table of the same name and other columns is another pipeline's
	sqlite3 db .dump > before
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --count --max n -o sqlite:db:counts in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: db: the table counts holds rows of another pipeline (other columns); name another TABLE"
	sqlite3 db .dump | cmp before -
}

@test "a file that is not a SQLite database is refused and left as it was" {
	printf 'ts,user\n1,a\n' > notes.csv
	cp notes.csv keep.csv
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:notes.csv in.csv
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "fwin: notes.csv exists and is not a SQLite database; remove it or name another file"
	cmp notes.csv keep.csv
}

@test "a database fwin may not write is refused as it opens, and left as it was" {
	sqlite3 r.db 'CREATE TABLE o(x)'
	chmod 444 r.db
	cp r.db keep.db
	# root writes any file: the run is as nobody, who may not write r.db
	as=()
	if [ "$(id -u)" = 0 ]; then
		# (the scratch dirs of this run let nobody in)
		d=$PWD
		while [ "${d#"$BATS_RUN_TMPDIR"}" != "$d" ]; do
			chmod o+x "$d"
			d=$(dirname "$d")
		done
		chmod 777 .
		cp "$FWIN" ./fwin-bin && chmod 755 ./fwin-bin
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups ./fwin-bin)
	else
		as=("$FWIN")
	fi
	run --separate-stderr "${as[@]}" "${LATE[@]}" -o sqlite:r.db in.csv
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "fwin: r.db: the database is read-only to fwin; make it writable or name another file"
	cmp r.db keep.db
}

@test "a file shorter than SQLite's header is refused, through a link too; an empty file is a new database" {
	# SQLite itself takes a file of 1 to 99 bytes for an empty database
	printf '\n' > notes.txt
	printf 'x' > x.txt
	ln -s x.txt link
	for f in notes.txt link; do
		run --separate-stderr fwin "${LATE[@]}" -o "sqlite:$f" in.csv
		assert_failure 1
		assert_equal "$stderr" "fwin: $f exists and is not a SQLite database; remove it or name another file"
	done
	[ "$(od -An -c notes.txt)" = '  \n' ]
	[ "$(cat x.txt)" = x ]
	: > empty
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:empty in.csv
	assert_success
	run sqlite3 empty 'SELECT count(*) FROM fwin'
	assert_output 5
}

@test "a FIFO, a directory or a device in the database's place is refused, not waited on" {
	mkfifo ff
	mkdir dd
	ln -s ff link
	for f in ff:FIFO dd:directory link:FIFO /dev/null:device; do
		run --separate-stderr timeout 10 "$FWIN" "${LATE[@]}" -o "sqlite:${f%:*}" in.csv
		assert_failure 1
		assert_equal "$stderr" "fwin: ${f%:*} is a ${f##*:}, not a SQLite database; name another file"
	done
	[ -p ff ] && [ -z "$(ls dd)" ]
}

@test "a locked database is waited for 5 s, then exit 1 with a message" {
	sqlite3 db 'CREATE TABLE other (a)'
	mkfifo hold
	# A transaction held open until hold is written to. The holder says
	# "held" once it has the lock; nothing else opens the database before
	# then, or its read lock could make BEGIN EXCLUSIVE fail. teardown
	# releases it if the test fails first.
	{ printf '%s\n' 'BEGIN EXCLUSIVE;' 'INSERT INTO other VALUES (1);' \
		".print held"; cat hold; } 3>&- | sqlite3 db 3>&- > holder 2>&1 &
	wait_until 5 grep -qx held holder
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:db in.csv
	release_hold
	wait
	assert_failure 1
	assert_equal "$stderr" "fwin: db: the database is locked by another process (waited 5 s)"
	run sqlite3 db .tables
	assert_output "other"
}

@test "rows are committed when fwin waits for input, in one transaction per flush" {
	mkfifo feed
	fwin -t 1 -k 2 --tumble 10s --count -o sqlite:live.db 3>&- < feed &
	exec 4> feed
	printf '1 a\n2 b\n15 a\n' >&4
	wait_until 10 sh -c '[ "$(sqlite3 live.db "SELECT count(*) FROM fwin" 2>/dev/null)" = 2 ]'
	printf '31 a\n' >&4
	exec 4>&-
	wait
	run sqlite3 live.db 'SELECT * FROM fwin ORDER BY 1, 3'
	assert_output "0|10|a|1
0|10|b|1
10|20|a|1
30|40|a|1"
}

@test "count windows and rolling mode: the key is the primary key (the key's last row)" {
	run --separate-stderr fwin --csv -H -k user --count-window 2 --sum n -o sqlite:c.db in.csv
	assert_success
	run sqlite3 c.db .schema\ fwin 'SELECT * FROM fwin ORDER BY 1'
	assert_output 'CREATE TABLE IF NOT EXISTS "fwin" ("user" TEXT, "sum_n" NUMERIC, PRIMARY KEY ("user"));
a|15
b|8'
	run --separate-stderr fwin --csv -H -t ts --sum n -o sqlite:r.db in.csv
	assert_success
	run sqlite3 r.db 'SELECT * FROM fwin'
	assert_output "25|36"
}

@test "a restore puts the table back to its checkpoint's commit position" {
	A=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 20s --sum n)
	head -6 in.csv > grow.csv
	run --separate-stderr fwin "${A[@]}" --state s.ckpt -o sqlite:db grow.csv
	assert_success
	run fwin --inspect s.ckpt
	assert_line --regexp '^database +[1-9][0-9]* \(the generation of its last commit\)$'
	local pos=$(printf '%s\n' "$output" | sed -n 's/^database *\([0-9]*\) .*/\1/p')
	run sqlite3 db 'SELECT generation FROM fwin_checkpoint'
	assert_output "$pos"
	# rows written after the checkpoint, as a killed run leaves them: a
	# change (journaled with its value before) and a row that was not there
	local g=$((pos + 1))
	sqlite3 db "INSERT INTO fwin_journal_fwin (gen, existed, k1, k2, k3, c1, c2, c3, c4) SELECT $g, 1, window_start, window_end, user, window_start, window_end, user, sum_n FROM fwin WHERE user = 'a'; UPDATE fwin SET sum_n = 99 WHERE user = 'a'; INSERT INTO fwin_journal_fwin (gen, existed, k1, k2, k3) VALUES ($g, 0, 50, 60, 'z'); INSERT INTO fwin VALUES (50, 60, 'z', 1); UPDATE fwin_checkpoint SET generation = $g"
	# a restored run that commits nothing saves the position it restored
	run --separate-stderr fwin "${A[@]}" --state s.ckpt -o sqlite:db grow.csv
	assert_success
	assert_equal "$stderr" ""
	run sqlite3 db 'SELECT generation FROM fwin_checkpoint'
	assert_output "$pos"
	cp in.csv grow.csv
	run --separate-stderr fwin "${A[@]}" --state s.ckpt --flush -o sqlite:db grow.csv
	assert_success
	assert_equal "$stderr" ""
	run rows db
	assert_output "0|10|a|17|integer
0|10|b|2|integer
10|20|a|4|integer
10|20|b|6|integer
20|30|a|7|integer"
}

@test "kill -9 sweep: the table of one uninterrupted run" {
	# (records enough that runs are killed after commits mid-input, and
	# restored from them)
	"$BATS_TEST_DIRNAME/ckpt/gen.sh" 20260101 300000 50 20 > g.csv
	SQLITE=1 run --separate-stderr "$BATS_TEST_DIRNAME/ckpt/killsweep.sh" 108 12 g.csv -- \
		--csv -t 1 -k 2 --tumble 1m -l 30s --allowed-lateness 2m --count --sum 3
	[ "$status" -eq 0 ] || fail "$stderr"
	echo "# $output" >&3
	sqlite3 ref.db '.dump fwin' | sort > want
	sqlite3 out.db '.dump fwin' | sort > got
	cmp want got
	[ "$(sqlite3 out.db 'SELECT count(*) FROM fwin')" -gt 1000 ]
}

@test "-o sqlite: usage errors" {
	run --separate-stderr fwin -o sqlite: --count in.csv
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "fwin: -o sqlite: needs a database file (sqlite:DB[:TABLE])"
	for t in fwin_checkpoint FWIN_CHECKPOINT Fwin_journal_x SQLite_master; do
		run --separate-stderr fwin -o sqlite:db:$t --count in.csv
		assert_failure 2
		assert_equal "${stderr_lines[0]}" "fwin: -o sqlite:db:$t: names beginning 'fwin_' and 'sqlite_' are kept for fwin's and SQLite's own tables"
	done
	# TABLE is what follows the last ':', and must be a name
	for t in my-table 1x é 'a b'; do
		run --separate-stderr fwin -o "sqlite:db:$t" --count in.csv
		assert_failure 2
		assert_equal "${stderr_lines[0]}" "fwin: -o sqlite:db:$t: the TABLE '$t' (after the last ':') is not a name: letters, digits and '_', not first a digit"
	done
	run --separate-stderr fwin -o sqlite:db: --count in.csv
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "fwin: -o sqlite:db:: a TABLE name after ':'"
	[ -z "$(ls -d db* 2>/dev/null)" ]	# (no database made)
	# a DB path holding ':' is given with its TABLE
	run --separate-stderr fwin --csv -H -t ts --tumble 10s --count -o sqlite:a:b:_T1 in.csv
	assert_success
	run sqlite3 a:b 'SELECT count(*) FROM _T1'
	assert_output 3
}

@test "a table belongs to its checkpoint: another checkpoint's run, or one without, is refused" {
	run --separate-stderr fwin "${LATE[@]}" --checkpoint a.ckpt -o sqlite:db:t1 in.csv
	assert_success
	run --separate-stderr fwin "${LATE[@]}" --checkpoint b.ckpt -o sqlite:db:t1 in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: db: the table t1 belongs to the checkpoint $(pwd -P)/a.ckpt"
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:db:t1 in.csv
	assert_failure 1
	# SQLite names ignore case: T1 is the same table
	run --separate-stderr fwin "${LATE[@]}" --checkpoint b.ckpt -o sqlite:db:T1 in.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: db: the table t1 belongs to the checkpoint $(pwd -P)/a.ckpt"
	# another table of the same database is free; the owner's own run goes on
	run --separate-stderr fwin "${LATE[@]}" --checkpoint b.ckpt -o sqlite:db:t2 in.csv
	assert_success
	run --separate-stderr fwin "${LATE[@]}" --state a.ckpt -o sqlite:db:T1 in.csv
	assert_success
	# one lock for the table, however its name is written
	[ -e db:t1.lock ] && [ ! -e db:T1.lock ]
	run sqlite3 db 'SELECT tbl, checkpoint FROM fwin_checkpoint ORDER BY 1'
	assert_output "t1|$(pwd -P)/a.ckpt
t2|$(pwd -P)/b.ckpt"
	# once its checkpoint is gone, the table is free
	rm a.ckpt
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:db:t1 in.csv
	assert_success
}

@test "-o sqlite: is part of the pipeline: a checkpoint of a run to a file is refused, and the other way" {
	run --separate-stderr fwin "${LATE[@]}" --state b.ckpt -o out.csv in.csv
	assert_success
	run --separate-stderr fwin "${LATE[@]}" --state b.ckpt -o sqlite:db in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: b.ckpt was made without -o sqlite:, not with -o sqlite:"
	[ ! -e db ]
	run --separate-stderr fwin "${LATE[@]}" --state s.ckpt -o sqlite:db in.csv
	assert_success
	run --separate-stderr fwin "${LATE[@]}" --state s.ckpt -o out2.csv in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with -o sqlite:, not without -o sqlite:"
}

@test "--output-time is part of the pipeline: a window's row is updated by its bounds as printed" {
	A=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 30s --sum n --state s.ckpt -o sqlite:db)
	printf 'ts,user,n\n1,a,1\n11,a,4\n' > g.csv
	run --separate-stderr fwin "${A[@]}" g.csv
	assert_success
	printf '3,a,5\n' >> g.csv
	run --separate-stderr fwin "${A[@]}" --output-time iso g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made without --output-time, not with --output-time iso"
	run sqlite3 db 'SELECT * FROM fwin'
	assert_output '0|10|a|1'
	# auto is the default, given or not
	run --separate-stderr fwin "${A[@]}" --output-time auto g.csv
	assert_success
	run sqlite3 db 'SELECT * FROM fwin'
	assert_output '0|10|a|6'
	rm s.ckpt db
	run --separate-stderr fwin "${A[@]}" --output-time iso g.csv
	assert_success
	run --separate-stderr fwin "${A[@]}" g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --output-time iso, not without --output-time"
	run --separate-stderr fwin "${A[@]}" --output-time ms g.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --output-time iso, not --output-time ms"
}

@test "a run that restores the table's checkpoint and saves none leaves the table to that checkpoint, as it leaves an -o FILE" {
	A=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 20s --sum n)
	head -4 in.csv > grow.csv
	run --separate-stderr fwin "${A[@]}" --checkpoint a.ckpt -o sqlite:db grow.csv
	assert_success
	cp in.csv grow.csv
	run --separate-stderr fwin "${A[@]}" --restore a.ckpt -o sqlite:db grow.csv
	assert_success
	assert_equal "$stderr" ""
	run sqlite3 db 'SELECT generation > 1, checkpoint FROM fwin_checkpoint'
	assert_output "1|$(pwd -P)/a.ckpt"
	run --separate-stderr fwin "${A[@]}" --checkpoint b.ckpt -o sqlite:db grow.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: db: the table fwin belongs to the checkpoint $(pwd -P)/a.ckpt"
	run --separate-stderr fwin "${A[@]}" -o sqlite:db grow.csv
	assert_failure 1
	assert_equal "$stderr" "fwin: db: the table fwin belongs to the checkpoint $(pwd -P)/a.ckpt"
	[ ! -e b.ckpt ]
}

@test "--having: a row that stops passing is deleted from the table" {
	run --separate-stderr fwin "${LATE[@]}" --having 'sum_n < 10' -o sqlite:db in.csv
	assert_success
	assert_equal "$stderr" ""
	run rows db
	assert_output "0|10|b|2|integer
10|20|a|4|integer
10|20|b|6|integer
20|30|a|7|integer"
}

@test "two columns named alike are a usage error before anything is read or written: one would be lost" {
	# (--count --if E --count: both "count")
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --count --if 'n > 2' --count -o sqlite:db in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: -o sqlite: two columns are named 'count'; name one with --as"
	[ ! -e db ]
	# a key named final meets --emit-every's column, which no option
	# renames; op is no column of the table
	printf 'ts,final,op\n1,a,b\n' > f.csv
	run --separate-stderr fwin --csv -H -t ts -k final --tumble 10s --count --emit-every 1s -o sqlite:db f.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: -o sqlite: two columns are named 'final'"
	[ ! -e db ]
	run --separate-stderr fwin --csv -H -t ts -k op --tumble 10s --count --changelog -o sqlite:db f.csv
	assert_success
	assert_equal "$(sqlite3 db 'SELECT * FROM fwin')" '0|10|b|1'
	rm db
	# the same with JSON output; CSV keeps both
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --count --if 'n > 2' --count --output-format json in.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: JSON output: two columns are named 'count'; name one with --as"
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --count --if 'n > 2' --count in.csv
	assert_success
	assert_line -n 0 'window_start,window_end,user,count,count'
	run --separate-stderr fwin --csv -H -t ts -k user --tumble 10s --count --if 'n > 2' --as big --count -o sqlite:db in.csv
	assert_success
	run sqlite3 db 'SELECT window_start, user, big, count FROM fwin ORDER BY 1, 2'
	assert_output '0|a|3|4
0|b|0|1
10|a|1|1
10|b|1|1
20|a|1|1'
}

@test "a table dropped and made again by a pipeline of other columns: fwin's journal of the old one is made again" {
	A=(--csv -H -t ts -k user --tumble 10s --allowed-lateness 20s --mode stream)
	run --separate-stderr fwin "${A[@]}" --sum n --state a.ckpt -o sqlite:db:t in.csv
	assert_success
	# starting over: the table and its checkpoint removed
	sqlite3 db 'DROP TABLE t'
	rm a.ckpt
	run --separate-stderr fwin "${A[@]}" --count --sum n --state b.ckpt -o sqlite:db:t in.csv
	assert_success
	assert_equal "$stderr" ""
	run sqlite3 db 'SELECT window_start, user, count, sum_n FROM t ORDER BY 1, 2'
	assert_output "0|a|4|17
0|b|1|2
10|a|1|4
10|b|1|6"
	# and it restores: rows past the checkpoint are put back
	run --separate-stderr fwin "${A[@]}" --count --sum n --state b.ckpt --flush -o sqlite:db:t in.csv
	assert_success
	run sqlite3 db 'SELECT count(*) FROM t'
	assert_output 5
}

@test "a reader sees the last commit while fwin writes: a database fwin makes is in WAL mode, another keeps its own" {
	# 200,000 windows fired in one transaction (no wait for input), then
	# late records to a FIFO no one reads yet: fwin stops there, its
	# transaction open, until the test reads them
	awk 'BEGIN { for (i = 1; i <= 200000; i++) printf "%d,k%d,1\n", i, i % 7
		for (i = 0; i < 30000; i++) print "0,late,1" }' > big.csv
	mkfifo lf
	exec 5<> lf	# (fwin's open of lf does not wait for a reader)
	"$FWIN" --csv -t 1 -k 2 --tumble 1s -l 0 --count --late-file lf -o sqlite:db big.csv 3>&- 5>&- &
	local pid=$!
	wait_until 20 grep -q pipe_write "/proc/$pid/wchan"
	run sqlite3 db "SELECT name FROM sqlite_schema WHERE type = 'table'"
	local said=$output
	exec 6< lf	# (a reader before 5 closes: fwin never writes to none)
	exec 5>&-
	cat <&6 > late.out
	exec 6<&-
	wait "$pid"
	assert_equal "$said" fwin_checkpoint	# (the table is not made yet)
	run sqlite3 db 'PRAGMA journal_mode; SELECT count(*) FROM fwin'
	assert_output "wal
200000"
	[ "$(wc -l < late.out)" -eq 30000 ]
	# a database fwin did not make keeps its journal mode
	sqlite3 other.db 'CREATE TABLE other (a)'
	run --separate-stderr fwin "${LATE[@]}" -o sqlite:other.db in.csv
	assert_success
	run sqlite3 other.db 'PRAGMA journal_mode'
	assert_output delete
}

@test "a database locked by another writer in the middle of a run: one message, exit 1" {
	mkfifo feed hold
	"$FWIN" -t 1 -k 2 --tumble 10s --count -o sqlite:live.db 3>&- < feed 2> err &
	local pid=$!
	exec 4> feed
	printf '1 a\n15 a\n' >&4
	wait_until 10 sh -c '[ "$(sqlite3 live.db "SELECT count(*) FROM fwin" 2>/dev/null)" = 1 ]'
	# the lock held until hold is written to (see the test above)
	{ printf '%s\n' 'BEGIN EXCLUSIVE;' 'CREATE TABLE other (a);' ".print held"; cat hold; } 3>&- 4>&- |
		sqlite3 live.db 3>&- 4>&- > holder 2>&1 &
	wait_until 5 grep -qx held holder
	printf '31 a\n' >&4	# (fires [10, 20): a commit that waits)
	exec 4>&-
	local st=0
	wait "$pid" || st=$?
	release_hold
	wait
	assert_equal "$st" 1
	assert_equal "$(cat err)" "fwin: live.db: the database is locked by another process (waited 5 s)"
	run sqlite3 live.db 'SELECT * FROM fwin'
	assert_output '0|10|a|1'
}

@test "TABLE the name of an index, a view or a trigger: refused before anything is written" {
	sqlite3 db 'CREATE TABLE other (x); CREATE INDEX fwin ON other (x); CREATE VIEW v AS SELECT x FROM other; CREATE TRIGGER Tr AFTER INSERT ON other BEGIN SELECT 1; END'
	sqlite3 db .schema > before
	for t in "fwin:an index" "v:a view" "tr:a trigger"; do
		run --separate-stderr fwin "${LATE[@]}" --state s.ckpt -o "sqlite:db:${t%:*}" in.csv
		assert_failure 2
		assert_equal "$stderr" "fwin: db: ${t%:*} names ${t#*:}, not a table; name another TABLE"
		[ ! -e s.ckpt ]
	done
	sqlite3 db .schema | cmp - before
}

@test "one fwin at a time writes a table, with a checkpoint or without" {
	mkfifo feed
	"$FWIN" -t 1 -k 2 --tumble 10s --count -o sqlite:live.db 3>&- < feed &
	local pid=$!
	exec 4> feed
	printf '1 a\n15 a\n' >&4
	wait_until 10 sh -c '[ "$(sqlite3 live.db "SELECT count(*) FROM fwin" 2>/dev/null)" = 1 ]'
	printf '1 a\n' > one
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --count --state s.ckpt -o sqlite:live.db one
	assert_failure 1
	assert_equal "$stderr" "fwin: live.db:fwin: in use by another fwin (pid $pid)"
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --count -o sqlite:live.db:FWIN one
	assert_failure 1
	assert_equal "$stderr" "fwin: live.db:fwin: in use by another fwin (pid $pid)"
	[ ! -e s.ckpt ]
	# another table of the database is free
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --count -o sqlite:live.db:t2 one
	assert_success
	printf '31 a\n' >&4
	exec 4>&-
	wait "$pid"
	run sqlite3 live.db 'SELECT * FROM fwin ORDER BY 1'
	assert_output "0|10|a|1
10|20|a|1
30|40|a|1"
}
