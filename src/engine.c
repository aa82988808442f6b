/* engine: watermark, lateness and firing; see engine.h and SPEC §5.
 *
 * Each record, with W the watermark before it:
 *   1. its windows are assigned (window_of);
 *   2. if every one is expired (end + allowed <= W) it is late: dropped,
 *      and copied to the late file; otherwise it is added to its pane;
 *   3. its windows whose end is <= W (kept by allowed lateness) fire at
 *      once with the updated result;
 *   4. W advances; every window with end <= W that holds data and has not
 *      fired, fires.
 * Each key has one timer: the earliest of its next unfired window end and
 * the time its oldest pane may be purged. When W passes timers, the
 * windows due are collected from every key, sorted by (end, start, key)
 * and fired together; then the keys' expired panes are purged. */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "agg.h"
#include "ckpt.h"
#include "engine.h"
#include "input.h"
#include "lock.h"	/* cron: */
#include "oom.h"
#include "output.h"
#include "slide.h"
#include "state.h"
#include "timefmt.h"
#include "window.h"

#define MAX_BAD_MESSAGES 10

struct engine {
	struct config *c;
	struct state st;
	struct aggs *g;
	struct wspec w;
	uint64_t count_pane;	/* records per pane of a count window */
	struct slide slide;	/* slide.g != NULL: windows of many panes */
	/* the pane [pane_lo, pane_hi) of the last record and its windows'
	 * ends: the next record is most likely in it too */
	int64_t pane_lo, pane_hi, pane_fe, pane_le;
	struct input *in;
	struct out *out, *late;
	int outfd, latefd;
	const char *outname;
	struct aval *vals;
	char *keybuf;
	size_t keycap;
	enum tfmt ofmt;		/* how bounds are printed; TF_AUTO: unknown yet */
	struct fire *batch, *sortbuf;
	size_t nbatch, capbatch, capsort;
	aoff *touched;
	size_t ntouched, captouched;
	aoff *flushkeys;	/* the keys flush_count_windows fires */
	int fatal;
	jmp_buf corrupt;	/* where a restored key found bad ends the run */
	char *fingerprint;
	struct st_root at_start;	/* counters as restored: stats are per run */
	/* checkpoints */
	uint64_t generation;	/* of the last checkpoint saved or restored */
	uint64_t since_save;	/* records since the last check */
	uint64_t save_check;	/* records between checks of the clock */
	int64_t next_save;	/* wall time of the next periodic save */
	int save_failed;
	pid_t saver;		/* a background save's writer, or 0 */
	int restored;
	uint64_t outlen, latelen;	/* restored output lengths */
	/* --idle-timeout: input idle since this wall time, with this W */
	uint64_t idle_read;
	int64_t idle_since, idle_wm;
	struct timespec t0;
};

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL) {
		fprintf(stderr, "fwin: out of memory\n");
		exit(1);
	}
	return p;
}

static void *
xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n)) == NULL) {
		fprintf(stderr, "fwin: out of memory\n");
		exit(1);
	}
	return p;
}

/* Appends a short, printable rendering of p[0..n) for messages. */
static void
quote_value(char *buf, size_t bufsz, const char *p, size_t n)
{
	size_t i, j = 0, max = 40;

	buf[j++] = '"';
	for (i = 0; i < n && i < max && j + 5 < bufsz; i++)
		buf[j++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	if (i < n && j + 5 < bufsz) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	buf[j++] = '"';
	buf[j] = '\0';
}

static void
bad(struct engine *e, const struct record *r, const char *fmt, ...)
{
	struct st_root *root = st_root(&e->st);
	va_list ap;

	root->sr_bad++;
	if (!e->c->strict && root->sr_bad - e->at_start.sr_bad > MAX_BAD_MESSAGES)
		return;
	fprintf(stderr, "fwin: %s:%llu: ", r->file, (unsigned long long)r->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(e->c->strict ? "\n" : "; record skipped\n", stderr);
	if (e->c->strict)
		e->fatal = 1;
}

static void
bad_field(struct engine *e, const struct record *r, const struct fieldref *f,
    const char *what, const struct field *v)
{
	char q[64];

	if (v == NULL) {
		bad(e, r, "field %s: missing (record has %zu field%s)", f->name,
		    r->nf, r->nf == 1 ? "" : "s");
		return;
	}
	quote_value(q, sizeof(q), v->p, v->n);
	bad(e, r, "field %s: %s %s", f->name, what, q);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* --- output of rows --- */

static void
emit_time(struct engine *e, int64_t t)
{
	char buf[TF_BUFSZ];
	size_t n = tf_format(buf, t, e->ofmt);

	if (e->ofmt == TF_ISO)
		out_str(e->out, buf, n);
	else
		out_own_num(e->out, buf, n);
}

static void
emit_key(struct engine *e, const struct key *k)
{
	const char *p = k->k_bytes, *end = k->k_bytes + k->k_len;
	uint32_t len;

	if (e->c->nkeys == 1) {
		out_str(e->out, p, k->k_len);
		return;
	}
	while (p < end) {
		memcpy(&len, p, sizeof(len));
		out_str(e->out, p + sizeof(len), len);
		p += sizeof(len) + len;
	}
}

/* Compares two keys' canonical bytes field by field, as bytes. */
static int
key_cmp(size_t nkeys, const struct key *a, const struct key *b)
{
	const char *pa = a->k_bytes, *pb = b->k_bytes;
	const char *ea = pa + a->k_len, *eb = pb + b->k_len;
	uint32_t la, lb;
	int c;

	if (nkeys <= 1) {
		c = memcmp(pa, pb, a->k_len < b->k_len ? a->k_len : b->k_len);
		return c != 0 ? c : (a->k_len > b->k_len) - (a->k_len < b->k_len);
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

/* A window to fire: [start, end) of key. A session is the one pane
 * `pane`; a time window is made of the key's panes in that range, the
 * first of which is `pane` (0: not known yet). */
struct fire {
	int64_t end, start;
	uint64_t prefix;	/* key_prefix() of key */
	aoff key, pane;
};

/* The first 8 bytes of the key's first field, big-endian, zero-padded.
 * Keys whose prefixes differ are in the order of their prefixes; only a
 * tie needs key_cmp (and the key's memory): sorting a batch compares
 * integers. */
static uint64_t
key_prefix(size_t nkeys, const struct key *k)
{
	const unsigned char *p = (const unsigned char *)k->k_bytes;
	size_t n = k->k_len, i;
	uint64_t v = 0;
	uint32_t l;

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

static void
emit_row_end(struct engine *e)
{
	aggs_emit(e->g, &e->st.a, e->out);
	out_end_row(e->out);
	st_root(&e->st)->sr_fired++;
}

/* Fires one window: merges its panes and writes a row. */
static void
fire_one(struct engine *e, const struct fire *f)
{
	struct state *s = &e->st;
	aoff p;

	if (e->c->wkind == WK_SESSION) {
		aggs_fold_begin(e->g);
		aggs_fold(e->g, &s->a, st_acc(f->pane));
	} else {
		p = f->pane != 0 ? f->pane : st_first_pane(s, f->key, f->start);
		if (e->slide.g != NULL)
			slide_fold(&e->slide, s, f->key, f->start, p);
		else {
			aggs_fold_begin(e->g);
			for (; p != 0 && st_panep(s, p)->p_start < f->end;
			    p = st_panep(s, p)->p_next)
				aggs_fold(e->g, &s->a, st_acc(p));
		}
	}
	emit_time(e, f->start);
	emit_time(e, f->end);
	emit_key(e, st_keyp(s, f->key));
	emit_row_end(e);
}

static void
fire_window(struct engine *e, aoff k, int64_t end)
{
	struct fire f = { .end = end, .start = end - e->w.size, .key = k };

	fire_one(e, &f);
}

/* The end of the last window that holds pane p: p can be purged once
 * that window has expired. */
static int64_t
pane_last_end(const struct engine *e, const struct pane *p)
{
	int64_t fe, le;

	if (e->c->wkind == WK_SESSION)
		return p->p_end;
	(void)window_of(&e->w, p->p_start, &fe, &le);
	return le;
}

/* The smallest window end > after of a window that holds one of a key's
 * panes (time windows), or T_NONE. Panes are ordered by start (and so are
 * their window ends), so the first pane with a window ending after `after`
 * gives it. The search starts at *p, a pane of the key (0: none left),
 * and leaves *p at that pane: called with growing `after`, it walks the
 * key's panes once, not once per window. */
static int64_t
next_end_with_data(const struct engine *e, aoff *p, int64_t after)
{
	const struct state *s = &e->st;
	int64_t fe, le, cand;

	for (; *p != 0; *p = st_panep(s, *p)->p_next) {
		(void)window_of(&e->w, st_panep(s, *p)->p_start, &fe, &le);
		if (le <= after)
			continue;
		cand = window_end_after(&e->w, after);
		return cand > fe ? cand : fe;
	}
	return T_NONE;
}

/* Sets k's timer to the earlier of its next fire and its oldest pane's
 * purge time, if that is earlier than the timer it has. */
static void
schedule(struct engine *e, aoff k)
{
	struct key *kp = st_keyp(&e->st, k);
	int64_t when = kp->k_next_fire, purge;

	if (kp->k_head != 0) {
		purge = sat_add(pane_last_end(e, st_panep(&e->st, kp->k_head)),
		    e->c->allowed);
		if (purge < when)
			when = purge;
	}
	if (when < kp->k_timer) {
		st_timer_set(&e->st, k, when);
	}
}

static void
pane_drop(struct engine *e, aoff k, aoff p)
{
	aggs_release(e->g, &e->st.a, st_acc(p));
	st_pane_free(&e->st, k, p);
}

/* Frees k's panes whose every window has expired at watermark w. */
static void
purge(struct engine *e, aoff k, int64_t w)
{
	struct state *s = &e->st;
	aoff p;

	while ((p = st_keyp(s, k)->k_head) != 0 &&
	    sat_add(pane_last_end(e, st_panep(s, p)), e->c->allowed) <= w)
		pane_drop(e, k, p);
}

static struct engine *sort_engine;	/* for the qsort comparator */

static int
fire_cmp(const void *va, const void *vb)
{
	const struct fire *a = va, *b = vb;
	const struct state *s = &sort_engine->st;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	return key_cmp(sort_engine->c->nkeys, st_keyp(s, a->key),
	    st_keyp(s, b->key));
}

static void
batch_add(struct engine *e, int64_t end, int64_t start, aoff k, aoff p)
{
	if (e->nbatch == e->capbatch) {
		e->capbatch = e->capbatch ? 2 * e->capbatch : 256;
		e->batch = xrealloc(e->batch, e->capbatch * sizeof(*e->batch));
	}
	e->batch[e->nbatch].end = end;
	e->batch[e->nbatch].start = start;
	e->batch[e->nbatch].key = k;
	e->batch[e->nbatch].prefix = key_prefix(e->c->nkeys, st_keyp(&e->st, k));
	e->batch[e->nbatch++].pane = p;
}

/* Sorts the n fires at v, which share their bounds, by key: a radix sort
 * on the key prefix (one pass per byte that differs among them), then
 * each run of equal prefixes by key_cmp. A tumbling window's end fires
 * every key that has data in it: this is most of what fwin sorts. */
static void
sort_by_key(struct engine *e, struct fire *v, size_t n)
{
	size_t count[8][256] = { { 0 } }, i, j, b, pos, c;
	struct fire *from = v, *to = e->sortbuf, *t;

	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			count[b][v[i].prefix >> (8 * b) & 0xff]++;
	for (b = 0; b < 8; b++) {
		if (count[b][v[0].prefix >> (8 * b) & 0xff] == n)
			continue;	/* every key has this byte */
		for (j = 0, pos = 0; j < 256; j++) {
			c = count[b][j];
			count[b][j] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			to[count[b][from[i].prefix >> (8 * b) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	sort_engine = e;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].prefix == v[i].prefix; j++)
			;
		if (j - i > 1)
			qsort(v + i, j - i, sizeof(*v), fire_cmp);
	}
}

/* Fires the batch in (end, start, key) order. */
static void
batch_fire(struct engine *e)
{
	size_t i;

	if (e->nbatch > 1) {
		for (i = 1; i < e->nbatch && e->batch[i].end == e->batch[0].end &&
		    e->batch[i].start == e->batch[0].start; i++)
			;
		/* a radix sort pays for its counts from some 64 keys on */
		if (i < e->nbatch || e->nbatch < 64) {
			sort_engine = e;
			qsort(e->batch, e->nbatch, sizeof(*e->batch), fire_cmp);
		} else {
			if (e->capsort < e->nbatch) {
				e->capsort = e->capbatch;
				e->sortbuf = xrealloc(e->sortbuf,
				    e->capsort * sizeof(*e->sortbuf));
			}
			sort_by_key(e, e->batch, e->nbatch);
		}
	}
	for (i = 0; i < e->nbatch; i++)
		fire_one(e, &e->batch[i]);
	e->nbatch = 0;
}

/* Adds to the batch key k's windows that end in [k_next_fire, w], and
 * moves k_next_fire past w. */
static void
collect_due(struct engine *e, aoff k, int64_t w)
{
	struct state *s = &e->st;
	const struct pane *pp;
	int64_t end, from = st_keyp(s, k)->k_next_fire;
	aoff p, q;

	if (e->c->wkind == WK_SESSION) {
		/* sessions ending before k_next_fire have fired already */
		end = T_NONE;
		for (p = st_keyp(s, k)->k_head; p != 0; p = pp->p_next) {
			pp = st_panep(s, p);
			if (pp->p_end > w) {
				end = pp->p_end;
				break;
			}
			if (pp->p_end >= from)
				batch_add(e, pp->p_end, pp->p_start, k, p);
		}
	} else
		/* p finds the ends, q each window's first pane: no pane is
		 * freed or made until the batch has fired */
		for (end = from, p = q = st_keyp(s, k)->k_head;
		    end != T_NONE && end <= w;
		    end = next_end_with_data(e, &p, end)) {
			while (q != 0 && st_panep(s, q)->p_start < end - e->w.size)
				q = st_panep(s, q)->p_next;
			batch_add(e, end, end - e->w.size, k, q);
		}
	st_keyp(s, k)->k_next_fire = end;
}

/* Moves the watermark to w and fires every window it passes. */
static void
advance(struct engine *e, int64_t w)
{
	struct state *s = &e->st;
	size_t i;
	aoff k;

	st_root(s)->sr_wm = w;
	e->nbatch = e->ntouched = 0;
	while ((k = st_timer_pop(s, w)) != 0) {
		if (e->ntouched == e->captouched) {
			e->captouched = e->captouched ? 2 * e->captouched : 256;
			e->touched = xrealloc(e->touched,
			    e->captouched * sizeof(*e->touched));
		}
		e->touched[e->ntouched++] = k;
		collect_due(e, k, w);
	}
	batch_fire(e);
	for (i = 0; i < e->ntouched; i++) {
		k = e->touched[i];
		purge(e, k, w);
		schedule(e, k);
		/* a key with nothing left is forgotten: memory follows the
		 * live windows, not every key ever seen */
		if (st_keyp(s, k)->k_head == 0 && st_keyp(s, k)->k_timer == T_NONE)
			st_key_delete(s, k);
	}
}

static void
write_late(struct engine *e, const struct record *r)
{
	st_root(&e->st)->sr_late++;
	if (e->late == NULL)
		return;
	out_str(e->late, r->raw, r->rawlen);
	out_end_row(e->late);
}

/* The record's key as canonical bytes: one field as it is, several as
 * (u32 length, bytes) pairs in the engine's key buffer. */
static const char *
record_key(struct engine *e, const struct record *r, size_t *n)
{
	const struct config *c = e->c;
	size_t i, len = 0;
	uint32_t l;

	if (c->nkeys == 0) {
		*n = 0;
		return "";
	}
	if (c->nkeys == 1) {
		*n = r->f[c->keys[0].idx].n;
		return r->f[c->keys[0].idx].p;
	}
	for (i = 0; i < c->nkeys; i++)
		len += sizeof(l) + r->f[c->keys[i].idx].n;
	if (len > e->keycap) {
		e->keycap = len * 2;
		e->keybuf = xrealloc(e->keybuf, e->keycap);
	}
	len = 0;
	for (i = 0; i < c->nkeys; i++) {
		const struct field *f = &r->f[c->keys[i].idx];

		l = (uint32_t)f->n;
		memcpy(e->keybuf + len, &l, sizeof(l));
		memcpy(e->keybuf + len + sizeof(l), f->p, f->n);
		len += sizeof(l) + f->n;
	}
	*n = len;
	return e->keybuf;
}

/* Reads the record's event time into *t. Returns 0, or -1 (reported). */
static int
record_time(struct engine *e, const struct record *r, int64_t *t)
{
	const struct config *c = e->c;
	struct st_root *root = st_root(&e->st);
	const struct field *f;
	enum tfmt fmt;

	if (!c->has_time) {
		*t = now_ns();
		return 0;
	}
	if (c->time.idx >= r->nf) {
		bad_field(e, r, &c->time, NULL, NULL);
		return -1;
	}
	f = &r->f[c->time.idx];
	fmt = (enum tfmt)root->sr_timefmt;
	if (fmt == TF_AUTO && (fmt = tf_detect(f->p, f->n)) == TF_AUTO) {
		bad_field(e, r, &c->time, "bad time", f);
		return -1;
	}
	if (tf_parse_time(f->p, f->n, fmt, c->strp, t) != 0) {
		bad_field(e, r, &c->time, "bad time", f);
		return -1;
	}
	if (root->sr_timefmt == TF_AUTO) {
		root->sr_timefmt = fmt;
		if (e->ofmt == TF_AUTO)
			e->ofmt = fmt == TF_STRPTIME ? TF_ISO : fmt;
	}
	return 0;
}

/* Step 4: the watermark follows the largest event time. */
static void
watermark_after(struct engine *e, int64_t t)
{
	struct st_root *root = st_root(&e->st);
	int64_t w;

	if (t <= root->sr_maxt)
		return;
	root->sr_maxt = t;
	w = sat_add(t, -e->c->lateness);
	if (w > root->sr_wm)
		advance(e, w);
}

static void
add_record(struct engine *e, aoff p)
{
	struct state *s = &e->st;

	/* st_key and st_pane may have moved the arena: no pointer into it
	 * taken before them is used after. */
	aggs_add(e->g, &s->a, st_acc(p), e->vals, st_root(s)->sr_seq);
	st_root(s)->sr_seq++;
}

/* Tumbling and sliding windows. */
static void
process_window(struct engine *e, const struct record *r, int64_t t)
{
	const struct config *c = e->c;
	struct state *s = &e->st;
	int64_t w, fe, le, first, end, ps;
	const char *kb;
	size_t kn;
	aoff k, p;
	int created, rc;

	if (t >= e->pane_lo && t < e->pane_hi) {
		fe = e->pane_fe;
		le = e->pane_le;
		ps = e->pane_lo;
		rc = 0;
	} else if ((rc = window_of(&e->w, t, &fe, &le)) == 0) {
		ps = window_pane(&e->w, t);
		if (!__builtin_add_overflow(ps, e->w.pane, &end)) {
			e->pane_lo = ps;
			e->pane_hi = end;
			e->pane_fe = fe;
			e->pane_le = le;
		}
	}
	if (rc == -2) {
		/* only an event time can be this far out */
		bad_field(e, r, &c->time, "window out of range for time",
		    &r->f[c->time.idx]);
		return;
	}
	if (rc != 0) {
		/* in a gap between windows: in none, but still a time seen */
		st_root(s)->sr_nowin++;
		watermark_after(e, t);
		return;
	}
	w = st_root(s)->sr_wm;
	if (sat_add(le, c->allowed) <= w) {
		write_late(e, r);
		return;
	}
	kb = record_key(e, r, &kn);
	k = st_key(s, kb, kn, XXH3_64bits(kb, kn));
	p = st_pane(s, k, ps, &created);
	add_record(e, p);
	if (e->slide.g != NULL)
		slide_touch(s, k, ps);

	/* Step 3: windows past their end but kept by allowed lateness. */
	if (fe <= w) {
		first = window_end_after(&e->w, sat_add(w, -c->allowed));
		if (first < fe)
			first = fe;
		for (end = first; end <= le && end <= w; end += e->w.step)
			fire_window(e, k, end);
	}
	/* The record's earliest window still to fire. */
	if (le > w) {
		first = fe;
		if (fe <= w)
			first = window_end_after(&e->w, w);
		if (first < st_keyp(s, k)->k_next_fire) {
			st_keyp(s, k)->k_next_fire = first;
			created = 1;
		}
	}
	if (created)
		schedule(e, k);
	watermark_after(e, t);
}

/* Session windows: the record's [t, t + gap) merges with every session
 * of its key that it overlaps or touches. */
static void
process_session(struct engine *e, const struct record *r, int64_t t)
{
	const struct config *c = e->c;
	struct state *s = &e->st;
	int64_t w = st_root(s)->sr_wm, lo = t, hi;
	const struct pane *pp;
	const char *kb;
	size_t kn;
	uint64_t h;
	aoff k, p, q, after = 0, first = 0;

	if (__builtin_add_overflow(t, c->size, &hi) || hi == T_NONE) {
		bad_field(e, r, &c->time, "window out of range for time",
		    &r->f[c->time.idx]);
		return;
	}
	kb = record_key(e, r, &kn);
	h = XXH3_64bits(kb, kn);
	if ((k = st_key_find(s, kb, kn, h)) != 0) {
		/* sessions are disjoint and ordered: the touching ones are
		 * consecutive, found from the tail */
		for (p = st_keyp(s, k)->k_tail; p != 0; p = pp->p_prev) {
			pp = st_panep(s, p);
			if (pp->p_start > hi)
				continue;
			if (pp->p_end < t) {
				after = p;
				break;
			}
			first = p;
			if (pp->p_start < lo)
				lo = pp->p_start;
			if (pp->p_end > hi)
				hi = pp->p_end;
		}
	}
	/* Step 1-2: lateness is judged on the merged session; a live
	 * session is never expired, so only a lone record can be late. */
	if (sat_add(hi, c->allowed) <= w) {
		write_late(e, r);
		return;
	}
	if (k == 0)
		k = st_key(s, kb, kn, h);
	if (first == 0) {
		p = st_pane_insert(s, k, after, t);
	} else {
		p = first;
		while ((q = st_panep(s, p)->p_next) != 0 &&
		    st_panep(s, q)->p_start <= t + c->size) {
			aggs_merge(e->g, &s->a, st_acc(p), st_acc(q));
			st_pane_free(s, k, q);
		}
	}
	st_panep(s, p)->p_start = lo;
	st_panep(s, p)->p_end = hi;
	add_record(e, p);
	if (hi <= w) {
		/* Step 3: kept by allowed lateness; fires again at once */
		struct fire f = { .end = hi, .start = lo, .key = k, .pane = p };

		fire_one(e, &f);
	} else if (hi < st_keyp(s, k)->k_next_fire)
		st_keyp(s, k)->k_next_fire = hi;
	schedule(e, k);
	watermark_after(e, t);
}

/* Fires key k's count window: all the panes it keeps. */
/* Fires key k's count window: its last N records, or with partial set
 * (--flush at the end of input) whatever panes it holds. */
static void
fire_count(struct engine *e, aoff k, int partial)
{
	struct state *s = &e->st;
	int64_t last;
	aoff p;

	if (e->slide.g != NULL && !partial) {
		last = (int64_t)((st_keyp(s, k)->k_count - 1) / e->count_pane);
		slide_fold(&e->slide, s, k, last + 1 - e->slide.size,
		    st_keyp(s, k)->k_head);
	} else {
		aggs_fold_begin(e->g);
		for (p = st_keyp(s, k)->k_head; p != 0;
		    p = st_panep(s, p)->p_next)
			aggs_fold(e->g, &s->a, st_acc(p));
	}
	emit_key(e, st_keyp(s, k));
	emit_row_end(e);
}

static int
key_order(const void *va, const void *vb)
{
	const struct state *s = &sort_engine->st;

	return key_cmp(sort_engine->c->nkeys, st_keyp(s, *(const aoff *)va),
	    st_keyp(s, *(const aoff *)vb));
}

/* End of input with --flush: every key's pending count window fires with
 * the records it has so far, in key order. */
static void
flush_count_windows(struct engine *e)
{
	struct state *s = &e->st;
	size_t n = 0, cap = 0, i;
	aoff k;

	for (i = 0; i < st_root(s)->sr_keycap; i++) {
		if ((k = st_key_slot(s, i)) == 0 ||
		    st_keyp(s, k)->k_head == 0 ||
		    st_keyp(s, k)->k_count % e->c->count_slide == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			e->flushkeys = xrealloc(e->flushkeys,
			    cap * sizeof(*e->flushkeys));
		}
		e->flushkeys[n++] = k;
	}
	sort_engine = e;
	if (n > 1)
		qsort(e->flushkeys, n, sizeof(*e->flushkeys), key_order);
	for (i = 0; i < n; i++)
		fire_count(e, e->flushkeys[i], 1);
}

/* Count windows: per key, by arrival. Panes hold runs of gcd(N, SLIDE)
 * records; a window is the last N/gcd panes. */
static void
process_count(struct engine *e, const struct record *r)
{
	const struct config *c = e->c;
	struct state *s = &e->st;
	uint64_t n, next;
	int64_t idx, keep_from;
	const char *kb;
	size_t kn;
	aoff k, p;
	int created;

	kb = record_key(e, r, &kn);
	k = st_key(s, kb, kn, XXH3_64bits(kb, kn));
	n = ++st_keyp(s, k)->k_count;
	idx = (int64_t)((n - 1) / e->count_pane);
	p = st_pane(s, k, idx, &created);
	add_record(e, p);
	if (e->slide.g != NULL)
		slide_touch(s, k, idx);
	if (n % c->count_slide == 0)
		fire_count(e, k, 0);
	/* keep only the panes the next window needs */
	next = (n / c->count_slide + 1) * c->count_slide;
	keep_from = (int64_t)((next - 1) / e->count_pane) -
	    (int64_t)(c->count_n / e->count_pane) + 1;
	while ((p = st_keyp(s, k)->k_head) != 0 &&
	    st_panep(s, p)->p_start < keep_from)
		pane_drop(e, k, p);
}

/* Rolling mode: one running aggregate per key, a row per record. */
static void
process_rolling(struct engine *e, const struct record *r, int64_t t)
{
	struct state *s = &e->st;
	const char *kb;
	size_t kn;
	aoff k, p;
	int created;

	kb = record_key(e, r, &kn);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): kb is e->keybuf */
	k = st_key(s, kb, kn, XXH3_64bits(kb, kn));
	p = st_pane(s, k, 0, &created);
	add_record(e, p);
	aggs_fold_begin(e->g);
	aggs_fold(e->g, &s->a, st_acc(p));
	if (e->c->has_time)
		emit_time(e, t);
	emit_key(e, st_keyp(s, k));
	emit_row_end(e);
}

static void
process(struct engine *e, const struct record *r)
{
	const struct config *c = e->c;
	struct badfield bf;
	int64_t t = 0;
	size_t i;

	st_root(&e->st)->sr_read++;
	if (r->bad != NULL) {
		bad(e, r, "%s", r->bad);
		return;
	}
	for (i = 0; i < c->nkeys; i++)
		if (c->keys[i].idx >= r->nf) {
			bad_field(e, r, &c->keys[i], NULL, NULL);
			return;
		}
	if (c->wkind != WK_COUNT && record_time(e, r, &t) != 0)
		return;
	if (aggs_extract(e->g, r, e->vals, &bf) != 0) {
		bad_field(e, r, bf.f, bf.what,
		    bf.f->idx < r->nf ? &r->f[bf.f->idx] : NULL);
		return;
	}
	switch (c->wkind) {
	case WK_TUMBLE:
	case WK_SLIDE:
		process_window(e, r, t);
		break;
	case WK_SESSION:
		process_session(e, r, t);
		break;
	case WK_COUNT:
		process_count(e, r);
		break;
	case WK_NONE:
		process_rolling(e, r, t);
		break;
	}
}

/* --- live input: timers while fwin waits --- */

static volatile sig_atomic_t stop_requested, save_requested;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		save_requested = 1;
	else
		stop_requested = 1;
}

/* SIGINT, SIGTERM and SIGHUP end the input as its end would; SIGUSR1
 * asks for a checkpoint. No SA_RESTART: they interrupt poll(2), so a
 * waiting fwin notices at once. */
static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

/* --- checkpoints --- */

/* The length of the file open on fd, or CK_NONE without one. */
static uint64_t
file_length(int fd)
{
	struct stat sb;

	if (fd < 0 || fstat(fd, &sb) != 0)
		return CK_NONE;
	return (uint64_t)sb.st_size;
}

/* Waits for a background save, if one runs (block: wait for it to end).
 * A failed one makes the exit status 1; it has said why. */
static void
reap_saver(struct engine *e, int block)
{
	int st;

	if (e->saver <= 0 || waitpid(e->saver, &st, block ? 0 : WNOHANG) == 0)
		return;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (!WIFEXITED(st))
			fprintf(stderr, "fwin: %s: checkpoint writer died\n",
			    e->c->checkpoint);
		e->save_failed = 1;
	}
	e->saver = 0;
}

/*
 * Saves a checkpoint: output first (the checkpoint records how long it
 * is), then the state with the input positions it reflects. In the
 * background (periodic saves), a fork(2) child writes the snapshot from
 * copy-on-write memory while fwin goes on, as Redis's BGSAVE does; the
 * state is private memory (anonymous, or a MAP_PRIVATE file mapping), so
 * the child sees it frozen at the fork.
 */
static int
save(struct engine *e, int background)
{
	const struct config *c = e->c;
	struct ckpt_meta m;
	const char **names;
	int i, n = input_nfiles(e->in), rc;

	st_check_all(&e->st);	/* a restored key is saved only checked */
	if (out_flush(e->out) != 0 ||
	    (e->late != NULL && out_flush(e->late) != 0)) {
		fprintf(stderr, "fwin: %s: %s\n", e->outname, strerror(errno));
		return -1;
	}
	/* rows before state: a power loss must not leave a checkpoint that
	 * counts rows the output file lost */
	if ((c->output != NULL && fdatasync(e->outfd) != 0 && errno != EINVAL) ||
	    (e->latefd >= 0 && fdatasync(e->latefd) != 0 && errno != EINVAL)) {
		fprintf(stderr, "fwin: cannot sync output: %s\n", strerror(errno));
		return -1;
	}
	names = xrealloc(NULL, n * sizeof(*names));
	for (i = 0; i < n; i++)
		names[i] = input_name(e->in, i);
	memset(&m, 0, sizeof(m));
	m.generation = e->generation + 1;
	m.outlen = c->output != NULL ? file_length(e->outfd) : CK_NONE;
	m.latelen = e->latefd >= 0 ? file_length(e->latefd) : CK_NONE;
	/* cron: the tails a restore checks before it truncates */
	if (m.outlen != CK_NONE &&
	    ckpt_tail_hash(e->outfd, m.outlen, &m.outhash) == 0)
		m.flags |= CKF_OUTHASH;
	if (m.latelen != CK_NONE &&
	    ckpt_tail_hash(e->latefd, m.latelen, &m.latehash) == 0)
		m.flags |= CKF_LATEHASH;
	m.saved = now_ns();
	m.fingerprint = e->fingerprint;
	m.inputs = input_positions(e->in);
	m.ninputs = n;
	m.names = names;
	if (background) {
		pid_t parent = getpid(), pid = fork();

		if (pid == 0) {
			/* die with fwin: a stale writer must not rename
			 * an old snapshot over a newer run's */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			_exit(ckpt_save(c->checkpoint, &e->st.a, &m) == 0 ?
			    0 : 1);
		}
		if (pid > 0) {
			free(names);
			e->saver = pid;
			e->generation++;
			return 0;
		}
		/* no fork: save in the foreground */
	}
	rc = ckpt_save(c->checkpoint, &e->st.a, &m);
	free(names);
	if (rc == 0)
		e->generation++;
	return rc;
}

/* Saves when a checkpoint is due: every N records, every D of wall time
 * (the clock is read only every save_check records), or on SIGUSR1. */
static void
maybe_save(struct engine *e)
{
	const struct config *c = e->c;
	int64_t now;

	e->since_save = 0;
	if (c->ckpt_every_n == 0 && !save_requested) {
		now = now_ns();
		if (now < e->next_save)
			return;
		e->next_save = sat_add(now, c->ckpt_every_ns);
	}
	/* one writer at a time: a save due while one runs is skipped */
	reap_saver(e, 0);
	if (e->saver > 0)
		return;
	save_requested = 0;
	if (save(e, 1) != 0)
		e->save_failed = 1;
}

/* Opens --restore's checkpoint and checks that it was made by this
 * pipeline; sets up skipping the input it consumed. Returns 0, or the
 * exit status after a message. */
static int
open_restore(struct engine *e, struct ckpt **ckp)
{
	const struct config *c = e->c;
	const struct ckpt_meta *m;
	char *was, *now;

	if ((*ckp = ckpt_open(c->restore)) == NULL)
		return 1;
	m = ckpt_meta(*ckp);
	if (config_fingerprint_diff(m->fingerprint, e->fingerprint, &was,
	    &now) != 0) {
		fprintf(stderr, "fwin: %s was made with %s, not %s\n",
		    c->restore, was, now);
		free(was);
		free(now);
		ckpt_close(*ckp);
		*ckp = NULL;
		return 2;
	}
	if (!c->new_input)
		input_resume(e->in, m->inputs, m->ninputs);
	e->generation = m->generation;
	e->outlen = m->outlen;
	e->latelen = m->latelen;
	return 0;
}

/* Bytes behind a pane's header: its accumulators, and for windows of many
 * panes room for a kept fold (see slide.h). */
static size_t
pane_block(const struct engine *e)
{
	return aggs_accsize(e->g) * (e->slide.g != NULL ? 2 : 1);
}

/* A restored key found bad on its first use (see st_adopt): the run
 * stops there, and saves nothing. */
static void __attribute__((noreturn))
corrupt_state(void *arg, const char *why)
{
	struct engine *e = arg;

	fprintf(stderr, "fwin: %s: corrupt state: %s\n", e->c->restore, why);
	longjmp(e->corrupt, 1);
}

/* Takes the verified checkpoint's state as ours, where it is mapped. */
static int
adopt_restored(struct engine *e, struct ckpt *ck)
{
	struct st_checks sc = {
		.nkeyfields = e->c->nkeys,
		.acc_ok = aggs_check, .acc_arg = e->g,
		.corrupt = corrupt_state, .corrupt_arg = e,
	};
	struct arena a;
	uint64_t used = ckpt_take_arena(ck, &a);
	const char *why;

	why = st_adopt(&e->st, &a, used, pane_block(e), &sc);
	if (why != NULL) {
		fprintf(stderr, "fwin: %s: corrupt state: %s\n", e->c->restore,
		    why);
		arena_fini(&a);
		return 1;
	}
	e->restored = 1;
	return 0;
}

/* Cuts an output file back to the length a checkpoint recorded, so that
 * rows written after it are not written twice. */
static int
truncate_back(const char *path, uint64_t len)
{
	struct stat sb;

	if (path == NULL || len == CK_NONE)
		return 0;
	if (stat(path, &sb) != 0 || (uint64_t)sb.st_size < len) {
		fprintf(stderr, "fwin: %s: shorter than its checkpoint "
		    "length %llu; left as it is\n", path, (unsigned long long)len);
		return 0;
	}
	if (S_ISREG(sb.st_mode) && truncate(path, (off_t)len) != 0) {
		fprintf(stderr, "fwin: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The watermark that the wall clock gives now, or INT64_MIN when the
 * clock does not move it: processing time follows the clock; event time
 * with --idle-timeout follows it once input has been idle that long. */
static int64_t
clock_watermark(struct engine *e, int64_t now)
{
	const struct config *c = e->c;
	int64_t idle_from;

	if (!c->has_time)
		return sat_add(now, -c->lateness);
	if (c->idle_timeout <= 0 || e->idle_wm == INT64_MIN)
		return INT64_MIN;	/* no event time yet: nothing to advance */
	idle_from = sat_add(e->idle_since, c->idle_timeout);
	if (now < idle_from)
		return INT64_MIN;
	return sat_add(e->idle_wm, now - idle_from);
}

/* Wall time at which the clock watermark reaches w, or T_NONE. */
static int64_t
clock_due(struct engine *e, int64_t w)
{
	const struct config *c = e->c;

	if (w == T_NONE)
		return T_NONE;
	if (!c->has_time)
		return sat_add(w, c->lateness);
	if (c->idle_timeout <= 0 || e->idle_wm == INT64_MIN)
		return T_NONE;
	w = sat_add(sat_add(e->idle_since, c->idle_timeout), w - e->idle_wm);
	return w;
}

/*
 * The input's wait hook: fires what the clock makes due, flushes output,
 * and sleeps in poll(2) until input is readable or the next timer is due.
 * Returns -1 to stop reading (a signal, or output that cannot be written).
 */
static int
wait_input(void *arg, int fd)
{
	struct engine *e = arg;
	struct pollfd pfd;
	int64_t now, w, due;
	int timeout;

	if (e->st.a.base == NULL) {
		/* -H: the header comes before any state; only a signal to
		 * stop can happen while it is awaited */
		for (;;) {
			if (stop_requested)
				return -1;
			pfd.fd = fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, -1) > 0)
				return 0;
		}
	}
	if (st_root(&e->st)->sr_read != e->idle_read) {
		/* records came since the last wait: idle from now */
		e->idle_read = st_root(&e->st)->sr_read;
		e->idle_since = now_ns();
		e->idle_wm = st_root(&e->st)->sr_wm;
	}
	for (;;) {
		if (stop_requested)
			return -1;
		now = now_ns();
		w = clock_watermark(e, now);
		if (w > st_root(&e->st)->sr_wm && e->c->wkind != WK_COUNT &&
		    e->c->wkind != WK_NONE)
			advance(e, w);
		if (out_flush(e->out) != 0 ||
		    (e->late != NULL && out_flush(e->late) != 0))
			return -1;
		if (e->c->checkpoint != NULL && (save_requested ||
		    (e->c->ckpt_every_n == 0 && now >= e->next_save)))
			maybe_save(e);
		due = clock_due(e, st_timer_next(&e->st));
		if (e->c->checkpoint != NULL && e->c->ckpt_every_n == 0 &&
		    e->next_save < due)
			due = e->next_save;
		if (due == T_NONE)
			timeout = -1;
		else if (due <= now)
			continue;
		else if (due - now > (int64_t)INT32_MAX * 1000000)
			timeout = INT32_MAX;
		else	/* round up: waking early would only spin */
			timeout = (int)((due - now + 999999) / 1000000);
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout) > 0)
			return 0;
	}
}

static int
open_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);

	if (fd < 0)
		fprintf(stderr, "fwin: %s: %s\n", path, strerror(errno));
	return fd;
}

static const char *
agg_prefix(enum aggkind k)
{
	static const char *names[] = {
		[AG_COUNT] = "count", [AG_SUM] = "sum", [AG_AVG] = "avg",
		[AG_MIN] = "min", [AG_MAX] = "max", [AG_FIRST] = "first",
		[AG_LAST] = "last", [AG_DISTINCT] = "distinct",
		[AG_MIN_BY] = "min_by", [AG_MAX_BY] = "max_by",
	};
	return names[k];
}

/* Builds the output's column names and opens it. Returns 0 or -1. */
static int
open_output(struct engine *e)
{
	const struct config *c = e->c;
	size_t ncols = 2 + c->nkeys + c->naggs, i, j = 0;
	const char **cols = xrealloc(NULL, ncols * sizeof(*cols));
	char **owned = xcalloc(ncols, sizeof(*owned));
	enum outfmt of;
	int status = -1;

	if (c->wkind == WK_NONE) {
		if (c->has_time)
			cols[j++] = "time";
	} else if (c->wkind != WK_COUNT) {
		cols[j++] = "window_start";
		cols[j++] = "window_end";
	}
	ncols = j + c->nkeys + c->naggs;
	for (i = 0; i < c->nkeys; i++, j++) {
		owned[j] = NULL;
		if (c->header)
			cols[j] = c->keys[i].name;
		else {
			if (asprintf(&owned[j], "key%zu", i + 1) < 0)
				fwin_oom();
			cols[j] = owned[j];
		}
	}
	for (i = 0; i < c->naggs; i++, j++) {
		owned[j] = NULL;
		if (c->aggs[i].kind == AG_COUNT)
			cols[j] = "count";
		else {
			if (asprintf(&owned[j], "%s_%s", agg_prefix(c->aggs[i].kind),
			    c->aggs[i].f.name) < 0)
				fwin_oom();
			cols[j] = owned[j];
		}
	}
	e->outfd = 1;
	e->outname = "standard output";
	if (c->output != NULL) {
		if ((e->outfd = open_append(c->output)) < 0)
			goto fail;
		e->outname = c->output;
	}
	of = c->outfmt_set ? c->outfmt : c->fmt == IF_CSV ? OF_CSV : OF_TSV;
	e->out = out_open(e->outfd, e->outname, of, cols, ncols);
	/* a restored run continues its output: the header row is there
	 * already (and a file that has rows keeps them without a second) */
	if (c->header && !e->restored &&
	    (c->output == NULL || file_length(e->outfd) == 0))
		out_header(e->out);
	status = 0;
fail:
	for (i = 0; i < ncols; i++)
		free(owned[i]);
	free(owned);
	free(cols);
	return status;
}

static void
print_stats(struct engine *e)
{
	const struct st_root *r = st_root(&e->st), *b = &e->at_start;
	struct timespec t1;
	double secs;
	uint64_t nread = r->sr_read - b->sr_read;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - e->t0.tv_sec) + (t1.tv_nsec - e->t0.tv_nsec) / 1e9;
	fprintf(stderr, "fwin: stats: records %llu, bad %llu, late %llu, "
	    "in no window %llu, windows fired %llu, open windows %llu, "
	    "keys %llu, peak state %llu bytes, %.3f s, %.0f records/s\n",
	    (unsigned long long)nread,
	    (unsigned long long)(r->sr_bad - b->sr_bad),
	    (unsigned long long)(r->sr_late - b->sr_late),
	    (unsigned long long)(r->sr_nowin - b->sr_nowin),
	    (unsigned long long)(r->sr_fired - b->sr_fired),
	    (unsigned long long)r->sr_npanes,
	    (unsigned long long)r->sr_peak_keys,
	    (unsigned long long)arena_hdr(&e->st.a)->ah_peak, secs,
	    secs > 0 ? nread / secs : 0.0);
}

/* Closes a sink and reports its write error. Returns 0 or -1. */
static int
close_out(struct out *o, const char *name)
{
	if (o == NULL || out_close(o) == 0)
		return 0;
	if (errno == EPIPE) {
		/* the reader is gone: end as a filter does, without a word */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	fprintf(stderr, "fwin: %s: %s\n", name, strerror(errno));
	return -1;
}

/* Reads the input to its end, fires what is due and saves; returns the
 * exit status. */
static int
run_stream(struct engine *e)
{
	const struct config *c = e->c;
	struct record r;
	uint64_t nbad;
	int status = 0, rc = 0, flush;

	e->next_save = sat_add(now_ns(), c->ckpt_every_ns);
	e->at_start = *st_root(&e->st);
	/* Exactly-once from the first record: a fresh run records where
	 * its output starts before writing any, so that a run killed before
	 * its first periodic save is undone too. */
	if (c->checkpoint != NULL && !e->restored && save(e, 0) != 0)
		return 1;
	while (!stop_requested && (rc = input_next(e->in, &r)) > 0) {
		process(e, &r);
		if (e->fatal)
			break;
		if (c->checkpoint != NULL && ++e->since_save >= e->save_check)
			maybe_save(e);
	}
	if (rc < 0 || e->fatal)
		status = 1;
	/* End of input: W becomes +inf. Count windows fire a partial window
	 * only when --flush is given, as in Flink. */
	if (c->wkind == WK_COUNT)
		flush = c->flush == 1;
	else
		flush = c->flush < 0 ? c->checkpoint == NULL : c->flush;
	if (status == 0 && flush) {
		if (c->wkind == WK_COUNT)
			flush_count_windows(e);
		else if (c->wkind != WK_NONE)
			advance(e, INT64_MAX);
	}
	/* With a checkpoint, open windows are saved unfired for the next
	 * run (unless --flush fired them), and on a fatal error the last
	 * good checkpoint is kept. */
	reap_saver(e, 1);
	if (c->checkpoint != NULL && status == 0 && save(e, 0) != 0)
		status = 1;
	if (e->save_failed)
		status = 1;
	if (input_failed(e->in))
		status = 1;
	if (c->stats)
		print_stats(e);
	nbad = st_root(&e->st)->sr_bad - e->at_start.sr_bad;
	if (nbad > 0 && !c->strict)
		fprintf(stderr, "fwin: %llu bad record%s skipped\n",
		    (unsigned long long)nbad, nbad == 1 ? "" : "s");
	return status;
}

/* run_stream, ended early (status 1, nothing saved) if a restored key is
 * found bad on its first use. */
static int
run_guarded(struct engine *e)
{
	if (setjmp(e->corrupt) != 0)
		return 1;
	return run_stream(e);
}

int
engine_run(struct config *c)
{
	struct engine e;
	struct input_opts io;
	const struct field *names = NULL;
	struct ckpt *ck = NULL;
	struct lock *ckl = NULL, *outl = NULL;	/* cron: */
	size_t nnames = 0;
	int status = 0, rc;
	const char *late_col = "record";

	memset(&e, 0, sizeof(e));
	e.c = c;
	e.fingerprint = config_fingerprint(c);
	e.idle_wm = INT64_MIN;
	e.save_check = c->ckpt_every_n > 0 ? c->ckpt_every_n : 1024;
	e.latefd = -1;
	clock_gettime(CLOCK_MONOTONIC, &e.t0);
	memset(&io, 0, sizeof(io));
	io.fmt = c->fmt;
	io.delim = c->delim;
	io.header = c->header;
	/* with a checkpoint, an unfinished last line waits for the next run,
	 * as open windows do (unless --flush ends the stream for good) */
	io.hold_partial = c->checkpoint != NULL && c->flush != 1;
	io.wait = wait_input;
	io.wait_arg = &e;
	catch_signals();
	e.in = input_open(c->files, c->nfiles, &io);
	/* cron: one writer per checkpoint and per -o file, before anything
	 * is read or written */
	if ((c->checkpoint != NULL &&
	    (ckl = lock_take(c->checkpoint)) == NULL) ||
	    (c->output != NULL && (c->checkpoint != NULL || c->restore != NULL) &&
	    (outl = lock_take(c->output)) == NULL)) {
		status = 1;
		goto early;
	}
	if (c->restore != NULL && (status = open_restore(&e, &ck)) != 0)
		goto early;
	/* cron: restore truncates only the files the checkpoint measured,
	 * and the -o file stays its checkpoint's */
	if ((ck != NULL &&
	    ckpt_check_outputs(ck, c->output, c->late_file) != 0) ||
	    (outl != NULL && c->checkpoint != NULL &&
	    lock_claim(outl, c->checkpoint, c->restore) != 0)) {
		status = 1;
		goto early;
	}
	if (c->header) {
		rc = input_header(e.in, &names, &nnames);
		if (rc <= 0) {	/* an error, or empty input: nothing to name */
			status = rc < 0 || input_failed(e.in) ? 1 : 0;
			goto early;
		}
	}
	if (config_resolve(c, names, nnames) != 0) {
		status = 2;
		goto early;
	}
	/* Split only the columns in use; the raw record (late file, min-by
	 * without OUT) is kept whole by the framer anyway. */
	input_set_maxfields(e.in, config_maxfield(c));

	window_init(&e.w, c->size, c->step, c->offset);
	if (c->wkind == WK_COUNT)
		e.count_pane = (uint64_t)window_gcd((int64_t)c->count_n,
		    (int64_t)c->count_slide);
	e.g = aggs_new(c);
	if ((c->wkind == WK_TUMBLE || c->wkind == WK_SLIDE) &&
	    slide_worth(e.g, e.w.size / e.w.pane))
		slide_init(&e.slide, e.g, e.w.size, e.w.offset);
	else if (c->wkind == WK_COUNT &&
	    slide_worth(e.g, (int64_t)(c->count_n / e.count_pane)))
		slide_init(&e.slide, e.g, (int64_t)(c->count_n / e.count_pane), 0);
	e.vals = xrealloc(NULL, (c->naggs ? c->naggs : 1) * sizeof(*e.vals));
	if (ck != NULL) {
		status = adopt_restored(&e, ck);
		ckpt_close(ck);
		ck = NULL;
		if (status != 0)
			goto early;
	} else if (st_init(&e.st, pane_block(&e)) != 0) {
		fprintf(stderr, "fwin: cannot map state: %s\n", strerror(errno));
		status = 1;
		goto early;
	} else	/* auto stays open until the first time is read */
		st_root(&e.st)->sr_timefmt = c->time_fmt;
	e.ofmt = c->out_time;
	if (e.ofmt == TF_AUTO && !c->has_time)
		e.ofmt = TF_ISO;
	else if (e.ofmt == TF_AUTO && st_root(&e.st)->sr_timefmt != TF_AUTO)
		e.ofmt = st_root(&e.st)->sr_timefmt == TF_STRPTIME ? TF_ISO :
		    (enum tfmt)st_root(&e.st)->sr_timefmt;
	if (e.restored && (truncate_back(c->output, e.outlen) != 0 ||
	    truncate_back(c->late_file, e.latelen) != 0)) {
		status = 1;
		goto done;
	}
	if (c->late_file != NULL) {
		if ((e.latefd = open_append(c->late_file)) < 0) {
			status = 1;
			goto done;
		}
		e.late = out_open(e.latefd, c->late_file, OF_TSV, &late_col, 1);
	}
	if (open_output(&e) != 0) {
		status = 1;
		goto done;
	}

	status = run_guarded(&e);
done:
	if (close_out(e.out, e.outname) != 0)
		status = 1;
	if (close_out(e.late, c->late_file) != 0)
		status = 1;
	/* some file systems (NFS, quotas) report lost writes only here */
	if (e.outfd > 1 && close(e.outfd) != 0) {
		fprintf(stderr, "fwin: %s: %s\n", e.outname, strerror(errno));
		status = 1;
	}
	if (e.latefd >= 0 && close(e.latefd) != 0) {
		fprintf(stderr, "fwin: %s: %s\n", c->late_file, strerror(errno));
		status = 1;
	}
	reap_saver(&e, 1);
early:
	ckpt_close(ck);
	input_close(e.in);
	lock_release(outl);	/* cron: */
	lock_release(ckl);	/* cron: */
	aggs_free(e.g);
	st_fini(&e.st);
	free(e.vals);
	free(e.keybuf);
	free(e.batch);
	free(e.sortbuf);
	free(e.touched);
	free(e.flushkeys);
	free(e.fingerprint);
	return status;
}
