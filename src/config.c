/* config: FIELD references and their resolution against the header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

const char *
config_field(struct fieldref *f, const char *spec)
{
	f->spec = spec;
	f->name = spec;
	if (*spec == '\0')
		return "empty";
	if (all_digits(spec)) {
		unsigned long long v = strtoull(spec, NULL, 10);

		if (v < 1 || v > 1000000000)
			return "field numbers run from 1 to 1000000000";
		f->idx = (size_t)v - 1;
	} else
		f->idx = SIZE_MAX;	/* a name: resolved with the header */
	return NULL;
}

/* Resolves one reference; returns 0 or -1 (reported). */
static int
resolve(const struct config *c, struct fieldref *f, const struct field *names,
    size_t n)
{
	size_t i, len = strlen(f->spec);

	if (f->idx != SIZE_MAX) {
		if (names != NULL && f->idx < n) {
			/* headers show the column's name, not its number */
			char *s = strndup(names[f->idx].p, names[f->idx].n);

			if (s == NULL)
				abort();
			f->name = f->owned = s;
		}
		return 0;
	}
	if (!c->header) {
		fprintf(stderr, "fwin: field name '%s' needs -H (a header row)\n",
		    f->spec);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (names[i].n == len && memcmp(names[i].p, f->spec, len) == 0) {
			f->idx = i;
			return 0;
		}
	fprintf(stderr, "fwin: no field '%s' in the header\n", f->spec);
	return -1;
}

int
config_resolve(struct config *c, const struct field *names, size_t n)
{
	size_t i;

	for (i = 0; i < c->nkeys; i++)
		if (resolve(c, &c->keys[i], names, n) != 0)
			return -1;
	if (c->has_time && resolve(c, &c->time, names, n) != 0)
		return -1;
	for (i = 0; i < c->naggs; i++) {
		if (c->aggs[i].kind != AG_COUNT &&
		    resolve(c, &c->aggs[i].f, names, n) != 0)
			return -1;
		if (c->aggs[i].has_out &&
		    resolve(c, &c->aggs[i].out, names, n) != 0)
			return -1;
	}
	return 0;
}

size_t
config_maxfield(const struct config *c)
{
	size_t i, m = 1;

#define SEE(f) do { if ((f).idx + 1 > m) m = (f).idx + 1; } while (0)
	for (i = 0; i < c->nkeys; i++)
		SEE(c->keys[i]);
	if (c->has_time)
		SEE(c->time);
	for (i = 0; i < c->naggs; i++) {
		if (c->aggs[i].kind != AG_COUNT)
			SEE(c->aggs[i].f);
		if (c->aggs[i].has_out)
			SEE(c->aggs[i].out);
	}
#undef SEE
	return m;
}

void
config_free(struct config *c)
{
	size_t i;

	for (i = 0; i < c->nkeys; i++)
		free(c->keys[i].owned);
	free(c->time.owned);
	for (i = 0; i < c->naggs; i++) {
		free(c->aggs[i].f.owned);
		free(c->aggs[i].out.owned);
	}
	free(c->keys);
	free(c->aggs);
}
