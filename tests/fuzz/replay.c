/*
 * A plain driver for a fuzz target, without libFuzzer: runs every file
 * named, and every file under every directory named (recursively, in
 * sorted order), through LLVMFuzzerTestOneInput once. Built with gcc and
 * ASan/UBSan for `make fuzz-replay`, so that the seed corpora and every
 * crasher ever found are regression inputs of `make check`.
 *
 * usage: replay_TARGET [-v] FILE|DIR...
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int verbose;
static unsigned long nrun;

static void
run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL, *copy;
	size_t n = 0, cap = 0, r;

	if (fp == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (;;) {
		if (n == cap && (buf = realloc(buf, cap = cap ? 2 * cap :
		    65536)) == NULL)
			abort();
		if ((r = fread(buf + n, 1, cap - n, fp)) == 0)
			break;
		n += r;
	}
	if (ferror(fp)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		exit(1);
	}
	fclose(fp);
	/* an exact-size copy, so that ASan sees reads past the data */
	if ((copy = malloc(n ? n : 1)) == NULL)
		abort();
	memcpy(copy, buf, n);
	free(buf);
	if (verbose)
		fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	nrun++;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
run_path(const char *path)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;

	if (stat(path, &sb) != 0) {
		if (errno == ENOENT)	/* e.g. no crasher saved yet */
			return;
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!S_ISDIR(sb.st_mode)) {
		run_file(path);
		return;
	}
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')	/* ., .., .gitkeep */
			continue;
		if ((names = realloc(names, (n + 1) * sizeof(*names))) == NULL ||
		    asprintf(&names[n], "%s/%s", path, de->d_name) < 0)
			abort();
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	for (i = 0; i < n; i++) {
		run_path(names[i]);
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
	int i = 1;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	if (i < argc && strcmp(argv[i], "-v") == 0) {
		verbose = 1;
		i++;
	}
	for (; i < argc; i++)
		run_path(argv[i]);
	fprintf(stderr, "%s: %lu inputs replayed\n", argv[0], nrun);
	return 0;
}
