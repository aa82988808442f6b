/*
 * guard: the checks a run makes before it creates or changes anything.
 *
 * A path fwin writes is compared with every other path the run reads or
 * writes as the file it reaches: by device and inode when it exists (a
 * hard link or another spelling is the same file), else by its absolute
 * form once links are followed (two names of a file still to be made).
 * Devices, FIFOs and the like are left out: "-o /dev/stdout --late-file
 * /dev/stdout" writes both to one terminal, which destroys nothing.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/ckpt.h"
#include "run/guard.h"
#include "base/lock.h"
#include "base/util.h"

#define GUARD_MAX	6	/* --checkpoint, --restore, -o (a file, or
				   sqlite:), --late-file, --bad-file */

struct gpath {
	const char *opt;	/* the option; NULL for an input */
	const char *path;	/* as given; NULL for standard input */
	int writes;
	int exists, other;	/* other: exists, not a regular file */
	dev_t dev;
	ino_t ino;
	char *abs;		/* links followed, or NULL */
};

static void
identify(struct gpath *g)
{
	struct stat sb;
	int ok;

	ok = g->path == NULL ? fstat(0, &sb) == 0 : stat(g->path, &sb) == 0;
	g->abs = g->path != NULL ? lock_target(g->path) : NULL;
	g->exists = ok;
	g->other = ok && !S_ISREG(sb.st_mode);
	if (ok) {
		g->dev = sb.st_dev;
		g->ino = sb.st_ino;
	}
}

static int
same(const struct gpath *a, const struct gpath *b)
{
	if (a->other || b->other)
		return 0;
	if (a->exists && b->exists)
		return a->dev == b->dev && a->ino == b->ino;
	if (a->exists != b->exists)
		return 0;
	return a->abs != NULL && b->abs != NULL && strcmp(a->abs, b->abs) == 0;
}

/* The message for writer w and the path it clashes with, e. */
static char *
say(const struct gpath *w, const struct gpath *e)
{
	char *msg = NULL;
	int n;

	if (e->opt == NULL && e->path == NULL)
		n = asprintf(&msg, "%s names the file standard input reads "
		    "from", w->opt);
	else if (e->opt == NULL)
		n = asprintf(&msg, "%s names the input %s", w->opt, e->path);
	else if (!e->writes)
		n = asprintf(&msg, "%s names the %s checkpoint %s", w->opt,
		    e->opt, e->path);
	else
		n = asprintf(&msg, "%s and %s both name %s", w->opt, e->opt,
		    w->path);
	if (n < 0)
		fwin_oom();
	return msg;
}

/* Checks writer w against the inputs, then against the paths listed
 * after it (the checkpoint may be the restore's: that is --state). */
static char *
clash_of(const struct gpath *w, const struct gpath *ins, int nin,
    const struct gpath *more, int nmore, const char *ckpt_opt)
{
	int i;

	for (i = 0; i < nin; i++)
		if (same(w, &ins[i]))
			return say(w, &ins[i]);
	for (i = 0; i < nmore; i++) {
		if (w->opt == ckpt_opt && strcmp(more[i].opt, "--restore") == 0)
			continue;
		if (same(w, &more[i]))
			return say(w, &more[i]);
	}
	return NULL;
}

static void
add(struct gpath *out, int *n, const char *opt, const char *path, int writes)
{
	out[*n].opt = opt;
	out[*n].path = path;
	out[(*n)++].writes = writes;
}

char *
guard_clash(const struct config *c, int state)
{
	struct gpath out[GUARD_MAX], *ins;
	const char *ckopt = state ? "--state" : "--checkpoint";
	char *msg = NULL;
	int nin = c->nfiles > 0 ? c->nfiles : 1, nout = 0, i, stdin_seen = 0;

	memset(out, 0, sizeof(out));
	if (c->checkpoint != NULL)
		add(out, &nout, ckopt, c->checkpoint, 1);
	if (c->output != NULL)
		add(out, &nout, "-o", c->output, 1);
	if (c->sqlite != NULL)
		add(out, &nout, "-o sqlite:", c->sqlite, 1);
	if (c->late_file != NULL)
		add(out, &nout, "--late-file", c->late_file, 1);
	if (c->bad_file != NULL)
		add(out, &nout, "--bad-file", c->bad_file, 1);
	if (nout == 0)
		return NULL;
	/* read last: a writer is compared with those after it */
	if (c->restore != NULL && !state)
		add(out, &nout, "--restore", c->restore, 0);
	for (i = 0; i < nout; i++)
		identify(&out[i]);
	ins = xcalloc((size_t)nin, sizeof(*ins));
	for (i = 0; i < nin; i++) {
		const char *f = c->nfiles > 0 ? c->files[i] : "-";

		/* standard input counts once, when it is a file */
		if (strcmp(f, "-") == 0 && stdin_seen++ > 0) {
			ins[i].other = 1;
			continue;
		}
		ins[i].path = strcmp(f, "-") == 0 ? NULL : f;
		identify(&ins[i]);
	}
	for (i = 0; i < nout && msg == NULL; i++)
		if (out[i].writes)
			msg = clash_of(&out[i], ins, nin, out + i + 1,
			    nout - i - 1, ckopt);
	for (i = 0; i < nin; i++)
		free(ins[i].abs);
	for (i = 0; i < nout; i++)
		free(out[i].abs);
	free(ins);
	return msg;
}

/* Whether checkpoint path, of pipeline fp (freed), is another
 * pipeline's: 2 after the message that says what differs, else 0. */
static int
differs(const char *path, char *fp, const char *fingerprint)
{
	char *diff = config_fingerprint_diff(fp, fingerprint);

	free(fp);
	if (diff == NULL)
		return 0;
	fwin_warn("%s was made %s", path, diff);
	free(diff);
	return 2;
}

int
guard_checkpoint(const struct config *c, const char *fingerprint,
    int *replaced)
{
	const char *path = c->checkpoint, *why;
	struct stat sb, rb;
	char *fp;
	int rc;

	*replaced = 0;
	if (path == NULL)
		return 0;
	/* none yet (a link to a file still to be made is followed then) */
	if (stat(path, &sb) != 0 && errno == ENOENT)
		return 0;
	if (stat(path, &sb) != 0) {	/* one that cannot be checked */
		fwin_warn("%s: %s", path, strerror(errno));
		return 1;
	}
	if (!S_ISREG(sb.st_mode)) {
		fwin_warn("%s is %s, not an fwin checkpoint; name another file",
		    path, file_kind(sb.st_mode));
		return 1;
	}
	/* --state: what the restore would refuse, said as it says it, but
	 * before a lock is made (its payload's checksum is the restore's to
	 * verify, once) */
	if (c->restore != NULL && stat(c->restore, &rb) == 0 &&
	    rb.st_dev == sb.st_dev && rb.st_ino == sb.st_ino) {
		if (ckpt_peek(path, &fp, &why) != 0) {
			fwin_warn("%s: %s", path, why);
			return 1;
		}
		return differs(path, fp, fingerprint);
	}
	rc = ckpt_probe(path, &fp, &why);
	if (rc == 0) {
		fwin_warn("%s exists and is not an fwin checkpoint; remove it "
		    "or name another file", path);
		return 1;
	}
	if (rc == -2) {	/* (not fwin's to judge: its owner's) */
		fwin_warn("%s: %s", path, why);
		return 1;
	}
	if (rc < 0) {
		fwin_warn("%s: %s; remove it or name another file", path, why);
		return 1;
	}
	if ((rc = differs(path, fp, fingerprint)) != 0)
		return rc;
	*replaced = c->restore == NULL;
	return 0;
}

int
guard_outputs(const struct config *c)
{
	const char *opt[] = { "-o", "--late-file", "--bad-file" },
	    *path[] = { c->output, c->late_file, c->bad_file }, *why;
	struct stat sb;
	char *fp;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
		if (path[i] == NULL || stat(path[i], &sb) != 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		/* (damaged or whole, it is a checkpoint's) */
		if ((rc = ckpt_probe(path[i], &fp, &why)) == 1 || rc == -1) {
			free(fp);
			fwin_warn("%s names %s, an fwin checkpoint; name "
			    "another file", opt[i], path[i]);
			return 1;
		}
	}
	return 0;
}
