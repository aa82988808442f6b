/* persist: when and how a run saves its checkpoint, and how it takes a
 * checkpoint's state back — the driver's side of ckpt.c. Saves are
 * periodic (every N records, or every D of wall time, checked every 1024
 * records), on SIGUSR1, and at exit; a periodic save runs in a fork(2)
 * child (Redis's BGSAVE) while the run goes on. */
#ifndef FWIN_PERSIST_H
#define FWIN_PERSIST_H

#include <sys/types.h>

#include <stdint.h>

#include "pipeline/config.h"
#include "io/input.h"
#include "window/operator.h"

struct persist {
	const struct config *c;
	const char *fingerprint;	/* the pipeline's definition */
	uint64_t generation;	/* of the last checkpoint saved or restored */
	uint64_t since_save;	/* records since the last check */
	uint64_t save_check;	/* records between checks of the clock */
	int64_t next_save;	/* wall time of the next periodic save */
	int failed;		/* a save failed: the exit status is 1 */
	pid_t saver;		/* a background save's writer, or 0 */
	uint64_t outlen, latelen;	/* restored output lengths */
	struct ckpt *ck;	/* opened to restore, until adopted */
	struct lock *ckl, *outl;	/* one writer: the checkpoint, -o */
	char *savepath;		/* the checkpoint, its links followed */
	int replaced;		/* it holds earlier state no restore takes */
	int saved_last;		/* the run's last save was made (at its end) */
	char *sqlname;		/* -o sqlite: "DB:TABLE", its lock's name */
};

/* What a save records beside the state: the output files it covers. */
struct persist_files {
	struct input *in;
	int outfd, latefd;	/* -1: none */
	const char *outname;
	uint64_t dbpos;		/* -o sqlite: its commit position */
};

void persist_init(struct persist *p, const struct config *c,
    const char *fingerprint, int64_t now);

/* Saves now (in a child when background). Returns 0, or -1 after a
 * message; a restored state found corrupt by the checks a save makes
 * first sets st_corrupt(), and nothing is saved. */
int persist_save(struct persist *p, struct op *o,
    const struct persist_files *f, int background);

/* Whether a periodic save is due now (on records, the clock is read
 * every save_check records). */
int persist_due(struct persist *p, int64_t now);

/* Waits for a background save, if one runs (block: until it ends). */
void persist_reap(struct persist *p, int block);

/* One writer at a time: takes the locks of the checkpoint and of the -o
 * file (every run's), before anything is read or written. With --state,
 * *restore (the config's) is the checkpoint once its lock is taken if it
 * exists then, else NULL. Returns 0, or 1 after "fwin: FILE: in use by
 * another fwin (pid N)". */
int persist_lock(struct persist *p, const char **restore);

/* The -o file's lock keeps the mark of the end of the run that wrote the
 * file last (lock_mark_end): taken away before a run writes the file,
 * set once it saved its last checkpoint after its last row (saved_last)
 * and wrote its last byte, with exit status 0. Return 0, or -1 after a
 * message. */
int persist_writing(struct persist *p);
int persist_ended(struct persist *p);

/* Opens --restore's checkpoint, checks that this pipeline made it, that
 * the output files it measured are still those, and that the -o file is
 * this checkpoint's; sets up skipping the input it consumed (before the
 * input's first read). Returns 0, or the exit status after a message. */
int persist_open(struct persist *p, struct input *in);

/* Adopts the opened checkpoint's state into o. Returns 0, or the exit
 * status after a message. */
int persist_adopt(struct persist *p, struct op *o);

/* Reaps a background save, closes what persist_open left open and
 * releases the locks. */
void persist_fini(struct persist *p);

/* Cuts an output file back to the length a checkpoint recorded, so that
 * rows written after it are not written twice. Returns 0 or -1. */
int persist_truncate(const char *path, uint64_t len);

#endif
