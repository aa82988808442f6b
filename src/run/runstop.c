/* runstop: signals, and a batch run stopped by one (the man page's
 * BATCH AND STREAM MODES). SIGINT, SIGTERM and SIGHUP end the input as
 * its end would: a stream fires what it holds, as at its end; a batch
 * result is only whole once every record has gone through the windows,
 * so a stopped batch run writes no further row and says that its output
 * is incomplete; a stream stopped before the end of a named file says
 * what it did not read. SIGUSR1 asks for a checkpoint. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "run/runint.h"
#include "base/util.h"

volatile sig_atomic_t run_stop_signal;
static volatile sig_atomic_t save_requested;

/* A second signal to stop, while fwin finishes after the first (a
 * stream fires what it holds, and that can be more than anyone will
 * wait for: --fill over years of milliseconds), ends it at once, by the
 * signal's own action, as a second Ctrl-C ends programs that finish
 * their work after the first. */
static void
on_signal(int sig)
{
	if (sig == SIGUSR1) {
		save_requested = 1;
		return;
	}
	if (run_stop_signal != 0) {	/* (delivered once this returns) */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	run_stop_signal = sig;
}

/* Catches sig, unless whoever started fwin ignores it (nohup(1), a
 * shell's background job): that choice stands, as the convention of
 * Unix programs has it. */
static void
catch_unless_ignored(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	sigaction(sig, sa, NULL);
}

/* No SA_RESTART: they interrupt poll(2), so a waiting fwin notices at
 * once. */
void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	catch_unless_ignored(SIGINT, &sa);
	catch_unless_ignored(SIGTERM, &sa);
	catch_unless_ignored(SIGHUP, &sa);
	sigaction(SIGUSR1, &sa, NULL);
	/* a SIGCHLD ignored by whoever started fwin would have the
	 * background checkpoint writers reaped unseen: their status is
	 * how a save is known to have ended well */
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
}

int
save_asked(void)
{
	return save_requested;
}

void
save_begun(void)
{
	save_requested = 0;
}

int
batch_stopped(struct run *r)
{
	if (r->c->mode != MODE_BATCH || run_signal() == 0)
		return 0;
	if (!r->halted) {
		r->halted = 1;
		sink_halt(r->sink);	/* (sorted halts its replay) */
		op_halt(r->op);
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
	struct ex_size z;
	uint64_t n;
	char of[64] = "";

	memset(&z, 0, sizeof(z));
	exec_size(&r->x, &z, 1);	/* (sorted's replay) */
	n = z.replaying ? z.replayed : m;
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

static const char *
signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

/* A stream stopped by a signal without a checkpoint: each named regular
 * file (still the one read) that holds bytes past the last record
 * applied is said, as those bytes (an unfinished line, or the rest of a
 * file read as it was caught up on) are in no row. With a checkpoint,
 * the next run reads them. */
void
stream_interrupted(struct run *r)
{
	const struct input_pos *pos;
	const char *name;
	int i, n;
	struct stat sb;

	if (r->c->mode == MODE_BATCH || r->c->checkpoint != NULL ||
	    run_signal() == 0 || (pos = input_positions(r->in)) == NULL)
		return;
	n = input_nfiles(r->in);
	for (i = 0; i < n; i++) {
		name = input_name(r->in, i);
		if (!pos[i].ip_isreg || strcmp(name, "-") == 0 ||
		    stat(name, &sb) != 0 ||
		    (uint64_t)sb.st_dev != pos[i].ip_dev ||
		    (uint64_t)sb.st_ino != pos[i].ip_ino ||
		    (uint64_t)sb.st_size <= pos[i].ip_off)
			continue;
		fwin_warn("%s: stopped by %s after line %llu (byte %llu of "
		    "%llu); the rest is not read", name,
		    signal_name(run_signal()),
		    (unsigned long long)pos[i].ip_lines,
		    (unsigned long long)pos[i].ip_off,
		    (unsigned long long)sb.st_size);
	}
}
