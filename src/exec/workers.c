/*
 * workers: keys spread over worker threads by key group (workers.h).
 *
 * The driver writes what it hands a worker as messages into a chunk of
 * that worker's (a record: its key, time, hash, arrival number and
 * values; a watermark advance; the end of input), each numbered by the
 * event it is. When one chunk is full, every worker's is handed over at
 * once (a round), each marked with the event number it reaches: a
 * worker that has done its chunk of a round has fired every row of the
 * events before that number, and published them (workrows.c, which
 * merges them). The driver merges after each round, while it waits for
 * room in a worker's inbox, and while it waits for the workers to be
 * done (workers_sync).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "pipeline/config.h"
#include "io/keycodec.h"
#include "io/output.h"
#include "exec/exec.h"
#include "window/state.h"
#include "base/util.h"
#include "window/wire.h"
#include "exec/workers.h"
#include "exec/workint.h"

enum { CHUNK = 64 << 10, INBOX_MAX = 4, NGROUPS = 128 };
enum { M_RECORD, M_ADVANCE, M_END };

/* A message; a record's is followed by its values' struct wvals, its key
 * bytes, its values' bytes (wire.h) and, where a worker judges lateness
 * and a late file keeps late records, the record as read; sizes are
 * multiples of 8. */
struct msg {
	uint32_t size;
	uint8_t kind;
	uint8_t ofmt;		/* how rows print times: the driver's sink's */
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

static size_t
pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* --- a worker's side --- */

/* A record: to its key's operator (a session's may be late). */
static void
do_record(struct worker *w, const struct msg *m)
{
	const struct wval *wv = (const struct wval *)(m + 1);
	const char *key = (const char *)(wv + w->ws->wf.nvf), *raw;
	struct op_rec rec;

	rec.key = key;
	rec.keylen = m->keylen;
	rec.hash = m->hash;
	rec.padded = 0;
	rec.t = m->t;
	rec.vals = w->vals;
	raw = wire_vals_get(&w->ws->wf, wv, key + m->keylen, w->vals);
	op_set_arrival(w->op, m->seq);
	switch (op_record(w->op, &rec)) {
	case OP_ADDED:
		return;
	case OP_LATE:
		if (w->ws->judges) {
			rows_late(w, m->t, raw, m->rawlen);
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
		sink_set_timefmt(w->sink, (enum tfmt)m->ofmt);
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
	rows_hand(w);
	w->has_front = 0;	/* upto passes it */
	k->len = 0;
	k->next = w->spare;
	w->spare = k;
	w->upto = k->upto;
	w->panes = st_root(op_state(w->op))->sr_npanes;
	w->keys = st_root(op_state(w->op))->sr_nkeys;
	w->busy = 0;
	ws->gen++;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	if (w->cur == NULL) {
		w->cur = rows_new(w);
		sink_set_out(w->sink, w->cur->text);
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

/* Waits (under mu) for a worker to publish something rows_merge() has not
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
		rows_merge(ws);
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

/* Every worker's chunk handed over, and what is final written. */
static void
round_robin(struct workers *ws)
{
	unsigned i;

	for (i = 0; i < ws->n; i++)
		hand(ws, &ws->w[i]);
	rows_merge(ws);
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
	m->ofmt = (uint8_t)sink_timefmt(ws->sink);
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
		rows_merge(ws);
		pthread_mutex_lock(&ws->mu);
		for (busy = 0, i = 0; i < ws->n; i++)
			busy |= ws->w[i].nin > 0 || ws->w[i].busy;
		if (busy)
			await(ws);
		pthread_mutex_unlock(&ws->mu);
		if (!busy)
			break;
	}
	rows_merge(ws);	/* what they published last */
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
workers_held(struct workers *ws, uint64_t *panes, uint64_t *keys)
{
	unsigned i;

	*panes = *keys = 0;
	pthread_mutex_lock(&ws->mu);
	for (i = 0; i < ws->n; i++) {
		*panes += ws->w[i].panes;
		*keys += ws->w[i].keys;
	}
	pthread_mutex_unlock(&ws->mu);
}

void
workers_late(const struct workers *ws, uint64_t *late, int64_t *by,
    int64_t *maxt)
{
	unsigned i;

	*late = 0;
	*by = INT64_MIN;
	*maxt = INT64_MIN;
	for (i = 0; i < ws->n; i++) {
		*late += ws->w[i].late;
		if (ws->w[i].late_by > *by)
			*by = ws->w[i].late_by;
		if (ws->w[i].late > 0 && ws->w[i].late_maxt > *maxt)
			*maxt = ws->w[i].late_maxt;
	}
}

struct workers *
workers_start(struct ex_env *env)
{
	const struct config *c = env->c;
	struct workers *ws = xcalloc(1, sizeof(*ws));
	struct worker *w;
	unsigned i;

	ws->c = c;
	ws->sink = env->sink;
	ws->late = env->late_file;
	ws->copied = env->copied;
	ws->arg = env->arg;
	ws->n = c->threads - 1;	/* (the reading thread is one) */
	if (ws->n > NGROUPS)
		ws->n = NGROUPS;
	wire_fields_init(&ws->wf, c);
	ws->judges = !op_judges_alone(env->op);
	ws->keep_raw = ws->judges && env->late_file != NULL;
	ws->w = xcalloc(ws->n, sizeof(*ws->w));
	for (i = 0; i < ws->n; i++) {
		w = &ws->w[i];
		w->ws = ws;
		w->g = aggs_new(c);
		w->op = op_new(c, w->g, rows_add, w);
		if (op_init_state(w->op) != 0)
			fwin_die("cannot map state: %s", strerror(errno));
		w->vals = xcalloc(c->naggs ? c->naggs : 1, sizeof(*w->vals));
		w->like = sink_output_like(env->sink, -1);
		if (ws->keep_raw)
			w->late_like = recsink_collect(env->late_file);
		w->cur = rows_new(w);
		/* (its changelog keeps its rows in its own state) */
		w->sink = sink_like(env->sink, w->cur->text);
		sink_set_state(w->sink, op_state(w->op));
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
		rows_free_all(w->done);
		rows_free_all(w->merge);
		rows_free(w->cur);
		(void)out_close(w->like);
		if (w->late_like != NULL)
			(void)out_close(w->late_like);
		(void)sink_close(w->sink);
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
