/*
 * reader: the reading thread of --threads, a source (source.h) that
 * reads another ahead on a thread of its own: the input, read and
 * parsed (source_input), or the sorted replay (source_sorted).
 *
 * The thread fills one slot of the ring at a time with entries (a
 * parsed record in a compact form: its numbers, then a copy of the bytes
 * it points to) and publishes it when it is full, when the input would
 * block (so that live input keeps its latency), at the end and when
 * asked to pause. The driver empties the slots in order, decoding each
 * entry into a struct parsed whose pointers go into the slot, good until
 * the slot is emptied. An entry that does not fit starts the next slot
 * (grown first if need be). The thread's messages (a file that cannot be
 * opened, an unfinished last line) become entries too, so they are said
 * in their place among the records' own. Waiting is first awake, then
 * asleep on a condition variable (see spin()); the pipes only wake a
 * thread that polls: the driver once the input would block, the thread
 * for a pause or a stop while it polls its input.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window/assign.h"
#include "flow/source.h"
#include "base/timefmt.h"
#include "base/util.h"
#include "window/wire.h"

#define NSLOT		4
#define SLOT_BYTES	(1024 * 1024)
/* About 50 microseconds of waiting awake before sleeping (spin()). */
#define SPIN_ROUNDS	2000
/* How far ahead of the entry it decodes the driver fetches the slot
 * into its cache, in bytes: about 20 plain entries, beyond the farthest
 * source_ahead() look (exec/warm.c). */
#define FETCH_AHEAD	1280
/* The offsets of the entries source_ahead() looks at, found by walking
 * them (a power of two, past its farthest look). */
#define AHEAD_RING	32

enum { SL_WAIT = 1, SL_END = 2, SL_PAUSED = 4 };

struct slot {
	_Alignas(64) char *buf;	/* (a slot filled shares no line with
				   the one emptied) */
	size_t cap, used;	/* entries in buf[0..used) */
	size_t n;		/* entries */
	int flags;		/* SL_*: what came after them */
	int rc;			/* SL_END: source_next()'s last word */
	uint64_t bytes;		/* input consumed through them */
};

/*
 * An entry: a parsed record in a compact form, as what costs is what
 * crosses from one core's cache to the other's (about two lines for a
 * typical record): this header, a struct wval per aggregate that takes
 * a FIELD (a record's only), then the bytes: key, time, raw record,
 * each value's text and OUT, and the message (a C string). Entries lie
 * one after the other, 8-byte aligned, each found from the one before
 * by its first word: a full entry's size (a multiple of 8, its top byte
 * 0), a plain entry's meta word (below, WP_PLAIN in its top byte).
 */
struct wire {
	uint64_t size;
	int64_t t;
	uint64_t hash;
	uint64_t line;
	const char *file;
	uint64_t keylen, tvaln, rawlen, msglen;	/* (a field may pass 4 GiB) */
	int64_t win;
	uint8_t kind, has_t, has_msg, fmt, has_win, bad_time;
};

/* Whether an entry keeps the time's text: a record's (for messages), a
 * bad time's and the time that found the format (for hint.c). */
static int
keeps_time(const struct parsed *pr)
{
	return pr->kind == PR_RECORD || pr->bad_time || pr->fmt != TF_AUTO;
}

/*
 * A plain entry: the commonest record, in half the bytes. Its values are
 * exact decimals of 64 bits (or NULL) whose text does not cross, it keeps
 * no raw record, it was read in the file of the entry before it, and
 * what a record shares with the one before is not written at all: the
 * driver keeps it from the entry before. Its key is padded as a field
 * is (input.h: FIELD_PAD bytes from it are its own, written), so that
 * the table compares a short key in one load.
 */
enum { WP_HAS_T = 1, WP_HAS_WIN = 2, WP_PLAIN = 4 };

struct wplain {
	uint64_t meta;		/* WP_META(): the rest, in one word */
	int64_t t;
	uint64_t hash;
	int64_t win;
};

/* A plain entry's line less the entry before's, its size, its key's
 * length, its time's text's (none where its window was found) and WP_*
 * flags, in the one word the thread writes at once. */
#define WP_META(dline, size, keylen, tvaln, flags) ((uint64_t)(dline) | \
	(uint64_t)(size) << 16 | (uint64_t)(keylen) << 32 | \
	(uint64_t)(tvaln) << 48 | (uint64_t)(flags) << 56)
#define WP_DLINE(m)	((uint16_t)(m))
#define WP_SIZE(m)	((uint16_t)((m) >> 16))
#define WP_KEYLEN(m)	((uint16_t)((m) >> 32))
#define WP_TVALN(m)	((uint8_t)((m) >> 48))
#define WP_FLAGS(m)	((uint8_t)((m) >> 56))

/* A plain entry's value: scale INT32_MIN is NULL. */
struct wpval {
	int64_t m;
	int64_t scale;
};

/* The longest key of a plain entry, and the most values it has (its
 * size fits in 16 bits). */
#define PLAIN_KEY	1024
#define PLAIN_VALS	((UINT16_MAX - sizeof(struct wplain) - PLAIN_KEY - \
	UINT8_MAX - 7) / sizeof(struct wpval))

/* The size of a plain entry of nvf values whose key and time's text
 * take bytes. */
static inline size_t
plain_size(size_t nvf, size_t bytes)
{
	return (sizeof(struct wplain) + nvf * sizeof(struct wpval) +
	    (bytes > FIELD_PAD ? bytes : FIELD_PAD) + 7) & ~(size_t)7;
}

/* Whether the entry at e is a plain one, and its size: from its first
 * word. */
static inline int
is_plain(const char *e)
{
	uint64_t head;

	memcpy(&head, e, sizeof(head));
	return (WP_FLAGS(head) & WP_PLAIN) != 0;
}

static inline size_t
entry_size(const char *e)
{
	uint64_t head;

	memcpy(&head, e, sizeof(head));
	return is_plain(e) ? WP_SIZE(head) : head;
}

/* The padding is the point: what each thread writes sits on lines of
 * its own. */
struct reader {	/* NOLINT(clang-analyzer-optin.performance.Padding) */
	struct source s;	/* (first: what the driver holds) */
	/* set before the thread starts */
	struct source *in;	/* what it reads */
	const struct config *c;
	int keep_raw;
	int windows;		/* finds each record's tumbling window, once
				   asked (atomic: source_find_windows) */
	struct assigner as;
	struct span last;	/* the last window found */
	struct wire_fields wf;	/* the aggregates that take a FIELD */
	pthread_t th;
	int wake[2];		/* to the thread: pause or stop */
	int notify[2];		/* to the driver: a slot was published */

	pthread_mutex_t mu;	/* guards waiting, and full[]'s changes (it is
				   read atomically too); cv signals them */
	pthread_cond_t cv;	/* any change of them, pause or stop */
	struct slot slot[NSLOT];
	int full[NSLOT];
	int waiting;		/* the input would block: the thread polls */
	int pause, stop;	/* asked by the driver (atomic) */
	unsigned pauses;	/* pauses asked, each answered by a slot
				   SL_PAUSED (changed under mu) */

	/* the thread's, and the driver's, each on lines of its own: the
	 * driver writes rn at every record */
	_Alignas(64) unsigned wi;
	struct slot *w;		/* being filled, or NULL */
	int plain;		/* plain entries may be written (no text
				   and no raw record cross) */
	uint64_t wline;		/* the line and file of the last entry */
	const char *wfile;	/* written (plain entries: see decode) */
	_Alignas(64) unsigned ri;
	struct slot *r;		/* being emptied, or NULL */
	size_t rn;		/* its next entry */
	size_t rpos, lastpos;	/* where it starts, and the one before */
	/* source_ahead(): the offsets of its entries up to afar (from the
	 * one handed over last), at their number modulo AHEAD_RING */
	size_t afar;
	size_t apos[AHEAD_RING];
	/* the entries handed over last (a block: source_next_n), their
	 * values (nvals each), whether each has a plain entry's constant
	 * fields; the line and file of the entry decoded last */
	struct parsed cur[PARSE_SETS];
	struct aval *vals;
	size_t nvals;
	struct aval **vfvals;	/* cur[k]'s values that take a FIELD:
				   [k * nvf, (k + 1) * nvf) */
	uint8_t cur_plain[PARSE_SETS];
	uint64_t line;
	const char *file;
	int ended, endrc;	/* the thread has published its last slot */
	uint64_t bytes;
};

/* *flag, as the other thread last stored it */
static int
loaded(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* Waits a little, awake, for *flag to become want: a slot is filled or
 * emptied in a fraction of a millisecond, and waking a thread that slept
 * can take as long (a virtual machine's cores most of all). */
static void
spin(int *flag, int want)
{
	int i;

	for (i = 0; i < SPIN_ROUNDS && loaded(flag) != want; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

/* The thread writes an entry's words whole, each made in a register
 * first (eight bytes read back from smaller stores are not forwarded: the
 * thread would wait for them). Through the cache: stores that pass it by
 * (movnti) send each line to memory, whence the driver reads it back;
 * measured on an AMD EPYC, the thread took 5% longer so, the driver as
 * long. */
static inline void
put8(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The thread: waits for the next slot to be free and starts filling it.
 * Returns -1 when asked to stop instead. */
static int
take(struct reader *rd)
{
	struct slot *s = &rd->slot[rd->wi];

	spin(&rd->full[rd->wi], 0);
	pthread_mutex_lock(&rd->mu);
	while (loaded(&rd->full[rd->wi]) && !loaded(&rd->stop))
		pthread_cond_wait(&rd->cv, &rd->mu);
	pthread_mutex_unlock(&rd->mu);
	if (loaded(&rd->stop))
		return -1;
	if (s->cap > SLOT_BYTES) {	/* grown for one long record */
		free(s->buf);
		s->buf = NULL;
		s->cap = 0;
	}
	s->used = 0;
	s->n = 0;
	s->flags = 0;
	s->rc = 0;
	rd->w = s;
	return 0;
}

/* The thread: hands the slot being filled to the driver. */
static void
publish(struct reader *rd, int flags, int rc)
{
	struct slot *s = rd->w;
	char b = 0;
	int polled;

	s->flags = flags;
	s->rc = rc;
	s->bytes = source_bytes(rd->in);
	pthread_mutex_lock(&rd->mu);
	__atomic_store_n(&rd->full[rd->wi], 1, __ATOMIC_RELEASE);
	/* the driver polls only once told that the input would block */
	polled = rd->waiting;
	rd->waiting = (flags & SL_WAIT) != 0;
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	rd->wi = (rd->wi + 1) % NSLOT;
	rd->w = NULL;
	/* nonblocking: a full pipe is readable already */
	if (polled)
		(void)!write(rd->notify[1], &b, 1);
}

/* The thread: room for an entry of size bytes in the slot being filled;
 * NULL when asked to stop while it waited for a slot. */
static inline __attribute__((always_inline)) char *
reserve(struct reader *rd, size_t size)
{
	struct slot *s = rd->w;
	char *e;

	if (s->used + size > s->cap) {
		if (s->used > 0) {
			publish(rd, 0, 0);
			if (take(rd) != 0)
				return NULL;
			s = rd->w;
		}
		if (size > s->cap) {
			s->cap = size > SLOT_BYTES ? size : SLOT_BYTES;
			free(s->buf);
			s->buf = xmalloc(s->cap);
		}
	}
	s->n++;
	e = s->buf + s->used;
	s->used += size;
	return e;
}

/* The thread: record pr's tumbling window, once asked for it. */
static int
find_window(struct reader *rd, const struct parsed *pr, int64_t *win)
{
	return __atomic_load_n(&rd->windows, __ATOMIC_RELAXED) &&
	    assign_pane(&rd->as, &rd->last, pr->t, win);
}

/* The thread: whether record pr may cross as a plain entry, as far as
 * what it shares with the entry before goes (its values: put_plain()). */
static int
fits_plain(const struct reader *rd, const struct parsed *pr)
{
	return rd->plain && pr->fmt == TF_AUTO && pr->file == rd->wfile &&
	    pr->line - rd->wline <= UINT16_MAX && pr->keylen <= PLAIN_KEY &&
	    pr->tvaln <= UINT8_MAX && (unsigned)pr->has_t <= 1;
}

/* The thread: appends pr as an entry of the full form. */
static int
put_full(struct reader *rd, const struct parsed *pr)
{
	int rec = pr->kind == PR_RECORD;
	/* the bytes after the header, in this order */
	size_t keylen = rec ? pr->keylen : 0,
	    tvaln = keeps_time(pr) ? pr->tvaln : 0,
	    rawlen = rd->keep_raw && (rec || pr->kind == PR_BAD) ?
		pr->rawlen : 0,	/* (the late file, --bad-file) */
	    nvf = rec ? rd->wf.nvf : 0,
	    msglen = pr->msg != NULL ? pr->msglen + 1 : 0,
	    size = sizeof(struct wire) + nvf * sizeof(struct wval) + keylen +
		tvaln + rawlen + msglen +
		(rec ? wire_vals_bytes(&rd->wf, pr->vals) : 0);
	struct wire *w;
	struct wval *wv;
	char *at;

	size = (size + 7) & ~(size_t)7;
	w = (struct wire *)reserve(rd, size);
	if (w == NULL)
		return -1;
	w->size = size;
	w->kind = (uint8_t)pr->kind;
	w->has_t = (uint8_t)pr->has_t;
	w->has_msg = pr->msg != NULL;
	w->bad_time = (uint8_t)pr->bad_time;
	w->fmt = (uint8_t)pr->fmt;
	w->t = pr->t;
	w->hash = pr->hash;
	w->line = pr->line;
	w->file = pr->file;
	w->keylen = keylen;
	w->tvaln = tvaln;
	w->rawlen = rawlen;
	w->msglen = pr->msglen;
	w->has_win = rec && find_window(rd, pr, &w->win);
	wv = (struct wval *)(w + 1);
	at = wire_put_bytes((char *)(wv + nvf), pr->key, keylen);
	at = wire_put_bytes(at, pr->tval, tvaln);
	at = wire_put_bytes(at, pr->raw, rawlen);
	if (rec)
		at = wire_vals_put(&rd->wf, pr->vals, wv, at);
	if (pr->msg != NULL) {	/* a C string, as the parser's is */
		at = wire_put_bytes(at, pr->msg, pr->msglen);
		*at = '\0';
	}
	rd->wline = pr->line;
	rd->wfile = pr->file;
	return 0;
}

/* The thread: appends record pr as a plain entry, or, when a value is
 * not an exact decimal of 64 bits, as a full one. Each word is made
 * whole and put8() once (eight bytes read back from smaller stores are
 * not forwarded: the thread would wait for them); the time's text
 * crosses only where the driver may need it for a message (its window
 * not found here). */
static int
put_plain(struct reader *rd, const struct parsed *pr)
{
	int64_t win = 0;
	int has_win = find_window(rd, pr, &win);
	size_t i, nvf = rd->wf.nvf, tvaln = has_win ? 0 : pr->tvaln,
	    bytes = pr->keylen + tvaln, size = plain_size(nvf, bytes);
	char *e = reserve(rd, size), *at;
	uint64_t d, q[8];
	int flags = WP_PLAIN | (pr->has_t ? WP_HAS_T : 0) |
	    (has_win ? WP_HAS_WIN : 0);

	if (e == NULL)
		return -1;
	at = e + sizeof(struct wplain);
	for (i = 0; i < nvf; i++, at += sizeof(struct wpval)) {
		const struct aval *v = &pr->vals[rd->wf.vf[i]];

		if (v->p == NULL) {
			put8(at, 0);
			put8(at + 8, (uint64_t)(int64_t)INT32_MIN);
			continue;
		}
		memcpy(&d, &v->d, sizeof(d));
		if (v->is_dec != 1 || v->dec.exp || d != 0 ||
		    v->dec.m != (int64_t)v->dec.m ||
		    v->dec.scale == INT32_MIN) {
			rd->w->used -= size;	/* (taken back) */
			rd->w->n--;
			return put_full(rd, pr);
		}
		put8(at, (uint64_t)(int64_t)v->dec.m);
		put8(at + 8, (uint64_t)(int64_t)v->dec.scale);
	}
	put8(e, WP_META(pr->line - rd->wline, size, pr->keylen, tvaln, flags));
	put8(e + 8, (uint64_t)pr->t);
	put8(e + 16, pr->hash);
	put8(e + 24, (uint64_t)win);
	if (pr->key_padded && tvaln == 0 && bytes <= FIELD_PAD) {
		memcpy(&d, pr->key, sizeof(d));	/* (one load) */
		put8(at, d);
	} else if (bytes <= sizeof(q)) {
		memset(q, 0, sizeof(q));
		(void)wire_put_bytes(wire_put_bytes((char *)q, pr->key,
		    pr->keylen), pr->tval, tvaln);
		for (i = 0; i < (bytes > FIELD_PAD ? (bytes + 7) / 8 : 1); i++)
			put8(at + 8 * i, q[i]);
	} else {	/* (a long one: written through the cache) */
		memset(at + ((bytes - 1) & ~(size_t)7), 0, 8);
		(void)wire_put_bytes(wire_put_bytes(at, pr->key, pr->keylen),
		    pr->tval, tvaln);
	}
	rd->wline = pr->line;
	return 0;
}

/* The thread: appends a parsed record (or note) to the slot being
 * filled. Returns -1 when asked to stop while it waited for a slot. */
static int
put_entry(struct reader *rd, const struct parsed *pr)
{
	return pr->kind == PR_RECORD && fits_plain(rd, pr) ?
	    put_plain(rd, pr) : put_full(rd, pr);
}

/* The driver: the entry at e, as the parsed record it was, into cur[k]. */
static const struct parsed *
decode(struct reader *rd, const char *e, size_t k)
{
	const struct wire *w = (const struct wire *)e;
	const struct wval *wv = (const struct wval *)(w + 1);
	struct parsed *pr = &rd->cur[k];
	const char *b;

	rd->cur_plain[k] = 0;
	pr->key_padded = 0;
	pr->kind = (enum parsed_kind)w->kind;
	pr->has_t = w->has_t;
	pr->bad_time = w->bad_time;
	pr->fmt = w->fmt;
	pr->t = w->t;
	pr->hash = w->hash;
	pr->has_win = w->has_win;
	pr->win = w->win;
	pr->line = rd->line = w->line;
	pr->file = rd->file = w->file;
	pr->keylen = w->keylen;
	pr->tvaln = w->tvaln;
	pr->rawlen = w->rawlen;
	pr->msglen = w->msglen;
	b = (const char *)(wv + (pr->kind == PR_RECORD ? rd->wf.nvf : 0));
	pr->key = b;
	b += w->keylen;
	pr->tval = b;
	b += w->tvaln;
	pr->raw = b;	/* empty unless the late or bad file keeps them */
	b += w->rawlen;
	if (pr->kind == PR_RECORD)
		b = wire_vals_get(&rd->wf, wv, b, rd->vals + k * rd->nvals);
	pr->msg = w->has_msg ? b : NULL;
	return pr;
}

/* The driver: the plain entry at e, as the parsed record it was, into
 * cur[k]. (Inline: the commonest entry, decoded per record.) */
static inline __attribute__((always_inline)) const struct parsed *
decode_plain(struct reader *rd, const char *e, size_t k)
{
	const struct wplain *w = (const struct wplain *)e;
	const struct wpval *wv = (const struct wpval *)(w + 1);
	struct parsed *pr = &rd->cur[k];
	/* (read once: the stores below could alias them) */
	size_t nvf = rd->wf.nvf, i;
	struct aval *const *vals = rd->vfvals + k * nvf, *v;
	uint64_t meta = w->meta;

	if (!rd->cur_plain[k]) {	/* what every plain entry has */
		pr->kind = PR_RECORD;
		pr->bad_time = 0;
		pr->fmt = TF_AUTO;
		pr->raw = "";
		pr->rawlen = 0;
		pr->msg = NULL;
		pr->msglen = 0;
		pr->key_padded = 1;
		for (i = 0; i < nvf; i++) {
			v = vals[i];
			v->n = 0;
			v->d = 0;
			v->is_dec = 1;
			v->dec.exp = 0;
		}
		rd->cur_plain[k] = 1;
	}
	pr->t = w->t;
	pr->hash = w->hash;
	pr->has_t = (WP_FLAGS(meta) & WP_HAS_T) != 0;
	pr->has_win = (WP_FLAGS(meta) & WP_HAS_WIN) != 0;
	pr->win = w->win;
	pr->line = rd->line += WP_DLINE(meta);
	pr->file = rd->file;
	for (i = 0; i < nvf; i++) {	/* (one, most often) */
		v = vals[i];
		v->p = wv[i].scale != INT32_MIN ? "" : NULL;
		v->dec.m = wv[i].m;
		v->dec.scale = (int32_t)wv[i].scale;
		if (nvf == 1)
			break;
	}
	pr->key = (const char *)(wv + nvf);
	pr->keylen = WP_KEYLEN(meta);
	pr->tval = pr->key + pr->keylen;
	pr->tvaln = WP_TVALN(meta);
	return pr;
}

/* The driver: the entry at buf + *pos, into cur[k]; *pos moves past
 * it. (Its place is the caller's local: the stores into cur[k] could
 * alias the reader's.) */
static inline __attribute__((always_inline)) const struct parsed *
decode_next(struct reader *rd, const char *buf, size_t *pos, size_t k)
{
	const char *e = buf + *pos;

	/* the thread wrote them on the other core: fetched ahead of
	 * source_ahead()'s look (a fetch past the slot's end is harmless;
	 * a plain entry is under a line, and the entries are read in
	 * order: a line a record) */
	__builtin_prefetch(e + FETCH_AHEAD);
	*pos += entry_size(e);
	return is_plain(e) ? decode_plain(rd, e, k) : decode(rd, e, k);
}

/* The thread's messages: entries among the records. */
static void
note_entry(void *arg, const char *line, size_t n)
{
	struct reader *rd = arg;
	struct parsed pr;

	memset(&pr, 0, sizeof(pr));
	pr.kind = PR_NOTE;
	pr.msg = line;
	pr.msglen = n;
	if (rd->w != NULL)
		(void)put_entry(rd, &pr);
}

/* The thread: sleeps until the input is readable, or the driver asks
 * for a pause or a stop. */
static void
await_input(struct reader *rd)
{
	struct pollfd pfd[2];
	char b[64];

	pfd[0].fd = source_fd(rd->in);
	pfd[0].events = POLLIN;
	pfd[1].fd = rd->wake[0];
	pfd[1].events = POLLIN;
	if (loaded(&rd->pause) || loaded(&rd->stop))
		return;
	if (poll(pfd, 2, source_wait_ms(rd->in)) > 0 &&
	    (pfd[1].revents & POLLIN))
		while (read(rd->wake[0], b, sizeof(b)) > 0)
			;
}

/* The thread: answers the pauses asked so far with a slot SL_PAUSED and
 * waits for the resume, or for a pause asked after it: the driver may
 * resume and pause again before the thread wakes, and that pause wants
 * an answer of its own. */
static void
pause_here(struct reader *rd)
{
	unsigned asked;

	pthread_mutex_lock(&rd->mu);
	asked = rd->pauses;
	pthread_mutex_unlock(&rd->mu);
	publish(rd, SL_PAUSED, 0);
	pthread_mutex_lock(&rd->mu);
	while (loaded(&rd->pause) && rd->pauses == asked && !loaded(&rd->stop))
		pthread_cond_wait(&rd->cv, &rd->mu);
	pthread_mutex_unlock(&rd->mu);
}

static void *
reader_main(void *arg)
{
	struct reader *rd = arg;
	const struct parsed *pr[PARSE_SETS];
	size_t n, k;
	int rc;

	fwin_warn_to(note_entry, rd);
	if (take(rd) != 0)
		return NULL;
	for (;;) {
		if (loaded(&rd->stop))
			break;
		if (loaded(&rd->pause)) {
			pause_here(rd);
			if (take(rd) != 0)
				break;
			continue;
		}
		/* (a block: what its parse says comes at its first record
		 * or its last, where it would one at a time) */
		rc = source_next_n(rd->in, pr, PARSE_SETS, &n);
		if (rc == SOURCE_WAIT) {
			publish(rd, SL_WAIT, 0);
			await_input(rd);
			if (take(rd) != 0)
				break;
			continue;
		}
		if (rc != SOURCE_RECORD) {
			publish(rd, SL_END, rc);
			break;
		}
		for (k = 0; k < n && put_entry(rd, pr[k]) == 0; k++)
			;
		if (k < n)
			break;
	}
	fwin_warn_to(NULL, NULL);
	return NULL;
}

static void
make_pipe(int fd[2])
{
	if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) != 0)
		fwin_die("cannot make a pipe: %s", strerror(errno));
}

/* The driver: the next entry, decoded; see source_next(). */
static int
reader_next(struct source *src, const struct parsed **pr)
{
	struct reader *rd = (struct reader *)src;
	struct slot *s;
	int flags;

	for (;;) {
		if ((s = rd->r) != NULL) {
			if (rd->rn < s->n) {
				rd->lastpos = rd->rpos;
				rd->rn++;
				*pr = decode_next(rd, s->buf, &rd->rpos, 0);
				return SOURCE_RECORD;
			}
			flags = s->flags;
			rd->bytes = s->bytes;
			if (flags & SL_END) {
				rd->ended = 1;
				rd->endrc = s->rc;
			}
			pthread_mutex_lock(&rd->mu);
			__atomic_store_n(&rd->full[rd->ri], 0,
			    __ATOMIC_RELEASE);
			pthread_cond_broadcast(&rd->cv);
			pthread_mutex_unlock(&rd->mu);
			rd->ri = (rd->ri + 1) % NSLOT;
			rd->r = NULL;
			if (flags & SL_PAUSED)
				return SOURCE_PAUSED;
			if (flags & SL_WAIT)
				return SOURCE_WAIT;
			continue;
		}
		if (rd->ended)
			return rd->endrc;
		spin(&rd->full[rd->ri], 1);
		pthread_mutex_lock(&rd->mu);
		while (!loaded(&rd->full[rd->ri])) {
			if (rd->waiting && !loaded(&rd->pause)) {
				pthread_mutex_unlock(&rd->mu);
				return SOURCE_WAIT;
			}
			pthread_cond_wait(&rd->cv, &rd->mu);
		}
		pthread_mutex_unlock(&rd->mu);
		rd->r = &rd->slot[rd->ri];
		rd->rn = 0;
		rd->rpos = 0;
		rd->afar = 0;
	}
}

/* The next entry, and after it those of the same slot (which stays the
 * driver's until the next call), up to max: a block. */
static int
reader_next_n(struct source *src, const struct parsed **pr, size_t max,
    size_t *n)
{
	struct reader *rd = (struct reader *)src;
	const struct slot *s;
	size_t k = 1, end, pos, last;
	int rc;

	*n = 0;
	if ((rc = reader_next(src, &pr[0])) != SOURCE_RECORD)
		return rc;
	s = rd->r;	/* (the slot of the record just handed over) */
	if (s != NULL) {
		end = max < PARSE_SETS ? max : PARSE_SETS;
		if (end > s->n - rd->rn + 1)
			end = s->n - rd->rn + 1;
		pos = rd->rpos;
		last = rd->lastpos;
		for (; k < end; k++) {
			last = pos;
			pr[k] = decode_next(rd, s->buf, &pos, k);
		}
		rd->rn += k - 1;
		rd->rpos = pos;
		rd->lastpos = last;
	}
	*n = k;
	return SOURCE_RECORD;
}

/* The entry d after the one handed over last, found by walking the
 * entries from it: each is walked once, its offset kept in apos[]. */
static int
reader_ahead(struct source *src, size_t d, uint64_t *hash)
{
	struct reader *rd = (struct reader *)src;
	const struct slot *s = rd->r;
	const struct wire *w;
	size_t j = rd->rn - 1 + d, p;

	if (s == NULL || rd->rn == 0 || j >= s->n || d >= AHEAD_RING)
		return 0;
	if (rd->afar < rd->rn) {	/* (a new slot, or left behind) */
		rd->afar = rd->rn;
		rd->apos[(rd->rn - 1) % AHEAD_RING] = rd->lastpos;
	}
	for (; rd->afar <= j; rd->afar++) {
		p = rd->apos[(rd->afar - 1) % AHEAD_RING];
		rd->apos[rd->afar % AHEAD_RING] = p +
		    entry_size(s->buf + p);
	}
	p = rd->apos[j % AHEAD_RING];
	if (is_plain(s->buf + p)) {
		*hash = ((const struct wplain *)(s->buf + p))->hash;
		return 1;
	}
	w = (const struct wire *)(s->buf + p);
	*hash = w->hash;
	return w->kind == PR_RECORD;
}

/* What the thread reads is read again as it would be read without it:
 * the question goes to it (its configuration only, which the thread
 * does not write). */
static struct source *
reader_rewind(struct source *src, uint64_t n, int timefmt)
{
	return source_rewind(((struct reader *)src)->in, n, timefmt);
}

static uint64_t
reader_bytes(const struct source *src)
{
	return ((const struct reader *)src)->bytes;
}

/* Readable when reader_ready() may have become true. */
static int
reader_fd(const struct source *src)
{
	return ((const struct reader *)src)->notify[0];
}

static int
reader_wait_ms(const struct source *src)
{
	return source_wait_ms(((const struct reader *)src)->in);
}

static int
reader_ready(struct source *src)
{
	struct reader *rd = (struct reader *)src;
	char b[64];
	int ready;

	/* drained first: a slot published after the look below writes
	 * again, and the driver's poll(2) sees it */
	while (read(rd->notify[0], b, sizeof(b)) > 0)
		;
	if (rd->r != NULL || rd->ended)
		return 1;
	pthread_mutex_lock(&rd->mu);
	ready = loaded(&rd->full[rd->ri]) || !rd->waiting;
	pthread_mutex_unlock(&rd->mu);
	return ready;
}

/* Wakes the thread if it polls its input. (One that has not published
 * that it would block yet sees the pause or stop asked before it polls.) */
static void
wake(struct reader *rd)
{
	char b = 0;
	int polls;

	pthread_mutex_lock(&rd->mu);
	polls = rd->waiting;
	pthread_mutex_unlock(&rd->mu);
	if (polls)
		(void)!write(rd->wake[1], &b, 1);
}

static int
reader_pause(struct source *src)
{
	struct reader *rd = (struct reader *)src;

	if (rd->ended)	/* (it has stopped: the input stands at its end) */
		return 0;
	pthread_mutex_lock(&rd->mu);
	rd->pauses++;
	__atomic_store_n(&rd->pause, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	wake(rd);
	return 1;
}

static void
reader_resume(struct source *src)
{
	struct reader *rd = (struct reader *)src;

	pthread_mutex_lock(&rd->mu);
	__atomic_store_n(&rd->pause, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
}

static void
reader_find_windows(struct source *src)
{
	struct reader *rd = (struct reader *)src;

	if (rd->c->wkind == WK_TUMBLE)
		__atomic_store_n(&rd->windows, 1, __ATOMIC_RELAXED);
}

/* Stops the thread and frees the reader. */
static void
reader_free(struct source *src)
{
	struct reader *rd = (struct reader *)src;
	size_t i;

	pthread_mutex_lock(&rd->mu);
	__atomic_store_n(&rd->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	wake(rd);
	pthread_join(rd->th, NULL);
	for (i = 0; i < NSLOT; i++)
		free(rd->slot[i].buf);
	close(rd->wake[0]);
	close(rd->wake[1]);
	close(rd->notify[0]);
	close(rd->notify[1]);
	pthread_mutex_destroy(&rd->mu);
	pthread_cond_destroy(&rd->cv);
	wire_fields_fini(&rd->wf);
	free(rd->vals);
	free(rd->vfvals);
	free(rd);
}

static const struct source_methods reader_methods = {
	.name = "thread",
	.next = reader_next,
	.next_n = reader_next_n,
	.ahead = reader_ahead,
	.rewind = reader_rewind,
	.bytes = reader_bytes,
	.fd = reader_fd,
	.wait_ms = reader_wait_ms,
	.ready = reader_ready,
	.pause = reader_pause,
	.resume = reader_resume,
	.find_windows = reader_find_windows,
	.free = reader_free,
};

struct source *
source_thread(struct source *in, const struct config *c, int keep_raw)
{
	struct reader *rd = source_alloc(sizeof(*rd));
	size_t nvals = c->naggs ? c->naggs : 1, i, k;
	sigset_t all, old;
	int err;

	rd->s.m = &reader_methods;
	rd->in = in;
	rd->c = c;
	rd->keep_raw = keep_raw;
	if (c->wkind == WK_TUMBLE)	/* for source_find_windows */
		assigner_init(&rd->as, c);
	wire_fields_init(&rd->wf, c);
	rd->plain = !keep_raw && !rd->wf.bytes && rd->wf.nvf <= PLAIN_VALS;
	rd->nvals = nvals;
	rd->vals = xcalloc_lines(PARSE_SETS * nvals * sizeof(*rd->vals));
	rd->vfvals = xcalloc_lines(PARSE_SETS * (rd->wf.nvf + 1) *
	    sizeof(struct aval *));
	for (i = 0; i < PARSE_SETS; i++) {
		rd->cur[i].vals = rd->vals + i * nvals;
		for (k = 0; k < rd->wf.nvf; k++)
			rd->vfvals[i * rd->wf.nvf + k] =
			    rd->vals + i * nvals + rd->wf.vf[k];
	}
	make_pipe(rd->wake);
	make_pipe(rd->notify);
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv, NULL);
	/* signals are the driver's: they interrupt its poll(2) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&rd->th, NULL, reader_main, rd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0)
		fwin_die("cannot start the reading thread: %s", strerror(err));
	return &rd->s;
}
