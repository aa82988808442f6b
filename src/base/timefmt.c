/*
 * timefmt: parse and print event times and durations.
 *
 * All arithmetic is exact, on integers: a time is int64 nanoseconds, a
 * decimal is read as its integer part and its fraction digits, never
 * through a double. Civil dates go through Howard Hinnant's
 * days_from_civil / civil_from_days (proleptic Gregorian calendar, in
 * calendar.c), not timegm(3) or the locale, so times before 1970 need no
 * special case and the TZ of the machine never leaks into the result:
 * the only zone is the one passed in (the --tz zone), and none means UTC.
 *
 * The parsers run once per record on slices of the read buffer: no
 * malloc, no stdio.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/calendar.h"
#include "base/num.h"
#include "base/timefmt.h"

#define S_PER_DAY	86400LL
#define NS_PER_MS	1000000LL
#define NS_PER_US	1000LL

static const char *const tf_names[] = {
	[TF_AUTO] = "auto",
	[TF_S] = "s",
	[TF_MS] = "ms",
	[TF_US] = "us",
	[TF_NS] = "ns",
	[TF_ISO] = "iso",
	[TF_STRPTIME] = "strptime",
};

/* Duration units. Two-letter names come first so that "ms" is not read
 * as "m" followed by junk. */
static const struct unit {
	const char	*u_name;
	size_t		 u_len;
	uint64_t	 u_ns;
} units[] = {
	{ .u_name = "ns", .u_len = 2, .u_ns = 1 },
	{ .u_name = "us", .u_len = 2, .u_ns = NS_PER_US },
	{ .u_name = "ms", .u_len = 2, .u_ns = NS_PER_MS },
	{ .u_name = "s", .u_len = 1, .u_ns = NS_PER_S },
	{ .u_name = "m", .u_len = 1, .u_ns = 60 * NS_PER_S },
	{ .u_name = "h", .u_len = 1, .u_ns = 3600 * NS_PER_S },
	{ .u_name = "d", .u_len = 1, .u_ns = S_PER_DAY * NS_PER_S },
	{ .u_name = "w", .u_len = 1, .u_ns = 7 * S_PER_DAY * NS_PER_S },
};
#define UNIT_S	3	/* units[UNIT_S]: seconds, for bare numbers */
#define UNIT_H	5	/* units[UNIT_H]: hours */

/* A decimal number as written: an integer part and fraction digits. */
struct dec {
	uint64_t	 d_int;		/* integer part, when !d_big */
	int		 d_big;		/* integer part > 2^64 - 1 */
	int		 d_dot;		/* a '.' was written */
	const char	*d_frac;	/* fraction digits, not copied */
	size_t		 d_nfrac;
};

/* ctype's isdigit() depends on the locale and is undefined for negative
 * chars; input bytes are arbitrary. */
static int
isdig(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Scans digits, then optionally '.' and digits, from p[0..n). Returns the
 * bytes used, or 0 when there is no digit at all ("", ".", "-").
 */
static size_t
dec_scan(const char *p, size_t n, struct dec *d)
{
	size_t i, nint;
	unsigned dg;

	uint64_t v = 0;
	size_t lim = n < 19 ? n : 19;

	memset(d, 0, sizeof(*d));
	/* Up to 19 digits cannot overflow: no check per digit, and a local
	 * (d may alias p for the compiler) keeps it in a register. */
	for (i = 0; i < lim && (unsigned)(p[i] - '0') < 10; i++)
		v = v * 10 + (unsigned)(p[i] - '0');
	d->d_int = v;
	for (; i < n && isdig(p[i]); i++) {
		dg = p[i] - '0';
		if (d->d_big || d->d_int > (UINT64_MAX - dg) / 10)
			d->d_big = 1;
		else
			d->d_int = d->d_int * 10 + dg;
	}
	nint = i;
	if (i < n && p[i] == '.') {
		d->d_dot = 1;
		d->d_frac = p + ++i;
		while (i < n && isdig(p[i]))
			i++;
		d->d_nfrac = p + i - d->d_frac;
	}
	if (nint == 0 && d->d_nfrac == 0)
		return 0;
	return i;
}

/*
 * The fraction 0.f[0..n) times unit, truncated toward zero: a fraction
 * finer than the unit (finer than 1 ns when unit is the ns count of
 * something) is dropped, never rounded up. Horner's rule from the last
 * digit keeps the running value below unit, so nothing overflows for any
 * unit < UINT64_MAX / 10, and since floor((a + floor(x)) / 10) equals
 * floor((a + x) / 10) for an integer a, the truncation is exact however
 * many digits there are.
 */
static uint64_t
frac_scale(const char *f, size_t n, uint64_t unit)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = ((uint64_t)(f[n] - '0') * unit + v) / 10;
	return v;
}

/* Sets *v to d times unit (see frac_scale); -1 when that exceeds max. */
static int
dec_scale(const struct dec *d, uint64_t unit, uint64_t max, uint64_t *v)
{
	uint64_t f;

	if (d->d_big || d->d_int > max / unit)
		return -1;
	f = frac_scale(d->d_frac, d->d_nfrac, unit);
	if (f > max || d->d_int * unit > max - f)
		return -1;
	*v = d->d_int * unit + f;
	return 0;
}

/* The int64 whose magnitude is v (v <= 2^63 when neg), without the
 * overflow of negating INT64_MIN's magnitude as a signed number. */
static int64_t
to_signed(int neg, uint64_t v)
{
	if (!neg)
		return (int64_t)v;
	if (v == 0)
		return 0;
	return -(int64_t)(v - 1) - 1;
}

static uint64_t
magnitude(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

static int
is_leap(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int
month_days(int64_t y, int m)
{
	static const int mdays[] = {
	    31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	return m == 2 && is_leap(y) ? 29 : mdays[m - 1];
}

/*
 * secs + frac_ns / 1e9 as ns, or -2 on overflow (a time out of range). A negative secs with a
 * fraction is first moved one second up, so that times just above
 * INT64_MIN (1677-09-21T00:12:43.145224192Z) are not refused because the
 * whole second below them is out of range.
 */
static int
secs_to_ns(int64_t secs, int64_t frac_ns, int64_t *ns)
{
	int64_t v;

	if (secs < 0 && frac_ns > 0) {
		secs++;
		frac_ns -= NS_PER_S;
	}
	if (__builtin_mul_overflow(secs, NS_PER_S, &v) ||
	    __builtin_add_overflow(v, frac_ns, &v))
		return -2;
	*ns = v;
	return 0;
}

int
tf_parse_name(const char *s, enum tfmt *f)
{
	int i;

	if (strchr(s, '%') != NULL) {
		*f = TF_STRPTIME;
		return 0;
	}
	/* "strptime" is a name for printing, not a format one can ask for. */
	for (i = TF_AUTO; i <= TF_ISO; i++) {
		if (strcmp(s, tf_names[i]) == 0) {
			*f = i;
			return 0;
		}
	}
	return -1;
}

const char *
tf_name(enum tfmt f)
{
	if ((unsigned)f >= sizeof(tf_names) / sizeof(tf_names[0]))
		return "?";
	return tf_names[f];
}

static const struct unit *
unit_find(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].u_len <= n &&
		    memcmp(p, units[i].u_name, units[i].u_len) == 0)
			return &units[i];
	}
	return NULL;
}

/* Calendar units of window sizes: a whole number of months. */
static const struct calunit {
	const char	*c_name;
	size_t		 c_len;
	int		 c_months;
} calunits[] = {
	{ .c_name = "mo", .c_len = 2, .c_months = 1 },
	{ .c_name = "q", .c_len = 1, .c_months = 3 },
	{ .c_name = "y", .c_len = 1, .c_months = 12 },
};

/* The most months a window may span: as many 31-day months as int64
 * nanoseconds hold, so that "too large" means what it does for "d". */
#define MAX_MONTHS	(INT64_MAX / (31 * S_PER_DAY * NS_PER_S))

static const struct calunit *
calunit_find(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(calunits) / sizeof(calunits[0]); i++) {
		if (calunits[i].c_len <= n &&
		    memcmp(p, calunits[i].c_name, calunits[i].c_len) == 0)
			return &calunits[i];
	}
	return NULL;
}

/*
 * Terms may come in any order and repeat ("30m1h" is 90m), as in Go's
 * time.ParseDuration. Each term is exact; only the sub-nanosecond part of
 * a fraction ("1.0000000005s") is dropped, truncating toward zero. A
 * calendar unit is a term alone: "1mo2d" has no meaning, since a month
 * has no length in days; "1d12h" and "1.5d" are fixed (36 hours).
 */
int
tf_parse_span(const char *s, int flags, struct cal_unit *out)
{
	const struct unit *u = NULL;
	const struct calunit *cu;
	struct dec d;
	uint64_t total = 0, v;
	size_t n, i = 0, k;
	int neg = 0, terms = 0;

	n = strlen(s);
	if (n > 0 && s[0] == '-') {
		if (!(flags & TF_NEG))
			return TF_EBAD;
		neg = 1;
		i = 1;
	}
	while (i < n) {
		if ((k = dec_scan(s + i, n - i, &d)) == 0)
			return TF_EBAD;
		i += k;
		/* "m" followed by "o" is "mo", months */
		if ((u = unit_find(s + i, n - i)) != NULL &&
		    !(u->u_len == 1 && u->u_name[0] == 'm' && i + 1 < n &&
		    s[i + 1] == 'o'))
			i += u->u_len;
		else if ((cu = calunit_find(s + i, n - i)) != NULL) {
			if (!(flags & TF_CAL))
				return TF_ECAL;
			if (terms != 0 || i + cu->c_len != n || neg ||
			    d.d_dot)
				return TF_EBAD;
			if (d.d_big ||
			    d.d_int > (uint64_t)(MAX_MONTHS / cu->c_months))
				return TF_EBIG;
			out->kind = CAL_MONTH;
			out->n = (int64_t)d.d_int * cu->c_months;
			return 0;
		} else if (i == n && terms == 0)
			u = &units[UNIT_S];	/* a bare number: seconds */
		else
			return TF_EBAD;
		if (dec_scale(&d, u->u_ns, INT64_MAX - total, &v) == -1)
			return TF_EBIG;
		total += v;
		terms++;
	}
	if (terms == 0)
		return TF_EBAD;
	/* "1d", "2w": whole days or weeks, counted on the wall clock */
	if ((flags & TF_CAL) && terms == 1 && !neg && !d.d_dot &&
	    u->u_name[1] == '\0' && (u->u_name[0] == 'd' ||
	    u->u_name[0] == 'w')) {
		out->kind = u->u_name[0] == 'd' ? CAL_DAY : CAL_WEEK;
		out->n = (int64_t)d.d_int;
		return 0;
	}
	out->kind = CAL_FIXED;
	out->n = neg ? -(int64_t)total : (int64_t)total;
	return 0;
}

int
tf_parse_duration(const char *s, int allow_neg, int64_t *ns)
{
	struct cal_unit u;

	if (tf_parse_span(s, allow_neg ? TF_NEG : 0, &u) != 0)
		return -1;
	*ns = u.n;
	return 0;
}

static char *
put_str(char *p, const char *s)
{
	while (*s != '\0')
		*p++ = *s++;
	return p;
}

/*
 * Units from units[top] down to m are written greedily ("1h30m"); what is
 * left below a minute is one term in the largest unit that holds it
 * exactly ("30s", "1500ms", "500us"): one number rather than "1s500ms".
 * Every result reads back through tf_parse_duration to the same value.
 */
static size_t
put_duration(char *buf, int64_t ns, int top)
{
	const struct unit *u;
	uint64_t v;
	char *p = buf;
	int i;

	if (ns == 0) {
		memcpy(buf, "0s", 3);
		return 2;
	}
	if (ns < 0)
		*p++ = '-';
	v = magnitude(ns);
	for (i = top; i > UNIT_S; i--) {
		u = &units[i];
		if (v >= u->u_ns) {
			p = num_put_uint(p, v / u->u_ns, 0);
			p = put_str(p, u->u_name);
			v %= u->u_ns;
		}
	}
	if (v != 0) {
		for (i = UNIT_S; i > 0 && v % units[i].u_ns != 0; i--)
			;
		p = num_put_uint(p, v / units[i].u_ns, 0);
		p = put_str(p, units[i].u_name);
	}
	*p = '\0';
	return p - buf;
}

size_t
tf_format_duration(char *buf, int64_t ns)
{
	return put_duration(buf, ns, sizeof(units) / sizeof(units[0]) - 1);
}

size_t
tf_format_lag(char *buf, int64_t ns)
{
	uint64_t v = magnitude(ns), frac = v % NS_PER_S;
	size_t n;

	if (v < NS_PER_S || frac % NS_PER_MS == 0)
		return tf_format_duration(buf, ns);
	n = tf_format_duration(buf, ns < 0 ? -(int64_t)(v - frac) :
	    (int64_t)(v - frac));		/* "...16s" */
	buf[n - 1] = '.';
	n += (size_t)(num_put_uint(buf + n, frac, 9) - (buf + n)) - 1;
	while (buf[n] == '0')	/* (never the fraction's first digit) */
		n--;
	buf[++n] = 's';
	buf[++n] = '\0';
	return n;
}

size_t
tf_format_rough(char *buf, int64_t ns)
{
	static const char *const unit[] = {
		"year", "day", "hour", "minute", "second"
	};
	static const int64_t len[] = {
		365 * 86400 * NS_PER_S, 86400 * NS_PER_S, 3600 * NS_PER_S,
		60 * NS_PER_S, NS_PER_S
	};
	int64_t n;
	size_t i;
	int w;

	for (i = 0; i < 4 && ns < len[i]; i++)
		;
	n = ns / len[i];
	w = snprintf(buf, TF_BUFSZ, "%lld %s%s", (long long)n, unit[i],
	    n == 1 ? "" : "s");
	return w > 0 ? (size_t)w : 0;
}

/* A fixed span is written in hours at most, so that 24 hours is "24h"
 * and never reads back as the calendar day "1d". */
size_t
tf_format_span(char *buf, const struct cal_unit *u)
{
	const char *name;
	char *p;
	int64_t n = u->n;

	switch (u->kind) {
	case CAL_DAY:
		name = "d";
		break;
	case CAL_WEEK:
		name = "w";
		break;
	case CAL_MONTH:
		if (n % 12 == 0) {
			n /= 12;
			name = "y";
		} else if (n % 3 == 0) {
			n /= 3;
			name = "q";
		} else
			name = "mo";
		break;
	default:
		return put_duration(buf, n, UNIT_H);
	}
	if (n < 0) {		/* not a span a parser gives, but printable */
		*buf = '-';
		p = num_put_uint(buf + 1, magnitude(n), 0);
	} else
		p = num_put_uint(buf, (uint64_t)n, 0);
	p = put_str(p, name);
	*p = '\0';
	return p - buf;
}

/* A number of unit-ns steps: [+-]digits, with [.digits] when frac_ok;
 * -2 when it is one past the int64 range. */
static int
parse_count(const char *p, size_t n, uint64_t unit, int frac_ok, int64_t *ns)
{
	struct dec d;
	uint64_t v, max = INT64_MAX;
	size_t i = 0, k;
	int neg = 0;

	/* the common case: up to 18 plain digits (they fit) */
	if (n > 0 && n <= 18 && num_digits(p, n, &v) == n) {
		if (__builtin_mul_overflow(v, unit, &v) || v > INT64_MAX)
			return -2;
		*ns = (int64_t)v;
		return 0;
	}
	if (n > 0 && (p[0] == '-' || p[0] == '+')) {
		neg = p[0] == '-';
		i = 1;
	}
	if ((k = dec_scan(p + i, n - i, &d)) == 0 || k != n - i)
		return -1;
	if (d.d_dot && !frac_ok)
		return -1;
	if (neg)
		max = (uint64_t)INT64_MAX + 1;
	if (dec_scale(&d, unit, max, &v) == -1)
		return -2;
	*ns = to_signed(neg, v);
	return 0;
}

/* Reads exactly k digits from *pp (before e) into *v and advances. */
static int
get_digits(const char **pp, const char *e, int k, int *v)
{
	const char *p = *pp;
	int x = 0;

	if (e - p < k)
		return -1;
	for (; k > 0; k--, p++) {
		if (!isdig(*p))
			return -1;
		x = x * 10 + (*p - '0');
	}
	*pp = p;
	*v = x;
	return 0;
}

static int
get_char(const char **pp, const char *e, char c)
{
	if (*pp == e || **pp != c)
		return -1;
	(*pp)++;
	return 0;
}

/*
 * RFC 3339, with what ISO 8601 and common logs add: 't' or ' ' for 'T',
 * 'z' for 'Z', offsets +HH:MM, +HHMM or +HH (and +HH:MM:SS, the local
 * mean times put_offset() writes), no zone for the zone z
 * (NULL: UTC), a date alone for its midnight there, any number of
 * fraction digits (beyond 9 truncated). Seconds are required when a time
 * of day is given. Second 60 (a leap second) is taken arithmetically:
 * 23:59:60 is the next midnight.
 */
static int
parse_iso(const char *p, size_t n, const struct cal_zone *z, int64_t *ns)
{
	const char *e = p + n, *f;
	int y, mo, d, h = 0, mi = 0, s = 0, oh, om = 0, zoned = 0;
	int64_t secs, off = 0, frac = 0;

	if (get_digits(&p, e, 4, &y) == -1 || get_char(&p, e, '-') == -1 ||
	    get_digits(&p, e, 2, &mo) == -1 || get_char(&p, e, '-') == -1 ||
	    get_digits(&p, e, 2, &d) == -1)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
		return -1;
	if (p < e) {
		if (*p != 'T' && *p != 't' && *p != ' ')
			return -1;
		p++;
		if (get_digits(&p, e, 2, &h) == -1 ||
		    get_char(&p, e, ':') == -1 ||
		    get_digits(&p, e, 2, &mi) == -1 ||
		    get_char(&p, e, ':') == -1 ||
		    get_digits(&p, e, 2, &s) == -1)
			return -1;
		if (h > 23 || mi > 59 || s > 60)
			return -1;
		if (p < e && *p == '.') {
			f = ++p;
			while (p < e && isdig(*p))
				p++;
			if (p == f)
				return -1;
			frac = frac_scale(f, p - f, NS_PER_S);
		}
		if (p < e && (*p == 'Z' || *p == 'z')) {
			p++;
			zoned = 1;
		} else if (p < e && (*p == '+' || *p == '-')) {
			int neg = *p++ == '-', colon = 0, os = 0;

			if (get_digits(&p, e, 2, &oh) == -1)
				return -1;
			if (p < e) {
				colon = *p == ':';
				p += colon;
				if (get_digits(&p, e, 2, &om) == -1)
					return -1;
			}
			/* seconds, as fwin writes a local mean time's */
			if (colon && p < e && (get_char(&p, e, ':') == -1 ||
			    get_digits(&p, e, 2, &os) == -1))
				return -1;
			if (oh > 23 || om > 59 || os > 59)
				return -1;
			off = (oh * 3600 + om * 60 + os) * (neg ? -1 : 1);
			zoned = 1;
		}
		if (p != e)
			return -1;
	}
	secs = cal_days_from_civil(y, mo, d) * S_PER_DAY + h * 3600 + mi * 60 + s;
	if (zoned)
		secs -= off;
	else
		secs = cal_local_to_utc(z, secs);
	return secs_to_ns(secs, frac, ns);
}

/* The first conversion of a strptime(3) format among those in convs
 * (its '%'), or NULL. "%%z" is a literal; glibc's flags, widths and E/O
 * modifiers are skipped. */
static const char *
strp_find(const char *fmt, const char *convs)
{
	const char *pc;

	while ((fmt = strchr(fmt, '%')) != NULL) {
		pc = fmt++;
		while (*fmt == '-' || *fmt == '_' || *fmt == '0' ||
		    *fmt == '^' || *fmt == '#')
			fmt++;
		while (isdig(*fmt))
			fmt++;
		if (*fmt == 'E' || *fmt == 'O')
			fmt++;
		if (*fmt == '\0')
			break;
		if (strchr(convs, *fmt) != NULL)
			return pc;
		fmt++;
	}
	return NULL;
}

/* Whether a strptime(3) format sets tm_gmtoff: %z does, and glibc's %s
 * fills the struct from localtime_r(3), gmtoff included. */
static int
strp_has_zone(const char *fmt)
{
	return strp_find(fmt, "zs") != NULL;
}

/* Longest text given to strptime(3): it needs a NUL-terminated copy. */
#define STRP_MAX	255

/*
 * The text must be used up exactly by the format. Fields the format does
 * not set default to 1900-01-01 00:00:00 UTC (tm_mday starts at 1, not
 * 0, so that a format without %d means the first of the month). The
 * calendar date is checked, since glibc accepts "31/02". Without %z
 * (or %s) the time is on the wall clock of z.
 */
static int
parse_strp(const char *p, size_t n, const char *fmt,
    const struct cal_zone *z, int64_t *ns)
{
	char buf[STRP_MAX + 1], head[STRP_MAX + 1];
	struct tm tm;
	const char *end, *name, *zn = NULL;
	size_t znlen = 0;
	int64_t y, secs;

	if (fmt == NULL || n == 0 || n > STRP_MAX || memchr(p, '\0', n) != NULL)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	memset(&tm, 0, sizeof(tm));
	tm.tm_mday = 1;
	if (!strp_has_zone(fmt) && (name = strp_find(fmt, "Z")) != NULL) {
		/* glibc's %Z skips the name it reads, which would leave
		 * "12:00 UTC" on the --tz wall clock: read the name here,
		 * between the parts of the format before and after it. */
		if ((size_t)(name - fmt) > STRP_MAX)
			return -1;
		memcpy(head, fmt, name - fmt);
		head[name - fmt] = '\0';
		if ((end = strptime(buf, head, &tm)) == NULL)
			return -1;
		while (*end == ' ' || *end == '\t')
			end++;
		zn = end;
		/* letters (EST), or a sign and digits (tzdata's "-03") */
		if (*end == '+' || *end == '-')
			for (end++; isdig(*end); end++)
				;
		else
			while ((*end >= 'A' && *end <= 'Z') ||
			    (*end >= 'a' && *end <= 'z'))
				end++;
		znlen = (size_t)(end - zn);
		if (znlen == 0 || (end = strptime(end, strchr(name, 'Z') + 1,
		    &tm)) == NULL)
			return -1;
	} else if ((end = strptime(buf, fmt, &tm)) == NULL)
		return -1;
	if (end != buf + n)
		return -1;
	y = (int64_t)tm.tm_year + 1900;
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > month_days(y, tm.tm_mon + 1) ||
	    tm.tm_hour < 0 || tm.tm_min < 0 || tm.tm_sec < 0)
		return -1;
	secs = cal_days_from_civil(y, tm.tm_mon + 1, tm.tm_mday) * S_PER_DAY +
	    tm.tm_hour * 3600LL + tm.tm_min * 60LL + tm.tm_sec;
	if (strp_has_zone(fmt))
		secs -= tm.tm_gmtoff;
	else if (zn != NULL) {
		if (cal_named_local_to_utc(z, secs, zn, znlen, &secs) != 0)
			return -3;	/* for the message */
	} else
		secs = cal_local_to_utc(z, secs);
	return secs_to_ns(secs, 0, ns);
}

int
tf_parse_time(const char *p, size_t n, enum tfmt f, const char *strp,
    int64_t *ns)
{
	return tf_parse_time_tz(p, n, f, strp, NULL, ns);
}

/* tf_parse_time_tz, but -2 for a time out of the int64 range. */
static int
parse_any(const char *p, size_t n, enum tfmt f, const char *strp,
    const struct cal_zone *z, int64_t *ns)
{
	switch (f) {
	case TF_S:
		return parse_count(p, n, NS_PER_S, 1, ns);
	case TF_MS:
		return parse_count(p, n, NS_PER_MS, 0, ns);
	case TF_US:
		return parse_count(p, n, NS_PER_US, 0, ns);
	case TF_NS:
		return parse_count(p, n, 1, 0, ns);
	case TF_ISO:
		return parse_iso(p, n, z, ns);
	case TF_STRPTIME:
		return parse_strp(p, n, strp, z, ns);
	default:
		return -1;
	}
}

int
tf_parse_time_tz(const char *p, size_t n, enum tfmt f, const char *strp,
    const struct cal_zone *z, int64_t *ns)
{
	return parse_any(p, n, f, strp, z, ns) == 0 ? 0 : -1;
}

/*
 * The format the text looks written in: ISO, or a number's unit by its
 * magnitude, judged on the integer part as written ("|v| < 1e11" holds
 * exactly when the integer part is < 1e11).
 */
static enum tfmt
candidate(const char *p, size_t n)
{
	struct dec d;
	enum tfmt f;
	size_t i = 0, k;

	if (n >= 5 && isdig(p[0]) && isdig(p[1]) && isdig(p[2]) &&
	    isdig(p[3]) && p[4] == '-')
		return TF_ISO;
	if (n > 0 && (p[0] == '-' || p[0] == '+'))
		i = 1;
	if ((k = dec_scan(p + i, n - i, &d)) == 0 || k != n - i)
		return TF_AUTO;
	if (d.d_big || d.d_int >= 100000000000000000ULL)
		f = TF_NS;
	else if (d.d_int >= 100000000000000ULL)
		f = TF_US;
	else if (d.d_int >= 100000000000ULL)
		f = TF_MS;
	else
		f = TF_S;
	/* ms, us and ns are integers: a fraction only makes sense in s. */
	if (d.d_dot && f != TF_S)
		return TF_AUTO;
	return f;
}

/* A format is returned only if the text parses in it, so a number past
 * the int64 range (in seconds, anything after 2262) is TF_AUTO, not a
 * format that then fails. */
enum tfmt
tf_detect(const char *p, size_t n)
{
	enum tfmt f = candidate(p, n);
	int64_t t;

	return f != TF_AUTO && tf_parse_time(p, n, f, NULL, &t) == 0 ? f :
	    TF_AUTO;
}

enum tf_bad
tf_why_bad(const char *p, size_t n, enum tfmt f, const char *strp,
    const struct cal_zone *z)
{
	int64_t t;
	int rc;

	if (f == TF_AUTO)
		f = candidate(p, n);
	rc = f != TF_AUTO ? parse_any(p, n, f, strp, z, &t) : -1;
	return rc == -2 ? TF_BAD_RANGE : rc == -3 ? TF_BAD_ZONE : TF_BAD_TIME;
}

/* t / unit as an exact decimal: the shortest fraction that is exact,
 * digits is the fraction width of one ns in that unit. */
static char *
put_scaled(char *p, int64_t t, uint64_t unit, int digits)
{
	uint64_t v, r;

	if (t < 0)
		*p++ = '-';
	v = magnitude(t);
	p = num_put_uint(p, v / unit, 0);
	if ((r = v % unit) != 0) {
		*p++ = '.';
		while (r % 10 == 0) {
			r /= 10;
			digits--;
		}
		p = num_put_uint(p, r, digits);
	}
	return p;
}

/* "+05:30", "-08:00"; seconds only when there are some: the local mean
 * times of the tz database before standard time (Amsterdam's +00:19:32
 * until 1937) have no exact +HH:MM. */
static char *
put_offset(char *p, int off)
{
	if (off < 0) {
		*p++ = '-';
		off = -off;
	} else
		*p++ = '+';
	p = num_put_uint(p, off / 3600, 2);
	*p++ = ':';
	p = num_put_uint(p, off / 60 % 60, 2);
	if (off % 60 != 0) {
		*p++ = ':';
		p = num_put_uint(p, off % 60, 2);
	}
	return p;
}

/* UTC with 'Z', or the wall clock of z with its offset; floor division so
 * that -0.5 s is 1969-12-31T23:59:59.5Z. */
static char *
put_iso(char *p, int64_t t, const struct cal_zone *z)
{
	int64_t s, r, days, sod, y;
	int m, d, w, off;

	s = t / NS_PER_S;
	r = t % NS_PER_S;
	if (r < 0) {
		r += NS_PER_S;
		s--;
	}
	off = cal_utc_offset(z, s);
	s += off;
	days = s / S_PER_DAY;
	sod = s % S_PER_DAY;
	if (sod < 0) {
		sod += S_PER_DAY;
		days--;
	}
	cal_civil_from_days(days, &y, &m, &d);
	if (y < 0)
		*p++ = '-';
	p = num_put_uint(p, magnitude(y), 4);
	*p++ = '-';
	p = num_put_uint(p, m, 2);
	*p++ = '-';
	p = num_put_uint(p, d, 2);
	*p++ = 'T';
	p = num_put_uint(p, sod / 3600, 2);
	*p++ = ':';
	p = num_put_uint(p, sod / 60 % 60, 2);
	*p++ = ':';
	p = num_put_uint(p, sod % 60, 2);
	if (r != 0) {
		if (r % NS_PER_MS == 0) {
			r /= NS_PER_MS;
			w = 3;
		} else if (r % NS_PER_US == 0) {
			r /= NS_PER_US;
			w = 6;
		} else
			w = 9;
		*p++ = '.';
		p = num_put_uint(p, r, w);
	}
	if (z == NULL || z->utc)
		*p++ = 'Z';
	else
		p = put_offset(p, off);
	return p;
}

/* tf_format_tz in UTC. */
size_t
tf_format(char *buf, int64_t t, enum tfmt f)
{
	return tf_format_tz(buf, t, f, NULL);
}

/* TF_AUTO and TF_STRPTIME are not output formats; they print as ISO, the
 * output the manual gives strptime input. */
size_t
tf_format_tz(char *buf, int64_t t, enum tfmt f, const struct cal_zone *z)
{
	char *p;

	switch (f) {
	case TF_S:
		p = put_scaled(buf, t, NS_PER_S, 9);
		break;
	case TF_MS:
		p = put_scaled(buf, t, NS_PER_MS, 6);
		break;
	case TF_US:
		p = put_scaled(buf, t, NS_PER_US, 3);
		break;
	case TF_NS:
		p = put_scaled(buf, t, 1, 0);
		break;
	default:
		p = put_iso(buf, t, z);
		break;
	}
	*p = '\0';
	return p - buf;
}
