/* recsink: records as read, to the late file or the bad-record file;
 * see recsink.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow/recsink.h"
#include "base/util.h"

struct recsink {
	struct out *o;		/* one tsv column, "record" (no header) */
	int fd;
	const char *path;	/* (the config's) */
};

int
append_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);

	if (fd < 0)
		fwin_warn("%s: %s", path, strerror(errno));
	return fd;
}

int
append_close(struct out *o, int fd, const char *name)
{
	int rc = 0;

	if (o != NULL && out_close(o) != 0) {
		if (errno == EPIPE) {
			/* the reader is gone: end as a filter does, without
			 * a word */
			signal(SIGPIPE, SIG_DFL);
			raise(SIGPIPE);
		}
		fwin_warn("%s: %s", name, strerror(errno));
		rc = -1;
	}
	/* some file systems (NFS, quotas) report lost writes only here */
	if (fd > 1 && close(fd) != 0) {
		fwin_warn("%s: %s", name, strerror(errno));
		rc = -1;
	}
	return rc;
}

struct recsink *
recsink_open(const char *path)
{
	static const char *const col = "record";
	struct recsink *rs;
	int fd;

	if ((fd = append_open(path)) < 0)
		return NULL;
	rs = xmalloc(sizeof(*rs));
	rs->fd = fd;
	rs->path = path;
	rs->o = out_open(fd, path, OF_TSV, &col, 1);
	return rs;
}

void
recsink_write(struct recsink *rs, const char *raw, size_t n)
{
	if (rs == NULL)
		return;
	out_str(rs->o, raw, n);
	out_end_row(rs->o);
}

int
recsink_flush(struct recsink *rs)
{
	return rs != NULL ? out_flush(rs->o) : 0;
}

int
recsink_fd(const struct recsink *rs)
{
	return rs != NULL ? rs->fd : -1;
}

struct out *
recsink_collect(const struct recsink *rs)
{
	return out_open_collect(rs->o);
}

void
recsink_rows(struct recsink *rs, const char *p, size_t n)
{
	out_rows(rs->o, p, n);
}

int
recsink_close(struct recsink *rs)
{
	int rc;

	if (rs == NULL)
		return 0;
	rc = append_close(rs->o, rs->fd, rs->path);
	free(rs);
	return rc;
}
