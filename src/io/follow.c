/* follow: --follow, FILEs followed as tail -F follows them. The input of
 * the FILEs holds one input per FILE (a leaf, with the read buffer and
 * framer of its own, so that a line half written in one file never mixes
 * with another's); it reads them side by side, a record from each in
 * turn, and waits when every one is at its end. A leaf is a stream of
 * inputread.c, whose file followleaf.c reopens when it is truncated or
 * rotated. inotify(7) on the FILEs' directories wakes the wait at once;
 * every second the files are looked at anyway. See inputint.h. */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/inputint.h"
#include "base/util.h"

/* Watches the directory of each FILE: a change to a file in it, or one
 * created or moved in, wakes the wait. Without inotify, polling does. */
static void
watch_dirs(struct input *in)
{
	const uint32_t mask = IN_MODIFY | IN_CREATE | IN_MOVED_TO |
	    IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_CLOSE_WRITE;
	char *dir, *slash;
	int i;

	if ((in->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return;
	for (i = 0; i < in->nfiles; i++) {
		dir = xstrndup(in->files[i], strlen(in->files[i]));
		if ((slash = strrchr(dir, '/')) == NULL)
			strcpy(dir, ".");
		else if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		(void)inotify_add_watch(in->ino, dir, mask);
		free(dir);
	}
}

struct input *
follow_open(char *const *files, int nfiles, const struct input_opts *o)
{
	struct input_opts lo = *o;
	struct input *in;
	int i;

	lo.follow = 0;
	in = stream_open(files, nfiles, &lo);
	in->o.follow = 1;
	in->sub = xcalloc(in->nfiles, sizeof(struct input *));
	in->nsub = in->nfiles;
	in->cur = -1;
	for (i = 0; i < in->nsub; i++) {
		in->sub[i] = stream_open(files + i, 1, &lo);
		in->sub[i]->tail = 1;
	}
	watch_dirs(in);
	return in;
}

void
follow_close(struct input *in)
{
	int i;

	for (i = 0; i < in->nsub; i++)
		stream_close(in->sub[i]);
	free(in->oldpath);
	in->oldpath = NULL;
	free(in->sub);
	in->sub = NULL;
	in->nsub = 0;
	if (in->ino >= 0)
		close(in->ino);
	in->ino = -1;
}

int
input_source(const struct input *in, const char *file)
{
	int i, j;

	for (i = 0; i < in->nsub; i++)
		if (file == in->files[i])
			return i;
	/* (a rotated file read on at a restart, before the one named) */
	for (i = 0; i < in->nsub; i++) {
		if (file == in->sub[i]->oldpath)
			return i;
		for (j = 0; j < in->sub[i]->nlater; j++)
			if (file == in->sub[i]->later[j])
				return i;
	}
	return -1;
}

/* How far the reading of FILE i is behind the end of the file under
 * its name (while a renamed file is read to its end, against the new
 * one: an estimate), or -1 when there is none. Called from the driver, while the reading
 * thread may be reading: it takes only the position the reader shows. */
int64_t
input_behind(const struct input *in, int i)
{
	const struct input *leaf;
	struct stat sb;
	uint64_t at;

	if (i < 0 || i >= in->nsub)
		return -1;
	leaf = in->sub[i];
	at = __atomic_load_n(&leaf->shown, __ATOMIC_RELAXED);
	if (stat(in->files[i], &sb) != 0)
		return -1;
	return (uint64_t)sb.st_size > at ? (int64_t)(sb.st_size - at) : 0;
}

/* What inotify said is only a reason to look: it is read and dropped. */
static void
drain(struct input *in)
{
	char b[4096];

	if (in->ino >= 0)
		while (read(in->ino, b, sizeof(b)) > 0)
			;
}

int
follow_header(struct input *in, const struct field **names, size_t *n)
{
	int rc;

	drain(in);
	if ((rc = stream_header(in->sub[0], names, n)) == 1)
		in->sub[0]->hdrok = 1;
	return rc;
}

/* A leaf's header, once read, must be the first FILE's. */
static int
check_header(struct input *in, struct input *leaf)
{
	if (!in->o.header || leaf->hdrok || leaf->hdr != HDR_HAVE)
		return 0;
	if (!same_fields(in->sub[0]->hf, in->sub[0]->hnf, leaf->hf,
	    leaf->hnf)) {
		header_differs(leaf->files[0], leaf->hf, leaf->hnf,
		    in->sub[0]->hf, in->sub[0]->hnf);
		in->fatal = 1;
		return -1;
	}
	leaf->hdrok = 1;
	return 0;
}

/*
 * The next record of any FILE, taking each in turn after the one read
 * last, so that files that grow together are read together. Returns
 * INPUT_WAIT when every one is at its end, INPUT_END when none can be read
 * any more.
 */
int
follow_next(struct input *in, struct record *r)
{
	int i, k, rc, live = 0;

	drain(in);
	if (in->o.header && in->sub[0]->hdr == HDR_UNREAD) {
		const struct field *names;
		size_t n;

		if ((rc = follow_header(in, &names, &n)) != 1)
			return rc == 0 ? INPUT_END : rc;
	}
	for (k = 1; k <= in->nsub; k++) {
		i = (in->cur + k) % in->nsub;
		if (i < 0)
			i += in->nsub;
		rc = stream_next(in->sub[i], r);
		if (check_header(in, in->sub[i]) != 0)
			return -1;
		if (rc == INPUT_RECORD) {
			in->cur = in->outfi = i;
			return rc;
		}
		if (rc < 0) {
			in->fatal = 1;
			return -1;
		}
		live += rc == INPUT_WAIT;
	}
	return live > 0 ? INPUT_WAIT : INPUT_END;
}
