/* json: JSON Lines records, one RFC 8259 object per line, projected to the
 * fields a pipeline names. A path is a member name, or member names joined
 * by dots into nested objects ("user.id"); how paths, values, duplicates
 * and odd text are read is told at the top of json.c, written for the
 * man page's Records part of OPTIONS. Nothing is allocated per record. */
#ifndef FWIN_JSON_H
#define FWIN_JSON_H

#include <stddef.h>

#include "io/input.h"		/* struct field */

/* Deeper nesting of objects and arrays makes a line a bad record. */
#define JSON_MAXDEPTH	512

/* What a path found in a record (json_scan()'s kind[]). */
enum json_kind {
	JSON_MISSING,	/* no such member, or a step of the path is not an
			   object: the field is empty */
	JSON_NULL,	/* the member is null: the field is empty */
	JSON_VALUE	/* a string (maybe ""), number, true, false, object
			   or array */
};

struct json;

/* Compiles the paths paths[0..npaths) (NUL-terminated; copied), in the
 * order of the fields json_scan() fills. The same path may be given twice.
 * Never NULL (exits on OOM). */
struct json *json_new(const char *const *paths, size_t npaths);

/*
 * Reads line[0..n) (a line without its '\n'; the caller drops a '\r'
 * before it) as one JSON object. Returns 1 and fills f[0..npaths) and,
 * when kind is not NULL, kind[0..npaths) (enum json_kind); 0 when the line
 * is blank (spaces, tabs and CRs only): no record; -1 when it is not one
 * JSON object: *err says what is wrong and at which byte (1-based), e.g.
 * "not a JSON object: expected ',' or '}' at byte 17", valid until the
 * next call. f[i].p points into line, or into j's scratch buffer for a
 * string with escapes; it is valid until the next json_scan() on j, and
 * while line is. An empty field (missing, null) has f[i].p = "", n = 0.
 */
int json_scan(struct json *j, const char *line, size_t n, struct field *f,
    unsigned char *kind, const char **err);

/* Whether a field's text p is the empty one json_scan() gives for a
 * member that is missing or null (not an empty string's). */
int json_absent(const char *p);

/* Whether the fields of j's last json_scan() point into its scratch
 * buffer (a string with escapes), which the next one writes over. */
int json_scratched(const struct json *j);

/* The number of paths j was compiled with. */
size_t json_npaths(const struct json *j);

void json_free(struct json *j);

#endif
