/* usage: the options fwin knows, its --help text, and how a usage error
 * is told: one line naming the problem (with the closest option for a
 * mistyped one), a pointer to --help, exit status 2. Only cli.c uses
 * it. */
#ifndef FWIN_USAGE_H
#define FWIN_USAGE_H

#include <getopt.h>
#include <stdio.h>

enum {
	O_FORMAT = 256, O_CSV, O_TSV, O_TIMEFMT, O_OUTTIME, O_TUMBLE, O_SLIDE,
	O_OFFSET, O_ALLOWED, O_LATEFILE, O_FLUSH, O_NOFLUSH, O_GLOBAL, O_FILL,
	O_TOP, O_TOPBY, O_EMITEVERY,
	O_OUTFMT, O_STRICT, O_MAXFUTURE, O_STATS, O_PROGRESS, O_NOPROGRESS, O_SESSION, O_COUNTWIN, O_IDLE,
	O_CHECKPOINT, O_CKEVERY, O_RESTORE, O_STATE, O_NEWINPUT, O_INSPECT,
	O_TZ, O_CUMULATE, O_JSON, O_PARTITION, O_EXPLAIN,
	O_MODE, O_MAXMEM, O_THREADS, O_OVER, O_OVERROWS, O_CHANGELOG,
	O_WHERE, O_IF, O_AS, O_HAVING, O_EVAL, O_BADFILE,
	O_AGG = 512		/* O_AGG + i: the aggregate table's i-th entry */
};

/* Every long option for getopt_long: the base ones, then one per entry
 * of the aggregate table (O_AGG + its index), then the zeros. */
const struct option *longopts(void);

/* Prints the --help text to fp. */
void usage(FILE *fp);

/* Prints "fwin: ", the message and the --help pointer; exit status 2. */
void usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* Reports an option getopt_long refused (ch is ':' for a missing value),
 * naming it as the user typed it (arg), then exits as usage_error. */
void bad_option(int ch, const char *arg) __attribute__((noreturn));

/* cliexpr.c: --where, --if, --as, --having, --eval into c. Returns
 * whether ch was one of them. */
struct config;
int cli_expr_option(struct config *c, int ch, const char *arg);

#endif
