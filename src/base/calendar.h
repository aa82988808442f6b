/* calendar: civil dates, the time zone of --tz, and calendar windows.
 *
 * Times are int64 nanoseconds since the epoch (UTC). A local ("civil")
 * time is the wall clock of the zone, as seconds or nanoseconds since
 * 1970-01-01T00:00 of that wall clock. The zone is glibc's (tzset(3)):
 * one per process, so opening a zone replaces the one opened before.
 * Lookups are cached per thread, so these functions may run on several
 * threads once the zone is open. */
#ifndef FWIN_CALENDAR_H
#define FWIN_CALENDAR_H

#include <stdint.h>

struct cal_zone {
	int	utc;		/* the offset is always 0: no lookups */
	char	name[128];	/* "UTC", "Europe/Berlin", what local named */
};

/* Opens the zone of --tz: an IANA name under TZDIR (default
 * /usr/share/zoneinfo), "UTC", or "local" (the TZ environment variable,
 * else /etc/localtime), and makes it the process's local time. Returns 0,
 * or -1 with *why saying what is wrong (an unknown name is an error, not
 * UTC as glibc has it): of a name, what is wrong with it; of "local", a
 * sentence that names what it read (TZ's value, /etc/localtime). */
int cal_zone_open(struct cal_zone *z, const char *name, const char **why);

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (m
 * 1..12, d 1..31, |y| < 2^40), and the inverse. */
int64_t cal_days_from_civil(int64_t y, int m, int d);
void cal_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* The zone's offset from UTC, in seconds east, at UTC second s (z NULL:
 * UTC). */
int cal_utc_offset(const struct cal_zone *z, int64_t s);

/* The UTC second of local second ls. A local time that a change of offset
 * skips or repeats takes the offset before the change (the earlier one):
 * 02:30 of a day that springs from 02:00 to 03:00 is 03:30 of the new
 * offset; 01:30 of a day that falls from 02:00 back to 01:00 is its first
 * occurrence. */
int64_t cal_local_to_utc(const struct cal_zone *z, int64_t ls);

/* The UTC second of local second ls written with the zone name at p (n
 * bytes, as strptime's %Z reads it): UTC, GMT, UT and Z are offset 0;
 * the zone's abbreviation (localtime_r's tm_zone: EST or EDT in
 * America/New_York) at that wall clock time has the offset it has there,
 * which also tells which of a repeated hour's two times is meant; one the
 * zone uses at other times has its own (EST in July: -05:00). Returns 0,
 * or -1 when the zone never uses the name. */
int cal_named_local_to_utc(const struct cal_zone *z, int64_t ls,
    const char *p, size_t n, int64_t *u);

/*
 * Window units. CAL_FIXED: n nanoseconds, counted from the epoch. The
 * calendar kinds follow the zone's wall clock, n of them per window,
 * counted from 1970-01-01 in the zone: CAL_DAY starts at local midnight,
 * CAL_WEEK at Monday 00:00 (counted from Monday 1969-12-29), CAL_MONTH on
 * the 1st (a quarter is 3 months, a year 12).
 */
enum cal_kind { CAL_FIXED, CAL_DAY, CAL_WEEK, CAL_MONTH };

struct cal_unit {
	enum cal_kind	kind;
	int64_t		n;	/* ns, days, weeks or months; > 0 */
};

/*
 * A window [lo, hi), and i: for the calendar kinds the civil index of lo
 * (its local day number, from 1970-01-01, for CAL_DAY and CAL_WEEK; its
 * month number, from 1970-01, for CAL_MONTH), for CAL_FIXED the window's
 * number. All zero is empty (holds no time).
 */
struct cal_cache {
	int64_t	lo, hi;
	int64_t	i;
};

/* Whether t lies in c's window: the hot path's test, no zone lookup. */
static inline int
cal_cached(const struct cal_cache *c, int64_t t)
{
	return t >= c->lo && t < c->hi;
}

/* Sets c to the window of unit u that holds t. offset shifts CAL_FIXED
 * windows from the epoch and CAL_DAY, CAL_WEEK windows from local midnight
 * (on the wall clock: with 6h, days start at 06:00 local, DST or not); it
 * must be 0 for CAL_MONTH. Returns 0; -1 when u.n <= 0; -2 when the
 * window's bounds do not fit in int64 (hi == INT64_MAX counts as not
 * fitting: it means "no time" to the engine). */
int cal_floor(const struct cal_zone *z, struct cal_unit u, int64_t offset,
    int64_t t, struct cal_cache *c);

/* Sets *t to the start of the window k windows of u after the one whose
 * civil index (window number for CAL_FIXED) is i, k negative for before:
 * with c from cal_floor, cal_add(.., c.i, 1, &t) gives c.hi. Slide windows
 * of the same family as their step start on the step's grid and end at
 * cal_add(size, i, 1). Returns 0, -1 when u.n <= 0, -2 when it does not
 * fit. */
int cal_add(const struct cal_zone *z, struct cal_unit u, int64_t offset,
    int64_t i, int64_t k, int64_t *t);

/*
 * Cumulating windows (Flink SQL's CUMULATE) of the window w = [S, E) for
 * a step of any kind: the k-th (k >= 1) is [S, min(S + k steps, E)), a
 * calendar step counted on the wall clock from S. cal_cumulate sets c to
 * the step that holds t (S <= t < E): c->i = k of the first cumulating
 * window that holds t, [c->lo, c->hi) = the times whose first one it is
 * (c->hi is its end). cal_cumulate_end sets *end to the end of the k-th.
 * Both return 0, -1 when step.n <= 0 or t is not in w, -2 when it does
 * not fit; cal_cumulate_end returns 1 when k is past the last (the last
 * window's end is E).
 */
int cal_cumulate(const struct cal_zone *z, struct cal_unit step,
    int64_t offset, const struct cal_cache *w, int64_t t,
    struct cal_cache *c);
int cal_cumulate_end(const struct cal_zone *z, struct cal_unit step,
    int64_t offset, const struct cal_cache *w, int64_t k, int64_t *end);

#endif
