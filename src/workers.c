/*
 * workers: keys spread over worker threads by key group (workers.h).
 *
 * The driver writes what it hands a worker as messages into a chunk of
 * that worker's (a record: its key, time, hash, arrival number and
 * values; a watermark advance; the end of input), each numbered by the
 * event it is. When one chunk is full, every worker's is handed over at
 * once (a round), each marked with the event number it reaches, and the
 * rows the workers published are merged: a worker that has done its
 * chunk of a round has fired every row of the events before that
 * number, so rows before the least such number, over the workers, are
 * final and go out in (event, end, start, key) order, the order one
 * operator fires them in (rows of one event from one worker come in
 * that order already: the merge takes heads). A worker's rows are
 * formatted on its own thread, by the driver's row callback on a copy of
 * the run whose sink keeps them in memory; it publishes them when its
 * chunk is done, or as they pass ROWS_OUT bytes within one (a window of
 * millions of rows streams out), with the last row published: the
 * merge may then write a row of an event that worker is still firing if
 * it goes before that one. The driver merges while it waits for them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "config.h"
#include "keycodec.h"
#include "output.h"
#include "runint.h"
#include "state.h"
#include "util.h"
#include "wire.h"
#include "workers.h"

enum { CHUNK = 64 << 10, INBOX_MAX = 4, NGROUPS = 128, ROWS_OUT = 1 << 20 };
enum { M_RECORD, M_ADVANCE, M_END };

/* A message; a record's is followed by its values' struct wvals, its key
 * bytes, its values' bytes (wire.h) and, where a worker judges lateness
 * and a late file keeps late records, the record as read; sizes are
 * multiples of 8. */
struct msg {
	uint32_t size;
	uint8_t kind;
	uint8_t ofmt;		/* how rows print times: the driver's r->ofmt */
	uint8_t flush;		/* M_END: op_end's */
	uint8_t pad;
	uint64_t pos;		/* the event: rows it fires carry it */
	int64_t t;		/* record: its time; advance: the watermark */
	int64_t maxt;		/* advance, end: the largest time seen */
	uint64_t seq;		/* record: its arrival number */
	uint64_t hash;
	uint64_t keylen;
	uint64_t rawlen;	/* the record as read, for the late file */
};

struct chunk {
	struct chunk *next;
	size_t len, cap;
	uint64_t upto;		/* the events before it are all in chunks */
	char buf[];
};

/* A fired row: its event, window and key, and where its text is. */
struct rowhdr {
	uint64_t pos;
	int64_t end, start;
	size_t key, keylen, text, textlen;
	int has_bounds;
	int late;		/* a late record for the late file, no row */
};

/* Rows a worker fired while doing one chunk, then the merge's. */
struct rows {
	struct rows *next;
	struct rowhdr *v;
	size_t n, cap, at;	/* at: the next one to merge */
	char *keys;
	size_t keylen, keycap;
	struct out *text;	/* their formatted bytes, in memory */
	struct out *late;	/* late records' lines, or NULL */
};

struct worker {
	struct workers *ws;
	struct op *op;
	struct aggs *g;
	struct run run;		/* the driver's, writing to cur's text */
	struct out *like;	/* a sink like the driver's, for rows_new */
	struct out *late_like;	/* and one like its late file, or NULL */
	uint64_t late;		/* records it found late (sessions) */
	int64_t late_by;	/* the farthest behind the watermark */
	struct rows *cur;	/* rows fired so far, not yet published */
	uint64_t pos;		/* the event being done */
	struct aval *vals;
	/* under the workers' mu: chunks to do, chunks done, rows published */
	pthread_cond_t cv;	/* a chunk came, or quit */
	struct chunk *in, *in_tail, *spare;
	int nin, busy, quit;
	struct rows *done, *done_tail;
	uint64_t upto;		/* every event before it is done */
	struct rowhdr front;	/* the last row published, if has_front */
	char *frontkey;
	size_t frontcap;
	int has_front;
	pthread_t th;
	int started;
	/* the driver's side */
	struct chunk *fill;	/* being written */
	struct rows *merge;	/* published rows taken, oldest first */
	struct rows *merge_tail;
	uint64_t m_upto;	/* upto and front as merge() last took them */
	struct rowhdr m_front;
	char *m_frontkey;
	size_t m_frontcap;
	int m_has_front;
};

struct workers {
	struct run *r;
	const struct config *c;
	struct wire_fields wf;	/* the aggregates that take a FIELD */
	int judges;		/* workers judge lateness (sessions) */
	int keep_raw;		/* and send records as read, for the late file */
	unsigned n;
	struct worker *w;
	uint64_t pos;		/* the next event's number */
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a worker published */
	uint64_t gen, seen;	/* publications so far; as merge() took them */
};

static size_t
pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int
workers_fit(const struct run *r)
{
	const struct config *c = r->c;

	return c->threads >= 3 && r->batch == NULL && r->hagg == NULL &&
	    c->checkpoint == NULL && c->restore == NULL &&
	    (c->has_time || !op_uses_time(r->op)) && c->idle_timeout <= 0 &&
	    c->top_n == 0 && c->emit_every <= 0 && c->max_memory == 0;
}

/* --- rows --- */

static struct rows *
rows_new(const struct worker *w)
{
	struct rows *b = xcalloc(1, sizeof(*b));

	b->text = out_open_collect(w->like);
	if (w->late_like != NULL)
		b->late = out_open_collect(w->late_like);
	return b;
}

static void
rows_free(struct rows *b)
{
	if (b == NULL)
		return;
	free(b->v);
	free(b->keys);
	(void)out_close(b->text);
	if (b->late != NULL)
		(void)out_close(b->late);
	free(b);
}

/* Hands w's rows so far to the merge (under the workers' mu). */
static void
hand_rows(struct worker *w)
{
	struct rows *b = w->cur;
	const struct rowhdr *last;

	if (b->n == 0)
		return;
	last = &b->v[b->n - 1];
	w->front = *last;
	xgrow(&w->frontkey, &w->frontcap, last->keylen + 1, 1);
	if (last->keylen > 0)	/* (none: a late record's) */
		memcpy(w->frontkey, b->keys + last->key, last->keylen);
	w->has_front = 1;
	if (w->done_tail != NULL)
		w->done_tail->next = b;
	else
		w->done = b;
	w->done_tail = b;
	w->cur = NULL;
}

/* Rows of an event still firing, published (ROWS_OUT). */
static void
publish_rows(struct worker *w)
{
	struct workers *ws = w->ws;

	pthread_mutex_lock(&ws->mu);
	hand_rows(w);
	ws->gen++;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	w->cur = rows_new(w);
	w->run.out = w->cur->text;
}

/* A worker operator's callback: the row, formatted into memory. */
static void
worker_row(void *arg, const struct op_row *row)
{
	struct worker *w = arg;
	struct rows *b = w->cur;
	struct rowhdr *h;
	size_t at;

	xgrow(&b->v, &b->cap, b->n + 1, sizeof(*b->v));
	h = &b->v[b->n++];
	h->pos = w->pos;
	h->late = 0;
	h->has_bounds = row->has_bounds;
	h->end = row->end;
	h->start = row->start;
	xgrow(&b->keys, &b->keycap, b->keylen + row->keylen + 1, 1);
	if (row->keylen > 0)
		memcpy(b->keys + b->keylen, row->key, row->keylen);
	h->key = b->keylen;
	h->keylen = row->keylen;
	b->keylen += row->keylen;
	(void)out_buffered(b->text, &h->text);
	on_row(&w->run, row);
	(void)out_buffered(b->text, &at);
	h->textlen = at - h->text;
	if (at >= ROWS_OUT)
		publish_rows(w);
}

/* --- a worker's side --- */

/* A record found late: counted, and kept for the late file. */
static void
late_record(struct worker *w, const struct msg *m, const char *raw)
{
	struct rows *b = w->cur;
	struct rowhdr *h;
	int64_t by = sat_add(op_globals(w->op)->g_wm, -m->t);
	size_t at;

	w->late++;
	if (by > w->late_by)
		w->late_by = by;
	if (b->late == NULL)
		return;
	xgrow(&b->v, &b->cap, b->n + 1, sizeof(*b->v));
	h = &b->v[b->n++];
	memset(h, 0, sizeof(*h));
	h->pos = w->pos;
	h->late = 1;
	(void)out_buffered(b->late, &h->text);
	out_str(b->late, raw, m->rawlen);
	out_end_row(b->late);
	(void)out_buffered(b->late, &at);
	h->textlen = at - h->text;
}

static void
do_record(struct worker *w, const struct msg *m)
{
	const struct wval *wv = (const struct wval *)(m + 1);
	const char *key = (const char *)(wv + w->ws->wf.nvf);
	struct op_rec rec;

	rec.key = key;
	rec.keylen = m->keylen;
	rec.hash = m->hash;
	rec.t = m->t;
	rec.vals = w->vals;
	const char *raw = wire_vals_get(&w->ws->wf, wv, key + m->keylen,
	    w->vals);
	op_set_arrival(w->op, m->seq);
	switch (op_record(w->op, &rec)) {
	case OP_ADDED:
		return;
	case OP_LATE:
		if (w->ws->judges) {
			late_record(w, m, raw);
			return;
		}
		break;	/* the driver judged it, and not late */
	}
	fwin_die("a key-group worker found a record not to add");
}

static void
do_chunk(struct worker *w, const struct chunk *k)
{
	const struct msg *m;
	size_t at;

	for (at = 0; at < k->len; at += m->size) {
		m = (const struct msg *)(k->buf + at);
		w->pos = m->pos;
		w->run.ofmt = (enum tfmt)m->ofmt;
		switch (m->kind) {
		case M_RECORD:
			do_record(w, m);
			break;
		case M_ADVANCE:
			op_globals(w->op)->g_maxt = m->maxt;
			if (m->t > op_globals(w->op)->g_wm)
				op_advance(w->op, m->t);
			break;
		case M_END:
			op_globals(w->op)->g_maxt = m->maxt;
			op_end(w->op, m->flush);
			break;
		}
	}
}

/* Chunk k done: its rows published, the chunk kept for the driver. */
static void
publish(struct worker *w, struct chunk *k)
{
	struct workers *ws = w->ws;

	pthread_mutex_lock(&ws->mu);
	hand_rows(w);
	w->has_front = 0;	/* upto passes it */
	k->len = 0;
	k->next = w->spare;
	w->spare = k;
	w->upto = k->upto;
	w->busy = 0;
	ws->gen++;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	if (w->cur == NULL) {
		w->cur = rows_new(w);
		w->run.out = w->cur->text;
	}
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct workers *ws = w->ws;
	struct chunk *k;

	for (;;) {
		pthread_mutex_lock(&ws->mu);
		while (w->in == NULL && !w->quit)
			pthread_cond_wait(&w->cv, &ws->mu);
		if ((k = w->in) == NULL) {
			pthread_mutex_unlock(&ws->mu);
			return NULL;
		}
		if ((w->in = k->next) == NULL)
			w->in_tail = NULL;
		w->nin--;
		w->busy = 1;
		pthread_mutex_unlock(&ws->mu);
		do_chunk(w, k);
		publish(w, k);
	}
}

/* --- the driver's side --- */

/* A chunk with room for n bytes: a spare one, or a new one. */
static struct chunk *
take_chunk(struct worker *w, size_t n)
{
	struct chunk *k = NULL;

	pthread_mutex_lock(&w->ws->mu);
	if (w->spare != NULL && w->spare->cap >= n) {
		k = w->spare;
		w->spare = k->next;
	}
	pthread_mutex_unlock(&w->ws->mu);
	if (k == NULL) {
		size_t cap = n > CHUNK ? n : CHUNK;

		k = xmalloc(sizeof(*k) + cap);
		k->len = 0;
		k->cap = cap;
	}
	k->next = NULL;
	return k;
}

static void merge(struct workers *);

/* Waits (under mu) for a worker to publish something merge() has not
 * taken. */
static void
await(struct workers *ws)
{
	while (ws->gen == ws->seen)
		pthread_cond_wait(&ws->cv, &ws->mu);
}

/* Hands w the chunk being filled (an empty one says how far the events
 * are); while its inbox is full, merges what its workers publish. */
static void
hand(struct workers *ws, struct worker *w)
{
	struct chunk *k = w->fill != NULL ? w->fill : take_chunk(w, 0);

	w->fill = NULL;
	k->upto = ws->pos;
	pthread_mutex_lock(&ws->mu);
	while (w->nin >= INBOX_MAX) {
		pthread_mutex_unlock(&ws->mu);
		merge(ws);
		pthread_mutex_lock(&ws->mu);
		if (w->nin >= INBOX_MAX)
			await(ws);
	}
	if (w->in_tail != NULL)
		w->in_tail->next = k;
	else
		w->in = k;
	w->in_tail = k;
	w->nin++;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&ws->mu);
}

/* Whether row a (its key at akey) goes before row b. */
static int
before(const struct workers *ws, const struct rowhdr *a, const char *akey,
    const struct rowhdr *b, const char *bkey)
{
	if (a->pos != b->pos)
		return a->pos < b->pos;
	if (a->has_bounds && b->has_bounds) {
		if (a->end != b->end)
			return a->end < b->end;
		if (a->start != b->start)
			return a->start < b->start;
	}
	return key_cmp(ws->c->nkeys, akey, a->keylen, bkey, b->keylen) < 0;
}

/* The next row of w's to merge, or NULL. */
static const struct rowhdr *
head(struct worker *w)
{
	struct rows *b;

	while ((b = w->merge) != NULL && b->at == b->n) {
		if ((w->merge = b->next) == NULL)
			w->merge_tail = NULL;
		rows_free(b);
	}
	return b != NULL ? &b->v[b->at] : NULL;
}

/* Takes (under mu) what w published: its rows, how far it is. */
static void
take(struct worker *w)
{
	if (w->done != NULL) {
		if (w->merge_tail != NULL)
			w->merge_tail->next = w->done;
		else
			w->merge = w->done;
		w->merge_tail = w->done_tail;
		w->done = w->done_tail = NULL;
	}
	w->m_upto = w->upto;
	w->m_has_front = w->has_front;
	if (w->has_front) {
		w->m_front = w->front;
		xgrow(&w->m_frontkey, &w->m_frontcap, w->front.keylen + 1, 1);
		memcpy(w->m_frontkey, w->frontkey, w->front.keylen);
	}
}

/* Whether w will fire nothing that goes before row h (key hkey): it is
 * past h's event, or has published a row after h. */
static int
past(const struct workers *ws, const struct worker *w,
    const struct rowhdr *h, const char *hkey)
{
	return w->m_upto > h->pos || (w->m_has_front &&
	    before(ws, h, hkey, &w->m_front, w->m_frontkey));
}

/* Writes the rows that are final: each goes before anything a worker
 * has yet to publish. */
static void
merge(struct workers *ws)
{
	const struct rowhdr *h, *best;
	struct worker *w, *bw;
	const char *text, *key, *bkey = NULL;
	size_t len;
	unsigned i;

	pthread_mutex_lock(&ws->mu);
	for (i = 0; i < ws->n; i++)
		take(&ws->w[i]);
	ws->seen = ws->gen;
	pthread_mutex_unlock(&ws->mu);
	for (;;) {
		best = NULL;
		bw = NULL;
		for (i = 0; i < ws->n; i++) {
			w = &ws->w[i];
			if ((h = head(w)) == NULL)
				continue;
			key = w->merge->keys + h->key;
			if (best == NULL || before(ws, h, key, best, bkey)) {
				best = h;
				bkey = key;
				bw = w;
			}
		}
		if (best == NULL)
			return;
		for (i = 0; i < ws->n; i++)
			if (&ws->w[i] != bw && head(&ws->w[i]) == NULL &&
			    !past(ws, &ws->w[i], best, bkey))
				return;
		if (best->late) {
			text = out_buffered(bw->merge->late, &len);
			out_rows(ws->r->late, text + best->text, best->textlen);
		} else {
			text = out_buffered(bw->merge->text, &len);
			out_rows(ws->r->out, text + best->text, best->textlen);
		}
		bw->merge->at++;
	}
}

/* Every worker's chunk handed over, and what is final written. */
static void
round_robin(struct workers *ws)
{
	unsigned i;

	for (i = 0; i < ws->n; i++)
		hand(ws, &ws->w[i]);
	merge(ws);
}

/* Room for a message of n bytes in w's chunk. */
static struct msg *
room(struct workers *ws, struct worker *w, size_t n)
{
	struct msg *m;

	if (w->fill != NULL && w->fill->len + n > w->fill->cap)
		round_robin(ws);
	if (w->fill == NULL)
		w->fill = take_chunk(w, n);
	m = (struct msg *)(w->fill->buf + w->fill->len);
	w->fill->len += n;
	memset(m, 0, sizeof(*m));
	m->size = (uint32_t)n;
	m->ofmt = (uint8_t)ws->r->ofmt;
	return m;
}

void
workers_record(struct workers *ws, const struct op_rec *rec, uint64_t seq,
    const char *raw, size_t rawlen)
{
	struct worker *w = &ws->w[key_group(rec->hash) * ws->n / NGROUPS];
	size_t n = sizeof(struct msg) + ws->wf.nvf * sizeof(struct wval) +
	    rec->keylen + wire_vals_bytes(&ws->wf, rec->vals);

	if (!ws->keep_raw)
		rawlen = 0;
	n += rawlen;
	struct wval *wv;
	struct msg *m;
	char *b;

	if (pad8(n) > UINT32_MAX)
		fwin_die("a record too long for a key-group worker");
	m = room(ws, w, pad8(n));
	m->kind = M_RECORD;
	m->pos = ws->pos++;
	m->t = rec->t;
	m->seq = seq;
	m->hash = rec->hash;
	m->keylen = rec->keylen;
	m->rawlen = rawlen;
	wv = (struct wval *)(m + 1);
	b = (char *)(wv + ws->wf.nvf);
	if (rec->keylen > 0)
		memcpy(b, rec->key, rec->keylen);
	b = wire_vals_put(&ws->wf, rec->vals, wv, b + rec->keylen);
	if (rawlen > 0)
		memcpy(b, raw, rawlen);
}

/* One event for every worker. */
static void
broadcast(struct workers *ws, int kind, int64_t t, int64_t maxt, int flush)
{
	struct msg *m;
	unsigned i;

	for (i = 0; i < ws->n; i++) {
		m = room(ws, &ws->w[i], sizeof(*m));
		m->kind = (uint8_t)kind;
		m->pos = ws->pos;
		m->t = t;
		m->maxt = maxt;
		m->flush = (uint8_t)flush;
	}
	ws->pos++;
}

void
workers_advance(struct workers *ws, int64_t w, int64_t maxt)
{
	broadcast(ws, M_ADVANCE, w, maxt, 0);
}

void
workers_sync(struct workers *ws)
{
	unsigned i;
	int busy;

	for (i = 0; i < ws->n; i++)
		hand(ws, &ws->w[i]);
	for (;;) {
		merge(ws);
		pthread_mutex_lock(&ws->mu);
		for (busy = 0, i = 0; i < ws->n; i++)
			busy |= ws->w[i].nin > 0 || ws->w[i].busy;
		if (busy)
			await(ws);
		pthread_mutex_unlock(&ws->mu);
		if (!busy)
			break;
	}
	merge(ws);	/* what they published last */
}

void
workers_end(struct workers *ws, int flush, int64_t maxt)
{
	broadcast(ws, M_END, 0, maxt, flush);
	workers_sync(ws);
}

void
workers_size(const struct workers *ws, uint64_t *fired, uint64_t *panes,
    uint64_t *keys, uint64_t *peak)
{
	const struct state *s;
	unsigned i;

	*fired = *panes = *keys = *peak = 0;
	for (i = 0; i < ws->n; i++) {
		s = op_state(ws->w[i].op);
		*fired += op_globals(ws->w[i].op)->g_fired;
		*panes += st_root(s)->sr_npanes;
		*keys += st_root(s)->sr_peak_keys;
		*peak += arena_hdr(&s->a)->ah_peak;
	}
}

void
workers_late(const struct workers *ws, uint64_t *late, int64_t *by)
{
	unsigned i;

	*late = 0;
	*by = INT64_MIN;
	for (i = 0; i < ws->n; i++) {
		*late += ws->w[i].late;
		if (ws->w[i].late_by > *by)
			*by = ws->w[i].late_by;
	}
}

struct workers *
workers_start(struct run *r)
{
	const struct config *c = r->c;
	struct workers *ws = xcalloc(1, sizeof(*ws));
	struct worker *w;
	unsigned i;

	ws->r = r;
	ws->c = c;
	ws->n = c->threads - 1;	/* (the reading thread is one) */
	if (ws->n > NGROUPS)
		ws->n = NGROUPS;
	wire_fields_init(&ws->wf, c);
	ws->judges = !op_judges_alone(r->op);
	ws->keep_raw = ws->judges && r->late != NULL;
	ws->w = xcalloc(ws->n, sizeof(*ws->w));
	for (i = 0; i < ws->n; i++) {
		w = &ws->w[i];
		w->ws = ws;
		w->g = aggs_new(c);
		w->op = op_new(c, w->g, worker_row, w);
		if (op_init_state(w->op) != 0)
			fwin_die("cannot map state: %s", strerror(errno));
		w->vals = xcalloc(c->naggs ? c->naggs : 1, sizeof(*w->vals));
		w->run = *r;
		w->run.op = w->op;
		w->run.st = op_state(w->op);
		w->run.g = w->g;
		w->like = out_open_collect(r->out);
		if (ws->keep_raw)
			w->late_like = out_open_collect(r->late);
		w->cur = rows_new(w);
		w->run.out = w->cur->text;
		pthread_cond_init(&w->cv, NULL);
	}
	pthread_mutex_init(&ws->mu, NULL);
	pthread_cond_init(&ws->cv, NULL);
	for (i = 0; i < ws->n; i++) {
		w = &ws->w[i];
		if ((errno = pthread_create(&w->th, NULL, worker_main, w)) != 0)
			fwin_die("cannot start a thread: %s", strerror(errno));
		w->started = 1;
	}
	return ws;
}

static void
free_chunks(struct chunk *k)
{
	struct chunk *next;

	for (; k != NULL; k = next) {
		next = k->next;
		free(k);
	}
}

static void
free_rows(struct rows *b)
{
	struct rows *next;

	for (; b != NULL; b = next) {
		next = b->next;
		rows_free(b);
	}
}

void
workers_free(struct workers *ws)
{
	struct worker *w;
	unsigned i;

	if (ws == NULL)
		return;
	for (i = 0; i < ws->n; i++) {
		w = &ws->w[i];
		if (w->started) {
			pthread_mutex_lock(&ws->mu);
			w->quit = 1;
			pthread_cond_signal(&w->cv);
			pthread_mutex_unlock(&ws->mu);
			pthread_join(w->th, NULL);
		}
		free_chunks(w->in);
		free_chunks(w->spare);
		free_chunks(w->fill);
		free_rows(w->done);
		free_rows(w->merge);
		rows_free(w->cur);
		(void)out_close(w->like);
		if (w->late_like != NULL)
			(void)out_close(w->late_like);
		op_free(w->op);
		aggs_free(w->g);
		free(w->vals);
		free(w->frontkey);
		free(w->m_frontkey);
		pthread_cond_destroy(&w->cv);
	}
	pthread_mutex_destroy(&ws->mu);
	pthread_cond_destroy(&ws->cv);
	free(ws->w);
	wire_fields_fini(&ws->wf);
	free(ws);
}
