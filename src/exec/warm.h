/* warm: warming the cache for the records the reading thread read ahead
 * (source_ahead), so that their misses overlap the work on the record
 * before them instead of following it: the operator's keys and panes
 * (st_prefetch), or a table's slot and group (hashagg_prefetch). */
#ifndef FWIN_WARM_H
#define FWIN_WARM_H

#include "exec/hashagg.h"
#include "window/operator.h"
#include "flow/source.h"

void warm_op(struct op *op, const struct source *from);
void warm_table(const struct hashagg *h, const struct source *from);

#endif
