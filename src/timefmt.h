/* timefmt: parse and print event times and durations.
 * Times are signed 64-bit nanoseconds since the Unix epoch (UTC). */
#ifndef FWIN_TIMEFMT_H
#define FWIN_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_S 1000000000LL

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
 * sets *ns, or -1 on bad syntax or overflow. */
int tf_parse_duration(const char *s, int allow_neg, int64_t *ns);

/* Parses the time p[0..n) (not NUL-terminated) in format f, which is not
 * TF_AUTO; strp is the strptime(3) format when f is TF_STRPTIME. Returns 0
 * and sets *ns, or -1 when the text is not such a time or overflows. */
int tf_parse_time(const char *p, size_t n, enum tfmt f, const char *strp,
    int64_t *ns);

/* For --time-format auto: the format that the text p[0..n) implies (ISO
 * text: TF_ISO; a number: TF_S, TF_MS, TF_US or TF_NS by magnitude), or
 * TF_AUTO when it is neither. */
enum tfmt tf_detect(const char *p, size_t n);

/* Writes t in format f (TF_S, TF_MS, TF_US, TF_NS or TF_ISO) to buf, which
 * has room for TF_BUFSZ bytes; NUL-terminates and returns the length. */
size_t tf_format(char *buf, int64_t t, enum tfmt f);

/* Writes a duration in its shortest canonical form ("5m", "1h30m",
 * "1500ms", "-8h", "0s") to buf (TF_BUFSZ bytes); returns the length. */
size_t tf_format_duration(char *buf, int64_t ns);

#endif
