/* input: the read buffer and the record framers (lines, csv, tsv, json);
 * its files (input*.c) are the only ones that include <csv.h>. Records
 * are slices of the read buffer (or, for quoted CSV, of a reused scratch
 * buffer): nothing is allocated per record. */
#ifndef FWIN_INPUT_H
#define FWIN_INPUT_H

#include <stddef.h>
#include <stdint.h>

enum infmt { IF_LINES, IF_CSV, IF_TSV, IF_JSON };

/* A field of a record the input framed. Its bytes are followed by
 * FIELD_PAD readable bytes (the buffers' own, defined), so that one load
 * of FIELD_PAD bytes from p reads a short field whole, with no test of
 * its length: its hash (keycodec.h: key_hash_field), its digits. */
struct field {
	const char *p;
	size_t n;
};
#define FIELD_PAD	8

struct record {
	const struct field *f;	/* fields, valid until the next input_next() */
	size_t nf;		/* number of fields split (see maxfields) */
	const char *raw;	/* the record as read, without its final newline */
	size_t rawlen;
	const char *file;	/* input name for messages, "-" for stdin */
	uint64_t line;		/* 1-based line where the record starts */
	const char *bad;	/* non-NULL when the record could not be framed
				   (e.g. "unterminated quoted field"): the
				   reason; f and nf are then not meaningful */
};

struct input_opts {
	enum infmt fmt;
	int delim;		/* separator byte, or -1 for the default */
	int header;		/* -H: each file starts with a header record */
	size_t maxfields;	/* split at most this many fields, 0 for all */
	/* A file's last line without its newline (or a CSV record with a
	 * quote still open, up to 1 MiB) is not a record yet: it is left
	 * unconsumed, for a later run that sees the rest (a cron run over a
	 * file that is being written), and said so on stderr: "fwin:
	 * FILE:LINE: unfinished record of N bytes left for the next run". */
	int hold_partial;
	/* When the next read(2) of a file that is not regular would block,
	 * return INPUT_WAIT instead of blocking: the caller flushes its
	 * output, runs its timers and waits (poll) until input_fd() is
	 * readable, then calls again. 0: block in read(2). */
	int may_wait;
	/* --follow: each FILE is followed as tail -F follows it (see
	 * follow.c): at its end the input waits for more (INPUT_WAIT), a
	 * file renamed away and recreated is read to its end and then the
	 * new one from its start, one truncated in place is read again from
	 * its start; several FILEs are read side by side, each a record at
	 * a time in turn, instead of one after the other. */
	int follow;
};

/* What input_next() and input_header() return besides records. */
enum { INPUT_END = 0, INPUT_RECORD = 1, INPUT_WAIT = 2 };

/* Opens the FILEs (nfiles of them; none means stdin; "-" is stdin) as one
 * stream. Files are opened lazily, in order. Never NULL (aborts on OOM). */
struct input *input_open(char *const *files, int nfiles,
    const struct input_opts *o);

/* With -H: reads the first file's header record and returns 1 with its
 * field names (valid for the life of the input), 0 when the input is empty,
 * -1 on an I/O error (reported), or INPUT_WAIT (see may_wait; call again
 * once input_fd() is readable). Without -H: returns 0. */
int input_header(struct input *in, const struct field **names, size_t *n);

/* Reads the next record. Returns INPUT_RECORD and fills *r, INPUT_END at
 * end of input, INPUT_WAIT (see may_wait), or -1 on a fatal error
 * (reported with "fwin: " on stderr; e.g. a later file's header that
 * differs from the first). A file that cannot be opened or read is
 * reported, skipped, and remembered for input_failed(). */
int input_next(struct input *in, struct record *r);

/* The records after input_next()'s that are framed at once from the
 * bytes read, without reading more or moving them (no header, file or
 * limit to see to): up to max (and INPUT_BLOCK) of them at r[0..n),
 * each with fields of its own; n, 0 for input_next() to take the next.
 * Their fields are good until the next call of either, their bytes until
 * the next input_next(); but for a JSON string with escapes, undone into
 * the scanner's buffer: a record with one ends a block, and none follows
 * it before the next input_next(). */
#define INPUT_BLOCK	32
size_t input_next_block(struct input *in, struct record *r, size_t max);

/* Gives back r and the records after it of the last input_next_block():
 * the next input_next() frames r again. */
void input_unframe(struct input *in, const struct record *r);

/* The descriptor to poll after INPUT_WAIT (-1: none, see below). */
int input_fd(const struct input *in);

/* The longest wait, in milliseconds, before input_next() is worth
 * calling again even when input_fd() stays quiet (-1: no limit): a
 * followed file is looked at again every second, as inotify(7) does not
 * tell of every change (or is not there). */
int input_wait_ms(const struct input *in);

/* Changes how many fields are split from now on (see maxfields), once
 * the header has told which columns are needed. */
void input_set_maxfields(struct input *in, size_t maxfields);

/* json: the paths (see json.h) whose values fill a record's fields, in
 * this order: field i of every record is the value of paths[i] (copied).
 * Called once, before the first record is read. */
void input_set_paths(struct input *in, const char *const *paths, size_t n);

/* Nonzero when some file could not be opened or read. */
int input_failed(const struct input *in);

/* Where the stream stands after the last record returned: the index of
 * the current file among the FILEs, and how many of its bytes have been
 * consumed (through that record's line end). */
int input_file_index(const struct input *in);
uint64_t input_offset(const struct input *in);

/* How far the stream has been consumed, per FILE operand: what a
 * checkpoint records so that a later run skips it. */
struct input_pos {
	uint64_t ip_dev, ip_ino;	/* the file's identity when opened */
	uint64_t ip_off;		/* bytes consumed through the last record */
	uint64_t ip_lines;		/* lines consumed */
	uint32_t ip_isreg;		/* a regular file (identity is checked) */
	uint32_t ip_hashed;		/* ip_head and ip_tail are set */
	/* Its content's fingerprint: XXH3-64 of its first INPUT_FPLEN bytes
	 * and of the INPUT_FPLEN before ip_off (fewer when ip_off is less):
	 * bytes consumed, which stay as they are while the file grows. */
	uint64_t ip_head, ip_tail;
};

#define INPUT_FPLEN	4096

/* --follow: the FILE operand (from 0) that a record's file (its
 * record.file) is, or -1. */
int input_source(const struct input *in, const char *file);

/* --follow, --progress: how many bytes of FILE operand i are not read
 * yet (0: fwin is at its end), or -1 when it is not there. */
int64_t input_behind(const struct input *in, int i);

/* The number of FILE operands (stdin alone counts as one). */
int input_nfiles(const struct input *in);

/* Bytes consumed so far, of every FILE operand (for --progress). */
uint64_t input_bytes(const struct input *in);

/* The name of FILE operand i, as given ("-" for stdin). */
const char *input_name(const struct input *in, int i);

/* Where each FILE operand stands: pos[i] for i < input_nfiles(). A file
 * not reached yet has ip_off 0. The open file's fingerprint is taken now
 * (two pread(2)s of INPUT_FPLEN bytes, when it has moved). */
const struct input_pos *input_positions(struct input *in);

/* Before the first read: skip what an earlier run consumed, pos[0..n)
 * per FILE operand. A regular file is seeked, after its header; one that
 * is not the same file (device, inode, fingerprint) or is shorter than
 * its position is read from its start, with a warning that says which.
 * Other input is read and its records are discarded up to the position,
 * with a note that says so ("fwin: skipping N bytes of standard input
 * already processed (--new-input reads it all)"). */
void input_resume(struct input *in, const struct input_pos *pos, int n);

/* --follow, after input_resume(): when the checkpoint was saved (wall
 * time, ns). A file rotated while fwin was stopped whose rotated copy
 * holding the checkpoint's position is gone (compressed, removed) is
 * known by it: the rotated files written after the save are read. */
void input_resume_saved(struct input *in, int64_t saved);

/* A checkpoint's positions pos[0..n), saved with the FILE operands
 * names[0..n), as input_resume() takes them for this run's operands
 * (input_nfiles() of them; the caller frees them): each operand gets the
 * entry of its file (its device and inode, and the bytes consumed),
 * wherever the file stood among the operands then; else of the file it
 * is a copy of under a rotated name (copy-truncated since); else of its
 * name (rotated since); else the entry in its place, if no other took
 * it; else none (read from its start). So the operands may be given in
 * another order, or some left out or added: each resumes where its file
 * was. One stat(2) each, and the files matched are read (fingerprints). */
struct input_pos *input_match(const struct input *in,
    const struct input_pos *pos, const char *const *names, int n);

/* Ends the stream at byte off of FILE operand fi (fi from 0): past it,
 * input_next() returns INPUT_END before the next record, as it does once
 * a later FILE is reached. input_at_limit() then says whether the input
 * stopped exactly there (its last record ended there, not past it: a
 * quoted CSV field can hold a line end). fi -1 lifts the limit. */
void input_set_limit(struct input *in, int fi, uint64_t off);
int input_at_limit(const struct input *in);

void input_close(struct input *in);

#endif
