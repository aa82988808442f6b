/* warm: warming the cache for records read ahead; see warm.h. */
#include <stddef.h>

#include "window/state.h"
#include "exec/warm.h"

/* A stage of the prefetch at each distance ahead. */
static const size_t dist[] = { 12, 8, 4 };

void
warm_op(struct op *op, const struct source *from)
{
	uint64_t h;
	int stage;

	for (stage = 0; stage < 3; stage++)
		if (source_ahead(from, dist[stage], &h))
			st_prefetch(op_state(op), h, stage);
}
