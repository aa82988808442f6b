/* lock: one writer at a time for a checkpoint and for an -o file, and
 * which checkpoint an -o file belongs to (see "Checkpoints" in fwin(1)). */
#ifndef FWIN_LOCK_H
#define FWIN_LOCK_H

struct lock;

/* Takes an exclusive flock(2) on "FILE.lock", beside file, without
 * waiting, and writes our pid into it (a file that exists and is not a
 * regular file, such as /dev/stdout, gets no lock and no lock file). The lock lasts until lock_release()
 * or exit; a fork(2) child does not keep it. Returns NULL after "fwin:
 * FILE: in use by another fwin (pid N)" or an I/O message. */
struct lock *lock_take(const char *file);

/* For an -o file's lock: a run that saves to the checkpoint ckpt (and
 * restores from restore, or NULL) may write to the file unless it belongs
 * to another checkpoint that still exists; it then belongs to ckpt.
 * Returns 0, or -1 after "fwin: FILE belongs to the checkpoint OWNER". */
int lock_claim(struct lock *l, const char *ckpt, const char *restore);

/* The absolute form of path (its directory resolved, the name kept), in
 * malloc'd memory; NULL on error. */
char *lock_abspath(const char *path);

void lock_release(struct lock *l);

#endif
