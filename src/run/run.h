/* run: the driver. It owns the loop on top of the window operator: read
 * records, parse their keys, times and values, wait in poll(2) for input
 * or the next timer, advance the watermark, handle signals, schedule
 * checkpoints, and write rows and late records. */
#ifndef FWIN_RUN_H
#define FWIN_RUN_H

#include "pipeline/config.h"
#include "exec/plan.h"

/* Runs the pipeline c over its input to the end, with the strategy plan
 * p chose (plan.h). Returns the exit status (0, 1 or 2); every message
 * is printed. */
int run_pipeline(struct config *c, const struct plan *p);

#endif
