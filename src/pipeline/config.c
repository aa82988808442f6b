/* config: FIELD references and their resolution against the header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/aggop.h"
#include "pipeline/config.h"
#include "pipeline/expr.h"
#include "base/stats.h"
#include "base/util.h"

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

const char *
config_field(struct fieldref *f, const char *spec)
{
	f->spec = spec;
	f->name = spec;
	if (*spec == '\0')
		return "empty";
	if (all_digits(spec)) {
		unsigned long long v = strtoull(spec, NULL, 10);

		if (v < 1 || v > 1000000000)
			return "field numbers run from 1 to 1000000000";
		f->idx = (size_t)v - 1;
	} else
		f->idx = SIZE_MAX;	/* a name: resolved with the header */
	return NULL;
}

/* json: a FIELD is a path, even one of digits; idx is its place among
 * the distinct paths. */
static void
resolve_path(struct config *c, struct fieldref *f)
{
	size_t i;

	f->name = f->spec;
	for (i = 0; i < c->npaths; i++)
		if (strcmp(c->paths[i], f->spec) == 0)
			break;
	if (i == c->npaths) {
		c->paths = xrealloc(c->paths, (i + 1) * sizeof(*c->paths));
		c->paths[c->npaths++] = f->spec;
	}
	f->idx = i;
}

/* The byte that separates fields in the header of c's format, or -1 for
 * runs of blanks. */
static int
header_delim(const struct config *c)
{
	if (c->delim >= 0)
		return c->delim;
	return c->fmt == IF_CSV ? ',' : c->fmt == IF_TSV ? '\t' : -1;
}

/* What names a field in messages about it: "" for an option's FIELD,
 * "--where: at 7: " for a field an expression names. */
static char msg_prefix[64];

/* A name the header lacks: says so, with a hint when the header is one
 * field that another format would split, or else the closest names. */
static void
no_field(const struct config *c, const char *spec, const struct field *names,
    size_t n)
{
	size_t best[3], nb = 0, i, k, d, d0 = SIZE_MAX, len = strlen(spec);
	int delim = header_delim(c);
	char shown[80];		/* a close name has at most 64 bytes */

	if (n == 1 && c->fmt != IF_CSV && delim != ',' &&
	    memchr(names[0].p, ',', names[0].n) != NULL) {
		fwin_warn("%sno field '%s' in the header; the header is one "
		    "field; did you mean --csv?", msg_prefix, spec);
		return;
	}
	if (n == 1 && c->fmt != IF_TSV && delim != '\t' && delim != -1 &&
	    memchr(names[0].p, '\t', names[0].n) != NULL) {
		fwin_warn("%sno field '%s' in the header; the header is one "
		    "field; did you mean --tsv?", msg_prefix, spec);
		return;
	}
	/* the closest, up to three of them, in header order */
	for (i = 0; i < n; i++) {
		d = edit_distance(spec, len, names[i].p, names[i].n);
		if (close_enough(d, len) && d < d0)
			d0 = d;
	}
	for (i = 0; i < n && nb < 3; i++)
		if (d0 != SIZE_MAX &&
		    edit_distance(spec, len, names[i].p, names[i].n) == d0)
			best[nb++] = i;
	if (nb == 0) {
		fwin_warn("%sno field '%s' in the header", msg_prefix, spec);
		return;
	}
	fprintf(stderr, "fwin: %sno field '%s' in the header; did you mean ",
	    msg_prefix, spec);
	for (k = 0; k < nb; k++)
		fprintf(stderr, "%s'%s'", k == 0 ? "" : k + 1 < nb ? ", " :
		    " or ", shown_bytes(shown, sizeof(shown), names[best[k]].p,
		    names[best[k]].n));
	fputs("?\n", stderr);
}

/* Resolves one reference; returns 0 or -1 (reported). */
static int
resolve(struct config *c, struct fieldref *f, const struct field *names,
    size_t n)
{
	size_t i, len = strlen(f->spec);

	if (c->fmt == IF_JSON) {
		resolve_path(c, f);
		return 0;
	}
	if (f->idx != SIZE_MAX) {
		if (names != NULL && f->idx < n) {
			/* headers show the column's name, not its number */
			char *s = strndup(names[f->idx].p, names[f->idx].n);

			if (s == NULL)
				fwin_oom();
			f->name = f->owned = s;
		}
		return 0;
	}
	if (!c->header) {
		fwin_warn("%sfield name '%s' needs -H (a header row)",
		    msg_prefix, f->spec);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (names[i].n != len || memcmp(names[i].p, f->spec, len) != 0)
			continue;
		if (f->idx != SIZE_MAX) {
			/* either column could be meant, and taking the first
			 * would read the wrong one without a word; an
			 * expression (a msg_prefix) writes a number $N */
			const char *dollar = msg_prefix[0] != '\0' ? "$" : "";

			fwin_warn("%s'%s' names two columns of the header, "
			    "%s%zu and %s%zu; name the one meant by its number",
			    msg_prefix, f->spec, dollar, f->idx + 1, dollar,
			    i + 1);
			f->idx = SIZE_MAX;
			return -1;
		}
		f->idx = i;
	}
	if (f->idx != SIZE_MAX)
		return 0;
	no_field(c, f->spec, names, n);
	return -1;
}

int
config_resolve(struct config *c, const struct field *names, size_t n)
{
	size_t i;

	for (i = 0; i < c->nkeys; i++)
		if (resolve(c, &c->keys[i], names, n) != 0)
			return -1;
	if (c->has_time && resolve(c, &c->time, names, n) != 0)
		return -1;
	for (i = 0; i < c->ntime_more; i++)
		if (resolve(c, &c->time_more[i], names, n) != 0)
			return -1;
	for (i = 0; i < c->naggs; i++) {
		if ((c->aggs[i].op->flags & AGF_FIELD) &&
		    resolve(c, &c->aggs[i].f, names, n) != 0)
			return -1;
		if (c->aggs[i].has_out &&
		    resolve(c, &c->aggs[i].out, names, n) != 0)
			return -1;
	}
	for (i = 0; i < c->nxfields; i++) {
		snprintf(msg_prefix, sizeof(msg_prefix), "%s: at %zu: ",
		    c->xfields[i].opt, c->xfields[i].pos);
		if (resolve(c, &c->xfields[i].f, names, n) != 0)
			return -1;
	}
	msg_prefix[0] = '\0';
	if (c->header && names != NULL && (c->fmt == IF_CSV ||
	    c->fmt == IF_TSV))
		c->nheader = n;
	return 0;
}

void
config_bind_fields(struct config *c, struct expr *e, const char *opt)
{
	const char *name;
	size_t i, j, col, pos;
	int braced;
	char *spec;

	for (i = 0; i < expr_nfields(e); i++) {
		expr_field(e, i, &name, &col, &pos, &braced);
		if (name != NULL)
			spec = xstrdup(name);
		else if (asprintf(&spec, "%zu", col) < 0)
			fwin_oom();
		for (j = 0; j < c->nxfields; j++)
			if (strcmp(c->xfields[j].spec, spec) == 0 &&
			    (c->xfields[j].f.idx == SIZE_MAX) ==
			    (name != NULL))
				break;
		if (j == c->nxfields) {
			c->xfields = xrealloc(c->xfields, (j + 1) *
			    sizeof(*c->xfields));
			memset(&c->xfields[j], 0, sizeof(c->xfields[j]));
			c->xfields[j].spec = spec;
			c->xfields[j].opt = opt;
			c->xfields[j].pos = pos;
			(void)config_field(&c->xfields[j].f, spec);
			if (name != NULL)	/* ${3} is a name, $3 a column */
				c->xfields[j].f.idx = SIZE_MAX;
			c->nxfields++;
		} else
			free(spec);
		expr_bind(e, i, j);
	}
}

int
config_has_cond(const struct config *c)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (c->aggs[i].cond != NULL)
			return 1;
	return 0;
}

size_t
config_maxfield(const struct config *c)
{
	size_t i, m = 1;

#define SEE(f) do { if ((f).idx + 1 > m) m = (f).idx + 1; } while (0)
	for (i = 0; i < c->nkeys; i++)
		SEE(c->keys[i]);
	if (c->has_time)
		SEE(c->time);
	for (i = 0; i < c->ntime_more; i++)
		SEE(c->time_more[i]);
	for (i = 0; i < c->naggs; i++) {
		if (c->aggs[i].op->flags & AGF_FIELD)
			SEE(c->aggs[i].f);
		if (c->aggs[i].has_out)
			SEE(c->aggs[i].out);
	}
	for (i = 0; i < c->nxfields; i++)
		SEE(c->xfields[i].f);
#undef SEE
	return m;
}

void
config_free(struct config *c)
{
	size_t i, j;

	for (i = 0; i < c->nkeys; i++)
		free(c->keys[i].owned);
	free(c->time.owned);
	for (i = 0; i < c->ntime_more; i++)
		free(c->time_more[i].owned);
	free(c->time_more);
	free(c->paths);
	free(c->sqlite);
	free(c->sqlite_table);
	for (i = 0; i < c->naggs; i++) {
		free(c->aggs[i].f.owned);
		free(c->aggs[i].out.owned);
		free(c->aggs[i].pct);
		for (j = 0; j < c->aggs[i].nbounds; j++)
			free(c->aggs[i].bounds[j].name);
		free(c->aggs[i].bounds);
		expr_free(c->aggs[i].cond);
		free(c->aggs[i].as);
	}
	for (i = 0; i < c->nxfields; i++) {
		free(c->xfields[i].f.owned);
		free(c->xfields[i].spec);
	}
	free(c->xfields);
	expr_free(c->where);
	expr_free(c->having);
	for (i = 0; i < c->nevals; i++) {
		free(c->evals[i].name);
		expr_free(c->evals[i].e);
	}
	free(c->evals);
	free(c->keys);
	free(c->aggs);
	free(c->top_by);
}

/* Appends a line to the fingerprint being built in a memstream. */
static void
fp_duration(FILE *f, const char *opt, int64_t ns)
{
	char buf[TF_BUFSZ];

	tf_format_duration(buf, ns);
	fprintf(f, "%s %s\n", opt, buf);
}

/* A window size or step: in UTC, a fixed span or days as before (the
 * same windows); otherwise as tf_format_span writes it ("1d", "1mo",
 * "24h"), so that a calendar day and 24 hours differ. */
static void
fp_span(char *buf, const struct config *c, const struct cal_unit *u,
    int64_t ns)
{
	if (c->zone.utc && (u->kind == CAL_FIXED || u->kind == CAL_DAY))
		tf_format_duration(buf, ns);
	else
		tf_format_span(buf, u);
}

/* Weeks started on Thursday (the epoch's weekday) before they followed
 * the calendar: a checkpoint of those does not pass for these. */
static const char *
fp_weeks(const struct config *c)
{
	return c->usize.kind == CAL_WEEK || c->ustep.kind == CAL_WEEK ?
	    " (weeks from Monday)" : "";
}

/* An expression's text on one line (the fingerprint is line by line,
 * and --explain quotes it in a comment). */
static void
fp_expr(FILE *f, const char *pre, const struct expr *e, const char *post)
{
	const char *p;

	fputs(pre, f);
	for (p = expr_text(e); *p != '\0'; p++)
		fputc(*p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p, f);
	fputs(post, f);
}

/* The fingerprint's line of aggregates, as a user writes them. */
static void
fp_aggregates(FILE *f, const struct config *c)
{
	size_t i, j;

	fputs("aggregates", f);
	for (i = 0; i < c->naggs; i++) {
		fprintf(f, " --%s", c->aggs[i].op->option);
		if (c->aggs[i].op->flags & AGF_FIELD)
			fprintf(f, " %s", c->aggs[i].f.spec);
		if (c->aggs[i].has_out)
			fprintf(f, ":%s", c->aggs[i].out.spec);
		if (c->aggs[i].op->flags & AGF_PLIST)
			for (j = 0; j < c->aggs[i].npct; j++)	/* "p95" */
				fprintf(f, "%c%s", j ? ',' : ':',
				    c->aggs[i].pct[j].name + 1);
		for (j = 0; j < c->aggs[i].nbounds; j++)
			fprintf(f, "%c%s", j ? ',' : ':',
			    c->aggs[i].bounds[j].name);
		if (c->aggs[i].cond != NULL)
			fp_expr(f, " --if '", c->aggs[i].cond, "'");
		if (c->aggs[i].as != NULL)
			fprintf(f, " --as %s", c->aggs[i].as);
	}
	fputc('\n', f);
}

char *
config_fingerprint(const struct config *c)
{
	static const char *const fmts[] = {
		"lines", "csv", "tsv", "json"
	}, *const ofmts[] = {
		"tsv", "csv", "json"
	};
	char *text = NULL, buf[TF_BUFSZ], buf2[TF_BUFSZ];
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&text, &len)) == NULL)
		fwin_oom();
	fprintf(f, "--format %s\n", fmts[c->fmt]);
	if (c->delim < 0)
		fputs("--delimiter default\n", f);
	else if (c->delim == '\t')
		fputs("--delimiter '\\t'\n", f);
	else
		fprintf(f, "--delimiter '%c'\n", c->delim);
	fputs(c->header ? "--header\n" : "no --header\n", f);
	if (c->nkeys == 0)
		fputs("no --key\n", f);
	else {
		fputs("--key ", f);
		for (i = 0; i < c->nkeys; i++)
			fprintf(f, "%s%s", i ? "," : "", c->keys[i].spec);
		fputc('\n', f);
	}
	if (c->has_time) {
		fprintf(f, "--time %s", c->time.spec);
		for (i = 0; i < c->ntime_more; i++)
			fprintf(f, ",%s", c->time_more[i].spec);
		fputc('\n', f);
	} else
		fputs("no --time (processing time)\n", f);
	fprintf(f, "--time-format %s\n", c->time_fmt == TF_STRPTIME ?
	    c->strp : tf_name(c->time_fmt));
	if (!c->zone.utc)
		fprintf(f, "--tz %s\n", c->zone.name);
	switch (c->wkind) {
	case WK_TUMBLE:
		fp_span(buf, c, &c->usize, c->size);
		fprintf(f, "--tumble %s%s\n", buf, fp_weeks(c));
		break;
	case WK_SLIDE:
	case WK_CUMULATE:
		fp_span(buf, c, &c->usize, c->size);
		fp_span(buf2, c, &c->ustep, c->step);
		fprintf(f, "--%s %s,%s%s\n", c->wkind == WK_SLIDE ? "slide" :
		    "cumulate", buf, buf2, fp_weeks(c));
		break;
	case WK_SESSION:
		tf_format_duration(buf, c->size);
		fprintf(f, "--session %s\n", buf);
		break;
	case WK_COUNT:
		fprintf(f, "--count-window %llu,%llu\n",
		    (unsigned long long)c->count_n,
		    (unsigned long long)c->count_slide);
		break;
	case WK_NONE:
		fputs("no window option (rolling mode)\n", f);
		break;
	case WK_GLOBAL:
		fputs("--global\n", f);
		break;
	case WK_OVER:
		tf_format_duration(buf, c->size);
		fprintf(f, "--over %s\n", buf);
		break;
	case WK_OVER_ROWS:
		fprintf(f, "--over-rows %llu\n",
		    (unsigned long long)c->count_n);
		break;
	}
	if (c->fill)
		fputs("--fill\n", f);
	if (c->emit_every > 0)
		fp_duration(f, "--emit-every", c->emit_every);
	fp_duration(f, "--offset", c->offset);
	fp_duration(f, "--lateness", c->lateness);
	fp_duration(f, "--allowed-lateness", c->allowed);
	/* the rows kept to tell updates (changelog.h) are state */
	if (c->changelog)
		fputs("--changelog\n", f);
	if (c->sqlite != NULL)
		fputs("-o sqlite:\n", f);
	/* a row printed before is updated or retracted as it printed: a
	 * "-U" row is the kept row's bytes, and the table's primary key is
	 * the printed bounds; so how they print stays. Only when given (or,
	 * for the format, other than the input's): checkpoints of runs
	 * without them stay valid. */
	if ((c->changelog || c->sqlite != NULL) && c->out_time != TF_AUTO)
		fprintf(f, "--output-time %s\n", tf_name(c->out_time));
	if (c->changelog && c->sqlite == NULL &&
	    row_outfmt(c) != input_outfmt(c))
		fprintf(f, "--output-format %s\n", ofmts[row_outfmt(c)]);
	/* only when given: checkpoints of unpartitioned runs stay valid */
	if (c->part_n > 1)
		fprintf(f, "--partition %u/%u\n", c->part_i, c->part_n);
	fp_aggregates(f, c);
	/* only when given: checkpoints of runs without them stay valid */
	if (c->where != NULL)
		fp_expr(f, "--where '", c->where, "'\n");
	if (c->having != NULL)
		fp_expr(f, "--having '", c->having, "'\n");
	for (i = 0; i < c->nevals; i++) {
		fprintf(f, "--eval '%s=", c->evals[i].name);
		fp_expr(f, "", c->evals[i].e, "'\n");
	}
	/* a memstream that could not grow fails, or leaves no text */
	if (fclose(f) != 0 || text == NULL)
		fwin_oom();
	return text;
}

/*
 * A line of a fingerprint and the option it is about, so that two
 * fingerprints are compared option by option: an option given on one
 * side only is named as missing on the other, not paired with the line
 * that happens to be there.
 */
struct fp_line {
	const char *text;	/* without its newline */
	int len;
	const char *opt;	/* "--tz"; the window's line: "a window option" */
	int optlen;
	const char *name;	/* which one: --eval's column, -o's "sqlite:" */
	int namelen;
	int without;		/* "no --key": the option is not given */
};

/* The lines of fp; *n is set to their number. */
static struct fp_line *
fp_lines(const char *fp, size_t *n)
{
	static const char *const windows[] = {
		"--tumble", "--slide", "--cumulate", "--session",
		"--count-window", "--global", "--over", "--over-rows",
		"window",	/* "no window option (rolling mode)" */
	};
	struct fp_line *v, *l;
	const char *p, *s;
	size_t i, max = 1;

	for (p = fp; *p != '\0'; p++)
		max += *p == '\n';
	v = xcalloc(max, sizeof(*v));
	for (*n = 0, p = fp; *p != '\0'; p += l->len + (p[l->len] == '\n')) {
		l = &v[(*n)++];
		l->text = p;
		l->len = (int)strcspn(p, "\n");
		s = p;
		if (strncmp(s, "no ", 3) == 0) {
			s += 3;
			l->without = *s == '-';
		}
		l->opt = s;
		l->optlen = (int)strcspn(s, " \n");
		for (i = 0; i < sizeof(windows) / sizeof(windows[0]); i++)
			if ((size_t)l->optlen == strlen(windows[i]) &&
			    memcmp(s, windows[i], l->optlen) == 0) {
				l->opt = "a window option";
				l->optlen = (int)strlen(l->opt);
				break;
			}
		s += l->optlen;
		if (*s != ' ')
			continue;
		if (strncmp(l->opt, "-o ", 3) == 0) {		/* -o sqlite: */
			l->name = s + 1;
			l->namelen = (int)strcspn(l->name, " \n");
		} else if (strncmp(l->opt, "--eval '", 8) == 0) {
			l->name = s + 2;			/* NAME=EXPR */
			l->namelen = (int)strcspn(l->name, "=\n");
		}
	}
	return v;
}

/* Whether a and b are about the same option. */
static int
fp_same(const struct fp_line *a, const struct fp_line *b)
{
	return a->optlen == b->optlen && a->namelen == b->namelen &&
	    memcmp(a->opt, b->opt, a->optlen) == 0 &&
	    (a->namelen == 0 || memcmp(a->name, b->name, a->namelen) == 0);
}

/* Whether one of v[from..n) is about l's option. */
static int
fp_has(const struct fp_line *v, size_t from, size_t n,
    const struct fp_line *l)
{
	for (; from < n; from++)
		if (fp_same(&v[from], l))
			return 1;
	return 0;
}

/* Line text[0..len) as a shell takes it: the fingerprint quotes a
 * text in '...' whatever it holds, so one with a ' of its own (-d "'",
 * --where "host == 'a'") is written in "..." when nothing in it is
 * special there, else each inner ' as '\''. */
static void
fp_put_line(FILE *f, const char *text, int len)
{
	const char *open = memchr(text, '\'', (size_t)len),
	    *end = text + len - 1, *p;

	if (open == NULL || open == text || open[-1] != ' ' || open == end ||
	    *end != '\'' || memchr(open + 1, '\'', (size_t)(end - open - 1)) ==
	    NULL) {
		fprintf(f, "%.*s", len, text);	/* as it is */
		return;
	}
	fprintf(f, "%.*s", (int)(open - text), text);
	for (p = open + 1; p < end && strchr("\"\\$`", *p) == NULL; p++)
		;
	if (p == end) {
		fprintf(f, "\"%.*s\"", (int)(end - open - 1), open + 1);
		return;
	}
	fputc('\'', f);
	for (p = open + 1; p < end; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/* One side of the difference: "with LINE" (or just "LINE"), "without
 * --header" for the line "no --header", and "without --tz" for a line
 * that is missing (l NULL) where the other side has other's. */
static void
fp_side(FILE *f, const struct fp_line *l, const struct fp_line *other,
    int with)
{
	if (l == NULL) {
		fprintf(f, "without %.*s", other->optlen, other->opt);
		if (other->namelen > 0)
			fprintf(f, " %.*s", other->namelen, other->name);
	} else if (l->without) {
		fputs("without ", f);
		fp_put_line(f, l->text + 3, l->len - 3);
	} else {
		fputs(with ? "with " : "", f);
		fp_put_line(f, l->text, l->len);
	}
}

char *
config_fingerprint_diff(const char *old, const char *cur)
{
	struct fp_line *o, *c, *was = NULL, *now = NULL;
	size_t n, m, i = 0, j = 0, len;
	char *text = NULL;
	int later_o, later_c;
	FILE *f;

	o = fp_lines(old, &n);
	c = fp_lines(cur, &m);
	/* both are in the order config_fingerprint writes the options */
	while (i < n || j < m) {
		if (i < n && j < m && fp_same(&o[i], &c[j])) {
			if (o[i].len != c[j].len ||
			    memcmp(o[i].text, c[j].text, o[i].len) != 0) {
				was = &o[i];
				now = &c[j];
				break;
			}
			i++;
			j++;
			continue;
		}
		later_o = i < n && fp_has(c, j, m, &o[i]);
		later_c = j < m && fp_has(o, i, n, &c[j]);
		if (later_o && later_c) {	/* --eval columns reordered */
			was = &o[i];
			now = &c[j];
		} else if (j < m && (i == n || later_o))
			now = &c[j];		/* given now only */
		else
			was = &o[i];		/* given before only */
		break;
	}
	if (was != NULL || now != NULL) {
		if ((f = open_memstream(&text, &len)) == NULL)
			fwin_oom();
		fp_side(f, was, now, 1);
		fputs(", not ", f);
		fp_side(f, now, was, was == NULL || was->without);
		if (fclose(f) != 0 || text == NULL)
			fwin_oom();
	}
	free(o);
	free(c);
	return text;
}
