/* inputfiles: the FILE operands of the input — opened in turn, known by
 * their device, inode and a fingerprint of their content, and resumed at
 * the position a checkpoint recorded; see inputint.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/inputint.h"
#include "base/lock.h"
#include "base/util.h"

#define PIPE_WIDE	(1 << 20)

_Static_assert(INPUT_FPLEN <= HASH_RANGE_MAX, "fingerprint fits hash_range");

/* A pipe's buffer made PIPE_WIDE if it is smaller: a read then takes
 * up to that much, where a 64 KiB pipe gives 64 KiB a read(2) and wakes
 * its writer as often. Where the system does not allow it (a user's
 * pipes past their share), the pipe stays as it is. */
static void
pipe_widen(int fd)
{
	int sz = fcntl(fd, F_GETPIPE_SZ);

	if (sz > 0 && sz < PIPE_WIDE)
		(void)fcntl(fd, F_SETPIPE_SZ, PIPE_WIDE);
}

/* The fingerprint of fd's first off bytes (see struct input_pos). */
int
fingerprint(int fd, uint64_t off, uint64_t *head, uint64_t *tail)
{
	size_t n = off < INPUT_FPLEN ? (size_t)off : INPUT_FPLEN;

	return hash_range(fd, 0, n, head) == 0 &&
	    hash_range(fd, off - n, n, tail) == 0 ? 0 : -1;
}

/* Whether path holds the bytes the checkpoint consumed of its file (and
 * is that file, when inode is set). */
int
file_holds(const char *path, const struct input_pos *p, int inode)
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

/* Takes the open file's fingerprint, if it is a regular file that has
 * moved since the last one. */
void
take_fingerprint(struct input *in)
{
	struct input_pos *p;

	if (in->fd < 0 || !in->isreg || in->fi < 0)
		return;
	p = &in->ipos[in->fi];
	if (p->ip_off == in->fpat)
		return;
	p->ip_hashed = fingerprint(in->fd, p->ip_off, &p->ip_head,
	    &p->ip_tail) == 0;
	in->fpat = p->ip_hashed ? p->ip_off : UINT64_MAX;
}

/* Decides how much of the file just opened a resumed run skips. */
static void
plan_skip(struct input *in, const struct input_pos *p, const struct stat *sb)
{
	uint64_t head, tail;

	if (in->isreg && (p->ip_dev != (uint64_t)sb->st_dev ||
	    p->ip_ino != (uint64_t)sb->st_ino || !p->ip_isreg)) {
		fwin_warn("%s: not the file of the checkpoint; "
		    "reading it from the start", in->name);
		return;
	}
	if (in->isreg && (uint64_t)sb->st_size < p->ip_off) {
		fwin_warn("%s: shorter than its checkpoint position; "
		    "reading it from the start", in->name);
		return;
	}
	/* The same inode can hold another file's bytes: copy-truncated by
	 * logrotate and written again past the old position, or freed by a
	 * rotation and given to the file created next. */
	if (in->isreg && p->ip_hashed &&
	    fingerprint(in->fd, p->ip_off, &head, &tail) == 0) {
		if (head != p->ip_head) {
			fwin_warn("%s: not the file of the "
			    "checkpoint (the same inode, but its first bytes "
			    "differ: copy-truncated and written again, or "
			    "recreated); reading it from the start",
			    in->name);
			return;
		}
		if (tail != p->ip_tail) {
			fwin_warn("%s: not the file of the "
			    "checkpoint (its bytes before the checkpoint "
			    "position differ: rewritten); reading it from the "
			    "start", in->name);
			return;
		}
	}
	if (!in->isreg)
		fwin_warn("skipping %llu bytes of %s already "
		    "processed (--new-input reads it all)",
		    (unsigned long long)p->ip_off,
		    strcmp(in->name, "-") == 0 ? "standard input" : in->name);
	in->skip = p->ip_off;
	in->skiplines = p->ip_lines;
	in->quick_until = 0;
}

/* A regular file jumps to its resume position (after its header). */
void
seek_resume(struct input *in)
{
	if (lseek(in->fd, (off_t)in->skip, SEEK_SET) == -1) {
		report(in, errno);
		in->eof = 1;
		return;
	}
	in->pos = in->end = 0;
	in->eof = 0;
	quotes_moved(in);
	in->consumed = in->skip;
	in->lineno = in->skiplines;
	in->quick_until = 0;
	in->ipos[in->fi].ip_off = in->consumed;
	in->ipos[in->fi].ip_lines = in->lineno;
	in->skip = 0;
}

/* Opens the next file that can be opened. Returns 0 when none is left. */
int
open_next(struct input *in)
{
	struct stat sb;
	int i;

	for (i = in->fi + 1; i < in->nfiles; i++) {
		in->fi = i;
		in->name = in->files[i];
		in->lineno = in->consumed = in->quick_until = 0;
		in->pos = in->end = 0;
		in->eof = 0;
		in->needhdr = in->o.header;
		quotes_moved(in);
		if (strcmp(in->name, "-") == 0 && std_closed(0)) {
			report(in, EBADF);	/* (/dev/null holds it) */
			continue;
		} else if (strcmp(in->name, "-") == 0) {
			in->fd = 0;
			in->fdown = 0;
		} else if ((in->fd = open(in->name, O_RDONLY | O_CLOEXEC)) ==
		    -1) {
			report(in, errno);
			continue;
		} else
			in->fdown = 1;
		in->isreg = fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode);
		if (!in->isreg && S_ISFIFO(sb.st_mode))
			pipe_widen(in->fd);
		in->ipos[i].ip_dev = sb.st_dev;
		in->ipos[i].ip_ino = sb.st_ino;
		in->ipos[i].ip_isreg = in->isreg;
		in->ipos[i].ip_hashed = 0;
		in->fpat = UINT64_MAX;
		in->qsuspect = 0;
		in->skip = in->skiplines = 0;
		if (i < in->nresume && in->resume[i].ip_off > 0)
			plan_skip(in, &in->resume[i], &sb);
		/* until it is read: what the checkpoint had, or nothing */
		in->ipos[i].ip_off = in->skip;
		in->ipos[i].ip_lines = in->skiplines;
		return 1;
	}
	return 0;
}

void
close_file(struct input *in)
{
	take_fingerprint(in);
	if (in->fdown)
		close(in->fd);
	in->fd = -1;
	in->fdown = 0;
	in->quick_until = 0;
	in->pos = in->end = 0;
}

int
input_nfiles(const struct input *in)
{
	return in->nfiles;
}

const char *
input_name(const struct input *in, int i)
{
	return in->files[i];
}

uint64_t
input_bytes(const struct input *in)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < in->nsub; i++)
		n += in->sub[i]->ipos[0].ip_off;
	for (i = 0; i < in->nfiles && in->nsub == 0; i++)
		n += in->ipos[i].ip_off;
	return n;
}

const struct input_pos *
input_positions(struct input *in)
{
	int i;

	for (i = 0; i < in->nsub; i++)	/* --follow: each FILE's leaf */
		in->ipos[i] = input_positions(in->sub[i])[0];
	take_fingerprint(in);
	return in->ipos;
}

/* A name logrotate gives a rotated copy of base: base.N, base-DATE and
 * the like: 0 for none, 1 for one that can be read, 2 for a compressed
 * one (which cannot be read where it stands). */
static int
rotation_of(const char *name, const char *base)
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
			return 2;
	}
	return 1;
}

int
rotated_name(const char *name, const char *base)
{
	return rotation_of(name, base) == 1;
}

int
rotated_zipped(const char *name, const char *base)
{
	return rotation_of(name, base) == 2;
}

/* Whether FILE operand path, of stat(2) sb, is the file of checkpoint
 * entry p: that file still, by its device and inode. */
static int
same_file(const char *path, const struct stat *sb, const struct input_pos *p)
{
	return S_ISREG(sb->st_mode) && p->ip_isreg &&
	    p->ip_dev == (uint64_t)sb->st_dev &&
	    p->ip_ino == (uint64_t)sb->st_ino && file_holds(path, p, 1);
}

/* Or a copy of it (logrotate's copytruncate): under a name given to
 * rotated copies of name, with the same bytes before the position. */
static int
copy_of(const char *path, const struct stat *sb, const struct input_pos *p,
    const char *name)
{
	return S_ISREG(sb->st_mode) && p->ip_isreg && p->ip_hashed &&
	    rotated_name(path, name) && file_holds(path, p, 0);
}

/* FILE operand j resumes checkpoint entry i. */
static void
take(struct input_pos *want, char *has, char *taken, int j, int i,
    const struct input_pos *pos)
{
	want[j] = pos[i];
	has[j] = taken[i] = 1;
}

/* A FILE operand's name as the match compares it: absolute, its
 * directory resolved ("./app.log" and "app.log" alike), in malloc'd
 * memory; as given where that fails. */
static char *
match_name(const char *name)
{
	char *abs = strcmp(name, "-") != 0 ? lock_abspath(name) : NULL;

	return abs != NULL ? abs : xstrdup(name);
}

struct input_pos *
input_match(const struct input *in, const struct input_pos *pos,
    const char *const *given, int n)
{
	struct input_pos *want = xcalloc(in->nfiles, sizeof(*want));
	struct stat *sb = xcalloc(in->nfiles, sizeof(*sb));
	char *has = xcalloc(in->nfiles, 1), *taken = xcalloc(n + 1, 1);
	char **files = xcalloc(in->nfiles + 1, sizeof(*files));
	char **names = xcalloc(n + 1, sizeof(*names));
	int i, j;

	for (j = 0; j < in->nfiles; j++)
		files[j] = match_name(in->files[j]);
	for (i = 0; i < n; i++)
		names[i] = match_name(given[i]);
	for (j = 0; j < in->nfiles; j++)
		if (strcmp(in->files[j], "-") == 0 ||
		    stat(in->files[j], &sb[j]) != 0)
			sb[j].st_mode = 0;	/* known by its place only */
	/* the entry in its place, when it is its file still */
	for (j = 0; j < in->nfiles && j < n; j++)
		if (same_file(in->files[j], &sb[j], &pos[j]))
			take(want, has, taken, j, j, pos);
	/* the others: the entry of its file, wherever it was */
	for (j = 0; j < in->nfiles; j++)
		for (i = 0; i < n && !has[j]; i++)
			if (!taken[i] &&
			    same_file(in->files[j], &sb[j], &pos[i]))
				take(want, has, taken, j, i, pos);
	/* of the file it is a copy of, as that copy */
	for (j = 0; j < in->nfiles; j++)
		for (i = 0; i < n && !has[j]; i++)
			if (!taken[i] &&
			    copy_of(files[j], &sb[j], &pos[i], names[i])) {
				take(want, has, taken, j, i, pos);
				want[j].ip_dev = sb[j].st_dev;
				want[j].ip_ino = sb[j].st_ino;
			}
	/* of its name (a file rotated since); last the one in its place */
	for (j = 0; j < in->nfiles; j++)
		for (i = 0; i < n && !has[j]; i++)
			if (!taken[i] && strcmp(in->files[j], "-") != 0 &&
			    strcmp(files[j], names[i]) == 0)
				take(want, has, taken, j, i, pos);
	for (j = 0; j < in->nfiles && j < n; j++)
		if (!has[j] && !taken[j])
			take(want, has, taken, j, j, pos);
	for (j = 0; j < in->nfiles; j++)
		free(files[j]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(files);
	free(names);
	free(sb);
	free(has);
	free(taken);
	return want;
}

void
input_resume(struct input *in, const struct input_pos *pos, int n)
{
	int i;

	for (i = 0; i < in->nsub && i < n; i++)
		input_resume(in->sub[i], &pos[i], 1);
	free(in->resume);
	in->resume = xrealloc(NULL, (n > 0 ? n : 1) * sizeof(*pos));
	memcpy(in->resume, pos, n * sizeof(*pos));
	in->nresume = n;
	/* A FILE that this run does not get to (it cannot be opened, or the
	 * run stops before it) keeps its position: a later run must not
	 * read it again from the start. */
	memcpy(in->ipos, pos, (n < in->nfiles ? n : in->nfiles) * sizeof(*pos));
}

void
input_resume_saved(struct input *in, int64_t saved)
{
	int i;

	for (i = 0; i < in->nsub; i++)
		input_resume_saved(in->sub[i], saved);
	in->saved = saved;
}

int
input_failed(const struct input *in)
{
	int i;

	for (i = 0; i < in->nsub; i++)
		if (in->sub[i]->failed)
			return 1;
	return in->failed;
}

int
input_file_index(const struct input *in)
{
	return in->outfi;
}

uint64_t
input_offset(const struct input *in)
{
	if (in->sub != NULL)
		return in->sub[in->outfi]->outoff;
	return in->outoff;
}
