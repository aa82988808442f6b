/* runstop: a batch run stopped by a signal (the man page's BATCH AND
 * STREAM MODES). A stream ends its input on SIGINT, SIGTERM or SIGHUP
 * and fires what it holds, as at its end; a batch result is only whole
 * once every record has gone through the windows, so a stopped batch
 * run writes no further row and says that its output is incomplete. */
#include <stdio.h>

#include "flow/batch.h"
#include "run/runint.h"
#include "base/util.h"

int
batch_stopped(struct run *r)
{
	if (r->batch == NULL || run_signal() == 0)
		return 0;
	if (!r->halted) {
		r->halted = 1;
		batch_halt(r->batch);	/* (its replay may be on a thread) */
		sink_halt(r->sink);
	}
	return 1;
}

/* How far the run came: while the input was being read, the records read
 * and the share of the inputs' bytes (when they are regular files);
 * after, the records that went through the windows of those to go. */
int
batch_interrupted(struct run *r, uint64_t bytes)
{
	uint64_t m = G(r)->g_read - G(r)->g_bad - r->others;
	uint64_t n = r->replaying ? r->replayed : m;
	char of[64] = "";

	if (!r->read_all) {
		if (r->total > 0 && bytes <= r->total)
			snprintf(of, sizeof(of), " (%.0f%% of the input)",
			    100.0 * (double)bytes / (double)r->total);
		fwin_warn("interrupted after %llu record%s%s; the output is "
		    "incomplete", (unsigned long long)G(r)->g_read,
		    G(r)->g_read == 1 ? "" : "s", of);
	} else
		fwin_warn("interrupted after %llu of %llu record%s (%.0f%%); "
		    "the output is incomplete", (unsigned long long)n,
		    (unsigned long long)m, m == 1 ? "" : "s",
		    m > 0 ? 100.0 * (double)n / (double)m : 100.0);
	return 128 + run_signal();
}
