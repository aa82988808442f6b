/*
 * input: the records of the FILE operands, as input.h gives them: one
 * stream of the FILEs read in turn (inputread.c), or with --follow the
 * FILEs side by side (follow.c), each a stream of its own.
 *
 * The calls point down: input.c chooses; follow.c reads its leaves
 * through inputread.c, which frames records in the read buffer
 * (inputbuf.c) with inputcsv.c (quoted CSV), inputfiles.c (the FILE
 * operands) and followleaf.c (a followed file truncated or rotated).
 */

#include "io/input.h"
#include "io/inputint.h"
#include "io/json.h"

struct input *
input_open(char *const *files, int nfiles, const struct input_opts *o)
{
	if (o->follow)
		return follow_open(files, nfiles, o);
	return stream_open(files, nfiles, o);
}

void
input_set_paths(struct input *in, const char *const *paths, size_t n)
{
	int i;

	for (i = 0; i < in->nsub; i++)
		input_set_paths(in->sub[i], paths, n);
	json_free(in->json);
	in->json = json_new(paths, n);
	in->npaths = n;
	if (n > in->fcap)
		grow_fields(in, n);
}

/* With -H the columns in use are known only once the header is read. */
void
input_set_maxfields(struct input *in, size_t maxfields)
{
	int i;

	for (i = 0; i < in->nsub; i++)
		input_set_maxfields(in->sub[i], maxfields);
	in->o.maxfields = maxfields;
}

int
input_header(struct input *in, const struct field **names, size_t *n)
{
	if (in->sub == NULL)
		return stream_header(in, names, n);
	return in->o.header ? follow_header(in, names, n) : 0;
}

int
input_next(struct input *in, struct record *r)
{
	if (in->sub == NULL)
		return stream_next(in, r);
	return in->fatal ? -1 : follow_next(in, r);
}

size_t
input_next_block(struct input *in, struct record *r, size_t max)
{
	return in->sub == NULL ? stream_next_block(in, r, max) : 0;
}

void
input_unframe(struct input *in, const struct record *r)
{
	stream_unframe(in, r);
}

void
input_set_limit(struct input *in, int fi, uint64_t off)
{
	in->limfi = fi;
	in->limoff = off;
	in->quick_until = 0;	/* (next_quick() stops at it) */
}

int
input_at_limit(const struct input *in)
{
	return in->fi == in->limfi && in->consumed == in->limoff;
}

void
input_close(struct input *in)
{
	if (in == NULL)
		return;
	follow_close(in);
	stream_close(in);
}

int
input_fd(const struct input *in)
{
	return in->sub != NULL ? in->ino : in->fd;
}

int
input_wait_ms(const struct input *in)
{
	return in->sub != NULL ? 1000 : -1;
}
