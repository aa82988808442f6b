/* source.c, reader.c: every record source hands over the records (and
 * messages) of one reading of the input, in input order: the input read
 * here, on a thread (paused and resumed), read again up to n records
 * (a FILE that changed is -1), from a cut near its middle, and batch
 * mode's sorted replay, here and on a thread. */
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window/agg.h"
#include "flow/batch.h"
#include "flow/parse.h"
#include "flow/source.h"
#include "io/input.h"
#include "io/keycodec.h"
#include "pipeline/config.h"
#include "base/util.h"
#include "unit.h"

#define NREC 20000

static char *tmps[8];
static int ntmp;

static char *
tmpfile_s(const char *data, size_t n)
{
	char *path = strdup("/tmp/fwin-test-source.XXXXXX");
	int fd = mkstemp(path);

	if (fd == -1 || write(fd, data, n) != (ssize_t)n) {
		perror("tmpfile");
		exit(1);
	}
	close(fd);
	tmps[ntmp++] = path;
	return path;
}

/* The input's records: "T,kK,V" with T from 1700000000000 ms, the
 * record every 1000th bad (its time is "x"). */
static char *
make_data(size_t *len)
{
	char *d = malloc(NREC * 40);
	size_t n = 0;
	long i;

	for (i = 0; i < NREC; i++)
		if (i % 1000 == 999)
			n += (size_t)sprintf(d + n, "x,k%ld,%ld\n", i % 37, i);
		else
			n += (size_t)sprintf(d + n, "%lld,k%ld,%ld\n",
			    1700000000000LL + (i * 7919) % 5000, i % 37, i);
	*len = n;
	return d;
}

/* What a source said: each record's kind, time, key and value, and each
 * message, one line each. */
struct said {
	char *buf;
	size_t len, cap;
	uint64_t nrec, nbad, nnote;
	int nomsg;		/* bad records without their messages */
};

static void
say(struct said *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->cap - s->len < 512) {
		s->cap = s->cap ? 2 * s->cap : 1 << 20;
		s->buf = realloc(s->buf, s->cap);
	}
	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

static void
heard(struct said *s, const struct parsed *pr)
{
	switch (pr->kind) {
	case PR_RECORD:
		s->nrec++;
		say(s, "r %lld %.*s %.*s %llx\n", (long long)pr->t,
		    (int)pr->keylen, pr->key, (int)pr->vals[1].n,
		    pr->vals[1].p, (unsigned long long)pr->hash);
		break;
	case PR_BAD:
		s->nbad++;
		say(s, "b %s:%llu %s\n", pr->file, (unsigned long long)pr->line,
		    pr->msg != NULL && !s->nomsg ? pr->msg : "-");
		break;
	case PR_NOTE:
		s->nnote++;
		say(s, "n %.*s", (int)pr->msglen, pr->msg);
		break;
	default:
		say(s, "o\n");
	}
}

/* The input's messages, read here, in their places among the records. */
static void
note(void *arg, const char *line, size_t n)
{
	struct said *s = arg;

	s->nnote++;
	say(s, "n %.*s", (int)n, line);
}

/* Everything src hands over to its end; returns its last word. */
static int
drain(struct source *src, struct said *s)
{
	const struct parsed *pr;
	int rc;

	while ((rc = source_next(src, &pr)) == SOURCE_RECORD)
		heard(s, pr);
	return rc;
}

static struct config c;
static struct fieldref key;
static struct aggspec aggs[2];
static struct aggs *g;

static void
pipeline(char **files, int nfiles)
{
	memset(&c, 0, sizeof(c));
	memset(&key, 0, sizeof(key));
	memset(aggs, 0, sizeof(aggs));
	c.fmt = IF_CSV;
	c.delim = -1;
	key.spec = "2";
	c.keys = &key;
	c.nkeys = 1;
	c.has_time = 1;
	c.time.spec = "1";
	c.wkind = WK_TUMBLE;
	c.size = c.step = 60000000000LL;
	aggs[0].op = agg_lookup("count");
	aggs[1].op = agg_lookup("sum");
	aggs[1].f.spec = "3";
	c.aggs = aggs;
	c.naggs = 2;
	c.files = files;
	c.nfiles = nfiles;
	c.threads = 2;
	CHECK(config_resolve(&c, NULL, 0) == 0);
	g = aggs_new(&c);
}

static struct input *
open_input(void)
{
	struct input_opts io = { .fmt = c.fmt, .delim = c.delim };
	struct input *in = input_open(c.files, c.nfiles, &io);

	parse_fields(&c, in);
	return in;
}

/* The input read here, and on a thread with a pause every few thousand
 * records: the same records and messages in the same places; a pause
 * leaves the input where the last record handed over ends. */
static void
read_here_and_on_a_thread(struct said *here)
{
	struct input *in = open_input();
	struct parser *p = parser_new(&c, g, TF_AUTO, 1, 0);
	struct source *src = source_input(&c, in, p), *th;
	const struct parsed *pr;
	struct said there = { 0 };
	uint64_t n = 0;
	int rc;

	CHECK(!source_reads_ahead(src));
	CHECK(source_pause(src) == 0);	/* nothing read ahead */
	fwin_warn_to(note, here);
	CHECK(drain(src, here) == SOURCE_END);
	fwin_warn_to(NULL, NULL);
	CHECK(here->nrec == NREC - NREC / 1000);
	CHECK(here->nbad == NREC / 1000);
	CHECK(here->nnote == 1);	/* the FILE that is not there */
	CHECK(source_bytes(src) == input_bytes(in));
	source_free(src);
	input_close(in);
	parser_free(p);

	in = open_input();
	p = parser_new(&c, g, TF_AUTO, 1, 0);
	src = source_input(&c, in, p);
	th = source_thread(src, &c, 1);
	CHECK(source_reads_ahead(th));
	for (rc = SOURCE_RECORD; rc == SOURCE_RECORD;) {
		if (++n % 4999 == 0 && source_pause(th)) {
			while ((rc = source_next(th, &pr)) == SOURCE_RECORD)
				heard(&there, pr);
			if (rc == SOURCE_END)	/* it had ended already */
				break;
			CHECK(rc == SOURCE_PAUSED);
			/* the thread stopped at a record's boundary */
			CHECK(source_bytes(th) == input_bytes(in));
			source_resume(th);
		}
		if ((rc = source_next(th, &pr)) == SOURCE_RECORD)
			heard(&there, pr);
	}
	CHECK(rc == SOURCE_END);
	CHECK(source_pause(th) == 0);	/* the end was handed over */
	CHECK(there.len == here->len && memcmp(there.buf, here->buf,
	    here->len) == 0);
	source_free(th);
	source_free(src);
	input_close(in);
	parser_free(p);
	free(there.buf);
}

/* The FILEs read again: the first n records, quietly; fewer there than
 * n is -1; standard input cannot be. */
static void
read_again(const struct said *here)
{
	struct input *in = open_input();
	struct parser *p = parser_new(&c, g, TF_AUTO, 1, 0);
	struct source *src = source_input(&c, in, p), *th, *again;
	const char *nl;
	struct said s = { 0 };
	size_t i;

	th = source_thread(src, &c, 0);
	again = source_rewind(th, 5000, TF_MS);
	CHECK(again != NULL);
	CHECK(drain(again, &s) == SOURCE_END);
	/* the first 5000 lines of what was said, the note left out */
	for (i = 0, nl = here->buf; i < 5000; i++)
		nl = strchr(nl, '\n') + 1;
	CHECK(s.nnote == 0 && s.nrec + s.nbad == 5000);
	CHECK(s.len == (size_t)(nl - here->buf) &&
	    memcmp(s.buf, here->buf, s.len) == 0);
	source_free(again);
	source_free(th);

	s.len = 0;
	again = source_reread(&c, TF_MS, 2 * NREC);
	CHECK(drain(again, &s) == -1);	/* the FILEs changed */
	source_free(again);
	again = source_reread(&c, TF_MS, 0);
	CHECK(drain(again, &s) == SOURCE_END);
	source_free(again);
	source_free(src);
	input_close(in);
	parser_free(p);
	free(s.buf);
}

/* From a cut: the records after it, said as the whole reading says
 * them. */
static void
second_half(const char *path, const char *data, size_t len,
    const struct said *here)
{
	struct input_pos pos;
	struct source *src;
	struct said s = { .nomsg = 1 }, whole = { .nomsg = 1 };
	const char *cut = memchr(data + len / 2, '\n', len / 2) + 1;
	const char *at;
	size_t skip = 0, i;
	struct stat sb;

	CHECK(stat(path, &sb) == 0);
	memset(&pos, 0, sizeof(pos));
	pos.ip_dev = (uint64_t)sb.st_dev;
	pos.ip_ino = (uint64_t)sb.st_ino;
	pos.ip_isreg = 1;
	pos.ip_off = (uint64_t)(cut - data);
	for (at = data; at < cut; at = strchr(at, '\n') + 1)
		skip++;
	pos.ip_lines = skip;	/* (line numbers in messages go on) */
	src = source_half(&c, TF_MS, 0, &pos);
	CHECK(drain(src, &s) == SOURCE_END);
	source_free(src);
	/* what the whole reading says after that many lines (bad records'
	 * messages aside: a second parser says its first ten) */
	src = source_reread(&c, TF_MS, NREC);
	CHECK(drain(src, &whole) == SOURCE_END);
	source_free(src);
	CHECK(whole.len > 0 && whole.nrec == here->nrec);
	for (i = 0, at = whole.buf; i < skip; i++)
		at = strchr(at, '\n') + 1;
	CHECK(s.nrec + s.nbad == NREC - skip);
	CHECK(s.len == whole.len - (size_t)(at - whole.buf) &&
	    memcmp(s.buf, at, s.len) == 0);
	free(whole.buf);
	free(s.buf);
}

/* Batch mode's records back in time order, here and on a thread: the
 * same, with their keys' hashes. */
static void
sorted(void)
{
	struct batch *b = batch_new(&c, (uint64_t)1 << 26);
	struct said here = { 0 }, there = { 0 };
	struct source *src, *th;
	struct aval v[2];
	char k[16], num[16];
	int64_t last = INT64_MIN;
	const char *p;
	long i;

	memset(v, 0, sizeof(v));
	for (i = 0; i < NREC; i++) {
		snprintf(k, sizeof(k), "k%ld", i % 37);
		snprintf(num, sizeof(num), "%ld", i);
		v[1].p = num;
		v[1].n = strlen(num);
		v[1].d = (double)i;
		CHECK(batch_add(b, (i * 7919) % 5000, k, strlen(k), v) ==
		    BATCH_OK);
	}
	src = source_sorted(b);
	CHECK(source_rewind(src, 10, TF_MS) == NULL);
	CHECK(drain(src, &here) == SOURCE_END);
	CHECK(here.nrec == NREC);
	for (p = here.buf; p < here.buf + here.len; p = strchr(p, '\n') + 1) {
		long long t = atoll(p + 2);

		CHECK(t >= last);
		last = t;
	}
	source_free(src);
	batch_free(b);

	b = batch_new(&c, 4096);	/* spilled runs, merged on a thread */
	for (i = 0; i < NREC; i++) {
		snprintf(k, sizeof(k), "k%ld", i % 37);
		snprintf(num, sizeof(num), "%ld", i);
		v[1].p = num;
		v[1].n = strlen(num);
		v[1].d = (double)i;
		CHECK(batch_add(b, (i * 7919) % 5000, k, strlen(k), v) ==
		    BATCH_OK);
	}
	src = source_sorted(b);
	th = source_thread(src, &c, 0);
	CHECK(drain(th, &there) == SOURCE_END);
	CHECK(there.len == here.len &&
	    memcmp(there.buf, here.buf, here.len) == 0);
	source_free(th);
	source_free(src);
	batch_free(b);
	free(here.buf);
	free(there.buf);
}

int
main(void)
{
	size_t len;
	char *data = make_data(&len);
	char *path = tmpfile_s(data, len);
	char *files[2] = { path, (char *)"/nonexistent/fwin-test-source" };
	struct said here = { 0 };

	pipeline(files, 2);
	read_here_and_on_a_thread(&here);
	read_again(&here);
	aggs_free(g);
	pipeline(files, 1);
	second_half(path, data, len, &here);
	sorted();
	aggs_free(g);
	free(here.buf);
	free(data);
	while (ntmp > 0)
		unlink(tmps[--ntmp]), free(tmps[ntmp]);
	return unit_done("test_source");
}
