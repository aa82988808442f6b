/* wire: a parsed record's values in a compact form, for records handed
 * from one thread to another (reader.c's slots, workers.c's chunks).
 * Only the aggregates that take a FIELD (or the record) have values: a struct wval each,
 * then, after whatever else the caller puts there, their bytes (text,
 * then OUT text for min-by and max-by). */
#ifndef FWIN_WIRE_H
#define FWIN_WIRE_H

#include <stdint.h>
#include <string.h>

#include "window/agg.h"
#include "pipeline/config.h"

#define WNULL UINT64_MAX	/* a NULL value's length */

struct wval {
	uint64_t n, outn;	/* its text's and OUT's lengths */
	double d;
	uint64_t m[2];		/* its exact decimal (struct dec) */
	int32_t scale;
	uint32_t is_dec;	/* 1: m, scale hold it; 2: with an exponent */
};

/* Which aggregates of a pipeline have values. */
struct wire_fields {
	const struct config *c;
	size_t *vf, nvf;	/* indexes of the aggregates that take a FIELD */
	unsigned char *out;	/* per vf: it takes an OUT text too */
	unsigned char *text;	/* per vf: its text crosses. In a stream,
				 * only where its aggregate's add reads it:
				 * a value is only added there (a batch
				 * keeps its text, to read it again once
				 * sorted); "" in its place */
	int bytes;		/* some vf's text or OUT crosses */
};

void wire_fields_init(struct wire_fields *f, const struct config *c);
void wire_fields_fini(struct wire_fields *f);

static inline int
wire_has_out(const struct wire_fields *f, size_t i)
{
	return f->out[i];
}

/* Copies p[0..n) to at and returns at + n: inline, as the fields of a
 * record are short and a call to memcpy(3) costs more than their copy
 * (overlapping moves of 8 or 4 bytes; never a byte read past p + n). */
static inline char *
wire_put_bytes(char *at, const char *p, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n > 16)
		memcpy(at, p, n);
	else if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
		memcpy(at, &a, 8);
		memcpy(at + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&c, p, 4);
		memcpy(&d, p + n - 4, 4);
		memcpy(at, &c, 4);
		memcpy(at + n - 4, &d, 4);
	} else if (n > 0) {
		at[0] = p[0];
		at[n / 2] = p[n / 2];
		at[n - 1] = p[n - 1];
	}
	return at + n;
}

/* The bytes of values vals (indexed by aggregate) after their wvals. */
static inline size_t
wire_vals_bytes(const struct wire_fields *f, const struct aval *vals)
{
	size_t i, n = 0;

	for (i = 0; f->bytes && i < f->nvf; i++) {
		const struct aval *v = &vals[f->vf[i]];

		if (v->p != NULL)
			n += (f->text[i] ? v->n : 0) +
			    (wire_has_out(f, i) ? v->outn : 0);
	}
	return n;
}

/* Writes vals as f->nvf wvals at wv and their bytes at at; returns the
 * end of the bytes. */
static inline char *
wire_vals_put(const struct wire_fields *f, const struct aval *vals,
    struct wval *wv, char *at)
{
	size_t i;

	for (i = 0; i < f->nvf; i++, wv++) {
		const struct aval *v = &vals[f->vf[i]];

		if (v->p == NULL) {
			wv->n = WNULL;
			continue;
		}
		wv->n = v->n;
		wv->d = v->d;
		wv->is_dec = (uint32_t)v->is_dec;
		if (v->is_dec) {
			memcpy(wv->m, &v->dec.m, sizeof(wv->m));
			wv->scale = v->dec.scale;
			wv->is_dec |= v->dec.exp ? 2 : 0;
		}
		if (f->text[i])
			at = wire_put_bytes(at, v->p, v->n);
		if (wire_has_out(f, i)) {
			wv->outn = v->outn;
			at = wire_put_bytes(at, v->out, v->outn);
		}
	}
	return at;
}

/* Reads back into vals what wire_vals_put() wrote at wv and b (vals then
 * point into b); returns the end of the bytes. */
static inline const char *
wire_vals_get(const struct wire_fields *f, const struct wval *wv,
    const char *b, struct aval *vals)
{
	size_t i;

	for (i = 0; i < f->nvf; i++, wv++) {
		struct aval *v = &vals[f->vf[i]];

		if (wv->n == WNULL) {
			v->p = NULL;
			v->n = 0;
			continue;
		}
		if (f->text[i]) {
			v->p = b;
			v->n = wv->n;
			b += wv->n;
		} else {
			v->p = "";
			v->n = 0;
		}
		v->d = wv->d;
		v->is_dec = (int)(wv->is_dec & 1);
		if (v->is_dec) {
			memcpy(&v->dec.m, wv->m, sizeof(wv->m));
			v->dec.scale = wv->scale;
			v->dec.exp = (wv->is_dec & 2) != 0;
		}
		if (wire_has_out(f, i)) {
			v->out = b;
			v->outn = wv->outn;
			b += wv->outn;
		}
	}
	return b;
}

#endif
