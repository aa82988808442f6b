/* output: row formatting (tsv, csv, json) and the buffered sink.
 * Rows are built cell by cell into one large buffer that is written with
 * write(2) when full and at out_flush(); no stdio. */
#ifndef FWIN_OUTPUT_H
#define FWIN_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* OF_CELLS is no text format: each cell as a tag byte ('s' text, 'n'
 * number: as written, or an exact decimal; 'f' a floating-point result,
 * the shortest text of its double; 'z' null), its length (4 bytes, host
 * order) and its bytes, and
 * 'e' ending a row, so that a writer (out_set_writer) that is no file,
 * such as the SQLite sink, takes cells with their kind and no quoting.
 * A sink in it moves rows between threads and scratch files as any other
 * does. */
enum outfmt { OF_TSV, OF_CSV, OF_JSON, OF_CELLS };

/* Opens a sink on fd (not closed by out_close) named name in messages, in
 * format f, with the given column names (copied; json uses them as keys).
 * Never NULL. */
struct out *out_open(int fd, const char *name, enum outfmt f,
    const char *const *cols, size_t ncols);

/* A sink like o (its format and columns) on fd. */
struct out *out_open_like(const struct out *o, int fd);

/* Writes the bytes of file fd (rows written by a sink like o, read from
 * its start) after o's rows, flushed before (out_flush: what o holds
 * still would follow them); sent(arg, n) after each
 * part of them written, n the bytes written so far (sent NULL: none).
 * Returns 0, or with errno set -1 (a write error) or -2 (a read error of
 * fd); o is left as it was. */
int out_copy_from(struct out *o, int fd, void (*sent)(void *arg, uint64_t n),
    void *arg);

/* Key-group workers (workers.h): a sink like o whose rows stay in memory,
 * growing, until out_mem_clear(); out_buffered() is what it holds. Rows
 * it formatted are written to o as they are with out_rows(). */
struct out *out_open_collect(const struct out *o);
const char *out_buffered(const struct out *o, size_t *n);
void out_rows(struct out *o, const char *p, size_t n);

/* A sink that keeps one row in memory, its cells as tsv text, so that a
 * caller can read a cell back (out_cell) before the row is written for
 * real. out_mem_clear() starts the next row. */
struct out *out_open_mem(void);
/* Cell i of the row so far, or NULL (n 0) when there is none. */
const char *out_cell(const struct out *o, size_t i, size_t *n);
void out_mem_clear(struct out *o);

/* Writes the header row of column names (tsv and csv; nothing for json). */
void out_header(struct out *o);

/* The bytes out_header() writes, without the final newline (none for
 * json): malloc'd, *n of them. */
char *out_header_line(struct out *o, size_t *n);

/* Cells, in column order; then out_end_row(). */
void out_str(struct out *o, const char *p, size_t n);	/* text */
void out_num(struct out *o, const char *p, size_t n);	/* a number: bare in json */
/* A number or time fwin formatted itself (num_format_*, tf_format): as
 * out_num, without looking for bytes that need quotes (it has none). */
void out_own_num(struct out *o, const char *p, size_t n);
/* An integer, as out_own_num() of num_format_int()'s text, written in
 * place: per row, for counts and sums. */
void out_int(struct out *o, int64_t v);
/* A floating-point result fwin formatted (num_format_result()): as
 * out_own_num(), tagged 'f' in OF_CELLS. */
void out_own_float(struct out *o, const char *p, size_t n);
/* A double, as out_own_float() of num_format_result()'s text. */
void out_double(struct out *o, double v);
void out_null(struct out *o);		/* empty cell; null in json */
/* The first ncells cells of a row, written already in o's format: a
 * record as read (--over). In json, p is an object, whose members come
 * before the cells that follow. */
void out_record(struct out *o, const char *p, size_t n, size_t ncells);
void out_end_row(struct out *o);

/* A row of csv or tsv written whole by the caller, straight into o's
 * buffer (the commonest row, whose cells one call each would cost more
 * than their bytes): out_row_room() gives room for n bytes and the
 * separator (to put between cells), or NULL where the cells are to be
 * written one at a time (json, a row begun, cells kept in memory, no
 * such room); out_row_done() ends the row at end, past its last cell,
 * or out_row_cells() takes the ncells cells written up to end as begun
 * for the rest to follow one call each. Between them, out_str_as_is()
 * tells whether out_str() would write p[0..n) as it is: no quotes
 * needed. */
char *out_row_room(struct out *o, size_t n, char *sep);
int out_str_as_is(const struct out *o, const char *p, size_t n);
void out_row_done(struct out *o, char *end);
void out_row_cells(struct out *o, char *end, size_t ncells);

/* Writes out what is buffered. Returns 0, or -1 with errno set; after a
 * failed write every later call fails too (the error is sticky). */
int out_flush(struct out *o);

/* Sends what is written from now on to fd instead (nothing buffered is
 * flushed: out_flush() first); returns the fd it went to. */
int out_divert(struct out *o, int fd);

/* Sends o's bytes to fn(arg, p, n, flush) instead of its fd (while o is
 * not diverted to a file): flush is 1 when out_flush() sends them, 0 when
 * the buffer is full. fn returns 0, or -1 with errno set (the sticky
 * error). */
typedef int (*out_writer_fn)(void *arg, const char *p, size_t n, int flush);
void out_set_writer(struct out *o, out_writer_fn fn, void *arg);

/* --changelog: a sink like o whose rows stay in memory and start at
 * column 1, so that it formats a row's cells after the op column (with
 * their separators, or json keys) and no row end: out_buffered() reads
 * them, out_mem_clear() starts again. */
struct out *out_open_tail(const struct out *o);
/* Appends cells formatted by a tail sink like o (ncells of them) to the
 * row o is writing. */
void out_cells(struct out *o, const char *p, size_t n, size_t ncells);

/* The errno of the first failed write, or 0. */
int out_error(const struct out *o);
/* The descriptor it writes to now (out_divert's), or -1: a writer's. */
int out_fd(const struct out *o);

/* Writes out what is buffered (whole rows, when called between rows),
 * then drops everything written after: a stopped batch run prints no
 * further row. Returns as out_flush(). */
int out_halt(struct out *o);

/* Forgets what is buffered and a failed write's error. */
void out_drop(struct out *o);

/* Flushes and frees. Returns 0, or -1 with errno set (as out_flush). */
int out_close(struct out *o);

#endif
