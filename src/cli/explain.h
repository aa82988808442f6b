/* explain: the pipeline as a script for another engine, instead of a run
 * (--explain; the man page's BEYOND ONE MACHINE). */
#ifndef FWIN_EXPLAIN_H
#define FWIN_EXPLAIN_H

#include <stdio.h>

#include "pipeline/config.h"

/* Writes to out a Flink SQL script that runs the pipeline c on Apache
 * Flink: a source table over the input, a sink table, and the INSERT that
 * windows and aggregates, led by a comment that lists what Flink SQL does
 * not keep exactly. Reads at most the input's header (-H) and, with
 * --time-format auto, its records up to the first whose time tells the
 * format. Returns the exit status: 0; 1 (the input could not be read);
 * 2 (a pipeline with no Flink SQL counterpart, said on stderr). */
int explain_flink_sql(struct config *c, FILE *out);

#endif
