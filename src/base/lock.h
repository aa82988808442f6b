/* lock: one writer at a time for a checkpoint and for an -o file, and
 * which checkpoint an -o file belongs to (see "Checkpoints" in fwin(1)). */
#ifndef FWIN_LOCK_H
#define FWIN_LOCK_H

#include <stdint.h>

struct lock;

/* The file path names once the symbolic links of its last component
 * are followed (at most 40), absolute, its directory resolved; path's
 * own absolute form when it is no link or does not exist. In malloc'd
 * memory; NULL with errno set on error. */
char *lock_target(const char *path);

/* Takes an exclusive flock(2) on "FILE.lock", beside file (beside the
 * link, for a link whose target lies in another directory), without
 * waiting, and writes our pid into it (a file that exists and is not a
 * regular file, such as /dev/stdout, gets no lock and no lock file). The lock lasts until lock_release()
 * or exit; a fork(2) child does not keep it. Returns NULL after "fwin:
 * FILE: in use by another fwin (pid N)", a lock_check() message or an I/O
 * message. */
struct lock *lock_take(const char *file);

/* Whether file's lock file, if there is one, is fwin's: a regular file,
 * no link, holding what fwin writes in one (empty, or "PID\n" and
 * perhaps "OWNER\n"). For a run to refuse before it makes any lock file;
 * lock_take() judges again, under the lock. Returns 0, or -1 after
 * "fwin: FILE.lock exists and is not fwin's lock file of FILE; ..." or
 * the like. */
int lock_check(const char *file);

/* For an -o file's lock: a run that saves to the checkpoint ckpt (or
 * none: NULL), restoring from restore (or NULL), may write to the file
 * unless it belongs to another checkpoint that still exists; it then
 * belongs to ckpt.
 * Returns 0, or -1 after "fwin: FILE belongs to the checkpoint OWNER". */
int lock_claim(struct lock *l, const char *ckpt, const char *restore);

/* lock_claim()'s verdict from file's lock as it is, without taking it
 * nor making it: for a run to say a file is another checkpoint's before
 * it makes anything (lock_claim() decides, under the lock). Returns 0,
 * or -1 after the message. */
int lock_peek_claim(const char *file, const char *ckpt, const char *restore);

/* The absolute form of path (its directory resolved, the name kept), in
 * malloc'd memory; NULL on error. */
char *lock_abspath(const char *path);

/* For an -o file's lock: the generation of the checkpoint that the file's
 * last writer saved as it ended, after its last row, and in *len the
 * file's length as it left it, as it marked them with lock_mark_end(); 0
 * when it did not (a run killed, one that failed, or one that has written
 * since). */
uint64_t lock_ended(const struct lock *l, uint64_t *len);

/* Marks the end of the run that wrote the file with the generation of
 * the checkpoint it saved after its last row and the file's length; gen
 * 0 takes the mark away, as a run must before it writes the file.
 * Returns 0, or -1 after a message. */
int lock_mark_end(struct lock *l, uint64_t gen, uint64_t len);

void lock_release(struct lock *l);

#endif
