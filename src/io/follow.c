/* follow: --follow, FILEs followed as tail -F follows them. The input of
 * the FILEs holds one input per FILE (a leaf, with the read buffer and
 * framer of its own, so that a line half written in one file never mixes
 * with another's); it reads them side by side, a record from each in
 * turn, and waits when every one is at its end. A leaf at its end looks
 * at its file's name: a file truncated below what was read is read again
 * from its start; a new file under the name (logrotate's create) is
 * opened once the old one is read to its end, which the leaf still
 * holds open. inotify(7) on the FILEs' directories wakes the wait at
 * once; every second the files are looked at anyway. See inputint.h. */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
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
	in = input_open(files, nfiles, &lo);
	in->o.follow = 1;
	in->sub = xcalloc(in->nfiles, sizeof(struct input *));
	in->nsub = in->nfiles;
	in->cur = -1;
	for (i = 0; i < in->nsub; i++) {
		in->sub[i] = input_open(files + i, 1, &lo);
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
		input_close(in->sub[i]);
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
	int i;

	for (i = 0; i < in->nsub; i++)
		if (file == in->files[i])
			return i;
	/* (a rotated file read on at a restart, before the one named) */
	for (i = 0; i < in->nsub; i++)
		if (file == in->sub[i]->oldpath)
			return i;
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
follow_eof(struct input *in)
{
	struct stat fsb, nsb;
	off_t at = lseek(in->fd, 0, SEEK_CUR);

	if (at == -1 || fstat(in->fd, &fsb) != 0)
		return FOLLOW_WAIT;
	if (fsb.st_size > at)	/* written since read(2) looked */
		return FOLLOW_MORE;
	if (in->readold) {	/* rotated while stopped: its rest is read */
		in->readold = 0;
		in->rotated = 1;
		in->o.hold_partial = 0;
		return FOLLOW_END;
	}
	if (fsb.st_size < at) {
		fwin_warn("%s: truncated; reading it again from its start",
		    in->name);
		in->rewind = 1;
		return FOLLOW_WAIT;
	}
	/* Renamed away or removed, and no new file yet: the old one may
	 * still grow (a writer that has not reopened), so it is kept. */
	if (stat(in->name, &nsb) != 0 || (nsb.st_dev == fsb.st_dev &&
	    nsb.st_ino == fsb.st_ino))
		return FOLLOW_WAIT;
	/* A new file under the name: the old one ends here, and its last
	 * line, even without its newline, is a record. */
	in->rotated = 1;
	in->o.hold_partial = 0;
	return FOLLOW_END;
}

/* Truncated in place: the bytes buffered (a line not ended yet) are gone
 * with the file's; it is read again from its start, header included. */
void
follow_rewind(struct input *in)
{
	in->rewind = 0;
	if (lseek(in->fd, 0, SEEK_SET) == -1) {
		report(in, errno);
		in->ended = 1;
		close_file(in);
		return;
	}
	in->pos = in->end = 0;
	quotes_moved(in);
	if (in->csvready)
		csv_reset(in);
	in->consumed = in->lineno = 0;
	in->qsuspect = 0;
	in->needhdr = in->o.header;
	in->ipos[0].ip_off = in->ipos[0].ip_lines = 0;
	in->fpat = UINT64_MAX;
	__atomic_store_n(&in->shown, 0, __ATOMIC_RELAXED);
}

/* The directory of path (".", "/" or its part before the last '/'),
 * and its last part. */
static char *
split_path(const char *path, const char **base)
{
	char *dir = xstrndup(path, strlen(path)), *slash;

	*base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	if ((slash = strrchr(dir, '/')) == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

/* Whether path holds the bytes the checkpoint consumed of its file (and
 * is that file, when inode is set). */
static int
holds(const char *path, const struct input_pos *p, int inode)
{
	struct stat sb;
	uint64_t head, tail;
	int fd, ok;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size < p->ip_off)
		return 0;
	if (inode && (p->ip_dev != (uint64_t)sb.st_dev ||
	    p->ip_ino != (uint64_t)sb.st_ino))
		return 0;
	if (!p->ip_hashed)	/* nothing to know it by but its inode */
		return inode;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	ok = fingerprint(fd, p->ip_off, &head, &tail) == 0 &&
	    head == p->ip_head && tail == p->ip_tail;
	close(fd);
	return ok;
}

/* A name logrotate gives a rotated copy of base: base.N, base-DATE and
 * the like, not compressed (those cannot be read where they stand). */
static int
rotated_name(const char *name, const char *base)
{
	static const char *const zipped[] = { ".gz", ".bz2", ".xz", ".zst",
	    ".Z", ".lz4", ".lzma", ".lz", ".zip" };
	size_t n = strlen(base), len = strlen(name), i, zn;

	if (strncmp(name, base, n) != 0 || (name[n] != '.' && name[n] != '-') ||
	    name[n + 1] == '\0')
		return 0;
	for (i = 0; i < sizeof(zipped) / sizeof(zipped[0]); i++) {
		zn = strlen(zipped[i]);
		if (len > zn && strcmp(name + len - zn, zipped[i]) == 0)
			return 0;
	}
	return 1;
}

/* The rotated file beside path that holds the checkpoint's bytes: the
 * same inode first (renamed), else the same content (copied). Returns
 * its path (the caller frees it) or NULL. */
static char *
find_rotated(const char *path, const struct input_pos *p)
{
	const char *base;
	char *dir = split_path(path, &base), *cand, *found = NULL;
	struct dirent *de;
	DIR *d;
	int pass;

	for (pass = 1; pass >= 0 && found == NULL; pass--) {
		if ((d = opendir(dir)) == NULL)
			break;
		while (found == NULL && (de = readdir(d)) != NULL) {
			if (!rotated_name(de->d_name, base))
				continue;
			cand = xmalloc(strlen(dir) + strlen(de->d_name) + 2);
			sprintf(cand, "%s/%s", dir, de->d_name);
			if (holds(cand, p, pass))
				found = cand;
			else
				free(cand);
		}
		closedir(d);
	}
	free(dir);
	return found;
}

/* n with a comma every three digits, as the message writes sizes. */
static const char *
commas(uint64_t n, char buf[32])
{
	char tmp[24];
	int len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	int i, j = 0;

	for (i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = tmp[i];
	}
	buf[j] = '\0';
	return buf;
}

/*
 * A restart whose file is not the checkpoint's (rotated while fwin was
 * not running): the rotated file found beside it is opened to be read
 * from the checkpoint's position to its end, and the new file after it.
 * Returns 1 when it was opened, 0 to open the file under the name.
 */
static int
open_rotated(struct input *in)
{
	struct input_pos *p = &in->resume[0];
	char *const *files = in->files;
	char b[32];
	struct stat sb;
	int rc;

	in->oldlooked = 1;
	if (in->nresume == 0 || p->ip_off == 0 || !p->ip_isreg ||
	    holds(files[0], p, 1))
		return 0;
	free(in->oldpath);
	if ((in->oldpath = find_rotated(files[0], p)) == NULL) {
		/* what was past the position is gone with the old file,
		 * unless it is still there under another name, shrunk */
		fwin_warn("%s: rotated while stopped; the bytes after "
		    "position %s of the old file are gone", files[0],
		    commas(p->ip_off, b));
		in->nresume = 0;
		return 0;
	}
	if (stat(in->oldpath, &sb) == 0) {	/* (a copy: another inode) */
		p->ip_dev = sb.st_dev;
		p->ip_ino = sb.st_ino;
	}
	in->files = (char *const *)&in->oldpath;
	in->fi = -1;
	rc = open_next(in);
	__atomic_store_n(&in->shown, in->skip, __ATOMIC_RELAXED);
	in->files = files;
	in->nresume = 0;
	in->readold = rc;
	return rc ? 1 : 0;
}

int
follow_reopen(struct input *in)
{
	struct stat sb;
	int rc;

	if (!in->oldlooked && open_rotated(in))
		return 1;
	if (stat(in->files[0], &sb) != 0 && errno == ENOENT) {
		if (!in->missing)
			fwin_warn("%s: %s; waiting for it", in->files[0],
			    strerror(errno));
		in->missing = 1;
		return 0;
	}
	in->missing = 0;
	in->fi = -1;
	rc = open_next(in);
	__atomic_store_n(&in->shown, in->skip, __ATOMIC_RELAXED);
	in->nresume = 0;	/* a checkpoint's position is the first file's */
	return rc ? 1 : -1;
}

/* Whether two header rows name the same fields. */
static int
same_names(const struct input *a, const struct input *b)
{
	size_t i;

	if (a->hnf != b->hnf)
		return 0;
	for (i = 0; i < a->hnf; i++)
		if (a->hf[i].n != b->hf[i].n ||
		    memcmp(a->hf[i].p, b->hf[i].p, a->hf[i].n) != 0)
			return 0;
	return 1;
}

int
follow_header(struct input *in, const struct field **names, size_t *n)
{
	int rc;

	drain(in);
	if ((rc = input_header(in->sub[0], names, n)) == 1)
		in->sub[0]->hdrok = 1;
	return rc;
}

/* A leaf's header, once read, must be the first FILE's. */
static int
check_header(struct input *in, struct input *leaf)
{
	if (!in->o.header || leaf->hdrok || leaf->hdr != HDR_HAVE)
		return 0;
	if (!same_names(in->sub[0], leaf)) {
		fwin_warn("%s: header differs from the first file's",
		    leaf->files[0]);
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
		rc = input_next(in->sub[i], r);
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
