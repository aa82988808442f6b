/*
 * workrows: the rows key-group workers fire (workint.h).
 *
 * A worker formats the rows it fires on its own thread, through a sink
 * like the driver's that keeps them in memory, each marked with the
 * event that fired it. It publishes them when its chunk is done, or as
 * they pass ROWS_OUT bytes within one, with the last row published (its
 * front). The driver merges them in (event, end, start, key) order, the
 * order one operator fires them in (rows of one event from one worker
 * come in that order already: the merge takes heads), writing a row once
 * every other worker is past its event or has published a row after it.
 * A session's late record comes back the same way, marked, for the late
 * file.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/keycodec.h"
#include "io/output.h"
#include "base/util.h"
#include "exec/workint.h"

/* --- a worker's side --- */

struct rows *
rows_new(const struct worker *w)
{
	struct rows *b = xcalloc(1, sizeof(*b));

	b->text = out_open_collect(w->like);
	if (w->late_like != NULL)
		b->late = out_open_collect(w->late_like);
	return b;
}

void
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
void
rows_hand(struct worker *w)
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
rows_publish(struct worker *w)
{
	struct workers *ws = w->ws;

	pthread_mutex_lock(&ws->mu);
	rows_hand(w);
	ws->gen++;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	w->cur = rows_new(w);
	sink_set_out(w->sink, w->cur->text);
}

/* A worker operator's callback: the row, formatted into memory. */
void
rows_add(void *arg, const struct op_row *row)
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
	sink_row(w->sink, row);
	(void)out_buffered(b->text, &at);
	h->textlen = at - h->text;
	if (at >= ROWS_OUT)
		rows_publish(w);
}

/* A record found late: counted, and kept for the late file. */
void
rows_late(struct worker *w, int64_t t, const char *raw, size_t rawlen)
{
	struct rows *b = w->cur;
	struct rowhdr *h;
	int64_t by = sat_sub(op_globals(w->op)->g_wm, t);
	size_t at;

	w->late++;
	if (by > w->late_by)
		w->late_by = by;
	w->late_maxt = op_globals(w->op)->g_maxt;	/* (it only grows) */
	if (b->late == NULL)
		return;
	xgrow(&b->v, &b->cap, b->n + 1, sizeof(*b->v));
	h = &b->v[b->n++];
	memset(h, 0, sizeof(*h));
	h->pos = w->pos;
	h->late = 1;
	(void)out_buffered(b->late, &h->text);
	out_str(b->late, raw, rawlen);
	out_end_row(b->late);
	(void)out_buffered(b->late, &at);
	h->textlen = at - h->text;
}

/* --- the driver's side --- */

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

/* A row the merge wrote, said to the driver a thousand at a time (as
 * --progress counts them: run.c's on_row()). */
static void
row_written(struct workers *ws)
{
	if (ws->copied != NULL && ++ws->unsaid == 1024) {
		ws->copied(ws->arg, ws->unsaid);
		ws->unsaid = 0;
	}
}

/* Writes the rows that are final: each goes before anything a worker
 * has yet to publish. */
void
rows_merge(struct workers *ws)
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
			recsink_rows(ws->late, text + best->text,
			    best->textlen);
		} else {
			text = out_buffered(bw->merge->text, &len);
			out_rows(sink_out(ws->sink), text + best->text,
			    best->textlen);
			row_written(ws);
		}
		bw->merge->at++;
	}
}

void
rows_free_all(struct rows *b)
{
	struct rows *next;

	for (; b != NULL; b = next) {
		next = b->next;
		rows_free(b);
	}
}
