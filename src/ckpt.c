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
 * checkpoint or the new one, whole — never a torn file. We chose it over
 * LMDB's two meta slots because the payload is written whole each time,
 * so nothing would be gained by updating a file in place.
 *
 * Restoring maps the payload MAP_PRIVATE and uses it where it lies (the
 * arena is offset-addressed): restore costs one checksum pass, not a
 * rebuild nor a walk of the state, and writes touch only copy-on-write
 * pages.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "ckpt.h"
#include "operator.h"
#include "state.h"
#include "timefmt.h"
#include "util.h"

#define CK_MAGIC	"FWINCKPT"
#define CK_PAGE		4096
#define CK_HDRMAX	(1u << 24)	/* a sane bound on the header region */

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
};

ARENA_LAYOUT(struct ck_header, 88);
ARENA_LAYOUT(struct input_pos, 40);

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

/* fsyncs the directory holding path, so that a rename in it is durable. */
static int
sync_dir(const char *path)
{
	char *copy = strdup(path), *dir;
	int fd, rc = -1;

	if (copy == NULL)
		return -1;
	dir = dirname(copy);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

int
ckpt_save(const char *path, const struct arena *a, const struct ckpt_meta *m)
{
	struct ck_header *h;
	XXH3_state_t *xs = NULL;
	uint64_t paylen = arena_hdr(a)->ah_used;
	size_t fplen = strlen(m->fingerprint), nameslen = 0, hdrlen, off;
	char *tmp = NULL, *hdr = NULL;
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
	    asprintf(&tmp, "%s.tmp", path) < 0 ||
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
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0)
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
	if (sync_dir(path) != 0)
		goto fail;
	free(hdr);
	free(tmp);
	XXH3_freeState(xs);
	return 0;
fail:
	saved_errno = errno;
	if (fd >= 0)
		close(fd);
	if (tmp != NULL)
		unlink(tmp);
	fprintf(stderr, "fwin: %s: cannot %s checkpoint: %s\n", path, what,
	    strerror(saved_errno));
	free(hdr);
	free(tmp);
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
	if (h->ck_version != ARENA_FORMAT)
		return "unsupported checkpoint format version";
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
	k->m.fingerprint = k->fp;
	k->m.inputs = (const struct input_pos *)(k->hdr + fp_end(h->ck_fplen));
	k->m.ninputs = (int)h->ck_ninputs;
	k->m.names = k->names;
	return NULL;
}

/* Opens and verifies; on failure *why says what is wrong. */
static struct ckpt *
open_verified(const char *path, const char **why)
{
	struct ckpt *k;
	struct stat sb;
	XXH3_state_t *xs;
	uint64_t sum, want;
	int fd;

	*why = NULL;
	if ((k = calloc(1, sizeof(*k))) == NULL) {
		*why = strerror(ENOMEM);
		return NULL;
	}
	k->map = MAP_FAILED;
	/* O_NONBLOCK: a FIFO in its place must not hang the open */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		*why = strerror(errno);
		goto fail;
	}
	if (fstat(fd, &sb) != 0) {
		*why = strerror(errno);
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		*why = S_ISDIR(sb.st_mode) ? strerror(EISDIR) :
		    "not a regular file";
		goto fail;
	}
	if ((*why = read_header(k, fd, (uint64_t)sb.st_size)) != NULL)
		goto fail;
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
	close(fd);
	fd = -1;
	want = k->h.ck_checksum;
	((struct ck_header *)k->hdr)->ck_checksum = 0;
	if ((xs = XXH3_createState()) == NULL) {
		*why = strerror(ENOMEM);
		goto fail;
	}
	XXH3_64bits_reset(xs);
	XXH3_64bits_update(xs, k->hdr, k->h.ck_hdrlen);
	XXH3_64bits_update(xs, k->map, k->h.ck_paylen);
	sum = XXH3_64bits_digest(xs);
	XXH3_freeState(xs);
	((struct ck_header *)k->hdr)->ck_checksum = want;
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
		fprintf(stderr, "fwin: %s: %s\n", path, why);
	return k;
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
		fprintf(stderr, "fwin: %s: %s\n", path, why);
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
	if (k->m.outlen != CK_NONE)
		fprintf(out, "%-16s %llu bytes\n", "output length",
		    (unsigned long long)k->m.outlen);
	if (k->m.latelen != CK_NONE)
		fprintf(out, "%-16s %llu bytes\n", "late file length",
		    (unsigned long long)k->m.latelen);
	ckpt_close(k);
	return 0;
}
