/* reader: --threads 2 or more (fwin(1)): a thread that reads, frames
 * and parses records (parse.h) ahead of the window operator, and hands
 * them over in input order, in slots of a small ring, with the messages
 * the input says in their places among them. The driver applies what it
 * is handed exactly as it applies what it parses itself, so everything a
 * user sees is the same with one thread or two. */
#ifndef FWIN_READER_H
#define FWIN_READER_H

#include <stdint.h>

#include "flow/batch.h"
#include "pipeline/config.h"
#include "io/input.h"
#include "flow/parse.h"

/* What reader_next() returns besides INPUT_RECORD, INPUT_END, INPUT_WAIT
 * (the input would block: poll reader_fd()) and -1 (the input failed). */
enum { READER_PAUSED = 3 };

struct reader;

/* Starts reading in (its header read, if any) with parser p, which only
 * the thread uses from now on (the caller frees it after reader_stop()).
 * keep_raw: hand over each record as read (for the late file). Never
 * NULL (exits when no thread can be made). */
struct reader *reader_start(struct input *in, struct parser *p,
    const struct config *c, int keep_raw);

/* From now on the thread finds the tumbling window of each record it
 * reads (struct parsed's win), for a batch aggregated as read
 * (hashagg.h). */
void reader_find_windows(struct reader *rd);

/* --mode batch's end (batch.h): a thread that merges the records b
 * kept and hands them over in time order, as reader_next() hands over
 * read records (good ones only: time, key, hash and values). Never
 * NULL. */
struct reader *reader_replay(struct batch *b, const struct config *c);

/* The next record in input order: *pr, valid until the next call.
 * Waits while the thread is busy reading; returns INPUT_WAIT at once when
 * the input itself would block. */
int reader_next(struct reader *rd, const struct parsed **pr);

/* Whether the record d records after the one reader_next() returned last
 * is read already, in the same slot, and a good record: then *hash is
 * its key's hash and *win its tumbling window's start (or NULL: not
 * found), to warm the cache for it (st_prefetch, hashagg_prefetch). */
int reader_ahead(const struct reader *rd, size_t d, uint64_t *hash,
    const int64_t **win);

/* Whether reader_next() has something other than INPUT_WAIT to say. */
int reader_ready(struct reader *rd);

/* Readable when reader_ready() may have become true. */
int reader_fd(const struct reader *rd);

/* Asks the thread to stop reading at the next record's boundary: then
 * reader_next() hands over what it read before, and READER_PAUSED. The
 * input stands where the last record handed over ends until
 * reader_resume(). */
void reader_pause(struct reader *rd);
void reader_resume(struct reader *rd);

/* Bytes of input consumed by the records handed over (--progress). */
uint64_t reader_bytes(const struct reader *rd);

/* Stops the thread and frees the reader (NULL: nothing). The input stays
 * the caller's. */
void reader_stop(struct reader *rd);

#endif
