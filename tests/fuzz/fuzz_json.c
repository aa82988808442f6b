/*
 * Fuzz target "json": json_new and json_scan.
 *
 * The data is up to 8 paths separated by '|', then a '\n', then the line
 * (which ends where the data ends, so that a read past it trips ASan).
 * Without a '\n', the paths are "a" and "a.b" and the data is the line.
 * Properties:
 *	- json_scan accepts exactly what an independent recursive RFC 8259
 *	  checker accepts (one object, nesting up to JSON_MAXDEPTH), says 0
 *	  exactly for lines of whitespace, and its verdict and message do not
 *	  depend on the paths;
 *	- a message is "not a JSON object: ... at byte N" with 1 <= N <= n+1;
 *	- a missing or null field is empty; a value lies in the line or, for
 *	  a string with escapes, outside it; a value in the line that is not
 *	  a string's text is one JSON value that scans back as itself in
 *	  {"v":...}, and a string, escaped again, scans back as itself;
 *	- scanning the line again gives the same fields.
 */
#include <ctype.h>

#include "fuzz.h"

#include "io/json.h"

#define MAXP	8

/* --- an independent checker: plain recursive descent --- */

struct rd {
	const unsigned char *s;
	size_t n, i;
};

static void
rd_ws(struct rd *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' ||
	    r->s[r->i] == '\r' || r->s[r->i] == '\n'))
		r->i++;
}

static int
rd_lit(struct rd *r, const char *w)
{
	size_t k = strlen(w);

	if (r->n - r->i < k || memcmp(r->s + r->i, w, k) != 0)
		return 0;
	r->i += k;
	return 1;
}

static int
rd_string(struct rd *r)
{
	unsigned c;
	int k;

	r->i++;
	for (;;) {
		if (r->i >= r->n)
			return 0;
		c = r->s[r->i++];
		if (c == '"')
			return 1;
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		if (r->i >= r->n)
			return 0;
		c = r->s[r->i++];
		if (c == 'u') {
			for (k = 0; k < 4; k++, r->i++)
				if (r->i >= r->n || !isxdigit(r->s[r->i]))
					return 0;
		} else if (c == '\0' || strchr("\"\\/bfnrt", (int)c) == NULL)
			return 0;
	}
}

static int
rd_digits(struct rd *r)
{
	size_t from = r->i;

	while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
		r->i++;
	return r->i > from;
}

static int
rd_number(struct rd *r)
{
	if (r->s[r->i] == '-')
		r->i++;
	if (r->i < r->n && r->s[r->i] == '0')
		r->i++;
	else if (!rd_digits(r))
		return 0;
	if (r->i < r->n && r->s[r->i] == '.') {
		r->i++;
		if (!rd_digits(r))
			return 0;
	}
	if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		if (!rd_digits(r))
			return 0;
	}
	return 1;
}

/* A value at s[i] inside depth open containers. */
static int
rd_value(struct rd *r, int depth)
{
	int first = 1, obj;

	if (r->i >= r->n)
		return 0;
	switch (r->s[r->i]) {
	case '"':
		return rd_string(r);
	case 't':
		return rd_lit(r, "true");
	case 'f':
		return rd_lit(r, "false");
	case 'n':
		return rd_lit(r, "null");
	case '{':
	case '[':
		break;
	default:
		if (r->s[r->i] == '-' || (r->s[r->i] >= '0' && r->s[r->i] <= '9'))
			return rd_number(r);
		return 0;
	}
	if (depth + 1 > JSON_MAXDEPTH)
		return 0;
	obj = r->s[r->i++] == '{';
	for (;;) {
		rd_ws(r);
		if (r->i < r->n && r->s[r->i] == (obj ? '}' : ']') && first) {
			r->i++;
			return 1;
		}
		if (obj) {
			if (r->i >= r->n || r->s[r->i] != '"' || !rd_string(r))
				return 0;
			rd_ws(r);
			if (r->i >= r->n || r->s[r->i++] != ':')
				return 0;
			rd_ws(r);
		}
		if (!rd_value(r, depth + 1))
			return 0;
		rd_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			first = 0;
			continue;
		}
		if (r->i < r->n && r->s[r->i] == (obj ? '}' : ']')) {
			r->i++;
			return 1;
		}
		return 0;
	}
}

/* 1: one object; 0: whitespace only; -1: anything else. */
static int
rd_line(const char *s, size_t n)
{
	struct rd r = { (const unsigned char *)s, n, 0 };

	rd_ws(&r);
	if (r.i == n)
		return 0;
	if (r.s[r.i] != '{' || !rd_value(&r, 0))
		return -1;
	rd_ws(&r);
	return r.i == n ? 1 : -1;
}

/* --- the properties --- */

/* Scans {"v":text} with the path v: one field, which must be want. */
static void
rescan(const char *text, size_t n, const char *want, size_t nwant,
    const char *what)
{
	static const char *const v[] = { "v" };
	struct json *j = json_new(v, 1);
	char *line = malloc(n + 6);
	struct field f;
	unsigned char kind;
	const char *err;
	int rc;

	if (line == NULL)
		abort();
	memcpy(line, "{\"v\":", 5);
	memcpy(line + 5, text, n);
	line[n + 5] = '}';
	rc = json_scan(j, line, n + 6, &f, &kind, &err);
	if (rc != 1)
		fz_fail("%s: {\"v\":...} does not scan: %s", what,
		    rc < 0 ? err : "blank");
	if (kind != JSON_VALUE || f.n != nwant || memcmp(f.p, want, nwant))
		fz_fail("%s: {\"v\":...} scans back differently", what);
	free(line);
	json_free(j);
}

/* JSON-escapes p[0..n) into a malloc'd quoted string. */
static char *
escape(const char *p, size_t n, size_t *len)
{
	char *o = malloc(6 * n + 2), *q = o;
	size_t i;

	if (o == NULL)
		abort();
	*q++ = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '"' || c == '\\') {
			*q++ = '\\';
			*q++ = (char)c;
		} else if (c < 0x20) {
			q += sprintf(q, "\\u%04x", c);
		} else
			*q++ = (char)c;
	}
	*q++ = '"';
	*len = (size_t)(q - o);
	return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const defpaths[] = { "a", "a.b" };
	char pbuf[512], *paths[MAXP], *p, *copy;
	const char *line, *err, *err2, *pp[MAXP];
	size_t n, np = 0, i, len, at;
	const uint8_t *nl = memchr(data, '\n', size);
	struct field f[MAXP], g[MAXP];
	unsigned char kind[MAXP], kind2[MAXP];
	struct json *j, *none;
	char msg[160];
	int rc, rc2, want;

	if (nl != NULL && (size_t)(nl - data) < sizeof(pbuf)) {
		memcpy(pbuf, data, (size_t)(nl - data));
		pbuf[nl - data] = '\0';
		for (p = pbuf; np < MAXP; p++) {
			paths[np++] = p;
			if ((p = strchr(p, '|')) == NULL)
				break;
			*p = '\0';
		}
		for (i = 0; i < np; i++)
			pp[i] = paths[i];
		line = (const char *)nl + 1;
		n = size - (size_t)(nl - data) - 1;
	} else {
		pp[0] = defpaths[0];
		pp[1] = defpaths[1];
		np = 2;
		line = (const char *)data;
		n = size;
	}

	j = json_new(pp, np);
	none = json_new(NULL, 0);
	rc = json_scan(j, line, n, f, kind, &err);
	want = rd_line(line, n);
	if (rc != want)
		fz_fail("json_scan says %d, the checker %d", rc, want);
	rc2 = json_scan(none, line, n, g, kind2, &err2);
	if (rc2 != rc || (rc < 0 && strcmp(err, err2) != 0))
		fz_fail("the verdict depends on the paths");
	if (rc < 0) {
		if (sscanf(err, "not a JSON object: %150[^\n]", msg) != 1 ||
		    (p = strstr(err, " at byte ")) == NULL ||
		    sscanf(p, " at byte %zu", &at) != 1 || at < 1 || at > n + 1)
			fz_fail("bad message: %s", err);
		goto out;
	}
	if (rc == 0)
		goto out;
	for (i = 0; i < np; i++) {
		if (kind[i] != JSON_VALUE) {
			if ((kind[i] != JSON_MISSING && kind[i] != JSON_NULL) ||
			    f[i].n != 0 || f[i].p == NULL)
				fz_fail("field %zu: an empty field is not empty",
				    i);
			continue;
		}
		if (f[i].p >= line && f[i].p <= line + n) {
			if (f[i].p + f[i].n > line + n)
				fz_fail("field %zu runs past the line", i);
			if (f[i].p > line && f[i].p[-1] == '"') {
				/* a string's text, without escapes */
				if (memchr(f[i].p, '\\', f[i].n) != NULL ||
				    f[i].p + f[i].n >= line + n ||
				    f[i].p[f[i].n] != '"')
					fz_fail("field %zu: not a plain string",
					    i);
				rescan(f[i].p - 1, f[i].n + 2, f[i].p, f[i].n,
				    "plain string");
			} else
				rescan(f[i].p, f[i].n, f[i].p, f[i].n,
				    "verbatim value");
		} else {
			char *e = escape(f[i].p, f[i].n, &len);

			rescan(e, len, f[i].p, f[i].n, "undone string");
			free(e);
		}
	}
	/* the same again (the scratch buffer is reused: keep a copy) */
	for (i = 0, len = 0; i < np; i++)
		len += f[i].n;
	if ((p = copy = malloc(len + 1)) == NULL)
		abort();
	for (i = 0; i < np; i++) {
		memcpy(p, f[i].p, f[i].n);
		p += f[i].n;
	}
	if (json_scan(j, line, n, g, kind2, &err2) != 1)
		fz_fail("a second scan differs");
	for (i = 0, p = copy; i < np; p += f[i].n, i++)
		if (kind2[i] != kind[i] || g[i].n != f[i].n ||
		    memcmp(g[i].p, p, f[i].n) != 0)
			fz_fail("field %zu: a second scan differs", i);
	free(copy);
out:
	json_free(none);
	json_free(j);
	return 0;
}
