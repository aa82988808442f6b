/* sqlstmt: the statements of the SQLite sink (sqlint.h): SQL text built
 * in a memstream from the table's description (identifiers, the primary
 * key, column lists), prepared and stepped, a row's cells bound, and
 * what SQLite said when any of it failed. Below both sqlsink.c (opening,
 * applying rows) and sqljournal.c (fwin's own tables), which use it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "io/sqlint.h"
#include "base/util.h"


/* Says what SQLite said of what failed. Returns -1 with errno set. */
int
sk_fail(struct sqlsink *s, const char *what)
{
	int code = sqlite3_errcode(s->db);

	if (!s->failed) {
		if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
			fwin_warn("%s: the database is locked by another "
			    "process (waited 5 s)", s->dbname);
		else
			fwin_warn("%s: %s: %s", s->dbname, what,
			    sqlite3_errmsg(s->db));
	}
	s->failed = 1;
	errno = code == SQLITE_FULL ? ENOSPC : EIO;
	return -1;
}

int
sk_exec(struct sqlsink *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
	    sk_fail(s, sql);
}

/* Writes name as a quoted SQL identifier. */
void
sk_ident(FILE *f, const char *name)
{
	fputc('"', f);
	for (; *name != '\0'; name++) {
		if (*name == '"')
			fputc('"', f);
		fputc(*name, f);
	}
	fputc('"', f);
}

/* The journal's name: fwin_journal_TABLE (TABLE is a plain name). */
void
sk_journal_name(FILE *f, const struct sqlsink *s)
{
	fprintf(f, "\"fwin_journal_%s\"", s->table);
}

sqlite3_stmt *
sk_table_info(struct sqlsink *s, int journal)
{
	sqlite3_stmt *q;
	char *text = NULL;
	size_t len;
	FILE *f = sk_text_open(&text, &len);
	int rc;

	fputs("PRAGMA table_info(", f);
	if (journal)
		sk_journal_name(f, s);
	else
		sk_ident(f, s->table);
	fputc(')', f);
	sk_text_close(f, &text);
	rc = sqlite3_prepare_v2(s->db, text, -1, &q, NULL);
	free(text);
	if (rc != SQLITE_OK) {
		(void)sk_fail(s, "reading the schema");
		return NULL;
	}
	return q;
}

FILE *
sk_text_open(char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	if (f == NULL)
		fwin_oom();
	return f;
}

char *
sk_text_close(FILE *f, char **text)
{
	if (fclose(f) != 0 || *text == NULL)
		fwin_oom();
	return *text;
}

/* "pk1 = ?a AND pk2 = ?b", numbering from first; "rowid = 1" with none. */
void
sk_pk_where(FILE *f, const struct sqlsink *s, const char *const *cols,
    int first)
{
	size_t i;

	if (s->npk == 0) {
		fputs("rowid = 1", f);
		return;
	}
	for (i = 0; i < s->npk; i++) {
		fputs(i ? " AND " : "", f);
		sk_ident(f, cols[s->pk[i]]);
		fprintf(f, " = ?%d", first + (int)i);
	}
}

/* "pk1, pk2" (or "rowid"). */
void
sk_pk_list(FILE *f, const struct sqlsink *s, const char *const *cols)
{
	size_t i;

	if (s->npk == 0) {
		fputs("rowid", f);
		return;
	}
	for (i = 0; i < s->npk; i++) {
		fputs(i ? ", " : "", f);
		sk_ident(f, cols[s->pk[i]]);
	}
}

void
sk_col_list(FILE *f, const char *prefix, size_t n, size_t from)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%s%zu", i || from ? ", " : "", prefix, i + 1);
}

int
sk_prepare(struct sqlsink *s, int which, FILE *f, char **text)
{
	int rc;

	sk_text_close(f, text);
	rc = sqlite3_prepare_v3(s->db, *text, -1, SQLITE_PREPARE_PERSISTENT,
	    &s->st[which], NULL);
	free(*text);
	*text = NULL;
	return rc == SQLITE_OK ? 0 : -1;
}

int
sk_step(struct sqlsink *s, int which)
{
	sqlite3_stmt *q = s->st[which];
	int rc = sqlite3_step(q);

	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sk_fail(s, "writing");
}

/* Whether p[0..n) is an integer that fits int64: *v is it. */
static int
int_cell(const char *p, size_t n, int64_t *v)
{
	size_t i = p[0] == '-';
	uint64_t u = 0, lim = p[0] == '-' ? (uint64_t)INT64_MAX + 1 :
	    (uint64_t)INT64_MAX;

	if (i == n || n - i > 19)
		return 0;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		if (u > (lim - (uint64_t)(p[i] - '0')) / 10)
			return 0;
		u = u * 10 + (uint64_t)(p[i] - '0');
	}
	*v = p[0] == '-' ? (int64_t)(0 - u) : (int64_t)u;
	return 1;
}

/* Significant digits of a decimal (digits after the leading zeros, not
 * counting trailing zeros of a fraction; those before its exponent). */
static size_t
sig_digits(const char *p, size_t n)
{
	size_t i, first = n, last = 0, dot = n;

	for (i = 0; i < n && p[i] != 'e' && p[i] != 'E'; i++) {
		if (p[i] == '.')
			dot = i;
		else if (p[i] >= '1' && p[i] <= '9') {
			if (first == n)
				first = i;
			last = i;
		} else if (p[i] == '0' && first != n && dot == n)
			last = i;	/* an integer's zeros count */
	}
	if (first == n)
		return 0;
	return last - first + 1 - (dot > first && dot < last);
}

/* Binds a number cell: an integer as INTEGER; as REAL a floating-point
 * result (a double's shortest text: the double it was) and a decimal of
 * at most 15 significant digits, which a double holds (the 15 digits
 * SQLite prints it with give it back); any other decimal (an exact sum,
 * a min or max as written) as its text in a BLOB, which SQLite stores as
 * it is (a TEXT would be rounded to 15 digits by the NUMERIC affinity).
 * So a number of 16 or 17 digits is a REAL only when it is a double's. */
static int
bind_num(struct sqlsink *s, sqlite3_stmt *q, int i, const char *p, size_t n,
    int floating)
{
	size_t digits;
	int64_t v;
	double d;

	if (int_cell(p, n, &v))
		return sqlite3_bind_int64(q, i, v);
	if (n < sizeof(s->num)) {
		memcpy(s->num, p, n);
		s->num[n] = '\0';
		d = strtod(s->num, NULL);
		/* (a subnormal double holds fewer digits) */
		if (isfinite(d) && (floating ||
		    ((digits = sig_digits(p, n)) <= 15 &&
		    (digits == 0 || isnormal(d)))))
			return sqlite3_bind_double(q, i, d);
	}
	return sqlite3_bind_blob(q, i, p, (int)n, SQLITE_TRANSIENT);
}

/* Binds cell c of the row at ?i. */
int
sk_bind_cell(struct sqlsink *s, sqlite3_stmt *q, int i, size_t c)
{
	switch (s->kinds[c]) {
	case 'z':
		return sqlite3_bind_null(q, i);
	case 'n':
	case 'f':
		return bind_num(s, q, i, s->cell[c], s->cellen[c],
		    s->kinds[c] == 'f');
	default:
		return sqlite3_bind_text(q, i, s->cell[c], (int)s->cellen[c],
		    SQLITE_STATIC);
	}
}

/* Binds the row's key at ?first... (cell 0 is the op). */
void
sk_bind_pk(struct sqlsink *s, sqlite3_stmt *q, int first)
{
	size_t i;

	for (i = 0; i < s->npk; i++)
		sk_bind_cell(s, q, first + (int)i, s->pk[i] + 1);
	if (s->npk == 0)
		sqlite3_bind_int64(q, first, 1);
}
