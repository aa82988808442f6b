/* hold: rows held in a scratch file; see hold.h. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/hold.h"
#include "io/output.h"
#include "base/util.h"

int
hold_begin(struct hold *h, struct sink *s)
{
	const char *dir;

	h->fd = -1;
	if (sink_flush(s) != 0 || (h->fd = scratch_open(&dir)) < 0)
		return -1;
	h->s = s;
	h->prev = out_divert(sink_out(s), h->fd);
	return 0;
}

/* hold_write()'s rows said as their bytes are: the rows of the bytes
 * written so far, reckoned from their share of the file (rows are much
 * alike in length), all of them at its end. */
struct copying {
	uint64_t rows, bytes;	/* in the file */
	uint64_t said;		/* rows said so far */
	void (*copied)(void *arg, uint64_t n);
	void *arg;
};

static void
copy_sent(void *arg, uint64_t n)
{
	struct copying *cp = arg;
	uint64_t rows = n >= cp->bytes ? cp->rows :
	    (uint64_t)((unsigned __int128)cp->rows * n / cp->bytes);

	if (rows > cp->said) {
		cp->copied(cp->arg, rows - cp->said);
		cp->said = rows;
	}
}

int
hold_write(struct sink *s, int fd, uint64_t rows,
    void (*copied)(void *arg, uint64_t n), void *arg)
{
	struct copying cp = { rows, 0, 0, copied, arg };
	struct stat sb;

	if (sink_flush(s) != 0)
		return -1;	/* (said at the close: the output keeps it) */
	if (copied != NULL && fstat(fd, &sb) == 0)
		cp.bytes = (uint64_t)sb.st_size;
	switch (out_copy_from(sink_out(s), fd, copied != NULL ? copy_sent :
	    NULL, &cp)) {
	case -1:
		fwin_warn("%s: %s", sink_name(s), strerror(errno));
		return -1;
	case -2:
		fwin_warn("cannot read back the rows held in a scratch file: "
		    "%s", strerror(errno));
		return -1;
	}
	return 0;
}

int
hold_commit(struct hold *h)
{
	struct out *o = sink_out(h->s);
	int rc = 1;

	if (out_error(o) == 0 && lseek(h->fd, 0, SEEK_CUR) == 0)
		/* all still in the output's buffer: no copy */
		(void)out_divert(o, h->prev);
	else if (sink_flush(h->s) != 0)
		return 0;
	else {
		(void)out_divert(o, h->prev);
		/* (counted as they were held) */
		rc = hold_write(h->s, h->fd, 0, NULL, NULL) == 0 ? 1 : -1;
	}
	close(h->fd);
	h->fd = -1;
	return rc;
}

void
hold_drop(struct hold *h)
{
	if (h->fd < 0)
		return;
	out_drop(sink_out(h->s));
	(void)out_divert(sink_out(h->s), h->prev);
	close(h->fd);
	h->fd = -1;
}
