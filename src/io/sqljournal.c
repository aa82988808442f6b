/* sqljournal: the SQLite sink's own tables, which make it exactly once
 * with checkpoints (see sqlsink.h and the layout at the top of
 * sqlsink.c): the commit position in fwin_checkpoint, written in each
 * transaction; the table's owner; the journal of what rows held before
 * a generation changed them, and the rollback a restore makes with it. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "io/sqlint.h"
#include "io/sqlsink.h"
#include "base/util.h"

/* The name of the journal's column i, of nk key columns: gen, existed,
 * k1..kN, c1..cM. */
static void
journal_column(char *name, size_t size, size_t i, size_t nk)
{
	if (i < 2)
		snprintf(name, size, "%s", i == 0 ? "gen" : "existed");
	else if (i < 2 + nk)
		snprintf(name, size, "k%zu", i - 1);
	else
		snprintf(name, size, "c%zu", i - 1 - nk);
}

/* Whether the journal, if there, has this table's columns (*fits). One
 * of other columns was kept for a table of other columns that has been
 * dropped since (one still there is refused after this, the
 * transaction rolled back): no checkpoint of this table can need it. */
static int
journal_fits(struct sqlsink *s, size_t nk, int *fits)
{
	sqlite3_stmt *q = sk_table_info(s, 1);
	char want[32];
	size_t i = 0;
	int rc;

	*fits = 1;
	if (q == NULL)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *got = (const char *)sqlite3_column_text(q, 1);

		journal_column(want, sizeof(want), i++, nk);
		if (got == NULL || strcmp(got, want) != 0)
			*fits = 0;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return sk_fail(s, "reading the schema");
	if (i > 0 && i != 2 + nk + s->ncols)
		*fits = 0;
	return 0;
}

/* Runs verb ("DELETE FROM ") on the journal. */
static int
journal_exec(struct sqlsink *s, const char *verb)
{
	char *text = NULL;
	size_t len;
	FILE *f = sk_text_open(&text, &len);
	int rc;

	fputs(verb, f);
	sk_journal_name(f, s);
	sk_text_close(f, &text);
	rc = sk_exec(s, text);
	free(text);
	return rc;
}

/* fwin's own tables, and a fresh start of the journal. */
int
sk_make_own(struct sqlsink *s)
{
	size_t nk = s->npk ? s->npk : 1, len;
	char *text = NULL;
	FILE *f;
	int rc, fits;

	if (sk_exec(s, "CREATE TABLE IF NOT EXISTS fwin_checkpoint (tbl TEXT "
	    "PRIMARY KEY, generation INTEGER NOT NULL, checkpoint TEXT)") != 0)
		return -1;
	/* (the owner is sk_claim()'s) */
	if (sqlite3_prepare_v3(s->db, "INSERT INTO fwin_checkpoint (tbl, "
	    "generation) VALUES (?1, ?2) ON CONFLICT (tbl) DO UPDATE SET "
	    "generation = excluded.generation", -1, SQLITE_PREPARE_PERSISTENT,
	    &s->st[ST_COMMITPOS], NULL) != SQLITE_OK)
		return sk_fail(s, "preparing");
	if (!s->journal)
		return 0;
	if (journal_fits(s, nk, &fits) != 0)
		return -1;
	if (!fits && journal_exec(s, "DROP TABLE ") != 0)
		return -1;
	f = sk_text_open(&text, &len);
	fputs("CREATE TABLE IF NOT EXISTS ", f);
	sk_journal_name(f, s);
	fputs(" (gen INTEGER, existed INTEGER", f);
	sk_col_list(f, "k", nk, 1);
	sk_col_list(f, "c", s->ncols, 1);
	fputs(", PRIMARY KEY (gen", f);
	sk_col_list(f, "k", nk, 1);
	fputs("))", f);
	sk_text_close(f, &text);
	rc = sk_exec(s, text);
	free(text);
	if (rc != 0)
		return -1;
	f = sk_text_open(&text, &len);
	fputs("DELETE FROM ", f);
	sk_journal_name(f, s);
	fputs(" WHERE gen <= ?1", f);
	return sk_prepare(s, ST_PRUNE, f, &text) == 0 ? 0 : sk_fail(s, "preparing");
}

/* The generation DB's rows of TABLE were last written in, or -1 when
 * none is recorded. */
static long long
committed(struct sqlsink *s)
{
	sqlite3_stmt *q;
	long long g = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT generation FROM fwin_checkpoint"
	    " WHERE tbl = ?1", -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(q, 1, s->table, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		g = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return g;
}

/* The table belongs to the checkpoint of the last run that saved one
 * while that checkpoint exists, as an -o FILE does (lock_claim()):
 * another run (under another checkpoint, or none; restoring the owner's
 * state elsewhere moves it) is refused. A run that saves a checkpoint
 * records it as the owner as it opens the table, rows or none; one that
 * saves none (a restore without --checkpoint) leaves the owner as it
 * is. Returns 0, or -1 after a message. */
int
sk_claim(struct sqlsink *s, const char *owner, const char *from)
{
	sqlite3_stmt *q;
	struct stat sb;
	int rc = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT checkpoint FROM fwin_checkpoint"
	    " WHERE tbl = ?1", -1, &q, NULL) != SQLITE_OK)
		return sk_fail(s, "reading");
	sqlite3_bind_text(q, 1, s->table, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_type(q, 0) == SQLITE_TEXT) {
		const char *was = (const char *)sqlite3_column_text(q, 0);

		if ((owner == NULL || strcmp(was, owner) != 0) &&
		    (from == NULL || strcmp(was, from) != 0) &&
		    stat(was, &sb) == 0) {
			fwin_warn("%s: the table %s belongs to the checkpoint "
			    "%s", s->dbname, s->table, was);
			rc = -1;
		}
	}
	sqlite3_finalize(q);
	if (rc != 0 || owner == NULL)
		return rc;
	/* generation 0 in a row made here: nothing committed yet */
	if (sqlite3_prepare_v2(s->db, "INSERT INTO fwin_checkpoint (tbl, "
	    "generation, checkpoint) VALUES (?1, 0, ?2) ON CONFLICT (tbl) DO "
	    "UPDATE SET checkpoint = excluded.checkpoint", -1, &q, NULL) !=
	    SQLITE_OK)
		return sk_fail(s, "writing");
	sqlite3_bind_text(q, 1, s->table, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, owner, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : sk_fail(s, "writing");
}

/* The journal's statement: what a row's key (bound: ?1 the generation,
 * ?2.. the key) holds now, or that it holds nothing, in one step (the
 * table left-joined to one row); kept only the first time in a
 * generation. */
int
sk_prepare_journal(struct sqlsink *s)
{
	size_t nk = s->npk ? s->npk : 1, len, i;
	char *text = NULL;
	FILE *f = sk_text_open(&text, &len);

	fputs("INSERT OR IGNORE INTO ", f);
	sk_journal_name(f, s);
	fputs(" (gen, existed", f);
	sk_col_list(f, "k", nk, 1);
	sk_col_list(f, "c", s->ncols, 1);
	fputs(") SELECT ?1, t.rowid IS NOT NULL", f);
	for (i = 0; i < nk; i++)
		fprintf(f, ", ?%zu", i + 2);
	for (i = 0; i < s->ncols; i++) {
		fputs(", t.", f);
		sk_ident(f, s->cols[i]);
	}
	fputs(" FROM (SELECT 1 AS fwin_one) LEFT JOIN ", f);
	sk_ident(f, s->table);
	fputs(" AS t ON ", f);
	if (s->npk == 0)
		fputs("t.rowid = ?2", f);
	for (i = 0; i < s->npk; i++) {
		fputs(i ? " AND t." : "t.", f);
		sk_ident(f, s->cols[s->pk[i]]);
		fprintf(f, " = ?%zu", i + 2);
	}
	return sk_prepare(s, ST_JOURNAL, f, &text);
}

/* Keeps in the journal what the row's key held before this generation
 * first changes it. */
int
sk_journal_row(struct sqlsink *s)
{
	sqlite3_bind_int64(s->st[ST_JOURNAL], 1, (int64_t)s->tag);
	sk_bind_pk(s, s->st[ST_JOURNAL], 2);
	return sk_step(s, ST_JOURNAL);
}

uint64_t
sqlsink_position(const struct sqlsink *s)
{
	return s->position;
}

/* The statements of a rollback to gen: the keys changed after it
 * deleted, and each put back as its oldest journal entry after gen holds
 * it (when it was there), the journal after gen dropped. */
static char *
rollback_sql(const struct sqlsink *s, uint64_t gen)
{
	size_t nk = s->npk ? s->npk : 1, len, i;
	unsigned long long g = (unsigned long long)gen;
	char *text = NULL;
	FILE *f = sk_text_open(&text, &len);

	fputs("DELETE FROM ", f);
	sk_ident(f, s->table);
	fputs(" WHERE (", f);
	sk_pk_list(f, s, (const char *const *)s->cols);
	fputs(") IN (SELECT ", f);
	sk_col_list(f, "k", nk, 0);
	fputs(" FROM ", f);
	sk_journal_name(f, s);
	fprintf(f, " WHERE gen > %llu);\nINSERT INTO ", g);
	sk_ident(f, s->table);
	fputs(s->npk == 0 ? " (rowid" : " (", f);
	for (i = 0; i < s->ncols; i++) {
		fputs(i || s->npk == 0 ? ", " : "", f);
		sk_ident(f, s->cols[i]);
	}
	fputs(") SELECT ", f);
	if (s->npk == 0)
		fputs("j.k1, ", f);
	for (i = 0; i < s->ncols; i++)
		fprintf(f, "%sj.c%zu", i ? ", " : "", i + 1);
	fputs(" FROM ", f);
	sk_journal_name(f, s);
	fprintf(f, " AS j WHERE j.existed = 1 AND j.gen = (SELECT min(gen) "
	    "FROM ");
	sk_journal_name(f, s);
	fprintf(f, " AS o WHERE o.gen > %llu", g);
	for (i = 0; i < nk; i++)
		fprintf(f, " AND o.k%zu IS j.k%zu", i + 1, i + 1);
	fputs(");\nDELETE FROM ", f);
	sk_journal_name(f, s);
	fprintf(f, " WHERE gen > %llu;\n", g);
	return sk_text_close(f, &text);
}

int
sqlsink_rollback(struct sqlsink *s, uint64_t gen)
{
	long long at = committed(s);
	char *sql;
	int rc;

	/* what a checkpoint saved before the next commit records */
	s->position = gen;
	if (gen > 0 && (at < 0 || (uint64_t)at < gen)) {
		fwin_warn("%s: the table %s was not written up to its "
		    "checkpoint's position (%llu); left as it is", s->dbname,
		    s->table, (unsigned long long)gen);
		return 0;
	}
	if (!s->journal || (uint64_t)at == gen)
		return 0;
	if (!s->ready)		/* no table yet: no row to put back */
		return sqlsink_fresh(s);
	sql = rollback_sql(s, gen);
	if (sk_exec(s, "BEGIN IMMEDIATE") != 0) {
		free(sql);
		return 1;
	}
	rc = sk_exec(s, sql);
	free(sql);
	sqlite3_bind_text(s->st[ST_COMMITPOS], 1, s->table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s->st[ST_COMMITPOS], 2, (int64_t)gen);
	if (rc != 0 || sk_step(s, ST_COMMITPOS) != 0 || sk_exec(s, "COMMIT") != 0) {
		(void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return 1;
	}
	return 0;
}

/* A run that starts afresh (no restore) keeps no journal of another. */
int
sqlsink_fresh(struct sqlsink *s)
{
	s->position = 0;	/* a new run's generations start again */
	if (!s->journal)
		return 0;
	return journal_exec(s, "DELETE FROM ") == 0 ? 0 : 1;
}
