/* warm: warming the cache for records read ahead; see warm.h. */
#include <stddef.h>

#include "window/state.h"
#include "exec/warm.h"

/* A stage of the prefetch at each distance ahead. */
static const size_t dist[] = { 12, 8, 4 };

/* A state smaller than this stays in the cache: warming it costs the
 * look at the records ahead and saves nothing (as the table's
 * look-ahead, hashint.h's AHEAD_FROM). */
#define WARM_FROM	((uint64_t)16 << 20)

void
warm_op(struct op *op, struct source *from)
{
	const struct state *s = op_state(op);
	uint64_t h;
	int stage;

	if (arena_hdr(&s->a)->ah_used < WARM_FROM)
		return;
	for (stage = 0; stage < 3; stage++)
		if (source_ahead(from, dist[stage], &h))
			st_prefetch(s, h, stage);
}
