/* expr: the expression language; see expr.h. Parsing is recursive
 * descent that emits each operand before its operator, so the program
 * is postfix: a flat array of instructions run (expr_eval.c) over a
 * value stack whose depth is known when parsing ends. */
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/exprint.h"
#include "base/num.h"
#include "base/util.h"

const struct xfndef fns[] = {
	{ .name = "abs", .sql = "ABS", .min = 1, .max = 1 },
	{ .name = "floor", .sql = "FLOOR", .min = 1, .max = 1 },
	{ .name = "ceil", .sql = "CEIL", .min = 1, .max = 1 },
	{ .name = "round", .sql = "ROUND", .min = 1, .max = 2 },
	{ .name = "min", .sql = "LEAST", .min = 1, .max = 255 },
	{ .name = "max", .sql = "GREATEST", .min = 1, .max = 255 },
	{ .name = "len", .sql = "CHAR_LENGTH", .min = 1, .max = 1 },
	{ .name = "lower", .sql = "LOWER", .min = 1, .max = 1 },
	{ .name = "upper", .sql = "UPPER", .min = 1, .max = 1 },
	{ .name = "substr", .sql = "SUBSTR", .min = 2, .max = 3 },
	{ .name = "coalesce", .sql = "COALESCE", .min = 1, .max = 255 },
	{ .name = "if", .sql = "IF", .min = 3, .max = 3 },
};
const size_t nfns = sizeof(fns) / sizeof(fns[0]);

/* --- the lexer --- */

enum tok {
	T_END, T_NUM, T_STR, T_NAME, T_COL, T_BRACED, T_LP, T_RP, T_COMMA,
	T_OROR, T_ANDAND, T_BANG, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_MATCH, T_NMATCH, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PCT, T_BAD
};

struct token {
	enum tok t;
	const char *p;		/* its text in the expression */
	size_t n;
	size_t pos;		/* 1-based */
};

struct pstate {
	struct expr *e;
	const char *s;
	size_t at;		/* the next byte to lex */
	struct token tok;	/* the current token */
	size_t nest;		/* the levels open (nest_in()) */
	char *err;
	size_t errsz;
	int failed;
};

static void __attribute__((format(printf, 3, 4)))
fail(struct pstate *ps, size_t pos, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (ps->failed)
		return;
	ps->failed = 1;
	k = snprintf(ps->err, ps->errsz, "at %zu: ", pos);
	if (k < 0 || (size_t)k >= ps->errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(ps->err + k, ps->errsz - (size_t)k, fmt, ap);
	va_end(ap);
}

static int
name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

static int
digit(int c)
{
	return c >= '0' && c <= '9';
}

/* A number as section 6 writes them: digits, a fraction, an exponent. */
static size_t
lex_number(const char *s)
{
	size_t i = 0, j;

	while (digit(s[i]))
		i++;
	if (s[i] == '.')
		for (i++; digit(s[i]); i++)
			;
	if (s[i] == 'e' || s[i] == 'E') {
		j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (digit(s[j])) {
			while (digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* The two-byte and one-byte operators. */
static enum tok
lex_op(const char *s, size_t *n)
{
	static const struct {
		const char *op;
		enum tok t;
	} ops[] = {
		{ "||", T_OROR }, { "&&", T_ANDAND }, { "==", T_EQ },
		{ "!=", T_NE }, { "<=", T_LE }, { ">=", T_GE },
		{ "!~", T_NMATCH }, { "<>", T_NE }, { "(", T_LP },
		{ ")", T_RP }, { ",", T_COMMA }, { "!", T_BANG },
		{ "<", T_LT }, { ">", T_GT }, { "~", T_MATCH }, { "+", T_PLUS },
		{ "-", T_MINUS }, { "*", T_STAR }, { "/", T_SLASH },
		{ "%", T_PCT }, { "=", T_EQ },
	};
	size_t i, k;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		k = strlen(ops[i].op);
		if (strncmp(s, ops[i].op, k) == 0) {
			*n = k;
			return ops[i].t;
		}
	}
	*n = 1;
	return T_BAD;
}

static void
lex(struct pstate *ps)
{
	const char *s = ps->s;
	struct token *t = &ps->tok;
	size_t i;
	char q;

	while (s[ps->at] == ' ' || s[ps->at] == '\t' || s[ps->at] == '\n')
		ps->at++;
	i = ps->at;
	t->p = s + i;
	t->pos = i + 1;
	if (s[i] == '\0') {
		t->t = T_END;
		t->n = 0;
	} else if (digit(s[i]) || (s[i] == '.' && digit(s[i + 1]))) {
		t->t = T_NUM;
		t->n = lex_number(s + i);
	} else if (name_start(s[i])) {
		t->t = T_NAME;
		for (t->n = 1; name_char(s[i + t->n]); t->n++)
			;
	} else if (s[i] == '$' && digit(s[i + 1])) {
		t->t = T_COL;
		for (t->n = 1; digit(s[i + t->n]); t->n++)
			;
	} else if (s[i] == '$' && s[i + 1] == '{') {
		t->t = T_BRACED;
		for (t->n = 2; s[i + t->n] != '\0' && s[i + t->n] != '}';
		    t->n++)
			;
		if (s[i + t->n] == '\0')
			fail(ps, t->pos, "'${' without '}'");
		else
			t->n++;
	} else if (s[i] == '"' || s[i] == '\'') {
		t->t = T_STR;
		q = s[i];
		for (t->n = 1; s[i + t->n] != '\0' && s[i + t->n] != q; t->n++)
			if (s[i + t->n] == '\\' && s[i + t->n + 1] != '\0')
				t->n++;
		if (s[i + t->n] == '\0')
			fail(ps, t->pos, "unterminated string");
		else
			t->n++;
	} else
		t->t = lex_op(s + i, &t->n);
	ps->at = i + t->n;
}

/* Whether the current token is the word w. */
static int
is_word(const struct pstate *ps, const char *w)
{
	size_t n = strlen(w);

	return ps->tok.t == T_NAME && ps->tok.n == n &&
	    strncasecmp(ps->tok.p, w, n) == 0;
}

/* How the current token reads in a message. */
static void
describe(const struct pstate *ps, char *buf, size_t sz)
{
	if (ps->tok.t == T_END)
		snprintf(buf, sz, "the end");
	else
		snprintf(buf, sz, "'%.*s'", (int)(ps->tok.n > 40 ? 40 :
		    ps->tok.n), ps->tok.p);
}

/* --- code --- */

static void
emit(struct pstate *ps, enum xop op, uint32_t a, unsigned b, int push,
    size_t pop)
{
	struct expr *e = ps->e;

	if (e->ncode == e->capcode)
		xgrow(&e->code, &e->capcode, e->ncode + 1, sizeof(*e->code));
	/* a field compared with a constant: one instruction (the two
	 * before it are exactly its operands, each a single push) */
	if (op >= X_EQ && op <= X_GE && e->ncode >= 2 &&
	    e->code[e->ncode - 2].op == X_FIELD &&
	    e->code[e->ncode - 1].op == X_CONST) {
		struct xins *f = &e->code[e->ncode - 2];

		f->c = e->code[e->ncode - 1].a;
		f->op = X_FCMP;
		f->b = (uint8_t)op;
		e->ncode--;
		e->depth--;
		return;
	}
	e->code[e->ncode].op = (uint8_t)op;
	e->code[e->ncode].a = a;
	e->code[e->ncode].b = (uint8_t)b;
	e->code[e->ncode].c = 0;
	e->ncode++;
	e->depth = e->depth - pop + (size_t)push;
	if (e->depth > e->maxdepth)
		e->maxdepth = e->depth;
}

static void
add_const(struct pstate *ps, const struct xval *v, char *text)
{
	struct expr *e = ps->e;

	e->consts = xrealloc(e->consts, (e->nconsts + 1) * sizeof(*e->consts));
	e->ctext = xrealloc(e->ctext, (e->nconsts + 1) * sizeof(*e->ctext));
	e->consts[e->nconsts] = *v;
	e->ctext[e->nconsts] = text;
	emit(ps, X_CONST, (uint32_t)e->nconsts++, 0, 1, 0);
}

static void
number(struct pstate *ps)
{
	struct num nu;
	struct xval v;
	char *text = xstrndup(ps->tok.p, ps->tok.n);

	memset(&v, 0, sizeof(v));
	if (num_parse(ps->tok.p, ps->tok.n, &nu) != 0) {
		fail(ps, ps->tok.pos, "bad number '%s'%s", text,
		    num_parse(ps->tok.p, ps->tok.n, &nu) == NUM_RANGE ?
		    " (beyond the range of doubles)" : "");
		free(text);
		return;
	}
	v.t = nu.is_int ? XV_INT : XV_DBL;
	if (nu.is_int)
		v.u.i = nu.i;
	else
		v.u.d = nu.d;
	v.p = text;
	v.n = ps->tok.n;
	add_const(ps, &v, text);
}

/* A quoted literal, unescaped: always text ("" is NULL). */
static char *
unquote(struct pstate *ps, size_t *len)
{
	const char *p = ps->tok.p + 1, *end = ps->tok.p + ps->tok.n - 1;
	char *s = xmalloc(ps->tok.n), *o = s;

	for (; p < end; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case '\\': case '"': case '\'':
			*o++ = *p;
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		default:
			fail(ps, ps->tok.pos + (size_t)(p - ps->tok.p) - 1,
			    "unknown escape '\\%c' (\\\\, \\\", \\', \\n, \\t)",
			    *p);
		}
	}
	*o = '\0';
	*len = (size_t)(o - s);
	return s;
}

static void
string(struct pstate *ps)
{
	struct xval v;
	size_t n;
	char *s = unquote(ps, &n);

	memset(&v, 0, sizeof(v));
	v.t = n == 0 ? XV_NULL : XV_TEXT;
	v.p = s;
	v.n = n;
	add_const(ps, &v, s);
}

static void
field(struct pstate *ps, const char *name, size_t col, int braced)
{
	struct expr *e = ps->e;
	size_t i;

	for (i = 0; i < e->nfields; i++)
		if (e->fields[i].braced == braced &&
		    (name == NULL ? e->fields[i].name == NULL &&
		    e->fields[i].col == col : e->fields[i].name != NULL &&
		    strcmp(e->fields[i].name, name) == 0))
			break;
	if (i == e->nfields) {
		e->fields = xrealloc(e->fields, (i + 1) * sizeof(*e->fields));
		e->fields[i].name = name != NULL ? xstrdup(name) : NULL;
		e->fields[i].col = col;
		e->fields[i].pos = ps->tok.pos;
		e->fields[i].slot = i;
		e->fields[i].braced = braced;
		e->nfields++;
	}
	emit(ps, X_FIELD, (uint32_t)i, 0, 1, 0);
}

/* --- the grammar (fwin(1), EXPRESSIONS) --- */

static void expr_or(struct pstate *ps);
static void sum(struct pstate *ps);

/* Opens a level of nesting at the current token (a parenthesis, a call,
 * a unary '-' or '!'), which the parser recurses into: past
 * EXPR_MAXNEST, fails rather than run out of stack. Returns 0 when it
 * failed; else nest_out() closes the level. */
static int
nest_in(struct pstate *ps)
{
	if (ps->nest == EXPR_MAXNEST) {
		fail(ps, ps->tok.pos, "nested more than %d levels deep",
		    EXPR_MAXNEST);
		return 0;
	}
	ps->nest++;
	return 1;
}

static void
nest_out(struct pstate *ps)
{
	ps->nest--;
}

/* fn '(' [expr {',' expr}] ')', the name being the current token. */
static void
call(struct pstate *ps)
{
	size_t i, best = nfns, d, d0 = SIZE_MAX, pos = ps->tok.pos;
	const char *name = ps->tok.p;
	size_t n = ps->tok.n;
	unsigned nargs = 0;
	char what[64];

	for (i = 0; i < nfns; i++)
		if (strlen(fns[i].name) == n &&
		    strncasecmp(fns[i].name, name, n) == 0)
			break;
	if (i == nfns) {
		for (i = 0; i < nfns; i++) {
			size_t fn = strlen(fns[i].name);

			d = edit_distance(name, n, fns[i].name, fn);
			/* a misspelling, or a longer name's start ("lenght") */
			if ((close_enough(d, n) || (fn >= 3 && n > fn &&
			    strncasecmp(name, fns[i].name, fn) == 0)) &&
			    d < d0) {
				d0 = d;
				best = i;
			}
		}
		if (best < nfns)
			fail(ps, pos, "unknown function '%.*s'; did you mean "
			    "'%s'?", (int)n, name, fns[best].name);
		else
			fail(ps, pos, "unknown function '%.*s'", (int)n, name);
		return;
	}
	if (!nest_in(ps))
		return;
	lex(ps);	/* '(' */
	lex(ps);
	if (ps->tok.t != T_RP)
		for (;;) {
			expr_or(ps);
			nargs++;
			if (ps->failed || ps->tok.t != T_COMMA)
				break;
			lex(ps);
		}
	nest_out(ps);
	if (ps->failed)
		return;
	if (ps->tok.t != T_RP) {
		describe(ps, what, sizeof(what));
		fail(ps, ps->tok.pos, "expected ',' or ')', found %s", what);
		return;
	}
	if (nargs < fns[i].min || nargs > fns[i].max) {
		if (fns[i].min == fns[i].max)
			snprintf(what, sizeof(what), "%u argument%s",
			    fns[i].min, fns[i].min == 1 ? "" : "s");
		else if (fns[i].max == 255)
			snprintf(what, sizeof(what), "at least %u argument%s",
			    fns[i].min, fns[i].min == 1 ? "" : "s");
		else
			snprintf(what, sizeof(what), "%u or %u arguments",
			    fns[i].min, fns[i].max);
		fail(ps, pos, "%s takes %s, not %u", fns[i].name, what, nargs);
		return;
	}
	lex(ps);
	emit(ps, X_CALL, (uint32_t)i, nargs, 1, nargs);
}

/* Whether the current token can start an operand. */
static int
operand_start(const struct pstate *ps)
{
	switch (ps->tok.t) {
	case T_NUM: case T_STR: case T_NAME: case T_COL: case T_BRACED:
	case T_LP: case T_MINUS: case T_BANG:
		return 1;
	default:
		return 0;
	}
}

static void
primary(struct pstate *ps)
{
	char what[64], *name;
	unsigned long long col;

	switch (ps->tok.t) {
	case T_NUM:
		number(ps);
		break;
	case T_STR:
		string(ps);
		break;
	case T_COL:
		col = strtoull(ps->tok.p + 1, NULL, 10);
		if (col < 1 || col > 1000000000) {
			fail(ps, ps->tok.pos, "columns run from $1 to "
			    "$1000000000");
			return;
		}
		field(ps, NULL, (size_t)col, 0);
		break;
	case T_BRACED:
		if (ps->tok.n == 3) {
			fail(ps, ps->tok.pos, "empty field name '${}'");
			return;
		}
		name = xstrndup(ps->tok.p + 2, ps->tok.n - 3);
		field(ps, name, 0, 1);
		free(name);
		break;
	case T_NAME:
		if (ps->s[ps->at + strspn(ps->s + ps->at, " \t\n")] == '(') {
			call(ps);
			return;
		}
		name = xstrndup(ps->tok.p, ps->tok.n);
		field(ps, name, 0, 0);
		free(name);
		break;
	case T_LP:
		if (!nest_in(ps))
			return;
		lex(ps);
		expr_or(ps);
		nest_out(ps);
		if (ps->failed)
			return;
		if (ps->tok.t != T_RP) {
			describe(ps, what, sizeof(what));
			fail(ps, ps->tok.pos, "expected ')', found %s", what);
			return;
		}
		break;
	default:
		describe(ps, what, sizeof(what));
		fail(ps, ps->tok.pos, "expected a value, found %s", what);
		return;
	}
	lex(ps);
}

/* -9223372036854775808: the least integer, whose magnitude is no
 * integer of its own (SQL reads it so too). */
static int
least_integer(struct pstate *ps)
{
	static const char mag[] = "9223372036854775808";
	struct xval v;

	if (ps->tok.t != T_NUM || ps->tok.n != sizeof(mag) - 1 ||
	    memcmp(ps->tok.p, mag, sizeof(mag) - 1) != 0)
		return 0;
	memset(&v, 0, sizeof(v));
	v.t = XV_INT;
	v.u.i = INT64_MIN;
	v.p = xstrdup("-9223372036854775808");
	v.n = sizeof(mag);
	add_const(ps, &v, (char *)v.p);
	lex(ps);
	return 1;
}

static void
unary(struct pstate *ps)
{
	if (ps->tok.t == T_MINUS) {
		if (!nest_in(ps))
			return;
		lex(ps);
		if (least_integer(ps)) {
			nest_out(ps);
			return;
		}
		unary(ps);
		nest_out(ps);
		emit(ps, X_NEG, 0, 0, 1, 1);
		return;
	}
	primary(ps);
}

static void
term(struct pstate *ps)
{
	enum tok t;

	unary(ps);
	while (!ps->failed && ((t = ps->tok.t) == T_STAR || t == T_SLASH ||
	    t == T_PCT)) {
		lex(ps);
		unary(ps);
		emit(ps, t == T_STAR ? X_MUL : t == T_SLASH ? X_DIV : X_MOD,
		    0, 0, 1, 2);
	}
}

static void
sum(struct pstate *ps)
{
	enum tok t;

	term(ps);
	while (!ps->failed && ((t = ps->tok.t) == T_PLUS || t == T_MINUS)) {
		lex(ps);
		term(ps);
		emit(ps, t == T_PLUS ? X_ADD : X_SUB, 0, 0, 1, 2);
	}
}

/* The regex library makes a copy of a subexpression for each repetition
 * that needs one (a+ is aa*, a{2,5} five a's): repetitions that stack or
 * nest multiply, and a short text can take gigabytes to compile. Past
 * this many copies of its parts, a regular expression is refused. */
#define RE_PARTS	100000
/* A run of parts that can each match the empty string (a?, a*, the
 * optional copies of a{m,n}) costs it time that grows as the cube of its
 * length (x{1,8000} 0.2 s, x{1,32767} 20 s); a repetition stacked on such
 * a part (a*?, (a?)+) about eight times more at each level (a*??++++++++
 * 2 s, two '+' more: 2 minutes), and twice as much again for each of its
 * optional copies ((a*+.(b*?){1,18})+ 0.3 s, {1,20} 1.2 s, {1,51}
 * hours). Past a run this long, so weighed, it is refused too. */
#define RE_EMPTY	4000
#define RE_STACKED	8

enum { RE_FITS, RE_TOO_MANY, RE_TOO_EMPTY };

/* Past the bracket expression at p ('['): its first ']' is one of its
 * bytes, and so is each ']' of a [:class:], [.coll.] or [=equiv=]. */
static const char *
bracket_end(const char *p)
{
	const char *q;

	p++;
	p += *p == '^';
	p += *p == ']';
	while (*p != '\0' && *p != ']')
		if (p[0] == '[' && p[1] != '\0' && strchr(":.=", p[1]) != NULL &&
		    (q = strchr(p + 2, ']')) != NULL)
			p = q + 1;
		else
			p++;
	return *p == ']' ? p + 1 : p;
}

/* A piece of a regular expression as re_fits() reads it: copies of its
 * parts; whether it can match the empty string, and then the longest run
 * of such parts in it (w); else the runs it starts with, ends with and
 * holds, the longest (pre, suf, max). */
struct re_piece {
	double parts, pre, suf, max, w;
	int can;
};

static const struct re_piece re_none = { 0, 0, 0, 0, 0, 1 };
static const struct re_piece re_atom = { 1, 0, 0, 0, 0, 0 };

/* The longest run of parts that can match the empty string in x. */
static double
re_run(const struct re_piece *x)
{
	return x->can ? x->w : x->max;
}

/* a then b. */
static struct re_piece
re_then(const struct re_piece *a, const struct re_piece *b)
{
	struct re_piece r;

	r.parts = a->parts + b->parts;
	r.can = a->can && b->can;
	r.w = a->w + b->w;
	r.pre = a->can ? a->w + b->pre : a->pre;
	r.suf = b->can ? b->w + a->suf : b->suf;
	r.max = fmax(fmax(re_run(a), re_run(b)), (a->can ? a->w : a->suf) +
	    (b->can ? b->w : b->pre));
	return r;
}

/* a or b. */
static struct re_piece
re_or(const struct re_piece *a, const struct re_piece *b)
{
	struct re_piece r;

	r.parts = a->parts + b->parts;
	r.can = a->can || b->can;
	r.w = fmax(fmax(re_run(a), re_run(b)), r.can);	/* (a|) */
	r.pre = fmax(a->pre, b->pre);
	r.suf = fmax(a->suf, b->suf);
	r.max = fmax(re_run(a), re_run(b));
	return r;
}

/* x repeated: n copies of it, the last opt of them optional (or
 * starred); none at all with m0. */
static void
re_repeat(struct re_piece *x, double n, double opt, int m0)
{
	if (x->parts == 0)	/* (nothing to repeat: regcomp() says) */
		return;
	x->parts *= n;
	if (x->can) {		/* a run of copies, stacked when they repeat */
		x->w *= n * (opt > 0 ? ldexp(RE_STACKED, (int)fmin(opt, 64) -
		    1) : 1);
		return;
	}
	if (m0) {		/* each copy optional: skipped, or begun */
		x->can = 1;
		x->w = fmax(x->max, x->suf + n * (1 + x->pre));
	} else {		/* the optional ones run on from the last:
				 * each can be skipped, or begun */
		x->max = fmax(x->max, x->suf + (n > 1 ? x->pre : 0));
		x->suf += opt * (1 + x->pre);
		x->max = fmax(x->max, x->suf);
	}
}

/* Whether re compiles to few enough parts (RE_FITS), or what it has too
 * many of: each atom one part, a group the sum of its own, '+' doubling
 * what it repeats and {m,n} making it n times as many; the runs of parts
 * that can match the empty string as RE_EMPTY says. */
static int
re_fits(const char *re)
{
	/* each group's: its branches before, that branch's pieces before
	 * the last, and the last (quantifiers repeat it) */
	struct re_piece alt[64], seq[64], last = re_none, r;
	int has_alt[64], depth = 0;
	double m, n;
	const char *p = re, *close;
	char *end;

	seq[0] = re_none;
	has_alt[0] = 0;
	for (;;) {
		r = re_then(&seq[depth], &last);
		if (has_alt[depth])
			r = re_or(&alt[depth], &r);
		if (r.parts > RE_PARTS)
			return RE_TOO_MANY;
		if (re_run(&r) > RE_EMPTY)
			return RE_TOO_EMPTY;
		if (*p == '\0')
			return RE_FITS;
		switch (*p++) {
		case '(':
			if (depth == 63)
				return RE_TOO_MANY;
			seq[depth] = re_then(&seq[depth], &last);
			depth++;
			seq[depth] = last = re_none;
			has_alt[depth] = 0;
			continue;
		case ')':
			if (depth == 0)
				break;	/* (an atom, or an error regcomp() says) */
			last = r;
			depth--;
			continue;
		case '|':
			alt[depth] = r;
			has_alt[depth] = 1;
			seq[depth] = last = re_none;
			continue;
		case '*':
		case '?':
			re_repeat(&last, 1, 1, 1);
			continue;
		case '+':	/* (aa*) */
			re_repeat(&last, 2, 1, 0);
			continue;
		case '{':	/* {m}, {m,} (m + 1 copies), {m,n} */
			if ((close = strchr(p, '}')) == NULL)
				break;	/* (an error regcomp() says) */
			m = (double)strtoul(p, &end, 10);
			n = *end != ',' ? m : end[1] == '}' ? m + 1 :
			    (double)strtoul(end + 1, NULL, 10);
			if (n < m)
				n = m;
			re_repeat(&last, n > 1 ? n : 1, n - m, m == 0);
			p = close + 1;
			continue;
		case '[':
			p = bracket_end(p - 1);
			break;
		case '\\':
			p += *p != '\0';
			break;
		}
		seq[depth] = re_then(&seq[depth], &last);
		last = re_atom;
	}
}

/* sum ('~' | '!~') STRING: compiled here, once. */
static void
match(struct pstate *ps, enum xop op)
{
	struct expr *e = ps->e;
	char what[64], msg[128], *re;
	size_t n;
	int rc;

	lex(ps);
	if (ps->tok.t != T_STR) {
		describe(ps, what, sizeof(what));
		fail(ps, ps->tok.pos, "%s needs a quoted regular expression, "
		    "found %s", op == X_MATCH ? "~" : "!~", what);
		return;
	}
	re = unquote(ps, &n);
	if ((rc = re_fits(re)) != RE_FITS) {
		if (rc == RE_TOO_MANY)
			fail(ps, ps->tok.pos, "bad regular expression '%s': "
			    "its repetitions stack or nest past %d copies of "
			    "its parts", re, RE_PARTS);
		else
			fail(ps, ps->tok.pos, "bad regular expression '%s': "
			    "its parts that can match the empty string run "
			    "past %d copies in a row", re, RE_EMPTY);
		free(re);
		return;
	}
	e->res = xrealloc(e->res, (e->nres + 1) * sizeof(*e->res));
	e->retext = xrealloc(e->retext, (e->nres + 1) * sizeof(*e->retext));
	if ((rc = regcomp(&e->res[e->nres], re, REG_EXTENDED | REG_NOSUB))
	    != 0) {
		regerror(rc, &e->res[e->nres], msg, sizeof(msg));
		fail(ps, ps->tok.pos, "bad regular expression '%s': %s", re,
		    msg);
		free(re);
		return;
	}
	e->retext[e->nres] = re;
	emit(ps, op, (uint32_t)e->nres++, 0, 1, 1);
	lex(ps);
}

/* sum 'in' '(' sum {',' sum} ')' */
static void
in_list(struct pstate *ps)
{
	char what[64];
	uint32_t n = 0;

	lex(ps);
	if (ps->tok.t != T_LP) {
		describe(ps, what, sizeof(what));
		fail(ps, ps->tok.pos, "expected '(' after 'in', found %s",
		    what);
		return;
	}
	do {
		lex(ps);
		sum(ps);
		n++;
	} while (!ps->failed && ps->tok.t == T_COMMA);
	if (ps->failed)
		return;
	if (ps->tok.t != T_RP) {
		describe(ps, what, sizeof(what));
		fail(ps, ps->tok.pos, "expected ',' or ')', found %s", what);
		return;
	}
	emit(ps, X_IN, n, 0, 1, n + 1);
	lex(ps);
}

static void
comparison(struct pstate *ps)
{
	static const enum xop cmp[] = {
		[T_EQ] = X_EQ, [T_NE] = X_NE, [T_LT] = X_LT, [T_LE] = X_LE,
		[T_GT] = X_GT, [T_GE] = X_GE
	};
	char what[64];
	enum tok t;
	int not = 0;

	sum(ps);
	if (ps->failed)
		return;
	t = ps->tok.t;
	if (t >= T_EQ && t <= T_GE) {
		lex(ps);
		sum(ps);
		emit(ps, cmp[t], 0, 0, 1, 2);
	} else if (t == T_MATCH || t == T_NMATCH)
		match(ps, t == T_MATCH ? X_MATCH : X_NMATCH);
	else if (is_word(ps, "in"))
		in_list(ps);
	else if (is_word(ps, "is")) {
		lex(ps);
		if (is_word(ps, "not")) {
			not = 1;
			lex(ps);
		}
		if (!is_word(ps, "null")) {
			describe(ps, what, sizeof(what));
			fail(ps, ps->tok.pos, "expected 'null' or 'not null' "
			    "after 'is', found %s", what);
			return;
		}
		emit(ps, not ? X_NOTNULL : X_ISNULL, 0, 0, 1, 1);
		lex(ps);
	}
}

/* '!' or a 'not' that a name could not be (an operand follows it). */
static int
negation(struct pstate *ps)
{
	size_t at = ps->at;
	struct token save = ps->tok;
	int yes;

	if (ps->tok.t == T_BANG)
		return 1;
	if (!is_word(ps, "not"))
		return 0;
	lex(ps);
	yes = operand_start(ps);
	ps->at = at;
	ps->tok = save;
	return yes;
}

static void
expr_not(struct pstate *ps)
{
	if (negation(ps)) {
		if (!nest_in(ps))
			return;
		lex(ps);
		expr_not(ps);
		nest_out(ps);
		emit(ps, X_NOT, 0, 0, 1, 1);
		return;
	}
	comparison(ps);
}

static void
expr_and(struct pstate *ps)
{
	expr_not(ps);
	while (!ps->failed && (ps->tok.t == T_ANDAND || is_word(ps, "and"))) {
		lex(ps);
		expr_not(ps);
		emit(ps, X_AND, 0, 0, 1, 2);
	}
}

static void
expr_or(struct pstate *ps)
{
	expr_and(ps);
	while (!ps->failed && (ps->tok.t == T_OROR || is_word(ps, "or"))) {
		lex(ps);
		expr_and(ps);
		emit(ps, X_OR, 0, 0, 1, 2);
	}
}

struct expr *
expr_parse(const char *text, char *err, size_t errsz)
{
	struct pstate ps;
	char what[64];

	memset(&ps, 0, sizeof(ps));
	ps.e = xcalloc(1, sizeof(*ps.e));
	ps.e->text = xstrdup(text);
	ps.s = ps.e->text;
	ps.err = err;
	ps.errsz = errsz;
	lex(&ps);
	if (!ps.failed && ps.tok.t == T_END)
		fail(&ps, 1, "empty expression");
	if (!ps.failed)
		expr_or(&ps);
	if (!ps.failed && ps.tok.t != T_END) {
		describe(&ps, what, sizeof(what));
		fail(&ps, ps.tok.pos, "unexpected %s", what);
	}
	if (ps.failed) {
		expr_free(ps.e);
		return NULL;
	}
	return ps.e;
}

void
expr_free(struct expr *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->nconsts; i++)
		free(e->ctext[i]);
	for (i = 0; i < e->nfields; i++)
		free(e->fields[i].name);
	for (i = 0; i < e->nres; i++) {
		regfree(&e->res[i]);
		free(e->retext[i]);
	}
	free(e->res);
	free(e->retext);
	free(e->consts);
	free(e->ctext);
	free(e->fields);
	free(e->code);
	free(e->text);
	free(e);
}

const char *
expr_text(const struct expr *e)
{
	return e->text;
}

size_t
expr_nfields(const struct expr *e)
{
	return e->nfields;
}

void
expr_field(const struct expr *e, size_t i, const char **name, size_t *col,
    size_t *pos, int *braced)
{
	*name = e->fields[i].name;
	*col = e->fields[i].col;
	*pos = e->fields[i].pos;
	*braced = e->fields[i].braced;
}

void
expr_bind(struct expr *e, size_t i, size_t slot)
{
	e->fields[i].slot = slot;
}

