/*
 * Fuzz target "expr": the expression language (src/pipeline/expr.h).
 *
 * The data is the expression's text up to its first NUL byte; what
 * follows is the values of up to 4 fields, each ended by a NUL (missing
 * ones are NULL). The fields are bound to the slots in turn. Properties:
 *	- a text that does not parse says where, "at N: ...", with N within
 *	  the text (1 to its length plus 1);
 *	- a parsed program evaluates without allocation errors, twice over
 *	  the same fields to the same result (the scratch of one evaluation
 *	  does not leak into the next), and expr_test agrees with the
 *	  value's truth;
 *	- its Flink SQL is written, with balanced parentheses outside quotes.
 */
#include "fuzz.h"

#include "pipeline/expr.h"

static const char *
sqlname(void *arg, size_t slot, int *number)
{
	static const char *const names[] = { "`a`", "`b`", "`c`", "`d`" };

	(void)arg;
	*number = slot % 4 == 3;	/* a column of a number type */
	return names[slot % 4];
}

/* The result as text, "NULL" for NULL, into buf. */
static void
result(const struct xval *v, char *buf, size_t sz)
{
	char num[32];
	const char *p;
	size_t n;

	if (xval_text(v, num, &p, &n) != 0)
		snprintf(buf, sz, "NULL");
	else
		snprintf(buf, sz, "%d:%.*s", (int)v->t, (int)(n > 200 ? 200 : n),
		    p);
}

static void
check_sql(const struct expr *e)
{
	char *s = NULL, q = 0;
	size_t len = 0, i;
	long depth = 0;
	FILE *f = open_memstream(&s, &len);

	if (f == NULL)
		abort();
	expr_sql(e, f, 1, sqlname, NULL);	/* as a condition */
	fputc(' ', f);
	expr_sql(e, f, 0, sqlname, NULL);	/* as a value */
	if (fclose(f) != 0 || s == NULL)
		abort();
	for (i = 0; i < len; i++) {
		if (q != 0) {
			if (s[i] == q)
				q = 0;
		} else if (s[i] == '\'' || s[i] == '`')
			q = s[i];
		else if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth < 0)
			break;
	}
	if (depth != 0 || q != 0)
		fz_fail("unbalanced SQL: %s", s);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nul;
	char *text, err[256], r1[256], r2[256];
	struct xslice slots[4];
	struct expr *e;
	struct xvm *vm;
	struct xval v;
	unsigned long pos;
	size_t i, n;

	nul = memchr(p, '\0', size);
	n = nul != NULL ? (size_t)(nul - p) : size;
	if ((text = malloc(n + 1)) == NULL)
		abort();
	memcpy(text, p, n);
	text[n] = '\0';
	p = nul != NULL ? nul + 1 : end;
	for (i = 0; i < 4; i++) {	/* the fields, each ended by a NUL */
		nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		slots[i].p = p < end ? p : NULL;
		slots[i].n = nul != NULL ? (size_t)(nul - p) :
		    p < end ? (size_t)(end - p) : 0;
		p = nul != NULL ? nul + 1 : end;
	}
	if ((e = expr_parse(text, err, sizeof(err))) == NULL) {
		if (sscanf(err, "at %lu: ", &pos) != 1 || pos < 1 ||
		    pos > n + 1)
			fz_fail("\"%s\": \"%s\" says no place in the text", text,
			    err);
		free(text);
		return 0;
	}
	for (i = 0; i < expr_nfields(e); i++)
		expr_bind(e, i, i % 4);
	vm = xvm_new();
	expr_eval(e, vm, slots, &v);
	result(&v, r1, sizeof(r1));
	expr_eval(e, vm, slots, &v);
	result(&v, r2, sizeof(r2));
	if (strcmp(r1, r2) != 0)
		fz_fail("\"%s\": %s, then %s", text, r1, r2);
	if (expr_test(e, vm, slots) != xval_truth(&v))
		fz_fail("\"%s\": expr_test disagrees with %s", text, r1);
	check_sql(e);
	xvm_free(vm);
	expr_free(e);
	free(text);
	return 0;
}
