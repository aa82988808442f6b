/* workers: --threads 3 or more on a stream (fwin(1): --threads): keys
 * spread over worker threads by key group, each worker a window operator
 * of its own over the groups it owns, as Flink's keyBy spreads keys over
 * parallel instances. The driver still applies every record in input
 * order (counts, messages, the watermark, late records: steps 1-2 need
 * no keyed state, op_classify, but for sessions, whose workers judge
 * them); it hands each record it keeps to its key's worker and each
 * watermark advance to all, numbered as events.
 * A worker formats the rows it fires into memory, each marked with the
 * event that fired it; the driver merges them in (event, end, start,
 * key) order, the order one operator fires them in, and writes them. */
#ifndef FWIN_WORKERS_H
#define FWIN_WORKERS_H

#include <stdint.h>

#include "exec/exec.h"
#include "window/operator.h"

struct workers;

/* Starts --threads - 1 workers with the driver's env (never NULL), each
 * formatting its rows with a sink like the driver's, where the plan
 * chose them (keyed.c: what they cannot take is said there). */
struct workers *workers_start(struct ex_env *env);

/* A record the driver's operator classified OP_ADDED, with its arrival
 * number; raw is the record as read, which a late file keeps should its
 * worker find it late (sessions: op_judges_alone() is false). */
void workers_record(struct workers *ws, const struct op_rec *rec,
    uint64_t seq, const char *raw, size_t rawlen);

/* The records the workers found late so far, and the farthest behind
 * the watermark (INT64_MIN: none). */
void workers_late(const struct workers *ws, uint64_t *late, int64_t *by,
    int64_t *maxt);

/* The watermark moved to w (the largest time seen is maxt). */
void workers_advance(struct workers *ws, int64_t w, int64_t maxt);

/* Waits until every worker has done what it was handed, and writes the
 * rows (live input keeps its latency: before fwin waits for input). */
void workers_sync(struct workers *ws);

/* End of input (op_end(flush) on each), every row written. */
void workers_end(struct workers *ws, int flush, int64_t maxt);

/* --stats: windows fired, open windows, the most keys held, the peak of
 * state, summed over the workers. */
void workers_size(const struct workers *ws, uint64_t *fired,
    uint64_t *panes, uint64_t *keys, uint64_t *peak);

/* --progress: the open windows and keys the workers held when they
 * last finished a chunk. */
void workers_held(struct workers *ws, uint64_t *panes, uint64_t *keys);

/* Stops the threads and frees everything (NULL: nothing). */
void workers_free(struct workers *ws);

#endif
