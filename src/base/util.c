/* util: messages, allocation, write_all; see util.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gmp.h>
#include <xxhash.h>

#include "base/util.h"

/* A thread whose messages another says, in their place (fwin_warn_to). */
static __thread void (*warn_fn)(void *, const char *, size_t);
static __thread void *warn_arg;

void
fwin_warn_to(void (*fn)(void *arg, const char *line, size_t n), void *arg)
{
	warn_fn = fn;
	warn_arg = arg;
}

/* What this thread's messages to standard error come after. */
static __thread void (*first_fn)(void *);
static __thread void *first_arg;

void
fwin_warn_after(void (*fn)(void *arg), void *arg)
{
	first_fn = fn;
	first_arg = arg;
}

/* Writes "fwin: MESSAGE\n" in one piece: to the thread's receiver, or to
 * standard error in one write, so that a run killed while it speaks
 * leaves no part of a line, and two runs' lines do not mix. */
static void
vwarn(const char *fmt, va_list ap)
{
	char line[1024], *p = line;
	va_list aq;
	int n;

	static const char prefix[6] = "fwin: ";	/* no NUL: a line's start */

	va_copy(aq, ap);
	memcpy(line, prefix, sizeof(prefix));
	n = vsnprintf(line + 6, sizeof(line) - 7, fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(line) - 8) {
		/* (a receiver takes a line of the buffer's size at most) */
		if (warn_fn == NULL && (p = malloc(8 + (size_t)n)) != NULL) {
			memcpy(p, prefix, sizeof(prefix));
			(void)vsnprintf(p + 6, (size_t)n + 1, fmt, aq);
		} else {
			p = line;
			n = (int)sizeof(line) - 8;
		}
	}
	va_end(aq);
	p[6 + n] = '\n';
	if (warn_fn != NULL)
		warn_fn(warn_arg, p, 7 + (size_t)n);
	else {
		if (first_fn != NULL)
			first_fn(first_arg);
		(void)fwrite(p, 1, 7 + (size_t)n, stderr);
	}
	if (p != line)
		free(p);
}

void
fwin_warn_line(const char *line, size_t n)
{
	if (first_fn != NULL)
		first_fn(first_arg);
	(void)fwrite(line, 1, n, stderr);
}

void
fwin_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
fwin_die(const char *fmt, ...)
{
	va_list ap;

	warn_fn = NULL;	/* said at once: nobody else will */
	first_fn = NULL;	/* (it may be what failed) */
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void
fwin_oom(void)
{
	fputs("fwin: out of memory\n", stderr);
	exit(1);
}

/* GMP's allocations, through these (gmp_use_xmalloc). */
static void *
gmp_alloc(size_t n)
{
	return xmalloc(n);
}

static void *
gmp_realloc(void *p, size_t old, size_t n)
{
	(void)old;
	return xrealloc(p, n);
}

static void
gmp_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

void
gmp_use_xmalloc(void)
{
	mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}

static int stdclosed[3];

void
std_hold(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) == fd)
			stdclosed[fd] = 1;
}

int
std_closed(int fd)
{
	return fd >= 0 && fd < 3 && stdclosed[fd];
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fwin_oom();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		fwin_oom();
	return p;
}

void *
xcalloc_lines(size_t size)
{
	void *p;

	size = (size + 63) & ~(size_t)63;
	if (posix_memalign(&p, 64, size ? size : 64) != 0)
		fwin_oom();
	memset(p, 0, size ? size : 64);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n ? n : 1)) == NULL)
		fwin_oom();
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fwin_oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		fwin_oom();
	return p;
}

void
xgrow(void *v, size_t *cap, size_t n, size_t size)
{
	void **vp = v;
	size_t c = *cap;

	if (n <= c)
		return;
	while (c < n)
		c = c ? 2 * c : 16;
	if (c > SIZE_MAX / size)
		fwin_oom();
	*vp = xrealloc(*vp, c * size);
	*cap = c;
}

const char *
file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int
scratch_open(const char **dir)
{
	const char *d = getenv("TMPDIR");
	char *path;
	int fd, saved;

	*dir = d != NULL && *d != '\0' ? d : "/tmp";
	fd = open(*dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && errno != ENOTDIR && errno != ENOENT && errno != EACCES) {
		if (asprintf(&path, "%s/fwin-spill-XXXXXX", *dir) < 0)
			fwin_oom();
		fd = mkostemp(path, O_CLOEXEC);
		saved = errno;
		if (fd >= 0)
			unlink(path);
		free(path);
		errno = saved;
	}
	return fd;
}

int
write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	struct pollfd pfd;
	ssize_t r;

	while (n > 0) {
		r = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				pfd.fd = fd;
				pfd.events = POLLOUT;
				if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
					return -1;
				continue;
			}
			return -1;
		}
		if (r == 0) {
			/* no progress and no reason: looping would never end */
			errno = EIO;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

size_t
edit_distance(const char *a, size_t an, const char *b, size_t bn)
{
	size_t row[3][65], i, j, d, *pp, *p, *c;

	if (an > 64 || bn > 64)
		return SIZE_MAX;
	for (j = 0; j <= bn; j++)
		row[0][j] = j;
	for (i = 1; i <= an; i++) {
		pp = row[(i + 1) % 3];	/* row i - 2 */
		p = row[(i + 2) % 3];	/* row i - 1 */
		c = row[i % 3];		/* row i */
		c[0] = i;
		for (j = 1; j <= bn; j++) {
			d = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < d)
				d = p[j] + 1;
			if (c[j - 1] + 1 < d)
				d = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			c[j] = d;
		}
	}
	return row[an % 3][bn];
}

int
close_enough(size_t d, size_t tn)
{
	return d < tn && d <= (tn <= 2 ? 1 : tn <= 8 ? 2 : 3);
}

void
closest_names(const char *name, const char *const *names, size_t n,
    char *hint, size_t hintsz)
{
	size_t i, d, d0 = SIZE_MAX, len = strlen(name), nb = 0, at = 0;

	hint[0] = '\0';
	for (i = 0; i < n; i++) {
		d = edit_distance(name, len, names[i], strlen(names[i]));
		if (close_enough(d, len) && d < d0)
			d0 = d;
	}
	for (i = 0; i < n && nb < 3 && d0 != SIZE_MAX; i++) {
		if (edit_distance(name, len, names[i], strlen(names[i])) != d0)
			continue;
		at += (size_t)snprintf(hint + at, hintsz - at, "%s'%s'",
		    nb++ == 0 ? "; did you mean " : ", ", names[i]);
		if (at >= hintsz - 1)
			return;
	}
	if (nb > 0)
		snprintf(hint + at, hintsz - at, "?");
}

size_t
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (p[0] < 0xc2)
		return 0;
	if (p[0] < 0xe0)
		len = 2;
	else if (p[0] < 0xf0) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] < 0xf5) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The characters of p[0..n) that fit in max bytes, shown into buf as
 * shown_bytes() shows them, and a NUL: returns how many bytes of p they
 * took. */
static size_t
show_chars(char *buf, size_t max, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, j = 0, k;

	for (; i < n; i += k, j += k) {
		if ((k = u[i] < 0x80 ? 1 : utf8_seq(u + i, n - i)) > 1) {
			if (j + k > max)	/* (a character, whole) */
				break;
			memcpy(buf + j, p + i, k);
			continue;
		}
		if (j + 1 > max)
			break;
		k = 1;
		buf[j] = u[i] < 0x20 || u[i] >= 0x7f ? '?' : p[i];
	}
	buf[j] = '\0';
	return i;
}

const char *
shown_bytes(char *buf, size_t bufsz, const char *p, size_t n)
{
	if (show_chars(buf, bufsz - 1, p, n) < n &&
	    show_chars(buf, bufsz - 4, p, n) < n)
		strcat(buf, "...");
	return buf;
}

const char *
shown_value(char *buf, size_t max, const char *p, size_t n)
{
	if (show_chars(buf, max, p, n) < n)
		strcat(buf, "...");
	return buf;
}

int
hash_range(int fd, uint64_t off, size_t n, uint64_t *hash)
{
	char buf[HASH_RANGE_MAX];
	size_t got = 0;
	ssize_t r;

	if (n > sizeof(buf))
		return -1;
	while (got < n) {
		r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*hash = XXH3_64bits(buf, n);
	return 0;
}
