/* Unit tests of calendar: zones, local times across DST changes, calendar
 * windows (days, weeks, months and their multiples, offsets, times before
 * 1970, the int64 limits) and cumulating windows, table-driven. Expected
 * bounds are written as ISO text with the offset the zone has there, so
 * each reads as a wall-clock fact ("the day of 2026-11-01 in Los Angeles
 * runs from 00:00-07:00 to 00:00-08:00"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/calendar.h"
#include "base/timefmt.h"
#include "unit.h"

#define NEL(a)	(sizeof(a) / sizeof((a)[0]))
#define S	INT64_C(1000000000)
#define H	(3600 * S)
#define DAY	(86400 * S)

static struct cal_zone zone;

/* Makes name the open zone (reopening only when it changes). */
static const struct cal_zone *
use(const char *name)
{
	const char *why;

	if (strcmp(zone.name, name) != 0) {
		if (cal_zone_open(&zone, name, &why) != 0) {
			fprintf(stderr, "cannot open %s: %s\n", name, why);
			exit(1);
		}
	}
	return &zone;
}

/* An ISO time with its offset written out: the zone does not matter. */
static int64_t
iso(const char *s)
{
	int64_t t;

	if (tf_parse_time(s, strlen(s), TF_ISO, NULL, &t) != 0) {
		fprintf(stderr, "bad test time %s\n", s);
		exit(1);
	}
	return t;
}

static int64_t
dur(const char *s)
{
	int64_t v;

	if (s == NULL)
		return 0;
	if (tf_parse_duration(s, 1, &v) != 0) {
		fprintf(stderr, "bad test duration %s\n", s);
		exit(1);
	}
	return v;
}

static const char *
show(int64_t t)
{
	static char buf[4][TF_BUFSZ];
	static int k;

	k = (k + 1) % 4;
	tf_format_tz(buf[k], t, TF_ISO, &zone);
	return buf[k];
}

#define FIXED(n)	{ CAL_FIXED, (n) }
#define D(n)		{ CAL_DAY, (n) }
#define W(n)		{ CAL_WEEK, (n) }
#define MO(n)		{ CAL_MONTH, (n) }

static const struct fcase {
	const char	*zone;
	struct cal_unit	 u;
	const char	*off;	/* --offset, NULL for none */
	const char	*t;
	const char	*lo, *hi;	/* NULL: does not fit (-2) */
} floors[] = {
	/* DST: 23- and 25-hour days, both hemispheres */
	{ "America/Los_Angeles", D(1), NULL, "2026-03-08T12:00:00-07:00",
	    "2026-03-08T00:00:00-08:00", "2026-03-09T00:00:00-07:00" },
	{ "America/Los_Angeles", D(1), NULL, "2026-03-08T01:59:59-08:00",
	    "2026-03-08T00:00:00-08:00", "2026-03-09T00:00:00-07:00" },
	{ "America/Los_Angeles", D(1), NULL, "2026-03-07T23:59:59.999999999-08:00",
	    "2026-03-07T00:00:00-08:00", "2026-03-08T00:00:00-08:00" },
	{ "America/Los_Angeles", D(1), NULL, "2026-11-01T01:30:00-08:00",
	    "2026-11-01T00:00:00-07:00", "2026-11-02T00:00:00-08:00" },
	{ "America/Los_Angeles", D(1), NULL, "2026-11-01T23:59:59-08:00",
	    "2026-11-01T00:00:00-07:00", "2026-11-02T00:00:00-08:00" },
	{ "Europe/Berlin", D(1), NULL, "2026-03-29T02:00:00+02:00",
	    "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00" },
	{ "Europe/Berlin", D(1), NULL, "2026-10-25T02:30:00+01:00",
	    "2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00" },
	{ "Australia/Sydney", D(1), NULL, "2026-04-05T02:30:00+10:00",
	    "2026-04-05T00:00:00+11:00", "2026-04-06T00:00:00+10:00" },
	{ "Australia/Sydney", D(1), NULL, "2026-10-04T03:00:00+11:00",
	    "2026-10-04T00:00:00+10:00", "2026-10-05T00:00:00+11:00" },
	/* bounds are exact: the first and last nanosecond */
	{ "Europe/Berlin", D(1), NULL, "2026-03-30T00:00:00+02:00",
	    "2026-03-30T00:00:00+02:00", "2026-03-31T00:00:00+02:00" },
	{ "Europe/Berlin", D(1), NULL, "2026-03-29T23:59:59.999999999+02:00",
	    "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00" },

	/* months of 31, 30, 29 and 28 days; leap years 2024, 2000, 1900 */
	{ "UTC", MO(1), NULL, "2026-01-31T23:59:59Z",
	    "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z" },
	{ "UTC", MO(1), NULL, "2026-04-15T00:00:00Z",
	    "2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z" },
	{ "UTC", MO(1), NULL, "2024-02-29T12:00:00Z",
	    "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z" },
	{ "UTC", MO(1), NULL, "2023-02-10T00:00:00Z",
	    "2023-02-01T00:00:00Z", "2023-03-01T00:00:00Z" },
	{ "UTC", MO(1), NULL, "2000-02-29T00:00:00Z",
	    "2000-02-01T00:00:00Z", "2000-03-01T00:00:00Z" },
	{ "UTC", MO(1), NULL, "1900-02-28T23:00:00Z",
	    "1900-02-01T00:00:00Z", "1900-03-01T00:00:00Z" },
	{ "UTC", MO(1), NULL, "1900-03-01T00:00:00Z",
	    "1900-03-01T00:00:00Z", "1900-04-01T00:00:00Z" },
	{ "UTC", D(1), NULL, "1900-02-28T23:00:00Z",
	    "1900-02-28T00:00:00Z", "1900-03-01T00:00:00Z" },
	{ "UTC", D(1), NULL, "2000-02-29T23:00:00Z",
	    "2000-02-29T00:00:00Z", "2000-03-01T00:00:00Z" },
	{ "Europe/Berlin", MO(1), NULL, "2026-03-31T23:59:59+02:00",
	    "2026-03-01T00:00:00+01:00", "2026-04-01T00:00:00+02:00" },
	{ "America/Los_Angeles", MO(1), NULL, "2026-02-01T00:00:00-08:00",
	    "2026-02-01T00:00:00-08:00", "2026-03-01T00:00:00-08:00" },
	/* quarters, years */
	{ "UTC", MO(3), NULL, "2026-05-15T00:00:00Z",
	    "2026-04-01T00:00:00Z", "2026-07-01T00:00:00Z" },
	{ "UTC", MO(3), NULL, "2026-12-31T23:59:59Z",
	    "2026-10-01T00:00:00Z", "2027-01-01T00:00:00Z" },
	{ "Europe/Berlin", MO(3), NULL, "2026-03-31T23:00:00+02:00",
	    "2026-01-01T00:00:00+01:00", "2026-04-01T00:00:00+02:00" },
	{ "UTC", MO(12), NULL, "2024-12-31T23:59:59.999Z",
	    "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z" },
	{ "Australia/Sydney", MO(12), NULL, "2026-06-01T00:00:00+10:00",
	    "2026-01-01T00:00:00+11:00", "2027-01-01T00:00:00+11:00" },
	{ "Australia/Sydney", MO(12), NULL, "2025-12-31T23:00:00+11:00",
	    "2025-01-01T00:00:00+11:00", "2026-01-01T00:00:00+11:00" },
	/* multiples count from 1970-01-01 (or 1970-01) in the zone */
	{ "UTC", D(2), NULL, "2026-03-08T05:00:00Z",
	    "2026-03-08T00:00:00Z", "2026-03-10T00:00:00Z" },
	{ "America/Los_Angeles", D(2), NULL, "2026-03-09T05:00:00-07:00",
	    "2026-03-08T00:00:00-08:00", "2026-03-10T00:00:00-07:00" },
	{ "UTC", MO(5), NULL, "2026-05-15T00:00:00Z",
	    "2026-04-01T00:00:00Z", "2026-09-01T00:00:00Z" },
	{ "UTC", MO(24), NULL, "2025-06-15T00:00:00Z",
	    "2024-01-01T00:00:00Z", "2026-01-01T00:00:00Z" },
	/* Monday weeks, after and before 1970 */
	{ "UTC", W(1), NULL, "2026-03-08T23:00:00Z",
	    "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z" },
	{ "UTC", W(1), NULL, "2026-03-09T00:00:00Z",
	    "2026-03-09T00:00:00Z", "2026-03-16T00:00:00Z" },
	{ "UTC", W(1), NULL, "1970-01-01T00:00:00Z",
	    "1969-12-29T00:00:00Z", "1970-01-05T00:00:00Z" },
	{ "UTC", W(1), NULL, "1969-12-31T00:00:00Z",
	    "1969-12-29T00:00:00Z", "1970-01-05T00:00:00Z" },
	{ "UTC", W(1), NULL, "1960-01-01T12:00:00Z",
	    "1959-12-28T00:00:00Z", "1960-01-04T00:00:00Z" },
	{ "UTC", W(2), NULL, "2026-03-08T00:00:00Z",
	    "2026-02-23T00:00:00Z", "2026-03-09T00:00:00Z" },
	{ "UTC", W(2), NULL, "1970-01-05T00:00:00Z",
	    "1969-12-29T00:00:00Z", "1970-01-12T00:00:00Z" },
	{ "UTC", W(2), NULL, "1969-12-28T23:59:59Z",
	    "1969-12-15T00:00:00Z", "1969-12-29T00:00:00Z" },
	{ "Europe/Berlin", W(1), NULL, "2026-03-29T12:00:00+02:00",
	    "2026-03-23T00:00:00+01:00", "2026-03-30T00:00:00+02:00" },
	/* times before 1970: floor, not truncation */
	{ "UTC", D(1), NULL, "1969-12-31T23:59:59.999999999Z",
	    "1969-12-31T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "UTC", D(2), NULL, "1969-12-31T00:00:00Z",
	    "1969-12-30T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "UTC", D(3), NULL, "1960-02-29T00:00:00Z",
	    "1960-02-29T00:00:00Z", "1960-03-03T00:00:00Z" },
	{ "UTC", MO(1), NULL, "1969-12-31T23:59:59.999999999Z",
	    "1969-12-01T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "UTC", MO(3), NULL, "1969-11-15T00:00:00Z",
	    "1969-10-01T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "UTC", MO(7), NULL, "1969-11-15T00:00:00Z",
	    "1969-06-01T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "UTC", MO(12), NULL, "1969-06-01T00:00:00Z",
	    "1969-01-01T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "UTC", MO(24), NULL, "1969-06-01T00:00:00Z",
	    "1968-01-01T00:00:00Z", "1970-01-01T00:00:00Z" },
	{ "Europe/Berlin", D(1), NULL, "1969-12-31T23:30:00+01:00",
	    "1969-12-31T00:00:00+01:00", "1970-01-01T00:00:00+01:00" },
	{ "Europe/Berlin", MO(1), NULL, "1910-07-04T00:00:00+01:00",
	    "1910-07-01T00:00:00+01:00", "1910-08-01T00:00:00+01:00" },
	/* Samoa skipped 2011-12-30: the 29th ends where the 31st starts */
	{ "Pacific/Apia", D(1), NULL, "2011-12-29T23:00:00-10:00",
	    "2011-12-29T00:00:00-10:00", "2011-12-31T00:00:00+14:00" },
	{ "Pacific/Apia", D(1), NULL, "2011-12-31T00:00:00+14:00",
	    "2011-12-31T00:00:00+14:00", "2012-01-01T00:00:00+14:00" },
	{ "Pacific/Apia", D(2), NULL, "2011-12-31T00:00:00+14:00",
	    "2011-12-30T10:00:00Z", "2012-01-01T00:00:00+14:00" },
	/* local mean time before standard time: an offset with seconds */
	{ "America/Los_Angeles", D(1), NULL, "1880-06-01T12:00:00Z",
	    "1880-06-01T07:52:58Z", "1880-06-02T07:52:58Z" },
	/* --offset shifts days and weeks on the wall clock */
	{ "UTC", D(1), "-8h", "2026-03-08T17:00:00Z",
	    "2026-03-08T16:00:00Z", "2026-03-09T16:00:00Z" },
	{ "UTC", D(1), "-8h", "2026-03-08T15:59:59Z",
	    "2026-03-07T16:00:00Z", "2026-03-08T16:00:00Z" },
	{ "UTC", W(1), "6h", "2026-03-09T05:00:00Z",
	    "2026-03-02T06:00:00Z", "2026-03-09T06:00:00Z" },
	{ "UTC", W(1), "-1d", "2026-03-08T05:00:00Z",
	    "2026-03-08T00:00:00Z", "2026-03-15T00:00:00Z" },
	{ "Europe/Berlin", D(1), "6h", "2026-03-29T05:00:00+02:00",
	    "2026-03-28T06:00:00+01:00", "2026-03-29T06:00:00+02:00" },
	{ "Europe/Berlin", D(1), "6h", "2026-03-29T06:00:00+02:00",
	    "2026-03-29T06:00:00+02:00", "2026-03-30T06:00:00+02:00" },
	/* a bound in a skipped hour takes the earlier offset: 02:30 is
	 * 03:30 of the new one */
	{ "Europe/Berlin", D(1), "2h30m", "2026-03-29T03:00:00+02:00",
	    "2026-03-28T02:30:00+01:00", "2026-03-29T03:30:00+02:00" },
	/* a bound in a repeated hour is its first occurrence: the second
	 * 01:15 is after the first 01:30 */
	{ "America/Los_Angeles", D(1), "1h30m", "2026-11-01T01:15:00-08:00",
	    "2026-11-01T01:30:00-07:00", "2026-11-02T01:30:00-08:00" },
	{ "America/Los_Angeles", D(1), "1h30m", "2026-11-01T01:15:00-07:00",
	    "2026-10-31T01:30:00-07:00", "2026-11-01T01:30:00-07:00" },
	/* fixed windows go by the epoch, not the zone */
	{ "Europe/Berlin", FIXED(H), NULL, "2026-03-29T03:59:00+02:00",
	    "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00" },
	{ "UTC", FIXED(90 * 60 * S), "-30m", "1969-12-31T23:00:00Z",
	    "1969-12-31T22:00:00Z", "1969-12-31T23:30:00Z" },

	/* the int64 limits: windows that do not fit */
	{ "UTC", D(1), NULL, "2262-04-11T23:47:16.854775807Z", NULL, NULL },
	{ "UTC", D(1), NULL, "2262-04-10T12:00:00Z",
	    "2262-04-10T00:00:00Z", "2262-04-11T00:00:00Z" },
	{ "UTC", D(1), NULL, "1677-09-21T00:12:43.145224192Z", NULL, NULL },
	{ "UTC", D(1), NULL, "1677-09-22T00:00:00Z",
	    "1677-09-22T00:00:00Z", "1677-09-23T00:00:00Z" },
	{ "UTC", MO(1), NULL, "2262-04-01T00:00:00Z", NULL, NULL },
	{ "UTC", MO(1), NULL, "2262-03-31T00:00:00Z",
	    "2262-03-01T00:00:00Z", "2262-04-01T00:00:00Z" },
	{ "UTC", MO(12), NULL, "1677-12-31T00:00:00Z", NULL, NULL },
	{ "Australia/Sydney", D(1), NULL, "2262-04-11T23:47:16.854775807Z",
	    NULL, NULL },
	{ "Australia/Sydney", D(1), NULL, "1677-09-21T00:12:43.145224192Z",
	    NULL, NULL },
	{ "UTC", D(106751), NULL, "1970-01-01T00:00:00Z",
	    "1970-01-01T00:00:00Z", "2262-04-11T00:00:00Z" },
	{ "UTC", D(106752), NULL, "1970-01-01T00:00:00Z", NULL, NULL },
	{ "UTC", W(INT64_MAX / 2), NULL, "1970-01-01T00:00:00Z", NULL, NULL },
	{ "UTC", D(INT64_MAX), NULL, "1970-01-01T00:00:00Z", NULL, NULL },
	{ "UTC", MO(INT64_MAX), NULL, "1970-01-01T00:00:00Z", NULL, NULL },
	{ "UTC", FIXED(INT64_MAX), NULL, "1970-01-01T00:00:00Z", NULL, NULL },
	{ "UTC", FIXED(INT64_MAX), NULL, "1969-12-31T00:00:00Z",
	    "1677-09-21T00:12:43.145224193Z", "1970-01-01T00:00:00Z" },
};

static void
test_floor(void)
{
	const struct fcase *f;
	struct cal_cache c;
	int64_t t, lo, hi;
	size_t i;
	int rc;

	for (i = 0; i < NEL(floors); i++) {
		f = &floors[i];
		use(f->zone);
		t = iso(f->t);
		memset(&c, 0, sizeof(c));
		rc = cal_floor(&zone, f->u, dur(f->off), t, &c);
		if (f->lo == NULL) {
			CHECK(rc == -2);
			if (rc != -2)
				fprintf(stderr, "  case %zu: %s: rc %d\n", i,
				    f->t, rc);
			continue;
		}
		lo = iso(f->lo);
		hi = iso(f->hi);
		CHECK(rc == 0 && c.lo == lo && c.hi == hi);
		if (rc != 0 || c.lo != lo || c.hi != hi)
			fprintf(stderr, "  case %zu: %s %s: rc %d [%s, %s)\n",
			    i, f->zone, f->t, rc, show(c.lo), show(c.hi));
		CHECK(cal_cached(&c, t));
		/* the window's end is the start of the next one, and the
		 * window before ends where it starts */
		CHECK(cal_add(&zone, f->u, dur(f->off), c.i, 1, &t) == 0 &&
		    t == hi);
		if (cal_add(&zone, f->u, dur(f->off), c.i, -1, &t) == 0) {
			struct cal_cache p;

			/* (unless that window is a day a zone skipped) */
			if (t < lo &&
			    cal_floor(&zone, f->u, dur(f->off), t, &p) == 0)
				CHECK(p.lo == t && p.hi == lo);
		}
	}
}

/* In UTC, calendar days are the fixed days they were (offset and all),
 * and the hour of a time never moves its day. */
static void
test_utc_days(void)
{
	static const char *const offs[] = { NULL, "-8h", "5h30m", "-1ns",
	    "23h59m59s" };
	struct cal_unit day, fixed;
	struct cal_cache a, b;
	int64_t t, off;
	size_t i, n;
	int k;

	use("UTC");
	for (i = 0; i < NEL(offs); i++) {
		off = dur(offs[i]);
		for (n = 1; n <= 3; n++) {
			day.kind = CAL_DAY;
			day.n = n;
			fixed.kind = CAL_FIXED;
			fixed.n = n * DAY;
			for (k = -50; k < 50; k++) {
				t = (int64_t)k * 7919 * 60 * S + k;
				CHECK(cal_floor(&zone, day, off, t, &a) == 0);
				CHECK(cal_floor(&zone, fixed, off, t, &b) == 0);
				CHECK(a.lo == b.lo && a.hi == b.hi);
			}
		}
	}
}

static void
test_add(void)
{
	struct cal_unit mo = { CAL_MONTH, 1 }, q = { CAL_MONTH, 3 },
	    w = { CAL_WEEK, 1 }, bad = { CAL_DAY, 0 };
	struct cal_cache c;
	int64_t t;

	use("Europe/Berlin");
	CHECK(cal_floor(&zone, mo, 0, iso("2026-03-15T00:00:00Z"), &c) == 0);
	CHECK(c.i == 56 * 12 + 2);
	CHECK(cal_add(&zone, mo, 0, c.i, -13, &t) == 0 &&
	    t == iso("2025-02-01T00:00:00+01:00"));
	CHECK(cal_add(&zone, mo, 0, c.i, 7, &t) == 0 &&
	    t == iso("2026-10-01T00:00:00+02:00"));
	CHECK(cal_add(&zone, q, 0, c.i, 1, &t) == 0 &&
	    t == iso("2026-06-01T00:00:00+02:00"));
	CHECK(cal_add(&zone, mo, 0, c.i, INT64_MAX, &t) == -2);
	CHECK(cal_add(&zone, mo, 0, c.i, INT64_MIN, &t) == -2);
	/* day numbers: 2026-03-02 is day 20514, a Monday */
	CHECK(cal_add(&zone, w, 0, 20514, 4, &t) == 0 &&
	    t == iso("2026-03-30T00:00:00+02:00"));
	CHECK(cal_floor(&zone, w, 0, iso("2026-03-08T00:00:00Z"), &c) == 0 &&
	    c.i == 20514);
	CHECK(cal_add(&zone, bad, 0, 0, 1, &t) == -1);
	CHECK(cal_floor(&zone, bad, 0, 0, &c) == -1);
}

/* The skipped and the repeated hour take the offset before the change. */
static void
test_local(void)
{
	static const struct {
		const char *zone, *local, *utc;
	} t[] = {
		{ "America/Los_Angeles", "2026-03-08T01:59:59Z",
		    "2026-03-08T09:59:59Z" },
		{ "America/Los_Angeles", "2026-03-08T02:00:00Z",
		    "2026-03-08T10:00:00Z" },
		{ "America/Los_Angeles", "2026-03-08T02:30:00Z",
		    "2026-03-08T10:30:00Z" },
		{ "America/Los_Angeles", "2026-03-08T03:00:00Z",
		    "2026-03-08T10:00:00Z" },
		{ "America/Los_Angeles", "2026-11-01T00:59:59Z",
		    "2026-11-01T07:59:59Z" },
		{ "America/Los_Angeles", "2026-11-01T01:30:00Z",
		    "2026-11-01T08:30:00Z" },
		{ "America/Los_Angeles", "2026-11-01T02:00:00Z",
		    "2026-11-01T10:00:00Z" },
		{ "Europe/Berlin", "2026-03-29T02:30:00Z",
		    "2026-03-29T01:30:00Z" },
		{ "Europe/Berlin", "2026-10-25T02:30:00Z",
		    "2026-10-25T00:30:00Z" },
		{ "Europe/Berlin", "2026-10-25T03:00:00Z",
		    "2026-10-25T02:00:00Z" },
		{ "Europe/Berlin", "2026-07-01T12:00:00Z",
		    "2026-07-01T10:00:00Z" },
		{ "Australia/Sydney", "2026-04-05T02:30:00Z",
		    "2026-04-04T15:30:00Z" },
		{ "Australia/Sydney", "2026-10-04T02:30:00Z",
		    "2026-10-03T16:30:00Z" },
		{ "Australia/Sydney", "1969-07-01T00:00:00Z",
		    "1969-06-30T14:00:00Z" },
		{ "UTC", "2026-03-08T02:30:00Z", "2026-03-08T02:30:00Z" },
	};
	static const struct {
		const char *zone, *after, *after_utc, *local, *utc;
	} rep[] = {
		{ "America/Los_Angeles", "2026-11-01T02:00:00Z",
		    "2026-11-01T10:00:00Z", "2026-11-01T01:30:00Z",
		    "2026-11-01T08:30:00Z" },
		{ "Europe/Berlin", "2026-10-25T03:00:00Z",
		    "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z",
		    "2026-10-25T00:30:00Z" },
		{ "Australia/Sydney", "2026-04-05T03:00:00Z",
		    "2026-04-04T17:00:00Z", "2026-04-05T02:30:00Z",
		    "2026-04-04T15:30:00Z" },
	};
	size_t i;
	int k;
	int64_t got;

	for (i = 0; i < NEL(t); i++) {
		use(t[i].zone);
		/* twice: the second answer comes from the cache */
		for (k = 0; k < 2; k++) {
			got = cal_local_to_utc(&zone, iso(t[i].local) / S) * S;
			CHECK(got == iso(t[i].utc));
			if (got != iso(t[i].utc))
				fprintf(stderr, "  %s %s: got %s\n", t[i].zone,
				    t[i].local, show(got));
		}
	}
	/* a repeated hour asked right after the hour that follows it: the
	 * cache filled then must not answer with the later offset */
	for (i = 0; i < NEL(rep); i++) {
		use(rep[i].zone);
		CHECK(cal_local_to_utc(&zone, iso(rep[i].after) / S) * S ==
		    iso(rep[i].after_utc));
		got = cal_local_to_utc(&zone, iso(rep[i].local) / S) * S;
		CHECK(got == iso(rep[i].utc));
		if (got != iso(rep[i].utc))
			fprintf(stderr, "  %s %s after %s: got %s\n",
			    rep[i].zone, rep[i].local, rep[i].after, show(got));
	}
	/* every local second of a year maps back to itself, or, in a
	 * skipped hour, an hour on */
	use("Europe/Berlin");
	for (got = iso("2026-01-01T00:00:00Z") / S;
	    got < iso("2027-01-01T00:00:00Z") / S; got += 599) {
		int64_t u = cal_local_to_utc(&zone, got);
		int64_t back = u + cal_utc_offset(&zone, u);

		CHECK(back == got || back == got + 3600);
	}
}

/* The offsets read from the zone file are libc's, in the table's years
 * and past them (where libc applies the file's rule), and cached answers
 * are the same as fresh ones. */
static void
test_offsets(void)
{
	static const char *const zones[] = {
		"Europe/Berlin", "America/Los_Angeles", "Australia/Sydney",
		"Asia/Kolkata", "America/St_Johns", "Pacific/Apia",
		"Pacific/Chatham", "Africa/Casablanca", "Europe/Dublin",
		"Asia/Tehran", "America/Santiago", "Antarctica/Troll",
	};
	struct tm tm;
	time_t tt;
	int64_t s;
	size_t i;
	int bad;

	for (i = 0; i < NEL(zones); i++) {
		use(zones[i]);
		bad = 0;
		/* 1677 to 2262, every 6007 minutes: every hour of the day */
		for (s = INT64_C(-9223372036); s < INT64_C(9223372036);
		    s += 6007 * 60) {
			tt = (time_t)s;
			localtime_r(&tt, &tm);
			if (cal_utc_offset(&zone, s) != tm.tm_gmtoff)
				bad++;
		}
		CHECK(bad == 0);
		if (bad != 0)
			fprintf(stderr, "  %s: %d offsets differ\n", zones[i],
			    bad);
	}
}

/* Checks that zone z (TZ=tz) gives libc's offset at every step seconds
 * of [from, to). */
static void
check_offsets(const struct cal_zone *z, const char *tz, int64_t from,
    int64_t to, int64_t step)
{
	struct tm tm;
	time_t tt;
	int64_t s;
	int bad = 0;

	for (s = from; s < to; s += step) {
		tt = (time_t)s;
		localtime_r(&tt, &tm);
		if (cal_utc_offset(z, s) != tm.tm_gmtoff)
			bad++;
	}
	CHECK(bad == 0);
	if (bad != 0)
		fprintf(stderr, "  TZ=%s: %d offsets differ\n", tz, bad);
}

/* POSIX rules in TZ, with times of change: the changes of 2026 where
 * Python's zoneinfo has them, and libc's offsets from 1677 to 2262. */
static void
test_rules(void)
{
	static const struct {
		const char	*tz;
		int64_t		 at;	/* a change of 2026 */
		int		 before, after;
	} t[] = {
		{ "CET-1CEST,M3.5.0,M10.5.0/3", 1774746000, 3600, 7200 },
		{ "CET-1CEST,M3.5.0,M10.5.0/3", 1792890000, 7200, 3600 },
		{ "EST5EDT,M3.2.0/2,M11.1.0", 1772953200, -18000, -14400 },
		{ "EST5EDT,M3.2.0/2,M11.1.0", 1793512800, -14400, -18000 },
		{ "PST8PDT,M3.2.0/2,M11.1.0/2", 1772964000, -28800, -25200 },
		{ "PST8PDT,M3.2.0/2,M11.1.0/2", 1793523600, -25200, -28800 },
		{ "NZST-12NZDT,M9.5.0,M4.1.0/3", 1775311200, 46800, 43200 },
		{ "NZST-12NZDT,M9.5.0,M4.1.0/3", 1790431200, 43200, 46800 },
		{ "IST-2IDT,M3.4.4/26,M10.5.0", 1774569600, 7200, 10800 },
		{ "IST-2IDT,M3.4.4/26,M10.5.0", 1792882800, 10800, 7200 },
		{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1774746000, -7200, -3600 },
		{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1792890000, -3600, -7200 },
	};
	struct cal_zone z;
	const char *why;
	size_t i;

	for (i = 0; i < NEL(t); i++) {
		setenv("TZ", t[i].tz, 1);
		CHECK(cal_zone_open(&z, "local", &why) == 0);
		CHECK(cal_utc_offset(&z, t[i].at - 1) == t[i].before);
		CHECK(cal_utc_offset(&z, t[i].at) == t[i].after);
		if (i % 2 == 1)
			continue;
		check_offsets(&z, t[i].tz, INT64_C(-9223372036),
		    INT64_C(9223372036), 6007 * 60);
	}
	zone.name[0] = '\0';	/* use() reopens */
}

/* Rules whose summer is shorter than a day, both its changes in one UTC
 * day or either side of midnight: every minute of the days around it has
 * libc's offset, asked in order (through the cached spans) and the
 * summer's middle asked first. */
static void
test_short_summer(void)
{
	static const struct {
		const char	*tz;
		const char	*start, *end;	/* the summer, in UTC */
		int		 std, dst;
	} t[] = {
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T02:00:00Z",
		    "2026-04-10T19:00:00Z", 0, 3600 },
		{ "ABC5DEF4,J100/8,J100/12", "2026-04-10T13:00:00Z",
		    "2026-04-10T16:00:00Z", -18000, -14400 },
		{ "XST0XDT1,J100/2,J100/20", "2026-04-10T02:00:00Z",
		    "2026-04-10T21:00:00Z", 0, -3600 },
		{ "XST0XDT-1,J100/22,J101/6", "2026-04-10T22:00:00Z",
		    "2026-04-11T05:00:00Z", 0, 3600 },
	};
	static const struct {
		const char *tz, *local, *utc;
	} loc[] = {
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T01:59:59Z",
		    "2026-04-10T01:59:59Z" },
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T02:30:00Z",
		    "2026-04-10T02:30:00Z" },
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T03:00:00Z",
		    "2026-04-10T02:00:00Z" },
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T12:00:00Z",
		    "2026-04-10T11:00:00Z" },
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T19:30:00Z",
		    "2026-04-10T18:30:00Z" },
		{ "XST0XDT-1,J100/2,J100/20", "2026-04-10T20:00:00Z",
		    "2026-04-10T20:00:00Z" },
		{ "XST0XDT1,J100/2,J100/20", "2026-04-10T01:30:00Z",
		    "2026-04-10T01:30:00Z" },
		{ "XST0XDT1,J100/2,J100/20", "2026-04-10T12:00:00Z",
		    "2026-04-10T13:00:00Z" },
		{ "XST0XDT1,J100/2,J100/20", "2026-04-10T20:30:00Z",
		    "2026-04-10T21:30:00Z" },
		{ "XST0XDT1,J100/2,J100/20", "2026-04-10T21:00:00Z",
		    "2026-04-10T21:00:00Z" },
	};
	struct cal_zone z;
	const char *why;
	int64_t a, b, s;
	size_t i;
	int bad;

	for (i = 0; i < NEL(t); i++) {
		a = iso(t[i].start) / S;
		b = iso(t[i].end) / S;
		setenv("TZ", t[i].tz, 1);
		CHECK(cal_zone_open(&z, "local", &why) == 0);
		CHECK(cal_utc_offset(&z, a + (b - a) / 2) == t[i].dst);
		CHECK(cal_utc_offset(&z, a - 1) == t[i].std);
		CHECK(cal_utc_offset(&z, a) == t[i].dst);
		CHECK(cal_utc_offset(&z, b - 1) == t[i].dst);
		CHECK(cal_utc_offset(&z, b) == t[i].std);
		check_offsets(&z, t[i].tz, a - 2 * 86400, b + 2 * 86400, 60);
	}
	/* local times: the skipped and the repeated hour take the offset
	 * before the change, as in test_local */
	for (i = 0; i < NEL(loc); i++) {
		setenv("TZ", loc[i].tz, 1);
		CHECK(cal_zone_open(&zone, "local", &why) == 0);
		for (bad = 0; bad < 2; bad++) {	/* (then from the cache) */
			s = cal_local_to_utc(&zone, iso(loc[i].local) / S) * S;
			CHECK(s == iso(loc[i].utc));
			if (s != iso(loc[i].utc))
				fprintf(stderr, "  TZ=%s %s: got %s\n",
				    loc[i].tz, loc[i].local, show(s));
		}
	}
	zone.name[0] = '\0';	/* use() reopens */
}

static void
test_zones(void)
{
	static const char *const bad[] = {
		"Nowhere/Special", "../../../etc/passwd", "/etc/localtime",
		"Europe/../Europe/Berlin", "", "America", "Europe/Berlin/",
		"zone.tab", "europe/berlin", "local/", "Europe/Berlin ",
	};
	/* POSIX rules in TZ (RFC 8536's times of change too), and values
	 * that are neither a rule nor a zone file */
	static const char *const rules[] = {
		"ABC5", "ABC5DEF", "CET-1CEST,M3.5.0,M10.5.0/3",
		"EST5EDT,M3.2.0/2,M11.1.0", "PST8PDT,M3.2.0/2,M11.1.0/2",
		"NZST-12NZDT,M9.5.0,M4.1.0/3", "IST-2IDT,M3.4.4/26,M10.5.0",
		"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "<+0330>-3:30",
		"<+0545>-5:45", "AAA-5:30BBB-6:45,J60/1:30:15,300/-0:00:01",
		"XXX3YYY,M3.5.0/-167,M10.5.0/+167", "AAA+24BBB-24,0,365",
		":CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT4,M3.2.0,M11.1.0",
	};
	static const char *const norules[] = {
		"ABC", "AB5", "<AB>5", "<EST5", "EST+", "EST25", "EST5:6",
		"EST5:60", "EST5:00:60", "EST005", "EST5EDT,M3.2.0",
		"EST5EDT,", "EST5EDT,M3.2.0,", "EST5EDT,M0.2.0,M11.1.0",
		"EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
		"EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J100", "EST5EDT,J366,1",
		"EST5EDT,366,1", "EST5EDT,M3.2.0/168,M11.1.0",
		"EST5EDT,M3.2.0/-168,M11.1.0", "EST5EDT,M3.2.0/,M11.1.0",
		"EST5EDT,M3.2.0/2:0,M11.1.0", "EST5EDT,M3.2.0,M11.1.0/2x",
		"EST5EDT,M3.2.0,M11.1.0,J1", "EST5 ", "5EST", ":Mars",
		"Europe/Nowhere,M3.2.0/2", "America/New_York/2",
	};
	struct cal_zone z;
	const char *why;
	size_t i;
	int ok;

	for (i = 0; i < NEL(bad); i++) {
		why = NULL;
		CHECK(cal_zone_open(&z, bad[i], &why) == -1 && why != NULL);
	}
	CHECK(cal_zone_open(&z, "UTC", &why) == 0 && z.utc &&
	    strcmp(z.name, "UTC") == 0);
	CHECK(cal_zone_open(&z, "Etc/UTC", &why) == 0 && z.utc);
	CHECK(cal_zone_open(&z, "Asia/Kolkata", &why) == 0 && !z.utc);
	CHECK(cal_utc_offset(&z, 0) == 19800);
	CHECK(cal_utc_offset(NULL, 0) == 0);

	/* local: TZ, with or without ':', else the system zone */
	setenv("TZ", "Australia/Sydney", 1);
	CHECK(cal_zone_open(&z, "local", &why) == 0 &&
	    strcmp(z.name, "Australia/Sydney") == 0);
	CHECK(cal_utc_offset(&z, iso("2026-01-01T00:00:00Z") / S) == 39600);
	setenv("TZ", ":America/Los_Angeles", 1);
	CHECK(cal_zone_open(&z, "local", &why) == 0 &&
	    strcmp(z.name, "America/Los_Angeles") == 0);
	CHECK(cal_utc_offset(&z, iso("2026-01-01T00:00:00Z") / S) == -28800);
	setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
	CHECK(cal_zone_open(&z, "local", &why) == 0);
	CHECK(cal_utc_offset(&z, iso("2026-01-01T00:00:00Z") / S) == -18000);
	CHECK(cal_utc_offset(&z, iso("2026-07-01T00:00:00Z") / S) == -14400);
	setenv("TZ", "Nowhere/Special", 1);
	CHECK(cal_zone_open(&z, "local", &why) == -1);
	setenv("TZ", "garbage", 1);
	CHECK(cal_zone_open(&z, "local", &why) == -1);
	for (i = 0; i < NEL(rules); i++) {
		setenv("TZ", rules[i], 1);
		ok = cal_zone_open(&z, "local", &why) == 0 &&
		    strcmp(z.name, rules[i] + (rules[i][0] == ':')) == 0;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  TZ=%s refused\n", rules[i]);
	}
	for (i = 0; i < NEL(norules); i++) {
		setenv("TZ", norules[i], 1);
		ok = cal_zone_open(&z, "local", &why) == -1;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  TZ=%s taken\n", norules[i]);
	}
	/* TZ unset, or empty: /etc/localtime (or UTC where there is none) */
	unsetenv("TZ");
	CHECK(cal_zone_open(&z, "local", &why) == 0);
	setenv("TZ", "", 1);
	CHECK(cal_zone_open(&z, "local", &why) == 0);
	zone.name[0] = '\0';	/* use() reopens */
}

static void
test_cache(void)
{
	struct cal_unit d = { CAL_DAY, 1 };
	struct cal_cache c;
	int64_t t;

	memset(&c, 0, sizeof(c));
	CHECK(!cal_cached(&c, 0) && !cal_cached(&c, -1));
	use("America/Los_Angeles");
	t = iso("2026-11-01T12:00:00-08:00");
	CHECK(cal_floor(&zone, d, 0, t, &c) == 0);
	CHECK(cal_cached(&c, t));
	CHECK(cal_cached(&c, c.lo) && !cal_cached(&c, c.lo - 1));
	CHECK(cal_cached(&c, c.hi - 1) && !cal_cached(&c, c.hi));
	CHECK(c.hi - c.lo == 25 * H);
	CHECK(cal_cached(&c, iso("2026-11-01T01:30:00-07:00")));
	CHECK(cal_cached(&c, iso("2026-11-01T01:30:00-08:00")));
}

/* Cumulating windows of one window: their count and ends. */
static void
test_cumulate(void)
{
	static const struct {
		const char *zone;
		struct cal_unit size, step;
		const char *t;
		int count;
		const char *second;	/* the 2nd window's end */
	} t[] = {
		{ "America/Los_Angeles", D(1), FIXED(H),
		    "2026-11-01T12:00:00-08:00", 25,
		    "2026-11-01T01:00:00-08:00" },
		{ "America/Los_Angeles", D(1), FIXED(H),
		    "2026-03-08T12:00:00-07:00", 23,
		    "2026-03-08T03:00:00-07:00" },
		{ "America/Los_Angeles", D(1), FIXED(7 * H),
		    "2026-11-01T12:00:00-08:00", 4,
		    "2026-11-01T13:00:00-08:00" },
		{ "Europe/Berlin", MO(12), MO(3), "2026-05-05T00:00:00+02:00",
		    4, "2026-07-01T00:00:00+02:00" },
		{ "Europe/Berlin", W(1), D(1), "2026-03-29T12:00:00+02:00", 7,
		    "2026-03-25T00:00:00+01:00" },
		{ "UTC", MO(1), W(1), "2024-02-10T00:00:00Z", 5,
		    "2024-02-15T00:00:00Z" },
		{ "UTC", MO(1), D(1), "2024-02-10T00:00:00Z", 29,
		    "2024-02-03T00:00:00Z" },
		{ "UTC", MO(3), MO(1), "1969-11-10T00:00:00Z", 3,
		    "1969-12-01T00:00:00Z" },
	};
	struct cal_cache w, c;
	int64_t end, prev;
	size_t i;
	int k, rc;

	for (i = 0; i < NEL(t); i++) {
		use(t[i].zone);
		CHECK(cal_floor(&zone, t[i].size, 0, iso(t[i].t), &w) == 0);
		prev = w.lo;
		for (k = 1; (rc = cal_cumulate_end(&zone, t[i].step, 0, &w, k,
		    &end)) == 0; k++) {
			CHECK(end > prev && end <= w.hi);
			if (k == 2)
				CHECK(end == iso(t[i].second));
			/* the times whose first window this is */
			CHECK(cal_cumulate(&zone, t[i].step, 0, &w, prev,
			    &c) == 0 && c.i == k && c.lo == prev &&
			    c.hi == end);
			CHECK(cal_cumulate(&zone, t[i].step, 0, &w, end - 1,
			    &c) == 0 && c.i == k);
			prev = end;
		}
		CHECK(rc == 1 && prev == w.hi && k - 1 == t[i].count);
		if (rc != 1 || k - 1 != t[i].count)
			fprintf(stderr, "  case %zu: rc %d, %d windows\n", i,
			    rc, k - 1);
	}
	/* one in the repeated hour: 01:30 PST is past 01:30 PDT */
	use("America/Los_Angeles");
	{
		struct cal_unit d = D(1), h = FIXED(H);

		CHECK(cal_floor(&zone, d, 0, iso("2026-11-01T01:30:00-08:00"),
		    &w) == 0);
		CHECK(cal_cumulate(&zone, h, 0, &w,
		    iso("2026-11-01T01:30:00-08:00"), &c) == 0);
		CHECK(c.i == 3 && c.lo == iso("2026-11-01T01:00:00-08:00") &&
		    c.hi == iso("2026-11-01T02:00:00-08:00"));
		CHECK(cal_cumulate(&zone, h, 0, &w, w.hi, &c) == -1);
		CHECK(cal_cumulate_end(&zone, h, 0, &w, 0, &end) == -1);
		CHECK(cal_cumulate_end(&zone, h, 0, &w, INT64_MAX, &end) == 1);
	}
}

#ifdef CAL_BENCH
#include <time.h>

/* Not a test: ns per cal_floor call, the caller's cache hit and missed. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
bench(const char *name, struct cal_unit u)
{
	struct cal_cache c;
	int64_t t0 = iso("2026-01-01T00:00:00Z"), t, sink = 0;
	double a;
	int i, k, n = 2000000, misses = 0;

	use(name);
	memset(&c, 0, sizeof(c));
	a = now();
	for (i = 0; i < n; i++) {
		t = t0 + (int64_t)i * 997 * 1000000;	/* ~1 s apart */
		if (!cal_cached(&c, t)) {
			cal_floor(&zone, u, 0, t, &c);
			misses++;
		}
		sink += c.lo;
	}
	printf("%s %s: in-order records, cache: %.1f ns/record (%d misses)\n",
	    name, u.kind == CAL_MONTH ? "1mo" : "1d", (now() - a) / n, misses);
	a = now();
	for (i = 0; i < n; i++) {
		t = t0 + (int64_t)i * 997 * 1000000;
		cal_floor(&zone, u, 0, t, &c);
		sink += c.lo;
	}
	printf("%s %s: cal_floor every record: %.1f ns/call\n", name,
	    u.kind == CAL_MONTH ? "1mo" : "1d", (now() - a) / n);
	/* random days, 1990-2025 (the zone file's table) and 2040-2075
	 * (past it: libc) */
	for (k = 0; k < 2; k++) {
		t0 = iso(k == 0 ? "1990-01-01T00:00:00Z" :
		    "2040-01-01T00:00:00Z");
		a = now();
		for (i = 0; i < n / 20; i++) {
			t = t0 + (int64_t)(i * 7919 % 100000) * 3 * 3600 * S;
			cal_floor(&zone, u, 0, t, &c);
			sink += c.lo;
		}
		printf("%s %s: cal_floor, random days from %s: %.1f ns/call\n",
		    name, u.kind == CAL_MONTH ? "1mo" : "1d",
		    k == 0 ? "1990" : "2040", (now() - a) / (n / 20));
	}
	if (sink == 42)
		printf("\n");
}
#endif

int
main(void)
{
	test_zones();
	test_offsets();
	test_rules();
	test_short_summer();
	test_floor();
	test_utc_days();
	test_add();
	test_local();
	test_cache();
	test_cumulate();
#ifdef CAL_BENCH
	bench("UTC", (struct cal_unit){ CAL_DAY, 1 });
	bench("Europe/Berlin", (struct cal_unit){ CAL_DAY, 1 });
	bench("Europe/Berlin", (struct cal_unit){ CAL_MONTH, 1 });
#endif
	return unit_done("calendar");
}
