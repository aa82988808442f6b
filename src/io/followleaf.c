/* followleaf: one FILE followed, a leaf of follow.c (a stream of its
 * own, inputread.c). At its end (follow_eof(), inputbuf.c, looks), a
 * file truncated below what was read is read again from its start; a
 * new file under the name (logrotate's create) is opened once the old
 * one is read to its end; a file not there yet is waited for; and at a
 * restart the rotated copy that holds the checkpoint's bytes is found
 * and read to its end first. See inputint.h. */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/inputint.h"
#include "base/util.h"

/* Truncated in place: the bytes buffered (a line not ended yet) are gone
 * with the file's; it is read again from its start. With -H, a writer
 * that truncates (logrotate's copytruncate) goes on appending records,
 * or may write the header again: the first line is skipped when it is
 * the header, and else is a record. */
void
follow_rewind(struct input *in)
{
	in->rewind = 0;
	in->quick_until = 0;
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
	/* (a header not read yet is the first line still) */
	in->needhdr = in->o.header && in->hdr != HDR_HAVE;
	in->hdragain = in->o.header && in->hdr == HDR_HAVE;
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

/* dir/name, in malloc'd memory. */
static char *
beside(const char *dir, const char *name)
{
	char *path = xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(path, "%s/%s", dir, name);
	return path;
}

/* The rotated file beside path that holds the checkpoint's bytes: the
 * same inode first (renamed), else the same content (copied). Returns
 * its path (the caller frees it) or NULL. A position of 0 has no bytes
 * to know a copy by (every file holds them): only its inode tells. */
static char *
find_rotated(const char *path, const struct input_pos *p)
{
	const char *base;
	char *dir = split_path(path, &base), *cand, *found = NULL;
	struct dirent *de;
	DIR *d;
	int pass, last = p->ip_off > 0 ? 0 : 1;

	for (pass = 1; pass >= last && found == NULL; pass--) {
		if ((d = opendir(dir)) == NULL)
			break;
		while (found == NULL && (de = readdir(d)) != NULL) {
			if (!rotated_name(de->d_name, base))
				continue;
			cand = beside(dir, de->d_name);
			if (file_holds(cand, p, pass))
				found = cand;
			else
				free(cand);
		}
		closedir(d);
	}
	free(dir);
	return found;
}

/* A file rotated after another, and when it was last written. */
struct later {
	char *path;
	struct timespec mtime;
};

/* Times a and b in order: -1, 0 or 1. */
static int
time_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

static int
by_mtime(const void *a, const void *b)
{
	const struct later *x = a, *y = b;
	int c = time_cmp(&x->mtime, &y->mtime);

	return c != 0 ? c : strcmp(x->path, y->path);
}

/* The rotated files beside path written after the time after and that
 * are neither old (the rotated file a restart reads on from the
 * checkpoint's position, when it was found: after is its time) nor the
 * file under the name: rotated later than old, while fwin was not
 * running. They are read after old, oldest first (by the time each was
 * last written), each to its end, before the file under the name: a
 * restart after several rotations reads every record once. Only names
 * that logrotate numbers or dates count (a digit after the file's name
 * and its '.' or '-': app.log.2, app.log-20261202), not a copy a user
 * named (app.log.bak), whose records would be read twice. Compressed
 * ones cannot be read: each is said, with its records left out. */
static void
find_later(struct input *in, const char *path, const struct stat *old,
    const struct timespec *after)
{
	const char *base;
	char *dir = split_path(path, &base), *cand;
	struct later *l = NULL;
	struct stat sb, cur;
	struct dirent *de;
	size_t n = 0, cap = 0, i;
	int have_cur = stat(path, &cur) == 0, plain;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		plain = rotated_name(de->d_name, base);
		if ((!plain && !rotated_zipped(de->d_name, base)) ||
		    !isdigit((unsigned char)de->d_name[strlen(base) + 1]))
			continue;
		cand = beside(dir, de->d_name);
		if (stat(cand, &sb) != 0 || !S_ISREG(sb.st_mode) ||
		    (old != NULL && sb.st_dev == old->st_dev &&
		    sb.st_ino == old->st_ino) ||
		    (have_cur && sb.st_dev == cur.st_dev &&
		    sb.st_ino == cur.st_ino) ||
		    time_cmp(&sb.st_mtim, after) <= 0) {
			free(cand);
			continue;
		}
		if (!plain) {
			fwin_warn("%s: %s was rotated since the checkpoint and "
			    "is compressed; its records are not read", path,
			    cand);
			free(cand);
			continue;
		}
		xgrow(&l, &cap, n + 1, sizeof(*l));
		l[n].path = cand;
		l[n++].mtime = sb.st_mtim;
	}
	closedir(d);
	free(dir);
	if (n > 1)
		qsort(l, n, sizeof(*l), by_mtime);
	in->later = xcalloc(n ? n : 1, sizeof(*in->later));
	for (i = 0; i < n; i++)
		in->later[i] = l[i].path;
	in->nlater = (int)n;
	in->nextlater = 0;
	free(l);
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

/* The checkpoint's old file is gone (compressed or removed by a later
 * rotation: logrotate's delaycompress, rotated twice): the rotated files
 * written after the checkpoint was saved hold records fwin never read,
 * and are read (or, compressed, said) before the file under the name,
 * as they would be after the old one. */
static void
find_later_than_save(struct input *in, const char *path)
{
	struct timespec at;

	if (in->saved <= 0)
		return;
	at.tv_sec = in->saved / 1000000000;
	at.tv_nsec = in->saved % 1000000000;
	find_later(in, path, NULL, &at);
}

/*
 * A restart whose file is not the checkpoint's (rotated while fwin was
 * not running): the rotated file found beside it is opened to be read
 * from the checkpoint's position to its end, and the new file after it.
 * A position of 0 counts too: the file may have been written from its
 * start and rotated while fwin was stopped. Returns 1 when it was
 * opened, 0 to open the file under the name.
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
	if (in->nresume == 0 || !p->ip_isreg || file_holds(files[0], p, 1))
		return 0;
	free(in->oldpath);
	if ((in->oldpath = find_rotated(files[0], p)) == NULL) {
		/* what was past the position is gone with the old file,
		 * unless it is still there under another name, shrunk */
		fwin_warn("%s: rotated while stopped; any bytes written "
		    "after position %s of the old file are gone", files[0],
		    commas(p->ip_off, b));
		find_later_than_save(in, files[0]);
		in->nresume = 0;
		return 0;
	}
	if (stat(in->oldpath, &sb) == 0) {	/* (a copy: another inode) */
		p->ip_dev = sb.st_dev;
		p->ip_ino = sb.st_ino;
		find_later(in, files[0], &sb, &sb.st_mtim);
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

/* The next file rotated after the one a restart read on (find_later()),
 * opened to be read from its start to its end: 1, or 0 when none is
 * left to open. */
static int
open_later(struct input *in)
{
	char *const *files = in->files;
	int rc = 0;

	while (!rc && in->nextlater < in->nlater) {
		in->files = (char *const *)&in->later[in->nextlater++];
		in->fi = -1;
		rc = open_next(in);	/* (one that cannot be: said) */
		__atomic_store_n(&in->shown, in->skip, __ATOMIC_RELAXED);
		in->files = files;
	}
	in->readold = rc;
	return rc;
}

int
follow_reopen(struct input *in)
{
	struct stat sb;
	int rc;

	if (!in->oldlooked && open_rotated(in))
		return 1;
	if (open_later(in))
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
