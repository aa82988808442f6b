/* fwin: windowed aggregation of record streams, with the semantics of
 * Apache Flink's event-time windows. This file is the command line: it
 * turns options into a struct config and hands it to the engine. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "timefmt.h"

#define FWIN_VERSION "0.1.0"

enum {
	O_FORMAT = 256, O_CSV, O_TSV, O_TIMEFMT, O_OUTTIME, O_TUMBLE, O_SLIDE,
	O_OFFSET, O_ALLOWED, O_LATEFILE, O_FLUSH, O_NOFLUSH, O_SUM, O_AVG,
	O_MIN, O_MAX, O_FIRST, O_LAST, O_DISTINCT, O_MINBY, O_MAXBY,
	O_OUTFMT, O_STRICT, O_STATS
};

static const struct option longopts[] = {
	{ "format",		required_argument,	NULL, O_FORMAT },
	{ "csv",		no_argument,		NULL, O_CSV },
	{ "tsv",		no_argument,		NULL, O_TSV },
	{ "delimiter",		required_argument,	NULL, 'd' },
	{ "header",		no_argument,		NULL, 'H' },
	{ "key",		required_argument,	NULL, 'k' },
	{ "time",		required_argument,	NULL, 't' },
	{ "time-format",	required_argument,	NULL, O_TIMEFMT },
	{ "output-time",	required_argument,	NULL, O_OUTTIME },
	{ "tumble",		required_argument,	NULL, O_TUMBLE },
	{ "slide",		required_argument,	NULL, O_SLIDE },
	{ "offset",		required_argument,	NULL, O_OFFSET },
	{ "lateness",		required_argument,	NULL, 'l' },
	{ "allowed-lateness",	required_argument,	NULL, O_ALLOWED },
	{ "late-file",		required_argument,	NULL, O_LATEFILE },
	{ "flush",		no_argument,		NULL, O_FLUSH },
	{ "no-flush",		no_argument,		NULL, O_NOFLUSH },
	{ "count",		no_argument,		NULL, 'c' },
	{ "sum",		required_argument,	NULL, O_SUM },
	{ "avg",		required_argument,	NULL, O_AVG },
	{ "min",		required_argument,	NULL, O_MIN },
	{ "max",		required_argument,	NULL, O_MAX },
	{ "first",		required_argument,	NULL, O_FIRST },
	{ "last",		required_argument,	NULL, O_LAST },
	{ "distinct",		required_argument,	NULL, O_DISTINCT },
	{ "min-by",		required_argument,	NULL, O_MINBY },
	{ "max-by",		required_argument,	NULL, O_MAXBY },
	{ "output-format",	required_argument,	NULL, O_OUTFMT },
	{ "output",		required_argument,	NULL, 'o' },
	{ "strict",		no_argument,		NULL, O_STRICT },
	{ "stats",		no_argument,		NULL, O_STATS },
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL,			0,			NULL, 0 }
};

static void
usage(FILE *fp)
{
	fputs(
"usage: fwin [OPTION]... [FILE]...\n"
"Windowed aggregation of a record stream, with Flink's event-time semantics.\n"
"\n"
"Records:\n"
"  --format lines|csv|tsv   input format (default lines); --csv, --tsv\n"
"  -d, --delimiter C        field separator (one byte; '\\t' for TAB)\n"
"  -H, --header             the first record names the fields\n"
"  -k, --key FIELD[,FIELD]  key fields (repeatable)\n"
"Time:\n"
"  -t, --time FIELD         event time from FIELD (default: the wall clock)\n"
"  --time-format F          auto, s, ms, us, ns, iso, or a strptime format\n"
"  --output-time F          auto, s, ms, us, ns, iso\n"
"Windows:\n"
"  --tumble SIZE            tumbling windows\n"
"  --slide SIZE,STEP        sliding windows\n"
"  --offset D               shift window alignment\n"
"  -l, --lateness D         bounded out-of-orderness of the watermark\n"
"  --allowed-lateness A     keep fired windows until W >= end + A\n"
"  --late-file FILE         append dropped late records to FILE\n"
"  --flush, --no-flush      fire open windows at end of input (or not)\n"
"Aggregates (default --count):\n"
"  -c, --count  --sum F  --avg F  --min F  --max F  --first F  --last F\n"
"  --distinct F  --min-by F[:OUT]  --max-by F[:OUT]\n"
"Output:\n"
"  --output-format tsv|csv|json\n"
"  -o, --output FILE        append rows to FILE\n"
"  --strict                 a bad record is fatal\n"
"  --stats                  print statistics to stderr at exit\n"
"  -h, --help  -V, --version\n"
"\n"
"See fwin(1).\n", fp);
}

static void __attribute__((format(printf, 1, 2), noreturn))
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

static int64_t
duration(const char *opt, const char *s, int allow_neg, int positive)
{
	int64_t ns;

	if (tf_parse_duration(s, allow_neg, &ns) != 0)
		usage_error("%s: bad duration '%s'", opt, s);
	if (positive && ns <= 0)
		usage_error("%s: '%s' must be greater than zero", opt, s);
	return ns;
}

static void
add_field(struct config *c, struct fieldref *f, const char *spec,
    const char *opt)
{
	if (config_field(c, f, spec, opt) != 0)
		exit(2);
}

static void
add_agg(struct config *c, enum aggkind kind, char *arg, const char *opt)
{
	struct aggspec *a;
	char *colon;

	c->aggs = realloc(c->aggs, (c->naggs + 1) * sizeof(*c->aggs));
	if (c->aggs == NULL)
		abort();
	a = &c->aggs[c->naggs++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	if (kind == AG_COUNT)
		return;
	if ((kind == AG_MIN_BY || kind == AG_MAX_BY) &&
	    (colon = strchr(arg, ':')) != NULL) {
		*colon = '\0';
		a->has_out = 1;
		add_field(c, &a->out, colon + 1, opt);
	}
	add_field(c, &a->f, arg, opt);
}

static void
add_keys(struct config *c, char *arg)
{
	char *tok;

	for (tok = strsep(&arg, ","); tok != NULL; tok = strsep(&arg, ",")) {
		c->keys = realloc(c->keys, (c->nkeys + 1) * sizeof(*c->keys));
		if (c->keys == NULL)
			abort();
		memset(&c->keys[c->nkeys], 0, sizeof(*c->keys));
		add_field(c, &c->keys[c->nkeys++], tok, "-k");
	}
}

static void
set_window(struct config *c, enum wkind k, const char *opt)
{
	static const char *first;

	if (c->wkind != WK_NONE)
		usage_error("%s and %s cannot be used together", first, opt);
	c->wkind = k;
	first = opt;
}

static void
parse_slide(struct config *c, const char *arg)
{
	char *copy = strdup(arg), *comma;

	if (copy == NULL)
		abort();
	if ((comma = strchr(copy, ',')) == NULL)
		usage_error("--slide: '%s' is not SIZE,STEP", arg);
	*comma = '\0';
	c->size = duration("--slide", copy, 0, 1);
	c->step = duration("--slide", comma + 1, 0, 1);
	free(copy);
}

int
main(int argc, char **argv)
{
	struct config c;
	int ch, status;
	char opt[3] = "-?";
	const char *prev;

	memset(&c, 0, sizeof(c));
	c.delim = -1;
	c.flush = -1;
	c.time_fmt = TF_AUTO;
	c.out_time = TF_AUTO;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":d:Hk:t:l:co:hV", longopts,
	    NULL)) != -1) {
		/* the option a message names: "-x", or the long one as given */
		opt[1] = (char)optopt;
		prev = optopt > 0 && optopt < 256 ? opt : argv[optind - 1];
		switch (ch) {
		case O_FORMAT:
			if (strcmp(optarg, "lines") == 0)
				c.fmt = IF_LINES;
			else if (strcmp(optarg, "csv") == 0)
				c.fmt = IF_CSV;
			else if (strcmp(optarg, "tsv") == 0)
				c.fmt = IF_TSV;
			else
				usage_error("--format: unknown format '%s'", optarg);
			break;
		case O_CSV:
			c.fmt = IF_CSV;
			break;
		case O_TSV:
			c.fmt = IF_TSV;
			break;
		case 'd':
			if (strcmp(optarg, "\\t") == 0)
				c.delim = '\t';
			else if (strlen(optarg) == 1 && optarg[0] != '\n' &&
			    optarg[0] != '\r' && optarg[0] != '"')
				c.delim = (unsigned char)optarg[0];
			else
				usage_error("-d: '%s' is not a single-byte "
				    "delimiter", optarg);
			break;
		case 'H':
			c.header = 1;
			break;
		case 'k':
			add_keys(&c, optarg);
			break;
		case 't':
			c.has_time = 1;
			add_field(&c, &c.time, optarg, "-t");
			break;
		case O_TIMEFMT:
			if (tf_parse_name(optarg, &c.time_fmt) != 0)
				usage_error("--time-format: unknown format '%s'", optarg);
			if (c.time_fmt == TF_STRPTIME)
				c.strp = optarg;
			break;
		case O_OUTTIME:
			if (tf_parse_name(optarg, &c.out_time) != 0 ||
			    c.out_time == TF_STRPTIME)
				usage_error("--output-time: unknown format '%s'", optarg);
			break;
		case O_TUMBLE:
			set_window(&c, WK_TUMBLE, "--tumble");
			c.size = c.step = duration("--tumble", optarg, 0, 1);
			break;
		case O_SLIDE:
			set_window(&c, WK_SLIDE, "--slide");
			parse_slide(&c, optarg);
			break;
		case O_OFFSET:
			c.offset = duration("--offset", optarg, 1, 0);
			break;
		case 'l':
			c.lateness = duration("--lateness", optarg, 0, 0);
			break;
		case O_ALLOWED:
			c.allowed = duration("--allowed-lateness", optarg, 0, 0);
			break;
		case O_LATEFILE:
			c.late_file = optarg;
			break;
		case O_FLUSH:
			c.flush = 1;
			break;
		case O_NOFLUSH:
			c.flush = 0;
			break;
		case 'c':
			add_agg(&c, AG_COUNT, NULL, "--count");
			break;
		case O_SUM:
			add_agg(&c, AG_SUM, optarg, "--sum");
			break;
		case O_AVG:
			add_agg(&c, AG_AVG, optarg, "--avg");
			break;
		case O_MIN:
			add_agg(&c, AG_MIN, optarg, "--min");
			break;
		case O_MAX:
			add_agg(&c, AG_MAX, optarg, "--max");
			break;
		case O_FIRST:
			add_agg(&c, AG_FIRST, optarg, "--first");
			break;
		case O_LAST:
			add_agg(&c, AG_LAST, optarg, "--last");
			break;
		case O_DISTINCT:
			add_agg(&c, AG_DISTINCT, optarg, "--distinct");
			break;
		case O_MINBY:
			add_agg(&c, AG_MIN_BY, optarg, "--min-by");
			break;
		case O_MAXBY:
			add_agg(&c, AG_MAX_BY, optarg, "--max-by");
			break;
		case O_OUTFMT:
			c.outfmt_set = 1;
			if (strcmp(optarg, "tsv") == 0)
				c.outfmt = OF_TSV;
			else if (strcmp(optarg, "csv") == 0)
				c.outfmt = OF_CSV;
			else if (strcmp(optarg, "json") == 0)
				c.outfmt = OF_JSON;
			else
				usage_error("--output-format: unknown format "
				    "'%s'", optarg);
			break;
		case 'o':
			c.output = optarg;
			break;
		case O_STRICT:
			c.strict = 1;
			break;
		case O_STATS:
			c.stats = 1;
			break;
		case 'h':
			usage(stdout);
			return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
		case 'V':
			puts("fwin " FWIN_VERSION);
			return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
		case ':':
			usage_error("option '%s' needs a value", prev);
			break;
		default:
			usage_error("unknown option '%s'", prev);
		}
	}
	if (c.wkind == WK_NONE)
		usage_error("a window is needed: --tumble SIZE or "
		    "--slide SIZE,STEP%s%s", "", "");
	if (c.naggs == 0)
		add_agg(&c, AG_COUNT, NULL, "--count");
	c.files = argv + optind;
	c.nfiles = argc - optind;
	status = engine_run(&c);
	config_free(&c);
	return status;
}
