#!/bin/sh
# gen.sh SEED N [KEYS] [DISORDER] : N deterministic CSV records "time,key,value"
# on stdout. Event times advance by 0-2 s per record and each record is
# pushed back by up to DISORDER seconds (default 20), so the disorder is
# bounded: with -l greater than DISORDER no record is late. A few records
# (about 1 in 500) are pushed back by DISORDER*5 instead, so that runs with
# --late-file have late records too. awk's srand(SEED) makes it repeatable.
seed=${1:?usage: gen.sh SEED N [KEYS] [DISORDER]}
n=${2:?usage: gen.sh SEED N [KEYS] [DISORDER]}
keys=${3:-50}
dis=${4:-20}
# mawk, not whatever awk is: gawk draws other numbers from the same seed,
# and the tests expect these records
exec mawk -v seed="$seed" -v n="$n" -v keys="$keys" -v dis="$dis" 'BEGIN {
	srand(seed)
	base = 1000000
	for (i = 0; i < n; i++) {
		base += int(rand() * 3)
		back = int(rand() * (dis + 1))
		if (rand() < 0.002)
			back = dis * 5
		k = int(rand() * rand() * keys)	# skewed: low keys are hot
		v = int(rand() * 1000) - 100
		printf "%d,k%02d,%d\n", base - back, k, v
	}
}'
