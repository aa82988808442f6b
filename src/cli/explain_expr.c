/* explain_expr: the expressions in --explain flink-sql's script (the
 * man page's EXPRESSIONS): --where as the query's WHERE, an --if as its
 * aggregate's FILTER (WHERE ...), --as as the column's name, --eval as
 * computed columns and --having as a WHERE over the aggregated rows
 * (before a window Top-N, as fwin applies it). */
#include <stdlib.h>
#include <string.h>

#include "cli/explain_int.h"
#include "pipeline/expr.h"
#include "flow/rowexpr.h"
#include "base/util.h"

/* A column's SQL identifier, for expr_sql(): kept until the next. */
static const char *
ident(char **buf, const char *name)
{
	size_t len = 0;
	FILE *f;

	free(*buf);
	*buf = NULL;
	if ((f = open_memstream(buf, &len)) == NULL)
		fwin_oom();
	sql_ident(f, name);
	if (fclose(f) != 0 || *buf == NULL)
		fwin_oom();
	return *buf;
}

struct names {
	const struct ex *x;
	const char **cols;	/* the row's columns (having, eval) */
	const char **types;	/* and their SQL types */
	size_t ncols;
	char *buf;
};

/* A field of --where or --if: the source's column (a STRING). */
static const char *
source_name(void *arg, size_t slot, int *number)
{
	struct names *n = arg;

	(void)number;
	return ident(&n->buf, sql_col(n->x, &n->x->c->xfields[slot].f));
}

/* The offset fwin's ISO text gives bound c (an identifier): 'Z' in UTC,
 * else the zone's offset at that wall clock time as put_offset() writes
 * it (+HH:MM, :SS only when there are some). Flink's TIMESTAMP bound has
 * no offset: it is the difference between the wall clock and the same
 * wall clock moved to UTC by CONVERT_TZ, both without the bound's
 * milliseconds so that the seconds come out whole. The caller frees
 * it. */
static char *
iso_offset(const struct ex *x, const char *c)
{
	char *buf = NULL, *o = NULL, *wall = NULL;
	size_t len = 0;
	FILE *f;

	if (x->c->zone.utc)
		return xstrdup("'Z'");
	if (asprintf(&wall, "DATE_FORMAT(%s, 'yyyy-MM-dd HH:mm:ss')", c) < 0 ||
	    (f = open_memstream(&o, &len)) == NULL)
		fwin_oom();
	fprintf(f, "TIMESTAMPDIFF(SECOND, TO_TIMESTAMP(CONVERT_TZ(%s, ", wall);
	sql_literal(f, x->c->zone.name);
	fprintf(f, ", 'UTC')), TO_TIMESTAMP(%s))", wall);
	if (fclose(f) != 0 || o == NULL)
		fwin_oom();
	if (asprintf(&buf, "IF(%s < 0, '-', '+'), DATE_FORMAT(TIMESTAMPADD("
	    "SECOND, ABS(%s), TIMESTAMP '1970-01-01 00:00:00'), IF(MOD(%s, "
	    "60) = 0, 'HH:mm', 'HH:mm:ss'))", o, o, o) < 0)
		fwin_oom();
	free(wall);
	free(o);
	return buf;
}

/* A window bound, which the sink has as a TIMESTAMP(3) of the session
 * time zone, as fwin's row holds it for --having and --eval: an epoch
 * number in the unit the row prints (from the zone's wall clock and
 * its milliseconds), or ISO text, kept until the next. */
static const char *
bound_name(struct names *n, const char *col, int *number)
{
	enum tfmt f = ex_bound_format(n->x);
	char *c = NULL, *ms = NULL, *off = NULL;
	int rc;

	ident(&c, col);
	rc = asprintf(&ms, "(UNIX_TIMESTAMP(DATE_FORMAT(%s, 'yyyy-MM-dd "
	    "HH:mm:ss')) * 1000 + CAST(DATE_FORMAT(%s, 'SSS') AS BIGINT))",
	    c, c);
	free(n->buf);
	*number = f == TF_ISO ? 0 : f == TF_S ? 2 : 1;
	if (rc < 0)
		fwin_oom();
	else if (f == TF_ISO)
		rc = asprintf(&n->buf, "CONCAT(DATE_FORMAT(%s, "
		    "'yyyy-MM-dd''T''HH:mm:ss'), IF(DATE_FORMAT(%s, 'SSS') = "
		    "'000', '', CONCAT('.', DATE_FORMAT(%s, 'SSS'))), %s)",
		    c, c, c, off = iso_offset(n->x, c));
	else if (f == TF_MS || f == TF_AUTO)
		rc = asprintf(&n->buf, "%s", ms);
	else
		rc = asprintf(&n->buf, f == TF_S ? "(CAST(%s AS DOUBLE) / 1000)" :
		    f == TF_US ? "(%s * 1000)" : "(%s * 1000000)", ms);
	if (rc < 0)
		fwin_oom();
	free(c);
	free(ms);
	free(off);
	return n->buf;
}

/* A column of a row: the query's output name, a number as its type
 * has it; past them --emit-every's final column (rowexpr.h), 1 in
 * every row, as Flink's rows are final. */
static const char *
row_name(void *arg, size_t slot, int *number)
{
	struct names *n = arg;

	if (slot >= n->ncols)
		return "'1'";
	if (strcmp(n->types[slot], "TIMESTAMP(3)") == 0)
		return bound_name(n, n->cols[slot], number);
	*number = strcmp(n->types[slot], "BIGINT") == 0 ||
	    strcmp(n->types[slot], "DOUBLE") == 0;
	return ident(&n->buf, n->cols[slot]);
}

void
ex_where(struct ex *x, FILE *o, const char *lead)
{
	struct names n = { x, NULL, NULL, 0, NULL };

	if (x->c->where == NULL)
		return;
	fprintf(o, "%sWHERE ", lead);
	expr_sql(x->c->where, o, 1, source_name, &n);
	free(n.buf);
}

void
ex_cond(struct ex *x, FILE *o, const struct aggspec *a)
{
	struct names n = { x, NULL, NULL, 0, NULL };

	expr_sql(a->cond, o, 1, source_name, &n);
	free(n.buf);
}

/* The aggregate's SQL agg with its --if: FILTER (WHERE c) written as
 * the CASE WHEN c that it is short for (the same rows: aggregates skip
 * NULL), which every Flink SQL grammar reads. agg is the SQL without
 * it, whose input column is the first occurrence of col. */
char *
sql_filtered(struct ex *x, const struct aggspec *a, const char *agg,
    const char *col)
{
	char *s = NULL, *id = NULL;
	const char *at;
	size_t len = 0;
	FILE *f;

	if (a->cond == NULL)
		return xstrdup(agg);
	if ((f = open_memstream(&s, &len)) == NULL)
		fwin_oom();
	if (strncmp(agg, "COUNT(*)", 8) == 0) {
		fputs("COUNT(CASE WHEN ", f);
		ex_cond(x, f, a);
		fprintf(f, " THEN 1 END)%s", agg + 8);
	} else if (col != NULL && (at = strstr(agg, ident(&id, col))) != NULL) {
		fprintf(f, "%.*sCASE WHEN ", (int)(at - agg), agg);
		ex_cond(x, f, a);
		fprintf(f, " THEN %s END%s", id, at + strlen(id));
	} else
		fputs(agg, f);
	if (fclose(f) != 0 || s == NULL)
		fwin_oom();
	free(id);
	return s;
}

/* The row's column names before the --eval ones (malloc'd, as the
 * strings; *n of them), as the sink has them or (as_fwin) as fwin's row
 * has them, which may name two alike, and their SQL types (*types,
 * malloc'd), with room for the --eval ones: the window's bounds and
 * keys, or --over's record (the source's columns), then the
 * aggregates. */
static char **
row_cols(struct ex *x, int as_fwin, size_t *n, const char ***types)
{
	const struct config *c = x->c;
	size_t i, j, k = 0, m = 2 + c->nkeys + x->ncols + c->nevals;
	char **cols;
	const char **t;

	for (i = 0; i < c->naggs; i++)
		m += sql_agg_ncols(&c->aggs[i]);
	cols = xcalloc(m, sizeof(*cols));
	t = xcalloc(m, sizeof(*t));
	if (over_window(c))
		for (i = 0; i < x->ncols; i++) {
			t[k] = "STRING";
			cols[k++] = xstrdup(as_fwin ? x->names[i] :
			    x->cols[i]);
		}
	else {
		t[k] = "TIMESTAMP(3)";
		cols[k++] = xstrdup("window_start");
		t[k] = "TIMESTAMP(3)";
		cols[k++] = xstrdup("window_end");
		for (i = 0; i < c->nkeys; i++) {
			t[k] = "STRING";
			cols[k++] = as_fwin ? ex_key_header(x, i) :
			    sql_key_name(x, i);
		}
	}
	for (i = 0; i < c->naggs; i++)
		for (j = 0; j < sql_agg_ncols(&c->aggs[i]); j++) {
			t[k] = sql_agg_type(&c->aggs[i]);
			cols[k++] = sql_agg_name(&c->aggs[i], j);
		}
	*n = k;
	*types = t;
	return cols;
}

static void
free_cols(char **cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(cols[i]);
	free(cols);
}

int
ex_bind_rows(struct ex *x)
{
	const struct config *c = x->c;
	struct rowexpr *rx;
	struct names nm = { x, NULL, NULL, 0, NULL };
	size_t n, i, j;
	const char **types;
	/* the names as a run binds them, two alike as a run refuses */
	char **cols = row_cols(x, 1, &n, &types);
	int rc = rowexpr_new(x->c, (const char *const *)cols, n, &rx);

	rowexpr_free(rx);
	free(types);
	free_cols(cols, n);
	cols = row_cols(x, 0, &n, &types);
	for (i = 0; i < c->nevals; i++)
		cols[n + i] = xstrdup(c->evals[i].name);
	/* the sink table's: a SQL table's columns have names of their own */
	for (i = 0; rc == 0 && i < n + c->nevals; i++)
		for (j = 0; j < i; j++)
			if (strcmp(cols[i], cols[j]) == 0) {
				fwin_warn("--explain flink-sql: two columns of "
				    "the sink are named '%s'; name one apart "
				    "with --as", cols[i]);
				rc = -1;
				break;
			}
	/* each --eval's type, which the next ones see */
	x->eval_types = xcalloc(c->nevals, sizeof(*x->eval_types));
	nm.cols = (const char **)cols;
	nm.types = types;
	for (i = 0; rc == 0 && i < c->nevals; i++) {
		nm.ncols = n + i;
		types[n + i] = x->eval_types[i] = expr_sql(c->evals[i].e,
		    NULL, 0, row_name, &nm);
	}
	free(nm.buf);
	free(types);
	free_cols(cols, n + c->nevals);
	return rc == 0 ? 0 : 2;
}

/* Writes body with each line indented. */
static void
indented(FILE *o, const char *body)
{
	const char *p, *e;

	for (p = body; *p != '\0'; p = e + (*e != '\0')) {
		e = p + strcspn(p, "\n");
		fprintf(o, "  %.*s\n", (int)(e - p), p);
	}
}

char *
ex_wrap_rows(struct ex *x, char *body)
{
	const struct config *c = x->c;
	struct names nm = { x, NULL, NULL, 0, NULL };
	size_t i, n, len = 0;
	const char **types;
	char **cols, *out;
	FILE *o;

	if (c->nevals == 0 && c->having == NULL)
		return body;
	cols = row_cols(x, 0, &n, &types);
	for (i = 0; i < c->nevals; i++) {
		cols[n + i] = xstrdup(c->evals[i].name);
		types[n + i] = x->eval_types[i];
	}
	nm.cols = (const char **)cols;
	nm.types = types;
	nm.ncols = n + c->nevals;
	/* an --eval sees the ones before it: one query around another */
	for (i = 0; i <= c->nevals; i++) {
		if (i == c->nevals && c->having == NULL)
			break;
		out = NULL;
		if ((o = open_memstream(&out, &len)) == NULL)
			fwin_oom();
		fputs("SELECT *", o);
		if (i < c->nevals) {
			fputs(", ", o);
			expr_sql(c->evals[i].e, o, 0, row_name, &nm);
			fputs(" AS ", o);
			sql_ident(o, c->evals[i].name);
		}
		fputs("\nFROM (\n", o);
		indented(o, body);
		fprintf(o, ") AS `r%zu`", i + 1);
		if (i == c->nevals) {
			fputs("\nWHERE ", o);
			expr_sql(c->having, o, 1, row_name, &nm);
		}
		if (fclose(o) != 0 || out == NULL)
			fwin_oom();
		free(body);
		body = out;
	}
	free(nm.buf);
	free(types);
	free_cols(cols, n + c->nevals);
	return body;
}

void
ex_eval_cols(struct ex *x, FILE *o, const char *lead, int typed)
{
	const struct config *c = x->c;
	size_t i;

	for (i = 0; i < c->nevals; i++) {
		fputs(lead, o);
		sql_ident(o, c->evals[i].name);
		if (typed)
			fprintf(o, " %s", x->eval_types[i]);
	}
}
