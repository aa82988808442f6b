/* inputint: the input's insides, shared by its modules and no other.
 * From the top down (each calls only those below it): input.c (input.h's
 * entry points: a stream, or followed FILEs), follow.c (--follow: the
 * FILEs side by side), inputread.c (one stream of FILEs read in turn:
 * the record framers), followleaf.c (a followed file truncated or
 * rotated), inputcsv.c (CSV records with quotes, through libcsv),
 * inputfiles.c (the FILE operands: opening them in turn, their identity
 * and fingerprints, resuming at a checkpoint's position) and inputbuf.c
 * (the read buffer). */
#ifndef FWIN_INPUTINT_H
#define FWIN_INPUTINT_H

#include <csv.h>

#include "io/input.h"
#include "base/util.h"

#define BUF_INIT	(1u << 20)
#define BUF_SHRINK	(16u << 20)	/* give back a grown buffer once idle */
#define RECMAX		((size_t)1 << 30)
#define BUF_MAX		(RECMAX + (64u << 10))
#define SLACK		16		/* bytes after the buffer, see scan16();
					   FIELD_PAD of them, zero, past
					   the last field */
#define NOQUOTE		((size_t)-1)
#define SAT_FAR		((size_t)1 << 62)	/* see struct input: sat */
#define BLOCK_FIELDS	8	/* fields of a record in a block, at most */
#define QUOTE_MAX	((size_t)1 << 20)	/* a quote open longer is bad */

#define ERR_LONG	"record longer than 1 GiB"
#define ERR_QUOTE	"unterminated quoted field"
#define ERR_STRAY	"a '\"' inside a quoted field is not doubled"

enum { EOL_OK = 1, EOL_END = 0, EOL_LONG = -1, EOL_ERR = -2, EOL_QUOTE = -3,
    EOL_WAIT = -4, EOL_STRAY = -5 };
enum { FILL_MORE = 1, FILL_EOF = 0, FILL_ERR = -1, FILL_WAIT = -2 };
enum { FR_RECORD = 1, FR_END = 0, FR_WAIT = -1 };
enum { HDR_UNREAD, HDR_HAVE, HDR_EMPTY, HDR_ERR };

struct slot {
	size_t off, n;		/* a field in the scratch buffer */
};

struct input {
	struct input_opts o;
	int delim;		/* the byte, or -1: runs of blanks */
	char *const *files;
	int nfiles;
	int fi;			/* the file open or last tried, -1 at first */
	const char *name;
	int fd;			/* -1 when no file is open */
	int fdown;		/* we opened fd, so we close it */
	int isreg;		/* read(2) never blocks: no poll */
	int eof;		/* the file is read to its end (or abandoned) */
	int needhdr;		/* the file's next record is its header */
	int hdragain;		/* truncated: its next record may be the
				   header again (skipped if it is) */
	int failed;
	int fatal;
	uint64_t lineno;	/* lines of the file consumed */
	uint64_t consumed;	/* bytes of the file consumed */
	uint64_t quick_until;	/* next_quick() frames while consumed is
				   below it: what it depends on, as the
				   last record taken the long way left it
				   (quick_from_here()); 0 where that
				   changes outside stream_next() */
	int outfi;		/* where the last returned record ended */
	uint64_t outoff;
	int limfi;		/* input_set_limit(): the end, or -1 */
	uint64_t limoff;
	struct input_pos *ipos;	/* per FILE: identity and consumption */
	uint64_t skip;		/* resume: bytes of this file to skip */
	uint64_t skiplines;
	uint64_t fpat;		/* ip_off of the fingerprint taken, or -1 */
	/* A record with an unterminated quote covered the file's bytes up
	 * to here: a record that starts before it and has a quote still
	 * open at its line end is bad at once (see frame_quoted). */
	uint64_t qsuspect;
	struct input_pos *resume; /* per FILE, from input_resume() */
	int nresume;

	/* buf[pos..end) is read but not consumed */
	char *buf;
	size_t cap, pos, end;
	/* The first '"' at or after where the last search began, or NOQUOTE
	 * when there is none before qlim: one memchr looks ahead over the
	 * whole buffer, so quote-free CSV costs it once per read. */
	size_t qat, qlim;
	/* frame_fast(): the structural bytes (delimiter, '\n', and in CSV
	 * '"') of the 64 bytes at sat not yet framed, a bit each, while
	 * the buffer's bytes have not moved; sat is SAT_FAR when they are
	 * not known (so far from any position that none is within 64) */
	size_t sat;
	uint64_t sbits;

	struct field *f;	/* the fields of the record returned */
	size_t fcap;
	/* those of a block's records (stream_next_block): the k-th's
	 * at k times the fields a record has, BLOCK_FIELDS at most */
	struct field bf[INPUT_BLOCK * BLOCK_FIELDS];

	int hdr;		/* HDR_* */
	struct field *hf;	/* the first file's header, ours */
	size_t hnf;
	char *hbytes;

	/* quoted CSV */
	struct csv_parser csv;
	int csvready;
	int cxdone;		/* libcsv ended the row */
	int cxstray;		/* the open field has an undoubled '"' */
	size_t cxmax;		/* fields to keep, 0 for all */
	struct slot *cx;	/* offsets, as scr may move while it grows */
	size_t cxnf, cxcap;
	char *scr;
	size_t sclen, sccap;

	struct json *json;	/* json: the paths' scanner */
	size_t npaths;

	/* --follow (follow.c). The input of the FILEs holds one input per
	 * FILE (sub), each a leaf that follows its file (tail). */
	struct input **sub;
	int nsub;
	int cur;		/* the leaf read last */
	int ino;		/* inotify(7) on the FILEs' directories, or -1 */
	int tail;		/* a leaf: its one file is followed */
	int hdrok;		/* a leaf's header was found the first's */
	int missing;		/* its file was not there: said once */
	int rotated;		/* its file was renamed away: read to the end */
	int rewind;		/* truncated in place: read again from 0 */
	int ended;		/* it cannot be read any more */
	int hold;		/* o.hold_partial, while a rotation clears it */
	int oldlooked;		/* a restart looked for a rotated file */
	int readold;		/* reading it: its end is a rotation */
	char *oldpath;		/* its name */
	char **later;		/* the files rotated after it, oldest first,
				   read next, each to its end (their names
				   kept to the close: records name them) */
	int nlater, nextlater;
	int64_t saved;		/* the checkpoint's save time (ns), or 0 */
	uint64_t shown;		/* consumed, for --progress on another
				   thread (atomic) */
};

/* inputbuf.c: the read buffer */
enum { FOLLOW_MORE, FOLLOW_WAIT, FOLLOW_END };
void report(struct input *in, int errnum);	/* a file's I/O error */
void quotes_moved(struct input *in);	/* the buffer's bytes moved */
/* Reads more of the current file (blocking, or FILL_WAIT unless block):
 * FILL_*. */
int fill(struct input *in, int block);
/* The end of the line at pos + from (reading as needed): EOL_*. */
int find_eol(struct input *in, size_t from, size_t *eol);
/* Steps past n bytes a framer took; grows the record's fields. Inline:
 * the framers call them on every record. */
static inline void
consume(struct input *in, size_t n)
{
	in->pos += n;
	in->consumed += n;
}

static inline void
grow_fields(struct input *in, size_t want)
{
	while (in->fcap < want)
		in->fcap *= 2;
	in->f = xrealloc(in->f, in->fcap * sizeof(*in->f));
}
/* A leaf's read(2) returned 0: whether there is more to read now, the
 * input waits, or the file is read to its end (renamed away). */
int follow_eof(struct input *in);

/* inputread.c: one stream of FILEs read in turn (a leaf of --follow is
 * one): input_open(), input_header(), input_next() and input_close() of
 * input.h, when not following */
struct input *stream_open(char *const *files, int nfiles,
    const struct input_opts *o);
int stream_header(struct input *in, const struct field **names, size_t *n);
int stream_next(struct input *in, struct record *r);
/* input_next_block(), input_unframe() of one stream */
size_t stream_next_block(struct input *in, struct record *r, size_t max);
void stream_unframe(struct input *in, const struct record *r);
void stream_close(struct input *in);
/* A record past RECMAX: consumed without being kept, and bad. */
void too_long(struct input *in, struct record *r);
/* Whether a[0..na) and b[0..nb) are the same fields: a header read again,
 * a followed file's header against the first file's. */
int same_fields(const struct field *a, size_t na, const struct field *b,
    size_t nb);
/* Says that file's header a[0..na) is not the first file's, and the
 * first column where they part: "FILE: header differs from the first
 * file's: column 2 is 'name', not 'user'". */
void header_differs(const char *file, const struct field *a, size_t na,
    const struct field *first, size_t nfirst);

/* inputcsv.c: CSV records with quotes, through libcsv */
void csv_reset(struct input *in);
int frame_quoted(struct input *in, struct record *r, size_t max, size_t eol);

/* inputfiles.c */
int fingerprint(int fd, uint64_t off, uint64_t *head, uint64_t *tail);
/* Whether path holds the bytes a checkpoint consumed of its file at p
 * (and is that file, its device and inode, when inode is set). */
int file_holds(const char *path, const struct input_pos *p, int inode);
/* Whether name is one logrotate gives a rotated copy of base (base.1,
 * base-20261203, not compressed). */
int rotated_name(const char *name, const char *base);
/* Whether name is a compressed rotated copy of base (base.1.gz). */
int rotated_zipped(const char *name, const char *base);
void take_fingerprint(struct input *in);
void seek_resume(struct input *in);
int open_next(struct input *in);
void close_file(struct input *in);

/* followleaf.c: a leaf with no file open: opens it (1), waits for it
 * (0), or it cannot be read (-1); a leaf truncated, read again from its
 * start */
int follow_reopen(struct input *in);
void follow_rewind(struct input *in);

/* follow.c: --follow, the FILEs side by side */
struct input *follow_open(char *const *files, int nfiles,
    const struct input_opts *o);
int follow_next(struct input *in, struct record *r);
int follow_header(struct input *in, const struct field **names, size_t *n);
void follow_close(struct input *in);

#endif
