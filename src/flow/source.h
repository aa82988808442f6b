/* source: where the driver and the strategies take parsed records from
 * (parse.h), one interface over every way of getting them, as SQLite's
 * sqlite3_io_methods is over its files: a table of methods. Framing
 * (io/input.h) and parsing are called in one place, the input source
 * (source.c); the others wrap it or stand in for it:
 *
 *   source_input   the driver's input, read and parsed as asked;
 *   source_thread  any source read ahead on a thread of its own
 *                  (--threads 2 or more; reader.c), its messages
 *                  handed over in their places among the records;
 *   source_reread  the named FILEs read again from their start (a
 *                  fallback, or a strategy that gave up), its messages
 *                  not said (they were, the first time), up to n
 *                  records: source_rewind() makes one;
 *   source_half    the FILEs from a line end near their middle, for the
 *                  second half's thread (exec/split.h);
 *   source_sorted  --mode batch's records merged back in time order
 *                  (batch.h), as good records.
 *
 * Nothing is allocated or copied per record but by the thread, which
 * copies each into its ring once. */
#ifndef FWIN_SOURCE_H
#define FWIN_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "flow/batch.h"
#include "flow/parse.h"
#include "io/input.h"
#include "pipeline/config.h"

/* What source_next() returns: a record, the end, the input would block
 * (poll source_fd()), paused (source_pause()); or -1: the input failed
 * (said on stderr, or for a quiet source not said). */
enum {
	SOURCE_END = INPUT_END,
	SOURCE_RECORD = INPUT_RECORD,
	SOURCE_WAIT = INPUT_WAIT,
	SOURCE_PAUSED = 3
};

struct source;

struct source_methods {
	const char *name;
	int (*next)(struct source *s, const struct parsed **pr);
	/* optional (NULL): the wrappers below say what it means */
	int (*next_n)(struct source *s, const struct parsed **pr, size_t max,
	    size_t *n);
	int (*ahead)(struct source *s, size_t d, uint64_t *hash);
	struct source *(*rewind)(struct source *s, uint64_t n, int timefmt);
	uint64_t (*bytes)(const struct source *s);
	int (*fd)(const struct source *s);
	int (*wait_ms)(const struct source *s);
	int (*ready)(struct source *s);
	int (*pause)(struct source *s);
	void (*resume)(struct source *s);
	void (*find_windows)(struct source *s);
	void (*free)(struct source *s);
};

struct source {
	const struct source_methods *m;
};

/* The next record: SOURCE_RECORD with *pr, valid until the next call;
 * or what the enum above says. (Here, not in source.c: it is called at
 * every record.) */
static inline int
source_next(struct source *s, const struct parsed **pr)
{
	return s->m->next(s, pr);
}

/* The next records, a block of them: SOURCE_RECORD with *n of them (1
 * to max, max <= PARSE_SETS) at pr[0..*n), all valid until the next
 * call; or what source_next() answers, *n 0. A source that has no block
 * to hand over (all but the input read here) hands over one. */
static inline int
source_next_n(struct source *s, const struct parsed **pr, size_t max,
    size_t *n)
{
	int rc;

	if (s->m->next_n != NULL)
		return s->m->next_n(s, pr, max, n);
	rc = s->m->next(s, pr);
	*n = rc == SOURCE_RECORD;
	return rc;
}

/* Whether records are read ahead of the one handed over last (a reading
 * thread): then source_ahead() can look at them, and a pause matters. */
static inline int
source_reads_ahead(const struct source *s)
{
	return s->m->ahead != NULL;
}

/* Where source_reads_ahead(): whether the record d records after the
 * one source_next() handed over last is read already and a good record:
 * then *hash is its key's hash, to warm the cache for it (st_prefetch). */
static inline int
source_ahead(struct source *s, size_t d, uint64_t *hash)
{
	return s->m->ahead(s, d, hash);
}

/* The driver's input in, read and parsed with p (both the caller's, to
 * close and free after the source); its header, if any, read already.
 * The input's messages are said as it meets them. Never NULL. */
struct source *source_input(const struct config *c, struct input *in,
    struct parser *p);

/* Reads in (the input, as source_input() made it, or the sorted
 * replay) ahead on a thread of its own, which from now on is the only
 * one to use it, until source_free() of the new source stops the
 * thread; in is then the caller's again (standing where the last record
 * handed over ends if a pause was answered last: else past what was
 * read ahead). keep_raw: hand over each record as read (the late and
 * bad files). Never NULL (exits when no thread can be made). */
struct source *source_thread(struct source *in, const struct config *c,
    int keep_raw);

/* The first n records of pipeline c's FILEs read again from their start
 * in a second input, parsed as they were (timefmt: the input's time
 * format, known by now), the input's messages not said (they were, the
 * first time). The source answers -1 when the FILEs end before n
 * records, or their header cannot be read: they changed. Never NULL. */
struct source *source_reread(const struct config *c, int timefmt,
    uint64_t n);

/* s's first n records again (as source_reread()), or NULL when s cannot
 * be read again (standard input, a pipe, --follow, the sorted replay). */
struct source *source_rewind(struct source *s, uint64_t n, int timefmt);

/* Pipeline c's FILEs from FILE operand fi, its first pos->ip_off bytes
 * skipped (where input_resume() puts them; a regular file of that
 * identity), read and parsed as source_reread() does but with its
 * messages said (to whom the thread's fwin_warn_to() says). -1 also
 * when a FILE could not be read. Never NULL. */
struct source *source_half(const struct config *c, int timefmt, int fi,
    const struct input_pos *pos);

/* --mode batch's end: every record b kept, merged back in (time, input
 * order), as good records (time, key, hash and values); batch_halt()
 * ends it early. (In batch.c, beside the runs.) Never NULL. */
struct source *source_sorted(struct batch *b);

/* Bytes of input consumed by the records handed over (--progress). */
uint64_t source_bytes(const struct source *s);

/* After SOURCE_WAIT: the descriptor to poll (-1: none), and the longest
 * wait in milliseconds before trying again whatever it says (-1: no
 * limit; a followed file is looked at every second). */
int source_fd(const struct source *s);
int source_wait_ms(const struct source *s);

/* Whether source_next() has something other than SOURCE_WAIT to say
 * without polling first (a reading thread's; 0 otherwise). */
int source_ready(struct source *s);

/* Before a checkpoint or a stop, which record where the input stands:
 * asks a source that reads ahead to stop at the next record's boundary.
 * Returns 1 when it will: source_next() then hands over what it read
 * before, then SOURCE_PAUSED, and the input stands where the last record
 * handed over ends until source_resume(). Returns 0 when nothing is read
 * ahead (the input stands there already), or the end was handed over. */
int source_pause(struct source *s);
void source_resume(struct source *s);

/* From now on a reading thread finds the tumbling window of each record
 * it reads (struct parsed's win), for a table aggregated as read
 * (exec/hashagg.h). Nothing for a source that does not read ahead. */
void source_find_windows(struct source *s);

/* Frees s (NULL: nothing); a thread is stopped first. What it was made
 * over stays the caller's. */
void source_free(struct source *s);

/* For the implementations: size bytes, zeroed, on cache lines of their
 * own (a reading thread writes a source's struct parsed at every record:
 * it must share no line with what the driver writes). Free with free(). */
void *source_alloc(size_t size);

#endif
