#!/usr/bin/env bats
# fwin never destroys what is not its own (fwin(1), "Checkpoints", FILES):
# every path it will write is checked before anything is created or
# changed. Each test asserts the exit status, the exact message, and that
# every file that is not fwin's is byte for byte what it was (cmp against
# a copy), with no lock or temporary file made beside it.
load common

ARGS=(-t 1 -k 2 --tumble 10s --mode stream)

BG_PID=
teardown() {
	[[ -z $OPEN_DIR ]] || rm -rf "$OPEN_DIR"
	if [[ -n $BG_PID ]]; then
		kill -KILL "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
	exec 5>&- 2>/dev/null || true
}

# generation FILE: a checkpoint's generation.
generation() {
	"$FWIN" --inspect "$1" | sed -n 's/^generation  *//p'
}

# nothing_made DIR: DIR holds no lock and no temporary file of a save.
nothing_made() {
	run find "${1:-.}" -name '*.lock' -o -name '.*.tmp.*'
	assert_output ""
}

# as_nobody CMD...: CMD as the unprivileged user nobody (when fwin runs as
# root); skips the test when that cannot be done.
as_nobody() {
	if [[ $(id -u) != 0 ]]; then
		"$@"
		return
	fi
	id nobody >/dev/null 2>&1 || skip "no user nobody to run as"
	command -v setpriv >/dev/null || skip "no setpriv(1) to run as nobody"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	printf '1 a\n2 b\n3 a\n12 b\n' > in.txt
}

# in_open_dir: moves to a new directory of /tmp that any user may reach
# and write (the test's own lies under directories only its owner may
# enter), with in.txt.
OPEN_DIR=
in_open_dir() {
	OPEN_DIR=$(mktemp -d /tmp/fwin-guard.XXXXXX)
	chmod 0777 "$OPEN_DIR"
	cp in.txt "$OPEN_DIR/in.txt"
	chmod 0644 "$OPEN_DIR/in.txt"
	cd "$OPEN_DIR"
}

@test "--checkpoint over a text file: refused, exit 1, the file untouched, nothing made" {
	echo "my notes" > notes.txt
	cp notes.txt notes.before
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint notes.txt in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: notes.txt exists and is not an fwin checkpoint; remove it or name another file"
	assert_output ""
	cmp notes.txt notes.before
	nothing_made
	# --state reads it as a checkpoint: refused as damaged, untouched,
	# before a lock is made (its own, or the -o file's)
	run --separate-stderr fwin "${ARGS[@]}" --state notes.txt -o out.txt in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: notes.txt: truncated: too short for a checkpoint header"
	cmp notes.txt notes.before
	nothing_made
	[ ! -e out.txt ]
}

@test "--checkpoint over a FIFO, a directory or a device: refused, not replaced" {
	mkfifo ff
	run --separate-stderr timeout 10 "$FWIN" "${ARGS[@]}" --checkpoint ff in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: ff is a FIFO, not an fwin checkpoint; name another file"
	[ -p ff ]
	mkdir dir
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint dir in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: dir is a directory, not an fwin checkpoint; name another file"
	[ -d dir ]
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint /dev/null in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: /dev/null is a device, not an fwin checkpoint; name another file"
	[ -c /dev/null ]
	[ ! -e /dev/null.lock ]
	nothing_made
}

@test "--checkpoint over a damaged checkpoint: refused, exit 1, untouched" {
	fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt > /dev/null
	rm s.ckpt.lock
	# a byte of the state in use (the payload starts at 4096)
	printf 'X' | dd of=s.ckpt bs=1 seek=4100 conv=notrunc 2>/dev/null
	cp s.ckpt s.before
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt
	assert_failure 1
	assert_regex "$stderr" '^fwin: s\.ckpt: (checksum mismatch|corrupt)[^'$'\n'']*; remove it or name another file$'
	cmp s.ckpt s.before
	nothing_made
}

@test "--checkpoint over another pipeline's checkpoint: exit 2 naming what differs, untouched" {
	fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt > /dev/null
	rm s.ckpt.lock
	cp s.ckpt s.before
	run --separate-stderr fwin -t 1 -k 2 --tumble 20s --mode stream --checkpoint s.ckpt in.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --tumble 10s, not --tumble 20s"
	assert_output ""
	cmp s.ckpt s.before
	nothing_made
	# --state too, before a lock is made
	run --separate-stderr fwin -t 1 -k 2 --tumble 20s --mode stream --state s.ckpt -o out.txt in.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --tumble 10s, not --tumble 20s"
	cmp s.ckpt s.before
	nothing_made
	[ ! -e out.txt ]
}

@test "-o, --late-file or --bad-file naming a checkpoint, whole or damaged: refused, exit 1, untouched, nothing made" {
	fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt > /dev/null
	rm s.ckpt.lock
	head -c 5000 s.ckpt > d.ckpt
	cp s.ckpt s.before
	cp d.ckpt d.before
	printf '1 a\n2 b\n3 a\n12 b\n1 late\nbad\n' > late.txt
	for opt in -o --late-file --bad-file; do
		for f in s.ckpt d.ckpt; do
			run --separate-stderr fwin -t 1 -k 2 --tumble 1m --mode stream "$opt" "$f" late.txt
			assert_failure 1
			assert_equal "$stderr" "fwin: $opt names $f, an fwin checkpoint; name another file"
			assert_output ""
		done
	done
	cmp s.ckpt s.before
	cmp d.ckpt d.before
	nothing_made
	# the hourly pipeline goes on from its state
	run fwin "${ARGS[@]}" --state s.ckpt in.txt
	assert_success
}

@test "--checkpoint over the same pipeline's checkpoint without a restore: replaced, with a warning" {
	fwin "${ARGS[@]}" --checkpoint s.ckpt --no-flush in.txt > /dev/null
	g=$(generation s.ckpt)
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt --no-flush in.txt
	assert_success
	assert_equal "$stderr" "fwin: s.ckpt: its earlier state is replaced (--state continues it)"
	# a new state, not the earlier one continued
	assert_equal "$(generation s.ckpt)" "$g"
	assert_equal "$("$FWIN" --inspect s.ckpt | sed -n 's/^records  *//p')" "4 read, 0 bad, 0 late, 2 windows fired"
	# --state continues it, without a word
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt --no-flush in.txt
	assert_success
	assert_equal "$stderr" ""
	# --restore of it, saved to it: continued, no warning
	run --separate-stderr fwin "${ARGS[@]}" --restore s.ckpt --checkpoint s.ckpt --no-flush in.txt
	assert_success
	assert_equal "$stderr" ""
}

@test "--checkpoint naming the input: a usage error, the input untouched" {
	cp in.txt app.log
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint app.log app.log
	assert_failure 2
	assert_equal "$stderr" "fwin: --checkpoint names the input app.log
Try 'fwin --help' for more information."
	assert_output ""
	cmp app.log in.txt
	# the same file by another name: a hard link, a symbolic link, ./
	ln app.log hard.log
	ln -s app.log soft.log
	for name in hard.log soft.log ./app.log "$PWD/app.log"; do
		run --separate-stderr fwin "${ARGS[@]}" --state "$name" app.log
		assert_failure 2
		assert_equal "$stderr" "fwin: --state names the input app.log
Try 'fwin --help' for more information."
	done
	cmp app.log in.txt
	[ -L soft.log ]
	nothing_made
}

@test "--checkpoint and --late-file naming one file: a usage error, nothing made" {
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint lf.x --late-file lf.x in.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: --checkpoint and --late-file both name lf.x
Try 'fwin --help' for more information."
	[ ! -e lf.x ]
	nothing_made
}

@test "-o naming the input: a usage error, the input untouched (also through standard input)" {
	cp in.txt inp.csv
	run --separate-stderr fwin "${ARGS[@]}" -o inp.csv inp.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: -o names the input inp.csv
Try 'fwin --help' for more information."
	cmp inp.csv in.txt
	run --separate-stderr bash -c '"$0" "$@" < inp.csv' "$FWIN" "${ARGS[@]}" -o inp.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: -o names the file standard input reads from
Try 'fwin --help' for more information."
	cmp inp.csv in.txt
	run --separate-stderr fwin "${ARGS[@]}" --late-file inp.csv inp.csv
	assert_failure 2
	assert_equal "$stderr" "fwin: --late-file names the input inp.csv
Try 'fwin --help' for more information."
	cmp inp.csv in.txt
	nothing_made
}

@test "--checkpoint X -o X: a usage error naming both, not 'in use by another fwin'" {
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint X -o X in.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: --checkpoint and -o both name X
Try 'fwin --help' for more information."
	[ ! -e X ]
	# -o over the checkpoint a --restore reads
	fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt > /dev/null
	cp s.ckpt s.before
	run --separate-stderr fwin "${ARGS[@]}" --restore s.ckpt -o s.ckpt in.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: -o names the --restore checkpoint s.ckpt
Try 'fwin --help' for more information."
	cmp s.ckpt s.before
	# an SQLite database is written too
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint rows.db -o sqlite:rows.db in.txt
	assert_failure 2
	assert_equal "$stderr" "fwin: --checkpoint and -o sqlite: both name rows.db
Try 'fwin --help' for more information."
	[ ! -e rows.db ]
	cp in.txt in.db
	run --separate-stderr fwin "${ARGS[@]}" -o sqlite:in.db:t in.db
	assert_failure 2
	assert_equal "$stderr" "fwin: -o sqlite: names the input in.db
Try 'fwin --help' for more information."
	cmp in.db in.txt
	# two names of devices are not one file to refuse
	run --separate-stderr fwin "${ARGS[@]}" -o /dev/null --late-file /dev/null in.txt
	assert_success
}

# link_into_other_dir [RUNNER]: d1/s.ckpt is a link to d2/real.ckpt; runs
# through it (by RUNNER, e.g. as_nobody) save to the target.
link_into_other_dir() {
	mkdir d1 d2
	chmod 0777 d1 d2
	ln -s ../d2/real.ckpt d1/s.ckpt
	"$@" "$FWIN" "${ARGS[@]}" --checkpoint d1/s.ckpt --no-flush in.txt > /dev/null
	[ -L d1/s.ckpt ]
	[ "$(readlink d1/s.ckpt)" = ../d2/real.ckpt ]
	g=$(generation d2/real.ckpt)
	# the lock beside the link, none beside the target
	[ -f d1/s.ckpt.lock ]
	[ ! -e d2/real.ckpt.lock ]
	ino=$(stat -c %i d2/real.ckpt)
	# later saves reach the target, replaced atomically (a new inode)
	"$@" "$FWIN" "${ARGS[@]}" --state d1/s.ckpt --new-input --no-flush in.txt > /dev/null
	[ -L d1/s.ckpt ]
	[ "$(stat -c %i d2/real.ckpt)" != "$ino" ]
	(($(generation d2/real.ckpt) > g))
	[ ! -e d2/real.ckpt.lock ]
	nothing_made d2
}

@test "--checkpoint through a symbolic link: the link stays, its target is replaced, the lock beside the link" {
	link_into_other_dir
	# a link in the target's own directory: the lock beside the target
	ln -s real.ckpt d2/same.ckpt
	fwin "${ARGS[@]}" --state d2/same.ckpt --new-input --no-flush in.txt > /dev/null
	[ -L d2/same.ckpt ]
	[ -f d2/real.ckpt.lock ]
	[ ! -e d2/same.ckpt.lock ]
}

@test "--checkpoint through a symbolic link, as an unprivileged user" {
	in_open_dir
	as_nobody true
	link_into_other_dir as_nobody
	[ "$(stat -c %U d2/real.ckpt)" = "$(as_nobody id -un)" ]
}

@test "a link to another program's file elsewhere (/etc/passwd): refused, no lock beside it, as root and as nobody" {
	mkdir etc
	printf 'root:x:0:0::/root:/bin/sh\n' > etc/passwd
	cp etc/passwd passwd.before
	ln -s "$PWD/etc/passwd" pw
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint pw in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: pw exists and is not an fwin checkpoint; remove it or name another file"
	cmp etc/passwd passwd.before
	[ -L pw ]
	nothing_made
	# the real one, which a root run must not lock beside
	cp /etc/passwd real.before
	ln -s /etc/passwd rpw
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint rpw in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: rpw exists and is not an fwin checkpoint; remove it or name another file"
	cmp /etc/passwd real.before
	[ ! -e /etc/passwd.lock ] || [ /etc/passwd.lock -ot real.before ]
	# -o through a link elsewhere writes there, its lock beside the link
	mkdir logs
	ln -s "$PWD/logs/rows.tsv" rows
	fwin "${ARGS[@]}" -o rows in.txt
	[ -f logs/rows.tsv ] && [ -f rows.lock ] && [ ! -e logs/rows.tsv.lock ]
}

@test "a link to another program's file elsewhere, as an unprivileged user: refused, nothing made" {
	in_open_dir
	as_nobody true
	mkdir etc
	printf 'nobody:x:65534:65534::/:/bin/sh\n' > etc/passwd
	chmod 0666 etc/passwd
	cp etc/passwd passwd.before
	ln -s "$PWD/etc/passwd" pw
	run --separate-stderr as_nobody "$FWIN" "${ARGS[@]}" --checkpoint pw in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: pw exists and is not an fwin checkpoint; remove it or name another file"
	cmp etc/passwd passwd.before
	nothing_made
}

@test "a lock file planted as a symbolic link: a clear message naming it, never followed" {
	ln -s "$PWD/victim" s.ckpt.lock
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: s.ckpt.lock is a symbolic link, not fwin's lock file of s.ckpt; remove it (fwin never follows one)"
	[ ! -e victim ]
	[ ! -e s.ckpt ]
	ln -s "$PWD/victim" out.csv.lock
	run --separate-stderr fwin "${ARGS[@]}" -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv.lock is a symbolic link, not fwin's lock file of out.csv; remove it (fwin never follows one)"
	[ ! -e victim ]
	[ ! -e out.csv ]
}

@test "a lock file that holds another program's text: refused, kept byte for byte, nothing made; fwin's own text is taken" {
	echo precious > out.csv.lock
	cp out.csv.lock lock.before
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv.lock exists and is not fwin's lock file of out.csv; remove it or name another file"
	assert_output ""
	cmp out.csv.lock lock.before
	# said before the checkpoint's lock file is made
	[ ! -e s.ckpt ] && [ ! -e s.ckpt.lock ] && [ ! -e out.csv ]
	mv out.csv.lock s.ckpt.lock
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: s.ckpt.lock exists and is not fwin's lock file of s.ckpt; remove it or name another file"
	cmp s.ckpt.lock lock.before
	[ ! -e s.ckpt ]
	# a pid and text that is no owner's path; more than fwin writes
	printf '123\nnotes\n' > s.ckpt.lock
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: s.ckpt.lock exists and is not fwin's lock file of s.ckpt; remove it or name another file"
	printf '123\n/x.ckpt\nmore\n' > s.ckpt.lock
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt in.txt
	assert_failure 1
	[ ! -e s.ckpt ]
	# what fwin leaves there is taken: an empty file, a killed run's pid
	# and owner
	: > s.ckpt.lock
	printf '99999999\n%s/s.ckpt\n' "$PWD" > out.csv.lock
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt -o out.csv in.txt
	assert_success
	assert_equal "$stderr" ""
	[ -s s.ckpt ]
	run cat out.csv
	assert_output $'0\t10\ta\t2\n0\t10\tb\t1'
}

@test "one writer: a run without a checkpoint takes the lock on its -o; a second writer exits 1 at once" {
	mkfifo fifo
	"$FWIN" "${ARGS[@]}" -o out.csv fifo 3>&- 2>bg.err &
	BG_PID=$!
	exec 5>fifo
	printf '1 a\n' >&5
	wait_until 10 grep -qx "$BG_PID" out.csv.lock
	cp out.csv out.before
	run --separate-stderr fwin "${ARGS[@]}" -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv: in use by another fwin (pid $BG_PID)"
	assert_output ""
	cmp out.csv out.before
	# a checkpointed writer is refused the same way
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv: in use by another fwin (pid $BG_PID)"
	[ ! -e s.ckpt ]
	exec 5>&-
	wait "$BG_PID"
	BG_PID=
	assert_equal "$(cat out.csv)" $'0\t10\ta\t1'
}

@test "output ownership: an -o owned by a checkpoint is refused to another checkpoint and to none" {
	fwin "${ARGS[@]}" --state a.ckpt -o out.csv in.txt
	cp out.csv out.before
	run --separate-stderr fwin "${ARGS[@]}" -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv belongs to the checkpoint a.ckpt"
	assert_output ""
	cmp out.csv out.before
	run --separate-stderr fwin "${ARGS[@]}" --state b.ckpt -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv belongs to the checkpoint a.ckpt"
	cmp out.csv out.before
	# nothing made: no checkpoint, nor its lock
	[ ! -e b.ckpt ] && [ ! -e b.ckpt.lock ]
	# batch mode writes -o under the same rule
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --mode batch -o out.csv in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv belongs to the checkpoint a.ckpt"
	cmp out.csv out.before
	# a run without a checkpoint leaves a file it may write unowned
	fwin "${ARGS[@]}" -o free.csv in.txt
	fwin "${ARGS[@]}" -o free.csv in.txt
	fwin "${ARGS[@]}" --state c.ckpt -o free.csv in.txt
}

@test "restore refuses to truncate an -o file rewritten in place since its checkpoint" {
	seq 1 300 | sed 's/$/ k/' > long.txt
	fwin "${ARGS[@]}" --state s.ckpt -o out.csv --no-flush long.txt
	len=$(wc -c < out.csv)
	cp s.ckpt s.orig
	printf 'more\n' >> out.csv
	# the same inode, one byte of its last 4 KiB before the length changed
	printf 'X' | dd of=out.csv bs=1 seek=$((len - 10)) conv=notrunc 2>/dev/null
	cp out.csv out.before
	run --separate-stderr fwin "${ARGS[@]}" --state s.ckpt -o out.csv long.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: out.csv: not the file that s.ckpt was saved with (its bytes before length $len differ: replaced or rewritten since); not truncating it"
	cmp out.csv out.before
	cmp s.ckpt s.orig
}

@test "restore refuses to cut bytes added to -o after a run that ended, --flush or not; after a killed run it cuts them" {
	printf '1,a\n7,a\n' > in.csv
	for flush in --flush --no-flush; do
		rm -f s.ckpt out.csv
		fwin --csv -t 1 -k 2 --tumble 5s --state s.ckpt $flush -o out.csv in.csv
		cp s.ckpt s.orig
		echo foreign >> out.csv
		cp out.csv out.before
		run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --state s.ckpt -o out.csv in.csv
		assert_failure 1
		assert_equal "$stderr" "fwin: out.csv: 8 bytes were added after the run that saved s.ckpt ended; not truncating it"
		assert_output ""
		cmp out.csv out.before
		cmp s.ckpt s.orig
		# refused again: the refusal keeps the mark of the end
		run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --state s.ckpt -o out.csv in.csv
		assert_failure 1
	done
	# the lock a run killed while it wrote leaves: its pid, the owner, no
	# mark of an end; what follows the checkpoint's length is its rows
	printf '%s\n%s\n' 99999999 "$(pwd -P)/s.ckpt" > out.csv.lock
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --state s.ckpt -o out.csv in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(cat out.csv)" '0,5,a,1'
}

@test "a lock file holding anything past fwin's lines, or a mark of an end that is not a number, is not fwin's" {
	printf '1,a\n' > in.csv
	for text in '1\n/x\nended 2 9\nmore\n' '1\n/x\nended two 9\n' '1\n/x\nended 2\n' \
	    '1\nended 2 9' '1\n/x'; do
		printf "$text" > out.csv.lock
		run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --state s.ckpt -o out.csv in.csv
		assert_failure 1
		assert_equal "$stderr" "fwin: out.csv.lock exists and is not fwin's lock file of out.csv; remove it or name another file"
	done
	printf '1\nended 2 9\n' > out.csv.lock
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 5s --state s.ckpt -o out.csv in.csv
	assert_success
}

@test "a run's own messages after its rows in -o (2>>FILE) are its own: the next run cuts them, as its own" {
	printf '1 a\n15 a\n3 a\n' > in1
	printf '25 a\n' > in2
	fwin -t 1 -k 2 --tumble 10s --count --state s.ckpt -o out.tsv in1 2>>out.tsv
	assert_equal "$(cat out.tsv)" $'0\t10\ta\t1\nfwin: 1 late record dropped (the latest by 12s behind the watermark); -l 12s or --late-file keeps them'
	fwin -t 1 -k 2 --tumble 10s --count --state s.ckpt -o out.tsv in1 in2 2>>out.tsv
	assert_equal "$(cat out.tsv)" $'0\t10\ta\t1\n10\t20\ta\t1'
	# what another program adds after that is not
	echo foreign >> out.tsv
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --count --state s.ckpt -o out.tsv in1 in2
	assert_failure 1
	assert_equal "$stderr" "fwin: out.tsv: 8 bytes were added after the run that saved s.ckpt ended; not truncating it"
}

@test "as an unprivileged user: another user's checkpoint it cannot read is refused, untouched, nothing made" {
	in_open_dir
	as_nobody true
	fwin "${ARGS[@]}" --checkpoint s.ckpt --no-flush in.txt > /dev/null
	rm s.ckpt.lock
	chmod 0600 s.ckpt
	cp -p s.ckpt s.before
	run --separate-stderr as_nobody "$FWIN" "${ARGS[@]}" --checkpoint s.ckpt in.txt
	assert_failure 1
	assert_equal "$stderr" "fwin: s.ckpt: Permission denied"
	cmp s.ckpt s.before
	nothing_made
	# as its owner: replaced, with the warning
	run --separate-stderr fwin "${ARGS[@]}" --checkpoint s.ckpt --no-flush in.txt
	assert_success
	assert_equal "$stderr" "fwin: s.ckpt: its earlier state is replaced (--state continues it)"
	# its mode kept
	assert_equal "$(stat -c %a s.ckpt)" 600
}
