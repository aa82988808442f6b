/* expr_sql: an expression as Flink SQL, for --explain flink-sql
 * (expr.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/exprint.h"
#include "base/util.h"

/* --- Flink SQL --- */

/* Each operand's SQL, as a stack, with what it is: Flink's columns of a
 * source read as text are STRING, so a field is cast to DOUBLE where
 * fwin would read it as a number (against a number, in arithmetic), and
 * a value in a boolean place is made a condition as fwin judges it. A
 * column of a number type (SK_NUMCOL: an aggregate's, an --eval's) is a
 * number, cast to DOUBLE in arithmetic too, as fwin computes: BIGINT
 * columns would divide as integers. A number is SK_DBL where its SQL
 * type is DOUBLE (a cast field, arithmetic with one), SK_NUM where it
 * may be exact (a literal, a length): SQL divides two exact ones as
 * integers, so the first is cast. */
enum sqlkind { SK_FIELD, SK_NUMCOL, SK_NUM, SK_DBL, SK_TEXT, SK_BOOL };

/* Whether k is a number of some SQL type. */
static int
numeric(enum sqlkind k)
{
	return k == SK_NUM || k == SK_NUMCOL || k == SK_DBL;
}

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

	/* (a parsed program always has its operands) */
	if (i == 0 || i > st->n)
		return xstrdup("NULL");
	it = &st->v[st->n - i];

	if (want == SK_NUM && (it->k == SK_FIELD || it->k == SK_NUMCOL))
		rc = asprintf(&s, "CAST(%s AS DOUBLE)", it->s);
	else if (want == SK_TEXT && numeric(it->k))
		rc = asprintf(&s, "CAST(%s AS STRING)", it->s);
	else if (want == SK_BOOL && it->k == SK_FIELD)	/* text is true */
		rc = asprintf(&s, "(%s IS NOT NULL AND %s <> '0' AND "
		    "LOWER(%s) <> 'false')", it->s, it->s, it->s);
	else if (want == SK_BOOL && numeric(it->k))
		rc = asprintf(&s, "(%s <> 0)", it->s);
	else if (want == SK_BOOL && it->k == SK_TEXT)
		rc = asprintf(&s, "(%s IS NOT NULL AND LOWER(%s) <> 'false')",
		    it->s, it->s);
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
		if (numeric(st->v[st->n - i].k))
			return 1;
	return 0;
}

/* The kind of a number computed from the top n operands: a DOUBLE
 * where one of them is read as one (a field or a number column is cast
 * to it), else exact as they are. */
static enum sqlkind
num_of(const struct sqlstack *st, size_t n)
{
	size_t i;
	enum sqlkind k;

	for (i = 1; i <= n && i <= st->n; i++) {
		k = st->v[st->n - i].k;
		if (k == SK_FIELD || k == SK_NUMCOL || k == SK_DBL)
			return SK_DBL;
	}
	return SK_NUM;
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
		want = SK_NUM;
		k = num_of(st, n);
		break;
	case F_LEN:
		want = SK_TEXT;
		k = SK_NUM;
		break;
	case F_LOWER: case F_UPPER: case F_SUBSTR:
		want = SK_TEXT;
		break;
	case F_MIN: case F_MAX: case F_COALESCE:
		if (any_num(st, n)) {
			want = SK_NUM;
			k = num_of(st, n);
		}
		break;
	case F_IF:
		c = sql_as(st, 3, SK_BOOL);
		if (any_num(st, 2)) {
			want = SK_NUM;
			k = num_of(st, 2);
		}
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
	enum sqlkind want = SK_NUM, k = op == X_DIV ? SK_DBL : num_of(st, 2);
	char *a, *b;

	if (op >= X_EQ && op <= X_GE) {
		k = SK_BOOL;
		want = any_num(st, 2) ? SK_NUM : SK_FIELD;
	} else if (op == X_AND || op == X_OR)
		want = k = SK_BOOL;
	a = sql_as(st, 2, want);
	b = sql_as(st, 1, want);
	/* true division, as fwin's: of two exact numbers the first is made
	 * a DOUBLE */
	if (op == X_DIV && num_of(st, 2) == SK_NUM)
		sql_push(st, 2, k, "(CAST(%s AS DOUBLE) / NULLIF(%s, 0))", a, b);
	else if (op == X_DIV)
		sql_push(st, 2, k, "(%s / NULLIF(%s, 0))", a, b);
	else if (op == X_MOD && k == SK_NUM)
		sql_push(st, 2, k, "MOD(%s, NULLIF(%s, 0))", a, b);
	else if (op == X_MOD)	/* C's fmod(): SQL's MOD takes exact types */
		sql_push(st, 2, k, "(%s - %s * CAST(%s / NULLIF(%s, 0) AS "
		    "BIGINT))", a, b, a, b);
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

/* A field: a STRING column, or one of a number type as name() says. */
static void
sql_field(struct sqlstack *st, const struct expr *e, size_t k,
    const char *(*name)(void *arg, size_t slot, int *number), void *arg)
{
	int number = 0;
	const char *s = name(arg, e->fields[k].slot, &number);

	sql_push(st, 0, number == 2 ? SK_DBL : number ? SK_NUMCOL : SK_FIELD,
	    "%s", s);
}

/* The whole expression (the top operand; caller frees) and its SQL
 * type: as a condition, or as the value fwin prints, where a condition
 * is 1, 0 or NULL (the man page's Values), not SQL's TRUE and FALSE. */
static const char *
sql_result(const struct sqlstack *st, int cond, char **s)
{
	enum sqlkind k = st->v[st->n - 1].k;
	char *c;

	if (cond) {
		*s = sql_as(st, 1, SK_BOOL);
		return "BOOLEAN";
	}
	*s = sql_as(st, 1, k);
	if (numeric(k))
		return "DOUBLE";
	if (k != SK_BOOL)
		return "STRING";
	c = *s;
	if (asprintf(s, "CASE %s WHEN TRUE THEN 1 WHEN FALSE THEN 0 END",
	    c) < 0)
		fwin_oom();
	free(c);
	return "BIGINT";
}

const char *
expr_sql(const struct expr *e, FILE *f, int cond,
    const char *(*name)(void *arg, size_t slot, int *number), void *arg)
{
	struct sqlstack st = { NULL, 0, 0 };
	const struct xins *ip;
	enum sqlkind k;
	const char *type;
	char *s, *a;

	for (ip = e->code; ip < e->code + e->ncode; ip++) {
		switch ((enum xop)ip->op) {
		case X_CONST:
			sql_const(&st, e, ip->a);
			break;
		case X_FIELD:
			sql_field(&st, e, ip->a, name, arg);
			break;
		case X_NEG:
			k = num_of(&st, 1);
			a = sql_as(&st, 1, SK_NUM);
			sql_push(&st, 1, k, "(-%s)", a);
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
		case X_IN:	/* the value, then the items */
			k = any_num(&st, ip->a + 1) ? SK_NUM : SK_FIELD;
			a = sql_as(&st, ip->a + 1, k);
			s = sql_args(&st, ip->a, k);
			sql_push(&st, ip->a + 1, SK_BOOL, "(%s IN (%s))", a, s);
			free(a);
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
			sql_field(&st, e, ip->a, name, arg);
			sql_const(&st, e, ip->c);
			sql_binary(&st, (enum xop)ip->b);
			break;
		default:
			sql_binary(&st, (enum xop)ip->op);
		}
	}
	if (st.n == 0)	/* (a parsed program has a value) */
		sql_push(&st, 0, SK_BOOL, "TRUE");
	type = sql_result(&st, cond, &s);
	if (f != NULL)
		fputs(s, f);
	free(s);
	while (st.n > 0)
		free(st.v[--st.n].s);
	free(st.v);
	return type;
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
