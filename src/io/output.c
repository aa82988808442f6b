/* output: row formatting (tsv, csv, json) and the buffered sink.
 *
 * Every byte goes through put() into one 256 KiB buffer, which is written
 * with write(2) when it is full and at out_flush(). A row may be split
 * across two writes; nothing reads the output between those writes except
 * the consumer of the stream, which sees the same bytes either way. So the
 * buffer never grows, however long a cell is, and nothing is allocated
 * after out_open().
 *
 * The first write error is kept in o_err: later output is dropped, and
 * out_flush()/out_close() report that error, so a full disk is never a
 * silent truncation and never a flood of repeated failures. */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/output.h"
#include "base/num.h"
#include "base/util.h"

#define OUT_BUFSZ	(256 * 1024)

struct col {
	const char	*c_name;	/* points into o_names */
	size_t		 c_len;
	size_t		 c_key;		/* json: offset of its key in o_keys */
	size_t		 c_keylen;
};

struct out {
	int		 o_fd;
	enum outfmt	 o_fmt;
	char		*o_name;	/* for the caller's messages */
	char		*o_buf;
	size_t		 o_len;
	size_t		 o_cap;
	int		 o_err;		/* errno of the first failed write */
	int		 o_collect;	/* out_open: grow o_buf, do not write */
	int		 o_halt;	/* out_halt: nothing more is written */
	size_t		 o_col;		/* cells so far in the current row */
	size_t		 o_ncols;
	struct col	*o_cols;
	char		*o_names;	/* the column names, NUL-separated */
	char		*o_keys;	/* json: `{"name":` for the first column,
					   `,"name":` for the others, escaped
					   once here rather than per row */
	int		 o_bare;		/* json: the next key without its comma
					   (after an object of no members) */
	size_t		*o_cellat;	/* out_open_mem: where each cell starts */
	size_t		 o_cellcap;
	size_t		 o_first;	/* the column rows start at (a tail: 1) */
	out_writer_fn	 o_wr;		/* out_set_writer, or NULL */
	void		*o_wrarg;
};

/* Bytes that a JSON string can hold as they are: printable ASCII but '"'
 * and '\\', and DEL. Bytes >= 0x80 are checked as UTF-8 separately. */
static const unsigned char json_plain[256] = {
	[0x20] = 1, [0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1,
};

/* Bytes that force a csv cell into quotes (RFC 4180). */
static const unsigned char csv_special[256] = {
	[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1,
};

/* Sends p[0..n) where o's bytes go: its writer, or its fd (a file it is
 * diverted to included). Returns 0, or -1 with errno set. */
static int
send(struct out *o, const char *p, size_t n, int flush)
{
	if (o->o_wr != NULL && o->o_fd < 0)
		return o->o_wr(o->o_wrarg, p, n, flush);
	return write_all(o->o_fd, p, n);
}

/* Empties the full buffer: to the fd, or, while out_open() builds the json
 * keys in it, into more room. */
static void
drain(struct out *o)
{
	if (o->o_collect) {
		o->o_cap *= 2;
		if ((o->o_buf = realloc(o->o_buf, o->o_cap)) == NULL)
			fwin_oom();
		return;
	}
	if (o->o_err == 0 && !o->o_halt &&
	    send(o, o->o_buf, o->o_len, 0) == -1)
		o->o_err = errno;
	o->o_len = 0;
}

static void
put_slow(struct out *o, const char *p, size_t n)
{
	size_t room;

	for (;;) {
		room = o->o_cap - o->o_len;
		if (n <= room)
			break;
		memcpy(o->o_buf + o->o_len, p, room);
		o->o_len += room;
		p += room;
		n -= room;
		drain(o);
	}
	memcpy(o->o_buf + o->o_len, p, n);
	o->o_len += n;
}

static inline void
put(struct out *o, const char *p, size_t n)
{
	if (n <= o->o_cap - o->o_len) {
		memcpy(o->o_buf + o->o_len, p, n);
		o->o_len += n;
	} else
		put_slow(o, p, n);
}

static inline void
put1(struct out *o, char c)
{
	if (o->o_len == o->o_cap)
		drain(o);
	o->o_buf[o->o_len++] = c;
}

/* Writes p[0..n) as a JSON string. Runs of bytes that need no escaping
 * (valid UTF-8 included) are copied at once. Each byte that does not
 * start a well-formed sequence becomes one U+FFFD, so that the line is
 * valid JSON whatever the input held. */
static void
json_str(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char esc[6];
	size_t i = 0, run, k;

	put1(o, '"');
	for (;;) {
		run = i;
		while (i < n) {
			if (json_plain[p[i]])
				i++;
			else if (p[i] >= 0x80 && (k = utf8_seq(p + i, n - i)))
				i += k;
			else
				break;
		}
		put(o, s + run, i - run);
		if (i == n)
			break;
		switch (p[i]) {
		case '"':  put(o, "\\\"", 2); break;
		case '\\': put(o, "\\\\", 2); break;
		case '\b': put(o, "\\b", 2); break;
		case '\f': put(o, "\\f", 2); break;
		case '\n': put(o, "\\n", 2); break;
		case '\r': put(o, "\\r", 2); break;
		case '\t': put(o, "\\t", 2); break;
		default:
			if (p[i] >= 0x80)
				put(o, "\\ufffd", 6);
			else {
				/* six bytes for put(), not a C string */
				/* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[p[i] >> 4];
				esc[5] = hex[p[i] & 0xf];
				put(o, esc, 6);
			}
			break;
		}
		i++;
	}
	put1(o, '"');
}

static int
isdigit_c(char c)
{
	return c >= '0' && c <= '9';
}

/* Whether p[0..n) is a number by the JSON grammar (RFC 8259 section 6):
 * -? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)? */
static int
json_number(const char *p, size_t n)
{
	size_t i = 0, d;

	if (i < n && p[i] == '-')
		i++;
	if (i < n && p[i] == '0')
		i++;
	else if (i < n && p[i] >= '1' && p[i] <= '9')
		while (i < n && isdigit_c(p[i]))
			i++;
	else
		return 0;
	if (i < n && p[i] == '.') {
		for (d = ++i; i < n && isdigit_c(p[i]); i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		for (d = i; i < n && isdigit_c(p[i]); i++)
			;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* Whether p[0..n) is a csv cell as it is, without quotes. */
static inline int
csv_plain(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n && !csv_special[u[i]]; i++)
		;
	return i == n;
}

/* Writes p[0..n) as a csv cell, in quotes only when RFC 4180 needs them. */
static void
csv_str(struct out *o, const char *p, size_t n)
{
	const char *q;

	/* A row of one empty cell would be a blank line, which readers
	 * skip: it is written "". */
	if (n == 0 && o->o_ncols == 1) {
		put(o, "\"\"", 2);
		return;
	}
	if (csv_plain(p, n)) {
		put(o, p, n);
		return;
	}
	put1(o, '"');
	/* Each '"' is written with the text before it, then once more. */
	while ((q = memchr(p, '"', n)) != NULL) {
		put(o, p, (size_t)(q - p) + 1);
		put1(o, '"');
		n -= (size_t)(q - p) + 1;
		p = q + 1;
	}
	put(o, p, n);
	put1(o, '"');
}

/* Writes what separates this cell from the previous one: a separator, or
 * in json the brace or comma and the key. */
static void
cell_begin_any(struct out *o)
{
	const struct col *c;

	switch (o->o_fmt) {
	case OF_TSV:
		if (o->o_col > 0)
			put1(o, '\t');
		break;
	case OF_CSV:
		if (o->o_col > 0)
			put1(o, ',');
		break;
	case OF_CELLS:
		break;
	case OF_JSON:
		if (o->o_col < o->o_ncols && o->o_bare) {
			c = &o->o_cols[o->o_col];
			put(o, o->o_keys + c->c_key + 1, c->c_keylen - 1);
			o->o_bare = 0;
		} else if (o->o_col < o->o_ncols) {
			c = &o->o_cols[o->o_col];
			put(o, o->o_keys + c->c_key, c->c_keylen);
		} else {
			/* More cells than columns breaks the contract;
			 * an empty key still keeps the line valid JSON. */
			put1(o, o->o_col == 0 ? '{' : ',');
			put(o, "\"\":", 3);
		}
		break;
	}
	if (o->o_cellat != NULL) {
		xgrow(&o->o_cellat, &o->o_cellcap, o->o_col + 1,
		    sizeof(*o->o_cellat));
		o->o_cellat[o->o_col] = o->o_len;
	}
	o->o_col++;
}

/* cell_begin_any(), inline for the cells of csv and tsv as written (a
 * call per cell costs more than its separator). */
static inline void
cell_begin(struct out *o)
{
	if (o->o_fmt > OF_CSV || o->o_cellat != NULL) {
		cell_begin_any(o);
		return;
	}
	if (o->o_col++ > 0)
		put1(o, o->o_fmt == OF_TSV ? '\t' : ',');
}

struct out *
out_open(int fd, const char *name, enum outfmt f, const char *const *cols,
    size_t ncols)
{
	struct out *o;
	size_t i, len, total = 0;
	char *np;

	o = xmalloc(sizeof(*o));
	memset(o, 0, sizeof(*o));
	o->o_fd = fd;
	o->o_fmt = f;
	len = strlen(name) + 1;
	o->o_name = memcpy(xmalloc(len), name, len);

	o->o_ncols = ncols;
	o->o_cols = xmalloc((ncols ? ncols : 1) * sizeof(*o->o_cols));
	for (i = 0; i < ncols; i++)
		total += strlen(cols[i]) + 1;
	np = o->o_names = xmalloc(total ? total : 1);
	for (i = 0; i < ncols; i++) {
		len = strlen(cols[i]);
		memcpy(np, cols[i], len + 1);
		o->o_cols[i].c_name = np;
		o->o_cols[i].c_len = len;
		np += len + 1;
	}

	/* The json keys are escaped by the same code as the cells, into a
	 * buffer that grows instead of being written; that buffer then
	 * becomes o_keys. */
	if (f == OF_JSON) {
		o->o_collect = 1;
		o->o_cap = 64;
		o->o_buf = xmalloc(o->o_cap);
		for (i = 0; i < ncols; i++) {
			o->o_cols[i].c_key = o->o_len;
			put1(o, i == 0 ? '{' : ',');
			json_str(o, o->o_cols[i].c_name, o->o_cols[i].c_len);
			put1(o, ':');
			o->o_cols[i].c_keylen = o->o_len - o->o_cols[i].c_key;
		}
		o->o_keys = o->o_buf;
		o->o_collect = 0;
		o->o_len = 0;
	}
	o->o_cap = OUT_BUFSZ;
	o->o_buf = xmalloc(o->o_cap);
	return o;
}

struct out *
out_open_mem(void)
{
	struct out *o = out_open(-1, "memory", OF_TSV, NULL, 0);

	o->o_collect = 1;
	o->o_cellcap = 16;
	o->o_cellat = xmalloc(o->o_cellcap * sizeof(*o->o_cellat));
	return o;
}

const char *
out_cell(const struct out *o, size_t i, size_t *n)
{
	size_t end;

	if (i >= o->o_col) {
		*n = 0;
		return NULL;
	}
	end = i + 1 < o->o_col ? o->o_cellat[i + 1] - 1 : o->o_len;
	*n = end - o->o_cellat[i];
	return o->o_buf + o->o_cellat[i];
}

void
out_mem_clear(struct out *o)
{
	o->o_len = 0;
	o->o_col = o->o_first;
}

void
out_header(struct out *o)
{
	size_t i;

	if (o->o_fmt == OF_JSON || o->o_fmt == OF_CELLS)
		return;
	for (i = 0; i < o->o_ncols; i++)
		out_str(o, o->o_cols[i].c_name, o->o_cols[i].c_len);
	out_end_row(o);
}

char *
out_header_line(struct out *o, size_t *n)
{
	char *buf = o->o_buf, *line;
	size_t len = o->o_len, cap = o->o_cap;

	o->o_collect = 1;
	o->o_cap = 64;
	o->o_buf = xmalloc(o->o_cap);
	o->o_len = 0;
	out_header(o);
	line = o->o_buf;
	*n = o->o_len > 0 ? o->o_len - 1 : 0;	/* without its '\n' */
	o->o_buf = buf;
	o->o_len = len;
	o->o_cap = cap;
	o->o_collect = 0;
	return line;
}

/* OF_CELLS: a cell of kind tag. */
static void
cells_put(struct out *o, char tag, const char *p, size_t n)
{
	uint32_t len = (uint32_t)n;

	cell_begin(o);
	put1(o, tag);
	put(o, (const char *)&len, sizeof(len));
	put(o, p, n);
}

void
out_str(struct out *o, const char *p, size_t n)
{
	if (n == 0)
		p = "";		/* an empty cell may come as (NULL, 0) */
	if (o->o_fmt == OF_CELLS) {
		cells_put(o, 's', p, n);
		return;
	}
	cell_begin(o);
	switch (o->o_fmt) {
	case OF_TSV:
		put(o, p, n);
		break;
	case OF_CSV:
		csv_str(o, p, n);
		break;
	case OF_JSON:
		json_str(o, p, n);
		break;
	case OF_CELLS:
		break;
	}
}

void
out_num(struct out *o, const char *p, size_t n)
{
	if (n == 0)
		p = "";
	if (o->o_fmt == OF_CELLS) {
		cells_put(o, 'n', p, n);
		return;
	}
	/* "inf", "nan", "+3", ".5" and the like are numbers to fwin but not
	 * to JSON: as strings they keep the line valid. */
	if (o->o_fmt == OF_JSON && json_number(p, n)) {
		cell_begin(o);
		put(o, p, n);
	} else
		out_str(o, p, n);
}

void
out_own_num(struct out *o, const char *p, size_t n)
{
	/* digits, '-', '.', ':', 'T', 'Z', "e+", "inf", "nan": nothing that
	 * needs csv quotes, so no byte is looked at */
	if (o->o_fmt == OF_JSON || o->o_fmt == OF_CELLS)
		out_num(o, p, n);
	else {
		cell_begin(o);
		put(o, p, n);
	}
}

/* Where a number fwin formats itself goes in a csv or tsv row: after its
 * separator, with room for NUM_BUFSZ bytes (its text and NUL). */
static char *
own_num_room(struct out *o)
{
	cell_begin(o);
	if (o->o_cap - o->o_len < NUM_BUFSZ)
		drain(o);
	return o->o_buf + o->o_len;
}

void
out_own_float(struct out *o, const char *p, size_t n)
{
	if (o->o_fmt == OF_CELLS)
		cells_put(o, 'f', p, n);
	else
		out_own_num(o, p, n);
}

void
out_int(struct out *o, int64_t v)
{
	char buf[NUM_BUFSZ];

	if (o->o_fmt == OF_JSON || o->o_fmt == OF_CELLS)
		out_num(o, buf, num_format_int(buf, v));
	else {
		char *at = own_num_room(o);	/* (moves o_len first) */

		o->o_len += num_format_int(at, v);
	}
}

void
out_double(struct out *o, double v)
{
	char buf[NUM_BUFSZ];

	if (o->o_fmt == OF_JSON || o->o_fmt == OF_CELLS)
		out_own_float(o, buf, num_format_result(buf, v));
	else {
		char *at = own_num_room(o);	/* (moves o_len first) */

		o->o_len += num_format_result(at, v);
	}
}

void
out_null(struct out *o)
{
	if (o->o_fmt == OF_CELLS) {
		cells_put(o, 'z', "", 0);
		return;
	}
	cell_begin(o);
	if (o->o_fmt == OF_JSON)
		put(o, "null", 4);
	else if (o->o_fmt == OF_CSV && o->o_ncols == 1)
		put(o, "\"\"", 2);	/* as csv_str() */
}

void
out_record(struct out *o, const char *p, size_t n, size_t ncells)
{
	size_t i;

	if (o->o_fmt != OF_JSON) {
		put(o, p, n);
		o->o_col += ncells;
		return;
	}
	/* the object without its closing brace: a json record was read as
	 * one object, so it starts with '{' and ends with '}' and blanks */
	while (n > 0 && p[n - 1] != '}')
		n--;
	if (n > 0)
		n--;
	put(o, p, n);
	for (i = 1; i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'); i++)
		;
	o->o_bare = i >= n;
	o->o_col += ncells;
}

void
out_end_row(struct out *o)
{
	if (o->o_fmt == OF_JSON) {
		if (o->o_col == 0)
			put1(o, '{');
		put(o, "}\n", 2);
	} else if (o->o_fmt == OF_CELLS)
		put1(o, 'e');
	else
		put1(o, '\n');
	o->o_col = o->o_first;
	o->o_bare = 0;
}

char *
out_row_room(struct out *o, size_t n, char *sep)
{
	if (o->o_fmt > OF_CSV || o->o_cellat != NULL || o->o_col != 0 ||
	    n >= o->o_cap)
		return NULL;
	if (o->o_cap - o->o_len <= n)
		drain(o);
	if (o->o_cap - o->o_len <= n)
		return NULL;	/* (a buffer that collects, grown once) */
	*sep = o->o_fmt == OF_TSV ? '\t' : ',';
	return o->o_buf + o->o_len;
}

int
out_str_as_is(const struct out *o, const char *p, size_t n)
{
	return o->o_fmt == OF_TSV || (csv_plain(p, n) &&
	    (n != 0 || o->o_ncols != 1));	/* (as csv_str()) */
}

void
out_row_done(struct out *o, char *end)
{
	*end++ = '\n';
	o->o_len = (size_t)(end - o->o_buf);
}

void
out_row_cells(struct out *o, char *end, size_t ncells)
{
	o->o_len = (size_t)(end - o->o_buf);
	o->o_col += ncells;
}

int
out_flush(struct out *o)
{
	if (o->o_collect)
		return 0;
	/* a writer is told of every flush: it ends a transaction there */
	if (o->o_err == 0 && !o->o_halt && (o->o_len > 0 ||
	    (o->o_wr != NULL && o->o_fd < 0)) &&
	    send(o, o->o_buf, o->o_len, 1) == -1)
		o->o_err = errno;
	o->o_len = 0;
	if (o->o_err != 0) {
		errno = o->o_err;
		return -1;
	}
	return 0;
}

struct out *
out_open_like(const struct out *o, int fd)
{
	const char **cols = xmalloc((o->o_ncols ? o->o_ncols : 1) *
	    sizeof(*cols));
	struct out *n;
	size_t i;

	for (i = 0; i < o->o_ncols; i++)
		cols[i] = o->o_cols[i].c_name;
	n = out_open(fd, o->o_name, o->o_fmt, cols, o->o_ncols);
	free(cols);
	return n;
}

struct out *
out_open_collect(const struct out *o)
{
	struct out *n = out_open_like(o, -1);

	n->o_collect = 1;
	return n;
}

struct out *
out_open_tail(const struct out *o)
{
	struct out *n = out_open_collect(o);

	n->o_first = n->o_col = 1;
	return n;
}

void
out_cells(struct out *o, const char *p, size_t n, size_t ncells)
{
	put(o, p, n);
	o->o_col += ncells;
}

void
out_set_writer(struct out *o, out_writer_fn fn, void *arg)
{
	o->o_wr = fn;
	o->o_wrarg = arg;
}

const char *
out_buffered(const struct out *o, size_t *n)
{
	*n = o->o_len;
	return o->o_buf;
}

void
out_rows(struct out *o, const char *p, size_t n)
{
	put(o, p, n);
}

int
out_copy_from(struct out *o, int fd, void (*sent)(void *arg, uint64_t n),
    void *arg)
{
	enum { COPY = 1 << 20 };
	char *buf = xmalloc(COPY);
	ssize_t n;
	off_t off = 0;
	int rc = 0;

	if (o->o_halt) {
		free(buf);
		return 0;
	}
	while ((n = pread(fd, buf, COPY, off)) > 0) {
		if (send(o, buf, (size_t)n, 0) != 0) {
			rc = -1;
			break;
		}
		off += n;
		if (sent != NULL)
			sent(arg, (uint64_t)off);
	}
	if (n < 0)
		rc = -2;
	free(buf);
	return rc;
}

int
out_divert(struct out *o, int fd)
{
	int was = o->o_fd;

	o->o_fd = fd;
	return was;
}

int
out_error(const struct out *o)
{
	return o->o_err;
}

int
out_fd(const struct out *o)
{
	return o->o_fd;
}

int
out_halt(struct out *o)
{
	int rc = out_flush(o);

	o->o_halt = 1;
	return rc;
}

void
out_drop(struct out *o)
{
	o->o_len = 0;
	o->o_err = 0;
}

int
out_close(struct out *o)
{
	int rc, saved;

	rc = out_flush(o);
	saved = errno;
	free(o->o_buf);
	free(o->o_keys);
	free(o->o_names);
	free(o->o_cols);
	free(o->o_cellat);
	free(o->o_name);
	free(o);
	errno = saved;		/* free(3) may not keep it everywhere */
	return rc;
}
