/* guard: fwin never destroys what is not its own. Before a run creates
 * or changes anything (a lock file, a temporary file, a row), the paths
 * it will write are checked (see "Checkpoints" in fwin(1)). */
#ifndef FWIN_GUARD_H
#define FWIN_GUARD_H

#include "pipeline/config.h"

/* Whether a path c writes (--checkpoint, -o, -o sqlite:'s database,
 * --late-file) names one of
 * its inputs, the --restore checkpoint, or another of those paths, links
 * followed. Returns NULL, or the usage error's text in malloc'd memory:
 * "--checkpoint names the input app.log", "--checkpoint and -o both name
 * X". state: the checkpoint was given as --state. */
char *guard_clash(const struct config *c, int state);

/* An existing --checkpoint FILE must be a regular file holding an fwin
 * checkpoint of this pipeline (fingerprint); *replaced is set when it
 * is one that no --restore continues (the caller says so once it holds
 * the lock). Returns 0, or the exit status after a message: 1 for
 * another program's file, a damaged checkpoint or not a regular file, 2
 * for another pipeline's checkpoint. */
int guard_checkpoint(const struct config *c, const char *fingerprint,
    int *replaced);

/* An existing -o, --late-file or --bad-file FILE must not be an fwin
 * checkpoint (rows appended would destroy it). Returns 0, or 1 after a
 * message. */
int guard_outputs(const struct config *c);

#endif
