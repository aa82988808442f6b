/* sqlsink: -o sqlite:DB[:TABLE], rows upserted into a table of a SQLite
 * database (Debian's libsqlite3). It is an output.h writer: the sink's
 * rows come to it as OF_CELLS bytes, each led by its op cell (+I, -U,
 * +U, -D; see changelog.h), and every out_flush() commits a transaction.
 *
 * Exactly once with checkpoints: each transaction also writes the
 * generation its rows belong to (the checkpoint that will cover them) in
 * the table fwin_checkpoint, and, before a row of TABLE changes for the
 * first time in a generation, what it held in fwin_journal_TABLE (or
 * that it was not there). A restore from generation G puts back what
 * the journal holds from after G, as a restore truncates an -o FILE; the
 * journal of generations a checkpoint on disk covers is dropped. */
#ifndef FWIN_SQLSINK_H
#define FWIN_SQLSINK_H

#include <stddef.h>
#include <stdint.h>

/* A column's declared type. */
/* SQLC_TIME: a window bound or time, TEXT when the rows print ISO
 * times, else INTEGER: known from the first row (or, when none comes,
 * from sqlsink_spec.iso), when the table is made. */
enum sqlcol { SQLC_TEXT, SQLC_INTEGER, SQLC_NUMERIC, SQLC_TIME };

struct sqlsink_spec {
	const char *db, *table;
	const char *const *cols;	/* the header's names */
	const enum sqlcol *types;
	size_t ncols;
	const size_t *pk;		/* the primary key's columns */
	size_t npk;			/* 0: the table holds one row */
	int journal;			/* checkpoints: keep the journal */
	int iso;			/* SQLC_TIME without a row: TEXT */
	/* the absolute paths of --checkpoint and --restore, or NULL: the
	 * table belongs to the checkpoint of the last run that saved one */
	const char *owner, *from;
};

/* Opens (creates) the database and the table, checks that an existing
 * table has these columns, and prepares the statements. Returns NULL
 * and sets *status (1, or 2 for another pipeline's table) after a
 * message; nothing is written to a file that is not a database. */
struct sqlsink *sqlsink_open(const struct sqlsink_spec *sp, int *status);

/* Where a transaction's rows belong: gens(arg, &tag, &durable) gives the
 * generation of the checkpoint that will cover them and that of the last
 * checkpoint known to be on disk (journal before it is dropped). */
typedef void (*sqlsink_gens_fn)(void *arg, uint64_t *tag, uint64_t *durable);
void sqlsink_generations(struct sqlsink *s, sqlsink_gens_fn gens, void *arg);

/* The commit position: the generation of the last transaction DB holds
 * (what a checkpoint records). */
uint64_t sqlsink_position(const struct sqlsink *s);

/* A restore from a checkpoint that recorded position gen: the table
 * back to what it held then. Returns 0, or 1 after a message. */
int sqlsink_rollback(struct sqlsink *s, uint64_t gen);

/* A run that does not restore: the journal a run before it kept (of
 * another checkpoint) is dropped. Returns 0, or 1 after a message. */
int sqlsink_fresh(struct sqlsink *s);

/* The output.h writer (out_set_writer), arg the sink. */
int sqlsink_write(void *arg, const char *p, size_t n, int flush);

/* Makes the table if no row made it, rolls back an open transaction
 * (rows never flushed are not kept, as a killed run's) and closes.
 * Returns 0, or -1 after a message. */
int sqlsink_close(struct sqlsink *s);

#endif
