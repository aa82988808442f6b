/* oom: what running out of memory does. An allocation that the code
 * cannot do without ends fwin with a message and exit status 1, a runtime
 * failure (SPEC §9), never with abort(3): a crash would say nothing a user
 * can act on and leave a core dump. Output not yet written is lost, and
 * the checkpoint is the last one saved, which a later run resumes from. */
#ifndef FWIN_OOM_H
#define FWIN_OOM_H

#include <stdio.h>
#include <stdlib.h>

static inline void __attribute__((noreturn))
fwin_oom(void)
{
	fputs("fwin: out of memory\n", stderr);
	exit(1);
}

#endif
