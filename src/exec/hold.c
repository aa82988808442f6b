/* hold: rows held in a scratch file; see hold.h. */
#include <errno.h>
#include <string.h>
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

int
hold_write(struct sink *s, int fd)
{
	if (sink_flush(s) != 0)
		return -1;	/* (said at the close: the output keeps it) */
	switch (out_copy_from(sink_out(s), fd)) {
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
		rc = hold_write(h->s, h->fd) == 0 ? 1 : -1;
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
