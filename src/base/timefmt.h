/* timefmt: parse and print event times and durations.
 * Times are signed 64-bit nanoseconds since the Unix epoch (UTC). */
#ifndef FWIN_TIMEFMT_H
#define FWIN_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "base/calendar.h"

#define NS_PER_S 1000000000LL

/* The units, for messages about a malformed duration: of an exact
 * duration, and of a window size or step. */
#define TF_UNITS	"ns us ms s m h d w"
#define TF_SPAN_UNITS	"ns us ms s m h d w mo q y"

/* Time formats of --time-format and --output-time. */
enum tfmt { TF_AUTO, TF_S, TF_MS, TF_US, TF_NS, TF_ISO, TF_STRPTIME };

/* Longest text tf_format() writes, with its NUL. */
#define TF_BUFSZ 48

/* Parses a --time-format / --output-time name ("auto", "s", "ms", "us",
 * "ns", "iso"; anything containing '%' is TF_STRPTIME). Returns 0 or -1. */
int tf_parse_name(const char *s, enum tfmt *f);

/* The canonical name of a format ("s", "iso", ...; "strptime" for TF_STRPTIME). */
const char *tf_name(enum tfmt f);

/* Parses a duration: one or more <number><unit> with units ns us ms s m h
 * d w ("90s", "1h30m", "1.5s"); a bare number is seconds. A leading '-'
 * negates the whole and is accepted only when allow_neg. Returns 0 and
 * sets *ns, or -1 on bad syntax or overflow (tf_parse_span tells which). */
int tf_parse_duration(const char *s, int allow_neg, int64_t *ns);

/* tf_parse_span's flags and errors. */
#define TF_NEG	1	/* a leading '-' is allowed (a fixed span) */
#define TF_CAL	2	/* a window size or step: calendar units */
#define TF_EBAD	(-1)	/* malformed: say TF_UNITS or TF_SPAN_UNITS */
#define TF_EBIG	(-2)	/* too large for int64 nanoseconds */
#define TF_ECAL	(-3)	/* mo, q or y without TF_CAL */

/* Parses a duration as tf_parse_duration does, into *u. With TF_CAL, one
 * whole term in d or w ("1d", "2w") is CAL_DAY or CAL_WEEK and one in mo,
 * q or y ("1mo", "3mo", "1q", "1y") is CAL_MONTH (3 or 12 per q or y);
 * anything else, "1d12h" or "1.5d" too, is CAL_FIXED ns. n may be 0 (the
 * caller requires > 0). Returns 0 or a TF_E* error. */
int tf_parse_span(const char *s, int flags, struct cal_unit *u);

/* Writes u so that tf_parse_span(.., TF_CAL | TF_NEG) reads it back: "1d",
 * "2w", "1mo", "1q", "1y", a fixed span in hours at most ("24h", never
 * "1d"). buf has TF_BUFSZ bytes; returns the length. */
size_t tf_format_span(char *buf, const struct cal_unit *u);

/* Parses the time p[0..n) (not NUL-terminated) in format f, which is not
 * TF_AUTO; strp is the strptime(3) format when f is TF_STRPTIME. Returns 0
 * and sets *ns, or -1 when the text is not such a time or overflows. */
int tf_parse_time(const char *p, size_t n, enum tfmt f, const char *strp,
    int64_t *ns);

/* tf_parse_time, with times written without a zone (ISO text without an
 * offset, strptime without %z) on the wall clock of z (NULL: UTC); a
 * local time that a change of offset skips or repeats takes the earlier
 * offset. */
int tf_parse_time_tz(const char *p, size_t n, enum tfmt f, const char *strp,
    const struct cal_zone *z, int64_t *ns);

/* For --time-format auto: the format that the text p[0..n) implies (ISO
 * text: TF_ISO; a number: TF_S, TF_MS, TF_US or TF_NS by magnitude), or
 * TF_AUTO when it is neither. */
enum tfmt tf_detect(const char *p, size_t n);

/* Why tf_parse_time_tz refuses p[0..n) in format f (auto: as tf_detect
 * would take it), for the message: TF_BAD_RANGE, a time outside the
 * range of int64 nanoseconds (1677-09-21 to 2262-04-11); TF_BAD_ZONE, a
 * strptime time whose %Z name is not UTC, GMT, UT, Z or the --tz zone's
 * abbreviation at that time; else TF_BAD_TIME. */
enum tf_bad { TF_BAD_TIME, TF_BAD_RANGE, TF_BAD_ZONE };
enum tf_bad tf_why_bad(const char *p, size_t n, enum tfmt f, const char *strp,
    const struct cal_zone *z);

/* Writes t in format f (TF_S, TF_MS, TF_US, TF_NS or TF_ISO) to buf, which
 * has room for TF_BUFSZ bytes; NUL-terminates and returns the length. */
size_t tf_format(char *buf, int64_t t, enum tfmt f);

/* tf_format, with TF_ISO on the wall clock of z and its offset
 * ("2026-03-08T00:00:00-08:00"), or with 'Z' when z is NULL or UTC. */
size_t tf_format_tz(char *buf, int64_t t, enum tfmt f,
    const struct cal_zone *z);

/* Writes a duration in its shortest canonical form ("5m", "1h30m",
 * "1500ms", "-8h", "0s") to buf (TF_BUFSZ bytes); returns the length. */
size_t tf_format_duration(char *buf, int64_t ns);

/* tf_format_duration() for a message: a second or more whose part below
 * the second is not whole milliseconds (a lag measured on the clock) has
 * it as the seconds' fraction, "16.001952466s" for "16001952466ns"; it
 * reads back to the same value. */
size_t tf_format_lag(char *buf, int64_t ns);

/* Writes a duration roughly, in its largest whole unit up to years of
 * 365 days ("231 years", "3 days", "1 hour"), to buf (TF_BUFSZ bytes);
 * returns the length. */
size_t tf_format_rough(char *buf, int64_t ns);

#endif
