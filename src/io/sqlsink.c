/* sqlsink: rows into a SQLite table; see sqlsink.h. This file opens the
 * database and the table and applies rows; sqljournal.c keeps fwin's own
 * tables, for exactly once with checkpoints.
 *
 * The tables fwin keeps in DB beside TABLE:
 *
 *	fwin_checkpoint(tbl TEXT PRIMARY KEY, generation INTEGER,
 *	    checkpoint TEXT)
 *		one row per TABLE: the generation its last transaction
 *		wrote (the commit position a checkpoint covers; 0: none
 *		yet), and the checkpoint it belongs to (sk_claim())
 *	fwin_journal_TABLE(gen, existed, k1..kN, c1..cM,
 *	    PRIMARY KEY (gen, k1..kN))
 *		with checkpoints only: a row's primary key (k) and what it
 *		held before generation gen first changed it (c; existed 0:
 *		it was not there)
 *
 * A table without a primary key (no key columns and no window bounds)
 * holds one row, rowid 1, which each row replaces. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "io/sqlint.h"
#include "io/sqlsink.h"
#include "base/util.h"


/* The upsert and the delete of a row. */
static int
prepare_rows(struct sqlsink *s)
{
	char *text = NULL;
	size_t len, i, nset = 0;
	FILE *f = sk_text_open(&text, &len);

	fputs(s->npk == 0 ? "INSERT OR REPLACE INTO " : "INSERT INTO ", f);
	sk_ident(f, s->table);
	fputs(s->npk == 0 ? "(rowid" : "(", f);
	for (i = 0; i < s->ncols; i++) {
		fputs(i || s->npk == 0 ? ", " : "", f);
		sk_ident(f, s->cols[i]);
	}
	fputs(s->npk == 0 ? ") VALUES (1" : ") VALUES (", f);
	for (i = 0; i < s->ncols; i++)
		fprintf(f, "%s?%zu", i || s->npk == 0 ? ", " : "", i + 1);
	fputc(')', f);
	if (s->npk > 0) {
		fputs(" ON CONFLICT (", f);
		sk_pk_list(f, s, (const char *const *)s->cols);
		fputs(") DO ", f);
		for (i = 0; i < s->ncols; i++) {
			size_t j;

			for (j = 0; j < s->npk && s->pk[j] != i; j++)
				;
			if (j < s->npk)
				continue;
			fputs(nset++ ? ", " : "UPDATE SET ", f);
			sk_ident(f, s->cols[i]);
			fputs(" = excluded.", f);
			sk_ident(f, s->cols[i]);
		}
		if (nset == 0)
			fputs("NOTHING", f);
	}
	if (sk_prepare(s, ST_UPSERT, f, &text) != 0)
		return -1;
	f = sk_text_open(&text, &len);
	fputs("DELETE FROM ", f);
	sk_ident(f, s->table);
	fputs(" WHERE ", f);
	sk_pk_where(f, s, (const char *const *)s->cols, 1);
	return sk_prepare(s, ST_DELETE, f, &text);
}


/* Checks that TABLE, if there, has these columns; *there says whether
 * it is. */
static int
check_table(struct sqlsink *s, const struct sqlsink_spec *sp, int *status,
    int *there)
{
	sqlite3_stmt *q = sk_table_info(s, 0);
	size_t i = 0;
	int rc, same = 1;

	if (q == NULL)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 1);

		if (i >= sp->ncols || name == NULL ||
		    strcmp(name, sp->cols[i]) != 0)
			same = 0;
		i++;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return sk_fail(s, "reading the schema");
	if (i > 0 && (!same || i != sp->ncols)) {
		fwin_warn("%s: the table %s holds rows of another pipeline "
		    "(other columns); name another TABLE", s->dbname, s->table);
		*status = 2;
		return -1;
	}
	*there = i > 0;
	return 0;
}

/* Whether TABLE names something else in the database (an index, a view,
 * a trigger: one namespace with tables, in any case), which would make
 * the table's creation fail at the first row, after a checkpoint; so it
 * is another's, refused as a table of other columns is (*status 2). */
static int
other_object(struct sqlsink *s, int *status)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT type FROM sqlite_schema WHERE "
	    "name = ?1 COLLATE NOCASE AND type != 'table'", -1, &q, NULL) !=
	    SQLITE_OK)
		return sk_fail(s, "reading the schema");
	sqlite3_bind_text(q, 1, s->table, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(q, 0);

		if (type == NULL)
			type = "object";
		fwin_warn("%s: %s names a%s %s, not a table; name another "
		    "TABLE", s->dbname, s->table,
		    type[0] != '\0' && strchr("aeiou", type[0]) != NULL ?
		    "n" : "", type);
		*status = 2;
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return -1;
	return rc == SQLITE_DONE ? 0 : sk_fail(s, "reading the schema");
}

/* Creates TABLE, times typed as the row being applied prints them (or,
 * with none, by the iso hint). */
static int
make_table(struct sqlsink *s, int norow)
{
	static const char *const types[] = { "TEXT", "INTEGER", "NUMERIC" };
	char *text = NULL;
	size_t len, i;
	enum sqlcol t;
	FILE *f;
	int rc;

	f = sk_text_open(&text, &len);
	fputs("CREATE TABLE ", f);
	sk_ident(f, s->table);
	fputs(" (", f);
	for (i = 0; i < s->ncols; i++) {
		fputs(i ? ", " : "", f);
		sk_ident(f, s->cols[i]);
		t = s->types[i];
		if (t == SQLC_TIME)
			t = (norow ? s->iso : s->kinds[i + 1] == 's') ?
			    SQLC_TEXT : SQLC_INTEGER;
		fprintf(f, " %s", types[t]);
	}
	if (s->npk > 0) {
		fputs(", PRIMARY KEY (", f);
		sk_pk_list(f, s, (const char *const *)s->cols);
		fputc(')', f);
	}
	fputc(')', f);
	sk_text_close(f, &text);
	rc = sk_exec(s, text);
	free(text);
	return rc;
}


/* Whether db, if it exists, may be opened as a database: a regular file,
 * empty or beginning with SQLite's header. Checked before SQLite opens
 * it: SQLite takes a file shorter than its header for an empty database
 * and writes over it, and says no more than "disk I/O error" of a FIFO
 * (which it would wait on first) or "unable to open" of a directory.
 * *made says it is none or empty: fwin makes the database. Returns 0,
 * or -1 after a message. */
static int
database_file(const char *db, int *made)
{
	static const char magic[16] = "SQLite format 3";	/* and '\0' */
	char head[sizeof(magic)];
	struct stat sb;
	ssize_t n;
	int fd;

	*made = 0;
	if (stat(db, &sb) != 0) {
		*made = errno == ENOENT;
		return 0;	/* none yet, or SQLite says why not */
	}
	if (!S_ISREG(sb.st_mode)) {
		fwin_warn("%s is %s, not a SQLite database; name another file",
		    db, file_kind(sb.st_mode));
		return -1;
	}
	if ((fd = open(db, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return 0;	/* SQLite says why */
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	/* empty: a new database (an error: SQLite says why) */
	*made = n == 0;
	if (n <= 0 || (n == (ssize_t)sizeof(head) &&
	    memcmp(head, magic, sizeof(magic)) == 0))
		return 0;
	fwin_warn("%s exists and is not a SQLite database; remove it or name "
	    "another file", db);
	return -1;
}

/* Whether the file is a database SQLite can read: one with SQLite's
 * header may still be damaged or encrypted. */
static int
readable(struct sqlsink *s)
{
	if (sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_schema", NULL,
	    NULL, NULL) == SQLITE_OK)
		return 0;
	if (sqlite3_errcode(s->db) == SQLITE_NOTADB) {
		fwin_warn("%s exists and is not a SQLite database; remove it "
		    "or name another file", s->dbname);
		s->failed = 1;
		return -1;
	}
	return sk_fail(s, "reading");
}

/* Whether fwin may write the database: SQLite opens one it may not write
 * read-only, and says so only at the first write, with that statement's
 * text. */
static int
writable(struct sqlsink *s)
{
	if (sqlite3_db_readonly(s->db, "main") != 1)
		return 0;
	fwin_warn("%s: the database is read-only to fwin; make it writable "
	    "or name another file", s->dbname);
	s->failed = 1;
	return -1;
}

/* A database fwin makes is in WAL mode: readers see its last commit
 * while a transaction is open, where a rollback journal locks them out
 * once the transaction outgrows SQLite's page cache (a file read with
 * no wait is one transaction). Another's database keeps the mode its
 * owner chose; SQLite keeps its own where WAL cannot work (no shared
 * memory). */
static int
wal_if_made(struct sqlsink *s, int made)
{
	return made ? sk_exec(s, "PRAGMA journal_mode = WAL") : 0;
}

/* TABLE as the database spells it, if it knows it: SQLite compares
 * names without case, so "T1" and "t1" are one table, whose row in
 * fwin_checkpoint (its position and its owner) either finds. */
static int
spelled(struct sqlsink *s)
{
	sqlite3_stmt *q;
	const char *name;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT coalesce((SELECT name FROM "
	    "sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE), "
	    "(SELECT tbl FROM fwin_checkpoint WHERE tbl = ?1 COLLATE NOCASE))",
	    -1, &q, NULL) != SQLITE_OK)
		return sk_fail(s, "reading the schema");
	sqlite3_bind_text(q, 1, s->table, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW &&
	    (name = (const char *)sqlite3_column_text(q, 0)) != NULL) {
		free(s->table);
		s->table = xstrdup(name);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : sk_fail(s, "reading the schema");
}

/* The table made if it is not there (creating: norow says no row is
 * being applied), and the statements that write rows prepared. */
static int
make_ready(struct sqlsink *s, int creating)
{
	if (creating && make_table(s, creating == 1) != 0)
		return -1;
	if (prepare_rows(s) != 0 || (s->journal && sk_prepare_journal(s) != 0))
		return creating ? sk_fail(s, "preparing") : -1;
	s->ready = 1;
	return 0;
}

struct sqlsink *
sqlsink_open(const struct sqlsink_spec *sp, int *status)
{
	struct sqlsink *s = xcalloc(1, sizeof(*s));
	int there = 0, made;

	*status = 1;
	s->dbname = xstrdup(sp->db);
	s->table = xstrdup(sp->table);
	s->ncols = sp->ncols;
	s->cols = xcalloc(sp->ncols + 1, sizeof(*s->cols));
	for (size_t i = 0; i < sp->ncols; i++)
		s->cols[i] = xstrdup(sp->cols[i]);
	s->npk = sp->npk;
	s->pk = xmalloc((sp->npk ? sp->npk : 1) * sizeof(*s->pk));
	memcpy(s->pk, sp->pk, sp->npk * sizeof(*s->pk));
	s->journal = sp->journal;
	s->iso = sp->iso;
	s->types = xmalloc((sp->ncols + 1) * sizeof(*s->types));
	memcpy(s->types, sp->types, sp->ncols * sizeof(*s->types));
	s->cell = xmalloc((sp->ncols + 1) * sizeof(*s->cell));
	s->cellen = xmalloc((sp->ncols + 1) * sizeof(*s->cellen));
	s->kinds = xmalloc(sp->ncols + 1);
	if (database_file(sp->db, &made) != 0)
		goto fail;
	if (sqlite3_open_v2(sp->db, &s->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		fwin_warn("%s: %s", sp->db, s->db != NULL ?
		    sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	/* another writer holds it: wait as long as a person would */
	sqlite3_busy_timeout(s->db, 5000);
	sqlite3_extended_result_codes(s->db, 0);
	if (readable(s) != 0 || writable(s) != 0 ||
	    wal_if_made(s, made) != 0 ||
	    sk_exec(s, "BEGIN IMMEDIATE") != 0)
		goto fail;
	if (sk_make_own(s) != 0 || spelled(s) != 0 ||
	    sk_claim(s, sp->owner, sp->from) != 0) {
		s->failed = 1;
		(void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		goto fail;
	}
	if (other_object(s, status) != 0 ||
	    check_table(s, sp, status, &there) != 0 ||
	    (there && make_ready(s, 0) != 0)) {
		if (*status == 1 && !s->failed) {
			fwin_warn("%s: the table %s holds rows of another "
			    "pipeline (%s); name another TABLE", s->dbname,
			    s->table, sqlite3_errmsg(s->db));
			*status = 2;
		}
		(void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		goto fail;
	}
	if (sk_exec(s, "COMMIT") != 0)
		goto fail;
	s->opened = 1;
	*status = 0;
	return s;
fail:
	sqlsink_close(s);
	return NULL;
}

void
sqlsink_generations(struct sqlsink *s, sqlsink_gens_fn gens, void *arg)
{
	s->gens = gens;
	s->gens_arg = arg;
}


static int
begin(struct sqlsink *s)
{
	uint64_t durable = 0;

	if (s->in_txn)
		return 0;
	if (sk_exec(s, "BEGIN IMMEDIATE") != 0)
		return -1;
	s->in_txn = 1;
	s->tag = 1;
	if (s->gens != NULL)
		s->gens(s->gens_arg, &s->tag, &durable);
	if (s->journal && durable > s->pruned) {
		sqlite3_bind_int64(s->st[ST_PRUNE], 1, (int64_t)durable);
		if (sk_step(s, ST_PRUNE) != 0)
			return -1;
		s->pruned = durable;
	}
	return 0;
}

/* Applies the decoded row: "+I"/"+U" upsert, "-D" delete, "-U" nothing
 * (its "+U" follows). */
static int
apply(struct sqlsink *s)
{
	const char *op = s->cell[0];
	size_t i;

	if (s->cellen[0] == 2 && op[0] == '-' && op[1] == 'U')
		return 0;
	if (begin(s) != 0 || (!s->ready && make_ready(s, 2) != 0) ||
	    (s->journal && sk_journal_row(s) != 0))
		return -1;
	if (op[0] == '-') {
		sk_bind_pk(s, s->st[ST_DELETE], 1);
		return sk_step(s, ST_DELETE);
	}
	for (i = 0; i < s->ncols; i++)
		sk_bind_cell(s, s->st[ST_UPSERT], (int)i + 1, i + 1);
	return sk_step(s, ST_UPSERT);
}

/* Decodes the rows in p[0..n); returns the bytes of complete rows, or -1
 * after a message. */
static long long
decode(struct sqlsink *s, const char *p, size_t n)
{
	size_t at = 0, row = 0, c = 0;
	uint32_t len;

	while (at < n) {
		if (p[at] == 'e') {
			if (c != s->ncols + 1) {
				errno = EINVAL;
				fwin_warn("%s: a row of %zu cells", s->dbname, c);
				return -1;
			}
			if (apply(s) != 0)
				return -1;
			row = ++at;
			c = 0;
			continue;
		}
		if (n - at < 1 + sizeof(len))
			break;
		memcpy(&len, p + at + 1, sizeof(len));
		if (n - at - 1 - sizeof(len) < len)
			break;
		if (c <= s->ncols) {
			s->kinds[c] = p[at];
			s->cell[c] = p + at + 1 + sizeof(len);
			s->cellen[c] = len;
		}
		c++;
		at += 1 + sizeof(len) + len;
	}
	return (long long)row;
}

int
sqlsink_write(void *arg, const char *p, size_t n, int flush)
{
	struct sqlsink *s = arg;
	long long done;

	if (s->failed) {
		errno = EIO;
		return -1;
	}
	if (s->ncarry > 0) {
		/* the buffer ended inside a row: rows are applied whole */
		xgrow(&s->carry, &s->capcarry, s->ncarry + n, 1);
		memcpy(s->carry + s->ncarry, p, n);
		s->ncarry += n;
		p = s->carry;
		n = s->ncarry;
	}
	if ((done = decode(s, p, n)) < 0)
		return -1;
	if (s->ncarry > 0) {
		memmove(s->carry, s->carry + done, n - (size_t)done);
		s->ncarry = n - (size_t)done;
	} else if ((size_t)done < n) {
		xgrow(&s->carry, &s->capcarry, n - (size_t)done, 1);
		memcpy(s->carry, p + done, n - (size_t)done);
		s->ncarry = n - (size_t)done;
	}
	if (!flush)
		return 0;
	if (!s->in_txn)
		return 0;
	/* the commit position, in the same transaction as the rows */
	sqlite3_bind_text(s->st[ST_COMMITPOS], 1, s->table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s->st[ST_COMMITPOS], 2, (int64_t)s->tag);
	if (sk_step(s, ST_COMMITPOS) != 0 || sk_exec(s, "COMMIT") != 0)
		return -1;
	s->in_txn = 0;
	s->position = s->tag;
	return 0;
}





int
sqlsink_close(struct sqlsink *s)
{
	int i, rc = 0;

	if (s == NULL)
		return 0;
	if (s->opened && !s->ready && !s->failed) {
		if (sk_exec(s, "BEGIN IMMEDIATE") != 0 || make_ready(s, 1) != 0 ||
		    sk_exec(s, "COMMIT") != 0)
			rc = -1;
	}
	if (s->in_txn)
		(void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	for (i = 0; i < ST_N; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->dbname);
	free(s->table);
	for (i = 0; s->cols != NULL && (size_t)i < s->ncols; i++)
		free(s->cols[i]);
	free(s->cols);
	free(s->pk);
	free(s->carry);
	free(s->cell);
	free(s->cellen);
	free(s->kinds);
	free(s->types);
	free(s);
	return rc;
}
