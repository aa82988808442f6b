#!/usr/bin/env bats
# --partition I/N: N runs over the same input, merged with sort -m, print
# one run's rows byte for byte (fwin(1): BEYOND ONE MACHINE, the merge
# commands given there for each output format).
load common

TAB=$'\t'

# data: records in time order, epoch seconds, with keys whose byte order
# a merge must keep ("B" < "a" < "a b" < "a!" < "ab", not so as text), an
# empty key, UTF-8, and a second key field for -k 2,3.
data() {
	awk 'BEGIN {
		n = split("a|a!|a b|ab|B|z|é|x y|", k, "|")
		t = 1700000000
		for (i = 0; i < 600; i++) {
			t += (i * 7) % 13
			printf "%d,%s,r%d,%d\n", t, k[(i * 5) % n + 1], i % 3, i % 17
		}
	}'
}

# merge FORMAT TIMEFMT NKEYS FILE...: the man page's sort -m command for
# the format (csv, tsv, json) and how bounds print (num: epoch numbers,
# iso: ISO 8601 text), for NKEYS key fields.
merge() {
	local fmt=$1 tf=$2 nk=$3 i
	local -a k
	shift 3
	case $fmt/$tf in
	csv/num | tsv/num) k=(-k2,2n -k1,1n) ;;
	csv/iso | tsv/iso) k=(-k2,2 -k1,1) ;;
	json/num) k=(-k5.2,5n -k3.2,3n) ;;
	json/iso) k=(-k8,8 -k4,4) ;;
	esac
	for ((i = 1; i <= nk; i++)); do
		case $fmt/$tf in
		json/num) k+=("-k$((4 + 4 * i)),$((4 + 4 * i))") ;;
		json/iso) k+=("-k$((8 + 4 * i)),$((8 + 4 * i))") ;;
		*) k+=("-k$((2 + i)),$((2 + i))") ;;
		esac
	done
	case $fmt in
	csv) LC_ALL=C sort -m -t, "${k[@]}" "$@" ;;
	tsv) LC_ALL=C sort -m -t "$TAB" "${k[@]}" "$@" ;;
	json) LC_ALL=C sort -m -t '"' "${k[@]}" "$@" ;;
	esac
}

# same_as_one FORMAT TIMEFMT NKEYS ARGS...: for N = 1..8, the N runs
# --partition I/N merged are the bytes of one run.
same_as_one() {
	local fmt=$1 tf=$2 nk=$3 n i
	shift 3
	"$FWIN" "$@" --output-format "$fmt" in > one
	[ -s one ]
	for n in 1 2 3 4 5 6 7 8; do
		rm -f part.*
		for ((i = 1; i <= n; i++)); do
			"$FWIN" "$@" --output-format "$fmt" --partition "$i/$n" \
				in > "part.$i"
		done
		merge "$fmt" "$tf" "$nk" part.* > merged
		cmp merged one || {
			echo "--partition ?/$n, $fmt, $*: differs" >&2
			diff merged one | head >&2
			return 1
		}
	done
}

@test "partitions merged: csv, epoch seconds, -k 2,3, tumble, slide, session" {
	data > in
	for w in "--tumble 1m" "--slide 2m,30s" "--session 40s"; do
		same_as_one csv num 2 --csv -t 1 -k 2,3 $w --count --sum 4 \
			--output-time s
	done
}

@test "partitions merged: csv, ISO times, one key" {
	data > in
	for w in "--tumble 1m" "--slide 2m,30s" "--session 40s"; do
		same_as_one csv iso 1 --csv -t 1 -k 2 $w --count --max 4 \
			--output-time iso
	done
}

@test "partitions merged: tsv, epoch milliseconds and ISO" {
	data > in
	same_as_one tsv num 2 --csv -t 1 -k 2,3 --slide 90s,30s --count \
		--output-time ms
	same_as_one tsv iso 2 --csv -t 1 -k 2,3 --session 40s --count \
		--output-time iso
}

@test "partitions merged: json, epoch seconds and ISO, one and two keys" {
	data > in
	for w in "--tumble 1m" "--slide 2m,30s" "--session 40s"; do
		same_as_one json num 2 --csv -t 1 -k 2,3 $w --count --sum 4 \
			--output-time s
		same_as_one json iso 1 --csv -t 1 -k 2 $w --count --first 3 \
			--output-time iso
	done
}

@test "partitions merged: -H, each output's header once" {
	{ echo 'ts,user,region,n'; data; } > in
	"$FWIN" --csv -H -t ts -k user --tumble 1m --count in > one
	for i in 1 2 3; do
		"$FWIN" --csv -H -t ts -k user --tumble 1m --count \
			--partition "$i/3" in > "part.$i"
	done
	{
		head -n 1 part.1
		merge csv num 1 <(tail -n +2 part.1) <(tail -n +2 part.2) \
			<(tail -n +2 part.3)
	} > merged
	cmp merged one
	assert_equal "$(head -n 1 part.2)" "window_start,window_end,user,count"
}

@test "out-of-order input with -l: every partition drops and fires what one run does" {
	# Records of other partitions move the watermark, so late records
	# are the same ones, in the same partitions' late files.
	awk 'BEGIN { for (i = 0; i < 500; i++)
		printf "%d,k%d,%d\n", 1700000000 + (i * 37) % 400 + i, i % 11, i }' > in
	"$FWIN" --csv -t 1 -k 2 --tumble 30s -l 20s --count \
		--late-file late.one in > one
	[ -s late.one ]
	for i in 1 2 3 4; do
		"$FWIN" --csv -t 1 -k 2 --tumble 30s -l 20s --count \
			--late-file "late.$i" --partition "$i/4" in > "part.$i"
	done
	merge csv num 1 part.* | cmp - one
	cat late.1 late.2 late.3 late.4 | sort > late.parts
	sort late.one | cmp - late.parts
}

@test "each record is counted by one partition: others, bad records" {
	printf '1,a,1\n2,b,x\n3,c,3\nbad,d,4\n4,e\n5\n' > in
	: > all
	for i in 1 2 3; do
		run --separate-stderr fwin --stats --csv -t 1 -k 2 --tumble 10s \
			--sum 3 --partition "$i/3" in
		assert_success
		printf '%s\n' "$stderr" >> all
	done
	# "5" has no key field: partition 1 reports it; b, d and e are bad
	# where their key's partition is.
	assert_equal "$(grep -c '; record skipped' all)" 4
	assert_equal "$(grep -c "in:6: field 2: missing" all)" 1
	assert_equal "$(sed -n 's/.*, bad \([0-9]*\),.*/\1/p' all |
		awk '{ b += $1 } END { print b }')" 4
}

@test "--stats says how many records were other partitions'" {
	printf '1 a\n2 b\n3 c\n4 d\n5 e\n6 f\n' > in
	total=0
	for i in 1 2; do
		run --separate-stderr fwin --stats -t 1 -k 2 --tumble 10s \
			--partition "$i/2" in
		assert_success
		assert_regex "$stderr" "^fwin: stats: records 6 \([0-9]+ of other partitions\), bad 0,"
		mine=$(printf '%s\n' "$output" | grep -c .)
		others=$(printf '%s\n' "$stderr" | sed -n 's/.*records 6 (\([0-9]*\) of.*/\1/p')
		assert_equal "$((mine + others))" 6
		total=$((total + mine))
	done
	assert_equal "$total" 6
}

@test "no key: every record has the same key group, so one partition has them all" {
	printf '1\n2\n11\n' > in
	out=
	for i in 1 2 3 4; do
		out+=$("$FWIN" -t 1 --tumble 10s --partition "$i/4" in)
	done
	assert_equal "$out" $'0\t10\t2\n10\t20\t1'
}

@test "--partition 1/1 is every key" {
	printf '1 a\n2 b\n3 c\n' > in
	run fwin -t 1 -k 2 --tumble 10s --partition 1/1 in
	assert_success
	assert_output $'0\t10\ta\t1\n0\t10\tb\t1\n0\t10\tc\t1'
}

@test "the key group ranges: group g is in partition g*N/128 + 1" {
	# 128 partitions: each holds one key group, so the keys spread over
	# many of them and no key is in two.
	seq 1 300 | awk '{ print $1, "k" $1 }' > in
	n=0
	for i in $(seq 1 128); do
		c=$("$FWIN" -t 1 -k 2 --tumble 1000s --partition "$i/128" in | wc -l)
		n=$((n + c))
	done
	assert_equal "$n" 300
}

@test "--partition: bad values are usage errors" {
	for v in 0/3 4/3 1/0 1/129 x 1/ /3 1/2/3 "1 /2" -1/2 3; do
		run --separate-stderr fwin -t 1 --tumble 10s --partition "$v" /dev/null
		assert_failure 2
		assert_regex "$stderr" "^fwin: --partition: '"
	done
	run --separate-stderr fwin -t 1 --tumble 1s --partition 1/2 --partition 1/2 /dev/null
	assert_failure 2
	assert_regex "$stderr" "^fwin: --partition may be given only once"
}

@test "--partition with --top is a usage error: a window's top rows rank every key" {
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --top 3 --partition 1/2 /dev/null
	assert_failure 2
	assert_regex "$stderr" "^fwin: --top and --partition cannot be used together"
	# one partition of one is every key: its top rows are one run's
	printf '1,a\n2,b\n3,b\n' > in
	run --separate-stderr fwin --csv -t 1 -k 2 --tumble 10s --top 1 --partition 1/1 in
	assert_success
	assert_output '0,10,b,2'
}

@test "--partition is part of the pipeline: a checkpoint of another partition is refused" {
	printf '1 a\n2 b\n' > in
	run fwin -t 1 -k 2 --tumble 10s --partition 1/2 --checkpoint s.ckpt in
	assert_success
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --partition 2/2 --restore s.ckpt in
	assert_failure 2
	assert_regex "$stderr" "--partition 1/2"
	run --separate-stderr fwin -t 1 -k 2 --tumble 10s --restore s.ckpt in
	assert_failure 2
	run fwin -t 1 -k 2 --tumble 10s --partition 1/2 --restore s.ckpt --new-input /dev/null
	assert_success
}

@test "the data tells a wrong merge from a right one: json keys compared with their quotes" {
	# Without -t '"', a key is compared with its closing quote, and
	# "a!" sorts before "a": the merged rows then differ from one run's.
	data > in
	"$FWIN" --csv -t 1 -k 2 --tumble 1m --count --output-format json in > one
	for i in 1 2 3; do
		"$FWIN" --csv -t 1 -k 2 --tumble 1m --count --output-format json \
			--partition "$i/3" in > "part.$i"
	done
	merge json num 1 part.* | cmp - one
	run bash -c 'LC_ALL=C sort -m -t, -k2.14,2n -k1.17,1n -k3,3 part.* | cmp -s - one'
	assert_failure
}

@test "the manual's GNU parallel example: eight partitions, one header, merged" {
	command -v parallel > /dev/null || skip "GNU parallel is not installed"
	{
		echo 'ts,user,amount'
		awk 'BEGIN { for (i = 0; i < 300; i++)
			printf "2026-11-29T20:%02d:%02dZ,u%d,%d.%d\n", i / 60 % 60,
				i % 60, i % 13, i % 7, i % 10 }'
	} > orders.csv
	seq 8 | PATH=$(dirname "$FWIN"):$PATH parallel fwin --partition {}/8 --csv -H -t ts -k user \
		--tumble 1m --count --sum amount orders.csv '>' part.{}
	for i in $(seq 8); do tail -n +2 part.$i > body.$i; done
	{ head -n 1 part.1; LC_ALL=C sort -m -t, -k2,2 -k1,1 -k3,3 \
		body.*; } > minutes.csv
	"$FWIN" --csv -H -t ts -k user --tumble 1m --count --sum amount \
		orders.csv > one.csv
	cmp minutes.csv one.csv
}

@test "cron replay per partition: each keeps its own --state, merged as one run's" {
	data > all
	head -n 250 all > in
	for run in 1 2; do
		"$FWIN" --csv -t 1 -k 2,3 --tumble 1m --count --sum 4 \
			--state one.ckpt -o one.csv in
		for i in 1 2 3; do
			"$FWIN" --csv -t 1 -k 2,3 --tumble 1m --count --sum 4 \
				--partition "$i/3" --state "p$i.ckpt" -o "part.$i" in
		done
		cp all in	# the file grows; the next run reads the rest
	done
	[ "$(wc -l < one.csv)" -gt 20 ]
	merge csv num 2 part.1 part.2 part.3 | cmp - one.csv
}
