/* ckpt: the checkpoint file — save, open and verify, inspect. */
#ifndef FWIN_CKPT_H
#define FWIN_CKPT_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "input.h"

#define CK_NONE UINT64_MAX	/* no such output file */

/* What a checkpoint records beside the state. */
struct ckpt_meta {
	uint64_t generation;		/* saves so far, this one included */
	uint64_t outlen, latelen;	/* -o and --late-file lengths, or CK_NONE */
	int64_t saved;			/* wall time of the save, ns */
	const char *fingerprint;	/* the pipeline's definition */
	const struct input_pos *inputs;	/* per FILE operand */
	int ninputs;
	const char *const *names;	/* FILE operands, for --inspect */
};

/* Saves the arena a (its used bytes) and m to path atomically: a crash at
 * any moment leaves the old file or the new one, whole. Returns 0, or -1
 * after printing a message (the old checkpoint is then intact). */
int ckpt_save(const char *path, const struct arena *a,
    const struct ckpt_meta *m);

struct ckpt;

/* Opens path and verifies it (magic, version, lengths, checksum) before
 * anything in it is used. Returns NULL after printing "fwin: path: what
 * is wrong". The payload is mapped, not read. */
struct ckpt *ckpt_open(const char *path);

const struct ckpt_meta *ckpt_meta(const struct ckpt *k);

/* Hands the mapped payload to a as its arena (see arena_attach) and
 * returns its used length; the checkpoint no longer owns it. */
uint64_t ckpt_take_arena(struct ckpt *k, struct arena *a);

void ckpt_close(struct ckpt *k);

/* --inspect: prints path's metadata and a summary of its state to out.
 * Returns 0, or 1 when the file fails verification (said in the output
 * and on stderr). */
int ckpt_inspect(const char *path, FILE *out);

#endif
