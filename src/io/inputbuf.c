/*
 * inputbuf: the read buffer (inputint.h).
 *
 * Every byte goes through one buffer, filled with read(2). A record cut
 * by the end of the buffer is moved to the front before the next read;
 * one that fills the buffer doubles it, up to RECMAX. find_eol() finds a
 * line's end, reading as needed; consume() (inputint.h) steps past what
 * a framer took. When read(2) on a followed file returns 0, follow_eof() looks at
 * whether it grew, was truncated or was renamed away.
 *
 * The lowest part of the input: the framers (inputread.c, inputcsv.c),
 * the FILE operands (inputfiles.c) and the followed files (followleaf.c)
 * call it, and it calls none of them.
 */

#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/inputint.h"
#include "base/util.h"

void
report(struct input *in, int errnum)
{
	fwin_warn("%s: %s", in->name, strerror(errnum));
	in->failed = 1;
}

/* Forgets where the quote cache points, and the structural bytes found
 * ahead: the buffer's bytes moved. */
void
quotes_moved(struct input *in)
{
	in->qat = NOQUOTE;
	in->qlim = 0;
	in->sat = SAT_FAR;
}

/*
 * Reads more of the current file, after moving the unconsumed bytes to the
 * front of the buffer (doubling it when they fill it). Returns FILL_MORE
 * when bytes were added, FILL_EOF at end of file, FILL_ERR after a read
 * error (the file is then abandoned: its buffered bytes dropped, eof set,
 * the error reported), or, unless block is set, FILL_WAIT when the input
 * may wait (see may_wait) and the read would block.
 */
int
fill(struct input *in, int block)
{
	struct pollfd pfd;
	size_t n = in->end - in->pos;
	ssize_t r;
	int rc = FILL_MORE;

	in->sat = SAT_FAR;	/* (the buffer may move, or start again) */
	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, n);
		in->pos = 0;
		in->end = n;
		quotes_moved(in);
	}
	if (n == 0 && in->cap > BUF_SHRINK) {
		free(in->buf);
		in->cap = BUF_INIT;
		in->buf = xrealloc(NULL, in->cap + SLACK);
	}
	if (in->end == in->cap) {
		/* Callers stop a record at RECMAX before it gets here. */
		if (in->cap >= BUF_MAX)
			abort();
		in->cap = in->cap * 2 > BUF_MAX ? BUF_MAX : in->cap * 2;
		in->buf = xrealloc(in->buf, in->cap + SLACK);
	}
	if (!block && !in->isreg && in->o.may_wait) {
		pfd.fd = in->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) <= 0)	/* EINTR too: the caller waits */
			return FILL_WAIT;
	}
	for (;;) {
		r = read(in->fd, in->buf + in->end, in->cap - in->end);
		if (r > 0)
			in->end += r;
		else if (r == 0 && in->tail && in->isreg &&
		    (rc = follow_eof(in)) != FOLLOW_END) {
			if (rc == FOLLOW_MORE) {
				rc = FILL_MORE;
				continue;
			}
			rc = FILL_WAIT;
		} else if (r == 0) {
			in->eof = 1;
			rc = FILL_EOF;
		} else if (errno == EINTR)
			continue;
		else if (errno == EAGAIN) {
			/* A descriptor someone else made non-blocking. */
			pfd.fd = in->fd;
			pfd.events = POLLIN;
			(void)poll(&pfd, 1, -1);
			continue;
		} else {
			report(in, errno);
			in->eof = 1;
			in->pos = in->end = 0;
			rc = FILL_ERR;
		}
		break;
	}
	/* Defined bytes for scan16() to read past the end (for valgrind;
	 * they are never a match). */
	memset(in->buf + in->end, 0, SLACK);
	return rc;
}

/*
 * Finds the end of the line that starts at buf[pos + from], reading as
 * needed: *eol is the offset from pos of its '\n', or of the end of the
 * data when the file ends without one. Offsets are from pos because fill()
 * moves the bytes. Returns EOL_OK; EOL_END when nothing is left at from;
 * EOL_LONG when the bytes from pos pass RECMAX without a '\n'; EOL_ERR
 * after a read error (the file is abandoned); EOL_WAIT when the line end
 * is not there yet and reading would block.
 */
int
find_eol(struct input *in, size_t from, size_t *eol)
{
	const char *nl;
	size_t scan = from, avail;

	for (;;) {
		avail = in->end - in->pos;
		nl = memchr(in->buf + in->pos + scan, '\n', avail - scan);
		if (nl != NULL) {
			*eol = nl - (in->buf + in->pos);
			return EOL_OK;
		}
		scan = avail;
		if (avail > RECMAX)
			return EOL_LONG;
		if (in->eof) {
			if (avail > from && !in->o.hold_partial) {
				*eol = avail;
				return EOL_OK;
			}
			return EOL_END;
		}
		switch (fill(in, 0)) {
		case FILL_ERR:
			return EOL_ERR;
		case FILL_WAIT:
			return EOL_WAIT;
		}
	}
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
		in->quick_until = 0;
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
