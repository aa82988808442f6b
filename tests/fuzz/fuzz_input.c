/*
 * Fuzz target "input": the record framers (lines, csv, tsv, json) through
 * input_open / input_header / input_next.
 *
 * Data layout: six option bytes, then the bytes of the input.
 *	b0	bits 0-1 format (lines, csv, tsv, json: paths a, b.c, a;
 *		json has no -H and no delimiter), bit 2 -H,
 *		bit 3 two FILEs, bit 4 pass B stops early
 *	b1	delimiter: 0 the format's default, else that byte (the bytes
 *		fwin's -d refuses, '\n' '\r' '"', mean the default)
 *	b2	maxfields (low 3 bits; 0 is all)
 *	b3	pipe chunk sizes (seed)
 *	b4	where the input splits between the two FILEs
 *	b5	the record after which a resumed pass starts
 *
 * Each input is read four ways, and all must agree record for record
 * (fields, raw text, line, file, offset, error):
 *	A  regular files (seekable, read(2) never blocks)
 *	B  pipes fed a few bytes at a time whenever input_next says
 *	   INPUT_WAIT, so records are cut at every possible place by the reads
 *	C  regular files resumed (input_resume) at the positions A reported
 *	   after record k: must give A's records after k
 *	D  pipes resumed the same way (the consumed bytes read and dropped)
 * With b0 bit 4, pass B stops reading after a few waits: what it got
 * must be a prefix of A's records.
 *
 * Per record: at most maxfields fields; for lines and tsv (and csv
 * records without a quote) every field lies inside the raw record, holds
 * no separator, and the fields joined by the separator give the raw
 * record back.
 */
#include "fuzz.h"

#include "io/input.h"

#define MAXFILES 2

static const char *const json_paths[] = { "a", "b.c", "a" };

/* A record list, serialised for comparison. */
struct sbuf {
	char *p;
	size_t n, cap;
	size_t *recs;		/* start of each record */
	size_t nrec, caprec;
};

static void
sb_put(struct sbuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		while (b->n + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
sb_u64(struct sbuf *b, uint64_t v)
{
	sb_put(b, &v, sizeof(v));
}

static void
sb_mark(struct sbuf *b)
{
	if (b->nrec == b->caprec) {
		b->caprec = b->caprec ? b->caprec * 2 : 64;
		if ((b->recs = realloc(b->recs, b->caprec * sizeof(*b->recs))) ==
		    NULL)
			abort();
	}
	b->recs[b->nrec++] = b->n;
}

static void
sb_free(struct sbuf *b)
{
	free(b->p);
	free(b->recs);
	memset(b, 0, sizeof(*b));
}

/* The bytes from record k on (the whole buffer's end when k == nrec). */
static const char *
sb_from(const struct sbuf *b, size_t k, size_t *n)
{
	size_t at = k < b->nrec ? b->recs[k] : b->n;

	*n = b->n - at;
	return b->p + at;
}

/* --- the pipes of pass B / D --- */

struct feed {
	int nfiles;
	int wfd[MAXFILES];		/* write ends, -1 once closed */
	const uint8_t *p[MAXFILES];	/* what is left to write */
	size_t left[MAXFILES];
	int cur;			/* the file being fed */
	uint32_t rng;
	unsigned maxchunk;
	int waits, stop_after;		/* stop_after < 0: never stop */
};

static size_t
chunk(struct feed *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 17;
	f->rng ^= f->rng << 5;
	return 1 + f->rng % f->maxchunk;
}

/* Writes the next few bytes of file i, or closes its pipe at its end. */
static void
feed_one(struct feed *f, int i)
{
	size_t n;

	if (f->wfd[i] < 0)
		return;
	if (f->left[i] == 0) {
		close(f->wfd[i]);
		f->wfd[i] = -1;
		return;
	}
	n = chunk(f);
	if (n > f->left[i])
		n = f->left[i];
	fz_write_all(f->wfd[i], f->p[i], n);
	f->p[i] += n;
	f->left[i] -= n;
}

/* INPUT_WAIT: the reader has drained the pipe it reads. Files are read
 * in order, so it is the first pipe still open. Returns -1 to stop. */
static int
feed_wait(struct feed *f)
{
	if (f->stop_after >= 0 && f->waits++ >= f->stop_after)
		return -1;
	while (f->cur < f->nfiles && f->wfd[f->cur] < 0)
		f->cur++;
	if (f->cur < f->nfiles)
		feed_one(f, f->cur);
	return 0;
}

/* input_header and input_next, feeding the pipes while they wait; a
 * stopped read ends as input does (0). */
static int
fed_header(struct input *in, struct feed *f, const struct field **hn,
    size_t *nh)
{
	int rc;

	while ((rc = input_header(in, hn, nh)) == INPUT_WAIT)
		if (feed_wait(f) != 0)
			return 0;
	return rc;
}

static int
fed_next(struct input *in, struct feed *f, struct record *r)
{
	int rc;

	while ((rc = input_next(in, r)) == INPUT_WAIT)
		if (feed_wait(f) != 0)
			return 0;
	return rc;
}

/* Whether p[0..n) is only empty lines ("\n", "\r\n", or a last "\r"),
 * lines of blanks and CRs for json, after a byte order mark when at_start
 * (the file's first byte): no records. */
static int
blank_lines(const uint8_t *p, size_t n, int json, int at_start)
{
	size_t i = 0;

	/* a byte order mark at a file's start is skipped, as no record */
	if (at_start && n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (; i < n; i++)
		if (p[i] != '\n' && !(p[i] == '\r' &&
		    (json || i + 1 == n || p[i + 1] == '\n')) &&
		    !(json && (p[i] == ' ' || p[i] == '\t')))
			return 0;
	return 1;
}

/* --- one pass --- */

struct params {
	struct input_opts o;
	size_t maxfields;
	int nfiles;
	const uint8_t *p[MAXFILES];
	size_t n[MAXFILES];
};

/* The separator of a non-quoted record, or -1 for runs of blanks. */
static int
separator(const struct params *pp)
{
	if (pp->o.delim >= 0)
		return pp->o.delim;
	if (pp->o.fmt == IF_CSV)
		return ',';
	if (pp->o.fmt == IF_TSV)
		return '\t';
	return -1;
}

static void
check_record(const struct params *pp, const struct record *r, int hdr)
{
	int sep = separator(pp);
	size_t i, at;
	const char *raw = r->raw;

	if (r->bad != NULL || pp->o.fmt == IF_JSON)
		return;		/* json: values may be unescaped copies */
	if (!hdr && pp->maxfields != 0 && r->nf > pp->maxfields)
		fz_fail("%zu fields split, maxfields %zu", r->nf, pp->maxfields);
	if (pp->o.fmt == IF_CSV && memchr(raw, '"', r->rawlen) != NULL)
		return;		/* quoted: fields are unquoted copies */
	if (memchr(raw, '\n', r->rawlen) != NULL)
		fz_fail("a newline inside an unquoted record");
	at = 0;
	for (i = 0; i < r->nf; i++) {
		const struct field *f = &r->f[i];

		if (f->p < raw || f->p + f->n > raw + r->rawlen)
			fz_fail("field %zu is not inside the record", i);
		if (sep < 0) {
			if (f->n == 0 || memchr(f->p, ' ', f->n) != NULL ||
			    memchr(f->p, '\t', f->n) != NULL)
				fz_fail("blank-split field %zu is empty or "
				    "holds a blank", i);
			continue;
		}
		if (memchr(f->p, sep, f->n) != NULL)
			fz_fail("field %zu holds its separator", i);
		/* joined by the separator, the fields are the record */
		if ((size_t)(f->p - raw) != at)
			fz_fail("field %zu does not start where field %zu "
			    "ended", i, i - 1);
		at += f->n;
		if (i + 1 < r->nf) {
			if (at >= r->rawlen || (unsigned char)raw[at] != sep)
				fz_fail("no separator after field %zu", i);
			at++;
		}
	}
	if (sep >= 0 && !hdr && (pp->maxfields == 0 || r->nf < pp->maxfields) &&
	    at != r->rawlen)
		fz_fail("the fields do not cover the record");
}

static void
serialise(struct sbuf *b, const struct input *in, const struct record *r,
    int rc)
{
	size_t i;

	sb_mark(b);
	sb_u64(b, (uint64_t)rc);
	if (rc <= 0)
		return;
	sb_u64(b, r->line);
	sb_u64(b, (uint64_t)input_file_index(in));
	sb_u64(b, input_offset(in));
	sb_u64(b, r->rawlen);
	sb_put(b, r->raw, r->rawlen);
	if (r->bad != NULL) {
		sb_put(b, "B", 1);
		sb_put(b, r->bad, strlen(r->bad));
		return;
	}
	sb_u64(b, r->nf);
	for (i = 0; i < r->nf; i++) {
		sb_u64(b, r->f[i].n);
		sb_put(b, r->f[i].p, r->f[i].n);
	}
}

/*
 * Reads the whole input into out (the header, then each record and the
 * final return code). pipes: read from pipes fed by f; else from the
 * regular files. resume/nresume: input_resume() positions. With pos, the
 * positions after each record are kept there (pos[k * nfiles + i] after
 * k records).
 */
static void
pass(const struct params *pp, int pipes, struct feed *f,
    const struct input_pos *resume, struct sbuf *out, struct input_pos **pos)
{
	char names[MAXFILES][64];
	char *files[MAXFILES];
	int rfd[MAXFILES], i, rc;
	struct input_opts o = pp->o;
	struct input *in;
	const struct field *hn;
	struct record r;
	size_t nh, k = 0, cap = 0, nmsg;
	const char *path;
	char *msg;
	FILE *errfp;

	for (i = 0; i < pp->nfiles; i++) {
		if (pipes) {
			int fds[2];

			if (pipe2(fds, O_CLOEXEC) != 0)
				abort();
			rfd[i] = fds[0];
			f->wfd[i] = fds[1];
			f->p[i] = pp->p[i];
			f->left[i] = pp->n[i];
		} else {
			char nm[16];

			snprintf(nm, sizeof(nm), "in%d", i);
			path = fz_path(i, nm);
			fz_put_file(path, pp->p[i], pp->n[i], 0);
			if ((rfd[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				abort();
		}
		/* the same open file: a regular file keeps its identity */
		snprintf(names[i], sizeof(names[i]), "/proc/self/fd/%d", rfd[i]);
		files[i] = names[i];
	}
	if (pipes) {
		f->nfiles = pp->nfiles;
		f->cur = 0;
		for (i = 0; i < pp->nfiles; i++)
			feed_one(f, i);
		o.may_wait = 1;
	}
	o.maxfields = 0;
	/* what the input says on stderr is checked below */
	if ((errfp = fopen(fz_path(2, "stderr"), "w+")) == NULL)
		abort();
	fz_stderr_to(errfp);
	in = input_open(files, pp->nfiles, &o);
	if (o.fmt == IF_JSON)
		input_set_paths(in, json_paths, 3);
	if (resume != NULL)
		input_resume(in, resume, pp->nfiles);
	rc = fed_header(in, f, &hn, &nh);
	sb_u64(out, (uint64_t)rc);
	if (rc == 1) {
		sb_u64(out, nh);
		for (i = 0; (size_t)i < nh; i++) {
			sb_u64(out, hn[i].n);
			sb_put(out, hn[i].p, hn[i].n);
			if (hn[i].p[hn[i].n] != '\0')
				fz_fail("header name %d not NUL-terminated", i);
		}
	}
	input_set_maxfields(in, pp->maxfields);
	for (;;) {
		if (pos != NULL) {
			if (k == cap) {
				cap = cap ? cap * 2 : 64;
				*pos = realloc(*pos, cap * pp->nfiles *
				    sizeof(**pos));
				if (*pos == NULL)
					abort();
			}
			memcpy(*pos + k * pp->nfiles, input_positions(in),
			    pp->nfiles * sizeof(**pos));
		}
		rc = fed_next(in, f, &r);
		serialise(out, in, &r, rc);
		if (rc <= 0)
			break;
		if (r.file == NULL || strcmp(r.file, files[input_file_index(in)]))
			fz_fail("record names the wrong file");
		check_record(pp, &r, 0);
		k++;
	}
	/* at the end, every file is consumed through its last record: what
	 * follows can only be empty lines, which are no records */
	if (rc == 0 && !input_failed(in) && !(pipes && f->stop_after >= 0)) {
		const struct input_pos *ip = input_positions(in);

		for (i = 0; i < pp->nfiles; i++)
			if (ip[i].ip_off > pp->n[i] || !blank_lines(pp->p[i] +
			    ip[i].ip_off, pp->n[i] - ip[i].ip_off,
			    pp->o.fmt == IF_JSON, ip[i].ip_off == 0))
				fz_fail("file %d: %llu of %zu bytes consumed",
				    i, (unsigned long long)ip[i].ip_off,
				    pp->n[i]);
	}
	if (input_failed(in))
		fz_fail("input_failed() on a fuzz file");
	input_close(in);
	fz_stderr_back();
	msg = fz_slurp_fd(fileno(errfp), &nmsg);
	fclose(errfp);
	if (getenv("FWIN_FUZZ_STDERR") != NULL)
		fwrite(msg, 1, nmsg, stderr);
	/* the resumed input is the very input: it never ends early */
	if (memmem(msg, nmsg, "before its checkpoint position", 30) != NULL)
		fz_fail("resumed input said it ended before its position");
	free(msg);
	for (i = 0; i < pp->nfiles; i++) {
		close(rfd[i]);
		if (pipes && f->wfd[i] >= 0) {
			close(f->wfd[i]);
			f->wfd[i] = -1;
		}
	}
}

static void
same(const char *what, const char *a, size_t na, const char *b, size_t nb)
{
	size_t i;

	if (na == nb && memcmp(a, b, na) == 0)
		return;
	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		;
	fz_fail("%s: the records differ (at byte %zu of %zu / %zu)", what, i,
	    na, nb);
}

/* Whether b is a prefix of a, but for b's final return code. */
static void
prefix(const struct sbuf *a, const struct sbuf *b)
{
	size_t nb = b->nrec > 0 ? b->recs[b->nrec - 1] : b->n;

	if (b->nrec <= 1)
		return;		/* stopped before any record: maybe before
				   the header too */
	if (nb > a->n || memcmp(a->p, b->p, nb) != 0)
		fz_fail("a stopped read is not a prefix of the whole");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_bytes hb = { data, size < 6 ? size : 6 };
	struct params pp;
	struct feed f;
	struct sbuf a = { 0 }, b = { 0 }, c = { 0 };
	struct input_pos *pos = NULL;
	unsigned b0, b1, b3, b4, b5;
	size_t n, k, hdrlen_a, nrec;
	const uint8_t *p;
	const char *tail;

	b0 = fz_byte(&hb);
	b1 = fz_byte(&hb);
	memset(&pp, 0, sizeof(pp));
	pp.maxfields = fz_byte(&hb) & 7;
	b3 = fz_byte(&hb);
	b4 = fz_byte(&hb);
	b5 = fz_byte(&hb);
	p = data + (size < 6 ? size : 6);
	n = size < 6 ? 0 : size - 6;

	pp.o.fmt = (b0 & 3) == 1 ? IF_CSV : (b0 & 3) == 2 ? IF_TSV :
	    (b0 & 3) == 3 ? IF_JSON : IF_LINES;
	pp.o.header = (b0 >> 2) & 1;
	pp.o.delim = b1 == 0 || b1 == '\n' || b1 == '\r' || b1 == '"' ?
	    -1 : (int)b1;
	if (pp.o.fmt == IF_JSON) {	/* as fwin's options allow */
		pp.o.header = 0;
		pp.o.delim = -1;
	}
	pp.nfiles = (b0 >> 3) & 1 ? 2 : 1;
	pp.p[0] = p;
	pp.n[0] = n;
	if (pp.nfiles == 2) {
		pp.n[0] = n * b4 / 256;
		pp.p[1] = p + pp.n[0];
		pp.n[1] = n - pp.n[0];
	}

	/* A: regular files, keeping the positions after each record */
	pass(&pp, 0, NULL, NULL, &a, &pos);
	nrec = a.nrec;		/* records, and the final return code */
	hdrlen_a = a.nrec > 0 ? a.recs[0] : a.n;

	/* B: pipes, cut anywhere */
	memset(&f, 0, sizeof(f));
	f.rng = 0x9e3779b9u ^ (b3 * 0x01000193u) ^ (uint32_t)n;
	f.maxchunk = 1 + (b3 % 67);
	f.stop_after = (b0 >> 4) & 1 ? (int)(b3 % 5) : -1;
	pass(&pp, 1, &f, NULL, &b, NULL);
	if (f.stop_after >= 0)
		prefix(&a, &b);
	else
		same("pipe", a.p, a.n, b.p, b.n);
	sb_free(&b);

	/* C, D: resumed after record k (k of the nrec - 1 records) */
	k = nrec > 0 ? b5 % nrec : 0;
	if (nrec > 1 && k > 0) {
		const char *ta;
		size_t nta, ntc;

		ta = sb_from(&a, k, &nta);
		pass(&pp, 0, NULL, pos + k * pp.nfiles, &c, NULL);
		/* the header is read again; the records are those after k */
		tail = sb_from(&c, 0, &ntc);
		same("resumed file", ta, nta, tail, ntc);
		if (c.nrec > 0 && (c.recs[0] != hdrlen_a ||
		    memcmp(c.p, a.p, hdrlen_a) != 0))
			fz_fail("resumed file: the header differs");
		sb_free(&c);

		memset(&f, 0, sizeof(f));
		f.rng = 0x85ebca6bu ^ (b3 * 0x01000193u) ^ (uint32_t)k;
		f.maxchunk = 1 + (b3 % 67);
		f.stop_after = -1;
		pass(&pp, 1, &f, pos + k * pp.nfiles, &c, NULL);
		tail = sb_from(&c, 0, &ntc);
		same("resumed pipe", ta, nta, tail, ntc);
		sb_free(&c);
	}
	sb_free(&a);
	free(pos);
	return 0;
}
