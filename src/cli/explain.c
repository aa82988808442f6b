/* explain: --explain flink-sql; see explain.h and the man page's BEYOND
 * ONE MACHINE. The script is built from the pipeline's definition only
 * (and, when the definition needs them, the input's header and its first
 * time): one source table, one sink table, one INSERT. What Flink SQL does
 * not keep of fwin's semantics is said in the script's leading comment
 * (explain_notes.c), for this pipeline, with the nearest equivalent. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window/agg.h"
#include "cli/explain.h"
#include "cli/explain_int.h"
#include "io/input.h"
#include "base/stats.h"
#include "base/timefmt.h"
#include "base/util.h"

static int __attribute__((format(printf, 1, 2)))
no_counterpart(const char *fmt, ...)
{
	va_list ap;

	fputs("fwin: --explain flink-sql: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" has no Flink SQL counterpart\n", stderr);
	return 2;
}

/* --increase and --rate: no Flink SQL aggregate counts a counter's
 * resets from the key's value before the window; the message names
 * every one, so that one run tells what to drop. Returns 2, or 0 when
 * the pipeline has none. */
static int
no_counters(const struct config *c)
{
	size_t i, n = 0, j = 0;

	for (i = 0; i < c->naggs; i++)
		n += (c->aggs[i].op->flags & AGF_PRIOR) != 0;
	if (n == 0)
		return 0;
	fputs("fwin: --explain flink-sql: the reset rule of ", stderr);
	for (i = 0; i < c->naggs; i++) {
		if (!(c->aggs[i].op->flags & AGF_PRIOR))
			continue;
		fprintf(stderr, "%s--%s %s", j == 0 ? "" : j + 1 == n ?
		    " and " : ", ", c->aggs[i].op->option, c->aggs[i].f.spec);
		j++;
	}
	fputs(" has no Flink SQL counterpart\n", stderr);
	return 2;
}

/* --- the input: column names and the time format --- */

/* Whether one of the source's columns is named s. */
static int
col_named(const struct ex *x, const char *s)
{
	size_t i;

	for (i = 0; i < x->ncols; i++)
		if (strcmp(x->cols[i], s) == 0)
			return 1;
	return 0;
}

/* Adds the column p[0..n) names (n 0: fN). A table's columns have names
 * of their own, and fwin reads a header that names two fields alike:
 * the later one is named by its column number, as an expression names
 * it ($3), with '_' added while another column has that name. */
static void
add_col(struct ex *x, const char *p, size_t n)
{
	char *name;
	size_t len;

	if (n == 0) {
		if (asprintf(&name, "f%zu", x->ncols + 1) < 0)
			fwin_oom();
	} else
		name = xstrndup(p, n);
	x->names = xrealloc(x->names, (x->ncols + 1) * sizeof(*x->names));
	x->names[x->ncols] = xstrdup(name);
	if (col_named(x, name)) {
		free(name);
		if (asprintf(&name, "$%zu", x->ncols + 1) < 0)
			fwin_oom();
	}
	while (col_named(x, name)) {
		len = strlen(name);
		name = xrealloc(name, len + 2);
		memcpy(name + len, "_", 2);
	}
	x->cols = xrealloc(x->cols, (x->ncols + 1) * sizeof(*x->cols));
	x->cols[x->ncols++] = name;
}

/* The time format a record's time tells (-t F1,F2: the fields joined by
 * a space, as a run joins them), or TF_AUTO. */
static enum tfmt
detect(const struct config *c, const struct record *rec)
{
	char buf[256];
	size_t i, n;
	const struct field *f;

	if (c->time.idx >= rec->nf)
		return TF_AUTO;
	f = &rec->f[c->time.idx];
	if (c->ntime_more == 0)
		return tf_detect(f->p, f->n);
	if ((n = f->n) >= sizeof(buf))
		return TF_AUTO;
	memcpy(buf, f->p, n);
	for (i = 0; i < c->ntime_more; i++) {
		if (c->time_more[i].idx >= rec->nf)
			return TF_AUTO;
		f = &rec->f[c->time_more[i].idx];
		if (n + 1 + f->n >= sizeof(buf))
			return TF_AUTO;
		buf[n++] = ' ';
		memcpy(buf + n, f->p, f->n);
		n += f->n;
	}
	return tf_detect(buf, n);
}

/* Reads what the script needs of the input: the header (-H), and with
 * --time-format auto the first time that tells the format, as a run
 * fixes it. Returns 0 or an exit status. */
static int
read_input(struct ex *x)
{
	struct config *c = x->c;
	struct input_opts io;
	struct input *in;
	const struct field *names = NULL;
	struct record rec;
	size_t n = 0, i, m;
	int rc, status = 0;

	x->tfmt = c->time_fmt;
	memset(&io, 0, sizeof(io));
	io.fmt = c->fmt;
	io.delim = c->delim;
	io.header = c->header;
	if (!c->header && !(c->has_time && c->time_fmt == TF_AUTO)) {
		if (config_resolve(c, NULL, 0) != 0)
			return 2;
		m = config_maxfield(c);
		for (i = 0; i < m; i++)
			add_col(x, c->fmt == IF_JSON ? c->paths[i] : NULL,
			    c->fmt == IF_JSON ? strlen(c->paths[i]) : 0);
		return 0;
	}
	in = input_open(c->files, c->nfiles, &io);
	if (c->header) {
		if ((rc = input_header(in, &names, &n)) <= 0) {
			if (rc == 0)
				fwin_warn("--explain flink-sql: -H, and the "
				    "input has no header to name the columns");
			input_close(in);
			return 1;
		}
		for (i = 0; i < n; i++)
			add_col(x, names[i].p, names[i].n);
	}
	if (config_resolve(c, names, n) != 0) {
		input_close(in);
		return 2;
	}
	m = config_maxfield(c);
	if (c->fmt == IF_JSON)
		input_set_paths(in, c->paths, c->npaths);
	while (x->ncols < m)
		add_col(x, c->fmt == IF_JSON ? c->paths[x->ncols] : NULL,
		    c->fmt == IF_JSON ? strlen(c->paths[x->ncols]) : 0);
	if (c->has_time && c->time_fmt == TF_AUTO) {
		input_set_maxfields(in, m);
		while ((rc = input_next(in, &rec)) == INPUT_RECORD)
			if (rec.bad == NULL &&
			    (x->tfmt = detect(c, &rec)) != TF_AUTO)
				break;
		if (rc < 0)
			status = 1;
	}
	if (input_failed(in))
		status = 1;
	input_close(in);
	return status;
}

/* --- the script --- */

/* A file's URL as a string literal: its absolute path (a placeholder for
 * standard input, path NULL). */
static void
file_url(FILE *o, const char *path)
{
	char *url, *cwd;

	if (path == NULL)
		url = xstrdup("file:///path/to/input");
	else if (path[0] == '/') {
		if (asprintf(&url, "file://%s", path) < 0)
			fwin_oom();
	} else {
		if ((cwd = getcwd(NULL, 0)) == NULL)
			cwd = xstrdup(".");
		if (asprintf(&url, "file://%s/%s", cwd, path) < 0)
			fwin_oom();
		free(cwd);
	}
	sql_literal(o, url);
	free(url);
}

/* --json: a path that is also another's object ("a" and "a.b"), or
 * NULL. */
static const char *
json_conflict(const struct config *c)
{
	size_t i, j, n;

	for (i = 0; i < c->npaths; i++)
		for (j = 0, n = strlen(c->paths[i]); j < c->npaths; j++)
			if (strncmp(c->paths[j], c->paths[i], n) == 0 &&
			    c->paths[j][n] == '.')
				return c->paths[i];
	return NULL;
}

/* Whether the segment p[0..n) of a path is new among the paths before
 * path k that start with the same prefix of length pre. */
static int
json_first(const struct config *c, size_t k, size_t pre, const char *p,
    size_t n)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (strncmp(c->paths[i], c->paths[k], pre) == 0 &&
		    strncmp(c->paths[i] + pre, p, n) == 0 &&
		    (c->paths[i][pre + n] == '.' ||
		    c->paths[i][pre + n] == '\0'))
			return 0;
	return 1;
}

/* The type of the member that the paths' prefix pre[0..len) names:
 * STRING for a value, ROW<...> of its members for an object. */
static void
json_type(const struct ex *x, FILE *o, const char *pre, size_t len)
{
	const struct config *c = x->c;
	const char *p;
	size_t k, n;
	int first = 1;
	char *seg;

	for (k = 0; k < c->npaths; k++)
		if (strncmp(c->paths[k], pre, len) == 0 &&
		    c->paths[k][len] == '\0') {
			fputs("STRING", o);
			return;
		}
	fputs("ROW<", o);
	for (k = 0; k < c->npaths; k++) {
		if (strncmp(c->paths[k], pre, len) != 0 ||
		    c->paths[k][len] != '.')
			continue;
		p = c->paths[k] + len + 1;
		n = strcspn(p, ".");
		if (!json_first(c, k, len + 1, p, n))
			continue;
		fputs(first ? "" : ", ", o);
		first = 0;
		seg = xstrndup(p, n);
		sql_ident(o, seg);
		free(seg);
		fputc(' ', o);
		json_type(x, o, c->paths[k], (size_t)(p + n - c->paths[k]));
	}
	fputc('>', o);
}

/* --json: the top-level members the paths name, objects as ROW types,
 * and a computed column per nested path ("`a.b` AS `a`.`b`"). */
static void
json_columns(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	const char *p;
	size_t k, n;
	char *seg;

	for (k = 0; k < c->npaths; k++) {
		n = strcspn(c->paths[k], ".");
		if (!json_first(c, k, 0, c->paths[k], n))
			continue;
		seg = xstrndup(c->paths[k], n);
		fputs("  ", o);
		sql_ident(o, seg);
		free(seg);
		fputc(' ', o);
		json_type(x, o, c->paths[k], n);
		fputs(",\n", o);
	}
	for (k = 0; k < c->npaths; k++) {
		if (strchr(c->paths[k], '.') == NULL)
			continue;
		fputs("  ", o);
		sql_ident(o, c->paths[k]);
		fputs(" AS ", o);
		for (p = c->paths[k]; ; p += n + 1) {
			n = strcspn(p, ".");
			seg = xstrndup(p, n);
			sql_ident(o, seg);
			free(seg);
			if (p[n] == '\0')
				break;
			fputc('.', o);
		}
		fputs(",\n", o);
	}
}

/* The commented alternative of a Kafka topic, and the table's end. */
static void
kafka_comment(FILE *o, const char *format)
{
	fprintf(o, "  -- or a Kafka topic instead of the file:\n"
	    "  -- 'connector' = 'kafka',\n"
	    "  -- 'topic' = 'input',\n"
	    "  -- 'properties.bootstrap.servers' = 'localhost:9092',\n"
	    "  -- 'scan.startup.mode' = 'earliest-offset',\n"
	    "  -- 'format' = '%s'\n);\n\n", format);
}

static void
source_table(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	const char *fmt_delim = NULL;
	char dbuf[3] = { 0 };
	size_t i;

	fputs("CREATE TABLE `source` (\n", o);
	if (c->fmt == IF_JSON)
		json_columns(x, o);
	else
		for (i = 0; i < x->ncols; i++) {
			fputs("  ", o);
			sql_ident(o, x->cols[i]);
			fputs(" STRING,\n", o);
		}
	fputs("  ", o);
	sql_ident(o, x->tcol);
	fputs(" AS ", o);
	sql_time_expr(x, o);
	if (c->has_time) {
		fputs(",\n  WATERMARK FOR ", o);
		sql_ident(o, x->tcol);
		fputs(" AS ", o);
		sql_ident(o, x->tcol);
		fputs(" - ", o);
		sql_interval(o, sat_add((c->lateness + MS - 1) / MS * MS, MS));
	}
	fputs("\n) WITH (\n  'connector' = 'filesystem',\n  'path' = ", o);
	file_url(o, c->nfiles == 0 || strcmp(c->files[0], "-") == 0 ? NULL :
	    c->files[0]);
	if (c->follow)	/* --follow: the nearest (see its note) */
		fputs(",\n  'source.monitor-interval' = '1s'", o);
	if (c->fmt == IF_JSON) {
		fputs(",\n  'format' = 'json'\n", o);
		kafka_comment(o, "json");
		return;
	}
	fputs(",\n  'format' = 'csv',\n", o);
	if (c->fmt == IF_TSV || c->delim == '\t')
		fmt_delim = "\\t";
	else if (c->delim == '\\')
		fmt_delim = "\\\\";
	else if (c->delim >= 0 && c->delim != ',') {
		dbuf[0] = (char)c->delim;
		fmt_delim = dbuf;
	} else if (c->fmt == IF_LINES)
		fmt_delim = " ";
	if (fmt_delim != NULL) {
		fputs("  'csv.field-delimiter' = ", o);
		sql_literal(o, fmt_delim);
		fputs(",\n", o);
	}
	if (c->fmt != IF_CSV)
		fputs("  'csv.disable-quote-character' = 'true',\n", o);
	fputs("  'csv.null-literal' = ''\n", o);
	kafka_comment(o, "csv");
}

static void
sink_table(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	char *name;
	size_t i, j;

	fputs("CREATE TABLE `sink` (\n", o);
	if (over_window(c))	/* the record's columns */
		for (i = 0; i < x->ncols; i++) {
			fputs(i > 0 ? ",\n  " : "  ", o);
			sql_ident(o, x->cols[i]);
			fputs(" STRING", o);
		}
	else
		fputs("  `window_start` TIMESTAMP(3),\n"
		    "  `window_end` TIMESTAMP(3)", o);
	for (i = 0; i < c->nkeys && !over_window(c); i++) {
		fputs(",\n  ", o);
		sql_ident(o, name = sql_key_name(x, i));
		fputs(" STRING", o);
		free(name);
	}
	for (i = 0; i < c->naggs; i++)
		for (j = 0; j < sql_agg_ncols(&c->aggs[i]); j++) {
			fputs(",\n  ", o);
			sql_ident(o, name = sql_agg_name(&c->aggs[i], j));
			fprintf(o, " %s", sql_agg_type(&c->aggs[i]));
			free(name);
		}
	ex_eval_cols(x, o, ",\n  ", 1);
	if (c->changelog || c->sqlite != NULL)	/* an upsert sink */
		sql_primary_key(x, o);
	fputs("\n) WITH (\n", o);
	if (c->output == NULL) {
		fputs("  'connector' = 'print'\n);\n\n", o);
		if (c->changelog || c->sqlite != NULL)
			sql_jdbc_comment(x, o);
		return;
	}
	fputs("  'connector' = 'filesystem',\n  'path' = ", o);
	file_url(o, c->output);
	if (x->of == OF_JSON)
		fputs(",\n  'format' = 'json'\n);\n\n", o);
	else if (x->of == OF_TSV)
		fputs(",\n  'format' = 'csv',\n"
		    "  'csv.field-delimiter' = '\\t',\n"
		    "  'csv.disable-quote-character' = 'true'\n);\n\n", o);
	else
		fputs(",\n  'format' = 'csv'\n);\n\n", o);
	if (c->changelog)
		sql_jdbc_comment(x, o);
}

/* The window table function over table: TUMBLE, HOP or CUMULATE. */
static void
tvf(struct ex *x, FILE *o, const char *table)
{
	const struct config *c = x->c;

	fprintf(o, "TABLE(\n  %s(TABLE ", c->wkind == WK_TUMBLE ? "TUMBLE" :
	    c->wkind == WK_CUMULATE ? "CUMULATE" : "HOP");
	sql_ident(o, table);
	fputs(", DESCRIPTOR(", o);
	sql_ident(o, x->tcol);
	fputs("), ", o);
	if (c->wkind != WK_TUMBLE) {	/* HOP: slide; CUMULATE: step */
		sql_interval(o, c->step);
		fputs(", ", o);
	}
	sql_interval(o, c->size);
	if (x->offset != 0) {
		fputs(", ", o);
		sql_interval(o, x->offset);
	}
	fputs("))", o);
}

/* A legacy group window's function (fn "SESSION", "HOP"), or with sfx
 * its bound ("_START", "_END"). */
static void
group_window(struct ex *x, FILE *o, const char *fn, const char *sfx)
{
	const struct config *c = x->c;

	fprintf(o, "%s%s(", fn, sfx);
	sql_ident(o, x->tcol);
	fputs(", ", o);
	if (c->wkind == WK_SLIDE) {
		sql_interval(o, c->step);
		fputs(", ", o);
	}
	sql_interval(o, c->size);
	fputc(')', o);
}

/* The keys as select items ("`user`", "`f2` AS `key1`"; as_out 1), as
 * the GROUP BY list (as_out 0), or by their output names (as_out 2). */
static void
keys(struct ex *x, FILE *o, const char *lead, int as_out, const char *pfx)
{
	const struct config *c = x->c;
	char *name;
	size_t i;

	for (i = 0; i < c->nkeys; i++) {
		fputs(lead, o);
		fputs(pfx, o);
		name = sql_key_name(x, i);
		if (as_out == 2)
			sql_ident(o, name);
		else
			sql_ident(o, sql_col(x, &c->keys[i]));
		if (as_out == 1 && strcmp(name, sql_col(x, &c->keys[i])) != 0) {
			fputs(" AS ", o);
			sql_ident(o, name);
		}
		free(name);
	}
}

/* The j-th column of an aggregate, with its --if; -1 for one without
 * a counterpart. */
static int
agg_sql(struct ex *x, FILE *o, const struct aggspec *a, size_t j)
{
	char *s = NULL, *f;
	size_t len = 0;
	FILE *m;
	int rc;

	if (a->cond == NULL)
		return sql_agg_expr(x, o, a, j);
	if ((m = open_memstream(&s, &len)) == NULL)
		fwin_oom();
	rc = sql_agg_expr(x, m, a, j);
	if (fclose(m) != 0 || s == NULL)
		fwin_oom();
	f = sql_filtered(x, a, s, (a->op->flags & AGF_FIELD) ?
	    sql_col(x, &a->f) : NULL);
	fputs(f, o);
	free(f);
	free(s);
	return rc;
}

/* SELECT items of the plain aggregates. */
static int
plain_aggs(struct ex *x, FILE *o, const char *lead)
{
	const struct config *c = x->c;
	char *name;
	size_t i, j;

	for (i = 0; i < c->naggs; i++) {
		if (ex_is_by(&c->aggs[i]))
			continue;
		for (j = 0; j < sql_agg_ncols(&c->aggs[i]); j++) {
			fputs(lead, o);
			if (agg_sql(x, o, &c->aggs[i], j) != 0)
				return no_counterpart("--%s",
				    c->aggs[i].op->option);
			fputs(" AS ", o);
			sql_ident(o, name = sql_agg_name(&c->aggs[i], j));
			free(name);
		}
	}
	return 0;
}

/* The window's bounds as select items. */
static void
bounds(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	const char *fn = c->wkind == WK_SESSION ? "SESSION" : "HOP";

	if (c->wkind == WK_GLOBAL) {
		/* a key's earliest and latest time; TIMESTAMP as the
		   window table functions' bounds are */
		fputs("  CAST(MIN(", o);
		sql_ident(o, x->tcol);
		fputs(") AS TIMESTAMP(3)) AS `window_start`,\n  CAST(MAX(", o);
		sql_ident(o, x->tcol);
		fputs(") AS TIMESTAMP(3)) AS `window_end`", o);
	} else if (x->legacy) {
		fputs("  ", o);
		group_window(x, o, fn, "_START");
		fputs(" AS `window_start`,\n  ", o);
		group_window(x, o, fn, "_END");
		fputs(" AS `window_end`", o);
	} else
		fputs("  window_start,\n  window_end", o);
}

/* The query of the plain aggregates, grouped by window and keys. */
static int
query_simple(struct ex *x, FILE *o)
{
	const struct config *c = x->c;

	fputs("SELECT\n", o);
	bounds(x, o);
	keys(x, o, ",\n  ", 1, "");
	if (plain_aggs(x, o, ",\n  ") != 0)
		return 2;
	if (c->wkind == WK_GLOBAL) {
		fputs("\nFROM `source`", o);
		ex_where(x, o, "\n");
		for (size_t i = 0; i < c->nkeys; i++) {
			fputs(i == 0 ? "\nGROUP BY " : ", ", o);
			sql_ident(o, sql_col(x, &c->keys[i]));
		}
		return 0;
	}
	if (x->legacy) {
		fputs("\nFROM `source`", o);
		ex_where(x, o, "\n");
		fputs("\nGROUP BY ", o);
		group_window(x, o, c->wkind == WK_SESSION ? "SESSION" : "HOP",
		    "");
	} else {
		fputs("\nFROM ", o);
		tvf(x, o, "source");
		ex_where(x, o, "\n");
		fputs("\nGROUP BY window_start, window_end", o);
	}
	keys(x, o, ", ", 0, "");
	return 0;
}

/* --over, --over-rows: each record's columns and its aggregates OVER
 * its key's frame (Flink SQL's OVER aggregation): an --if as the
 * aggregate's CASE WHEN, as the windowed query writes it (FILTER does
 * not take an OVER), and --where as the query's WHERE, which comes
 * before the OVER aggregates, as fwin's before the frames. */
static int
query_over(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	char *name;
	size_t i, j;

	fputs("SELECT", o);
	for (i = 0; i < x->ncols; i++) {
		fputs(i > 0 ? ",\n  " : "\n  ", o);
		sql_ident(o, x->cols[i]);
	}
	for (i = 0; i < c->naggs; i++)
		for (j = 0; j < sql_agg_ncols(&c->aggs[i]); j++) {
			fputs(",\n  ", o);
			if (agg_sql(x, o, &c->aggs[i], j) != 0)
				return no_counterpart("--%s with --over",
				    c->aggs[i].op->option);
			fputs(" OVER (", o);
			for (size_t k = 0; k < c->nkeys; k++) {
				fputs(k == 0 ? "PARTITION BY " : ", ", o);
				sql_ident(o, sql_col(x, &c->keys[k]));
			}
			fputs(c->nkeys > 0 ? "\n    ORDER BY " : "ORDER BY ", o);
			sql_ident(o, x->tcol);
			if (c->wkind == WK_OVER) {
				fputs(" RANGE BETWEEN ", o);
				sql_interval(o, c->size);
			} else
				fprintf(o, " ROWS BETWEEN %llu",
				    (unsigned long long)(c->count_n - 1));
			fputs(" PRECEDING AND CURRENT ROW) AS ", o);
			sql_ident(o, name = sql_agg_name(&c->aggs[i], j));
			free(name);
		}
	fputs("\nFROM `source`", o);
	ex_where(x, o, "\n");
	return 0;
}

/* The record's whole text, rebuilt from its columns. */
static void
whole_record(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	size_t i;

	fputs("CONCAT_WS(", o);
	if (c->fmt == IF_TSV || c->delim == '\t')
		fputs("CHR(9)", o);
	else {
		char d[2] = { (char)(c->delim >= 0 ? c->delim :
		    c->fmt == IF_CSV ? ',' : ' '), 0 };

		sql_literal(o, d);
	}
	for (i = 0; i < x->ncols; i++) {
		fputs(", COALESCE(", o);
		sql_ident(o, x->cols[i]);
		fputs(", '')", o);
	}
	fputc(')', o);
}

/* The view of the windowed records that min-by and max-by read. */
static void
windowed_view(struct ex *x, FILE *o)
{
	fputs("CREATE TEMPORARY VIEW `windowed` AS\nSELECT * FROM ", o);
	tvf(x, o, "source");
	ex_where(x, o, "\n");
	fputs(";\n\n", o);
}

/* The query of the plain aggregates joined to a Top-1 per min-by and
 * max-by. */
static int
query_join(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	const struct aggspec *a;
	char *name, alias[32];
	size_t i, j, nb = 0;

	fputs("SELECT\n  a.window_start,\n  a.window_end", o);
	keys(x, o, ",\n  ", 2, "a.");
	for (i = 0; i < c->naggs; i++) {
		a = &c->aggs[i];
		if (ex_is_by(a))
			snprintf(alias, sizeof(alias), "b%zu.", ++nb);
		for (j = 0; j < sql_agg_ncols(a); j++) {
			fprintf(o, ",\n  %s", ex_is_by(a) ? alias : "a.");
			sql_ident(o, name = sql_agg_name(a, j));
			free(name);
		}
	}
	fputs("\nFROM (\n  SELECT\n    window_start,\n    window_end", o);
	keys(x, o, ",\n    ", 1, "");
	if (plain_aggs(x, o, ",\n    ") != 0)
		return 2;
	fputs("\n  FROM `windowed`\n  GROUP BY window_start, window_end", o);
	keys(x, o, ", ", 0, "");
	fputs("\n) AS a", o);
	for (i = 0, nb = 0; i < c->naggs; i++) {
		a = &c->aggs[i];
		if (!ex_is_by(a))
			continue;
		nb++;
		name = sql_agg_name(a, 0);
		fputs("\nLEFT JOIN (\n  SELECT window_start, window_end", o);
		keys(x, o, ", ", 2, "");
		fputs(", ", o);
		sql_ident(o, name);
		fputs("\n  FROM (\n    SELECT\n      window_start,\n"
		    "      window_end", o);
		keys(x, o, ",\n      ", 1, "");
		fputs(",\n      ", o);
		if (a->has_out)
			sql_ident(o, sql_col(x, &a->out));
		else
			whole_record(x, o);
		fputs(" AS ", o);
		sql_ident(o, name);
		fputs(",\n      ROW_NUMBER() OVER (PARTITION BY window_start, "
		    "window_end", o);
		keys(x, o, ", ", 0, "");
		fputs("\n        ORDER BY CAST(", o);
		sql_ident(o, sql_col(x, &a->f));
		fprintf(o, " AS DOUBLE) %s, ", a->op->option[1] == 'i' ?
		    "ASC" : "DESC");
		sql_ident(o, x->tcol);
		fputs(" ASC) AS `rn`\n    FROM `windowed`\n    WHERE ", o);
		sql_ident(o, sql_col(x, &a->f));
		fputs(" IS NOT NULL", o);
		if (a->cond != NULL) {	/* --if */
			fputs(" AND ", o);
			ex_cond(x, o, a);
		}
		fprintf(o, ")\n  WHERE `rn` = 1\n) AS b%zu\n"
		    "ON a.window_start = b%zu.window_start AND a.window_end = "
		    "b%zu.window_end", nb, nb, nb);
		for (size_t k = 0; k < c->nkeys; k++) {
			char *kn = sql_key_name(x, k);

			fputs("\n  AND a.", o);
			sql_ident(o, kn);
			fprintf(o, " = b%zu.", nb);
			sql_ident(o, kn);
			free(kn);
		}
		free(name);
	}
	return 0;
}

/* The INSERT: the query, or with --top the window Top-N over it (ties
 * to the smaller key, as fwin's). */
static int
insert(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	char *name, *top = NULL, *body = NULL, *p, *e;
	size_t i, j, len = 0;
	FILE *b;
	int rc;

	if (c->top_n > 0 && agg_top_column(c, &i, &top) != 0)
		return 2;	/* (as a run says it) */
	if (x->byjoin)
		windowed_view(x, o);
	if ((b = open_memstream(&body, &len)) == NULL)
		fwin_oom();
	rc = over_window(c) ? query_over(x, b) : x->byjoin ? query_join(x, b) :
	    query_simple(x, b);
	if (fclose(b) != 0 || body == NULL)
		fwin_oom();
	if (rc != 0) {
		free(body);
		free(top);
		return rc;
	}
	body = ex_wrap_rows(x, body);
	fputs("INSERT INTO `sink`\n", o);
	if (top == NULL) {
		fprintf(o, "%s;\n", body);
		free(body);
		return 0;
	}
	fputs("SELECT\n  window_start,\n  window_end", o);
	keys(x, o, ",\n  ", 2, "");
	for (i = 0; i < c->naggs; i++)
		for (j = 0; j < sql_agg_ncols(&c->aggs[i]); j++) {
			fputs(",\n  ", o);
			sql_ident(o, name = sql_agg_name(&c->aggs[i], j));
			free(name);
		}
	ex_eval_cols(x, o, ",\n  ", 0);
	fputs("\nFROM (\n  SELECT *,\n    ROW_NUMBER() OVER (", o);
	if (c->wkind != WK_GLOBAL)
		fputs("PARTITION BY window_start, window_end\n      ", o);
	fputs("ORDER BY ", o);
	sql_ident(o, top);
	fprintf(o, " %s NULLS LAST", c->top_asc ? "ASC" : "DESC");
	for (i = 0; i < c->nkeys; i++) {
		fputs(", ", o);
		sql_ident(o, name = sql_key_name(x, i));
		fputs(" ASC", o);
		free(name);
	}
	fputs(") AS `rownum`\n  FROM (\n", o);
	for (p = body; *p != '\0'; p = e + (*e != '\0')) {
		e = p + strcspn(p, "\n");
		fprintf(o, "    %.*s\n", (int)(e - p), p);
	}
	fprintf(o, "  )\n)\nWHERE `rownum` <= %llu;\n",
	    (unsigned long long)c->top_n);
	free(body);
	free(top);
	return 0;
}

static void
ex_free(struct ex *x)
{
	size_t i;

	for (i = 0; i < x->ncols; i++) {
		free(x->cols[i]);
		free(x->names[i]);
	}
	free(x->cols);
	free(x->names);
	free(x->tcol);
	free(x->eval_types);
	for (i = 0; i < 2; i++) {
		if (x->notes[i] != NULL)
			fclose(x->notes[i]);
		free(x->notebuf[i]);
	}
}

/* What of the pipeline's definition Flink SQL has no counterpart of:
 * said (exit 2), or 0 with x's window settings made. */
static int
definition_counterpart(struct ex *x)
{
	const struct config *c = x->c;
	int status;
	size_t i;

	switch (c->wkind) {
	case WK_COUNT:
		return no_counterpart("--count-window (count windows)");
	case WK_NONE:
		return no_counterpart("rolling mode (no window option)");
	default:
		break;
	}
	if ((c->wkind == WK_TUMBLE || c->wkind == WK_SLIDE ||
	    c->wkind == WK_CUMULATE) && (c->usize.kind == CAL_MONTH ||
	    c->ustep.kind == CAL_MONTH))
		return no_counterpart("a window of months, quarters or years "
		    "(mo, q, y)");
	if (c->size % MS != 0 || c->step % MS != 0 || c->offset % MS != 0)
		return no_counterpart("a window size, step or offset finer "
		    "than a millisecond");
	if (c->wkind == WK_CUMULATE && c->size % c->step != 0)
		return no_counterpart("--cumulate whose step does not divide "
		    "its size");
	if ((status = no_counters(c)) != 0)
		return status;
	for (i = 0; i < c->naggs; i++) {
		if (!sql_agg_known(&c->aggs[i]))
			return no_counterpart("--%s", c->aggs[i].op->option);
		if (ex_is_by(&c->aggs[i]))
			x->byjoin = 1;
	}
	/* weeks start on Monday 1969-12-29, 3 days before the epoch */
	x->offset = c->offset - (c->usize.kind == CAL_WEEK ||
	    c->ustep.kind == CAL_WEEK ? 3 * 86400 * 1000 * MS : 0);
	x->legacy = c->wkind == WK_SESSION ||
	    (c->wkind == WK_SLIDE && c->size % c->step != 0);
	if (x->legacy && x->offset != 0)
		return no_counterpart("--offset with a legacy group window "
		    "(--session, or --slide whose step does not divide its "
		    "size)");
	if (x->legacy && x->byjoin)
		return no_counterpart("--min-by or --max-by with a legacy group "
		    "window (--session, or --slide whose step does not divide "
		    "its size)");
	if (c->wkind == WK_GLOBAL && x->byjoin)
		return no_counterpart("--min-by or --max-by with --global");
	if (over_window(c) && x->byjoin)
		return no_counterpart("--min-by or --max-by with %s",
		    c->wkind == WK_OVER ? "--over" : "--over-rows");
	if (over_window(c) && c->fmt == IF_JSON)
		return no_counterpart("--over with --json (a record's members "
		    "as read)");
	if (c->fmt == IF_JSON && x->byjoin && ex_by_whole(c))
		return no_counterpart("--min-by or --max-by without OUT (the "
		    "whole record) with --json");
	return 0;
}

/* Reads what the script needs of the input (its columns, the time
 * format) and what Flink SQL cannot read of it: said (exit 1 or 2), or 0
 * with x's time column named. */
static int
input_counterpart(struct ex *x)
{
	const struct config *c = x->c;
	size_t i, len;
	int status;

	if ((status = read_input(x)) != 0 || (status = ex_bind_rows(x)) != 0)
		return status;
	if (c->fmt == IF_JSON && json_conflict(c) != NULL)
		return no_counterpart("--json: the path '%s' as a value and "
		    "as an object", json_conflict(c));
	if (c->has_time && x->tfmt == TF_AUTO) {
		fwin_warn("--explain flink-sql: no record tells the time "
		    "format; give --time-format");
		return 2;
	}
	if (c->has_time && x->tfmt == TF_STRPTIME) {
		char bad = 0, *java = sql_java_pattern(c->strp, &bad);

		if (java == NULL)
			return no_counterpart("--time-format: the conversion "
			    "%%%c", bad);
		free(java);
	}
	/* the time column: a name no input column has */
	x->tcol = xstrdup(c->has_time ? "event_time" : "proc_time");
	for (i = 0; i < x->ncols; i++)
		if (strcmp(x->cols[i], x->tcol) == 0) {
			len = strlen(x->tcol);
			x->tcol = xrealloc(x->tcol, len + 2);
			memcpy(x->tcol + len, "_", 2);
			i = (size_t)-1;
		}
	return 0;
}

/* The script's leading comment: the pipeline's definition, then what
 * Flink SQL does not keep of it. */
static void
leading_comment(struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	char *fp, *p, *e;
	size_t i;

	for (i = 0; i < 2; i++)
		if ((x->notes[i] = open_memstream(&x->notebuf[i],
		    &x->notelen[i])) == NULL)
			fwin_oom();
	ex_notes(x);
	for (i = 0; i < 2; i++) {
		if (fclose(x->notes[i]) != 0)
			fwin_oom();
		x->notes[i] = NULL;
	}
	fputs("-- Flink SQL for the fwin pipeline\n", o);
	fp = config_fingerprint(c);
	for (p = fp; *p != '\0'; p = e + (*e != '\0')) {
		e = p + strcspn(p, "\n");
		fprintf(o, "--   %.*s\n", (int)(e - p), p);
	}
	free(fp);
	if (c->has_time && c->time_fmt == TF_AUTO)
		fprintf(o, "--   (--time-format auto: the input's times are "
		    "%s)\n", tf_name(x->tfmt));
	fprintf(o, "--\n-- What Flink SQL does not keep exactly of fwin's "
	    "semantics, and the nearest\n-- equivalent. For every pipeline"
	    "%s:\n", c->has_time ? " in event time" : "");
	fputs(x->notebuf[0], o);
	if (x->notelen[1] > 0) {
		fputs("-- For this pipeline:\n", o);
		fputs(x->notebuf[1], o);
	}
}

int
explain_flink_sql(struct config *c, FILE *out)
{
	struct ex x;
	char *script = NULL;
	size_t len = 0;
	FILE *o;
	int status;

	memset(&x, 0, sizeof(x));
	x.c = c;
	if ((status = definition_counterpart(&x)) != 0)
		return status;
	x.of = row_outfmt(c);
	if ((status = input_counterpart(&x)) != 0) {
		ex_free(&x);
		return status;
	}
	if ((o = open_memstream(&script, &len)) == NULL)
		fwin_oom();
	leading_comment(&x, o);
	fputs("\nSET 'execution.runtime-mode' = 'streaming';\n"
	    "SET 'table.local-time-zone' = ", o);
	sql_literal(o, c->zone.name);
	fputs(";\n\n", o);
	source_table(&x, o);
	sink_table(&x, o);
	status = insert(&x, o);
	if (fclose(o) != 0 || script == NULL)
		fwin_oom();
	if (status == 0)
		fputs(script, out);
	free(script);
	ex_free(&x);
	return status;
}
