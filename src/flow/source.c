/* source: parsed records from the input and the FILEs read again; see
 * source.h. The reading thread is reader.c, the sorted replay batch.c. */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>

#include "flow/source.h"
#include "base/util.h"

/* --- the input, read and parsed here --- */

/*
 * One kind of source for the driver's input, the FILEs read again and
 * the second half: the framer's records through the parser, into one
 * struct parsed reused at every record (a block of them for
 * source_next_n). The driver's input and parser
 * are lent; a second input is this source's own, with aggregates and a
 * parser of its own, and its header read before its first record.
 */
struct src_input {
	struct source s;
	const struct config *c;
	struct input *in;
	struct parser *p;
	struct parsed pr[PARSE_SETS];
	struct record more[PARSE_SETS - 1];	/* a block's, after its first */
	struct aggs *g;		/* a second input's: owned with in and p */
	int owned;
	int header;		/* its header is still to be read */
	int quiet;		/* its messages are not said */
	uint64_t left;		/* records it may still hand over */
};

static void
discard(void *arg, const char *line, size_t n)
{
	(void)arg;
	(void)line;
	(void)n;
}

/* A second input's header, read before its first record. Returns 0,
 * or -1: there is none to read (the FILEs changed). */
static int
input_src_header(struct src_input *si)
{
	const struct field *names;
	size_t n;

	si->header = 0;
	if (si->c->header && input_header(si->in, &names, &n) != 1)
		return -1;
	parse_fields(si->c, si->in);
	return 0;
}

/* A second input's next record: no more than it was made for; its end
 * is an error where a FILE could not be read (or, for a re-read, before
 * the records it was to read again). */
static int
owned_next(struct src_input *si, struct record *rec)
{
	int rc;

	if (si->left == 0)
		return SOURCE_END;
	if (si->quiet)
		fwin_warn_to(discard, NULL);
	if (si->header && input_src_header(si) != 0)
		rc = -1;
	else
		rc = input_next(si->in, rec);
	if (si->quiet)
		fwin_warn_to(NULL, NULL);
	if (rc == INPUT_END && (input_failed(si->in) ||
	    si->left != UINT64_MAX))
		return -1;
	if (rc == INPUT_RECORD && si->left != UINT64_MAX)
		si->left--;
	return rc;
}

/* What the framer answered (rc, rec), the record parsed: the one place
 * where records are. */
static inline int
parsed(struct src_input *si, int rc, const struct record *rec,
    const struct parsed **pr)
{
	if (rc == INPUT_RECORD) {
		(void)parse_record(si->p, rec, &si->pr[0], 0);
		*pr = &si->pr[0];
	}
	return rc;
}

static int
input_src_next(struct source *s, const struct parsed **pr)
{
	struct src_input *si = (struct src_input *)s;
	struct record rec;

	return parsed(si, input_next(si->in, &rec), &rec, pr);
}

/* What the framer answered (rc, rec), and after that record those framed
 * from the bytes already read (input_next_block) and parsed into them
 * alone, each with a set of values of its own, up to max (and si->left
 * when counted): a block, the calls and tests of a record made once a
 * block. A record parsed into the parser's own buffers ends it, and
 * those framed after it are given back. */
static inline __attribute__((always_inline)) int
block(struct src_input *si, int rc, const struct record *rec,
    const struct parsed **pr, size_t max, size_t *n, int counted)
{
	size_t k, m, j, lim = max < PARSE_SETS ? max : PARSE_SETS;
	int alone;

	*n = 0;
	if (rc != INPUT_RECORD)
		return rc;
	if (counted && si->left < lim - 1)
		lim = (size_t)si->left + 1;
	pr[0] = &si->pr[0];
	alone = parse_record(si->p, rec, &si->pr[0], 0);
	for (k = 1; alone && k < lim &&
	    (m = input_next_block(si->in, si->more, lim - k)) != 0; k += m) {
		j = parse_block(si->p, si->more, m, &si->pr[k], k, &alone);
		if (j < m) {
			input_unframe(si->in, &si->more[j]);
			m = j;
		}
		if (counted && si->left != UINT64_MAX)
			si->left -= m;
		for (j = 0; j < m; j++)
			pr[k + j] = &si->pr[k + j];
	}
	*n = k;
	return SOURCE_RECORD;
}

static int
input_src_next_n(struct source *s, const struct parsed **pr, size_t max,
    size_t *n)
{
	struct src_input *si = (struct src_input *)s;
	struct record rec;

	return block(si, input_next(si->in, &rec), &rec, pr, max, n, 0);
}

static int
owned_src_next_n(struct source *s, const struct parsed **pr, size_t max,
    size_t *n)
{
	struct src_input *si = (struct src_input *)s;
	struct record rec;

	return block(si, owned_next(si, &rec), &rec, pr, max, n, 1);
}

static int
owned_src_next(struct source *s, const struct parsed **pr)
{
	struct src_input *si = (struct src_input *)s;
	struct record rec;

	return parsed(si, owned_next(si, &rec), &rec, pr);
}

/* Whether pipeline c's FILEs can be read again from their start and
 * give the same records: named regular files that do not grow. */
static int
files_again(const struct config *c)
{
	struct stat sb;
	int i;

	if (c->follow || c->nfiles == 0)
		return 0;
	for (i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i], "-") == 0 ||
		    (stat(c->files[i], &sb) == 0 && !S_ISREG(sb.st_mode)))
			return 0;
	return 1;
}

static struct source *
input_src_rewind(struct source *s, uint64_t n, int timefmt)
{
	struct src_input *si = (struct src_input *)s;

	return files_again(si->c) ? source_reread(si->c, timefmt, n) : NULL;
}

static uint64_t
input_src_bytes(const struct source *s)
{
	return input_bytes(((const struct src_input *)s)->in);
}

static int
input_src_fd(const struct source *s)
{
	return input_fd(((const struct src_input *)s)->in);
}

static int
input_src_wait_ms(const struct source *s)
{
	return input_wait_ms(((const struct src_input *)s)->in);
}

static void
input_src_free(struct source *s)
{
	struct src_input *si = (struct src_input *)s;

	if (si->owned) {
		input_close(si->in);
		parser_free(si->p);
		aggs_free(si->g);
	}
	free(si);
}

static const struct source_methods input_methods = {
	.name = "input",
	.next = input_src_next,
	.next_n = input_src_next_n,
	.rewind = input_src_rewind,
	.bytes = input_src_bytes,
	.fd = input_src_fd,
	.wait_ms = input_src_wait_ms,
	.free = input_src_free,
}, second_methods = {
	.name = "second input",
	.next = owned_src_next,
	.next_n = owned_src_next_n,
	.rewind = input_src_rewind,
	.bytes = input_src_bytes,
	.fd = input_src_fd,
	.wait_ms = input_src_wait_ms,
	.free = input_src_free,
};

struct source *
source_input(const struct config *c, struct input *in, struct parser *p)
{
	struct src_input *si = source_alloc(sizeof(*si));

	si->s.m = &input_methods;
	si->c = c;
	si->in = in;
	si->p = p;
	si->left = UINT64_MAX;
	return &si->s;
}

/* A second input of c's FILEs from FILE operand fi, as the first was
 * opened but that it never waits, with a parser of its own. */
static struct src_input *
second_input(const struct config *c, int timefmt, int fi)
{
	struct input_opts io = {
		.fmt = c->fmt, .delim = c->delim, .header = c->header,
	};
	struct src_input *si = source_alloc(sizeof(*si));

	si->s.m = &second_methods;
	si->c = c;
	si->in = input_open(c->files + fi, c->nfiles - fi, &io);
	si->g = aggs_new(c);
	si->p = parser_new(c, si->g, timefmt, 1, 0);
	si->owned = 1;
	si->header = 1;
	si->left = UINT64_MAX;
	return si;
}

struct source *
source_reread(const struct config *c, int timefmt, uint64_t n)
{
	struct src_input *si = second_input(c, timefmt, 0);

	si->quiet = 1;
	si->left = n;
	return &si->s;
}

struct source *
source_half(const struct config *c, int timefmt, int fi,
    const struct input_pos *pos)
{
	struct src_input *si = second_input(c, timefmt, fi);

	input_resume(si->in, pos, 1);
	return &si->s;
}

/* --- what every source answers --- */

void *
source_alloc(size_t size)
{
	return xcalloc_lines(size);
}

struct source *
source_rewind(struct source *s, uint64_t n, int timefmt)
{
	return s->m->rewind != NULL ? s->m->rewind(s, n, timefmt) : NULL;
}

uint64_t
source_bytes(const struct source *s)
{
	return s->m->bytes != NULL ? s->m->bytes(s) : 0;
}

int
source_fd(const struct source *s)
{
	return s->m->fd != NULL ? s->m->fd(s) : -1;
}

int
source_wait_ms(const struct source *s)
{
	return s->m->wait_ms != NULL ? s->m->wait_ms(s) : -1;
}

int
source_ready(struct source *s)
{
	return s->m->ready != NULL && s->m->ready(s);
}

int
source_pause(struct source *s)
{
	return s->m->pause != NULL && s->m->pause(s);
}

void
source_resume(struct source *s)
{
	if (s->m->resume != NULL)
		s->m->resume(s);
}

void
source_find_windows(struct source *s)
{
	if (s->m->find_windows != NULL)
		s->m->find_windows(s);
}

void
source_free(struct source *s)
{
	if (s != NULL)
		s->m->free(s);
}
