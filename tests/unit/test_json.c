/* Unit tests of json: values, paths, duplicates and every kind of bad line,
 * with the exact field bytes and messages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))
#define MAXP	8

/*
 * Scans line (its bytes without the NUL, in an exact-size copy so that a
 * read past its end trips ASan) with the paths of the '|'-separated list
 * ps, and writes what was found into out: each field as its bytes
 * (non-printable ones as \xHH), <missing> or <null>, separated by '|';
 * or "blank"; or "error: " and the message.
 */
static const char *
scann(const char *ps, const char *line, size_t n)
{
	static char out[4096];
	char pbuf[256], *paths[MAXP], *p, *o = out;
	struct field f[MAXP];
	unsigned char kind[MAXP];
	const char *err = NULL;
	struct json *j;
	size_t np = 0, i, k;
	char *copy;
	int rc;

	strcpy(pbuf, ps);
	for (p = pbuf; np < MAXP; p++) {
		paths[np++] = p;
		if ((p = strchr(p, '|')) == NULL)
			break;
		*p = '\0';
	}
	j = json_new((const char *const *)paths, np);
	CHECK(json_npaths(j) == np);
	copy = malloc(n ? n : 1);
	memcpy(copy, line, n);
	rc = json_scan(j, copy, n, f, kind, &err);
	if (rc < 0) {
		snprintf(out, sizeof(out), "error: %s", err);
	} else if (rc == 0) {
		strcpy(out, "blank");
	} else {
		for (i = 0; i < np; i++) {
			if (i > 0)
				*o++ = '|';
			if (kind[i] == JSON_MISSING || kind[i] == JSON_NULL) {
				CHECK(f[i].n == 0 && f[i].p != NULL);
				o += sprintf(o, kind[i] == JSON_NULL ?
				    "<null>" : "<missing>");
				continue;
			}
			CHECK(kind[i] == JSON_VALUE);
			for (k = 0; k < f[i].n && o < out + sizeof(out) - 8;
			    k++) {
				unsigned char c = (unsigned char)f[i].p[k];

				if (c < 0x20 || c >= 0x7f)
					o += sprintf(o, "\\x%02X", c);
				else
					*o++ = (char)c;
			}
		}
		*o = '\0';
	}
	free(copy);
	json_free(j);
	return out;
}

static const char *
scan(const char *ps, const char *line)
{
	return scann(ps, line, strlen(line));
}

static void
test_values(void)
{
	static const char rec[] = "{\"ts\":1700000000123,\"user\":{\"id\":"
	    "\"u42\"},\"latency_ms\":12.5,\"path\":\"/a/b\",\"ok\":true}";

	CHECK_STR(scan("ts|user.id|latency_ms|path|ok", rec),
	    "1700000000123|u42|12.5|/a/b|true");
	CHECK_STR(scan("user|nope|user.nope|ts.x", rec),
	    "{\"id\":\"u42\"}|<missing>|<missing>|<missing>");
	CHECK_STR(scan("a|b|c|d", "{\"a\":false,\"b\":null,\"c\":\"\",\"d\":0}"),
	    "false|<null>||0");
	CHECK_STR(scan("a|b", "{}"), "<missing>|<missing>");
	CHECK_STR(scan("a", "{ }"), "<missing>");
	/* the empty name */
	CHECK_STR(scan("", "{\"\":1}"), "1");
}

static void
test_numbers(void)
{
	static const char *const ok[] = {
		"0", "-0", "1", "-1", "0.0", "-0.0", "1e5", "1E5", "1e+5",
		"1e-5", "1.5E-3", "-1.5e+300", "12345678901234567890123",
		"0e0", "1.000", "-9223372036854775808",
	};
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "01", "bad number (a leading zero) at byte 6" },
		{ "-01", "bad number (a leading zero) at byte 6" },
		{ "+1", "expected a value at byte 6" },
		{ ".5", "expected a value at byte 6" },
		{ "1.", "bad number at byte 6" },
		{ "1.e5", "bad number at byte 6" },
		{ "1e", "bad number at byte 6" },
		{ "1e+", "bad number at byte 6" },
		{ "-", "bad number at byte 6" },
		{ "-a", "bad number at byte 6" },
		{ "1.5.3", "expected ',' or '}' at byte 9" },
		{ "1x", "expected ',' or '}' at byte 7" },
		{ "0x10", "expected ',' or '}' at byte 7" },
		{ "NaN", "expected a value at byte 6" },
		{ "Infinity", "expected a value at byte 6" },
		{ "-Infinity", "bad number at byte 6" },
	};
	char line[128], want[128];
	size_t i;

	for (i = 0; i < NEL(ok); i++) {
		snprintf(line, sizeof(line), "{\"a\":%s}", ok[i]);
		CHECK_STR(scan("a", line), ok[i]);
		snprintf(line, sizeof(line), "{\"a\":[%s,%s]}", ok[i], ok[i]);
		snprintf(want, sizeof(want), "[%s,%s]", ok[i], ok[i]);
		CHECK_STR(scan("a", line), want);
	}
	for (i = 0; i < NEL(bad); i++) {
		snprintf(line, sizeof(line), "{\"a\":%s}", bad[i].in);
		snprintf(want, sizeof(want), "error: not a JSON object: %s",
		    bad[i].msg);
		CHECK_STR(scan("a", line), want);
	}
	/* a number at the very end of the line */
	CHECK_STR(scan("a", "{\"a\":12"),
	    "error: not a JSON object: expected ',' or '}' at byte 8 "
	    "(end of line)");
	CHECK_STR(scan("a", "{\"a\":1e"),
	    "error: not a JSON object: bad number at byte 6");
}

static void
test_strings(void)
{
	/* every escape */
	CHECK_STR(scan("s", "{\"s\":\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"}"),
	    "a\"b\\c/d\\x08e\\x0Cf\\x0Ag\\x0Dh\\x09i");
	CHECK_STR(scan("s", "{\"s\":\"caf\\u00e9\"}"), "caf\\xC3\\xA9");
	CHECK_STR(scan("s", "{\"s\":\"\\u0041\\u00E9\\u20AC\"}"),
	    "A\\xC3\\xA9\\xE2\\x82\\xAC");
	/* a surrogate pair: U+1F600 */
	CHECK_STR(scan("s", "{\"s\":\"<\\ud83d\\ude00>\"}"),
	    "<\\xF0\\x9F\\x98\\x80>");
	CHECK_STR(scan("s", "{\"s\":\"\\uDBFF\\uDFFF\"}"),
	    "\\xF4\\x8F\\xBF\\xBF");
	/* lone surrogates: U+FFFD each */
	CHECK_STR(scan("s", "{\"s\":\"a\\ud83db\"}"), "a\\xEF\\xBF\\xBDb");
	CHECK_STR(scan("s", "{\"s\":\"\\ude00\"}"), "\\xEF\\xBF\\xBD");
	CHECK_STR(scan("s", "{\"s\":\"\\ud83d\\ud83d\\ude00\"}"),
	    "\\xEF\\xBF\\xBD\\xF0\\x9F\\x98\\x80");
	CHECK_STR(scan("s", "{\"s\":\"\\ud83d\\n\"}"), "\\xEF\\xBF\\xBD\\x0A");
	CHECK_STR(scan("s", "{\"s\":\"\\ud83d\"}"), "\\xEF\\xBF\\xBD");
	/* NUL is data */
	CHECK_STR(scan("s", "{\"s\":\"a\\u0000b\"}"), "a\\x00b");
	/* raw UTF-8, and bytes that are not UTF-8, pass through */
	CHECK_STR(scan("s", "{\"s\":\"\xC3\xA9\xFF\xC0\x80\"}"),
	    "\\xC3\\xA9\\xFF\\xC0\\x80");
	/* a string with no escape points into the line; two escaped values
	 * of one record both stay valid */
	CHECK_STR(scan("a|b|c", "{\"a\":\"x\\ty\",\"b\":\"plain\","
	    "\"c\":\"\\u00e9\\u00e9\"}"),
	    "x\\x09y|plain|\\xC3\\xA9\\xC3\\xA9");
	/* long strings across the 8-byte steps, with a quote at each place */
	{
		char line[64], want[128];
		int k;

		for (k = 0; k < 20; k++) {
			snprintf(line, sizeof(line),
			    "{\"s\":\"%.*s\\\"%.*s\"}", k,
			    "abcdefghijklmnopqrstuvwxyz", 19 - k,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
			snprintf(want, sizeof(want), "%.*s\"%.*s", k,
			    "abcdefghijklmnopqrstuvwxyz", 19 - k,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
			CHECK_STR(scan("s", line), want);
			/* and a tab in the same places */
			snprintf(line, sizeof(line), "{\"s\":\"%.*s\t%.*s\"}",
			    k, "abcdefghijklmnopqrstuvwxyz", 19 - k,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
			snprintf(want, sizeof(want), "error: not a JSON object:"
			    " control character in a string at byte %d", 7 + k);
			CHECK_STR(scan("s", line), want);
		}
	}
	/* bad strings */
	CHECK_STR(scan("s", "{\"s\":\"a\\x\"}"),
	    "error: not a JSON object: bad escape in a string at byte 8");
	CHECK_STR(scan("s", "{\"s\":\"a\\u12G4\"}"),
	    "error: not a JSON object: bad \\u escape in a string at byte 8");
	CHECK_STR(scan("s", "{\"s\":\"a\\u12\"}"),
	    "error: not a JSON object: bad \\u escape in a string at byte 8");
	CHECK_STR(scan("s", "{\"s\":\"a\\"),
	    "error: not a JSON object: unterminated string at byte 6");
	CHECK_STR(scan("s", "{\"s\":\"abc"),
	    "error: not a JSON object: unterminated string at byte 6");
	CHECK_STR(scan("s", "{\"s\":\"a\x01\"}"),
	    "error: not a JSON object: control character in a string at "
	    "byte 8");
	CHECK_STR(scan("s", "{\"s\x7f\":1}"), "<missing>");	/* DEL is text */
	CHECK_STR(scan("s", "{\"s':1}"),
	    "error: not a JSON object: unterminated string at byte 2");
	CHECK_STR(scan("s", "{'s':1}"), "error: not a JSON object: expected "
	    "a member name or '}' at byte 2");
	/* bad escapes are bad off the paths too */
	CHECK_STR(scan("s", "{\"t\":[\"\\q\"],\"s\":1}"),
	    "error: not a JSON object: bad escape in a string at byte 8");
}

static void
test_paths(void)
{
	static const char rec[] = "{\"a\":{\"b\":{\"c\":\"deep\",\"n\":[1,{\"c\":2}]},"
	    "\"x\":1},\"k\":\"top\"}";

	CHECK_STR(scan("a.b.c|a.x|k|a.b.n|a.b.n.c", rec),
	    "deep|1|top|[1,{\"c\":2}]|<missing>");
	/* a path and a longer one through it */
	CHECK_STR(scan("a|a.b|a.b.c", rec),
	    "{\"b\":{\"c\":\"deep\",\"n\":[1,{\"c\":2}]},\"x\":1}|"
	    "{\"c\":\"deep\",\"n\":[1,{\"c\":2}]}|deep");
	/* the same path twice */
	CHECK_STR(scan("k|a.x|k", rec), "top|1|top");
	/* a step that is not an object */
	CHECK_STR(scan("k.z|a.x.y|a.b.c.d", rec),
	    "<missing>|<missing>|<missing>");
	/* members with dots in their names */
	CHECK_STR(scan("http.method|a.b.c", "{\"http.method\":\"GET\","
	    "\"a\":{\"b.c\":3}}"), "GET|3");
	CHECK_STR(scan("a.b", "{\"a.b.c\":1}"), "<missing>");
	/* both spellings: the one nested least deep wins, in either order */
	CHECK_STR(scan("a.b", "{\"a.b\":1,\"a\":{\"b\":2}}"), "1");
	CHECK_STR(scan("a.b", "{\"a\":{\"b\":2},\"a.b\":1}"), "1");
	/* empty names */
	CHECK_STR(scan(".|a.|.b", "{\"\":{\"\":1,\"b\":2},\"a\":{\"\":3}}"),
	    "1|3|2");
	/* member names with escapes are undone before they are compared */
	CHECK_STR(scan("k\"|\xC3\xA9|a.b", "{\"k\\\"\":1,\"\\u00e9\":2,"
	    "\"a\\u002eb\":3}"), "1|2|3");
	/* objects and arrays verbatim, inner whitespace kept */
	CHECK_STR(scan("o|a|e|f", "{\"o\" : { \"p\" : [ 1 , \"}\" ] } ,"
	    "\"a\":[[],{}],\"e\":[],\"f\":{}}"),
	    "{ \"p\" : [ 1 , \"}\" ] }|[[],{}]|[]|{}");
	/* values inside arrays are not members */
	CHECK_STR(scan("c", "{\"l\":[{\"c\":1}]}"), "<missing>");
}

static void
test_duplicates(void)
{
	CHECK_STR(scan("a", "{\"a\":1,\"a\":2}"), "2");
	CHECK_STR(scan("a", "{\"a\":1,\"a\":null}"), "<null>");
	CHECK_STR(scan("a", "{\"a\":null,\"a\":\"x\\ty\"}"), "x\\x09y");
	CHECK_STR(scan("a", "{\"a\":\"x\\ty\",\"a\":\"z\"}"), "z");
	CHECK_STR(scan("a", "{\"a\":[1],\"a\":{\"b\":1}}"), "{\"b\":1}");
	/* objects are not replaced as a whole */
	CHECK_STR(scan("u.id|u.n|u", "{\"u\":{\"id\":1},\"u\":{\"n\":2}}"),
	    "1|2|{\"n\":2}");
}

/* Lines one after another through the same scanner: compact flat objects
 * take one pass that remembers each place's member name from the line
 * before; a name that changes, moves, ends the line or is escaped must
 * be found anew, and a line that is not flat must be read as any other. */
static void
test_flat_lines(void)
{
	static const char *const lines[][2] = {
		{ "{\"ts\":1,\"k\":\"a\",\"v\":3}", "1|a|3" },
		{ "{\"ts\":2,\"k\":\"b\",\"v\":4}", "2|b|4" },
		{ "{\"k\":\"c\",\"ts\":5,\"v\":6}", "5|c|6" },
		{ "{\"v\":7,\"k\":\"d\"}", "<missing>|d|7" },
		{ "{\"v\":8,\"x\":1,\"k\":\"e\",\"ts\":9}", "9|e|8" },
		{ "{\"t\\u0073\":10,\"k\":\"f\",\"v\":11}", "10|f|11" },
		{ "{\"ts\":12,\"k\":\"g\\th\",\"v\":null}", "12|g\\x09h|<null>" },
		{ "{\"ts\":13, \"k\":\"i\",\"v\":14}", "13|i|14" },
		{ "{\"ts\":15,\"k\":{\"a\":1},\"v\":16}", "15|{\"a\":1}|16" },
		{ "{\"ts\":17,\"k\":\"j\",\"v\":18,}",
		    "error: not a JSON object: expected a member name at byte 25" },
		{ "{\"ts\":19,\"k\":\"k\",\"v\":-2e3}", "19|k|-2e3" },
		{ "{\"ts\":20,\"k\":\"l\",\"v\":true}x",
		    "error: not a JSON object: trailing characters after the object at byte 27" },
		{ "{\"ts\":21,\"k\":\"m\",\"v\":01}",
		    "error: not a JSON object: bad number (a leading zero) at byte 22" },
		{ "{\"abcdefghij\":1,\"ts\":22,\"k\":\"n\",\"v\":0}", "22|n|0" },
	};
	const char *const paths[] = { "ts", "k", "v" };
	struct json *j = json_new(paths, 3);
	unsigned char kind[3];
	struct field f[3];
	const char *err;
	char out[256], *o;
	size_t l, i;
	int rc;

	for (l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
		rc = json_scan(j, lines[l][0], strlen(lines[l][0]), f, kind,
		    &err);
		o = out;
		if (rc < 0)
			snprintf(out, sizeof(out), "error: %s", err);
		else
			for (i = 0; i < 3; i++) {
				if (i > 0)
					*o++ = '|';
				if (kind[i] != JSON_VALUE)
					o += sprintf(o, kind[i] == JSON_NULL ?
					    "<null>" : "<missing>");
				else if (f[i].n == 3 && f[i].p[1] == '\t')
					o += sprintf(o, "%c\\x09%c", f[i].p[0],
					    f[i].p[2]);
				else
					o += sprintf(o, "%.*s", (int)f[i].n,
					    f[i].p);
			}
		CHECK_STR(out, lines[l][1]);
	}
	json_free(j);
}

/* A line read by a scanner that has read the lines before it, and by a
 * new one: the same result. The scanner keeps the shape of the last flat
 * line (its member names in order) and reads a line of that shape by its
 * values alone; each line is an exact-size copy, so that a read past its
 * end trips ASan. */
static void
describe(char *out, size_t cap, int rc, const struct field *f,
    const unsigned char *kind, size_t np, const char *err)
{
	size_t i, k;
	int len = 0;

	if (rc <= 0) {
		snprintf(out, cap, "%d %s", rc, rc < 0 ? err : "");
		return;
	}
	for (i = 0; i < np && (size_t)len < cap - 64; i++) {
		len += snprintf(out + len, cap - (size_t)len, "%s%d:",
		    i ? "|" : "", kind[i]);
		for (k = 0; k < f[i].n && (size_t)len < cap - 8; k++)
			len += snprintf(out + len, cap - (size_t)len, "%02x",
			    (unsigned char)f[i].p[k]);
		CHECK(kind[i] == JSON_VALUE || (f[i].n == 0 && f[i].p != NULL));
	}
}

static void
test_shapes(void)
{
	static const char *const lines[] = {
		"{\"ts\":1,\"k\":\"a\",\"v\":3}",
		"{\"ts\":2,\"k\":\"bb\",\"v\":40}",
		"{\"ts\":3,\"k\":\"c\\u0041\",\"v\":5}",
		"{\"ts\":4,\"k\":\"d\",\"v\":null}",
		"{\"ts\":5,\"k\":\"e\",\"v\":true}",
		"{\"ts\":6,\"k\":\"f\",\"v\":-0}",
		"{\"ts\":7,\"k\":\"g\",\"v\":0.5}",
		"{\"ts\":8,\"k\":\"h\",\"v\":1e3}",
		"{\"ts\":9,\"k\":\"i\",\"v\":12.}",
		"{\"ts\":10,\"k\":\"j\",\"v\":01}",
		"{\"ts\":11,\"k\":\"k\",\"v\":1}",
		"{\"ts\":12,\"k\":\"l\",\"v\":1",
		"{\"ts\":13,\"k\":\"m\",\"v\":1,\"w\":2}",
		"{\"ts\":14,\"k\":\"n\",\"v\":1}}",
		"{\"ts\":15,\"k\":\"o\",\"v\":\"1\"}",
		"{\"ts\":16,\"k\":17,\"v\":\"x\"}",
		"{\"ts\":18,\"k\":\"p\",\"v\":[1]}",
		"{\"ts\":19,\"k\":\"q\",\"v\":{\"a\":1}}",
		"{\"ts\":20,\"k\":\"r\",\"v\":2 }",
		"{\"ts\":21,\"k\":\"s\",\"v\":\"a\x01\"}",
		"{\"ts\":22,\"k\":\"t\",\"v\":\"unterminated}",
		"{\"ts\":23,\"v\":1,\"k\":\"u\"}",
		"{\"ts\":24,\"v\":1,\"v\":2,\"k\":\"u\"}",
		"{\"ts\":25,\"v\":1,\"v\":2,\"k\":\"w\"}",
		"{\"ts\":26,\"v\":3,\"v\":4}",
		"{\"u.id\":1,\"u\":\"x\",\"ts\":27}",
		"{\"u.id\":2,\"u\":\"y\",\"ts\":28}",
		"{\"u.id\":3,\"u\":{\"id\":4},\"ts\":29}",
		"{\"abcdefghijklm\":1,\"ts\":30}",
		"{\"abcdefghijklm\":2,\"ts\":31}",
		"{\"abcdefghijkl\":1,\"ts\":32}",
		"{\"abcdefghijkl\":2,\"ts\":33}",
		"{\"abcdefghijkl\":2,\"ts\":-34.5e-1}",
		"{\"a\":1}",
		"{\"a\":2}",
		"{\"a\":-}",
		"{\"ts\":1}",
		"{\"ts\":1}",
		"{\"ts\":}",
		"{\"ts\":1",
		"{\"ts\"",
		"{",
		"",
		"{}",
		"{}",
		" {\"ts\":35}",
		"{\"ts\":36}\r",
		"{\"ts\":37,\"k\":\"\",\"v\":9}",
		"{\"ts\":38,\"k\":\"\",\"v\":9}",
		"{\"ts\":39,\"k\":\"long value past sixteen bytes\",\"v\":9}",
		"{\"ts\":40,\"k\":\"\xC3\xA9\",\"v\":123456789012345678901}",
		"{\"t\\u0073\":41,\"k\":\"x\",\"v\":1}",
		"{\"t\\u0073\":42,\"k\":\"y\",\"v\":2}",
		"{\"ts\":43,\"k\":\"z\",\"v\":3}",
		"{\"abcdefghijklmnop\":1,\"k\":\"x\",\"v\":4}",
		"{\"abcdefghijklmnop\":1,\"k\":\"x\",\"v\":5}",
		"{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":0,\"g\":0,"
		    "\"h\":0,\"i\":0,\"j\":0,\"l\":0,\"m\":0,\"n\":0,\"o\":0,"
		    "\"p\":0,\"q\":0,\"r\":0,\"s\":0,\"k\":\"many\",\"v\":6,"
		    "\"ts\":44}",
		"{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":0,\"g\":0,"
		    "\"h\":0,\"i\":0,\"j\":0,\"l\":0,\"m\":0,\"n\":0,\"o\":0,"
		    "\"p\":0,\"q\":0,\"r\":0,\"s\":0,\"k\":\"many\",\"v\":7,"
		    "\"ts\":45}",
		"{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":0,\"g\":0,"
		    "\"h\":0,\"i\":0,\"j\":0,\"l\":0,\"m\":0,\"n\":0,\"o\":0,"
		    "\"ts\":46,\"k\":\"sixteen\"}",
		"{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":0,\"g\":0,"
		    "\"h\":0,\"i\":0,\"j\":0,\"l\":0,\"m\":0,\"n\":0,\"o\":0,"
		    "\"ts\":47,\"k\":\"sixteen\"}",
	};
	const char *const paths[] = { "ts", "k", "v", "u.id", "v" };
	const size_t np = NEL(paths);
	struct json *shared = json_new(paths, np), *fresh;
	unsigned char kind[MAXP];
	struct field f[MAXP];
	char got[2048], want[2048], *copy;
	const char *err = NULL;
	size_t l, n;
	int rc;

	for (l = 0; l < NEL(lines); l++) {
		n = strlen(lines[l]);
		copy = malloc(n ? n : 1);
		memcpy(copy, lines[l], n);
		rc = json_scan(shared, copy, n, f, kind, &err);
		describe(got, sizeof(got), rc, f, kind, np, err);
		fresh = json_new(paths, np);
		rc = json_scan(fresh, copy, n, f, kind, &err);
		describe(want, sizeof(want), rc, f, kind, np, err);
		json_free(fresh);
		CHECK_STR(got, want);
		free(copy);
	}
	json_free(shared);
}

static void
test_whitespace(void)
{
	CHECK_STR(scan("a|b", " \t{ \"a\" \t: 1 ,\r\"b\"\n:\t[ ] }\t \r"),
	    "1|[ ]");
	CHECK_STR(scan("a", ""), "blank");
	CHECK_STR(scan("a", " \t\r "), "blank");
	/* the caller drops a CR before the newline; one left inside is
	 * whitespace, as JSON says */
	CHECK_STR(scan("a", "{\"a\":1}\r"), "1");
	/* whitespace that JSON does not know */
	CHECK_STR(scan("a", "{\"a\":\f1}"),
	    "error: not a JSON object: expected a value at byte 6");
	CHECK_STR(scan("a", "\xC2\xA0{\"a\":1}"),
	    "error: not a JSON object: expected '{' at byte 1");
}

static void
test_bad_lines(void)
{
	static const struct {
		const char *in, *msg;
	} t[] = {
		{ "[1,2]", "expected '{' at byte 1" },
		{ "  42", "expected '{' at byte 3" },
		{ "\"s\"", "expected '{' at byte 1" },
		{ "null", "expected '{' at byte 1" },
		{ "{", "expected a member name or '}' at byte 2 (end of line)" },
		{ "{\"a\"", "expected ':' at byte 5 (end of line)" },
		{ "{\"a\":", "expected a value at byte 6 (end of line)" },
		{ "{\"a\":1", "expected ',' or '}' at byte 7 (end of line)" },
		{ "{\"a\":1,", "expected a member name at byte 8 (end of line)" },
		{ "{\"a\":1,}", "expected a member name at byte 8" },
		{ "{\"a\":[1,]}", "expected a value at byte 9" },
		{ "{\"a\":[1", "expected ',' or ']' at byte 8 (end of line)" },
		{ "{\"a\":[", "expected a value or ']' at byte 7 (end of line)" },
		{ "{\"a\":[}", "expected a value or ']' at byte 7" },
		{ "{\"a\":{]}", "expected a member name or '}' at byte 7" },
		{ "{\"a\":[1}", "expected ',' or ']' at byte 8" },
		{ "{\"a\" 1}", "expected ':' at byte 6" },
		{ "{\"a\":1 \"b\":2}", "expected ',' or '}' at byte 8" },
		{ "{\"a\":1}}", "trailing characters after the object at byte 8" },
		{ "{\"a\":1} {\"b\":2}",
		    "trailing characters after the object at byte 9" },
		{ "{\"a\":1} x", "trailing characters after the object at byte 9" },
		{ "{\"a\":tru}", "expected a value at byte 6" },
		{ "{\"a\":nul", "expected a value at byte 6" },
		{ "{\"a\":True}", "expected a value at byte 6" },
		{ "{\"a\":truex}", "expected ',' or '}' at byte 10" },
		{ "{\"a\":undefined}", "expected a value at byte 6" },
		{ "{a:1}", "expected a member name or '}' at byte 2" },
		{ "{1:1}", "expected a member name or '}' at byte 2" },
		{ "{\"a\"::1}", "expected a value at byte 6" },
	};
	char want[160];
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		snprintf(want, sizeof(want), "error: not a JSON object: %s",
		    t[i].msg);
		CHECK_STR(scan("a|b", t[i].in), want);
	}
}

static void
test_depth(void)
{
	size_t n = 6 * JSON_MAXDEPTH + 16, i, d;
	char *line = malloc(n), want[160];

	/* JSON_MAXDEPTH levels: the object and 511 arrays */
	for (d = JSON_MAXDEPTH; d <= JSON_MAXDEPTH + 1; d++) {
		i = 0;
		line[i++] = '{';
		memcpy(line + i, "\"a\":", 4);
		i += 4;
		memset(line + i, '[', d - 1);
		i += d - 1;
		memset(line + i, ']', d - 1);
		i += d - 1;
		line[i++] = '}';
		if (d == JSON_MAXDEPTH) {
			CHECK_STR(scann("b", line, i), "<missing>");
		} else {
			snprintf(want, sizeof(want), "error: not a JSON object:"
			    " nested deeper than 512 levels at byte %d",
			    5 + JSON_MAXDEPTH);
			CHECK_STR(scann("b", line, i), want);
		}
	}
	/* objects, on a path */
	for (d = JSON_MAXDEPTH; d <= JSON_MAXDEPTH + 1; d++) {
		i = 0;
		for (size_t k = 0; k < d - 1; k++) {
			memcpy(line + i, "{\"a\":", 5);
			i += 5;
		}
		line[i++] = '{';
		memset(line + i, '}', d);
		i += d;
		if (d == JSON_MAXDEPTH) {
			/* a.a: the third '{' to the last but two '}' */
			char *w = malloc(i);

			memcpy(w, line + 10, i - 12);
			w[i - 12] = '\0';
			CHECK_STR(scann("a.a", line, i), w);
			free(w);
		}
		else {
			snprintf(want, sizeof(want), "error: not a JSON object:"
			    " nested deeper than 512 levels at byte %d",
			    5 * JSON_MAXDEPTH + 1);
			CHECK_STR(scann("a.a", line, i), want);
		}
	}
	free(line);
}

/* Where values point: into the line, or into the scratch buffer, which a
 * second record of the same shape reuses; and a json with no paths. */
static void
test_memory(void)
{
	static const char *const paths[] = { "s", "e", "o" };
	static const char line[] = "{\"s\":\"plain\",\"e\":\"a\\nb\","
	    "\"o\":{\"x\":[1]}}";
	struct json *j = json_new(paths, 3), *none;
	struct field f[3];
	const char *err = "unset", *scr;
	unsigned char kind[3];

	CHECK(json_scan(j, line, sizeof(line) - 1, f, NULL, &err) == 1);
	CHECK(f[0].p == line + 6 && f[0].n == 5);
	CHECK(f[1].p < line || f[1].p >= line + sizeof(line));
	CHECK(f[1].n == 3 && memcmp(f[1].p, "a\nb", 3) == 0);
	CHECK(f[2].p == line + 28 && f[2].n == 9);
	CHECK_STR(err, "unset");	/* untouched on success */
	scr = f[1].p;
	CHECK(json_scan(j, line, sizeof(line) - 1, f, kind, &err) == 1);
	CHECK(f[1].p == scr);
	CHECK(kind[0] == JSON_VALUE && kind[1] == JSON_VALUE &&
	    kind[2] == JSON_VALUE);
	json_free(j);

	none = json_new(NULL, 0);
	CHECK(json_npaths(none) == 0);
	CHECK(json_scan(none, line, sizeof(line) - 1, f, kind, &err) == 1);
	CHECK(json_scan(none, "{\"a\":}", 7, f, kind, &err) == -1);
	CHECK_STR(err, "not a JSON object: expected a value at byte 6");
	CHECK(json_scan(none, "", 0, f, kind, &err) == 0);
	json_free(none);
	json_free(NULL);
}

/* A 10 MB line: long strings (one with escapes), a long array, many
 * members, and the fields at its end. */
static void
test_long_line(void)
{
	static const char *const paths[] = { "big", "esc", "arr", "last" };
	size_t cap = 12u << 20, n = 0, i, k;
	char *line = malloc(cap), *want = malloc(2u << 20);
	struct json *j = json_new(paths, 4);
	struct field f[4];
	unsigned char kind[4];
	const char *err = NULL;

	n += (size_t)sprintf(line + n, "{\"big\":\"");
	for (i = 0; i < (3u << 20); i++)
		line[n++] = (char)('a' + i % 26);
	n += (size_t)sprintf(line + n, "\",\"esc\":\"");
	for (i = 0, k = 0; i < (1u << 19); i++) {
		memcpy(line + n, "\\u00e9x", 7);
		n += 7;
		memcpy(want + k, "\xC3\xA9x", 3);
		k += 3;
	}
	n += (size_t)sprintf(line + n, "\",\"arr\":[");
	for (i = 0; i < 400000; i++)
		n += (size_t)sprintf(line + n, "%s%zu", i ? "," : "", i);
	line[n++] = ']';
	for (i = 0; i < 50000; i++)
		n += (size_t)sprintf(line + n, ",\"m%zu\":{\"v\":%zu}", i, i);
	n += (size_t)sprintf(line + n, ",\"last\":true}");
	CHECK(n > (10u << 20));
	CHECK(json_scan(j, line, n, f, kind, &err) == 1);
	CHECK(f[0].p == line + 8 && f[0].n == (3u << 20));
	CHECK(f[0].p[f[0].n - 1] == 'a' + ((3u << 20) - 1) % 26);
	CHECK(f[1].n == k && memcmp(f[1].p, want, k) == 0);
	CHECK(f[2].n > 2 && f[2].p[0] == '[' && f[2].p[f[2].n - 1] == ']');
	CHECK(f[3].n == 4 && memcmp(f[3].p, "true", 4) == 0);
	/* cut short anywhere in its last part, it is bad */
	CHECK(json_scan(j, line, n - 1, f, kind, &err) == -1);
	CHECK(strstr(err, "expected ',' or '}'") != NULL);
	json_free(j);
	free(line);
	free(want);
}

int
main(void)
{
	test_values();
	test_numbers();
	test_strings();
	test_paths();
	test_duplicates();
	test_flat_lines();
	test_shapes();
	test_whitespace();
	test_bad_lines();
	test_depth();
	test_memory();
	test_long_line();
	return unit_done("test_json");
}
