/* explain_notes: the leading comment of --explain flink-sql's script:
 * what Flink SQL does not keep exactly of fwin's semantics, for every
 * pipeline and for this one, each with the nearest equivalent (the man
 * page's BEYOND ONE MACHINE). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/explain_int.h"
#include "pipeline/expr.h"
#include "base/timefmt.h"
#include "base/util.h"

/* One item of the leading comment: "-- * " and the text, wrapped; in
 * the list of what always differs (always), or of this pipeline's. */
static void __attribute__((format(printf, 3, 4)))
note(struct ex *x, int always, const char *fmt, ...)
{
	FILE *f = x->notes[!always];
	char *text, *p, *w;
	size_t col = 0, n;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		fwin_oom();
	va_end(ap);
	fputs("-- *", f);
	col = 4;
	for (p = text; *p != '\0'; p = w) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		for (w = p; *w != '\0' && *w != ' '; w++)
			;
		n = (size_t)(w - p);
		if (col > 5 && col + 1 + n > 76) {
			fputs("\n--  ", f);
			col = 5;
		}
		fprintf(f, " %.*s", (int)n, p);
		col += 1 + n;
	}
	fputc('\n', f);
	free(text);
}

/* Whether an expression of c calls the function fn. */
static int
config_calls(const struct config *c, const char *fn)
{
	size_t i;

	if ((c->where != NULL && expr_calls(c->where, fn)) ||
	    (c->having != NULL && expr_calls(c->having, fn)))
		return 1;
	for (i = 0; i < c->naggs; i++)
		if (c->aggs[i].cond != NULL && expr_calls(c->aggs[i].cond, fn))
			return 1;
	for (i = 0; i < c->nevals; i++)
		if (expr_calls(c->evals[i].e, fn))
			return 1;
	return 0;
}

int
ex_is_by(const struct aggspec *a)
{
	return strcmp(a->op->option, "min-by") == 0 ||
	    strcmp(a->op->option, "max-by") == 0;
}

static int
has_agg(const struct config *c, const char *opt)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (strcmp(c->aggs[i].op->option, opt) == 0)
			return 1;
	return 0;
}

/* Whether a min-by or max-by prints the whole record (no OUT). */
int
ex_by_whole(const struct config *c)
{
	size_t i;

	for (i = 0; i < c->naggs; i++)
		if (ex_is_by(&c->aggs[i]) && !c->aggs[i].has_out)
			return 1;
	return 0;
}

/* What differs in this pipeline's windows and firing. */
static void
window_notes(struct ex *x)
{
	const struct config *c = x->c;
	char d[TF_BUFSZ];
	int cal = 0, fixed = 0;

	if (c->wkind == WK_TUMBLE || c->wkind == WK_SLIDE ||
	    c->wkind == WK_CUMULATE) {
		cal = c->usize.kind != CAL_FIXED || c->ustep.kind != CAL_FIXED;
		fixed = c->usize.kind == CAL_FIXED;	/* a step counts
							   from the start */
	}
	if (!c->zone.utc)
		note(x, 0, "--tz %s: it is the session time zone "
		    "('table.local-time-zone')%s; Flink prints window bounds "
		    "as TIMESTAMP(3) times of that zone, without an offset%s.",
		    c->zone.name, x->tfmt == TF_ISO || x->tfmt == TF_STRPTIME ?
		    "; times written without an offset are read in it (a "
		    "TIMESTAMP cast to TIMESTAMP_LTZ)" : "",
		    (c->having != NULL || c->nevals > 0) &&
		    ex_bound_format(x) == TF_ISO ? "; --having and --eval "
		    "read a bound's ISO text with the offset of its wall clock "
		    "time (CONVERT_TZ), which in an hour that the zone "
		    "repeats may be the other of fwin's two" : "");
	if (cal)
		note(x, 0, "Calendar days and weeks (d, w) are windows of "
		    "INTERVAL days: Flink aligns windows over a TIMESTAMP_LTZ "
		    "time to the epoch in the session time zone, so they "
		    "start at local midnight as fwin's do%s; check the days "
		    "that change the zone's offset (summer time), which fwin "
		    "makes 23 and 25 hours long.", c->usize.kind == CAL_WEEK ||
		    c->ustep.kind == CAL_WEEK ? "; weeks start on Monday by "
		    "an offset of -3 days (1970-01-01 was a Thursday)" : "");
	if (!c->zone.utc && fixed)
		note(x, 0, "Fixed sizes: fwin counts them from the epoch in "
		    "UTC, Flink from the epoch in the session time zone: the "
		    "windows agree when the size divides the zone's offsets "
		    "from UTC (whole hours, in a zone of whole hours).");
	if (c->wkind == WK_GLOBAL)
		note(x, 0, "--global: a GROUP BY of the keys, not a window: "
		    "Flink emits an updated row for a key as its records "
		    "arrive (an updating result: the print connector shows "
		    "-U and +U rows), fwin one row per key at the end of "
		    "input. Its bounds are the key's earliest and latest %s. "
		    "Nearest to fwin: 'execution.runtime-mode' = 'batch' "
		    "over the bounded file, which emits each key's row "
		    "once%s.", c->has_time ? "event time" : "processing time "
		    "(fwin's: the run's start and end, for every key)",
		    c->output != NULL ? "; in streaming mode a filesystem "
		    "sink takes no updates (use upsert-kafka, or jdbc with a "
		    "PRIMARY KEY)" : "");
	if (c->top_n > 0)
		note(x, 0, "--top %llu: a window Top-N, ROW_NUMBER() over each "
		    "window's rows%s, empty cells (NULL) last; ties go to the "
		    "smaller key, compared as strings, as fwin's.",
		    (unsigned long long)c->top_n, c->wkind == WK_GLOBAL ?
		    " (with --global over the updating rows: Flink retracts "
		    "and re-emits ranks as they change)" : "");
	if (over_window(c) && c->has_time)
		note(x, 0, "%s: Flink's bounded OVER operators judge lateness "
		    "per key (a row is dropped when its time is not after the "
		    "last time its key has emitted) and drop rows at or "
		    "before time 0; fwin judges lateness by the watermark, as "
		    "for windows, and keeps times before 1970. Both print a "
		    "record once the watermark passes its time.",
		    c->wkind == WK_OVER ? "--over" : "--over-rows");
	if (c->fill)
		note(x, 0, "--fill: Flink emits no row for a window without "
		    "records, where fwin prints 0 and empty cells. Nearest: a "
		    "LEFT JOIN to this result from a table of every window and "
		    "key.");
	tf_format_duration(d, c->emit_every);
	if (c->emit_every > 0 && c->wkind == WK_GLOBAL)
		note(x, 0, "--emit-every %s: Flink's updating result already "
		    "emits as records arrive; the final column is not "
		    "written%s.", d, c->having != NULL ? " (--having reads it "
		    "as 1)" : "");
	else if (c->emit_every > 0)
		note(x, 0, "--emit-every %s: window table functions emit final "
		    "rows only; this script prints them, without the final "
		    "column%s. Nearest for partial rows: a CUMULATE window with "
		    "that step over each window, or on a legacy GROUP BY "
		    "window the experimental 'table.exec.emit.early-fire."
		    "enabled' = 'true' with 'table.exec.emit.early-fire.delay' "
		    "= '%lld ms'.", d, c->having != NULL ? " (--having reads "
		    "it as 1)" : "", (long long)(c->emit_every / MS));
}

/* What differs in this pipeline's aggregates. */
static void
agg_notes(struct ex *x)
{
	const struct config *c = x->c;

	if (has_agg(c, "stddev") || has_agg(c, "var") ||
	    has_agg(c, "stddev-pop") || has_agg(c, "var-pop"))
		note(x, 0, "STDDEV_SAMP, VAR_SAMP, STDDEV_POP and VAR_POP "
		    "compute in DOUBLE; fwin computes from exact sums: "
		    "results may differ in the last digits.");
	if (has_agg(c, "median") || has_agg(c, "percentile") ||
	    has_agg(c, "approx-percentile"))
		note(x, 0, "Percentiles: PERCENTILE(f, P/100) is Flink 2.0's "
		    "(Flink 1.x has none: a user-defined aggregate function "
		    "is the nearest); it interpolates between the closest "
		    "ranks as fwin does.%s", has_agg(c, "approx-percentile") ?
		    " It is exact where fwin's --approx-percentile (a "
		    "DDSketch) is within 1% of the value." : "");
	if (has_agg(c, "approx-distinct"))
		note(x, 0, "--approx-distinct: COUNT(DISTINCT f) is exact; "
		    "Flink's APPROX_COUNT_DISTINCT, a HyperLogLog as fwin's, "
		    "runs only with 'execution.runtime-mode' = 'batch'.");
}

/* What differs in this pipeline's expressions. */
static void
expr_notes(struct ex *x)
{
	const struct config *c = x->c;

	if (c->where != NULL || c->having != NULL || c->nevals > 0 ||
	    config_has_cond(c))
		note(x, 0, "Expressions: fwin reads a field as a number when "
		    "its text is one and compares numbers as numbers, else "
		    "text as bytes; the source's columns are STRING, so the "
		    "script casts a field to DOUBLE where it meets a number "
		    "or arithmetic, and compares it as a string elsewhere "
		    "(fields that hold numbers compared with each other: "
		    "CAST them). A value in a boolean place is true in fwin "
		    "when it is text or a number other than 0.");
	if (c->nevals > 0)
		note(x, 0, "--eval: a number is a DOUBLE column, which Flink "
		    "prints with a fraction (2.0 where fwin prints 2).");
	if (config_calls(c, "len"))
		note(x, 0, "len(s) counts bytes; the script's POSITION(CHR(0) IN "
		    "CONCAT(s, CHR(0))) - 1 is CHAR_LENGTH(s), which counts "
		    "characters, written so that grammars which reserve "
		    "CHAR_LENGTH read it (for text without NUL bytes).");
}

/* What differs in time: the watermark, firing, lateness, formats. */
static void
time_notes(struct ex *x)
{
	const struct config *c = x->c;

	if (c->has_time) {
		note(x, 1, "Watermark: fwin advances it after every record; "
		    "Flink emits it periodically (pipeline.auto-watermark-"
		    "interval, 200 ms), so a record fwin drops as late may be "
		    "on time in Flink. Nearest: 'scan.watermark.emit."
		    "strategy' = 'on-event' (Flink 1.18+, sources that "
		    "support it).");
		note(x, 1, "Firing: Flink fires a window when the watermark "
		    "reaches its end less 1 ms, fwin when it reaches its end; "
		    "the watermark's delay is therefore -l plus 1 ms, which "
		    "keeps fwin's rule for times in whole milliseconds.");
		note(x, 1, "Late records: Flink drops them without a word (the "
		    "numLateRecordsDropped metric); fwin counts them at "
		    "exit%s.", c->late_file != NULL ?
		    " and writes them to --late-file; Flink SQL has no "
		    "counterpart of the late file (the DataStream API's "
		    "sideOutputLateData is the nearest)" : "");
		note(x, 1, "Time precision: Flink's event time is in "
		    "milliseconds; fwin keeps the input's unit%s.",
		    x->tfmt == TF_US || x->tfmt == TF_NS ?
		    " (this input's times are truncated to milliseconds)" : "");
		if (x->tfmt == TF_S)
			note(x, 0, "Epoch seconds are read as whole seconds; for "
			    "fractions use TO_TIMESTAMP_LTZ(CAST(CAST(t AS "
			    "DECIMAL(20, 3)) * 1000 AS BIGINT), 3).");
		if (x->tfmt == TF_ISO)
			note(x, 0, "ISO times are read as %s ('T' and 'Z' "
			    "removed); a time with another offset needs "
			    "TO_TIMESTAMP(t, pattern) with its offset%s.",
			    c->zone.utc ? "UTC" : "times of the session "
			    "time zone, a 'Z' too", c->zone.utc ? ", or "
			    "'table.local-time-zone'" : "");
		if (x->tfmt == TF_STRPTIME)
			note(x, 0, "The strptime format is translated to a Java "
			    "DateTimeFormatter pattern; an offset it reads "
			    "(%%z) is not applied: times are UTC.");
		note(x, 1, "Stream and batch: this is a streaming job, as fwin "
		    "runs the pipeline (late records dropped); with "
		    "'execution.runtime-mode' = 'batch' Flink sorts a bounded "
		    "input by time and drops no record as late.");
	} else {
		note(x, 0, "Processing time: windows follow the wall clock of "
		    "each Flink task%s.", c->lateness > 0 ?
		    "; fwin's -l with processing time (the clock less -l) "
		    "has no counterpart: windows fire at their end" : "");
	}
}

/* What differs in the values aggregates print. */
static void
value_notes(struct ex *x)
{
	const struct config *c = x->c;

	if (has_agg(c, "sum") || has_agg(c, "avg"))
		note(x, 0, "Sums: fwin sums decimals exactly (SQL's DECIMAL) and "
		    "prints them without trailing zeros; here they are DOUBLE. "
		    "Nearest: CAST(f AS DECIMAL(38, S)) with S the data's "
		    "decimals (printed with S of them).");
	if (has_agg(c, "min") || has_agg(c, "max"))
		note(x, 0, "min and max: fwin prints the value as the input "
		    "wrote it; here it is the DOUBLE (2.50 prints 2.5).");
	if (has_agg(c, "first") || has_agg(c, "last"))
		note(x, 0, "FIRST_VALUE and LAST_VALUE follow the order in which "
		    "records reach the aggregate: the input's order only with "
		    "parallelism 1 (SET 'parallelism.default' = '1').");
	if (x->byjoin)
		note(x, 0, "min-by and max-by: the window's Top-1 by ROW_NUMBER(), "
		    "joined to the window's row; ties go to the earlier event "
		    "time (fwin: the first record to arrive);%s a key with an "
		    "empty field is NULL here and its cell stays empty.",
		    ex_by_whole(c) ? " the whole record is rebuilt from its "
		    "columns (quotes are not);" : "");
}

/* What differs in reading the input. */
static void
input_notes(struct ex *x)
{
	const struct config *c = x->c;

	if (c->fmt == IF_JSON)
		note(x, 0, "--json: the json format reads each path's value as a "
		    "STRING (a number as its text), nested objects as ROW "
		    "types and a nested path as a computed column; a line that "
		    "is not a JSON object fails the job (fwin skips and "
		    "reports it), or with 'json.ignore-parse-errors' = 'true' "
		    "is skipped without a word.");
	if (c->header)
		note(x, 0, "-H: Flink's csv format has no header option: remove "
		    "the header line before Flink reads the file (tail -n +2), "
		    "and no header row is written.");
	if (!c->header && c->fmt != IF_JSON)
		note(x, 0, "Columns: without -H they are named f1 to f%zu, the "
		    "last one the pipeline uses; Flink's csv format maps "
		    "columns by position, so declare the input's later "
		    "columns after them.", x->ncols);
	if (c->fmt == IF_LINES && c->delim < 0)
		note(x, 0, "Fields split on runs of blanks: Flink's csv format "
		    "splits on every space; squeeze them first (tr -s ' \\t' "
		    "' ').");
	if (c->follow)
		note(x, 0, "--follow: with 'source.monitor-interval' Flink's "
		    "filesystem source follows new files in a directory, not "
		    "the bytes appended to a file, nor a file renamed away and "
		    "created again: give the directory the files are rotated "
		    "into as the path, or, faithfully, read the log through the "
		    "Kafka topic (the commented alternative). Flink too keeps a "
		    "watermark per split and their minimum, as fwin does per "
		    "FILE.");
	if (c->nfiles > 1 && !c->follow)
		note(x, 0, "fwin reads its %d FILEs in order as one stream; Flink "
		    "reads a directory's files in no order: put them in one "
		    "directory and give its path.", c->nfiles);
	if (c->nfiles == 0 || (c->nfiles == 1 && strcmp(c->files[0], "-") ==
	    0))
		note(x, 0, "Standard input has no Flink counterpart: give a file "
		    "or directory as the path, or the Kafka topic.");
}

void
ex_notes(struct ex *x)
{
	const struct config *c = x->c;
	char d[TF_BUFSZ];

	expr_notes(x);
	time_notes(x);
	if (c->allowed > 0) {
		snprintf(d, sizeof(d), "%lld ms",
		    (long long)((c->allowed + MS - 1) / MS));
		note(x, 0, "Allowed lateness (--allowed-lateness) and re-firing "
		    "a window with each late record: window table functions "
		    "have neither. Nearest: a larger watermark delay, or the "
		    "experimental 'table.exec.emit.allow-lateness' = '%s' with "
		    "'table.exec.emit.late-fire.enabled' = 'true' on a legacy "
		    "GROUP BY window.", d);
	}
	if (c->idle_timeout > 0)
		note(x, 0, "Idle firing (--idle-timeout): fwin moves the "
		    "watermark with the wall clock once input is idle; Flink "
		    "does not. 'table.exec.source.idle-timeout' only lets "
		    "other source splits' watermarks proceed; nothing fires "
		    "until records arrive.");
	value_notes(x);
	window_notes(x);
	agg_notes(x);
	if (c->wkind == WK_SESSION)
		note(x, 0, "Sessions are a legacy GROUP BY SESSION window; Flink "
		    "1.19+ also has the window table function: TABLE(SESSION("
		    "TABLE source PARTITION BY keys, DESCRIPTOR(time), gap)).");
	if (c->wkind == WK_SLIDE && x->legacy)
		note(x, 0, "The step does not divide the size: HOP as a window "
		    "table function needs it to, so this is a legacy GROUP BY "
		    "HOP window.");
	if (c->checkpoint != NULL || c->flush == 0)
		note(x, 0, "Cron replay of a growing file (--checkpoint, --state): "
		    "fwin resumes from the bytes an earlier run consumed and "
		    "keeps open windows unfired. Nearest: one long-running job "
		    "with checkpoints over a Kafka topic, or "
		    "'source.monitor-interval' for new files in a directory "
		    "(a file that grows is not re-read); stop it with a "
		    "savepoint and restore from it.");
	input_notes(x);
	note(x, 1, "Bad records: fwin skips and reports each one; a value that "
	    "does not CAST fails the Flink job%s. Nearest: TRY_CAST, which "
	    "makes it NULL and keeps the record.", c->strict ?
	    " (as --strict does)" : "");
	note(x, 1, "Output: fwin prints rows in (end, start, key) order and the "
	    "bounds as --output-time says; Flink's rows come in no defined "
	    "order across parallel tasks, with TIMESTAMP(3) bounds%s.",
	    c->output == NULL ? ", on the task managers' standard output "
	    "(the print connector)" : " (a filesystem sink writes a "
	    "directory of part files, committed at checkpoints)");
	if (c->part_n > 1)
		note(x, 0, "--partition %u/%u: Flink spreads keys over parallel "
		    "tasks by key group itself; run this script with "
		    "parallelism %u instead.", c->part_i, c->part_n, c->part_n);
}

