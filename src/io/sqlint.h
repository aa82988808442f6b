/* sqlint: the SQLite sink's insides, shared by sqlsink.c (opening,
 * applying rows), sqljournal.c (fwin's own tables: the commit
 * position, the owner, the journal) and sqlstmt.c (the statements both
 * use); no other module includes it. The calls point one way: sqlsink.c
 * to sqljournal.c, and both to sqlstmt.c. */
#ifndef FWIN_SQLINT_H
#define FWIN_SQLINT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "io/sqlsink.h"

enum { ST_UPSERT, ST_DELETE, ST_JOURNAL, ST_COMMITPOS, ST_PRUNE,
	ST_N };

struct sqlsink {
	sqlite3 *db;
	char *dbname;
	char *table;
	char **cols;		/* the table's columns */
	size_t ncols;
	size_t *pk;		/* the primary key's columns */
	size_t npk;
	int journal;
	sqlite3_stmt *st[ST_N];
	int in_txn;
	int ready;		/* the table is there, statements prepared */
	enum sqlcol *types;
	int iso;
	uint64_t tag;		/* the generation of this transaction */
	uint64_t position;	/* of the last transaction committed */
	uint64_t pruned;	/* journal dropped up to this generation */
	sqlsink_gens_fn gens;
	void *gens_arg;
	char *carry;		/* a row cut by a full buffer */
	size_t ncarry, capcarry;
	const char **cell;	/* the row being applied: its cells */
	size_t *cellen;
	char *kinds;
	char num[64];		/* a number's text, NUL-ended, for strtod */
	int failed;
	int opened;		/* sqlsink_open made it (close may make TABLE) */
};

/* sqlstmt.c: what failed, as SQLite says it (returns -1, errno set);
 * a statement run once; SQL text built in a memstream (closed: the
 * text, malloc'd); a quoted identifier; the journal's name; the primary
 * key as "k1 = ?first AND ..." and as a list; "prefix1, prefix2, ...";
 * a statement prepared from f's text (freed); one step of a prepared
 * statement, reset. Each returns 0, or -1 after a message. */
int sk_fail(struct sqlsink *s, const char *what);
int sk_exec(struct sqlsink *s, const char *sql);
FILE *sk_text_open(char **text, size_t *len);
char *sk_text_close(FILE *f, char **text);
void sk_ident(FILE *f, const char *name);
void sk_journal_name(FILE *f, const struct sqlsink *s);
/* PRAGMA table_info of TABLE, or of its journal, prepared: a row per
 * column, its name the second; NULL after a message. */
sqlite3_stmt *sk_table_info(struct sqlsink *s, int journal);
void sk_pk_where(FILE *f, const struct sqlsink *s, const char *const *cols,
    int first);
void sk_pk_list(FILE *f, const struct sqlsink *s, const char *const *cols);
void sk_col_list(FILE *f, const char *prefix, size_t n, size_t from);
int sk_prepare(struct sqlsink *s, int which, FILE *f, char **text);
int sk_step(struct sqlsink *s, int which);
/* Binds cell c of the row at ?i; the row's primary key (its cells) at
 * ?first... */
int sk_bind_cell(struct sqlsink *s, sqlite3_stmt *q, int i, size_t c);
void sk_bind_pk(struct sqlsink *s, sqlite3_stmt *q, int first);

/* sqljournal.c: fwin_checkpoint and the journal made (in the open
 * transaction); the table's owner checked and, for a run that saves the
 * checkpoint owner (else NULL), recorded; the journal's statement; a
 * row's key journaled before it changes. */
int sk_make_own(struct sqlsink *s);
int sk_claim(struct sqlsink *s, const char *owner, const char *from);
int sk_prepare_journal(struct sqlsink *s);
int sk_journal_row(struct sqlsink *s);

#endif
