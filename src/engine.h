/* engine: the loop that ties input, windows, state and output together:
 * the watermark, lateness, firing order and end of input. */
#ifndef FWIN_ENGINE_H
#define FWIN_ENGINE_H

#include "config.h"

/* Runs the pipeline c over its input to the end. Returns the exit status
 * (0, 1 or 2); every message is printed. */
int engine_run(struct config *c);

#endif
