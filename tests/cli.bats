#!/usr/bin/env bats
# The command line: --help/--version, usage errors (exit 2, "fwin: ..." then
# the Try line), option forms, -k lists, FILE operands. fwin(1): SYNOPSIS, OPTIONS, EXIT STATUS.
load common

TRY="Try 'fwin --help' for more information."

# usage_error PROBLEM: asserts the run failed with exit 2, printed nothing on
# stdout, and exactly "fwin: PROBLEM" and the Try line on stderr.
usage_error() {
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: $1"$'\n'"$TRY"
}

# --- --help, --version ---

@test "--help and -h print the usage on stdout, exit 0, need no window" {
	run --separate-stderr fwin --help < /dev/null
	assert_success
	assert_line --index 0 "usage: fwin [OPTION]... [FILE]..."
	assert_output --partial "--tumble SIZE"
	assert_output --partial "--slide SIZE,STEP"
	assert_equal "$stderr" ""
	local long=$output
	run --separate-stderr fwin -h < /dev/null
	assert_success
	assert_output "$long"
	assert_equal "$stderr" ""
}

@test "--version and -V print 'fwin 0.1.0'" {
	run --separate-stderr fwin --version
	assert_success
	assert_output "fwin 0.1.0"
	assert_equal "$stderr" ""
	run --separate-stderr fwin -V
	assert_success
	assert_output "fwin 0.1.0"
	assert_equal "$stderr" ""
}

@test "--version to a full device: exit 1 and a message" {
	run --separate-stderr bash -c '"$1" --version > /dev/full' _ "$FWIN"
	assert_failure 1
	assert_regex "$stderr" '^fwin: .*No space left on device$'
}

# --- usage errors ---

@test "no window option is rolling mode, not an error" {
	printf '10 a\n' > in
	run --separate-stderr fwin -t 1 in
	assert_success
	assert_output $'10\t1'
	run --separate-stderr fwin < /dev/null
	assert_success
	assert_output ""
}

@test "a window option given twice" {
	run --separate-stderr fwin --tumble 1s --tumble 2s < /dev/null
	usage_error "--tumble may be given only once"
}

@test "options of one setting given twice, or --flush with --no-flush, are refused before anything is written" {
	printf '1\n' > in
	local twice=(
		"--checkpoint:--checkpoint a --checkpoint b"
		"--state:--state a --state b"
		"--restore:--restore a --restore b"
		"--late-file:--late-file a --late-file b"
		"--mode:--mode stream --mode batch"
		"--mode:--mode batch -l 1s --mode stream"
		"--tz:--tz UTC --tz Europe/Berlin"
		"-l:-l 1s --lateness 2s"
		"--offset:--offset 1s --offset 2s"
		"--top:--top 1 --top 2"
		"--emit-every:--emit-every 1s --emit-every 2s"
		"--allowed-lateness:--allowed-lateness 1s --allowed-lateness 2s"
		"--idle-timeout:--idle-timeout 1s --idle-timeout 2s"
		"--checkpoint-every:--checkpoint-every 5 --checkpoint-every 1s"
		"--max-future:--max-future 1h --max-future 2h"
		"--max-memory:--max-memory 1M --max-memory 2M"
		"--explain:--explain plan --explain flink-sql"
		"--inspect:--inspect a --inspect b"
	) t
	for t in "${twice[@]}"; do
		# shellcheck disable=SC2086
		run --separate-stderr fwin -t 1 --tumble 1s ${t#*:} in
		usage_error "${t%%:*} may be given only once"
	done
	run --separate-stderr fwin -t 1 --tumble 1s --flush --no-flush in
	usage_error "--flush and --no-flush cannot be used together"
	run --separate-stderr fwin -t 1 --tumble 1s --no-progress --progress in
	usage_error "--no-progress and --progress cannot be used together"
	[[ ! -e a && ! -e b ]]
}

@test "--inspect: other options have no effect, but a bad value is a usage error" {
	printf '1\n' > in
	fwin -t 1 --tumble 1s --checkpoint k.ckpt in
	fwin --inspect k.ckpt > want
	run --separate-stderr fwin --inspect k.ckpt --csv --tumble 1h -o out none
	assert_success
	assert_output "$(cat want)"
	assert_equal "$stderr" ""
	[ ! -e out ]
	run --separate-stderr fwin --inspect k.ckpt --tumble bad
	usage_error "--tumble: bad duration 'bad' (units: ns us ms s m h d w mo q y)"
}

@test "unknown options, long and short" {
	run --separate-stderr fwin --bogus --tumble 5s < /dev/null
	usage_error "unknown option '--bogus'"
	run --separate-stderr fwin -x --tumble 5s < /dev/null
	usage_error "unknown option '-x'"
}

@test "a value given to an option that takes none names the option as typed" {
	run --separate-stderr fwin --tumble 5s --help=x < /dev/null
	assert_failure 2
	assert_output ""
	assert_regex "$stderr" "^fwin: [^"$'\n'"]*'--help'[^"$'\n'"]*"$'\n'"$TRY\$"
}

@test "missing values, long and short" {
	run --separate-stderr fwin --tumble
	usage_error "option '--tumble' needs a value"
	run --separate-stderr fwin --tumble 5s -t
	usage_error "option '-t' needs a value"
}

@test "missing value of a long option that has a short form names it as typed" {
	run --separate-stderr fwin --tumble 5s --time
	usage_error "option '--time' needs a value"
	run --separate-stderr fwin --tumble 5s --key
	usage_error "option '--key' needs a value"
}

@test "bad durations" {
	run --separate-stderr fwin --tumble abc < /dev/null
	usage_error "--tumble: bad duration 'abc' (units: ns us ms s m h d w mo q y)"
	run --separate-stderr fwin --tumble=1m30 < /dev/null
	usage_error "--tumble: bad duration '1m30' (units: ns us ms s m h d w mo q y)"
	run --separate-stderr fwin --slide x,5s < /dev/null
	usage_error "--slide: bad duration 'x' (units: ns us ms s m h d w mo q y)"
	run --separate-stderr fwin --tumble 5s --lateness 5x < /dev/null
	usage_error "--lateness: bad duration '5x' (units: ns us ms s m h d w)"
}

@test "window sizes and steps must be greater than zero" {
	run --separate-stderr fwin --tumble 0s < /dev/null
	usage_error "--tumble: '0s' must be greater than zero"
	run --separate-stderr fwin --slide 10s,0 < /dev/null
	usage_error "--slide: '0' must be greater than zero"
}

@test "--tumble and --slide together, in either order" {
	run --separate-stderr fwin --tumble 5s --slide 10s,5s < /dev/null
	usage_error "--tumble and --slide cannot be used together"
	run --separate-stderr fwin --slide 10s,5s --tumble 5s < /dev/null
	usage_error "--slide and --tumble cannot be used together"
}

@test "-d: not a single byte" {
	run --separate-stderr fwin -d ab --tumble 5s < /dev/null
	usage_error "-d: 'ab' is not a single-byte delimiter"
	run --separate-stderr fwin -d '' --tumble 5s < /dev/null
	usage_error "-d: '' is not a single-byte delimiter"
}

@test "-d: the single bytes refused say why" {
	run --separate-stderr fwin -d '"' --tumble 5s < /dev/null
	usage_error "-d: '\"' cannot be the delimiter: it quotes CSV fields"
	run --separate-stderr fwin -d $'\n' --tumble 5s < /dev/null
	usage_error "-d: a newline cannot be the delimiter: it ends records"
	run --separate-stderr fwin -d $'\r' --tumble 5s < /dev/null
	usage_error "-d: a carriage return cannot be the delimiter: records may end in CR LF"
}

@test "unknown format names" {
	run --separate-stderr fwin --format xml --tumble 5s < /dev/null
	usage_error "--format: unknown format 'xml'"
	run --separate-stderr fwin --output-format xml --tumble 5s < /dev/null
	usage_error "--output-format: unknown format 'xml'"
	run --separate-stderr fwin --time-format xml -t 1 --tumble 5s < /dev/null
	usage_error "--time-format: unknown format 'xml'"
	run --separate-stderr fwin --output-time xml --tumble 5s < /dev/null
	usage_error "--output-time: unknown format 'xml'"
	# a strptime format is an input format only
	run --separate-stderr fwin --output-time '%s' --tumble 5s < /dev/null
	usage_error "--output-time: unknown format '%s'"
}

@test "-k 0: field numbers start at 1 (usage error with the Try line)" {
	run --separate-stderr fwin -k 0 --tumble 5s < /dev/null
	usage_error "-k: bad field '0' (field numbers run from 1 to 1000000000)"
}

@test "a field name without -H: exit 2, no Try line" {
	printf '10 a\n' > in
	run --separate-stderr fwin -t 1 -k user --tumble 5s in
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: field name 'user' needs -H (a header row)"
}

@test "a field name the header lacks: exit 2, nothing printed" {
	printf 'ts,user\n10,a\n' > in
	run --separate-stderr fwin --csv -H -t ts -k x --tumble 5s in
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: no field 'x' in the header"
	run --separate-stderr fwin --csv -H -t ts --sum amount --tumble 5s in
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: no field 'amount' in the header"
}

# --- option forms ---

@test "--opt VALUE and --opt=VALUE give the same result" {
	printf '10 a\n12 b\n16 a\n' > in
	run --separate-stderr fwin --time 1 --key 2 --tumble 5s --output-format tsv in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_equal "$stderr" ""
	run --separate-stderr fwin --time=1 --key=2 --tumble=5s --output-format=tsv in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_equal "$stderr" ""
}

@test "short options with attached values: -t1 -k2" {
	printf '10 a\n12 b\n16 a\n' > in
	run --separate-stderr fwin -t1 -k2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1\n15\t20\ta\t1'
	assert_equal "$stderr" ""
}

@test "--slide SIZE,STEP and --slide=SIZE,STEP" {
	printf '10 a\n12 a\n16 a\n' > in
	run --separate-stderr fwin -t 1 --slide 10s,5s in
	assert_success
	assert_output $'5\t15\t2\n10\t20\t3\n15\t25\t1'
	run --separate-stderr fwin -t 1 --slide=10s,5s in
	assert_success
	assert_output $'5\t15\t2\n10\t20\t3\n15\t25\t1'
	assert_equal "$stderr" ""
}

@test "--delimiter=C is -d C" {
	printf '10:a\n12:b\n' > in
	run --separate-stderr fwin --delimiter=: -t 1 -k 2 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\t1\n10\t15\tb\t1'
	assert_equal "$stderr" ""
}

@test "options after the FILE operand (GNU permutation)" {
	printf '10 a\n12 b\n' > in
	run --separate-stderr fwin in -t 1 --tumble 5s
	assert_success
	assert_output $'10\t15\t2'
	assert_equal "$stderr" ""
}

# --- -k ---

@test "-k repeated is the same as a comma list" {
	printf '10 a x\n11 a y\n12 b x\n13 a x\n' > in
	run --separate-stderr fwin -t 1 -k 2 -k 3 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\tx\t2\n10\t15\ta\ty\t1\n10\t15\tb\tx\t1'
	assert_equal "$stderr" ""
	run --separate-stderr fwin -t 1 -k 2,3 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\tx\t2\n10\t15\ta\ty\t1\n10\t15\tb\tx\t1'
}

@test "-k fields come out in the order given, and sort in that order" {
	printf '10 a x\n11 a y\n12 b x\n13 a x\n' > in
	run --separate-stderr fwin -t 1 -k 3,2 --tumble 5s in
	assert_success
	assert_output $'10\t15\tx\ta\t2\n10\t15\tx\tb\t1\n10\t15\ty\ta\t1'
	assert_equal "$stderr" ""
}

@test "-k list mixing a comma list and a repeat, by name with -H" {
	printf 'ts,host,user,dc\n10,h1,a,eu\n11,h1,b,eu\n12,h1,a,eu\n' > in
	run --separate-stderr fwin --csv -H -t ts -k host,user -k dc --tumble 5s in
	assert_success
	assert_output $'window_start,window_end,host,user,dc,count\n10,15,h1,a,eu,2\n10,15,h1,b,eu,1'
	assert_equal "$stderr" ""
}

@test "keys are compared field by field: (a, bc) sorts before (ab, c)" {
	printf '10 ab c\n11 a bc\n' > in
	run --separate-stderr fwin -t 1 -k 2,3 --tumble 5s in
	assert_success
	assert_output $'10\t15\ta\tbc\t1\n10\t15\tab\tc\t1'
	assert_equal "$stderr" ""
}

# --- FILE operands ---

@test "FILEs are read in order, as one stream" {
	printf '10 x\n' > a
	printf '16 x\n' > b
	printf '11 x\n' > c
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s a c b
	assert_success
	assert_output $'10\t15\t2\n15\t20\t1'
	assert_equal "$stderr" ""
	# 11 after 16 is late: the order of the operands matters
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s a b c
	assert_success
	assert_output $'10\t15\t1\n15\t20\t1'
	assert_equal "$stderr" "fwin: 1 late record dropped (the latest by 5s behind the watermark); -l 5s, --late-file or --mode batch keeps them"
}

@test "no FILE reads standard input" {
	printf '10 x\n12 x\n16 x\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s < in
	assert_success
	assert_output $'10\t15\t2\n15\t20\t1'
	assert_equal "$stderr" ""
}

@test "'-' is standard input, in its place among the FILEs" {
	printf '10 x\n' > a
	printf '11 x\n' > s
	printf '16 x\n' > b
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s a - b < s
	assert_success
	assert_output $'10\t15\t2\n15\t20\t1'
	assert_equal "$stderr" ""
	run --separate-stderr fwin --mode stream -t 1 --tumble 5s a b - < s
	assert_success
	assert_output $'10\t15\t1\n15\t20\t1'
	assert_equal "$stderr" "fwin: 1 late record dropped (the latest by 5s behind the watermark); -l 5s, --late-file or --mode batch keeps them"
}

@test "a FILE that cannot be opened: reported, the others processed, exit 1" {
	printf '10 x\n' > a
	printf '12 x\n16 x\n' > b
	run --separate-stderr fwin -t 1 --tumble 5s a nosuch b
	assert_failure 1
	assert_output $'10\t15\t2\n15\t20\t1'
	assert_equal "$stderr" "fwin: nosuch: No such file or directory"
}

@test "every FILE missing: exit 1, nothing printed" {
	run --separate-stderr fwin -t 1 --tumble 5s nosuch1 nosuch2
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" $'fwin: nosuch1: No such file or directory\nfwin: nosuch2: No such file or directory'
}

@test "a directory as FILE: reported, exit 1, the others processed" {
	mkdir d
	printf '10 x\n' > a
	run --separate-stderr fwin -t 1 --tumble 5s d a
	assert_failure 1
	assert_output $'10\t15\t1'
	assert_equal "$stderr" "fwin: d: Is a directory"
}
