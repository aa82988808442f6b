/* expr: the expression language of --where, --if, --having and --eval
 * (fwin(1), EXPRESSIONS). An expression is parsed once, at start, into a
 * flat program of stack operations (as awk and jq compile theirs), with
 * its fields named but not yet placed; the caller binds each field to a
 * slot, and evaluation reads the slots' text and allocates nothing. */
#ifndef FWIN_EXPR_H
#define FWIN_EXPR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A value: NULL, an exact integer, a double, or text (not
 * NUL-terminated). A number read from text keeps that text (p, n). */
enum xtype { XV_NULL, XV_INT, XV_DBL, XV_TEXT };

struct xval {
	enum xtype t;
	union {
		int64_t i;
		double d;
	} u;
	const char *p;		/* text: XV_TEXT, or a number's, or NULL */
	size_t n;
};

/* A slot's text: p NULL (or n 0) is NULL. */
struct xslice {
	const char *p;
	size_t n;
};

struct expr;
struct xvm;

/* How deep parentheses, calls and unary '-' and '!' may nest: the
 * parser recurses a level each (fwin(1), EXPRESSIONS). */
#define EXPR_MAXNEST	1000

/* Parses text. Returns the program, or NULL and writes what is wrong,
 * "at N: ..." (N the 1-based byte of text where it is), into
 * err[0..errsz). */
struct expr *expr_parse(const char *text, char *err, size_t errsz);
void expr_free(struct expr *e);

/* The text the expression was parsed from. */
const char *expr_text(const struct expr *e);

/* The distinct fields the expression names, 0 to expr_nfields() - 1: a
 * name (NUL-terminated), or a column number col (1-based: "$3"; name is
 * then NULL); pos is the 1-based byte of its first mention. braced: the
 * name was written ${...}, so even one of digits is a name. */
size_t expr_nfields(const struct expr *e);
void expr_field(const struct expr *e, size_t i, const char **name,
    size_t *col, size_t *pos, int *braced);

/* Binds field i to slot: evaluation reads it at slots[slot]. */
void expr_bind(struct expr *e, size_t i, size_t slot);

/* An evaluator's stack and scratch (per thread); grows to fit the
 * programs it runs, once. */
struct xvm *xvm_new(void);
void xvm_free(struct xvm *vm);

/* Evaluates e over slots. The result's text may point into slots, into
 * e, or into vm until the next evaluation with vm. */
void expr_eval(const struct expr *e, struct xvm *vm,
    const struct xslice *slots, struct xval *out);

/* Evaluates e as a condition: 1 true, 0 false, -1 unknown (NULL). */
int expr_test(const struct expr *e, struct xvm *vm,
    const struct xslice *slots);

/* One field against an integer constant ($3 >= 0), the commonest
 * --where, which the caller may test in place: the field's slot, the
 * constant, and whether the comparison holds for a value less than it
 * (bit 0), equal to it (bit 1) and greater (bit 2). */
struct xquick {
	size_t slot;
	int64_t k;
	unsigned holds;
};

/* Whether e is one (expr_quick_holds() then says what expr_test() says
 * of a field whose text is an integer, sign and digits, of value x);
 * of any other text, expr_test() says. */
int expr_quick(const struct expr *e, struct xquick *q);

static inline int
expr_quick_holds(const struct xquick *q, int64_t x)
{
	return (int)(q->holds >> ((x > q->k) - (x < q->k) + 1)) & 1;
}

/* A value as a condition: 1 true, 0 false, -1 unknown. */
int xval_truth(const struct xval *v);

/* Writes v's text as a result prints (an integer as one, other numbers
 * as num_format_result() writes them, text as it is) to buf (at least
 * 32 bytes) unless it is text, and sets *p, *n. Returns 0, or -1 for
 * NULL. */
int xval_text(const struct xval *v, char *buf, const char **p, size_t *n);

/* Writes e as Flink SQL to f (NULL: only its type), as a condition
 * (cond: a BOOLEAN, a value judged as fwin judges one in a boolean
 * place) or as the value fwin prints. name(arg, slot, &number) gives the
 * SQL text of the field bound to slot, a STRING column, or one of a
 * number type when it sets number (2: a DOUBLE already). Returns the
 * SQL type a sink column declares for it: BOOLEAN, BIGINT (a condition's
 * 1 or 0), DOUBLE (other numbers) or STRING. */
const char *expr_sql(const struct expr *e, FILE *f, int cond,
    const char *(*name)(void *arg, size_t slot, int *number), void *arg);

/* Whether e calls the function named fn. */
int expr_calls(const struct expr *e, const char *fn);

#endif
