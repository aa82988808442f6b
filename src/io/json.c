/*
 * json: a JSON Lines record scanner with field projection.
 *
 * How a line is read (for the man page):
 *
 *  - A record is one JSON object (RFC 8259), with JSON whitespace (space,
 *    tab, CR) allowed around and inside it. Anything else -- an array, a
 *    number, a string, two objects, a truncated object, bytes after the
 *    object, nesting deeper than JSON_MAXDEPTH objects and arrays -- is a
 *    bad record, reported with what was expected and at which byte of the
 *    line (1-based). The whole line is checked, also when every field was
 *    found early. A line of whitespace only is no record. {} is a record
 *    whose fields are all empty.
 *  - A path is a member name or names joined by dots into nested objects:
 *    "user.id" is member "id" of the object that is member "user". There
 *    is no escape for a dot: a member whose own name holds dots is found
 *    as if its dots separated nested names, so "http.method" finds both
 *    {"http.method":"GET"} and {"http":{"method":"GET"}}. Arrays are not
 *    indexed: a path stops at an array, whose text is then its value.
 *  - Values: a string is its text with escapes undone (\uXXXX to UTF-8, a
 *    surrogate pair to one 4-byte character); a number is its text as
 *    written (checked against RFC 8259's grammar: "-0", "1.5E-3"; not
 *    "01", ".5", "+1", "1."); true and false are those words; null is an
 *    empty field, as is a missing member; an object or array is its JSON
 *    text, exactly as in the line (inner whitespace kept).
 *  - A \u escape of a lone surrogate (a high one not followed by a low
 *    one, or a low one alone) becomes U+FFFD, as in jq: RFC 8259's grammar
 *    allows such text, so the record is not bad.
 *  - Bytes that are not valid UTF-8 pass through unchanged (the text is
 *    not decoded); raw control characters (below 0x20) in a string are
 *    bad, as RFC 8259 says.
 *  - A path that a line names more than once (a duplicate member, or both
 *    "a.b" and "a":{"b"}) takes the value nested least deep; among those,
 *    the last in the line. RFC 8259 leaves duplicates undefined; jq and
 *    most parsers keep the last. Duplicate objects are not merged or
 *    dropped as a whole: {"u":{"id":1},"u":{"n":2}} gives u.id = 1.
 *
 * The scanner is one loop over the line with an explicit stack (no
 * recursion), linear in the line's length. Only objects on some path are
 * looked into: elsewhere, strings are skipped eight bytes at a time and
 * member names are not compared. A compact flat line of the shape of the
 * last such line (the same member names in the same order, each value a
 * string without escapes or a number) has its names compared as bytes
 * and only its values scanned. Values point into the line; a string
 * with escapes is undone into a scratch buffer that is kept and grown,
 * never shrunk, so a stream of records allocates nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "base/util.h"

/* A missing value's bytes: none, padded as a field's are (input.h). */
static const char no_bytes[FIELD_PAD];

int
json_absent(const char *p)
{
	return p == no_bytes;
}

/* A node of the path trie: one member name. */
struct jnode {
	const char *name;
	size_t len;
	int child;		/* first child, -1 none */
	int next;		/* next sibling, -1 none */
	int term;		/* some path ends here */
	int deep;		/* some child has children: a name with a dot
				   may lead somewhere from here */
	uint64_t w8;		/* its first 8 bytes, zero-padded */
	size_t hoff;		/* its children's table in htab */
	unsigned hmask;		/* the table's size - 1; 0: no children */
};

/* What a terminal node found in the current line. */
struct jres {
	size_t off, len;	/* in the line, or in the scratch buffer */
	int depth;		/* objects around the member (1: top level) */
	unsigned char kind;	/* enum json_kind */
	unsigned char scr;	/* off is in the scratch buffer */
};

/* An open object or array. */
struct frame {
	size_t start;		/* its '{' or '[' */
	int node;		/* the trie node to look members up in, -1 */
	int vnode;		/* the terminal node it is the value of, -1 */
	int obj;
};

/* A member name of the root met before at the same place in the line:
 * the next line most likely names its members in the same order. */
struct flatname {
	uint64_t w;		/* its bytes, up to 8 */
	size_t n;		/* its length (SIZE_MAX: none yet) */
	int node;		/* what lookup() found for it */
};
#define FLAT_NAMES 8

/* The shape of the last flat line (scan_flat()), which the next lines
 * most likely have too: each member's bytes from the ',' (or '{') before
 * its name to the ':' after it, and the node it leads to; each path's
 * member. A line of that shape has its values scanned and nothing else
 * (scan_shape()). */
#define SHAPE_MEMBERS	16
#define SHAPE_BYTES	16
struct shape_member {
	uint64_t w[SHAPE_BYTES / 8];	/* the bytes, zero past len */
	size_t len;
	size_t at, vlen;	/* the value found in the line being read */
};
struct shape {
	size_t n;		/* members; 0: none yet */
	struct shape_member m[SHAPE_MEMBERS];
	int *member;		/* path i -> its member, -1 none */
};
/* What scan_flat() saw of a member: the shape's makings. */
struct flat_seen {
	size_t from, len;	/* its ',' or '{' to past its ':' */
	int node;
};

struct json {
	struct jnode *nodes;
	int *htab;		/* the nodes' tables of children */
	struct jres *res;
	int nnodes;
	int *slot;		/* path i -> node */
	size_t npaths;
	char *names;		/* the paths' copy the nodes point into */
	struct frame stk[JSON_MAXDEPTH];
	char *scr;		/* undone strings of values */
	size_t scrlen, scrcap;
	char *kbuf;		/* an undone member name */
	size_t kcap;
	char err[128];
	struct flatname flat[FLAT_NAMES];	/* scan_flat()'s */
	struct flat_seen seen[SHAPE_MEMBERS];	/* ... and its members */
	size_t nseen;		/* SIZE_MAX: more, or one not a shape's */
	struct shape shape;
};

/* The hash of a member name for the children's tables: its length and
 * its end bytes tell most names apart. */
static inline unsigned
hname(const char *p, size_t n)
{
	if (n == 0)
		return 0;
	return (unsigned)n * 0x9E3779B1u ^ (unsigned char)p[0] * 0x85EBCA77u ^
	    (unsigned char)p[n - 1] * 0xC2B2AE3Du ^ (unsigned char)p[n / 2];
}

/* Whether node c is named p[0..n), n == c->len, with avail bytes
 * readable at p (avail >= n). Names are short: one 8-byte compare decides
 * most, where a call to memcmp would cost more than the compare. */
static inline int
named(const struct jnode *c, const char *p, size_t n, size_t avail)
{
	uint64_t w;
	size_t k;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (avail >= 8) {
		memcpy(&w, p, 8);
		if (n < 8)
			w &= ((uint64_t)1 << (8 * n)) - 1;
		if (w != c->w8)
			return 0;
		if (n <= 8)
			return 1;
		k = 8;
	} else
#endif
		k = 0;
	(void)avail;
	(void)w;
	for (; k < n && c->name[k] == p[k]; k++)
		;
	return k == n;
}

/* The child of node x named p[0..n), or -1 (avail as for named()): its
 * slot in x's open addressing table, whose empty slots make a miss cheap. */
static inline int
child(const struct json *j, int x, const char *p, size_t n, size_t avail)
{
	const struct jnode *nd = &j->nodes[x], *c;
	unsigned h;
	int i;

	if (nd->hmask == 0)
		return -1;
	for (h = hname(p, n);; h++) {
		if ((i = j->htab[nd->hoff + (h & nd->hmask)]) < 0)
			return -1;
		c = &j->nodes[i];
		if (c->len == n && named(c, p, n, avail))
			return i;
	}
}

/* The same, from the list of children, while the tables are built. */
static int
child_slow(const struct json *j, int x, const char *p, size_t n)
{
	int c;

	for (c = j->nodes[x].child; c >= 0; c = j->nodes[c].next)
		if (j->nodes[c].len == n && memcmp(j->nodes[c].name, p, n) == 0)
			return c;
	return -1;
}

/* Builds each node's table of children: a power of two, at least twice
 * their number, so that a probe meets an empty slot soon. */
static void
build_tables(struct json *j)
{
	size_t total = 0, size;
	int x, c, nkids, *tab;
	unsigned h, mask;

	for (x = 0; x < j->nnodes; x++) {
		for (nkids = 0, c = j->nodes[x].child; c >= 0;
		    c = j->nodes[c].next)
			nkids++;
		for (size = nkids ? 4 : 0; size != 0 && size < 2 * (size_t)nkids;
		    size *= 2)
			;
		mask = size ? (unsigned)size - 1 : 0;
		j->htab = xrealloc(j->htab, (total + size + 1) *
		    sizeof(*j->htab));
		tab = j->htab + total;
		memset(tab, 0xff, size * sizeof(*tab));		/* all -1 */
		for (c = j->nodes[x].child; c >= 0; c = j->nodes[c].next) {
			h = hname(j->nodes[c].name, j->nodes[c].len);
			while (tab[h & mask] >= 0)
				h++;
			tab[h & mask] = c;
		}
		j->nodes[x].hoff = total;
		j->nodes[x].hmask = mask;
		total += size;
	}
}

static int
add_node(struct json *j, int parent, const char *p, size_t n)
{
	struct jnode *nd;
	int x = j->nnodes++, *link;

	j->nodes = xrealloc(j->nodes, j->nnodes * sizeof(*j->nodes));
	nd = &j->nodes[x];
	nd->name = p;
	nd->len = n;
	nd->child = nd->next = -1;
	nd->term = nd->deep = 0;
	nd->w8 = 0;
	memcpy(&nd->w8, p, n < 8 ? n : 8);
	if (parent >= 0) {
		/* in the paths' order, so that lookups are predictable */
		for (link = &j->nodes[parent].child; *link >= 0;
		    link = &j->nodes[*link].next)
			;
		*link = x;
	}
	return x;
}

struct json *
json_new(const char *const *paths, size_t npaths)
{
	struct json *j;
	size_t i, total = 0, len;
	const char *p, *dot;
	char *q;
	int x, c;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		fwin_oom();
	for (i = 0; i < FLAT_NAMES; i++)
		j->flat[i].n = SIZE_MAX;
	for (i = 0; i < npaths; i++)
		total += strlen(paths[i]) + 1;
	j->names = xrealloc(NULL, total ? total : 1);
	j->slot = xrealloc(NULL, (npaths ? npaths : 1) * sizeof(*j->slot));
	j->npaths = npaths;
	add_node(j, -1, "", 0);		/* the root: the record */
	q = j->names;
	for (i = 0; i < npaths; i++) {
		len = strlen(paths[i]);
		memcpy(q, paths[i], len + 1);
		p = q;
		q += len + 1;
		x = 0;
		/* every dot separates names; names may be empty */
		for (;;) {
			dot = strchr(p, '.');
			len = dot != NULL ? (size_t)(dot - p) : strlen(p);
			if ((c = child_slow(j, x, p, len)) < 0)
				c = add_node(j, x, p, len);
			if (dot != NULL)
				j->nodes[x].deep = 1;
			x = c;
			if (dot == NULL)
				break;
			p = dot + 1;
		}
		j->nodes[x].term = 1;
		j->slot[i] = x;
	}
	build_tables(j);
	j->res = xrealloc(NULL, j->nnodes * sizeof(*j->res));
	j->shape.member = xrealloc(NULL, (npaths ? npaths : 1) *
	    sizeof(*j->shape.member));
	return j;
}

size_t
json_npaths(const struct json *j)
{
	return j->npaths;
}

void
json_free(struct json *j)
{
	if (j == NULL)
		return;
	free(j->nodes);
	free(j->htab);
	free(j->res);
	free(j->slot);
	free(j->names);
	free(j->scr);
	free(j->kbuf);
	free(j->shape.member);
	free(j);
}

/* --- scanning --- */

/* Bytes that end a run of plain string text: '"', '\\', controls. */
static const unsigned char special[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1,
};

#define STR(x)	#x
#define XSTR(x)	STR(x)

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/* The bytes of w that are '"', '\\' or below 0x20, as their high bits.
 * The usual zero-byte test: a borrow can mark a byte above a marked one,
 * never below, so the lowest mark is exact. */
static inline uint64_t
special8(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');

	return (((q - ONES) & ~q) | ((b - ONES) & ~b) |
	    ((w - ONES * 0x20) & ~w)) & HIGHS;
}

static inline int
isws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline size_t
skipws(const char *s, size_t n, size_t i)
{
	/* compact JSON has none: one test for the common case */
	if (i < n && (unsigned char)s[i] > ' ')
		return i;
	while (i < n && isws((unsigned char)s[i]))
		i++;
	return i;
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The 4 hex digits at p (known valid). */
static unsigned
hex4(const char *p)
{
	unsigned v = 0;
	int k;

	for (k = 0; k < 4; k++)
		v = v << 4 | (unsigned)hexval((unsigned char)p[k]);
	return v;
}

static char *
put_utf8(char *o, unsigned c)
{
	if (c < 0x80) {
		*o++ = (char)c;
	} else if (c < 0x800) {
		*o++ = (char)(0xC0 | c >> 6);
		*o++ = (char)(0x80 | (c & 0x3F));
	} else if (c < 0x10000) {
		*o++ = (char)(0xE0 | c >> 12);
		*o++ = (char)(0x80 | (c >> 6 & 0x3F));
		*o++ = (char)(0x80 | (c & 0x3F));
	} else {
		*o++ = (char)(0xF0 | c >> 18);
		*o++ = (char)(0x80 | (c >> 12 & 0x3F));
		*o++ = (char)(0x80 | (c >> 6 & 0x3F));
		*o++ = (char)(0x80 | (c & 0x3F));
	}
	return o;
}

/*
 * Undoes the escapes of the string text p[0..n), which scan_string()
 * checked, into o; returns the end. Never longer than the text: an escape
 * of 2 bytes gives 1, one of 6 at most 3, a pair of 12 gives 4.
 */
static char *
unescape(char *o, const char *p, size_t n)
{
	const char *e = p + n, *bs;
	unsigned c, lo;

	while (p < e) {
		if ((bs = memchr(p, '\\', (size_t)(e - p))) == NULL)
			bs = e;
		memcpy(o, p, (size_t)(bs - p));
		o += bs - p;
		if ((p = bs) == e)
			break;
		switch (p[1]) {
		case 'b': *o++ = '\b'; p += 2; continue;
		case 'f': *o++ = '\f'; p += 2; continue;
		case 'n': *o++ = '\n'; p += 2; continue;
		case 'r': *o++ = '\r'; p += 2; continue;
		case 't': *o++ = '\t'; p += 2; continue;
		case 'u': break;
		default: *o++ = p[1]; p += 2; continue;	/* " \ / */
		}
		c = hex4(p + 2);
		p += 6;
		if (c >= 0xD800 && c < 0xDC00 && e - p >= 6 && p[0] == '\\' &&
		    p[1] == 'u' && (lo = hex4(p + 2)) >= 0xDC00 && lo < 0xE000) {
			c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
			p += 6;
		} else if (c >= 0xD800 && c < 0xE000)
			c = 0xFFFD;	/* a lone surrogate */
		o = put_utf8(o, c);
	}
	return o;
}

/* Why a line is bad, kept until the scan unwinds. */
struct bad {
	const char *what;
	size_t at;
};

#define FAIL(w, i)	do { b->what = (w); b->at = (i); return 0; } while (0)

/*
 * s[i] is the '"' opening a string. Returns the index of its closing '"'
 * and sets *esc when it has escapes; 0 (never a closing quote's index)
 * when the string is bad, with *b said.
 */
static inline __attribute__((always_inline)) size_t
scan_string(const char *s, size_t n, size_t i, int *esc, struct bad *b)
{
	size_t open = i++;
	uint64_t w, m;
	unsigned char c;

	*esc = 0;
	for (;;) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (n - i >= 8) {
			memcpy(&w, s + i, 8);
			if ((m = special8(w)) == 0) {
				i += 8;
				continue;
			}
			i += (size_t)__builtin_ctzll(m) / 8;
		} else
#endif
		{
			(void)w;
			(void)m;
			while (i < n && !special[(unsigned char)s[i]])
				i++;
			if (i >= n)
				FAIL("unterminated string", open);
		}
		c = (unsigned char)s[i];
		if (c == '"')
			return i;
		if (c != '\\')
			FAIL("control character in a string", i);
		*esc = 1;
		if (i + 1 >= n)
			FAIL("unterminated string", open);
		switch (s[i + 1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			i += 2;
			break;
		case 'u':
			if (n - i < 6 || hexval(s[i + 2]) < 0 ||
			    hexval(s[i + 3]) < 0 || hexval(s[i + 4]) < 0 ||
			    hexval(s[i + 5]) < 0)
				FAIL("bad \\u escape in a string", i);
			i += 6;
			break;
		default:
			FAIL("bad escape in a string", i);
		}
	}
}

static inline int
isdig(char c)
{
	return (unsigned)(c - '0') < 10;
}

/* The index of the first byte from s[i] on that is not a digit, or n.
 * Eight bytes at a time: a byte x = c ^ '0' is a digit when x < 10,
 * that is when neither x nor x + 0x76 has its high bit set; a carry
 * out of a byte marks only bytes above a marked one, so the lowest mark
 * is exact. (Times are 10 to 19 digits.) */
static inline size_t
digits_end(const char *s, size_t n, size_t i)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, m;

	for (; n - i >= 8; i += 8) {
		memcpy(&w, s + i, 8);
		w ^= ONES * '0';
		if ((m = ((w + ONES * 0x76) | w) & HIGHS) != 0)
			return i + (size_t)__builtin_ctzll(m) / 8;
	}
#endif
	while (i < n && isdig(s[i]))
		i++;
	return i;
}

/* s[i] starts a number ('-' or a digit). Returns the index after it, or
 * 0 with *b said. */
static inline size_t
scan_number(const char *s, size_t n, size_t i, struct bad *b)
{
	size_t start = i;

	if (s[i] == '-')
		i++;
	if (i < n && s[i] == '0') {
		i++;
		if (i < n && isdig(s[i]))
			FAIL("bad number (a leading zero)", start);
	} else if (i < n && isdig(s[i]))
		i = digits_end(s, n, i + 1);
	else
		FAIL("bad number", start);
	if (i < n && s[i] == '.') {
		if (++i >= n || !isdig(s[i]))
			FAIL("bad number", start);
		i = digits_end(s, n, i + 1);
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || !isdig(s[i]))
			FAIL("bad number", start);
		i = digits_end(s, n, i + 1);
	}
	return i;
}

/* The terminal node x's value, found at depth: kept unless a value of
 * fewer levels was already found. */
static inline int
wants(const struct json *j, int x, int depth)
{
	return x >= 0 && j->nodes[x].term &&
	    (j->res[x].kind == JSON_MISSING || j->res[x].depth >= depth);
}

static inline void
put(struct json *j, int x, int depth, int kind, size_t off, size_t len,
    int scr)
{
	struct jres *r = &j->res[x];

	r->off = off;
	r->len = len;
	r->depth = depth;
	r->kind = (unsigned char)kind;
	r->scr = (unsigned char)scr;
}

/* The string s[a..e) with escapes, undone into the scratch buffer. */
static void
put_unescaped(struct json *j, int x, int depth, const char *s, size_t a,
    size_t e)
{
	size_t need = j->scrlen + (e - a), off = j->scrlen;
	char *end;

	if (need > j->scrcap) {
		j->scrcap = need > 2 * j->scrcap ? need : 2 * j->scrcap;
		j->scr = xrealloc(j->scr, j->scrcap + FIELD_PAD);
	}
	end = unescape(j->scr + off, s + a, e - a);
	j->scrlen = (size_t)(end - j->scr);
	memset(end, 0, FIELD_PAD);	/* (input.h: struct field) */
	put(j, x, depth, JSON_VALUE, off, j->scrlen - off, 1);
}

/* The node a member named s[a..e) (escapes esc) leads to from node x, or
 * -1; the line ends at s[len]. A name with dots walks one level per name
 * between them. */
static int
lookup(struct json *j, int x, const char *s, size_t a, size_t e, int esc,
    size_t len)
{
	const char *p = s + a, *lim = s + len, *dot;
	size_t n = e - a;
	int c;

	if (esc) {
		if (n > j->kcap) {
			j->kcap = n > 2 * j->kcap ? n : 2 * j->kcap;
			j->kbuf = xrealloc(j->kbuf, j->kcap);
		}
		n = (size_t)(unescape(j->kbuf, p, n) - j->kbuf);
		p = j->kbuf;
		lim = p + n;
	}
	/* the name as one member first: most names have no dot */
	if ((c = child(j, x, p, n, (size_t)(lim - p))) >= 0 ||
	    !j->nodes[x].deep || (dot = memchr(p, '.', n)) == NULL)
		return c;
	for (;;) {
		if ((x = child(j, x, p, (size_t)(dot - p),
		    (size_t)(lim - p))) < 0)
			return -1;
		n -= (size_t)(dot - p) + 1;
		p = dot + 1;
		if ((dot = memchr(p, '.', n)) == NULL)
			return child(j, x, p, n, (size_t)(lim - p));
	}
}

/*
 * A string, number, true, false or null at s[*ip], the value of vnode:
 * kept when wanted. Returns 0 with *ip past it, or -1 with *b said.
 */
static inline __attribute__((always_inline)) int
scan_scalar(struct json *j, const char *s, size_t n, size_t *ip, int vnode,
    int depth, struct bad *b)
{
	static const struct {
		const char *word;
		size_t len;
		int kind;
	} words[] = {
		{ .word = "true", .len = 4, .kind = JSON_VALUE },
		{ .word = "false", .len = 5, .kind = JSON_VALUE },
		{ .word = "null", .len = 4, .kind = JSON_NULL },
	};
	size_t i = *ip, e, w;
	int esc;

	if (s[i] == '"') {
		if ((e = scan_string(s, n, i, &esc, b)) == 0)
			return -1;
		if (wants(j, vnode, depth)) {
			if (esc)
				put_unescaped(j, vnode, depth, s, i + 1, e);
			else
				put(j, vnode, depth, JSON_VALUE, i + 1,
				    e - i - 1, 0);
		}
		*ip = e + 1;
		return 0;
	}
	if (s[i] == '-' || isdig(s[i])) {
		if ((e = scan_number(s, n, i, b)) == 0)
			return -1;
		if (wants(j, vnode, depth))
			put(j, vnode, depth, JSON_VALUE, i, e - i, 0);
		*ip = e;
		return 0;
	}
	for (w = 0; w < sizeof words / sizeof words[0]; w++)
		if (s[i] == words[w].word[0]) {
			if (n - i < words[w].len ||
			    memcmp(s + i, words[w].word, words[w].len) != 0)
				break;
			if (wants(j, vnode, depth))
				put(j, vnode, depth, words[w].kind, i,
				    words[w].kind == JSON_NULL ? 0 :
				    words[w].len, 0);
			*ip = i + words[w].len;
			return 0;
		}
	b->what = "expected a value";
	b->at = i;
	return -1;
}

/*
 * The scan proper: returns 1 for a record, 0 for a blank line, -1 for a
 * bad one with *b said. vnode is the terminal node (or -1) the value at
 * s[i] belongs to; depth counts the open objects and arrays.
 */
static int
scan(struct json *j, const char *s, size_t n, struct bad *b)
{
	struct frame *fr = NULL;
	size_t i, e;
	int depth = 0, vnode = -1, esc, x;

	if ((i = skipws(s, n, 0)) == n)
		return 0;
	if (s[i] != '{') {
		b->what = "expected '{'";
		goto bad;
	}

open:	/* s[i] is '{' or '[', the value of vnode */
	if (depth == JSON_MAXDEPTH) {
		b->what = "nested deeper than " XSTR(JSON_MAXDEPTH) " levels";
		goto bad;
	}
	fr = &j->stk[depth++];
	fr->start = i;
	fr->vnode = vnode;
	fr->obj = s[i] == '{';
	/* the root's node is 0; deeper, a node with children */
	fr->node = !fr->obj ? -1 : depth == 1 ? 0 :
	    vnode >= 0 && j->nodes[vnode].child >= 0 ? vnode : -1;
	/* a terminal node's object is kept as text (at close), and looked
	 * into too when a longer path goes on through it */
	i = skipws(s, n, i + 1);
	if (fr->obj) {
		if (i < n && s[i] == '}')
			goto close;
		if (i >= n || s[i] != '"') {
			b->what = "expected a member name or '}'";
			goto bad;
		}
		goto member;
	}
	if (i < n && s[i] == ']')
		goto close;
	vnode = -1;
	if (i >= n || (s[i] != '{' && s[i] != '[' && s[i] != '"' &&
	    s[i] != '-' && !isdig(s[i]) && s[i] != 't' && s[i] != 'f' &&
	    s[i] != 'n')) {
		b->what = "expected a value or ']'";
		goto bad;
	}
	goto value;

member:	/* s[i] is the '"' of a member name in frame fr */
	if ((e = scan_string(s, n, i, &esc, b)) == 0)
		return -1;
	vnode = fr->node >= 0 ? lookup(j, fr->node, s, i + 1, e, esc, n) : -1;
	i = skipws(s, n, e + 1);
	if (i >= n || s[i] != ':') {
		b->what = "expected ':'";
		goto bad;
	}
	i = skipws(s, n, i + 1);

value:	/* s[i] should start the value of vnode */
	if (i >= n) {
		b->what = "expected a value";
		goto bad;
	}
	switch (s[i]) {
	case '{':
	case '[':
		goto open;
	default:
		if (scan_scalar(j, s, n, &i, vnode, depth, b) < 0)
			return -1;
		break;
	}

next:	/* after a value in frame fr */
	i = skipws(s, n, i);
	if (i < n && s[i] == ',') {
		i = skipws(s, n, i + 1);
		if (fr->obj) {
			if (i >= n || s[i] != '"') {
				b->what = "expected a member name";
				goto bad;
			}
			goto member;
		}
		vnode = -1;
		goto value;
	}
	if (i < n && s[i] == (fr->obj ? '}' : ']'))
		goto close;
	b->what = fr->obj ? "expected ',' or '}'" : "expected ',' or ']'";
	goto bad;

close:	/* s[i] closes frame fr */
	i++;
	x = fr->vnode;
	if (--depth == 0) {
		if ((i = skipws(s, n, i)) != n) {
			b->what = "trailing characters after the object";
			goto bad;
		}
		return 1;
	}
	if (wants(j, x, depth))
		put(j, x, depth, JSON_VALUE, fr->start, i - fr->start, 0);
	fr = &j->stk[depth - 1];
	goto next;

bad:
	b->at = i;
	return -1;
}

/*
 * The common line in one pass: a flat object with no space between its
 * tokens ({"ts":1,"k":"a"}), each member's value a string, a number,
 * true, false or null. Returns 1 with the values kept as scan() keeps
 * them, or 0 for scan() to read the line from its start: anything else,
 * a mistake included, which scan() says.
 */
static int
scan_flat(struct json *j, const char *s, size_t n)
{
	struct flatname *fn;
	struct bad b;
	size_t i = 1, e, k, len;
	uint64_t w;
	int x, esc;

	if (n < 3 || s[0] != '{' || s[n - 1] != '}')
		return 0;
	j->nseen = 0;
	for (k = 0;; k++) {
		if (s[i] != '"' || (e = scan_string(s, n, i, &esc, &b)) == 0)
			return 0;
		if (j->nseen == SIZE_MAX || esc || k >= SHAPE_MEMBERS ||
		    e + 2 - (i - 1) > SHAPE_BYTES)
			j->nseen = SIZE_MAX;	/* (for the rest of the line) */
		else {
			j->seen[k].from = i - 1;
			j->seen[k].len = e + 2 - (i - 1);
			j->nseen = k + 1;
		}
		len = e - i - 1;
		fn = &j->flat[k % FLAT_NAMES];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (!esc && len <= 8) {
			/* (no byte past the line is read) */
			if (n - i - 1 >= 8) {
				memcpy(&w, s + i + 1, 8);
				if (len < 8)
					w &= ((uint64_t)1 << (8 * len)) - 1;
			} else {
				w = 0;
				memcpy(&w, s + i + 1, len);
			}
			if (fn->n != len || fn->w != w) {
				fn->node = lookup(j, 0, s, i + 1, e, 0, n);
				fn->n = len;
				fn->w = w;
			}
			x = fn->node;
		} else
#endif
			x = lookup(j, 0, s, i + 1, e, esc, n);
		(void)fn;
		(void)w;
		i = e + 1;
		if (s[i] != ':')
			return 0;
		i++;
		if (j->nseen != SIZE_MAX)
			j->seen[k].node = x;
		if (s[i] == '{' || s[i] == '[' ||
		    scan_scalar(j, s, n, &i, x, 1, &b) != 0)
			return 0;
		if (s[i] == '}')
			return i == n - 1;
		if (s[i++] != ',')
			return 0;
	}
}

/* The shape of the line scan_flat() has just read (its members j->seen),
 * or none when it has no shape to keep. */
static void
shape_keep(struct json *j, const char *s)
{
	struct shape *sh = &j->shape;
	size_t i, k;

	sh->n = 0;
	if (j->nseen == SIZE_MAX || j->nseen == 0)
		return;
	for (k = 0; k < j->nseen; k++) {
		memset(sh->m[k].w, 0, SHAPE_BYTES);
		memcpy(sh->m[k].w, s + j->seen[k].from, j->seen[k].len);
		sh->m[k].len = j->seen[k].len;
	}
	/* each path's member: the last that leads to its node, as the
	 * last of a name is kept (top) */
	for (i = 0; i < j->npaths; i++) {
		sh->member[i] = -1;
		for (k = 0; k < j->nseen; k++)
			if (j->seen[k].node == j->slot[i])
				sh->member[i] = (int)k;
	}
	sh->n = j->nseen;
}

/* Whether s[i..n) begins with member m's bytes. */
static inline int
shape_bytes_at(const struct shape_member *m, const char *s, size_t n,
    size_t i)
{
	uint64_t a, b, mask;

	if (n - i < m->len)
		return 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* a load of 8 bytes, or two, when the line has them: the bytes past
	 * len are zero in m, masked off in the line */
	if (m->len <= 8 && n - i >= 8) {
		memcpy(&a, s + i, 8);
		mask = m->len == 8 ? ~(uint64_t)0 :
		    ((uint64_t)1 << (8 * m->len)) - 1;
		return (a & mask) == m->w[0];
	}
	if (m->len > 8 && n - i >= SHAPE_BYTES) {
		memcpy(&a, s + i, 8);
		memcpy(&b, s + i + 8, 8);
		mask = m->len == 16 ? ~(uint64_t)0 :
		    ((uint64_t)1 << (8 * (m->len - 8))) - 1;
		return a == m->w[0] && (b & mask) == m->w[1];
	}
#endif
	(void)a, (void)b, (void)mask;
	return memcmp(s + i, m->w, m->len) == 0;
}

/*
 * A line of the last flat line's shape: its members' names in the same
 * order, each value a string without escapes or a number. Returns 1 with
 * f and kind filled as json_scan() fills them, or 0 (nothing written)
 * for scan_flat() to read the line.
 */
static int
scan_shape(struct json *j, const char *s, size_t n, struct field *f,
    unsigned char *kind)
{
	struct shape *sh = &j->shape;
	struct shape_member *m;
	struct bad b;
	size_t i = 0, e, k;
	int esc;

	for (k = 0; k < sh->n; k++) {
		m = &sh->m[k];
		if (!shape_bytes_at(m, s, n, i))
			return 0;
		i += m->len;
		if (i >= n)
			return 0;
		if (s[i] == '"') {
			if ((e = scan_string(s, n, i, &esc, &b)) == 0 || esc)
				return 0;
			m->at = i + 1;
			m->vlen = e - i - 1;
			i = e + 1;
		} else if (s[i] == '-' || isdig(s[i])) {
			if ((e = scan_number(s, n, i, &b)) == 0)
				return 0;
			m->at = i;
			m->vlen = e - i;
			i = e;
		} else
			return 0;
	}
	if (i != n - 1 || s[i] != '}')
		return 0;
	for (k = 0; k < j->npaths; k++) {
		if (sh->member[k] < 0) {
			f[k].p = no_bytes;
			f[k].n = 0;
		} else {
			m = &sh->m[sh->member[k]];
			f[k].p = s + m->at;
			f[k].n = m->vlen;
		}
		if (kind != NULL)
			kind[k] = sh->member[k] < 0 ? JSON_MISSING : JSON_VALUE;
	}
	j->scrlen = 0;
	return 1;
}

/* Every node's value not seen yet. */
static void
forget(struct json *j)
{
	int x;

	for (x = 0; x < j->nnodes; x++)
		j->res[x].kind = JSON_MISSING;
	j->scrlen = 0;
}

int
json_scratched(const struct json *j)
{
	return j->scrlen > 0;
}

int
json_scan(struct json *j, const char *line, size_t n, struct field *f,
    unsigned char *kind, const char **err)
{
	const struct jres *r;
	struct bad b;
	size_t i;
	int rc;

	if (j->shape.n != 0 && scan_shape(j, line, n, f, kind))
		return 1;
	forget(j);
	b.what = NULL;
	b.at = 0;
	if (scan_flat(j, line, n)) {
		shape_keep(j, line);
		rc = 1;
	} else {
		forget(j);
		rc = scan(j, line, n, &b);
	}
	if (rc < 0) {
		snprintf(j->err, sizeof(j->err),
		    "not a JSON object: %s at byte %zu%s", b.what, b.at + 1,
		    b.at >= n ? " (end of line)" : "");
		*err = j->err;
		return -1;
	}
	if (rc == 0)
		return 0;
	for (i = 0; i < j->npaths; i++) {
		r = &j->res[j->slot[i]];
		if (kind != NULL)
			kind[i] = r->kind;
		if (r->kind == JSON_VALUE) {
			f[i].p = (r->scr ? j->scr : line) + r->off;
			f[i].n = r->len;
		} else {
			f[i].p = no_bytes;
			f[i].n = 0;
		}
	}
	return 1;
}
