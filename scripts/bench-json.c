/*
 * bench-json: JSON Lines projection, json_scan() against jsmn, a measure
 * and not a test (not built by make). The hand scanner was chosen with it.
 *
 *	cc -O2 -D_GNU_SOURCE -Isrc -o /tmp/bench-json scripts/bench-json.c \
 *	    src/io/json.c			# needs Debian's libjsmn-dev
 *	/tmp/bench-json hand|jsmn|frame FILE.jsonl
 *
 * FILE lines like {"ts":1700000000123,"user":{"id":"u42"},
 * "latency_ms":12.5,"path":"/a/b","ok":true}; the fields projected are
 * ts, user.id, latency_ms, path and ok. "frame" only finds the lines.
 * jsmn tokenizes the line and the projection walks its tokens; it neither
 * undoes escapes nor checks numbers, so it does less than json_scan().
 * Build with -DSTRICT for jsmn's strict mode.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define JSMN_STATIC
#ifdef STRICT
#define JSMN_STRICT
#endif
#include <jsmn.h>
#include "io/json.h"

static const char *paths[] = { "ts", "user.id", "latency_ms", "path", "ok" };

static int
jeq(const char *s, jsmntok_t *t, const char *k)
{
	size_t n = strlen(k);
	return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n &&
	    memcmp(s + t->start, k, n) == 0;
}

static int
skip(jsmntok_t *t, int i, int nt)
{
	int j = i + 1;
	while (j < nt && t[j].start < t[i].end)
		j++;
	return j;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench-json hand|jsmn|frame FILE\n");
		return 2;
	}
	int fd = open(argv[2], O_RDONLY);
	struct stat sb;
	fstat(fd, &sb);
	const char *base = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	const char *p = base, *e = base + sb.st_size, *nl;
	struct json *j = json_new(paths, 5);
	struct field f[5];
	const char *err;
	unsigned long nrec = 0, nbad = 0, sum = 0;
	jsmn_parser jp;
	jsmntok_t tok[256];
	struct timespec a, b;
	int mode = argv[1][0];

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (; p < e; p = nl + 1) {
		nl = memchr(p, '\n', e - p);
		size_t n = nl - p;
		if (mode == 'f') {		/* framing only */
			sum += n;
			nrec++;
			continue;
		}
		if (mode == 'h') {
			int rc = json_scan(j, p, n, f, NULL, &err);
			if (rc < 0) { nbad++; continue; }
			for (int k = 0; k < 5; k++) sum += f[k].n;
			nrec++;
			continue;
		}
		/* jsmn: tokenize, then find the projected members */
		jsmn_init(&jp);
		int nt = jsmn_parse(&jp, p, n, tok, 256);
		if (nt < 1 || tok[0].type != JSMN_OBJECT) { nbad++; continue; }
		memset(f, 0, sizeof(f));
		for (int i = 1; i < nt; ) {
			jsmntok_t *k = &tok[i], *v = &tok[i + 1];
			if (jeq(p, k, "ts")) { f[0].p = p + v->start; f[0].n = v->end - v->start; }
			else if (jeq(p, k, "latency_ms")) { f[2].p = p + v->start; f[2].n = v->end - v->start; }
			else if (jeq(p, k, "path")) { f[3].p = p + v->start; f[3].n = v->end - v->start; }
			else if (jeq(p, k, "ok")) { f[4].p = p + v->start; f[4].n = v->end - v->start; }
			else if (jeq(p, k, "user") && v->type == JSMN_OBJECT) {
				for (int q = i + 2; q < nt && tok[q].start < v->end; ) {
					if (jeq(p, &tok[q], "id")) { f[1].p = p + tok[q+1].start; f[1].n = tok[q+1].end - tok[q+1].start; }
					q = skip(tok, q + 1, nt);
				}
			}
			i = skip(tok, i + 1, nt);
		}
		for (int k = 0; k < 5; k++) sum += f[k].n;
		nrec++;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%s: %lu records, %lu bad, sum %lu: %.3f s, %.0f MB/s, %.1f ns/record\n",
	    argv[1], nrec, nbad, sum, s, sb.st_size / s / 1e6, s * 1e9 / (nrec + nbad));
	return 0;
}
