/*
 * Fuzz target "ckpt": the checkpoint loader on arbitrary bytes —
 * ckpt_open's verification, then st_adopt / aggs_check on the state, then
 * the engine running on what was adopted; and ckpt_inspect.
 *
 * Data layout: one control byte, then the checkpoint file, stored
 * compactly (tests/fuzz/mkseeds.sh): a real file is the header region,
 * the payload's used bytes, and a hole of zeros up to the length the
 * header gives; the hole is left out and put back here.
 *	b0	bits 0-2: the pipeline (mod NPIPE), as in the seeds;
 *		bit 3: the restoring run also saves a checkpoint, which must
 *		then restore; bit 4: no input after restore (else a few
 *		fixed records); bit 5: do not put the hole back; bit 6: do
 *		not fix the checksum
 *
 * Unless bit 6 is set, the checksum is recomputed over the mutated bytes,
 * as ckpt.c does, so that mutations reach the state checks instead of
 * all stopping at "checksum mismatch" (which is then tested by bit 6 and
 * by the seeds with a stale checksum).
 *
 * The run is `fwin PIPELINE --restore FILE --new-input INPUT`: it must
 * not crash, leak or exit(); a damaged file makes it exit 1 (or 2 for a
 * different pipeline), with a message. When it exits 0 with
 * --checkpoint, the file it saved must restore.
 */
#include <xxhash.h>

#include "fuzz.h"

#include "run/ckpt.h"

/* The pipelines of tests/fuzz/mkseeds.sh, in its order. */
static const char *const pl0[] = {
	"--csv", "-t", "1", "-k", "2", "--tumble", "10s", "-l", "5s",
	"--count", "--sum", "3", "--min", "3", "--max", "3", "--first", "3",
	"--last", "3", "--distinct", "3", "--min-by", "3", "--max-by", "3:2",
	NULL
};
static const char *const pl1[] = {
	"--csv", "-t", "1", "-k", "2", "--slide", "30s,10s",
	"--allowed-lateness", "1m", "--avg", "3", "--distinct", "2", NULL
};
static const char *const pl2[] = {
	"--csv", "-t", "1", "-k", "2", "--session", "20s", "--count",
	"--last", "3", "--distinct", "3", NULL
};
static const char *const pl3[] = {
	"--csv", "-k", "2", "--count-window", "5,2", "--sum", "3", "--first",
	"3", "--max-by", "3", NULL
};
static const char *const pl4[] = {
	"--csv", "-t", "1", "-k", "2,3", "--count", "--min", "3",
	"--distinct", "3", NULL
};
static const char *const pl5[] = {
	"--csv", "-t", "1", "--time-format", "s", "--tumble", "1m",
	"--count", "--max", "3", NULL
};
static const char *const pl6[] = {
	"--csv", "-t", "1", "-k", "2", "--slide", "30s,10s", "--median", "3",
	"--percentile", "3:10,99.9", "--approx-percentile", "3:50",
	"--approx-distinct", "3", "--stddev", "3", "--sum", "3", NULL
};
static const char *const pl7[] = {
	"--csv", "-t", "1", "-k", "2", "--session", "20s", "--percentile",
	"3:50", "--approx-percentile", "3:99", "--approx-distinct", "3",
	"--var-pop", "3", "--avg", "3", NULL
};
static const char *const *const pipes[] = {
	pl0, pl1, pl2, pl3, pl4, pl5, pl6, pl7
};
#define NPIPE (sizeof(pipes) / sizeof(pipes[0]))

/* Records after the restore: around the seeds' times (scripts like
 * tests/ckpt/gen.sh start at 1000000), late ones, bad ones, new keys. */
static const char more[] =
	"1000300,k01,5\n"
	"1000301,k02,-7\n"
	"999000,k01,1\n"
	"x,k03,1\n"
	"1000302,k03,\n"
	"1000900,k01,2.5\n"
	"1000901,k04,abc\n"
	"2000000,k02,9\n";

/* struct ck_header of ckpt.c: the fields used here, by offset. */
#define H_HDRLEN	12
#define H_CHECKSUM	16
#define H_PAYLEN	32
#define H_MAPCAP	40
#define H_SIZE		112
#define MAXFILE		(64u << 20)

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Writes the checkpoint file: data, then zeros up to the length its
 * header gives (when pad and that length is sane), with the checksum
 * recomputed (when fix and the lengths fit in the file).
 */
static void
write_ckpt(const char *path, const uint8_t *data, size_t n, int pad, int fix)
{
	uint8_t *img = malloc(n ? n : 1);
	uint64_t hdrlen = 0, paylen = 0, mapcap = 0, total = n, sum;
	XXH3_state_t *xs;
	static const uint8_t zeros[4096];
	uint64_t left;
	int fd;

	if (img == NULL)
		abort();
	memcpy(img, data, n);
	if (n >= H_SIZE) {
		hdrlen = get32(img + H_HDRLEN);
		paylen = get64(img + H_PAYLEN);
		mapcap = get64(img + H_MAPCAP);
	}
	if (pad && n >= H_SIZE && hdrlen <= MAXFILE && mapcap <= MAXFILE &&
	    hdrlen + mapcap > n)
		total = hdrlen + mapcap;
	if (fix && n >= H_SIZE && hdrlen >= H_SIZE && hdrlen <= total &&
	    paylen <= total - hdrlen) {
		if ((xs = XXH3_createState()) == NULL)
			abort();
		memset(img + H_CHECKSUM, 0, 8);
		XXH3_64bits_reset(xs);
		/* the header region, then the payload's used bytes, as they
		 * will be in the file: data, then zeros */
		left = hdrlen + paylen;
		XXH3_64bits_update(xs, img, left < n ? left : n);
		left = left > n ? left - n : 0;
		while (left > 0) {
			size_t k = left < sizeof(zeros) ? left : sizeof(zeros);

			XXH3_64bits_update(xs, zeros, k);
			left -= k;
		}
		sum = XXH3_64bits_digest(xs);
		XXH3_freeState(xs);
		memcpy(img + H_CHECKSUM, &sum, 8);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		abort();
	fz_write_all(fd, img, n);
	if (total > n && ftruncate(fd, (off_t)total) != 0)
		abort();
	close(fd);
	free(img);
}

static int
restore(const char *const *pl, const char *ck, const char *save,
    const char *input)
{
	struct fz_args a = { .n = 0 };
	int i;

	fz_arg(&a, "fwin");
	for (i = 0; pl[i] != NULL; i++)
		fz_arg(&a, pl[i]);
	fz_arg(&a, "--restore");
	fz_arg(&a, ck);
	fz_arg(&a, "--new-input");
	if (save != NULL) {
		fz_arg(&a, "--checkpoint");
		fz_arg(&a, save);
	}
	fz_arg(&a, input);
	return fz_run_fwin(a.n, a.v, -1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *ck = fz_path(0, "ck"), *saved = fz_path(1, "saved");
	const char *input = fz_path(2, "input"), *empty = fz_path(3, "empty");
	const char *const *pl;
	unsigned b0;
	FILE *devnull;
	int rc, save;

	if (size < 1)
		return 0;
	b0 = data[0];
	pl = pipes[(b0 & 7) % NPIPE];
	save = (b0 >> 3) & 1;
	write_ckpt(ck, data + 1, size - 1, !((b0 >> 5) & 1), !((b0 >> 6) & 1));

	if ((devnull = fopen("/dev/null", "w")) == NULL)
		abort();
	fz_quiet();
	rc = ckpt_inspect(ck, devnull);
	fz_stderr_back();
	fclose(devnull);
	if (rc != 0 && rc != 1)
		fz_fail("ckpt_inspect returned %d", rc);

	fz_put_file(empty, "", 0, 0);
	fz_put_file(input, more, sizeof(more) - 1, 0);
	unlink(saved);
	rc = restore(pl, ck, save ? saved : NULL, (b0 >> 4) & 1 ? empty : input);
	if (rc != 0 && rc != 1 && rc != 2)
		fz_fail("restore exited %d", rc);
	if (rc == 0 && save) {
		/* what a run saved after adopting this state restores */
		if ((rc = restore(pl, saved, NULL, empty)) != 0)
			fz_fail("a checkpoint saved after restore does not "
			    "restore (exit %d)", rc);
		if ((devnull = fopen("/dev/null", "w")) == NULL)
			abort();
		fz_quiet();
		rc = ckpt_inspect(saved, devnull);
		fz_stderr_back();
		if (rc != 0)
			fz_fail("a checkpoint saved after restore fails "
			    "--inspect");
		fclose(devnull);
	}
	return 0;
}
