/* warm: warming the cache for the records the reading thread read ahead
 * (source_ahead), so that their misses overlap the work on the record
 * before them instead of following it: the operator's keys and panes
 * (st_prefetch), once its state has outgrown the cache. A table of groups looks ahead by itself, a batch of
 * records at a time (hashagg_look_ahead), which the measurements favour
 * over warming one record at a time from here. */
#ifndef FWIN_WARM_H
#define FWIN_WARM_H

#include "window/operator.h"
#include "flow/source.h"

void warm_op(struct op *op, struct source *from);

#endif
