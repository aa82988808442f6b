/* batch: records kept, sorted by time and handed back; see batch.h.
 *
 * A record's serialized form: a varint length L, then L bytes:
 *   time (8), varint key length, key bytes, and per
 *   aggregate that takes a FIELD: varint n + 1 (0: NULL) and the text;
 *   for a number (if not NULL) its double (8; sum and avg parse its
 *   exact decimal value again from the text);
 *   for min-by / max-by (if not NULL) varint OUT length and the OUT text.
 * An aggregate whose FIELD an earlier one reads too (--sum 3 --max 3)
 * stores nothing: its value is the earlier one's; so does an OUT that an
 * earlier min-by / max-by stores (the whole record, or the same field).
 * A run holds such records back to back, sorted by time; equal times
 * are in order of arrival within a run, and a run's records all arrived
 * before a later run's, so the merge needs no arrival numbers. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window/assign.h"
#include "flow/batch.h"
#include "flow/source.h"
#include "io/keycodec.h"
#include "base/decimal.h"
#include "base/timefmt.h"
#include "base/util.h"

struct entry {
	int64_t t;
	uint64_t off;		/* of the record in the buffer */
};

/* A sorted run being read back from the spill file. */
struct run {
	uint64_t pos, end;	/* file offsets still to read */
	char *buf;
	size_t cap, lo, hi;	/* buf[lo..hi) read, not yet used */
	int64_t t;		/* the current record's */
	size_t idx;		/* which run: runs arrived in this order */
	const char *rec;	/* its body, in buf */
	size_t len;
};

struct batch {
	const struct config *c;
	struct assigner as;
	int check_range;
	uint64_t budget;
	size_t limit;		/* the buffer's size: min(budget / 4, CHUNK) */
	/* One buffer: records from its start (len bytes), an entry per
	 * record from its top down (n of them); the sort's second array
	 * fits in between (see buf_room). */
	char *buf;
	size_t len, cap, top;
	size_t n;
	int halt;		/* batch_halt (atomic): replay no more */
	int sorted;		/* entries arrived in time order */
	int64_t last_t;
	/* Sorted runs [start, end) back to back: in mem while they fit in
	 * the budget beside the buffer, in the spill file past it (the
	 * same offsets: mem is written to the file as it is) */
	char *mem;
	size_t memlen, memcap;
	int64_t run_last_t;	/* the last run's last time */
	int direct;		/* all records so far in time order: kept
				 * straight in mem as its one run */
	int fd;
	const char *dir;
	uint64_t flen;
	uint64_t *runs;		/* start, end pairs */
	size_t nruns, runcap;
	char *wbuf;
	size_t wlen;
	/* replay */
	struct aval *vals;
	const struct entry *sorted_e;	/* the buffer's entries, sorted */
	size_t next_e;		/* ... the next to hand back */
	int merging;		/* runs merged instead: */
	struct run *mruns;	/* each run's reading */
	struct run **heap;	/* ... by their first records */
	size_t nheap;
	int handed;		/* heap[0]'s record was handed back */
	/* per aggregate: whose value (and OUT) it stores, itself or an
	 * earlier one's */
	size_t *vsrc, *osrc;
};

#define WBUF_SIZE (64 * 1024)
/* The buffer holds at most this much (and a quarter of the budget): a
 * full one is sorted and becomes a run in memory (in the spill file past
 * the budget). A bounded buffer is reused, not fresh pages the kernel
 * zeroes; its sort stays in the caches; the merge reads each run in
 * order, not every record at random. */
#define CHUNK ((size_t)32 << 20)
#define RUN_READ ((size_t)1 << 20)	/* a spilled run's read buffer */
#define PREFETCH 16		/* records fetched ahead when read sorted */

uint64_t
batch_default_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);

	if (pages <= 0 || psz <= 0)
		return (uint64_t)256 << 20;
	return (uint64_t)pages * (uint64_t)psz / 4;
}

struct batch *
batch_new(const struct config *c, uint64_t budget)
{
	struct batch *b = xcalloc(1, sizeof(*b));
	size_t i, j;

	b->c = c;
	assigner_init(&b->as, c);
	b->check_range = b->as.ops->kind == AS_PANES ||
	    b->as.ops->kind == AS_MERGING;
	b->budget = budget;
	b->limit = budget / 4 < CHUNK ? (size_t)(budget / 4) : CHUNK;
	b->sorted = 1;
	b->direct = 1;
	b->last_t = INT64_MIN;
	b->fd = -1;
	b->vals = xcalloc(c->naggs ? c->naggs : 1, sizeof(*b->vals));
	b->vsrc = xcalloc(c->naggs ? c->naggs : 1, sizeof(*b->vsrc));
	b->osrc = xcalloc(c->naggs ? c->naggs : 1, sizeof(*b->osrc));
	for (i = 0; i < c->naggs; i++) {
		const struct aggspec *a = &c->aggs[i];

		b->vsrc[i] = b->osrc[i] = i;
		for (j = 0; j < i; j++) {
			const struct aggspec *e = &c->aggs[j];

			/* (values that an --if may make NULL are their own) */
			if (!(a->op->flags & AGF_FIELD) ||
			    !(e->op->flags & AGF_FIELD) ||
			    a->cond != NULL || e->cond != NULL ||
			    e->f.idx != a->f.idx)
				continue;
			/* a number's value has its text too */
			if (b->vsrc[i] == i && b->vsrc[j] == j &&
			    ((e->op->flags & AGF_NUMBER) ||
			    !(a->op->flags & AGF_NUMBER)))
				b->vsrc[i] = j;
			if (b->osrc[i] == i && b->osrc[j] == j &&
			    (a->op->flags & AGF_OUT) &&
			    (e->op->flags & AGF_OUT) &&
			    a->has_out == e->has_out &&
			    (!a->has_out || a->out.idx == e->out.idx))
				b->osrc[i] = j;
		}
	}
	return b;
}

static void merge_free(struct batch *b);

void
batch_free(struct batch *b)
{
	if (b == NULL)
		return;
	merge_free(b);
	if (b->fd >= 0)
		close(b->fd);
	free(b->buf);
	free(b->mem);
	free(b->runs);
	free(b->wbuf);
	free(b->vals);
	free(b->vsrc);
	free(b->osrc);
	free(b);
}

void
batch_spilled(const struct batch *b, uint64_t *runs, uint64_t *bytes)
{
	*runs = b->fd >= 0 ? b->nruns : 0;
	*bytes = b->flen;
}

/* --- the serialized form --- */

static size_t
uv_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static char *
uv_put(char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (char)v;
	return p;
}

/* Reads a varint from p[0..end); NULL when it does not end there. */
static const char *
uv_get(const char *p, const char *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	while (p < end && shift < 64) {
		unsigned char ch = (unsigned char)*p++;

		r |= (uint64_t)(ch & 0x7f) << shift;
		if (!(ch & 0x80)) {
			*v = r;
			return p;
		}
		shift += 7;
	}
	return NULL;
}

/* The length of a record's body. */
static size_t
body_len(const struct batch *b, size_t keylen, const struct aval *vals)
{
	size_t i, n = 8 + uv_len(keylen) + keylen;

	for (i = 0; i < b->c->naggs; i++) {
		unsigned fl = b->c->aggs[i].op->flags;
		const struct aval *v = &vals[i];

		if (!aggspec_valued(&b->c->aggs[i]))
			continue;
		if (b->vsrc[i] == i && v->p == NULL)
			n++;
		if (v->p == NULL)
			continue;
		if (b->vsrc[i] == i) {
			n += uv_len(v->n + 1) + v->n;
			if (fl & AGF_NUMBER)
				n += 8;
		}
		if ((fl & AGF_OUT) && b->osrc[i] == i)
			n += uv_len(v->outn) + v->outn;
	}
	return n;
}

static void
body_put(const struct batch *b, char *p, int64_t t, const char *key, size_t keylen, const struct aval *vals)
{
	size_t i;

	memcpy(p, &t, 8);
	p = uv_put(p + 8, keylen);
	memcpy(p, key, keylen);
	p += keylen;
	for (i = 0; i < b->c->naggs; i++) {
		unsigned fl = b->c->aggs[i].op->flags;
		const struct aval *v = &vals[i];

		if (!aggspec_valued(&b->c->aggs[i]))
			continue;
		if (b->vsrc[i] == i && v->p == NULL)
			*p++ = 0;
		if (v->p == NULL)
			continue;
		if (b->vsrc[i] == i) {
			p = uv_put(p, v->n + 1);
			memcpy(p, v->p, v->n);
			p += v->n;
			if (fl & AGF_NUMBER) {
				/* (a sum's exact value has no double; the
				 * aggregates that share its field need it) */
				double d = (fl & AGF_DEC) && v->is_dec ?
				    dec_to_double(&v->dec) : v->d;

				memcpy(p, &d, 8);
				p += 8;
			}
		}
		if ((fl & AGF_OUT) && b->osrc[i] == i) {
			p = uv_put(p, v->outn);
			memcpy(p, v->out, v->outn);
			p += v->outn;
		}
	}
}

/* Rebuilds a record's values from its body p[0..len). Returns 0, or -1
 * when the bytes do not make a record (a spill file changed under us). */
static int
body_get(struct batch *b, const char *p, size_t len, int64_t *t,
    const char **key, size_t *keylen)
{
	const char *end = p + len;
	uint64_t n;
	size_t i;

	if (len < 8)
		return -1;
	memcpy(t, p, 8);
	if ((p = uv_get(p + 8, end, &n)) == NULL || n > (uint64_t)(end - p))
		return -1;
	*key = p;
	*keylen = n;
	p += n;
	for (i = 0; i < b->c->naggs; i++) {
		unsigned fl = b->c->aggs[i].op->flags;
		struct aval *v = &b->vals[i];

		v->p = NULL;
		v->n = 0;
		if (!aggspec_valued(&b->c->aggs[i]))
			continue;
		if (b->vsrc[i] != i) {
			const struct aval *e = &b->vals[b->vsrc[i]];

			v->p = e->p;
			v->n = e->n;
			v->d = e->d;
		} else {
			if ((p = uv_get(p, end, &n)) == NULL ||
			    n > (uint64_t)(end - p) + 1)
				return -1;
			if (n == 0)
				continue;
			v->p = p;
			v->n = n - 1;
			p += n - 1;
			if (fl & AGF_NUMBER) {
				if (end - p < 8)
					return -1;
				memcpy(&v->d, p, 8);
				p += 8;
			}
		}
		if (v->p == NULL)
			continue;
		/* as aggs_extract does, whoever stored the text */
		v->is_dec = (fl & AGF_DEC) &&
		    dec_read(v->p, v->n, &v->dec) == 0;
		if ((fl & AGF_OUT) && b->osrc[i] != i) {
			v->out = b->vals[b->osrc[i]].out;
			v->outn = b->vals[b->osrc[i]].outn;
		} else if (fl & AGF_OUT) {
			if ((p = uv_get(p, end, &n)) == NULL ||
			    n > (uint64_t)(end - p))
				return -1;
			v->out = p;
			v->outn = n;
			p += n;
		}
	}
	return p == end ? 0 : -1;
}

/* --- sorting --- */

/* The entries, lowest address first: entry i (in order of arrival) is
 * the i-th below the top. */
static struct entry *
entries(const struct batch *b)
{
	return (struct entry *)(b->buf + b->top) - b->n;
}

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Sorts e[0..n) by (time, order in e): an LSD radix sort on the bytes
 * of the time less the least time, stable, so equal times keep their
 * order of arrival. Only the bytes that the span of times needs are
 * counted, and a byte that is the same in every time costs no pass. tmp
 * holds n entries. Returns e or tmp, whichever holds the result. */
static struct entry *
radix_sort(struct entry *e, struct entry *tmp, size_t n)
{
	size_t cnt[8][256];	/* 16 KiB: per call, for threads to come */
	struct entry *src = e, *dst = tmp, *sw;
	size_t i, pass, npass;
	uint64_t k, lo = UINT64_MAX, hi = 0;

	for (i = 0; i < n; i++) {
		k = (uint64_t)src[i].t ^ ((uint64_t)1 << 63);
		if (k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	for (npass = 0; npass < 8 && (hi - lo) >> (8 * npass) != 0; npass++)
		;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++) {
		k = ((uint64_t)src[i].t ^ ((uint64_t)1 << 63)) - lo;
		for (pass = 0; pass < npass; pass++)
			cnt[pass][(k >> (8 * pass)) & 0xff]++;
	}
	for (pass = 0; pass < npass; pass++) {
		size_t *c = cnt[pass], sum = 0, v;
		unsigned d;

		k = (((uint64_t)src[0].t ^ ((uint64_t)1 << 63)) - lo) >>
		    (8 * pass);
		if (c[k & 0xff] == n)
			continue;	/* one value of this byte: in order */
		for (d = 0; d < 256; d++) {
			v = c[d];
			c[d] = sum;
			sum += v;
		}
		for (i = 0; i < n; i++) {
			k = ((uint64_t)src[i].t ^ ((uint64_t)1 << 63)) - lo;
			dst[c[(k >> (8 * pass)) & 0xff]++] = src[i];
		}
		sw = src;
		src = dst;
		dst = sw;
	}
	return src;
}

/* The entries in (time, arrival) order: put in order of arrival, then
 * sorted unless they arrived in time order. */
static struct entry *
sorted_entries(struct batch *b)
{
	struct entry *e, sw;
	size_t i;

	if (b->n == 0)
		return NULL;
	e = entries(b);
	for (i = 0; i < b->n / 2; i++) {
		sw = e[i];
		e[i] = e[b->n - 1 - i];
		e[b->n - 1 - i] = sw;
	}
	if (b->sorted)
		return e;
	return radix_sort(e, (struct entry *)(b->buf + align8(b->len)), b->n);
}

/* --- spilling --- */

static int
spill_error(struct batch *b)
{
	fwin_warn("cannot write a spill file in %s: %s", b->dir,
	    strerror(errno));
	return BATCH_FAIL;
}

/* Opens the spill file (util.h's scratch file). */
static int
spill_open(struct batch *b)
{
	if ((b->fd = scratch_open(&b->dir)) < 0)
		return spill_error(b);
	b->wbuf = xmalloc(WBUF_SIZE);
	return 0;
}

static int
spill_write(struct batch *b, const char *p, size_t n)
{
	if (b->wlen + n > WBUF_SIZE) {
		if (write_all(b->fd, b->wbuf, b->wlen) != 0)
			return -1;
		b->wlen = 0;
		if (n > WBUF_SIZE)
			return write_all(b->fd, p, n);
	}
	memcpy(b->wbuf + b->wlen, p, n);
	b->wlen += n;
	return 0;
}

/* The record at off in the buffer: its whole length (header and body). */
static size_t
rec_size(const struct batch *b, uint64_t off)
{
	uint64_t n = 0;
	const char *p = uv_get(b->buf + off, b->buf + b->len, &n);

	return (size_t)(p - (b->buf + off)) + n;
}

/* Room in mem for n more bytes, within the budget beside the buffer. */
static int
mem_room(struct batch *b, size_t n)
{
	size_t ncap;

	if (b->fd >= 0 || b->cap + b->memlen + n > b->budget)
		return 0;
	if (b->memlen + n <= b->memcap)
		return 1;
	ncap = b->memcap ? 2 * b->memcap : (size_t)1 << 20;
	if (ncap < b->memlen + n)
		ncap = b->memlen + n;
	if (b->cap + ncap > b->budget)
		ncap = b->memlen + n;
	b->mem = xrealloc(b->mem, ncap);
	b->memcap = ncap;
	return 1;
}

/* Puts the runs in mem into the spill file, at the same offsets. */
static int
mem_to_file(struct batch *b)
{
	if (spill_open(b) != 0)
		return BATCH_FAIL;
	if (b->memlen > 0 && write_all(b->fd, b->mem, b->memlen) != 0)
		return spill_error(b);
	b->flen = b->memlen;
	free(b->mem);
	b->mem = NULL;
	b->memlen = b->memcap = 0;
	return 0;
}

/* Sorts the buffer into one run, in mem if it fits, else in the spill
 * file; the buffer is empty after. A run that follows the last one in
 * time order lengthens it (the records of both in arrival order). */
static int
spill(struct batch *b)
{
	size_t i;
	uint64_t start;
	struct entry *e;

	if (b->n == 0)
		return 0;
	e = sorted_entries(b);
	if (b->fd < 0 && mem_room(b, b->len)) {
		char *d = b->mem + b->memlen;

		start = b->memlen;
		for (i = 0; i < b->n && !b->sorted; i++) {
			size_t sz;

			if (i + PREFETCH < b->n)
				__builtin_prefetch(b->buf + e[i + PREFETCH].off);
			sz = rec_size(b, e[i].off);
			memcpy(d, b->buf + e[i].off, sz);
			d += sz;
		}
		if (b->sorted)	/* in place already */
			memcpy(d, b->buf, b->len);
		b->memlen += b->len;
	} else {
		if (b->fd < 0 && mem_to_file(b) != 0)
			return BATCH_FAIL;
		start = b->flen;
		for (i = 0; i < b->n; i++) {
			size_t sz;

			if (i + PREFETCH < b->n)
				__builtin_prefetch(b->buf + e[i + PREFETCH].off);
			sz = rec_size(b, e[i].off);
			if (spill_write(b, b->buf + e[i].off, sz) != 0)
				return spill_error(b);
			b->flen += sz;
		}
		if (b->wlen > 0 && write_all(b->fd, b->wbuf, b->wlen) != 0)
			return spill_error(b);
		b->wlen = 0;
	}
	if (b->nruns > 0 && e[0].t >= b->run_last_t &&
	    b->runs[2 * b->nruns - 1] == start)
		b->runs[2 * b->nruns - 1] = start + b->len;
	else {
		xgrow(&b->runs, &b->runcap, 2 * (b->nruns + 1),
		    sizeof(*b->runs));
		b->runs[2 * b->nruns] = start;
		b->runs[2 * b->nruns + 1] = start + b->len;
		b->nruns++;
	}
	b->run_last_t = e[b->n - 1].t;
	b->len = 0;
	b->n = 0;
	b->sorted = 1;
	if (b->cap > b->limit) {
		free(b->buf);	/* grown past the limit for one record */
		b->buf = NULL;
		b->cap = b->top = 0;
	}
	b->last_t = INT64_MIN;
	return 0;
}

/* --- keeping records --- */

/* Room for a record of sz bytes and its entry. The buffer holds the
 * records, the entries and room for the sort's second array of entries:
 * align8(len) + 32 n <= top. It grows up to its limit, except that one
 * record always fits. Returns 0, or -1 when it must be spilled first. */
static int
buf_room(struct batch *b, size_t sz)
{
	size_t need = align8(b->len + sz) + 2 * sizeof(struct entry) *
	    (b->n + 1), ncap, ntop;

	if (need <= b->top)
		return 0;
	need = (need + 15) & ~(size_t)15;
	if (need > b->limit && b->n > 0)
		return -1;
	if (b->cap >= b->limit && b->n > 0)
		return -1;
	ncap = b->cap ? 2 * b->cap : 64 * 1024;
	if (ncap > b->limit)
		ncap = b->limit;
	if (ncap < need)
		ncap = need;
	b->buf = xrealloc(b->buf, ncap);
	ntop = ncap & ~(size_t)15;
	memmove(b->buf + ntop - b->n * sizeof(struct entry),
	    b->buf + b->top - b->n * sizeof(struct entry),
	    b->n * sizeof(struct entry));
	b->cap = ncap;
	b->top = ntop;
	return 0;
}

int
batch_add(struct batch *b, int64_t t, const char *key, size_t keylen,
    const struct aval *vals)
{
	struct span sp;
	size_t blen, sz;
	char *p;

	if (b->check_range && b->as.ops->assign(&b->as, t, &sp) == AS_RANGE)
		return BATCH_RANGE;
	blen = body_len(b, keylen, vals);
	sz = uv_len(blen) + blen;
	if (b->direct) {
		/* in time order so far: no buffer, no entries, no copy */
		if ((b->nruns == 0 || t >= b->run_last_t) &&
		    mem_room(b, sz)) {
			p = uv_put(b->mem + b->memlen, blen);
			body_put(b, p, t, key, keylen, vals);
			if (b->nruns == 0) {
				xgrow(&b->runs, &b->runcap, 2,
				    sizeof(*b->runs));
				b->runs[0] = 0;
				b->nruns = 1;
			}
			b->memlen += sz;
			b->runs[1] = b->memlen;
			b->run_last_t = t;
			return BATCH_OK;
		}
		b->direct = 0;
	}
	if (buf_room(b, sz) != 0) {
		if (spill(b) != 0)
			return BATCH_FAIL;
		if (buf_room(b, sz) != 0)
			fwin_oom();	/* not reached: one record fits */
	}
	p = uv_put(b->buf + b->len, blen);
	body_put(b, p, t, key, keylen, vals);
	if (t < b->last_t)
		b->sorted = 0;
	b->last_t = t;
	b->n++;
	entries(b)->t = t;
	entries(b)->off = b->len;
	b->len += sz;
	return BATCH_OK;
}

/* --- replay --- */

/* Reads the run's next record into r->rec. Returns 1, 0 at its end, or
 * -1 after a message. */
static int
sorted_run_next(struct batch *b, struct run *r)
{
	uint64_t n;
	const char *p;
	ssize_t got;
	size_t want, need;

	r->lo += r->len;
	r->len = 0;
	for (;;) {
		p = uv_get(r->buf + r->lo, r->buf + r->hi, &n);
		if (p != NULL && n <= (uint64_t)(r->buf + r->hi - p)) {
			r->rec = p;
			r->len = (size_t)n;
			r->lo = (size_t)(p - r->buf);
			if (n < 8)
				break;
			memcpy(&r->t, p, 8);
			return 1;
		}
		if (r->pos == r->end)
			break;
		/* move what is left to the front, grow for a long record */
		need = p != NULL ? (size_t)(p - (r->buf + r->lo)) + (size_t)n : 0;
		memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
		r->hi -= r->lo;
		r->lo = 0;
		if (need > r->cap) {
			r->cap = need;
			r->buf = xrealloc(r->buf, r->cap);
		}
		want = r->cap - r->hi;
		if (want > r->end - r->pos)
			want = (size_t)(r->end - r->pos);
		got = pread(b->fd, r->buf + r->hi, want, (off_t)r->pos);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			fwin_warn("cannot read a spill file in %s: %s",
			    b->dir, strerror(errno));
			return -1;
		}
		r->hi += (size_t)got;
		r->pos += (uint64_t)got;
	}
	if (r->lo == r->hi && r->pos == r->end)
		return 0;
	if (b->fd >= 0)
		fwin_warn("a spill file in %s was changed while in use",
		    b->dir);
	else
		fwin_warn("batch: a record kept in memory is damaged");
	return -1;
}

static int
run_less(const struct run *a, const struct run *b)
{
	return a->t < b->t || (a->t == b->t && a->idx < b->idx);
}

static void
runs_sift_down(struct run **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct run *sw;

		if (l < n && run_less(h[l], h[m]))
			m = l;
		if (l + 1 < n && run_less(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		sw = h[i];
		h[i] = h[m];
		h[m] = sw;
		i = m;
	}
}

/* The merge's read buffers and heap, freed (at its end, or the
 * batch's). */
static void
merge_free(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->nruns && b->fd >= 0 && b->mruns != NULL; i++)
		free(b->mruns[i].buf);
	free(b->mruns);
	free(b->heap);
	b->mruns = NULL;
	b->heap = NULL;
	b->nheap = 0;
}

/* Starts merging the spilled runs (the buffer is one of them by now):
 * each run's first record read, the runs in a heap by it. Returns 0,
 * or -1 after a message. */
static int
merge_start(struct batch *b)
{
	size_t i, bufsz = b->budget / b->nruns;
	int rc;

	b->mruns = xcalloc(b->nruns, sizeof(*b->mruns));
	b->heap = xcalloc(b->nruns, sizeof(struct run *));
	if (bufsz > RUN_READ)
		bufsz = RUN_READ;
	if (bufsz < 4096)
		bufsz = 4096;
	for (i = 0; i < b->nruns; i++) {
		struct run *r = &b->mruns[i];

		r->idx = i;
		r->pos = b->runs[2 * i];
		r->end = b->runs[2 * i + 1];
		if (b->fd < 0) {	/* in mem: all of it read */
			r->buf = b->mem + r->pos;
			r->hi = (size_t)(r->end - r->pos);
			r->pos = r->end;
		} else {
			r->cap = bufsz;
			if (r->cap > r->end - r->pos)
				r->cap = (size_t)(r->end - r->pos);
			r->buf = xmalloc(r->cap);
		}
		if ((rc = sorted_run_next(b, r)) < 0)
			return -1;
		if (rc > 0)
			b->heap[b->nheap++] = r;
	}
	for (i = b->nheap; i-- > 0;)
		runs_sift_down(b->heap, b->nheap, i);
	return 0;
}

/* Starts handing the records back: the buffer's entries sorted, or
 * its records spilled as the last run and the runs merged. Returns 0,
 * or -1 after a message. */
static int
replay_start(struct batch *b)
{
	if (b->nruns > 0) {
		/* the last of the records to a run too, and the buffers'
		 * memory to the merge's read buffers */
		if (spill(b) != 0)
			return -1;
		free(b->buf);
		b->buf = NULL;
		b->cap = b->top = 0;
		b->merging = 1;
		if (merge_start(b) != 0) {
			merge_free(b);
			return -1;
		}
		return 0;
	}
	b->sorted_e = sorted_entries(b);
	b->next_e = 0;
	return 0;
}

/* The merge's next record, *p[0..*len): the least of the runs' first
 * ones. Returns 1, 0 at the end, or -1 after a message. */
static int
merge_next(struct batch *b, const char **p, size_t *len)
{
	struct run *r;
	int more;

	if (b->handed) {	/* the record handed over last is done */
		b->handed = 0;
		r = b->heap[0];
		if ((more = sorted_run_next(b, r)) < 0) {
			merge_free(b);
			return -1;
		}
		if (more == 0)
			b->heap[0] = b->heap[--b->nheap];
		runs_sift_down(b->heap, b->nheap, 0);
	}
	if (b->nheap == 0) {
		merge_free(b);
		return 0;
	}
	r = b->heap[0];
	b->handed = 1;
	*p = r->rec;
	*len = r->len;
	return 1;
}

/* The buffer's next record in sorted order, as merge_next(). */
static int
entry_next(struct batch *b, const char **p, size_t *len)
{
	const struct entry *e = b->sorted_e;
	size_t i = b->next_e;
	uint64_t n = 0;

	if (i >= b->n)
		return 0;
	/* sorted, the records are read out of place: fetch ahead */
	if (i + PREFETCH < b->n)
		__builtin_prefetch(b->buf + e[i + PREFETCH].off);
	*p = uv_get(b->buf + e[i].off, b->buf + b->len, &n);
	*len = (size_t)n;
	b->next_e = i + 1;
	return 1;
}

/* The sorted replay as a record source (source.h): each record decoded
 * into one struct parsed, its key hashed. Here, beside the runs, so that
 * a record costs one call. */
struct src_sorted {
	struct source s;
	struct batch *b;
	struct parsed pr;
	int started;
};

static int
replay_next(struct source *s, const struct parsed **out)
{
	struct src_sorted *ss = (struct src_sorted *)s;
	struct batch *b = ss->b;
	struct parsed *pr = &ss->pr;
	const char *p = NULL;
	size_t len = 0;
	int rc;

	if (!ss->started) {
		ss->started = 1;
		if (replay_start(b) != 0)
			return -1;
	}
	if (__atomic_load_n(&b->halt, __ATOMIC_RELAXED))
		return SOURCE_END;
	rc = b->merging ? merge_next(b, &p, &len) : entry_next(b, &p, &len);
	if (rc <= 0)
		return rc < 0 ? -1 : SOURCE_END;
	if (body_get(b, p, len, &pr->t, &pr->key, &pr->keylen) != 0) {
		if (b->dir != NULL)
			fwin_warn("a spill file in %s was changed while in "
			    "use", b->dir);
		else
			fwin_warn("batch: a record kept in memory is damaged");
		return -1;
	}
	pr->hash = key_hash(pr->key, pr->keylen);
	*out = pr;
	return SOURCE_RECORD;
}

static void
replay_free(struct source *s)
{
	free(s);
}

static const struct source_methods sorted_methods = {
	.name = "sorted",
	.next = replay_next,
	.free = replay_free,
};

struct source *
source_sorted(struct batch *b)
{
	struct src_sorted *ss = source_alloc(sizeof(*ss));

	ss->s.m = &sorted_methods;
	ss->b = b;
	/* what a kept record is besides its time, key and values */
	ss->pr.kind = PR_RECORD;
	ss->pr.has_t = 1;
	ss->pr.fmt = TF_AUTO;
	ss->pr.vals = b->vals;
	return &ss->s;
}

void
batch_halt(struct batch *b)
{
	__atomic_store_n(&b->halt, 1, __ATOMIC_RELAXED);
}
