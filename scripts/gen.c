/*
 * gen — deterministic test streams for fwin's benchmark (scripts/bench).
 *
 * Writes N records "ts,key,value": ts in epoch milliseconds, increasing with
 * bounded random disorder; key one of K keys, uniform or Zipf-distributed;
 * value a small integer. The same options and seed always give the same bytes.
 *
 * Time: record i has base time start + i*step (step = 1000/rate ms, kept
 * exact in microseconds) and ts = base - U[0, disorder]. So every record is at
 * most `disorder` ms behind the largest time seen before it: with
 * `fwin -l D` and disorder <= D no record is ever late.
 *
 * With --uniform C it writes, instead of records, N lines of C numbers in
 * [0, 1) with 9 decimals, separated by spaces: the draws a test's awk
 * script reads in place of awk's rand(), whose numbers differ between mawk
 * and gawk. Decimal text reads back as the same double in any awk.
 *
 * Usage: see usage() below. Built and run by scripts/gen and the tests.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
usage(FILE *f)
{
	fputs(
"usage: gen [-n N | --bytes SIZE] [-k K] [--zipf S] [--seed X] [--disorder MS]\n"
"           [--format csv|tsv|ws] [--start MS] [--rate R] [--values V]\n"
"       gen -n N --uniform C [--seed X]\n"
"  -n N            number of records (default 1000000; 10M, 2G suffixes ok)\n"
"  --bytes SIZE    instead of -n: stop after the first record that reaches SIZE\n"
"                  bytes (K, M, G suffixes, powers of 1024)\n"
"  -k K            number of distinct keys (default 10000)\n"
"  --zipf S        Zipf exponent S > 0 for keys (default: uniform)\n"
"  --seed X        random seed (default 1)\n"
"  --disorder MS   max ms a record is behind the largest time so far (default 2000)\n"
"  --format F      csv (default), tsv, or ws (single spaces)\n"
"  --start MS      base time of the first record (default 1700000000000)\n"
"  --rate R        records per second of event time (default 1000)\n"
"  --values V      values are integers in [0, V) (default 1000)\n"
"  --uniform C     instead of records, N lines of C numbers in [0, 1), with 9\n"
"                  decimals, separated by spaces (for tests' awk scripts)\n"
"Keys are written k<rank>, rank 0 the most frequent under --zipf.\n", f);
}

/* xoshiro256** seeded by splitmix64: fast, good, and fully determined by seed. */
static uint64_t rs[4];

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t
rnd(void)
{
	uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
	rs[2] ^= rs[0];
	rs[3] ^= rs[1];
	rs[1] ^= rs[2];
	rs[0] ^= rs[3];
	rs[2] ^= t;
	rs[3] = rotl(rs[3], 45);
	return r;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias is fine). */
static inline uint64_t
below(uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rnd() * n) >> 64);
}

static uint64_t
parse_count(const char *s, const char *what, int binary)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		goto bad;
	switch (*end) {
	case 'k': case 'K': v *= binary ? 1024.0 : 1e3; end++; break;
	case 'm': case 'M': v *= binary ? 1048576.0 : 1e6; end++; break;
	case 'g': case 'G': v *= binary ? 1073741824.0 : 1e9; end++; break;
	}
	if (*end == 'B' && binary)
		end++;
	if (*end != '\0' || v > 9e18)
		goto bad;
	return (uint64_t)v;
bad:
	fprintf(stderr, "gen: bad %s: %s\n", what, s);
	exit(2);
}

/* Appends the decimal digits of v at p; returns the new end. */
static inline char *
put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* --uniform c: n lines of c draws in [0, 1), "0.123456789". */
static int
draws(uint64_t n, uint64_t c)
{
	uint64_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < c; j++)
			if (printf("0.%09llu%c", (unsigned long long)below(1000000000),
			    j + 1 < c ? ' ' : '\n') < 0)
				return errno == EPIPE ? 0 : 1;
	return fflush(stdout) != 0 && errno != EPIPE;
}

int
main(int argc, char **argv)
{
	uint64_t n = 1000000, bytes = 0, k = 10000, seed = 1, disorder = 2000;
	uint64_t start = 1700000000000ULL, nvalues = 1000, uniform = 0;
	double zipf = 0, rate = 1000;
	char sep = ',';
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *eq = strchr(a, '=');
		char name[32];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		/* accept --opt=value as well as --opt value */
		if (eq && a[0] == '-' && a[1] == '-' && (size_t)(eq - a) < sizeof name) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			a = name;
			v = eq + 1;
		} else {
			i++;
		}
		if (!v) {
			fprintf(stderr, "gen: %s needs a value\n", a);
			return 2;
		}
		if (!strcmp(a, "-n"))
			n = parse_count(v, "-n", 0);
		else if (!strcmp(a, "--bytes"))
			bytes = parse_count(v, "--bytes", 1);
		else if (!strcmp(a, "-k") || !strcmp(a, "--keys"))
			k = parse_count(v, "-k", 0);
		else if (!strcmp(a, "--zipf"))
			zipf = atof(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--disorder"))
			disorder = parse_count(v, "--disorder", 0);
		else if (!strcmp(a, "--start"))
			start = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--rate"))
			rate = atof(v);
		else if (!strcmp(a, "--values"))
			nvalues = parse_count(v, "--values", 0);
		else if (!strcmp(a, "--uniform"))
			uniform = parse_count(v, "--uniform", 0);
		else if (!strcmp(a, "--format")) {
			if (!strcmp(v, "csv"))
				sep = ',';
			else if (!strcmp(v, "tsv"))
				sep = '\t';
			else if (!strcmp(v, "ws") || !strcmp(v, "lines"))
				sep = ' ';
			else {
				fprintf(stderr, "gen: bad --format: %s\n", v);
				return 2;
			}
		} else {
			fprintf(stderr, "gen: unknown option: %s\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (k == 0 || nvalues == 0 || rate <= 0 || zipf < 0 || disorder > start) {
		fprintf(stderr, "gen: -k, --values, --rate and --zipf must be > 0,"
		    " --disorder at most --start\n");
		return 2;
	}

	rs[0] = splitmix64(&seed);
	rs[1] = splitmix64(&seed);
	rs[2] = splitmix64(&seed);
	rs[3] = splitmix64(&seed);
	if (uniform > 0)
		return draws(n, uniform);

	/* Zipf: cumulative weights of ranks 1..K scaled to 2^64, sampled by
	 * binary search on one 64-bit draw. */
	uint64_t *cdf = NULL;
	if (zipf > 0) {
		double total = 0, acc = 0;
		uint64_t r;
		cdf = malloc(k * sizeof *cdf);
		if (!cdf) {
			perror("gen");
			return 1;
		}
		for (r = 1; r <= k; r++)
			total += pow((double)r, -zipf);
		for (r = 1; r <= k; r++) {
			acc += pow((double)r, -zipf);
			double f = acc / total * 18446744073709551616.0;
			cdf[r - 1] = f >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f;
		}
		cdf[k - 1] = UINT64_MAX;
	}

	/* Event time advances by 1000/rate ms per record, kept in microseconds. */
	uint64_t step_us = (uint64_t)llround(1000000.0 / rate);
	uint64_t base_us = start * 1000, written = 0, rec;
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 128);

	if (!buf) {
		perror("gen");
		return 1;
	}
	for (rec = 0; bytes ? written < bytes : rec < n; rec++) {
		uint64_t ts = base_us / 1000 - (disorder ? below(disorder + 1) : 0);
		uint64_t key;
		char *p = buf + len, *p0 = p;

		base_us += step_us;
		if (cdf) {
			uint64_t u = rnd();
			size_t lo = 0, hi = k - 1;
			while (lo < hi) {	/* first rank with cdf >= u */
				size_t mid = lo + (hi - lo) / 2;
				if (cdf[mid] >= u)
					hi = mid;
				else
					lo = mid + 1;
			}
			key = lo;
		} else {
			key = below(k);
		}
		p = put_u64(p, ts);
		*p++ = sep;
		*p++ = 'k';
		p = put_u64(p, key);
		*p++ = sep;
		p = put_u64(p, below(nvalues));
		*p++ = '\n';
		len += (size_t)(p - p0);
		written += (uint64_t)(p - p0);
		if (len >= cap) {
			if (fwrite(buf, 1, len, stdout) != len)
				goto werr;
			len = 0;
		}
	}
	if (len && fwrite(buf, 1, len, stdout) != len)
		goto werr;
	if (fflush(stdout) != 0)
		goto werr;
	return 0;
werr:
	if (errno == EPIPE)
		return 0;
	perror("gen: write");
	return 1;
}
