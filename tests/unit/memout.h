/* Rows written to a memory file, for unit tests that compare what an
 * output printed: mo_open writes JSON rows of the given columns to a
 * memfd, mo_take returns what was written since its last call. */
#ifndef FWIN_MEMOUT_H
#define FWIN_MEMOUT_H

#include <sys/mman.h>
#include <sys/types.h>

#include <unistd.h>

#include "io/output.h"
#include "unit.h"

struct memout {
	int fd;
	struct out *o;
	off_t pos;
};

static void __attribute__((unused))
mo_open(struct memout *m, const char *const *cols, size_t n)
{
	m->fd = memfd_create("unit", 0);
	CHECK(m->fd >= 0);
	m->o = out_open(m->fd, "memory", OF_JSON, cols, n);
	m->pos = 0;
}

/* What was written since the last call, NUL-terminated in buf. */
static size_t __attribute__((unused))
mo_take(struct memout *m, char *buf, size_t cap)
{
	ssize_t n;

	CHECK(out_flush(m->o) == 0);
	n = pread(m->fd, buf, cap - 1, m->pos);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	m->pos += n;
	return (size_t)n;
}

static void __attribute__((unused))
mo_close(struct memout *m)
{
	CHECK(out_close(m->o) == 0);
	close(m->fd);
}

#endif
