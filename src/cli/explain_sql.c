/* explain_sql: the SQL text of fwin's parts for --explain flink-sql —
 * identifiers, literals and intervals, the aggregates' expressions, types
 * and column names, and the event time expression; see explain_int.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "cli/explain_int.h"
#include "base/stats.h"
#include "base/timefmt.h"
#include "base/util.h"

/* --- text --- */

/* An identifier, in backticks (a backtick in it doubled). */
void
sql_ident(FILE *o, const char *s)
{
	fputc('`', o);
	for (; *s != '\0'; s++) {
		if (*s == '`')
			fputc('`', o);
		fputc(*s, o);
	}
	fputc('`', o);
}

/* A string literal (a quote in it doubled). */
void
sql_literal(FILE *o, const char *s)
{
	fputc('\'', o);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputc('\'', o);
		fputc(*s, o);
	}
	fputc('\'', o);
}

/*
 * An interval literal for ns, in whole milliseconds: the largest unit
 * that holds it exactly under 100 (the default leading precision of SQL
 * interval fields), else DAY TO SECOND.
 */
void
sql_interval(FILE *o, int64_t ns)
{
	static const struct { int64_t ms; const char *name; } u[] = {
		{ 86400000, "DAY" }, { 3600000, "HOUR" }, { 60000, "MINUTE" },
		{ 1000, "SECOND" },
	};
	int64_t ms = ns / MS, a = ms < 0 ? -ms : ms, d;
	const char *sign = ms < 0 ? "-" : "";
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (a % u[i].ms == 0 && a / u[i].ms < 100) {
			fprintf(o, "INTERVAL '%s%lld' %s", sign,
			    (long long)(a / u[i].ms), u[i].name);
			return;
		}
	if (a < 100000) {
		fprintf(o, "INTERVAL '%s%lld.%03lld' SECOND", sign,
		    (long long)(a / 1000), (long long)(a % 1000));
		return;
	}
	d = a / 86400000;
	fprintf(o, "INTERVAL '%s%lld %02lld:%02lld:%02lld", sign, (long long)d,
	    (long long)(a / 3600000 % 24), (long long)(a / 60000 % 60),
	    (long long)(a / 1000 % 60));
	if (a % 1000 != 0)
		fprintf(o, ".%03lld", (long long)(a % 1000));
	fprintf(o, "' DAY%s TO SECOND", d < 100 ? "" : d < 1000 ? "(3)" : "(9)");
}

/* --- the pipeline --- */

const char *
sql_col(const struct ex *x, const struct fieldref *f)
{
	return x->cols[f->idx];
}

char *
ex_key_header(const struct ex *x, size_t i)
{
	char *s;

	if (x->c->header || x->c->fmt == IF_JSON)
		return xstrdup(x->c->keys[i].name);
	if (asprintf(&s, "key%zu", i + 1) < 0)
		fwin_oom();
	return s;
}

/* (Two key fields that a header names alike: a table's columns have
 * names of their own, and the later key is named by its column number,
 * as an expression names it.) */
char *
sql_key_name(const struct ex *x, size_t i)
{
	char *s = ex_key_header(x, i), *t;
	size_t j;
	int alike = 0;

	for (j = 0; j < i && !alike; j++) {
		t = ex_key_header(x, j);
		alike = strcmp(s, t) == 0;
		free(t);
	}
	if (alike) {
		free(s);
		if (asprintf(&s, "$%zu", x->c->keys[i].idx + 1) < 0)
			fwin_oom();
	}
	return s;
}

/* The columns of an aggregate: one per percentile, else one. */
size_t
sql_agg_ncols(const struct aggspec *a)
{
	return agg_ncols(a);
}

/* The j-th column's name, as the run's header has it. */
char *
sql_agg_name(const struct aggspec *a, size_t j)
{
	return agg_colname(a, j, a->as);	/* --as */
}

/* P of a percentile's name ("p99.9", "median") as a fraction ("0.999"):
 * the decimal point moved two places, so it stays exact. */
static void
pct_fraction(FILE *o, const char *name)
{
	const char *p = strcmp(name, "median") == 0 ? "50" : name + 1;
	size_t n = strcspn(p, ".");
	char ip[8] = "000";

	if (n < sizeof(ip) - 1) {	/* P is at most 100 */
		memcpy(ip + 3 - (n < 3 ? n : 3), p, n < 3 ? n : 3);
		ip[3] = '\0';
	}
	fprintf(o, "%c.%c%c", ip[0], ip[1], ip[2]);
	if (p[n] == '.')
		fputs(p + n + 1, o);
}

/* Writes the j-th column of an aggregate; returns -1 for one without a
 * counterpart. */
int
sql_agg_expr(const struct ex *x, FILE *o, const struct aggspec *a, size_t j)
{
	static const struct { const char *opt, *fn; int num; } t[] = {
		{ "sum", "SUM", 1 }, { "avg", "AVG", 1 }, { "min", "MIN", 1 },
		{ "max", "MAX", 1 }, { "first", "FIRST_VALUE", 0 },
		{ "last", "LAST_VALUE", 0 }, { "stddev", "STDDEV_SAMP", 1 },
		{ "var", "VAR_SAMP", 1 }, { "stddev-pop", "STDDEV_POP", 1 },
		{ "var-pop", "VAR_POP", 1 },
	};
	size_t i;

	if (strcmp(a->op->option, "count") == 0) {
		fputs("COUNT(*)", o);
		return 0;
	}
	if (strcmp(a->op->option, "distinct") == 0 ||
	    strcmp(a->op->option, "approx-distinct") == 0) {
		fputs("COUNT(DISTINCT ", o);
		sql_ident(o, sql_col(x, &a->f));
		fputc(')', o);
		return 0;
	}
	if (a->op->flags & AGF_HIST) {
		/* Prometheus's le buckets: COUNT(*) FILTER (WHERE f <= B),
		 * written as a CASE that grammars without FILTER read too */
		fputs("COUNT(CASE WHEN ", o);
		if (j == a->nbounds) {
			sql_ident(o, sql_col(x, &a->f));
			fputs(" IS NOT NULL THEN 1 END)", o);
			return 0;
		}
		fputs("CAST(", o);
		sql_ident(o, sql_col(x, &a->f));
		fprintf(o, " AS DOUBLE) <= %s THEN 1 END)", a->bounds[j].name);
		return 0;
	}
	if (a->op->flags & AGF_PCT) {
		fputs("PERCENTILE(CAST(", o);
		sql_ident(o, sql_col(x, &a->f));
		fputs(" AS DOUBLE), ", o);
		pct_fraction(o, a->pct[j].name);
		fputc(')', o);
		return 0;
	}
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(a->op->option, t[i].opt) == 0) {
			fprintf(o, "%s(%s", t[i].fn, t[i].num ? "CAST(" : "");
			sql_ident(o, sql_col(x, &a->f));
			fprintf(o, "%s)", t[i].num ? " AS DOUBLE)" : "");
			return 0;
		}
	return -1;
}

/* Whether the aggregate has a counterpart here. */
int
sql_agg_known(const struct aggspec *a)
{
	static const char *const known[] = {
		"count", "sum", "avg", "min", "max", "first", "last",
		"distinct", "min-by", "max-by", "median", "percentile",
		"approx-percentile", "stddev", "var", "stddev-pop", "var-pop",
		"approx-distinct", "histogram",
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(a->op->option, known[i]) == 0)
			return 1;
	return 0;
}

const char *
sql_agg_type(const struct aggspec *a)
{
	const char *o = a->op->option;

	if (strcmp(o, "count") == 0 || strcmp(o, "distinct") == 0 ||
	    strcmp(o, "approx-distinct") == 0)
		return "BIGINT";
	if (a->op->flags & AGF_NUMBER)
		return ex_is_by(a) ? "STRING" : "DOUBLE";
	return "STRING";
}

/* strptime(3) conversions and Java's DateTimeFormatter letters. */
static const struct { char c; const char *java; } strp_map[] = {
	{ 'Y', "yyyy" }, { 'y', "yy" }, { 'm', "MM" }, { 'd', "dd" },
	{ 'e', "d" }, { 'H', "HH" }, { 'M', "mm" }, { 'S', "ss" },
	{ 'b', "MMM" }, { 'h', "MMM" }, { 'B', "MMMM" }, { 'a', "EEE" },
	{ 'A', "EEEE" }, { 'j', "DDD" }, { 'z', "xx" }, { 'Z', "z" },
	{ 'T', "HH:mm:ss" }, { 'F', "yyyy-MM-dd" }, { 'D', "MM/dd/yy" },
};

/* The Java pattern of a strptime format (malloc'd), or NULL and the
 * conversion in *bad. Letters outside conversions are quoted. */
char *
sql_java_pattern(const char *s, char *bad)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int quoted = 0;

	if ((f = open_memstream(&text, &len)) == NULL)
		fwin_oom();
	for (; *s != '\0'; s++) {
		if (*s == '%' && s[1] != '%') {
			for (i = 0; i < sizeof(strp_map) / sizeof(strp_map[0]); i++)
				if (strp_map[i].c == s[1])
					break;
			if (i == sizeof(strp_map) / sizeof(strp_map[0])) {
				*bad = s[1];
				fclose(f);
				free(text);
				return NULL;
			}
			if (quoted)
				fputc('\'', f);
			quoted = 0;
			fputs(strp_map[i].java, f);
			s++;
			continue;
		}
		if (*s == '%')
			s++;
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) {
			if (!quoted)
				fputc('\'', f);
			quoted = 1;
			fputc(*s, f);
		} else {
			if (quoted)
				fputc('\'', f);
			quoted = 0;
			if (*s == '\'')
				fputs("''", f);
			else
				fputc(*s, f);
		}
	}
	if (quoted)
		fputc('\'', f);
	if (fclose(f) != 0 || text == NULL)
		fwin_oom();
	return text;
}

/* The -t field, or with -t F1,F2 their text joined by a space (NULL
 * when one is missing, a bad record as fwin has it). */
static void
time_field(const struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	size_t i;

	if (c->ntime_more == 0) {
		sql_ident(o, sql_col(x, &c->time));
		return;
	}
	fputs("CONCAT(", o);
	sql_ident(o, sql_col(x, &c->time));
	for (i = 0; i < c->ntime_more; i++) {
		fputs(", ' ', ", o);
		sql_ident(o, sql_col(x, &c->time_more[i]));
	}
	fputc(')', o);
}

/* The event time column's expression (the format is known by now): a
 * TIMESTAMP_LTZ, or for text times a TIMESTAMP, read as UTC, or with
 * --tz a TIMESTAMP_LTZ of the session time zone. */
void
sql_time_expr(const struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	char bad = 0, *java;

	if (!c->has_time) {
		fputs("PROCTIME()", o);
		return;
	}
	switch (x->tfmt) {
	case TF_S:
	case TF_MS:
	case TF_US:
	case TF_NS:
		fputs("TO_TIMESTAMP_LTZ(CAST(", o);
		time_field(x, o);
		fprintf(o, " AS BIGINT)%s, %d)",
		    x->tfmt == TF_US ? " / 1000" :
		    x->tfmt == TF_NS ? " / 1000000" : "",
		    x->tfmt == TF_S ? 0 : 3);
		return;
	default:
		break;
	}
	if (!c->zone.utc)
		fputs("CAST(", o);
	if (x->tfmt == TF_STRPTIME) {
		if ((java = sql_java_pattern(c->strp, &bad)) == NULL)
			fwin_oom();	/* checked before */
		fputs("TO_TIMESTAMP(", o);
		time_field(x, o);
		fputs(", ", o);
		sql_literal(o, java);
		fputc(')', o);
		free(java);
	} else {	/* TF_ISO */
		fputs("TO_TIMESTAMP(REPLACE(REPLACE(", o);
		time_field(x, o);
		fputs(", 'T', ' '), 'Z', ''))", o);
	}
	if (!c->zone.utc)
		fputs(" AS TIMESTAMP_LTZ(3))", o);
}

void
sql_primary_key(const struct ex *x, FILE *o)
{
	const struct config *c = x->c;
	int global = c->wkind == WK_GLOBAL;
	char *name;
	size_t i;

	if (global && c->nkeys == 0)
		return;
	fputs(",\n  PRIMARY KEY (", o);
	if (!global)
		fputs("`window_start`, `window_end`", o);
	for (i = 0; i < c->nkeys; i++) {
		fputs(i > 0 || !global ? ", " : "", o);
		sql_ident(o, name = sql_key_name(x, i));
		free(name);
	}
	fputs(") NOT ENFORCED", o);
}

void
sql_jdbc_comment(const struct ex *x, FILE *o)
{
	const struct config *c = x->c;

	fputs("-- fwin applies each row as an upsert on the primary key", o);
	if (c->sqlite != NULL) {
		fputs(", into the\n-- SQLite table ", o);
		sql_ident(o, c->sqlite_table);
		fputs(" of ", o);
		sql_literal(o, c->sqlite);
		fputs("; Flink's JDBC connector has no SQLite dialect", o);
	}
	fputs(".\n-- A database table instead of the sink above"
	    " (the same columns and key):\n"
	    "-- ) WITH (\n"
	    "--   'connector' = 'jdbc',\n"
	    "--   'url' = 'jdbc:postgresql://localhost:5432/fwin',\n"
	    "--   'table-name' = ", o);
	sql_literal(o, c->sqlite != NULL ? c->sqlite_table : "fwin");
	fputs("\n-- );\n\n", o);
}
