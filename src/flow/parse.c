/* parse: a record's key, time and values; see parse.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fieldcount.h"
#include "io/json.h"
#include "pipeline/expr.h"
#include "io/keycodec.h"
#include "base/num.h"
#include "flow/parse.h"
#include "base/timefmt.h"
#include "base/util.h"

struct parser {
	const struct config *c;
	const struct aggs *g;
	int uses_time, moves_wm;
	int delim;		/* csv or tsv: the fields' separator */
	int fmt;		/* the input's time format so far */
	uint64_t unit;		/* count_time()'s: ns a unit of it, or 0 */
	uint64_t nbad;		/* bad records met: past the messages said,
				   no message is written */
	size_t *keyidx;		/* the key fields' columns */
	char *keybuf;
	size_t keycap;
	char *tbuf;		/* -t F1,F2,...: the fields joined */
	size_t tcap;
	char *tname;		/* ... and their name, "F1,F2" */
	struct aval *sets;	/* PARSE_SETS sets of values (parse_record), */
	size_t setlen;		/* each of setlen */
	struct aval *vals;	/* the set of the record being parsed */
	int plain;		/* parse_plain() may take its records */
	/* ... and its values: the aggregates that take a FIELD (index,
	 * field, how aggs_extract() reads it), when each is read one of
	 * these ways and has no --if */
	struct take {
		size_t agg, field;
		enum { TAKE_DEC, TAKE_NUM, TAKE_TEXT } how;
	} *takes;
	size_t ntakes;
	enum {
		TAKES_DECS,	/* each a TAKE_DEC */
		TAKES_MIXED,	/* another too */
		TAKES_NONE	/* not so: aggs_extract() reads them */
	} takes_are;
	struct xvm *vm;		/* --where, --if: their evaluator */
	int conds;		/* some aggregate has an --if */
	struct xslice *xs;	/* ... and the fields they name */
	int wquick;		/* --where alone, a field against an integer */
	struct xquick wq;	/* ... (expr_quick()) */
	struct num_head thead;	/* count_time(): the last time's digits */
	char msg[512];
};

static uint64_t time_unit(const struct parser *p);

struct parser *
parser_new(const struct config *c, const struct aggs *g, int timefmt,
    int uses_time, int moves_wm)
{
	struct parser *p;
	size_t i, len;

	/* on cache lines of its own, as what it writes at every record is
	 * (its values, its expressions' fields and machine): a reading
	 * thread, or a half's, writes them, and no other thread's data may
	 * share their lines */
	p = xcalloc_lines(sizeof(*p));
	p->c = c;
	p->g = g;
	p->fmt = timefmt;
	p->unit = time_unit(p);
	p->uses_time = uses_time;
	p->moves_wm = moves_wm;
	p->delim = c->delim >= 0 ? c->delim : c->fmt == IF_CSV ? ',' : '\t';
	p->keyidx = xmalloc((c->nkeys ? c->nkeys : 1) * sizeof(*p->keyidx));
	for (i = 0; i < c->nkeys; i++)
		p->keyidx[i] = c->keys[i].idx;
	p->setlen = c->naggs ? c->naggs : 1;
	p->sets = xcalloc_lines(PARSE_SETS * p->setlen * sizeof(*p->sets));
	p->vals = p->sets;
	if (c->has_time && c->ntime_more > 0) {	/* "date,time" in messages */
		len = strlen(c->time.name) + 1;
		for (i = 0; i < c->ntime_more; i++)
			len += strlen(c->time_more[i].name) + 1;
		p->tname = xmalloc(len);
		len = (size_t)sprintf(p->tname, "%s", c->time.name);
		for (i = 0; i < c->ntime_more; i++)
			len += (size_t)sprintf(p->tname + len, ",%s",
			    c->time_more[i].name);
	}
	p->conds = config_has_cond(c);
	if (c->where != NULL || p->conds) {
		p->vm = xvm_new();
		p->xs = xcalloc_lines((c->nxfields ? c->nxfields : 1) *
		    sizeof(*p->xs));
	}
	p->wquick = c->where != NULL && !p->conds &&
	    expr_quick(c->where, &p->wq);
	p->plain = c->nkeys == 1 && c->part_n <= 1 &&
	    uses_time && c->has_time;
	p->takes = xcalloc_lines((c->naggs ? c->naggs : 1) *
	    sizeof(*p->takes));
	for (i = 0; i < c->naggs; i++) {
		unsigned fl = c->aggs[i].op->flags & (AGF_FIELD | AGF_NUMBER |
		    AGF_DEC | AGF_OUT | AGF_RECORD);
		struct take *tk = &p->takes[p->ntakes];

		if (!aggspec_valued(&c->aggs[i]))
			continue;
		if (fl == (AGF_FIELD | AGF_NUMBER | AGF_DEC))
			tk->how = TAKE_DEC;	/* sum, avg, stddev */
		else if (fl == (AGF_FIELD | AGF_NUMBER))
			tk->how = TAKE_NUM;	/* min, percentiles */
		else if (fl == AGF_FIELD)
			tk->how = TAKE_TEXT;	/* first, approx-distinct */
		else
			fl = 0;
		if (fl == 0 || c->aggs[i].cond != NULL) {
			p->takes_are = TAKES_NONE;
			break;
		}
		if (tk->how != TAKE_DEC)
			p->takes_are = TAKES_MIXED;
		tk->agg = i;
		tk->field = c->aggs[i].f.idx;
		p->ntakes++;
	}
	return p;
}

void
parser_free(struct parser *p)
{
	if (p == NULL)
		return;
	free(p->keyidx);
	free(p->keybuf);
	free(p->tbuf);
	free(p->tname);
	free(p->sets);
	free(p->takes);
	xvm_free(p->vm);
	free(p->xs);
	free(p);
}

const char *
parse_time_name(const struct parser *p)
{
	return p->tname != NULL ? p->tname : p->c->time.name;
}

/* A field's name as a message shows it: a quoted CSV header's name may
 * hold a line end or another control byte, and a message is one line
 * (fwin(1): DIAGNOSTICS); such bytes are shown as '?', as in a value. */
static const char *
shown_name(char *buf, size_t bufsz, const char *name)
{
	if (name == NULL)	/* (a parser made without names: tests) */
		return "?";
	return shown_bytes(buf, bufsz, name, strlen(name));
}

void
say_field(char *buf, size_t bufsz, const char *name, const char *what,
    const char *v, size_t n)
{
	char q[40 + 4], nb[256];	/* (a value's first 40 bytes) */

	snprintf(buf, bufsz, "field %s: %s \"%s\"", shown_name(nb,
	    sizeof(nb), name), what, shown_value(q, 40, v, n));
}

/* The record is bad: counted. Returns whether the driver will still say
 * why (the message is then to be written into p->msg). */
static int
count_bad(struct parser *p, struct parsed *out)
{
	out->kind = PR_BAD;
	out->msg = NULL;
	return ++p->nbad <= MAX_BAD_MESSAGES || p->c->strict;
}

static void
said(struct parser *p, struct parsed *out)
{
	out->msg = p->msg;
	out->msglen = strlen(p->msg);
}

/* The record is bad for the reason fmt says. */
static void __attribute__((format(printf, 3, 4)))
say_bad(struct parser *p, struct parsed *out, const char *fmt, ...)
{
	va_list ap;

	if (!count_bad(p, out))
		return;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	said(p, out);
}

/* Field name is missing (v NULL), or its value v is what. */
static void
bad_field(struct parser *p, const struct record *rec, struct parsed *out,
    const char *name, const char *what, const struct field *v)
{
	char nb[256];

	if (v == NULL) {
		say_bad(p, out, "field %s: missing (record has %zu field%s)",
		    shown_name(nb, sizeof(nb), name), rec->nf,
		    rec->nf == 1 ? "" : "s");
		return;
	}
	if (!count_bad(p, out))
		return;
	say_field(p->msg, sizeof(p->msg), name, what, v->p, v->n);
	said(p, out);
}

/* --max-future: a time too far ahead of the clock is bad, so that one
 * corrupt time cannot push the watermark past every later record. */
static void
too_far(struct parser *p, struct parsed *out, int64_t t)
{
	char when[TF_BUFSZ], ahead[TF_BUFSZ];

	tf_format_rough(ahead, sat_add(t, -now_ns()));
	when[tf_format(when, t, TF_ISO)] = '\0';
	say_bad(p, out, "time %s is %s in the future", when, ahead);
}

/* -t F1,F2,...: the fields joined by one space, in a buffer that is kept
 * and grown. Returns 0, or -1: a field is missing (said, unless quiet). */
static int
join_time(struct parser *p, const struct record *rec, struct parsed *out,
    int quiet)
{
	const struct config *c = p->c;
	const struct field *f;
	size_t i, len;

	len = rec->f[c->time.idx].n;
	for (i = 0; i < c->ntime_more; i++) {
		if (c->time_more[i].idx >= rec->nf) {
			if (!quiet)
				bad_field(p, rec, out, c->time_more[i].name,
				    "missing", NULL);
			return -1;
		}
		len += 1 + rec->f[c->time_more[i].idx].n;
	}
	if (len > p->tcap)
		xgrow(&p->tbuf, &p->tcap, len, 1);
	f = &rec->f[c->time.idx];
	memcpy(p->tbuf, f->p, f->n);
	len = f->n;
	for (i = 0; i < c->ntime_more; i++) {
		f = &rec->f[c->time_more[i].idx];
		p->tbuf[len++] = ' ';
		memcpy(p->tbuf + len, f->p, f->n);
		len += f->n;
	}
	out->tval = p->tbuf;
	out->tvaln = len;
	return 0;
}

/* Nanoseconds per unit of the formats that count units (timefmt.h's
 * enum tfmt), 0 for the others. */
static const uint64_t count_unit[] = {
	[TF_S] = NS_PER_S, [TF_MS] = 1000000, [TF_US] = 1000, [TF_NS] = 1,
	[TF_ISO] = 0, [TF_STRPTIME] = 0,
};

/* The nanoseconds of a unit of the time that count_time() reads in one
 * pass: of a format that counts units, in one field, without
 * --max-future (which the long way sees to); 0 for any other. */
static uint64_t
time_unit(const struct parser *p)
{
	return p->c->ntime_more != 0 || p->c->max_future != 0 ? 0 :
	    count_unit[p->fmt];
}

/* A time's message, by tf_why_bad(). */
static const char *const bad_time_why[] = {
	[TF_BAD_TIME] = "bad time",
	[TF_BAD_RANGE] = "time out of range (1677-09-21 to 2262-04-11)",
	[TF_BAD_ZONE] = "time zone name (%Z) is not UTC, GMT or one the "
	    "--tz zone uses",
};

/* Reads the record's event time into out->t. Returns 0, or -1: the
 * record is bad (said, unless quiet: a record of another partition). */
static int
record_time(struct parser *p, const struct record *rec, struct parsed *out,
    int quiet)
{
	const struct config *c = p->c;
	const char *name;
	struct field f;
	char nb[256];
	int fmt;

	if (c->time.idx >= rec->nf) {
		if (!quiet)
			bad_field(p, rec, out, c->time.name, "missing", NULL);
		return -1;
	}
	out->tval = rec->f[c->time.idx].p;
	out->tvaln = rec->f[c->time.idx].n;
	name = parse_time_name(p);
	if (c->ntime_more > 0 && join_time(p, rec, out, quiet) != 0)
		return -1;
	f.p = out->tval;
	f.n = out->tvaln;
	fmt = p->fmt;
	if ((fmt == TF_AUTO && (fmt = tf_detect(f.p, f.n)) == TF_AUTO) ||
	    tf_parse_time_tz(f.p, f.n, (enum tfmt)fmt, c->strp, &c->zone,
	    &out->t) != 0) {
		if (!quiet) {
			/* (a JSON member missing or null is no time at all) */
			if (c->fmt == IF_JSON && json_absent(f.p))
				say_bad(p, out, "field %s: missing or null",
				    shown_name(nb, sizeof(nb), name));
			else
				bad_field(p, rec, out, name, bad_time_why[
				    tf_why_bad(f.p, f.n, (enum tfmt)p->fmt,
				    c->strp, &c->zone)], &f);
			out->bad_time = 1;
		}
		return -1;
	}
	if (c->max_future > 0 && out->t > sat_add(now_ns(), c->max_future)) {
		if (!quiet)
			too_far(p, out, out->t);
		return -1;
	}
	if (p->fmt == TF_AUTO) {
		p->fmt = out->fmt = fmt;
		p->unit = time_unit(p);
	}
	return 0;
}

/* record_time()'s common case, inline: a count of a known unit in up
 * to 18 plain digits, read as tf_parse_time_tz() reads it. Returns 0
 * with out->t, or -1 for record_time() to take the long way. */
static inline __attribute__((always_inline)) int
count_time(struct parser *p, const struct record *rec,
    struct parsed *out)
{
	const struct config *c = p->c;
	const struct field *f;
	uint64_t unit = p->unit, v;

	if (unit == 0 || c->time.idx >= rec->nf)
		return -1;
	f = &rec->f[c->time.idx];
	if (f->n - 1 >= 18 || num_digits_near(f->p, f->n, &v, &p->thead) !=
	    f->n ||
	    __builtin_mul_overflow(v, unit, &v) || v > INT64_MAX)
		return -1;
	out->tval = f->p;
	out->tvaln = f->n;
	out->t = (int64_t)v;
	return 0;
}

/*
 * --partition I/N (the man page's BEYOND ONE MACHINE): a key group g
 * belongs to partition g * N / KEY_GROUPS + 1, Flink's assignment of key
 * groups to parallel instances.
 */
static int
partition_mine(const struct config *c, uint64_t hash)
{
	return c->part_n <= 1 ||
	    key_group(hash) * c->part_n / KEY_GROUPS + 1 == c->part_i;
}

void
parse_fields(const struct config *c, struct input *in)
{
	if (c->fmt == IF_JSON)
		input_set_paths(in, c->paths, c->npaths);
	input_set_maxfields(in, config_maxfield(c));
}

/* A field's text as an integer of up to 8 digits, a sign before them or
 * not, read as expr_test() reads one, in one load (the field's
 * FIELD_PAD bytes are readable): 1 with *x, or 0 for any other text. */
static inline int
field_int(const struct field *f, int64_t *x)
{
	size_t i = f->n > 0 && (f->p[0] == '-' || f->p[0] == '+');
	uint64_t v;

	if (f->n - i - 1 >= 8 || !num_short_digits(f->p + i, f->n - i, &v))
		return 0;
	*x = f->p[0] == '-' ? -(int64_t)v : (int64_t)v;
	return 1;
}

/* --where and --if, after the record's time, key and values are read
 * (a record bad in those is bad, whatever --where says). Returns
 * whether --where keeps the record; an aggregate whose --if is not true
 * gets NULL, which every aggregate skips (count too, when it has an
 * --if: its value is then a mark). */
static inline __attribute__((always_inline)) int
conditions(struct parser *p, const struct record *rec)
{
	static const char mark[] = "1";
	const struct config *c = p->c;
	size_t i, idx;
	int64_t x;

	if (p->wquick && (idx = c->xfields[p->wq.slot].f.idx) < rec->nf &&
	    field_int(&rec->f[idx], &x))	/* $3 >= 0, in place */
		return expr_quick_holds(&p->wq, x);
	for (i = 0; i < c->nxfields; i++) {	/* missing is NULL */
		idx = c->xfields[i].f.idx;
		p->xs[i].p = idx < rec->nf ? rec->f[idx].p : NULL;
		p->xs[i].n = idx < rec->nf ? rec->f[idx].n : 0;
	}
	if (c->where != NULL && expr_test(c->where, p->vm, p->xs) != 1)
		return 0;
	for (i = 0; p->conds && i < c->naggs; i++) {
		if (c->aggs[i].cond == NULL)
			continue;
		if (expr_test(c->aggs[i].cond, p->vm, p->xs) != 1) {
			p->vals[i].p = NULL;
			p->vals[i].n = 0;
		} else if (!(c->aggs[i].op->flags & AGF_FIELD)) {
			p->vals[i].p = mark;	/* (it travels as a value) */
			p->vals[i].n = 0;
			p->vals[i].d = 0;
			p->vals[i].is_dec = 0;
		}
	}
	return 1;
}

/* What every parse of rec sets in *out alike: a record of kind kind,
 * yet without a message or a window (its time, key and values are
 * another step's). */
static inline void
parsed_of(const struct parser *p, const struct record *rec,
    struct parsed *out, enum parsed_kind kind)
{
	out->kind = kind;
	out->has_t = 0;
	out->has_win = 0;
	out->fmt = TF_AUTO;
	out->bad_time = 0;
	out->vals = p->vals;
	out->raw = rec->raw;
	out->rawlen = rec->rawlen;
	out->file = rec->file;
	out->line = rec->line;
	out->msg = NULL;
	out->msglen = 0;
}

/* parse_plain()'s values, as aggs_extract() reads a plain decimal, a
 * number or a text (decs_only: each a plain decimal, TAKES_DECS).
 * Returns 1, or 0 for a value that is not such, which the long way
 * reads. */
static inline __attribute__((always_inline)) int
take_values(struct parser *p, const struct record *rec, int decs_only)
{
	const struct take *tk;
	const struct field *f;
	struct aval *v;
	struct num nu;
	size_t i;

	for (i = 0; i < p->ntakes; i++) {
		tk = &p->takes[i];
		v = &p->vals[tk->agg];
		if (tk->field >= rec->nf)
			return 0;
		f = &rec->f[tk->field];
		v->p = f->n != 0 ? f->p : NULL;	/* (empty: NULL) */
		v->n = f->n;
		if (decs_only || tk->how == TAKE_DEC) {
			if (f->n != 0 && dec_parse(f->p, f->n, &v->dec) != 0)
				return 0;
			v->is_dec = 1;
			v->d = 0;
		} else if (tk->how == TAKE_NUM && f->n != 0) {
			if (num_parse(f->p, f->n, &nu) != 0)
				return 0;
			v->d = nu.d;
		}
	}
	return 1;
}

/* parse_record()'s commonest case in one pass: a good record of one
 * key, a time that counts units and no --partition (--where and --if
 * are tested as the long way tests them). Returns 1 with *out as
 * parse_record() makes it, or 0 (*out and the values in any state) for
 * it to take the long way, which says what is wrong. */
static inline __attribute__((always_inline)) int
parse_plain(struct parser *p, const struct record *rec, struct parsed *out)
{
	const struct config *c = p->c;
	const struct field *k;
	struct badfield bf;

	if (rec->bad != NULL || p->keyidx[0] >= rec->nf ||
	    (c->nheader != 0 && record_fields(rec, p->delim,
	    c->fmt == IF_CSV) > c->nheader) ||
	    count_time(p, rec, out) != 0)
		return 0;
	if (__builtin_expect(p->takes_are == TAKES_DECS, 1)) {
		if (!take_values(p, rec, 1))
			return 0;
	} else if (p->takes_are == TAKES_MIXED) {
		if (!take_values(p, rec, 0))
			return 0;
	} else if (aggs_extract(p->g, rec, p->vals, &bf) != 0)
		return 0;
	k = &rec->f[p->keyidx[0]];
	parsed_of(p, rec, out, PR_RECORD);	/* (its time: count_time) */
	out->key = k->p;
	out->keylen = k->n;
	out->hash = key_hash_field(k->p, k->n);
	out->key_padded = 1;
	if (__builtin_expect(p->vm != NULL, 0) && !conditions(p, rec)) {
		out->kind = PR_FILTERED;	/* (as the long way's) */
		out->has_t = 1;
	}
	return 1;
}

/* parse_record()'s long way: every record, and what is wrong with it. */
static __attribute__((noinline)) void
parse_long(struct parser *p, const struct record *rec, struct parsed *out)
{
	const struct config *c = p->c;
	struct badfield bf;
	size_t i, nf;

	parsed_of(p, rec, out, PR_OTHER);
	out->key_padded = 0;	/* (parse_plain's keys are) */
	out->t = 0;
	out->tval = NULL;
	out->tvaln = 0;
	/* a record without a key has no partition: the first reports it */
	if (rec->bad != NULL) {
		if (c->part_i <= 1)
			say_bad(p, out, "%s", rec->bad);
		return;
	}
	/* -H: more fields than the header, its values shifted */
	if (c->nheader != 0 && (nf = record_fields(rec, p->delim,
	    c->fmt == IF_CSV)) > c->nheader) {
		if (c->part_i <= 1)
			say_bad(p, out, "%zu fields, the header has %zu", nf,
			    c->nheader);
		return;
	}
	for (i = 0; i < c->nkeys; i++)
		if (p->keyidx[i] >= rec->nf) {
			if (c->part_i <= 1)
				bad_field(p, rec, out, c->keys[i].name,
				    "missing", NULL);
			return;
		}
	if (c->nkeys == 1) {	/* (key_encode's bytes, without a call) */
		out->key = rec->f[p->keyidx[0]].p;
		out->keylen = rec->f[p->keyidx[0]].n;
	} else
		out->key = key_encode(rec->f, p->keyidx, c->nkeys,
		    &p->keybuf, &p->keycap, &out->keylen);
	out->hash = key_hash(out->key, out->keylen);
	if (!partition_mine(c, out->hash)) {
		/* someone else's: not added, not reported, not late; but it
		 * moves the watermark as it would in one run over the whole
		 * input (when its time and values parse, which its owner
		 * checks), so that every partition drops and fires what one
		 * run would */
		out->has_t = p->moves_wm && record_time(p, rec, out, 1) == 0 &&
		    aggs_extract(p->g, rec, p->vals, &bf) == 0;
		return;
	}
	if (p->uses_time && c->has_time && count_time(p, rec, out) != 0 &&
	    record_time(p, rec, out, 0) != 0)
		return;
	if (aggs_extract(p->g, rec, p->vals, &bf) != 0) {
		bad_field(p, rec, out, bf.f->name, bf.what,
		    bf.f->idx < rec->nf ? &rec->f[bf.f->idx] : NULL);
		return;
	}
	if (p->vm != NULL && !conditions(p, rec)) {
		/* not added, but its time moves the watermark, as Flink's
		 * is defined on the source, before WHERE */
		out->kind = PR_FILTERED;
		out->has_t = p->uses_time && c->has_time;
		return;
	}
	out->kind = PR_RECORD;
}

static inline __attribute__((always_inline)) int
parse_one(struct parser *p, const struct record *rec, struct parsed *out,
    size_t set)
{
	p->vals = p->sets + set * p->setlen;
	if (p->plain && parse_plain(p, rec, out))
		return 1;
	parse_long(p, rec, out);
	return 0;
}

int
parse_record(struct parser *p, const struct record *rec, struct parsed *out,
    size_t set)
{
	return parse_one(p, rec, out, set);
}

size_t
parse_block(struct parser *p, const struct record *rec, size_t n,
    struct parsed *out, size_t set, int *alone)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!parse_one(p, &rec[k], &out[k], set + k)) {
			*alone = 0;
			return k + 1;
		}
	return n;
}
