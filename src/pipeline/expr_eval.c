/* expr_eval: values, arithmetic, the functions and the evaluation of
 * a parsed program (expr.h); nothing here allocates per evaluation but
 * the scratch of text results when it must grow. */
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/exprint.h"
#include "base/decimal.h"
#include "base/num.h"
#include "base/util.h"

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

/* --- values --- */

struct xvm *
xvm_new(void)
{
	/* (a thread's own: written at every evaluation) */
	return xcalloc_lines(sizeof(struct xvm));
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

	/* (none yet: made even for 0 bytes, a result's pointer never
	 * NULL) */
	if (vm->buf == NULL || vm->used + n > vm->cap) {
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
	default:	/* JSON's false, as a text: false; any other true */
		return !(v->n == 5 && strncasecmp(v->p, "false", 5) == 0);
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
		*n = num_format_result(buf, v->u.d);
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

/* Whether a slot's text is an integer of at most 18 digits, the common
 * case, read 8 digits at a time (what num_parse would make of it,
 * without its general path): then *v is its value. */
static inline int
slot_int(const struct xslice *s, int64_t *v)
{
	uint64_t x;
	size_t i;

	if (s->p == NULL || s->n == 0)
		return 0;
	i = s->p[0] == '-' || s->p[0] == '+';
	if (s->n > i && s->n - i <= 18 &&
	    num_digits(s->p + i, s->n - i, &x) == s->n - i) {
		*v = s->p[0] == '-' ? -(int64_t)x : (int64_t)x;
		return 1;
	}
	return 0;
}

/* A slot's text as a value: empty is NULL, a number is a number. */
static void
load(struct xval *v, const struct xslice *s)
{
	struct num nu;

	v->p = s->p;
	v->n = s->n;
	if (s->p == NULL || s->n == 0) {
		set_null(v);
		return;
	}
	if (slot_int(s, &v->u.i)) {
		v->t = XV_INT;
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

/* Compares integer i with double d exactly, as SQL does: i as a double
 * may round onto d (2^53 + 1 onto 2^53, 2^63 - 1 onto 2^63). Rounding
 * keeps order, so the doubles decide when they differ; when they are
 * equal, d is whole and, below 2^63, an int64 to compare with i. */
static int
int_vs_dbl(int64_t i, double d)
{
	double x = (double)i;
	int64_t j;

	if (x != d)
		return (x > d) - (x < d);
	if (d >= 9223372036854775808.0)
		return -1;
	j = (int64_t)d;
	return (i > j) - (i < j);
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
	if (a->t == XV_INT && b->t == XV_DBL)
		return int_vs_dbl(a->u.i, b->u.d);
	if (a->t == XV_DBL && b->t == XV_INT)
		return -int_vs_dbl(b->u.i, a->u.d);
	if (is_num(a) && is_num(b))
		return (a->u.d > b->u.d) - (a->u.d < b->u.d);
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

static int
digit(int c)
{
	return c >= '0' && c <= '9';
}

/* round(x, d) of a double, half away from zero on its decimal text (so
 * that 2.675 rounds to 2.68, as written, not as the binary double
 * below it). */
static void
round_dbl(struct xval *v, int64_t d)
{
	char buf[NUM_BUFSZ], dig[64], out[128];
	const char *p, *end;
	size_t n, nd = 0, i, keep, used;
	int neg = 0, pt = -1, up;
	long ex = 0;
	char *o = out;

	/* a double's digits lie within 10^-1074 .. 10^308: past 1000
	 * places either way the result is the same, and the sums below stay
	 * far from overflow */
	if (d > 1000)
		d = 1000;
	if (d < -1000)
		d = -1000;
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
		ex = (long)dec_exponent(p + 1, (size_t)(end - p - 1), &used);
	if (ex > 400 || ex < -400)
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

		/* 10^d past the doubles' range: places finer than any
		 * digit the number has, or coarser than its size */
		if (s == 0 || !isfinite(x))
			return d > 0 ? set_dbl(v, dbl(v)) : set_whole(v, 0);

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
matches(struct xvm *vm, const regex_t *re, const struct xval *v)
{
	char buf[NUM_BUFSZ], *s;
	regmatch_t m;
	const char *p;
	size_t n;

	text_of(v, buf, &p, &n);
	/* regexec(3) reads a C string (a slice's next byte is not ours to
	 * read, and sanitizers' regexec takes its strlen): a copy, ended,
	 * in the scratch, no dearer than the match; REG_STARTEND so that a
	 * NUL byte inside is matched as a byte (glibc) */
	s = scratch(vm, n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	m.rm_so = 0;
	m.rm_eo = (regoff_t)n;
	return regexec(re, s, 1, &m, REG_STARTEND) == 0;
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
				set_int(sp - 1, matches(vm, &e->res[ip->a],
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
expr_quick(const struct expr *e, struct xquick *q)
{
	const struct xins *ip = e->code;
	int c;

	if (e->ncode != 1 || ip->op != X_FCMP || e->consts[ip->c].t != XV_INT)
		return 0;
	q->slot = e->fields[ip->a].slot;
	q->k = e->consts[ip->c].u.i;
	q->holds = 0;
	for (c = -1; c <= 1; c++)
		q->holds |= (unsigned)compared((enum xop)ip->b, c) << (c + 1);
	return 1;
}

int
expr_test(const struct expr *e, struct xvm *vm, const struct xslice *slots)
{
	const struct xins *ip = e->code;
	const struct xval *k;
	struct xval v;
	int64_t x;

	if (e->ncode == 1 && ip->op == X_FCMP) {
		/* a field against a constant, the commonest --where: no
		 * stack, and two integers compared in place */
		k = &e->consts[ip->c];
		if (k->t == XV_INT &&
		    slot_int(&slots[e->fields[ip->a].slot], &x))
			return compared((enum xop)ip->b, (x > k->u.i) -
			    (x < k->u.i));
		load(&v, &slots[e->fields[ip->a].slot]);
		return compared((enum xop)ip->b, compare(&v, k));
	}

	expr_eval(e, vm, slots, &v);
	return xval_truth(&v);
}

