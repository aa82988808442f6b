/* cli: the command line. It turns options (usage.h knows them) into a
 * struct config and hands it to the driver (run.c). Usage errors exit
 * here, with status 2: this is main's file; nothing below it exits. */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "window/agg.h"
#include "run/ckpt.h"
#include "cli/cli.h"
#include "pipeline/config.h"
#include "cli/explain.h"
#include "run/guard.h"
#include "io/keycodec.h"
#include "exec/plan.h"
#include "run/run.h"
#include "base/stats.h"
#include "base/timefmt.h"
#include "cli/usage.h"
#include "base/util.h"

#define FWIN_VERSION "0.1.0"

/* --threads: what may be asked, and the most the default takes */
#define MAX_THREADS	256
#define DEFAULT_THREADS	8

/* Exit status after --help or --version: a write error is a failure. */
static int
close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fwin_warn("standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* A duration, or with TF_CAL in flags a window size or step (calendar
 * units too); a malformed one's message lists the units. */
static struct cal_unit
span(const char *opt, const char *s, int flags, int positive)
{
	struct cal_unit u;

	switch (tf_parse_span(s, flags, &u)) {
	case 0:
		break;
	case TF_EBIG:
		usage_error("%s: '%s' is too large", opt, s);
	case TF_ECAL:
		usage_error("%s: '%s': mo, q and y are only for window sizes "
		    "and steps (units here: " TF_UNITS ")", opt, s);
	default:
		usage_error("%s: bad duration '%s' (units: %s)", opt, s,
		    (flags & TF_CAL) ? TF_SPAN_UNITS : TF_UNITS);
	}
	if (positive && u.n <= 0)
		usage_error("%s: '%s' must be greater than zero", opt, s);
	return u;
}

static int64_t
duration(const char *opt, const char *s, int allow_neg, int positive)
{
	return span(opt, s, allow_neg ? TF_NEG : 0, positive).n;
}

/* A window size or step: c->size / c->step get its length when it has
 * one (a fixed span, days, weeks), 0 for months. */
static int64_t
window_span(const char *opt, const char *s, struct cal_unit *u)
{
	*u = span(opt, s, TF_CAL, 1);
	switch (u->kind) {
	case CAL_FIXED:
		return u->n;
	case CAL_DAY:
		return u->n * 86400 * NS_PER_S;	/* tf_parse_span: it fits */
	case CAL_WEEK:
		return u->n * 7 * 86400 * NS_PER_S;
	default:
		return 0;
	}
}

/* The family of a unit: fixed, days and weeks, months. */
static int
family(const struct cal_unit *u)
{
	return u->kind == CAL_FIXED ? 0 : u->kind == CAL_MONTH ? 2 : 1;
}

/* Days or months of a calendar unit. */
static int64_t
civil_len(const struct cal_unit *u)
{
	return u->kind == CAL_WEEK ? 7 * u->n : u->n;
}

/* SIZE,STEP of --slide and --cumulate (man page: CALENDAR TIME): of one
 * family, STEP dividing SIZE; --cumulate also takes a calendar SIZE with
 * a fixed STEP. */
static void
parse_size_step(struct config *c, const char *opt, const char *arg)
{
	char *copy = strdup(arg), *comma;
	int fs, ft;

	if (copy == NULL)
		fwin_oom();
	if ((comma = strchr(copy, ',')) == NULL)
		usage_error("%s: '%s' is not SIZE,STEP", opt, arg);
	*comma = '\0';
	c->size = window_span(opt, copy, &c->usize);
	c->step = window_span(opt, comma + 1, &c->ustep);
	free(copy);
	fs = family(&c->usize);
	ft = family(&c->ustep);
	if (c->wkind == WK_SLIDE && fs == 0 && ft == 0)
		return;		/* fixed: any STEP, gaps too */
	if (c->wkind == WK_CUMULATE && fs != 0 && ft == 0)
		return;		/* the last step ends at the window's end */
	if (c->wkind == WK_CUMULATE && fs == 2 && c->ustep.kind == CAL_DAY &&
	    c->ustep.n == 1)
		return;		/* every month is whole days */
	if (fs != ft)
		usage_error("%s: '%s': %s", opt, arg, c->wkind == WK_CUMULATE ?
		    "STEP must be of SIZE's family (fixed; d, w; mo, q, y), "
		    "1d with months, or fixed with a calendar SIZE" :
		    "SIZE and STEP must both be fixed durations, both days "
		    "or weeks (d, w), or both months (mo, q, y); a fixed day "
		    "is 24h");
	if (fs == 0 ? c->size % c->step != 0 :
	    civil_len(&c->usize) % civil_len(&c->ustep) != 0)
		usage_error("%s: '%s': STEP must divide SIZE", opt, arg);
}

static void
add_field(struct fieldref *f, const char *spec, const char *opt)
{
	const char *err = config_field(f, spec);

	if (err != NULL)
		usage_error("%s: bad field '%s' (%s)", opt, spec, err);
}

/* The percentiles of --median, or of F:P[,P...] (cut off arg here; the
 * last colon, so that a field name may hold one). */
static void
add_pct(struct aggspec *a, char *arg, const char *opt)
{
	const char *err;
	char *colon, *s;
	size_t n = 1;

	if (!(a->op->flags & AGF_PLIST)) {
		a->pct = xcalloc(1, sizeof(*a->pct));
		a->npct = 1;
		stats_pct_median(a->pct);
		return;
	}
	if ((colon = strrchr(arg, ':')) == NULL)
		usage_error("%s: '%s' names no percentile (F:P[,P...])", opt,
		    arg);
	*colon = '\0';
	for (s = colon + 1; *s != '\0'; s++)
		n += *s == ',';
	a->pct = xcalloc(n, sizeof(*a->pct));
	if ((err = stats_pct_list(colon + 1, a->pct, n, &a->npct)) != NULL)
		usage_error("%s: bad percentile list '%s' (%s)", opt,
		    colon + 1, err);
}

/* The bounds of --histogram F:B1,B2,... (cut off arg here; the last
 * colon, so that a field name may hold one). */
static void
add_bounds(struct aggspec *a, char *arg, const char *opt)
{
	const char *err;
	char *colon;

	if ((colon = strrchr(arg, ':')) == NULL)
		usage_error("%s: '%s' names no bounds (F:B1,B2,...)", opt, arg);
	*colon = '\0';
	if ((err = agg_hist_bounds(colon + 1, &a->bounds, &a->nbounds)) !=
	    NULL)
		usage_error("%s: bad bounds '%s' (%s)", opt, colon + 1, err);
}

static void
add_agg(struct config *c, const struct aggop *op, char *arg)
{
	struct aggspec *a;
	char opt[64], *colon;

	c->aggs = xrealloc(c->aggs, (c->naggs + 1) * sizeof(*c->aggs));
	a = &c->aggs[c->naggs++];
	memset(a, 0, sizeof(*a));
	a->op = op;
	if (!(op->flags & AGF_FIELD))
		return;
	snprintf(opt, sizeof(opt), "--%s", op->option);
	if (arg == NULL)	/* getopt gives every FIELD option one */
		usage_error("%s needs a FIELD", opt);
	if (op->flags & AGF_PCT)
		add_pct(a, arg, opt);
	if (op->flags & AGF_HIST)
		add_bounds(a, arg, opt);
	if ((op->flags & AGF_OUT) && (colon = strchr(arg, ':')) != NULL) {
		*colon = '\0';
		a->has_out = 1;
		add_field(&a->out, colon + 1, opt);
	}
	add_field(&a->f, arg, opt);
}

static void
add_keys(struct config *c, char *arg)
{
	char *tok;

	for (tok = strsep(&arg, ","); tok != NULL; tok = strsep(&arg, ",")) {
		c->keys = realloc(c->keys, (c->nkeys + 1) * sizeof(*c->keys));
		if (c->keys == NULL)
			fwin_oom();
		memset(&c->keys[c->nkeys], 0, sizeof(*c->keys));
		add_field(&c->keys[c->nkeys++], tok, "-k");
	}
}

static void
set_window(struct config *c, enum wkind k, const char *opt)
{
	static const char *first;

	if (c->wkind != WK_NONE && first != NULL && strcmp(first, opt) == 0)
		usage_error("%s may be given only once", opt);
	if (c->wkind != WK_NONE)
		usage_error("%s and %s cannot be used together", first, opt);
	c->wkind = k;
	first = opt;
}

/* A count: decimal digits only, 1 to 2^32. */
static uint64_t
count_value(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		usage_error("%s: bad count '%s'", opt, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0' || errno != 0 || v < 1 || v > UINT32_MAX)
		usage_error("%s: bad count '%s'", opt, s);
	return v;
}

static void
parse_top_by(struct config *c, const char *arg)
{
	size_t n = strlen(arg);

	c->top_asc = n > 4 && strcmp(arg + n - 4, ":asc") == 0;
	c->top_by = c->top_asc ? xstrndup(arg, n - 4) : xstrdup(arg);
	if (*c->top_by == '\0')
		usage_error("--top-by: no column name in '%s'", arg);
	/* (largest first is the default: there is no other suffix) */
	if (n > 5 && strcmp(arg + n - 5, ":desc") == 0)
		usage_error("--top-by: '%s': the largest rank first unless "
		    "':asc' follows the name; there is no ':desc'", arg);
}

/* The options of how windows fire, against the window kind. */
static void
check_firing(const struct config *c)
{
	if (c->fill && c->wkind != WK_TUMBLE && c->wkind != WK_SLIDE &&
	    c->wkind != WK_CUMULATE)
		usage_error("--fill needs --tumble, --slide or --cumulate");
	if (c->emit_every > 0 && (c->wkind == WK_SESSION ||
	    c->wkind == WK_COUNT || c->wkind == WK_NONE || over_window(c)))
		usage_error("--emit-every needs --tumble, --slide, --cumulate "
		    "or --global");
	if (c->emit_every > 0 && c->top_n > 0)
		usage_error("--top and --emit-every cannot be used together");
	if (c->top_by != NULL && c->top_n == 0)
		usage_error("--top-by needs --top");
	if (c->top_n == 0)
		return;
	if (c->wkind == WK_SESSION || c->wkind == WK_COUNT ||
	    c->wkind == WK_NONE || over_window(c))
		usage_error("--top needs --tumble, --slide, --cumulate or "
		    "--global");
	if (c->allowed != 0)
		usage_error("--top and --allowed-lateness cannot be used "
		    "together: a window's rows fire again one by one");
	if (c->part_n > 1)
		usage_error("--top and --partition cannot be used together: "
		    "a window's top rows rank every key, and a partition "
		    "sees only its own");
}

/* --over, --over-rows: what does not apply to a row per record, and the
 * record printed as read, which fixes the output's format. */
static void
check_over(const struct config *c)
{
	const char *opt = c->wkind == WK_OVER ? "--over" : "--over-rows";
	enum outfmt natural = input_outfmt(c);

	if (!over_window(c))
		return;
	if (c->allowed != 0)
		usage_error("%s and --allowed-lateness cannot be used "
		    "together: a record is printed once", opt);
	if (c->offset != 0)
		usage_error("%s and --offset cannot be used together", opt);
	if (c->outfmt_set && c->outfmt != natural)
		usage_error("%s prints each record as read: its output "
		    "format is the input's", opt);
	if (c->changelog || c->sqlite != NULL)
		usage_error("%s prints each record once, as read: not with %s",
		    opt, c->changelog ? "--changelog" : "-o sqlite:");
	if ((c->fmt == IF_CSV && c->delim >= 0 && c->delim != ',') ||
	    (c->fmt == IF_TSV && c->delim >= 0 && c->delim != '\t'))
		usage_error("%s prints each record as read: not with -d", opt);
}

static void
parse_count_window(struct config *c, const char *arg)
{
	char *copy = strdup(arg), *comma;

	if (copy == NULL)
		fwin_oom();
	if ((comma = strchr(copy, ',')) != NULL)
		*comma = '\0';
	c->count_n = count_value("--count-window", copy);
	c->count_slide = comma != NULL ?
	    count_value("--count-window", comma + 1) : c->count_n;
	free(copy);
}

/* --threads N, FWIN_THREADS: 1 to MAX_THREADS. */
static unsigned
threads_value(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		usage_error("%s: '%s' is not a number of threads", what, s);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end != '\0' || errno != 0 || v < 1 || v > MAX_THREADS)
		usage_error("%s: '%s': N needs 1 <= N <= %d", what, s,
		    MAX_THREADS);
	return (unsigned)v;
}

/* The default of --threads: FWIN_THREADS, else the CPUs this process may
 * run on, at most DEFAULT_THREADS. */
static unsigned
default_threads(void)
{
	const char *env = getenv("FWIN_THREADS");
	cpu_set_t set;
	int n;

	if (env != NULL && *env != '\0')
		return threads_value("FWIN_THREADS", env);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > DEFAULT_THREADS ? DEFAULT_THREADS : (unsigned)n;
}

/* --partition I/N: 1 <= I <= N <= KEY_GROUPS, decimal digits only. */
static void
parse_partition(struct config *c, const char *arg)
{
	char *end;
	unsigned long i, n;

	if (*arg < '0' || *arg > '9')
		goto bad;
	i = strtoul(arg, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		goto bad;
	n = strtoul(end + 1, &end, 10);
	if (*end != '\0')
		goto bad;
	if (n < 1 || n > KEY_GROUPS || i < 1 || i > n)
		usage_error("--partition: '%s': I/N needs 1 <= I <= N <= %d",
		    arg, KEY_GROUPS);
	c->part_i = (unsigned)i;
	c->part_n = (unsigned)n;
	return;
bad:
	usage_error("--partition: '%s' is not I/N", arg);
}

/* Options that may be given once (a format, a time field, ...): each
 * kind is one setting, which a second option would silently overwrite. */
enum { ONCE_FORMAT, ONCE_DELIM, ONCE_TIME, ONCE_TIMEFMT, ONCE_OUTTIME,
	ONCE_TZ, ONCE_OFFSET, ONCE_LATENESS, ONCE_ALLOWED, ONCE_IDLE,
	ONCE_LATEFILE, ONCE_FLUSH, ONCE_TOP, ONCE_TOPBY, ONCE_EMITEVERY,
	ONCE_OUTFMT, ONCE_OUTPUT, ONCE_CHECKPOINT, ONCE_CKEVERY, ONCE_RESTORE,
	ONCE_STATE, ONCE_INSPECT, ONCE_MAXFUTURE, ONCE_BADFILE, ONCE_PROGRESS,
	ONCE_PARTITION, ONCE_EXPLAIN, ONCE_MODE, ONCE_MAXMEM, ONCE_THREADS,
	ONCE_N };

/* Options that a config does not hold. */
struct cli_extra {
	const char *state, *inspect, *explain;
	const char *stream_only;	/* the first stream-only option given */
	const char *tz;		/* opened once options are read */
	const char *once[ONCE_N];	/* how each was first given */
};

/* A second option of the same kind (-t twice, --csv and --tsv, --flush
 * and --no-flush) is a usage error. */
static void
once(struct cli_extra *x, int kind, const char *opt)
{
	if (x->once[kind] != NULL && strcmp(x->once[kind], opt) == 0)
		usage_error("%s may be given only once", opt);
	if (x->once[kind] != NULL)
		usage_error("%s and %s cannot be used together", x->once[kind],
		    opt);
	x->once[kind] = opt;
}

/* -d C: one byte, or "\t"; not one that ends a record or quotes a
 * field. */
static void
delimiter(struct config *c, const char *arg)
{
	if (strcmp(arg, "\\t") == 0)
		c->delim = '\t';
	else if (strlen(arg) != 1)
		usage_error("-d: '%s' is not a single-byte delimiter", arg);
	else if (arg[0] == '\n')
		usage_error("-d: a newline cannot be the delimiter: it ends "
		    "records");
	else if (arg[0] == '\r')
		usage_error("-d: a carriage return cannot be the delimiter: "
		    "records may end in CR LF");
	else if (arg[0] == '"')
		usage_error("-d: '\"' cannot be the delimiter: it quotes "
		    "CSV fields");
	else
		c->delim = (unsigned char)arg[0];
}

/* -t F1,F2,...: F1 in c->time, the rest in c->time_more. */
static void
add_times(struct config *c, char *arg)
{
	char *tok = strsep(&arg, ",");

	c->has_time = 1;
	add_field(&c->time, tok, "-t");
	while ((tok = strsep(&arg, ",")) != NULL) {
		c->time_more = xrealloc(c->time_more,
		    (c->ntime_more + 1) * sizeof(*c->time_more));
		memset(&c->time_more[c->ntime_more], 0, sizeof(*c->time_more));
		add_field(&c->time_more[c->ntime_more++], tok, "-t");
	}
}

/* --max-memory: bytes, with K, M, G or T (powers of 1024). */
static uint64_t
mem_size(const char *s)
{
	static const char units[] = "KkMmGgTt";
	const char *u;
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
	if (v > 0 && *end != '\0' && (u = strchr(units, *end)) != NULL) {
		shift = 10 * (unsigned)((u - units) / 2 + 1);
		end++;
	}
	if (v == 0 || *end != '\0')
		usage_error("--max-memory: bad size '%s' (bytes, or a number "
		    "with K, M, G or T)", s);
	/* (well formed, past 2^64 bytes: said as a duration's is) */
	if (errno == ERANGE || v > (UINT64_MAX >> shift))
		usage_error("--max-memory: '%s' is too large", s);
	return (uint64_t)v << shift;
}

/* -F: named files only (a pipe is followed by reading it). */
static void
check_follow(const struct config *c)
{
	int i;

	if (!c->follow)
		return;
	if (c->nfiles == 0)
		usage_error("--follow needs at least one FILE");
	for (i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i], "-") == 0)
			usage_error("--follow follows named files, not standard "
			    "input ('-'): standard input is read as it comes "
			    "without it");
}

/* --mode: auto becomes batch or stream (the man page's BATCH AND STREAM
 * MODES; the plan decides, plan.h); batch refuses what only a stream
 * has. */
static void
decide_mode(struct config *c, const struct cli_extra *x, struct plan *p)
{
	if (c->mode == MODE_BATCH) {
		if (x->stream_only != NULL)
			usage_error("%s cannot be used with --mode batch (it is "
			    "for streams)", x->stream_only);
		if (!c->has_time)
			usage_error("--mode batch needs event time (-t)");
	}
	plan_mode(c, x->stream_only, p);
}

static void
stream_only(struct cli_extra *x, const char *opt)
{
	if (x->stream_only == NULL)
		x->stream_only = opt;
}

/* Records and time: --format, -d, -H, -k, -t, --time-format, --output-time, --tz. Returns whether ch was one. */
static int
option_records(struct config *c, struct cli_extra *x, int ch)
{
	(void)x;
	switch (ch) {
	case O_FORMAT:
		once(x, ONCE_FORMAT, "--format");
		if (strcmp(optarg, "lines") == 0)
			c->fmt = IF_LINES;
		else if (strcmp(optarg, "csv") == 0)
			c->fmt = IF_CSV;
		else if (strcmp(optarg, "tsv") == 0)
			c->fmt = IF_TSV;
		else if (strcmp(optarg, "json") == 0)
			c->fmt = IF_JSON;
		else
			usage_error("--format: unknown format '%s'", optarg);
		break;
	case O_CSV:
		once(x, ONCE_FORMAT, "--csv");
		c->fmt = IF_CSV;
		break;
	case O_TSV:
		once(x, ONCE_FORMAT, "--tsv");
		c->fmt = IF_TSV;
		break;
	case O_JSON:
		once(x, ONCE_FORMAT, "--json");
		c->fmt = IF_JSON;
		break;
	case 'd':
		once(x, ONCE_DELIM, "-d");
		delimiter(c, optarg);
		break;
	case 'H':
		c->header = 1;
		break;
	case 'k':
		add_keys(c, optarg);
		break;
	case 't':
		once(x, ONCE_TIME, "-t");
		add_times(c, optarg);
		break;
	case O_TIMEFMT:
		once(x, ONCE_TIMEFMT, "--time-format");
		if (tf_parse_name(optarg, &c->time_fmt) != 0)
			usage_error("--time-format: unknown format '%s'", optarg);
		if (c->time_fmt == TF_STRPTIME)
			c->strp = optarg;
		break;
	case O_OUTTIME:
		once(x, ONCE_OUTTIME, "--output-time");
		if (tf_parse_name(optarg, &c->out_time) != 0 ||
		    c->out_time == TF_STRPTIME)
			usage_error("--output-time: unknown format '%s'", optarg);
		break;
	case O_TZ:
		once(x, ONCE_TZ, "--tz");
		x->tz = optarg;
		break;
	default:
		return 0;
	}
	return 1;
}

/* Windows and how they fire. Returns whether ch was one. */
static int
option_windows(struct config *c, struct cli_extra *x, int ch)
{
	(void)x;
	switch (ch) {
	case O_TUMBLE:
		set_window(c, WK_TUMBLE, "--tumble");
		c->size = c->step = window_span("--tumble", optarg, &c->usize);
		c->ustep = c->usize;
		break;
	case O_SLIDE:
		set_window(c, WK_SLIDE, "--slide");
		parse_size_step(c, "--slide", optarg);
		break;
	case O_CUMULATE:
		set_window(c, WK_CUMULATE, "--cumulate");
		parse_size_step(c, "--cumulate", optarg);
		break;
	case O_SESSION:
		set_window(c, WK_SESSION, "--session");
		c->size = duration("--session", optarg, 0, 1);
		break;
	case O_COUNTWIN:
		set_window(c, WK_COUNT, "--count-window");
		parse_count_window(c, optarg);
		break;
	case O_OFFSET:
		once(x, ONCE_OFFSET, "--offset");
		c->offset = duration("--offset", optarg, 1, 0);
		break;
	case 'l':
		once(x, ONCE_LATENESS, "-l");
		stream_only(x, "-l/--lateness");
		c->lateness = duration("--lateness", optarg, 0, 0);
		break;
	case O_ALLOWED:
		once(x, ONCE_ALLOWED, "--allowed-lateness");
		stream_only(x, "--allowed-lateness");
		c->allowed = duration("--allowed-lateness", optarg, 0, 0);
		break;
	case O_IDLE:
		once(x, ONCE_IDLE, "--idle-timeout");
		stream_only(x, "--idle-timeout");
		c->idle_timeout = duration("--idle-timeout", optarg, 0, 1);
		break;
	case O_LATEFILE:
		once(x, ONCE_LATEFILE, "--late-file");
		stream_only(x, "--late-file");
		c->late_file = optarg;
		break;
	case O_FLUSH:
		once(x, ONCE_FLUSH, "--flush");
		c->flush = 1;
		break;
	case O_GLOBAL:
		set_window(c, WK_GLOBAL, "--global");
		break;
	case O_OVER:
		set_window(c, WK_OVER, "--over");
		c->size = duration("--over", optarg, 0, 0);
		break;
	case O_OVERROWS:
		set_window(c, WK_OVER_ROWS, "--over-rows");
		c->count_n = count_value("--over-rows", optarg);
		break;
	case O_FILL:
		c->fill = 1;
		break;
	case O_TOP:
		once(x, ONCE_TOP, "--top");
		c->top_n = count_value("--top", optarg);
		break;
	case O_TOPBY:
		once(x, ONCE_TOPBY, "--top-by");
		parse_top_by(c, optarg);
		break;
	case O_EMITEVERY:
		once(x, ONCE_EMITEVERY, "--emit-every");
		stream_only(x, "--emit-every");
		c->emit_every = duration("--emit-every", optarg, 0, 1);
		break;
	case O_NOFLUSH:
		once(x, ONCE_FLUSH, "--no-flush");
		stream_only(x, "--no-flush");
		c->flush = 0;
		break;
	default:
		return 0;
	}
	return 1;
}

/* -o sqlite:DB[:TABLE]: TABLE is what follows the last ':', whatever it
 * is, so that one rule splits every argument (a DB path holding ':' is
 * given with its TABLE: sqlite:a:b:fwin). It must be a plain name, which
 * SQL reads unquoted: letters, digits and '_', not first a digit. SQLite
 * compares names without case, so fwin's and SQLite's own prefixes are
 * kept in any case. */
static void
sqlite_target(struct config *c, const char *arg)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	const char *colon = strrchr(arg, ':'), *table = "fwin";
	size_t n = strlen(arg);

	if (colon != NULL) {
		table = colon + 1;
		n = (size_t)(colon - arg);
	}
	if (n == 0)
		usage_error("-o sqlite: needs a database file (sqlite:DB[:TABLE])");
	if (*table == '\0')
		usage_error("-o sqlite:%s: a TABLE name after ':'", arg);
	if (table[strspn(table, plain)] != '\0' ||
	    (*table >= '0' && *table <= '9'))
		usage_error("-o sqlite:%s: the TABLE '%s' (after the last ':') "
		    "is not a name: letters, digits and '_', not first a "
		    "digit", arg, table);
	if (strncasecmp(table, "fwin_", 5) == 0 ||
	    strncasecmp(table, "sqlite_", 7) == 0)
		usage_error("-o sqlite:%s: names beginning 'fwin_' and "
		    "'sqlite_' are kept for fwin's and SQLite's own tables",
		    arg);
	c->sqlite = xstrndup(arg, n);
	c->sqlite_table = xstrdup(table);
}

/* Output, checkpoints, modes and the rest. Returns whether ch was one. */
static int
option_rest(struct config *c, struct cli_extra *x, int ch)
{
	(void)x;
	switch (ch) {
	case O_OUTFMT:
		once(x, ONCE_OUTFMT, "--output-format");
		c->outfmt_set = 1;
		if (strcmp(optarg, "tsv") == 0)
			c->outfmt = OF_TSV;
		else if (strcmp(optarg, "csv") == 0)
			c->outfmt = OF_CSV;
		else if (strcmp(optarg, "json") == 0)
			c->outfmt = OF_JSON;
		else
			usage_error("--output-format: unknown format "
			    "'%s'", optarg);
		break;
	case 'o':
		once(x, ONCE_OUTPUT, "-o");
		if (strncmp(optarg, "sqlite:", 7) == 0)
			sqlite_target(c, optarg + 7);
		else
			c->output = optarg;
		break;
	case O_CHANGELOG:
		c->changelog = 1;
		break;
	case O_CHECKPOINT:
		once(x, ONCE_CHECKPOINT, "--checkpoint");
		stream_only(x, "--checkpoint");
		c->checkpoint = optarg;
		break;
	case O_CKEVERY:
		once(x, ONCE_CKEVERY, "--checkpoint-every");
		stream_only(x, "--checkpoint-every");
		if (optarg[strspn(optarg, "0123456789")] == '\0') {
			c->ckpt_every_n = count_value("--checkpoint-every",
			    optarg);
			c->ckpt_every_ns = 0;
		} else {
			c->ckpt_every_n = 0;
			c->ckpt_every_ns = duration("--checkpoint-every",
			    optarg, 0, 1);
		}
		break;
	case O_RESTORE:
		once(x, ONCE_RESTORE, "--restore");
		stream_only(x, "--restore");
		c->restore = optarg;
		break;
	case O_STATE:
		once(x, ONCE_STATE, "--state");
		stream_only(x, "--state");
		x->state = optarg;
		break;
	case O_NEWINPUT:
		c->new_input = 1;
		break;
	case 'F':
		stream_only(x, "-F/--follow");
		c->follow = 1;
		break;
	case O_INSPECT:
		once(x, ONCE_INSPECT, "--inspect");
		x->inspect = optarg;
		break;
	case O_MAXFUTURE:
		once(x, ONCE_MAXFUTURE, "--max-future");
		c->max_future = duration("--max-future", optarg, 0, 1);
		break;
	case O_STRICT:
		c->strict = 1;
		break;
	case O_BADFILE:
		once(x, ONCE_BADFILE, "--bad-file");
		c->bad_file = optarg;
		break;
	case O_PROGRESS:
		once(x, ONCE_PROGRESS, "--progress");
		c->progress = 1;
		break;
	case O_NOPROGRESS:
		once(x, ONCE_PROGRESS, "--no-progress");
		c->progress = 0;
		break;
	case O_STATS:
		c->stats = 1;
		break;
	case O_PARTITION:
		once(x, ONCE_PARTITION, "--partition");
		parse_partition(c, optarg);
		break;
	case O_EXPLAIN:
		once(x, ONCE_EXPLAIN, "--explain");
		if (strcmp(optarg, "flink-sql") != 0 &&
		    strcmp(optarg, "plan") != 0)
			usage_error("--explain: unknown explanation '%s' "
			    "(flink-sql or plan)", optarg);
		x->explain = optarg;
		break;
	case O_MODE:
		once(x, ONCE_MODE, "--mode");
		if (strcmp(optarg, "auto") == 0)
			c->mode = MODE_AUTO;
		else if (strcmp(optarg, "stream") == 0)
			c->mode = MODE_STREAM;
		else if (strcmp(optarg, "batch") == 0)
			c->mode = MODE_BATCH;
		else
			usage_error("--mode: unknown mode '%s' (auto, stream "
			    "or batch)", optarg);
		break;
	case O_MAXMEM:
		once(x, ONCE_MAXMEM, "--max-memory");
		c->max_memory = mem_size(optarg);
		break;
	case O_THREADS:
		once(x, ONCE_THREADS, "--threads");
		c->threads = threads_value("--threads", optarg);
		break;
	default:
		return 0;
	}
	return 1;
}

/* Applies one option (not an aggregate, --help or --version). */
static void
option(struct config *c, struct cli_extra *x, int ch, char *argv_opt)
{
	if (!option_records(c, x, ch) && !option_windows(c, x, ch) &&
	    !option_rest(c, x, ch))
		bad_option(ch, argv_opt);
}

int
fwin_cli(int argc, char **argv)
{
	struct config c;
	struct cli_extra x;
	struct plan plan;
	char err[2 * PLAN_WHY];
	const char *why = "";
	char *clash;
	int ch, status;
	struct stat sb;

	memset(&c, 0, sizeof(c));
	memset(&x, 0, sizeof(x));
	x.tz = "UTC";
	c.delim = -1;
	c.flush = -1;
	c.time_fmt = TF_AUTO;
	c.out_time = TF_AUTO;
	c.ckpt_every_ns = 10 * NS_PER_S;
	c.progress = -1;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":d:Hk:t:l:co:hVF", longopts(),
	    NULL)) != -1) {
		if (ch >= O_AGG)
			add_agg(&c, agg_at((size_t)(ch - O_AGG)), optarg);
		else if (ch == 'c')
			add_agg(&c, agg_lookup("count"), NULL);
		else if (ch == 'h' || ch == 'V') {
			if (ch == 'h')
				usage(stdout);
			else
				puts("fwin " FWIN_VERSION);
			config_free(&c);
			return close_stdout();
		} else if (!cli_expr_option(&c, ch, optarg))
			option(&c, &x, ch, argv[optind - 1]);
	}
	if (x.inspect != NULL) {
		config_free(&c);
		status = ckpt_inspect(x.inspect, stdout);
		return close_stdout() != 0 ? 1 : status;
	}
	if (x.state != NULL) {
		if (c.checkpoint != NULL || c.restore != NULL)
			usage_error("--state cannot be used with --checkpoint "
			    "or --restore");
		c.checkpoint = x.state;
		c.state = 1;
		if (stat(x.state, &sb) == 0)
			c.restore = x.state;
	}
	/* the zone is opened once: "local" reads TZ, which opening sets */
	if (cal_zone_open(&c.zone, x.tz, &why) != 0) {
		if (strcmp(x.tz, "local") == 0)	/* (why names what it read) */
			usage_error("--tz local: %s", why);
		usage_error("--tz: %s '%s' (an IANA name such as "
		    "Europe/Berlin, UTC or local)", why, x.tz);
	}
	/* (--state's first run has nothing to restore: it reads all its
	 * input, as --new-input asks) */
	if (c.new_input && c.restore == NULL && x.state == NULL)
		usage_error("--new-input needs --restore or --state");
	if (c.offset != 0 && (c.wkind == WK_TUMBLE || c.wkind == WK_SLIDE ||
	    c.wkind == WK_CUMULATE) && (c.usize.kind == CAL_MONTH ||
	    c.ustep.kind == CAL_MONTH))
		usage_error("--offset cannot shift mo, q or y windows (they "
		    "start at midnight on the 1st)");
	check_firing(&c);
	check_over(&c);
	/* json records are objects: their members name the fields */
	if (c.fmt == IF_JSON && c.header)
		usage_error("-H has no meaning with --json (members name "
		    "the fields)");
	if (c.fmt == IF_JSON && c.delim >= 0)
		usage_error("-d has no meaning with --json");
	if (c.naggs == 0)
		add_agg(&c, agg_lookup("count"), NULL);
	c.files = argv + optind;
	c.nfiles = argc - optind;
	check_follow(&c);
	if (x.explain != NULL && strcmp(x.explain, "flink-sql") == 0) {
		/* a script instead of a run: nothing is read or written */
		status = explain_flink_sql(&c, stdout);
		if (close_stdout() != 0)
			status = 1;
		config_free(&c);
		return status;
	}
	decide_mode(&c, &x, &plan);
	/* nothing fwin writes may be what it reads or writes otherwise */
	if ((clash = guard_clash(&c, x.state != NULL)) != NULL)
		usage_error("%s", clash);
	if (c.threads == 0)
		c.threads = default_threads();
	if (plan_make(&c, &plan, err, sizeof(err)) != 0)
		usage_error("%s", err);
	if (x.explain != NULL) {	/* the plan instead of a run */
		status = plan_print(&plan, stdout);
		if (close_stdout() != 0)
			status = 1;
		config_free(&c);
		return status;
	}
	status = run_pipeline(&c, &plan);
	config_free(&c);
	return status;
}
