/* batch: --mode batch (the man page's BATCH AND STREAM MODES). The driver
 * hands it every good record as read; at end of input it hands them back
 * stably sorted by event time (equal times in input order), and the
 * driver replays them through the window operator as a stream with
 * lateness 0 would see them. So no record is late.
 *
 * Each record is kept in a compact serialized form (its time, key
 * bytes and each aggregate's value). While all input so far is in time
 * order, records go straight into memory as one sorted run. Otherwise
 * they go to an append-only buffer of at most 32 MB (and a quarter of
 * the budget) with a 16-byte (time, offset) entry each; a full buffer is
 * sorted stably and copied as a sorted run to memory (one that follows
 * the last run in time order lengthens it), and the buffer is reused.
 * Past the memory budget the runs are written to one spill file in
 * $TMPDIR (a file without a name, or unlinked as soon as it is made, so
 * nothing stays behind however fwin ends). The runs are merged at the
 * end; equal times come out in run order, which is input order. The
 * order does not depend on the budget. */
#ifndef FWIN_BATCH_H
#define FWIN_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "window/agg.h"
#include "pipeline/config.h"

struct batch;

/* Batch storage for the records of pipeline c, holding at most budget
 * bytes of records in memory. Never NULL. */
struct batch *batch_new(const struct config *c, uint64_t budget);
void batch_free(struct batch *b);

enum { BATCH_OK = 0, BATCH_RANGE = 1, BATCH_FAIL = -1 };

/* Keeps one record. Returns BATCH_OK; BATCH_RANGE when its windows do
 * not fit in int64 (a bad record: nothing kept); BATCH_FAIL when a spill
 * failed (said on stderr: the run must end with status 1). */
int batch_add(struct batch *b, int64_t t, const char *key, size_t keylen,
    const struct aval *vals);

/* At the end, every record kept is handed back in (time, input order)
 * by source_sorted() (source.h), as good records. */

/* Asks the replay, on this thread or another, to hand back no more
 * records (a signal stopped the run): its source ends. */
void batch_halt(struct batch *b);

/* How many sorted runs were spilled, and their bytes. */
void batch_spilled(const struct batch *b, uint64_t *runs, uint64_t *bytes);

/* The default budget: a quarter of physical memory. */
uint64_t batch_default_budget(void);

#endif
