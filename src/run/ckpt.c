/*
 * ckpt: the checkpoint file.
 *
 * Layout (native byte order; a file from a machine of the other order
 * fails the version check):
 *
 *	offset 0	struct ck_header
 *			the pipeline fingerprint, ck_fplen bytes
 *			padding to 8
 *			struct input_pos[ck_ninputs]
 *			the FILE operands' names, NUL-terminated, ck_nameslen bytes
 *			zeros to ck_hdrlen, a multiple of CK_PAGE
 *	ck_hdrlen	the payload: the arena's bytes, exactly as in memory;
 *			ck_paylen of them are in use, and the file extends to
 *			ck_hdrlen + ck_mapcap (the tail is a hole of zeros)
 *
 * ck_checksum is XXH3-64 over the header region (with ck_checksum zero)
 * followed by the payload's ck_paylen bytes. Nothing in a file is
 * trusted before magic, version, lengths and checksum agree; the state's
 * offsets are checked afterwards: its index by st_adopt(), each key and
 * what it holds on first use (see state.h).
 *
 * Saving is Redis's scheme: write a temporary file beside the target,
 * fsync it, rename(2) it over the target, fsync the directory. rename is
 * atomic, so a crash or kill -9 at any instant leaves the previous
 * checkpoint or the new one, whole — never a torn file; a reader that
 * opens the path (--inspect, which takes no lock) gets one or the other.
 * We chose it over LMDB's two meta slots because the payload is written
 * whole each time, so nothing would be gained by updating a file in place.
 *
 * The temporary file is ".NAME.tmp.PID.RANDOM": unique, so that no other
 * writer's file is ever truncated, and created O_EXCL|O_NOFOLLOW, so that
 * a link planted at the name (in a directory others can write to) is
 * never followed. It gets the mode (and, for root, the owner) of the
 * checkpoint it replaces. One whose writer died (kill -9 during a save)
 * is removed by the next save.
 *
 * Restoring maps the payload MAP_PRIVATE and uses it where it lies (the
 * arena is offset-addressed): restore costs one checksum pass, not a
 * rebuild nor a walk of the state, and writes touch only copy-on-write
 * pages.
 */
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "run/ckpt.h"
#include "window/operator.h"
#include "window/state.h"
#include "base/timefmt.h"
#include "base/util.h"

#define CK_MAGIC	"FWINCKPT"
#define CK_PAGE		4096
#define CK_HDRMAX	(1u << 24)	/* a sane bound on the header region */
#define CK_TMPBASE	200	/* of the name in a temporary file's, at most:
				   the rest must fit in NAME_MAX (255) */

struct ck_header {
	char ck_magic[8];
	uint32_t ck_version;
	uint32_t ck_hdrlen;	/* bytes before the payload, CK_PAGE multiple */
	uint64_t ck_checksum;
	uint64_t ck_generation;
	uint64_t ck_paylen;	/* payload bytes in use */
	uint64_t ck_mapcap;	/* payload bytes in the file (>= paylen) */
	uint64_t ck_outlen;	/* -o FILE length, or CK_NONE */
	uint64_t ck_latelen;	/* --late-file length, or CK_NONE */
	int64_t ck_saved;	/* wall time of the save, ns */
	uint32_t ck_fplen;
	uint32_t ck_ninputs;
	uint32_t ck_nameslen;
	uint32_t ck_pad;
	uint64_t ck_outhash;	/* see ckpt_tail_hash(), if CKF_OUTHASH */
	uint64_t ck_latehash;	/* the same for --late-file, CKF_LATEHASH */
	uint32_t ck_flags;
	uint32_t ck_pad2;
};

ARENA_LAYOUT(struct ck_header, 112);
ARENA_LAYOUT(struct input_pos, 56);

struct ckpt {
	char *path;
	char *hdr;		/* the header region */
	struct ck_header h;
	void *map;		/* the payload mapping, until taken */
	uint64_t maplen;
	struct ckpt_meta m;
	char *fp;
	const char **names;
};

static size_t
fp_end(uint32_t fplen)
{
	return (sizeof(struct ck_header) + fplen + 7) & ~(size_t)7;
}

/* fsyncs the directory dir, so that a rename in it is durable. */
static int
sync_dir(const char *dir)
{
	int fd, rc = -1;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	return rc;
}

_Static_assert(CK_TAIL <= HASH_RANGE_MAX, "tail fits hash_range");

int
ckpt_tail_hash(int fd, uint64_t len, uint64_t *hash)
{
	size_t n = len < CK_TAIL ? (size_t)len : CK_TAIL;
	char proc[64];
	int rfd, rc;

	if (hash_range(fd, len - n, n, hash) == 0)
		return 0;
	if (errno != EBADF)
		return -1;
	/* fwin writes its output through a write-only descriptor; this
	 * opens the same file for reading, whatever its name is now */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((rfd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -1;
	rc = hash_range(rfd, len - n, n, hash);
	close(rfd);
	return rc;
}

/* The checkpoint's directory and base name, in one allocation each. */
static int
split_path(const char *path, char **dir, char **base)
{
	char *d = strdup(path), *b = strdup(path);

	*dir = *base = NULL;
	if (d == NULL || b == NULL ||
	    (*dir = strdup(dirname(d))) == NULL ||
	    (*base = strdup(basename(b))) == NULL) {
		free(*dir);
		*dir = NULL;
		free(d);
		free(b);
		return -1;
	}
	free(d);
	free(b);
	return 0;
}

/*
 * Creates the temporary file in dir, as ".BASE.tmp.PID.RANDOM", with the
 * mode (and, for root, the owner) of the checkpoint it will replace, or
 * 0666 & ~umask for a new one. Returns the descriptor and sets *tmp, or -1.
 */
static int
create_tmp(const char *dir, const char *base, const char *path, char **tmp)
{
	struct stat old;
	uint64_t r;
	int fd = -1, tries, have_old;

	have_old = stat(path, &old) == 0 && S_ISREG(old.st_mode);
	for (tries = 0; tries < 16; tries++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^
			    (uint64_t)tries << 32 ^ (uint64_t)clock();
		if (asprintf(tmp, "%s/.%.*s.tmp.%ld.%08llx", dir, CK_TMPBASE, base,
		    (long)getpid(), (unsigned long long)(r & 0xffffffffu)) < 0) {
			*tmp = NULL;
			errno = ENOMEM;
			return -1;
		}
		/* 0600 until it has the old file's mode: no wider, meanwhile */
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, have_old ? 0600 : 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
		free(*tmp);	/* taken, or a planted link: another name */
		*tmp = NULL;
	}
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	if (have_old) {
		/* root may give a file away; a failure (root squashed over
		 * NFS) leaves it ours, which is no worse than before */
		if (geteuid() == 0)
			(void)fchown(fd, old.st_uid, old.st_gid);
		if (fchmod(fd, old.st_mode & 07777) != 0) {
			close(fd);
			unlink(*tmp);
			return -1;
		}
	}
	return fd;
}

/* Whether process pid is gone: no such process, or a zombie (an orphan
 * that init has not reaped yet; some containers' init never does). */
static int
gone(long pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything, so from the last ')' */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return p[2] == 'Z' || p[2] == 'X';
}

/*
 * Removes the temporary files that saves of this checkpoint left when
 * they were killed: those of a writer that is gone, and those of our own
 * pid (an earlier process's: we write one at a time, and keep is ours).
 */
static void
remove_leftovers(const char *dir, const char *base, const char *keep)
{
	DIR *d;
	struct dirent *de;
	char *prefix;
	size_t n;
	long pid;
	char *end;
	const char *kb = strrchr(keep, '/') != NULL ? strrchr(keep, '/') + 1 :
	    keep;

	if ((d = opendir(dir)) == NULL)
		return;
	if (asprintf(&prefix, ".%.*s.tmp.", CK_TMPBASE, base) < 0) {
		closedir(d);
		return;
	}
	n = strlen(prefix);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, n) != 0 ||
		    strcmp(de->d_name, kb) == 0)
			continue;
		pid = strtol(de->d_name + n, &end, 10);
		if (pid <= 0 || *end != '.')
			continue;
		if (pid == (long)getpid() || gone(pid))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	free(prefix);
	closedir(d);
}

int
ckpt_save(const char *path, const struct arena *a, const struct ckpt_meta *m)
{
	struct ck_header *h;
	XXH3_state_t *xs = NULL;
	uint64_t paylen = arena_hdr(a)->ah_used;
	size_t fplen = strlen(m->fingerprint), nameslen = 0, hdrlen, off;
	char *tmp = NULL, *hdr = NULL, *dir = NULL, *base = NULL;
	const char *what = "write";
	int fd = -1, i, saved_errno;

	for (i = 0; i < m->ninputs; i++)
		nameslen += strlen(m->names[i]) + 1;
	off = fp_end(fplen) + m->ninputs * sizeof(struct input_pos);
	hdrlen = (off + nameslen + CK_PAGE - 1) & ~(size_t)(CK_PAGE - 1);
	if (hdrlen > CK_HDRMAX) {
		errno = E2BIG;
		goto fail;
	}
	if ((hdr = calloc(1, hdrlen)) == NULL ||
	    split_path(path, &dir, &base) != 0 ||
	    (xs = XXH3_createState()) == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	h = (struct ck_header *)hdr;
	memcpy(h->ck_magic, CK_MAGIC, 8);
	h->ck_version = ARENA_FORMAT;
	h->ck_hdrlen = (uint32_t)hdrlen;
	h->ck_generation = m->generation;
	h->ck_paylen = paylen;
	h->ck_mapcap = a->cap;
	h->ck_outlen = m->outlen;
	h->ck_latelen = m->latelen;
	h->ck_saved = m->saved;
	h->ck_fplen = (uint32_t)fplen;
	h->ck_ninputs = (uint32_t)m->ninputs;
	h->ck_nameslen = (uint32_t)nameslen;
	h->ck_outhash = m->outhash;
	h->ck_latehash = m->latehash;
	h->ck_flags = m->flags;
	memcpy(hdr + sizeof(*h), m->fingerprint, fplen);
	memcpy(hdr + fp_end(fplen), m->inputs,
	    m->ninputs * sizeof(struct input_pos));
	for (i = 0; i < m->ninputs; i++) {
		size_t n = strlen(m->names[i]) + 1;

		memcpy(hdr + off, m->names[i], n);
		off += n;
	}
	XXH3_64bits_reset(xs);
	XXH3_64bits_update(xs, hdr, hdrlen);
	XXH3_64bits_update(xs, a->base, paylen);
	h->ck_checksum = XXH3_64bits_digest(xs);

	what = "create";
	if ((fd = create_tmp(dir, base, path, &tmp)) < 0)
		goto fail;
	what = "write";
	if (write_all(fd, hdr, hdrlen) != 0 ||
	    write_all(fd, a->base, paylen) != 0 ||
	    ftruncate(fd, (off_t)(hdrlen + a->cap)) != 0)
		goto fail;
	what = "sync";
	if (fsync(fd) != 0)
		goto fail;
	what = "close";
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	what = "rename";
	if (rename(tmp, path) != 0)
		goto fail;
	what = "sync the directory of";
	if (sync_dir(dir) != 0)
		goto fail;
	remove_leftovers(dir, base, tmp);
	free(hdr);
	free(tmp);
	free(dir);
	free(base);
	XXH3_freeState(xs);
	return 0;
fail:
	saved_errno = errno;
	if (fd >= 0)
		close(fd);
	if (tmp != NULL)
		unlink(tmp);
	fwin_warn("%s: cannot %s checkpoint: %s", path, what,
	    strerror(saved_errno));
	free(hdr);
	free(tmp);
	free(dir);
	free(base);
	if (xs != NULL)
		XXH3_freeState(xs);
	return -1;
}

/* Reads n bytes at offset 0 of fd into buf, however many reads that takes
 * (a file system may return fewer than asked). Returns NULL, or why not. */
static const char *
read_start(int fd, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(fd, (char *)buf + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return strerror(errno);
		if (r == 0)
			return "truncated header";
		got += (size_t)r;
	}
	return NULL;
}

/* Format 7 differs from 8 only in the state of --min-by and --max-by
 * (8 keeps the value they compare after OUT's text): a checkpoint of 7
 * whose pipeline has neither is read as one of 8, and saved as 8. */
#define CK_FORMAT_NO_BY	7

/* Whether pipeline fingerprint fp has --min-by or --max-by. */
static int
keeps_by(const char *fp)
{
	const char *line = strstr(fp, "aggregates "), *end, *p;

	if (line == NULL)
		return 0;
	end = strchr(line, '\n');
	return ((p = strstr(line, " --min-by ")) != NULL &&
	    (end == NULL || p < end)) ||
	    ((p = strstr(line, " --max-by ")) != NULL &&
	    (end == NULL || p < end));
}

/* Reads the header region of fd (a file of size `size`) into k. Returns
 * NULL, or what is wrong. */
static const char *
read_header(struct ckpt *k, int fd, uint64_t size)
{
	struct ck_header *h = &k->h;
	const char *why;

	if (size < sizeof(*h))
		return "truncated: too short for a checkpoint header";
	if ((why = read_start(fd, h, sizeof(*h))) != NULL)
		return why;
	if (memcmp(h->ck_magic, CK_MAGIC, 8) != 0)
		return "not an fwin checkpoint (bad magic number)";
	if (h->ck_version != ARENA_FORMAT && h->ck_version != CK_FORMAT_NO_BY) {
		/* (another fwin's layout of the state: say which) */
		static __thread char msg[96];

		snprintf(msg, sizeof(msg), "unsupported checkpoint format "
		    "version %u (this fwin reads version %u)",
		    (unsigned)h->ck_version, (unsigned)ARENA_FORMAT);
		return msg;
	}
	if (h->ck_hdrlen < sizeof(*h) || h->ck_hdrlen % CK_PAGE != 0 ||
	    h->ck_hdrlen > CK_HDRMAX)
		return "corrupt header (bad header length)";
	if (fp_end(h->ck_fplen) > h->ck_hdrlen ||
	    (uint64_t)h->ck_ninputs * sizeof(struct input_pos) +
	    fp_end(h->ck_fplen) + h->ck_nameslen > h->ck_hdrlen)
		return "corrupt header (bad field lengths)";
	if (h->ck_paylen > h->ck_mapcap || h->ck_mapcap % CK_PAGE != 0 ||
	    h->ck_paylen < sizeof(struct arena_hdr))
		return "corrupt header (bad payload length)";
	if (size != (uint64_t)h->ck_hdrlen + h->ck_mapcap)
		return "truncated or extended: the length does not match the header";
	if ((k->hdr = malloc(h->ck_hdrlen)) == NULL)
		return strerror(ENOMEM);
	return read_start(fd, k->hdr, h->ck_hdrlen);
}

/* Splits the verified header region into k->m. */
static const char *
parse_meta(struct ckpt *k)
{
	const struct ck_header *h = &k->h;
	const char *p, *end;
	uint32_t i;

	if (memchr(k->hdr + sizeof(*h), '\0', h->ck_fplen) != NULL)
		return "corrupt header (fingerprint)";
	if ((k->fp = strndup(k->hdr + sizeof(*h), h->ck_fplen)) == NULL ||
	    (k->names = calloc(h->ck_ninputs + 1, sizeof(*k->names))) == NULL)
		return strerror(ENOMEM);
	p = k->hdr + fp_end(h->ck_fplen) + h->ck_ninputs * sizeof(struct input_pos);
	end = p + h->ck_nameslen;
	for (i = 0; i < h->ck_ninputs; i++) {
		const char *z = memchr(p, '\0', end - p);

		if (z == NULL)
			return "corrupt header (input names)";
		k->names[i] = p;
		p = z + 1;
	}
	k->m.generation = h->ck_generation;
	k->m.outlen = h->ck_outlen;
	k->m.latelen = h->ck_latelen;
	k->m.saved = h->ck_saved;
	k->m.outhash = h->ck_outhash;
	k->m.latehash = h->ck_latehash;
	k->m.flags = h->ck_flags;
	k->m.fingerprint = k->fp;
	k->m.inputs = (const struct input_pos *)(k->hdr + fp_end(h->ck_fplen));
	k->m.ninputs = (int)h->ck_ninputs;
	k->m.names = k->names;
	if (h->ck_version == CK_FORMAT_NO_BY && keeps_by(k->fp))
		return "unsupported checkpoint format version 7 with --min-by "
		    "or --max-by (this fwin reads version 8, and 7 without "
		    "them)";
	return NULL;
}

/*
 * Hashes the payload's used bytes, base[0..len) of the mapping, which lie
 * at off in fd, into xs; *holes counts those that are holes in the file.
 * A hole reads as zeros: they are hashed from memory, and its pages are
 * never touched, so that a sparse file whose header claims gigabytes
 * costs a hash over zeros to refuse, no reading and no memory. Holes
 * cannot be refused outright: a file system may store a page of zeros
 * as one (ZFS with compression).
 */
static void
hash_payload(XXH3_state_t *xs, int fd, const char *base, uint64_t off,
    uint64_t len, uint64_t *holes)
{
	static const char zeros[1 << 16];
	uint64_t at = 0, data, hole, k;
	off_t r;

	*holes = 0;
	while (at < len) {
		/* no SEEK_DATA (EINVAL): all of it is data */
		r = lseek(fd, (off_t)(off + at), SEEK_DATA);
		data = r >= 0 ? (uint64_t)r - off : errno == ENXIO ? len : at;
		if (data > len)
			data = len;
		if (data > at) {
			*holes += data - at;
			for (; at < data; at += k) {
				k = data - at < sizeof(zeros) ? data - at :
				    sizeof(zeros);
				XXH3_64bits_update(xs, zeros, k);
			}
			continue;
		}
		r = lseek(fd, (off_t)(off + at), SEEK_HOLE);
		hole = r >= 0 ? (uint64_t)r - off : len;
		if (hole > len || hole <= at)
			hole = len;
		XXH3_64bits_update(xs, base + at, hole - at);
		at = hole;
	}
}

/* Opens path and reads its header region into a new k, checked as far
 * as it goes alone (not against the payload's checksum): returns k and
 * *fd, or NULL with *why saying what is wrong. */
static struct ckpt *
open_header(const char *path, int *fd, const char **why)
{
	struct ckpt *k;
	struct stat sb;

	*why = NULL;
	*fd = -1;
	if ((k = calloc(1, sizeof(*k))) == NULL) {
		*why = strerror(ENOMEM);
		return NULL;
	}
	k->map = MAP_FAILED;
	/* O_NONBLOCK: a FIFO in its place must not hang the open */
	if ((*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		*why = strerror(errno);
		ckpt_close(k);
		return NULL;
	}
	if (fstat(*fd, &sb) != 0)
		*why = strerror(errno);
	else if (!S_ISREG(sb.st_mode))
		*why = S_ISDIR(sb.st_mode) ? strerror(EISDIR) :
		    "not a regular file";
	else if ((*why = read_header(k, *fd, (uint64_t)sb.st_size)) == NULL)
		return k;
	close(*fd);
	*fd = -1;
	ckpt_close(k);
	return NULL;
}

/* Opens and verifies; on failure *why says what is wrong. */
static struct ckpt *
open_verified(const char *path, const char **why)
{
	struct ckpt *k;
	XXH3_state_t *xs;
	uint64_t sum, want, holes;
	int fd;
	static char sparse[128];

	if ((k = open_header(path, &fd, why)) == NULL)
		return NULL;
	/* Only the pages in use come from the file; the rest of the arena's
	 * room is anonymous memory. A page of the file's hole would have to
	 * be supplied by its file system, and one that is full (tmpfs)
	 * answers with SIGBUS. */
	k->maplen = k->h.ck_mapcap;
	k->map = mmap(NULL, k->maplen, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (k->map == MAP_FAILED ||
	    mmap(k->map, (k->h.ck_paylen + CK_PAGE - 1) & ~(uint64_t)(CK_PAGE - 1),
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd,
	    k->h.ck_hdrlen) == MAP_FAILED) {
		*why = strerror(errno);
		goto fail;
	}
	want = k->h.ck_checksum;
	((struct ck_header *)k->hdr)->ck_checksum = 0;
	if ((xs = XXH3_createState()) == NULL) {
		*why = strerror(ENOMEM);
		goto fail;
	}
	XXH3_64bits_reset(xs);
	XXH3_64bits_update(xs, k->hdr, k->h.ck_hdrlen);
	hash_payload(xs, fd, k->map, k->h.ck_hdrlen, k->h.ck_paylen, &holes);
	sum = XXH3_64bits_digest(xs);
	XXH3_freeState(xs);
	close(fd);
	fd = -1;
	((struct ck_header *)k->hdr)->ck_checksum = want;
	if (sum != want && holes > 0) {
		snprintf(sparse, sizeof(sparse), "checksum mismatch: the file "
		    "is damaged (sparse: %llu of its %llu bytes of state are "
		    "holes)", (unsigned long long)holes,
		    (unsigned long long)k->h.ck_paylen);
		*why = sparse;
		goto fail;
	}
	if (sum != want) {
		*why = "checksum mismatch: the file is damaged";
		goto fail;
	}
	if ((*why = parse_meta(k)) != NULL)
		goto fail;
	if (arena_hdr(&(struct arena){ .base = k->map })->ah_used !=
	    k->h.ck_paylen) {
		*why = "corrupt state (arena length)";
		goto fail;
	}
	if ((k->path = strdup(path)) == NULL) {
		*why = strerror(ENOMEM);
		goto fail;
	}
	return k;
fail:
	if (fd >= 0)
		close(fd);
	ckpt_close(k);
	return NULL;
}

struct ckpt *
ckpt_open(const char *path)
{
	const char *why;
	struct ckpt *k = open_verified(path, &why);

	if (k == NULL)
		fwin_warn("%s: %s", path, why);
	return k;
}

int
ckpt_peek(const char *path, char **fp, const char **why)
{
	struct ckpt *k;
	int fd;

	*fp = NULL;
	if ((k = open_header(path, &fd, why)) == NULL)
		return -1;
	close(fd);
	if ((*why = parse_meta(k)) == NULL && (*fp = strdup(k->fp)) == NULL)
		*why = strerror(ENOMEM);
	ckpt_close(k);
	return *why == NULL ? 0 : -1;
}

int
ckpt_probe(const char *path, char **fp, const char **why)
{
	char magic[8];
	struct ckpt *k;
	ssize_t n;
	int fd;

	*fp = NULL;
	*why = NULL;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		*why = strerror(errno);
		return -2;
	}
	n = pread(fd, magic, sizeof(magic), 0);
	if (n < 0) {
		*why = strerror(errno);
		close(fd);
		return -2;
	}
	close(fd);
	if (n != (ssize_t)sizeof(magic) || memcmp(magic, CK_MAGIC, 8) != 0)
		return 0;
	if ((k = open_verified(path, why)) == NULL)
		return -1;
	*fp = strdup(k->fp);
	ckpt_close(k);
	if (*fp == NULL) {
		*why = strerror(ENOMEM);
		return -1;
	}
	return 1;
}

const struct ckpt_meta *
ckpt_meta(const struct ckpt *k)
{
	return &k->m;
}

uint64_t
ckpt_take_arena(struct ckpt *k, struct arena *a)
{
	arena_attach(a, k->map, k->maplen);
	k->map = MAP_FAILED;
	return k->h.ck_paylen;
}

void
ckpt_close(struct ckpt *k)
{
	if (k == NULL)
		return;
	if (k->map != MAP_FAILED)
		munmap(k->map, k->maplen);
	free(k->hdr);
	free(k->fp);
	free(k->names);
	free(k->path);
	free(k);
}

static void
print_time(FILE *out, const char *label, int64_t t)
{
	char buf[TF_BUFSZ];

	if (t == INT64_MIN) {
		fprintf(out, "%-16s none\n", label);
		return;
	}
	tf_format(buf, t, TF_ISO);
	fprintf(out, "%-16s %s (%lld ns)\n", label, buf, (long long)t);
}

int
ckpt_inspect(const char *path, FILE *out)
{
	const char *why;
	struct ckpt *k = open_verified(path, &why);
	const struct st_root *r;
	const struct op_globals *g;
	const struct arena_hdr *ah;
	const char *p, *nl;
	int i;

	fprintf(out, "%-16s %s\n", "file", path);
	if (k == NULL) {
		fprintf(out, "%-16s FAILED: %s\n", "verification", why);
		fwin_warn("%s: %s", path, why);
		return 1;
	}
	fprintf(out, "%-16s %u\n", "format version", (unsigned)k->h.ck_version);
	fprintf(out, "%-16s %llu\n", "generation",
	    (unsigned long long)k->h.ck_generation);
	print_time(out, "saved", k->h.ck_saved);
	fprintf(out, "%-16s ok (XXH3-64 %016llx over %llu bytes)\n", "checksum",
	    (unsigned long long)k->h.ck_checksum,
	    (unsigned long long)k->h.ck_hdrlen + k->h.ck_paylen);
	fprintf(out, "pipeline:\n");
	for (p = k->fp; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		fprintf(out, "    %.*s\n", (int)(nl - p), p);
	}
	ah = k->map;
	/* the root as st_adopt would take it: inside the payload, aligned
	 * (paylen may be smaller than a root) */
	if (k->h.ck_paylen >= sizeof(*r) && ah->ah_root % 8 == 0 &&
	    ah->ah_root >= sizeof(*ah) &&
	    ah->ah_root <= k->h.ck_paylen - sizeof(*r)) {
		r = (const struct st_root *)((const char *)k->map + ah->ah_root);
		g = NULL;
		if (r->sr_globals % 8 == 0 && r->sr_globals >= sizeof(*ah) &&
		    r->sr_globals <= k->h.ck_paylen - sizeof(*g))
			g = (const struct op_globals *)((const char *)k->map +
			    r->sr_globals);
		if (g != NULL) {
			print_time(out, "watermark", g->g_wm);
			print_time(out, "max event time", g->g_maxt);
		}
		fprintf(out, "%-16s %llu\n", "keys",
		    (unsigned long long)r->sr_nkeys);
		fprintf(out, "%-16s %llu\n", "open windows",
		    (unsigned long long)r->sr_npanes);
		if (g != NULL)
			fprintf(out, "%-16s %llu read, %llu bad, %llu late, "
			    "%llu windows fired\n", "records",
			    (unsigned long long)g->g_read,
			    (unsigned long long)g->g_bad,
			    (unsigned long long)g->g_late,
			    (unsigned long long)g->g_fired);
	}
	fprintf(out, "%-16s %llu in use, %llu live, file %llu\n", "state bytes",
	    (unsigned long long)k->h.ck_paylen,
	    (unsigned long long)ah->ah_live,
	    (unsigned long long)k->h.ck_hdrlen + k->h.ck_mapcap);
	for (i = 0; i < k->m.ninputs; i++)
		fprintf(out, "input %-10d %s: %llu bytes, %llu lines "
		    "(device %llu, inode %llu%s)\n", i + 1, k->names[i],
		    (unsigned long long)k->m.inputs[i].ip_off,
		    (unsigned long long)k->m.inputs[i].ip_lines,
		    (unsigned long long)k->m.inputs[i].ip_dev,
		    (unsigned long long)k->m.inputs[i].ip_ino,
		    k->m.inputs[i].ip_isreg ? "" : ", not a regular file");
	for (i = 0; i < k->m.ninputs; i++)
		if (k->m.inputs[i].ip_hashed)
			fprintf(out, "fingerprint %-4d XXH3-64 %016llx of its "
			    "first bytes, %016llx of those before its "
			    "position\n", i + 1,
			    (unsigned long long)k->m.inputs[i].ip_head,
			    (unsigned long long)k->m.inputs[i].ip_tail);
	if (k->m.outlen != CK_NONE && (k->m.flags & CKF_DBPOS))
		fprintf(out, "%-16s %llu (the generation of its last commit)\n",
		    "database", (unsigned long long)k->m.outlen);
	else if (k->m.outlen != CK_NONE)
		fprintf(out, "%-16s %llu bytes\n", "output length",
		    (unsigned long long)k->m.outlen);
	if (k->m.outlen != CK_NONE && (k->m.flags & CKF_OUTHASH))
		fprintf(out, "%-16s XXH3-64 %016llx of the bytes before it\n",
		    "output hash", (unsigned long long)k->m.outhash);
	if (k->m.latelen != CK_NONE)
		fprintf(out, "%-16s %llu bytes\n", "late file length",
		    (unsigned long long)k->m.latelen);
	if (k->m.latelen != CK_NONE && (k->m.flags & CKF_LATEHASH))
		fprintf(out, "%-16s XXH3-64 %016llx of the bytes before it\n",
		    "late file hash", (unsigned long long)k->m.latehash);
	ckpt_close(k);
	return 0;
}

/* Checks one output file against its recorded length and hash. */
static int
check_one(const char *ckname, const char *path, uint64_t len, int hashed,
    uint64_t want)
{
	struct stat sb;
	uint64_t got;
	int fd;

	if (path == NULL || len == CK_NONE || !hashed || len == 0)
		return 0;
	/* missing, not a file, or shorter: restore leaves it as it is */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size < len) {
		close(fd);
		return 0;
	}
	if (ckpt_tail_hash(fd, len, &got) != 0) {
		fwin_warn("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (got != want) {
		fwin_warn("%s: not the file that %s was saved "
		    "with (its bytes before length %llu differ: replaced or "
		    "rewritten since); not truncating it", path, ckname,
		    (unsigned long long)len);
		return -1;
	}
	return 0;
}

int
ckpt_check_outputs(const struct ckpt *k, const char *output,
    const char *late)
{
	if (check_one(k->path, output, k->m.outlen,
	    (k->m.flags & CKF_OUTHASH) != 0, k->m.outhash) != 0 ||
	    check_one(k->path, late, k->m.latelen,
	    (k->m.flags & CKF_LATEHASH) != 0, k->m.latehash) != 0)
		return -1;
	return 0;
}
