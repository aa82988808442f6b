/* util: what every module shares — one way to print a message, one
 * allocation family, one write loop, and saturating time arithmetic.
 *
 * Messages: every line starts with "fwin: " and goes to stdio's stderr
 * (never fd 2 directly: the fuzz targets swap the stream). Running out of
 * memory ends fwin with exit status 1 and a message (a runtime failure,
 * see the man page's EXIT STATUS), never with abort(3): output not yet
 * written is lost and the last checkpoint saved stays valid. Nothing else
 * below main exits: errors are returned to the driver. */
#ifndef FWIN_UTIL_H
#define FWIN_UTIL_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Prints "fwin: " and the formatted message and a newline to stderr. */
void fwin_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* From now on, this thread's fwin_warn() lines ("fwin: ...\n", n bytes)
 * go to fn instead of stderr (NULL: stderr again); fwin_die() still
 * says its message at once. */
void fwin_warn_to(void (*fn)(void *arg, const char *line, size_t n),
    void *arg);

/* Runs fn(arg) before each of this thread's messages goes to standard
 * error (fn NULL: nothing): the run writes the rows that came before a
 * message ahead of it where both go to one file (fwin(1): DIAGNOSTICS). */
void fwin_warn_after(void (*fn)(void *arg), void *arg);

/* Writes a line that another thread's fwin_warn() made ("fwin: ...\n",
 * n bytes) to standard error, after this thread's fwin_warn_after(). */
void fwin_warn_line(const char *line, size_t n);

/* fwin_warn, then exit status 1: for state that cannot grow, where going
 * on is impossible and nothing better than the last checkpoint is left. */
void fwin_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* "fwin: out of memory", exit status 1. */
void fwin_oom(void) __attribute__((noreturn));

/* GMP's memory from xmalloc() and xrealloc(), set once before any
 * thread starts: running out of it in GMP (exact sums, the table of
 * num.c's digits) ends fwin as anywhere else, not in GMP's abort(3). */
void gmp_use_xmalloc(void);

/* Standard input, output or error closed by whoever started fwin: each
 * is held by /dev/null, set once at start before any file is opened, so
 * that no file fwin opens takes its number (rows written into a lock
 * file, a thread's pipe read as the input); std_closed(fd) says which. */
void std_hold(void);
int std_closed(int fd);

/* malloc, calloc, realloc and strdup that never return NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* size zeroed bytes on cache lines of their own (64-aligned, rounded up
 * to 64): for what one thread writes at every record, which no other
 * thread's data may share a line with. free() frees it. */
void *xcalloc_lines(size_t size);

/* Grows *v (of *cap elements of size bytes) to hold at least n, doubling. */
void xgrow(void *v, size_t *cap, size_t n, size_t size);

/* Writes all of p[0..n) to fd, through short writes, EINTR and an fd that
 * someone else made non-blocking. Returns 0, or -1 with errno set. */
int write_all(int fd, const void *p, size_t n);

/* Opens a scratch file in $TMPDIR (else /tmp), read-write: one without a
 * name if the file system can make it, else a named one unlinked at once,
 * so nothing stays behind however fwin ends. *dir is set to the directory
 * tried, for messages. Returns the fd, or -1 with errno set. */
int scratch_open(const char **dir);

/* What a file of mode m that is not a regular one is, for a message
 * ("NAME is a FIFO, not ..."): "a directory", "a FIFO", "a device", "a
 * socket", else "not a regular file". */
const char *file_kind(mode_t m);

/* The most bytes hash_range hashes at once. */
#define HASH_RANGE_MAX	4096

/* Sets *hash to the XXH3-64 of the n (at most HASH_RANGE_MAX) bytes at off
 * of fd: the fingerprint of an input file and of an output's tail. Returns
 * 0, or -1 when they cannot all be read. */
int hash_range(int fd, uint64_t off, size_t n, uint64_t *hash);

/* The wall clock (CLOCK_REALTIME), in nanoseconds since the epoch. */
int64_t now_ns(void);

/* The edit distance of a[0..an) and b[0..bn): insertions, deletions,
 * substitutions and swaps of two neighbouring bytes (Damerau's optimal
 * string alignment), for "did you mean" hints. SIZE_MAX when either is
 * longer than 64 bytes. */
size_t edit_distance(const char *a, size_t an, const char *b, size_t bn);

/* Whether a name at edit distance d from what was typed (tn bytes) is
 * close enough to be suggested. */
int close_enough(size_t d, size_t tn);

/* The closest of names[0..n) to name, up to three, into hint as
 * "; did you mean 'a', 'b'?"; empty when none is close enough. */
void closest_names(const char *name, const char *const *names, size_t n,
    char *hint, size_t hintsz);

/* Returns the length (2..4) of the well-formed UTF-8 sequence at p[0..n),
 * whose first byte is >= 0x80, or 0 when there is none: a stray
 * continuation byte, an overlong form (C0, C1, E0 80..9F, F0 80..8F), a
 * surrogate (ED A0..BF), a value above U+10FFFF, or a truncated sequence.
 * These are the ranges of the Unicode standard's table 3-7. */
size_t utf8_seq(const unsigned char *p, size_t n);

/* p[0..n) as a message shows a name or a line (fwin(1): DIAGNOSTICS; a
 * message is one line, and a quoted CSV field may hold a line end):
 * each control byte, DEL and byte of no valid UTF-8 character as '?',
 * whole when that fits in buf[0..bufsz), else cut short (a character
 * never cut) with "..." (bufsz at least 4). Returns buf. */
const char *shown_bytes(char *buf, size_t bufsz, const char *p, size_t n);

/* A value as a message shows it: the same, its first max bytes at most
 * (buf holds max + 4), "..." after them when there are more. */
const char *shown_value(char *buf, size_t max, const char *p, size_t n);

/* Brings the line at p into the cache without waiting for it: a load
 * whose value nothing uses, so the core goes on while it is in flight
 * (where prefetch instructions are dropped: see state.h's st_warm). p
 * must be readable. */
static inline void
warm(const void *p)
{
	(void)*(volatile const char *)p;
}

/* Whether a[0..n) and b[0..n) hold the same bytes: inline for the short
 * keys compared per record, where a call to memcmp(3) costs more than the
 * comparison (overlapping loads of 8 or 4 bytes; none past a + n). */
static inline int
same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t a0, a1, b0, b1;
	uint32_t c0, c1, d0, d1;

	if (n > 16)
		return memcmp(a, b, n) == 0;
	if (n >= 8) {
		memcpy(&a0, a, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b0, b, 8);
		memcpy(&b1, b + n - 8, 8);
		return ((a0 ^ b0) | (a1 ^ b1)) == 0;
	}
	if (n >= 4) {
		memcpy(&c0, a, 4);
		memcpy(&c1, a + n - 4, 4);
		memcpy(&d0, b, 4);
		memcpy(&d1, b + n - 4, 4);
		return ((c0 ^ d0) | (c1 ^ d1)) == 0;
	}
	return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] &&
	    a[n - 1] == b[n - 1]);
}

/* same_bytes() of 1 to 8 bytes each followed by bytes enough to read 8
 * (a padded key, input.h's FIELD_PAD): one load each and the bytes past n
 * masked off, with no branch on n, which keys of several lengths side by
 * side would mispredict. */
static inline int
same_bytes8(const char *a, const char *b, size_t n)
{
	uint64_t x, y, first;

	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	first = ~(uint64_t)0 << (64 - 8 * n);
#else
	first = ~(uint64_t)0 >> (64 - 8 * n);
#endif
	return ((x ^ y) & first) == 0;
}

/* a + b, saturated at the int64 limits. */
static inline int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a - b, saturated at the int64 limits (b may be INT64_MIN, whose
 * negation is not an int64). */
static inline int64_t
sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

#endif
