/* srcwm: per-input watermarks; see srcwm.h. */
#include <stdlib.h>

#include "run/srcwm.h"
#include "window/state.h"
#include "base/util.h"

struct src {
	int64_t maxt;		/* INT64_MIN: no record yet */
	int64_t seen;		/* wall time of its last record (or start) */
};

struct srcwm {
	int n;
	int64_t idle;
	struct src s[];
};

struct srcwm *
srcwm_new(int n, int64_t idle, int64_t now)
{
	struct srcwm *s = xmalloc(sizeof(*s) + (size_t)n * sizeof(s->s[0]));
	int i;

	s->n = n;
	s->idle = idle;
	for (i = 0; i < n; i++) {
		s->s[i].maxt = INT64_MIN;
		s->s[i].seen = now;
	}
	return s;
}

void
srcwm_free(struct srcwm *s)
{
	free(s);
}

void
srcwm_record(struct srcwm *s, int i, int64_t t, int64_t now)
{
	if (i < 0 || i >= s->n)
		return;
	if (t > s->s[i].maxt)
		s->s[i].maxt = t;
	s->s[i].seen = now;
}

static int
is_idle(const struct srcwm *s, int i, int64_t now)
{
	return s->idle > 0 && now - s->s[i].seen >= s->idle;
}

int64_t
srcwm_min(const struct srcwm *s, int64_t now)
{
	int64_t m = T_NONE;
	int i;

	for (i = 0; i < s->n; i++)
		if (!is_idle(s, i, now) && s->s[i].maxt < m)
			m = s->s[i].maxt;
	return m != T_NONE ? m : srcwm_all_idle(s);
}

/* The watermark is what it was when the last of them went idle, the
 * others left out before it: that one's own (a look now and then must
 * not miss the moment). */
int64_t
srcwm_all_idle(const struct srcwm *s)
{
	int64_t m = T_NONE, last = INT64_MIN;
	int i;

	for (i = 0; i < s->n; i++)
		if (s->s[i].seen > last)
			last = s->s[i].seen;
	for (i = 0; i < s->n; i++)
		if (s->s[i].seen == last && s->s[i].maxt < m)
			m = s->s[i].maxt;
	return m;
}

int64_t
srcwm_next_idle(const struct srcwm *s, int64_t now)
{
	int64_t due = T_NONE;
	int i;

	if (s->idle <= 0)
		return T_NONE;
	for (i = 0; i < s->n; i++)
		if (!is_idle(s, i, now) && s->s[i].seen + s->idle < due)
			due = s->s[i].seen + s->idle;
	return due;
}
