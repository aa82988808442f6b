/* exec: the strategies' table of methods, by the plan's names; see
 * exec.h. */
#include "exec/exec.h"

static const struct ex_methods *const all[ST_N] = {
	[ST_ORDERED] = &ex_ordered,
	[ST_KEYED] = &ex_keyed,
	[ST_STREAMTABLE] = &ex_streamtable,
	[ST_HALVES] = &ex_halves,
	[ST_TABLE] = &ex_table,
	[ST_STRAIGHT] = &ex_straight,
	[ST_SORTED] = &ex_sorted,
};

const struct ex_methods *
ex_methods(enum strategy s)
{
	return all[s];
}
