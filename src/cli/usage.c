/* usage: the option table, the help text and usage errors; see
 * usage.h. The aggregates' options and their lines of the help text come
 * from the aggregate table (agg.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "window/agg.h"
#include "cli/usage.h"
#include "base/util.h"

/* The options besides the aggregates; longopts() appends those. */
static const struct option baseopts[] = {
	{ "format",		required_argument,	NULL, O_FORMAT },
	{ "csv",		no_argument,		NULL, O_CSV },
	{ "tsv",		no_argument,		NULL, O_TSV },
	{ "json",		no_argument,		NULL, O_JSON },
	{ "delimiter",		required_argument,	NULL, 'd' },
	{ "header",		no_argument,		NULL, 'H' },
	{ "follow",		no_argument,		NULL, 'F' },
	{ "key",		required_argument,	NULL, 'k' },
	{ "time",		required_argument,	NULL, 't' },
	{ "time-format",	required_argument,	NULL, O_TIMEFMT },
	{ "output-time",	required_argument,	NULL, O_OUTTIME },
	{ "tz",			required_argument,	NULL, O_TZ },
	{ "tumble",		required_argument,	NULL, O_TUMBLE },
	{ "slide",		required_argument,	NULL, O_SLIDE },
	{ "session",		required_argument,	NULL, O_SESSION },
	{ "cumulate",		required_argument,	NULL, O_CUMULATE },
	{ "count-window",	required_argument,	NULL, O_COUNTWIN },
	{ "offset",		required_argument,	NULL, O_OFFSET },
	{ "lateness",		required_argument,	NULL, 'l' },
	{ "allowed-lateness",	required_argument,	NULL, O_ALLOWED },
	{ "idle-timeout",	required_argument,	NULL, O_IDLE },
	{ "late-file",		required_argument,	NULL, O_LATEFILE },
	{ "flush",		no_argument,		NULL, O_FLUSH },
	{ "no-flush",		no_argument,		NULL, O_NOFLUSH },
	{ "global",		no_argument,		NULL, O_GLOBAL },
	{ "over",		required_argument,	NULL, O_OVER },
	{ "over-rows",		required_argument,	NULL, O_OVERROWS },
	{ "fill",		no_argument,		NULL, O_FILL },
	{ "top",		required_argument,	NULL, O_TOP },
	{ "top-by",		required_argument,	NULL, O_TOPBY },
	{ "emit-every",		required_argument,	NULL, O_EMITEVERY },
	{ "output-format",	required_argument,	NULL, O_OUTFMT },
	{ "output",		required_argument,	NULL, 'o' },
	{ "changelog",		no_argument,		NULL, O_CHANGELOG },
	{ "checkpoint",		required_argument,	NULL, O_CHECKPOINT },
	{ "checkpoint-every",	required_argument,	NULL, O_CKEVERY },
	{ "restore",		required_argument,	NULL, O_RESTORE },
	{ "state",		required_argument,	NULL, O_STATE },
	{ "new-input",		no_argument,		NULL, O_NEWINPUT },
	{ "inspect",		required_argument,	NULL, O_INSPECT },
	{ "strict",		no_argument,		NULL, O_STRICT },
	{ "bad-file",		required_argument,	NULL, O_BADFILE },
	{ "max-future",		required_argument,	NULL, O_MAXFUTURE },
	{ "stats",		no_argument,		NULL, O_STATS },
	{ "progress",		no_argument,		NULL, O_PROGRESS },
	{ "no-progress",	no_argument,		NULL, O_NOPROGRESS },
	{ "partition",		required_argument,	NULL, O_PARTITION },
	{ "threads",		required_argument,	NULL, O_THREADS },
	{ "explain",		required_argument,	NULL, O_EXPLAIN },
	{ "mode",		required_argument,	NULL, O_MODE },
	{ "max-memory",		required_argument,	NULL, O_MAXMEM },
	{ "where",		required_argument,	NULL, O_WHERE },
	{ "if",			required_argument,	NULL, O_IF },
	{ "as",			required_argument,	NULL, O_AS },
	{ "having",		required_argument,	NULL, O_HAVING },
	{ "eval",		required_argument,	NULL, O_EVAL },
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
};

#define NBASE (sizeof(baseopts) / sizeof(baseopts[0]))

/* Every long option: the base ones, then one per aggregate, then the
 * terminating zeros. Built once. */
const struct option *
longopts(void)
{
	static struct option all[NBASE + 64 + 1];
	const struct aggop *op;
	size_t i, n = NBASE;

	if (all[0].name != NULL)
		return all;
	memcpy(all, baseopts, sizeof(baseopts));
	for (i = 0; (op = agg_at(i)) != NULL && n < NBASE + 64; i++, n++) {
		all[n].name = op->option;
		all[n].has_arg = (op->flags & AGF_FIELD) ? required_argument :
		    no_argument;
		all[n].val = O_AGG + (int)i;
	}
	return all;
}

/* The aggregates' lines of the usage text, from the table. */
static void
usage_aggregates(FILE *fp)
{
	const struct aggop *op;
	char item[64];
	size_t i, col = 0, n;
	const char *arg;

	fputs("Aggregates (default --count):\n ", fp);
	for (i = 0; (op = agg_at(i)) != NULL; i++) {
		arg = (op->flags & AGF_OUT) ? "[:OUT]" :
		    (op->flags & AGF_PLIST) ? ":P[,P...]" :
		    (op->flags & AGF_HIST) ? ":B[,B...]" : "";
		n = (size_t)snprintf(item, sizeof(item), "%s--%s%s%s",
		    strcmp(op->option, "count") == 0 ? "-c, " : "", op->option,
		    (op->flags & AGF_FIELD) ? " F" : "", arg);
		if (col > 0 && col + n + 2 > 74) {
			fputs("\n ", fp);
			col = 0;
		}
		fprintf(fp, " %s", item);
		col += n + 2;
	}
	fputc('\n', fp);
}

void
usage(FILE *fp)
{
	fputs(
"usage: fwin [OPTION]... [FILE]...\n"
"Windowed aggregation of a record stream, with Flink's event-time semantics.\n"
"\n"
"Records:\n"
"  --format lines|csv|tsv|json  input format (default lines);\n"
"                           --csv, --tsv, --json\n"
"  -d, --delimiter C        field separator (one byte; '\\t' for TAB)\n"
"  -H, --header             the first record names the fields\n"
"  -F, --follow             follow the FILEs as tail -F does, side by side\n"
"  -k, --key FIELD[,FIELD]  key fields (repeatable)\n"
"Time:\n"
"  -t, --time FIELD[,FIELD] event time from FIELD (default: the wall clock);\n"
"                           several are joined by a space\n"
"  --time-format F          auto, s, ms, us, ns, iso, or a strptime format\n"
"  --output-time F          auto, s, ms, us, ns, iso\n"
"  --tz ZONE                time zone: IANA name, UTC (default), local\n"
"Windows:\n"
"  --tumble SIZE            tumbling windows\n"
"  --slide SIZE,STEP        sliding windows\n"
"  --cumulate SIZE,STEP     growing windows [S, S+STEP), [S, S+2*STEP), ...\n"
"  --session GAP            session windows per key\n"
"  --count-window N[,SLIDE] count windows per key (by arrival)\n"
"  --over D                 each record, with aggregates of its key's\n"
"                           records in [t - D, t]\n"
"  --over-rows N            each record, with aggregates of its key's\n"
"                           last N records\n"
"  (no window option: rolling mode, a running aggregate per record)\n"
"  --offset D               shift window alignment\n"
"  (SIZE, STEP: a duration or d, w, mo, q, y on the --tz calendar)\n"
"  -l, --lateness D         bounded out-of-orderness of the watermark\n"
"  --allowed-lateness A     keep fired windows until W >= end + A\n"
"  --late-file FILE         append dropped late records to FILE\n"
"  --idle-timeout D         idle input for D: W follows the wall clock\n"
"  --flush, --no-flush      fire open windows at end of input (or not)\n"
"  --global                 one window per key over the whole input\n"
"  --fill                   fire empty windows too, for every key\n"
"  --emit-every D           partial rows of open windows every D\n"
"  --top N                  of a window's rows, only the N first by --top-by\n"
"  --top-by NAME[:asc]      the column --top ranks by (default: the first\n"
"                           aggregate), largest first\n"
	, fp);
	usage_aggregates(fp);
	fputs(
"Expressions (see EXPRESSIONS in fwin(1)):\n"
"  --where EXPR             only records EXPR is true for enter windows\n"
"  --if EXPR                the aggregate before it takes only those records\n"
"  --as NAME                names the aggregate before it\n"
"  --having EXPR            print only rows EXPR is true for\n"
"  --eval NAME=EXPR         append a column computed from the row\n"
"Output:\n"
"  --output-format tsv|csv|json\n"
"  -o, --output FILE        append rows to FILE\n"
"  -o sqlite:DB[:TABLE]     upsert rows into TABLE (default fwin) of SQLite DB\n"
"  --changelog              a first column op: +I, -U/+U (a row again), -D\n"
"Checkpoints:\n"
"  --checkpoint FILE        save state to FILE (atomically)\n"
"  --checkpoint-every N|D   every N records or D of wall time (default 10s)\n"
"  --restore FILE           start from FILE's state\n"
"  --state FILE             --restore FILE if it exists, and --checkpoint FILE\n"
"  --new-input              after restore, skip no input\n"
"  --inspect FILE           describe a checkpoint and exit\n"
"Misc:\n"
"  --strict                 a bad record is fatal\n"
"  --bad-file FILE          append bad records to FILE, as they were read\n"
"  --max-future D           an event time more than D ahead of the clock is bad\n"
"  --stats                  print statistics to stderr at exit\n"
"  --progress, --no-progress  a progress line on stderr (default: when stderr\n"
"                           is a terminal and stdout is not)\n"
"  --mode auto|stream|batch batch: sort a file by time, nothing is late\n"
"  --max-memory SIZE        batch: records in memory; stream: the state\n"
"  --threads N              read and parse on a thread of their own when N > 1\n"
"                           (default: the CPUs fwin may use, at most 8)\n"
"Beyond one machine:\n"
"  --partition I/N          only the keys of the I-th of N partitions\n"
"  --explain flink-sql      print a Flink SQL script of the pipeline and exit\n"
"  --explain plan           print how fwin would run the pipeline and exit\n"
"  -h, --help  -V, --version\n"
"\n"
"See fwin(1).\n", fp);
}

void
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fwin: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'fwin --help' for more information.\n", stderr);
	exit(2);
}

/* Whether the bytes t[0..n) occur in s in this order. */
static int
in_order(const char *t, size_t n, const char *s)
{
	for (; n > 0 && *s != '\0'; s++)
		if (*s == *t) {
			t++;
			n--;
		}
	return n == 0;
}

/* Reports an option that getopt_long refused (ch is ':' for a missing
 * value), naming it as the user typed it. */
void
bad_option(int ch, const char *arg)
{
	const struct option *o;
	const char *best = NULL;
	size_t d, bestd = SIZE_MAX;
	int n;

	if (strncmp(arg, "--", 2) != 0) {
		if (ch == ':')
			usage_error("option '-%c' needs a value", optopt);
		usage_error("unknown option '-%c'", optopt);
	}
	n = (int)strcspn(arg, "=");
	if (ch == ':')
		usage_error("option '%.*s' needs a value", n, arg);
	for (o = longopts(); o->name != NULL; o++)
		if ((int)strlen(o->name) == n - 2 &&
		    strncmp(o->name, arg + 2, n - 2) == 0 && arg[n] == '=')
			usage_error("option '%.*s' takes no value", n, arg);
	/* the closest long option; of equals, one that has the typed
	 * letters in order (--cnt: --count, not --csv), else the first */
	for (o = longopts(); o->name != NULL; o++) {
		d = edit_distance(arg + 2, n - 2, o->name, strlen(o->name));
		if (d < bestd || (d == bestd && best != NULL &&
		    !in_order(arg + 2, n - 2, best) &&
		    in_order(arg + 2, n - 2, o->name))) {
			bestd = d;
			best = o->name;
		}
	}
	if (best != NULL && close_enough(bestd, n - 2))
		usage_error("unknown option '%.*s'; did you mean '--%s'?", n,
		    arg, best);
	usage_error("unknown option '%.*s'", n, arg);
}
