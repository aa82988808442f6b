#!/bin/sh
# gen.sh SEED N [KEYS] [DISORDER] : N deterministic CSV records "time,key,value"
# on stdout. Event times advance by 0-2 s per record and each record is
# pushed back by up to DISORDER seconds (default 20), so the disorder is
# bounded: with -l greater than DISORDER no record is late. A few records
# (about 1 in 500) are pushed back by DISORDER*5 instead, so that runs with
# --late-file have late records too. The draws come from scripts/gen with
# SEED (never awk's rand(), whose numbers differ between mawk and gawk), so
# any awk makes the same records.
seed=${1:?usage: gen.sh SEED N [KEYS] [DISORDER]}
n=${2:?usage: gen.sh SEED N [KEYS] [DISORDER]}
keys=${3:-50}
dis=${4:-20}
dir=$(cd "$(dirname "$0")" && pwd)
"$dir/../../scripts/gen" -n "$n" --uniform 6 --seed "$seed" |
awk -v keys="$keys" -v dis="$dis" 'BEGIN { base = 1000000 } {
	base += int($1 * 3)
	back = int($2 * (dis + 1))
	if ($3 < 0.002)
		back = dis * 5
	k = int($4 * $5 * keys)	# skewed: low keys are hot
	v = int($6 * 1000) - 100
	printf "%d,k%02d,%d\n", base - back, k, v
}'
