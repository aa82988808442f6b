/* persist: checkpoint scheduling, save and restore; see persist.h. */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/ckpt.h"
#include "base/lock.h"
#include "run/persist.h"
#include "base/util.h"

void
persist_init(struct persist *p, const struct config *c,
    const char *fingerprint, int64_t now)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->fingerprint = fingerprint;
	p->save_check = c->ckpt_every_n > 0 ? c->ckpt_every_n : 1024;
	p->next_save = sat_add(now, c->ckpt_every_ns);
	p->outlen = p->latelen = CK_NONE;
}

/* The length of the file open on fd, or CK_NONE without one. */
static uint64_t
file_length(int fd)
{
	struct stat sb;

	if (fd < 0 || fstat(fd, &sb) != 0)
		return CK_NONE;
	return (uint64_t)sb.st_size;
}

void
persist_reap(struct persist *p, int block)
{
	pid_t got;
	int st;

	if (p->saver <= 0)
		return;
	/* a stop signal interrupts the wait (no SA_RESTART): wait again,
	 * for the writer is still at work, not dead */
	while ((got = waitpid(p->saver, &st, block ? 0 : WNOHANG)) < 0 &&
	    errno == EINTR)
		;
	if (got == 0)
		return;
	if (got < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (got < 0)
			fwin_warn("%s: checkpoint writer: %s",
			    p->c->checkpoint, strerror(errno));
		else if (!WIFEXITED(st))
			fwin_warn("%s: checkpoint writer died", p->c->checkpoint);
		p->failed = 1;
	}
	p->saver = 0;
}

/*
 * Output first (the checkpoint records how long it is), then the state
 * with the input positions it reflects. In the background a fork(2) child
 * writes the snapshot from copy-on-write memory while fwin goes on, as
 * Redis's BGSAVE does; the state is private memory (anonymous, or a
 * MAP_PRIVATE file mapping), so the child sees it frozen at the fork.
 * The caller has flushed its output buffers.
 */
int
persist_save(struct persist *p, struct op *o, const struct persist_files *f,
    int background)
{
	const struct config *c = p->c;
	struct state *s = op_state(o);
	struct ckpt_meta m;
	const char **names;
	int i, n = input_nfiles(f->in), rc;

	if (st_check_all(s) != 0)	/* a restored key is saved only checked */
		return -1;
	/* rows before state: a power loss must not leave a checkpoint that
	 * counts rows the output file lost */
	if ((c->output != NULL && fdatasync(f->outfd) != 0 && errno != EINVAL) ||
	    (f->latefd >= 0 && fdatasync(f->latefd) != 0 && errno != EINVAL)) {
		fwin_warn("cannot sync output: %s", strerror(errno));
		return -1;
	}
	names = xmalloc(n * sizeof(*names));
	for (i = 0; i < n; i++)
		names[i] = input_name(f->in, i);
	memset(&m, 0, sizeof(m));
	m.generation = p->generation + 1;
	m.outlen = c->output != NULL ? file_length(f->outfd) : CK_NONE;
	m.latelen = f->latefd >= 0 ? file_length(f->latefd) : CK_NONE;
	/* the tails a restore checks before it truncates */
	if (m.outlen != CK_NONE &&
	    ckpt_tail_hash(f->outfd, m.outlen, &m.outhash) == 0)
		m.flags |= CKF_OUTHASH;
	if (m.latelen != CK_NONE &&
	    ckpt_tail_hash(f->latefd, m.latelen, &m.latehash) == 0)
		m.flags |= CKF_LATEHASH;
	if (c->sqlite != NULL) {	/* committed before: flushed */
		m.outlen = f->dbpos;
		m.flags |= CKF_DBPOS;
	}
	m.saved = now_ns();
	m.fingerprint = p->fingerprint;
	m.inputs = input_positions(f->in);
	m.ninputs = n;
	m.names = names;
	if (background) {
		pid_t parent = getpid(), pid = fork();

		if (pid == 0) {
			/* die with fwin: a stale writer must not rename
			 * an old snapshot over a newer run's */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			_exit(ckpt_save(p->savepath, &s->a, &m) == 0 ? 0 : 1);
		}
		if (pid > 0) {
			free(names);
			p->saver = pid;
			p->generation++;
			return 0;
		}
		/* no fork: save in the foreground */
	}
	rc = ckpt_save(p->savepath, &s->a, &m);
	free(names);
	if (rc == 0)
		p->generation++;
	return rc;
}

int
persist_due(struct persist *p, int64_t now)
{
	const struct config *c = p->c;

	if (c->checkpoint == NULL || c->ckpt_every_n > 0)
		return 0;
	if (now < p->next_save)
		return 0;
	p->next_save = sat_add(now, c->ckpt_every_ns);
	return 1;
}

int
persist_lock(struct persist *p, const char **restore)
{
	const struct config *c = p->c;
	struct stat sb;

	/* -o sqlite: one fwin writes a table and its journal, with a
	 * checkpoint or without, as one writes an -o FILE (a run without
	 * would mix its rows into a checkpointed run's, whose restore puts
	 * back what its journal holds over them); the lock is the table's
	 * ("DB:TABLE.lock" beside DB), so that other tables of the
	 * database stay free for other pipelines */
	if (c->sqlite != NULL) {
		char *t;

		if (asprintf(&p->sqlname, "%s:%s", c->sqlite,
		    c->sqlite_table) < 0)
			fwin_oom();
		/* SQLite's names are one in any case of ASCII: so is
		 * the lock */
		for (t = p->sqlname + strlen(c->sqlite) + 1; *t != '\0'; t++)
			if (*t >= 'A' && *t <= 'Z')
				*t = (char)(*t - 'A' + 'a');
	}
	/* a lock file that is not fwin's is said before any is made */
	if ((c->checkpoint != NULL && lock_check(c->checkpoint) != 0) ||
	    (c->output != NULL && lock_check(c->output) != 0) ||
	    (p->sqlname != NULL && lock_check(p->sqlname) != 0))
		return 1;
	/* an -o that is another checkpoint's is said before any lock file
	 * is made (and again, if it became so meanwhile, under the lock); a
	 * restoring run says first what is wrong with its checkpoint */
	if (c->output != NULL && c->restore == NULL &&
	    lock_peek_claim(c->output, c->checkpoint, NULL) != 0)
		return 1;
	if (c->checkpoint != NULL && (p->ckl = lock_take(c->checkpoint)) == NULL)
		return 1;
	/* --state: whether there is a checkpoint to restore is known under
	 * its lock only; a run that started while another made the first
	 * one (cron overlapping) continues it, and does not read its input
	 * again from the start over it */
	if (c->state && c->checkpoint != NULL) {
		*restore = stat(c->checkpoint, &sb) == 0 ? c->checkpoint : NULL;
		if (*restore != NULL)
			p->replaced = 0;
	}
	/* a save through a link replaces the link's target, not the link */
	if (c->checkpoint != NULL) {
		p->savepath = lstat(c->checkpoint, &sb) == 0 &&
		    S_ISLNK(sb.st_mode) ? lock_target(c->checkpoint) :
		    strdup(c->checkpoint);
		if (p->savepath == NULL) {
			fwin_warn("%s: %s", c->checkpoint, strerror(errno));
			return 1;
		}
	}
	/* every run that writes -o locks it: two writers would interleave
	 * rows, and a checkpointed one's restore would cut the other's */
	if (c->output != NULL && (p->outl = lock_take(c->output)) == NULL)
		return 1;
	if (p->sqlname != NULL && (p->outl = lock_take(p->sqlname)) == NULL)
		return 1;
	/* a restoring run claims -o once its checkpoint is verified */
	if (c->restore == NULL && p->outl != NULL &&
	    lock_claim(p->outl, c->checkpoint, NULL) != 0)
		return 1;
	/* said once the run is sure to go on: the lock is ours */
	if (p->replaced)
		fwin_warn("%s: its earlier state is replaced (--state continues "
		    "it)", c->checkpoint);
	return 0;
}

/*
 * The -o file's lock marks the end of the run that wrote it last with
 * the checkpoint it saved after its last row (lock_mark_end): when that
 * is the checkpoint restored, bytes past its length are another
 * program's, and a restore must not cut them. (Bytes past the length of
 * a checkpoint whose run went on writing are that run's rows, cut.)
 * Returns 0, or -1 after a message.
 */
static int
added_after_end(const struct persist *p, const struct ckpt_meta *m)
{
	const struct config *c = p->c;
	struct stat sb;

	uint64_t len;

	if (c->output == NULL || m->outlen == CK_NONE ||
	    lock_ended(p->outl, &len) != m->generation ||
	    stat(c->output, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size <= len)
		return 0;
	fwin_warn("%s: %llu bytes were added after the run that saved %s "
	    "ended; not truncating it", c->output,
	    (unsigned long long)((uint64_t)sb.st_size - len), c->restore);
	return -1;
}

int
persist_open(struct persist *p, struct input *in)
{
	const struct config *c = p->c;
	const struct ckpt_meta *m;
	struct input_pos *pos;
	char *diff;

	if ((p->ck = ckpt_open(c->restore)) == NULL)
		return 1;
	m = ckpt_meta(p->ck);
	if ((diff = config_fingerprint_diff(m->fingerprint,
	    p->fingerprint)) != NULL) {
		fwin_warn("%s was made %s", c->restore, diff);
		free(diff);
		return 2;
	}
	/* restore truncates only the files the checkpoint measured, and
	 * the -o file stays its checkpoint's */
	if (ckpt_check_outputs(p->ck, c->output, c->late_file) != 0 ||
	    added_after_end(p, m) != 0 || (p->outl != NULL &&
	    lock_claim(p->outl, c->checkpoint, c->restore) != 0))
		return 1;
	if (!c->new_input) {
		pos = input_match(in, m->inputs, m->names, m->ninputs);
		input_resume(in, pos, input_nfiles(in));
		input_resume_saved(in, m->saved);
		free(pos);
	}
	p->generation = m->generation;
	p->outlen = m->outlen;
	p->latelen = m->latelen;
	return 0;
}

int
persist_writing(struct persist *p)
{
	return p->c->output != NULL ? lock_mark_end(p->outl, 0, 0) : 0;
}

int
persist_ended(struct persist *p)
{
	struct stat sb;

	/* (its messages may follow its rows there: 2>>FILE) */
	if (p->c->output == NULL || !p->saved_last ||
	    stat(p->c->output, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	return lock_mark_end(p->outl, p->generation, (uint64_t)sb.st_size);
}

int
persist_adopt(struct persist *p, struct op *o)
{
	const char *restore = p->c->restore, *why;
	struct arena a;
	uint64_t used = ckpt_take_arena(p->ck, &a);

	ckpt_close(p->ck);
	p->ck = NULL;
	if ((why = op_adopt(o, &a, used)) != NULL) {
		fwin_warn("%s: corrupt state: %s", restore, why);
		arena_fini(&a);
		return 1;
	}
	/* the state is o's now: op_free frees it */
	if (op_globals(o)->g_timefmt > TF_STRPTIME) {
		fwin_warn("%s: corrupt state: bad time format", restore);
		return 1;
	}
	/* --flush ended the stream: the watermark lies past every time, so
	 * no -l can keep what comes after (said once, not per record) */
	if (op_uses_watermark(o) && op_globals(o)->g_wm == INT64_MAX)
		fwin_warn("%s: its stream was ended by --flush, so every record "
		    "after it is late (--flush is for the last run of a "
		    "series)", restore);
	return 0;
}

void
persist_fini(struct persist *p)
{
	persist_reap(p, 1);
	ckpt_close(p->ck);
	p->ck = NULL;
	lock_release(p->outl);
	lock_release(p->ckl);
	p->outl = p->ckl = NULL;
	free(p->savepath);
	p->savepath = NULL;
	free(p->sqlname);
	p->sqlname = NULL;
}

int
persist_truncate(const char *path, uint64_t len)
{
	struct stat sb;

	if (path == NULL || len == CK_NONE)
		return 0;
	if (stat(path, &sb) != 0 || (uint64_t)sb.st_size < len) {
		fwin_warn("%s: shorter than its checkpoint length %llu; left as "
		    "it is", path, (unsigned long long)len);
		return 0;
	}
	if (S_ISREG(sb.st_mode) && truncate(path, (off_t)len) != 0) {
		fwin_warn("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
