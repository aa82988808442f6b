#!/bin/sh
# tests/fuzz/mkseeds.sh: (re)makes the seed corpora of the "engine" and
# "ckpt" fuzz targets, tests/fuzz/corpus/{engine,ckpt}/, from the data
# below (the other targets' seeds are plain files, kept as they are).
# The ckpt seeds are real checkpoints written by ./fwin (run `make` first),
# stored compactly: the header region and the payload's used bytes, without
# the hole of zeros after them (fuzz_ckpt.c puts it back).
set -eu
cd "$(dirname "$0")/../.."
[ -x ./fwin ] || { echo "mkseeds.sh: build ./fwin first (make)" >&2; exit 1; }

byte() { printf "\\$(printf %03o "$1")"; }

# seed NAME B0 B1 B2 B3 B4 B5 B6 B7 < data
seed() {
	f=tests/fuzz/corpus/engine/$1
	shift
	{ for b in "$@"; do byte "$b"; done; cat; } >"$f"
}

csv_s='t,k,v,w
1000000,a,1,x
1000003,b,2.5,y
1000001,a,,z
1000012,a,-3,x
999990,b,7,y
bad,a,1,x
1000030,c,1e3,w
1000031,a,4
1000100,b,5,y
1000101,"q,1",2,"y
z"
1000160,a,9223372036854775807,x
1000161,a,1,x
'
lines_iso='2026-11-29T20:37:03Z a 1 x
2026-11-29T20:37:04.250Z b 2 y
2026-11-29T20:36:59+01:00 a 3 x
2026-11-29T20:38:00Z a -1.5 z
not-a-time a 1 x
2026-11-29 20:39:00 c 4 w
2026-11-29T20:37:30Z b x y
'
tsv_ms='t	k	v	w
1700000000000	a	1	x
1700000000500	b	2	y
1700000001000	a		x
1699999999000	a	3	x
1700000060000	b	4	y
'
csv_strp='2026-11-29 20:37:03,a,1,x
2026-11-29 20:37:09,b,2,y
2026-11-29 20:37:01,a,3,x
2026-11-29 20:38:00,a,4,z
29/11/2026,a,1,x
'
lines_ns='1700000000000000000 a 1
1700000000500000000 b 2
1699999999999999999 a 3
1700000001000000000 a 4
-9223372036854775808 a 5
9223372036854775807 b 6
'
lines_neg='-1.5 a 1
-3600 b 2
0 a 3
-86401 a 4
'
lines_dst='2026-10-24T23:30:00 a 1 x
2026-10-25T02:30:00 b 2 y
2026-10-25T02:30:00+01:00 a 3 x
2026-10-25T01:59:59Z a 4 z
2026-10-25T12:00:00 b 5 y
2026-10-25T23:30:00 a 6 x
2026-10-26T00:00:00 c 7 w
2026-10-31T12:00:00 a 8 x
'

rm -rf tests/fuzz/corpus/engine
mkdir -p tests/fuzz/corpus/engine
# b0: kind | size<<3; b1: fmt | H 4 | d 8 | outfmt<<4 | names 64;
# b2: tfmt | tfield<<3 | outtime<<5; b3: keys | l<<2 | A<<4 | off<<6;
# b4: aggs; b5: by, strict, late, flush, no-flush, stats, -o; b6: mode;
# b7: cut
i=0
for kind in 0 1 2 3 4; do
	for mode in 0 1 2; do
		i=$((i + 1))
		size=$(( (i * 3) % 8 ))
		printf %s "$csv_s" | seed "csv-H-k$kind-m$mode" \
		    $((kind | size << 3)) $((1 | 4 | 64 * (i % 2))) 0 \
		    $((1 | (i % 4) << 2 | (i % 3) << 4)) $(( (i * 37) % 256 | 1)) \
		    $(( (i * 11) % 16 | 128 * (mode % 2) )) $mode $((i * 5))
	done
done
printf %s "$lines_iso" | seed lines-iso-tumble 8 0 5 1 255 3 1 3
printf %s "$lines_iso" | seed lines-iso-session 10 48 0 5 9 0 2 4
printf %s "$lines_iso" | seed lines-iso-rolling 4 32 5 3 3 0 0 0
printf %s "$tsv_ms" | seed tsv-ms-slide 1 6 $((2 | 1 << 5)) 1 7 8 1 2
printf %s "$tsv_ms" | seed tsv-ms-count 11 6 2 1 33 64 0 0
printf %s "$tsv_ms" | seed tsv-ms-json 0 38 2 5 130 2 2 3
printf %s "$csv_strp" | seed csv-strp-tumble 8 1 6 1 3 0 1 2
printf %s "$csv_strp" | seed csv-strp-slide 9 1 $((6 | 5 << 5)) 17 5 4 0 0
printf %s "$lines_ns" | seed lines-ns-tumble 40 0 4 1 31 0 2 3
printf %s "$lines_ns" | seed lines-ns-slide 41 16 $((4 | 3 << 5)) 193 15 16 0 0
printf %s "$lines_ns" | seed lines-ns-proctime 0 0 7 1 1 0 0 0
printf %s "$lines_neg" | seed lines-neg-tumble 48 0 1 $((1 | 1 << 6)) 3 0 1 2
printf %s "$lines_neg" | seed lines-neg-slide 49 0 1 $((1 | 2 << 6)) 3 0 2 1
printf %s "$lines_neg" | seed lines-neg-session 10 0 $((1 | 5 << 5)) 1 255 3 1 3
# b6 bit 2: --tz Europe/Berlin; bit 3: --cumulate instead of --tumble
printf %s "$lines_dst" | seed lines-dst-day 48 0 5 1 255 0 $((4 | 1)) 3
printf %s "$lines_dst" | seed lines-dst-cumulate 16 0 5 $((1 | 1 << 2)) 31 0 $((8 | 4 | 2)) 4
printf %s "$lines_dst" | seed lines-dst-cumulate-week 40 0 5 $((1 | 3 << 6)) 7 0 $((8 | 4 | 1)) 5
printf %s "$lines_neg" | seed lines-neg-cumulate 8 0 1 1 3 0 $((8 | 2)) 2
# the aggregates of b6 (bits 2-7), in split runs (mode 1 and 2)
printf %s "$csv_s" | seed csv-H-aggs2-tumble 8 $((1 | 4 | 64)) 0 1 6 0 $((1 | 252)) 7
printf %s "$csv_s" | seed csv-aggs2-slide 9 1 0 1 1 0 $((2 | 4 * 21)) 6
printf %s "$csv_s" | seed csv-aggs2-session 10 1 0 $((1 | 2 << 2)) 2 0 $((1 | 4 * 42)) 5
printf %s "$tsv_ms" | seed tsv-aggs2-count 11 6 2 1 1 0 252 0
printf %s "$lines_iso" | seed lines-aggs2-rolling 4 32 5 3 1 0 $((4 * 63)) 0

# --- ckpt: checkpoints of the pipelines of fuzz_ckpt.c, in its order ---
rm -rf tests/fuzz/corpus/ckpt
mkdir -p tests/fuzz/corpus/ckpt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (the draws from scripts/gen, so that any awk makes the same records)
scripts/gen -n 80 --uniform 5 --seed 7 | awk 'BEGIN { t = 1000000 } {
	i = NR - 1
	t += int($1 * 4)
	back = int($2 * 8)
	k = int($3 * $4 * 6)
	v = int($5 * 1000) - 100
	if (i % 9 == 4)
		printf "%d,k%02d,\n", t - back, k
	else if (i % 7 == 3)
		printf "%d,k%02d,%d.%d\n", t - back, k, v, i
	else
		printf "%d,k%02d,%d\n", t - back, k, v
}' >"$tmp/in.csv"
p=0
while IFS= read -r opts; do
	for n in 10 80; do
		head -n $n "$tmp/in.csv" >"$tmp/part.csv"
		rm -f "$tmp/ck"
		# shellcheck disable=SC2086
		./fwin $opts --checkpoint "$tmp/ck" "$tmp/part.csv" >/dev/null
		hdrlen=$(od -An -tu4 -j12 -N4 "$tmp/ck" | tr -d ' ')
		paylen=$(od -An -tu8 -j32 -N8 "$tmp/ck" | tr -d ' ')
		out=tests/fuzz/corpus/ckpt/p$p-$n
		if [ $n = 10 ]; then
			# restoring, then saving again
			{ byte $((p | 8)); head -c $((hdrlen + paylen)) \
			    "$tmp/ck"; } >"$out-save"
			continue
		fi
		{ byte $p; head -c $((hdrlen + paylen)) "$tmp/ck"; } >"$out"
		# the same, with no input after the restore
		{ byte $((p | 16)); head -c $((hdrlen + paylen)) "$tmp/ck"; } \
		    >"$out-noinput"
	done
	p=$((p + 1))
done <<'EOF'
--csv -t 1 -k 2 --tumble 10s -l 5s --count --sum 3 --min 3 --max 3 --first 3 --last 3 --distinct 3 --min-by 3 --max-by 3:2
--csv -t 1 -k 2 --slide 30s,10s --allowed-lateness 1m --avg 3 --distinct 2
--csv -t 1 -k 2 --session 20s --count --last 3 --distinct 3
--csv -k 2 --count-window 5,2 --sum 3 --first 3 --max-by 3
--csv -t 1 -k 2,3 --count --min 3 --distinct 3
--csv -t 1 --time-format s --tumble 1m --count --max 3
--csv -t 1 -k 2 --slide 30s,10s --median 3 --percentile 3:10,99.9 --approx-percentile 3:50 --approx-distinct 3 --stddev 3 --sum 3
--csv -t 1 -k 2 --session 20s --percentile 3:50 --approx-percentile 3:99 --approx-distinct 3 --var-pop 3 --avg 3
EOF
# a stale checksum, kept as it is (bit 6), and a file cut short (bit 5)
f=tests/fuzz/corpus/ckpt/p0-80
{ byte 64; tail -c +2 "$f" | head -c 200; printf 'X'; tail -c +203 "$f"; } \
    >tests/fuzz/corpus/ckpt/p0-80-badsum
{ byte 96; tail -c +2 "$f"; } >tests/fuzz/corpus/ckpt/p0-80-short
echo "mkseeds.sh: $(ls tests/fuzz/corpus/engine | wc -l) engine seeds," \
    "$(ls tests/fuzz/corpus/ckpt | wc -l) ckpt seeds" >&2
