/*
 * Fuzz target "engine": the whole program, fwin_cli() (src/cli/cli.c), over option sets chosen from a fixed menu of
 * valid ones, on the rest of the data as its input file.
 *
 * Data layout: eight option bytes, then the input.
 *	b0	window kind (bits 0-2 mod 5: tumble, slide, session, count,
 *		rolling), its size (bits 3-5)
 *	b1	input format (bits 0-1 mod 3), -H (bit 2), -d (bit 3),
 *		--output-format (bits 4-5: default, tsv, csv, json),
 *		field names instead of numbers with -H (bit 6)
 *	b2	time: bits 0-2 -t with --time-format auto, s, ms, us, ns, iso,
 *		a strptime format, or no -t (processing time); bits 3-4 the
 *		time field; bits 5-7 --output-time
 *	b3	keys (bits 0-1), --lateness (2-3), --allowed-lateness (4-5),
 *		--offset (6-7)
 *	b4	aggregates: count sum avg min max first last distinct
 *	b5	min-by, max-by, --strict, --late-file, --flush or --no-flush
 *		(bits 4-5: neither, --flush, --no-flush, neither), --stats,
 *		-o FILE
 *	b6	mode (bits 0-1): 1 and 2 check a checkpointed split run,
 *		3 the memory budget of batch mode; bits 2-7: median,
 *		percentile, approx-percentile, stddev, var-pop,
 *		approx-distinct; bit 2 also --tz Europe/Berlin, bit 3 also
 *		--cumulate for --tumble (options chosen together)
 *	b7	where the input splits in those modes
 *
 * Plain mode runs fwin once: it must not crash, leak, hang or exit().
 * Its input is a file, so with -t and no stream-only option it runs in
 * batch mode (fwin(1): BATCH AND STREAM MODES).
 *
 * Mode 3 checks fwin(1) BATCH AND STREAM MODES: with event time and no
 * stream-only option (batch mode), a run with --max-memory 1 (every
 * record spilled as a sorted run of its own, the runs merged) writes
 * exactly what a run with the default budget writes, and exits the
 * same. (In a stream --max-memory bounds the state instead.)
 *
 * Split modes check fwin(1) CHECKPOINTS: the input is cut at a
 * line end into two parts, and a run over the whole must write exactly
 * the bytes of a run over the first part with --checkpoint C followed by
 * a run that restores C and reads the rest (the whole run is given
 * --mode stream: a checkpointed run is a stream), either
 *	1: from a new file, with --new-input, or
 *	2: from the same file grown by the rest (the cron use: the first
 *	   part's bytes are skipped, by the input position in C).
 * Only for event time (processing time is the wall clock), without
 * --flush (it would fire the first run's open windows), and for csv only
 * without quotes (a cut line end could be inside a quoted field). With
 * -H the restored run writes no second header row: it continues the
 * output (engine.c, open_output).
 */
#include "fuzz.h"

static const char *const tumble_sz[8] = {
	"1s", "10s", "1m", "1h", "1ms", "7ns", "1d", "1500ms"
};
static const char *const slide_sz[8] = {
	"10s,5s", "1m,10s", "10s,3s", "5s,10s", "1h,10m", "3ms,1ms", "24h,1h",
	"100s,1s"
};
/* calendar and fixed: offsets of the menu shift them all */
static const char *const cumulate_sz[8] = {
	"10s,5s", "1m,10s", "1d,1h", "1h,10m", "3ms,1ms", "1w,1d", "2d,1d",
	"100s,1s"
};
static const char *const session_gap[8] = {
	"1s", "30s", "5m", "1h", "1ms", "10ns", "1d", "2s"
};
static const char *const count_n[8] = {
	"3", "2,1", "5,2", "1", "4,4", "3,5", "10,3", "2"
};
static const char *const time_fmt[7] = {
	"auto", "s", "ms", "us", "ns", "iso", "%Y-%m-%d %H:%M:%S"
};
static const char *const out_time[8] = {
	NULL, "s", "ms", "us", "ns", "iso", "auto", NULL
};
static const char *const lateness[4] = { NULL, "1s", "30s", "1h" };
static const char *const allowed[4] = { NULL, "1s", "1m", "1d" };
static const char *const offset[4] = { NULL, "-500ms", "1h", "-8h" };

struct opts {
	int wkind, header, names, has_time, flush, oflag, csv;
	int stream;	/* a stream-only option chose stream mode */
};

/* Field references: a column number, or with -H and names a header
 * name that the seeds' headers use (t, k, v, w). */
static const char *
field(const struct opts *o, const char *num, const char *name)
{
	return o->header && o->names ? name : num;
}

/* b6's aggregates: options and their arguments by number and by name */
static const char *const agg2_opt[6] = {
	"--median", "--percentile", "--approx-percentile", "--stddev",
	"--var-pop", "--approx-distinct"
};
static const char *const agg2_num[6] = {
	"3", "3:0,50,99.9", "3:50,95", "3", "3", "4"
};
static const char *const agg2_name[6] = {
	"v", "v:0,50,99.9", "v:50,95", "v", "v", "w"
};

static void
build(struct fz_args *a, const uint8_t *b, struct opts *o, const char *outfile)
{
	static const char *const agg_opt[8] = {
		"--count", "--sum", "--avg", "--min", "--max", "--first",
		"--last", "--distinct"
	};
	static const char *const agg_num[8] = {
		NULL, "3", "3", "3", "4", "2", "4", "3"
	};
	static const char *const agg_name[8] = {
		NULL, "v", "v", "v", "w", "k", "w", "v"
	};
	unsigned sz = (b[0] >> 3) & 7, tf = b[2] & 7, i;

	memset(o, 0, sizeof(*o));
	fz_arg(a, "fwin");
	o->header = (b[1] >> 2) & 1;
	o->names = (b[1] >> 6) & 1;
	switch (b[1] & 3) {
	case 1:
		fz_arg(a, "--csv");
		o->csv = 1;
		if (b[1] & 8)
			fz_arg(a, "-d;");
		break;
	case 2:
		fz_arg(a, "--format=tsv");
		if (b[1] & 8)
			fz_arg(a, "--delimiter=,");
		break;
	default:
		if (b[1] & 8) {
			fz_arg(a, "-d");
			fz_arg(a, ":");
		}
		break;
	}
	if (o->header)
		fz_arg(a, "-H");
	switch ((b[1] >> 4) & 3) {
	case 1: fz_arg(a, "--output-format=tsv"); break;
	case 2: fz_arg(a, "--output-format=csv"); break;
	case 3: fz_arg(a, "--output-format=json"); break;
	}
	o->wkind = (b[0] & 7) % 5;
	switch (o->wkind) {
	case 0:
		if (b[6] & 8) {
			fz_arg(a, "--cumulate");
			fz_arg(a, cumulate_sz[sz]);
			break;
		}
		fz_arg(a, "--tumble");
		fz_arg(a, tumble_sz[sz]);
		break;
	case 1: fz_arg(a, "--slide"); fz_arg(a, slide_sz[sz]); break;
	case 2: fz_arg(a, "--session"); fz_arg(a, session_gap[sz]); break;
	case 3: fz_arg(a, "--count-window"); fz_arg(a, count_n[sz]); break;
	default: break;		/* rolling */
	}
	if (tf != 7) {
		static const char *const tnum[4] = { "1", "1", "2", "3" };

		o->has_time = 1;
		fz_arg(a, "-t");
		fz_arg(a, field(o, tnum[(b[2] >> 3) & 3], "t"));
		if (tf != 0 || (b[2] & 0x18) == 0x18) {
			fz_arg(a, "--time-format");
			fz_arg(a, time_fmt[tf]);
		}
	}
	if (b[6] & 4)
		fz_arg(a, "--tz=Europe/Berlin");
	if (out_time[b[2] >> 5] != NULL) {
		fz_arg(a, "--output-time");
		fz_arg(a, out_time[b[2] >> 5]);
	}
	switch (b[3] & 3) {
	case 1: fz_arg(a, "-k"); fz_arg(a, field(o, "2", "k")); break;
	case 2: fz_arg(a, "--key"); fz_arg(a, o->header && o->names ?
		    "k,v" : "2,3"); break;
	case 3:
		fz_arg(a, "-k");
		fz_arg(a, field(o, "2", "k"));
		fz_arg(a, "-k");
		fz_arg(a, field(o, "4", "w"));
		break;
	}
	if (lateness[(b[3] >> 2) & 3] != NULL) {
		o->stream = 1;
		fz_arg(a, "-l");
		fz_arg(a, lateness[(b[3] >> 2) & 3]);
	}
	if (allowed[(b[3] >> 4) & 3] != NULL) {
		o->stream = 1;
		fz_arg(a, "--allowed-lateness");
		fz_arg(a, allowed[(b[3] >> 4) & 3]);
	}
	if (offset[b[3] >> 6] != NULL) {
		fz_arg(a, "--offset");
		fz_arg(a, offset[b[3] >> 6]);
	}
	for (i = 0; i < 8; i++) {
		if (!(b[4] & (1u << i)))
			continue;
		fz_arg(a, agg_opt[i]);
		if (agg_num[i] != NULL)
			fz_arg(a, field(o, agg_num[i], agg_name[i]));
	}
	if (b[5] & 1) {
		fz_arg(a, "--min-by");
		fz_arg(a, field(o, "3", "v"));
	}
	if (b[5] & 2) {
		fz_arg(a, "--max-by");
		fz_arg(a, o->header && o->names ? "v:k" : "3:2");
	}
	if (b[5] & 4)
		fz_arg(a, "--strict");
	if (b[5] & 8) {
		o->stream = 1;
		fz_arg(a, "--late-file");
		fz_arg(a, "/dev/null");
	}
	/* --flush or --no-flush, or neither: both are a usage error */
	o->flush = ((b[5] >> 4) & 3) % 3;
	if (o->flush & 1)
		fz_arg(a, "--flush");
	if (o->flush & 2) {
		o->stream = 1;
		fz_arg(a, "--no-flush");
	}
	if (b[5] & 64)
		fz_arg(a, "--stats");
	if (b[5] & 128) {
		o->oflag = 1;
		fz_arg(a, "-o");
		fz_arg(a, outfile);
	}
	for (i = 0; i < 6; i++) {
		if (!(b[6] & (4u << i)))
			continue;
		fz_arg(a, agg2_opt[i]);
		fz_arg(a, o->header && o->names ? agg2_name[i] : agg2_num[i]);
	}
}

/* Runs fwin with base's options, then extra, then the input file, and
 * returns its exit status; *out, *n: what it wrote to standard output,
 * or (with -o) the whole of the -o file afterwards. */
static int
run(const struct fz_args *base, const char *const *extra, int nextra,
    const char *input, const struct opts *o, const char *outfile,
    char **out, size_t *n)
{
	struct fz_args a = *base;
	int i, fd, rc;

	for (i = 0; i < nextra; i++)
		fz_arg(&a, extra[i]);
	fz_arg(&a, input);
	fd = open(fz_path(5, "stdout"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0666);
	if (fd < 0)
		abort();
	rc = fz_run_fwin(a.n, a.v, fd);
	/* a run whose every record was bad exits 1 (it says so), though a
	 * run over more of the input may not: its rows still count */
	if (rc == 1 && fz_err != NULL &&
	    strstr(fz_err, " bad; see the messages above\n") != NULL)
		rc = 0;
	if (o->oflag) {
		close(fd);
		if ((fd = open(outfile, O_RDONLY | O_CLOEXEC)) < 0) {
			*n = 0;
			*out = calloc(1, 1);
			return rc;
		}
	}
	*out = fz_slurp_fd(fd, n);
	close(fd);
	return rc;
}

static void
split_check(const struct fz_args *args, const struct opts *o, int mode,
    const uint8_t *p, size_t n, unsigned cut, const char *outfile)
{
	const char *whole = fz_path(0, "whole"), *part = fz_path(1, "part");
	const char *rest = fz_path(2, "rest"), *ck = fz_path(3, "ck");
	const char *ext0[] = { "--mode", "stream" };	/* as the split runs */
	const char *ext1[] = { "--checkpoint", ck };
	const char *ext2[] = { "--restore", ck, "--new-input" };
	size_t nl = 0, i, at = 0, hl = 0, na, nb1, nb2;
	char *ra, *rb1, *rb2, *b2;
	int sa, sb1, sb2;

	/* the cut: after the (cut mod lines+1)-th line end */
	for (i = 0; i < n; i++)
		nl += p[i] == '\n';
	cut %= nl + 1;
	for (i = 0; i < n && cut > 0; i++)
		if (p[i] == '\n' && --cut == 0)
			at = i + 1;
	if (o->header) {
		/* the header is the first record: empty lines before it are
		 * none */
		const uint8_t *e;

		for (;;) {
			if ((e = memchr(p + hl, '\n', n - hl)) == NULL)
				return;
			i = hl;
			hl = (size_t)(e - p) + 1;
			if (hl - i > 2 || (hl - i == 2 && p[i] != '\r'))
				break;
		}
		/* the first run must have a record after its header, or
		 * it stops at once without a checkpoint */
		if (at <= hl || memchr(p, '\n', at) == NULL)
			return;
	}

	/* a new file that starts with a byte order mark skips it (fwin(1),
	 * --format), where the whole file holds it in a record */
	if (mode == 1 && hl == 0 && n - at >= 3 &&
	    memcmp(p + at, "\xef\xbb\xbf", 3) == 0)
		return;

	unlink(ck);
	unlink(outfile);
	fz_put_file(whole, p, n, 0);
	sa = run(args, ext0, 2, whole, o, outfile, &ra, &na);

	unlink(outfile);
	fz_put_file(part, p, at, 0);
	sb1 = run(args, ext1, 2, part, o, outfile, &rb1, &nb1);
	if (mode == 1) {
		/* a new file: the header line, then the rest */
		fz_put_file(rest, p, hl, 0);
		fz_put_file(rest, p + at, n - at, 1);
		sb2 = run(args, ext2, 3, rest, o, outfile, &rb2, &nb2);
	} else {
		/* the same file, grown */
		fz_put_file(part, p + at, n - at, 1);
		sb2 = run(args, ext2, 2, part, o, outfile, &rb2, &nb2);
	}
	if ((sa == 0) != (sb1 == 0 && sb2 == 0))
		fz_fail("split mode %d: whole run exit %d, split runs %d and %d",
		    mode, sa, sb1, sb2);
	if (sa != 0)
		goto done;
	b2 = rb2;
	if (o->oflag) {
		/* the -o file holds the first run's rows, then the second's */
		if (nb2 < nb1 || memcmp(rb2, rb1, nb1) != 0)
			fz_fail("split mode %d: the restored run changed the "
			    "first run's -o rows", mode);
		b2 += nb1;
		nb2 -= nb1;
	}
	if (na != nb1 + nb2 || memcmp(ra, rb1, nb1) != 0 ||
	    memcmp(ra + nb1, b2, nb2) != 0) {
		if (getenv("FWIN_FUZZ_STDERR") != NULL)
			fprintf(stderr, "--- whole:\n%.*s--- first:\n%.*s"
			    "--- second:\n%.*s---\n", (int)na, ra, (int)nb1,
			    rb1, (int)nb2, b2);
		fz_fail("split mode %d: the rows differ (whole %zu bytes, "
		    "split %zu + %zu)", mode, na, nb1, nb2);
	}
done:
	free(ra);
	free(rb1);
	free(rb2);
}

static void
budget_check(const struct fz_args *args, const struct opts *o,
    const uint8_t *p, size_t n, const char *outfile)
{
	const char *whole = fz_path(0, "whole");
	const char *ext[] = { "--max-memory", "1" };
	size_t na, nb;
	char *ra, *rb;
	int sa, sb;

	fz_put_file(whole, p, n, 0);
	unlink(outfile);
	sa = run(args, NULL, 0, whole, o, outfile, &ra, &na);
	unlink(outfile);
	sb = run(args, ext, 2, whole, o, outfile, &rb, &nb);
	if (sa != sb)
		fz_fail("budget: exit %d, with --max-memory 1 exit %d", sa, sb);
	if (na != nb || memcmp(ra, rb, na) != 0)
		fz_fail("budget: the rows differ with --max-memory 1 (%zu "
		    "bytes, %zu)", na, nb);
	free(ra);
	free(rb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t b[8] = { 0 };
	struct fz_args args = { .n = 0 };
	struct opts o;
	const uint8_t *p = data;
	size_t n = size, i;
	const char *in = fz_path(0, "whole");
	int mode, rc;

	for (i = 0; i < 8 && i < size; i++)
		b[i] = data[i];
	p += i;
	n -= i;
	build(&args, b, &o, fz_path(4, "out"));
	mode = b[6] & 3;
	if (mode == 1 || mode == 2) {
		if (!o.has_time || (o.flush & 1) ||
		    (o.csv && memchr(p, '"', n) != NULL))
			mode = 0;
	} else if (mode == 3) {
		/* (in a stream --max-memory bounds the state, and past it
		 * stops the run: fwin(1), --max-memory) */
		if (o.has_time && !o.stream) {
			budget_check(&args, &o, p, n, fz_path(4, "out"));
			return 0;
		}
		mode = 0;
	} else
		mode = 0;
	if (mode == 0) {
		unlink(fz_path(4, "out"));
		fz_put_file(in, p, n, 0);
		fz_arg(&args, in);
		rc = fz_run_fwin(args.n, args.v, -1);
		/* fwin(1) EXIT STATUS: 0, 1 for a runtime failure; every option here is
		 * valid, so never 2 but for what the header (-H) says: a name
		 * it lacks, or two columns it names alike where the output
		 * knows columns by name (--as) */
		if (rc != 0 && rc != 1 && !(rc == 2 && o.header))
			fz_fail("fwin exited %d", rc);
		return 0;
	}
	split_check(&args, &o, mode, p, n, b[7], fz_path(4, "out"));
	return 0;
}
