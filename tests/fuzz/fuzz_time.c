/*
 * Fuzz target "time": tf_parse_time in every format (and strptime with a
 * few fixed formats), tf_detect, tf_parse_duration, tf_format and
 * tf_format_duration.
 *
 * The data is the text, as a time and as a duration; its first 8 bytes
 * are also an int64 to print. Properties:
 *	- a time that parses in s, ms, us, ns or iso prints in that format
 *	  as text that parses back to the same value; printed in s, ns and
 *	  iso (exact for any time) it parses back too;
 *	- a strptime time prints in iso and parses back;
 *	- tf_detect returns a format only when the text parses in it;
 *	- a duration prints in canonical form (shorter than TF_BUFSZ) that
 *	  parses back to the same value, and is refused negative when
 *	  allow_neg is 0;
 *	- any int64 prints in each format within TF_BUFSZ and reads back.
 */
#include "fuzz.h"

#include "base/timefmt.h"

static const enum tfmt fmts[] = { TF_S, TF_MS, TF_US, TF_NS, TF_ISO };

static const char *const strp_fmts[] = {
	"%Y-%m-%d %H:%M:%S",
	"%d/%b/%Y:%H:%M:%S %z",
	"%Y-%m-%dT%H:%M:%S%z",
	"%s",
	"%b %d %H:%M:%S",
	"%Y%m%d%H%M%S",
	"%j %Y",
	"%H:%M",
};

/* Formats t in f and parses it back in g; both must succeed and agree. */
static void
round_trip(int64_t t, enum tfmt f, enum tfmt g, const char *why)
{
	char buf[TF_BUFSZ + 16];
	size_t n;
	int64_t back;

	memset(buf, 'X', sizeof(buf));
	n = tf_format(buf, t, f);
	if (n >= TF_BUFSZ || buf[n] != '\0' || strlen(buf) != n)
		fz_fail("%s: tf_format(%lld, %s) wrote %zu bytes", why,
		    (long long)t, tf_name(f), n);
	if (tf_parse_time(buf, n, g, NULL, &back) != 0)
		fz_fail("%s: %lld printed in %s as \"%s\" does not parse", why,
		    (long long)t, tf_name(f), buf);
	if (back != t)
		fz_fail("%s: %lld printed in %s as \"%s\" reads back as %lld",
		    why, (long long)t, tf_name(f), buf, (long long)back);
}

static void
check_time(const char *p, size_t n)
{
	size_t i;
	int64_t t, t2;
	enum tfmt d;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (tf_parse_time(p, n, fmts[i], NULL, &t) != 0)
			continue;
		round_trip(t, fmts[i], fmts[i], "same format");
		round_trip(t, TF_NS, TF_NS, "as ns");
		round_trip(t, TF_S, TF_S, "as s");
		round_trip(t, TF_ISO, TF_ISO, "as iso");
	}
	for (i = 0; i < sizeof(strp_fmts) / sizeof(strp_fmts[0]); i++) {
		if (tf_parse_time(p, n, TF_STRPTIME, strp_fmts[i], &t) != 0)
			continue;
		round_trip(t, TF_ISO, TF_ISO, strp_fmts[i]);
		if (tf_parse_time(p, n, TF_STRPTIME, strp_fmts[i], &t2) != 0 ||
		    t2 != t)
			fz_fail("strptime %s: not the same twice", strp_fmts[i]);
	}
	d = tf_detect(p, n);
	if (d != TF_AUTO) {
		if (d != TF_S && d != TF_MS && d != TF_US && d != TF_NS &&
		    d != TF_ISO)
			fz_fail("tf_detect returned %d", (int)d);
		if (tf_parse_time(p, n, d, NULL, &t) != 0)
			fz_fail("tf_detect says %s but it does not parse",
			    tf_name(d));
	}
	/* no format at all, or auto, is refused */
	if (tf_parse_time(p, n, TF_AUTO, NULL, &t) == 0)
		fz_fail("TF_AUTO parsed");
}

static void
check_duration(const char *s)
{
	char buf[TF_BUFSZ + 16];
	int64_t ns, back, pos;
	size_t n;

	if (tf_parse_duration(s, 1, &ns) != 0) {
		if (tf_parse_duration(s, 0, &pos) == 0)
			fz_fail("\"%s\": positive-only parse of a refused "
			    "duration", s);
		return;
	}
	if (tf_parse_duration(s, 0, &pos) == 0 && (pos != ns || ns < 0))
		fz_fail("\"%s\": allow_neg changes a positive duration", s);
	memset(buf, 'X', sizeof(buf));
	n = tf_format_duration(buf, ns);
	if (n >= TF_BUFSZ || buf[n] != '\0' || strlen(buf) != n)
		fz_fail("\"%s\": formatted in %zu bytes", s, n);
	if (tf_parse_duration(buf, 1, &back) != 0 || back != ns)
		fz_fail("\"%s\" = %lld ns prints as \"%s\" which reads back "
		    "differently", s, (long long)ns, buf);
}

static void
check_int(int64_t t)
{
	char buf[TF_BUFSZ + 16];
	size_t n;
	int64_t back;

	round_trip(t, TF_NS, TF_NS, "int as ns");
	round_trip(t, TF_S, TF_S, "int as s");
	round_trip(t, TF_ISO, TF_ISO, "int as iso");
	if (t % 1000 == 0)
		round_trip(t, TF_US, TF_US, "int as us");
	if (t % 1000000 == 0)
		round_trip(t, TF_MS, TF_MS, "int as ms");
	/* TF_AUTO and TF_STRPTIME print as iso */
	round_trip(t, TF_AUTO, TF_ISO, "int as auto");
	if (t == INT64_MIN)	/* its magnitude is no positive duration */
		return;
	n = tf_format_duration(buf, t);
	if (n >= TF_BUFSZ)
		fz_fail("duration %lld: %zu bytes", (long long)t, n);
	if (tf_parse_duration(buf, 1, &back) != 0 || back != t)
		fz_fail("duration %lld prints as \"%s\", reads back "
		    "differently", (long long)t, buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	enum tfmt f;
	int64_t t;

	/* as a slice: exactly size bytes, no NUL after them */
	check_time((const char *)data, size);
	if ((s = malloc(size + 1)) == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	check_duration(s);
	if (tf_parse_name(s, &f) == 0 && f != TF_STRPTIME &&
	    strcmp(tf_name(f), s) != 0)
		fz_fail("tf_parse_name(\"%s\") gave %s", s, tf_name(f));
	free(s);
	if (size >= 8) {
		memcpy(&t, data, 8);
		check_int(t);
	}
	return 0;
}
