/* hold: rows held in a scratch file (fwin(1): THE PLAN). A strategy
 * that may give up after it fired rows (straight, the table while the
 * records come in time order) holds them until the end shows they stand;
 * giving up drops them. Rows another thread formats (halves' second
 * half, the later rows of a join) go to a scratch file too, copied after
 * the sink's own. */
#ifndef FWIN_HOLD_H
#define FWIN_HOLD_H

#include "flow/sink.h"

struct hold {
	struct sink *s;
	int fd;			/* the scratch file, or -1 */
	int prev;		/* the sink's file before */
};

/* From now on s's rows go to a new scratch file. Returns 0, or -1 when
 * they cannot (s cannot be flushed, no scratch file): nothing held. */
int hold_begin(struct hold *h, struct sink *s);

/* The rows held are written to the sink's own file, after its rows;
 * the hold ends. Returns 1; 0 when they could not be flushed to the
 * scratch file (nothing written: the hold stands, to drop); -1 after a
 * message. */
int hold_commit(struct hold *h);

/* The rows held are dropped; the hold ends (none: nothing). */
void hold_drop(struct hold *h);

/* Writes the rows in scratch file fd (written by a sink like s) after
 * s's. Where they are rows that s has not counted (another thread
 * formatted them), there are rows of them, and copied(arg, n) says each
 * part of them as it is written: n more rows of them written (copied
 * NULL: none said). Returns 0, or -1 after a message. */
int hold_write(struct sink *s, int fd, uint64_t rows,
    void (*copied)(void *arg, uint64_t n), void *arg);

#endif
