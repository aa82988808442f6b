/* tableint: the insides the (window, key) table strategies share:
 * streamtable.c (a table fired as the watermark passes its windows,
 * which batch mode's table is too while the records come in time
 * order), table.c (batch mode's) and halves.c (two of either); no other
 * module includes it. */
#ifndef FWIN_TABLEINT_H
#define FWIN_TABLEINT_H

#include "exec/exec.h"
#include "exec/hashagg.h"
#include "exec/hold.h"

/* A table fired as its watermark passes its windows (hashagg_stream):
 * a stream's, or a batch's while its records come in time order. */
struct stable {
	struct ex_env *env;
	struct hashagg *h;
	uint64_t fired;		/* rows it fired */
	/* batch mode: the driver's watermark follows the records it takes
	 * (stable_record), and advance() is the operator's */
	int batch;
	/* a stream read once (a pipe): no give-up, its rows fired as soon
	 * as input would block */
	int once;
};

/* The second half's (halves.c), for the end: its table, joined (or
 * NULL), and the rows its thread fired into scratch file fd. */
struct half {
	struct hashagg *h2;
	int fd;
	uint64_t rows;
};

/* The stream table's budget: FWIN_TABLE_BUDGET bytes, or half of batch
 * mode's sort budget. */
uint64_t stable_budget(void);

/* Begins t: a table of budget bytes whose windows end lateness after
 * the largest time. */
void stable_init(struct stable *t, struct ex_env *env, uint64_t budget,
    int64_t lateness, int batch);
void stable_fini(struct stable *t);
int stable_record(struct stable *t, const struct parsed *pr,
    const struct op_rec *orec);
void stable_advance(struct stable *t, int64_t w, int64_t maxt);
/* The end (hf: the second half's, or NULL): every window fires, both
 * halves' groups merged; with failed, what is due. Returns 0, -1 after
 * a message, or EX_GIVEUP (a --cumulate fold it cannot give). */
int stable_end(struct stable *t, int failed, const struct half *hf);
/* Gives up: the operator is to start where the input starts. */
void stable_give_up(struct stable *t, struct ex_left *left);
/* --stats of table h: its groups (each window's key a key of its own)
 * and peak, both halves' (hf, or NULL); how: in time order, or as read. */
void table_stats(const struct hashagg *h, const struct half *hf,
    int in_order, struct ex_size *z);
/* --progress of table h: the windows and the groups it holds now. */
void table_live(const struct hashagg *h, struct ex_size *z);

/* Batch mode's table (table.c): the table it fills, whether the records
 * came in time order so far (then *max: its budget), and its end. */
struct table;
struct hashagg *table_hashagg(struct table *t, int *in_order,
    uint64_t *max);
int table_end(struct table *t, int flush, int failed, const struct half *hf);
void table_size(const struct table *t, const struct half *hf,
    struct ex_size *z);

#endif
