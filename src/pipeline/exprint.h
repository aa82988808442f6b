/* exprint: the insides of an expression, shared by expr.c (parsing),
 * expr_eval.c (values and evaluation) and expr_sql.c (Flink SQL); no
 * other module includes it. */
#ifndef FWIN_EXPRINT_H
#define FWIN_EXPRINT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline/expr.h"

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

struct xfndef {
	const char *name, *sql;
	unsigned min, max;	/* arguments */
};

/* The functions, in enum xfn's order (expr.c). */
extern const struct xfndef fns[];
extern const size_t nfns;

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

#endif
