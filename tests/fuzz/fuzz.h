/* Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.c): a scratch
 * directory, files written from fuzz data, and fwin_cli() (src/cli/cli.c) run in-process with its output caught.
 *
 * Every helper is static: each target is one translation unit. A broken
 * invariant is reported with fz_fail(), which aborts, so that libFuzzer
 * (or the replay driver, under ASan) stops with a stack trace. */
#ifndef FWIN_FUZZ_H
#define FWIN_FUZZ_H

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * fwin's messages go through stdio's stderr (never fd 2 directly), so a
 * target quiets or captures them by swapping the stderr stream, and fd 2
 * stays free for the sanitizers' reports.
 */
static FILE *fz_real_stderr;	/* while stderr is swapped */

static void
fz_stderr_back(void)
{
	if (fz_real_stderr == NULL)
		return;
	fflush(stderr);
	stderr = fz_real_stderr;
	fz_real_stderr = NULL;
}

/* Sends stderr to fp until fz_stderr_back(). */
__attribute__((unused)) static void
fz_stderr_to(FILE *fp)
{
	fflush(stderr);
	if (fz_real_stderr == NULL)
		fz_real_stderr = stderr;
	stderr = fp;
}

/* Quiets stderr until fz_stderr_back(), unless $FWIN_FUZZ_STDERR is set
 * (to see fwin's messages while debugging a finding). */
__attribute__((unused)) static void
fz_quiet(void)
{
	static FILE *null;

	if (getenv("FWIN_FUZZ_STDERR") != NULL)
		return;
	if (null == NULL && (null = fopen("/dev/null", "w")) == NULL)
		abort();
	fz_stderr_to(null);
}

static void __attribute__((format(printf, 1, 2), noreturn, unused))
fz_fail(const char *fmt, ...)
{
	va_list ap;

	fz_stderr_back();
	fputs("fuzz: invariant broken: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* --- the scratch directory --- */

static char fz_dirbuf[4096];
static const char *fz_dirp;

static void
fz_rmdir(void)
{
	char cmd[4200];

	if (fz_dirp == NULL || getenv("FWIN_FUZZ_KEEP") != NULL)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fz_dirp);
	if (system(cmd) != 0)
		return;
}

/* A private directory for this process: under $FWIN_FUZZ_TMP, else
 * /dev/shm (fsync is free there), else $TMPDIR or /tmp. Removed at exit. */
__attribute__((unused)) static const char *
fz_dir(void)
{
	const char *base = getenv("FWIN_FUZZ_TMP");

	if (fz_dirp != NULL)
		return fz_dirp;
	if (base == NULL && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	if (base == NULL && (base = getenv("TMPDIR")) == NULL)
		base = "/tmp";
	snprintf(fz_dirbuf, sizeof(fz_dirbuf), "%s/fwin-fuzz.XXXXXX", base);
	if (mkdtemp(fz_dirbuf) == NULL) {
		perror(fz_dirbuf);
		abort();
	}
	fz_dirp = fz_dirbuf;
	atexit(fz_rmdir);
	return fz_dirp;
}

/* The path of name in the scratch directory (a static buffer per slot). */
__attribute__((unused)) static const char *
fz_path(int slot, const char *name)
{
	static char buf[8][4200];

	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", fz_dir(), name);
	return buf[slot];
}

static void
fz_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			perror("fuzz: write");
			abort();
		}
		c += w;
		n -= (size_t)w;
	}
}

/* Replaces (or, with append, extends) path with p[0..n). */
static void __attribute__((unused))
fz_put_file(const char *path, const void *p, size_t n, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC |
	    (append ? O_APPEND : O_TRUNC), 0666);

	if (fd < 0) {
		perror(path);
		abort();
	}
	fz_write_all(fd, p, n);
	close(fd);
}

/* Reads the file open on fd, from its start, into a malloc'd buffer. */
__attribute__((unused)) static char *
fz_slurp_fd(int fd, size_t *n)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t r;

	if (buf == NULL)
		abort();
	if (lseek(fd, 0, SEEK_SET) != 0)
		abort();
	for (;;) {
		if (len == cap && (buf = realloc(buf, cap *= 2)) == NULL)
			abort();
		if ((r = read(fd, buf + len, cap - len)) < 0) {
			if (errno == EINTR)
				continue;
			abort();
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*n = len;
	return buf;
}

/* --- running fwin in-process --- */

#include "cli/cli.h"

/* The messages of the last fz_run_fwin (NUL-terminated), or NULL. */
static char *fz_err __attribute__((unused));
static size_t fz_nerr __attribute__((unused));

/* Signals that fwin's engine catches: put back after each run, so that
 * libFuzzer keeps its own handling (and no stray stop flag is left). */
static const int fz_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGPIPE };
#define FZ_NSIGS (sizeof(fz_sigs) / sizeof(fz_sigs[0]))

/*
 * Runs fwin_cli with the given arguments (copied: fwin writes into some
 * of them), its standard input from /dev/null, standard output into the
 * file out_fd (or /dev/null when out_fd < 0) and its messages kept in
 * fz_err. Returns fwin's exit status.
 *
 * The options given must be valid: a usage error would exit(2), which
 * libFuzzer takes for a crash. getopt is reset (optind = 0: glibc's full
 * reinitialisation).
 */
static int __attribute__((unused))
fz_run_fwin(int argc, const char *const *args, int out_fd)
{
	struct sigaction saved[FZ_NSIGS];
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));
	FILE *errmem;
	int so, si, devnull, rc, i;
	unsigned k;

	if (argv == NULL)
		abort();
	for (i = 0; i < argc; i++)
		if ((argv[i] = strdup(args[i])) == NULL)
			abort();
	for (k = 0; k < FZ_NSIGS; k++)
		sigaction(fz_sigs[k], NULL, &saved[k]);
	fflush(stdout);
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		abort();
	so = dup(1);
	si = dup(0);
	if (so < 0 || si < 0)
		abort();
	dup2(devnull, 0);
	dup2(out_fd >= 0 ? out_fd : devnull, 1);
	/* its messages kept in fz_err (shown too with FWIN_FUZZ_STDERR) */
	free(fz_err);
	fz_err = NULL;
	if ((errmem = open_memstream(&fz_err, &fz_nerr)) == NULL)
		abort();
	if (getenv("FWIN_FUZZ_STDERR") == NULL)
		fz_stderr_to(errmem);
	optind = 0;
	rc = fwin_cli(argc, argv);
	fflush(stdout);
	fz_stderr_back();
	fclose(errmem);
	dup2(so, 1);
	dup2(si, 0);
	close(so);
	close(si);
	close(devnull);
	for (k = 0; k < FZ_NSIGS; k++)
		sigaction(fz_sigs[k], &saved[k], NULL);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc;
}

/* A growable argument list. */
struct fz_args {
	const char *v[128];
	int n;
};

static void __attribute__((unused))
fz_arg(struct fz_args *a, const char *s)
{
	if (a->n >= (int)(sizeof(a->v) / sizeof(a->v[0])) - 1)
		abort();
	a->v[a->n++] = s;
}

/* A byte reader over the head of the fuzz data. */
struct fz_bytes {
	const uint8_t *p;
	size_t n;
};

static unsigned __attribute__((unused))
fz_byte(struct fz_bytes *b)
{
	if (b->n == 0)
		return 0;
	b->n--;
	return *b->p++;
}

#endif
