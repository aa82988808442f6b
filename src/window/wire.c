/* wire: which aggregates have values on the wire (wire.h). */
#include <stdlib.h>

#include "base/util.h"
#include "window/wire.h"

void
wire_fields_init(struct wire_fields *f, const struct config *c)
{
	size_t i;

	f->c = c;
	f->nvf = 0;
	/* (read at every record by two threads: lines of their own, that
	 * nothing written shares) */
	f->vf = xcalloc_lines((c->naggs ? c->naggs : 1) * sizeof(*f->vf));
	f->out = xcalloc_lines(c->naggs ? c->naggs : 1);
	f->text = xcalloc_lines(c->naggs ? c->naggs : 1);
	f->bytes = 0;
	for (i = 0; i < c->naggs; i++)
		if (aggspec_valued(&c->aggs[i])) {
			unsigned fl = c->aggs[i].op->flags;

			f->out[f->nvf] = (fl & AGF_OUT) != 0;
			f->text[f->nvf] = c->mode != MODE_STREAM ||
			    (fl & (AGF_READTEXT | AGF_PRIOR | AGF_RECORD)) != 0;
			f->bytes |= f->out[f->nvf] | f->text[f->nvf];
			f->vf[f->nvf++] = i;
		}
}

void
wire_fields_fini(struct wire_fields *f)
{
	free(f->vf);
	free(f->out);
	free(f->text);
	f->vf = NULL;
	f->out = NULL;
	f->text = NULL;
	f->nvf = 0;
}
