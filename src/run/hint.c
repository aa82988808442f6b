/* hint: first-hour hints about times; see hint.h. Two mistakes cost a
 * new user most: a date written as digits (20240101) that auto reads as
 * seconds since 1970 without a word, and a log whose times no format
 * given reads, which makes every record bad. Both are judged on the
 * first records only, so nothing here runs past the start of a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/hint.h"
#include "base/timefmt.h"
#include "base/util.h"

/* The formats of common logs, tried on times that fail, in this order
 * (the first that reads every failing time is named). */
static const char *const common[] = {
	"%d/%b/%Y:%H:%M:%S %z",		/* Apache, nginx */
	"%d/%b/%Y:%H:%M:%S",		/* the same split on blanks */
	"%b %d %H:%M:%S",		/* syslog */
	"%Y-%m-%d %H:%M:%S",
	"%Y/%m/%d %H:%M:%S",
	"%m/%d/%Y %H:%M",
	"%m/%d/%Y %H:%M:%S",
	"%d.%m.%Y %H:%M:%S",
	"%a, %d %b %Y %H:%M:%S %z",	/* RFC 2822 */
	"%d %b %Y %H:%M:%S %z",		/* RFC 2822 without the weekday */
};
#define NCOMMON (sizeof(common) / sizeof(common[0]))
#define AUTO_BIT (1u << NCOMMON)	/* auto reads it (another was given) */
/* The longest time quoted in the message. */
#define QUOTE_MAX 60

struct hint {
	const struct config *c;
	int fmt;		/* the format the times are read in */
	int watch_date;		/* auto has not found the format yet */
	int watch_fail;		/* no record's time has parsed yet */
	unsigned nfail;		/* records whose times failed */
	unsigned readers;	/* bits of the formats that read them all */
	int bracket_open, bracket_close;	/* the first time has [, ] */
	char first[QUOTE_MAX + 4];	/* the first failing time, quotable */
	const char *file;	/* where it was read */
	uint64_t line;
};

struct hint *
hint_new(const struct config *c, int timefmt)
{
	struct hint *h;

	if (!c->has_time)
		return NULL;
	h = xcalloc(1, sizeof(*h));
	h->c = c;
	h->fmt = timefmt;
	h->watch_date = timefmt == TF_AUTO;
	h->watch_fail = 1;
	h->readers = ((1u << NCOMMON) - 1) | (timefmt != TF_AUTO ? AUTO_BIT : 0);
	return h;
}

void
hint_free(struct hint *h)
{
	free(h);
}

/* Whether p[0..n) is all digits. */
static int
digits(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return n > 0;
}

static long
number(const char *p, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

/* YYYYMMDD, 19000101 to 21001231, a day that exists. */
static int
is_date(const char *p)
{
	static const int mdays[] = {
		31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	long y = number(p, 4), m = number(p + 4, 2), d = number(p + 6, 2);

	if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 ||
	    d > mdays[m - 1])
		return 0;
	return m != 2 || d < 29 || (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
}

/* Auto found the format at pr: digits that look like a date or a year,
 * read as seconds, are said. */
static void
check_date(const struct parsed *pr)
{
	char when[TF_BUFSZ];
	const char *what, *give;
	long v;

	if (pr->fmt != TF_S || !digits(pr->tval, pr->tvaln))
		return;
	if (pr->tvaln == 8 && is_date(pr->tval)) {
		what = "a date";
		give = "%Y%m%d";
	} else if (pr->tvaln == 4 && (v = number(pr->tval, 4)) >= 1900 &&
	    v <= 2100) {
		what = "a year";
		give = "%Y";
	} else
		return;
	tf_format(when, number(pr->tval, pr->tvaln) * NS_PER_S, TF_ISO);
	fwin_warn("%s:%llu: time %.*s read as seconds since 1970 (%s); for %s, "
	    "give --time-format %s", pr->file, (unsigned long long)pr->line,
	    (int)pr->tvaln, pr->tval, when, what, give);
}

/* The formats of common[] (and auto) that read the time p[0..n); with
 * open and close, common[i] is tried inside "[" and "]". */
static unsigned
readers_of(const struct hint *h, const char *p, size_t n, int open, int close)
{
	char f[64];
	unsigned bits = 0;
	size_t i;
	int64_t t;

	for (i = 0; i < NCOMMON; i++) {
		snprintf(f, sizeof(f), "%s%s%s", open ? "[" : "", common[i],
		    close ? "]" : "");
		if (tf_parse_time_tz(p, n, TF_STRPTIME, f, &h->c->zone, &t) == 0)
			bits |= 1u << i;
	}
	if (tf_detect(p, n) != TF_AUTO)
		bits |= AUTO_BIT;
	return bits;
}

/* A record whose time does not parse. */
static void
failed(struct hint *h, const struct parsed *pr)
{
	const char *p = pr->tval;
	size_t n = pr->tvaln;
	int open = n > 0 && p[0] == '[', close = n > 0 && p[n - 1] == ']';

	if (h->nfail++ == 0) {
		(void)shown_value(h->first, QUOTE_MAX, p, n);
		h->file = pr->file;
		h->line = pr->line;
		h->bracket_open = open;
		h->bracket_close = close;
	}
	if (open != h->bracket_open || close != h->bracket_close)
		h->readers = 0;	/* no one format reads them all */
	else
		h->readers &= readers_of(h, p, n, open, close);
}

/* The failing times' hint, when a format reads them all. */
static void
say_fail(struct hint *h)
{
	int strp = h->fmt == TF_STRPTIME;
	const char *q = strp ? "'" : "";
	const char *as = strp ? h->c->strp : tf_name((enum tfmt)h->fmt);
	char give[80];
	size_t i;

	h->watch_fail = 0;
	if (h->nfail == 0 || h->readers == 0)
		return;
	if (h->readers & AUTO_BIT)	/* the default reads them */
		snprintf(give, sizeof(give), "auto");
	else {
		for (i = 0; !(h->readers & (1u << i)); i++)
			;
		snprintf(give, sizeof(give), "'%s%s%s'",
		    h->bracket_open ? "[" : "", common[i],
		    h->bracket_close ? "]" : "");
	}
	/* auto fixed the format in the first run of the checkpoint this one
	 * restores, and keeps it: only a run of its own chooses again */
	if (h->c->time_fmt == TF_AUTO && h->fmt != TF_AUTO)
		fwin_warn("%s:%llu: time '%s' does not parse as %s, the format "
		    "--time-format auto fixed when %s's run began; a run that "
		    "does not restore %s reads it with --time-format %s",
		    h->file, (unsigned long long)h->line, h->first, as,
		    h->c->restore, h->c->restore, give);
	else
		fwin_warn("%s:%llu: time '%s' does not parse as %s%s%s; "
		    "--time-format %s reads it", h->file,
		    (unsigned long long)h->line, h->first, q, as, q, give);
}

int
hint_record(struct hint *h, const struct parsed *pr)
{
	if (h->watch_date && pr->fmt != TF_AUTO) {
		h->watch_date = 0;
		check_date(pr);
	}
	if (h->watch_fail && pr->kind != PR_OTHER) {
		if (pr->kind != PR_BAD || !pr->bad_time)
			h->watch_fail = 0;	/* a time parsed, or may have */
		else {
			failed(h, pr);
			if (h->nfail == HINT_RECORDS)
				say_fail(h);
		}
	}
	return h->watch_date || h->watch_fail;
}

void
hint_end(struct hint *h)
{
	if (h != NULL && h->watch_fail)
		say_fail(h);
}
