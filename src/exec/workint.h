/* workint: the insides of key-group workers, shared by workers.c (the
 * threads, and the records and events handed to them) and workrows.c
 * (the rows they fire, published and merged); no other module includes
 * it. */
#ifndef FWIN_WORKINT_H
#define FWIN_WORKINT_H

#include <pthread.h>
#include <stdint.h>

#include "flow/recsink.h"
#include "flow/sink.h"
#include "pipeline/config.h"
#include "window/agg.h"
#include "window/operator.h"
#include "window/wire.h"

/* A worker publishes the rows of a chunk it is still doing as they pass
 * this many bytes (a window of millions of rows streams out). */
enum { ROWS_OUT = 1 << 20 };

struct chunk;	/* (workers.c) */

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
	struct sink *sink;	/* like the driver's, writing to cur's text */
	struct out *like;	/* an output like the driver's, for rows_new */
	struct out *late_like;	/* and one like its late file, or NULL */
	uint64_t late;		/* records it found late (sessions) */
	int64_t late_by;	/* the farthest behind the watermark */
	int64_t late_maxt;	/* the largest time seen at the last one */
	struct rows *cur;	/* rows fired so far, not yet published */
	uint64_t pos;		/* the event being done */
	struct aval *vals;
	/* under the workers' mu: chunks to do, chunks done, rows published */
	pthread_cond_t cv;	/* a chunk came, or quit */
	struct chunk *in, *in_tail, *spare;
	int nin, busy, quit;
	struct rows *done, *done_tail;
	uint64_t upto;		/* every event before it is done */
	uint64_t panes, keys;	/* its state's then (--progress) */
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
	uint64_t m_upto;	/* upto and front as rows_merge() last took them */
	struct rowhdr m_front;
	char *m_frontkey;
	size_t m_frontcap;
	int m_has_front;
};

struct workers {
	const struct config *c;
	/* the driver's sink and late file (or NULL), which the merge
	 * writes to */
	struct sink *sink;
	struct recsink *late;
	/* its rows said to the driver (struct ex_env's copied), a batch
	 * of them at a time: those written and not said yet */
	void (*copied)(void *arg, uint64_t n);
	void *arg;
	uint64_t unsaid;
	struct wire_fields wf;	/* the aggregates that take a FIELD */
	int judges;		/* workers judge lateness (sessions) */
	int keep_raw;		/* and send records as read, for the late file */
	unsigned n;
	struct worker *w;
	uint64_t pos;		/* the next event's number */
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a worker published */
	uint64_t gen, seen;	/* publications so far; as rows_merge() took them */
};

/* workrows.c: a worker's rows (made, freed, a list freed); the rows it
 * fired so far handed to the merge (under the workers' mu); the
 * operator's row callback; a record it found late, kept for the late
 * file; and the driver's merge, which writes the rows that are final. */
struct rows *rows_new(const struct worker *w);
void rows_free(struct rows *b);
void rows_free_all(struct rows *b);
void rows_hand(struct worker *w);
void rows_add(void *arg, const struct op_row *row);
void rows_late(struct worker *w, int64_t t, const char *raw, size_t rawlen);
void rows_merge(struct workers *ws);

#endif
