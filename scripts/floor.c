/*
 * floor: the least a hand-written, single-purpose C program does for the
 * headline job of scripts/bench -- frame the CSV lines "ms,key,value",
 * parse the time and the value, and update a hash table of (1-minute
 * window, key) -> (count, sum); print "window_ms,key,count,sum" at the
 * end, unordered. No windows firing, no watermark, no lateness, no
 * checkpoints: a reference column of what the hardware allows, not a
 * peer a user would run.
 *
 *	cc -O2 -o floor floor.c && ./floor WINDOW_MS FILE > out
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct slot {
	uint64_t h;
	int64_t win;
	const char *key;	/* into the mapped file */
	uint32_t klen;
	uint64_t count;
	int64_t sum;
};

static struct slot *tab;
static uint64_t cap = 1 << 16, n;

static uint64_t
hash(const char *p, size_t len, int64_t win)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)win * 0xff51afd7ed558ccdu;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
	return h ^ (h >> 29);
}

static void
grow(void)
{
	struct slot *old = tab;
	uint64_t oldcap = cap, i, j;

	cap *= 2;
	if ((tab = calloc(cap, sizeof(*tab))) == NULL)
		exit(1);
	for (i = 0; i < oldcap; i++) {
		if (old[i].key == NULL)
			continue;
		for (j = old[i].h & (cap - 1); tab[j].key != NULL;
		    j = (j + 1) & (cap - 1))
			;
		tab[j] = old[i];
	}
	free(old);
}

int
main(int argc, char **argv)
{
	const char *p, *e, *k;
	int64_t w, t, v, win;
	struct stat sb;
	uint64_t h, i;
	uint32_t klen;
	int fd, neg;

	if (argc != 3 || (w = atoll(argv[1])) <= 0 ||
	    (fd = open(argv[2], O_RDONLY)) < 0 || fstat(fd, &sb) != 0) {
		fprintf(stderr, "usage: floor WINDOW_MS FILE\n");
		return 2;
	}
	p = sb.st_size ? mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : "";
	if (p == MAP_FAILED)
		return 1;
	e = p + sb.st_size;
	if ((tab = calloc(cap, sizeof(*tab))) == NULL)
		return 1;
	while (p < e) {
		for (t = 0; p < e && *p != ','; p++)
			t = t * 10 + (*p - '0');
		k = ++p;
		while (p < e && *p != ',')
			p++;
		klen = (uint32_t)(p - k);
		neg = ++p < e && *p == '-';
		p += neg;
		for (v = 0; p < e && *p != '\n'; p++)
			v = v * 10 + (*p - '0');
		p++;
		win = t - t % w;
		h = hash(k, klen, win);
		for (i = h & (cap - 1); tab[i].key != NULL; i = (i + 1) & (cap - 1))
			if (tab[i].h == h && tab[i].win == win &&
			    tab[i].klen == klen && memcmp(tab[i].key, k, klen) == 0)
				break;
		if (tab[i].key == NULL) {
			tab[i].h = h;
			tab[i].win = win;
			tab[i].key = k;
			tab[i].klen = klen;
			n++;
		}
		tab[i].count++;
		tab[i].sum += neg ? -v : v;
		if (n * 2 > cap)
			grow();
	}
	for (i = 0; i < cap; i++)
		if (tab[i].key != NULL)
			printf("%lld,%.*s,%llu,%lld\n", (long long)tab[i].win,
			    (int)tab[i].klen, tab[i].key,
			    (unsigned long long)tab[i].count, (long long)tab[i].sum);
	return 0;
}
