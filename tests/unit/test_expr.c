/* Unit tests of expr: the grammar and its precedence, SQL's three-valued
 * logic, numbers against text, regular expressions, every function, and
 * every error with its position (fwin(1), EXPRESSIONS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/expr.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))

/* The record every expression reads: its fields by name, and as $1...
 * (ecut: but its text's last byte, which follows it as the next bytes
 * of a line follow a field). */
static const struct {
	const char *name, *text;
} rec[] = {
	{ "a", "7" }, { "b", "2" }, { "z", "0" }, { "f", "2.5" },
	{ "s", "Hello" }, { "e", "" }, { "neg", "-7" },
	{ "big", "9223372036854775807" }, { "t", "10" }, { "u", "9" },
	{ "ip", "10.0.0.1" }, { "user.id", "u1" }, { "with space", "ws" },
	{ "status", "503" }, { "x", "2.675" }, { "h", "1e3" },
	{ "not", "1" }, { "in", "5" }, { "w", "-2.5" },
	{ "ecut", "2.55e-13" },
};

static struct xslice slots[NEL(rec)];

/* Binds e's fields to rec; returns -1 for a name rec lacks. */
static int
bind(struct expr *e)
{
	const char *name;
	size_t i, j, col, pos;
	int braced;

	for (i = 0; i < expr_nfields(e); i++) {
		expr_field(e, i, &name, &col, &pos, &braced);
		if (name == NULL) {
			if (col > NEL(rec))
				return -1;
			expr_bind(e, i, col - 1);
			continue;
		}
		for (j = 0; j < NEL(rec) && strcmp(rec[j].name, name) != 0; j++)
			;
		if (j == NEL(rec))
			return -1;
		expr_bind(e, i, j);
	}
	return 0;
}

/* What text evaluates to, as a result prints: "NULL" for NULL; or the
 * parse error. */
static const char *
eval(const char *text)
{
	static char out[320];
	char err[256], buf[32];
	struct expr *e;
	struct xvm *vm;
	struct xval v;
	const char *p;
	size_t n, i;

	for (i = 0; i < NEL(rec); i++) {
		slots[i].p = rec[i].text;
		slots[i].n = strlen(rec[i].text) -
		    (strcmp(rec[i].name, "ecut") == 0);
	}
	if ((e = expr_parse(text, err, sizeof(err))) == NULL) {
		snprintf(out, sizeof(out), "error %s", err);
		return out;
	}
	if (bind(e) != 0) {
		expr_free(e);
		return "unbound";
	}
	vm = xvm_new();
	expr_eval(e, vm, slots, &v);
	if (xval_text(&v, buf, &p, &n) != 0)
		snprintf(out, sizeof(out), "NULL");
	else
		snprintf(out, sizeof(out), "%.*s", (int)n, p);
	xvm_free(vm);
	expr_free(e);
	return out;
}

struct tcase {
	const char *expr, *want;
};

static void
run(const struct tcase *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *got = eval(t[i].expr);

		if (strcmp(got, t[i].want) == 0)
			unit_pass++;
		else {
			unit_fail++;
			fprintf(stderr, "%s: got \"%s\", want \"%s\"\n",
			    t[i].expr, got, t[i].want);
		}
	}
}

static void
test_arithmetic(void)
{
	static const struct tcase t[] = {
		{ "1 + 2 * 3", "7" }, { "(1 + 2) * 3", "9" },
		{ "7 / 2", "3.5" }, { "6 / 2", "3" }, { "a / b", "3.5" },
		{ "-7 % 3", "-1" }, { "7 % -3", "1" }, { "neg % 3", "-1" },
		{ "7.5 % 2", "1.5" }, { "-7.5 % 2", "-1.5" },
		{ "1 / 0", "NULL" }, { "1 % 0", "NULL" }, { "1.5 / 0", "NULL" },
		{ "a - b - 1", "4" }, { "a - (b - 1)", "6" },
		{ "2 * 3 % 4", "2" }, { "- a + 1", "-6" }, { "--a", "7" },
		{ "-a * -b", "14" }, { "f * 2", "5" }, { "f + 0.1", "2.6" },
		{ "0.1 + 0.2", "0.30000000000000004" },
		{ "big + 1", "9.223372036854776e+18" }, { "big - 1",
		    "9223372036854775806" }, { "big * 2", "1.8446744073709552e+19" },
		{ "h + 1", "1001" }, { "1e3", "1000" }, { "2.50", "2.5" },
		{ "s + 1", "NULL" }, { "e + 1", "NULL" }, { "-s", "NULL" },
		{ "\"5\" + 1", "NULL" }, { "a", "7" }, { "s", "Hello" },
		{ "e", "NULL" }, { "\"\"", "NULL" }, { "'it''s'", "error at 5: "
		    "unexpected ''s''" },
		{ "$1 + $2", "9" }, { "${with space}", "ws" },
		{ "user.id", "u1" }, { "-9223372036854775807 - 2",
		    "-9.223372036854776e+18" },
	};

	run(t, NEL(t));
}

static void
test_comparison(void)
{
	static const struct tcase t[] = {
		{ "a > b", "1" }, { "a < b", "0" }, { "a == 7", "1" },
		{ "a == 7.0", "1" }, { "a != 7", "0" }, { "a <> 7", "0" },
		{ "a >= 7", "1" }, { "a <= 6", "0" },
		/* numbers numerically, text byte by byte */
		{ "t > u", "1" }, { "t > \"9\"", "0" }, { "\"10\" > \"9\"", "0" },
		{ "s == \"Hello\"", "1" }, { "s < \"hello\"", "1" },
		{ "s > 5", "1" }, { "ip > \"10\"", "1" },
		{ "status >= 500", "1" }, { "status >= \"6\"", "0" },
		/* NULL compares unknown */
		{ "e == 1", "NULL" }, { "e != 1", "NULL" }, { "e == e", "NULL" },
		{ "e == \"\"", "NULL" }, { "1 + 1 == 2", "1" },
		{ "a > b == 1", "error at 7: unexpected '=='" },
		{ "a is null", "0" }, { "e is null", "1" },
		{ "e is not null", "0" }, { "s IS NOT NULL", "1" },
		{ "a + e is null", "1" }, { "a is nul", "error at 6: expected "
		    "'null' or 'not null' after 'is', found 'nul'" },
		{ "a in (1, 7, 9)", "1" }, { "a in (1, 2)", "0" },
		{ "a in (1, e)", "NULL" }, { "a in (7, e)", "1" },
		{ "e in (1, 2)", "NULL" }, { "s in (\"Hello\")", "1" },
		{ "a in (3 + 4)", "1" }, { "a in 7", "error at 6: expected '(' "
		    "after 'in', found '7'" },
		{ "a in (1 2)", "error at 9: expected ',' or ')', found '2'" },
	};

	run(t, NEL(t));
}

static void
test_logic(void)
{
	/* SQL's truth tables: t true, f false, e (NULL) unknown */
	static const struct tcase t[] = {
		{ "1 && 1", "1" }, { "1 && 0", "0" }, { "1 && e", "NULL" },
		{ "0 && 1", "0" }, { "0 && 0", "0" }, { "0 && e", "0" },
		{ "e && 1", "NULL" }, { "e && 0", "0" }, { "e && e", "NULL" },
		{ "1 || 1", "1" }, { "1 || 0", "1" }, { "1 || e", "1" },
		{ "0 || 1", "1" }, { "0 || 0", "0" }, { "0 || e", "NULL" },
		{ "e || 1", "1" }, { "e || 0", "NULL" }, { "e || e", "NULL" },
		{ "!1", "0" }, { "!0", "1" }, { "!e", "NULL" },
		{ "not 1", "0" }, { "NOT e", "NULL" },
		/* truthiness: numbers not 0, any text */
		{ "s && 1", "1" }, { "z || 0", "0" }, { "f && 1", "1" },
		{ "!s", "0" },
		/* precedence: || loosest, then &&, then ! */
		{ "1 || 1 && 0", "1" }, { "(1 || 1) && 0", "0" },
		{ "!0 && 0", "0" }, { "! a == 7", "0" }, { "!(a == 7) || 1", "1" },
		{ "a > 1 and b > 1 or z", "1" }, { "a > 1 and not b > 1", "0" },
		/* the words are names where a name can stand */
		{ "not == 1", "1" }, { "in + 1", "6" }, { "not not", "0" },
		{ "a > 5 AND in == 5", "1" },
	};

	run(t, NEL(t));
}

static void
test_regex(void)
{
	static const struct tcase t[] = {
		{ "s ~ \"^H.l+o$\"", "1" }, { "s ~ 'ell'", "1" },
		{ "s ~ '^ell'", "0" }, { "s !~ '^ell'", "1" },
		{ "s !~ 'ell'", "0" }, { "e ~ 'x'", "NULL" },
		{ "e !~ 'x'", "NULL" }, { "ip ~ '^10\\\\.'", "1" },
		{ "status ~ '^5[0-9]{2}$'", "1" }, { "a ~ '7'", "1" },
		{ "s ~ '(a|H)e'", "1" }, { "s ~ x", "error at 5: ~ needs a "
		    "quoted regular expression, found 'x'" },
		{ "s ~ '('", "error at 5: bad regular expression '(': "
		    "Unmatched ( or \\(" },
	};

	run(t, NEL(t));
}

static void
test_functions(void)
{
	static const struct tcase t[] = {
		{ "abs(neg)", "7" }, { "abs(w)", "2.5" }, { "abs(a)", "7" },
		{ "abs(s)", "NULL" }, { "abs(e)", "NULL" },
		{ "floor(f)", "2" }, { "floor(w)", "-3" }, { "ceil(f)", "3" },
		{ "ceil(w)", "-2" }, { "floor(a)", "7" }, { "floor(s)", "NULL" },
		{ "round(f)", "3" }, { "round(w)", "-3" }, { "round(x, 2)",
		    "2.68" }, { "round(x, 1)", "2.7" }, { "round(2.5)", "3" },
		{ "round(-0.5)", "-1" }, { "round(0.4)", "0" },
		{ "round(9.96, 1)", "10" }, { "round(1234, -2)", "1200" },
		{ "round(1250, -2)", "1300" }, { "round(-1250, -2)", "-1300" },
		{ "round(a, 2)", "7" }, { "round(1234.5, -2)", "1200" },
		{ "round(f, e)", "NULL" }, { "round(f, 0.5)", "NULL" },
		{ "round(1.005, 2)", "1.01" }, { "round(0.05, 1)", "0.1" },
		{ "round(ecut, 2)", "0.26" }, { "round(ecut, 1)", "0.3" },
		{ "min(a, b, t)", "2" }, { "max(a, b, t)", "10" },
		{ "min(a, e)", "NULL" }, { "max(s, \"Z\")", "Z" },
		{ "min(f, 3)", "2.5" }, { "max(a)", "7" },
		{ "len(s)", "5" }, { "len(e)", "NULL" }, { "len(a)", "1" },
		{ "len(f * 2)", "1" }, { "len(ip)", "8" },
		{ "lower(s)", "hello" }, { "upper(s)", "HELLO" },
		{ "upper(e)", "NULL" }, { "lower(\"ÄB\")", "Äb" },
		{ "substr(s, 2)", "ello" }, { "substr(s, 2, 3)", "ell" },
		{ "substr(s, 0, 2)", "He" }, { "substr(s, -3)", "llo" },
		{ "substr(s, -3, 2)", "ll" }, { "substr(s, -9, 2)", "He" },
		{ "substr(s, 2, -1)", "NULL" }, { "substr(s, 6)", "NULL" },
		{ "substr(s, 2, 0)", "NULL" }, { "substr(s, 1, 99)", "Hello" },
		{ "substr(e, 1)", "NULL" }, { "substr(t * 11, 2)", "10" },
		{ "substr(s, e)", "NULL" },
		{ "coalesce(e, a)", "7" }, { "coalesce(e, e)", "NULL" },
		{ "coalesce(s, a)", "Hello" }, { "coalesce(e, \"none\")", "none" },
		{ "if(a > b, \"big\", \"small\")", "big" },
		{ "if(a < b, \"big\", \"small\")", "small" },
		{ "if(e, 1, 2)", "2" }, { "IF(1, e, 2)", "NULL" },
		{ "len(lower(s)) + len(upper(s))", "10" },
		{ "lower(s) == \"hello\" && upper(s) == \"HELLO\"", "1" },
	};

	run(t, NEL(t));
}

static void
test_errors(void)
{
	static const struct tcase t[] = {
		{ "status > 0 && lenght(s)", "error at 15: unknown function "
		    "'lenght'; did you mean 'len'?" },
		{ "frobnicate(s)", "error at 1: unknown function 'frobnicate'" },
		{ "len(s, a)", "error at 1: len takes 1 argument, not 2" },
		{ "len()", "error at 1: len takes 1 argument, not 0" },
		{ "round(a, 1, 2)", "error at 1: round takes 1 or 2 arguments, "
		    "not 3" },
		{ "min()", "error at 1: min takes at least 1 argument, not 0" },
		{ "if(a, b)", "error at 1: if takes 3 arguments, not 2" },
		{ "substr(s)", "error at 1: substr takes 2 or 3 arguments, not 1" },
		{ "", "error at 1: empty expression" },
		{ "a >", "error at 4: expected a value, found the end" },
		{ "a > > b", "error at 5: expected a value, found '>'" },
		{ "(a > b", "error at 7: expected ')', found the end" },
		{ "a b", "error at 3: unexpected 'b'" },
		{ "a @ b", "error at 3: unexpected '@'" },
		{ "s == \"abc", "error at 6: unterminated string" },
		{ "s == \"a\\qb\"", "error at 8: unknown escape '\\q' (\\\\, "
		    "\\\", \\', \\n, \\t)" },
		{ "${}", "error at 1: empty field name '${}'" },
		{ "${abc", "error at 1: '${' without '}'" },
		{ "$0", "error at 1: columns run from $1 to $1000000000" },
		{ "len(s,)", "error at 7: expected a value, found ')'" },
		{ "1.2.3", "error at 4: unexpected '.3'" },
		{ "nosuch", "unbound" },
	};

	run(t, NEL(t));
}

static void
test_strings(void)
{
	static const struct tcase t[] = {
		{ "\"a\\\"b\"", "a\"b" }, { "'a\\'b'", "a'b" },
		{ "'a\\\\b'", "a\\b" }, { "len('a\\tb\\n')", "4" },
		{ "'x' == \"x\"", "1" },
	};

	run(t, NEL(t));
}

/* Field lists: distinct, in order of first mention, with positions. */
static void
test_fields(void)
{
	char err[128];
	struct expr *e = expr_parse("b > 1 && $3 == b || ${b}", err,
	    sizeof(err));
	const char *name;
	size_t col, pos;
	int braced;

	CHECK(e != NULL && expr_nfields(e) == 3);
	if (e == NULL)
		return;
	expr_field(e, 0, &name, &col, &pos, &braced);
	CHECK(strcmp(name, "b") == 0 && pos == 1 && !braced);
	expr_field(e, 1, &name, &col, &pos, &braced);
	CHECK(name == NULL && col == 3 && pos == 10);
	expr_field(e, 2, &name, &col, &pos, &braced);
	CHECK(strcmp(name, "b") == 0 && pos == 21 && braced);
	expr_free(e);
}

/* The SQL an expression is explained as: slot 9 is a column of a
 * number type, the others STRING columns. */
static const char *
sqlname(void *arg, size_t i, int *number)
{
	static char buf[16];

	(void)arg;
	*number = i == 9;
	snprintf(buf, sizeof(buf), "`f%zu`", i);
	return buf;
}

/* e's SQL as a condition or as a value (malloc'd) and its type; $N is
 * bound to slot N - 1. */
static char *
sql_of(const char *text, int cond, const char **type)
{
	char err[128], *s = NULL;
	const char *name;
	size_t n = 0, i, col, pos;
	FILE *f = open_memstream(&s, &n);
	struct expr *e = expr_parse(text, err, sizeof(err));
	int braced;

	CHECK(e != NULL);
	for (i = 0; e != NULL && i < expr_nfields(e); i++) {
		expr_field(e, i, &name, &col, &pos, &braced);
		if (name == NULL)
			expr_bind(e, i, col - 1);
	}
	if (e != NULL)
		*type = expr_sql(e, f, cond, sqlname, NULL);
	fclose(f);
	expr_free(e);
	return s;
}

static void
test_sql(void)
{
	char err[128], *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	struct expr *e = expr_parse("a / 2 > 1 and s ~ 'x''' or not b in "
	    "(1, 'it\\'s') and e is not null and coalesce(a, 1) % 2 == 0",
	    err, sizeof(err));

	CHECK(e == NULL);	/* 'x''' is two strings */
	e = expr_parse("a / 2 > 1 and s ~ 'x' or not b in (1, 'it\\'s') and "
	    "e is not null and max(a, 1) % 2 == 0", err, sizeof(err));
	CHECK(e != NULL);
	if (e == NULL)
		return;
	CHECK_STR(expr_sql(e, f, 1, sqlname, NULL), "BOOLEAN");
	fclose(f);
	/* fields are STRING columns: cast where fwin reads a number; the
	 * remainder of a DOUBLE is fmod()'s, written out */
	CHECK_STR(s, "((((CAST(`f0` AS DOUBLE) / NULLIF(2, 0)) > 1) AND "
	    "REGEXP(`f1`, 'x')) OR (((NOT (CAST(`f2` AS DOUBLE) IN (1, "
	    "'it''s'))) AND (`f3` IS NOT NULL)) AND ((GREATEST(CAST(`f0` "
	    "AS DOUBLE), 1) - 2 * CAST(GREATEST(CAST(`f0` AS DOUBLE), 1) / "
	    "NULLIF(2, 0) AS BIGINT)) = 0)))");
	free(s);
	expr_free(e);
}

/* An expression as a value: its SQL type, a condition as the 1 or 0
 * that fwin prints; a column of a number type is a number (cast to
 * DOUBLE in arithmetic, as fields are: BIGINT divides as integers). */
static void
test_sql_value(void)
{
	static const struct { const char *text, *sql, *type; } t[] = {
		{ "$10 > 10", "CASE (CAST(`f9` AS DOUBLE) > 10) WHEN TRUE THEN "
		    "1 WHEN FALSE THEN 0 END", "BIGINT" },
		{ "a is null", "CASE (`f0` IS NULL) WHEN TRUE THEN 1 WHEN "
		    "FALSE THEN 0 END", "BIGINT" },
		{ "coalesce($10, 1)", "COALESCE(CAST(`f9` AS DOUBLE), 1)",
		    "DOUBLE" },
		{ "$10 / 4", "(CAST(`f9` AS DOUBLE) / NULLIF(4, 0))", "DOUBLE" },
		{ "coalesce($10, a)", "COALESCE(CAST(`f9` AS DOUBLE), "
		    "CAST(`f1` AS DOUBLE))", "DOUBLE" },
		{ "coalesce(a, 1)", "COALESCE(CAST(`f0` AS DOUBLE), 1)",
		    "DOUBLE" },
		{ "if($10, a, 'x')", "IF((`f9` <> 0), `f1`, 'x')", "STRING" },
		{ "$10", "`f9`", "DOUBLE" },
		{ "a", "`f0`", "STRING" },
		{ "upper($10)", "UPPER(CAST(`f9` AS STRING))", "STRING" },
	};
	const char *type = NULL;
	char *s;
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		s = sql_of(t[i].text, 0, &type);
		CHECK_STR(s, t[i].sql);
		CHECK_STR(type, t[i].type);
		free(s);
	}
	/* a value in a boolean place, as a condition */
	s = sql_of("a", 1, &type);
	CHECK_STR(s, "(`f0` IS NOT NULL AND `f0` <> '0' AND LOWER(`f0`) <> 'false')");
	CHECK_STR(type, "BOOLEAN");
	free(s);
}

/* One evaluator over many records: nothing it made leaks into the next. */
static void
test_reuse(void)
{
	char err[128], buf[32];
	struct expr *e = expr_parse("upper(x) == 'AB' || len(lower(x)) > 100",
	    err, sizeof(err));
	struct xvm *vm = xvm_new();
	struct xslice sl[1];
	char big[5000];
	int i, ok = 1;

	(void)buf;
	memset(big, 'a', sizeof(big));
	for (i = 0; i < 1000; i++) {
		sl[0].p = i % 3 == 0 ? big : "ab";
		sl[0].n = i % 3 == 0 ? sizeof(big) - (size_t)i : 2;
		if (expr_test(e, vm, sl) != 1)
			ok = 0;
	}
	CHECK(ok);
	xvm_free(vm);
	expr_free(e);
}

/* expr_quick(): which expressions are a field against an integer, and
 * of those, that expr_quick_holds() says what expr_test() says of every
 * integer near each constant, as text. */
static void
test_quick(void)
{
	static const char *const ops[] = { "==", "=", "!=", "<>", "<", "<=",
	    ">", ">=" };
	static const long long ks[] = { -5, 0, 7, 99999999, -99999999 };
	static const char *const not_quick[] = { "$1 > 2.5", "$1 > $2",
	    "$1 > \"9\"", "$1 > 1 and $2 < 2", "$1 + 1 > 2", "$1 is null",
	    "$1 in (1, 2)" };
	char text[64], err[128], num[32];
	struct xslice one[2];
	struct xquick q;
	struct expr *e;
	struct xvm *vm = xvm_new();
	size_t i, j;
	long long x;

	for (i = 0; i < NEL(ops); i++) {
		for (j = 0; j < NEL(ks); j++) {
			(void)snprintf(text, sizeof(text), "$1 %s %lld", ops[i],
			    ks[j]);
			CHECK((e = expr_parse(text, err, sizeof(err))) != NULL);
			if (e == NULL)
				continue;
			expr_bind(e, 0, 0);
			/* (a negative constant is 0 - K, not one) */
			CHECK(expr_quick(e, &q) == (ks[j] >= 0));
			if (ks[j] < 0) {
				expr_free(e);
				continue;
			}
			CHECK(q.slot == 0);
			for (x = ks[j] - 2; x <= ks[j] + 2; x++) {
				one[0].n = (size_t)snprintf(num, sizeof(num),
				    "%lld", x);
				one[0].p = num;
				CHECK(expr_quick_holds(&q, (int64_t)x) ==
				    expr_test(e, vm, one));
			}
			expr_free(e);
		}
	}
	for (i = 0; i < NEL(not_quick); i++) {
		CHECK((e = expr_parse(not_quick[i], err, sizeof(err))) !=
		    NULL);
		if (e == NULL)
			continue;
		for (j = 0; j < expr_nfields(e); j++)
			expr_bind(e, j, j);
		CHECK(expr_quick(e, &q) == 0);
		expr_free(e);
	}
	xvm_free(vm);
}

int
main(void)
{
	test_arithmetic();
	test_comparison();
	test_logic();
	test_regex();
	test_functions();
	test_errors();
	test_strings();
	test_fields();
	test_sql();
	test_sql_value();
	test_reuse();
	test_quick();
	return unit_done("expr");
}
