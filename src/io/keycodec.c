/* keycodec: canonical key bytes; see keycodec.h. */
#include <string.h>

#include "io/keycodec.h"
#include "base/util.h"

const char *
key_encode(const struct field *f, const size_t *idx, size_t nkeys,
    char **buf, size_t *cap, size_t *n)
{
	size_t i, len = 0;
	uint32_t l;

	if (nkeys == 0) {
		*n = 0;
		return "";
	}
	if (nkeys == 1) {
		*n = f[idx[0]].n;
		return f[idx[0]].p;
	}
	for (i = 0; i < nkeys; i++)
		len += sizeof(l) + f[idx[i]].n;
	xgrow(buf, cap, len, 1);
	len = 0;
	for (i = 0; i < nkeys; i++) {
		const struct field *x = &f[idx[i]];

		l = (uint32_t)x->n;
		memcpy(*buf + len, &l, sizeof(l));
		memcpy(*buf + len + sizeof(l), x->p, x->n);
		len += sizeof(l) + x->n;
	}
	*n = len;
	return *buf;
}

int
key_cmp(size_t nkeys, const char *pa, size_t alen, const char *pb,
    size_t blen)
{
	const char *ea = pa + alen, *eb = pb + blen;
	uint32_t la, lb;
	int c;

	if (nkeys <= 1) {
		c = memcmp(pa, pb, alen < blen ? alen : blen);
		return c != 0 ? c : (alen > blen) - (alen < blen);
	}
	while (pa < ea && pb < eb) {
		memcpy(&la, pa, sizeof(la));
		memcpy(&lb, pb, sizeof(lb));
		pa += sizeof(la);
		pb += sizeof(lb);
		c = memcmp(pa, pb, la < lb ? la : lb);
		if (c != 0)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
		pa += la;
		pb += lb;
	}
	return 0;
}

uint64_t
key_prefix(size_t nkeys, const char *b, size_t n)
{
	const unsigned char *p = (const unsigned char *)b;
	uint64_t v = 0;
	uint32_t l;
	size_t i;

	if (nkeys > 1) {	/* (u32 length, bytes) pairs */
		memcpy(&l, p, sizeof(l));
		p += sizeof(l);
		n = l;
	}
	if (n >= 8) {
		memcpy(&v, p, sizeof(v));
		return __builtin_bswap64(v);
	}
	for (i = 0; i < 8; i++)
		v = v << 8 | (i < n ? p[i] : 0);
	return v;
}

int
key_valid(size_t nkeys, const char *p, size_t len)
{
	const char *e = p + len;
	uint32_t l;
	size_t n = 0;

	if (nkeys <= 1)
		return nkeys == 1 || len == 0;
	while (e - p >= (ptrdiff_t)sizeof(l)) {
		memcpy(&l, p, sizeof(l));
		p += sizeof(l);
		if (l > (size_t)(e - p))
			return 0;
		p += l;
		n++;
	}
	return p == e && n == nkeys;
}

void
key_write(struct out *o, size_t nkeys, const char *p, size_t len)
{
	const char *end = p + len;
	uint32_t l;

	if (nkeys == 1) {
		out_str(o, p, len);
		return;
	}
	while (p < end) {
		memcpy(&l, p, sizeof(l));
		out_str(o, p + sizeof(l), l);
		p += sizeof(l) + l;
	}
}
