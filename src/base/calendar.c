/*
 * calendar: civil dates, the time zone of --tz, and calendar windows.
 *
 * The zone rules are glibc's (the tz database through TZ, tzset(3) and
 * localtime_r(3)): a UTC second gives the zone's offset there. The other
 * way, a local time to UTC, has no libc call that is defined in a gap or
 * an overlap (mktime(3) guesses from tm_isdst), so it is done here from
 * offsets: the offsets a day before and a day after bracket any change
 * near the time, and each candidate is checked.
 *
 * localtime_r(3) costs close to a microsecond (it takes a lock and fills
 * a whole struct tm), far too slow for every record. So the zone's file
 * is read here too (RFC 8536, TZif): up to its last transition (2037 in
 * Debian's "fat" files) an offset is a binary search in its table. Past
 * it the file's footer rule applies (and a POSIX rule in TZ always), and
 * that is left to libc, one UTC day at a time, cut at the times of day at
 * which the rule changes: a piece whose two ends have one offset is taken
 * to have it throughout, else it is split where the offset changes
 * (bisection). A rule changes only at those times of day, so a summer
 * shorter than a day is found too; a rule without dates (TZ's "EST5EDT",
 * which takes posixrules' changes) is assumed to change at most once a
 * UTC day. Either way the last answer is cached per thread as a
 * span of UTC seconds with one offset, and the inverse as the span of
 * local seconds that map one to one onto it. The caches are
 * thread-local, since the reader and the workers look up times at once;
 * the zone and its table are set once, before they start.
 *
 * Window bounds are computed in 128 bits and judged against the int64
 * range, never wrapped.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/calendar.h"

#define NS	1000000000LL
#define DAY_S	86400LL
#define DAY_NS	(DAY_S * NS)
/* Monday 1969-12-29, the origin of weeks, as a day number. */
#define WEEK_ORIGIN	(-3)
/* Civil indexes beyond these are far outside the int64 range of times
 * (about 106752 days, 3508 months either side of 1970). */
#define MAX_DAYS	(INT64_C(1) << 20)
#define MAX_MONTHS	(INT64_C(1) << 16)

/* Open ends of spans: far beyond any second of an int64 ns time, and
 * still far from overflow when an offset is added. */
#define FAR	(INT64_C(1) << 60)
/* The largest zone file read; the biggest in the tz database is 4 KiB. */
#define TZIF_MAX	(256 * 1024)

/* Bumped by every cal_zone_open(): a cache of another generation is
 * stale. The thread-local caches start at generation 0, never valid. */
static unsigned zone_gen;

/* The open zone's transitions: from at[i] on, the offset is off[i];
 * before at[0] it is off0. Valid for seconds below end; from end on
 * (the footer's rule) libc answers. */
static struct {
	int64_t	*at;
	int	*off;
	size_t	 n;
	int	 off0;
	int64_t	 end;
} tab = { .end = -FAR };

/* UTC seconds [lo, hi) all have offset off. */
struct span {
	int64_t		lo, hi;
	int		off;
	unsigned	gen;
};

/* The UTC seconds of the day (0 .. DAY_S-1) at which the rule that
 * libc answers from (TZ's, or past the table the zone file's footer)
 * changes the offset, whatever the date; n 0 when unknown. */
struct cuts {
	int	n;
	int64_t	at[2];
};
static struct cuts cuts;

/* The abbreviations the open zone uses, each with its offset: the last
 * one its table gives it, or its rule's (standard or daylight), which
 * is what a time written with it means in any season (strptime's %Z). */
#define MAX_ABBRS	64
static struct abbr {
	char	name[16];
	int	off;
} abbrs[MAX_ABBRS];
static int nabbrs;

static __thread struct span utc_span;	/* UTC second -> offset */
static __thread struct span loc_span;	/* local second -> offset, 1:1 */

/* Names of zones whose offset is always 0: they take the fast path. */
static const char *const utc_names[] = {
	"UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal",
	"Zulu", "Etc/Zulu", "UTC0",
};

static __int128
floor_div(__int128 a, __int128 b)
{
	__int128 q = a / b;

	if (a % b != 0 && (a < 0) != (b < 0))
		q--;
	return q;
}

static int
fits(__int128 v)
{
	return v >= INT64_MIN && v <= INT64_MAX;
}

/* Hinnant's days_from_civil, on 400-year eras so that negative years need
 * no special case. */
int64_t
cal_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void
cal_civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static uint64_t
be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

static void
tab_free(void)
{
	cuts.n = 0;
	nabbrs = 0;
	free(tab.at);
	free(tab.off);
	tab.at = NULL;
	tab.off = NULL;
	tab.n = 0;
	tab.end = -FAR;
}

static int posix_rule(const char *tz, int load);

/* Gives the n bytes at p the offset off in abbrs (the last one given
 * wins). */
static void
abbr_set(const char *p, size_t n, int off)
{
	int i;

	if (n == 0 || n >= sizeof(abbrs[0].name))
		return;
	for (i = 0; i < nabbrs; i++)
		if (strlen(abbrs[i].name) == n &&
		    memcmp(abbrs[i].name, p, n) == 0)
			break;
	if (i == nabbrs) {
		if (nabbrs == MAX_ABBRS)
			return;
		memcpy(abbrs[i].name, p, n);
		abbrs[i].name[n] = '\0';
		nabbrs++;
	}
	abbrs[i].off = off;
}

/* The offset of abbreviation p (n bytes) in abbrs into *off; -1 when the
 * zone has no such name. */
static int
abbr_offset(const char *p, size_t n, int *off)
{
	int i;

	for (i = 0; i < nabbrs; i++)
		if (strlen(abbrs[i].name) == n &&
		    memcmp(abbrs[i].name, p, n) == 0) {
			*off = abbrs[i].off;
			return 0;
		}
	return -1;
}

/* Sets cuts and the rule's abbreviations from a TZif footer, "\nrule\n"
 * in the n bytes at p (cuts left unknown when it is not a rule read
 * here). */
static void
foot_rule(const char *p, size_t n)
{
	char rule[256];
	const char *e;

	if (n < 2 || *p != '\n' || (e = memchr(p + 1, '\n', n - 1)) == NULL ||
	    (size_t)(e - p - 1) >= sizeof(rule))
		return;
	memcpy(rule, p + 1, e - p - 1);
	rule[e - p - 1] = '\0';
	if (!posix_rule(rule, 1))
		cuts.n = 0;
}

/*
 * Reads the transitions of the TZif data b[0..n) into tab; leaves tab
 * empty (all to libc) for anything it does not take: leap seconds (the
 * "right/" zones), a version 1 file, a malformed one.
 */
static void
tab_load(const unsigned char *b, size_t n)
{
	uint64_t cnt[6], need, i, type;
	const unsigned char *p, *times, *idx, *types, *foot, *chars, *e;
	uint64_t abbr;
	int64_t t, prev = INT64_MIN;

	tab_free();
	if (n < 44 || memcmp(b, "TZif", 4) != 0 || b[4] < '2')
		return;
	/* skip the version 1 block: 4-byte times */
	for (i = 0; i < 6; i++)
		cnt[i] = be(b + 20 + 4 * i, 4);
	need = 44 + cnt[3] * 5 + cnt[4] * 6 + cnt[5] + cnt[2] * 8 + cnt[1] +
	    cnt[0];
	if (need + 44 > n)
		return;
	p = b + need;
	if (memcmp(p, "TZif", 4) != 0)
		return;
	for (i = 0; i < 6; i++)
		cnt[i] = be(p + 20 + 4 * i, 4);
	/* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
	if (cnt[2] != 0 || cnt[4] == 0 || cnt[3] > 100000 || cnt[4] > 256 ||
	    cnt[5] > 100000 || cnt[0] > 256 || cnt[1] > 256)
		return;
	times = p + 44;
	idx = times + cnt[3] * 8;
	types = idx + cnt[3];
	foot = types + cnt[4] * 6 + cnt[5] + cnt[1] + cnt[0];
	if ((size_t)(foot - b) > n)
		return;
	if (cnt[3] > 0 && ((tab.at = malloc(cnt[3] * sizeof(*tab.at))) ==
	    NULL || (tab.off = malloc(cnt[3] * sizeof(*tab.off))) == NULL)) {
		tab_free();
		return;
	}
	for (i = 0; i < cnt[3]; i++) {
		t = (int64_t)be(times + 8 * i, 8);
		if ((type = idx[i]) >= cnt[4] || t <= prev) {
			tab_free();
			return;
		}
		tab.at[i] = prev = t;
		tab.off[i] = (int32_t)be(types + 6 * type, 4);
	}
	tab.n = cnt[3];
	tab.off0 = (int32_t)be(types, 4);
	/* the abbreviations, in the order of the transitions to them */
	chars = types + cnt[4] * 6;
	for (i = 0; i <= cnt[3]; i++) {
		type = i == 0 ? 0 : idx[i - 1];
		if ((abbr = types[6 * type + 5]) < cnt[5] &&
		    (e = memchr(chars + abbr, '\0', cnt[5] - abbr)) != NULL)
			abbr_set((const char *)chars + abbr,
			    e - (chars + abbr),
			    (int32_t)be(types + 6 * type, 4));
	}
	/* The footer ("\nCET-1CEST,M3.5.0,M10.5.0/3\n") rules past the last
	 * transition. Without a ',' (or empty) it has no DST: the last
	 * offset stays. */
	if (memchr(foot, ',', n - (foot - b)) == NULL)
		tab.end = FAR;
	else
		tab.end = tab.n > 0 ? tab.at[tab.n - 1] : -FAR;
	foot_rule((const char *)foot, n - (foot - b));
}

/* Loads the table of the zone file at path (an unreadable one: none). */
static void
tab_read(const char *path)
{
	unsigned char *b;
	ssize_t n;
	size_t len = 0;
	int fd;

	tab_free();
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if ((b = malloc(TZIF_MAX)) != NULL) {
		while (len < TZIF_MAX &&
		    (n = read(fd, b + len, TZIF_MAX - len)) > 0)
			len += n;
		if (len < TZIF_MAX)
			tab_load(b, len);
		free(b);
	}
	close(fd);
}

/* Whether path is a TZif file (RFC 8536), the format of the tz database. */
static int
is_tzif(const char *path)
{
	char magic[4];
	int fd, ok;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	ok = read(fd, magic, 4) == 4 && memcmp(magic, "TZif", 4) == 0;
	close(fd);
	return ok;
}

static int
set_name(struct cal_zone *z, const char *name)
{
	size_t i;

	if (strlen(name) >= sizeof(z->name))
		return -1;
	strcpy(z->name, name);
	z->utc = 0;
	for (i = 0; i < sizeof(utc_names) / sizeof(utc_names[0]); i++)
		if (strcmp(name, utc_names[i]) == 0)
			z->utc = 1;
	return 0;
}

/* Whether name is a zone file under the tz directory. A name is relative
 * to it: no leading '/', no "..", so it cannot name another file. */
static int
zone_file(const char *name, char path[PATH_MAX])
{
	const char *dir = getenv("TZDIR");

	if (dir == NULL || *dir == '\0')
		dir = "/usr/share/zoneinfo";
	if (*name == '\0' || *name == '/' || strstr(name, "..") != NULL)
		return 0;
	if ((size_t)snprintf(path, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		return 0;
	return is_tzif(path);
}

static int
digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The number of min to max decimal digits at *p, read, if it lies in
 * [lo, hi]; else -1. */
static int
rule_num(const char **p, int min, int max, int lo, int hi)
{
	const char *s = *p;
	int v = 0;

	while (digit(*s) && s - *p < max)
		v = v * 10 + (*s++ - '0');
	if (s - *p < min || digit(*s) || v < lo || v > hi)
		return -1;
	*p = s;
	return v;
}

/* A zone's abbreviation: three or more letters, or three or more
 * letters, digits, '+' and '-' between '<' and '>' ("<-03>"). */
static int
rule_name(const char **p)
{
	const char *s = *p;

	if (*s != '<') {
		while (letter(*s))
			s++;
		if (s - *p < 3)
			return -1;
		*p = s;
		return 0;
	}
	for (s++; letter(*s) || digit(*s) || *s == '+' || *s == '-'; s++)
		;
	if (*s != '>' || s - *p < 4)
		return -1;
	*p = s + 1;
	return 0;
}

/* [+-]hh[:mm[:ss]] with hh up to top: an offset (24), or the time of day
 * of a change (167, as RFC 8536 extends POSIX's 24 and its sign), as
 * seconds in *secs. */
static int
rule_clock(const char **p, int top, int *secs)
{
	int i, v, sign = 1;

	if (**p == '+' || **p == '-')
		sign = *(*p)++ == '-' ? -1 : 1;
	if ((v = rule_num(p, 1, top > 99 ? 3 : 2, 0, top)) == -1)
		return -1;
	*secs = v * 3600;
	for (i = 0; i < 2 && **p == ':'; i++) {
		(*p)++;
		if ((v = rule_num(p, 2, 2, 0, 59)) == -1)
			return -1;
		*secs += i == 0 ? v * 60 : v;
	}
	*secs *= sign;
	return 0;
}

/* ",date[/time]": Jn (1..365, no February 29), n (0..365) or Mm.w.d (the
 * d-th weekday of week w, 5 the last, of month m); the time of day, 2:00
 * when none is given, in *secs. */
static int
rule_change(const char **p, int *secs)
{
	if (*(*p)++ != ',')
		return -1;
	if (**p == 'J') {
		(*p)++;
		if (rule_num(p, 1, 3, 1, 365) == -1)
			return -1;
	} else if (**p == 'M') {
		(*p)++;
		if (rule_num(p, 1, 2, 1, 12) == -1 || *(*p)++ != '.' ||
		    rule_num(p, 1, 1, 1, 5) == -1 || *(*p)++ != '.' ||
		    rule_num(p, 1, 1, 0, 6) == -1)
			return -1;
	} else if (rule_num(p, 1, 3, 0, 365) == -1)
		return -1;
	*secs = 7200;
	if (**p == '/') {
		(*p)++;
		return rule_clock(p, 167, secs);
	}
	return 0;
}

/*
 * Whether tz is a POSIX rule (POSIX.1-2017 TZ, with RFC 8536's times of
 * change), the whole of it: std offset[dst[offset][,start[/time],end
 * [/time]]], such as "CET-1CEST,M3.5.0,M10.5.0/3" or "<-03>3". Without
 * start and end, glibc takes the changes of its posixrules file, else of
 * the US rule of 2007. With load, the rule is the open zone's: its names
 * go to abbrs with their offsets, and with start and end, cuts gets the
 * UTC times of day at which they fall, whatever the date (a start's time
 * is on the standard clock, an end's on the daylight one).
 */
static int
posix_rule(const char *tz, int load)
{
	const char *p = tz, *name[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	int off[2], at[2], dates = 0, i;

	for (i = 0; i < 2 && *p != '\0'; i++) {	/* std, then dst */
		name[i] = p;
		if (rule_name(&p) == -1)
			return 0;
		len[i] = (size_t)(p - name[i]);
		if (*name[i] == '<') {
			name[i]++;
			len[i] -= 2;
		}
		off[i] = i == 1 ? off[0] - 3600 : 0;	/* (west of UTC) */
		if ((i == 0 || (*p != ',' && *p != '\0')) &&
		    rule_clock(&p, 24, &off[i]) == -1)
			return 0;
	}
	if (name[1] != NULL && *p != '\0') {
		for (i = 0; i < 2; i++)		/* start, end */
			if (rule_change(&p, &at[i]) == -1)
				return 0;
		dates = 1;
	}
	if (*p != '\0')
		return 0;
	if (!load)
		return 1;
	for (i = 0; i < 2 && name[i] != NULL; i++)
		abbr_set(name[i], len[i], -off[i]);
	if (dates) {
		cuts.n = 2;
		for (i = 0; i < 2; i++)
			cuts.at[i] = at[i] + off[i] -
			    (int64_t)floor_div(at[i] + off[i], DAY_S) * DAY_S;
	}
	return 1;
}

/* "local": TZ as glibc reads it, checked as glibc does not (a leading
 * ':' dropped, a zone file if there is one, else a POSIX rule); else
 * /etc/localtime, named after the zone file it links to. *why names
 * what was read: "local" is not what is wrong. */
static int
open_local(struct cal_zone *z, const char **why)
{
	static char unknown[256];
	const char *tz = getenv("TZ"), *p;
	char link[PATH_MAX], path[PATH_MAX];
	ssize_t n;

	if (tz != NULL && *tz != '\0') {
		p = *tz == ':' ? tz + 1 : tz;
		if (*p == '/' && is_tzif(p))
			tab_read(p);
		else if (*p != '/' && zone_file(p, path))
			tab_read(path);
		else if (!posix_rule(p, 1)) {
			snprintf(unknown, sizeof(unknown), "the TZ environment "
			    "variable names no known time zone '%.128s' (an "
			    "IANA name such as Europe/Berlin, or a POSIX rule)",
			    tz);
			*why = unknown;
			return -1;
		}
		if (set_name(z, p) == -1) {
			*why = "the TZ environment variable is too long";
			return -1;
		}
		tzset();
		return 0;
	}
	/* An empty TZ is UTC to glibc; here it means no TZ. */
	unsetenv("TZ");
	tzset();
	if (access("/etc/localtime", F_OK) == -1)
		return set_name(z, "UTC");	/* glibc's default too */
	if (!is_tzif("/etc/localtime")) {
		*why = "/etc/localtime is not a time zone file";
		return -1;
	}
	tab_read("/etc/localtime");
	n = readlink("/etc/localtime", link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		p = strstr(link, "zoneinfo/");
		if (p != NULL && set_name(z, p + 9) == 0)
			return 0;
	}
	return set_name(z, "local");
}

int
cal_zone_open(struct cal_zone *z, const char *name, const char **why)
{
	char tz[sizeof(z->name) + 1], path[PATH_MAX];

	zone_gen++;
	tab_free();
	if (strcmp(name, "local") == 0)
		return open_local(z, why);
	if (strcmp(name, "UTC") == 0) {
		setenv("TZ", "UTC0", 1);
		tzset();
		return set_name(z, "UTC");
	}
	if (!zone_file(name, path)) {
		*why = "unknown time zone";
		return -1;
	}
	tab_read(path);
	if (set_name(z, name) == -1) {
		*why = "time zone name too long";
		return -1;
	}
	/* The ':' makes glibc read the file, never parse a rule. */
	tz[0] = ':';
	strcpy(tz + 1, name);
	setenv("TZ", tz, 1);
	tzset();
	return 0;
}

/* The offset at UTC second s, from libc. */
static int
libc_offset(int64_t s)
{
	time_t t = (time_t)s;
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return 0;
	return (int)tm.tm_gmtoff;
}

static int64_t
floor_s(int64_t a, int64_t b)
{
	return (int64_t)floor_div(a, b);
}

/*
 * Fills utc_span with the span around s: the part of the UTC day of s
 * between the rule's times of change (cuts) that holds s, when both its
 * ends have one offset, else the part of it before or after the change,
 * found by bisection (17 lookups, twice a year). Cutting at the rule's
 * times first is what finds a summer shorter than a day: both changes
 * can fall in one UTC day, whose ends then agree.
 */
static int
fill_utc_span(int64_t s)
{
	int64_t lo, hi, a, b, mid, day;
	int o1, o2, i;

	lo = day = floor_s(s, DAY_S) * DAY_S;
	hi = lo + DAY_S;
	for (i = 0; i < cuts.n; i++)
		if (day + cuts.at[i] > lo && day + cuts.at[i] < hi) {
			if (s < day + cuts.at[i])
				hi = day + cuts.at[i];
			else
				lo = day + cuts.at[i];
		}
	o1 = libc_offset(lo);
	o2 = libc_offset(hi - 1);
	if (o1 != o2) {
		/* off(a) == o1, off(b) != o1 */
		for (a = lo, b = hi - 1; b - a > 1;) {
			mid = a + (b - a) / 2;
			if (libc_offset(mid) == o1)
				a = mid;
			else
				b = mid;
		}
		if (s < b)
			hi = b;
		else {
			lo = b;
			o1 = o2;
		}
	}
	utc_span.lo = lo;
	utc_span.hi = hi;
	utc_span.off = o1;
	utc_span.gen = zone_gen;
	return o1;
}

/* Fills utc_span from the table: the span between two transitions. */
static int
tab_span(int64_t s)
{
	size_t lo = 0, hi = tab.n, mid;

	/* the number of transitions <= s */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tab.at[mid] <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	utc_span.lo = lo == 0 ? -FAR : tab.at[lo - 1];
	utc_span.hi = lo == tab.n ? tab.end : tab.at[lo];
	utc_span.off = lo == 0 ? tab.off0 : tab.off[lo - 1];
	utc_span.gen = zone_gen;
	return utc_span.off;
}

int
cal_utc_offset(const struct cal_zone *z, int64_t s)
{
	if (z == NULL || z->utc)
		return 0;
	if (utc_span.gen == zone_gen && s >= utc_span.lo && s < utc_span.hi)
		return utc_span.off;
	if (s < tab.end)
		return tab_span(s);
	return fill_utc_span(s);
}

/*
 * The local seconds that map one to one onto the UTC span of u, whose
 * offset is o: shifted by o, less at the start the local times that the
 * offset before the span (if larger, a fall back) already covered, since
 * those take that earlier offset.
 */
static void
fill_loc_span(const struct cal_zone *z, int64_t u, int o)
{
	int64_t lo, hi;
	int before;

	if (cal_utc_offset(z, u) != o)
		return;
	lo = utc_span.lo;
	hi = utc_span.hi;
	before = cal_utc_offset(z, lo - 1);
	if (before > o)
		lo += before - o;
	if (lo >= hi)
		return;
	loc_span.lo = lo + o;
	loc_span.hi = hi + o;
	loc_span.off = o;
	loc_span.gen = zone_gen;
}

/* The offsets that local second ls may have, into c[0..n) (n returned,
 * at most LOCAL_OFFS): the zone's offsets within a day either side of
 * ls read as UTC, which hold every instant it can name since offsets are
 * within a day of 0. Walking the spans between finds those of a summer
 * shorter than a day, which the two sides alone do not show. */
#define LOCAL_OFFS	8
static int
local_offsets(const struct cal_zone *z, int64_t ls, int c[LOCAL_OFFS])
{
	int64_t s = ls - DAY_S;
	int n = 0, o, i;

	while (n < LOCAL_OFFS) {
		o = cal_utc_offset(z, s);
		for (i = 0; i < n && c[i] != o; i++)
			;
		if (i == n)
			c[n++] = o;
		if (s >= ls + DAY_S)
			break;
		/* utc_span holds s (cal_utc_offset's cache) */
		s = utc_span.hi < ls + DAY_S ? utc_span.hi : ls + DAY_S;
	}
	return n;
}

int64_t
cal_local_to_utc(const struct cal_zone *z, int64_t ls)
{
	int64_t u = 0;
	int c[LOCAL_OFFS], i, n, found = 0, least;

	if (z == NULL || z->utc)
		return ls;
	if (loc_span.gen == zone_gen && ls >= loc_span.lo &&
	    ls < loc_span.hi)
		return ls - loc_span.off;
	/* An offset that holds at its instant is a reading of ls; of two
	 * (a repeated hour) the earlier instant. None: ls was skipped, and
	 * takes the offset before the gap, the smaller one, as a gap opens
	 * where the offset grows. */
	n = local_offsets(z, ls, c);
	least = c[0];
	for (i = 0; i < n; i++) {
		if (c[i] < least)
			least = c[i];
		if (cal_utc_offset(z, ls - c[i]) == c[i] &&
		    (!found || ls - c[i] < u)) {
			u = ls - c[i];
			found = 1;
		}
	}
	if (!found)
		return ls - least;
	fill_loc_span(z, u, (int)(ls - u));
	return u;
}

/* Whether the zone's abbreviation at UTC second s is the n bytes at p.
 * Only a time written with %Z asks, so libc's lookup is fast enough. */
static int
abbr_is(const struct cal_zone *z, int64_t s, const char *p, size_t n)
{
	time_t t = (time_t)s;
	struct tm tm;

	if (z == NULL || z->utc)
		return n == 3 && memcmp(p, "UTC", 3) == 0;
	if (localtime_r(&t, &tm) == NULL || tm.tm_zone == NULL)
		return 0;
	return strlen(tm.tm_zone) == n && memcmp(tm.tm_zone, p, n) == 0;
}

int
cal_named_local_to_utc(const struct cal_zone *z, int64_t ls, const char *p,
    size_t n, int64_t *u)
{
	static const char *const zero[] = { "UTC", "GMT", "UT", "Z" };
	int off[LOCAL_OFFS], i, k;
	size_t j;

	for (j = 0; j < sizeof(zero) / sizeof(zero[0]); j++)
		if (strlen(zero[j]) == n && memcmp(zero[j], p, n) == 0) {
			*u = ls;
			return 0;
		}
	if (z == NULL || z->utc)
		return -1;
	/* An offset that holds at its instant and is named so there is the
	 * one meant: of the two readings of a repeated hour, the one its
	 * name tells. */
	k = local_offsets(z, ls, off);
	for (i = 0; i < k; i++)
		if (cal_utc_offset(z, ls - off[i]) == off[i] &&
		    abbr_is(z, ls - off[i], p, n)) {
			*u = ls - off[i];
			return 0;
		}
	/* A name the zone uses at another time (EST in July in New York)
	 * means its own offset, as Java's pattern letter z reads it. */
	if (abbr_offset(p, n, &i) == 0) {
		*u = ls - i;
		return 0;
	}
	return -1;
}

/* The UTC time of local time l ns, or -2 when it does not fit. */
static int
local_to_utc_ns(const struct cal_zone *z, __int128 l, int64_t *t)
{
	__int128 s, r, u;

	/* Offsets are under a day: anything further out cannot fit. */
	if (l < (__int128)INT64_MIN - 2 * DAY_NS ||
	    l > (__int128)INT64_MAX + 2 * DAY_NS)
		return -2;
	s = floor_div(l, NS);
	r = l - s * NS;
	u = (__int128)cal_local_to_utc(z, (int64_t)s) * NS + r;
	if (!fits(u))
		return -2;
	*t = (int64_t)u;
	return 0;
}

/* Civil indexes of a unit count days or months: how many per window. */
static int64_t
base_per(struct cal_unit u)
{
	return u.kind == CAL_WEEK ? 7 * u.n : u.n;
}

/* 0 for a unit whose windows can fit, -1 for n <= 0, -2 for a calendar
 * unit longer than the whole int64 range of times. */
static int
unit_check(struct cal_unit u)
{
	if (u.n <= 0)
		return -1;
	if (u.kind != CAL_FIXED && u.n > (u.kind == CAL_MONTH ? MAX_MONTHS :
	    MAX_DAYS))
		return -2;
	return 0;
}

/* The start of civil index i (day or month number): its local midnight,
 * plus offset for days. */
static int
bound(const struct cal_zone *z, enum cal_kind kind, int64_t offset,
    __int128 i, int64_t *t)
{
	int64_t y;

	if (kind == CAL_MONTH) {
		if (i < -MAX_MONTHS || i > MAX_MONTHS)
			return -2;
		y = 1970 + (int64_t)floor_div(i, 12);
		i = (__int128)cal_days_from_civil(y,
		    (int)(i - (y - 1970) * 12) + 1, 1);
		return local_to_utc_ns(z, i * DAY_NS, t);
	}
	if (i < -MAX_DAYS || i > MAX_DAYS)
		return -2;
	return local_to_utc_ns(z, i * DAY_NS + offset, t);
}

/* Sets c to civil indexes [i, i + b) and their bounds. */
static int
cache_civil_window(const struct cal_zone *z, enum cal_kind kind, int64_t offset,
    __int128 i, int64_t b, struct cal_cache *c)
{
	int64_t lo, hi;

	if (bound(z, kind, offset, i, &lo) != 0 ||
	    bound(z, kind, offset, i + b, &hi) != 0 || hi == INT64_MAX)
		return -2;
	c->lo = lo;
	c->hi = hi;
	c->i = (int64_t)i;
	return 0;
}

static int
floor_fixed(struct cal_unit u, int64_t offset, int64_t t,
    struct cal_cache *c)
{
	__int128 k, lo, hi;

	k = floor_div((__int128)t - offset, u.n);
	lo = k * u.n + offset;
	hi = lo + u.n;
	if (!fits(lo) || !fits(hi) || hi == INT64_MAX || !fits(k))
		return -2;
	c->lo = (int64_t)lo;
	c->hi = (int64_t)hi;
	c->i = (int64_t)k;
	return 0;
}

/*
 * From the wall-clock time of t, the civil index of its window; then a
 * step back or forth when t sits in a repeated or skipped hour next to a
 * bound (a window starting at 01:30 local on a day that falls back at
 * 02:00 starts at the first 01:30, so the second 01:15 is already in it).
 */
int
cal_floor(const struct cal_zone *z, struct cal_unit u, int64_t offset,
    int64_t t, struct cal_cache *c)
{
	__int128 l, i, d;
	int64_t s, b, y;
	int m, dd, tries, rc;

	if ((rc = unit_check(u)) != 0)
		return rc;
	if (u.kind == CAL_FIXED)
		return floor_fixed(u, offset, t, c);
	if (u.kind == CAL_MONTH)
		offset = 0;
	s = (int64_t)floor_div(t, NS);
	l = (__int128)t + (__int128)cal_utc_offset(z, s) * NS;
	b = base_per(u);
	d = floor_div(l - offset, DAY_NS);
	if (u.kind == CAL_MONTH) {
		cal_civil_from_days((int64_t)d, &y, &m, &dd);
		i = floor_div((__int128)(y - 1970) * 12 + m - 1, b) * b;
	} else if (u.kind == CAL_WEEK)
		i = WEEK_ORIGIN + floor_div(d - WEEK_ORIGIN, b) * b;
	else
		i = floor_div(d, b) * b;
	if (cache_civil_window(z, u.kind, offset, i, b, c) != 0)
		return -2;
	for (tries = 0; tries < 4 && !cal_cached(c, t); tries++) {
		i += t < c->lo ? -b : b;
		if (cache_civil_window(z, u.kind, offset, i, b, c) != 0)
			return -2;
	}
	return cal_cached(c, t) ? 0 : -2;
}

int
cal_add(const struct cal_zone *z, struct cal_unit u, int64_t offset,
    int64_t i, int64_t k, int64_t *t)
{
	__int128 v;
	int rc;

	if ((rc = unit_check(u)) != 0)
		return rc;
	if (u.kind == CAL_FIXED) {
		v = ((__int128)i + k) * u.n + offset;
		if (!fits(v))
			return -2;
		*t = (int64_t)v;
		return 0;
	}
	return bound(z, u.kind, u.kind == CAL_MONTH ? 0 : offset,
	    (__int128)i + (__int128)k * base_per(u), t);
}

/* The civil index (day or month number) of t's day or month. */
static int
civil_index(const struct cal_zone *z, enum cal_kind kind, int64_t offset,
    int64_t t, int64_t *i)
{
	struct cal_unit one = { kind == CAL_MONTH ? CAL_MONTH : CAL_DAY, 1 };
	struct cal_cache c;

	if (cal_floor(z, one, offset, t, &c) != 0)
		return -2;
	*i = c.i;
	return 0;
}

/* The end of the k-th cumulating window (k >= 1) of w, capped at w->hi. */
static int
cum_end(const struct cal_zone *z, struct cal_unit step, int64_t offset,
    const struct cal_cache *w, int64_t is, __int128 k, int64_t *end)
{
	__int128 v;
	int64_t e;

	if (step.kind == CAL_FIXED) {
		v = (__int128)w->lo + k * step.n;
		*end = v < w->hi ? (int64_t)v : w->hi;
		return 0;
	}
	/* k >= 1 steps past w->lo, which fits: a bound that does not fit
	 * is past the cap */
	v = (__int128)is + k * base_per(step);
	if (bound(z, step.kind, offset, v, &e) != 0 || e > w->hi)
		e = w->hi;
	*end = e;
	return 0;
}

int
cal_cumulate(const struct cal_zone *z, struct cal_unit step,
    int64_t offset, const struct cal_cache *w, int64_t t,
    struct cal_cache *c)
{
	int64_t is = 0, it, lo, hi;
	__int128 k;
	int rc;

	if ((rc = unit_check(step)) != 0)
		return rc;
	if (!cal_cached(w, t))
		return -1;
	if (step.kind == CAL_MONTH)
		offset = 0;
	if (step.kind == CAL_FIXED)
		k = floor_div((__int128)t - w->lo, step.n) + 1;
	else {
		if (civil_index(z, step.kind, offset, w->lo, &is) != 0 ||
		    civil_index(z, step.kind, offset, t, &it) != 0)
			return -2;
		k = floor_div((__int128)it - is, base_per(step)) + 1;
	}
	if (cum_end(z, step, offset, w, is, k, &hi) != 0)
		return -2;
	if (k == 1)
		lo = w->lo;
	else if (cum_end(z, step, offset, w, is, k - 1, &lo) != 0)
		return -2;
	/* a step that a skipped day left empty: t is in the next one */
	if (hi <= t)
		return -2;
	c->lo = lo;
	c->hi = hi;
	c->i = (int64_t)k;
	return 0;
}

int
cal_cumulate_end(const struct cal_zone *z, struct cal_unit step,
    int64_t offset, const struct cal_cache *w, int64_t k, int64_t *end)
{
	int64_t is = 0, prev;
	int rc;

	if ((rc = unit_check(step)) != 0)
		return rc;
	if (k < 1 || w->lo >= w->hi)
		return -1;
	if (step.kind == CAL_MONTH)
		offset = 0;
	if (step.kind != CAL_FIXED &&
	    civil_index(z, step.kind, offset, w->lo, &is) != 0)
		return -2;
	if (k > 1) {
		if (cum_end(z, step, offset, w, is, k - 1, &prev) != 0)
			return -2;
		if (prev == w->hi)
			return 1;
	}
	return cum_end(z, step, offset, w, is, k, end) != 0 ? -2 : 0;
}
