/* rowexpr: --having and --eval over a row's cells; see rowexpr.h. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/expr.h"
#include "base/num.h"
#include "flow/rowexpr.h"
#include "base/util.h"

struct rowexpr {
	const struct config *c;
	size_t ncols;		/* the rendered columns; the evals follow */
	int final;		/* --emit-every: then the final column, which
				   --having may read, --eval not */
};

/* An --eval column's value, kept past the next evaluation. */
struct evalval {
	int null, num;		/* an empty cell; a number (bare in json) */
	int real;		/* a double's (not an exact decimal's) */
	size_t off, n;		/* its text in rc->text */
};

struct rowcells {
	struct out *sink;
	struct xvm *vm;
	struct xslice *slots;	/* the rendered cells, then the evals' */
	struct evalval *ev;
	char *text;		/* the evals' text */
	size_t cap;
};

/* The closest of names[0..n) to name, up to three, for a message. */
static void
no_column(const char *opt, size_t pos, const char *name,
    const char *const *names, size_t n)
{
	char hint[256];

	closest_names(name, names, n, hint, sizeof(hint));
	fwin_warn("%s: at %zu: no column '%s'%s", opt, pos, name, hint);
}

/* Binds e's fields to the first n of names[0..all) (the columns it may
 * read; those after are made later, the last --emit-every's 'final'
 * when final, and a message says so when it names one). Returns 0, or
 * -1 after a message. */
static int
bind(struct expr *e, const char *opt, const char *const *names, size_t n,
    size_t all, int final)
{
	const char *name;
	size_t i, j, k, col, pos;
	int braced;

	for (i = 0; i < expr_nfields(e); i++) {
		expr_field(e, i, &name, &col, &pos, &braced);
		if (name == NULL) {
			if (col > n) {
				fwin_warn("%s: at %zu: no column $%zu (a row "
				    "has %zu here)", opt, pos, col, n);
				return -1;
			}
			expr_bind(e, i, col - 1);
			continue;
		}
		for (j = 0, k = SIZE_MAX; j < n; j++) {
			if (strcmp(names[j], name) != 0)
				continue;
			if (k != SIZE_MAX) {	/* which one is meant? */
				fwin_warn("%s: at %zu: '%s' names two columns, "
				    "$%zu and $%zu; name one apart with --as, "
				    "or write $N", opt, pos, name, k + 1, j + 1);
				return -1;
			}
			k = j;
		}
		for (j = n; k == SIZE_MAX && j < all; j++)
			if (strcmp(names[j], name) == 0) {
				fwin_warn("%s: at %zu: no column '%s' yet: "
				    "%s (an --eval reads only the columns "
				    "before its own)", opt, pos, name,
				    final && j == all - 1 ? "--emit-every's "
				    "'final' comes after the --eval columns" :
				    "its --eval comes later");
				return -1;
			}
		if (k == SIZE_MAX) {
			no_column(opt, pos, name, names, n);
			return -1;
		}
		expr_bind(e, i, k);
	}
	return 0;
}

/* Adds to names[0..*n) e's field names that none of cols[0..ncols) nor
 * an --eval column has, each once. Returns 0, or -1 after a usage
 * message ($N). */
static int
add_members(const struct config *c, const struct expr *e, const char *opt,
    const char *const *cols, size_t ncols, const char **names, size_t *n)
{
	const char *name;
	size_t i, j, col, pos;
	int braced;

	for (i = 0; i < expr_nfields(e); i++) {
		expr_field(e, i, &name, &col, &pos, &braced);
		if (name == NULL) {
			fwin_warn("%s: at %zu: no column $%zu: a JSON record's "
			    "members have no order; name them (${%zu} for "
			    "one named %zu)", opt, pos, col, col, col);
			return -1;
		}
		for (j = 0; j < ncols && strcmp(cols[j], name) != 0; j++)
			;
		if (j < ncols)
			continue;
		for (j = 0; j < c->nevals && strcmp(c->evals[j].name,
		    name) != 0; j++)
			;
		if (j < c->nevals)
			continue;
		for (j = 0; j < *n && strcmp(names[j], name) != 0; j++)
			;
		if (j == *n)
			names[(*n)++] = name;
	}
	return 0;
}

/* Whether e reads a column by its number ($N): -1 after a usage
 * message (opt: the option that gave e), or 0. */
static int
numbered(const struct expr *e, const char *opt)
{
	const char *name;
	size_t i, col, pos;
	int braced;

	for (i = 0; i < expr_nfields(e); i++) {
		expr_field(e, i, &name, &col, &pos, &braced);
		if (name == NULL) {
			fwin_warn("%s: at %zu: no column $%zu: without -H a "
			    "record's fields have no names and no fixed "
			    "number; name an aggregate's column, or give -H",
			    opt, pos, col);
			return -1;
		}
	}
	return 0;
}

int
rowexpr_names_only(const struct config *c)
{
	size_t i;

	for (i = 0; i < c->nevals; i++)
		if (numbered(c->evals[i].e, "--eval") != 0)
			return -1;
	return c->having != NULL ? numbered(c->having, "--having") : 0;
}

int
rowexpr_members(const struct config *c, const char *const *cols,
    size_t ncols, const char ***names, size_t *n)
{
	size_t i, most = c->having != NULL ? expr_nfields(c->having) : 0;

	for (i = 0; i < c->nevals; i++)
		most += expr_nfields(c->evals[i].e);
	*names = xmalloc((most ? most : 1) * sizeof(**names));
	*n = 0;
	for (i = 0; i < c->nevals; i++)
		if (add_members(c, c->evals[i].e, "--eval", cols, ncols,
		    *names, n) != 0)
			goto fail;
	if (c->having != NULL && add_members(c, c->having, "--having", cols,
	    ncols, *names, n) != 0)
		goto fail;
	return 0;
fail:
	free(*names);
	*names = NULL;
	return -1;
}

int
rowexpr_new(struct config *c, const char *const *cols, size_t ncols,
    struct rowexpr **out)
{
	const char **names;
	int final = c->emit_every > 0;
	size_t i, n = ncols + c->nevals + final;
	int rc = -1;

	*out = NULL;
	if (c->having == NULL && c->nevals == 0)
		return 0;
	names = xmalloc((n ? n : 1) * sizeof(*names));
	memcpy(names, cols, ncols * sizeof(*names));
	for (i = 0; i < c->nevals; i++)
		names[ncols + i] = c->evals[i].name;
	if (final)
		names[n - 1] = "final";
	for (i = 0; i < c->nevals; i++)
		if (bind(c->evals[i].e, "--eval", names, ncols + i, n,
		    final) != 0)
			goto done;
	if (c->having != NULL &&
	    bind(c->having, "--having", names, n, n, final) != 0)
		goto done;
	*out = xcalloc(1, sizeof(**out));
	(*out)->c = c;
	(*out)->ncols = ncols;
	(*out)->final = final;
	rc = 0;
done:
	free(names);
	return rc;
}

void
rowexpr_free(struct rowexpr *x)
{
	free(x);
}

struct rowcells *
rowcells_new(const struct rowexpr *x)
{
	struct rowcells *rc = xcalloc(1, sizeof(*rc));
	size_t n = x->ncols + x->c->nevals + x->final;

	rc->sink = out_open_mem();
	rc->vm = xvm_new();
	rc->slots = xcalloc(n ? n : 1, sizeof(*rc->slots));
	rc->ev = xcalloc(x->c->nevals ? x->c->nevals : 1, sizeof(*rc->ev));
	return rc;
}

void
rowcells_free(struct rowcells *rc)
{
	if (rc == NULL)
		return;
	(void)out_close(rc->sink);
	xvm_free(rc->vm);
	free(rc->slots);
	free(rc->ev);
	free(rc->text);
	free(rc);
}

struct out *
rowcells_sink(struct rowcells *rc)
{
	out_mem_clear(rc->sink);
	return rc->sink;
}

/* Keeps value v as eval k's: its text copied, so that the next
 * evaluation (which reuses the scratch) leaves it be. */
static void
keep(struct rowcells *rc, size_t k, const struct xval *v, size_t *used)
{
	struct evalval *e = &rc->ev[k];
	char buf[NUM_BUFSZ];
	const char *p;
	size_t n;

	e->null = xval_text(v, buf, &p, &n) != 0;
	e->num = v->t == XV_INT || v->t == XV_DBL;
	e->real = v->t == XV_DBL;
	e->off = *used;
	e->n = e->null ? 0 : n;
	if (*used + e->n > rc->cap)
		xgrow(&rc->text, &rc->cap, *used + e->n, 1);
	if (e->n > 0)
		memcpy(rc->text + *used, p, e->n);
	*used += e->n;
}

int
rowexpr_judge(const struct rowexpr *x, struct rowcells *rc)
{
	const struct config *c = x->c;
	struct xval v;
	size_t i, j, used = 0;

	for (i = 0; i < x->ncols; i++)
		rc->slots[i].p = out_cell(rc->sink, i, &rc->slots[i].n);
	if (x->final)	/* rendered after the others, read after the evals */
		rc->slots[x->ncols + c->nevals].p = out_cell(rc->sink,
		    x->ncols, &rc->slots[x->ncols + c->nevals].n);
	for (i = 0; i < c->nevals; i++) {
		expr_eval(c->evals[i].e, rc->vm, rc->slots, &v);
		keep(rc, i, &v, &used);
		/* the text may have moved as it grew: every slot again */
		for (j = 0; j <= i; j++) {
			rc->slots[x->ncols + j].p = rc->ev[j].null ? NULL :
			    rc->text + rc->ev[j].off;
			rc->slots[x->ncols + j].n = rc->ev[j].n;
		}
	}
	return c->having == NULL || expr_test(c->having, rc->vm, rc->slots) == 1;
}

const char *
rowexpr_cell(const struct rowcells *rc, size_t i, size_t *n)
{
	*n = rc->slots[i].n;
	return rc->slots[i].n > 0 ? rc->slots[i].p : NULL;
}

void
rowexpr_write(const struct rowexpr *x, const struct rowcells *rc,
    struct out *o)
{
	size_t i;

	for (i = 0; i < x->c->nevals; i++) {
		const struct evalval *e = &rc->ev[i];

		if (e->null)
			out_null(o);
		else if (e->real)
			out_own_float(o, rc->text + e->off, e->n);
		else if (e->num)
			out_own_num(o, rc->text + e->off, e->n);
		else
			out_str(o, rc->text + e->off, e->n);
	}
}
