/* outputs: the driver's side of what a run writes. The row sink
 * (flow/sink.h) and the record sinks (flow/recsink.h) know nothing of
 * checkpoints: here a restored run's -o FILE and late file are cut back
 * to the lengths its checkpoint recorded before they are opened, and -o
 * sqlite: learns which checkpoint its transactions belong to. See
 * runint.h. */
#include <sys/stat.h>

#include <string.h>

#include "run/persist.h"
#include "run/runint.h"

/* The SQLite sink's transactions: the generation of the checkpoint that
 * will cover their rows, and of the last one known to be on disk. */
static void
sql_generations(void *arg, uint64_t *tag, uint64_t *durable)
{
	const struct persist *p = arg;

	*tag = p->generation + 1;
	/* a save in the background may yet fail: then the one before it
	 * is what a restore finds */
	*durable = p->failed ? 0 : p->saver > 0 && p->generation > 0 ?
	    p->generation - 1 : p->generation;
}

/* Before a message (fwin_warn_after): the progress line erased, so that
 * the message does not run on from it and stay there with it; and where
 * rows and messages go to one file, the rows that came before it. */
static void
before_message(void *arg)
{
	struct run *r = arg;

	progress_end(r);
	if (r->rows_first)
		(void)sink_flush(r->sink);	/* (said at the close) */
}

/* Whether fd and standard error are one open file (a terminal, 2>&1). */
static int
with_messages(int fd)
{
	struct stat a, b;

	return fd >= 0 && fstat(fd, &a) == 0 && fstat(2, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
open_sinks(struct run *r)
{
	const struct config *c = r->c;
	struct sink_spec sp;
	int status;

	if (persist_writing(&r->ps) != 0)
		return 1;
	if (r->restored && (persist_truncate(c->output, r->ps.outlen) != 0 ||
	    persist_truncate(c->late_file, r->ps.latelen) != 0))
		return 1;
	if (c->late_file != NULL &&
	    (r->late = recsink_open(c->late_file)) == NULL)
		return 1;
	if (c->bad_file != NULL &&
	    (r->badout = recsink_open(c->bad_file)) == NULL)
		return 1;
	memset(&sp, 0, sizeof(sp));
	sp.c = r->c;
	sp.st = r->st;
	sp.has_bounds = op_has_bounds(r->op);
	sp.rec_cols = (const char *const *)r->over_cols;
	sp.nrec_cols = r->nover_cols;
	sp.restored = r->restored;
	sp.position = r->ps.outlen;
	sp.gens = sql_generations;
	sp.gens_arg = &r->ps;
	if ((status = sink_open(&sp, &r->sink)) != 0)
		return status;
	r->rows_first = with_messages(sink_fd(r->sink));
	fwin_warn_after(before_message, r);
	return 0;
}

int
close_sinks(struct run *r)
{
	int status = 0;

	fwin_warn_after(NULL, NULL);
	if (sink_close(r->sink) != 0)
		status = 1;
	r->sink = NULL;
	if (recsink_close(r->late) != 0)
		status = 1;
	r->late = NULL;
	if (recsink_close(r->badout) != 0)
		status = 1;
	r->badout = NULL;
	return status;
}
