/* split: the second half of a batch aggregated as read, on a thread of
 * its own; see split.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input.h"
#include "flow/parse.h"
#include "flow/source.h"
#include "exec/split.h"
#include "base/util.h"

/* Records of the second half read before it guesses how far the first
 * reaches (its rows fire from there on). */
#define GUESS_AFTER 4096
/* How far past the middle a line end is looked for. */
#define SPLIT_LOOK (64 << 10)

struct split {
	const struct config *c;
	struct source *src;	/* the second half (source_half) */
	struct aggs *tg, *g;	/* the table's while here, and the caller's */
	struct hashagg *h;
	pthread_t th;
	int kind;		/* SPLIT_* */
	int64_t lateness;	/* the table's */
	int64_t max_t;		/* the largest time */
	uint64_t nread;
	uint64_t nfiltered;	/* --where rejected (batch: no watermark) */
	/* a stream's: windows past where the first half can reach fire as
	 * this half's watermark passes them, to emit(arg, row) */
	op_emit_fn emit;
	void *arg;
	int64_t from;		/* they start at or after this */
	uint64_t nrows;
	int stop;		/* asked to (atomic) */
	int unclean;		/* something to say in its half: dropped */
	/* --progress (split_read): src's bytes before the half, and the
	 * half's bytes and records read so far (atomic) */
	uint64_t base, bytes, records;
};

/* The byte after the first line end at or after off in file path, or 0
 * when there is none within SPLIT_LOOK bytes before its end. */
static uint64_t
line_end_after(const char *path, uint64_t off, uint64_t size)
{
	char *buf = xmalloc(SPLIT_LOOK);
	const char *nl;
	ssize_t n;
	int fd;
	uint64_t at = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = pread(fd, buf, SPLIT_LOOK, (off_t)off);
		if (n > 0 && (nl = memchr(buf, '\n', (size_t)n)) != NULL &&
		    off + (uint64_t)(nl - buf) + 1 < size)
			at = off + (uint64_t)(nl - buf) + 1;
		close(fd);
	}
	free(buf);
	return at;
}

/* The thread's messages are not said: its work is dropped instead, and
 * the driver reads its half and says them in their place. */
static void
unclean(void *arg, const char *line, size_t n)
{
	(void)line;
	(void)n;
	((struct split *)arg)->unclean = 1;	/* (on its own thread) */
}

/* The second half's record pr into its table; s->unclean set when it
 * cannot be. */
static void
take_record(struct split *s, const struct parsed *pr)
{
	struct op_rec orec;
	int ha;

	if (pr->kind == PR_FILTERED && s->kind == SPLIT_BATCH) {
		s->nfiltered++;
		return;
	}
	if (pr->kind != PR_RECORD) {
		s->unclean = 1;
		return;
	}
	parsed_op_rec(pr, &orec);
	ha = hashagg_add(s->h, &orec, NULL);
	/* (a stream's late record: in its ledger) */
	if (ha != HA_ADDED && (ha != HA_LATE || s->kind == SPLIT_NEAR_ORDER)) {
		s->unclean = 1;
		return;
	}
	if (s->nread++ == 0)
		s->max_t = pr->t;
	if (pr->t > s->max_t)
		s->max_t = pr->t;
	if (s->nread == GUESS_AFTER)
		/* what the first half reaches, guessed: no further than the
		 * times this half began with, give or take -l
		 * (split_join()'s caller checks) */
		s->from = sat_add(sat_add(s->max_t, s->lateness), 1);
	else if (s->nread > GUESS_AFTER && s->emit != NULL) {
		s->nrows += hashagg_fire_due(s->h, 0, s->from, s->emit,
		    s->arg);
		if (hashagg_gave_up(s->h))
			s->unclean = 1;
	}
}

static void *
split_main(void *arg)
{
	struct split *s = arg;
	const struct parsed *pr[PARSE_SETS];
	size_t n, k;
	int rc = SOURCE_RECORD;

	fwin_warn_to(unclean, s);
	while (!s->unclean && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED) &&
	    (rc = source_next_n(s->src, pr, PARSE_SETS, &n)) ==
	    SOURCE_RECORD) {
		for (k = 0; k < n && !s->unclean; k++)
			take_record(s, pr[k]);
		__atomic_store_n(&s->bytes, source_bytes(s->src) - s->base,
		    __ATOMIC_RELAXED);
		__atomic_store_n(&s->records, s->nread + s->nfiltered,
		    __ATOMIC_RELAXED);
	}
	/* (a FILE that could not be read ends it with -1) */
	if (rc != SOURCE_RECORD && rc != SOURCE_END)
		s->unclean = 1;
	/* while the first half is read: the windows past its reach fire
	 * as at the end of input, the others are sorted to join */
	if (!s->unclean && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		if (s->emit != NULL && s->from != INT64_MAX) {
			s->nrows += hashagg_fire_rest(s->h, s->from, s->emit,
			    s->arg);
			if (hashagg_gave_up(s->h))
				s->unclean = 1;
		}
		if (!s->unclean)
			hashagg_sort(s->h);
	}
	fwin_warn_to(NULL, NULL);
	return NULL;
}

struct split *
split_start(const struct config *c, struct aggs *g, int timefmt, int fi,
    uint64_t off, uint64_t budget, int kind, int64_t lateness,
    op_emit_fn emit, void *arg, int *cut_fi, uint64_t *cut_off)
{
	struct input_pos pos;
	struct stat sb;
	struct split *s;
	uint64_t *size = xcalloc((size_t)c->nfiles, sizeof(*size));
	uint64_t left = 0, half;
	int i, j;

	for (i = fi; i < c->nfiles; i++) {
		if (stat(c->files[i], &sb) != 0 || !S_ISREG(sb.st_mode))
			goto none;
		size[i] = (uint64_t)sb.st_size;
		left += i == fi ? (size[i] > off ? size[i] - off : 0) : size[i];
	}
	if (left < SPLIT_MIN)
		goto none;
	/* the middle of what is left: byte half of FILE j (a first half
	 * shorter by a tenth, for the rows its thread fires after it, was
	 * measured slower) */
	half = left / 2 + (size[fi] > off ? off : size[fi]);
	for (j = fi; j < c->nfiles - 1 && half >= size[j]; j++)
		half -= size[j];
	if ((half = line_end_after(c->files[j], half, size[j])) == 0 ||
	    (j == fi && half <= off) || stat(c->files[j], &sb) != 0)
		goto none;
	free(size);
	s = xcalloc(1, sizeof(*s));
	s->c = c;
	s->kind = kind;
	s->lateness = lateness;
	s->emit = kind == SPLIT_BATCH ? NULL : emit;
	s->arg = arg;
	s->from = INT64_MAX;
	memset(&pos, 0, sizeof(pos));
	pos.ip_dev = (uint64_t)sb.st_dev;
	pos.ip_ino = (uint64_t)sb.st_ino;
	pos.ip_isreg = 1;
	pos.ip_off = half;
	s->src = source_half(c, timefmt, j, &pos);
	/* (aggregates fold in scratch of their own: the table's, while
	 * this thread fires windows, are not the caller's) */
	s->g = g;
	s->tg = aggs_new(c);
	s->h = hashagg_new(c, s->tg, budget);
	if (kind != SPLIT_BATCH) {
		hashagg_stream(s->h, s->lateness);
		if (c->wkind == WK_SLIDE)
			hashagg_slide(s->h);
		hashagg_ledger(s->h);
	}
	hashagg_look_ahead(s->h);
	s->base = source_bytes(s->src);
	if ((errno = pthread_create(&s->th, NULL, split_main, s)) != 0)
		fwin_die("cannot start a thread: %s", strerror(errno));
	*cut_fi = j;
	*cut_off = half;
	return s;
none:
	free(size);
	return NULL;
}

static void
split_free(struct split *s)
{
	source_free(s->src);
	hashagg_free(s->h);
	aggs_free(s->tg);
	free(s);
}

struct hashagg *
split_join(struct split *s, struct split_done *d)
{
	struct hashagg *h = NULL;

	pthread_join(s->th, NULL);
	if (!s->unclean) {
		h = s->h;
		s->h = NULL;
		hashagg_set_aggs(h, s->g);
		d->nread = s->nread + s->nfiltered;
		d->nfiltered = s->nfiltered;
		d->nrows = s->nrows;
	}
	split_free(s);
	return h;
}

void
split_read(const struct split *s, uint64_t *bytes, uint64_t *records)
{
	*bytes = __atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
	*records = __atomic_load_n(&s->records, __ATOMIC_RELAXED);
}

void
split_abort(struct split *s)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	pthread_join(s->th, NULL);
	split_free(s);
}
