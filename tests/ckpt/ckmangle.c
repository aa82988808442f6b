/*
 * ckmangle: damages a copy of an fwin checkpoint, for the corruption tests.
 *
 *	ckmangle SRC DST POS MASK [fix]
 *
 * copies SRC to DST with the byte at POS XORed with MASK (0 leaves it);
 * with "fix", then recomputes the checksum over the damaged bytes, as
 * src/run/ckpt.c does (XXH3-64 over the header region with the checksum
 * field zeroed, then the payload's bytes in use), so that the damage
 * gets past the checksum and reaches the state's own checks.
 *
 *	ckmangle --info FILE
 *
 * prints "hdrlen paylen mapcap" of a checkpoint.
 *
 * The header's layout (see src/run/ckpt.c): magic[8], version u32, hdrlen
 * u32 (offset 12), checksum u64 (16), generation u64 (24), paylen u64
 * (32), mapcap u64 (40), ...
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t cap = 0, n;

	if (f == NULL) {
		perror(path);
		exit(2);
	}
	*len = 0;
	for (;;) {
		if (*len == cap && (p = realloc(p, cap = cap * 2 + 65536)) == NULL)
			exit(2);
		if ((n = fread(p + *len, 1, cap - *len, f)) == 0)
			break;
		*len += n;
	}
	fclose(f);
	return p;
}

static uint64_t
get64(const unsigned char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static uint32_t
get32(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

int
main(int argc, char **argv)
{
	unsigned char *p;
	size_t len, pos;
	uint64_t sum, paylen, hdrlen;
	XXH3_state_t *xs;
	FILE *f;

	if (argc == 3 && strcmp(argv[1], "--info") == 0) {
		p = slurp(argv[2], &len);
		if (len < 48)
			return 1;
		printf("%u %llu %llu\n", get32(p, 12),
		    (unsigned long long)get64(p, 32),
		    (unsigned long long)get64(p, 40));
		return 0;
	}
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: ckmangle SRC DST POS MASK [fix]\n");
		return 2;
	}
	p = slurp(argv[1], &len);
	pos = strtoull(argv[3], NULL, 0);
	if (pos < len)
		p[pos] ^= (unsigned char)strtoul(argv[4], NULL, 0);
	if (argc == 6) {
		hdrlen = get32(p, 12);
		paylen = get64(p, 32);
		if (hdrlen < 48 || hdrlen > len || paylen > len - hdrlen) {
			fprintf(stderr, "ckmangle: lengths out of range\n");
			return 3;
		}
		memset(p + 16, 0, 8);
		xs = XXH3_createState();
		XXH3_64bits_reset(xs);
		XXH3_64bits_update(xs, p, hdrlen);
		XXH3_64bits_update(xs, p + hdrlen, paylen);
		sum = XXH3_64bits_digest(xs);
		XXH3_freeState(xs);
		memcpy(p + 16, &sum, 8);
	}
	if ((f = fopen(argv[2], "wb")) == NULL ||
	    fwrite(p, 1, len, f) != len || fclose(f) != 0) {
		perror(argv[2]);
		return 2;
	}
	free(p);
	return 0;
}
