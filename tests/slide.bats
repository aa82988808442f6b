#!/usr/bin/env bats
# Windows of many panes (src/window/slide.c): a sliding window is folded from two
# kept folds, not pane by pane. Its rows must be those of a pane-by-pane
# fold; here the reference is the same windows made as tumbling windows
# (one per offset), or an awk fold of the last N records.
load common

GEN=$BATS_TEST_DIRNAME/ckpt/gen.sh
AGGS=(--count --sum 3 --min 3 --max 3 --first 3 --last 3 --min-by 3:1 --max-by 3)

# tumbled SIZE STEP OFFSET ARGS...: the rows of --slide SIZE,STEP made as
# SIZE/STEP runs of --tumble SIZE, one per offset, sorted; SIZE, STEP and
# OFFSET in seconds.
tumbled() {
	local size=$1 step=$2 off=$3 o
	shift 3
	for ((o = off; o < off + size; o += step)); do
		fwin --tumble "${size}s" --offset "${o}s" "$@" || return 1
	done | sort
}

@test "slide 60s,2s: rows of 30-pane windows equal 30 tumbling runs, with disorder and re-fires" {
	"$GEN" 7 3000 8 20 > in.csv
	common=(--csv -t 1 -k 2 -l 10s --allowed-lateness 30s "${AGGS[@]}" in.csv)
	run --separate-stderr fwin --slide 60s,2s "${common[@]}"
	assert_success
	assert_equal "$stderr" ""
	sort <<<"$output" > got
	tumbled 60 2 0 "${common[@]}" 2>/dev/null > want
	[ "$(wc -l < want)" -gt 3000 ]
	# re-fired windows are among them (a window's bounds twice for a key)
	[ -n "$(cut -d, -f1-3 want | sort | uniq -d | head -1)" ]
	diff want got
}

@test "slide 40s,4s --offset 1s, no key, with --avg and --distinct" {
	"$GEN" 8 2000 5 6 > in.csv
	common=(--csv -t 1 -l 5s --count --avg 3 --distinct 2 --max 3 in.csv)
	run --separate-stderr fwin --slide 40s,4s --offset 1s "${common[@]}"
	assert_success
	sort <<<"$output" > got
	tumbled 40 4 1 "${common[@]}" > want
	[ "$(wc -l < want)" -gt 100 ]
	diff want got
}

@test "slide 30s,3s with --no-flush: only windows the watermark passed" {
	"$GEN" 9 1500 4 10 > in.csv
	common=(--csv -t 1 -k 2 -l 12s --no-flush "${AGGS[@]}" in.csv)
	run --separate-stderr fwin --slide 30s,3s "${common[@]}"
	assert_success
	sort <<<"$output" > got
	tumbled 30 3 0 "${common[@]}" > want
	diff want got
}

# lastn N SLIDE: for each key, every SLIDE-th record, the count, sum, min
# and max of its last N records (awk's own fold, record by record).
lastn() {
	awk -F, -v n="$1" -v sl="$2" '{
		k = $2; c = ++seen[k]; v[k, c % n] = $3
		if (c % sl) next
		m = c < n ? c : n; s = 0
		for (i = c - m + 1; i <= c; i++) {
			x = v[k, i % n]; s += x
			if (i == c - m + 1 || x < lo) lo = x
			if (i == c - m + 1 || x > hi) hi = x
		}
		print k "," m "," s "," lo "," hi
	}' in.csv
}

@test "count-window 30,1 and 12,4: each row is its key's last N records" {
	"$GEN" 10 3000 6 0 > in.csv
	run --separate-stderr fwin --csv -k 2 --count-window 30,1 --count --sum 3 \
		--min 3 --max 3 in.csv
	assert_success
	assert_equal "$stderr" ""
	assert_output "$(lastn 30 1)"
	run --separate-stderr fwin --csv -k 2 --count-window 12,4 --no-flush \
		--count --sum 3 --min 3 --max 3 in.csv
	assert_success
	assert_output "$(lastn 12 4)"
}

@test "slide: float sums are the same bytes after any number of restores" {
	"$GEN" 11 4000 6 15 | awk -F, '{ printf "%s,%s,%.3f\n", $1, $2, $3 / 7 }' > all.csv
	args=(--csv -t 1 -k 2 --slide 90s,3s -l 20s --allowed-lateness 10s --sum 3 --avg 3)
	fwin "${args[@]}" -o ref.csv all.csv
	# a cron job over a growing file: four runs, a checkpoint between
	for bytes in 20000 41000 77000; do
		head -c "$bytes" all.csv > grow.csv
		fwin "${args[@]}" --state s.ckpt -o out.csv grow.csv
	done
	cp all.csv grow.csv
	fwin "${args[@]}" --state s.ckpt --flush -o out.csv grow.csv
	# the sums are not all integers: association would show
	grep -q '\.[0-9]*[1-9]' ref.csv
	cmp ref.csv out.csv
}
