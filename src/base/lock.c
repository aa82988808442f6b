/*
 * lock: one writer at a time.
 *
 * The lock is a flock(2) on a small file beside the one it guards, never
 * on that file itself: a checkpoint save replaces the checkpoint's inode
 * with rename(2), and a lock on the old inode would guard nothing. The
 * lock file is never removed (removing it would let a second run lock a
 * new inode while the first still holds the old one), so it is named
 * plainly, "FILE.lock", where a user who wonders about it can see it.
 *
 * Its text is "PID\nOWNER\nended GEN LEN\n": the holder's pid, for the
 * message a second run gives; for an -o file the absolute path of the
 * checkpoint that owns it, and once a run that wrote it ended with a
 * checkpoint saved after its last row, that checkpoint's generation and
 * the file's length as the run left it (lock_mark_end: a restore of that
 * checkpoint then knows that bytes past that length are another
 * program's). It is rewritten in place: cut to nothing, then written with
 * one pwrite(2), so that a run killed at any moment leaves text that is
 * plainly fwin's (nothing, or whole), and a reader that finds it empty
 * waits for the pid as it does for a lock just made. A file at that name
 * that holds anything else is another program's, and is never taken.
 *
 * flock locks belong to the open file description, which a fork(2) child
 * shares: a background checkpoint writer would keep the lock of a parent
 * killed with -9, and the next run would find it held. The child closes
 * its copies at once (pthread_atfork), which does not release the
 * parent's lock.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/util.h"

#define LOCK_TEXTMAX	(PATH_MAX + 32)
#define LOCK_MAXHELD	4

struct lock {
	int fd;
	char *file;		/* the guarded file, as given */
	char *owner;		/* recorded owner, "" when none */
	uint64_t ended, endlen;	/* the end's mark (lock_ended), 0: none */
};

static int held[LOCK_MAXHELD];
static int nheld, atfork_set;

static void
forget_in_child(void)
{
	int i;

	for (i = 0; i < nheld; i++)
		close(held[i]);
	nheld = 0;
}

static void
hold(int fd)
{
	if (!atfork_set) {
		pthread_atfork(NULL, NULL, forget_in_child);
		atfork_set = 1;
	}
	if (nheld < LOCK_MAXHELD)
		held[nheld++] = fd;
}

static void
unhold(int fd)
{
	int i;

	for (i = 0; i < nheld; i++)
		if (held[i] == fd) {
			held[i] = held[--nheld];
			return;
		}
}

char *
lock_abspath(const char *path)
{
	char *d = strdup(path), *b = strdup(path), *real = NULL, *out = NULL;
	const char *base;

	if (d == NULL || b == NULL)
		goto done;
	base = basename(b);
	if ((real = realpath(dirname(d), NULL)) == NULL)
		goto done;
	if (asprintf(&out, "%s%s%s", real,
	    strcmp(real, "/") == 0 ? "" : "/", base) < 0)
		out = NULL;
done:
	free(d);
	free(b);
	free(real);
	return out;
}

/* Reads the lock file's text into buf (NUL-terminated). */
static void
read_text(int fd, char *buf, size_t n)
{
	ssize_t r = pread(fd, buf, n - 1, 0);

	buf[r > 0 ? r : 0] = '\0';
}

/* The lines of a lock's text after the pid, in text (cut at each line's
 * end): the owner, an absolute path ("" when none), and the end's mark
 * (0 when none). */
static void
text_fields(char *text, const char **owner, uint64_t *ended,
    uint64_t *endlen)
{
	char *p = strchr(text, '\n'), *e, *q;

	*owner = "";
	*ended = *endlen = 0;
	while (p != NULL && *++p != '\0') {
		e = p + strcspn(p, "\n");
		if (*p == '/')
			*owner = p;
		else if (strncmp(p, "ended ", 6) == 0) {
			*ended = strtoull(p + 6, &q, 10);
			*endlen = strtoull(q, NULL, 10);
		}
		p = *e != '\0' ? e : NULL;
		*e = '\0';
	}
}

/* Rewrites the text: our pid, the owner and the end's mark. */
static int
write_text(struct lock *l)
{
	char buf[LOCK_TEXTMAX], mark[48] = "";
	int n;

	if (l->ended != 0)
		(void)snprintf(mark, sizeof(mark), "ended %llu %llu\n",
		    (unsigned long long)l->ended,
		    (unsigned long long)l->endlen);
	n = snprintf(buf, sizeof(buf), "%ld\n%s%s%s", (long)getpid(),
	    l->owner, *l->owner != '\0' ? "\n" : "", mark);

	if (n < 0 || (size_t)n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, buf, (size_t)n, 0) != n)
		return -1;
	return 0;
}

/* path as a user would name it: relative to the working directory when
 * it lies under it. */
static const char *
shown(const char *path, const char *cwd)
{
	size_t n = cwd != NULL ? strlen(cwd) : 0;

	if (n > 0 && strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/*
 * Whether the lock file open on fd holds what fwin writes there: nothing
 * (a lock just made, or cut to be rewritten), or a pid on a line, then
 * perhaps the owner's absolute path on a line, then perhaps "ended GEN
 * LEN" on a line; a lock its holder left when it was killed holds the same.
 * Returns 1, 0, or -1 with errno set.
 */
static int
fwin_text(int fd)
{
	char buf[LOCK_TEXTMAX + 1];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	const char *p = buf, *end = buf + (n > 0 ? n : 0), *q;

	if (n <= 0)
		return n == 0 ? 1 : -1;
	if ((size_t)n == sizeof(buf) || memchr(buf, '\0', (size_t)n) != NULL)
		return 0;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == buf || p == end || *p++ != '\n')
		return 0;
	if (p < end && *p == '/') {	/* the owner */
		if ((p = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return 0;
		p++;
	}
	if (p < end && (size_t)(end - p) > 6 && memcmp(p, "ended ", 6) == 0) {
		for (p += 6; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == end || *p++ != ' ')
			return 0;
		for (q = p; p < end && *p >= '0' && *p <= '9'; p++)
			;
		if (p == q || p == end || *p++ != '\n')
			return 0;
	}
	return p == end;
}

/* Whether name, opened on fd (-1: the open failed, errno says why), is a
 * file fwin may take as file's lock: a regular file, no link. Returns 0,
 * or -1 after a message. */
static int
refuse_kind(int fd, const char *name, const char *file, const char *cwd)
{
	struct stat sb;

	if (fd < 0 && errno == ELOOP)
		fwin_warn("%s is a symbolic link, not fwin's lock file of %s; "
		    "remove it (fwin never follows one)", shown(name, cwd),
		    file);
	else if (fd < 0 || fstat(fd, &sb) != 0)
		fwin_warn("%s: %s", shown(name, cwd), strerror(errno));
	else if (!S_ISREG(sb.st_mode))
		fwin_warn("%s is not a regular file, not fwin's lock file of "
		    "%s; remove it", shown(name, cwd), file);
	else
		return 0;
	return -1;
}

/* Whether the regular file name, open on fd, holds fwin's text: another
 * program's file there is never written over. Returns 0, or -1 after a
 * message. */
static int
refuse_text(int fd, const char *name, const char *file, const char *cwd)
{
	int rc = fwin_text(fd);

	if (rc < 0)
		fwin_warn("%s: %s", shown(name, cwd), strerror(errno));
	else if (rc == 0)
		fwin_warn("%s exists and is not fwin's lock file of %s; "
		    "remove it or name another file", shown(name, cwd), file);
	return rc > 0 ? 0 : -1;
}

/* Whether path is reached through a descriptor of this process
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N): the shell opened its target,
 * which is the file the user named. */
static int
fd_link(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

/* Whether a and b, absolute, lie in the same directory. */
static int
same_dir(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');

	return sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

char *
lock_target(const char *path)
{
	char *cur = lock_abspath(path), *next, *d, buf[PATH_MAX];
	ssize_t n;
	int i;

	for (i = 0; cur != NULL && i < 40; i++) {
		if ((n = readlink(cur, buf, sizeof(buf) - 1)) < 0)
			return cur;	/* no link (or none yet): the file */
		buf[n] = '\0';
		next = NULL;
		if (buf[0] == '/')
			next = lock_abspath(buf);
		else if ((d = strdup(cur)) != NULL) {
			char *rel = NULL;

			if (asprintf(&rel, "%s/%s", dirname(d), buf) >= 0) {
				next = lock_abspath(rel);
				free(rel);
			}
			free(d);
		}
		free(cur);
		cur = next;
	}
	if (cur != NULL) {
		free(cur);
		errno = ELOOP;
	}
	return NULL;
}

/*
 * The lock file's name. Beside the file itself, so that the file has one
 * lock whatever name reaches it; but a link's target in another
 * directory gets its lock beside the link: fwin must not make
 * "/etc/passwd.lock" (shadow-utils' own lock) for a link to /etc/passwd.
 * A descriptor's link (-o /dev/stdout) is the shell's redirection of the
 * file the user named: its lock is the target's.
 */
static char *
lock_name(const char *file)
{
	char *target = lock_target(file), *link = lock_abspath(file);
	char *name = NULL;
	const char *beside = target;
	struct stat sb;

	if (target != NULL && link != NULL && lstat(link, &sb) == 0 &&
	    S_ISLNK(sb.st_mode) && !fd_link(link) && !same_dir(link, target))
		beside = link;
	if (beside == NULL || asprintf(&name, "%s.lock", beside) < 0)
		name = NULL;
	free(target);
	free(link);
	return name;
}

/* The lock is held, but the fwin whose pid its file names is gone: a
 * checkpoint it was saving in the background is ending with it (the
 * saver dies with its parent, prctl(2) PR_SET_PDEATHSIG, and holds the
 * lock until it has). Waits up to a second for the lock; returns 1 when
 * it has it, 0 (errno EWOULDBLOCK) otherwise. */
static int
holder_dying(int fd)
{
	char text[LOCK_TEXTMAX];
	long pid;
	int i;

	if (errno != EWOULDBLOCK)
		return 0;
	read_text(fd, text, sizeof(text));
	if ((pid = strtol(text, NULL, 10)) <= 0 || kill((pid_t)pid, 0) == 0 ||
	    errno != ESRCH)
		goto held;
	for (i = 0; i < 100; i++) {
		usleep(10000);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 1;
	}
held:
	errno = EWOULDBLOCK;
	return 0;
}

struct lock *
lock_take(const char *file)
{
	struct lock *l = calloc(1, sizeof(*l));
	char *name = NULL, *cwd = getcwd(NULL, 0), text[LOCK_TEXTMAX];
	const char *owner;
	struct stat sb;
	long pid = 0;
	int i;

	if (l == NULL || (name = lock_name(file)) == NULL) {
		fwin_warn("%s: %s", file, strerror(errno));
		free(cwd);
		free(l);
		return NULL;
	}
	l->fd = -1;
	/* A device or a FIFO (-o /dev/stdout) is never truncated or
	 * replaced, and no lock file belongs beside it (in /dev) */
	if (stat(file, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		free(name);
		free(cwd);
		return l;
	}
	/* O_NOFOLLOW: a link planted there must not make fwin write to
	 * another file (as root, any file); O_NONBLOCK: nor a FIFO hang it */
	l->fd = open(name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0666);
	if (refuse_kind(l->fd, name, file, cwd) != 0)
		goto fail;
	if (flock(l->fd, LOCK_EX | LOCK_NB) != 0 && !holder_dying(l->fd)) {
		if (errno != EWOULDBLOCK) {
			fwin_warn("%s: %s", shown(name, cwd), strerror(errno));
			goto fail;
		}
		/* the holder writes its pid right after it locks: a run
		 * that comes in between waits that long for it */
		for (i = 0; i < 100; i++) {
			read_text(l->fd, text, sizeof(text));
			if ((pid = strtol(text, NULL, 10)) > 0)
				break;
			usleep(1000);
		}
		if (pid > 0)
			fwin_warn("%s: in use by another fwin "
			    "(pid %ld)", file, pid);
		else
			fwin_warn("%s: in use by another fwin",
			    file);
		goto fail;
	}
	/* judged under the lock: no fwin rewrites it meanwhile */
	if (refuse_text(l->fd, name, file, cwd) != 0)
		goto fail;
	read_text(l->fd, text, sizeof(text));
	text_fields(text, &owner, &l->ended, &l->endlen);
	if ((l->owner = strdup(owner)) == NULL ||
	    (l->file = strdup(file)) == NULL) {
		fwin_warn("%s", strerror(ENOMEM));
		goto fail;
	}
	/* (the mark stays until the run writes the file: lock_mark_end) */
	if (write_text(l) != 0) {
		fwin_warn("%s: %s", shown(name, cwd), strerror(errno));
		goto fail;
	}
	hold(l->fd);
	free(name);
	free(cwd);
	return l;
fail:
	if (l->fd >= 0)
		close(l->fd);
	free(l->owner);
	free(l->file);
	free(l);
	free(name);
	free(cwd);
	return NULL;
}

int
lock_check(const char *file)
{
	char *name, *cwd;
	struct stat sb;
	int fd, rc = 0;

	/* (a device or a FIFO gets no lock file: see lock_take) */
	if (stat(file, &sb) == 0 && !S_ISREG(sb.st_mode))
		return 0;
	if ((name = lock_name(file)) == NULL)
		return 0;	/* (lock_take() says why) */
	cwd = getcwd(NULL, 0);
	fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		rc = refuse_kind(fd, name, file, cwd) != 0 ||
		    refuse_text(fd, name, file, cwd) != 0 ? -1 : 0;
	if (fd >= 0)
		close(fd);
	free(name);
	free(cwd);
	return rc;
}

/* Whether file belongs to another checkpoint than ckpt (NULL: none) and
 * restore (or NULL), by the owner recorded in its lock file: one that
 * still exists, while file does. Said when it does. Returns 1, 0, or -1
 * after a message. */
static int
owned_elsewhere(const char *file, const char *owner, const char *ckpt,
    const char *restore)
{
	char *me = NULL, *from = NULL, *cwd;
	struct stat sb;
	int rc = 0;

	if (*owner == '\0')
		return 0;
	if (ckpt != NULL && (me = lock_abspath(ckpt)) == NULL) {
		fwin_warn("%s: %s", ckpt, strerror(errno));
		return -1;
	}
	if (restore != NULL)
		from = lock_abspath(restore);
	/* Another checkpoint owns the file while it exists and so does the
	 * file: restoring the owner's state and saving it elsewhere moves
	 * the file along with it. */
	if ((me == NULL || strcmp(owner, me) != 0) &&
	    (from == NULL || strcmp(owner, from) != 0) &&
	    stat(owner, &sb) == 0 && stat(file, &sb) == 0) {
		cwd = getcwd(NULL, 0);
		fwin_warn("%s belongs to the checkpoint %s", file,
		    shown(owner, cwd));
		free(cwd);
		rc = 1;
	}
	free(me);
	free(from);
	return rc;
}

int
lock_claim(struct lock *l, const char *ckpt, const char *restore)
{
	char *me;

	if (l->fd < 0)
		return 0;
	if (owned_elsewhere(l->file, l->owner, ckpt, restore) != 0)
		return -1;
	/* a run without a checkpoint writes to a file no checkpoint owns,
	 * and leaves it so */
	if (ckpt == NULL)
		return 0;
	if ((me = lock_abspath(ckpt)) == NULL) {
		fwin_warn("%s: %s", ckpt, strerror(errno));
		return -1;
	}
	if (strcmp(l->owner, me) == 0) {
		free(me);
		return 0;
	}
	free(l->owner);
	l->owner = me;
	if (write_text(l) != 0) {
		fwin_warn("%s.lock: %s", l->file, strerror(errno));
		return -1;
	}
	return 0;
}

int
lock_peek_claim(const char *file, const char *ckpt, const char *restore)
{
	char *name = lock_name(file), text[LOCK_TEXTMAX];
	const char *owner;
	uint64_t ended, endlen;
	long pid;
	int fd, rc;

	if (name == NULL)
		return 0;	/* (lock_take() says why) */
	fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(name);
	if (fd < 0)
		return 0;
	read_text(fd, text, sizeof(text));
	close(fd);
	/* its holder may run still: lock_take() says it is in use, first
	 * (a lock taken here, even shared, would make a run that takes it
	 * meanwhile say so wrongly) */
	pid = strtol(text, NULL, 10);
	if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
		return 0;
	text_fields(text, &owner, &ended, &endlen);
	rc = owned_elsewhere(file, owner, ckpt, restore);
	return rc != 0 ? -1 : 0;
}

uint64_t
lock_ended(const struct lock *l, uint64_t *len)
{
	*len = l != NULL ? l->endlen : 0;
	return l != NULL ? l->ended : 0;
}

int
lock_mark_end(struct lock *l, uint64_t gen, uint64_t len)
{
	if (l == NULL || l->fd < 0 || (l->ended == gen && l->endlen == len))
		return 0;
	l->ended = gen;
	l->endlen = len;
	if (write_text(l) != 0) {
		fwin_warn("%s.lock: %s", l->file, strerror(errno));
		return -1;
	}
	return 0;
}

void
lock_release(struct lock *l)
{
	if (l == NULL)
		return;
	if (l->fd >= 0) {
		unhold(l->fd);
		close(l->fd);	/* releases the flock */
	}
	free(l->owner);
	free(l->file);
	free(l);
}
