/*
 * hashspill: a batch table of (window, key) groups past --max-memory
 * (hashagg_spill()): its groups, sorted by (start, key), are written as a
 * sorted run to a scratch file in $TMPDIR and the table goes on empty, as
 * an external hash aggregation does (DuckDB's, PostgreSQL's HashAgg with
 * spilling). At the end the runs and the table's last groups are merged
 * in (start, key) order, each (window, key)'s groups folded into its row.
 * Only for flat accumulators (aggs_flat: counts and sums, plain bytes that
 * keep nothing elsewhere), whose folds give the same bytes however the
 * records were grouped: so the rows do not depend on the budget.
 *
 * A run is the groups' bytes as they lie in the table (header, key padded
 * to 8, accumulators), one after the other; runs lie end to end in one
 * file without a name, which goes when fwin does.
 *
 * It sits above the table (hashagg.c) and its sorted rows (hashrows.c),
 * which it empties into runs, and below the firing (hashfire.c), which
 * calls ha_fire_runs() at the end. The table finds itself full while a
 * record is added, and calls spill_run() through the pointer that
 * hashagg_spill() left it: the table calls nothing above it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/hashint.h"
#include "io/keycodec.h"
#include "base/util.h"

#define SPILL_BUF	(1 << 16)	/* bytes written at once */
#define SPILL_MINREAD	4096		/* a run's read-ahead, at least */
/* A budget that holds fewer groups than this (the table's own slots take
 * most of it) would spill a run every few records; and past this many
 * runs the merge's read-ahead and its choice among them cost more than
 * sorting the records: either way the table gives up (HA_FULL), and the
 * sort, which takes any size, has the records. */
#define SPILL_MIN_GROUPS	1024
#define SPILL_MAX_RUNS		256

struct ha_runs {
	int fd;
	const char *dir;	/* for messages */
	uint64_t *off;		/* run i is [off[i], off[i + 1]) */
	size_t n, cap;		/* runs; off has n + 1 */
	char *buf;		/* SPILL_BUF, while a run is written */
	size_t len;
};

/* The runs freed, with the table (hashagg_free()). */
static void
runs_free(struct hashagg *h)
{
	if (h->runs == NULL)
		return;
	if (h->runs->fd >= 0)
		close(h->runs->fd);
	free(h->runs->off);
	free(h->runs->buf);
	free(h->runs);
	h->runs = NULL;
}

void
hashagg_spilled(const struct hashagg *h, uint64_t *runs, uint64_t *bytes)
{
	if (h == NULL || h->runs == NULL || h->runs->n == 0)
		return;
	*runs += h->runs->n;
	*bytes += h->runs->off[h->runs->n];
}

/* Writes p[0..n) to the run being written, through its buffer. */
static int
run_put(struct ha_runs *s, const void *p, size_t n)
{
	if (s->len + n > SPILL_BUF) {
		if (write_all(s->fd, s->buf, s->len) != 0)
			return -1;
		s->len = 0;
	}
	if (n > SPILL_BUF)
		return write_all(s->fd, p, n);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

/* The table's groups written as a sorted run, the table reset (0), or -1
 * when the run could not be written (errno set) or is not worth it (too
 * few groups, too many runs): what the table calls when it is full
 * (hashagg_add()). */
static int
spill_run(struct hashagg *h)
{
	struct ha_runs *s = h->runs;
	const struct group *gp;
	uint64_t at = s->off[s->n];
	size_t i, n;

	if (h->n < SPILL_MIN_GROUPS || s->n >= SPILL_MAX_RUNS)
		return -1;
	if (s->fd < 0 && (s->fd = scratch_open(&s->dir)) < 0)
		return -1;
	if (s->buf == NULL)
		s->buf = xmalloc(SPILL_BUF);
	ha_collect(h, INT64_MIN, INT64_MAX);
	/* a sum past its fixed width names a block of this arena, which a
	 * run's bytes cannot carry: such a table gives up */
	for (i = 0; i < h->nrows; i++)
		if (aggs_keep_blocks(h->g, &h->a, group_acc(h, h->rows[i].g)))
			return -1;
	s->len = 0;
	for (i = 0; i < h->nrows; i++) {
		gp = group_at(h, h->rows[i].g);
		n = group_size(h, gp->g_len);
		if (run_put(s, gp, n) != 0)
			return -1;
		at += n;
	}
	if (s->len > 0 && write_all(s->fd, s->buf, s->len) != 0)
		return -1;
	xgrow(&s->off, &s->cap, s->n + 2, sizeof(*s->off));
	s->off[++s->n] = at;
	h->runs_n = s->n;
	ha_reset(h);
	return 0;
}

void
hashagg_spill(struct hashagg *h)
{
	if (h->runs != NULL || !aggs_flat(h->g))
		return;
	h->runs = xcalloc(1, sizeof(*h->runs));
	h->runs->fd = -1;
	xgrow(&h->runs->off, &h->runs->cap, 1, sizeof(*h->runs->off));
	h->runs->off[0] = 0;
	/* (the table is below this file, and calls it through these) */
	h->spill = spill_run;
	h->spill_free = runs_free;
}

/* One input of the merge: the table's sorted rows, or a run read back. */
struct source {
	const struct group *g;	/* its current group; NULL: at its end */
	struct arena a;		/* where the group's accumulators lie */
	aoff acc;
	/* the table's */
	const struct hashagg *t;
	size_t i, n;
	/* a run's: [pos, end) of the file still to read, the read-ahead
	 * buf[at, len), the current group copied to cur */
	uint64_t pos, end;
	char *buf, *cur;
	size_t at, len, bufsz, curcap;
};

static void
table_next(struct source *s)
{
	if (s->i == s->n) {
		s->g = NULL;
		return;
	}
	s->g = group_at(s->t, s->t->rows[s->i].g);
	s->a = s->t->a;
	s->acc = group_acc(s->t, s->t->rows[s->i].g);
	s->i++;
}

/* Copies the next n bytes of the run to cur + off. Returns 0, or -1
 * (errno set; EIO for a run shorter than it was written). */
static int
run_read(struct source *s, int fd, size_t off, size_t n)
{
	ssize_t r;
	size_t k;

	while (n > 0) {
		if (s->at == s->len) {
			k = s->end - s->pos < s->bufsz ? s->end - s->pos :
			    s->bufsz;
			if (k == 0) {
				errno = EIO;
				return -1;
			}
			if ((r = pread(fd, s->buf, k, (off_t)s->pos)) <= 0) {
				if (r < 0 && errno == EINTR)
					continue;
				if (r == 0)
					errno = EIO;
				return -1;
			}
			s->pos += (uint64_t)r;
			s->at = 0;
			s->len = (size_t)r;
		}
		k = s->len - s->at < n ? s->len - s->at : n;
		memcpy(s->cur + off, s->buf + s->at, k);
		s->at += k;
		off += k;
		n -= k;
	}
	return 0;
}

/* Reads the run's next group into s->cur (s->g NULL at its end).
 * Returns 0, or -1 (errno set). */
static int
run_read_group(const struct hashagg *h, struct source *s, int fd)
{
	size_t head = sizeof(struct group), n;

	if (s->pos == s->end && s->at == s->len) {
		s->g = NULL;
		return 0;
	}
	xgrow(&s->cur, &s->curcap, head, 1);
	if (run_read(s, fd, 0, head) != 0)
		return -1;
	n = group_size(h, ((const struct group *)s->cur)->g_len);
	xgrow(&s->cur, &s->curcap, n, 1);
	if (run_read(s, fd, head, n - head) != 0)
		return -1;
	s->g = (const struct group *)s->cur;
	s->a.base = (uint8_t *)s->cur;
	s->acc = n - aggs_accsize(h->g);
	return 0;
}

static int
next(const struct hashagg *h, struct source *s)
{
	if (s->t != NULL) {
		table_next(s);
		return 0;
	}
	return run_read_group(h, s, h->runs->fd);
}

static int
order(size_t nkeys, const struct group *a, const struct group *b)
{
	if (a->g_start != b->g_start)
		return a->g_start < b->g_start ? -1 : 1;
	return key_cmp(nkeys, a->g_key, a->g_len, b->g_key, b->g_len);
}

/* The merge proper: each (window, key) of the sources, folded, to emit.
 * Returns the rows fired, or UINT64_MAX when a run could not be read. */
static uint64_t
merge(struct hashagg *h, struct source *src, size_t k, op_emit_fn emit,
    void *arg)
{
	struct op_row row = { .has_bounds = 1, .final = 1, .g = h->g };
	size_t nkeys = h->c->nkeys, i, m;
	char *eq = xmalloc(k);
	uint64_t fired = 0;

	for (;;) {
		for (m = k, i = 0; i < k; i++)
			if (src[i].g != NULL && (m == k ||
			    order(nkeys, src[i].g, src[m].g) < 0))
				m = i;
		if (m == k)
			break;
		aggs_fold_begin(h->g);
		for (i = 0; i < k; i++) {
			eq[i] = src[i].g != NULL && (i == m ||
			    order(nkeys, src[i].g, src[m].g) == 0);
			if (eq[i])
				aggs_fold(h->g, &src[i].a, src[i].acc);
		}
		row.start = src[m].g->g_start;
		row.end = h->as.ops->end_after(&h->as, row.start);
		row.key = src[m].g->g_key;
		row.keylen = src[m].g->g_len;
		row.a = &src[m].a;
		emit(arg, &row);
		fired++;
		for (i = 0; i < k; i++)
			if (eq[i] && next(h, &src[i]) != 0) {
				fired = UINT64_MAX;
				goto done;
			}
	}
done:
	free(eq);
	return fired;
}

uint64_t
ha_fire_runs(struct hashagg *h, struct hashagg *other, op_emit_fn emit,
    void *arg)
{
	struct ha_runs *s = h->runs;
	size_t k = 1 + (other != NULL) + s->n, i, j = 0;
	struct source *src = xcalloc(k, sizeof(*src));
	/* the read-ahead of all runs: a quarter of the budget at most */
	size_t bufsz = s->n > 0 ? h->budget / 4 / s->n : 0;
	uint64_t fired = UINT64_MAX;

	if (bufsz < SPILL_MINREAD)
		bufsz = SPILL_MINREAD;
	if (bufsz > ((size_t)1 << 20))
		bufsz = (size_t)1 << 20;
	hashagg_sort(h);
	if (other != NULL)
		hashagg_sort(other);
	for (i = 0; i < 1 + (other != NULL); i++, j++) {
		src[j].t = i == 0 ? h : other;
		src[j].n = src[j].t->nrows;
		table_next(&src[j]);
	}
	for (i = 0; i < s->n; i++, j++) {
		src[j].pos = s->off[i];
		src[j].end = s->off[i + 1];
		src[j].bufsz = bufsz;
		src[j].buf = xmalloc(bufsz);
		if (run_read_group(h, &src[j], s->fd) != 0)
			goto done;
	}
	fired = merge(h, src, k, emit, arg);
done:
	if (fired == UINT64_MAX) {
		fwin_warn("cannot read back a sorted run from %s: %s", s->dir,
		    strerror(errno));
		h->failed = 1;
		fired = 0;
	}
	for (i = 0; i < k; i++) {
		free(src[i].buf);
		free(src[i].cur);
	}
	free(src);
	return fired;
}

int
hashagg_failed(const struct hashagg *h)
{
	return h->failed;
}
