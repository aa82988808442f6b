/*
 * shim: an LD_PRELOAD library that makes the N-th call of one kind fail,
 * for fault-injection tests (tests/faults.bats).
 *
 *	FAULT_CALL	the kind of call: write, read, fsync, fdatasync,
 *			rename, ftruncate, truncate, msync, mmap, mremap,
 *			malloc (malloc, calloc, realloc), open (open,
 *			openat), close, waitpid (EINTR: a signal came
 *			while it waited)
 *	FAULT_N		which call of that kind fails, counted from 1 from
 *			the start of main() (the loader's and libc's own
 *			start-up calls are not counted); 0 or unset: none
 *	FAULT_ERRNO	ENOSPC, EIO, ENOMEM, EINTR, EAGAIN, EACCES, EPIPE
 *			or a number (default EIO)
 *	FAULT_MODE	once (default): only the N-th call fails;
 *			sticky: the N-th and every later one (a full disk);
 *			short: write/read only: the N-th call moves half its
 *			bytes (at least one) and succeeds;
 *			pause: the N-th call waits until the file FAULT_GO
 *			exists (at most a minute), then is made as usual:
 *			a test runs another process meanwhile
 *	FAULT_PATH	open only: only calls on a path that ends so are
 *			counted towards N (FAULT_COUNT counts them all)
 *	FAULT_WHERE	any (default), main: only in the process main()
 *			started in, child: only in processes fork(2)ed from
 *			it (fwin's background checkpoint writers)
 *	FAULT_PROG	the program to fault, by the last part of its argv[0]
 *			(default fwin); other programs that load the shim,
 *			such as env(1) running fwin, are left alone
 *	FAULT_TIMEOUT	seconds: an alarm(2) that ends a run that hangs
 *	FAULT_LOG	a file: each injected fault appends a line
 *			"PID main|child KIND N ERRNO" (or "... N short");
 *			child: a process fork(2)ed from the one main() ran in
 *	FAULT_COUNT	a file: at exit, each process appends
 *			"PID main|child kind=count ..." for every kind it
 *			called
 *
 * Only calls made through the dynamic symbol table are seen: fwin's own
 * write(2), malloc(3) and so on. libc's internal calls (stdio's writes to
 * stderr, malloc's own mmap) are not, which is what we want: the faults
 * are those fwin has to handle. Counters live in each process: after
 * fork(2) the child goes on from the parent's counts.
 *
 * malloc is wrapped without recursion: the real functions are found with
 * dlsym(RTLD_NEXT), and the allocations dlsym itself makes meanwhile come
 * from a small static buffer that free() recognises and ignores. This also
 * works under AddressSanitizer (the real functions are then ASan's), with
 * ASAN_OPTIONS=verify_asan_link_order=0.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum kind {
	K_WRITE, K_READ, K_FSYNC, K_FDATASYNC, K_RENAME, K_FTRUNCATE,
	K_TRUNCATE, K_MSYNC, K_MMAP, K_MREMAP, K_MALLOC, K_OPEN, K_CLOSE,
	K_WAITPID, NKINDS
};

static const char *const kind_names[NKINDS] = {
	"write", "read", "fsync", "fdatasync", "rename", "ftruncate",
	"truncate", "msync", "mmap", "mremap", "malloc", "open", "close",
	"waitpid",
};

enum mode { M_ONCE, M_STICKY, M_SHORT, M_PAUSE };

static int armed;		/* main() has started */
static pid_t main_pid;		/* the process main() started in */
static int target = -1;
static long fault_n;
static int fault_errno = EIO;
static enum mode mode = M_ONCE;
static int where;		/* 0 any, 1 main only, 2 children only */
static const char *log_path, *count_path, *go_path, *fault_path;
static long counts[NKINDS];
static long path_calls;		/* those on FAULT_PATH */

/* --- the real functions --- */

#define REAL(name) static __typeof__(name) *real_##name
REAL(write); REAL(read); REAL(pread); REAL(pread64); REAL(fsync);
REAL(fdatasync); REAL(rename); REAL(ftruncate); REAL(truncate);
REAL(msync); REAL(mmap); REAL(mremap); REAL(open); REAL(open64);
REAL(openat); REAL(close); REAL(waitpid);
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

#define RESOLVE(name) do { \
	if (real_##name == NULL) \
		real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name); \
} while (0)

/* --- messages, without the functions we wrap --- */

static void
append_line(const char *path, const char *line)
{
	int fd;

	if (path == NULL)
		return;
	fd = (int)syscall(SYS_openat, AT_FDCWD, path,
	    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	(void)syscall(SYS_write, fd, line, strlen(line));
	(void)syscall(SYS_close, fd);
}

/* FAULT_MODE=pause: waits for FAULT_GO, every 10 ms, a minute at most. */
static void
pause_for_go(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 6000 && go_path != NULL &&
	    syscall(SYS_faccessat, AT_FDCWD, go_path, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

/* Counts a call of kind k (on path, or NULL); returns 1 when it is to
 * fail (errno is then set), 2 when it is to be short, 0 otherwise (after
 * the pause of FAULT_MODE=pause). */
static int
hit_on(enum kind k, const char *path)
{
	char line[128];
	long n;
	size_t len;

	if (!armed)
		return 0;
	n = ++counts[k];
	if ((int)k != target || fault_n <= 0)
		return 0;
	if (fault_path != NULL) {
		len = strlen(fault_path);
		if (path == NULL || strlen(path) < len ||
		    strcmp(path + strlen(path) - len, fault_path) != 0)
			return 0;
		n = ++path_calls;
	}
	if ((where == 1 && getpid() != main_pid) ||
	    (where == 2 && getpid() == main_pid))
		return 0;
	if (n != fault_n && !(mode == M_STICKY && n > fault_n))
		return 0;
	if (mode == M_PAUSE) {
		snprintf(line, sizeof(line), "%ld %s %s %ld pause\n",
		    (long)getpid(), getpid() == main_pid ? "main" : "child",
		    kind_names[k], n);
		append_line(log_path, line);
		pause_for_go();
		return 0;
	}
	if (mode == M_SHORT) {
		snprintf(line, sizeof(line), "%ld %s %s %ld short\n",
		    (long)getpid(), getpid() == main_pid ? "main" : "child",
		    kind_names[k], n);
		append_line(log_path, line);
		return 2;
	}
	snprintf(line, sizeof(line), "%ld %s %s %ld %s\n", (long)getpid(),
	    getpid() == main_pid ? "main" : "child", kind_names[k], n,
	    strerrorname_np(fault_errno));
	append_line(log_path, line);
	errno = fault_errno;
	return 1;
}

static int
hit(enum kind k)
{
	return hit_on(k, NULL);
}

static int
errno_value(const char *s)
{
	static const struct { const char *name; int value; } t[] = {
		{ "ENOSPC", ENOSPC }, { "EIO", EIO }, { "ENOMEM", ENOMEM },
		{ "EINTR", EINTR }, { "EAGAIN", EAGAIN }, { "EACCES", EACCES },
		{ "EPIPE", EPIPE }, { "EDQUOT", EDQUOT }, { "EFBIG", EFBIG },
		{ "EROFS", EROFS }, { "EBADF", EBADF }, { "EINVAL", EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i].name) == 0)
			return t[i].value;
	return atoi(s) > 0 ? atoi(s) : EIO;
}

static void
report_counts(void)
{
	char line[512];
	size_t len;
	int k;

	if (count_path == NULL)
		return;
	len = (size_t)snprintf(line, sizeof(line), "%ld %s", (long)getpid(),
	    getpid() == main_pid ? "main" : "child");
	for (k = 0; k < NKINDS && len < sizeof(line); k++)
		if (counts[k] > 0)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " %s=%ld", kind_names[k], counts[k]);
	if (len < sizeof(line) - 1) {
		line[len++] = '\n';
		line[len] = '\0';
	}
	append_line(count_path, line);
}

static void
setup(void)
{
	const char *s;
	int k;

	if ((s = getenv("FAULT_CALL")) != NULL)
		for (k = 0; k < NKINDS; k++)
			if (strcmp(s, kind_names[k]) == 0)
				target = k;
	if ((s = getenv("FAULT_N")) != NULL)
		fault_n = atol(s);
	if ((s = getenv("FAULT_ERRNO")) != NULL)
		fault_errno = errno_value(s);
	if ((s = getenv("FAULT_MODE")) != NULL)
		mode = strcmp(s, "sticky") == 0 ? M_STICKY :
		    strcmp(s, "short") == 0 ? M_SHORT :
		    strcmp(s, "pause") == 0 ? M_PAUSE : M_ONCE;
	if ((s = getenv("FAULT_WHERE")) != NULL)
		where = strcmp(s, "main") == 0 ? 1 : strcmp(s, "child") == 0 ? 2 : 0;
	log_path = getenv("FAULT_LOG");
	count_path = getenv("FAULT_COUNT");
	go_path = getenv("FAULT_GO");
	fault_path = getenv("FAULT_PATH");
	if (count_path != NULL)
		atexit(report_counts);
}

/* --- start counting when main() starts --- */

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int
wrap_main(int argc, char **argv, char **envp)
{
	const char *prog = getenv("FAULT_PROG"), *base, *s;

	/* timeout(1), env(1) and the like that run fwin load us too */
	if (prog == NULL)
		prog = "fwin";
	base = argc > 0 && (base = strrchr(argv[0], '/')) != NULL ? base + 1 :
	    argc > 0 ? argv[0] : "";
	if (strcmp(base, prog) == 0) {
		setup();
		main_pid = getpid();
		if ((s = getenv("FAULT_TIMEOUT")) != NULL && atoi(s) > 0)
			alarm((unsigned)atoi(s));
		armed = 1;
	}
	return real_main(argc, argv, envp);
}

int
__libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
    void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	int (*real)(main_fn, int, char **, void (*)(void), void (*)(void),
	    void (*)(void), void *);

	real = (__typeof__(real))dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return real(wrap_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* --- malloc, without recursion through dlsym --- */

static _Alignas(max_align_t) char boot[1 << 16];
static size_t boot_used;
static int resolving;

static void *
boot_alloc(size_t n)
{
	size_t *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (boot_used + n + sizeof(max_align_t) > sizeof(boot))
		return NULL;
	p = (size_t *)(boot + boot_used);
	*p = n;		/* the size, for realloc */
	boot_used += n + sizeof(max_align_t);
	return (char *)p + sizeof(max_align_t);
}

static int
is_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static void
resolve_malloc(void)
{
	if (real_free != NULL || resolving)
		return;
	resolving = 1;
	real_malloc = (__typeof__(real_malloc))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (__typeof__(real_calloc))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (__typeof__(real_realloc))dlsym(RTLD_NEXT, "realloc");
	real_free = (__typeof__(real_free))dlsym(RTLD_NEXT, "free");
	resolving = 0;
}

void *
malloc(size_t n)
{
	resolve_malloc();
	if (real_malloc == NULL)
		return boot_alloc(n);
	if (hit(K_MALLOC))
		return NULL;
	return real_malloc(n);
}

void *
calloc(size_t n, size_t size)
{
	void *p;

	resolve_malloc();
	if (real_calloc == NULL) {
		if (size != 0 && n > (size_t)-1 / size)
			return NULL;
		if ((p = boot_alloc(n * size)) != NULL)
			memset(p, 0, n * size);
		return p;
	}
	if (hit(K_MALLOC))
		return NULL;
	return real_calloc(n, size);
}

void *
realloc(void *old, size_t n)
{
	void *p;
	size_t had;

	resolve_malloc();
	if (real_realloc == NULL || is_boot(old)) {
		if (real_malloc == NULL)
			p = boot_alloc(n);
		else {
			if (hit(K_MALLOC))
				return NULL;
			p = real_malloc(n);
		}
		if (p != NULL && old != NULL) {
			had = *(size_t *)((char *)old - sizeof(max_align_t));
			memcpy(p, old, had < n ? had : n);
		}
		return p;
	}
	if (hit(K_MALLOC))
		return NULL;
	return real_realloc(old, n);
}

void
free(void *p)
{
	if (p == NULL || is_boot(p))
		return;
	resolve_malloc();
	if (real_free != NULL)
		real_free(p);
}

/* --- system calls --- */

ssize_t
write(int fd, const void *buf, size_t n)
{
	RESOLVE(write);
	switch (hit(K_WRITE)) {
	case 1:
		return -1;
	case 2:
		return real_write(fd, buf, n > 1 ? n / 2 : n);
	}
	return real_write(fd, buf, n);
}

ssize_t
read(int fd, void *buf, size_t n)
{
	RESOLVE(read);
	switch (hit(K_READ)) {
	case 1:
		return -1;
	case 2:
		return real_read(fd, buf, n > 1 ? n / 2 : n);
	}
	return real_read(fd, buf, n);
}

ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
	RESOLVE(pread);
	switch (hit(K_READ)) {
	case 1:
		return -1;
	case 2:
		return real_pread(fd, buf, n > 1 ? n / 2 : n, off);
	}
	return real_pread(fd, buf, n, off);
}

ssize_t
pread64(int fd, void *buf, size_t n, off_t off)
{
	RESOLVE(pread64);
	switch (hit(K_READ)) {
	case 1:
		return -1;
	case 2:
		return real_pread64(fd, buf, n > 1 ? n / 2 : n, off);
	}
	return real_pread64(fd, buf, n, off);
}

int
fsync(int fd)
{
	RESOLVE(fsync);
	return hit(K_FSYNC) == 1 ? -1 : real_fsync(fd);
}

int
fdatasync(int fd)
{
	RESOLVE(fdatasync);
	return hit(K_FDATASYNC) == 1 ? -1 : real_fdatasync(fd);
}

/* a failed wait leaves the child unwaited for, as a signal does */
pid_t
waitpid(pid_t pid, int *status, int options)
{
	RESOLVE(waitpid);
	return hit(K_WAITPID) == 1 ? -1 : real_waitpid(pid, status, options);
}

int
rename(const char *from, const char *to)
{
	RESOLVE(rename);
	return hit(K_RENAME) == 1 ? -1 : real_rename(from, to);
}

int
ftruncate(int fd, off_t len)
{
	RESOLVE(ftruncate);
	return hit(K_FTRUNCATE) == 1 ? -1 : real_ftruncate(fd, len);
}

int
truncate(const char *path, off_t len)
{
	RESOLVE(truncate);
	return hit(K_TRUNCATE) == 1 ? -1 : real_truncate(path, len);
}

int
msync(void *p, size_t n, int flags)
{
	RESOLVE(msync);
	return hit(K_MSYNC) == 1 ? -1 : real_msync(p, n, flags);
}

void *
mmap(void *p, size_t n, int prot, int flags, int fd, off_t off)
{
	RESOLVE(mmap);
	return hit(K_MMAP) == 1 ? MAP_FAILED :
	    real_mmap(p, n, prot, flags, fd, off);
}

void *
mremap(void *old, size_t oldn, size_t n, int flags, ...)
{
	va_list ap;
	void *to = NULL;

	RESOLVE(mremap);
	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	if (hit(K_MREMAP) == 1)
		return MAP_FAILED;
	return real_mremap(old, oldn, n, flags, to);
}

static mode_t
mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
	    (mode_t)va_arg(ap, int) : 0;
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_arg(flags, ap);
	va_end(ap);
	RESOLVE(open);
	return hit_on(K_OPEN, path) == 1 ? -1 : real_open(path, flags, m);
}

int
open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_arg(flags, ap);
	va_end(ap);
	RESOLVE(open64);
	return hit_on(K_OPEN, path) == 1 ? -1 : real_open64(path, flags, m);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_arg(flags, ap);
	va_end(ap);
	RESOLVE(openat);
	return hit_on(K_OPEN, path) == 1 ? -1 :
	    real_openat(dirfd, path, flags, m);
}

int
close(int fd)
{
	int rc;

	RESOLVE(close);
	/* Linux frees the descriptor even when close(2) reports an error */
	rc = real_close(fd);
	return hit(K_CLOSE) == 1 ? -1 : rc;
}

/* fork(2)ed checkpoint writers end with _exit(2), past atexit(3): count
 * them there. */
void
_exit(int status)
{
	if (armed)
		report_counts();
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
