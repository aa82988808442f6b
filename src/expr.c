/* expr: the expression language; see expr.h. Parsing is recursive
 * descent that emits each operand before its operator, so the program
 * is postfix: a flat array of instructions run over a value stack whose
 * depth is known when parsing ends. */
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr.h"
#include "num.h"
#include "util.h"

enum xop {
	X_CONST,		/* a: the constant */
	X_FIELD,		/* a: the field */
	X_NEG, X_ADD, X_SUB, X_MUL, X_DIV, X_MOD,
	X_EQ, X_NE, X_LT, X_LE, X_GT, X_GE,
	X_MATCH, X_NMATCH,	/* a: the regular expression */
	X_IN,			/* a: how many items follow the value */
	X_ISNULL, X_NOTNULL,
	X_NOT, X_AND, X_OR,
	X_CALL,			/* a: the function, b: its arguments */
	X_FCMP			/* field a against constant c, b: X_EQ...:
				 * the commonest condition in one step */
};

enum xfn {
	F_ABS, F_FLOOR, F_CEIL, F_ROUND, F_MIN, F_MAX, F_LEN, F_LOWER,
	F_UPPER, F_SUBSTR, F_COALESCE, F_IF
};

static const struct {
	const char *name, *sql;
	unsigned min, max;	/* arguments */
} fns[] = {
	{ "abs", "ABS", 1, 1 }, { "floor", "FLOOR", 1, 1 },
	{ "ceil", "CEIL", 1, 1 }, { "round", "ROUND", 1, 2 },
	{ "min", "LEAST", 1, 255 }, { "max", "GREATEST", 1, 255 },
	{ "len", "CHAR_LENGTH", 1, 1 }, { "lower", "LOWER", 1, 1 },
	{ "upper", "UPPER", 1, 1 }, { "substr", "SUBSTR", 2, 3 },
	{ "coalesce", "COALESCE", 1, 255 }, { "if", "IF", 3, 3 },
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

struct xins {
	uint8_t op, b;
	uint32_t a, c;
};

struct xfield {
	char *name;		/* NULL: a column number */
	size_t col, pos, slot;
	int braced;
};

struct expr {
	char *text;
	struct xins *code;
	size_t ncode, capcode;
	struct xval *consts;
	char **ctext;		/* the constants' own text (for SQL too) */
	size_t nconsts;
	struct xfield *fields;
	size_t nfields;
	regex_t *res;
	char **retext;
	size_t nres;
	size_t depth, maxdepth;	/* while parsing; the stack it needs */
};

/* The scratch that text results are made in: a region that is reset at
 * every evaluation; when it must grow, the old one is kept until then
 * (results made in it are still in use). */
struct xvm {
	struct xval *stack;
	size_t capstack;
	char *buf;
	size_t cap, used;
	char **old;
	size_t nold;
};

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
		fail(ps, ps->tok.pos, "bad number '%s'", text);
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

/* fn '(' [expr {',' expr}] ')', the name being the current token. */
static void
call(struct pstate *ps)
{
	size_t i, best = NFNS, d, d0 = SIZE_MAX, pos = ps->tok.pos;
	const char *name = ps->tok.p;
	size_t n = ps->tok.n;
	unsigned nargs = 0;
	char what[64];

	for (i = 0; i < NFNS; i++)
		if (strlen(fns[i].name) == n &&
		    strncasecmp(fns[i].name, name, n) == 0)
			break;
	if (i == NFNS) {
		for (i = 0; i < NFNS; i++) {
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
		if (best < NFNS)
			fail(ps, pos, "unknown function '%.*s'; did you mean "
			    "'%s'?", (int)n, name, fns[best].name);
		else
			fail(ps, pos, "unknown function '%.*s'", (int)n, name);
		return;
	}
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
		lex(ps);
		expr_or(ps);
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

static void
unary(struct pstate *ps)
{
	if (ps->tok.t == T_MINUS) {
		lex(ps);
		unary(ps);
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
		lex(ps);
		expr_not(ps);
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

/* --- values --- */

struct xvm *
xvm_new(void)
{
	return xcalloc(1, sizeof(struct xvm));
}

void
xvm_free(struct xvm *vm)
{
	size_t i;

	if (vm == NULL)
		return;
	for (i = 0; i < vm->nold; i++)
		free(vm->old[i]);
	free(vm->old);
	free(vm->buf);
	free(vm->stack);
	free(vm);
}

/* n bytes of scratch, valid until the next evaluation. */
static char *
scratch(struct xvm *vm, size_t n)
{
	char *p;

	if (vm->used + n > vm->cap) {
		if (vm->buf != NULL) {	/* results may point into it */
			vm->old = xrealloc(vm->old, (vm->nold + 1) *
			    sizeof(*vm->old));
			vm->old[vm->nold++] = vm->buf;
		}
		vm->cap = (vm->cap + n) * 2;
		vm->buf = xmalloc(vm->cap);
		vm->used = 0;
	}
	p = vm->buf + vm->used;
	vm->used += n;
	return p;
}

static int
is_num(const struct xval *v)
{
	return v->t == XV_INT || v->t == XV_DBL;
}

static double
dbl(const struct xval *v)
{
	return v->t == XV_INT ? (double)v->u.i : v->u.d;
}

static void
set_int(struct xval *v, int64_t i)
{
	v->t = XV_INT;
	v->u.i = i;
	v->p = NULL;
	v->n = 0;
}

/* A double result: one that is not finite is NULL. */
static void
set_dbl(struct xval *v, double d)
{
	v->t = isfinite(d) ? XV_DBL : XV_NULL;
	v->u.d = d;
	v->p = NULL;
	v->n = 0;
}

static void
set_null(struct xval *v)
{
	v->t = XV_NULL;
	v->p = NULL;
	v->n = 0;
}

/* A condition's value: 1, 0, or NULL for unknown. */
static void
set_truth(struct xval *v, int t)
{
	if (t < 0)
		set_null(v);
	else
		set_int(v, t);
}

int
xval_truth(const struct xval *v)
{
	switch (v->t) {
	case XV_NULL:
		return -1;
	case XV_INT:
		return v->u.i != 0;
	case XV_DBL:
		return v->u.d != 0;
	default:
		return 1;
	}
}

int
xval_text(const struct xval *v, char *buf, const char **p, size_t *n)
{
	switch (v->t) {
	case XV_NULL:
		*p = NULL;
		*n = 0;
		return -1;
	case XV_INT:
		*n = num_format_int(buf, v->u.i);
		*p = buf;
		return 0;
	case XV_DBL:
		*n = num_format_double(buf, v->u.d);
		*p = buf;
		return 0;
	default:
		*p = v->p;
		*n = v->n;
		return 0;
	}
}

/* A value's text for text operations: a number keeps the text it was
 * read from, else is written into buf (NUM_BUFSZ bytes). */
static void
text_of(const struct xval *v, char *buf, const char **p, size_t *n)
{
	if (v->p != NULL) {
		*p = v->p;
		*n = v->n;
	} else
		(void)xval_text(v, buf, p, n);
}

/* A slot's text as a value: empty is NULL, a number is a number. */
static void
load(struct xval *v, const struct xslice *s)
{
	struct num nu;
	uint64_t x;
	size_t i;

	v->p = s->p;
	v->n = s->n;
	if (s->p == NULL || s->n == 0) {
		set_null(v);
		return;
	}
	/* the common case first: a short integer, digits read 8 at a time
	 * (what num_parse would make of it, without its general path) */
	i = s->p[0] == '-' || s->p[0] == '+';
	if (s->n > i && s->n - i <= 18 &&
	    num_digits(s->p + i, s->n - i, &x) == s->n - i) {
		v->t = XV_INT;
		v->u.i = s->p[0] == '-' ? -(int64_t)x : (int64_t)x;
		return;
	}
	if (num_parse(s->p, s->n, &nu) != 0)
		v->t = XV_TEXT;
	else if (nu.is_int) {
		v->t = XV_INT;
		v->u.i = nu.i;
	} else {
		v->t = XV_DBL;
		v->u.d = nu.d;
	}
}

/* Compares a and b: numerically when both are numbers, else their text
 * byte by byte. Returns -2 when either is NULL (unknown). */
static int
compare(const struct xval *a, const struct xval *b)
{
	char ba[NUM_BUFSZ], bb[NUM_BUFSZ];
	const char *pa, *pb;
	size_t na, nb;
	int c;

	if (a->t == XV_NULL || b->t == XV_NULL)
		return -2;
	if (a->t == XV_INT && b->t == XV_INT)
		return (a->u.i > b->u.i) - (a->u.i < b->u.i);
	if (is_num(a) && is_num(b))
		return (dbl(a) > dbl(b)) - (dbl(a) < dbl(b));
	text_of(a, ba, &pa, &na);
	text_of(b, bb, &pb, &nb);
	c = memcmp(pa, pb, na < nb ? na : nb);
	if (c == 0)
		return (na > nb) - (na < nb);
	return c < 0 ? -1 : 1;
}

/* --- arithmetic --- */

static void
arith(enum xop op, struct xval *a, const struct xval *b)
{
	int64_t r;
	double x, y;

	if (!is_num(a) || !is_num(b)) {
		set_null(a);
		return;
	}
	if (a->t == XV_INT && b->t == XV_INT) {
		int64_t i = a->u.i, j = b->u.i;

		switch (op) {
		case X_ADD:
			if (!__builtin_add_overflow(i, j, &r))
				return set_int(a, r);
			break;
		case X_SUB:
			if (!__builtin_sub_overflow(i, j, &r))
				return set_int(a, r);
			break;
		case X_MUL:
			if (!__builtin_mul_overflow(i, j, &r))
				return set_int(a, r);
			break;
		case X_DIV:	/* true division: whole when it divides */
			if (j == 0)
				return set_null(a);
			if (!(i == INT64_MIN && j == -1) && i % j == 0)
				return set_int(a, i / j);
			break;
		default:	/* X_MOD: the dividend's sign, as C's % */
			if (j == 0)
				return set_null(a);
			return set_int(a, j == -1 ? 0 : i % j);
		}
	}
	x = dbl(a);
	y = dbl(b);
	switch (op) {
	case X_ADD:
		return set_dbl(a, x + y);
	case X_SUB:
		return set_dbl(a, x - y);
	case X_MUL:
		return set_dbl(a, x * y);
	case X_DIV:
		return y == 0 ? set_null(a) : set_dbl(a, x / y);
	default:
		return y == 0 ? set_null(a) : set_dbl(a, fmod(x, y));
	}
}

static void
negate(struct xval *a)
{
	if (a->t == XV_INT && a->u.i != INT64_MIN)
		set_int(a, -a->u.i);
	else if (is_num(a))
		set_dbl(a, -dbl(a));
	else
		set_null(a);
}

/* --- functions --- */

/* A whole double as an exact integer when it fits. */
static void
set_whole(struct xval *v, double d)
{
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		set_int(v, (int64_t)d);
	else
		set_dbl(v, d);
}

/* An argument that must be a whole number (digits of round, substr's
 * start and length): returns 0 and sets *i, or -1. */
static int
whole(const struct xval *v, int64_t *i)
{
	if (v->t == XV_INT) {
		*i = v->u.i;
		return 0;
	}
	if (v->t == XV_DBL && v->u.d == floor(v->u.d) &&
	    fabs(v->u.d) < 1e15) {
		*i = (int64_t)v->u.d;
		return 0;
	}
	return -1;
}

/* round(x, d) of a double, half away from zero on its decimal text (so
 * that 2.675 rounds to 2.68, as written, not as the binary double
 * below it). */
static void
round_dbl(struct xval *v, int64_t d)
{
	char buf[NUM_BUFSZ], dig[64], out[128];
	const char *p, *end;
	size_t n, nd = 0, i, keep;
	int neg = 0, pt = -1, up;
	long ex = 0;
	char *o = out;

	text_of(v, buf, &p, &n);
	end = p + n;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	for (; p < end && (digit(*p) || *p == '.'); p++) {
		if (*p == '.')
			pt = (int)nd;
		else if (nd < sizeof(dig))
			dig[nd++] = *p;
		else
			goto approx;
	}
	if (pt < 0)
		pt = (int)nd;
	if (p < end && (*p == 'e' || *p == 'E'))
		ex = strtol(p + 1, NULL, 10);
	if (ex > 300 || ex < -300 || d > 300 || d < -300)
		goto approx;
	/* digits before the point: pt + ex; keep that many plus d */
	if ((long)pt + ex + d < 0) {	/* below half of the last place */
		set_whole(v, 0);
		return;
	}
	keep = (size_t)((long)pt + ex + d);
	if (keep >= nd)		/* nothing to round away */
		return d <= 0 ? set_whole(v, dbl(v)) : set_dbl(v, dbl(v));
	up = dig[keep] >= '5';
	for (i = keep; up && i-- > 0;) {	/* carry */
		if (dig[i] == '9')
			dig[i] = '0';
		else {
			dig[i]++;
			up = 0;
		}
	}
	if (neg)
		*o++ = '-';
	if (up)
		*o++ = '1';
	for (i = 0; i < keep; i++)
		*o++ = dig[i];
	if (keep == 0 && !up)
		*o++ = '0';
	o += snprintf(o, 16, "e%ld", (long)-d);
	*o = '\0';
	return d <= 0 ? set_whole(v, strtod(out, NULL)) :
	    set_dbl(v, strtod(out, NULL));
approx:
	{
		double s = pow(10, (double)d), x = dbl(v) * s;

		x = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
		return d <= 0 ? set_whole(v, x / s) : set_dbl(v, x / s);
	}
}

static void
fn_round(struct xval *v, const struct xval *dv)
{
	int64_t d = 0, p = 1, q, r;
	int k;

	if (!is_num(v) || (dv != NULL && whole(dv, &d) != 0))
		return set_null(v);
	if (v->t == XV_DBL)
		return round_dbl(v, d);
	if (d >= 0)
		return set_int(v, v->u.i);
	if (d < -18)
		return set_int(v, 0);
	for (k = 0; k < -d; k++)
		p *= 10;
	q = v->u.i / p;
	r = v->u.i % p;
	if (r >= p - r)
		q++;
	else if (-r >= p + r)
		q--;
	if (__builtin_mul_overflow(q, p, &r))
		return set_dbl(v, (double)q * (double)p);
	set_int(v, r);
}

/* Text made in the scratch: empty is NULL. */
static void
set_text(struct xval *v, const char *p, size_t n)
{
	v->t = n == 0 ? XV_NULL : XV_TEXT;
	v->p = n == 0 ? NULL : p;
	v->n = n;
}

static void
fn_case(struct xvm *vm, struct xval *v, int up)
{
	char buf[NUM_BUFSZ], *o;
	const char *p;
	size_t n, i;

	if (v->t == XV_NULL)
		return;
	text_of(v, buf, &p, &n);
	o = scratch(vm, n);
	for (i = 0; i < n; i++) {
		char c = p[i];

		if (up && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!up && c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		o[i] = c;
	}
	set_text(v, o, n);
}

/* Flink's SUBSTR: 1-based, start 0 as 1, a negative start from the end
 * (before the first byte: the first), a negative length NULL. */
static void
fn_substr(struct xvm *vm, struct xval *v, const struct xval *sv,
    const struct xval *lv)
{
	char buf[NUM_BUFSZ], *o;
	const char *p;
	size_t n;
	int64_t s, l = 0;

	if (v->t == XV_NULL || whole(sv, &s) != 0 ||
	    (lv != NULL && (whole(lv, &l) != 0 || l < 0)))
		return set_null(v);
	text_of(v, buf, &p, &n);
	if (s < 0)
		s = (int64_t)n + s + 1;
	if (s < 1)
		s = 1;
	if ((uint64_t)s > n)
		return set_null(v);
	if (lv == NULL || (uint64_t)l > n - (uint64_t)(s - 1))
		l = (int64_t)(n - (uint64_t)(s - 1));
	p += s - 1;
	if (v->p == NULL) {	/* a number's text, written into buf */
		o = scratch(vm, (size_t)l);
		memcpy(o, p, (size_t)l);
		p = o;
	}
	set_text(v, p, (size_t)l);
}

static void
call_fn(struct xvm *vm, enum xfn f, struct xval *a, unsigned n)
{
	unsigned i;
	char buf[NUM_BUFSZ];
	const char *p;
	size_t len;
	int c;

	switch (f) {
	case F_ABS:
		if (a->t == XV_INT && a->u.i < 0)
			negate(a);
		else if (a->t == XV_DBL)
			set_dbl(a, fabs(a->u.d));
		else if (a->t != XV_INT)
			set_null(a);
		break;
	case F_FLOOR:
	case F_CEIL:
		if (a->t == XV_DBL)
			set_whole(a, f == F_FLOOR ? floor(a->u.d) :
			    ceil(a->u.d));
		else if (a->t == XV_INT)
			set_int(a, a->u.i);
		else
			set_null(a);
		break;
	case F_ROUND:
		fn_round(a, n > 1 ? &a[1] : NULL);
		break;
	case F_MIN:
	case F_MAX:
		for (i = 0; i < n; i++)
			if (a[i].t == XV_NULL)
				return set_null(a);
		for (i = 1; i < n; i++) {
			c = compare(&a[i], a);
			if (f == F_MIN ? c < 0 : c > 0)
				a[0] = a[i];
		}
		break;
	case F_LEN:
		if (a->t == XV_NULL)
			break;
		text_of(a, buf, &p, &len);
		set_int(a, (int64_t)len);
		break;
	case F_LOWER:
	case F_UPPER:
		fn_case(vm, a, f == F_UPPER);
		break;
	case F_SUBSTR:
		fn_substr(vm, a, &a[1], n > 2 ? &a[2] : NULL);
		break;
	case F_COALESCE:
		for (i = 0; i < n && a[i].t == XV_NULL; i++)
			;
		if (i < n)
			a[0] = a[i];
		break;
	case F_IF:
		a[0] = xval_truth(&a[0]) == 1 ? a[1] : a[2];
		break;
	}
}

/* --- evaluation --- */

static int
matches(const regex_t *re, const struct xval *v)
{
	char buf[NUM_BUFSZ];
	regmatch_t m;
	const char *p;
	size_t n;

	text_of(v, buf, &p, &n);
	/* glibc's REG_STARTEND: the slice as it is, no copy to end it */
	m.rm_so = 0;
	m.rm_eo = (regoff_t)n;
	return regexec(re, p, 1, &m, REG_STARTEND) == 0;
}

/* x in (items): true when one equals x; else unknown when one
 * comparison was; else false. */
static int
in_items(const struct xval *x, const struct xval *items, size_t n)
{
	size_t i;
	int unknown = 0, c;

	for (i = 0; i < n; i++) {
		if ((c = compare(x, &items[i])) == 0)
			return 1;
		unknown |= c == -2;
	}
	return unknown ? -1 : 0;
}

static int
both_known(int a, int b, int is_and)
{
	if (is_and)
		return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1;
	return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1;
}

static int
compared(enum xop op, int c)
{
	if (c == -2)
		return -1;
	switch (op) {
	case X_EQ: return c == 0;
	case X_NE: return c != 0;
	case X_LT: return c < 0;
	case X_LE: return c <= 0;
	case X_GT: return c > 0;
	default: return c >= 0;
	}
}

void
expr_eval(const struct expr *e, struct xvm *vm, const struct xslice *slots,
    struct xval *out)
{
	const struct xins *ip = e->code, *end = e->code + e->ncode;
	struct xval *sp, *stack;
	size_t i;
	int t;

	if (vm->capstack < e->maxdepth + 1)
		xgrow(&vm->stack, &vm->capstack, e->maxdepth + 1,
		    sizeof(*vm->stack));
	if (vm->nold > 0) {	/* results of the last evaluation are done */
		for (i = 0; i < vm->nold; i++)
			free(vm->old[i]);
		vm->nold = 0;
	}
	vm->used = 0;
	sp = stack = vm->stack;	/* sp: the next free */
	for (; ip < end; ip++) {
		switch ((enum xop)ip->op) {
		case X_CONST:
			*sp++ = e->consts[ip->a];
			break;
		case X_FIELD:
			load(sp++, &slots[e->fields[ip->a].slot]);
			break;
		case X_NEG:
			negate(sp - 1);
			break;
		case X_ADD: case X_SUB: case X_MUL: case X_DIV: case X_MOD:
			sp--;
			arith((enum xop)ip->op, sp - 1, sp);
			break;
		case X_EQ: case X_NE: case X_LT: case X_LE: case X_GT:
		case X_GE:
			sp--;
			set_truth(sp - 1, compared((enum xop)ip->op,
			    compare(sp - 1, sp)));
			break;
		case X_MATCH:
		case X_NMATCH:
			if (sp[-1].t != XV_NULL)
				set_int(sp - 1, matches(&e->res[ip->a],
				    sp - 1) == (ip->op == X_MATCH));
			break;
		case X_IN:
			sp -= ip->a;
			set_truth(sp - 1, in_items(sp - 1, sp, ip->a));
			break;
		case X_ISNULL:
		case X_NOTNULL:
			set_int(sp - 1, (sp[-1].t == XV_NULL) ==
			    (ip->op == X_ISNULL));
			break;
		case X_NOT:
			t = xval_truth(sp - 1);
			set_truth(sp - 1, t < 0 ? -1 : !t);
			break;
		case X_AND:
		case X_OR:
			sp--;
			set_truth(sp - 1, both_known(xval_truth(sp - 1),
			    xval_truth(sp), ip->op == X_AND));
			break;
		case X_CALL:
			sp -= ip->b;
			call_fn(vm, (enum xfn)ip->a, sp, ip->b);
			sp++;
			break;
		case X_FCMP:
			load(sp, &slots[e->fields[ip->a].slot]);
			set_truth(sp, compared((enum xop)ip->b,
			    compare(sp, &e->consts[ip->c])));
			sp++;
			break;
		}
	}
	*out = stack[0];
}

int
expr_test(const struct expr *e, struct xvm *vm, const struct xslice *slots)
{
	const struct xins *ip = e->code;
	const struct xval *k;
	struct xval v;

	if (e->ncode == 1 && ip->op == X_FCMP) {
		/* a field against a constant, the commonest --where: no
		 * stack, and two integers compared in place */
		load(&v, &slots[e->fields[ip->a].slot]);
		k = &e->consts[ip->c];
		if (v.t == XV_INT && k->t == XV_INT)
			return compared((enum xop)ip->b, (v.u.i > k->u.i) -
			    (v.u.i < k->u.i));
		return compared((enum xop)ip->b, compare(&v, k));
	}

	expr_eval(e, vm, slots, &v);
	return xval_truth(&v);
}

/* --- Flink SQL --- */

/* Each operand's SQL, as a stack, with what it is: Flink's columns of a
 * source read as text are STRING, so a field is cast to DOUBLE where
 * fwin would read it as a number (against a number, in arithmetic), and
 * a value in a boolean place is made a condition as fwin judges it. */
enum sqlkind { SK_FIELD, SK_NUM, SK_TEXT, SK_BOOL };

struct sqlitem {
	char *s;
	enum sqlkind k;
};

struct sqlstack {
	struct sqlitem *v;
	size_t n, cap;
};

static void __attribute__((format(printf, 4, 5)))
sql_push(struct sqlstack *st, size_t pop, enum sqlkind k, const char *fmt,
    ...)
{
	va_list ap;
	char *s;
	size_t i;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fwin_oom();
	va_end(ap);
	for (i = 0; i < pop; i++)
		free(st->v[--st->n].s);
	if (st->n == st->cap)
		xgrow(&st->v, &st->cap, st->n + 1, sizeof(*st->v));
	st->v[st->n].s = s;
	st->v[st->n++].k = k;
}

/* The i-th operand from the top (1: the top) as a number, as text, or
 * as a condition; each string is the caller's to free. */
static char *
sql_as(const struct sqlstack *st, size_t i, enum sqlkind want)
{
	const struct sqlitem *it;
	char *s;
	int rc = 0;

	if (i > st->n)	/* (a parsed program always has its operands) */
		return xstrdup("NULL");
	it = &st->v[st->n - i];

	if (want == SK_NUM && it->k == SK_FIELD)
		rc = asprintf(&s, "CAST(%s AS DOUBLE)", it->s);
	else if (want == SK_TEXT && it->k == SK_NUM)
		rc = asprintf(&s, "CAST(%s AS STRING)", it->s);
	else if (want == SK_BOOL && it->k == SK_FIELD)	/* text is true */
		rc = asprintf(&s, "(%s IS NOT NULL AND %s <> '0')", it->s,
		    it->s);
	else if (want == SK_BOOL && it->k == SK_NUM)
		rc = asprintf(&s, "(%s <> 0)", it->s);
	else if (want == SK_BOOL && it->k == SK_TEXT)
		rc = asprintf(&s, "(%s IS NOT NULL)", it->s);
	else
		s = xstrdup(it->s);
	if (rc < 0)
		fwin_oom();
	return s;
}

/* A SQL string literal: quotes doubled. */
static char *
sql_string(const char *p, size_t n)
{
	char *s = xmalloc(2 * n + 3), *o = s;
	size_t i;

	*o++ = '\'';
	for (i = 0; i < n; i++) {
		if (p[i] == '\'')
			*o++ = '\'';
		*o++ = p[i];
	}
	*o++ = '\'';
	*o = '\0';
	return s;
}

/* Whether one of the top n operands is a number: the others are then
 * read as numbers too (a comparison, min, max, coalesce, in). */
static int
any_num(const struct sqlstack *st, size_t n)
{
	size_t i;

	if (n > st->n)	/* (a parsed program always has its operands) */
		return 0;
	for (i = 1; i <= n; i++)
		if (st->v[st->n - i].k == SK_NUM)
			return 1;
	return 0;
}

/* The top n operands, each as want, joined by ", " (caller frees). */
static char *
sql_args(const struct sqlstack *st, size_t n, enum sqlkind want)
{
	char *s = NULL, *a;
	size_t len = 0, i;
	FILE *f = open_memstream(&s, &len);

	if (f == NULL)
		fwin_oom();
	for (i = n; i > 0; i--) {
		a = sql_as(st, i, want);
		fprintf(f, "%s%s", i < n ? ", " : "", a);
		free(a);
	}
	if (fclose(f) != 0 || s == NULL)
		fwin_oom();
	return s;
}

static void
sql_call(struct sqlstack *st, enum xfn fn, size_t n)
{
	enum sqlkind k = SK_TEXT, want = SK_FIELD;
	char *a, *c;

	switch (fn) {
	case F_ABS: case F_FLOOR: case F_CEIL: case F_ROUND:
		want = k = SK_NUM;
		break;
	case F_LEN:
		want = SK_TEXT;
		k = SK_NUM;
		break;
	case F_LOWER: case F_UPPER: case F_SUBSTR:
		want = SK_TEXT;
		break;
	case F_MIN: case F_MAX: case F_COALESCE:
		if (any_num(st, n))
			want = k = SK_NUM;
		break;
	case F_IF:
		c = sql_as(st, 3, SK_BOOL);
		if (any_num(st, 2))
			want = k = SK_NUM;
		a = sql_args(st, 2, want);
		sql_push(st, 3, k, "IF(%s, %s)", c, a);
		free(c);
		free(a);
		return;
	}
	if (fn == F_LEN) {
		/* CHAR_LENGTH(s) for text without NUL bytes: the FlinkSQL
		 * grammar of dt-sql-parser takes CHAR_LENGTH for a reserved
		 * word, not a function (explain_notes.c says so) */
		a = sql_as(st, 1, SK_TEXT);
		sql_push(st, 1, SK_NUM, "(POSITION(CHR(0) IN CONCAT(%s, "
		    "CHR(0))) - 1)", a);
		free(a);
		return;
	}
	if (fn == F_SUBSTR) {	/* the text, then its numbers */
		c = sql_as(st, n, SK_TEXT);
		a = sql_args(st, n - 1, SK_NUM);
		sql_push(st, n, k, "SUBSTR(%s, %s)", c, a);
		free(c);
		free(a);
		return;
	}
	a = sql_args(st, n, want);
	sql_push(st, n, k, "%s(%s)", fns[fn].sql, a);
	free(a);
}

/* A binary operator: arithmetic (numbers), a comparison (numbers when
 * one side is), AND and OR (conditions). */
static void
sql_binary(struct sqlstack *st, enum xop op)
{
	static const char *const bin[] = {
		[X_ADD] = "+", [X_SUB] = "-", [X_MUL] = "*", [X_DIV] = "/",
		[X_EQ] = "=", [X_NE] = "<>", [X_LT] = "<", [X_LE] = "<=",
		[X_GT] = ">", [X_GE] = ">=", [X_AND] = "AND", [X_OR] = "OR"
	};
	enum sqlkind want = SK_NUM, k = SK_NUM;
	char *a, *b;

	if (op >= X_EQ && op <= X_GE) {
		k = SK_BOOL;
		want = any_num(st, 2) ? SK_NUM : SK_FIELD;
	} else if (op == X_AND || op == X_OR)
		want = k = SK_BOOL;
	a = sql_as(st, 2, want);
	b = sql_as(st, 1, want);
	if (op == X_DIV)	/* true division, as fwin's */
		sql_push(st, 2, k, "(%s / NULLIF(%s, 0))", a, b);
	else if (op == X_MOD)
		sql_push(st, 2, k, "MOD(%s, %s)", a, b);
	else
		sql_push(st, 2, k, "(%s %s %s)", a, bin[op], b);
	free(a);
	free(b);
}

static void
sql_const(struct sqlstack *st, const struct expr *e, size_t k)
{
	const struct xval *c = &e->consts[k];
	char *s;

	if (c->t == XV_NULL)
		sql_push(st, 0, SK_TEXT, "CAST(NULL AS STRING)");
	else if (c->t == XV_TEXT) {
		s = sql_string(c->p, c->n);
		sql_push(st, 0, SK_TEXT, "%s", s);
		free(s);
	} else
		sql_push(st, 0, SK_NUM, "%s", e->ctext[k]);
}

void
expr_sql(const struct expr *e, FILE *f,
    const char *(*name)(void *arg, size_t i), void *arg)
{
	struct sqlstack st = { NULL, 0, 0 };
	const struct xins *ip;
	char *s, *a;

	for (ip = e->code; ip < e->code + e->ncode; ip++) {
		switch ((enum xop)ip->op) {
		case X_CONST:
			sql_const(&st, e, ip->a);
			break;
		case X_FIELD:
			sql_push(&st, 0, SK_FIELD, "%s",
			    name(arg, e->fields[ip->a].slot));
			break;
		case X_NEG:
			a = sql_as(&st, 1, SK_NUM);
			sql_push(&st, 1, SK_NUM, "(-%s)", a);
			free(a);
			break;
		case X_MATCH:
		case X_NMATCH:
			s = sql_string(e->retext[ip->a],
			    strlen(e->retext[ip->a]));
			a = sql_as(&st, 1, SK_TEXT);
			sql_push(&st, 1, SK_BOOL, "%sREGEXP(%s, %s)",
			    ip->op == X_NMATCH ? "NOT " : "", a, s);
			free(a);
			free(s);
			break;
		case X_IN:
			s = sql_args(&st, ip->a + 1, any_num(&st, ip->a + 1) ?
			    SK_NUM : SK_FIELD);
			a = strchr(s, ',');	/* the value, then the items */
			*a = '\0';
			sql_push(&st, ip->a + 1, SK_BOOL, "(%s IN (%s))", s,
			    a + 2);
			free(s);
			break;
		case X_ISNULL:
		case X_NOTNULL:
			a = sql_as(&st, 1, SK_FIELD);
			sql_push(&st, 1, SK_BOOL, "(%s IS %sNULL)", a,
			    ip->op == X_NOTNULL ? "NOT " : "");
			free(a);
			break;
		case X_NOT:
			a = sql_as(&st, 1, SK_BOOL);
			sql_push(&st, 1, SK_BOOL, "(NOT %s)", a);
			free(a);
			break;
		case X_CALL:
			sql_call(&st, (enum xfn)ip->a, ip->b);
			break;
		case X_FCMP:	/* the field, the constant, the comparison */
			sql_push(&st, 0, SK_FIELD, "%s",
			    name(arg, e->fields[ip->a].slot));
			sql_const(&st, e, ip->c);
			sql_binary(&st, (enum xop)ip->b);
			break;
		default:
			sql_binary(&st, (enum xop)ip->op);
		}
	}
	fputs(st.n > 0 ? st.v[0].s : "TRUE", f);
	while (st.n > 0)
		free(st.v[--st.n].s);
	free(st.v);
}

int
expr_calls(const struct expr *e, const char *fn)
{
	size_t i;

	for (i = 0; i < e->ncode; i++)
		if (e->code[i].op == X_CALL &&
		    strcmp(fns[e->code[i].a].name, fn) == 0)
			return 1;
	return 0;
}

/* Whether e's value is a number in SQL (else text or a condition). */
int
expr_sql_numeric(const struct expr *e)
{
	const struct xins *last = &e->code[e->ncode - 1];

	switch ((enum xop)last->op) {
	case X_CONST:
		return e->consts[last->a].t == XV_INT ||
		    e->consts[last->a].t == XV_DBL;
	case X_NEG: case X_ADD: case X_SUB: case X_MUL: case X_DIV:
	case X_MOD:
		return 1;
	case X_CALL:
		return last->a <= F_MAX || last->a == F_LEN;
	default:
		return 0;
	}
}
