/* hold: rows held in a scratch file; see hold.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "exec/hold.h"
#include "base/util.h"

int
hold_begin(struct hold *h, struct out *o)
{
	const char *dir;

	h->fd = -1;
	if (out_flush(o) != 0 || (h->fd = scratch_open(&dir)) < 0)
		return -1;
	h->o = o;
	h->prev = out_divert(o, h->fd);
	return 0;
}

int
hold_write(struct out *o, int fd, const char *outname)
{
	if (out_flush(o) != 0)
		return -1;	/* (said at the close: the output keeps it) */
	switch (out_copy_from(o, fd)) {
	case -1:
		fwin_warn("%s: %s", outname, strerror(errno));
		return -1;
	case -2:
		fwin_warn("cannot read back the rows held in a scratch file: "
		    "%s", strerror(errno));
		return -1;
	}
	return 0;
}

int
hold_commit(struct hold *h, const char *outname)
{
	int rc = 1;

	if (out_error(h->o) == 0 && lseek(h->fd, 0, SEEK_CUR) == 0)
		/* all still in the output's buffer: no copy */
		(void)out_divert(h->o, h->prev);
	else if (out_flush(h->o) != 0)
		return 0;
	else {
		(void)out_divert(h->o, h->prev);
		rc = hold_write(h->o, h->fd, outname) == 0 ? 1 : -1;
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
	out_drop(h->o);
	(void)out_divert(h->o, h->prev);
	close(h->fd);
	h->fd = -1;
}
