#!/usr/bin/env bats
# Every example of the manual and the README runs as written and prints
# what the page shows. tests/examples.awk takes them from the page's
# source; each page's examples run in order in a scratch directory of
# their own, where tests/ is the repository's (for tests/data/) and
# `fwin` is the binary under test. A `cat FILE` whose FILE does not exist
# yet makes it, with the lines the page shows: that is how a page gives
# its input. Displays marked `example: skip` in the source are not run
# (a live `tail -f`, the wall clock, other machines), and say why.
load common

ROOT=$BATS_TEST_DIRNAME/..

# example_run WHERE COMMAND OUTPUT: COMMAND (with bash) prints OUTPUT,
# standard output then standard error
example_run() {
	local where=$1 cmd=$2 want=$3 got
	nrun=$((nrun + 1))
	if [[ $cmd =~ ^cat\ ([^ \;\|\>\<]+)$ ]] && [ ! -e "${BASH_REMATCH[1]}" ]; then
		printf '%s\n' "$want" > "${BASH_REMATCH[1]}"
		return
	fi
	got=$(bash -c "$cmd" 2>&1) || true
	if [ "$got" != "$want" ]; then
		printf '%s: $ %s\n' "$where" "$cmd"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/    /'
		nfailed=$((nfailed + 1))
	fi
}

# example_setup COMMAND: what happens between two displays
example_setup() {
	bash -c "$1" || { echo "setup failed: $1"; nfailed=$((nfailed + 1)); }
}

# example_skip WHERE REASON: a display not run
example_skip() {
	[ -n "$2" ] || { echo "$1: skipped without a reason"; nfailed=$((nfailed + 1)); }
	nskip=$((nskip + 1))
}

# page PAGE MIN: PAGE's examples, at least MIN of them, all as shown
page() {
	mkdir bin work
	ln -s "$FWIN" bin/fwin
	ln -s "$ROOT/tests" work/tests
	(cd "$ROOT" && awk -f tests/examples.awk "$1") > examples.sh
	nrun=0 nfailed=0 nskip=0
	cd work
	PATH=$BATS_TEST_TMPDIR/bin:$PATH LC_ALL=C
	# shellcheck disable=SC1091
	. ../examples.sh
	echo "$1: $nrun commands run, $nskip displays skipped, $nfailed wrong"
	[ "$nfailed" -eq 0 ]
	[ "$nrun" -ge "$2" ]
	# the skips stay few
	[ "$nskip" -le 6 ]
}

@test "examples: every example of the manual prints what it shows" {
	page man/fwin.1 30
}

@test "examples: every example of the README prints what it shows" {
	page README.md 20
}

@test "examples: the extractor reads commands, their output, continuations and marks" {
	cat > page.1 <<'PAGE'
.Sh EXAMPLES
.Bd -literal -offset indent
not an example: no command
.Ed
.\" example: printf 'a b\n' > x
.Bd -literal -offset indent
$ cat x
a b
$ printf '%s\en' 1 \e
    2
1
2
.\" example: rm x
$ ls x
.Ed
.\" example: skip needs a network
.Bd -literal -offset indent
$ curl example.org
.Ed
PAGE
	run awk -f "$ROOT/tests/examples.awk" page.1
	assert_success
	assert_output - <<'OUT'
example_setup 'printf '\''a b\n'\'' > x'
example_run 'page.1:7' 'cat x' 'a b'
example_run 'page.1:9' 'printf '\''%s\n'\'' 1 \
    2' '1
2'
example_setup 'rm x'
example_run 'page.1:14' 'ls x' ''
example_skip 'page.1:16' 'needs a network'
OUT
}
