/* changelog: what --changelog (and the SQLite sink, which applies it)
 * needs to know of the rows printed before: for each window (and key)
 * that may print again, the cells of the row it printed last, so that a
 * new row of it is told as "-U" with that row and "+U" with the new one,
 * and a row that stops passing --having as "-D" with it (Flink's
 * RowKind). The rows live in the state's arena, behind the driver's
 * block (op_globals), so a checkpoint holds them and a restore prints
 * the "-U" rows a run that never stopped prints.
 *
 * A window's identity: its bounds and key for windows on a grid
 * (tumble, slide, cumulate); the key for a session (a key's sessions
 * are one entry: a session that grows by merging replaces those it
 * absorbed, which are told "-D"), for the global window (whose bounds
 * move as records come) and for rolling mode. Count windows never print
 * twice. An entry goes once its window can print no more (its end plus
 * the allowed lateness is behind the watermark), swept when the entries
 * have doubled since the last sweep. */
#ifndef FWIN_CHANGELOG_H
#define FWIN_CHANGELOG_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/config.h"
#include "window/state.h"

/* Bytes the changelog keeps behind the driver's block: 0 when rows of
 * this pipeline never print twice (no --changelog or SQLite sink, or no
 * allowed lateness, --emit-every or rolling mode): every row is then
 * "+I" and nothing is kept. */
size_t clog_size(const struct config *c);

/* The root, at the start of those bytes. */
struct clog_root {
	aoff cr_tab;		/* open-addressing table of struct clog_slot */
	uint64_t cr_cap;	/* a power of two, or 0 */
	uint64_t cr_n;		/* entries */
	uint64_t cr_sweep;	/* entries at which the next sweep runs */
};
ARENA_LAYOUT(struct clog_root, 32);

/* A row of a window, as printed: its cells after the op column, in the
 * output's format (output.h's out_open_tail). */
struct clog_row {
	int64_t start, end;	/* the window's bounds (has_bounds) */
	int has_bounds;
	int final;		/* 0: a partial row (--emit-every) */
	const char *key;
	size_t keylen;
	const char *cells;
	size_t ncells_len;
};

/* What a row is told as: op is "+I", "-U", "+U" or "-D"; cells are the
 * cells of the row (for "-U" and "-D", the one printed before). */
typedef void (*clog_emit_fn)(void *arg, const char *op, const char *cells,
    size_t n);

struct clog {
	const struct config *c;
	struct state *st;
	size_t at;		/* the root's offset in the driver's block */
	int kind;		/* how a window is known (changelog.c) */
	char *buf;		/* an entry being built */
	size_t len, cap;
	aoff moved;		/* a sweep's rebuilt entry */
	char *key;		/* the row's key, copied (clog_print) */
	size_t keycap;
};

/* For the state st (its driver block holding clog_size(c) bytes at
 * offset at). */
void clog_init(struct clog *cl, const struct config *c, struct state *st,
    size_t at);

/* Checks a restored store, claiming its blocks (st_claim). Returns NULL,
 * or what is wrong. */
const char *clog_check(struct clog *cl);

/* Frees what clog_init and the calls after it allocated (not state). */
void clog_fini(struct clog *cl);

/* A row fired at watermark w: emits what it is told as (one call, or
 * "-U" then "+U", or a "-D" for each session it absorbed then "+I"), and
 * keeps it while its window may print again. */
void clog_print(struct clog *cl, int64_t w, const struct clog_row *row,
    clog_emit_fn emit, void *arg);

/* A row of a window that no longer passes (--having): when the window
 * had printed a row, emits "-D" with it and forgets it. */
void clog_gone(struct clog *cl, const struct clog_row *row,
    clog_emit_fn emit, void *arg);

#endif
