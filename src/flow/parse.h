/* parse: what a record says — its key, event time and aggregate values —
 * read without touching keyed state or the driver's counters, so that a
 * reader thread can do it ahead of the window operator (fwin(1):
 * --threads). What is wrong with a record is put into words here and
 * counted by the driver, in input order, as it applies the record. */
#ifndef FWIN_PARSE_H
#define FWIN_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "window/agg.h"
#include "window/operator.h"
#include "pipeline/config.h"
#include "io/input.h"

/* Bad records said one by one; past this many, only counted. */
#define MAX_BAD_MESSAGES 10

enum parsed_kind {
	PR_RECORD,	/* a good record of this partition */
	PR_BAD,		/* a bad record: msg says why */
	PR_OTHER,	/* a record of another --partition */
	PR_NOTE,	/* not a record: a message line of the input's
			   (a reader thread's, kept in its place) */
	PR_FILTERED	/* a good record --where rejects: has_t says
			   whether its time moves the watermark */
};

struct parsed {
	enum parsed_kind kind;
	int has_t;		/* PR_OTHER: its time and values parsed, so
				   it may move the watermark */
	int fmt;		/* the input's time format, found by this
				   record (--time-format auto), or TF_AUTO */
	int64_t t;		/* event time (with -t) */
	const char *key;	/* canonical key bytes (keycodec.h) */
	size_t keylen;
	uint64_t hash;
	int key_padded;		/* key is a field as framed (FIELD_PAD
				   readable bytes past it, input.h) or a
				   plain entry's (reader.c): one of 1 to 8
				   bytes is read in one load */
	int has_win;		/* win is its tumbling window's start, found
				   by the reading thread (source.h) */
	int64_t win;
	const struct aval *vals;	/* one per aggregate */
	int bad_time;		/* PR_BAD: its time does not parse (tval) */
	const char *tval;	/* the time's text (with -t), for messages */
	size_t tvaln;
	const char *raw;	/* the record as read (for the late file) */
	size_t rawlen;
	const char *file;	/* where it was read */
	uint64_t line;
	/* PR_BAD: what is wrong, or NULL past the messages said (see
	 * MAX_BAD_MESSAGES); PR_NOTE: the whole line, "fwin: ...\n" */
	const char *msg;
	size_t msglen;
};

/* A good record as the operator and the tables take it, with its event
 * time (processing time is the driver's to set). */
static inline void
parsed_op_rec(const struct parsed *pr, struct op_rec *r)
{
	r->key = pr->key;
	r->keylen = pr->keylen;
	r->hash = pr->hash;
	r->padded = pr->key_padded;
	r->t = pr->t;
	r->vals = pr->vals;
}

struct parser;

/* A parser for pipeline c (its fields resolved), with aggregates g. The
 * input's time format so far is timefmt (TF_AUTO: not known yet).
 * uses_time: the windows need an event time; moves_wm: another
 * partition's record moves the watermark. Never NULL. */
struct parser *parser_new(const struct config *c, const struct aggs *g,
    int timefmt, int uses_time, int moves_wm);
void parser_free(struct parser *p);

/* Tells input in which fields pipeline c (resolved) reads: split only
 * the columns in use (the raw record, for the late file and min-by
 * without OUT, is kept whole by the framer anyway), and for json the
 * paths. */
void parse_fields(const struct config *c, struct input *in);

/* Reads record rec into *out, its values into the parser's set of them
 * set (< PARSE_SETS). Returns 1 when *out points only into rec's bytes
 * and that set: then it stays valid while they do and the set is not
 * used again. Returns 0 when it may point into the parser's own buffers
 * (a key of several fields, a message...): valid until the next call. */
#define PARSE_SETS	32
int parse_record(struct parser *p, const struct record *rec,
    struct parsed *out, size_t set);

/* parse_record() of rec[0..n) into out[0..n), with the sets from set
 * on, up to the first that returns 0: how many were read, *alone 0 when
 * the last of them returned 0 (else left as it is). */
size_t parse_block(struct parser *p, const struct record *rec, size_t n,
    struct parsed *out, size_t set, int *alone);

/* The name of the time in messages: F, or "F1,F2" for -t F1,F2. */
const char *parse_time_name(const struct parser *p);

/* Puts "field NAME: WHAT "VALUE"" (a short, printable rendering of
 * v[0..n)) into buf[0..bufsz); for messages. */
void say_field(char *buf, size_t bufsz, const char *name, const char *what,
    const char *v, size_t n);

#endif
