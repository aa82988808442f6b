/* warm: warming the cache for records read ahead; see warm.h. */
#include <stddef.h>

#include "window/state.h"
#include "exec/warm.h"

/* A stage of the prefetch at each distance ahead. */
static const size_t dist[] = { 12, 8, 4 };

void
warm_op(struct op *op, const struct source *from)
{
	const int64_t *win;
	uint64_t h;
	int stage;

	for (stage = 0; stage < 3; stage++)
		if (source_ahead(from, dist[stage], &h, &win))
			st_prefetch(op_state(op), h, stage);
}

void
warm_table(const struct hashagg *t, const struct source *from)
{
	const int64_t *win;
	uint64_t h;
	int stage;

	/* the table's slot, then its group */
	for (stage = 0; stage < 2; stage++)
		if (source_ahead(from, dist[stage + 1], &h, &win) &&
		    win != NULL)
			hashagg_prefetch(t, *win, h, stage);
}
